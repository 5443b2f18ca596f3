// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {EntryPointFixture} from "./EntryPointFixture.sol";
import {IPaceAccount} from "../../contracts/interfaces/IPaceAccount.sol";

/// @notice `validateUserOp` on both accounts, called as the EntryPoint: every bad PDR is
///         `SIG_VALIDATION_FAILED` (1), never a revert (ERC-7562's opcode rules:
///         `Erc7562Validation.t.sol`).
contract ValidateUserOpTest is EntryPointFixture {
    function setUp() public {
        _deployWorld();
    }

    function _holders() internal view returns (address[2] memory) {
        return [address(account), eoa];
    }

    function _good(address h) internal view returns (Pdr memory p) {
        p = _richPdr(h, 1 ether, _termsAt(0, uint64(ep.getNonce(h, 0))));
    }

    function _pauseHolder(address h) internal {
        vm.prank(h == eoa ? eoa : owner);
        IPaceAccount(h).setPaused(true);
    }

    function _cancel(address h, uint32 key, uint64 seq) internal {
        vm.prank(h == eoa ? eoa : owner);
        IPaceAccount(h).cancelNonces(key, seq);
    }

    /// @dev Validates `op` as the EntryPoint, under its real hash; must not revert.
    function _check(address h, IPaceAccount.PackedUserOperation memory op)
        internal
        returns (uint256)
    {
        return _validate(h, op, ep.getUserOpHash(op));
    }

    function test_AGoodPdrReturnsItsWindow() public {
        for (uint256 i; i < 2; ++i) {
            address h = _holders()[i];
            Pdr memory p = _good(h);
            assertEq(_check(h, _pdrOp(h, p)), _window(p.terms));
        }
    }

    function test_FailsWhen_TheSignerIsNotTheVerifier() public {
        for (uint256 i; i < 2; ++i) {
            address h = _holders()[i];
            Pdr memory p = _good(h);
            IPaceAccount.PackedUserOperation memory op = _pdrOpUnsigned(h, p);
            _signPdrOp(op, p, OTHER_KEY);
            assertEq(_check(h, op), SIG_FAILED);
        }
    }

    /// A signature that recovers to nothing (r = 0).
    function test_FailsWhen_TheSignatureRecoversNothing() public {
        for (uint256 i; i < 2; ++i) {
            address h = _holders()[i];
            Pdr memory p = _good(h);
            IPaceAccount.PackedUserOperation memory op = _pdrOpUnsigned(h, p);
            op.signature = abi.encode(p.attestation, bytes32(0), bytes32(0));
            assertEq(_check(h, op), SIG_FAILED);
        }
    }

    /// The EntryPoint's nonce differs from the PDR's: signed for both, still refused.
    function test_FailsWhen_TheNonceIsNotThePdrs() public {
        for (uint256 i; i < 2; ++i) {
            address h = _holders()[i];
            Pdr memory p = _good(h);
            IPaceAccount.PackedUserOperation memory op = _pdrOpUnsigned(h, p);
            op.nonce = (p.terms >> 160) + 1;
            _signPdrOp(op, p, VERIFIER_KEY);
            assertEq(_check(h, op), SIG_FAILED);
            op.nonce = (uint256(7) << 64) | uint64(p.terms >> 160);
            _signPdrOp(op, p, VERIFIER_KEY);
            assertEq(_check(h, op), SIG_FAILED);
        }
    }

    function test_FailsWhen_TheSequenceIsBelowTheLanesFloor() public {
        for (uint256 i; i < 2; ++i) {
            address h = _holders()[i];
            _cancel(h, 3, 5);
            Pdr memory p = _richPdr(h, 1 ether, _termsAt(3, 4));
            assertEq(_check(h, _pdrOp(h, p)), SIG_FAILED);
            // At the floor it validates (the EntryPoint's own nonce is another matter).
            p = _richPdr(h, 1 ether, _termsAt(3, 5));
            assertEq(_check(h, _pdrOp(h, p)), _window(p.terms));
        }
    }

    function test_FailsWhen_TheLaneIsRetired() public {
        for (uint256 i; i < 2; ++i) {
            address h = _holders()[i];
            _cancel(h, 0, type(uint64).max);
            Pdr memory p = _good(h);
            assertEq(_check(h, _pdrOp(h, p)), SIG_FAILED);
            p = _richPdr(h, 1 ether, _termsAt(0, type(uint64).max));
            assertEq(_check(h, _pdrOp(h, p)), SIG_FAILED);
        }
    }

    function test_FailsWhen_Paused() public {
        for (uint256 i; i < 2; ++i) {
            address h = _holders()[i];
            _pauseHolder(h);
            assertEq(_check(h, _pdrOp(h, _good(h))), SIG_FAILED);
        }
    }

    /// validUntil 0 would mean "no expiry" to the EntryPoint.
    function test_FailsWhen_ValidUntilIsZero() public {
        for (uint256 i; i < 2; ++i) {
            address h = _holders()[i];
            Terms memory t = _terms();
            t.sequence = 0;
            t.validUntil = 0;
            t.validAfter = 0;
            Pdr memory p = _richPdr(h, 1 ether, _pack(t));
            assertEq(_check(h, _pdrOp(h, p)), SIG_FAILED);
        }
    }

    /// A PDR signature on call data that is no PDR batch (an owner function, here `execute`),
    /// even with the signer's digest over the calls it holds.
    function test_FailsWhen_TheCallDataIsNotAPdrBatch() public {
        for (uint256 i; i < 2; ++i) {
            address h = _holders()[i];
            Pdr memory p = _good(h);
            IPaceAccount.PackedUserOperation memory op = _pdrOpUnsigned(h, p);
            op.callData =
                abi.encodeCall(IPaceAccount.execute, (address(dai), 0, _transferData(1 ether)));
            _signPdrOp(op, p, VERIFIER_KEY);
            assertEq(_check(h, op), SIG_FAILED);
            // The batch's encoding behind another selector.
            op.callData =
                bytes.concat(bytes4(0xb61d27f6), abi.encode(p.calls, p.bounds, p.held, p.terms));
            _signPdrOp(op, p, VERIFIER_KEY);
            assertEq(_check(h, op), SIG_FAILED);
            // An empty batch.
            p.calls = new IPaceAccount.Call[](0);
            assertEq(_check(h, _pdrOp(h, p)), SIG_FAILED);
        }
    }

    /// Malformed batches: too short, array heads pointing outside the call data, lengths
    /// larger than what follows, a batch cut short.
    function test_FailsWhen_TheCallDataIsMalformed() public {
        bytes[] memory bad = _malformedBatches();
        for (uint256 i; i < 2; ++i) {
            address h = _holders()[i];
            Pdr memory p = _good(h);
            for (uint256 j; j < bad.length; ++j) {
                IPaceAccount.PackedUserOperation memory op = _pdrOpUnsigned(h, p);
                op.callData = bad[j];
                _signPdrOp(op, p, VERIFIER_KEY);
                assertEq(_check(h, op), SIG_FAILED, vm.toString(j));
            }
        }
    }

    function _malformedBatches() internal view returns (bytes[] memory bad) {
        Pdr memory p = _good(address(account));
        uint256 t = p.terms;
        bytes memory good = abi.encode(p.calls, p.bounds, p.held, t);
        bad = new bytes[](6);
        bad[0] = bytes.concat(EXECUTE_USER_OP_PDR);
        // Three head words: no terms.
        bad[1] = bytes.concat(EXECUTE_USER_OP_PDR, new bytes(0x60));
        // The calls' head points past the end.
        bad[2] =
            bytes.concat(EXECUTE_USER_OP_PDR, abi.encode(uint256(1 << 40), 0x80, 0xa0, t), good);
        // The bounds' length claims more than there is.
        bad[3] = bytes.concat(EXECUTE_USER_OP_PDR, abi.encode(0x80, 0x80, 0x80, t, 1 << 20));
        // The held assets' length word lies past the end.
        bad[4] = bytes.concat(EXECUTE_USER_OP_PDR, abi.encode(0x80, 0xa0, 0x1000, t, 0, 0));
        // The good batch cut short by one byte.
        bytes memory cut = bytes.concat(EXECUTE_USER_OP_PDR, good);
        assembly ("memory-safe") {
            mstore(cut, sub(mload(cut), 1))
        }
        bad[5] = cut;
    }

    function test_FailsWhen_TheSignatureHasTheWrongLength() public {
        uint256[8] memory lengths = [uint256(0), 1, 64, 66, 95, 97, 128, 160];
        for (uint256 i; i < 2; ++i) {
            address h = _holders()[i];
            Pdr memory p = _good(h);
            IPaceAccount.PackedUserOperation memory op = _pdrOp(h, p);
            bytes memory sig = op.signature;
            for (uint256 j; j < lengths.length; ++j) {
                bytes memory s = new bytes(lengths[j]);
                for (uint256 k; k < s.length && k < sig.length; ++k) {
                    s[k] = sig[k];
                }
                op.signature = s;
                assertEq(_check(h, op), SIG_FAILED, vm.toString(lengths[j]));
            }
        }
    }

    /// Whatever the call data, nonce and signature, validation answers without reverting, and
    /// never succeeds without the verifier's (or owner's) signature.
    function testFuzz_NeverRevertsNorPassesUnsigned(
        bytes calldata callData,
        bytes calldata sig,
        uint256 nonce,
        bool holderIsEoa
    ) public {
        address h = holderIsEoa ? eoa : address(account);
        IPaceAccount.PackedUserOperation memory op;
        op.sender = h;
        op.nonce = nonce;
        op.callData = callData;
        op.signature = sig;
        _setGas(op, _defaultGas());
        assertEq(_check(h, op) & 1, 1);
    }

    /// As above with a batch-shaped call data behind the right selector, whose terms match the
    /// nonce, and a 96-byte signature: the hashing of arbitrary batches never reverts.
    function testFuzz_NeverRevertsOnArbitraryBatches(bytes calldata tail, bytes32 r, bool isEoa)
        public
    {
        address h = isEoa ? eoa : address(account);
        uint256 terms = _termsAt(0, 0);
        IPaceAccount.PackedUserOperation memory op;
        op.sender = h;
        op.nonce = terms >> 160;
        op.callData = bytes.concat(EXECUTE_USER_OP_PDR, abi.encode(0x80, 0xa0, 0xc0, terms), tail);
        op.signature = abi.encode(bytes32(0), r, r);
        _setGas(op, _defaultGas());
        assertEq(_check(h, op), SIG_FAILED);
    }
}
