// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

/// @title ISafe
/// @notice The part of a Safe 1.4.1 (`@safe-global/safe-contracts`, `Safe` and `SafeL2`) that
///         `PaceModule` uses: module execution and the reads of the Safe's configuration.
interface ISafe {
    /// @notice Runs `to.call{value: value}(data)` (operation 0) or a `delegatecall` (1) from the
    ///         Safe, for an enabled module; `success` is the inner call's, `returnData` its
    ///         return or revert data. Reverts ("GS104") for a caller that is no enabled module.
    function execTransactionFromModuleReturnData(
        address to,
        uint256 value,
        bytes calldata data,
        uint8 operation
    ) external returns (bool success, bytes memory returnData);

    /// @notice Whether `module` is enabled.
    function isModuleEnabled(address module) external view returns (bool);

    /// @notice Up to `pageSize` enabled modules after `start` (`address(1)`: the first), and
    ///         where the next page starts (`address(1)`: none).
    function getModulesPaginated(address start, uint256 pageSize)
        external
        view
        returns (address[] memory array, address next);

    /// @notice The owners.
    function getOwners() external view returns (address[] memory);

    /// @notice The number of owner signatures a transaction needs.
    function getThreshold() external view returns (uint256);

    /// @notice `length` storage words from slot `offset`.
    function getStorageAt(uint256 offset, uint256 length) external view returns (bytes memory);
}
