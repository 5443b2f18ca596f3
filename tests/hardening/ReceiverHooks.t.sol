// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {HardeningBase} from "./HardeningBase.sol";
import {HookedERC721, HookedERC1155, NftVendor} from "./HardeningMocks.sol";
import {IPaceAccount} from "../../contracts/interfaces/IPaceAccount.sol";

/// @notice Receiver hooks: the account accepts ERC-721 and ERC-1155 safe transfers, from anyone
///         and also while the lock is held (a PDR buying an NFT: the seller's safe transfer calls
///         back into the account in the middle of the PDR's call). The hooks are pure, so no
///         state can be reached through them.
contract ReceiverHooksTest is HardeningBase {
    HookedERC721 internal nft;
    HookedERC1155 internal multi;
    NftVendor internal vendor;
    address internal holder = makeAddr("holder");

    function setUp() public {
        _deployDefi();
        nft = new HookedERC721();
        multi = new HookedERC1155();
        vendor = new NftVendor(nft, multi);
        nft.mint(holder, 1);
        multi.mint(holder, 10, 5);
        multi.mint(holder, 11, 5);
        nft.mint(address(vendor), 2);
        multi.mint(address(vendor), 20, 3);
        multi.mint(address(vendor), 21, 3);
    }

    function test_SafeTransfersToTheAccountArrive() public {
        vm.startPrank(holder);
        nft.safeTransferFrom(holder, address(account), 1, "data");
        multi.safeTransferFrom(holder, address(account), 10, 2, "data");
        uint256[] memory ids = new uint256[](2);
        uint256[] memory values = new uint256[](2);
        (ids[0], ids[1], values[0], values[1]) = (10, 11, 3, 5);
        multi.safeBatchTransferFrom(holder, address(account), ids, values, "");
        vm.stopPrank();
        assertEq(nft.ownerOf(1), address(account));
        assertEq(multi.balanceOf(address(account), 10), 5);
        assertEq(multi.balanceOf(address(account), 11), 5);
    }

    /// The vendor safe-transfers inside the PDR's call, while the account holds its lock; the
    /// PDR's ERC-721 and ERC-1155 bounds then see the items arrive.
    function test_SafeTransfersArriveWhileAPdrHoldsTheLock() public {
        IPaceAccount.Call[] memory calls =
            _one(address(vendor), 0, abi.encodeCall(vendor.deliver, (2, 20, 3)));
        IPaceAccount.Bound[] memory bounds = new IPaceAccount.Bound[](3);
        bounds[0] = IPaceAccount.Bound(address(nft), 1, 2, 0, 1, 1); // ERC721 id 2 arrives
        bounds[1] = IPaceAccount.Bound(address(multi), 2, 20, 0, 3, 3); // ERC1155 id 20: +3
        bounds[2] = IPaceAccount.Bound(address(multi), 2, 21, 0, 3, 3); // ERC1155 id 21: +3
        uint256 t = _pack(_terms());
        bytes32 att = _attestation(t);
        (bytes32 r, bytes32 vs) = _sign(calls, bounds, att, t);
        account.executeBatchPDR(calls, bounds, _noHeld(), _noChecks(), att, t, r, vs);
        assertEq(nft.ownerOf(2), address(account));
        assertEq(multi.balanceOf(address(account), 20), 3);
        assertEq(multi.balanceOf(address(account), 21), 3);
    }

    /// The lean path too.
    function test_SafeTransfersArriveInsideALeanPdr() public {
        _send(address(this), _leanPdr(address(vendor), abi.encodeCall(vendor.deliver, (2, 20, 1))));
        assertEq(nft.ownerOf(2), address(account));
        assertEq(multi.balanceOf(address(account), 20), 1);
        assertEq(multi.balanceOf(address(account), 21), 1);
    }

    /// And inside the owner's raw call, which holds the lock as well.
    function test_SafeTransfersArriveInsideTheOwnersCall() public {
        _send(
            owner,
            abi.encodeCall(
                account.execute, (address(vendor), 0, abi.encodeCall(vendor.deliver, (2, 20, 2)))
            )
        );
        assertEq(nft.ownerOf(2), address(account));
        assertEq(multi.balanceOf(address(account), 20), 2);
        assertEq(multi.balanceOf(address(account), 21), 2);
    }

    function test_TheAccountAdvertisesItsReceivers() public view {
        (bool ok, bytes memory ret) = address(account)
            .staticcall(abi.encodeWithSignature("supportsInterface(bytes4)", bytes4(0x150b7a02)));
        assertTrue(ok && abi.decode(ret, (bool)), "IERC721Receiver");
        (ok, ret) = address(account)
            .staticcall(abi.encodeWithSignature("supportsInterface(bytes4)", bytes4(0x4e2312e0)));
        assertTrue(ok && abi.decode(ret, (bool)), "IERC1155Receiver");
        (ok, ret) = address(account)
            .staticcall(abi.encodeWithSignature("supportsInterface(bytes4)", bytes4(0xffffffff)));
        assertTrue(ok && !abi.decode(ret, (bool)), "not ERC-165's invalid id");
    }
}
