// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

/// @title IReservePool
/// @notice The two-reserve pool shape (Uniswap V2's pair) whose shares `PaceShareValue` values.
interface IReservePool {
    /// @notice The pool's reserves of its two tokens (and when they were last written).
    function getReserves()
        external
        view
        returns (uint256 reserve0, uint256 reserve1, uint32 blockTimestampLast);

    /// @notice The pool's shares in issue.
    function totalSupply() external view returns (uint256);
}
