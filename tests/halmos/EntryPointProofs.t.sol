// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {IPaceAccount} from "../../contracts/interfaces/IPaceAccount.sol";
import {PaceAccount} from "../../contracts/PaceAccount.sol";
import {PaceDelegate} from "../../contracts/PaceDelegate.sol";
import {PdrHash} from "../../contracts/libraries/PdrHash.sol";
import {PdrTerms} from "../../contracts/libraries/PdrTerms.sol";
import {DelegateUnderProof} from "./DelegateUnderProof.sol";
import {PaceHalmosBase} from "./PaceHalmosBase.sol";
import {svm} from "./Svm.sol";
import {PaceAccountNoLaneAdvance} from "./generated/PaceAccountNoLaneAdvance.sol";
import {PaceAccountNoOwnerUserOpCheck} from "./generated/PaceAccountNoOwnerUserOpCheck.sol";
import {PaceAccountNoUserOpSignerCheck} from "./generated/PaceAccountNoUserOpSignerCheck.sol";
import {PaceAccountPaysPdrPrefund} from "./generated/PaceAccountPaysPdrPrefund.sol";
import {PaceDelegateNoLaneAdvance} from "./generated/PaceDelegateNoLaneAdvance.sol";
import {PaceDelegateNoOwnerUserOpCheck} from "./generated/PaceDelegateNoOwnerUserOpCheck.sol";
import {PaceDelegateNoUserOpSignerCheck} from "./generated/PaceDelegateNoUserOpSignerCheck.sol";
import {PaceDelegatePaysPdrPrefund} from "./generated/PaceDelegatePaysPdrPrefund.sol";

/// @notice `hashStruct(Pdr)` of a batch, from calldata as the account hashes it (`PdrHash`): the
///         proofs' own EIP-712 digest of a user operation's PDR.
contract BatchHasher {
    /// @dev Of `executeUserOpPdr`'s arguments `args` (the call data without its selector) and
    ///      `attestation`.
    function structHashOf(bytes memory args, bytes32 attestation) external view returns (bytes32) {
        (
            IPaceAccount.Call[] memory calls,
            IPaceAccount.Bound[] memory bounds,
            address[] memory held,
            IPaceAccount.Check[] memory checks,
            uint256 terms
        ) = abi.decode(
            args,
            (IPaceAccount.Call[], IPaceAccount.Bound[], address[], IPaceAccount.Check[], uint256)
        );
        return this.structHash(calls, bounds, held, checks, attestation, terms);
    }

    function structHash(
        IPaceAccount.Call[] calldata calls,
        IPaceAccount.Bound[] calldata bounds,
        address[] calldata held,
        IPaceAccount.Check[] calldata checks,
        bytes32 attestation,
        uint256 terms
    ) external pure returns (bytes32) {
        return PdrHash.hashBatch(calls, bounds, held, checks, attestation, terms);
    }
}

/// @notice The EntryPoint path, with the EntryPoint as the caller, modelled as the EntryPoint
///         v0.8 drives an account: `validateUserOp(op, userOpHash, missingAccountFunds)`, then,
///         unless validation failed (`SIG_VALIDATION_FAILED`: the EntryPoint reverts the whole
///         bundle), a call with the operation's call data. The EntryPoint's own nonce and the
///         validity window are left out (they only refuse more), as is what `userOpHash` hashes:
///         any hash, any nonce, any prefund.
abstract contract EntryPointSpec is PaceHalmosBase {
    /// @dev A user operation of the account with `callData`, `nonce` and `signature`.
    function _op(bytes memory callData, uint256 nonce, bytes memory signature)
        internal
        view
        returns (IPaceAccount.PackedUserOperation memory op)
    {
        op.sender = address(account);
        op.nonce = nonce;
        op.callData = callData;
        op.signature = signature;
    }

    /// @dev The EntryPoint validates `op`; true when validation passed (no revert, no
    ///      `SIG_VALIDATION_FAILED`).
    function _validates(
        IPaceAccount.PackedUserOperation memory op,
        bytes32 userOpHash,
        uint256 missing
    ) internal returns (bool) {
        vm.prank(ENTRY_POINT);
        try account.validateUserOp(op, userOpHash, missing) returns (uint256 validationData) {
            return validationData & 1 == 0;
        } catch {
            return false;
        }
    }

    /// @dev The EntryPoint runs `op`: validation, then its call data; true when both passed.
    function _runs(IPaceAccount.PackedUserOperation memory op, bytes32 userOpHash, uint256 missing)
        internal
        returns (bool)
    {
        if (!_validates(op, userOpHash, missing)) return false;
        vm.prank(ENTRY_POINT);
        (bool ok,) = address(account).call(op.callData);
        return ok;
    }

    /// @dev Whether `callData` is `executeUserOpPdr` of a batch whose PDR, in the EntryPoint
    ///      domain of `userOpHash`, the verifier signed with (`r`, `vs`) and `attestation`.
    function _verifierSigned(
        bytes memory callData,
        bytes32 userOpHash,
        bytes32 attestation,
        bytes32 r,
        bytes32 vs
    ) internal returns (bool) {
        if (callData.length < 4) return false;
        // forge-lint: disable-next-line(unsafe-typecast)
        if (bytes4(callData) != IPaceAccount.executeUserOpPdr.selector) return false;
        bytes32 digest = PdrHash.toTypedDataHash(
            account.userOpDomainSeparator(userOpHash),
            new BatchHasher().structHashOf(_arguments(callData), attestation)
        );
        return _recover(digest, r, vs) == VERIFIER;
    }
}

