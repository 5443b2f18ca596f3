// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {IPaceAccount} from "../../contracts/interfaces/IPaceAccount.sol";
import {PaceAccount} from "../../contracts/PaceAccount.sol";
import {PostConditions} from "../../contracts/libraries/PostConditions.sol";
import {PaceHalmosBase} from "./PaceHalmosBase.sol";
import {PaceAccountNoPostCondition} from "./generated/PaceAccountNoPostCondition.sol";

/// @notice The post-conditions, one transaction: whatever a signed batch PDR's calls do
///         (symbolic: the token's functions, an ETH payment to an empty account, a call to the
///         account itself), if it executes, its post-condition on the account's token balance
///         held after the calls: WITHIN `lo..hi`, or KEPT within `down` below and `up` above the
///         balance before them (saturating). A PDR whose post-condition fails reverts. The terms
///         are fixed to ones that pass, as the outcome properties' are.
abstract contract CheckSpec is PaceHalmosBase {
    function check_failingPostConditionReverts(
        IPaceAccount.Call[] memory calls,
        bool kept,
        uint256 lo,
        uint256 hi,
        Signed memory pdr
    ) public {
        IPaceAccount.Check[] memory checks = new IPaceAccount.Check[](1);
        checks[0] = IPaceAccount.Check(
            address(token),
            abi.encodeWithSelector(0x70a08231, address(account)), // balanceOf(account)
            0,
            kept ? PostConditions.KEPT : PostConditions.WITHIN,
            lo,
            hi
        );
        uint256 before = token.balanceOf(address(account));
        if (!_submitChecked(calls, checks, pdr)) return;
        uint256 q = token.balanceOf(address(account));
        if (kept) {
            assert(q >= (before > lo ? before - lo : 0));
            assert(type(uint256).max - before < hi || q <= before + hi);
        } else {
            assert(lo <= q && q <= hi);
        }
    }
}

/// @notice Proof: holds for `PaceAccount`.
contract PaceAccountCheckProof is CheckSpec {
    function _deploy(address owner_, address verifier_) internal override returns (address) {
        return address(new PaceAccount(owner_, verifier_));
    }
}

/// @notice Non-vacuity: without the post-condition comparison a PDR whose check fails executes
///         (must FAIL).
contract PaceAccountCheckNoComparison is CheckSpec {
    function _deploy(address owner_, address verifier_) internal override returns (address) {
        return address(new PaceAccountNoPostCondition(owner_, verifier_));
    }
}
