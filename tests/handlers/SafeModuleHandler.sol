// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {PaceAccountHandler, CallSink} from "./PaceAccountHandler.sol";
import {SafeFixture, ISafeTestable} from "../safe/SafeFixture.sol";
import {ForwarderModule} from "../safe/SafeModuleMocks.sol";
import {IPaceAccount} from "../../contracts/interfaces/IPaceAccount.sol";
import {PdrCalls} from "../../contracts/core/PdrCalls.sol";
import {PdrTerms} from "../../contracts/libraries/PdrTerms.sol";

/// @notice `PaceAccountHandler` on a Safe 1.4.1 guarded by `PaceModule`: the sink counts the
///         Safe's calls, the owner's path is the Safe owner's own `execTransaction`, and two
///         more actions try what the module must refuse however it is signed: a PDR call to
///         the Safe, the module or the EntryPoint, and a change of the Safe's configuration
///         through another module the Safe can drive.
contract SafeModuleHandler is PaceAccountHandler, SafeFixture {
    address public immutable safe;
    ForwarderModule public immutable forwarder;
    uint256 internal immutable _ownerKey;

    constructor(
        IPaceAccount module_,
        CallSink sink_,
        address safe_,
        ForwarderModule forwarder_,
        uint256 ownerKey_,
        uint256 verifierKey_
    ) PaceAccountHandler(module_, sink_, vm.addr(ownerKey_), verifierKey_) {
        safe = safe_;
        forwarder = forwarder_;
        _ownerKey = ownerKey_;
    }

    /// @dev The Safe's owner runs the sink call as the Safe's own transaction.
    function _ownerCall(bytes memory data) internal override {
        require(_execSafe(safe, address(sink), 0, data, 0, _keys(_ownerKey)), "owner tx");
    }

    /// A validly signed PDR whose call targets the Safe, the module or the EntryPoint: must
    /// fail.
    function forbidden(uint8 which) external {
        address target;
        bytes memory data;
        if (which % 3 == 0) {
            target = safe;
            data = abi.encodeCall(ISafeTestable.addOwnerWithThreshold, (address(this), 1));
        } else if (which % 3 == 1) {
            target = address(account);
            data = abi.encodeCall(IPaceAccount.setVerifier, (address(this)));
        } else {
            target = PdrCalls.ENTRY_POINT;
            data = abi.encodeWithSignature("withdrawTo(address,uint256)", address(this), 1);
        }
        if (_signedOneCall(target, data)) ++unexpectedSuccesses;
    }

    /// A validly signed PDR that drives the other module to change the Safe's owners, fallback
    /// handler or modules: must fail.
    function viaOtherModule(uint8 which) external {
        bytes memory inner;
        if (which % 3 == 0) {
            inner = abi.encodeCall(ISafeTestable.addOwnerWithThreshold, (address(this), 1));
        } else if (which % 3 == 1) {
            inner = abi.encodeCall(ISafeTestable.setFallbackHandler, (address(this)));
        } else {
            inner = abi.encodeCall(ISafeTestable.enableModule, (address(this)));
        }
        bytes memory data = abi.encodeCall(ForwarderModule.forward, (safe, inner, 0));
        if (_signedOneCall(address(forwarder), data)) ++unexpectedSuccesses;
    }

    /// @dev Signs (lane 0, next sequence) and submits a one-call batch PDR; whether it executed.
    function _signedOneCall(address target, bytes memory data) internal returns (bool ok) {
        IPaceAccount.Call[] memory calls = new IPaceAccount.Call[](1);
        calls[0] = IPaceAccount.Call(target, 0, data);
        uint256 terms = _termsNow();
        bytes32 att = keccak256(data);
        (bytes32 r, bytes32 vs) = vm.signCompact(
            verifierKey,
            account.pdrDigest(
                calls,
                new IPaceAccount.Bound[](0),
                new address[](0),
                new IPaceAccount.Check[](0),
                att,
                terms
            )
        );
        try account.executeBatchPDR(
            calls,
            new IPaceAccount.Bound[](0),
            new address[](0),
            new IPaceAccount.Check[](0),
            att,
            terms,
            r,
            vs
        ) {
            ok = true;
        } catch {
            ok = false;
        }
    }

    /// @dev Terms on lane 0 at its next sequence, valid from now for 100 seconds, simulated
    ///      at this block.
    function _termsNow() internal view returns (uint256) {
        return PdrTerms.pack(
            0,
            account.nextSequence(0),
            uint40(block.timestamp),
            uint40(block.timestamp + 100),
            uint48(block.number),
            2,
            0
        );
    }
}
