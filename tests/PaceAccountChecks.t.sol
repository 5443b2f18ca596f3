// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {PdrTestBase} from "./utils/PdrTestBase.sol";
import {IPaceAccount} from "../contracts/interfaces/IPaceAccount.sol";
import {PostConditions} from "../contracts/libraries/PostConditions.sol";

/// @notice A value the batch sets and the post-conditions read, answered in every shape a read
///         can take: one word, two words, a short answer, a revert, and a read that burns the
///         gas it is given down to `keep` before it answers.
contract Gauge {
    uint256 internal _value;

    function set(uint256 v) external {
        _value = v;
    }

    function value() external view returns (uint256) {
        return _value;
    }

    function pair() external view returns (uint256, uint256) {
        return (7, _value);
    }

    function short() external pure {
        assembly {
            mstore(0x00, 1)
            return(0x00, 0x10)
        }
    }

    function boom() external pure {
        revert("boom");
    }

    function drain(uint256 keep) external view returns (uint256) {
        while (gasleft() > keep) {}
        return _value;
    }
}

/// @notice The post-conditions (`PostConditions`) on the standalone account, direct path: what
///         each relation admits, where in the answer the word is read, and that every read that
///         gives no answer (a revert, no code, a short answer, a starved call) or an unknown
///         relation reverts the PDR.
contract PaceAccountChecksTest is PdrTestBase {
    Gauge internal gauge;

    function setUp() public {
        _deployAccount();
        gauge = new Gauge();
    }

    function _check(bytes memory data, uint16 word, uint8 relation, uint256 lo, uint256 hi)
        internal
        view
        returns (IPaceAccount.Check[] memory checks)
    {
        checks = new IPaceAccount.Check[](1);
        checks[0] = IPaceAccount.Check(address(gauge), data, word, relation, lo, hi);
    }

    function _value() internal view returns (bytes memory) {
        return abi.encodeCall(Gauge.value, ());
    }

    /// @dev Signs and submits a batch that sets the gauge to `q`, under `checks`.
    function _run(uint256 q, IPaceAccount.Check[] memory checks, bytes memory revertData) internal {
        _runGas(q, checks, revertData, gasleft() - 100_000);
    }

    function _runGas(
        uint256 q,
        IPaceAccount.Check[] memory checks,
        bytes memory revertData,
        uint256 gas
    ) internal {
        IPaceAccount.Call[] memory calls = _one(address(gauge), 0, abi.encodeCall(Gauge.set, (q)));
        uint256 t = _pack(_terms());
        bytes32 att = _attestation(t);
        (bytes32 r, bytes32 vs) = _sign(calls, _noBounds(), _noHeld(), checks, att, t);
        if (revertData.length == 4) vm.expectPartialRevert(bytes4(revertData));
        else if (revertData.length != 0) vm.expectRevert(revertData);
        account.executeBatchPDR{gas: gas}(calls, _noBounds(), _noHeld(), checks, att, t, r, vs);
        if (revertData.length == 0) assertEq(gauge.value(), q, "the batch ran");
    }

    function _failed(uint256 index, uint256 b, uint256 q) internal view returns (bytes memory) {
        return abi.encodeWithSelector(
            IPaceAccount.PaceAccountCheckFailed.selector, index, address(gauge), b, q
        );
    }

    function _unreadable(uint256 index) internal view returns (bytes memory) {
        return abi.encodeWithSelector(
            IPaceAccount.PaceAccountUnreadableCheck.selector, index, address(gauge)
        );
    }

    /// WITHIN holds exactly when `lo <= q <= hi`, the answer read after the calls.
    function testFuzz_Within(uint256 q, uint256 lo, uint256 hi) public {
        IPaceAccount.Check[] memory c = _check(_value(), 0, PostConditions.WITHIN, lo, hi);
        bool holds = lo <= q && q <= hi;
        _run(q, c, holds ? bytes("") : _failed(0, 0, q));
    }

    function test_WithinAtItsEdges() public {
        _run(10, _check(_value(), 0, PostConditions.WITHIN, 10, 10), "");
        _run(9, _check(_value(), 0, PostConditions.WITHIN, 10, 12), _failed(0, 0, 9));
        _run(13, _check(_value(), 0, PostConditions.WITHIN, 10, 12), _failed(0, 0, 13));
    }

    /// KEPT holds exactly when `b - down <= q <= b + up`, `b` read before the calls,
    /// saturating at both ends.
    function testFuzz_Kept(uint256 b, uint256 q, uint256 down, uint256 up) public {
        gauge.set(b);
        IPaceAccount.Check[] memory c = _check(_value(), 0, PostConditions.KEPT, down, up);
        uint256 low = b > down ? b - down : 0;
        uint256 high = type(uint256).max - b < up ? type(uint256).max : b + up;
        bool holds = low <= q && q <= high;
        _run(q, c, holds ? bytes("") : _failed(0, b, q));
    }

    function test_KeptReadsBeforeTheCalls() public {
        gauge.set(1000);
        _run(990, _check(_value(), 0, PostConditions.KEPT, 10, 0), "");
        _run(989, _check(_value(), 0, PostConditions.KEPT, 0, 1), _failed(0, 990, 989));
        _run(991, _check(_value(), 0, PostConditions.KEPT, 0, 0), _failed(0, 990, 991));
        // Saturating: any fall from a small value, any rise to the largest.
        _run(0, _check(_value(), 0, PostConditions.KEPT, type(uint256).max, 0), "");
        _run(type(uint256).max, _check(_value(), 0, PostConditions.KEPT, 0, type(uint256).max), "");
    }

    /// The word read is `word` of the answer: `pair()` answers (7, value).
    function test_ReadsTheSignedWord() public {
        bytes memory pair = abi.encodeCall(Gauge.pair, ());
        _run(5, _check(pair, 1, PostConditions.WITHIN, 5, 5), "");
        _run(5, _check(pair, 0, PostConditions.WITHIN, 7, 7), "");
        _run(5, _check(pair, 0, PostConditions.WITHIN, 5, 5), _failed(0, 0, 7));
    }

    /// The first check that fails is reported, by its index.
    function test_ReportsTheFailingCheck() public {
        IPaceAccount.Check[] memory c = new IPaceAccount.Check[](2);
        c[0] = IPaceAccount.Check(address(gauge), _value(), 0, PostConditions.WITHIN, 0, 100);
        c[1] = IPaceAccount.Check(address(gauge), _value(), 0, PostConditions.WITHIN, 0, 10);
        _run(50, c, _failed(1, 0, 50));
    }

    function test_RevertWhen_TheAnswerIsShort() public {
        _run(5, _check(abi.encodeCall(Gauge.short, ()), 0, 0, 0, type(uint256).max), _unreadable(0));
        _run(5, _check(abi.encodeCall(Gauge.pair, ()), 2, 0, 0, type(uint256).max), _unreadable(0));
    }

    function test_RevertWhen_TheReadReverts() public {
        _run(5, _check(abi.encodeCall(Gauge.boom, ()), 0, 0, 0, type(uint256).max), _unreadable(0));
    }

    function test_RevertWhen_TheTargetHasNoCode() public {
        IPaceAccount.Check[] memory c = _check(_value(), 0, 0, 0, type(uint256).max);
        c[0].target = makeAddr("nobody");
        bytes memory err = abi.encodeWithSelector(
            IPaceAccount.PaceAccountUnreadableCheck.selector, 0, c[0].target
        );
        _run(5, c, err);
    }

    /// A read that answers leaving less than 1/63 of the gas it was given ran out of it, for all
    /// the account can tell: no answer. The same read with gas to spare answers.
    function test_RevertWhen_TheReadIsStarved() public {
        IPaceAccount.Check[] memory starved =
            _check(abi.encodeCall(Gauge.drain, (100)), 0, PostConditions.WITHIN, 5, 5);
        _runGas(5, starved, _unreadable(0), 2_000_000);
        IPaceAccount.Check[] memory spare =
            _check(abi.encodeCall(Gauge.drain, (40_000)), 0, PostConditions.WITHIN, 5, 5);
        _runGas(5, spare, "", 2_000_000);
    }

    /// An unknown relation is refused before any call: the batch's failing call is not what
    /// reverts.
    function test_RevertWhen_TheRelationIsUnknown() public {
        IPaceAccount.Check[] memory c = _check(_value(), 0, 2, 0, type(uint256).max);
        IPaceAccount.Call[] memory calls = _one(address(gauge), 0, abi.encodeCall(Gauge.boom, ()));
        uint256 t = _pack(_terms());
        bytes32 att = _attestation(t);
        (bytes32 r, bytes32 vs) = _sign(calls, _noBounds(), _noHeld(), c, att, t);
        vm.expectRevert(
            abi.encodeWithSelector(IPaceAccount.PaceAccountUnknownCheckRelation.selector, 0, 2)
        );
        account.executeBatchPDR(calls, _noBounds(), _noHeld(), c, att, t, r, vs);
    }
}
