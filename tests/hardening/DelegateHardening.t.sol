// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {HardeningBase} from "./HardeningBase.sol";
import {HookedERC721, HookedERC1155, NftVendor, ReentrantApproveToken} from "./HardeningMocks.sol";
import {PaceDelegate} from "../../contracts/PaceDelegate.sol";
import {IPaceAccount} from "../../contracts/interfaces/IPaceAccount.sol";
import {IPaceDelegate} from "../../contracts/interfaces/IPaceDelegate.sol";

/// @notice The same hardening on an EOA delegated (EIP-7702) to `PaceDelegate`, whose owner is
///         the EOA key itself: once the EOA has code, an NFT safe transfer to it calls its
///         receiver hooks, which must answer (also inside a PDR); and a token re-entering the
///         EOA's own revocation cannot replay a PDR.
contract DelegateHardeningTest is HardeningBase {
    uint256 internal constant EOA_KEY = 0xDE1E6A7E;
    address internal eoa = vm.addr(EOA_KEY);
    PaceDelegate internal dlg = PaceDelegate(payable(vm.addr(EOA_KEY)));
    HookedERC721 internal nft;
    HookedERC1155 internal multi;
    NftVendor internal vendor;
    address internal thief = makeAddr("thief");

    function setUp() public {
        _deployDefi();
        PaceDelegate impl = new PaceDelegate();
        vm.signAndAttachDelegation(address(impl), EOA_KEY);
        IPaceDelegate.Setup memory s;
        s.verifier = verifierAddr;
        s.budgets = new IPaceDelegate.BudgetLimit[](0);
        s.lanes = new IPaceDelegate.LaneFloor[](0);
        s.nonce = 1;
        s.deadline = block.timestamp + 1 days;
        vm.prank(eoa);
        dlg.setUp(s, "");
        nft = new HookedERC721();
        multi = new HookedERC1155();
        vendor = new NftVendor(nft, multi);
        nft.mint(address(vendor), 2);
        multi.mint(address(vendor), 20, 3);
        multi.mint(address(vendor), 21, 3);
    }

    /// @dev A signed lean PDR for the delegated EOA, on its lane 0.
    function _eoaPdr(address target, bytes memory data) internal view returns (bytes memory) {
        Terms memory terms = _terms();
        terms.sequence = dlg.nextSequence(0);
        uint256 t = _pack(terms);
        bytes32 att = _attestation(t);
        bytes32 digest =
            dlg.pdrDigest(_one(target, 0, data), _noBounds(), _noHeld(), _noChecks(), att, t);
        (bytes32 r, bytes32 vs) = vm.signCompact(VERIFIER_KEY, digest);
        return abi.encodeCall(dlg.executePDR, (target, 0, data, att, t, r, vs));
    }

    function _sendTo(address from, bytes memory cd) internal returns (bytes memory ret) {
        bool ok;
        vm.prank(from);
        (ok, ret) = eoa.call(cd);
        if (!ok) {
            assembly ("memory-safe") {
                revert(add(ret, 0x20), mload(ret))
            }
        }
    }

    function test_SafeTransfersToTheDelegatedEoaArrive() public {
        nft.mint(address(this), 7);
        nft.safeTransferFrom(address(this), eoa, 7);
        assertEq(nft.ownerOf(7), eoa);
        // Inside a PDR, under the lock.
        _sendTo(address(this), _eoaPdr(address(vendor), abi.encodeCall(vendor.deliver, (2, 20, 3))));
        assertEq(nft.ownerOf(2), eoa);
        assertEq(multi.balanceOf(eoa, 20), 3);
        assertEq(multi.balanceOf(eoa, 21), 3);
    }

    function test_AReplayInsideTheEoasRevocationIsRefused() public {
        ReentrantApproveToken token = new ReentrantApproveToken();
        _sendTo(address(this), _eoaPdr(address(token), abi.encodeCall(token.approve, (thief, 5))));
        bytes memory replay =
            _eoaPdr(address(token), abi.encodeCall(token.approve, (thief, type(uint256).max)));
        token.arm(eoa, replay, true);
        IPaceAccount.Allowance[] memory list = new IPaceAccount.Allowance[](1);
        list[0] = _pair(address(token), thief);
        bytes memory ret = _sendTo(eoa, abi.encodeCall(dlg.revokeAllowances, (list)));
        assertEq(abi.decode(ret, (uint256)), 0);
        assertEq(token.allowance(eoa, thief), 0, "allowance revoked, not re-granted");
        assertFalse(token.replayOk(), "the replay was refused");
        assertEq(
            token.replayResult(), abi.encodeWithSelector(IPaceAccount.PaceAccountReentrant.selector)
        );
    }
}
