// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

/// @title IPaceSignatures
/// @notice How a PDR signs for the account (ERC-1271). A PDR call to the account itself with
///         `approveHash` makes `isValidSignature(digest, ...)` hold for the rest of that PDR and
///         nowhere else: a protocol that takes a contract's signature (a Permit2 permit, an
///         EIP-2612 permit of a token that accepts ERC-1271) can then be called in the same PDR.
/// @dev    The account never receives this call: it records the digest in place of calling
///         itself (`core/PdrCalls.sol`). The domain and message are for the verifier, which
///         decodes them by their type hashes, checks that they hash to `digest`, and judges the
///         typed data as the approval it is before it signs the PDR:
///         - `domain` is the domain's `encodeData` with its type hash first:
///           `abi.encode(typeHash, ...fields)` of an `EIP712Domain` with a `chainId` and a
///           `verifyingContract`, so `keccak256(domain)` is the domain separator;
///         - `message` is the type hash of the primary type followed by the struct itself,
///           ABI-encoded with its nested structs in place: `abi.encode(typeHash, value)`.
///         A PDR signs at most one hash.
///
///         What a signature grant leaves behind, for revocation: the account emits no
///         `RightGranted` for it (it sees a digest, not the grant). A Permit2 `PermitSingle` /
///         `PermitBatch` leaves a Permit2 allowance, announced by Permit2's own `Permit` event
///         (owner the account, the token, the spender) and revoked as a Permit2 right (kind 1,
///         `lockdown`); it can pull no more than the account's token allowance to Permit2, which
///         a PDR grants with a recorded `approve`, so revoking that (kind 0, spender Permit2) ends
///         every Permit2 allowance of the token at once. An EIP-2612 `Permit` leaves a token
///         allowance, announced only by the token's `Approval` event and revoked as an ERC-20
///         allowance (kind 0). Permit2's signature transfers leave nothing: they must be used
///         while the PDR runs. Every grant is named in the signing PDR's own call data (this
///         call's `domain` and `message`).
interface IPaceSignatures {
    /// @notice Signs `digest`, the EIP-712 hash of `domain` and `message`, for this PDR.
    function approveHash(bytes32 digest, bytes calldata domain, bytes calldata message) external;
}
