// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

/// @title SilentSkimERC20
/// @notice Test token whose transfers log the full amount but credit the recipient less: a cut
///         of every transfer goes to `skimmer` with no log of its own. Only the recipient's
///         balance shows what it really received.
/// @dev Never deploy outside tests: anyone can mint any amount to anyone.
contract SilentSkimERC20 {
    /*//////////////////////////////////////////////////////////////
                                 EVENTS
    //////////////////////////////////////////////////////////////*/

    /// @notice The ERC-20 transfer event, with the amount the sender paid.
    event Transfer(address indexed from, address indexed to, uint256 value);

    /// @notice The ERC-20 approval event.
    event Approval(address indexed owner, address indexed spender, uint256 value);

    /*//////////////////////////////////////////////////////////////
                                 STORAGE
    //////////////////////////////////////////////////////////////*/

    /// @notice Where the cut goes.
    address public immutable skimmer;

    /// @notice The cut of every transfer, in basis points.
    uint256 public immutable skimBps;

    /// @notice ERC-20 balances.
    mapping(address => uint256) public balanceOf;

    /// @notice ERC-20 allowances.
    mapping(address => mapping(address => uint256)) public allowance;

    /// @notice ERC-20 total supply.
    uint256 public totalSupply;

    /// @notice ERC-20 decimals.
    uint8 public constant decimals = 18;

    /*//////////////////////////////////////////////////////////////
                               CONSTRUCTOR
    //////////////////////////////////////////////////////////////*/

    /// @param skimmer_ Where the cut goes.
    /// @param skimBps_ The cut, in basis points (at most 10,000).
    constructor(address skimmer_, uint256 skimBps_) {
        require(skimBps_ <= 10_000, "bps");
        skimmer = skimmer_;
        skimBps = skimBps_;
    }

    /*//////////////////////////////////////////////////////////////
                                EXTERNAL
    //////////////////////////////////////////////////////////////*/

    /// @notice Mints `amount` to `to` (fee-free, logged).
    function mint(address to, uint256 amount) external {
        totalSupply += amount;
        balanceOf[to] += amount;
        emit Transfer(address(0), to, amount);
    }

    /// @notice ERC-20 `approve`.
    function approve(address spender, uint256 amount) external returns (bool) {
        allowance[msg.sender][spender] = amount;
        emit Approval(msg.sender, spender, amount);
        return true;
    }

    /// @notice ERC-20 `transfer`, skimming silently.
    function transfer(address to, uint256 amount) external returns (bool) {
        _move(msg.sender, to, amount);
        return true;
    }

    /// @notice ERC-20 `transferFrom`, skimming silently.
    function transferFrom(address from, address to, uint256 amount) external returns (bool) {
        uint256 allowed = allowance[from][msg.sender];
        if (allowed != type(uint256).max) allowance[from][msg.sender] = allowed - amount;
        _move(from, to, amount);
        return true;
    }

    /*//////////////////////////////////////////////////////////////
                                INTERNAL
    //////////////////////////////////////////////////////////////*/

    function _move(address from, address to, uint256 amount) internal {
        uint256 cut = amount * skimBps / 10_000;
        balanceOf[from] -= amount;
        balanceOf[to] += amount - cut;
        balanceOf[skimmer] += cut;
        emit Transfer(from, to, amount);
    }
}
