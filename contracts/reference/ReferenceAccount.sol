// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {ECDSA} from "@openzeppelin/contracts/utils/cryptography/ECDSA.sol";
import {ReferencePdr} from "./ReferencePdr.sol";

/// @title ReferenceAccount
/// @notice The PACE paper's smart account (sections 4.5 and 5.6, Figure 2), rebuilt as described
///         for one purpose: measuring its gas side by side with `PaceAccount`. Do not use it to
///         hold funds; it binds bytes, not outcomes.
/// @dev `executePDR` recovers the verifier's signature over `ReferencePdr.digest` and runs the
///      paper's nine checks in its order: signer, chainId, account == this, target, value,
///      keccak256(data) == calldataHash, nonce unused, validAfter <= now, now <= validUntil.
///      It then marks the nonce used (before the call: checks-effects-interactions) and makes the
///      call. The paper reverts every failure as `PDRInvalid`; here each check has its own error
///      so tests can tell them apart (this does not change the gas of the success path).
///      `owner` and `verifier` live in storage, as in a plain hand-written account; the owner's
///      raw `execute` therefore pays one cold SLOAD that `executePDR` does not, and `executePDR`
///      pays one for `verifier`.
contract ReferenceAccount {
    /*//////////////////////////////////////////////////////////////
                                 ERRORS
    //////////////////////////////////////////////////////////////*/

    /// @notice The caller of an owner-only function is not the owner.
    error ReferenceAccountNotOwner(address caller);
    /// @notice An address argument is zero.
    error ReferenceAccountZeroAddress();
    /// @notice Check 1: the signature does not recover to the verifier (zero if malformed).
    error ReferenceAccountInvalidSigner(address recovered);
    /// @notice Check 2: the PDR is for another chain.
    error ReferenceAccountWrongChainId(uint256 signed, uint256 actual);
    /// @notice Check 3: the PDR is for another account.
    error ReferenceAccountWrongAccount(address signed);
    /// @notice Check 4: the call's target differs from the signed one.
    error ReferenceAccountTargetMismatch(address signed, address actual);
    /// @notice Check 5: the call's value differs from the signed one.
    error ReferenceAccountValueMismatch(uint256 signed, uint256 actual);
    /// @notice Check 6: keccak256 of the call's data differs from the signed calldata hash.
    error ReferenceAccountCalldataMismatch(bytes32 signed, bytes32 actual);
    /// @notice Check 7: the nonce was already used.
    error ReferenceAccountNonceUsed(bytes32 nonce);
    /// @notice Check 8: the PDR is not valid yet.
    error ReferenceAccountNotYetValid(uint256 validAfter, uint256 timestamp);
    /// @notice Check 9: the PDR has expired.
    error ReferenceAccountExpired(uint256 validUntil, uint256 timestamp);
    /// @notice The external call reverted; carries its revert data.
    error ReferenceAccountCallFailed(bytes returnData);

    /*//////////////////////////////////////////////////////////////
                                 EVENTS
    //////////////////////////////////////////////////////////////*/

    /// @notice A call authorised by a PDR was executed.
    /// @param nonce The PDR's nonce, now used.
    /// @param target The contract called.
    /// @param value Wei sent.
    event PdrExecuted(bytes32 indexed nonce, address indexed target, uint256 value);

    /// @notice The owner executed a raw call.
    /// @param target The contract called.
    /// @param value Wei sent.
    event Executed(address indexed target, uint256 value);

    /// @notice The verifier key changed.
    /// @param previousVerifier The old verifier.
    /// @param newVerifier The new verifier.
    event VerifierUpdated(address indexed previousVerifier, address indexed newVerifier);

    /*//////////////////////////////////////////////////////////////
                                 STORAGE
    //////////////////////////////////////////////////////////////*/

    /// @notice May call `execute` and `setVerifier`.
    address public owner;
    /// @notice The address whose signature `executePDR` requires.
    address public verifier;
    /// @notice Nonces already consumed.
    mapping(bytes32 nonce => bool used) public usedNonces;

    /*//////////////////////////////////////////////////////////////
                               CONSTRUCTOR
    //////////////////////////////////////////////////////////////*/

    /// @param owner_ The owner.
    /// @param verifier_ The verifier whose signatures authorise PDR executions.
    constructor(address owner_, address verifier_) {
        if (owner_ == address(0) || verifier_ == address(0)) revert ReferenceAccountZeroAddress();
        owner = owner_;
        verifier = verifier_;
        emit VerifierUpdated(address(0), verifier_);
    }

    /*//////////////////////////////////////////////////////////////
                                EXTERNAL
    //////////////////////////////////////////////////////////////*/

    /// @notice Accepts ETH.
    receive() external payable {}

    /// @notice Executes `target.call{value: value}(data)` if `pdr`, signed by the verifier, binds
    ///         exactly this call on this chain and account, its nonce is unused, and now is inside
    ///         its validity window. Callable by anyone (the agent submits it).
    /// @param pdr The signed record.
    /// @param signature The verifier's 65-byte ECDSA signature over `pdrDigest(pdr)`.
    /// @param target The contract to call.
    /// @param value Wei to send.
    /// @param data The calldata.
    /// @return result The call's return data.
    function executePDR(
        ReferencePdr.Record calldata pdr,
        bytes calldata signature,
        address target,
        uint256 value,
        bytes calldata data
    ) external returns (bytes memory result) {
        (address recovered, ECDSA.RecoverError err,) =
            ECDSA.tryRecover(ReferencePdr.digest(pdr), signature);
        if (err != ECDSA.RecoverError.NoError || recovered != verifier) {
            revert ReferenceAccountInvalidSigner(recovered);
        }
        if (pdr.chainId != block.chainid) {
            revert ReferenceAccountWrongChainId(pdr.chainId, block.chainid);
        }
        if (pdr.account != address(this)) revert ReferenceAccountWrongAccount(pdr.account);
        if (pdr.target != target) revert ReferenceAccountTargetMismatch(pdr.target, target);
        if (pdr.value != value) revert ReferenceAccountValueMismatch(pdr.value, value);
        bytes32 dataHash = keccak256(data);
        if (pdr.calldataHash != dataHash) {
            revert ReferenceAccountCalldataMismatch(pdr.calldataHash, dataHash);
        }
        if (usedNonces[pdr.nonce]) revert ReferenceAccountNonceUsed(pdr.nonce);
        // forge-lint: disable-next-line(block-timestamp)
        if (block.timestamp < pdr.validAfter) {
            revert ReferenceAccountNotYetValid(pdr.validAfter, block.timestamp);
        }
        // forge-lint: disable-next-line(block-timestamp)
        if (block.timestamp > pdr.validUntil) {
            revert ReferenceAccountExpired(pdr.validUntil, block.timestamp);
        }

        usedNonces[pdr.nonce] = true;
        result = _call(target, value, data);
        emit PdrExecuted(pdr.nonce, target, value);
    }

    /// @notice Owner-only raw call, no PDR.
    /// @param target The contract to call.
    /// @param value Wei to send.
    /// @param data The calldata.
    /// @return result The call's return data.
    function execute(address target, uint256 value, bytes calldata data)
        external
        returns (bytes memory result)
    {
        if (msg.sender != owner) revert ReferenceAccountNotOwner(msg.sender);
        result = _call(target, value, data);
        emit Executed(target, value);
    }

    /// @notice Replaces the verifier. Owner only.
    /// @param newVerifier The new verifier (non-zero).
    function setVerifier(address newVerifier) external {
        if (msg.sender != owner) revert ReferenceAccountNotOwner(msg.sender);
        if (newVerifier == address(0)) revert ReferenceAccountZeroAddress();
        emit VerifierUpdated(verifier, newVerifier);
        verifier = newVerifier;
    }

    /// @notice The digest the verifier signs: EIP-191 over keccak256(abi.encode(12 fields)).
    /// @param pdr The record.
    /// @return The digest to sign (e.g. with `vm.sign`).
    function pdrDigest(ReferencePdr.Record calldata pdr) external pure returns (bytes32) {
        return ReferencePdr.digest(pdr);
    }

    /*//////////////////////////////////////////////////////////////
                                INTERNAL
    //////////////////////////////////////////////////////////////*/

    /// @dev Calls `target`, reverting with `ReferenceAccountCallFailed` if the call reverts.
    function _call(address target, uint256 value, bytes calldata data)
        private
        returns (bytes memory result)
    {
        bool success;
        (success, result) = target.call{value: value}(data);
        if (!success) revert ReferenceAccountCallFailed(result);
    }
}
