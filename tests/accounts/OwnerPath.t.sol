// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {
    EntryPointFixture,
    ISimpleAccountFactoryV8,
    ISimpleAccountV8
} from "./EntryPointFixture.sol";
import {IPaceAccount} from "../../contracts/interfaces/IPaceAccount.sol";
import {IPaceDelegate} from "../../contracts/interfaces/IPaceDelegate.sol";

/// @notice The owner's user operations work as on the references: the standalone account as
///         the real SimpleAccount v0.8 (the owner key signs the user operation's hash, any call
///         data), the delegated EOA as the real Simple7702Account (the EOA key signs). A PDR
///         signature never reaches the owner's functions, and an owner signature never runs a
///         PDR batch.
contract OwnerPathTest is EntryPointFixture {
    uint256 internal constant REF_EOA_KEY = 0x7702;
    address internal simpleAccount;
    address internal refEoa = vm.addr(REF_EOA_KEY);

    function setUp() public {
        _deployWorld();
        ISimpleAccountFactoryV8 factory = ISimpleAccountFactoryV8(
            deployCode(string.concat(ARTIFACTS, "SimpleAccountFactory.json"), abi.encode(ep))
        );
        vm.prank(ep.senderCreator());
        simpleAccount = factory.createAccount(owner, 0);
        assertEq(ISimpleAccountV8(simpleAccount).owner(), owner);
        vm.signAndAttachDelegation(
            deployCode(string.concat(ARTIFACTS, "Simple7702Account.json")), REF_EOA_KEY
        );
        address[2] memory refs = [simpleAccount, refEoa];
        for (uint256 i; i < 2; ++i) {
            dai.mint(refs[i], 100 ether);
            vm.deal(refs[i], 10 ether);
        }
    }

    /// @dev Each account with its owner key: SimpleAccount, PaceAccount, Simple7702Account's
    ///      EOA, PaceDelegate's EOA.
    function _accounts() internal view returns (address[4] memory a, uint256[4] memory keys) {
        a = [simpleAccount, address(account), refEoa, eoa];
        keys = [OWNER_KEY, OWNER_KEY, REF_EOA_KEY, EOA_KEY];
    }

    /// @dev The EntryPoint nonce key of `a`'s owner operations: the references' 0, the PACE
    ///      accounts' owner key (PDR lanes take the keys below 2^32).
    function _ownerKey(address a) internal view returns (uint192) {
        return a == simpleAccount || a == refEoa ? 0 : OWNER_NONCE_KEY;
    }

    function _executeData(uint256 amount) internal view returns (bytes memory) {
        return abi.encodeWithSelector(0xb61d27f6, address(dai), 0, _transferData(amount));
    }

    /// The same owner operation, `execute(dai, 0, transfer)`, runs on every account.
    function test_AnOwnerOperationExecutesAsOnTheReferences() public {
        (address[4] memory a, uint256[4] memory keys) = _accounts();
        for (uint256 i; i < 4; ++i) {
            uint256 before = dai.balanceOf(recipient);
            IPaceAccount.PackedUserOperation memory op =
                _ownerOp(a[i], ep.getNonce(a[i], _ownerKey(a[i])), _executeData(1 ether), keys[i]);
            (bool ok, bytes memory reason) = _handleRecorded(op);
            assertTrue(ok, string(reason));
            assertEq(dai.balanceOf(recipient) - before, 1 ether, vm.toString(a[i]));
            assertEq(ep.getNonce(a[i], _ownerKey(a[i])) & type(uint64).max, 1);
        }
    }

    /// Any other key (the verifier's included) is refused by every account alike.
    function test_AnOperationSignedByAnotherKeyIsRefusedAsOnTheReferences() public {
        (address[4] memory a,) = _accounts();
        uint256[2] memory wrong = [OTHER_KEY, VERIFIER_KEY];
        for (uint256 i; i < 4; ++i) {
            for (uint256 k; k < 2; ++k) {
                IPaceAccount.PackedUserOperation memory op = _ownerOp(
                    a[i], ep.getNonce(a[i], _ownerKey(a[i])), _executeData(1 ether), wrong[k]
                );
                _expectFailedOp(op, "AA24 signature error");
            }
        }
    }

    /// The owner administers through the EntryPoint: pause, then rotate the verifier.
    function test_TheOwnerAdministersByUserOperation() public {
        address[2] memory h = [address(account), eoa];
        uint256[2] memory keys = [OWNER_KEY, EOA_KEY];
        address v2 = makeAddr("verifier2");
        for (uint256 i; i < 2; ++i) {
            IPaceAccount.PackedUserOperation memory op = _ownerOp(
                h[i],
                ep.getNonce(h[i], OWNER_NONCE_KEY + 5),
                abi.encodeCall(IPaceAccount.setPaused, (true)),
                keys[i]
            );
            (bool ok,) = _handleRecorded(op);
            assertTrue(ok);
            assertTrue(IPaceAccount(h[i]).paused());
            op = _ownerOp(
                h[i],
                ep.getNonce(h[i], OWNER_NONCE_KEY + 5),
                abi.encodeCall(IPaceAccount.setVerifier, (v2)),
                keys[i]
            );
            (ok,) = _handleRecorded(op);
            assertTrue(ok);
            assertEq(IPaceAccount(h[i]).verifier(), v2);
        }
    }

    /// The delegated EOA's owner operation may set the delegate up (as the EOA's own call).
    function test_TheEoaSetsUpByUserOperation() public {
        IPaceDelegate.Setup memory s = _setup(makeAddr("verifier2"), 2);
        bytes32 salt = dlg.domainSalt();
        IPaceAccount.PackedUserOperation memory op = _ownerOp(
            eoa, ep.getNonce(eoa, OWNER_NONCE_KEY), abi.encodeCall(dlg.setUp, (s, "")), EOA_KEY
        );
        (bool ok,) = _handleRecorded(op);
        assertTrue(ok);
        assertEq(dlg.verifier(), s.verifier);
        assertTrue(dlg.domainSalt() != salt);
    }

    /// A PDR signature (128 bytes, a valid PDR of the batch) on call data that calls an owner
    /// function is refused in validation.
    function test_APdrSignedOperationCallingAnOwnerFunctionIsRefused() public {
        address[2] memory h = [address(account), eoa];
        for (uint256 i; i < 2; ++i) {
            Pdr memory p = _transferPdr(1 ether, _termsAt(0, 0));
            IPaceAccount.PackedUserOperation memory op = _pdrOpUnsigned(h[i], p);
            op.callData = _executeData(1 ether);
            _signPdrOp(op, p, VERIFIER_KEY);
            _expectFailedOp(op, "AA24 signature error");
            op.callData = abi.encodeCall(IPaceAccount.setVerifier, (makeAddr("attacker")));
            _signPdrOp(op, p, VERIFIER_KEY);
            _expectFailedOp(op, "AA24 signature error");
        }
    }

    /// An owner signature on a PDR batch fails validation: `executeUserOpPdr` runs only what a
    /// PDR signed, and cannot tell at execution which signature validated its call data.
    function test_FailsWhen_AnOwnerOperationCallsExecuteUserOpPdr() public {
        address[2] memory h = [address(account), eoa];
        uint256[2] memory keys = [OWNER_KEY, EOA_KEY];
        for (uint256 i; i < 2; ++i) {
            uint256 before = dai.balanceOf(recipient);
            Pdr memory p = _transferPdr(1 ether, _termsAt(0, 0));
            IPaceAccount.PackedUserOperation memory op =
                _ownerOp(h[i], ep.getNonce(h[i], OWNER_NONCE_KEY), _pdrCallData(p), keys[i]);
            _expectFailedOp(op, "AA24 signature error");
            assertEq(dai.balanceOf(recipient), before);
        }
    }

    /// Nobody but the EntryPoint calls `validateUserOp` or `executeUserOpPdr`.
    function test_RevertWhen_TheEntryPointFunctionsAreCalledByAnother() public {
        address[2] memory h = [address(account), eoa];
        for (uint256 i; i < 2; ++i) {
            Pdr memory p = _transferPdr(1 ether, _termsAt(0, 0));
            IPaceAccount.PackedUserOperation memory op = _pdrOp(h[i], p);
            bytes memory err = abi.encodeWithSelector(
                IPaceAccount.PaceAccountNotEntryPoint.selector, address(this)
            );
            vm.expectRevert(err);
            IPaceAccount(h[i]).validateUserOp(op, bytes32(0), 0);
            vm.expectRevert(err);
            IPaceAccount(h[i]).executeUserOpPdr(p.calls, p.bounds, p.held, p.checks, p.terms);
        }
    }
}
