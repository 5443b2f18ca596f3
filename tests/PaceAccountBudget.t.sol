// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {DefiFixture} from "./utils/DefiFixture.sol";
import {IPaceAccount} from "../contracts/interfaces/IPaceAccount.sol";
import {ApprovalDrainer} from "../contracts/mocks/ApprovalDrainer.sol";
import {MockLendingPool} from "../contracts/mocks/MockLendingPool.sol";
import {MockOracle} from "../contracts/mocks/MockOracle.sol";
import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";

/// @notice Spending budgets: the multi-transaction drain the paper leaves open (section 7.7's
///         five-leg drain, each leg under the per-intent cap) is capped on-chain per period,
///         whatever the verifier signs.
contract PaceAccountBudgetTest is DefiFixture {
    uint128 internal constant LIMIT = 100 ether;
    uint64 internal constant PERIOD = 1 days;

    function setUp() public {
        _deployDefi();
        vm.prank(owner);
        account.setBudget(address(dai), LIMIT, PERIOD);
    }

    /// One leg of the drain: a correctly signed transfer of `amount` DAI to the recipient.
    function _leg(uint256 amount) internal {
        IPaceAccount.Call[] memory calls = _one(address(dai), 0, _transferData(amount));
        uint256 t = _pack(_terms());
        bytes32 att = _attestation(t);
        (bytes32 r, bytes32 vs) = _sign(calls, _noBounds(), att, t);
        account.executeBatchPDR(calls, _noBounds(), _noHeld(), _noChecks(), att, t, r, vs);
    }

    function test_FiveLegDrainStopsAtTheBudget() public {
        _leg(30 ether);
        _leg(30 ether);
        _leg(30 ether);
        (,,, uint128 spent) = account.budget(address(dai));
        assertEq(spent, 90 ether);
        IPaceAccount.Call[] memory calls = _one(address(dai), 0, _transferData(30 ether));
        uint256 t = _pack(_terms());
        bytes32 att = _attestation(t);
        (bytes32 r, bytes32 vs) = _sign(calls, _noBounds(), att, t);
        vm.expectRevert(
            abi.encodeWithSelector(
                IPaceAccount.PaceAccountBudgetExceeded.selector, address(dai), 120 ether, LIMIT
            )
        );
        account.executeBatchPDR(calls, _noBounds(), _noHeld(), _noChecks(), att, t, r, vs);
        assertEq(dai.balanceOf(recipient), 91 ether);
    }

    function _spent() internal view returns (uint128 spent) {
        (,,, spent) = account.budget(address(dai));
    }

    /// A leaked verifier key signs `approve(drainer, max)`: nothing moves during the PDR, but
    /// the allowance it leaves standing is charged, so the grant itself reverts.
    function test_RevertWhen_AnApprovalLeftStandingExceedsTheBudget() public {
        ApprovalDrainer drainer = new ApprovalDrainer();
        IPaceAccount.Call[] memory calls = _one(
            address(dai), 0, abi.encodeCall(dai.approve, (address(drainer), type(uint256).max))
        );
        _batch(
            calls,
            abi.encodeWithSelector(
                IPaceAccount.PaceAccountBudgetExceeded.selector,
                address(dai),
                type(uint256).max,
                LIMIT
            )
        );
        assertEq(dai.allowance(address(account), address(drainer)), 0);
        // Within the budget, the standing allowance is what gets charged.
        _batch(_one(address(dai), 0, abi.encodeCall(dai.approve, (address(drainer), 40 ether))), "");
        assertEq(_spent(), 40 ether);
    }

    /// Approve-then-swap, the common pattern: the router pulls the whole allowance, so only
    /// what left the account is charged, once.
    function test_AnApprovalTheBatchUsesUpIsChargedOnce() public {
        IPaceAccount.Call[] memory calls = new IPaceAccount.Call[](3);
        calls[0] = IPaceAccount.Call(
            address(dai), 0, abi.encodeCall(dai.approve, (address(router), 30 ether))
        );
        // A second grant to the same spender is not charged twice.
        calls[1] = IPaceAccount.Call(
            address(dai), 0, abi.encodeCall(dai.approve, (address(router), 30 ether))
        );
        calls[2] = IPaceAccount.Call(
            address(router),
            0,
            abi.encodeCall(
                router.swapExactTokensForTokens,
                (30 ether, 0, _path(address(dai), address(weth)), address(account), block.timestamp)
            )
        );
        _batch(calls, "");
        assertEq(dai.allowance(address(account), address(router)), 0);
        assertEq(_spent(), 30 ether);
    }

    /// Borrowing the budgeted token and sending it out nets to zero balance change; each
    /// call's fall is charged on its own, so the transfer counts.
    function test_RevertWhen_ABorrowWouldNetOutATransfer() public {
        MockLendingPool pool = new MockLendingPool(
            IERC20(address(weth)), IERC20(address(dai)), new MockOracle(3000e18)
        );
        dai.mint(address(pool), 1_000_000 ether);
        vm.startPrank(owner);
        account.execute(address(weth), 0, abi.encodeCall(weth.approve, (address(pool), 100 ether)));
        account.execute(address(pool), 0, abi.encodeCall(pool.deposit, (100 ether)));
        vm.stopPrank();
        address thief = makeAddr("thief");
        IPaceAccount.Call[] memory calls = new IPaceAccount.Call[](2);
        calls[0] = IPaceAccount.Call(address(pool), 0, abi.encodeCall(pool.borrow, (200_000 ether)));
        calls[1] = IPaceAccount.Call(
            address(dai), 0, abi.encodeCall(dai.transfer, (thief, 200_000 ether))
        );
        _batch(
            calls,
            abi.encodeWithSelector(
                IPaceAccount.PaceAccountBudgetExceeded.selector, address(dai), 200_000 ether, LIMIT
            )
        );
        assertEq(dai.balanceOf(thief), 0);
    }

    /// Under a budget, a call to the budgeted token may only transfer or change allowances:
    /// anything else could hand out the right to move it where the metering cannot see.
    function test_RevertWhen_ABudgetedTokenIsCalledForAnythingButTransfersAndAllowances() public {
        bytes memory approveAndCall = abi.encodeWithSignature(
            "approveAndCall(address,uint256,bytes)", recipient, type(uint256).max, ""
        );
        _batch(
            _one(address(dai), 0, approveAndCall),
            abi.encodeWithSelector(
                IPaceAccount.PaceAccountBudgetedTokenCall.selector,
                address(dai),
                bytes4(approveAndCall)
            )
        );
        _batch(
            _one(address(dai), 0, ""),
            abi.encodeWithSelector(
                IPaceAccount.PaceAccountBudgetedTokenCall.selector, address(dai), bytes4(0)
            )
        );
        // The allowed ERC-20 functions pass the check (this token lacks the older ones, so
        // those calls then fail in the token itself, not in the account's check).
        string[4] memory older = [
            "increaseAllowance(address,uint256)",
            "decreaseAllowance(address,uint256)",
            "increaseApproval(address,uint256)",
            "decreaseApproval(address,uint256)"
        ];
        for (uint256 i; i < older.length; ++i) {
            bytes memory call = abi.encodeWithSignature(older[i], recipient, 1);
            _batch(
                _one(address(dai), 0, call),
                abi.encodeWithSelector(IPaceAccount.PaceAccountCallFailed.selector, 0, "")
            );
        }
    }

    function test_BudgetResetsAfterThePeriod() public {
        _leg(90 ether);
        vm.warp(block.timestamp + PERIOD);
        vm.roll(block.number + 1);
        _leg(90 ether);
        (,, uint64 windowStart, uint128 spent) = account.budget(address(dai));
        assertEq(spent, 90 ether);
        assertEq(windowStart, block.timestamp);
    }

    /// Every charge is logged: the amount, the period's total and when the period started.
    function test_EmitsBudgetChargedOnEveryCharge() public {
        uint64 start = uint64(block.timestamp);
        vm.expectEmit(address(account));
        emit IPaceAccount.BudgetCharged(address(dai), 30 ether, 30 ether, start);
        _leg(30 ether);
        vm.warp(block.timestamp + 1 hours);
        vm.expectEmit(address(account));
        emit IPaceAccount.BudgetCharged(address(dai), 20 ether, 50 ether, start);
        _leg(20 ether);
        // The first charge after the period ended opens a new one.
        vm.warp(start + PERIOD);
        vm.expectEmit(address(account));
        emit IPaceAccount.BudgetCharged(address(dai), 10 ether, 10 ether, uint64(block.timestamp));
        _leg(10 ether);
    }

    /// Once a period has ended, `budget` reports the current one: nothing spent, and the period
    /// a charge now would open.
    function test_TheBudgetViewReportsTheCurrentPeriod() public {
        _leg(90 ether);
        (uint128 limit, uint64 period, uint64 windowStart, uint128 spent) =
            account.budget(address(dai));
        assertEq(spent, 90 ether);
        vm.warp(windowStart + PERIOD - 1);
        (,,, spent) = account.budget(address(dai));
        assertEq(spent, 90 ether);
        vm.warp(windowStart + PERIOD);
        (limit, period, windowStart, spent) = account.budget(address(dai));
        assertEq(spent, 0);
        assertEq(windowStart, block.timestamp);
        assertEq(limit, LIMIT);
        assertEq(period, PERIOD);
    }

    /*//////////////////////////////////////////////////////////////
                          REVOKING ALLOWANCES
    //////////////////////////////////////////////////////////////*/

    function _pair(address token, address spender)
        internal
        pure
        returns (IPaceAccount.Allowance memory)
    {
        return IPaceAccount.Allowance(token, spender);
    }

    /// The first response to a leaked key: the owner zeroes every allowance the account's
    /// Approval logs name, in one call.
    function test_OwnerRevokesAllowancesInOneCall() public {
        ApprovalDrainer drainer = new ApprovalDrainer();
        vm.startPrank(owner);
        account.execute(address(dai), 0, abi.encodeCall(dai.approve, (address(drainer), 5 ether)));
        account.execute(address(weth), 0, abi.encodeCall(weth.approve, (address(drainer), 7)));
        vm.stopPrank();
        _executeSignedBatch(address(dai), abi.encodeCall(dai.approve, (address(router), 9 ether)));

        IPaceAccount.Allowance[] memory pairs = new IPaceAccount.Allowance[](3);
        pairs[0] = _pair(address(dai), address(drainer));
        pairs[1] = _pair(address(weth), address(drainer));
        pairs[2] = _pair(address(dai), address(router));
        for (uint256 i; i < pairs.length; ++i) {
            vm.expectEmit(address(account));
            emit IPaceAccount.AllowanceRevoked(pairs[i].token, pairs[i].spender);
        }
        vm.prank(owner);
        account.revokeAllowances(pairs);
        for (uint256 i; i < pairs.length; ++i) {
            assertEq(IERC20(pairs[i].token).allowance(address(account), pairs[i].spender), 0);
        }
    }

    function test_RevertWhen_RevokeIsNotFromTheOwnerOrFails() public {
        IPaceAccount.Allowance[] memory pairs = new IPaceAccount.Allowance[](1);
        pairs[0] = _pair(address(dai), recipient);
        vm.expectRevert(
            abi.encodeWithSelector(IPaceAccount.PaceAccountNotOwner.selector, address(this))
        );
        account.revokeAllowances(pairs);
        // A token that cannot answer `approve` is reported, and the pairs after it revoked.
        vm.prank(address(account));
        dai.approve(recipient, 1 ether);
        pairs = new IPaceAccount.Allowance[](2);
        pairs[0] = _pair(makeAddr("not a token"), recipient);
        pairs[1] = _pair(address(dai), recipient);
        vm.expectEmit(address(account));
        emit IPaceAccount.RevocationFailed(0, pairs[0].token, recipient);
        vm.expectEmit(address(account));
        emit IPaceAccount.AllowanceRevoked(address(dai), recipient);
        vm.prank(owner);
        assertEq(account.revokeAllowances(pairs), 1);
        assertEq(dai.allowance(address(account), recipient), 0);
    }

    /// Signs and submits one call as a batch PDR.
    function _executeSignedBatch(address target, bytes memory data) internal {
        _batch(_one(target, 0, data), "");
    }

    function test_InflowsDoNotCountAndOtherTokensAreFree() public {
        // A swap brings DAI in and spends WETH, which has no budget: nothing is charged.
        IPaceAccount.Call[] memory calls = new IPaceAccount.Call[](2);
        calls[0] = IPaceAccount.Call(address(weth), 0, _approveData(1 ether));
        calls[1] = IPaceAccount.Call(address(router), 0, _swapData(1 ether, 0));
        uint256 t = _pack(_terms());
        bytes32 att = _attestation(t);
        (bytes32 r, bytes32 vs) = _sign(calls, _noBounds(), att, t);
        account.executeBatchPDR(calls, _noBounds(), _noHeld(), _noChecks(), att, t, r, vs);
        (,,, uint128 spent) = account.budget(address(dai));
        assertEq(spent, 0);
    }

    function test_RevertWhen_LeanPathUsedWhileBudgeted() public {
        uint256 t = _pack(_terms());
        bytes32 att = _attestation(t);
        bytes memory data = _transferData(1 ether);
        (bytes32 r, bytes32 vs) = _sign(_one(address(dai), 0, data), _noBounds(), att, t);
        vm.expectRevert(IPaceAccount.PaceAccountBudgetRequiresBatch.selector);
        account.executePDR(address(dai), 0, data, att, t, r, vs);
    }

    function test_RemovingTheLastBudgetReopensTheLeanPath() public {
        vm.expectEmit(address(account));
        emit IPaceAccount.BudgetSet(address(dai), 0, 0);
        vm.prank(owner);
        account.setBudget(address(dai), 0, 0);
        assertEq(account.budgetTokens().length, 0);
        _executeSigned(address(dai), 0, _transferData(500 ether));
    }

    function test_EthBudgetCountsCallValue() public {
        vm.prank(owner);
        account.setBudget(address(0), 1 ether, PERIOD);
        IPaceAccount.Call[] memory calls = _one(recipient, 2 ether, "");
        uint256 t = _pack(_terms());
        bytes32 att = _attestation(t);
        (bytes32 r, bytes32 vs) = _sign(calls, _noBounds(), att, t);
        vm.expectPartialRevert(IPaceAccount.PaceAccountBudgetExceeded.selector);
        account.executeBatchPDR(calls, _noBounds(), _noHeld(), _noChecks(), att, t, r, vs);
    }

    function test_OwnerPathIsNotBudgeted() public {
        vm.prank(owner);
        account.execute(address(dai), 0, _transferData(1000 ether));
        assertEq(dai.balanceOf(recipient), 1001 ether);
    }

    function test_RevertWhen_MoreThanEightBudgets() public {
        vm.startPrank(owner);
        for (uint160 i = 1; i < 8; ++i) {
            account.setBudget(address(i), 1, 1);
        }
        vm.expectRevert(IPaceAccount.PaceAccountTooManyBudgets.selector);
        account.setBudget(address(9), 1, 1);
        vm.stopPrank();
        vm.expectRevert(
            abi.encodeWithSelector(IPaceAccount.PaceAccountNotOwner.selector, address(this))
        );
        account.setBudget(address(dai), 1, 1);
    }

    function testFuzz_TotalOutflowPerPeriodNeverExceedsTheLimit(uint96[6] memory legs) public {
        uint256 moved;
        for (uint256 i; i < legs.length; ++i) {
            uint256 amount = bound(legs[i], 1, 60 ether);
            IPaceAccount.Call[] memory calls = _one(address(dai), 0, _transferData(amount));
            uint256 t = _pack(_terms());
            bytes32 att = _attestation(t);
            (bytes32 r, bytes32 vs) = _sign(calls, _noBounds(), att, t);
            try account.executeBatchPDR(calls, _noBounds(), _noHeld(), _noChecks(), att, t, r, vs) {
                moved += amount;
            } catch {}
        }
        assertLe(moved, LIMIT);
        assertEq(dai.balanceOf(recipient), 1 ether + moved);
    }
}
