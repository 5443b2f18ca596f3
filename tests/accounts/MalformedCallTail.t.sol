// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {EntryPointFixture, IEntryPointV8} from "./EntryPointFixture.sol";
import {IPaceAccount} from "../../contracts/interfaces/IPaceAccount.sol";

/// @notice `validateUserOp` returns SIG_VALIDATION_FAILED, never reverting, when a PDR batch's
///         array heads are in range but a call's own tail offset or its bytes' length lies
///         outside the call data (`UserOpPdr.isBatch` checks every call's tail).
contract MalformedCallTailTest is EntryPointFixture {
    function setUp() public {
        _deployWorld();
    }

    /// @dev Batches with the terms `t` (so validation gets past the nonce check).
    function _bad(uint256 t) internal view returns (bytes[] memory bad) {
        bad = new bytes[](2);
        // A call whose tail offset lies past the end of the call data.
        bad[0] = bytes.concat(
            EXECUTE_USER_OP_PDR, abi.encode(0x80, 0xc0, 0xe0, t, 1, uint256(1 << 32), 0, 0)
        );
        // A call whose bytes' length runs past the end.
        bad[1] = bytes.concat(
            EXECUTE_USER_OP_PDR,
            abi.encode(
                0x80, 0x140, 0x160, t, 1, 0x20, address(dai), 0, 0x60, uint256(1 << 30), 0, 0
            )
        );
    }

    function test_FailsWhen_ACallsTailLiesOutsideTheCallData() public {
        bytes[] memory bad = _bad(_termsAt(0, 0));
        address[2] memory hs = [address(account), eoa];
        for (uint256 i; i < 2; ++i) {
            for (uint256 j; j < bad.length; ++j) {
                Pdr memory p = _richPdr(hs[i], 1 ether, _termsAt(0, 0));
                IPaceAccount.PackedUserOperation memory op = _pdrOpUnsigned(hs[i], p);
                op.callData = bad[j];
                _signPdrOp(op, p, VERIFIER_KEY);
                bytes32 h = ep.getUserOpHash(op);
                vm.prank(ENTRY_POINT);
                try IPaceAccount(hs[i]).validateUserOp(op, h, 0) returns (uint256 v) {
                    assertEq(v, SIG_FAILED);
                } catch (bytes memory err) {
                    emit log_named_bytes(string.concat("reverted ", vm.toString(j)), err);
                    fail();
                }
            }
        }
    }

    /// Through the bundler it is a signature failure (AA24), nothing paid.
    function test_ThroughTheEntryPointItIsASignatureFailure() public {
        Pdr memory p = _richPdr(eoa, 1 ether, _termsAt(0, 0));
        IPaceAccount.PackedUserOperation memory op = _pdrOpUnsigned(eoa, p);
        op.callData = _bad(p.terms)[0];
        _signPdrOp(op, p, VERIFIER_KEY);
        vm.expectRevert(
            abi.encodeWithSelector(IEntryPointV8.FailedOp.selector, 0, "AA24 signature error")
        );
        _handle(op);
    }
}
