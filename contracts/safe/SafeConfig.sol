// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {ISafe} from "../interfaces/ISafe.sol";

/// @title SafeConfig
/// @notice A fingerprint of the configuration of a Safe 1.4.1 that only the Safe's own
///         transactions may change: singleton, owners, threshold, enabled modules, transaction
///         guard and fallback handler. `PaceModule` takes it before and after each PDR call and
///         refuses any change, as Brahma's executor checks a Safe after its calls, whatever
///         route the call took (another module the Safe can drive, an owner-signed Safe
///         transaction relayed from inside the call).
/// @dev    Every change to that configuration is a call from the Safe to itself (`authorized`)
///         or a `delegatecall` the Safe makes, and a Safe 1.4.1 makes either only in
///         `execTransaction` (owner-signed; it moves the nonce, slot 5) or for an enabled module
///         (`execTransactionFromModule`). So while `module` is the only module enabled, and it
///         runs nothing but `CALL`s to other contracts under its lock, the Safe's nonce
///         unchanged means its configuration unchanged: the fingerprint is then the nonce's
///         (three reads). With any other module enabled, it is the hash of the configuration
///         itself, read through the Safe's views.
library SafeConfig {
    /// @dev `GuardManager.GUARD_STORAGE_SLOT`: keccak256("guard_manager.guard.address").
    uint256 internal constant GUARD_SLOT =
        0x4a204f620c8c5ccdca3fd54d003badd85ba500436a431f0cbda4f558c93c34c8;
    /// @dev `FallbackManager.FALLBACK_HANDLER_STORAGE_SLOT`:
    ///      keccak256("fallback_manager.handler.address").
    uint256 internal constant FALLBACK_HANDLER_SLOT =
        0x6c9a6c4a39284e37ed1cf53d337577d14212a4870fb976a4366c693b939918d5;
    /// @dev The storage slots of `SafeStorage` (shared by `Safe` and `SafeL2` 1.4.1).
    uint256 internal constant MODULES_SLOT = 1;
    uint256 internal constant NONCE_SLOT = 5;
    /// @dev The modules' linked list starts and ends at address(1).
    address internal constant SENTINEL = address(1);

    /// @notice The fingerprint of `safe`'s configuration as `module` sees it (see the
    ///         library's notes); 0 when a read fails (a Safe whose singleton was replaced,
    ///         say), which no caller may take for a configuration.
    function fingerprint(ISafe safe, address module, SafeConfigReader reader)
        internal
        view
        returns (bytes32)
    {
        (bool ok, uint256 first) = _word(safe, _moduleSlot(SENTINEL));
        if (!ok) return 0;
        if (first == uint160(module)) {
            uint256 next;
            (ok, next) = _word(safe, _moduleSlot(module));
            if (!ok) return 0;
            if (next == uint160(SENTINEL)) {
                uint256 nonce;
                (ok, nonce) = _word(safe, NONCE_SLOT);
                return ok ? keccak256(abi.encode(module, nonce)) : bytes32(0);
            }
        }
        return reader.full(safe);
    }

    /// @dev The slot of `modules[key]`.
    function _moduleSlot(address key) private pure returns (uint256) {
        return uint256(keccak256(abi.encode(key, MODULES_SLOT)));
    }

    /// @dev Storage word `slot` of `safe` (`getStorageAt(slot, 1)`).
    function _word(ISafe safe, uint256 slot) private view returns (bool ok, uint256 word) {
        assembly ("memory-safe") {
            let m := mload(0x40)
            mstore(m, shl(224, 0x5624b25b)) // getStorageAt(uint256,uint256)
            mstore(add(m, 0x04), slot)
            mstore(add(m, 0x24), 1)
            // bytes: offset, length 32, the word.
            ok := staticcall(gas(), safe, m, 0x44, m, 0x60)
            // Yul evaluates arguments right to left: the size is read after the call here.
            ok := and(ok, eq(returndatasize(), 0x60))
            word := mload(add(m, 0x40))
        }
    }
}

/// @title SafeConfigReader
/// @notice The full read of a Safe 1.4.1's configuration (`SafeConfig`), in a contract of its
///         own so the module that uses it stays within EIP-170: `PaceModule` deploys one.
contract SafeConfigReader {
    /// @dev Modules read per page.
    uint256 internal constant PAGE = 16;

    /// @notice The hash of `safe`'s whole configuration, folded from the raw answers of its
    ///         views; 0 when any read fails.
    function full(ISafe safe) external view returns (bytes32 h) {
        bool ok;
        bytes memory ret;
        address start = SafeConfig.SENTINEL;
        while (true) {
            (ok, ret) = address(safe)
                .staticcall(abi.encodeCall(ISafe.getModulesPaginated, (start, PAGE)));
            // (address[] array, address next): `next` is the second head word.
            if (!ok || ret.length < 0x40) return 0;
            h = keccak256(abi.encode(h, keccak256(ret)));
            (, address next) = abi.decode(ret, (uint256, address));
            if (next == SafeConfig.SENTINEL || next == address(0)) break;
            start = next;
        }
        bytes[4] memory reads = [
            abi.encodeCall(ISafe.getStorageAt, (0, 1)), // the singleton
            abi.encodeCall(ISafe.getStorageAt, (3, 2)), // the owner count and the threshold
            abi.encodeCall(ISafe.getStorageAt, (SafeConfig.GUARD_SLOT, 1)),
            abi.encodeCall(ISafe.getStorageAt, (SafeConfig.FALLBACK_HANDLER_SLOT, 1))
        ];
        for (uint256 i; i < reads.length; ++i) {
            (ok, ret) = address(safe).staticcall(reads[i]);
            if (!ok || ret.length == 0) return 0;
            h = keccak256(abi.encode(h, keccak256(ret)));
        }
        (ok, ret) = address(safe).staticcall(abi.encodeCall(ISafe.getOwners, ()));
        if (!ok || ret.length == 0) return 0;
        h = keccak256(abi.encode(h, keccak256(ret)));
    }
}
