// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {SafeModuleWorld} from "./SafeModuleWorld.sol";
import {ISafeTestable} from "./SafeFixture.sol";
import {
    ForwarderModule,
    SlotWriter,
    FalseToken,
    GasProbe,
    BrickedModule,
    NoopGuard,
    SafeTxRelayer
} from "./SafeModuleMocks.sol";
import {PaceModule} from "../../contracts/PaceModule.sol";
import {IPaceAccount} from "../../contracts/interfaces/IPaceAccount.sol";
import {IPaceModule} from "../../contracts/interfaces/IPaceModule.sol";
import {Revocation} from "../../contracts/core/Revocation.sol";
import {MockERC721} from "../../contracts/mocks/MockERC721.sol";

/// @notice What `PaceModule` adds for a Safe, on the real Safe 1.4.1 bytecode: the refusals
///         (the Safe, the module and the EntryPoint as targets; no `DELEGATECALL`), the Safe's
///         configuration unchanged after every call by any route, administration by the Safe's
///         own transactions only, revocations from the Safe, replay across Safes, modules and
///         chains, the escape hatch, a 2-of-3 Safe, the lean path's result, the gas floor.
contract PaceModuleTest is SafeModuleWorld {
    address internal attacker = makeAddr("attacker");

    function _viaEntryPoint() internal pure override returns (bool) {
        return false;
    }

    /// @dev A relayer submits the one-call PDR (`target`, `value`, `data`) through the batch
    ///      path, signed by the verifier; expects `err` when it is not empty.
    function _run(address target, uint256 value, bytes memory data, bytes memory err) internal {
        Pdr memory p;
        p.calls = _one(target, value, data);
        p.bounds = _noBounds();
        p.held = _noHeld();
        p.checks = _noChecks();
        p.terms = _pack(_freshTerms());
        p.attestation = _attestation(p.terms);
        (bytes32 r, bytes32 vs) = _signDirect(p, VERIFIER_KEY);
        if (err.length == 4) vm.expectPartialRevert(bytes4(err));
        else if (err.length != 0) vm.expectRevert(err);
        vm.prank(makeAddr("relayer"));
        module.executeBatchPDR(p.calls, p.bounds, p.held, p.checks, p.attestation, p.terms, r, vs);
    }

    function _safeTx(address to, bytes memory data) internal returns (bool) {
        return _execSafe(safe, to, 0, data, 0, _keys(SAFE_OWNER_KEY));
    }

    /*//////////////////////////////////////////////////////////////
                               REFUSALS
    //////////////////////////////////////////////////////////////*/

    /// Every administration function of the Safe, as a PDR call to the Safe: refused.
    function test_RefusedWhen_ACallTargetsTheSafe() public {
        bytes[6] memory admin = [
            abi.encodeCall(ISafeTestable.enableModule, (attacker)),
            abi.encodeCall(ISafeTestable.setGuard, (attacker)),
            abi.encodeCall(ISafeTestable.addOwnerWithThreshold, (attacker, 1)),
            abi.encodeCall(ISafeTestable.changeThreshold, (1)),
            abi.encodeCall(ISafeTestable.setFallbackHandler, (attacker)),
            abi.encodeCall(ISafeTestable.disableModule, (SENTINEL, address(module)))
        ];
        for (uint256 i; i < admin.length; ++i) {
            _run(
                safe,
                0,
                admin[i],
                abi.encodeWithSelector(IPaceModule.PaceModuleForbiddenTarget.selector, 0, safe)
            );
        }
        // Ether to the Safe is a call to it too.
        _run(
            safe,
            1,
            "",
            abi.encodeWithSelector(IPaceModule.PaceModuleForbiddenTarget.selector, 0, safe)
        );
        assertEq(ISafeTestable(safe).getOwners().length, 1);
    }

    function test_RefusedWhen_ACallTargetsTheModuleOrTheEntryPoint() public {
        _run(
            address(module),
            0,
            abi.encodeCall(IPaceAccount.setVerifier, (attacker)),
            abi.encodeWithSelector(
                IPaceModule.PaceModuleForbiddenTarget.selector, 0, address(module)
            )
        );
        _run(
            ENTRY_POINT,
            0,
            abi.encodeWithSignature("withdrawTo(address,uint256)", attacker, 1),
            abi.encodeWithSelector(IPaceModule.PaceModuleForbiddenTarget.selector, 0, ENTRY_POINT)
        );
        assertEq(module.verifier(), verifierAddr);
    }

    /// A batch whose second call targets the Safe: nothing of the first call remains.
    function test_RefusedWhen_ALaterCallOfTheBatchTargetsTheSafe() public {
        Pdr memory p;
        p.calls = new IPaceAccount.Call[](2);
        p.calls[0] = IPaceAccount.Call(address(dai), 0, _transferData(5 ether));
        p.calls[1] = IPaceAccount.Call(
            safe, 0, abi.encodeCall(ISafeTestable.addOwnerWithThreshold, (attacker, 1))
        );
        p.bounds = _noBounds();
        p.held = _noHeld();
        p.checks = _noChecks();
        p.terms = _pack(_freshTerms());
        p.attestation = _attestation(p.terms);
        (bytes32 r, bytes32 vs) = _signDirect(p, VERIFIER_KEY);
        uint256 before = dai.balanceOf(safe);
        vm.expectRevert(
            abi.encodeWithSelector(IPaceModule.PaceModuleForbiddenTarget.selector, 1, safe)
        );
        module.executeBatchPDR(p.calls, p.bounds, p.held, p.checks, p.attestation, p.terms, r, vs);
        assertEq(dai.balanceOf(safe), before);
        assertEq(module.nextSequence(0), 0);
    }

    /// A PDR call is always a CALL: code that writes storage writes its own, never the Safe's
    /// (a `delegatecall` would have rewritten the Safe's singleton at slot 0).
    function test_ACallNeverRunsInTheSafesContext() public {
        SlotWriter writer = new SlotWriter();
        bytes32 singleton = vm.load(safe, bytes32(0));
        _run(address(writer), 0, abi.encodeCall(SlotWriter.write, (0, uint160(attacker))), "");
        assertEq(vm.load(safe, bytes32(0)), singleton, "the Safe's singleton");
        assertEq(vm.load(address(writer), bytes32(0)), bytes32(uint256(uint160(attacker))));
    }

    /*//////////////////////////////////////////////////////////////
                   THE SAFE'S CONFIGURATION, BY ANY ROUTE
    //////////////////////////////////////////////////////////////*/

    /// Another module the Safe can drive reaches each part of the Safe's configuration without
    /// a PDR call targeting the Safe: every change is refused after the call, and nothing
    /// remains.
    function testFuzz_RefusedWhen_TheConfigurationChangesByAnotherRoute(uint8 which) public {
        ForwarderModule fwd = new ForwarderModule(safe);
        _enableModule(safe, address(fwd), _keys(SAFE_OWNER_KEY));
        SlotWriter writer = new SlotWriter();
        uint256 w = which % 7;
        address to = safe;
        uint8 op = 0;
        bytes memory inner;
        if (w == 0) {
            inner = abi.encodeCall(ISafeTestable.addOwnerWithThreshold, (attacker, 1));
        } else if (w == 1) {
            inner = abi.encodeCall(ISafeTestable.enableModule, (attacker));
        } else if (w == 2) {
            inner = abi.encodeCall(ISafeTestable.setGuard, (address(new NoopGuard())));
        } else if (w == 3) {
            inner = abi.encodeCall(ISafeTestable.setFallbackHandler, (attacker));
        } else if (w == 4) {
            inner = abi.encodeCall(ISafeTestable.disableModule, (SENTINEL, address(fwd)));
        } else if (w == 5) {
            // The singleton, by a delegatecall the other module makes.
            (to, op) = (address(writer), 1);
            inner = abi.encodeCall(SlotWriter.write, (0, uint160(attacker)));
        } else {
            // The threshold, by a delegatecall writing its slot (4).
            (to, op) = (address(writer), 1);
            inner = abi.encodeCall(SlotWriter.write, (4, 7));
        }
        bytes32 before = module.configHash();
        _run(
            address(fwd),
            0,
            abi.encodeCall(ForwarderModule.forward, (to, inner, op)),
            abi.encodeWithSelector(IPaceModule.PaceModuleConfigChanged.selector, 0)
        );
        assertEq(module.configHash(), before);
    }

    /// With no other module enabled, the one route to the Safe's administration from inside a
    /// PDR call is an owner-signed Safe transaction relayed there: it moves the nonce, and the
    /// PDR is refused.
    function test_RefusedWhen_AnOwnerSignedSafeTransactionRunsInsideTheCall() public {
        SafeTxRelayer relayer = new SafeTxRelayer();
        bytes memory cd = _execCalldata(
            safe,
            safe,
            0,
            abi.encodeCall(ISafeTestable.addOwnerWithThreshold, (attacker, 1)),
            0,
            _keys(SAFE_OWNER_KEY)
        );
        bytes32 before = module.configHash();
        assertEq(before, keccak256(abi.encode(address(module), uint256(1))), "the nonce's form");
        _run(
            address(relayer),
            0,
            abi.encodeCall(SafeTxRelayer.relay, (safe, cd)),
            abi.encodeWithSelector(IPaceModule.PaceModuleConfigChanged.selector, 0)
        );
        assertEq(ISafeTestable(safe).getOwners().length, 1);
        assertEq(module.configHash(), before);
    }

    /// With another module enabled, the fingerprint is the full configuration's hash: it
    /// moves with each part it covers, and is a function of the state (not of the nonce).
    function test_TheFullConfigurationHashCoversEachPart() public {
        uint256[] memory k = _keys(SAFE_OWNER_KEY);
        _enableModule(safe, address(new BrickedModule()), k);
        bytes32[8] memory h;
        h[0] = module.configHash();
        assertTrue(h[0] != keccak256(abi.encode(address(module), uint256(2))), "the full form");
        assertTrue(
            _safeTx(safe, abi.encodeCall(ISafeTestable.addOwnerWithThreshold, (attacker, 1)))
        );
        h[1] = module.configHash();
        vm.store(safe, bytes32(uint256(4)), bytes32(uint256(2)));
        h[2] = module.configHash();
        vm.store(safe, bytes32(uint256(4)), bytes32(uint256(1)));
        assertEq(module.configHash(), h[1], "a function of the state");
        assertTrue(
            _safeTx(safe, abi.encodeCall(ISafeTestable.setGuard, (address(new NoopGuard()))))
        );
        h[3] = module.configHash();
        assertTrue(_safeTx(safe, abi.encodeCall(ISafeTestable.setFallbackHandler, (attacker))));
        h[4] = module.configHash();
        _enableModule(safe, address(new BrickedModule()), k);
        h[5] = module.configHash();
        vm.store(safe, bytes32(0), bytes32(uint256(uint160(attacker))));
        h[6] = _fullAfterSingletonSwap();
        h[7] = keccak256("distinct");
        for (uint256 a; a < 7; ++a) {
            for (uint256 b = a + 1; b < 7; ++b) {
                assertTrue(h[a] != h[b], "each part moves the hash");
            }
        }
    }

    /// @dev With the singleton replaced the Safe no longer answers: the fingerprint is 0
    ///      (unreadable), never a configuration.
    function _fullAfterSingletonSwap() internal view returns (bytes32 h) {
        h = module.configHash();
        assertEq(h, bytes32(0), "unreadable");
        h = keccak256("unreadable");
    }

    /// A PDR that leaves the configuration alone passes through another module too.
    function test_ACallThroughAnotherModuleThatChangesNothingExecutes() public {
        uint256 received = dai.balanceOf(recipient);
        ForwarderModule fwd = new ForwarderModule(safe);
        _enableModule(safe, address(fwd), _keys(SAFE_OWNER_KEY));
        _run(
            address(fwd),
            0,
            abi.encodeCall(ForwarderModule.forward, (address(dai), _transferData(3 ether), 0)),
            ""
        );
        assertEq(dai.balanceOf(recipient), received + 3 ether);
    }

    /*//////////////////////////////////////////////////////////////
                            ADMINISTRATION
    //////////////////////////////////////////////////////////////*/

    /// Only the Safe administers the module: its owner's key directly, the verifier, a
    /// stranger are refused.
    function test_OnlyTheSafeAdministers() public {
        address[3] memory callers = [vm.addr(SAFE_OWNER_KEY), verifierAddr, attacker];
        for (uint256 i; i < callers.length; ++i) {
            vm.startPrank(callers[i]);
            vm.expectRevert(
                abi.encodeWithSelector(IPaceAccount.PaceAccountNotOwner.selector, callers[i])
            );
            module.setPaused(true);
            vm.expectRevert(
                abi.encodeWithSelector(IPaceAccount.PaceAccountNotOwner.selector, callers[i])
            );
            module.setVerifier(attacker);
            vm.expectRevert(
                abi.encodeWithSelector(IPaceAccount.PaceAccountNotOwner.selector, callers[i])
            );
            module.setBudget(address(dai), 1, 1 days);
            vm.expectRevert(
                abi.encodeWithSelector(IPaceAccount.PaceAccountNotOwner.selector, callers[i])
            );
            module.cancelNonces(0, 10);
            vm.stopPrank();
        }
        assertEq(module.owner(), safe);
        assertEq(module.safe(), safe);
    }

    /// The Safe rotates the verifier, sets a budget and cancels a lane with its own
    /// transactions; a PDR of the old key is refused after the rotation.
    function test_TheSafeAdministersByItsOwnTransactions() public {
        uint256 newKey = 0x5e1f;
        assertTrue(
            _safeTx(address(module), abi.encodeCall(IPaceAccount.setVerifier, (vm.addr(newKey))))
        );
        assertEq(module.verifier(), vm.addr(newKey));
        _run(
            address(dai),
            0,
            _transferData(1 ether),
            abi.encodeWithSelector(IPaceAccount.PaceAccountInvalidSigner.selector, verifierAddr)
        );
        assertTrue(_safeTx(address(module), abi.encodeCall(IPaceAccount.cancelNonces, (0, 4))));
        assertEq(module.nextSequence(0), 4);
        assertTrue(
            _safeTx(
                address(module), abi.encodeCall(IPaceAccount.setBudget, (address(dai), 9, 1 days))
            )
        );
        (uint128 limit,,,) = module.budget(address(dai));
        assertEq(limit, 9);
    }

    /// Revocations run from the Safe, where the allowances are.
    function test_RevocationsRunFromTheSafe() public {
        _run(address(weth), 0, _approveData(7 ether), "");
        assertEq(weth.allowance(safe, address(router)), 7 ether);
        IPaceAccount.Right[] memory rights = new IPaceAccount.Right[](3);
        rights[0] =
            IPaceAccount.Right(Revocation.ALLOWANCE, address(weth), address(0), address(router));
        rights[1] = IPaceAccount.Right(Revocation.ALLOWANCE, attacker, address(0), address(router));
        rights[2] = IPaceAccount.Right(
            Revocation.ALLOWANCE, address(new FalseToken()), address(0), address(router)
        );
        vm.expectEmit(address(module));
        emit IPaceAccount.RightRevoked(
            Revocation.ALLOWANCE, address(weth), address(0), address(router)
        );
        vm.prank(safe);
        assertEq(
            module.revokeRights(rights), 2, "the code-less target and the false answer fail alone"
        );
        assertEq(weth.allowance(safe, address(router)), 0);
    }

    /// An allowance revocation listing an ERC-721 collection the Safe holds item 0 of is
    /// reported, and the item is approved to nobody (the collection takes `approve(x, 0)` as a
    /// grant of item 0).
    function test_AnAllowanceRevocationOnAnErc721GrantsNoItem() public {
        MockERC721 nft = new MockERC721();
        nft.mint(safe, 0);
        IPaceAccount.Right[] memory rights = new IPaceAccount.Right[](1);
        rights[0] =
            IPaceAccount.Right(Revocation.ALLOWANCE, address(nft), address(0), address(router));
        vm.prank(safe);
        assertEq(module.revokeRights(rights), 1, "the collection's pair is reported");
        assertEq(nft.getApproved(0), address(0), "item 0 approved to nobody");
    }

    /// The literal the revocation's assembly uses is the sum it stands for.
    function test_TheRevocationGasIsTheSumItStandsFor() public view {
        assertEq(module.REVOCATION_GAS(), Revocation.GAS_PER_REVOCATION + module.SAFE_CALL_COST());
    }

    /// The module records the rights a PDR grants from the Safe.
    function test_ARightGrantedFromTheSafeIsRecorded() public {
        vm.expectEmit(address(module));
        emit IPaceAccount.RightGranted(address(weth), address(router), 0x095ea7b3, address(weth));
        _run(address(weth), 0, _approveData(7 ether), "");
    }

    /// A token call that returns false reverts the PDR, as on the accounts.
    function test_RefusedWhen_ATokenReturnsFalse() public {
        FalseToken t = new FalseToken();
        _run(
            address(t),
            0,
            abi.encodeCall(FalseToken.transfer, (recipient, 1)),
            abi.encodeWithSelector(IPaceAccount.PaceAccountCallReturnedFalse.selector, 0)
        );
    }

    /// A failing call reverts with the call's own reason, not the Safe's answer.
    function test_AFailingCallRevertsWithItsReason() public {
        _run(
            address(dai),
            0,
            _transferData(1e30),
            abi.encodePacked(IPaceAccount.PaceAccountCallFailed.selector)
        );
    }

    /// The lean path returns the call's own result, as the accounts do.
    function test_TheLeanPathReturnsTheCallsResult() public {
        GasProbe g = new GasProbe();
        uint256 terms = _pack(_freshTerms());
        bytes memory data = abi.encodeCall(GasProbe.probe, ());
        Pdr memory p;
        p.calls = _one(address(g), 0, data);
        p.bounds = _noBounds();
        p.held = _noHeld();
        p.checks = _noChecks();
        p.terms = terms;
        p.attestation = _attestation(terms);
        (bytes32 r, bytes32 vs) = _signDirect(p, VERIFIER_KEY);
        bytes memory result = module.executePDR(address(g), 0, data, p.attestation, terms, r, vs);
        assertEq(abi.decode(result, (uint256)), 0xabcdef);
    }

    /// Whenever the module lets a call with a signed gas floor start, the target receives at
    /// least the floor, through the module, the Safe's proxy and its singleton.
    function testFuzz_TheGasFloorHoldsThroughTheSafe(uint16 kib, uint32 gasGiven) public {
        kib = uint16(bound(kib, 1, 2000));
        gasGiven = uint32(bound(gasGiven, 100_000, 4_000_000));
        GasProbe g = new GasProbe();
        Terms memory t = _freshTerms();
        t.callGasKib = kib;
        Pdr memory p;
        p.calls = _one(address(g), 0, abi.encodeCall(GasProbe.probe, ()));
        p.bounds = _noBounds();
        p.held = _noHeld();
        p.checks = _noChecks();
        p.terms = _pack(t);
        p.attestation = _attestation(p.terms);
        (bytes32 r, bytes32 vs) = _signDirect(p, VERIFIER_KEY);
        (bool ok, bytes memory ret) = address(module).call{gas: gasGiven}(
            abi.encodeCall(
                IPaceAccount.executeBatchPDR,
                (p.calls, p.bounds, p.held, p.checks, p.attestation, p.terms, r, vs)
            )
        );
        if (g.seen() != 1) {
            // The probe ran: it got at least the floor (less what its own entry cost).
            assertGe(g.seen() + 200, uint256(kib) << 10, "the floor");
        } else {
            assertFalse(ok, "nothing ran, so the PDR cannot have succeeded");
            ret;
        }
    }

    /*//////////////////////////////////////////////////////////////
                                REPLAY
    //////////////////////////////////////////////////////////////*/

    /// A PDR signed for this Safe and module verifies at no other Safe, no other module on
    /// the same Safe, and on no other chain.
    function test_RefusedWhen_ReplayedAcrossSafesModulesAndChains() public {
        Pdr memory p = _transferPdr(1 ether, _pack(_freshTerms()));
        (bytes32 r, bytes32 vs) = _signDirect(p, VERIFIER_KEY);

        address other = _createSafe(_keys(SAFE_OWNER_KEY), 1);
        dai.mint(other, 10 ether);
        PaceModule otherSafesModule = new PaceModule(other, verifierAddr);
        _enableModule(other, address(otherSafesModule), _keys(SAFE_OWNER_KEY));
        PaceModule secondModule = new PaceModule(safe, verifierAddr);
        _enableModule(safe, address(secondModule), _keys(SAFE_OWNER_KEY));

        PaceModule[2] memory elsewhere = [otherSafesModule, secondModule];
        for (uint256 i; i < 2; ++i) {
            vm.expectPartialRevert(IPaceAccount.PaceAccountInvalidSigner.selector);
            elsewhere[i].executeBatchPDR(
                p.calls, p.bounds, p.held, p.checks, p.attestation, p.terms, r, vs
            );
        }
        uint256 snap = vm.snapshotState();
        vm.chainId(block.chainid + 1);
        vm.expectPartialRevert(IPaceAccount.PaceAccountInvalidSigner.selector);
        module.executeBatchPDR(p.calls, p.bounds, p.held, p.checks, p.attestation, p.terms, r, vs);
        vm.revertToState(snap);
        uint256 received = dai.balanceOf(recipient);
        module.executeBatchPDR(p.calls, p.bounds, p.held, p.checks, p.attestation, p.terms, r, vs);
        assertEq(dai.balanceOf(recipient), received + 1 ether);
        assertEq(dai.balanceOf(other), 10 ether);
    }

    /// The module's code runs only at its own address: a Safe `delegatecall` into it (which
    /// would run it on the Safe's storage) is refused.
    function test_RefusedWhen_RunOutsideItsHome() public {
        Pdr memory p = _transferPdr(1 ether, _pack(_freshTerms()));
        (bytes32 r, bytes32 vs) = _signDirect(p, VERIFIER_KEY);
        vm.etch(attacker, address(module).code);
        vm.expectRevert(
            abi.encodeWithSelector(IPaceAccount.PaceAccountNotHome.selector, address(module))
        );
        IPaceAccount(attacker)
            .executeBatchPDR(p.calls, p.bounds, p.held, p.checks, p.attestation, p.terms, r, vs);
    }

    /*//////////////////////////////////////////////////////////////
                             ESCAPE HATCH
    //////////////////////////////////////////////////////////////*/

    /// A paused module, one whose lane is retired, and a module that reverts whatever it is
    /// asked never stop the Safe: its owners still move funds and disable each of them.
    function test_TheSafeAlwaysDisablesTheModule() public {
        BrickedModule bricked = new BrickedModule();
        _enableModule(safe, address(bricked), _keys(SAFE_OWNER_KEY));
        assertTrue(_safeTx(address(module), abi.encodeCall(IPaceAccount.setPaused, (true))));
        assertTrue(
            _safeTx(
                address(module), abi.encodeCall(IPaceAccount.cancelNonces, (0, type(uint64).max))
            )
        );
        // The owners' own transactions run.
        uint256 received = dai.balanceOf(recipient);
        assertTrue(_safeTx(address(dai), _transferData(2 ether)));
        assertEq(dai.balanceOf(recipient), received + 2 ether);
        // Modules list newest first: bricked, then this module.
        assertTrue(
            _safeTx(safe, abi.encodeCall(ISafeTestable.disableModule, (SENTINEL, address(bricked))))
        );
        assertTrue(
            _safeTx(safe, abi.encodeCall(ISafeTestable.disableModule, (SENTINEL, address(module))))
        );
        assertFalse(ISafeTestable(safe).isModuleEnabled(address(module)));
        assertFalse(ISafeTestable(safe).isModuleEnabled(address(bricked)));
    }

    /// Once disabled, the module moves nothing: the Safe refuses it.
    function test_ADisabledModuleMovesNothing() public {
        uint256 before = dai.balanceOf(safe);
        assertTrue(
            _safeTx(safe, abi.encodeCall(ISafeTestable.disableModule, (SENTINEL, address(module))))
        );
        _run(
            address(dai),
            0,
            _transferData(1 ether),
            abi.encodePacked(IPaceModule.PaceModuleSafeReverted.selector)
        );
        assertEq(dai.balanceOf(safe), before);
    }

    /*//////////////////////////////////////////////////////////////
                               2-OF-3
    //////////////////////////////////////////////////////////////*/

    /// A 2-of-3 Safe (`SafeL2`): two owners enable the module, PDRs move the Safe's funds under
    /// the bounds, and one owner alone cannot administer the module.
    function test_ATwoOfThreeSafe() public {
        _deploySafeContracts(true);
        uint256[] memory keys = _keys(0xa1, 0xa2, 0xa3);
        address s2 = _createSafe(keys, 2);
        PaceModule m = new PaceModule(s2, verifierAddr);
        uint256[] memory two = _keys(0xa3, 0xa1);
        _enableModule(s2, address(m), two);
        dai.mint(s2, 10 ether);

        Pdr memory p = _transferPdr(4 ether, _termsAt(0, 0));
        p.bounds = new IPaceAccount.Bound[](1);
        p.bounds[0] = _balanceBound(address(dai), 4 ether, 0);
        bytes32 domain = _saltedDomain("PaceModule", "1", address(m), bytes32(uint256(uint160(s2))));
        (bytes32 r, bytes32 vs) = vm.signCompact(VERIFIER_KEY, _digest(domain, p));
        m.executeBatchPDR(p.calls, p.bounds, p.held, p.checks, p.attestation, p.terms, r, vs);
        assertEq(dai.balanceOf(s2), 6 ether);

        bytes memory pause = abi.encodeCall(IPaceAccount.setPaused, (true));
        bytes memory one = _execCalldata(s2, address(m), 0, pause, 0, _keys(0xa2));
        (bool ok,) = s2.call(one);
        assertFalse(ok, "one owner of a 2-of-3");
        assertTrue(_execSafe(s2, address(m), 0, pause, 0, _keys(0xa2, 0xa3)));
        assertTrue(m.paused());
    }
}
