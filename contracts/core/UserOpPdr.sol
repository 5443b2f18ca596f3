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
    ///         it. The arrays below are read only from call data that passed.
    function isBatch(bytes calldata callData) internal pure returns (bool) {
        if (callData.length < 0x64 || bytes4(callData[:4]) != EXECUTE_USER_OP) return false;
        (,, bool okCalls) = _array(callData, 0x00, 0x20);
        (,, bool okBounds) = _array(callData, 0x20, 0xc0);
        (,, bool okHeld) = _array(callData, 0x40, 0x20);
        return okCalls && okBounds && okHeld;
    }

    /// @notice The batch's calls (of call data that passed `isBatch`).
    function calls(bytes calldata callData) internal pure returns (IPaceAccount.Call[] calldata a) {
        (uint256 offset, uint256 length,) = _array(callData, 0x00, 0x20);
        assembly ("memory-safe") {
            a.offset := offset
            a.length := length
        }
    }

    /// @notice The batch's outcome bounds (of call data that passed `isBatch`).
    function bounds(bytes calldata callData)
        internal
        pure
        returns (IPaceAccount.Bound[] calldata a)
    {
        (uint256 offset, uint256 length,) = _array(callData, 0x20, 0xc0);
        assembly ("memory-safe") {
            a.offset := offset
            a.length := length
        }
    }

    /// @notice The batch's held assets (of call data that passed `isBatch`).
    function held(bytes calldata callData) internal pure returns (address[] calldata a) {
        (uint256 offset, uint256 length,) = _array(callData, 0x40, 0x20);
        assembly ("memory-safe") {
            a.offset := offset
            a.length := length
        }
    }

    /// @dev The array whose head word sits `head` bytes into the batch's ABI encoding (after
    ///      the selector): the calldata offset of its first element and its length, if its
    ///      length word and `length * stride` bytes lie within the encoding.
    function _array(bytes calldata callData, uint256 head, uint256 stride)
        private
        pure
        returns (uint256 offset, uint256 length, bool ok)
    {
        uint256 base;
        uint256 size;
        uint256 at;
        assembly ("memory-safe") {
            base := add(callData.offset, 4)
            size := sub(callData.length, 4)
            at := calldataload(add(base, head))
        }
        if (at > size || size - at < 0x20) return (0, 0, false);
        assembly ("memory-safe") {
            length := calldataload(add(base, at))
        }
        uint256 room = size - at - 0x20;
        if (length > room / stride) return (0, 0, false);
        return (base + at + 0x20, length, true);
    }
}
