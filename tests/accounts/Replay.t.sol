// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {EntryPointFixture} from "./EntryPointFixture.sol";
import {WipingDelegate} from "./WipingDelegate.sol";
import {PaceAccount} from "../../contracts/PaceAccount.sol";
import {PaceDelegate} from "../../contracts/PaceDelegate.sol";
import {IPaceAccount} from "../../contracts/interfaces/IPaceAccount.sol";
import {IPaceDelegate} from "../../contracts/interfaces/IPaceDelegate.sol";

/// @notice A PDR is bound to one entry path of one account on one chain, and to one set-up of a
///         delegated EOA: it is refused across paths (both ways), across accounts (another
///         standalone account; another EOA on the same delegate code, even with the same salt),
///         across chains, and after re-delegation (A -> B -> A with B wiping the namespace),
///         before and after a new set-up, also when the old set-up signature is replayed.
contract ReplayTest is EntryPointFixture {
    function setUp() public {
        _deployWorld();
    }

    function _holders() internal view returns (address[2] memory) {
        return [address(account), eoa];
    }

    /// @dev The direct path's digest of `p` at `h`, as the account computes it.
    function _directDigest(address h, Pdr memory p) internal view returns (bytes32) {
        return
            IPaceAccount(h).pdrDigest(p.calls, p.bounds, p.held, p.checks, p.attestation, p.terms);
    }

    function _direct(address h, Pdr memory p, bytes32 r, bytes32 vs) internal {
        IPaceAccount(h)
            .executeBatchPDR(p.calls, p.bounds, p.held, p.checks, p.attestation, p.terms, r, vs);
    }

    function _sigWords(IPaceAccount.PackedUserOperation memory op)
        internal
        pure
        returns (bytes32 r, bytes32 vs)
    {
        (, r, vs) = abi.decode(op.signature, (bytes32, bytes32, bytes32));
    }

    /*//////////////////////////////////////////////////////////////
                             ACROSS PATHS
    //////////////////////////////////////////////////////////////*/

    /// A direct-path PDR signature carried by a user operation of the same batch and nonce.
    function test_ADirectPdrSignatureIsRefusedInAUserOp() public {
        for (uint256 i; i < 2; ++i) {
            address h = _holders()[i];
            Pdr memory p = _richPdr(h, 1 ether, _termsAt(0, 0));
            (bytes32 r, bytes32 vs) = vm.signCompact(VERIFIER_KEY, _directDigest(h, p));
            IPaceAccount.PackedUserOperation memory op = _pdrOpUnsigned(h, p);
            op.signature = abi.encode(p.attestation, r, vs);
            assertEq(_validate(h, op, ep.getUserOpHash(op)), SIG_FAILED);
            _expectFailedOp(op, "AA24 signature error");
            // The same signature is good on its own path.
            _direct(h, p, r, vs);
        }
    }

    /// A user operation's PDR (attestation, terms, r, vs) on `executeBatchPDR`, before and
    /// after the operation itself ran.
    function test_AUserOpPdrSignatureIsRefusedOnTheDirectPath() public {
        for (uint256 i; i < 2; ++i) {
            address h = _holders()[i];
            Pdr memory p = _richPdr(h, 1 ether, _termsAt(0, 0));
            IPaceAccount.PackedUserOperation memory op = _pdrOp(h, p);
            (bytes32 r, bytes32 vs) = _sigWords(op);
            vm.expectPartialRevert(IPaceAccount.PaceAccountInvalidSigner.selector);
            _direct(h, p, r, vs);
            (bool ok,) = _handleRecorded(op);
            assertTrue(ok);
            vm.expectPartialRevert(IPaceAccount.PaceAccountInvalidSigner.selector);
            _direct(h, p, r, vs);
            // The EntryPoint's execution moved the account's lane 0 past sequence 0.
            assertEq(IPaceAccount(h).nextSequence(0), 1);
        }
    }

    /*//////////////////////////////////////////////////////////////
                            ACROSS ACCOUNTS
    //////////////////////////////////////////////////////////////*/

    /// Another standalone account with the same owner and verifier.
    function test_AUserOpPdrIsRefusedAtAnotherStandaloneAccount() public {
        PaceAccount other = new PaceAccount(owner, verifierAddr);
        dai.mint(address(other), 10 ether);
        vm.deal(address(other), 1 ether);
        ep.depositTo{value: 1 ether}(address(other));
        Pdr memory p = _richPdr(address(account), 1 ether, _termsAt(0, 0));
        IPaceAccount.PackedUserOperation memory op = _pdrOp(address(account), p);
        bytes32 signedHash = ep.getUserOpHash(op);
        op.sender = address(other);
        assertEq(_validate(address(other), op, signedHash), SIG_FAILED);
        _expectFailedOp(op, "AA24 signature error");
        (bytes32 r, bytes32 vs) = _sigWords(op);
        vm.expectPartialRevert(IPaceAccount.PaceAccountInvalidSigner.selector);
        _direct(address(other), p, r, vs);
    }

    /// Another EOA delegating to the same code, set up by itself in the same block with the
    /// same verifier and set-up nonce, so with the very same salt: the domain's
    /// verifyingContract (the EOA) still keeps each PDR to its own EOA.
    function test_APdrIsRefusedAtAnotherEoaOnTheSameDelegate() public {
        uint256 key2 = 0xE0A2;
        address eoa2 = vm.addr(key2);
        vm.signAndAttachDelegation(address(delegateImpl), key2);
        vm.prank(eoa2);
        PaceDelegate(payable(eoa2)).setUp(_setup(verifierAddr, 1), "");
        assertEq(PaceDelegate(payable(eoa2)).domainSalt(), dlg.domainSalt(), "same salt");
        dai.mint(eoa2, 10 ether);
        vm.deal(eoa2, 1 ether);
        ep.depositTo{value: 1 ether}(eoa2);

        Pdr memory p = _richPdr(eoa, 1 ether, _termsAt(0, 0));
        (bytes32 r, bytes32 vs) = vm.signCompact(VERIFIER_KEY, _directDigest(eoa, p));
        vm.expectPartialRevert(IPaceAccount.PaceAccountInvalidSigner.selector);
        _direct(eoa2, p, r, vs);

        IPaceAccount.PackedUserOperation memory op = _pdrOp(eoa, p);
        bytes32 signedHash = ep.getUserOpHash(op);
        op.sender = eoa2;
        assertEq(_validate(eoa2, op, signedHash), SIG_FAILED);
        _expectFailedOp(op, "AA24 signature error");
        assertEq(dai.balanceOf(eoa2), 10 ether);
    }

    /*//////////////////////////////////////////////////////////////
                             ACROSS CHAINS
    //////////////////////////////////////////////////////////////*/

    function test_APdrIsRefusedOnAnotherChain() public {
        for (uint256 i; i < 2; ++i) {
            uint256 home = block.chainid;
            address h = _holders()[i];
            Pdr memory p = _richPdr(h, 1 ether, _termsAt(0, 0));
            (bytes32 r, bytes32 vs) = vm.signCompact(VERIFIER_KEY, _directDigest(h, p));
            IPaceAccount.PackedUserOperation memory op = _pdrOp(h, p);
            bytes32 signedHash = ep.getUserOpHash(op);
            vm.chainId(10);
            vm.expectPartialRevert(IPaceAccount.PaceAccountInvalidSigner.selector);
            _direct(h, p, r, vs);
            assertEq(_validate(h, op, signedHash), SIG_FAILED, "same hash, other chain");
            assertTrue(ep.getUserOpHash(op) != signedHash, "the EntryPoint binds the chain");
            _expectFailedOp(op, "AA24 signature error");
            vm.chainId(home);
            _direct(h, p, r, vs);
        }
    }

    /*//////////////////////////////////////////////////////////////
                             RE-DELEGATION
    //////////////////////////////////////////////////////////////*/

    WipingDelegate internal wiper;

    /// @dev A -> B -> A, B wiping the namespace (the last set-up nonce, lanes 0 and 1).
    function _redelegateThroughWiper() internal {
        if (address(wiper) == address(0)) wiper = new WipingDelegate();
        vm.signAndAttachDelegation(address(wiper), EOA_KEY);
        uint32[] memory lanes = new uint32[](1);
        lanes[0] = 1;
        vm.prank(eoa);
        WipingDelegate(eoa).wipe(lanes);
        vm.signAndAttachDelegation(address(delegateImpl), EOA_KEY);
        assertEq(dlg.verifier(), address(0), "wiped");
        assertEq(dlg.domainSalt(), bytes32(0), "wiped");
        assertEq(dlg.layoutVersion(), 0, "wiped");
        assertEq(dlg.setupNonce(), 0, "wiped");
    }

    /// The wiper's idea of the namespace is the delegate's.
    function test_TheWiperKnowsTheNamespace() public {
        bytes32 base = 0x0a77491a114767f413aad0dc67297bb622aec1da0ef7bade1cd1421e1010f800;
        assertEq(address(uint160(uint256(vm.load(eoa, base)))), verifierAddr);
        assertEq(vm.load(eoa, bytes32(uint256(base) + 4)), dlg.domainSalt());
        assertEq(uint256(vm.load(eoa, bytes32(uint256(base) + 5))), dlg.LAYOUT_VERSION());
        assertEq(uint256(vm.load(eoa, bytes32(uint256(base) + 6))), 1, "the last set-up nonce");
        assertEq(dlg.setupNonce(), 1);
    }

    /// PDRs signed before the re-delegation, one executed and one not, on both paths: refused
    /// while nothing is set up again (no verifier), and after the EOA sets up again (new salt).
    function test_AfterAWipingRedelegationOldPdrsAreRefusedBeforeAndAfterANewSetUp() public {
        Pdr memory done = _transferPdr(1 ether, _termsAt(0, 0));
        (bytes32 r0, bytes32 vs0) = vm.signCompact(VERIFIER_KEY, _directDigest(eoa, done));
        _direct(eoa, done, r0, vs0);
        Pdr memory pending = _transferPdr(2 ether, _termsAt(0, 1));
        (bytes32 r1, bytes32 vs1) = vm.signCompact(VERIFIER_KEY, _directDigest(eoa, pending));
        Pdr memory viaEp = _transferPdr(3 ether, _termsAt(0, 0));
        IPaceAccount.PackedUserOperation memory op = _pdrOp(eoa, viaEp);
        uint256 before = dai.balanceOf(recipient);

        vm.roll(block.number + 1);
        _redelegateThroughWiper();
        _refuseAll(done, r0, vs0, pending, r1, vs1, op);

        // The EOA sets up again, same verifier, even the same (wiped) set-up nonce.
        vm.roll(block.number + 1);
        vm.prank(eoa);
        dlg.setUp(_setup(verifierAddr, 1), "");
        assertEq(dlg.verifier(), verifierAddr);
        _refuseAll(done, r0, vs0, pending, r1, vs1, op);
        assertEq(dai.balanceOf(recipient), before);

        // A PDR signed now, against the new salt, executes.
        Pdr memory fresh = _transferPdr(4 ether, _termsAt(0, 0));
        (bytes32 r2, bytes32 vs2) = vm.signCompact(VERIFIER_KEY, _directDigest(eoa, fresh));
        _direct(eoa, fresh, r2, vs2);
        assertEq(dai.balanceOf(recipient), before + 4 ether);
    }

    function _refuseAll(
        Pdr memory done,
        bytes32 r0,
        bytes32 vs0,
        Pdr memory pending,
        bytes32 r1,
        bytes32 vs1,
        IPaceAccount.PackedUserOperation memory op
    ) internal {
        vm.expectPartialRevert(IPaceAccount.PaceAccountInvalidSigner.selector);
        _direct(eoa, done, r0, vs0);
        vm.expectPartialRevert(IPaceAccount.PaceAccountInvalidSigner.selector);
        _direct(eoa, pending, r1, vs1);
        assertEq(_validate(eoa, op, ep.getUserOpHash(op)), SIG_FAILED);
        _expectFailedOp(op, "AA24 signature error");
    }

    /// The old set-up was relayed with the EOA key's signature; after the wipe its nonce is
    /// free again, so a relayer can replay it (while its deadline lasts), but in a later block
    /// the salt it writes is a new one: the PDRs signed under the first set-up stay refused.
    function test_AfterAWipingRedelegationAReplayedOldSetUpRevivesNoPdr() public {
        uint256 key3 = 0xE0A3;
        address eoa3 = vm.addr(key3);
        vm.signAndAttachDelegation(address(delegateImpl), key3);
        IPaceDelegate.Setup memory s = _setup(verifierAddr, 7);
        bytes memory sig = _signSetup(key3, address(delegateImpl), s);
        _relaySetup(key3, s, sig);
        dai.mint(eoa3, 10 ether);
        Pdr memory p = _transferPdr(1 ether, _termsAt(0, 0));
        (bytes32 r, bytes32 vs) = vm.signCompact(VERIFIER_KEY, _directDigest(eoa3, p));
        _direct(eoa3, p, r, vs);
        bytes32 firstSalt = PaceDelegate(payable(eoa3)).domainSalt();

        vm.roll(block.number + 1);
        vm.prevrandao(bytes32(uint256(0xbeef)));
        WipingDelegate b = new WipingDelegate();
        vm.signAndAttachDelegation(address(b), key3);
        vm.prank(eoa3);
        WipingDelegate(eoa3).wipe(new uint32[](0));
        vm.signAndAttachDelegation(address(delegateImpl), key3);

        _relaySetup(key3, s, sig);
        assertTrue(PaceDelegate(payable(eoa3)).domainSalt() != firstSalt, "new salt");
        vm.expectPartialRevert(IPaceAccount.PaceAccountInvalidSigner.selector);
        _direct(eoa3, p, r, vs);
        assertEq(dai.balanceOf(eoa3), 9 ether);
    }
}
