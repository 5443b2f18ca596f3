// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

/// @title IPaceModule
/// @notice Errors and views of `PaceModule`, the PACE enforcement core as a Safe module: PDR
///         calls execute from the Safe (`execTransactionFromModule`, always a `CALL`), and the
///         outcome bounds, held assets and budgets measure the Safe's balances. The rest of its
///         ABI, and what a PDR is, are `IPaceAccount`'s.
/// @dev    The PDR's EIP-712 domain binds the module and the Safe together: name "PaceModule",
///         version "1", the chain id, `verifyingContract` = the module, and `salt` = the Safe's
///         address as a word; through the EntryPoint, the salt is
///         `keccak256(abi.encode(safeSalt, userOpHash))`. A PDR signed for one Safe or module
///         verifies at no other.
interface IPaceModule {
    /// @notice A PDR's call `index` targets the Safe itself (its administration), this module
    ///         or the EntryPoint (the Safe's deposit).
    error PaceModuleForbiddenTarget(uint256 index, address target);
    /// @notice The Safe refused call `index` (this module is not enabled: "GS104"), with its
    ///         revert data.
    error PaceModuleSafeReverted(uint256 index, bytes reason);
    /// @notice The Safe's configuration (owners, threshold, modules, guard, fallback handler or
    ///         singleton) changed across PDR call `index`, or could no longer be read after it.
    error PaceModuleConfigChanged(uint256 index);
    /// @notice The Safe's configuration could not be read before PDR call `index`.
    error PaceModuleConfigUnreadable(uint256 index);
    /// @notice The Safe to guard is no contract.
    error PaceModuleInvalidSafe(address safe);

    /// @notice The Safe this module guards and executes from (also `owner()`: only the Safe's
    ///         own transactions administer the module).
    function safe() external view returns (address);

    /// @notice The fingerprint of the Safe's configuration that every PDR call must leave
    ///         unchanged (`safe/SafeConfig.sol`): while this module is the Safe's only module, a
    ///         hash of the Safe's nonce (no other route to its administration exists); else the
    ///         hash of its singleton, owners, threshold, modules, guard and fallback handler.
    ///         0 when the Safe cannot be read.
    function configHash() external view returns (bytes32);
}
