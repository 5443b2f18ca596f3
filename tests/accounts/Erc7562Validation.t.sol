// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {EntryPointFixture} from "./EntryPointFixture.sol";
import {TimestampReadingAccount, SelfBalanceReadingAccount} from "./ProbingAccounts.sol";
import {IPaceAccount} from "../../contracts/interfaces/IPaceAccount.sol";
import {Vm} from "forge-std/Vm.sol";

/// @notice ERC-7562 on both accounts' `validateUserOp`, read off the real opcode trace
///         (`vm.startDebugTraceRecording`) of the validation frame, for every kind of outcome:
///         no banned opcode for an unstaked account (TIMESTAMP, NUMBER, BALANCE, SELFBALANCE,
///         GASPRICE, ORIGIN, BLOCKHASH, COINBASE, PREVRANDAO, GASLIMIT, BASEFEE, BLOB*, CREATE,
///         CREATE2, INVALID, SELFDESTRUCT), GAS only right before a call, calls only to the
///         ecrecover precompile and the EntryPoint, value only to the EntryPoint. A probe account
///         on the same core that reads TIMESTAMP (or SELFBALANCE) shows the scan fails.
/// @dev    The trace needs forge's tracer: run this suite with `-vvv` (or
///         `FOUNDRY_VERBOSITY=3`); without it `setUp` fails, saying so.
contract Erc7562ValidationTest is EntryPointFixture {
    function setUp() public {
        _deployWorld();
        try vm.startDebugTraceRecording() {
            vm.stopAndReturnDebugTraceRecording();
        } catch {
            revert("the ERC-7562 scan reads the opcode trace: run this suite with -vvv");
        }
    }

    function _holders() internal view returns (address[2] memory) {
        return [address(account), eoa];
    }

    function _good(address h) internal view returns (Pdr memory p) {
        p = _richPdr(h, 1 ether, _termsAt(0, uint64(ep.getNonce(h, 0))));
    }

    /*//////////////////////////////////////////////////////////////
                                ERC-7562
    //////////////////////////////////////////////////////////////*/

    /// @dev The ERC-7562 opcodes an unstaked account's validation may not use ([OP-011],
    ///      [OP-031], [OP-080] for BALANCE and SELFBALANCE), GAS handled apart ([OP-012]).
    function _banned(uint8 op) internal pure returns (bool) {
        return op == 0x31 // BALANCE
            || op == 0x32 // ORIGIN
            || op == 0x3a // GASPRICE
            || op == 0x40 // BLOCKHASH
            || op == 0x41 // COINBASE
            || op == 0x42 // TIMESTAMP
            || op == 0x43 // NUMBER
            || op == 0x44 // PREVRANDAO
            || op == 0x45 // GASLIMIT
            || op == 0x47 // SELFBALANCE
            || op == 0x48 // BASEFEE
            || op == 0x49 // BLOBHASH
            || op == 0x4a // BLOBBASEFEE
            || op == 0xf0 // CREATE
            || op == 0xf5 // CREATE2
            || op == 0xfe // INVALID
            || op == 0xff; // SELFDESTRUCT
    }

    function _isCall(uint8 op) internal pure returns (bool) {
        return op == 0xf1 || op == 0xf2 || op == 0xf4 || op == 0xfa;
    }

    /// @dev Runs `h.validateUserOp(op, hash, missing)` as the EntryPoint under a debug trace and
    ///      returns every breach of the rules in `h`'s frame, one opcode (or rule tag) a byte:
    ///      a banned opcode; 0x5a for a GAS not followed by a call; 0xc0 for a call to anything
    ///      but the ecrecover precompile and the EntryPoint; 0xc1 for a value call elsewhere
    ///      than the EntryPoint. Also returns the number of steps traced in `h`'s frame.
    function _scan(address h, IPaceAccount.PackedUserOperation memory op, uint256 missing)
        internal
        returns (bytes memory breaches, uint256 steps, uint256 result)
    {
        bytes32 hash = ep.getUserOpHash(op);
        vm.startDebugTraceRecording();
        vm.prank(ENTRY_POINT);
        result = IPaceAccount(h).validateUserOp(op, hash, missing);
        Vm.DebugStep[] memory trace = vm.stopAndReturnDebugTraceRecording();
        for (uint256 i; i < trace.length; ++i) {
            Vm.DebugStep memory s = trace[i];
            if (s.contractAddr != h) continue;
            ++steps;
            if (_banned(s.opcode)) breaches = bytes.concat(breaches, bytes1(s.opcode));
            if (s.opcode == 0x5a) {
                bool next = i + 1 < trace.length && _isCall(trace[i + 1].opcode)
                    && trace[i + 1].depth == s.depth;
                if (!next) breaches = bytes.concat(breaches, bytes1(0x5a));
            }
            if (_isCall(s.opcode)) {
                address to = address(uint160(s.stack[1]));
                if (to != address(1) && to != ENTRY_POINT) {
                    breaches = bytes.concat(breaches, bytes1(0xc0));
                }
                if ((s.opcode == 0xf1 || s.opcode == 0xf2) && s.stack[2] != 0 && to != ENTRY_POINT)
                {
                    breaches = bytes.concat(breaches, bytes1(0xc1));
                }
            }
        }
    }

    /// @dev Scans op `j` of `_opsToScan` on both accounts (one with a prefund to pay).
    function _scanBoth(uint256 j) internal {
        for (uint256 i; i < 2; ++i) {
            address h = _holders()[i];
            uint256 missing = (i + j) % 2 == 0 ? 0 : 1 gwei;
            (bytes memory breaches, uint256 steps,) = _scan(h, _opsToScan(h)[j], missing);
            assertGt(steps, 50, "traced");
            assertEq(breaches, "", vm.toString(h));
        }
    }

    function test_AGoodPdrKeepsToErc7562() public {
        _scanBoth(0);
    }

    function test_AWrongSignerKeepsToErc7562() public {
        _scanBoth(1);
    }

    function test_AMalformedBatchKeepsToErc7562() public {
        _scanBoth(2);
    }

    function test_AnOwnerOperationKeepsToErc7562() public {
        _scanBoth(3);
    }

    function test_AZeroOwnerSignatureKeepsToErc7562() public {
        _scanBoth(4);
    }

    function test_APausedAccountKeepsToErc7562() public {
        vm.prank(owner);
        account.setPaused(true);
        vm.prank(eoa);
        dlg.setPaused(true);
        _scanBoth(0);
    }

    function _opsToScan(address h)
        internal
        view
        returns (IPaceAccount.PackedUserOperation[] memory ops)
    {
        Pdr memory p = _good(h);
        ops = new IPaceAccount.PackedUserOperation[](5);
        ops[0] = _pdrOp(h, p);
        ops[1] = _pdrOpUnsigned(h, p);
        _signPdrOp(ops[1], p, OTHER_KEY);
        ops[2] = _pdrOp(h, p);
        // The bounds' length claims more than the call data holds.
        ops[2].callData =
            bytes.concat(EXECUTE_USER_OP_PDR, abi.encode(0x80, 0x80, 0x80, p.terms, 1 << 20));
        ops[3] = _ownerOp(
            h,
            ep.getNonce(h, 1 << 40),
            abi.encodeCall(IPaceAccount.setPaused, (true)),
            h == eoa ? EOA_KEY : OWNER_KEY
        );
        ops[4] = _pdrOp(h, p);
        ops[4].signature = new bytes(65);
    }

    /// The scan can fail: an account on the same core whose validation also reads TIMESTAMP
    /// (or SELFBALANCE) is caught, though it validates the same good PDR.
    function test_TheScanCatchesABannedOpcode() public {
        address[2] memory probes = [
            address(new TimestampReadingAccount(verifierAddr)),
            address(new SelfBalanceReadingAccount(verifierAddr))
        ];
        bytes1[2] memory expected = [bytes1(0x42), bytes1(0x47)];
        for (uint256 i; i < 2; ++i) {
            address probe = probes[i];
            Pdr memory p = _richPdr(probe, 1 ether, _termsAt(0, 0));
            (bytes memory breaches,, uint256 result) = _scan(probe, _pdrOp(probe, p), 0);
            assertEq(result, _window(p.terms), "still validates");
            assertEq(breaches, bytes.concat(expected[i]));
        }
    }
}
