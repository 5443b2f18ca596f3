// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {SafeFixture, ISafeTestable} from "../safe/SafeFixture.sol";
import {ForwarderModule} from "../safe/SafeModuleMocks.sol";
import {SafeModuleHandler} from "../handlers/SafeModuleHandler.sol";
import {CallSink} from "../handlers/PaceAccountHandler.sol";
import {PaceModule} from "../../contracts/PaceModule.sol";
import {IPaceAccount} from "../../contracts/interfaces/IPaceAccount.sol";

/// @notice The module path under the fuzzer, on the real Safe 1.4.1: whatever sequence of
///         valid, replayed, forged, mutated (calldata, bounds, held assets), late and owner
///         submissions, PDR calls to the Safe, the module or the EntryPoint, and configuration
///         changes through another enabled module it tries, no PDR executes twice, every valid
///         PDR executes, the Safe calls out only under a valid PDR or its owner's transaction,
///         and its owners, threshold and modules stay as set up.
contract SafeModuleInvariantTest is SafeFixture {
    uint256 internal constant OWNER_KEY = 0x5afe01;
    uint256 internal constant VERIFIER_KEY = 0xA11CE;

    address internal safe;
    PaceModule internal module;
    ForwarderModule internal forwarder;
    CallSink internal sink;
    SafeModuleHandler internal handler;
    bytes32 internal configAtStart;

    function setUp() public {
        vm.roll(1000);
        vm.warp(1_700_000_000);
        _deploySafeContracts(false);
        safe = _createSafe(_keys(OWNER_KEY), 1);
        module = new PaceModule(safe, vm.addr(VERIFIER_KEY));
        _enableModule(safe, address(module), _keys(OWNER_KEY));
        // Another module the Safe can drive: the configuration is read whole.
        forwarder = new ForwarderModule(safe);
        _enableModule(safe, address(forwarder), _keys(OWNER_KEY));
        vm.deal(safe, 1 ether);
        sink = new CallSink(safe);
        handler = new SafeModuleHandler(
            IPaceAccount(address(module)), sink, safe, forwarder, OWNER_KEY, VERIFIER_KEY
        );
        configAtStart = module.configHash();
        targetContract(address(handler));
    }

    function invariant_NoPdrExecutesTwice() public view {
        assertEq(sink.duplicateTags(), 0);
    }

    function invariant_ValidPdrsExecute() public view {
        assertEq(handler.validRejected(), 0);
    }

    function invariant_OnlyAuthorizedCallsLeaveTheSafe() public view {
        assertEq(sink.callsFromAccount(), handler.authorizedCalls());
        assertEq(handler.unexpectedSuccesses(), 0);
    }

    /// Owners, threshold, modules, guard, fallback handler and singleton as set up (the full
    /// configuration hash does not cover the Safe's nonce, which the owner's transactions move).
    function invariant_TheSafesConfigurationHolds() public view {
        assertEq(module.configHash(), configAtStart);
        assertEq(ISafeTestable(safe).getOwners().length, 1);
        assertEq(ISafeTestable(safe).getThreshold(), 1);
        assertTrue(ISafeTestable(safe).isModuleEnabled(address(module)));
    }
}
