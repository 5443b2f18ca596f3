// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {IPaceAccount} from "../../contracts/interfaces/IPaceAccount.sol";
import {PaceAccount} from "../../contracts/PaceAccount.sol";
import {PaceHalmosBase} from "./PaceHalmosBase.sol";
import {PaceAccountNoBudgetLimit} from "./generated/PaceAccountNoBudgetLimit.sol";

/// @notice Property 3, one transaction: what a PDR execution moves out of a budgeted token (every
///         transfer out, counted gross, plus the allowance it grants) never exceeds what is left
///         of the period's budget when it starts, as the account reports it (`budget()`). The
///         period may have been part spent by an earlier PDR and may roll over in between. What
///         is left is the account's own record, so this alone passes on an account that never
///         records what it spent: the total of two PDRs against the limit is
///         `BudgetTotalProofs.t.sol`'s.
abstract contract BudgetSpec is PaceHalmosBase {
    address internal constant RECIPIENT = address(0xBEEF);

    /// @dev The budget, the earlier spend and the time that passes around it.
    struct Setting {
        uint128 limit;
        uint64 period;
        uint32 gap0;
        uint32 gap1;
        uint256 earlierAmount;
    }

    function check_budgetedOutflowWithinWhatIsLeft(
        Setting memory setting,
        Signed memory earlier,
        IPaceAccount.Call[] memory calls,
        Signed memory pdr,
        address spender
    ) public {
        vm.assume(setting.period != 0);
        // An allowance to address(0) is no outflow: no one can spend it (OpenZeppelin's ERC-20
        // refuses to grant it), and the account's metering does not count it.
        vm.assume(spender != address(0));
        vm.prank(OWNER);
        account.setBudget(address(token), setting.limit, setting.period);

        // An earlier PDR of the period: one transfer out.
        vm.warp(block.timestamp + setting.gap0);
        IPaceAccount.Call[] memory spend = _one(
            address(token), 0, abi.encodeCall(token.transfer, (RECIPIENT, setting.earlierAmount))
        );
        vm.assume(_submitSigned(spend, new IPaceAccount.Bound[](0), new address[](0), earlier));

        vm.warp(block.timestamp + setting.gap1);
        uint256 left = _left();
        uint256 sentBefore = token.sent(address(account));
        uint256 allowanceBefore = token.allowance(address(account), spender);

        // No outcome bounds or held assets: they only add reverts, and the budget must hold
        // without them.
        if (!_submitSigned(calls, new IPaceAccount.Bound[](0), new address[](0), pdr)) return;

        uint256 out = token.sent(address(account)) - sentBefore;
        uint256 allowanceAfter = token.allowance(address(account), spender);
        if (allowanceAfter > allowanceBefore) out += allowanceAfter - allowanceBefore;
        assert(out <= left);
    }

    /// @dev What is left of the token's budget in the current period, as the account will see
    ///      it: all of it once the period has elapsed.
    function _left() internal view returns (uint256) {
        (uint128 limit, uint64 period, uint64 windowStart, uint128 spent) =
            account.budget(address(token));
        if (block.timestamp >= uint256(windowStart) + period) return limit;
        return spent >= limit ? 0 : limit - spent;
    }
}

/// @notice Proof: holds for `PaceAccount`.
contract PaceAccountBudgetProof is BudgetSpec {
    function _deploy(address owner_, address verifier_) internal override returns (address) {
        return address(new PaceAccount(owner_, verifier_));
    }
}

/// @notice Non-vacuity: without the limit comparison a PDR overspends (must FAIL).
contract PaceAccountBudgetNoLimitCheck is BudgetSpec {
    function _deploy(address owner_, address verifier_) internal override returns (address) {
        return address(new PaceAccountNoBudgetLimit(owner_, verifier_));
    }
}
