// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {Test} from "forge-std/Test.sol";
import {IPaceAccount} from "../../contracts/interfaces/IPaceAccount.sol";
import {PdrTerms} from "../../contracts/libraries/PdrTerms.sol";

/// @notice Records every call it receives from the account, keyed by a tag in the calldata.
contract CallSink {
    address public immutable account;
    uint256 public callsFromAccount;
    uint256 public duplicateTags;
    mapping(uint256 tag => bool seen) public seen;

    constructor(address account_) {
        account = account_;
    }

    function record(uint256 tag) external {
        if (msg.sender != account) return;
        ++callsFromAccount;
        if (seen[tag]) ++duplicateTags;
        seen[tag] = true;
    }
}

/// @notice Drives a PACE entry (a PaceAccount, or a Safe's PaceModule) with valid, replayed,
///         forged, mutated, stale and owner calls. Ghost counters hold what *should* have
///         reached the sink.
contract PaceAccountHandler is Test {
    IPaceAccount public immutable account;
    CallSink public immutable sink;
    address public immutable owner;
    uint256 public immutable verifierKey;

    /// @dev A signed PDR of one call to the sink. A batch PDR (`executeBatchPDR`) also holds
    ///      ETH and bounds the account's ETH to no outflow; a lean one (`executePDR`) has
    ///      neither.
    struct Signed {
        bytes data;
        bytes32 att;
        uint256 terms;
        bytes32 r;
        bytes32 vs;
        bool batch;
    }

    Signed[] internal executed;
    uint256 public authorizedCalls;
    uint256 public unexpectedSuccesses;
    /// @notice Valid PDRs that did not execute (must stay 0), and valid batch PDRs that did.
    uint256 public validRejected;
    uint256 public batchExecutions;
    uint256 internal nextTag = 1;

    constructor(IPaceAccount account_, CallSink sink_, address owner_, uint256 verifierKey_) {
        account = account_;
        sink = sink_;
        owner = owner_;
        verifierKey = verifierKey_;
    }

    function _sign(uint256 key, bytes memory data, uint32 lane, uint64 seq, uint40 validUntil)
        internal
        view
        returns (Signed memory s)
    {
        s.data = data;
        s.att = keccak256(data);
        s.terms = PdrTerms.pack(
            lane, seq, uint40(block.timestamp), validUntil, uint48(block.number), 2, 0
        );
        // Every other PDR goes through the batch path, by its tag's parity.
        s.batch = uint256(keccak256(data)) % 2 == 0;
        (IPaceAccount.Bound[] memory bounds, address[] memory held) = _outcome(s.batch);
        bytes32 digest = account.pdrDigest(
            _calls(data), bounds, held, new IPaceAccount.Check[](0), s.att, s.terms
        );
        (s.r, s.vs) = vm.signCompact(key, digest);
    }

    function _calls(bytes memory data) internal view returns (IPaceAccount.Call[] memory calls) {
        calls = new IPaceAccount.Call[](1);
        calls[0] = IPaceAccount.Call(address(sink), 0, data);
    }

    /// @dev The bounds and held assets of a PDR: for a batch, ETH held and bounded to no outflow.
    function _outcome(bool batch)
        internal
        pure
        returns (IPaceAccount.Bound[] memory bounds, address[] memory held)
    {
        bounds = new IPaceAccount.Bound[](batch ? 1 : 0);
        held = new address[](batch ? 1 : 0);
        if (batch) bounds[0] = IPaceAccount.Bound(address(0), 0, 0, 0, 0, type(uint256).max);
    }

    function _submit(Signed memory s) internal returns (bool) {
        (IPaceAccount.Bound[] memory bounds, address[] memory held) = _outcome(s.batch);
        return _submitWith(s, bounds, held);
    }

    function _submitWith(Signed memory s, IPaceAccount.Bound[] memory bounds, address[] memory held)
        internal
        returns (bool ok)
    {
        if (!s.batch) {
            try account.executePDR(address(sink), 0, s.data, s.att, s.terms, s.r, s.vs) {
                return true;
            } catch {
                return false;
            }
        }
        try account.executeBatchPDR(
            _calls(s.data), bounds, held, new IPaceAccount.Check[](0), s.att, s.terms, s.r, s.vs
        ) {
            ok = true;
        } catch {
            ok = false;
        }
    }

    function _freshData() internal returns (bytes memory) {
        return abi.encodeCall(CallSink.record, (nextTag++));
    }

    /// A correctly signed PDR for the next sequence of a lane: must execute.
    function executeValid(uint8 laneSeed) external {
        uint32 lane = laneSeed % 3;
        Signed memory s = _sign(
            verifierKey,
            _freshData(),
            lane,
            account.nextSequence(lane),
            uint40(block.timestamp + 100)
        );
        if (_submit(s)) {
            ++authorizedCalls;
            executed.push(s);
            if (s.batch) ++batchExecutions;
        } else {
            ++validRejected;
        }
    }

    /// Re-submits a PDR that already executed: must fail.
    function replay(uint256 index) external {
        if (executed.length == 0) return;
        if (_submit(executed[index % executed.length])) ++unexpectedSuccesses;
    }

    /// A PDR signed by a key that is not the verifier: must fail.
    function forge(uint256 keySeed) external {
        uint256 key = bound(keySeed, 1, 1e30);
        if (key == verifierKey) return;
        Signed memory s =
            _sign(key, _freshData(), 0, account.nextSequence(0), uint40(block.timestamp + 100));
        if (_submit(s)) ++unexpectedSuccesses;
    }

    /// A valid PDR whose calldata is swapped after signing: must fail.
    function mutate(uint256 tag) external {
        Signed memory s = _sign(
            verifierKey, _freshData(), 0, account.nextSequence(0), uint40(block.timestamp + 100)
        );
        bytes memory mutated = abi.encodeCall(CallSink.record, (tag));
        if (keccak256(mutated) == keccak256(s.data)) return; // not a mutation
        s.data = mutated;
        if (_submit(s)) ++unexpectedSuccesses;
    }

    /// A valid batch PDR whose bounds or held assets are changed after signing: must fail.
    function mutateOutcome(uint256 tag, uint8 how) external {
        bytes memory data = abi.encodeCall(CallSink.record, (tag));
        Signed memory s =
            _sign(verifierKey, data, 0, account.nextSequence(0), uint40(block.timestamp + 100));
        if (!s.batch) return;
        (IPaceAccount.Bound[] memory bounds, address[] memory held) = _outcome(true);
        if (how % 4 == 0) bounds[0].maxOut = 1;
        else if (how % 4 == 1) bounds[0].kind = 3;
        else if (how % 4 == 2) held = new address[](0);
        else held[0] = address(sink);
        if (_submitWith(s, bounds, held)) ++unexpectedSuccesses;
    }

    /// A valid PDR submitted after its window or freshness ran out: must fail.
    function late(uint8 blocks) external {
        Signed memory s = _sign(
            verifierKey, _freshData(), 0, account.nextSequence(0), uint40(block.timestamp + 10)
        );
        vm.roll(block.number + 3 + blocks % 5);
        vm.warp(block.timestamp + 11);
        if (_submit(s)) ++unexpectedSuccesses;
    }

    /// The owner's raw path: authorized by definition.
    function ownerCall() external {
        _ownerCall(_freshData());
        ++authorizedCalls;
    }

    /// @dev The owner makes the sink call `data` by its own path.
    function _ownerCall(bytes memory data) internal virtual {
        vm.prank(owner);
        account.execute(address(sink), 0, data);
    }

    /// Time and blocks move on.
    function advance(uint8 blocks) external {
        vm.roll(block.number + blocks % 4);
        vm.warp(block.timestamp + uint256(blocks) * 12);
    }
}
