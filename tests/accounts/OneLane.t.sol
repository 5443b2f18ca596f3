// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {EntryPointFixture} from "./EntryPointFixture.sol";
import {IPaceAccount} from "../../contracts/interfaces/IPaceAccount.sol";

/// @notice One nonce lane per (account, key) across both entry paths: an execution through the
///         EntryPoint moves the account's own lane past its sequence, as a direct execution
///         does, so `nextSequence` sees it, a cancel computed from it cancels what was signed
///         after it, and a (lane, sequence) runs at most once whichever path carries it. On both
///         accounts.
contract OneLaneTest is EntryPointFixture {
    function setUp() public {
        _deployWorld();
    }

    function _holders() internal view returns (address[2] memory) {
        return [address(account), eoa];
    }

    function _direct(address h, Pdr memory p) internal {
        (bytes32 r, bytes32 vs) = _signDirect(h, p);
        IPaceAccount(h)
            .executeBatchPDR(p.calls, p.bounds, p.held, p.checks, p.attestation, p.terms, r, vs);
    }

    function _signDirect(address h, Pdr memory p) internal view returns (bytes32, bytes32) {
        return vm.signCompact(
            VERIFIER_KEY,
            IPaceAccount(h).pdrDigest(p.calls, p.bounds, p.held, p.checks, p.attestation, p.terms)
        );
    }

    function _cancel(address h, uint32 key, uint64 sequence) internal {
        vm.prank(h == eoa ? eoa : owner);
        IPaceAccount(h).cancelNonces(key, sequence);
    }

    /// Two executions through the EntryPoint on lane 0 and one on lane 3: the account's lanes
    /// follow (`nextSequence` 2 and 1), and the direct path carries on where they stopped.
    function test_AnEntryPointExecutionAdvancesTheAccountsLane() public {
        for (uint256 i; i < 2; ++i) {
            address h = _holders()[i];
            for (uint64 s; s < 2; ++s) {
                (bool ok,) = _handleRecorded(_pdrOp(h, _transferPdr(1 ether, _termsAt(0, s))));
                assertTrue(ok);
            }
            (bool ok3,) = _handleRecorded(_pdrOp(h, _transferPdr(1 ether, _termsAt(3, 0))));
            assertTrue(ok3);
            assertEq(IPaceAccount(h).nextSequence(0), 2);
            assertEq(IPaceAccount(h).nextSequence(3), 1);
            uint256 before = dai.balanceOf(recipient);
            _direct(h, _transferPdr(2 ether, _termsAt(3, 1)));
            assertEq(dai.balanceOf(recipient) - before, 2 ether);
            assertEq(IPaceAccount(h).nextSequence(3), 2);
        }
    }

    /// (lane 5, sequence 0) executed through the EntryPoint; a direct PDR signed for the same
    /// lane and sequence is refused, whatever else it says.
    function test_RevertWhen_ASequenceRunThroughTheEntryPointComesDirectly() public {
        for (uint256 i; i < 2; ++i) {
            address h = _holders()[i];
            (bool ok,) = _handleRecorded(_pdrOp(h, _transferPdr(1 ether, _termsAt(5, 0))));
            assertTrue(ok);
            Pdr memory again = _transferPdr(7 ether, _termsAt(5, 0));
            (bytes32 r, bytes32 vs) = _signDirect(h, again);
            vm.expectRevert(
                abi.encodeWithSelector(IPaceAccount.PaceAccountInvalidNonce.selector, 5, 1, 0)
            );
            IPaceAccount(h)
                .executeBatchPDR(
                    again.calls,
                    again.bounds,
                    again.held,
                    again.checks,
                    again.attestation,
                    again.terms,
                    r,
                    vs
                );
        }
    }

    /// (lane 6, sequence 0) executed directly; a user operation signed for the same lane and
    /// sequence fails validation.
    function test_RevertWhen_ASequenceRunDirectlyComesThroughTheEntryPoint() public {
        for (uint256 i; i < 2; ++i) {
            address h = _holders()[i];
            _direct(h, _transferPdr(1 ether, _termsAt(6, 0)));
            IPaceAccount.PackedUserOperation memory op =
                _pdrOp(h, _transferPdr(7 ether, _termsAt(6, 0)));
            assertEq(_validate(h, op, ep.getUserOpHash(op)), SIG_FAILED);
            _expectFailedOp(op, "AA24 signature error");
        }
    }

    /// The owner reads `nextSequence` after the EntryPoint executed sequences 0 and 1 and
    /// cancels the lane one past it: the signed, unsent sequence 2 can no longer execute.
    function test_ACancelFromNextSequenceCancelsWhatWasSignedAfterEntryPointExecutions() public {
        for (uint256 i; i < 2; ++i) {
            address h = _holders()[i];
            for (uint64 s; s < 2; ++s) {
                (bool ok,) = _handleRecorded(_pdrOp(h, _transferPdr(1 ether, _termsAt(0, s))));
                assertTrue(ok);
            }
            IPaceAccount.PackedUserOperation memory pending =
                _pdrOp(h, _transferPdr(1 ether, _termsAt(0, 2)));
            _cancel(h, 0, IPaceAccount(h).nextSequence(0) + 1);
            _expectFailedOp(pending, "AA24 signature error");
        }
    }

    /// A user operation whose execution reverts spends its EntryPoint nonce but runs nothing:
    /// the account's lane stays, and a direct PDR may still use that sequence, once.
    function test_AFailedExecutionLeavesTheLane() public {
        for (uint256 i; i < 2; ++i) {
            address h = _holders()[i];
            Pdr memory bad = _transferPdr(5 ether, _termsAt(8, 0));
            bad.bounds = new IPaceAccount.Bound[](1);
            bad.bounds[0] = _balanceBound(address(dai), 4 ether, 0);
            (bool ok,) = _handleRecorded(_pdrOp(h, bad));
            assertFalse(ok);
            assertEq(ep.getNonce(h, 8) & type(uint64).max, 1);
            assertEq(IPaceAccount(h).nextSequence(8), 0);
            _direct(h, _transferPdr(1 ether, _termsAt(8, 0)));
            assertEq(IPaceAccount(h).nextSequence(8), 1);
        }
    }
}
