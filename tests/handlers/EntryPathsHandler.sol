// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {EntryPointFixture, IEntryPointV8} from "../accounts/EntryPointFixture.sol";
import {IPaceAccount} from "../../contracts/interfaces/IPaceAccount.sol";
import {Vm} from "forge-std/Vm.sol";

/// @notice Drives both accounts (the standalone `PaceAccount` and an EOA delegated to
///         `PaceDelegate`) through the real EntryPoint v0.8 and the direct path with valid,
///         replayed, forged, mutated, tampered-by-the-bundler, stale and out-of-bounds PDRs and
///         with owner operations. Each PDR moves DAI to the recipient under an exact outflow
///         bound; ghost totals hold what the valid PDRs and the owner moved.
contract EntryPathsHandler is EntryPointFixture {
    /// @notice The holders: 0 the standalone account, 1 the delegated EOA.
    address[2] public holders;
    /// @notice Each holder's DAI when the run started.
    uint256[2] public initialDai;
    /// @notice DAI each holder's valid PDRs were signed to move (their bounds' sum).
    uint256[2] public pdrOut;
    /// @notice DAI each holder's owner moved.
    uint256[2] public ownerOut;
    /// @notice EntryPoint lane-0 operations each holder spent a nonce on.
    uint256[2] public epNonces;
    /// @notice Submissions that must have failed but went through.
    uint256 public unexpectedSuccesses;
    /// @notice Valid PDRs (or owner operations) that did not execute.
    uint256 public validRejected;
    /// @notice User operations that executed with an (account, nonce) seen executing before.
    uint256 public reusedNonces;
    /// @notice User operations that executed successfully.
    uint256 public executedOps;

    mapping(address sender => mapping(uint256 nonce => bool)) internal _executedNonce;
    IPaceAccount.PackedUserOperation[] internal _landed;
    uint256 internal _salt;

    constructor() {
        _deployWorld();
        holders = [address(account), eoa];
        vm.deal(address(account), 100 ether);
        vm.deal(eoa, 100 ether);
        initialDai = [dai.balanceOf(address(account)), dai.balanceOf(eoa)];
    }

    /*//////////////////////////////////////////////////////////////
                                HELPERS
    //////////////////////////////////////////////////////////////*/

    /// @dev A PDR moving `amount` DAI out of holder `i` on lane `key`, bounded to exactly it.
    function _pdr(uint256 i, uint32 key, uint256 amount) internal returns (Pdr memory p) {
        address h = holders[i];
        uint64 seq = key == 0 ? uint64(ep.getNonce(h, 0)) : IPaceAccount(h).nextSequence(key);
        p = _transferPdr(amount, _termsAt(key, seq));
        p.bounds = new IPaceAccount.Bound[](1);
        p.bounds[0] = _balanceBound(address(dai), amount, 0);
        p.attestation = bytes32(++_salt);
    }

    /// @dev Submits `op`; whether `handleOps` went through and the operation's own success.
    function _submit(IPaceAccount.PackedUserOperation memory op)
        internal
        returns (bool landed, bool success)
    {
        vm.recordLogs();
        vm.prank(bundler, bundler);
        try ep.handleOps(_ops(op), beneficiary) {
            landed = true;
        } catch {
            vm.getRecordedLogs();
            return (false, false);
        }
        Vm.Log[] memory logs = vm.getRecordedLogs();
        for (uint256 k; k < logs.length; ++k) {
            if (
                logs[k].emitter == ENTRY_POINT
                    && logs[k].topics[0] == IEntryPointV8.UserOperationEvent.selector
            ) {
                (, success,,) = abi.decode(logs[k].data, (uint256, bool, uint256, uint256));
            }
        }
        if (op.nonce >> 64 == 0) {
            for (uint256 j; j < 2; ++j) {
                if (holders[j] == op.sender) ++epNonces[j];
            }
        }
        if (success) {
            if (_executedNonce[op.sender][op.nonce]) ++reusedNonces;
            _executedNonce[op.sender][op.nonce] = true;
            ++executedOps;
            _landed.push(op);
        }
    }

    function _mustFail(IPaceAccount.PackedUserOperation memory op) internal {
        (, bool success) = _submit(op);
        if (success) ++unexpectedSuccesses;
    }

    /*//////////////////////////////////////////////////////////////
                                ACTIONS
    //////////////////////////////////////////////////////////////*/

    /// A valid PDR through the EntryPoint: executes.
    function validOp(uint8 who, uint256 amount) external {
        uint256 i = who % 2;
        amount = bound(amount, 1, 500 ether);
        Pdr memory p = _pdr(i, 0, amount);
        (bool landed, bool success) = _submit(_pdrOp(holders[i], p));
        if (!landed || !success) ++validRejected;
        else pdrOut[i] += amount;
    }

    /// A valid PDR on the direct path (lane 1): executes.
    function validDirect(uint8 who, uint256 amount) external {
        uint256 i = who % 2;
        amount = bound(amount, 1, 500 ether);
        Pdr memory p = _pdr(i, 1, amount);
        IPaceAccount h = IPaceAccount(holders[i]);
        (bytes32 r, bytes32 vs) = vm.signCompact(
            VERIFIER_KEY, h.pdrDigest(p.calls, p.bounds, p.held, p.checks, p.attestation, p.terms)
        );
        try h.executeBatchPDR(p.calls, p.bounds, p.held, p.checks, p.attestation, p.terms, r, vs) {
            pdrOut[i] += amount;
        } catch {
            ++validRejected;
        }
    }

    /// An operation that executed before, submitted again.
    function replay(uint256 index) external {
        if (_landed.length == 0) return;
        _mustFail(_landed[index % _landed.length]);
    }

    /// A PDR signed by another key.
    function forged(uint8 who, uint256 amount) external {
        uint256 i = who % 2;
        Pdr memory p = _pdr(i, 0, bound(amount, 1, 500 ether));
        IPaceAccount.PackedUserOperation memory op = _pdrOpUnsigned(holders[i], p);
        _signPdrOp(op, p, OTHER_KEY);
        _mustFail(op);
    }

    /// A valid PDR operation changed after signing: the amount, the bound, a terms bit, a gas
    /// limit, a fee or the paymaster.
    function mutated(uint8 who, uint8 how, uint256 x) external {
        uint256 i = who % 2;
        Pdr memory p = _pdr(i, 0, 1 ether);
        IPaceAccount.PackedUserOperation memory op = _pdrOp(holders[i], p);
        uint256 f = how % 6;
        if (f == 0) {
            p.calls[0].data = _transferData(bound(x, 2 ether, 1000 ether));
            p.bounds[0].maxOut = type(uint256).max;
            op.callData = _pdrCallData(p);
        } else if (f == 1) {
            p.bounds[0].maxOut = bound(x, 2 ether, type(uint256).max);
            op.callData = _pdrCallData(p);
        } else if (f == 2) {
            p.terms ^= uint256(1) << (x % 256);
            op.callData = _pdrCallData(p);
        } else if (f == 3) {
            op.accountGasLimits = bytes32(uint256(op.accountGasLimits) + bound(x, 1, 1e6));
        } else if (f == 4) {
            op.gasFees = bytes32(uint256(op.gasFees) + bound(x, 1, 1e12));
        } else {
            // forge-lint: disable-next-line(unsafe-typecast)
            op.paymasterAndData = abi.encodePacked(address(uint160(x)), uint128(1), uint128(1));
        }
        _mustFail(op);
    }

    /// A valid PDR whose simulation is stale by execution: the operation lands, fails, spends
    /// its nonce and moves nothing.
    function stale(uint8 who) external {
        uint256 i = who % 2;
        Pdr memory p = _pdr(i, 0, 1 ether);
        IPaceAccount.PackedUserOperation memory op = _pdrOp(holders[i], p);
        vm.roll(block.number + MAX_AGE + 1);
        _mustFail(op);
    }

    /// A PDR whose bound allows less than its transfer moves.
    function outOfBounds(uint8 who, uint256 amount) external {
        uint256 i = who % 2;
        amount = bound(amount, 2, 500 ether);
        Pdr memory p = _pdr(i, 0, amount);
        p.bounds[0].maxOut = amount - 1;
        _mustFail(_pdrOp(holders[i], p));
    }

    /// The owner moves DAI by a user operation (lane 9) or directly.
    function ownerMoves(uint8 who, uint256 amount, bool viaEntryPoint) external {
        uint256 i = who % 2;
        amount = bound(amount, 1, 500 ether);
        address h = holders[i];
        bytes memory data =
            abi.encodeCall(IPaceAccount.execute, (address(dai), 0, _transferData(amount)));
        bool ok;
        if (viaEntryPoint) {
            (, ok) = _submit(
                _ownerOp(h, ep.getNonce(h, OWNER_NONCE_KEY), data, i == 0 ? OWNER_KEY : EOA_KEY)
            );
        } else {
            vm.prank(i == 0 ? owner : eoa);
            (ok,) = h.call(data);
        }
        if (ok) ownerOut[i] += amount;
        else ++validRejected;
    }

    /// An owner operation signed by another key.
    function forgedOwner(uint8 who, uint256 amount) external {
        uint256 i = who % 2;
        address h = holders[i];
        bytes memory data = abi.encodeCall(
            IPaceAccount.execute, (address(dai), 0, _transferData(bound(amount, 1, 500 ether)))
        );
        _mustFail(_ownerOp(h, ep.getNonce(h, OWNER_NONCE_KEY), data, VERIFIER_KEY));
    }

    /// Time passes.
    function advance(uint8 blocks, uint16 secs) external {
        vm.roll(block.number + blocks);
        vm.warp(block.timestamp + secs);
    }

    /// @notice The EntryPoint driven.
    address public constant ENTRY_POINT_ADDRESS = ENTRY_POINT;

    /// @notice The token the PDRs move.
    function token() external view returns (address) {
        return address(dai);
    }

    /// @notice The number of operations that executed.
    function landedCount() external view returns (uint256) {
        return _landed.length;
    }
}
