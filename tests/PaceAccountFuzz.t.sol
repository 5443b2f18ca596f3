// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {DefiFixture} from "./utils/DefiFixture.sol";
import {IPaceAccount} from "../contracts/interfaces/IPaceAccount.sol";
import {OutcomeBounds} from "../contracts/libraries/OutcomeBounds.sol";
import {MockERC20} from "../contracts/mocks/MockERC20.sol";
import {MockERC721} from "../contracts/mocks/MockERC721.sol";
import {MockERC1155} from "../contracts/mocks/MockERC1155.sol";

/// @notice Mutation fuzzing: a signed PDR with any single signed field changed (a call's, a
///         bound's of any kind, a held asset, the attestation, the terms), an entry added or
///         dropped, or any calldata byte flipped, must not execute, and must leave the nonce
///         unconsumed.
contract PaceAccountFuzzTest is DefiFixture {
    IPaceAccount.Call[] internal calls;
    IPaceAccount.Bound[] internal bounds;
    address[] internal held;
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
        // One bound of every other kind: an NFT and an ERC-1155 id the account keeps, and the
        // pair's WETH, which the swap pays in.
        MockERC721 nft = new MockERC721();
        MockERC1155 multi = new MockERC1155();
        nft.mint(address(account), 1);
        multi.mint(address(account), 5, 10);
        bounds.push(IPaceAccount.Bound(address(nft), OutcomeBounds.ERC721, 1, 0, 0, 0));
        bounds.push(IPaceAccount.Bound(address(multi), OutcomeBounds.ERC1155, 5, 0, 0, 0));
        address pair = router.getPair(address(weth), address(dai));
        bounds.push(
            IPaceAccount.Bound(
                address(weth), OutcomeBounds.HOLDING, uint160(pair), 0, 3 ether, 3 ether
            )
        );
        MockERC20 usdc = new MockERC20("USD Coin", "USDC", 6);
        usdc.mint(address(account), 1000e6);
        held.push(address(usdc));
        held.push(address(dai));
        terms = _pack(_terms());
        att = _attestation(42);
        (r, vs) = _sign(calls, bounds, held, att, terms);
    }

    function _submit() internal {
        account.executeBatchPDR(calls, bounds, held, _noChecks(), att, terms, r, vs);
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

    /// Any field of any bound, each kind included, to any other value.
    function testFuzz_RevertWhen_BoundChanged(uint256 boundIndex, uint256 field, uint256 noise)
        public
    {
        boundIndex = bound(boundIndex, 0, bounds.length - 1);
        noise = bound(noise, 1, type(uint256).max);
        IPaceAccount.Bound storage b = bounds[boundIndex];
        field %= 6;
        if (field == 0) {
            // forge-lint: disable-next-line(unsafe-typecast)
            b.token = address(uint160(b.token) ^ uint160(noise % type(uint160).max + 1));
        } else if (field == 1) {
            // forge-lint: disable-next-line(unsafe-typecast)
            b.kind ^= uint8(noise % type(uint8).max + 1);
        } else if (field == 2) {
            b.id ^= noise;
        } else if (field == 3) {
            b.maxOut ^= noise;
        } else if (field == 4) {
            b.minIn ^= noise;
        } else {
            b.maxIn ^= noise;
        }
        vm.expectPartialRevert(IPaceAccount.PaceAccountInvalidSigner.selector);
        _submit();
    }

    function testFuzz_RevertWhen_HeldChanged(uint256 index, uint160 noise) public {
        index = bound(index, 0, held.length - 1);
        vm.assume(noise != 0);
        held[index] = address(uint160(held[index]) ^ noise);
        vm.expectPartialRevert(IPaceAccount.PaceAccountInvalidSigner.selector);
        _submit();
    }

    /// A bound or a held asset added (at any position) or dropped (any one), or two swapped.
    function testFuzz_RevertWhen_BoundsOrHeldAddedDroppedOrSwapped(
        uint256 how,
        uint256 index,
        address token
    ) public {
        how %= 6;
        if (how == 0) {
            bounds.push(_balanceBound(token, 0, 0));
            _moveLastTo(index);
        } else if (how == 1) {
            _dropBound(bound(index, 0, bounds.length - 1));
        } else if (how == 2) {
            held.push(token);
            index = bound(index, 0, held.length - 1);
            (held[index], held[held.length - 1]) = (held[held.length - 1], held[index]);
        } else if (how == 3) {
            index = bound(index, 0, held.length - 1);
            held[index] = held[held.length - 1];
            held.pop();
        } else if (how == 4) {
            index = bound(index, 1, bounds.length - 1);
            (bounds[0], bounds[index]) = (bounds[index], bounds[0]);
        } else {
            (held[0], held[1]) = (held[1], held[0]);
        }
        vm.expectPartialRevert(IPaceAccount.PaceAccountInvalidSigner.selector);
        _submit();
    }

    /// The account hashes the words as sent: an address or a kind with high bits set (which no
    /// EIP-712 encoder produces) is a digest the verifier never signed, on every bound and held
    /// word, even where the account would read the same low bits.
    function testFuzz_RevertWhen_AWordIsNotCanonical(uint256 which, uint8 dirt) public {
        vm.assume(dirt != 0);
        bytes memory cd = abi.encodeCall(
            account.executeBatchPDR, (calls, bounds, held, _noChecks(), att, terms, r, vs)
        );
        // Head: 4-byte selector, then the offsets of calls, bounds and held.
        uint256 boundsAt = 4 + uint256(bytes32(_slice(cd, 4 + 32))) + 32;
        uint256 heldAt = 4 + uint256(bytes32(_slice(cd, 4 + 64))) + 32;
        which %= bounds.length * 2 + held.length;
        uint256 at; // the first byte of the word to dirty
        if (which < bounds.length * 2) {
            // A bound's token word or its kind word.
            at = boundsAt + (which / 2) * 0xc0 + (which % 2) * 0x20;
        } else {
            at = heldAt + (which - bounds.length * 2) * 0x20;
        }
        cd[at] = bytes1(dirt);
        (bool ok, bytes memory ret) = address(account).call(cd);
        assertFalse(ok);
        assertEq(bytes4(ret), IPaceAccount.PaceAccountInvalidSigner.selector);
        assertEq(account.nextSequence(0), 0);
    }

    function _slice(bytes memory b, uint256 at) internal pure returns (bytes32 w) {
        assembly ("memory-safe") {
            w := mload(add(add(b, 0x20), at))
        }
    }

    function _moveLastTo(uint256 index) internal {
        index = bound(index, 0, bounds.length - 1);
        (bounds[index], bounds[bounds.length - 1]) = (bounds[bounds.length - 1], bounds[index]);
    }

    function _dropBound(uint256 index) internal {
        bounds[index] = bounds[bounds.length - 1];
        bounds.pop();
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
