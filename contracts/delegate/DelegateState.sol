// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {PaceState} from "../core/PaceState.sol";

/// @title DelegateState
/// @notice Where `PaceDelegate` keeps its state at the EOA, and who owns it: one ERC-7201
///         namespace (`pace.delegate.v1`) holding the account's state, the domain salt, the
///         layout version and the last set-up's nonce; the owner is the EOA itself. Shared by
///         `PaceDelegate` and its administration module (`PaceDelegateAdmin`), which the
///         delegate runs by `delegatecall`, so both read and write the same slots.
abstract contract DelegateState is PaceState {
    /// @notice The storage layout this code reads and writes. Version 1 kept a set of used
    ///         set-up nonces, a mapping based at slot 6, where version 2 keeps the last nonce: a
    ///         mapping's base slot is always 0, so version-1 state reads as version 2 with no
    ///         set-up yet ordered, and the next set-up writes version 2.
    uint64 public constant LAYOUT_VERSION = 2;

    /// @custom:storage-location erc7201:pace.delegate.v1
    /// @param core The account's state (`PaceState.PaceStore`), slots 0-3.
    /// @param salt The domain salt the last set-up chained (slot 4).
    /// @param layout The layout version the last set-up wrote (slot 5).
    /// @param setupNonce The last set-up's nonce (slot 6).
    struct DelegateStore {
        PaceStore core;
        bytes32 salt;
        uint64 layout;
        uint256 setupNonce;
    }

    /// @dev keccak256(abi.encode(uint256(keccak256("pace.delegate.v1")) - 1)) & ~bytes32(0xff).
    uint256 private constant _STORE_SLOT =
        0x0a77491a114767f413aad0dc67297bb622aec1da0ef7bade1cd1421e1010f800;

    bytes32 internal constant _NAME_HASH = keccak256("PaceDelegate");
    /// @dev The domain version, shared by PDRs and set-ups: a new PDR type bumps it, and a set-up
    ///      signed under an earlier version no longer verifies.
    bytes32 internal constant _VERSION_HASH = keccak256("2");

    function _delegateStore() internal pure returns (DelegateStore storage d) {
        assembly ("memory-safe") {
            d.slot := _STORE_SLOT
        }
    }

    /// @dev The core's state is the namespace's first member.
    function _store() internal pure override returns (PaceStore storage s) {
        assembly ("memory-safe") {
            s.slot := _STORE_SLOT
        }
    }

    /// @dev The EOA itself, or the EntryPoint running a user operation the EOA key signed.
    function _isOwner(address caller) internal view override returns (bool) {
        return caller == address(this) || caller == ENTRY_POINT;
    }

    /// @dev Runs at any EOA that delegates to it: each has its own storage and domain.
    function _checkHome() internal view override {}

    /// @dev The direct path's domain: name "PaceDelegate", version "2", the chain id, the EOA
    ///      and the set-up's salt.
    function _directDomain() internal view returns (bytes32) {
        return _saltedDomain(_delegateStore().salt);
    }

    /// @dev The EntryPoint path's domain: as the direct path's, with salt
    ///      `keccak256(abi.encode(salt, userOpHash))`.
    function _userOpDomain(bytes32 userOpHash) internal view returns (bytes32) {
        return _saltedDomain(keccak256(abi.encode(_delegateStore().salt, userOpHash)));
    }

    function _saltedDomain(bytes32 salt) private view returns (bytes32) {
        return keccak256(
            abi.encode(
                SALTED_DOMAIN_TYPEHASH,
                _NAME_HASH,
                _VERSION_HASH,
                block.chainid,
                address(this),
                salt
            )
        );
    }
}
