// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {EntryPointFixture, IEntryPointV8} from "./EntryPointFixture.sol";
import {IPaceAccount} from "../../contracts/interfaces/IPaceAccount.sol";
import {Vm} from "forge-std/Vm.sol";

/// @notice Several user operations in one `handleOps` bundle, where every validation runs
///         before any execution: consecutive PDRs of one lane both execute, a failed one does
///         not stop the next, and an owner's pause earlier in the bundle stops a later PDR,
///         already validated, in its execution.
contract BundlesTest is EntryPointFixture {
    function setUp() public {
        _deployWorld();
    }

    function _holders() internal view returns (address[2] memory) {
        return [address(account), eoa];
    }

    /// @dev Submits `ops` as one bundle; each operation's `success`, in order.
    function _bundle(IPaceAccount.PackedUserOperation[] memory ops)
        internal
        returns (bool[] memory success)
    {
        vm.recordLogs();
        vm.prank(bundler, bundler);
        ep.handleOps(ops, beneficiary);
        Vm.Log[] memory logs = vm.getRecordedLogs();
        success = new bool[](ops.length);
        uint256 n;
        for (uint256 i; i < logs.length; ++i) {
            if (
                logs[i].emitter == ENTRY_POINT
                    && logs[i].topics[0] == IEntryPointV8.UserOperationEvent.selector
            ) {
                (, success[n++],,) = abi.decode(logs[i].data, (uint256, bool, uint256, uint256));
            }
        }
        assertEq(n, ops.length);
    }

    function _two(
        IPaceAccount.PackedUserOperation memory a,
        IPaceAccount.PackedUserOperation memory b
    ) internal pure returns (IPaceAccount.PackedUserOperation[] memory ops) {
        ops = new IPaceAccount.PackedUserOperation[](2);
        ops[0] = a;
        ops[1] = b;
    }

    function test_ConsecutivePdrsOfALaneBothExecute() public {
        for (uint256 i; i < 2; ++i) {
            address h = _holders()[i];
            uint256 before = dai.balanceOf(recipient);
            bool[] memory ok = _bundle(
                _two(
                    _pdrOp(h, _transferPdr(1 ether, _termsAt(0, 0))),
                    _pdrOp(h, _transferPdr(2 ether, _termsAt(0, 1)))
                )
            );
            assertTrue(ok[0] && ok[1]);
            assertEq(dai.balanceOf(recipient) - before, 3 ether);
        }
    }

    function test_AFailedPdrDoesNotStopTheNext() public {
        for (uint256 i; i < 2; ++i) {
            address h = _holders()[i];
            Pdr memory bad = _transferPdr(5 ether, _termsAt(0, 0));
            bad.bounds = new IPaceAccount.Bound[](1);
            bad.bounds[0] = _balanceBound(address(dai), 4 ether, 0);
            uint256 before = dai.balanceOf(recipient);
            bool[] memory ok =
                _bundle(_two(_pdrOp(h, bad), _pdrOp(h, _transferPdr(2 ether, _termsAt(0, 1)))));
            assertFalse(ok[0]);
            assertTrue(ok[1]);
            assertEq(dai.balanceOf(recipient) - before, 2 ether);
        }
    }

    /// The owner's pause lands first in the bundle; the PDR after it was validated before the
    /// pause, and its execution re-reads the flag.
    function test_APauseEarlierInTheBundleStopsALaterPdr() public {
        uint256[2] memory keys = [OWNER_KEY, EOA_KEY];
        for (uint256 i; i < 2; ++i) {
            address h = _holders()[i];
            uint256 before = dai.balanceOf(recipient);
            IPaceAccount.PackedUserOperation memory pause = _ownerOp(
                h,
                ep.getNonce(h, OWNER_NONCE_KEY),
                abi.encodeCall(IPaceAccount.setPaused, (true)),
                keys[i]
            );
            bool[] memory ok =
                _bundle(_two(pause, _pdrOp(h, _transferPdr(1 ether, _termsAt(0, 0)))));
            assertTrue(ok[0]);
            assertFalse(ok[1]);
            assertEq(dai.balanceOf(recipient), before);
        }
    }

    /// An EOA delegating to the standalone account's code is refused through the EntryPoint
    /// too, even with an operation signed by the deployment's owner.
    function test_TheStandaloneCodeAtADelegatedEoaRefusesUserOperations() public {
        uint256 key = 0xE0A9;
        address victim = vm.addr(key);
        dai.mint(victim, 10 ether);
        vm.deal(victim, 1 ether);
        vm.signAndAttachDelegation(address(account), key);
        IPaceAccount.PackedUserOperation memory op = _ownerOp(
            victim,
            ep.getNonce(victim, OWNER_NONCE_KEY),
            abi.encodeCall(IPaceAccount.execute, (address(dai), 0, _transferData(10 ether))),
            OWNER_KEY
        );
        vm.expectRevert(
            abi.encodeWithSelector(
                IEntryPointV8.FailedOpWithRevert.selector,
                0,
                "AA23 reverted",
                abi.encodeWithSelector(IPaceAccount.PaceAccountNotHome.selector, address(account))
            )
        );
        _handle(op);
        assertEq(dai.balanceOf(victim), 10 ether);
    }
}
