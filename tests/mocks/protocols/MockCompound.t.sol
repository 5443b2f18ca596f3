// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {Test} from "forge-std/Test.sol";
import {MockERC20} from "../../../contracts/mocks/MockERC20.sol";
import {MockAggregatorV3} from "../../../contracts/mocks/protocols/MockAggregatorV3.sol";
import {MockComptroller} from "../../../contracts/mocks/protocols/MockComptroller.sol";
import {MockCToken} from "../../../contracts/mocks/protocols/MockCToken.sol";

contract MockCompoundTest is Test {
    /// 0.02 underlying per cToken, for 18-decimal underlyings and 8-decimal cTokens.
    uint256 internal constant INITIAL_RATE = 2e26;
    uint256 internal constant DAI_RATE_PER_BLOCK = 1e10;

    MockERC20 internal weth;
    MockERC20 internal dai;
    MockAggregatorV3 internal ethFeed;
    MockAggregatorV3 internal daiFeed;
    MockComptroller internal comptroller;
    MockCToken internal cWeth;
    MockCToken internal cDai;
    address internal user = makeAddr("user");
    address internal lender = makeAddr("lender");

    function setUp() public {
        vm.warp(1_700_000_000);
        vm.roll(100);
        weth = new MockERC20("Wrapped Ether", "WETH", 18);
        dai = new MockERC20("Dai", "DAI", 18);
        ethFeed = new MockAggregatorV3(8, "ETH / USD", 1000e8);
        daiFeed = new MockAggregatorV3(8, "DAI / USD", 1e8);
        comptroller = new MockComptroller();
        cWeth = new MockCToken(address(weth), comptroller, INITIAL_RATE, 0, "cWETH", "cWETH");
        cDai = new MockCToken(
            address(dai), comptroller, INITIAL_RATE, DAI_RATE_PER_BLOCK, "cDAI", "cDAI"
        );
        comptroller.supportMarket(cWeth, ethFeed);
        comptroller.supportMarket(cDai, daiFeed);
        comptroller.setCollateralFactor(cWeth, 0.75e18);
        comptroller.setCollateralFactor(cDai, 0.8e18);

        dai.mint(lender, 100_000e18);
        vm.startPrank(lender);
        dai.approve(address(cDai), type(uint256).max);
        cDai.mint(100_000e18);
        vm.stopPrank();

        weth.mint(user, 10e18);
        dai.mint(user, 1000e18);
        vm.startPrank(user);
        weth.approve(address(cWeth), type(uint256).max);
        dai.approve(address(cDai), type(uint256).max);
        vm.stopPrank();
    }

    function _supplyAndEnter() internal {
        vm.startPrank(user);
        cWeth.mint(10e18);
        address[] memory markets = new address[](1);
        markets[0] = address(cWeth);
        comptroller.enterMarkets(markets);
        vm.stopPrank();
    }

    function _liquidity() internal view returns (uint256 err, uint256 liq, uint256 shortfall) {
        return comptroller.getAccountLiquidity(user);
    }

    function test_Mint_AtTheInitialExchangeRate() public {
        vm.prank(user);
        cWeth.mint(10e18);
        assertEq(cWeth.balanceOf(user), 500e8);
        assertEq(cWeth.exchangeRateStored(), INITIAL_RATE);
        assertEq(cWeth.balanceOfUnderlying(user), 10e18);
        assertEq(weth.balanceOf(address(cWeth)), 10e18);
    }

    function test_EnterMarkets_CountsSupplyAsCollateral() public {
        vm.prank(user);
        cWeth.mint(10e18);
        (uint256 err, uint256 liq,) = _liquidity();
        assertEq(err, 0);
        assertEq(liq, 0, "supply outside an entered market is no collateral");
        address[] memory markets = new address[](1);
        markets[0] = address(cWeth);
        vm.prank(user);
        comptroller.enterMarkets(markets);
        (, liq,) = _liquidity();
        assertEq(liq, 7500e18);
        assertTrue(comptroller.checkMembership(user, address(cWeth)));
    }

    function test_EnterMarkets_UnlistedMarketIsCodeNine() public {
        address[] memory markets = new address[](1);
        markets[0] = makeAddr("unlisted");
        vm.prank(user);
        uint256[] memory codes = comptroller.enterMarkets(markets);
        assertEq(codes[0], 9);
    }

    function test_Borrow_RaisesDebtAndLowersLiquidity() public {
        _supplyAndEnter();
        vm.prank(user);
        cDai.borrow(5000e18);
        assertEq(dai.balanceOf(user), 6000e18);
        assertEq(cDai.borrowBalanceStored(user), 5000e18);
        assertEq(cDai.totalBorrows(), 5000e18);
        (, uint256 liq, uint256 shortfall) = _liquidity();
        assertEq(liq, 2500e18);
        assertEq(shortfall, 0);
        assertTrue(comptroller.checkMembership(user, address(cDai)), "borrowing enters the market");
    }

    function test_RevertWhen_BorrowBeyondCollateral() public {
        _supplyAndEnter();
        vm.prank(user);
        vm.expectRevert(
            abi.encodeWithSelector(MockCToken.MockCTokenComptrollerRejection.selector, 4)
        );
        cDai.borrow(7501e18);
    }

    function test_RevertWhen_BorrowWithoutCollateral() public {
        vm.prank(user);
        vm.expectRevert(
            abi.encodeWithSelector(MockCToken.MockCTokenComptrollerRejection.selector, 4)
        );
        cDai.borrow(1e18);
    }

    function test_Interest_AccruesPerBlock() public {
        _supplyAndEnter();
        vm.prank(user);
        cDai.borrow(5000e18);
        uint256 rateBefore = cDai.exchangeRateStored();
        vm.roll(block.number + 100);
        assertEq(cDai.borrowBalanceStored(user), 5000e18, "stored until accrued");
        uint256 expected = 5000e18 + 5000e18 * DAI_RATE_PER_BLOCK * 100 / 1e18;
        assertEq(cDai.borrowBalanceCurrent(user), expected);
        assertEq(cDai.borrowBalanceStored(user), expected);
        assertGt(cDai.exchangeRateStored(), rateBefore, "suppliers earn the interest");
    }

    function test_RepayBorrow_MaxRepaysEverything() public {
        _supplyAndEnter();
        vm.startPrank(user);
        cDai.borrow(5000e18);
        vm.roll(block.number + 50);
        uint256 debt = cDai.borrowBalanceCurrent(user);
        cDai.repayBorrow(type(uint256).max);
        vm.stopPrank();
        assertEq(cDai.borrowBalanceStored(user), 0);
        assertEq(dai.balanceOf(user), 6000e18 - debt);
        (, uint256 liq,) = _liquidity();
        assertEq(liq, 7500e18);
    }

    function test_RevertWhen_RepayExceedsDebt() public {
        _supplyAndEnter();
        vm.startPrank(user);
        cDai.borrow(100e18);
        vm.expectRevert(
            abi.encodeWithSelector(MockCToken.MockCTokenRepayExceedsDebt.selector, 101e18, 100e18)
        );
        cDai.repayBorrow(101e18);
        vm.stopPrank();
    }

    function test_PriceDrop_CreatesShortfall() public {
        _supplyAndEnter();
        vm.prank(user);
        cDai.borrow(5000e18);
        ethFeed.updateAnswer(500e8);
        (uint256 err, uint256 liq, uint256 shortfall) = _liquidity();
        assertEq(err, 0);
        assertEq(liq, 0);
        assertEq(shortfall, 1250e18);
    }

    function test_RevertWhen_RedeemLeavesShortfall() public {
        _supplyAndEnter();
        vm.startPrank(user);
        cDai.borrow(5000e18);
        cWeth.redeemUnderlying(3e18);
        vm.expectRevert(
            abi.encodeWithSelector(MockCToken.MockCTokenComptrollerRejection.selector, 4)
        );
        cWeth.redeemUnderlying(1e18);
        vm.stopPrank();
        assertEq(weth.balanceOf(user), 3e18);
    }

    function test_RevertWhen_CollateralTransferLeavesShortfall() public {
        _supplyAndEnter();
        vm.startPrank(user);
        cDai.borrow(7000e18);
        vm.expectRevert(
            abi.encodeWithSelector(MockCToken.MockCTokenComptrollerRejection.selector, 4)
        );
        cWeth.transfer(lender, 100e8);
        vm.stopPrank();
    }

    function test_PriceError_WhenTheFeedIsNotPositive() public {
        _supplyAndEnter();
        ethFeed.setRoundData(2, 0, block.timestamp, block.timestamp, 2);
        (uint256 err,,) = _liquidity();
        assertEq(err, 13);
        vm.prank(user);
        vm.expectRevert(
            abi.encodeWithSelector(MockCToken.MockCTokenComptrollerRejection.selector, 13)
        );
        cDai.borrow(1e18);
    }

    function test_Redeem_PaysTheInterestToSuppliers() public {
        _supplyAndEnter();
        vm.startPrank(user);
        cDai.borrow(5000e18);
        vm.roll(block.number + 1000);
        cDai.repayBorrow(type(uint256).max);
        vm.stopPrank();
        uint256 tokens = cDai.balanceOf(lender);
        vm.prank(lender);
        cDai.redeem(tokens);
        assertEq(dai.balanceOf(lender), 100_000e18 + 5000e18 * DAI_RATE_PER_BLOCK * 1000 / 1e18);
        assertEq(cDai.totalSupply(), 0);
    }

    function test_RevertWhen_NotAdmin() public {
        vm.prank(user);
        vm.expectRevert(
            abi.encodeWithSelector(MockComptroller.MockComptrollerNotAdmin.selector, user)
        );
        comptroller.setCollateralFactor(cWeth, 0.5e18);
    }

    function testFuzz_Liquidity_MatchesTheFormula(uint96 supplied, uint32 price, uint96 borrowed)
        public
    {
        supplied = uint96(bound(supplied, 1e16, 1000e18));
        price = uint32(bound(price, 1, 100_000));
        ethFeed.updateAnswer(int256(uint256(price)) * 1e8);
        weth.mint(user, supplied);
        vm.startPrank(user);
        cWeth.mint(supplied);
        address[] memory markets = new address[](1);
        markets[0] = address(cWeth);
        comptroller.enterMarkets(markets);
        uint256 limit = uint256(supplied) * price * 75 / 100;
        borrowed = uint96(bound(borrowed, 0, limit > 100_000e18 ? 100_000e18 : limit));
        if (borrowed > 0) cDai.borrow(borrowed);
        vm.stopPrank();
        (uint256 err, uint256 liq, uint256 shortfall) = _liquidity();
        assertEq(err, 0);
        assertEq(shortfall, 0);
        // cTokens are rounded down at mint: at most one cToken unit of value is lost.
        assertApproxEqAbs(liq, limit - borrowed, uint256(price) * 1e10 + 1);
    }
}
