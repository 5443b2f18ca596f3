// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";

/// @title ShareMarket
/// @notice Test contract: a market that is also its depositors' share ledger. A deposit is read
///         by `balanceOf(user)` (one share per unit), and a depositor may borrow against its
///         shares (80 % of them), the debt recorded under its address with no view the
///         simulator's adapters read. A withdrawal redeems shares; a borrow pays out with no
///         share moving.
contract ShareMarket {
    /// @notice The loan would exceed 80 % of the borrower's shares.
    error ShareMarketUnhealthy();
    /// @notice A token transfer failed.
    error ShareMarketTransferFailed();

    /// @notice What is deposited and lent.
    IERC20 public immutable asset;
    /// @notice Shares, one per unit deposited.
    mapping(address user => uint256) public balanceOf;
    mapping(address user => uint256) internal _debt;

    constructor(IERC20 asset_) {
        asset = asset_;
    }

    /// @notice Deposits `assets` for the caller.
    function deposit(uint256 assets) external {
        balanceOf[msg.sender] += assets;
        if (!asset.transferFrom(msg.sender, address(this), assets)) {
            revert ShareMarketTransferFailed();
        }
    }

    /// @notice Redeems `shares` of the caller's for as many units.
    function withdraw(uint256 shares) external {
        balanceOf[msg.sender] -= shares;
        _checkHealthy(msg.sender);
        _pay(shares);
    }

    /// @notice Lends `assets` to the caller against its shares.
    function borrow(uint256 assets) external {
        _debt[msg.sender] += assets;
        _checkHealthy(msg.sender);
        _pay(assets);
    }

    function _checkHealthy(address user) private view {
        if (_debt[user] * 10 > balanceOf[user] * 8) revert ShareMarketUnhealthy();
    }

    function _pay(uint256 amount) private {
        if (!asset.transfer(msg.sender, amount)) revert ShareMarketTransferFailed();
    }
}
