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

    /// The signed submission of `act` on `target`: lean without bounds, batch with them.
    function _submitWithTheLeastGas(uint256 t, bytes32 r, bytes32 vs, IPaceAccount.Bound[] memory b)
        internal
        returns (uint256)
    {
        bytes memory cd = b.length == 0
            ? abi.encodeCall(account.executePDR, (address(target), 0, data, bytes32(0), t, r, vs))
            : abi.encodeCall(
                account.executeBatchPDR,
                (_one(address(target), 0, data), b, _noHeld(), _noChecks(), bytes32(0), t, r, vs)
            );
        return _leastGas(cd);
    }

    /// The least gas a submitter can give and still get `cd` through on the account (binary
    /// search; every probe is rolled back), then that submission for real.
    function _leastGas(bytes memory cd) internal returns (uint256 lo) {
        lo = 30_000;
        uint256 hi = 30_000_000;
        while (lo < hi) {
            uint256 mid = (lo + hi) / 2;
            uint256 snap = vm.snapshotState();
            (bool ok,) = address(account).call{gas: mid}(cd);
            vm.revertToState(snap);
            if (ok) hi = mid;
            else lo = mid + 1;
        }
        (bool done,) = address(account).call{gas: lo}(cd);
        assertTrue(done, "accepted at the least gas");
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
        bounds[0] = _balanceBound(address(dai), 0, 0);
        bounds[1] = _balanceBound(address(weth), 0, 0);
        bounds[2] = _balanceBound(address(0), 0, 0);
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
            _one(address(target), 0, data),
            _noBounds(),
            _noHeld(),
            _noChecks(),
            bytes32(0),
            t,
            r,
            vs
        );
        account.executePDR{gas: 2_000_000}(address(target), 0, data, bytes32(0), t, r, vs);
        assertEq(target.succeeded(), 1);
    }

    /*//////////////////////////////////////////////////////////////
                 THE FLOOR IS WHAT THE CALLEE STARTS WITH
    //////////////////////////////////////////////////////////////*/

    /// A callee whose first instruction stores the gas it has (`GAS PUSH0 SSTORE STOP`).
    function _probe(string memory name) internal returns (address p) {
        p = makeAddr(name);
        vm.etch(p, hex"5a5f5500");
    }

    /// The gas the probe started with: what it stored, plus the 2 its `GAS` cost.
    function _startGas(address p) internal view returns (uint256) {
        return uint256(vm.load(p, bytes32(0))) + 2;
    }

    /// A signed submission of `calls` (lean when it is one call and `lean`) with a floor of
    /// `kib` KiB.
    function _submission(IPaceAccount.Call[] memory calls, bool lean, uint16 kib)
        internal
        view
        returns (bytes memory)
    {
        Terms memory terms = _terms();
        terms.callGasKib = kib;
        uint256 t = _pack(terms);
        (bytes32 r, bytes32 vs) = _sign(calls, _noBounds(), bytes32(0), t);
        if (lean) {
            return abi.encodeCall(
                account.executePDR,
                (calls[0].target, calls[0].value, calls[0].data, bytes32(0), t, r, vs)
            );
        }
        return abi.encodeCall(
            account.executeBatchPDR,
            (calls, _noBounds(), _noHeld(), _noChecks(), bytes32(0), t, r, vs)
        );
    }

    /// The account copies a call's data to memory before the call and pays for a value transfer
    /// and the target's access in the call itself: none of it may come out of the floor, on
    /// either path, however large the calldata.
    function test_TheCalleeStartsWithTheFloorWhateverTheCalldataSize() public {
        uint16 kib = 100; // 102,400 gas
        // Lean 96 KiB with value, lean 192 KiB, batch 96 KiB, batch 192 KiB with value.
        uint256[4] memory sizes = [uint256(96 << 10), 192 << 10, 96 << 10, 192 << 10];
        uint256[4] memory values = [uint256(1), 0, 0, 1];
        bool short;
        for (uint256 i; i < 4; ++i) {
            address p = _probe(string.concat("probe", vm.toString(i)));
            bytes memory cd = _submission(_one(p, values[i], new bytes(sizes[i])), i < 2, kib);
            _leastGas(cd);
            emit log_named_uint(
                string.concat("callee start gas, case ", vm.toString(i)), _startGas(p)
            );
            if (_startGas(p) < uint256(kib) << 10) short = true;
        }
        assertFalse(short, "a callee started with less than the floor");
    }

    /// In a batch, each call starts with at least the floor less what the calls before it used.
    function test_EachCallOfABatchStartsWithTheFloorLessWhatEarlierCallsUsed() public {
        uint16 kib = 100;
        address first = _probe("first");
        address second = _probe("second");
        IPaceAccount.Call[] memory calls = new IPaceAccount.Call[](2);
        calls[0] = IPaceAccount.Call(first, 0, new bytes(96 << 10));
        calls[1] = IPaceAccount.Call(second, 1, new bytes(96 << 10));
        _leastGas(_submission(calls, false, kib));
        emit log_named_uint("first callee start gas", _startGas(first));
        emit log_named_uint("second callee start gas", _startGas(second));
        assertGe(_startGas(first), uint256(kib) << 10);
        // The first call used its warm access (100) and what the probe spent: its GAS and
        // PUSH0 (2 each) and a fresh slot (22,100).
        uint256 firstUsed = 100 + 4 + 22_100;
        assertGe(_startGas(second) + firstUsed, uint256(kib) << 10);
    }
}
