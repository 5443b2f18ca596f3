// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {SafeERC20} from "@openzeppelin/contracts/token/ERC20/utils/SafeERC20.sol";

/// @title IdLedgerMarket
/// @notice Test lending market that books debt under a position id, not under the borrower:
///         `open` gives the caller a position id (`posOf[caller]`), `borrow` adds to
///         `owedById[id]` and pays the caller. No slot a borrow changes is keyed by the
///         borrower's address; the id kept under it is the link. No view reads the debt or a
///         health factor.
contract IdLedgerMarket {
    using SafeERC20 for IERC20;

    /// @notice The caller has no position.
    error IdLedgerMarketNoPosition(address caller);

    /// @notice What the market lends.
    IERC20 public immutable asset;
    /// @notice The last id given.
    uint256 public lastId;
    /// @notice Each borrower's position id.
    mapping(address borrower => uint256 id) public posOf;
    /// @notice What each position owes.
    mapping(uint256 id => uint256 owed) internal _owedById;

    /// @param asset_ What the market lends.
    constructor(IERC20 asset_) {
        asset = asset_;
    }

    /// @notice Gives the caller a position.
    function open() external {
        posOf[msg.sender] = ++lastId;
    }

    /// @notice Lends `amount` to the caller's position and pays it out.
    function borrow(uint256 amount) external {
        uint256 id = posOf[msg.sender];
        if (id == 0) revert IdLedgerMarketNoPosition(msg.sender);
        _owedById[id] += amount;
        asset.safeTransfer(msg.sender, amount);
    }
}
