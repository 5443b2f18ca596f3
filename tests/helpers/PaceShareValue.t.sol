// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {Test} from "forge-std/Test.sol";
import {PaceShareValue} from "../../contracts/helpers/PaceShareValue.sol";
import {MockAmmPair} from "../../contracts/mocks/MockAmmPair.sol";
import {MockERC20} from "../../contracts/mocks/MockERC20.sol";
import {RedPillDilutingPool} from "../../contracts/mocks/redpill/RedPillDilutingPool.sol";
import {RedPillDilutingVault} from "../../contracts/mocks/redpill/RedPillDilutingVault.sol";
import {RedPillStaleRateVault} from "../../contracts/mocks/redpill/RedPillStaleRateVault.sol";

/// @notice `PaceShareValue` tried against what it must tell apart. `productShare`: swaps
///         through the pool (fees included) and joins at the pool's ratio never lower what a
///         share is worth, so an honest PDR's floor holds whatever else lands in its block;
///         shares minted for nothing lower it; a pool without shares, or with reserves whose
///         product overflows, fails closed. `vaultShare`: deposits and redemptions at the
///         vault's rate never lower it; shares minted for nothing do, even when the vault's
///         reported rate is a stored one that does not move; a vault without shares fails
///         closed.
contract PaceShareValueTest is Test {
    uint256 internal constant ONE = 1e18;

    PaceShareValue internal helper;
    MockERC20 internal a;
    MockERC20 internal b;
    MockAmmPair internal pair;

    function setUp() public {
        helper = new PaceShareValue();
        a = new MockERC20("A", "A", 18);
        b = new MockERC20("B", "B", 18);
        pair = new MockAmmPair(address(a), address(b));
        _join(address(this), 1000 ether, 3000 ether);
    }

    function _join(address who, uint256 amountA, uint256 amountB) internal {
        a.mint(address(pair), amountA);
        b.mint(address(pair), amountB);
        pair.mint(who);
    }

    /// @dev Sells `amountIn` of token0 (`zeroForOne`) or token1 for what the 0.3 % fee's
    ///      constant product gives.
    function _swap(bool zeroForOne, uint256 amountIn) internal {
        (uint256 r0, uint256 r1,) = pair.getReserves();
        (uint256 rIn, uint256 rOut) = zeroForOne ? (r0, r1) : (r1, r0);
        uint256 inFee = amountIn * 997;
        uint256 out = inFee * rOut / (rIn * 1000 + inFee);
        vm.assume(out > 0);
        MockERC20 tokenIn = MockERC20(zeroForOne ? pair.token0() : pair.token1());
        tokenIn.mint(address(pair), amountIn);
        pair.swap(zeroForOne ? 0 : out, zeroForOne ? out : 0, address(0xBEEF), "");
    }

    function testFuzz_swapsNeverLowerTheValueOfAShare(bool zeroForOne, uint96 amountIn, bool back)
        public
    {
        amountIn = uint96(bound(amountIn, 1e9, 100_000 ether));
        uint256 before = helper.productShare(address(pair), ONE);
        _swap(zeroForOne, amountIn);
        assertGe(helper.productShare(address(pair), ONE), before);
        if (back) {
            _swap(!zeroForOne, amountIn / 2 + 1);
            assertGe(helper.productShare(address(pair), ONE), before);
        }
    }

    function testFuzz_joinsAtThePoolsRatioKeepTheValueOfAShare(uint96 scale) public {
        scale = uint96(bound(scale, 1e6, 1e24));
        uint256 before = helper.productShare(address(pair), ONE);
        (uint256 r0, uint256 r1,) = pair.getReserves();
        // At the pool's ratio, rounded up on both sides: the joiner pays at least its share.
        uint256 in0 = r0 * scale / 1e18 + 1;
        uint256 in1 = r1 * scale / 1e18 + 1;
        (uint256 amountA, uint256 amountB) = pair.token0() == address(a) ? (in0, in1) : (in1, in0);
        _join(address(0xCAFE), amountA, amountB);
        // A unit of rounding in the share count at most.
        assertGe(helper.productShare(address(pair), ONE) + 1, before);
    }

    function test_sharesMintedForNothingLowerTheValueOfAShare() public {
        RedPillDilutingPool pool = new RedPillDilutingPool(a, b);
        a.mint(address(this), 2000 ether);
        b.mint(address(this), 2000 ether);
        a.approve(address(pool), type(uint256).max);
        b.approve(address(pool), type(uint256).max);
        pool.join(1000 ether, 1000 ether, address(this));
        uint256 before = helper.productShare(address(pool), ONE);
        assertEq(before, ONE, "at par");
        pool.arm();
        pool.join(100 ether, 100 ether, address(this));
        assertLt(helper.productShare(address(pool), ONE), before / 5);
    }

    function test_aPoolWithoutSharesFailsClosed() public {
        MockAmmPair empty = new MockAmmPair(address(a), address(b));
        vm.expectRevert(
            abi.encodeWithSelector(PaceShareValue.PaceShareValueNoSupply.selector, address(empty))
        );
        helper.productShare(address(empty), ONE);
    }

    function _vault(RedPillDilutingVault vault) internal returns (RedPillDilutingVault) {
        a.mint(address(this), 1_000_000 ether);
        a.approve(address(vault), type(uint256).max);
        vault.deposit(1000 ether, address(this));
        return vault;
    }

    function testFuzz_depositsAndRedemptionsNeverLowerAVaultShare(
        uint96 gain,
        uint96 deposit,
        uint96 redeemed
    ) public {
        RedPillDilutingVault vault = _vault(new RedPillDilutingVault(a));
        // Some yield first, so that the rate is not 1:1 and rounding has something to round.
        a.mint(address(vault), bound(gain, 0, 1000 ether));
        uint256 before = helper.vaultShare(address(vault), ONE);
        vault.deposit(bound(deposit, 1, 100_000 ether), address(0xCAFE));
        assertGe(helper.vaultShare(address(vault), ONE), before, "a deposit");
        uint256 held = vault.balanceOf(address(0xCAFE));
        vm.prank(address(0xCAFE));
        vault.redeem(bound(redeemed, 0, held), address(0xCAFE), address(0xCAFE));
        assertGe(helper.vaultShare(address(vault), ONE), before, "a redemption");
    }

    function test_sharesMintedForNothingLowerAVaultShareWhateverRateItReports() public {
        RedPillStaleRateVault vault = new RedPillStaleRateVault(a);
        _vault(vault);
        uint256 before = helper.vaultShare(address(vault), ONE);
        assertEq(before, ONE, "at par");
        vault.arm();
        vm.roll(block.number + 1);
        vm.prank(address(0xCAFE));
        a.approve(address(vault), type(uint256).max);
        a.mint(address(0xCAFE), 100 ether);
        vm.prank(address(0xCAFE));
        vault.deposit(100 ether, address(0xCAFE));
        assertEq(vault.convertToAssets(ONE), ONE, "the stored rate stands");
        assertLt(helper.vaultShare(address(vault), ONE), before / 5);
    }

    function test_aVaultWithoutSharesFailsClosed() public {
        RedPillDilutingVault empty = new RedPillDilutingVault(a);
        vm.expectRevert(
            abi.encodeWithSelector(PaceShareValue.PaceShareValueNoSupply.selector, address(empty))
        );
        helper.vaultShare(address(empty), ONE);
    }
}
