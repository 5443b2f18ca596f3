// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {DefiFixture} from "./utils/DefiFixture.sol";
import {IPaceAccount} from "../contracts/interfaces/IPaceAccount.sol";
import {GasSensitiveTarget} from "../contracts/mocks/GasSensitiveTarget.sol";

/// @notice The signed gas floor: whoever submits a PDR picks the transaction's gas, and against
///         a target that catches a failing sub-call a low pick flips the outcome onto a path
///         nobody simulated. With the floor, the account refuses to start the calls with less.
contract PaceAccountGasFloorTest is DefiFixture {
    GasSensitiveTarget internal target;
    bytes internal data;

    function setUp() public {
        _deployDefi();
        target = new GasSensitiveTarget();
        data = abi.encodeCall(target.act, ());
    }

    function _signed(uint16 callGasKib) internal view returns (uint256 t, bytes32 r, bytes32 vs) {
        Terms memory terms = _terms();
        terms.callGasKib = callGasKib;
        t = _pack(terms);
        (r, vs) = _sign(_one(address(target), 0, data), _noBounds(), bytes32(0), t);
    }

    /// Tries gas limits upward until a submission goes through; returns whether one did.
    function _submitWithTheLeastGas(uint256 t, bytes32 r, bytes32 vs) internal returns (bool) {
        for (uint256 g = 40_000; g < 2_000_000; g += 5000) {
            try account.executePDR{gas: g}(address(target), 0, data, bytes32(0), t, r, vs) {
                return true;
            } catch {}
        }
        return false;
    }

    function test_WithoutAFloorTheCheapestSubmissionTakesTheUnsimulatedPath() public {
        (uint256 t, bytes32 r, bytes32 vs) = _signed(0);
        assertTrue(_submitWithTheLeastGas(t, r, vs));
        assertEq(target.caught(), 1);
        assertEq(target.succeeded(), 0);
        assertEq(account.nextSequence(0), 1); // the PDR is spent
    }

    function test_WithTheSimulatedGasAsFloorOnlyTheSimulatedPathExecutes() public {
        // What the simulation saw `act` use, rounded up to KiB.
        GasSensitiveTarget dryRun = new GasSensitiveTarget();
        uint256 before = gasleft();
        dryRun.act();
        uint256 used = before - gasleft();
        assertEq(dryRun.succeeded(), 1);
        // forge-lint: disable-next-line(unsafe-typecast)
        (uint256 t, bytes32 r, bytes32 vs) = _signed(uint16((used + 1023) / 1024));
        assertTrue(_submitWithTheLeastGas(t, r, vs));
        assertEq(target.succeeded(), 1);
        assertEq(target.caught(), 0);
    }

    function test_RevertWhen_TheSubmissionLeavesLessThanTheFloor() public {
        (uint256 t, bytes32 r, bytes32 vs) = _signed(200); // 204,800 gas
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