/// @notice Validating a PDR user operation (a PDR batch of one call to any target with any
///         value and 68 bytes of any call data, any terms; a 96-byte PDR signature of any
///         words, or none at all; any hash, nonce and `missingAccountFunds`), whatever validation
///         answers, moves no ether out of the account: its gas comes from the deposit or a
///         paymaster.
abstract contract PrefundSpec is EntryPointSpec {
    function check_validatingAPdrUserOpMovesNoEther(
        bytes32 userOpHash,
        uint256 nonce,
        uint256 missing,
        uint256 terms,
        bytes32 attestation,
        bytes32 r,
        bytes32 vs,
        bool unsigned
    ) public {
        vm.assume(missing <= 1e30);
        bytes memory callData = abi.encodeCall(
            IPaceAccount.executeUserOpPdr,
            (
                _one(svm.createAddress("target"), uint256(r), svm.createBytes(68, "call data")),
                new IPaceAccount.Bound[](0),
                new address[](0),
                new IPaceAccount.Check[](0),
                terms
            )
        );
        bytes memory signature = unsigned ? bytes("") : abi.encode(attestation, r, vs);
        uint256 before = address(account).balance;
        vm.prank(ENTRY_POINT);
        try account.validateUserOp(_op(callData, nonce, signature), userOpHash, missing) {} catch {}
        assert(address(account).balance == before);
    }
}

