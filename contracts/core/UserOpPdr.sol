// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {IPaceAccount} from "../interfaces/IPaceAccount.sol";

/// @title UserOpPdr
/// @notice Reads a PDR out of an ERC-4337 user operation (`IPaceAccount.PackedUserOperation`):
///         its signature `abi.encode(attestation, terms, r, vs)` and its call data
///         `executeUserOp.selector ++ abi.encode(Call[] calls, Bound[] bounds, address[] held)`,
///         as calldata views, without copying.
library UserOpPdr {
    /// @notice The length of a PDR user operation's signature: four words.
    uint256 internal constant SIGNATURE_LENGTH = 128;

    /// @notice `IAccountExecute.executeUserOp(PackedUserOperation,bytes32)`: the EntryPoint
    ///         hands the whole user operation to the account when the call data starts with it.
    bytes4 internal constant EXECUTE_USER_OP = 0x8dd7712f;

    /// @dev `EXECUTE_USER_OP` as the word `shr(224, calldataload(...))` reads.
    uint256 private constant EXECUTE_USER_OP_WORD = 0x8dd7712f;

    /// @notice The four words of a PDR signature (the caller checks its length first).
    function signature(bytes calldata sig)
        internal
        pure
        returns (bytes32 attestation, uint256 terms, bytes32 r, bytes32 vs)
    {
        assembly ("memory-safe") {
            attestation := calldataload(sig.offset)
            terms := calldataload(add(sig.offset, 0x20))
            r := calldataload(add(sig.offset, 0x40))
            vs := calldataload(add(sig.offset, 0x60))
        }
    }

    /// @notice Whether `callData` is a PDR batch: `executeUserOp`'s selector, then three array
    ///         heads whose length words and contents (offset tables for the calls) lie within
    ///         it, and every call's tail and bytes too. The arrays below are read only from call
    ///         data that passed, and no read of them falls outside it (validation returns
    ///         `SIG_VALIDATION_FAILED` for any other call data, never reverting).
    function isBatch(bytes calldata callData) internal pure returns (bool ok) {
        assembly ("memory-safe") {
            ok := and(
                gt(callData.length, 0x63),
                eq(shr(224, calldataload(callData.offset)), EXECUTE_USER_OP_WORD)
            )
            if ok {
                let base := add(callData.offset, 4)
                let size := sub(callData.length, 4)
                // (head, stride): the calls' offset table, the bounds (six words each), held.
                for { let i := 0 } lt(i, 3) { i := add(i, 1) } {
                    let stride := 0x20
                    if eq(i, 1) { stride := 0xc0 }
                    let at := calldataload(add(base, shl(5, i)))
                    // The length word lies inside, and so do `length * stride` bytes after it.
                    let fits := and(lt(at, shl(32, 1)), iszero(gt(add(at, 0x20), size)))
                    if fits {
                        let n := calldataload(add(base, at))
                        fits := and(
                            lt(n, shl(32, 1)),
                            iszero(gt(add(add(at, 0x20), mul(n, stride)), size))
                        )
                    }
                    ok := and(ok, fits)
                }
                // Each call's tail (target, value, data offset) and its bytes lie inside too,
                // so no later read of the batch can fall outside the call data.
                if ok {
                    let table := add(base, add(calldataload(base), 0x20))
                    let n := calldataload(sub(table, 0x20))
                    let end := add(base, size)
                    for { let i := 0 } lt(i, n) { i := add(i, 1) } {
                        let at := calldataload(add(table, shl(5, i)))
                        let fits := lt(at, shl(32, 1))
                        let tail := add(table, at)
                        fits := and(fits, iszero(gt(add(tail, 0x60), end)))
                        if fits {
                            let dataAt := calldataload(add(tail, 0x40))
                            fits := lt(dataAt, shl(32, 1))
                            let bytesAt := add(tail, dataAt)
                            fits := and(fits, iszero(gt(add(bytesAt, 0x20), end)))
                            if fits {
                                let len := calldataload(bytesAt)
                                fits := and(
                                    lt(len, shl(32, 1)),
                                    iszero(gt(add(add(bytesAt, 0x20), len), end))
                                )
                            }
                        }
                        ok := and(ok, fits)
                    }
                }
            }
        }
    }

    /// @notice The batch's calls (of call data that passed `isBatch`).
    function calls(bytes calldata callData) internal pure returns (IPaceAccount.Call[] calldata a) {
        assembly ("memory-safe") {
            let base := add(callData.offset, 4)
            let at := add(base, calldataload(base))
            a.offset := add(at, 0x20)
            a.length := calldataload(at)
        }
    }

    /// @notice The batch's outcome bounds (of call data that passed `isBatch`).
    function bounds(bytes calldata callData)
        internal
        pure
        returns (IPaceAccount.Bound[] calldata a)
    {
        assembly ("memory-safe") {
            let base := add(callData.offset, 4)
            let at := add(base, calldataload(add(base, 0x20)))
            a.offset := add(at, 0x20)
            a.length := calldataload(at)
        }
    }

    /// @notice The batch's held assets (of call data that passed `isBatch`).
    function held(bytes calldata callData) internal pure returns (address[] calldata a) {
        assembly ("memory-safe") {
            let base := add(callData.offset, 4)
            let at := add(base, calldataload(add(base, 0x40)))
            a.offset := add(at, 0x20)
            a.length := calldataload(at)
        }
    }
}
