// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {EntryPointFixture, IEntryPointV8} from "./EntryPointFixture.sol";
import {PaceAccount} from "../../contracts/PaceAccount.sol";
import {PaceDelegate} from "../../contracts/PaceDelegate.sol";
import {IPaceAccount} from "../../contracts/interfaces/IPaceAccount.sol";

/// @notice A PDR user operation's gas is paid from the account's EntryPoint deposit (or by a
///         paymaster), never from the account's own ether: the verifier's signature bounds the
///         gas terms, and the bundler names the beneficiary, so a leaked verifier key and a
///         hostile bundler together could otherwise turn nearly all of the account's ether into
///         "gas" under an ether budget whose spend stays 0. Driven through the real EntryPoint
///         v0.8 on both accounts: whatever gas terms the verifier key signs, the account's ether
///         stays, and what the hostile beneficiary collects is bounded by the deposit the owner
///         put there. The owner's own user operations still pay their prefund.
contract PrefundSafetyTest is EntryPointFixture {
    address payable internal hostile = payable(makeAddr("hostile beneficiary"));
    uint256 internal constant FRESH_EOA_KEY = 0xE0AF;

    function setUp() public {
        _deployWorld();
        // An ether budget on both accounts: a PDR's ether outflow would be charged to it.
        vm.prank(owner);
        account.setBudget(address(0), 1 ether, 1 days);
        vm.prank(eoa);
        dlg.setBudget(address(0), 1 ether, 1 days);
    }

    function _holders() internal view returns (address[2] memory) {
        return [address(account), eoa];
    }

    /// @dev A PDR user operation of `h` (a 1 wei DAI transfer, so budgets allow it) under gas
    ///      terms `g`, signed by the verifier key after the terms are set.
    function _hostileOp(address h, Gas memory g)
        internal
        view
        returns (IPaceAccount.PackedUserOperation memory op)
    {
        Pdr memory p = _transferPdr(1, _termsAt(0, uint64(ep.getNonce(h, 0))));
        op = _pdrOpUnsigned(h, p);
        _setGas(op, g);
        _signPdrOp(op, p, VERIFIER_KEY);
    }

    /// @dev Gas terms whose prefund, `(limits + preVerificationGas) * maxFeePerGas`, is
    ///      `prefund` (rounded down), at 1,000 gwei.
    function _gasFor(uint256 prefund) internal pure returns (Gas memory g) {
        g = _defaultGas();
        g.maxFeePerGas = 1000 gwei;
        g.maxPriorityFeePerGas = 1000 gwei;
        uint256 units = prefund / 1000 gwei;
        g.preVerificationGas = units - g.verificationGasLimit - g.callGasLimit;
    }

    /// @dev The hostile bundler submits `op`, naming its own beneficiary; whether it landed.
    function _submitHostile(IPaceAccount.PackedUserOperation memory op) internal returns (bool) {
        vm.prank(bundler, bundler);
        try ep.handleOps(_ops(op), hostile) {
            return true;
        } catch {
            return false;
        }
    }

    /// @dev A standalone account and a delegated EOA set up like the fixture's, each holding
    ///      10 ether, with no EntryPoint deposit.
    function _freshHolders() internal returns (address[2] memory h) {
        PaceAccount fresh = new PaceAccount(owner, verifierAddr);
        vm.signAndAttachDelegation(address(delegateImpl), FRESH_EOA_KEY);
        address freshEoa = vm.addr(FRESH_EOA_KEY);
        vm.prank(freshEoa);
        PaceDelegate(payable(freshEoa)).setUp(_setup(verifierAddr, 1), "");
        h = [address(fresh), freshEoa];
        for (uint256 i; i < 2; ++i) {
            dai.mint(h[i], 10 ether);
            vm.deal(h[i], 10 ether);
        }
    }

    /// The verifier key signs gas terms whose prefund (15 ether) exceeds the deposit (10
    /// ether): the account would have to pay the rest from its ether. Refused in validation
    /// (AA21): nothing leaves the account, the deposit stays, the hostile beneficiary gets
    /// nothing, the ether budget is untouched.
    function test_RevertWhen_APdrUserOpsPrefundExceedsTheDeposit() public {
        for (uint256 i; i < 2; ++i) {
            address h = _holders()[i];
            uint256 eth = h.balance;
            uint256 deposit = ep.balanceOf(h);
            IPaceAccount.PackedUserOperation memory op = _hostileOp(h, _gasFor(deposit + 5 ether));
            vm.expectRevert(
                abi.encodeWithSelector(
                    IEntryPointV8.FailedOp.selector, 0, "AA21 didn't pay prefund"
                )
            );
            vm.prank(bundler, bundler);
            ep.handleOps(_ops(op), hostile);
            assertEq(h.balance, eth, "the account's ether");
            assertEq(ep.balanceOf(h), deposit, "the deposit");
            assertEq(hostile.balance, 0, "the beneficiary");
            (,,, uint128 spent) = IPaceAccount(h).budget(address(0));
            assertEq(spent, 0);
        }
    }

    /// Without any deposit, a PDR user operation does not run at all: the account's ether never
    /// pays a PDR's gas, even gas terms a bundler would honestly charge.
    function test_RevertWhen_APdrUserOpHasNoDeposit() public {
        address[2] memory h = _freshHolders();
        for (uint256 i; i < 2; ++i) {
            IPaceAccount.PackedUserOperation memory op =
                _pdrOp(h[i], _transferPdr(1 ether, _termsAt(0, 0)));
            _expectFailedOp(op, "AA21 didn't pay prefund");
            assertEq(h[i].balance, 10 ether);
            assertEq(dai.balanceOf(h[i]), 10 ether);
        }
    }

    /// Gas terms the deposit covers: the operation runs, the hostile beneficiary is paid from
    /// the deposit only, at most all of it; the account's ether does not move.
    function test_TheDepositIsTheMostAPdrUserOpCanBurn() public {
        for (uint256 i; i < 2; ++i) {
            address h = _holders()[i];
            uint256 eth = h.balance;
            uint256 deposit = ep.balanceOf(h);
            uint256 paid = hostile.balance;
            (bool ok,) = _handleRecordedTo(_hostileOp(h, _gasFor(deposit)), hostile);
            assertTrue(ok, "executed");
            assertEq(h.balance, eth, "the account's ether");
            assertGt(hostile.balance - paid, deposit / 2, "the beneficiary was paid");
            assertEq(deposit - ep.balanceOf(h), hostile.balance - paid, "from the deposit");
        }
    }

    /// Any gas terms and fees the verifier key signs, any beneficiary: the account's ether never
    /// falls, and the beneficiary collects at most the deposit.
    function testFuzz_HostileGasTermsMoveNoEtherOutOfTheAccount(
        uint128 verificationGasLimit,
        uint128 callGasLimit,
        uint256 preVerificationGas,
        uint128 maxFeePerGas,
        uint128 maxPriorityFeePerGas,
        bool isEoa
    ) public {
        address h = isEoa ? eoa : address(account);
        Gas memory g;
        g.verificationGasLimit = uint128(bound(verificationGasLimit, 100_000, 5_000_000));
        g.callGasLimit = uint128(bound(callGasLimit, 0, 5_000_000));
        g.preVerificationGas = bound(preVerificationGas, 0, 30_000_000);
        g.maxFeePerGas = uint128(bound(maxFeePerGas, 0, 10_000 gwei));
        g.maxPriorityFeePerGas = uint128(bound(maxPriorityFeePerGas, 0, 10_000 gwei));
        uint256 eth = h.balance;
        uint256 deposit = ep.balanceOf(h);
        _submitHostile(_hostileOp(h, g));
        assertEq(h.balance, eth, "the account's ether");
        assertLe(hostile.balance, deposit, "at most the deposit");
        assertEq(deposit - ep.balanceOf(h), hostile.balance, "from the deposit");
    }

    /// The owner's own user operation may still pay its prefund from the account's ether: the
    /// owner's key signed its gas terms.
    function test_AnOwnerOperationStillPaysItsPrefund() public {
        address[2] memory h = _freshHolders();
        uint256[2] memory keys = [OWNER_KEY, FRESH_EOA_KEY];
        for (uint256 i; i < 2; ++i) {
            IPaceAccount.PackedUserOperation memory op = _ownerOp(
                h[i],
                ep.getNonce(h[i], OWNER_NONCE_KEY),
                abi.encodeCall(IPaceAccount.setPaused, (true)),
                keys[i]
            );
            (bool ok,) = _handleRecorded(op);
            assertTrue(ok);
            assertTrue(IPaceAccount(h[i]).paused());
            assertLt(h[i].balance, 10 ether, "the account paid its own gas");
        }
    }
}
