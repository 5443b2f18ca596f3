// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {MessageHashUtils} from "@openzeppelin/contracts/utils/cryptography/MessageHashUtils.sol";

/// @title ReferencePdr
/// @notice The PACE paper's PDR and its digest (paper section 5.6), reproduced for a side-by-side
///         gas comparison with `PaceAccount`. Not the project's PDR: that one is EIP-712 typed
///         data (see `contracts/libraries/PdrHash.sol`).
/// @dev The twelve fields, in the order the paper lists them: policyHash, intentHash,
///      simulationHash, calldataHash, chainId, account, target, value, nonce, validAfter,
///      validUntil, simulationBlock. The paper does not sign a decision field (section 4.5: only
///      approvals are ever signed, so a valid signature attests approval), so neither do we; the
///      twelfth field is the simulation block, which the account carries but never checks.
///      digest = toEthSignedMessageHash(keccak256(abi.encode(the twelve fields))), i.e.
///      keccak256("\x19Ethereum Signed Message:\n32" ++ keccak256(abi.encode(...))).
library ReferencePdr {
    /// @notice One Policy Decision Record as the paper's account receives it.
    /// @param policyHash Hash of the policy applied.
    /// @param intentHash Hash of the approved intent.
    /// @param simulationHash Hash of the simulation report.
    /// @param calldataHash keccak256 of the exact calldata approved.
    /// @param chainId Chain the approval is for.
    /// @param account The smart account that may execute it.
    /// @param target The contract called.
    /// @param value Wei sent with the call.
    /// @param nonce Single-use identifier.
    /// @param validAfter First timestamp at which the PDR is valid.
    /// @param validUntil Last timestamp at which the PDR is valid.
    /// @param simulationBlock Block of the simulated state (signed, not checked on-chain).
    struct Record {
        bytes32 policyHash;
        bytes32 intentHash;
        bytes32 simulationHash;
        bytes32 calldataHash;
        uint256 chainId;
        address account;
        address target;
        uint256 value;
        bytes32 nonce;
        uint256 validAfter;
        uint256 validUntil;
        uint256 simulationBlock;
    }

    /// @notice The EIP-191 digest the verifier signs for `pdr`.
    /// @param pdr The record.
    /// @return The Ethereum-Signed-Message digest of the ABI-encoded twelve fields.
    function digest(Record calldata pdr) internal pure returns (bytes32) {
        bytes32 fieldsHash = keccak256(
            abi.encode(
                pdr.policyHash,
                pdr.intentHash,
                pdr.simulationHash,
                pdr.calldataHash,
                pdr.chainId,
                pdr.account,
                pdr.target,
                pdr.value,
                pdr.nonce,
                pdr.validAfter,
                pdr.validUntil,
                pdr.simulationBlock
            )
        );
        return MessageHashUtils.toEthSignedMessageHash(fieldsHash);
    }
}
