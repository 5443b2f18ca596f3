// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {IPaceAccount} from "../interfaces/IPaceAccount.sol";

/// @title UserOpPdr
/// @notice Reads a PDR out of an ERC-4337 user operation (`IPaceAccount.PackedUserOperation`):
///         its signature `abi.encode(attestation, r, vs)` and its call data
///         `executeUserOpPdr.selector ++ abi.encode(Call[] calls, Bound[] bounds,
///         address[] held, Check[] checks, uint256 terms)`, as calldata views, without copying.
///         The EntryPoint calls the account with that call data as it is, so execution reads the
///         same batch, post-conditions and terms that validation checked.
library UserOpPdr {
    /// @notice The length of a PDR user operation's signature: three words.
    uint256 internal constant SIGNATURE_LENGTH = 96;

    /// @notice `IPaceAccount.executeUserOpPdr(Call[],Bound[],address[],Check[],uint256)`.
    bytes4 internal constant EXECUTE_USER_OP_PDR = 0x17f5eea9;

    /// @dev `EXECUTE_USER_OP_PDR` as the word `shr(224, calldataload(...))` reads.
    uint256 private constant EXECUTE_USER_OP_PDR_WORD = 0x17f5eea9;

    /// @notice The three words of a PDR signature (the caller checks its length first).
    function signature(bytes calldata sig)
        internal
        pure
        returns (bytes32 attestation, bytes32 r, bytes32 vs)
    {
        assembly ("memory-safe") {
            attestation := calldataload(sig.offset)
            r := calldataload(add(sig.offset, 0x20))
            vs := calldataload(add(sig.offset, 0x40))
        }
    }

    /// @notice Whether `callData` starts with `executeUserOpPdr`'s selector.
    function isPdrSelector(bytes calldata callData) internal pure returns (bool ok) {
        assembly ("memory-safe") {
            ok := and(
                gt(callData.length, 3),
                eq(shr(224, calldataload(callData.offset)), EXECUTE_USER_OP_PDR_WORD)
            )
        }
    }

    /// @notice Whether `callData` is a PDR batch: `executeUserOpPdr`'s selector, then four
    ///         array heads and the terms word, the arrays' length words and contents (offset
    ///         tables for the calls and the checks) within it, and every call's and check's
    ///         tail and bytes too. The arrays below are read only from call data that passed,
    ///         and no read of them falls outside it (validation returns `SIG_VALIDATION_FAILED`
    ///         for any other call data, never reverting).
    function isBatch(bytes calldata callData) internal pure returns (bool ok) {
        assembly ("memory-safe") {
            ok := and(
                gt(callData.length, 0xa3),
                eq(shr(224, calldataload(callData.offset)), EXECUTE_USER_OP_PDR_WORD)
            )
            if ok {
                let base := add(callData.offset, 4)
                let size := sub(callData.length, 4)
                let end := add(base, size)
                // (head, stride): the calls' offset table, the bounds (six words each), held,
                // the checks' offset table.
                for { let i := 0 } lt(i, 4) { i := add(i, 1) } {
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
                // Each call's tail (target, value, data offset: 3 words, the bytes' offset its
                // third) and each check's (target, data offset, word, relation, lo, hi: 6
                // words, the offset its second), and their bytes, lie inside too, so no later
                // read of the batch can fall outside the call data.
                for { let j := 0 } and(ok, lt(j, 2)) { j := add(j, 1) } {
                    let head := mul(j, 0x60) // calls at head 0, checks at head 3
                    let tailSize := add(0x60, mul(j, 0x60))
                    let dataPos := sub(0x40, shl(5, j))
                    let table := add(base, add(calldataload(add(base, head)), 0x20))
                    let n := calldataload(sub(table, 0x20))
                    for { let i := 0 } lt(i, n) { i := add(i, 1) } {
                        let at := calldataload(add(table, shl(5, i)))
                        let fits := lt(at, shl(32, 1))
                        let tail := add(table, at)
                        fits := and(fits, iszero(gt(add(tail, tailSize), end)))
                        if fits {
                            let dataAt := calldataload(add(tail, dataPos))
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

    /// @notice The batch's post-conditions (of call data that passed `isBatch`).
    function checks(bytes calldata callData)
        internal
        pure
        returns (IPaceAccount.Check[] calldata a)
    {
        assembly ("memory-safe") {
            let base := add(callData.offset, 4)
            let at := add(base, calldataload(add(base, 0x60)))
            a.offset := add(at, 0x20)
            a.length := calldataload(at)
        }
    }

    /// @notice The batch's packed terms (of call data that passed `isBatch`).
    function terms(bytes calldata callData) internal pure returns (uint256 t) {
        assembly ("memory-safe") {
            t := calldataload(add(callData.offset, 0x84))
        }
    }
}
