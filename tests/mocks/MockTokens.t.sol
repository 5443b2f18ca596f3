// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {Test} from "forge-std/Test.sol";
import {MockERC20} from "../../contracts/mocks/MockERC20.sol";
import {FeeOnTransferERC20} from "../../contracts/mocks/FeeOnTransferERC20.sol";
import {MockOracle} from "../../contracts/mocks/MockOracle.sol";

contract MockTokensTest is Test {
    MockERC20 internal usdc;
    FeeOnTransferERC20 internal fot;
    MockOracle internal oracle;
    address internal alice = makeAddr("alice");
    address internal bob = makeAddr("bob");

    function setUp() public {
        usdc = new MockERC20("USD Coin", "USDC", 6);
        fot = new FeeOnTransferERC20("Fee Token", "FOT", 18);
        oracle = new MockOracle(1000e18);
    }

    function test_Decimals_AreConfigurable() public view {
        assertEq(usdc.decimals(), 6);
        assertEq(fot.decimals(), 18);
        assertEq(usdc.symbol(), "USDC");
    }

    function testFuzz_Mint_AnyoneCanMint(address caller, uint256 amount) public {
        vm.prank(caller);
        usdc.mint(alice, amount);
        assertEq(usdc.balanceOf(alice), amount);
        assertEq(usdc.totalSupply(), amount);
    }

    function testFuzz_FeeOnTransfer_BurnsOnePercent(uint256 amount) public {
        amount = bound(amount, 0, type(uint128).max);
        fot.mint(alice, amount);
        uint256 fee = amount / 100;
        vm.prank(alice);
        assertTrue(fot.transfer(bob, amount));
        assertEq(fot.balanceOf(alice), 0);
        assertEq(fot.balanceOf(bob), amount - fee);
        assertEq(fot.totalSupply(), amount - fee);
    }

    function test_FeeOnTransfer_TransferFromAlsoPaysFee() public {
        fot.mint(alice, 1000e18);
        vm.prank(alice);
        fot.approve(bob, 1000e18);
        vm.expectEmit(address(fot));
        emit FeeOnTransferERC20.TransferFeeBurned(alice, 10e18);
        vm.prank(bob);
        assertTrue(fot.transferFrom(alice, bob, 1000e18));
        assertEq(fot.balanceOf(bob), 990e18);
        assertEq(fot.allowance(alice, bob), 0);
    }

    function testFuzz_Oracle_AnyoneSetsPrice(address caller, uint256 newPrice) public {
        vm.expectEmit(address(oracle));
        emit MockOracle.PriceUpdated(1000e18, newPrice);
        vm.prank(caller);
        oracle.setPrice(newPrice);
        assertEq(oracle.price(), newPrice);
    }
}