/// @notice Through the EntryPoint, any user operation (call data for any function of the
///         account, a PDR or an owner signature, any hash, nonce and prefund) that validates and
///         runs: if the account's ether or token balance fell, or its token allowance rose, the
///         owner signed the operation's hash or the verifier signed the PDR batch it runs; if
///         the verifier, the pause flag, the budgets (the token's, or the list of budgeted tokens)
///         or a nonce lane changed, the owner signed it, or it is a PDR batch the verifier signed
///         that moved its own lane forward.
abstract contract EntryPointRunSpec is EntryPointSpec {
    struct Snapshot {
        uint256 eth;
        uint256 balance;
        uint256 allowance;
        address verifier;
        bool paused;
        uint128 limit;
        uint64 period;
        uint256 budgeted;
        uint64 lane0;
        uint64 lane;
    }

    function _snapshot(address spender, uint32 key) internal view returns (Snapshot memory s) {
        s.eth = address(account).balance;
        s.balance = token.balanceOf(address(account));
        s.allowance = token.allowance(address(account), spender);
        s.verifier = account.verifier();
        s.paused = account.paused();
        (s.limit, s.period,,) = account.budget(address(token));
        s.budgeted = account.budgetTokens().length;
        s.lane0 = account.nextSequence(0);
        s.lane = account.nextSequence(key);
    }

    /// @dev A user operation's symbolic parts: its hash, nonce and prefund, and its signature,
    ///      an owner's 65 bytes `(a, b, uint8(c))` or a PDR's `abi.encode(a, b, c)`.
    struct Operation {
        bytes32 userOpHash;
        uint256 nonce;
        uint256 missing;
        bool ownerOp;
        bytes32 a;
        bytes32 b;
        bytes32 c;
    }

    function check_theEntryPointRunsOnlySignedOperations(
        Operation memory o,
        address spender,
        uint32 probeKey
    ) public {
        vm.assume(o.missing <= 1e30);
        vm.assume(probeKey != 0);
        bytes memory callData = svm.createCalldata(address(account));
        _assumeTargets(callData);
        // forge-lint: disable-next-line(unsafe-typecast)
        uint8 v = uint8(uint256(o.c));
        bytes memory signature =
            o.ownerOp ? abi.encodePacked(o.a, o.b, v) : abi.encode(o.a, o.b, o.c);
        Snapshot memory before = _snapshot(spender, probeKey);
        if (!_runs(_op(callData, o.nonce, signature), o.userOpHash, o.missing)) return;
        Snapshot memory afterwards = _snapshot(spender, probeKey);

        // The PDR's terms, argument 4 of `executeUserOpPdr` (after `checks`): read before
        // `_verifierSigned`, which reuses `callData` in place.
        uint32 key = PdrTerms.key(_termsOf(callData));
        bool byOwner = o.ownerOp && ecrecover(o.userOpHash, v, o.a, o.b) == _owner();
        bool byVerifier = !o.ownerOp && _verifierSigned(callData, o.userOpHash, o.a, o.b, o.c);
        _assertOnlySigned(before, afterwards, byOwner, byVerifier);
        _assertLanes(before, afterwards, byOwner, byVerifier, key, probeKey);
    }

    /// @dev Outflow only under a signature; administration only under the owner's.
    function _assertOnlySigned(
        Snapshot memory before,
        Snapshot memory afterwards,
        bool byOwner,
        bool byVerifier
    ) internal pure {
        bool outflow = afterwards.eth < before.eth || afterwards.balance < before.balance
            || afterwards.allowance > before.allowance;
        if (outflow) assert(byOwner || byVerifier);
        bool administered = afterwards.verifier != before.verifier
            || afterwards.paused != before.paused || afterwards.limit != before.limit
            || afterwards.period != before.period || afterwards.budgeted != before.budgeted;
        if (administered) assert(byOwner);
    }

    /// @dev A lane moves only under the owner's signature, or the verifier's for its own lane,
    ///      forward.
    function _assertLanes(
        Snapshot memory before,
        Snapshot memory afterwards,
        bool byOwner,
        bool byVerifier,
        uint32 key,
        uint32 probeKey
    ) internal pure {
        bool lane0Moved = afterwards.lane0 != before.lane0;
        bool laneMoved = afterwards.lane != before.lane;
        if ((!lane0Moved && !laneMoved) || byOwner) return;
        assert(byVerifier);
        if (lane0Moved) assert(key == 0 && afterwards.lane0 > before.lane0);
        if (laneMoved) assert(key == probeKey && afterwards.lane > before.lane);
    }
}

/// @notice A PDR user operation runs at most once: after the EntryPoint ran it, the same batch
///         and terms run neither again through the EntryPoint (any hash, signature and nonce)
///         nor on the direct path (any signature): one lane per key across both paths.
abstract contract EntryPointOnceSpec is EntryPointSpec {
    /// @dev A submission of the PDR: through the EntryPoint under `userOpHash` and `nonce`, or
    ///      directly (`direct`), signed (`r`, `vs`).
    struct Submission {
        bytes32 userOpHash;
        uint256 nonce;
        bytes32 r;
        bytes32 vs;
        bool direct;
    }

    function check_aUserOpPdrRunsOnce(
        IPaceAccount.Call[] memory calls,
        bytes32 attestation,
        Submission memory first,
        Submission memory second
    ) public {
        for (uint256 i; i < calls.length; ++i) {
            _assumeNotModule(calls[i].target);
        }
        // Terms that pass: lane 0 at its next sequence, always valid, fresh, no gas floor.
        uint256 terms = PdrTerms.pack(
            0,
            account.nextSequence(0),
            0,
            type(uint40).max,
            // forge-lint: disable-next-line(unsafe-typecast)
            uint48(block.number),
            0,
            0
        );
        bytes memory callData = abi.encodeCall(
            IPaceAccount.executeUserOpPdr,
            (
                calls,
                new IPaceAccount.Bound[](0),
                new address[](0),
                new IPaceAccount.Check[](0),
                terms
            )
        );
        first.nonce = PdrTerms.nonce(terms);
        vm.assume(_submitOp(callData, attestation, first));
        bool again = second.direct
            ? _submitDirect(calls, attestation, terms, second)
            : _submitOp(callData, attestation, second);
        assert(!again);
    }

    function _submitOp(bytes memory callData, bytes32 attestation, Submission memory s)
        internal
        returns (bool)
    {
        return _runs(_op(callData, s.nonce, abi.encode(attestation, s.r, s.vs)), s.userOpHash, 0);
    }

    function _submitDirect(
        IPaceAccount.Call[] memory calls,
        bytes32 attestation,
        uint256 terms,
        Submission memory s
    ) internal returns (bool) {
        try account.executeBatchPDR(
            calls,
            new IPaceAccount.Bound[](0),
            new address[](0),
            new IPaceAccount.Check[](0),
            attestation,
            terms,
            s.r,
            s.vs
        ) {
            return true;
        } catch {
            return false;
        }
    }
}

