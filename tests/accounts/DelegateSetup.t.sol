// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {EntryPointFixture} from "./EntryPointFixture.sol";
import {PaceDelegate} from "../../contracts/PaceDelegate.sol";
import {IPaceAccount} from "../../contracts/interfaces/IPaceAccount.sol";
import {IPaceSignatures} from "../../contracts/interfaces/IPaceSignatures.sol";
import {IPaceDelegate} from "../../contracts/interfaces/IPaceDelegate.sol";
import {ReentrantTarget} from "../../contracts/mocks/ReentrantTarget.sol";

/// @notice Setting the EIP-7702 delegate up: by the EOA itself or by the EOA key's signature
///         through a relayer, bound to the chain, the EOA, the delegate code, a nonce used once
///         and a deadline. Front-running with other parameters, replays, expired and foreign
///         signatures fail; without a verifier every PDR is refused; a PDR cannot call the EOA
///         itself, and no set-up happens while the lock is held.
contract DelegateSetupTest is EntryPointFixture {
    uint256 internal constant KEY = 0xE0A6;
    /// @dev `PaceDelegate`'s ERC-7201 namespace root (`pace.delegate.v1`).
    bytes32 internal constant NAMESPACE =
        0x0a77491a114767f413aad0dc67297bb622aec1da0ef7bade1cd1421e1010f800;
    address internal e = vm.addr(KEY);
    PaceDelegate internal d = PaceDelegate(payable(vm.addr(KEY)));

    function setUp() public {
        _deployWorld();
        vm.signAndAttachDelegation(address(delegateImpl), KEY);
        dai.mint(e, 100 ether);
        vm.deal(e, 1 ether);
        ep.depositTo{value: 1 ether}(e);
    }

    function _signed(IPaceDelegate.Setup memory s) internal view returns (bytes memory) {
        return _signSetup(KEY, address(delegateImpl), s);
    }

    function _rich(address verifier_, uint256 nonce)
        internal
        view
        returns (IPaceDelegate.Setup memory s)
    {
        s = _setup(verifier_, nonce);
        s.budgets = new IPaceDelegate.BudgetLimit[](1);
        s.budgets[0] = IPaceDelegate.BudgetLimit(address(dai), 50 ether, 1 days);
        s.lanes = new IPaceDelegate.LaneFloor[](1);
        s.lanes[0] = IPaceDelegate.LaneFloor(3, 9);
    }

    function _pdrDirect(Pdr memory p) internal {
        (bytes32 r, bytes32 vs) = _sigDirect(p);
        d.executeBatchPDR(p.calls, p.bounds, p.held, p.checks, p.attestation, p.terms, r, vs);
    }

    function _sigDirect(Pdr memory p) internal view returns (bytes32 r, bytes32 vs) {
        return vm.signCompact(
            VERIFIER_KEY, d.pdrDigest(p.calls, p.bounds, p.held, p.checks, p.attestation, p.terms)
        );
    }

    /// The EOA's own transaction to itself (type-4 then a self call): verifier, budgets, lane
    /// floors, layout version and a fresh salt.
    function test_TheEoaSetsItselfUp() public {
        assertEq(d.layoutVersion(), 0);
        assertEq(d.domainSalt(), bytes32(0));
        vm.prank(e);
        d.setUp(_rich(verifierAddr, 1), "");
        assertEq(d.verifier(), verifierAddr);
        assertEq(d.owner(), e);
        assertEq(d.layoutVersion(), 2);
        assertTrue(d.domainSalt() != bytes32(0));
        assertEq(d.setupNonce(), 1);
        assertEq(d.nextSequence(3), 9);
        (uint128 limit, uint64 period,,) = d.budget(address(dai));
        assertEq(limit, 50 ether);
        assertEq(period, 1 days);
        _pdrDirect(_transferPdr(1 ether, _termsAt(0, 0)));
    }

    /// A relayer sends the EOA key's signature; the digest written out from the documented
    /// type is the delegate's own.
    function test_ARelayerSetsUpWithTheEoaKeysSignature() public {
        IPaceDelegate.Setup memory s = _rich(verifierAddr, 42);
        assertEq(_setupDigest(e, address(delegateImpl), s), d.setupDigest(s));
        vm.expectEmit(e);
        emit IPaceDelegate.DelegateSetUp(
            verifierAddr, keccak256(abi.encode(bytes32(0), block.prevrandao, block.number, 42)), 42
        );
        _relaySetup(KEY, s, _signed(s));
        assertEq(d.verifier(), verifierAddr);
        assertEq(d.nextSequence(3), 9);
    }

    /// A front-runner holding the signature changes any parameter: refused; the genuine
    /// set-up still lands after.
    function test_RevertWhen_AFrontRunnerChangesAnyParameter() public {
        IPaceDelegate.Setup memory s = _rich(verifierAddr, 42);
        bytes memory sig = _signed(s);
        for (uint256 f; f < 6; ++f) {
            IPaceDelegate.Setup memory t = _rich(verifierAddr, 42);
            if (f == 0) t.verifier = makeAddr("attacker");
            else if (f == 1) t.budgets[0].limit = type(uint128).max;
            else if (f == 2) t.budgets = new IPaceDelegate.BudgetLimit[](0);
            else if (f == 3) t.lanes[0].sequence = 8;
            else if (f == 4) t.nonce = 43;
            else t.deadline += 1;
            vm.expectPartialRevert(IPaceDelegate.PaceDelegateInvalidSetupSignature.selector);
            _relaySetup(KEY, t, sig);
        }
        assertEq(d.verifier(), address(0));
        _relaySetup(KEY, s, sig);
        assertEq(d.verifier(), verifierAddr);
    }

    /// Signatures by another key, for another EOA, another delegate code or another chain, and
    /// malformed ones: refused.
    function test_RevertWhen_TheSignatureIsForeign() public {
        IPaceDelegate.Setup memory s = _setup(verifierAddr, 1);
        bytes[] memory sigs = new bytes[](6);
        (uint8 v, bytes32 r, bytes32 sv) =
            vm.sign(OTHER_KEY, _setupDigest(e, address(delegateImpl), s));
        sigs[0] = abi.encodePacked(r, sv, v);
        // The EOA key, signing for another EOA's domain.
        (v, r, sv) = vm.sign(KEY, _setupDigest(eoa, address(delegateImpl), s));
        sigs[1] = abi.encodePacked(r, sv, v);
        // ... for another delegate code.
        (v, r, sv) = vm.sign(KEY, _setupDigest(e, makeAddr("other delegate"), s));
        sigs[2] = abi.encodePacked(r, sv, v);
        // ... on another chain.
        uint256 home = block.chainid;
        vm.chainId(5);
        sigs[3] = _signed(s);
        vm.chainId(home);
        sigs[4] = "";
        sigs[5] = new bytes(65);
        for (uint256 i; i < sigs.length; ++i) {
            vm.expectPartialRevert(IPaceDelegate.PaceDelegateInvalidSetupSignature.selector);
            _relaySetup(KEY, s, sigs[i]);
        }
    }

    function test_RevertWhen_TheSetUpIsReplayed() public {
        IPaceDelegate.Setup memory s = _setup(verifierAddr, 5);
        bytes memory sig = _signed(s);
        _relaySetup(KEY, s, sig);
        vm.expectRevert(
            abi.encodeWithSelector(IPaceDelegate.PaceDelegateSetupNonceNotIncreasing.selector, 5, 5)
        );
        _relaySetup(KEY, s, sig);
        // The EOA itself cannot reuse the nonce either.
        vm.prank(e);
        vm.expectRevert(
            abi.encodeWithSelector(IPaceDelegate.PaceDelegateSetupNonceNotIncreasing.selector, 5, 5)
        );
        d.setUp(s, "");
    }

    function test_RevertWhen_TheSetUpHasExpired() public {
        IPaceDelegate.Setup memory s = _setup(verifierAddr, 5);
        bytes memory sig = _signed(s);
        vm.warp(s.deadline + 1);
        vm.expectRevert(
            abi.encodeWithSelector(
                IPaceDelegate.PaceDelegateSetupExpired.selector, s.deadline, block.timestamp
            )
        );
        _relaySetup(KEY, s, sig);
    }

    /// Rotation: the old set-up (verifier V1) cannot come back once the EOA set up V2, and the
    /// PDRs V1 signed stop verifying.
    function test_AfterARotationTheOldSetUpCannotBeReplayed() public {
        uint256 v1Key = 0x1111;
        IPaceDelegate.Setup memory s1 = _setup(vm.addr(v1Key), 1);
        bytes memory sig1 = _signed(s1);
        _relaySetup(KEY, s1, sig1);
        Pdr memory p = _transferPdr(1 ether, _termsAt(0, 0));
        (bytes32 r, bytes32 vs) = vm.signCompact(
            v1Key, d.pdrDigest(p.calls, p.bounds, p.held, p.checks, p.attestation, p.terms)
        );

        vm.roll(block.number + 1);
        IPaceDelegate.Setup memory s2 = _setup(verifierAddr, 2);
        _relaySetup(KEY, s2, _signed(s2));
        vm.expectRevert(
            abi.encodeWithSelector(IPaceDelegate.PaceDelegateSetupNonceNotIncreasing.selector, 2, 1)
        );
        _relaySetup(KEY, s1, sig1);
        assertEq(d.verifier(), verifierAddr);
        vm.expectPartialRevert(IPaceAccount.PaceAccountInvalidSigner.selector);
        d.executeBatchPDR(p.calls, p.bounds, p.held, p.checks, p.attestation, p.terms, r, vs);
    }

    function test_RevertWhen_TheVerifierIsZero() public {
        vm.prank(e);
        vm.expectRevert(IPaceAccount.PaceAccountZeroVerifier.selector);
        d.setUp(_setup(address(0), 1), "");
    }

    /// Never set up: no verifier, every PDR refused on both paths, whatever its signature
    /// (including one that recovers to nothing, address(0) = the unset verifier).
    function test_NoVerifierMeansNoPdr() public {
        Pdr memory p = _transferPdr(1 ether, _termsAt(0, 0));
        (bytes32 r, bytes32 vs) = vm.signCompact(
            VERIFIER_KEY, d.pdrDigest(p.calls, p.bounds, p.held, p.checks, p.attestation, p.terms)
        );
        bytes32[2][3] memory sigs = [[r, vs], [bytes32(0), bytes32(0)], [r, bytes32(0)]];
        for (uint256 i; i < 3; ++i) {
            vm.expectPartialRevert(IPaceAccount.PaceAccountInvalidSigner.selector);
            d.executeBatchPDR(
                p.calls, p.bounds, p.held, p.checks, p.attestation, p.terms, sigs[i][0], sigs[i][1]
            );
            vm.expectPartialRevert(IPaceAccount.PaceAccountInvalidSigner.selector);
            d.executePDR(
                p.calls[0].target,
                0,
                p.calls[0].data,
                p.attestation,
                p.terms,
                sigs[i][0],
                sigs[i][1]
            );
        }
        IPaceAccount.PackedUserOperation memory op = _pdrOp(e, p);
        assertEq(_validate(e, op, ep.getUserOpHash(op)), SIG_FAILED);
        op.signature = abi.encode(p.attestation, bytes32(0), bytes32(0));
        assertEq(_validate(e, op, ep.getUserOpHash(op)), SIG_FAILED);
        _expectFailedOp(op, "AA24 signature error");
        assertEq(dai.balanceOf(e), 100 ether);
    }

    /// A PDR call to the EOA itself (which would pass the owner check, msg.sender being the
    /// EOA) is refused on both paths: here a set-up naming the attacker's verifier, and a
    /// plain ETH call.
    function test_RevertWhen_APdrCallsTheEoaItself() public {
        vm.prank(e);
        d.setUp(_setup(verifierAddr, 1), "");
        bytes memory data = abi.encodeCall(d.setUp, (_setup(makeAddr("attacker"), 2), ""));
        Pdr memory p = _transferPdr(1 ether, _termsAt(0, 0));
        p.calls[0] = IPaceAccount.Call(e, 0, data);
        (bytes32 r, bytes32 vs) = _sigDirect(p);
        vm.expectRevert(abi.encodeWithSelector(IPaceAccount.PaceAccountSelfCall.selector, 0));
        d.executeBatchPDR(p.calls, p.bounds, p.held, p.checks, p.attestation, p.terms, r, vs);
        p.calls[0] = IPaceAccount.Call(e, 1 wei, "");
        (r, vs) = _sigDirect(p);
        vm.expectRevert(abi.encodeWithSelector(IPaceAccount.PaceAccountSelfCall.selector, 0));
        d.executeBatchPDR(p.calls, p.bounds, p.held, p.checks, p.attestation, p.terms, r, vs);

        p.calls[0] = IPaceAccount.Call(e, 0, data);
        (bool ok, bytes memory reason) = _handleRecorded(_pdrOp(e, p));
        assertFalse(ok);
        assertEq(reason, abi.encodeWithSelector(IPaceAccount.PaceAccountSelfCall.selector, 0));
        assertEq(d.verifier(), verifierAddr);
    }

    /// After a PDR signs a hash, the lock holds that hash instead of 1: still held, so a callee
    /// calling back `setUp` is refused.
    function test_RevertWhen_SetUpIsCalledAfterThePdrSignedAHash() public {
        vm.prank(e);
        d.setUp(_setup(verifierAddr, 1), "");
        IPaceDelegate.Setup memory evil = _setup(makeAddr("attacker"), 2);
        ReentrantTarget target = new ReentrantTarget();
        target.setReentry(e, abi.encodeCall(d.setUp, (evil, _signed(evil))));
        Pdr memory p = _transferPdr(1 ether, _termsAt(0, 0));
        IPaceAccount.Call[] memory calls = new IPaceAccount.Call[](2);
        calls[0] = IPaceAccount.Call(
            e, 0, abi.encodeCall(IPaceSignatures.approveHash, (keccak256("signed"), "", ""))
        );
        calls[1] = IPaceAccount.Call(address(target), 0, abi.encodeWithSignature("poke()"));
        p.calls = calls;
        _pdrDirect(p);
        assertEq(
            target.lastReturnData(),
            abi.encodeWithSelector(IPaceDelegate.PaceDelegateSetupLocked.selector)
        );
        assertEq(d.verifier(), verifierAddr);
    }

    /// A PDR's callee calls back `setUp` on the EOA with a valid relayed set-up signature: the
    /// lock is held, so it is refused; outside the PDR the same set-up lands.
    function test_RevertWhen_SetUpIsCalledWhileTheLockIsHeld() public {
        vm.prank(e);
        d.setUp(_setup(verifierAddr, 1), "");
        IPaceDelegate.Setup memory evil = _setup(makeAddr("attacker"), 2);
        bytes memory sig = _signed(evil);
        ReentrantTarget target = new ReentrantTarget();
        target.setReentry(e, abi.encodeCall(d.setUp, (evil, sig)));
        Pdr memory p = _transferPdr(1 ether, _termsAt(0, 0));
        p.calls[0] = IPaceAccount.Call(address(target), 0, abi.encodeWithSignature("poke()"));
        _pdrDirect(p);
        assertFalse(target.lastSuccess());
        assertEq(
            target.lastReturnData(),
            abi.encodeWithSelector(IPaceDelegate.PaceDelegateSetupLocked.selector)
        );
        assertEq(d.verifier(), verifierAddr);

        // Through the EntryPoint too (on lane 1: the direct PDR moved lane 0's floor to 1).
        p.terms = _termsAt(1, 0);
        (bool ok,) = _handleRecorded(_pdrOp(e, p));
        assertTrue(ok);
        assertFalse(target.lastSuccess());
        assertEq(d.verifier(), verifierAddr);

        // And inside an owner function.
        vm.prank(e);
        d.execute(address(target), 0, abi.encodeWithSignature("poke()"));
        assertFalse(target.lastSuccess());
        assertEq(d.verifier(), verifierAddr);

        _relaySetup(KEY, evil, sig);
        assertEq(d.verifier(), evil.verifier);
    }

    /// Set-ups are ordered: a set-up signed earlier (nonce 1, verifier V1) that never landed
    /// cannot land after a newer one (nonce 2, verifier V2) within its deadline, which would
    /// bring back the old verifier and budgets. Relayed or from the EOA itself.
    function test_RevertWhen_AnOlderSetUpLandsAfterANewerOne() public {
        IPaceDelegate.Setup memory older = _setup(makeAddr("v1"), 1);
        bytes memory olderSig = _signed(older);
        IPaceDelegate.Setup memory newer = _setup(verifierAddr, 2);
        _relaySetup(KEY, newer, _signed(newer));
        assertEq(d.setupNonce(), 2);
        vm.expectRevert(
            abi.encodeWithSelector(IPaceDelegate.PaceDelegateSetupNonceNotIncreasing.selector, 2, 1)
        );
        _relaySetup(KEY, older, olderSig);
        vm.prank(e);
        vm.expectRevert(
            abi.encodeWithSelector(IPaceDelegate.PaceDelegateSetupNonceNotIncreasing.selector, 2, 1)
        );
        d.setUp(older, "");
        assertEq(d.verifier(), verifierAddr);
        assertEq(d.setupNonce(), 2);
        // Any nonce above the last lands, gaps allowed.
        _relaySetup(KEY, _setup(verifierAddr, 10), _signed(_setup(verifierAddr, 10)));
        assertEq(d.setupNonce(), 10);
    }

    /// Nonce 0 never lands: set-up nonces start at 1.
    function test_RevertWhen_TheSetUpNonceIsZero() public {
        vm.prank(e);
        vm.expectRevert(
            abi.encodeWithSelector(IPaceDelegate.PaceDelegateSetupNonceNotIncreasing.selector, 0, 0)
        );
        d.setUp(_setup(verifierAddr, 0), "");
    }

    /// Storage written under another layout version (a newer delegate's, say) is refused by
    /// the set-up rather than read wrongly; the previous version's storage reads as this one's
    /// and the set-up writes the current version.
    function test_RevertWhen_TheStoredLayoutIsANewerVersion() public {
        bytes32 layoutSlot = bytes32(uint256(NAMESPACE) + 5);
        uint64 current = delegateImpl.LAYOUT_VERSION();
        vm.store(e, layoutSlot, bytes32(uint256(current + 1)));
        vm.prank(e);
        vm.expectRevert(
            abi.encodeWithSelector(IPaceDelegate.PaceDelegateUnknownLayout.selector, current + 1)
        );
        d.setUp(_setup(verifierAddr, 1), "");
        IPaceDelegate.Setup memory s = _setup(verifierAddr, 1);
        vm.expectRevert(
            abi.encodeWithSelector(IPaceDelegate.PaceDelegateUnknownLayout.selector, current + 1)
        );
        _relaySetup(KEY, s, _signed(s));

        vm.store(e, layoutSlot, bytes32(uint256(1)));
        vm.prank(e);
        d.setUp(_setup(verifierAddr, 1), "");
        assertEq(d.layoutVersion(), current);
        assertEq(d.verifier(), verifierAddr);
    }

    /// A lane floor at or below the lane's sequence leaves the lane where it is.
    function test_ALowerLaneFloorLeavesTheLane() public {
        vm.prank(e);
        d.setUp(_rich(verifierAddr, 1), "");
        IPaceDelegate.Setup memory s = _rich(verifierAddr, 2);
        s.lanes[0].sequence = 4;
        vm.prank(e);
        d.setUp(s, "");
        assertEq(d.nextSequence(3), 9);
    }
}
