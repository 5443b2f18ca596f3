// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {IPaceDelegate} from "../../contracts/interfaces/IPaceDelegate.sol";
import {PaceDelegate} from "../../contracts/PaceDelegate.sol";
import {AdminSpec} from "./AdminProofs.t.sol";
import {DelegateUnderProof} from "./DelegateUnderProof.sol";
import {OnceSpec} from "./OnceProofs.t.sol";
import {OutflowSpec} from "./OutflowProofs.t.sol";
import {PaceHalmosBase} from "./PaceHalmosBase.sol";
import {PaceDelegateNoNonceCheck} from "./generated/PaceDelegateNoNonceCheck.sol";
import {PaceDelegateNoOwnerCheck} from "./generated/PaceDelegateNoOwnerCheck.sol";
import {PaceDelegateNoSetUpSignatureCheck} from "./generated/PaceDelegateNoSetUpSignatureCheck.sol";
import {PaceDelegateNoSignerCheck} from "./generated/PaceDelegateNoSignerCheck.sol";

/// @notice The core properties on `PaceDelegate`, whose owner is the EOA itself and whose set-up
///         and administration run in its module by `delegatecall`: no outflow without a valid
///         PDR or the owner (every entry point of the delegate's ABI, the module's functions
///         included), a PDR executes at most once, only the owner administers, and a relayed
///         set-up needs the EOA key's signature. Each with its non-vacuity check on the delegate
///         with the guard removed.

/// @notice Proof: no outflow without a valid PDR or the owner, on `PaceDelegate`.
contract PaceDelegateOutflowProof is OutflowSpec, DelegateUnderProof {
    function _newDelegate() internal override returns (address) {
        return address(new PaceDelegate());
    }
}

/// @notice Non-vacuity: without the signer comparison a PDR moves funds unsigned (must FAIL).
contract PaceDelegateOutflowNoSignerCheck is OutflowSpec, DelegateUnderProof {
    function _newDelegate() internal override returns (address) {
        return address(new PaceDelegateNoSignerCheck());
    }
}

/// @notice Non-vacuity: without `onlyOwner` anyone moves funds on the owner path (must FAIL).
contract PaceDelegateOutflowNoOwnerCheck is OutflowSpec, DelegateUnderProof {
    function _newDelegate() internal override returns (address) {
        return address(new PaceDelegateNoOwnerCheck());
    }
}

/// @notice Proof: a PDR executes at most once, on `PaceDelegate`.
contract PaceDelegateOnceProof is OnceSpec, DelegateUnderProof {
    function _newDelegate() internal override returns (address) {
        return address(new PaceDelegate());
    }
}

/// @notice Non-vacuity: without the nonce comparison a PDR replays (must FAIL).
contract PaceDelegateOnceNoNonceCheck is OnceSpec, DelegateUnderProof {
    function _newDelegate() internal override returns (address) {
        return address(new PaceDelegateNoNonceCheck());
    }
}

/// @notice Proof: only the owner (the EOA) administers `PaceDelegate`.
contract PaceDelegateAdminProof is AdminSpec, DelegateUnderProof {
    function _newDelegate() internal override returns (address) {
        return address(new PaceDelegate());
    }
}

/// @notice Non-vacuity: without `onlyOwner` anyone administers the delegate (must FAIL).
contract PaceDelegateAdminNoOwnerCheck is AdminSpec, DelegateUnderProof {
    function _newDelegate() internal override returns (address) {
        return address(new PaceDelegateNoOwnerCheck());
    }
}

/// @notice A set-up sent by anyone but the owner lands only with the EOA key's signature of its
///         digest: `ecrecover(setupDigest(setup), v, r, s)` is the EOA. Any set-up (verifier,
///         one budget, one lane floor, nonce, deadline), any 65-byte signature, any caller.
abstract contract SetUpSpec is PaceHalmosBase {
    function check_aRelayedSetUpNeedsTheEoaKey(
        address caller,
        IPaceDelegate.Setup memory setup,
        bytes32 r,
        bytes32 s,
        uint8 v
    ) public {
        // The EOA itself and the EntryPoint (running the EOA key's own user operation, the
        // EntryPoint proofs') are the owner.
        vm.assume(caller != address(account) && caller != ENTRY_POINT);
        address verifierBefore = account.verifier();
        vm.prank(caller);
        try IPaceDelegate(address(account)).setUp(setup, abi.encodePacked(r, s, v)) {
            bytes32 digest = IPaceDelegate(address(account)).setupDigest(setup);
            assert(ecrecover(digest, v, r, s) == address(account));
        } catch {
            assert(account.verifier() == verifierBefore);
        }
    }
}

/// @notice Proof: a relayed set-up needs the EOA key.
contract PaceDelegateSetUpProof is SetUpSpec, DelegateUnderProof {
    function _newDelegate() internal override returns (address) {
        return address(new PaceDelegate());
    }
}

/// @notice Non-vacuity: without the set-up's signature comparison anyone sets the delegate up
///         (must FAIL).
contract PaceDelegateSetUpNoSignatureCheck is SetUpSpec, DelegateUnderProof {
    function _newDelegate() internal override returns (address) {
        return address(new PaceDelegateNoSetUpSignatureCheck());
    }
}