/// @notice Proof: validating a PDR user operation moves no ether, `PaceAccount`.
contract PaceAccountPrefundProof is PrefundSpec {
    function _deploy(address owner_, address verifier_) internal override returns (address) {
        return address(new PaceAccount(owner_, verifier_));
    }
}

/// @notice Non-vacuity: an account paying every operation's prefund (must FAIL).
contract PaceAccountPrefundPaysPdrPrefund is PrefundSpec {
    function _deploy(address owner_, address verifier_) internal override returns (address) {
        return address(new PaceAccountPaysPdrPrefund(owner_, verifier_));
    }
}

/// @notice Proof: validating a PDR user operation moves no ether, `PaceDelegate`.
contract PaceDelegatePrefundProof is PrefundSpec, DelegateUnderProof {
    function _newDelegate() internal override returns (address) {
        return address(new PaceDelegate());
    }
}

/// @notice Non-vacuity: a delegate paying every operation's prefund (must FAIL).
contract PaceDelegatePrefundPaysPdrPrefund is PrefundSpec, DelegateUnderProof {
    function _newDelegate() internal override returns (address) {
        return address(new PaceDelegatePaysPdrPrefund());
    }
}

/// @notice Proof: the EntryPoint runs only what the owner or the verifier signed,
///         `PaceAccount`.
contract PaceAccountEntryPointProof is EntryPointRunSpec {
    function _deploy(address owner_, address verifier_) internal override returns (address) {
        return address(new PaceAccount(owner_, verifier_));
    }
}

/// @notice Non-vacuity: without the PDR signature's check in validation (must FAIL).
contract PaceAccountEntryPointNoUserOpSignerCheck is EntryPointRunSpec {
    function _deploy(address owner_, address verifier_) internal override returns (address) {
        return address(new PaceAccountNoUserOpSignerCheck(owner_, verifier_));
    }
}

/// @notice Non-vacuity: without the owner signature's check in validation (must FAIL).
contract PaceAccountEntryPointNoOwnerUserOpCheck is EntryPointRunSpec {
    function _deploy(address owner_, address verifier_) internal override returns (address) {
        return address(new PaceAccountNoOwnerUserOpCheck(owner_, verifier_));
    }
}

/// @notice Proof: the EntryPoint runs only what the owner or the verifier signed,
///         `PaceDelegate`.
contract PaceDelegateEntryPointProof is EntryPointRunSpec, DelegateUnderProof {
    function _newDelegate() internal override returns (address) {
        return address(new PaceDelegate());
    }
}

/// @notice Non-vacuity: without the PDR signature's check in validation (must FAIL).
contract PaceDelegateEntryPointNoUserOpSignerCheck is EntryPointRunSpec, DelegateUnderProof {
    function _newDelegate() internal override returns (address) {
        return address(new PaceDelegateNoUserOpSignerCheck());
    }
}

/// @notice Non-vacuity: without the owner signature's check in validation (must FAIL).
contract PaceDelegateEntryPointNoOwnerUserOpCheck is EntryPointRunSpec, DelegateUnderProof {
    function _newDelegate() internal override returns (address) {
        return address(new PaceDelegateNoOwnerUserOpCheck());
    }
}

/// @notice Proof: a PDR user operation runs at most once, `PaceAccount`.
contract PaceAccountEntryPointOnceProof is EntryPointOnceSpec {
    function _deploy(address owner_, address verifier_) internal override returns (address) {
        return address(new PaceAccount(owner_, verifier_));
    }
}

/// @notice Non-vacuity: an execution that leaves the lane where it was (must FAIL).
contract PaceAccountEntryPointOnceNoLaneAdvance is EntryPointOnceSpec {
    function _deploy(address owner_, address verifier_) internal override returns (address) {
        return address(new PaceAccountNoLaneAdvance(owner_, verifier_));
    }
}

/// @notice Proof: a PDR user operation runs at most once, `PaceDelegate`.
contract PaceDelegateEntryPointOnceProof is EntryPointOnceSpec, DelegateUnderProof {
    function _newDelegate() internal override returns (address) {
        return address(new PaceDelegate());
    }
}

/// @notice Non-vacuity: an execution that leaves the lane where it was (must FAIL).
contract PaceDelegateEntryPointOnceNoLaneAdvance is EntryPointOnceSpec, DelegateUnderProof {
    function _newDelegate() internal override returns (address) {
        return address(new PaceDelegateNoLaneAdvance());
    }
}
