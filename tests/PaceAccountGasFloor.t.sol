// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {DefiFixture} from "./utils/DefiFixture.sol";
import {IPaceAccount} from "../contracts/interfaces/IPaceAccount.sol";
import {GasSensitiveTarget} from "../contracts/mocks/GasSensitiveTarget.sol";

/// @notice The signed gas floor: whoever submits a PDR picks the transaction's gas, and against
///         a target that catches a failing sub-call a low pick flips the outcome onto a path
///         nobody simulated. With the floor the signer sets (1.5x the simulated gas), the least
///         gas any submitter can pick still runs the simulated path.
contract PaceAccountGasFloorTest is DefiFixture {
    GasSensitiveTarget internal target;
    bytes internal data;

    function setUp() public {
        _deployDefi();
        data = abi.encodeWithSignature("act()");
    }

    /// The signer's floor for what a simulation of `act` on a fresh `slots` target reports:
    /// the transaction's gas (execution plus 21,000), times 1.5, in KiB
    /// (`pace_types::pdr::PdrTerms::call_gas_floor`).
    function _floor(uint256 slots) internal returns (uint16) {
        GasSensitiveTarget dryRun = new GasSensitiveTarget(slots);
        uint256 before = gasleft();
        dryRun.act();
        uint256 used = before - gasleft() + 21_000;
        assertEq(dryRun.succeeded(), 1);
        // forge-lint: disable-next-line(unsafe-typecast)
        return uint16((used * 3 / 2 + 1023) / 1024);
    }

    function _signed(uint16 callGasKib, IPaceAccount.Bound[] memory bounds)
        internal
        view
        returns (uint256 t, bytes32 r, bytes32 vs)
    {
        Terms memory terms = _terms();
        terms.callGasKib = callGasKib;
        t = _pack(terms);
        (r, vs) = _sign(_one(address(target), 0, data), bounds, bytes32(0), t);
    }

    function _submit(uint256 gas, uint256 t, bytes32 r, bytes32 vs, IPaceAccount.Bound[] memory b)
        internal
        returns (bool ok)
    {
        if (b.length == 0) {
            try account.executePDR{gas: gas}(address(target), 0, data, bytes32(0), t, r, vs) {
                ok = true;
            } catch {}
        } else {
            try account.executeBatchPDR{gas: gas}(
                _one(address(target), 0, data), b, bytes32(0), t, r, vs
            ) {
                ok = true;
            } catch {}
        }
    }

    /// The least gas a submitter can give and still get the PDR through (binary search; every
    /// probe is rolled back), then that submission for real.
    function _submitWithTheLeastGas(uint256 t, bytes32 r, bytes32 vs, IPaceAccount.Bound[] memory b)
        internal
        returns (uint256 lo)
    {
        lo = 30_000;
        uint256 hi = 30_000_000;
        while (lo < hi) {
            uint256 mid = (lo + hi) / 2;
            uint256 snap = vm.snapshotState();
            bool ok = _submit(mid, t, r, vs, b);
            vm.revertToState(snap);
            if (ok) hi = mid;
            else lo = mid + 1;
        }
        assertTrue(_submit(lo, t, r, vs, b), "accepted at the least gas");
    }

    function test_WithoutAFloorTheCheapestSubmissionTakesTheUnsimulatedPath() public {
        target = new GasSensitiveTarget(40);
        (uint256 t, bytes32 r, bytes32 vs) = _signed(0, _noBounds());
        _submitWithTheLeastGas(t, r, vs, _noBounds());
        assertEq(target.caught(), 1);
        assertEq(target.succeeded(), 0);
        assertEq(account.nextSequence(0), 1); // the PDR is spent
    }

    function test_WithTheSignersFloorTheLeastGasRunsTheSimulatedPath() public {
        uint256[2] memory sizes = [uint256(40), 300];
        for (uint256 i; i < sizes.length; ++i) {
            target = new GasSensitiveTarget(sizes[i]);
            (uint256 t, bytes32 r, bytes32 vs) = _signed(_floor(sizes[i]), _noBounds());
            _submitWithTheLeastGas(t, r, vs, _noBounds());
            assertEq(target.succeeded(), 1, "simulated path");
            assertEq(target.caught(), 0, "never the caught path");
        }
    }

    /// Bounds and budgets are read between authorisation and the calls: the batch path checks
    /// the floor again after them.
    function test_TheFloorHoldsAfterBoundsAndBudgetsAreRead() public {
        target = new GasSensitiveTarget(40);
        IPaceAccount.Bound[] memory bounds = new IPaceAccount.Bound[](3);
        bounds[0] = IPaceAccount.Bound(address(dai), 0, 0);
        bounds[1] = IPaceAccount.Bound(address(weth), 0, 0);
        bounds[2] = IPaceAccount.Bound(address(0), 0, 0);
        vm.startPrank(owner);
        account.setBudget(address(dai), 1 ether, 1 days);
        account.setBudget(address(weth), 1 ether, 1 days);
        account.setBudget(address(0), 1 ether, 1 days);
        vm.stopPrank();
        (uint256 t, bytes32 r, bytes32 vs) = _signed(_floor(40), bounds);
        _submitWithTheLeastGas(t, r, vs, bounds);
        assertEq(target.succeeded(), 1);
        assertEq(target.caught(), 0);
    }

    function test_RevertWhen_TheSubmissionLeavesLessThanTheFloor() public {
        target = new GasSensitiveTarget(40);
        (uint256 t, bytes32 r, bytes32 vs) = _signed(200, _noBounds()); // 204,800 gas
        vm.expectPartialRevert(IPaceAccount.PaceAccountInsufficientGas.selector);
        account.executePDR{gas: 150_000}(address(target), 0, data, bytes32(0), t, r, vs);
        assertEq(account.nextSequence(0), 0);
        // The batch entry point applies the same floor.
        vm.expectPartialRevert(IPaceAccount.PaceAccountInsufficientGas.selector);
        account.executeBatchPDR{gas: 150_000}(
            _one(address(target), 0, data), _noBounds(), bytes32(0), t, r, vs
        );
        account.executePDR{gas: 2_000_000}(address(target), 0, data, bytes32(0), t, r, vs);
        assertEq(target.succeeded(), 1);
    }
}
