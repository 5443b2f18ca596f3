// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {Test} from "forge-std/Test.sol";
import {PaceAccount} from "../../contracts/PaceAccount.sol";
import {IPaceAccount} from "../../contracts/interfaces/IPaceAccount.sol";
import {PaceAccountHandler, CallSink} from "../handlers/PaceAccountHandler.sol";

/// @notice Whatever sequence of valid, replayed, forged, mutated (calldata, bounds, held assets),
///         late and owner submissions the fuzzer tries, through `executePDR` and
///         `executeBatchPDR`: no nonce executes twice, every valid PDR executes, and the account
///         calls out only under a valid PDR or for the owner.
contract PaceAccountInvariantTest is Test {
    PaceAccount internal account;
    CallSink internal sink;
    PaceAccountHandler internal handler;

    function setUp() public {
        vm.roll(1000);
        vm.warp(1_700_000_000);
        uint256 verifierKey = 0xA11CE;
        address owner = makeAddr("owner");
        account = new PaceAccount(owner, vm.addr(verifierKey));
        sink = new CallSink(address(account));
        handler = new PaceAccountHandler(IPaceAccount(address(account)), sink, owner, verifierKey);
        targetContract(address(handler));
    }

    function invariant_NoPdrExecutesTwice() public view {
        assertEq(sink.duplicateTags(), 0);
    }

    /// Every correctly signed PDR executes, on either path (the batch path with its bound and
    /// held ETH).
    function invariant_ValidPdrsExecute() public view {
        assertEq(handler.validRejected(), 0);
    }

    function invariant_OnlyAuthorizedCallsLeaveTheAccount() public view {
        assertEq(sink.callsFromAccount(), handler.authorizedCalls());
        assertEq(handler.unexpectedSuccesses(), 0);
    }
}
