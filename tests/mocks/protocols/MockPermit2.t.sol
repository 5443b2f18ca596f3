// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {Test} from "forge-std/Test.sol";
import {IERC1271} from "@openzeppelin/contracts/interfaces/IERC1271.sol";
import {MockERC20} from "../../../contracts/mocks/MockERC20.sol";
import {MockPermit2} from "../../../contracts/mocks/protocols/MockPermit2.sol";

/// A contract owner that accepts exactly one digest (EIP-1271).
contract Wallet1271 is IERC1271 {
    bytes32 public accepted;

    function accept(bytes32 digest) external {
        accepted = digest;
    }

    function isValidSignature(bytes32 digest, bytes memory) external view returns (bytes4) {
        return digest == accepted ? IERC1271.isValidSignature.selector : bytes4(0xffffffff);
    }
}

contract MockPermit2Test is Test {
    bytes32 internal constant DETAILS_TYPEHASH =
        keccak256("PermitDetails(address token,uint160 amount,uint48 expiration,uint48 nonce)");
    bytes32 internal constant SINGLE_TYPEHASH = keccak256(
        "PermitSingle(PermitDetails details,address spender,uint256 sigDeadline)PermitDetails(address token,uint160 amount,uint48 expiration,uint48 nonce)"
    );
    bytes32 internal constant BATCH_TYPEHASH = keccak256(
        "PermitBatch(PermitDetails[] details,address spender,uint256 sigDeadline)PermitDetails(address token,uint160 amount,uint48 expiration,uint48 nonce)"
    );
    /// The digest the Uniswap Permit2 SDK (npm permit2-sdk 1.4.0) tests expect for an all-zero
    /// PermitSingle with Permit2 at the zero address on chain 1.
    bytes32 internal constant SDK_ZERO_SINGLE_DIGEST =
        0xd47437bffdbc4d123a2165feb6ca646b8700c038622ce304f84e9048bc744f36;

    MockPermit2 internal permit2;
    MockERC20 internal token;
    MockERC20 internal other;
    uint256 internal ownerKey = 0xA11CE;
    address internal owner;
    address internal spender = makeAddr("spender");
    address internal bob = makeAddr("bob");

    function setUp() public {
        vm.warp(1_700_000_000);
        permit2 = new MockPermit2();
        token = new MockERC20("Token", "TKN", 18);
        other = new MockERC20("Other", "OTH", 6);
        owner = vm.addr(ownerKey);
        token.mint(owner, 1000e18);
        other.mint(owner, 1000e6);
        vm.startPrank(owner);
        token.approve(address(permit2), type(uint256).max);
        other.approve(address(permit2), type(uint256).max);
        vm.stopPrank();
    }

    // ------------------------------------------------------------------ helpers

    function _details(address t, uint160 amount, uint48 expiration, uint48 nonce)
        internal
        pure
        returns (MockPermit2.PermitDetails memory)
    {
        return MockPermit2.PermitDetails(t, amount, expiration, nonce);
    }

    function _single(uint160 amount, uint48 expiration, uint48 nonce)
        internal
        view
        returns (MockPermit2.PermitSingle memory)
    {
        return MockPermit2.PermitSingle(
            _details(address(token), amount, expiration, nonce), spender, block.timestamp + 60
        );
    }

    function _hashDetails(MockPermit2.PermitDetails memory d) internal pure returns (bytes32) {
        return keccak256(abi.encode(DETAILS_TYPEHASH, d.token, d.amount, d.expiration, d.nonce));
    }

    function _digestSingle(MockPermit2.PermitSingle memory p) internal view returns (bytes32) {
        bytes32 structHash = keccak256(
            abi.encode(SINGLE_TYPEHASH, _hashDetails(p.details), p.spender, p.sigDeadline)
        );
        return keccak256(abi.encodePacked("\x19\x01", permit2.DOMAIN_SEPARATOR(), structHash));
    }

    function _digestBatch(MockPermit2.PermitBatch memory p) internal view returns (bytes32) {
        bytes32[] memory hashes = new bytes32[](p.details.length);
        for (uint256 i = 0; i < hashes.length; ++i) {
            hashes[i] = _hashDetails(p.details[i]);
        }
        bytes32 structHash = keccak256(
            abi.encode(
                BATCH_TYPEHASH, keccak256(abi.encodePacked(hashes)), p.spender, p.sigDeadline
            )
        );
        return keccak256(abi.encodePacked("\x19\x01", permit2.DOMAIN_SEPARATOR(), structHash));
    }

    function _sign(uint256 key, bytes32 digest) internal pure returns (bytes memory) {
        (uint8 v, bytes32 r, bytes32 s) = vm.sign(key, digest);
        return abi.encodePacked(r, s, v);
    }

    function _allowance(address who, address t, address s)
        internal
        view
        returns (uint160 amount, uint48 expiration, uint48 nonce)
    {
        return permit2.allowance(who, t, s);
    }

    // ------------------------------------------------------------------ domain

    function test_DomainSeparator_IsPermit2s() public {
        bytes32 expected = keccak256(
            abi.encode(
                keccak256("EIP712Domain(string name,uint256 chainId,address verifyingContract)"),
                keccak256("Permit2"),
                block.chainid,
                address(permit2)
            )
        );
        assertEq(permit2.DOMAIN_SEPARATOR(), expected);
        vm.chainId(10);
        assertEq(
            permit2.DOMAIN_SEPARATOR(),
            keccak256(
                abi.encode(
                    keccak256(
                        "EIP712Domain(string name,uint256 chainId,address verifyingContract)"
                    ),
                    keccak256("Permit2"),
                    uint256(10),
                    address(permit2)
                )
            )
        );
    }

    /// The permit digest equals the one Uniswap's Permit2 SDK computes: its code at the zero
    /// address on chain 1 accepts a signature of the SDK's digest of an all-zero permit.
    function test_PermitDigest_MatchesPermit2SdkVector() public {
        vm.etch(address(0), address(permit2).code);
        vm.chainId(1);
        vm.warp(0);
        MockPermit2.PermitSingle memory zero =
            MockPermit2.PermitSingle(_details(address(0), 0, 0, 0), address(0), 0);
        MockPermit2(address(0)).permit(owner, zero, _sign(ownerKey, SDK_ZERO_SINGLE_DIGEST));
        (,, uint48 nonce) = MockPermit2(address(0)).allowance(owner, address(0), address(0));
        assertEq(nonce, 1);
    }

    // ------------------------------------------------------------------ approve

    function test_Approve_SetsAmountAndExpirationKeepsNonce() public {
        vm.prank(owner);
        vm.expectEmit(address(permit2));
        emit MockPermit2.Approval(
            owner, address(token), spender, 5e18, uint48(block.timestamp + 10)
        );
        permit2.approve(address(token), spender, 5e18, uint48(block.timestamp + 10));
        (uint160 amount, uint48 expiration, uint48 nonce) =
            _allowance(owner, address(token), spender);
        assertEq(amount, 5e18);
        assertEq(expiration, block.timestamp + 10);
        assertEq(nonce, 0);
    }

    function test_Approve_ZeroExpirationLastsThisBlockOnly() public {
        vm.prank(owner);
        permit2.approve(address(token), spender, 5e18, 0);
        (, uint48 expiration,) = _allowance(owner, address(token), spender);
        assertEq(expiration, block.timestamp);
        vm.prank(spender);
        permit2.transferFrom(owner, bob, 1e18, address(token));
        vm.warp(block.timestamp + 1);
        vm.prank(spender);
        vm.expectRevert(abi.encodeWithSelector(MockPermit2.AllowanceExpired.selector, expiration));
        permit2.transferFrom(owner, bob, 1e18, address(token));
    }

    // ------------------------------------------------------------------ transferFrom

    function test_TransferFrom_SpendsAllowance() public {
        vm.prank(owner);
        permit2.approve(address(token), spender, 5e18, type(uint48).max);
        vm.prank(spender);
        permit2.transferFrom(owner, bob, 2e18, address(token));
        assertEq(token.balanceOf(bob), 2e18);
        (uint160 amount,,) = _allowance(owner, address(token), spender);
        assertEq(amount, 3e18);
    }

    function test_TransferFrom_MaxAllowanceIsNotSpent() public {
        vm.prank(owner);
        permit2.approve(address(token), spender, type(uint160).max, type(uint48).max);
        vm.prank(spender);
        permit2.transferFrom(owner, bob, 2e18, address(token));
        (uint160 amount,,) = _allowance(owner, address(token), spender);
        assertEq(amount, type(uint160).max);
    }

    function test_RevertWhen_TransferExceedsAllowance() public {
        vm.prank(owner);
        permit2.approve(address(token), spender, 1e18, type(uint48).max);
        vm.prank(spender);
        vm.expectRevert(abi.encodeWithSelector(MockPermit2.InsufficientAllowance.selector, 1e18));
        permit2.transferFrom(owner, bob, 2e18, address(token));
    }

    function test_RevertWhen_NoAllowance() public {
        vm.prank(spender);
        vm.expectRevert(abi.encodeWithSelector(MockPermit2.AllowanceExpired.selector, 0));
        permit2.transferFrom(owner, bob, 1, address(token));
    }

    function test_RevertWhen_TokenTransferFails() public {
        vm.prank(owner);
        permit2.approve(address(token), spender, type(uint160).max, type(uint48).max);
        vm.prank(spender);
        vm.expectRevert(bytes("TRANSFER_FROM_FAILED"));
        permit2.transferFrom(owner, bob, 2000e18, address(token));
    }

    function test_TransferFromBatch_MovesEach() public {
        vm.startPrank(owner);
        permit2.approve(address(token), spender, 5e18, type(uint48).max);
        permit2.approve(address(other), spender, 5e6, type(uint48).max);
        vm.stopPrank();
        MockPermit2.AllowanceTransferDetails[] memory batch =
            new MockPermit2.AllowanceTransferDetails[](2);
        batch[0] = MockPermit2.AllowanceTransferDetails(owner, bob, 1e18, address(token));
        batch[1] = MockPermit2.AllowanceTransferDetails(owner, bob, 2e6, address(other));
        vm.prank(spender);
        permit2.transferFrom(batch);
        assertEq(token.balanceOf(bob), 1e18);
        assertEq(other.balanceOf(bob), 2e6);
    }

    // ------------------------------------------------------------------ permit

    function test_Permit_SetsAllowanceAndUsesNonce() public {
        MockPermit2.PermitSingle memory p = _single(7e18, uint48(block.timestamp + 100), 0);
        bytes memory sig = _sign(ownerKey, _digestSingle(p));
        vm.expectEmit(address(permit2));
        emit MockPermit2.Permit(owner, address(token), spender, 7e18, p.details.expiration, 0);
        permit2.permit(owner, p, sig);
        (uint160 amount, uint48 expiration, uint48 nonce) =
            _allowance(owner, address(token), spender);
        assertEq(amount, 7e18);
        assertEq(expiration, p.details.expiration);
        assertEq(nonce, 1);
        vm.expectRevert(MockPermit2.InvalidNonce.selector);
        permit2.permit(owner, p, sig);
    }

    function test_Permit_AcceptsCompactSignatures() public {
        MockPermit2.PermitSingle memory p = _single(7e18, 0, 0);
        (uint8 v, bytes32 r, bytes32 s) = vm.sign(ownerKey, _digestSingle(p));
        bytes32 vs = bytes32(uint256(s) | (uint256(v - 27) << 255));
        permit2.permit(owner, p, abi.encodePacked(r, vs));
        (, uint48 expiration, uint48 nonce) = _allowance(owner, address(token), spender);
        assertEq(expiration, block.timestamp);
        assertEq(nonce, 1);
    }

    function test_RevertWhen_PermitSignedBySomeoneElse() public {
        MockPermit2.PermitSingle memory p = _single(7e18, 0, 0);
        bytes memory sig = _sign(0xB0B, _digestSingle(p));
        vm.expectRevert(MockPermit2.InvalidSigner.selector);
        permit2.permit(owner, p, sig);
    }

    function test_RevertWhen_PermitPastDeadline() public {
        MockPermit2.PermitSingle memory p = _single(7e18, 0, 0);
        bytes memory sig = _sign(ownerKey, _digestSingle(p));
        vm.warp(p.sigDeadline + 1);
        vm.expectRevert(
            abi.encodeWithSelector(MockPermit2.SignatureExpired.selector, p.sigDeadline)
        );
        permit2.permit(owner, p, sig);
    }

    function test_RevertWhen_SignatureHasWrongLength() public {
        MockPermit2.PermitSingle memory p = _single(7e18, 0, 0);
        vm.expectRevert(MockPermit2.InvalidSignatureLength.selector);
        permit2.permit(owner, p, new bytes(63));
    }

    function test_RevertWhen_SignatureRecoversNobody() public {
        MockPermit2.PermitSingle memory p = _single(7e18, 0, 0);
        vm.expectRevert(MockPermit2.InvalidSignature.selector);
        permit2.permit(owner, p, abi.encodePacked(bytes32(0), bytes32(0), uint8(27)));
    }

    function test_PermitBatch_SetsEachAllowance() public {
        MockPermit2.PermitDetails[] memory details = new MockPermit2.PermitDetails[](2);
        details[0] = _details(address(token), 1e18, type(uint48).max, 0);
        details[1] = _details(address(other), 2e6, type(uint48).max, 0);
        MockPermit2.PermitBatch memory p =
            MockPermit2.PermitBatch(details, spender, block.timestamp + 60);
        permit2.permit(owner, p, _sign(ownerKey, _digestBatch(p)));
        (uint160 a,, uint48 n) = _allowance(owner, address(token), spender);
        (uint160 b,, uint48 m) = _allowance(owner, address(other), spender);
        assertEq(a, 1e18);
        assertEq(b, 2e6);
        assertEq(n + m, 2);
    }

    function test_Permit_ContractOwnerByEip1271() public {
        Wallet1271 wallet = new Wallet1271();
        MockPermit2.PermitSingle memory p = _single(7e18, 0, 0);
        vm.expectRevert(MockPermit2.InvalidContractSignature.selector);
        permit2.permit(address(wallet), p, "");
        wallet.accept(_digestSingle(p));
        permit2.permit(address(wallet), p, "");
        (uint160 amount,,) = _allowance(address(wallet), address(token), spender);
        assertEq(amount, 7e18);
    }

    // ------------------------------------------------------------------ lockdown and nonces

    function test_Lockdown_ZeroesTheAmount() public {
        vm.startPrank(owner);
        permit2.approve(address(token), spender, 5e18, type(uint48).max);
        MockPermit2.TokenSpenderPair[] memory pairs = new MockPermit2.TokenSpenderPair[](1);
        pairs[0] = MockPermit2.TokenSpenderPair(address(token), spender);
        vm.expectEmit(address(permit2));
        emit MockPermit2.Lockdown(owner, address(token), spender);
        permit2.lockdown(pairs);
        vm.stopPrank();
        (uint160 amount, uint48 expiration,) = _allowance(owner, address(token), spender);
        assertEq(amount, 0);
        assertEq(expiration, type(uint48).max);
    }

    function test_InvalidateNonces_VoidsUnusedPermits() public {
        MockPermit2.PermitSingle memory p = _single(7e18, 0, 0);
        bytes memory sig = _sign(ownerKey, _digestSingle(p));
        vm.prank(owner);
        vm.expectEmit(address(permit2));
        emit MockPermit2.NonceInvalidation(owner, address(token), spender, 3, 0);
        permit2.invalidateNonces(address(token), spender, 3);
        vm.expectRevert(MockPermit2.InvalidNonce.selector);
        permit2.permit(owner, p, sig);
    }

    function test_RevertWhen_InvalidateNoncesDoesNotRaise() public {
        vm.startPrank(owner);
        permit2.invalidateNonces(address(token), spender, 3);
        vm.expectRevert(MockPermit2.InvalidNonce.selector);
        permit2.invalidateNonces(address(token), spender, 3);
        vm.expectRevert(MockPermit2.ExcessiveInvalidation.selector);
        permit2.invalidateNonces(address(token), spender, 3 + 65_536);
        vm.stopPrank();
    }
}
