// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {IPaceAccount} from "../../contracts/interfaces/IPaceAccount.sol";
import {PaceAccount} from "../../contracts/PaceAccount.sol";
import {PdrTerms} from "../../contracts/libraries/PdrTerms.sol";
import {PaceHalmosBase} from "./PaceHalmosBase.sol";
import {svm} from "./Svm.sol";
import {PaceAccountNoOwnerCheck} from "./generated/PaceAccountNoOwnerCheck.sol";

/// @notice Property 6, one transaction, every external entry point: only the owner changes the
///         verifier, the pause flag, the budgets and the nonce lanes. A call from anyone else
///         (but the EntryPoint, which the owner's user operations come through: `ENTRY_POINT`)
///         that succeeds leaves the verifier, the pause flag, every budget's limit and period and
///         the list of budgeted tokens as they were. It moves no nonce lane and no budget's
///         period or spend, unless it is a PDR execution the verifier signed: that moves its own
///         lane one step and charges its spend (the budget proofs bound the charge).
/// @dev    `make prove` runs this suite under z3: yices 2.6.4, halmos's default solver, answers
///         sat to an unsatisfiable query of the lane step (tests/halmos/prove.py, `solver`).
abstract contract AdminSpec is PaceHalmosBase {
    /// @dev What the owner may change, read through the account's views: the token's budget
    ///      (another token's budget would join the list of budgeted tokens), lane 0 and a lane
    ///      of any other key.
    struct State {
        address verifier;
        bool paused;
        uint128 limit;
        uint64 period;
        uint64 windowStart;
        uint128 spent;
        bytes32 budgetTokens;
        uint64 lane0;
        uint64 sequence;
    }

    /// @notice Any caller but the owner, any ETH value, any entry point (halmos's
    ///         `createCalldata`: every non-view function of the account's ABI, plus receive and
    ///         fallback), on an account with a budget on the token.
    function check_onlyOwnerAdministers(
        address caller,
        uint256 value,
        uint32 probeKey,
        uint128 limit,
        uint64 period
    ) public {
        // The owner may change anything, and so may the EntryPoint running an owner user
        // operation (`ENTRY_POINT`). The account is never its own caller: a call from it is one
        // of its own calls, already authorised or not one level up.
        vm.assume(caller != _owner() && caller != ENTRY_POINT && caller != address(account));
        vm.assume(value <= 1e30);
        vm.assume(period != 0);
        vm.assume(probeKey != 0);
        vm.prank(_owner());
        account.setBudget(address(token), limit, period);

        State memory before = _state(probeKey);
        bytes memory data = svm.createCalldata(address(account));
        _assumeTargets(data);
        vm.deal(caller, value);
        vm.prank(caller);
        (bool ok,) = address(account).call{value: value}(data);
        if (!ok) return;
        State memory afterwards = _state(probeKey);

        assert(afterwards.verifier == before.verifier);
        assert(afterwards.paused == before.paused);
        assert(afterwards.limit == before.limit);
        assert(afterwards.period == before.period);
        assert(afterwards.budgetTokens == before.budgetTokens);
        bool lane0Moved = afterwards.lane0 != before.lane0;
        bool laneMoved = afterwards.sequence != before.sequence;
        bool spendMoved =
            afterwards.windowStart != before.windowStart || afterwards.spent != before.spent;
        if (!lane0Moved && !laneMoved && !spendMoved) return;
        // The PDR's terms (argument 4 of `executePDR`, 5 of `executeBatchPDR`). Read before
        // `_signedPdr`, which reuses `data` in place.
        uint32 key = PdrTerms.key(_termsOf(data));
        assert(_signedPdr(data, before.verifier));
        if (lane0Moved) assert(key == 0 && afterwards.lane0 == before.lane0 + 1);
        if (laneMoved) assert(key == probeKey && afterwards.sequence == before.sequence + 1);
    }

    function _state(uint32 probeKey) internal view returns (State memory s) {
        s.verifier = account.verifier();
        s.paused = account.paused();
        (s.limit, s.period, s.windowStart, s.spent) = account.budget(address(token));
        s.budgetTokens = keccak256(abi.encode(account.budgetTokens()));
        s.lane0 = account.nextSequence(0);
        s.sequence = account.nextSequence(probeKey);
    }
}

/// @notice Proof: holds for `PaceAccount`.
contract PaceAccountAdminProof is AdminSpec {
    function _deploy(address owner_, address verifier_) internal override returns (address) {
        return address(new PaceAccount(owner_, verifier_));
    }
}

/// @notice Non-vacuity: without `onlyOwner` anyone rotates the verifier, pauses, sets budgets or
///         cancels nonces (must FAIL).
contract PaceAccountAdminNoOwnerCheck is AdminSpec {
    function _deploy(address owner_, address verifier_) internal override returns (address) {
        return address(new PaceAccountNoOwnerCheck(owner_, verifier_));
    }
}
