// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {IPaceAccount} from "../../contracts/interfaces/IPaceAccount.sol";
import {PaceAccount} from "../../contracts/PaceAccount.sol";
import {PaceHalmosBase} from "./PaceHalmosBase.sol";
import {PaceAccountNoNonceCheck} from "./generated/PaceAccountNoNonceCheck.sol";

/// @notice Property 2: a PDR executes at most once. Once a PDR has executed, submitting it again
///         (through either entry point, under any signature of it) reverts; so does any other
///         PDR with the same nonce.
abstract contract OnceSpec is PaceHalmosBase {
    /// @dev One submission of the PDR: a compact signature of it, and the entry point.
    struct Submission {
        bytes32 r;
        bytes32 vs;
        bool lean;
    }

    function check_pdrExecutesAtMostOnce(
        IPaceAccount.Call[] memory calls,
        IPaceAccount.Bound[] memory bounds,
        address[] memory held,
        bytes32 attestation,
        uint256 terms,
        Submission memory first,
        Submission memory second
    ) public {
        for (uint256 i; i < calls.length; ++i) {
            _assumeNotModule(calls[i].target);
        }
        vm.assume(_submit(first.lean, calls, bounds, held, attestation, terms, first.r, first.vs));
        assert(!_submit(second.lean, calls, bounds, held, attestation, terms, second.r, second.vs));
    }
}

/// @notice Proof: holds for `PaceAccount`.
contract PaceAccountOnceProof is OnceSpec {
    function _deploy(address owner_, address verifier_) internal override returns (address) {
        return address(new PaceAccount(owner_, verifier_));
    }
}

/// @notice Non-vacuity: without the nonce comparison a PDR replays (must FAIL).
contract PaceAccountOnceNoNonceCheck is OnceSpec {
    function _deploy(address owner_, address verifier_) internal override returns (address) {
        return address(new PaceAccountNoNonceCheck(owner_, verifier_));
    }
}
