// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {Test} from "forge-std/Test.sol";
import {EntryPathsHandler} from "../handlers/EntryPathsHandler.sol";
import {MockERC20} from "../../contracts/mocks/MockERC20.sol";
import {IEntryPointV8} from "../accounts/EntryPointFixture.sol";

/// @notice Whatever sequence of valid, replayed, forged, mutated, bundler-tampered, stale and
///         out-of-bounds PDRs and owner operations the fuzzer sends through the real EntryPoint
///         v0.8 and the direct path, to the standalone account and to the EIP-7702 delegated
///         EOA: each holder's DAI falls by exactly what valid PDR bounds and the owner allowed,
///         every valid submission executes, nothing else does, and no (account, nonce)
///         executes twice.
contract EntryPathsInvariantTest is Test {
    EntryPathsHandler internal handler;

    function setUp() public {
        handler = new EntryPathsHandler();
        targetContract(address(handler));
        bytes4[] memory selectors = new bytes4[](10);
        selectors[0] = EntryPathsHandler.validOp.selector;
        selectors[1] = EntryPathsHandler.validDirect.selector;
        selectors[2] = EntryPathsHandler.replay.selector;
        selectors[3] = EntryPathsHandler.forged.selector;
        selectors[4] = EntryPathsHandler.mutated.selector;
        selectors[5] = EntryPathsHandler.stale.selector;
        selectors[6] = EntryPathsHandler.outOfBounds.selector;
        selectors[7] = EntryPathsHandler.ownerMoves.selector;
        selectors[8] = EntryPathsHandler.forgedOwner.selector;
        selectors[9] = EntryPathsHandler.advance.selector;
        targetSelector(FuzzSelector(address(handler), selectors));
    }

    /// Nothing moves without a valid PDR (or the owner): the fall of each holder's DAI is what
    /// the executed PDRs' bounds allowed plus what the owner moved, never more.
    function invariant_TheBalanceFallsOnlyAsPdrBoundsAndTheOwnerAllow() public view {
        for (uint256 i; i < 2; ++i) {
            address h = handler.holders(i);
            uint256 floor = handler.initialDai(i) - handler.pdrOut(i) - handler.ownerOut(i);
            assertEq(MockERC20(handler.token()).balanceOf(h), floor);
        }
    }

    function invariant_NothingInvalidExecutes() public view {
        assertEq(handler.unexpectedSuccesses(), 0);
    }

    function invariant_EveryValidSubmissionExecutes() public view {
        assertEq(handler.validRejected(), 0);
    }

    /// No (account, nonce) executes twice, and the EntryPoint's lane-0 nonce of each holder is
    /// the number of operations that spent one.
    function invariant_NoncesAreNeverReused() public view {
        assertEq(handler.reusedNonces(), 0);
        for (uint256 i; i < 2; ++i) {
            assertEq(
                IEntryPointV8(handler.ENTRY_POINT_ADDRESS()).getNonce(handler.holders(i), 0),
                handler.epNonces(i),
                "lane 0"
            );
        }
    }

    /// The handler's actions do what they say (so the invariants above can fail): valid ones
    /// execute and count, every invalid one is refused, a stale one spends its nonce only.
    function test_TheHandlersActionsDoWhatTheySay() public {
        for (uint8 who; who < 2; ++who) {
            uint256 executed = handler.executedOps();
            handler.validOp(who, 3 ether);
            handler.validDirect(who, 2 ether);
            handler.ownerMoves(who, 1 ether, true);
            handler.ownerMoves(who, 1 ether, false);
            assertEq(handler.executedOps(), executed + 2);
            assertEq(handler.pdrOut(who), 5 ether);
            assertEq(handler.ownerOut(who), 2 ether);
            uint256 nonces = handler.epNonces(who);
            handler.replay(handler.landedCount() - 1);
            handler.forged(who, 1 ether);
            for (uint8 how; how < 6; ++how) {
                handler.mutated(who, how, 7);
            }
            handler.outOfBounds(who, 1 ether);
            handler.stale(who);
            handler.forgedOwner(who, 1 ether);
            assertEq(handler.epNonces(who), nonces + 2, "out-of-bounds and stale land");
            assertEq(handler.executedOps(), executed + 2);
            assertEq(handler.unexpectedSuccesses(), 0);
            assertEq(handler.validRejected(), 0);
        }
        invariant_TheBalanceFallsOnlyAsPdrBoundsAndTheOwnerAllow();
        invariant_NoncesAreNeverReused();
    }
}
