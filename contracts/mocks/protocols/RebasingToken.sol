// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

/// @title RebasingToken
/// @notice Test rebasing token in Lido's stETH shape: the ledger keeps shares, `balanceOf` is
///         the holder's shares times the pooled ether per share (rounded down), a transfer moves
///         the shares its amount is worth, and the oracle rebases by setting the pooled ether.
///         No view answers a holder's shares as `balanceOf` does: the ledger is a record only
///         the token's own `sharesOf` reads.
/// @dev Never deploy outside tests: the oracle sets the pooled ether at will.
contract RebasingToken {
    /// @notice ERC-20's transfer log, in token amounts.
    event Transfer(address indexed from, address indexed to, uint256 value);
    /// @notice ERC-20's approval log.
    event Approval(address indexed owner, address indexed spender, uint256 value);

    /// @notice Who may rebase.
    address public immutable oracle;
    /// @notice Every holder's shares.
    uint256 public totalShares;
    /// @notice The ether the shares are worth together.
    uint256 public totalPooled;
    mapping(address holder => uint256) private _shares;
    mapping(address owner => mapping(address spender => uint256)) public allowance;

    constructor(address oracle_) {
        oracle = oracle_;
    }

    /// @notice Pools the ether sent and mints its shares to the sender (Lido's `submit`).
    function submit() external payable returns (uint256 shares) {
        shares = totalPooled == 0 ? msg.value : msg.value * totalShares / totalPooled;
        totalShares += shares;
        totalPooled += msg.value;
        _shares[msg.sender] += shares;
        emit Transfer(address(0), msg.sender, msg.value);
    }

    /// @notice Sets the pooled ether: every balance moves with it, no share does.
    function rebase(uint256 pooled) external {
        require(msg.sender == oracle, "not the oracle");
        totalPooled = pooled;
    }

    /// @notice `holder`'s shares.
    function sharesOf(address holder) external view returns (uint256) {
        return _shares[holder];
    }

    /// @notice The shares `pooled` ether is worth.
    function getSharesByPooledEth(uint256 pooled) public view returns (uint256) {
        return pooled * totalShares / totalPooled;
    }

    /// @notice The ether `shares` are worth.
    function getPooledEthByShares(uint256 shares) public view returns (uint256) {
        return shares * totalPooled / totalShares;
    }

    /// @notice Moves `shares` of the sender's to `to` (a wrapper's way of paying out).
    function transferShares(address to, uint256 shares) external returns (uint256 amount) {
        amount = getPooledEthByShares(shares);
        _shares[msg.sender] -= shares;
        _shares[to] += shares;
        emit Transfer(msg.sender, to, amount);
    }

    /// @notice `holder`'s balance: its shares' worth.
    function balanceOf(address holder) public view returns (uint256) {
        return totalShares == 0 ? 0 : _shares[holder] * totalPooled / totalShares;
    }

    /// @notice ERC-20's total supply: the pooled ether.
    function totalSupply() external view returns (uint256) {
        return totalPooled;
    }

    function approve(address spender, uint256 amount) external returns (bool) {
        allowance[msg.sender][spender] = amount;
        emit Approval(msg.sender, spender, amount);
        return true;
    }

    function transfer(address to, uint256 amount) external returns (bool) {
        _move(msg.sender, to, amount);
        return true;
    }

    function transferFrom(address from, address to, uint256 amount) external returns (bool) {
        uint256 allowed = allowance[from][msg.sender];
        if (allowed != type(uint256).max) allowance[from][msg.sender] = allowed - amount;
        _move(from, to, amount);
        return true;
    }

    function _move(address from, address to, uint256 amount) private {
        uint256 shares = getSharesByPooledEth(amount);
        _shares[from] -= shares;
        _shares[to] += shares;
        emit Transfer(from, to, amount);
    }
}
