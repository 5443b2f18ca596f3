// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {EntryPaths} from "./EntryPaths.sol";
import {PaceDelegate} from "../../contracts/PaceDelegate.sol";
import {IPaceAccount} from "../../contracts/interfaces/IPaceAccount.sol";
import {PostConditions} from "../../contracts/libraries/PostConditions.sol";
import {PaceShareValue} from "../../contracts/helpers/PaceShareValue.sol";
import {RedPillArmedHandover} from "../../contracts/mocks/redpill/RedPillArmedHandover.sol";
import {RedPillDilutingVault} from "../../contracts/mocks/redpill/RedPillDilutingVault.sol";
import {RedPillStaleRateVault} from "../../contracts/mocks/redpill/RedPillStaleRateVault.sol";

/// @notice The post-conditions against a vault that dilutes its shares only at execution
///         (`RedPillDilutingVault`), on each entry path: a deposit signed with the signer's
///         check (what the received shares are worth, WITHIN the policy's tolerance of the
///         simulated answer) executes in the block it was simulated in, and reverts with
///         `PaceAccountCheckFailed` in a later block, under another block builder, or landed by
///         a third party with its own origin, gas and fee; the same PDR without the check
///         executes and loses most of the deposit. A KEPT check on shares held before the calls
///         reverts it too. Two more triggers on every path: a vault that reports a stored rate
///         (`RedPillStaleRateVault`), whose dilution only the issuer's accounting
///         (`PaceShareValue.vaultShare`) shows, and a box the holder owns that its caretaker
///         armed to take over at the holder's next check-in (`RedPillArmedHandover`), which
///         only the signed `owner()` shows.
abstract contract PostConditionRedPillCases is EntryPaths {
    uint256 internal constant DEPOSIT_AMOUNT = 1000 ether;
    uint256 internal constant HELD_SHARES = 100 ether;
    /// @dev The policy's outcome tolerance the signer applies to a relied read.
    uint256 internal constant TOLERANCE_BPS = 50;

    RedPillDilutingVault internal vault;
    RedPillStaleRateVault internal staleVault;
    PaceShareValue internal shareValue;

    function setUp() public override {
        super.setUp();
        vault = new RedPillDilutingVault(dai);
        // An established vault: the boss's own deposit, some of it the holder's already.
        dai.mint(address(this), 20_000 ether);
        dai.approve(address(vault), type(uint256).max);
        vault.deposit(10_000 ether, address(this));
        assertTrue(vault.transfer(_holder(), HELD_SHARES));
        // Armed in the block the simulation runs in.
        vault.arm();
        staleVault = new RedPillStaleRateVault(dai);
        dai.approve(address(staleVault), type(uint256).max);
        staleVault.deposit(10_000 ether, address(this));
        staleVault.harvest();
        staleVault.arm();
        shareValue = new PaceShareValue();
    }

    /// @dev Approve DAI to the vault and deposit it: DAI may fall by the deposit, the shares
    ///      must arrive; `checks` as given.
    function _depositPdr(IPaceAccount.Check[] memory checks) internal view returns (Pdr memory p) {
        return _depositPdrTo(address(vault), checks);
    }

    /// @dev `_depositPdr` into `into`.
    function _depositPdrTo(address into, IPaceAccount.Check[] memory checks)
        internal
        view
        returns (Pdr memory p)
    {
        RedPillDilutingVault v = RedPillDilutingVault(into);
        address h = _holder();
        p.calls = new IPaceAccount.Call[](2);
        p.calls[0] =
            IPaceAccount.Call(address(dai), 0, abi.encodeCall(dai.approve, (into, DEPOSIT_AMOUNT)));
        p.calls[1] = IPaceAccount.Call(into, 0, abi.encodeCall(v.deposit, (DEPOSIT_AMOUNT, h)));
        p.bounds = new IPaceAccount.Bound[](2);
        p.bounds[0] = _balanceBound(address(dai), DEPOSIT_AMOUNT, 0);
        p.bounds[1] = _balanceBound(into, 0, DEPOSIT_AMOUNT);
        p.held = _noHeld();
        p.checks = checks;
        uint256 terms = _pack(_freshTerms());
        p.attestation = _attestation(uint256(uint160(h)) ^ terms);
        p.terms = terms;
    }

    /// @dev The signer's check: what the received shares are worth after the calls, as
    ///      simulated (1:1 here), less the tolerance, no ceiling.
    function _valuation() internal view returns (IPaceAccount.Check[] memory c) {
        c = new IPaceAccount.Check[](1);
        c[0] = IPaceAccount.Check(
            address(vault),
            abi.encodeCall(vault.convertToAssets, (DEPOSIT_AMOUNT)),
            0,
            PostConditions.WITHIN,
            DEPOSIT_AMOUNT * (10_000 - TOLERANCE_BPS) / 10_000,
            type(uint256).max
        );
    }

    /// @dev What the shares held before the calls are worth may fall by the tolerance.
    function _kept() internal view returns (IPaceAccount.Check[] memory c) {
        c = new IPaceAccount.Check[](1);
        c[0] = IPaceAccount.Check(
            address(vault),
            abi.encodeCall(vault.convertToAssets, (HELD_SHARES)),
            0,
            PostConditions.KEPT,
            HELD_SHARES * TOLERANCE_BPS / 10_000,
            type(uint256).max
        );
    }

    function _checkFailed() internal pure returns (bytes memory) {
        return abi.encodePacked(IPaceAccount.PaceAccountCheckFailed.selector);
    }

    function _assertNothingMoved(uint256 daiBefore) internal view {
        assertEq(dai.balanceOf(_holder()), daiBefore, "DAI moved");
        assertEq(vault.balanceOf(_holder()), HELD_SHARES, "shares moved");
        // The EntryPoint spends a user operation's nonce in validation, whatever its execution
        // does; the direct path's lane moves only with an execution.
        assertEq(_nextSeq(0), _viaEntryPoint() ? 1 : 0, "lane");
    }

    /// In the block it was simulated in, the honest deposit executes under its checks.
    function test_HonestDepositExecutes() public {
        IPaceAccount.Check[] memory c = new IPaceAccount.Check[](2);
        c[0] = _valuation()[0];
        c[1] = _kept()[0];
        _execute(_depositPdr(c), VERIFIER_KEY);
        assertEq(vault.balanceOf(_holder()), HELD_SHARES + DEPOSIT_AMOUNT);
        assertEq(vault.convertToAssets(DEPOSIT_AMOUNT), DEPOSIT_AMOUNT);
    }

    /// Without the check the dilution lands: the shares arrive as simulated (every bound
    /// holds) and are worth a tenth of the deposit.
    function test_WithoutTheCheckTheDilutionLands() public {
        vm.roll(block.number + 1);
        _execute(_depositPdr(new IPaceAccount.Check[](0)), VERIFIER_KEY);
        assertEq(vault.balanceOf(_holder()), HELD_SHARES + DEPOSIT_AMOUNT, "shares as simulated");
        assertLt(vault.convertToAssets(DEPOSIT_AMOUNT), DEPOSIT_AMOUNT / 5, "value lost");
    }

    function test_RevertWhen_IncludedInALaterBlock() public {
        uint256 daiBefore = dai.balanceOf(_holder());
        vm.roll(block.number + 1);
        _expectRefused(_depositPdr(_valuation()), VERIFIER_KEY, _checkFailed(), "");
        _assertNothingMoved(daiBefore);
    }

    function test_RevertWhen_AnotherBuilderIncludesIt() public {
        uint256 daiBefore = dai.balanceOf(_holder());
        vm.coinbase(makeAddr("another builder"));
        _expectRefused(_depositPdr(_valuation()), VERIFIER_KEY, _checkFailed(), "");
        _assertNothingMoved(daiBefore);
    }

    function test_RevertWhen_HeldSharesAreDiluted() public {
        uint256 daiBefore = dai.balanceOf(_holder());
        vm.roll(block.number + 1);
        _expectRefused(_depositPdr(_kept()), VERIFIER_KEY, _checkFailed(), "");
        _assertNothingMoved(daiBefore);
    }

    /// The stale-rate vault's own rate, as simulated, and what its accounting gives the
    /// received shares (`PaceShareValue.vaultShare`), each WITHIN the tolerance of the deposit.
    function _staleChecks() internal view returns (IPaceAccount.Check[] memory c) {
        c = new IPaceAccount.Check[](2);
        uint256 floor = DEPOSIT_AMOUNT * (10_000 - TOLERANCE_BPS) / 10_000;
        c[0] = IPaceAccount.Check(
            address(staleVault),
            abi.encodeCall(staleVault.convertToAssets, (DEPOSIT_AMOUNT)),
            0,
            PostConditions.WITHIN,
            floor,
            type(uint256).max
        );
        c[1] = IPaceAccount.Check(
            address(shareValue),
            abi.encodeCall(shareValue.vaultShare, (address(staleVault), DEPOSIT_AMOUNT)),
            0,
            PostConditions.WITHIN,
            floor,
            type(uint256).max
        );
    }

    /// A vault that reports a stored rate dilutes at execution: its rate check alone passes
    /// and the deposit lands diluted; with the issuer's accounting signed beside it, the PDR
    /// reverts. In the simulated block both hold and the deposit executes.
    function test_RevertWhen_AStoredRateHidesTheDilution() public {
        IPaceAccount.Check[] memory both = _staleChecks();
        IPaceAccount.Check[] memory rateOnly = new IPaceAccount.Check[](1);
        rateOnly[0] = both[0];
        uint256 daiBefore = dai.balanceOf(_holder());
        uint256 snapshot = vm.snapshotState();
        _execute(_depositPdrTo(address(staleVault), both), VERIFIER_KEY);
        assertEq(staleVault.balanceOf(_holder()), DEPOSIT_AMOUNT, "honest deposit");
        vm.revertToState(snapshot);

        vm.roll(block.number + 1);
        snapshot = vm.snapshotState();
        _expectRefused(_depositPdrTo(address(staleVault), both), VERIFIER_KEY, _checkFailed(), "");
        assertEq(dai.balanceOf(_holder()), daiBefore, "DAI moved");
        vm.revertToState(snapshot);
        _execute(_depositPdrTo(address(staleVault), rateOnly), VERIFIER_KEY);
        assertEq(staleVault.balanceOf(_holder()), DEPOSIT_AMOUNT, "shares as simulated");
        assertLt(
            shareValue.vaultShare(address(staleVault), DEPOSIT_AMOUNT),
            DEPOSIT_AMOUNT / 5,
            "value lost behind a steady rate"
        );
    }

    /// A box the holder owns, handed to its caretaker at the holder's check-in once the
    /// caretaker armed it in a transaction of its own: the signed `owner()` reverts the PDR;
    /// without it the check-in executes and the caretaker owns the box.
    function test_RevertWhen_ControlIsHandedOverAtExecution() public {
        address caretaker = makeAddr("caretaker");
        RedPillArmedHandover box = new RedPillArmedHandover(_holder(), caretaker);
        Pdr memory p;
        p.calls = new IPaceAccount.Call[](1);
        p.calls[0] = IPaceAccount.Call(address(box), 0, abi.encodeCall(box.checkIn, ()));
        p.bounds = new IPaceAccount.Bound[](0);
        p.held = _noHeld();
        uint256 holder = uint256(uint160(_holder()));
        p.checks = new IPaceAccount.Check[](1);
        p.checks[0] = IPaceAccount.Check(
            address(box), abi.encodeCall(box.owner, ()), 0, PostConditions.WITHIN, holder, holder
        );
        uint256 terms = _pack(_freshTerms());
        p.attestation = _attestation(holder ^ terms ^ 1);
        p.terms = terms;
        vm.prank(caretaker);
        box.arm();
        uint256 snapshot = vm.snapshotState();
        _expectRefused(p, VERIFIER_KEY, _checkFailed(), "");
        assertEq(box.owner(), _holder(), "handed over");
        vm.revertToState(snapshot);
        p.checks = new IPaceAccount.Check[](0);
        _execute(p, VERIFIER_KEY);
        assertEq(box.owner(), caretaker, "the caretaker owns the box");
    }

    /// A stranger lands the signed PDR, with its own origin, gas price and gas: on the direct
    /// path it sends the call itself, on the EntryPoint path it bundles the user operation.
    function test_RevertWhen_AThirdPartyLandsIt() public {
        uint256 daiBefore = dai.balanceOf(_holder());
        address stranger = makeAddr("stranger");
        vm.roll(block.number + 1);
        vm.txGasPrice(77 gwei);
        Pdr memory p = _depositPdr(_valuation());
        if (_viaEntryPoint()) {
            (bool ok, bytes memory reason) =
                _handleRecordedBy(_op(p, VERIFIER_KEY), stranger, payable(stranger));
            assertFalse(ok, "executed");
            assertEq(bytes4(reason), IPaceAccount.PaceAccountCheckFailed.selector, "error");
        } else {
            (bytes32 r, bytes32 vs) = _signDirect(p, VERIFIER_KEY);
            vm.expectPartialRevert(IPaceAccount.PaceAccountCheckFailed.selector);
            vm.prank(stranger, stranger);
            IPaceAccount(_holder()).executeBatchPDR{gas: 3_000_000}(
                p.calls, p.bounds, p.held, p.checks, p.attestation, p.terms, r, vs
            );
        }
        _assertNothingMoved(daiBefore);
    }
}

