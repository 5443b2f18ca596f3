// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

/// @title HolderBalance
/// @notice A holder's balance of a token or of ETH, as the budget metering reads it. The outcome
///         bounds and held assets read theirs through `OutcomeBounds`, which names the entry that
///         could not be read.
library HolderBalance {
    /// @notice `holder`'s balance of `token`, or of ETH for address(0). A token whose
    ///         `balanceOf` reverts or returns short data reverts the execution (no revert data).
    function balanceOf(address token, address holder) internal view returns (uint256 bal) {
        if (token == address(0)) {
            return holder == address(this) ? address(this).balance : holder.balance;
        }
        assembly ("memory-safe") {
            mstore(0x00, 0x70a08231) // balanceOf(address)
            mstore(0x20, holder)
            if iszero(
                and(gt(returndatasize(), 0x1f), staticcall(gas(), token, 0x1c, 0x24, 0x00, 0x20))
            ) {
                revert(0, 0)
            }
            bal := mload(0x00)
        }
    }
}
