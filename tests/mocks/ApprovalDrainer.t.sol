// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {Test} from "forge-std/Test.sol";
import {MockERC20} from "../../contracts/mocks/MockERC20.sol";
import {ApprovalDrainer} from "../../contracts/mocks/ApprovalDrainer.sol";

contract ApprovalDrainerTest is Test {
    MockERC20 internal dai;
    ApprovalDrainer internal drainer;
    address internal attacker = makeAddr("attacker");
    address internal victim = makeAddr("victim");

    function setUp() public {
        dai = new MockERC20("Dai", "DAI", 18);
        vm.prank(attacker);
        drainer = new ApprovalDrainer();
        dai.mint(victim, 1000e18);
    }

    function test_Drain_TakesWholeBalanceUnderUnlimitedApproval() public {
        vm.prank(victim);
        dai.approve(address(drainer), type(uint256).max);

        vm.expectEmit(address(drainer));
        emit ApprovalDrainer.Drained(address(dai), victim, 1000e18);
        uint256 taken = drainer.drain(dai, victim);

        assertEq(taken, 1000e18);
        assertEq(dai.balanceOf(victim), 0);
        assertEq(dai.balanceOf(attacker), 1000e18);
        assertEq(drainer.owner(), attacker);
    }

    function testFuzz_Drain_TakesMinOfAllowanceAndBalance(uint256 allowance, address caller)
        public
    {
        vm.prank(victim);
        dai.approve(address(drainer), allowance);

        vm.prank(caller);
        uint256 taken = drainer.drain(dai, victim);

        uint256 expected = allowance < 1000e18 ? allowance : 1000e18;
        assertEq(taken, expected);
        assertEq(dai.balanceOf(attacker), expected);
        assertEq(dai.balanceOf(victim), 1000e18 - expected);
    }

    function test_Drain_WithoutApprovalTakesNothing() public {
        assertEq(drainer.drain(dai, victim), 0);
        assertEq(dai.balanceOf(victim), 1000e18);
    }
}
