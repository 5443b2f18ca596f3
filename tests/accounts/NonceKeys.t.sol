// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {EntryPointFixture} from "./EntryPointFixture.sol";
import {IPaceAccount} from "../../contracts/interfaces/IPaceAccount.sol";

/// @notice Owner and PDR user operations use separate EntryPoint nonce keys, so neither can
///         spend the other's nonces: a PDR lane is a key below 2^32 (the PDR's own lane), an
///         owner operation must use a key at or above 2^32, which validation enforces
///         (`SIG_VALIDATION_FAILED` otherwise), on both accounts.
contract NonceKeysTest is EntryPointFixture {
    function setUp() public {
        _deployWorld();
    }

    function _holders() internal view returns (address[2] memory h, uint256[2] memory keys) {
        h = [address(account), eoa];
        keys = [OWNER_KEY, EOA_KEY];
    }

    function _pauseOp(address h, uint192 nonceKey, uint256 key)
        internal
        view
        returns (IPaceAccount.PackedUserOperation memory)
    {
        return _ownerOp(
            h, ep.getNonce(h, nonceKey), abi.encodeCall(IPaceAccount.setPaused, (true)), key
        );
    }

    /// An owner operation on a PDR lane's key (0, 1, 2^32 - 1), correctly signed by the owner:
    /// refused in validation, nothing runs.
    function test_RevertWhen_AnOwnerOperationUsesAPdrLaneKey() public {
        (address[2] memory h, uint256[2] memory keys) = _holders();
        uint192[3] memory pdrKeys = [uint192(0), 1, type(uint32).max];
        for (uint256 i; i < 2; ++i) {
            for (uint256 k; k < 3; ++k) {
                IPaceAccount.PackedUserOperation memory op = _pauseOp(h[i], pdrKeys[k], keys[i]);
                assertEq(_validate(h[i], op, ep.getUserOpHash(op)), SIG_FAILED);
                _expectFailedOp(op, "AA24 signature error");
            }
            assertFalse(IPaceAccount(h[i]).paused());
        }
    }

    /// A PDR signed for lane 0's next sequence stays valid: the owner cannot spend the
    /// EntryPoint nonce it was signed for (and so neither can anyone replaying the owner's
    /// operations onto the PDR lanes).
    function test_AnOwnerOperationCannotSpendAPdrsNonce() public {
        (address[2] memory h, uint256[2] memory keys) = _holders();
        for (uint256 i; i < 2; ++i) {
            IPaceAccount.PackedUserOperation memory pdr =
                _pdrOp(h[i], _transferPdr(1 ether, _termsAt(0, 0)));
            IPaceAccount.PackedUserOperation memory owners = _ownerOp(
                h[i],
                ep.getNonce(h[i], 0),
                abi.encodeCall(IPaceAccount.cancelNonces, (7, 1)),
                keys[i]
            );
            _expectFailedOp(owners, "AA24 signature error");
            uint256 before = dai.balanceOf(recipient);
            (bool ok,) = _handleRecorded(pdr);
            assertTrue(ok);
            assertEq(dai.balanceOf(recipient) - before, 1 ether);
        }
    }

    /// Owner operations run on any key from 2^32 up, each key its own sequence, and leave the
    /// PDR lanes' EntryPoint nonces alone.
    function test_OwnerOperationsRunOnKeysFrom2To32() public {
        (address[2] memory h, uint256[2] memory keys) = _holders();
        uint192[3] memory ownerKeys = [OWNER_NONCE_KEY, OWNER_NONCE_KEY + 1, type(uint192).max];
        for (uint256 i; i < 2; ++i) {
            for (uint256 k; k < 3; ++k) {
                IPaceAccount.PackedUserOperation memory op = _ownerOp(
                    h[i],
                    ep.getNonce(h[i], ownerKeys[k]),
                    abi.encodeCall(IPaceAccount.cancelNonces, (uint32(7), uint64(k + 1))),
                    keys[i]
                );
                (bool ok,) = _handleRecorded(op);
                assertTrue(ok);
                assertEq(ep.getNonce(h[i], ownerKeys[k]) & type(uint64).max, 1);
            }
            assertEq(IPaceAccount(h[i]).nextSequence(7), 3);
            assertEq(ep.getNonce(h[i], 0), 0, "lane 0 untouched");
        }
    }
}
