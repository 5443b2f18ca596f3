// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {IPaceAccount} from "../../contracts/interfaces/IPaceAccount.sol";
import {PaceAccount} from "../../contracts/PaceAccount.sol";
import {OutcomeBounds} from "../../contracts/libraries/OutcomeBounds.sol";
import {PaceHalmosBase} from "./PaceHalmosBase.sol";
import {PaceAccountNoBoundCheck} from "./generated/PaceAccountNoBoundCheck.sol";
import {PaceAccountNoHeldCheck} from "./generated/PaceAccountNoHeldCheck.sol";

/// @notice The outcome the signed bounds enforce, one transaction: whatever a signed batch PDR's
///         calls do (symbolic: the token's functions, an ETH payment to an empty account, a call
///         to the account itself), if it executes, the token balance changed only as its BALANCE
///         bound allows, and no held asset's balance fell. The terms are fixed to ones that pass
///         (lane 0, the next sequence, always valid, fresh, no gas floor): window, nonce and gas
///         checks only add reverts.
abstract contract OutcomeBase is PaceHalmosBase {}

/// @notice Property 4: a BALANCE bound on the token, with any maxOut, minIn and maxIn.
abstract contract BoundSpec is OutcomeBase {
    function check_balanceChangesOnlyAsBounded(
        IPaceAccount.Call[] memory calls,
        uint256 maxOut,
        uint256 minIn,
        uint256 maxIn,
        Signed memory pdr
    ) public {
        IPaceAccount.Bound[] memory bounds = new IPaceAccount.Bound[](1);
        bounds[0] =
            IPaceAccount.Bound(address(token), OutcomeBounds.BALANCE, 0, maxOut, minIn, maxIn);
        uint256 before = token.balanceOf(address(account));
        if (!_submitSigned(calls, bounds, new address[](0), pdr)) return;
        uint256 afterCalls = token.balanceOf(address(account));
        if (afterCalls >= before) {
            assert(afterCalls - before >= minIn && afterCalls - before <= maxIn);
        } else {
            assert(minIn == 0 && before - afterCalls <= maxOut);
        }
    }
}

/// @notice Property 5: the token and ETH held, no bound: neither balance falls.
abstract contract HeldSpec is OutcomeBase {
    function check_heldBalancesNeverFall(IPaceAccount.Call[] memory calls, Signed memory pdr)
        public
    {
        address[] memory held = new address[](2);
        (held[0], held[1]) = (address(token), address(0));
        uint256 tokenBefore = token.balanceOf(address(account));
        uint256 ethBefore = address(account).balance;
        if (!_submitSigned(calls, new IPaceAccount.Bound[](0), held, pdr)) return;
        assert(token.balanceOf(address(account)) >= tokenBefore);
        assert(address(account).balance >= ethBefore);
    }
}

/// @notice Proof: holds for `PaceAccount`.
contract PaceAccountBoundProof is BoundSpec {
    function _deploy(address owner_, address verifier_) internal override returns (address) {
        return address(new PaceAccount(owner_, verifier_));
    }
}

/// @notice Non-vacuity: without the bound comparison the balance moves past it (must FAIL).
contract PaceAccountBoundNoCheck is BoundSpec {
    function _deploy(address owner_, address verifier_) internal override returns (address) {
        return address(new PaceAccountNoBoundCheck(owner_, verifier_));
    }
}

/// @notice Proof: holds for `PaceAccount`.
contract PaceAccountHeldProof is HeldSpec {
    function _deploy(address owner_, address verifier_) internal override returns (address) {
        return address(new PaceAccount(owner_, verifier_));
    }
}

/// @notice Non-vacuity: without the held comparison a held balance falls (must FAIL).
contract PaceAccountHeldNoCheck is HeldSpec {
    function _deploy(address owner_, address verifier_) internal override returns (address) {
        return address(new PaceAccountNoHeldCheck(owner_, verifier_));
    }
}
