// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {DefiFixture} from "./utils/DefiFixture.sol";
import {IPaceAccount} from "../contracts/interfaces/IPaceAccount.sol";

/// @notice Mutation fuzzing: a signed PDR with any single signed field changed, or any calldata
///         byte flipped, must not execute, and must leave the nonce unconsumed.
contract PaceAccountFuzzTest is DefiFixture {
    IPaceAccount.Call[] internal calls;
    IPaceAccount.Bound[] internal bounds;
    bytes32 internal att;
    uint256 internal terms;
    bytes32 internal r;
    bytes32 internal vs;

    function setUp() public {
        _deployDefi();
        calls.push(IPaceAccount.Call(address(weth), 0, _approveData(3 ether)));
        calls.push(IPaceAccount.Call(address(router), 0, _swapData(3 ether, 0)));
        calls.push(IPaceAccount.Call(recipient, 0.5 ether, ""));
        bounds.push(_balanceBound(address(weth), 3 ether, 0));
        bounds.push(_balanceBound(address(dai), 0, 1000 ether));
        bounds.push(_balanceBound(address(0), 0.5 ether, 0));
        terms = _pack(_terms());
        att = _attestation(42);
        (r, vs) = _sign(calls, bounds, att, terms);
    }

    function _submit() internal {
        account.executeBatchPDR(calls, bounds, _noHeld(), att, terms, r, vs);
    }

    function test_UnmutatedRecordExecutes() public {
        _submit();
        assertEq(account.nextSequence(0), 1);
    }

    function testFuzz_RevertWhen_CalldataByteFlipped(
        uint256 callIndex,
        uint256 byteIndex,
        uint8 mask
    ) public {
        mask = uint8(bound(mask, 1, 255));
        callIndex = bound(callIndex, 0, 1); // the calls that carry data
        bytes memory data = calls[callIndex].data;
        byteIndex = bound(byteIndex, 0, data.length - 1);
        data[byteIndex] = data[byteIndex] ^ bytes1(mask);
        calls[callIndex].data = data;
        vm.expectPartialRevert(IPaceAccount.PaceAccountInvalidSigner.selector);
        _submit();
    }

    function testFuzz_RevertWhen_CalldataExtendedOrTruncated(uint256 callIndex, bool extend)
        public
    {
        callIndex = bound(callIndex, 0, 2);
        bytes memory data = calls[callIndex].data;
        if (extend || data.length == 0) {
            calls[callIndex].data = bytes.concat(data, hex"00");
        } else {
            assembly {
                mstore(data, sub(mload(data), 1))
            }
            calls[callIndex].data = data;
        }
        vm.expectPartialRevert(IPaceAccount.PaceAccountInvalidSigner.selector);
        _submit();
    }

    function testFuzz_RevertWhen_CallFieldChanged(uint256 callIndex, uint256 field, uint256 noise)
        public
    {
        callIndex = bound(callIndex, 0, 2);
        noise = bound(noise, 1, type(uint160).max);
        if (field % 2 == 0) {
            // forge-lint: disable-next-line(unsafe-typecast)
            calls[callIndex].target = address(uint160(calls[callIndex].target) ^ uint160(noise));
        } else {
            calls[callIndex].value ^= noise;
        }
        vm.expectPartialRevert(IPaceAccount.PaceAccountInvalidSigner.selector);
        _submit();
    }

    function testFuzz_RevertWhen_BoundChanged(uint256 boundIndex, uint256 field, uint256 noise)
        public
    {
        boundIndex = bound(boundIndex, 0, 2);
        noise = bound(noise, 1, type(uint160).max);
        IPaceAccount.Bound storage b = bounds[boundIndex];
        // forge-lint: disable-next-line(unsafe-typecast)
        if (field % 3 == 0) b.token = address(uint160(b.token) ^ uint160(noise));
        else if (field % 3 == 1) b.maxOut ^= noise;
        else b.minIn ^= noise;
        vm.expectPartialRevert(IPaceAccount.PaceAccountInvalidSigner.selector);
        _submit();
    }

    function testFuzz_RevertWhen_AttestationChanged(bytes32 noise) public {
        vm.assume(noise != bytes32(0));
        att ^= noise;
        vm.expectPartialRevert(IPaceAccount.PaceAccountInvalidSigner.selector);
        _submit();
    }

    /// Any bit of the packed terms: a changed window or freshness field may trip its own check
    /// first, a changed nonce its own, but nothing executes.
    function testFuzz_RevertWhen_TermsChanged(uint8 bit) public {
        terms ^= uint256(1) << bit;
        vm.expectRevert();
        _submit();
        assertEq(account.nextSequence(0), 0);
    }

    function testFuzz_RevertWhen_SignatureChanged(bytes32 noise, bool onR) public {
        vm.assume(noise != bytes32(0));
        if (onR) r ^= noise;
        else vs ^= noise;
        vm.expectRevert();
        _submit();
        assertEq(account.nextSequence(0), 0);
    }

    function testFuzz_RevertWhen_CallsDroppedOrAdded(bool add) public {
        if (add) calls.push(IPaceAccount.Call(recipient, 0, ""));
        else calls.pop();
        vm.expectPartialRevert(IPaceAccount.PaceAccountInvalidSigner.selector);
        _submit();
    }

    function testFuzz_RevertWhen_SubmittedOutsideWindow(uint256 dt) public {
        dt = bound(dt, 3601, 365 days);
        vm.warp(block.timestamp + dt);
        vm.expectPartialRevert(IPaceAccount.PaceAccountExpired.selector);
        _submit();
    }
}
