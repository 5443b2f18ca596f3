// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {Test} from "forge-std/Test.sol";
import {IPaceAccount} from "../contracts/interfaces/IPaceAccount.sol";
import {OutcomeBounds} from "../contracts/libraries/OutcomeBounds.sol";
import {HolderBalance} from "../contracts/libraries/HolderBalance.sol";
import {MockERC20} from "../contracts/mocks/MockERC20.sol";
import {MockERC721} from "../contracts/mocks/MockERC721.sol";
import {MockERC1155} from "../contracts/mocks/MockERC1155.sol";

/// @notice The enforcement core's libraries, run in a contract that guards another address's
///         assets, as a module guarding a Safe does.
contract HolderProbe {
    function measure(IPaceAccount.Bound[] calldata bounds, address[] calldata held, address holder)
        external
        view
        returns (uint256[] memory)
    {
        return OutcomeBounds.measure(bounds, held, holder, 0);
    }

    function check(
        IPaceAccount.Bound[] calldata bounds,
        address[] calldata held,
        uint256[] calldata before,
        address holder
    ) external view {
        OutcomeBounds.check(bounds, held, before, holder);
    }

    function balanceOf(address token, address holder) external view returns (uint256) {
        return HolderBalance.balanceOf(token, holder);
    }
}

/// @notice The outcome bounds, held assets and budget balance reads measure the holder they are
///         given, every kind of quantity, and the executing contract only when it is the holder.
contract HolderParameterTest is Test {
    HolderProbe internal probe;
    MockERC20 internal token;
    MockERC721 internal nft;
    MockERC1155 internal multi;
    address internal holder = makeAddr("safe");

    function setUp() public {
        probe = new HolderProbe();
        token = new MockERC20("Token", "TKN", 18);
        nft = new MockERC721();
        multi = new MockERC1155();
        vm.deal(holder, 5 ether);
        vm.deal(address(probe), 1 ether);
        token.mint(holder, 7 ether);
        token.mint(address(probe), 2 ether);
        nft.mint(holder, 42);
        nft.mint(address(probe), 43);
        multi.mint(holder, 9, 11);
        multi.mint(address(probe), 9, 3);
    }

    function _bounds() internal view returns (IPaceAccount.Bound[] memory b) {
        b = new IPaceAccount.Bound[](5);
        b[0] = IPaceAccount.Bound(address(0), OutcomeBounds.BALANCE, 0, 0, 0, type(uint256).max);
        b[1] = IPaceAccount.Bound(address(token), OutcomeBounds.BALANCE, 0, 0, 0, type(uint256).max);
        b[2] = IPaceAccount.Bound(address(nft), OutcomeBounds.ERC721, 42, 0, 0, type(uint256).max);
        b[3] = IPaceAccount.Bound(address(nft), OutcomeBounds.ERC721, 43, 0, 0, type(uint256).max);
        b[4] = IPaceAccount.Bound(address(multi), OutcomeBounds.ERC1155, 9, 0, 0, type(uint256).max);
    }

    function _held() internal view returns (address[] memory h) {
        h = new address[](2);
        (h[0], h[1]) = (address(0), address(token));
    }

    function test_EveryQuantityIsTheHoldersOwn() public view {
        uint256[] memory q = probe.measure(_bounds(), _held(), holder);
        assertEq(q[0], 5 ether, "ETH");
        assertEq(q[1], 7 ether, "ERC-20");
        assertEq(q[2], 1, "the holder's ERC-721 id");
        assertEq(q[3], 0, "the probe's ERC-721 id is not the holder's");
        assertEq(q[4], 11, "ERC-1155");
        assertEq(q[5], 5 ether, "held ETH");
        assertEq(q[6], 7 ether, "held ERC-20");
        assertEq(probe.balanceOf(address(0), holder), 5 ether);
        assertEq(probe.balanceOf(address(token), holder), 7 ether);
    }

    function test_TheExecutingContractIsMeasuredWhenItIsTheHolder() public view {
        uint256[] memory q = probe.measure(_bounds(), _held(), address(probe));
        assertEq(q[0], 1 ether);
        assertEq(q[1], 2 ether);
        assertEq(q[2], 0);
        assertEq(q[3], 1);
        assertEq(q[4], 3);
        assertEq(probe.balanceOf(address(0), address(probe)), 1 ether);
        assertEq(probe.balanceOf(address(token), address(probe)), 2 ether);
    }

    /// The holder's held balance falls while the executing contract's does not: refused.
    function test_RevertWhen_TheHoldersHeldBalanceFalls() public {
        address[] memory held = _held();
        uint256[] memory before = probe.measure(new IPaceAccount.Bound[](0), held, holder);
        vm.prank(holder);
        token.transfer(address(probe), 1 ether);
        vm.expectRevert(
            abi.encodeWithSelector(
                IPaceAccount.PaceAccountHeldBalanceFell.selector,
                1,
                address(token),
                7 ether,
                6 ether
            )
        );
        probe.check(new IPaceAccount.Bound[](0), held, before, holder);
        // The executing contract gained: its own held balance passes.
        before = probe.measure(new IPaceAccount.Bound[](0), held, address(probe));
        probe.check(new IPaceAccount.Bound[](0), held, before, address(probe));
    }
}
