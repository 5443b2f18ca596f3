// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {EntryPointFixture} from "./EntryPointFixture.sol";
import {IPaceAccount} from "../../contracts/interfaces/IPaceAccount.sol";

/// @notice The EntryPoint validates every operation of a bundle before it executes any: an
///         owner's `cancelNonces` earlier in the same bundle still cancels a PDR validated
///         before it ran, because execution reads the lane's floor again.
contract BundleCancelTest is EntryPointFixture {
    function setUp() public {
        _deployWorld();
    }

    function test_ACancelEarlierInTheBundleStopsALaterPdr() public {
        uint256 before = dai.balanceOf(recipient);
        IPaceAccount.PackedUserOperation[] memory ops = new IPaceAccount.PackedUserOperation[](2);
        ops[0] = _ownerOp(
            eoa,
            ep.getNonce(eoa, OWNER_NONCE_KEY),
            abi.encodeCall(IPaceAccount.cancelNonces, (0, 5)),
            EOA_KEY
        );
        ops[1] = _pdrOp(eoa, _transferPdr(1 ether, _termsAt(0, 0)));
        vm.prank(bundler, bundler);
        ep.handleOps(ops, beneficiary);
        assertEq(dai.balanceOf(recipient), before, "the cancelled PDR did not execute");
        assertEq(IPaceAccount(eoa).nextSequence(0), 5);
    }

    /// Without the cancel the same bundle's PDR executes: the test above is not vacuous.
    function test_WithoutTheCancelThePdrExecutes() public {
        uint256 before = dai.balanceOf(recipient);
        IPaceAccount.PackedUserOperation[] memory ops = new IPaceAccount.PackedUserOperation[](1);
        ops[0] = _pdrOp(eoa, _transferPdr(1 ether, _termsAt(0, 0)));
        vm.prank(bundler, bundler);
        ep.handleOps(ops, beneficiary);
        assertEq(dai.balanceOf(recipient) - before, 1 ether);
    }
}
