// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {DefiFixture} from "../utils/DefiFixture.sol";
import {IPaceAccount} from "../../contracts/interfaces/IPaceAccount.sol";
import {PdrCalls} from "../../contracts/core/PdrCalls.sol";

/// @notice Measures what touching an address costs, as its own transaction.
contract AccessMeter {
    uint256 private _calls;

    /// @notice The gas of one `BALANCE` of `a`: 2,600 when `a` is cold, 100 when warm.
    function accessCost(address a) external returns (uint256 cost) {
        ++_calls;
        uint256 bal;
        assembly ("memory-safe") {
            let before := gas()
            bal := balance(a)
            cost := sub(before, gas())
        }
        // The balance is used, so the access stays.
        if (bal == type(uint256).max) ++_calls;
    }
}

/// @notice The gas floor's reserve in the worst case: the PDR's call goes to a cold address that
///         is an EIP-7702-delegated EOA whose delegate is cold too (two cold accesses the call
///         pays before its callee starts). A submitter gives the least gas the account's floor
///         check lets through, and the callee must still start with at least the signed floor.
///         Only meaningful when every top-level call is its own transaction
///         (`forge test --isolate`), so nothing is warm; without `--isolate` the cases skip.
contract GasFloorColdTest is DefiFixture {
    /// @dev `GAS PUSH0 SSTORE STOP`: stores the gas it starts with (less the 2 `GAS` costs).
    bytes internal constant PROBE = hex"5a5f5500";
    uint256 internal constant EOA_KEY = 0xC01D;
    uint16 internal constant KIB = 100;
    uint256 internal constant FLOOR = uint256(KIB) << 10;
    /// @dev The headroom the reserve must leave over the worst case.
    int256 internal constant HEADROOM = 500;

    AccessMeter internal meter;
    /// @dev A cold contract running the probe.
    address internal coldContract;
    /// @dev A cold EOA delegated (EIP-7702) to a cold contract running the probe.
    address internal delegatedEoa;
    address internal probeCode;

    function setUp() public {
        _deployDefi();
        meter = new AccessMeter();
        coldContract = makeAddr("cold contract");
        vm.etch(coldContract, PROBE);
        probeCode = makeAddr("probe code");
        vm.etch(probeCode, PROBE);
        delegatedEoa = vm.addr(EOA_KEY);
        vm.signAndAttachDelegation(probeCode, EOA_KEY);
        // The delegation lands with this call (the probe's slot is non-zero from now on, as in
        // a steady state).
        (bool ok,) = delegatedEoa.call("");
        require(ok, "delegation call");
        assertEq(delegatedEoa.code, abi.encodePacked(hex"ef0100", probeCode), "delegated");
    }

    /// @dev Skips unless top-level calls are isolated transactions: a second access in a
    ///      shared transaction would be warm.
    function _requireIsolation() internal {
        address fresh = makeAddr("fresh");
        uint256 first = meter.accessCost(fresh);
        uint256 second = meter.accessCost(fresh);
        bool isolated = first > 2000 && second > 2000;
        if (!isolated) vm.skip(true);
    }

    /// @dev A signed submission of one call to `target` with a floor of `KIB` KiB: lean
    ///      (`executePDR`) or batch.
    function _submission(address target, bool lean) internal view returns (bytes memory) {
        Terms memory terms = _terms();
        terms.callGasKib = KIB;
        uint256 t = _pack(terms);
        IPaceAccount.Call[] memory calls = _one(target, 0, "");
        (bytes32 r, bytes32 vs) = _sign(calls, _noBounds(), bytes32(0), t);
        if (lean) return abi.encodeCall(account.executePDR, (target, 0, "", bytes32(0), t, r, vs));
        return abi.encodeCall(
            account.executeBatchPDR,
            (calls, _noBounds(), _noHeld(), _noChecks(), bytes32(0), t, r, vs)
        );
    }

    /// @dev The least transaction gas that gets `cd` through (binary search over isolated
    ///      transactions, each rolled back), then that transaction for real; returns the gas the
    ///      probe at `target` started with.
    function _startGasAtTheLeastGas(address target, bytes memory cd)
        internal
        returns (uint256 least, uint256 start)
    {
        uint256 lo = FLOOR;
        uint256 hi = 1_000_000;
        while (lo < hi) {
            uint256 mid = (lo + hi) / 2;
            uint256 snap = vm.snapshotState();
            (bool ok,) = address(account).call{gas: mid}(cd);
            vm.revertToState(snap);
            if (ok) hi = mid;
            else lo = mid + 1;
        }
        least = lo;
        // One gas less, and the floor check is what refuses it.
        uint256 snapBelow = vm.snapshotState();
        (bool below, bytes memory ret) = address(account).call{gas: lo - 1}(cd);
        vm.revertToState(snapBelow);
        assertFalse(below);
        bytes memory selector = new bytes(4);
        for (uint256 i; i < 4 && i < ret.length; ++i) {
            selector[i] = ret[i];
        }
        assertEq(
            selector,
            abi.encodePacked(IPaceAccount.PaceAccountInsufficientGas.selector),
            "the floor check binds"
        );
        (bool done,) = address(account).call{gas: lo}(cd);
        assertTrue(done, "accepted at the least gas");
        start = uint256(vm.load(target, bytes32(0))) + 2;
    }

    /// @dev What the reserve left over: the gas the call had, beyond `floor + floor / 63`, once
    ///      its own costs were paid. `start` is what the callee got: all but 1/64 of that.
    function _headroom(uint256 start) internal pure returns (int256) {
        uint256 had = (start * 64 + 62) / 63; // the least x with x - x / 64 >= start
        // Both are gas amounts of one transaction, far below 2^255.
        // forge-lint: disable-next-line(unsafe-typecast)
        return int256(had) - int256(FLOOR + FLOOR / 63);
    }

    function _report(string memory name, uint256 least, uint256 start) internal {
        int256 headroom = _headroom(start);
        emit log_named_uint(string.concat("least tx gas, ", name), least);
        emit log_named_uint(string.concat("callee start gas, ", name), start);
        emit log_named_int(string.concat("reserve headroom, ", name), headroom);
        emit log_named_int(
            string.concat("measured call cost, ", name), int256(PdrCalls.CALL_COST) - headroom
        );
    }

    /// The worst case: a cold target that is an EIP-7702 delegate of cold code, on both paths.
    function test_ColdDelegatedTargetStartsWithTheFloorAtTheLeastGas() public {
        _requireIsolation();
        bool[2] memory lean = [true, false];
        for (uint256 i; i < 2; ++i) {
            uint256 snap = vm.snapshotState();
            (uint256 least, uint256 start) =
                _startGasAtTheLeastGas(delegatedEoa, _submission(delegatedEoa, lean[i]));
            _report(lean[i] ? "delegated EOA, lean" : "delegated EOA, batch", least, start);
            assertGe(start, FLOOR, "the callee started with less than the signed floor");
            vm.revertToState(snap);
        }
    }

    /// A cold contract target.
    function test_ColdContractTargetStartsWithTheFloorAtTheLeastGas() public {
        _requireIsolation();
        (uint256 least, uint256 start) =
            _startGasAtTheLeastGas(coldContract, _submission(coldContract, true));
        _report("cold contract, lean", least, start);
        assertGe(start, FLOOR, "the callee started with less than the signed floor");
    }

    /// The reserve covers the worst case with at least `HEADROOM` gas to spare.
    function test_TheReserveLeavesHeadroomOverTheWorstCase() public {
        _requireIsolation();
        (uint256 least, uint256 start) =
            _startGasAtTheLeastGas(delegatedEoa, _submission(delegatedEoa, true));
        _report("delegated EOA, lean", least, start);
        assertGe(_headroom(start), HEADROOM, "reserve headroom over the worst case");
    }
}
