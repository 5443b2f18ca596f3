// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

/// @title IAssetVault
/// @notice The ERC-4626 accounting `PaceShareValue.vaultShare` values a vault's shares by: the
///         assets it holds in total and the shares in issue.
interface IAssetVault {
    /// @notice Everything the vault manages, in its asset (ERC-4626 `totalAssets`).
    function totalAssets() external view returns (uint256);

    /// @notice The vault's shares in issue.
    function totalSupply() external view returns (uint256);
}
