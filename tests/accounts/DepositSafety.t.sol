// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {EntryPointFixture} from "./EntryPointFixture.sol";
import {AcceptingPaymaster} from "./AcceptingPaymaster.sol";
import {IPaceAccount} from "../../contracts/interfaces/IPaceAccount.sol";

/// @notice A bundler cannot spend the account's EntryPoint deposit beyond what the verifier
///         signed: the PDR's domain is salted with the user operation's hash, which binds every
///         gas limit, both fees and the paymaster. Inflating any of them, or swapping, adding or
///         removing a paymaster, fails validation (AA24): `handleOps` reverts, the deposit, the
///         account's ETH and the paymaster's deposit are untouched.
contract DepositSafetyTest is EntryPointFixture {
    AcceptingPaymaster internal paymaster;
    AcceptingPaymaster internal otherPaymaster;

    function setUp() public {
        _deployWorld();
        paymaster = new AcceptingPaymaster();
        otherPaymaster = new AcceptingPaymaster();
        vm.deal(address(this), 10 ether);
        ep.depositTo{value: 1 ether}(address(account));
        ep.depositTo{value: 1 ether}(eoa);
        ep.depositTo{value: 1 ether}(address(paymaster));
        ep.depositTo{value: 1 ether}(address(otherPaymaster));
    }

    function _holders() internal view returns (address[2] memory) {
        return [address(account), eoa];
    }

    function _paymasterAndData(address pm) internal pure returns (bytes memory) {
        return abi.encodePacked(pm, uint128(100_000), uint128(50_000));
    }

    /// @dev The signed operation of `h`, optionally sponsored by `pm`.
    function _signed(address h, address pm)
        internal
        view
        returns (IPaceAccount.PackedUserOperation memory op, Pdr memory p)
    {
        p = _transferPdr(1 ether, _termsAt(0, uint64(ep.getNonce(h, 0))));
        op = _pdrOpUnsigned(h, p);
        if (pm != address(0)) op.paymasterAndData = _paymasterAndData(pm);
        _signPdrOp(op, p, VERIFIER_KEY);
    }

    /// @dev What the bundler changes: field `f` of `op`, after signing.
    function _tamper(IPaceAccount.PackedUserOperation memory op, uint256 f) internal view {
        Gas memory g = _defaultGas();
        if (f == 0) g.verificationGasLimit *= 10;
        else if (f == 1) g.callGasLimit *= 10;
        else if (f == 2) g.preVerificationGas *= 10;
        else if (f == 3) g.maxFeePerGas *= 100;
        else if (f == 4) g.maxPriorityFeePerGas *= 2;
        if (f <= 4) {
            _setGas(op, g);
        } else if (f == 5) {
            op.paymasterAndData = _paymasterAndData(address(otherPaymaster));
        } else if (f == 6) {
            op.paymasterAndData = _paymasterAndData(address(paymaster));
        } else {
            op.paymasterAndData = "";
        }
    }

    function _assertRefused(address h, IPaceAccount.PackedUserOperation memory op) internal {
        uint256 deposit = ep.balanceOf(h);
        uint256 eth = h.balance;
        uint256[2] memory pms =
            [ep.balanceOf(address(paymaster)), ep.balanceOf(address(otherPaymaster))];
        uint256 daiBefore = dai.balanceOf(h);
        _expectFailedOp(op, "AA24 signature error");
        assertEq(ep.balanceOf(h), deposit, "deposit");
        assertEq(h.balance, eth, "eth");
        assertEq(ep.balanceOf(address(paymaster)), pms[0], "paymaster");
        assertEq(ep.balanceOf(address(otherPaymaster)), pms[1], "other paymaster");
        assertEq(dai.balanceOf(h), daiBefore, "dai");
    }

    /// Each gas limit and fee inflated, a paymaster added: refused.
    function test_RefusedWhen_TheBundlerInflatesAGasFieldOrAddsAPaymaster() public {
        for (uint256 i; i < 2; ++i) {
            address h = _holders()[i];
            for (uint256 f; f < 7; ++f) {
                (IPaceAccount.PackedUserOperation memory op,) = _signed(h, address(0));
                _tamper(op, f);
                _assertRefused(h, op);
            }
        }
    }

    /// A sponsored PDR: another paymaster swapped in, or the paymaster removed (the account's
    /// deposit would pay), and any gas field inflated: refused.
    function test_RefusedWhen_TheBundlerSwapsOrDropsThePaymaster() public {
        for (uint256 i; i < 2; ++i) {
            address h = _holders()[i];
            uint256[6] memory fs = [uint256(0), 1, 2, 3, 5, 7];
            for (uint256 k; k < fs.length; ++k) {
                (IPaceAccount.PackedUserOperation memory op,) = _signed(h, address(paymaster));
                _tamper(op, fs[k]);
                _assertRefused(h, op);
            }
        }
    }

    /// The untampered operations execute: the deposit pays for the unsponsored one, the
    /// paymaster for the sponsored one.
    function test_TheSignedOperationsExecute() public {
        for (uint256 i; i < 2; ++i) {
            address h = _holders()[i];
            uint256 deposit = ep.balanceOf(h);
            (IPaceAccount.PackedUserOperation memory op,) = _signed(h, address(0));
            (bool ok,) = _handleRecorded(op);
            assertTrue(ok);
            assertLt(ep.balanceOf(h), deposit, "the deposit paid");
            deposit = ep.balanceOf(h);
            uint256 pm = ep.balanceOf(address(paymaster));
            (op,) = _signed(h, address(paymaster));
            (ok,) = _handleRecorded(op);
            assertTrue(ok);
            assertEq(ep.balanceOf(h), deposit, "the paymaster paid");
            assertLt(ep.balanceOf(address(paymaster)), pm);
        }
    }

    /// Fuzzed: any change of the gas words or the paymaster is refused.
    function testFuzz_RefusedWhen_AnyGasWordChanges(
        bytes32 accountGasLimits,
        uint256 preVerificationGas,
        bytes32 gasFees,
        bool isEoa
    ) public {
        address h = isEoa ? eoa : address(account);
        (IPaceAccount.PackedUserOperation memory op,) = _signed(h, address(0));
        vm.assume(
            accountGasLimits != op.accountGasLimits || preVerificationGas != op.preVerificationGas
                || gasFees != op.gasFees
        );
        // Keep within the EntryPoint's own overflow check (AA94) so validation runs.
        accountGasLimits = bytes32(uint256(accountGasLimits) & ((uint256(1) << 128 | 1) * 0xffffff));
        preVerificationGas = bound(preVerificationGas, 0, 10_000_000);
        gasFees = bytes32(uint256(gasFees) & ((uint256(1) << 128 | 1) * 0xffffffffff));
        vm.assume(
            accountGasLimits != op.accountGasLimits || preVerificationGas != op.preVerificationGas
                || gasFees != op.gasFees
        );
        op.accountGasLimits = accountGasLimits;
        op.preVerificationGas = preVerificationGas;
        op.gasFees = gasFees;
        // Whatever the EntryPoint then says (a signature error, or its own refusal of the gas
        // values first), nothing executes and nothing is paid.
        uint256 deposit = ep.balanceOf(h);
        uint256 daiBefore = dai.balanceOf(h);
        vm.prank(bundler, bundler);
        try ep.handleOps(_ops(op), beneficiary) {
            fail();
        } catch {}
        assertEq(ep.balanceOf(h), deposit);
        assertEq(dai.balanceOf(h), daiBefore);
    }
}
