// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";

/// @title BookingVault
/// @notice Test vault of one asset, shares 1:1, whose `exit` redeems shares at their worth and
///         books, unlogged, as much again as owed; `collect` takes what is owed through any
///         allowance the holder left the vault.
/// @dev Never deploy outside tests: what it books is owed to whoever calls `collect`.
contract BookingVault {
    IERC20 public immutable asset;
    mapping(address holder => uint256) public balanceOf;
    mapping(address holder => uint256) internal _owed;

    constructor(IERC20 asset_) {
        asset = asset_;
    }

    function deposit(uint256 assets) external {
        asset.transferFrom(msg.sender, address(this), assets);
        balanceOf[msg.sender] += assets;
    }

    /// @notice Redeems `shares` for as many assets, and books as many owed.
    function exit(uint256 shares) external {
        balanceOf[msg.sender] -= shares;
        _owed[msg.sender] += shares;
        asset.transfer(msg.sender, shares);
    }

    /// @notice Takes what `holder` owes, to the caller.
    function collect(address holder) external {
        uint256 owed = _owed[holder];
        _owed[holder] = 0;
        asset.transferFrom(holder, msg.sender, owed);
    }
}