/// @notice The standalone account, direct path.
contract StandaloneDirectPostConditionTest is PostConditionRedPillCases {
    function _holder() internal view override returns (address) {
        return address(account);
    }

    function _viaEntryPoint() internal pure override returns (bool) {
        return false;
    }

    function _directDigest(Pdr memory p) internal view override returns (bytes32) {
        return _digest(account.domainSeparator(), p);
    }

    function _pause() internal override {
        vm.prank(owner);
        account.setPaused(true);
    }
}

/// @notice The standalone account through the real EntryPoint v0.8.
contract StandaloneEntryPointPostConditionTest is PostConditionRedPillCases {
    function _holder() internal view override returns (address) {
        return address(account);
    }

    function _viaEntryPoint() internal pure override returns (bool) {
        return true;
    }

    /// @dev Unused: PDRs reach this holder through the EntryPoint.
    function _directDigest(Pdr memory) internal pure override returns (bytes32) {
        return bytes32(0);
    }

    function _pause() internal override {
        vm.prank(owner);
        account.setPaused(true);
    }
}

/// @notice An EOA delegated (EIP-7702) to `PaceDelegate`, direct path.
contract DelegateDirectPostConditionTest is PostConditionRedPillCases {
    function _holder() internal view override returns (address) {
        return eoa;
    }

    function _viaEntryPoint() internal pure override returns (bool) {
        return false;
    }

    function _directDigest(Pdr memory p) internal view override returns (bytes32) {
        return _digest(_delegateDirectDomain(eoa), p);
    }

    function _pause() internal override {
        vm.prank(eoa);
        PaceDelegate(payable(eoa)).setPaused(true);
    }
}

/// @notice An EOA delegated to `PaceDelegate`, through the EntryPoint.
contract DelegateEntryPointPostConditionTest is PostConditionRedPillCases {
    function _holder() internal view override returns (address) {
        return eoa;
    }

    function _viaEntryPoint() internal pure override returns (bool) {
        return true;
    }

    /// @dev Unused: PDRs reach this holder through the EntryPoint.
    function _directDigest(Pdr memory) internal pure override returns (bytes32) {
        return bytes32(0);
    }

    function _pause() internal override {
        vm.prank(eoa);
        PaceDelegate(payable(eoa)).setPaused(true);
    }
}
