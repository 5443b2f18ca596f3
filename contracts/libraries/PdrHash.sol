// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {IPaceAccount} from "../interfaces/IPaceAccount.sol";

/// @title PdrHash
/// @notice EIP-712 `hashStruct` of the PDR and its members, written once and mirrored by
///         `pace_types::pdr` in Rust (proved equal by a golden vector and a differential test).
/// @dev    Memory-safe assembly; every function writes only at or above the free memory pointer
///         and never moves it, so the scratch space is reclaimed.
library PdrHash {
    /// @dev keccak256("Call(address target,uint256 value,bytes data)")
    bytes32 internal constant CALL_TYPEHASH =
        keccak256("Call(address target,uint256 value,bytes data)");

    /// @dev keccak256("Bound(address token,uint8 kind,uint256 id,uint256 maxOut,uint256 minIn,
    ///      uint256 maxIn)")
    bytes32 internal constant BOUND_TYPEHASH = keccak256(
        "Bound(address token,uint8 kind,uint256 id,uint256 maxOut,uint256 minIn,uint256 maxIn)"
    );

    /// @dev keccak256("Check(address target,bytes data,uint16 word,uint8 relation,uint256 lo,
    ///      uint256 hi)")
    bytes32 internal constant CHECK_TYPEHASH = keccak256(
        "Check(address target,bytes data,uint16 word,uint8 relation,uint256 lo,uint256 hi)"
    );

    /// @dev keccak256("Attestation(bytes32 policyHash,bytes32 intentHash,bytes32 simulationHash)")
    bytes32 internal constant ATTESTATION_TYPEHASH =
        keccak256("Attestation(bytes32 policyHash,bytes32 intentHash,bytes32 simulationHash)");

    /// @dev The primary type followed by its referenced types in alphabetical order (EIP-712).
    bytes32 internal constant PDR_TYPEHASH = keccak256(
        "Pdr(Attestation attestation,Call[] calls,Bound[] bounds,address[] held,Check[] checks,"
        "uint256 nonce,uint40 validAfter,uint40 validUntil,uint48 simulationBlock,"
        "uint16 maxSimulationAge,uint16 callGasKib)"
        "Attestation(bytes32 policyHash,bytes32 intentHash,bytes32 simulationHash)"
        "Bound(address token,uint8 kind,uint256 id,uint256 maxOut,uint256 minIn,uint256 maxIn)"
        "Call(address target,uint256 value,bytes data)"
        "Check(address target,bytes data,uint16 word,uint8 relation,uint256 lo,uint256 hi)"
    );

    /// @dev keccak256 of the empty byte string: the EIP-712 encoding of an empty array.
    bytes32 internal constant EMPTY_ARRAY_HASH = keccak256("");

    /// @notice `hashStruct(Attestation)`: what `PdrTerms.attestation` carries.
    function hashAttestation(bytes32 policyHash, bytes32 intentHash, bytes32 simulationHash)
        internal
        pure
        returns (bytes32)
    {
        return keccak256(abi.encode(ATTESTATION_TYPEHASH, policyHash, intentHash, simulationHash));
    }

    /// @notice `hashStruct(Call)` for a call given as separate fields.
    function hashCall(address target, uint256 value, bytes calldata data)
        internal
        pure
        returns (bytes32 h)
    {
        bytes32 typeHash = CALL_TYPEHASH;
        assembly ("memory-safe") {
            let m := mload(0x40)
            calldatacopy(m, data.offset, data.length)
            let dataHash := keccak256(m, data.length)
            mstore(m, typeHash)
            mstore(add(m, 0x20), target)
            mstore(add(m, 0x40), value)
            mstore(add(m, 0x60), dataHash)
            h := keccak256(m, 0x80)
        }
    }

    /// @notice The EIP-712 encoding of a `Call[]` of one element: keccak256(hashStruct(call)).
    function hashSingleCallArray(address target, uint256 value, bytes calldata data)
        internal
        pure
        returns (bytes32 h)
    {
        bytes32 callHash = hashCall(target, value, data);
        assembly ("memory-safe") {
            mstore(0x00, callHash)
            h := keccak256(0x00, 0x20)
        }
    }

    /// @notice The EIP-712 encoding of a `Call[]`: keccak256 of the concatenated struct hashes.
    function hashCalls(IPaceAccount.Call[] calldata calls) internal pure returns (bytes32 h) {
        bytes32[] memory hashes = new bytes32[](calls.length);
        for (uint256 i; i < calls.length; ++i) {
            IPaceAccount.Call calldata c = calls[i];
            hashes[i] = hashCall(c.target, c.value, c.data);
        }
        assembly ("memory-safe") {
            h := keccak256(add(hashes, 0x20), shl(5, mload(hashes)))
        }
    }

    /// @notice The EIP-712 encoding of a `Bound[]`: keccak256 of the concatenated struct hashes.
    /// @dev    A `Bound` is six static words, so `Bound[] calldata` is a run of 0xc0-byte
    ///         elements: each is copied whole behind the type hash and hashed (7 words), and its
    ///         hash is written after that scratch struct; the run of hashes is hashed last (an
    ///         empty array hashes nothing: `EMPTY_ARRAY_HASH`). The words are hashed as sent:
    ///         a word that is no canonical encoding of its field (an address or uint8 with high
    ///         bits set) gives a digest no verifier signs, so it lands on the signer check.
    function hashBounds(IPaceAccount.Bound[] calldata bounds) internal pure returns (bytes32 h) {
        bytes32 typeHash = BOUND_TYPEHASH;
        assembly ("memory-safe") {
            let m := mload(0x40)
            let hashes := add(m, 0xe0)
            mstore(m, typeHash)
            for { let i := 0 } lt(i, bounds.length) { i := add(i, 1) } {
                calldatacopy(add(m, 0x20), add(bounds.offset, mul(i, 0xc0)), 0xc0)
                mstore(add(hashes, shl(5, i)), keccak256(m, 0xe0))
            }
            h := keccak256(hashes, shl(5, bounds.length))
        }
    }

    /// @notice The EIP-712 encoding of an `address[]`: keccak256 of the concatenated 32-byte
    ///         words, each address left-padded with zeros, which is how calldata carries them.
    /// @dev    Hashed as sent, like `hashBounds`: a word with high bits set is no address, and
    ///         its digest is one no verifier signs.
    function hashAddresses(address[] calldata addrs) internal pure returns (bytes32 h) {
        assembly ("memory-safe") {
            let m := mload(0x40)
            let n := shl(5, addrs.length)
            calldatacopy(m, addrs.offset, n)
            h := keccak256(m, n)
        }
    }

    /// @notice The EIP-712 encoding of a `Check[]`: keccak256 of the concatenated struct hashes,
    ///         each `keccak256(CHECK_TYPEHASH, target, keccak256(data), word, relation, lo, hi)`.
    /// @dev    Each element is reached through Solidity's checked calldata access (its offset and
    ///         its `data` within the call data), then hashed word for word as sent, like
    ///         `hashBounds`: `PostConditions` reads the same words. Each struct is hashed in
    ///         scratch memory above the run of hashes; an empty array hashes nothing
    ///         (`EMPTY_ARRAY_HASH`).
    function hashChecks(IPaceAccount.Check[] calldata checks) internal pure returns (bytes32 h) {
        bytes32 typeHash = CHECK_TYPEHASH;
        uint256 n = checks.length;
        uint256 hashes;
        assembly ("memory-safe") {
            hashes := mload(0x40)
            mstore(0x40, add(hashes, shl(5, n)))
        }
        for (uint256 i; i < n; ++i) {
            IPaceAccount.Check calldata c = checks[i];
            bytes calldata data = c.data;
            assembly ("memory-safe") {
                let m := add(hashes, shl(5, n))
                calldatacopy(m, data.offset, data.length)
                let dataHash := keccak256(m, data.length)
                mstore(m, typeHash)
                mstore(add(m, 0x20), calldataload(c)) // target
                mstore(add(m, 0x40), dataHash)
                calldatacopy(add(m, 0x60), add(c, 0x40), 0x80) // word, relation, lo, hi
                mstore(add(hashes, shl(5, i)), keccak256(m, 0xe0))
            }
        }
        assembly ("memory-safe") {
            h := keccak256(hashes, shl(5, n))
        }
    }

    /// @notice `hashStruct(Pdr)` of a batch PDR as it travels: its calls, bounds, held assets
    ///         and checks, its attestation hash and its packed terms.
    function hashBatch(
        IPaceAccount.Call[] calldata calls,
        IPaceAccount.Bound[] calldata bounds,
        address[] calldata held,
        IPaceAccount.Check[] calldata checks,
        bytes32 attestation,
        uint256 terms
    ) internal pure returns (bytes32) {
        return hashPdr(
            attestation,
            hashCalls(calls),
            hashBounds(bounds),
            hashAddresses(held),
            hashChecks(checks),
            terms
        );
    }

    /// @notice `hashStruct(Pdr)` from the attestation hash, the encoded arrays and the packed
    ///         terms (layout in `PdrTerms`), unpacked here into the struct's separate fields.
    function hashPdr(
        bytes32 attestation,
        bytes32 callsHash,
        bytes32 boundsHash,
        bytes32 heldHash,
        bytes32 checksHash,
        uint256 terms
    ) internal pure returns (bytes32 h) {
        bytes32 typeHash = PDR_TYPEHASH;
        assembly ("memory-safe") {
            let m := mload(0x40)
            mstore(m, typeHash)
            mstore(add(m, 0x20), attestation)
            mstore(add(m, 0x40), callsHash)
            mstore(add(m, 0x60), boundsHash)
            mstore(add(m, 0x80), heldHash)
            mstore(add(m, 0xa0), checksHash)
            mstore(add(m, 0xc0), shr(160, terms)) // nonce = key << 64 | sequence
            mstore(add(m, 0xe0), and(shr(120, terms), 0xffffffffff)) // validAfter
            mstore(add(m, 0x100), and(shr(80, terms), 0xffffffffff)) // validUntil
            mstore(add(m, 0x120), and(shr(32, terms), 0xffffffffffff)) // simulationBlock
            mstore(add(m, 0x140), and(terms, 0xffff)) // maxSimulationAge
            mstore(add(m, 0x160), and(shr(16, terms), 0xffff)) // callGasKib
            h := keccak256(m, 0x180)
        }
    }

    /// @notice The EIP-712 digest `keccak256("\x19\x01" || domainSeparator || structHash)`.
    function toTypedDataHash(bytes32 domainSeparator, bytes32 structHash)
        internal
        pure
        returns (bytes32 d)
    {
        assembly ("memory-safe") {
            let m := mload(0x40)
            mstore(m, hex"1901")
            mstore(add(m, 0x02), domainSeparator)
            mstore(add(m, 0x22), structHash)
            d := keccak256(m, 0x42)
        }
    }
}
