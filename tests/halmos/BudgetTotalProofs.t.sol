// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {IPaceAccount} from "../../contracts/interfaces/IPaceAccount.sol";
import {PaceAccount} from "../../contracts/PaceAccount.sol";
import {PaceHalmosBase} from "./PaceHalmosBase.sol";
import {PaceAccountNoBudgetLimit} from "./generated/PaceAccountNoBudgetLimit.sol";
import {PaceAccountNoSpendRecord} from "./generated/PaceAccountNoSpendRecord.sol";

/// @notice Property 3, two transactions: two PDR executions in one period of a token's budget
///         move out of the token, together, at most the budget's limit. What each moves is
///         measured at the token (every transfer out, gross, plus the allowance it grants a
///         spender), never read from the account's own record of what was spent, so an account
///         that forgets a charge fails here, while the one-transaction property
///         (`BudgetProofs.t.sol`), which trusts that record, passes on it.
abstract contract BudgetTotalSpec is PaceHalmosBase {
    address internal constant RECIPIENT = address(0xBEEF);

    /// @dev The second PDR: a transfer of `amount` to `RECIPIENT`.
    struct Probe {
        uint256 amount;
        bytes32 attestation;
        bytes32 r;
        bytes32 vs;
    }

    /// @dev The budget, the time before each PDR, and the spender whose allowance is measured.
    struct Setting {
        uint128 limit;
        uint64 period;
        uint32 gap0;
        uint32 gap1;
        address spender;
    }

    /// @dev The owner sets a budget of any limit and period; the two PDRs follow `gap0` and
    ///      `gap0 + gap1` seconds later, both inside the period the budget opened. The first
    ///      PDR is one call to the token with any calldata (`firstData`: any of its functions,
    ///      any arguments): a transfer, a `transferFrom`, an approval or an allowance increase
    ///      of any amount to any spender; a call to another target moves the token only by
    ///      spending an allowance the account granted, which the charge counted when it was
    ///      granted. The second is a probe of what the account lets go after it: one transfer of
    ///      any amount. A second PDR with symbolic calls (an approval among them) moves at most
    ///      what the account reports left (the one-transaction property); this property bounds
    ///      what the account lets go by what the first PDR really moved. Symbolic targets, a
    ///      symbolic second PDR or an approval probe take the proof past its time (a solver
    ///      query over 120 s). No outcome bounds: they only add reverts, and the budget must
    ///      hold without them.
    function check_twoPdrsInOnePeriodMoveAtMostTheLimit(
        Setting memory setting,
        bytes memory firstData,
        Signed memory firstSigned,
        Probe memory second
    ) public {
        address spender = setting.spender;
        // An allowance to address(0) is no outflow: no one can spend it (OpenZeppelin's ERC-20
        // refuses to grant it), and the account's metering does not count it.
        vm.assume(spender != address(0));
        vm.assume(uint256(setting.gap0) + setting.gap1 < setting.period);
        vm.prank(OWNER);
        account.setBudget(address(token), setting.limit, setting.period);

        vm.warp(block.timestamp + setting.gap0);
        uint256 moved = _moved(_one(address(token), 0, firstData), firstSigned, spender);
        vm.warp(block.timestamp + setting.gap1);
        moved = _saturatingAdd(moved, _probe(second, spender));
        assert(moved <= setting.limit);
    }

    /// @dev Submits the probe; what it moved out of the token if it executed, else 0.
    function _probe(Probe memory p, address spender) internal returns (uint256) {
        bytes memory data = abi.encodeCall(token.transfer, (RECIPIENT, p.amount));
        return _moved(_one(address(token), 0, data), Signed(p.attestation, p.r, p.vs), spender);
    }

    /// @dev Submits a PDR; what it moved out of the token if it executed, else 0.
    function _moved(IPaceAccount.Call[] memory calls, Signed memory signed, address spender)
        internal
        returns (uint256 out)
    {
        uint256 sentBefore = token.sent(address(account));
        uint256 allowanceBefore = token.allowance(address(account), spender);
        if (!_submitSigned(calls, new IPaceAccount.Bound[](0), new address[](0), signed)) return 0;
        out = token.sent(address(account)) - sentBefore;
        uint256 allowanceAfter = token.allowance(address(account), spender);
        if (allowanceAfter > allowanceBefore) {
            out = _saturatingAdd(out, allowanceAfter - allowanceBefore);
        }
    }

    /// @dev A sum that cannot revert: halmos counts only failed assertions, so an overflow
    ///      revert would hide a counterexample.
    function _saturatingAdd(uint256 a, uint256 b) internal pure returns (uint256) {
        unchecked {
            uint256 c = a + b;
            return c < a ? type(uint256).max : c;
        }
    }
}

/// @notice Proof: holds for `PaceAccount`.
contract PaceAccountBudgetTotalProof is BudgetTotalSpec {
    function _deploy(address owner_, address verifier_) internal override returns (address) {
        return address(new PaceAccount(owner_, verifier_));
    }
}

/// @notice Non-vacuity: without the limit comparison two PDRs overspend (must FAIL).
contract PaceAccountBudgetTotalNoLimitCheck is BudgetTotalSpec {
    function _deploy(address owner_, address verifier_) internal override returns (address) {
        return address(new PaceAccountNoBudgetLimit(owner_, verifier_));
    }
}

/// @notice Non-vacuity: an account that never records what a PDR spent lets the second PDR spend
///         the whole limit again (must FAIL), though each PDR alone stays within what the
///         account reports as left.
contract PaceAccountBudgetTotalNoSpendRecord is BudgetTotalSpec {
    function _deploy(address owner_, address verifier_) internal override returns (address) {
        return address(new PaceAccountNoSpendRecord(owner_, verifier_));
    }
}
