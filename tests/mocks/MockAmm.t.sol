// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {Test} from "forge-std/Test.sol";
import {IERC20Errors} from "@openzeppelin/contracts/interfaces/draft-IERC6093.sol";
import {MockERC20} from "../../contracts/mocks/MockERC20.sol";
import {FeeOnTransferERC20} from "../../contracts/mocks/FeeOnTransferERC20.sol";
import {MockAmmPair} from "../../contracts/mocks/MockAmmPair.sol";
import {MockAmmRouter} from "../../contracts/mocks/MockAmmRouter.sol";

contract MockAmmTest is Test {
    // The paper's pool (section 5.2): 10,000 WETH / 10,000,000 DAI.
    uint256 internal constant WETH_RESERVE = 10_000e18;
    uint256 internal constant DAI_RESERVE = 10_000_000e18;

    MockERC20 internal weth;
    MockERC20 internal dai;
    MockAmmRouter internal router;
    MockAmmPair internal pair;
    address internal lp = makeAddr("lp");
    address internal user = makeAddr("user");
    address internal recipient = makeAddr("recipient");

    function setUp() public {
        weth = new MockERC20("Wrapped Ether", "WETH", 18);
        dai = new MockERC20("Dai", "DAI", 18);
        router = new MockAmmRouter();

        weth.mint(lp, WETH_RESERVE);
        dai.mint(lp, DAI_RESERVE);
        vm.startPrank(lp);
        weth.approve(address(router), type(uint256).max);
        dai.approve(address(router), type(uint256).max);
        router.addLiquidity(
            address(weth), address(dai), WETH_RESERVE, DAI_RESERVE, 0, 0, lp, block.timestamp
        );
        vm.stopPrank();
        pair = MockAmmPair(router.getPair(address(weth), address(dai)));

        vm.prank(user);
        weth.approve(address(router), type(uint256).max);
        vm.prank(user);
        dai.approve(address(router), type(uint256).max);
    }

    function _path(address a, address b) internal pure returns (address[] memory path) {
        path = new address[](2);
        path[0] = a;
        path[1] = b;
    }

    function _reserves(address tokenIn) internal view returns (uint256 rIn, uint256 rOut) {
        (uint112 r0, uint112 r1,) = pair.getReserves();
        return tokenIn == pair.token0() ? (uint256(r0), uint256(r1)) : (uint256(r1), uint256(r0));
    }

    function _closedForm(uint256 amountIn, uint256 rIn, uint256 rOut)
        internal
        pure
        returns (uint256)
    {
        return rOut * amountIn * 9970 / (rIn * 10_000 + amountIn * 9970);
    }

    function test_AddLiquidity_SetsPaperReserves() public view {
        (uint256 rWeth, uint256 rDai) = _reserves(address(weth));
        assertEq(rWeth, WETH_RESERVE);
        assertEq(rDai, DAI_RESERVE);
        assertEq(pair.balanceOf(lp), pair.totalSupply());
        assertEq(router.getPair(address(dai), address(weth)), address(pair));
        assertLt(uint160(pair.token0()), uint160(pair.token1()));
    }

    function test_AddLiquidity_DepositsAtReserveRatio() public {
        weth.mint(user, 10e18);
        dai.mint(user, 50_000e18);
        uint256 supplyBefore = pair.totalSupply();
        vm.prank(user);
        (uint256 amountWeth, uint256 amountDai, uint256 liquidity) = router.addLiquidity(
            address(weth), address(dai), 10e18, 50_000e18, 0, 0, user, block.timestamp
        );
        assertEq(amountWeth, 10e18);
        assertEq(amountDai, 10_000e18);
        assertEq(liquidity, supplyBefore * 10e18 / WETH_RESERVE);
        assertEq(pair.balanceOf(user), liquidity);
    }

    function test_RevertWhen_AddLiquidityBelowMinimum() public {
        weth.mint(user, 10e18);
        dai.mint(user, 50_000e18);
        vm.expectRevert(
            abi.encodeWithSelector(
                MockAmmRouter.MockAmmRouterInsufficientAmount.selector,
                address(dai),
                10_000e18,
                20_000e18
            )
        );
        vm.prank(user);
        router.addLiquidity(
            address(weth), address(dai), 10e18, 50_000e18, 0, 20_000e18, user, block.timestamp
        );
    }

    function test_RevertWhen_CreatingExistingPair() public {
        vm.expectRevert(
            abi.encodeWithSelector(MockAmmRouter.MockAmmRouterPairExists.selector, address(pair))
        );
        router.createPair(address(dai), address(weth));
    }

    function testFuzz_GetAmountOutEqualsUniswapV2(uint256 amountIn, uint256 rIn, uint256 rOut)
        public
        view
    {
        amountIn = bound(amountIn, 1, type(uint112).max);
        rIn = bound(rIn, 1, type(uint112).max);
        rOut = bound(rOut, 1, type(uint112).max);
        uint256 uniswap = amountIn * 997 * rOut / (rIn * 1000 + amountIn * 997);
        assertEq(router.getAmountOut(amountIn, rIn, rOut), uniswap);
        assertEq(router.getAmountOut(amountIn, rIn, rOut), _closedForm(amountIn, rIn, rOut));
    }

    function testFuzz_SwapOutputEqualsClosedForm(uint256 amountIn, bool wethIn) public {
        (MockERC20 tokenIn, MockERC20 tokenOut) = wethIn ? (weth, dai) : (dai, weth);
        (uint256 rIn, uint256 rOut) = _reserves(address(tokenIn));
        amountIn = bound(amountIn, 1, rIn * 100);
        uint256 expected = _closedForm(amountIn, rIn, rOut);
        vm.assume(expected > 0);
        tokenIn.mint(user, amountIn);
        address[] memory path = _path(address(tokenIn), address(tokenOut));

        uint256[] memory quoted = router.getAmountsOut(amountIn, path);
        vm.prank(user);
        uint256[] memory amounts =
            router.swapExactTokensForTokens(amountIn, expected, path, recipient, block.timestamp);

        assertEq(quoted[1], expected);
        assertEq(amounts[0], amountIn);
        assertEq(amounts[1], expected);
        assertEq(tokenOut.balanceOf(recipient), expected);
        assertEq(tokenIn.balanceOf(user), 0);
        (uint256 rInAfter, uint256 rOutAfter) = _reserves(address(tokenIn));
        assertEq(rInAfter, rIn + amountIn);
        assertEq(rOutAfter, rOut - expected);
        assertGe(rInAfter * rOutAfter, rIn * rOut);
    }

    function test_Swap_EmitsSwapAndSync() public {
        uint256 amountIn = 1e18;
        weth.mint(user, amountIn);
        (uint256 rIn, uint256 rOut) = _reserves(address(weth));
        uint256 out = _closedForm(amountIn, rIn, rOut);
        bool wethIs0 = pair.token0() == address(weth);

        vm.expectEmit(address(pair));
        emit MockAmmPair.Sync(
            uint112(wethIs0 ? rIn + amountIn : rOut - out),
            uint112(wethIs0 ? rOut - out : rIn + amountIn)
        );
        vm.expectEmit(address(pair));
        emit MockAmmPair.Swap(
            address(router),
            wethIs0 ? amountIn : 0,
            wethIs0 ? 0 : amountIn,
            wethIs0 ? 0 : out,
            wethIs0 ? out : 0,
            recipient
        );
        vm.prank(user);
        router.swapExactTokensForTokens(
            amountIn, 0, _path(address(weth), address(dai)), recipient, block.timestamp
        );
    }

    function test_RevertWhen_OutputBelowMinimum() public {
        uint256 amountIn = 1e18;
        weth.mint(user, amountIn);
        (uint256 rIn, uint256 rOut) = _reserves(address(weth));
        uint256 out = _closedForm(amountIn, rIn, rOut);
        vm.expectRevert(
            abi.encodeWithSelector(
                MockAmmRouter.MockAmmRouterInsufficientOutput.selector, out, out + 1
            )
        );
        vm.prank(user);
        router.swapExactTokensForTokens(
            amountIn, out + 1, _path(address(weth), address(dai)), recipient, block.timestamp
        );
    }

    function test_RevertWhen_PathIsNotTwoTokens() public {
        address[] memory path = new address[](3);
        (path[0], path[1], path[2]) = (address(weth), address(dai), address(weth));
        vm.expectRevert(
            abi.encodeWithSelector(MockAmmRouter.MockAmmRouterUnsupportedPath.selector, 3)
        );
        vm.prank(user);
        router.swapExactTokensForTokens(1e18, 0, path, recipient, block.timestamp);
    }

    function test_RevertWhen_PairDoesNotExist() public {
        MockERC20 other = new MockERC20("Other", "OTH", 6);
        vm.expectRevert(
            abi.encodeWithSelector(
                MockAmmRouter.MockAmmRouterPairNotFound.selector, address(weth), address(other)
            )
        );
        router.getAmountsOut(1e18, _path(address(weth), address(other)));
    }

    function test_RevertWhen_DeadlinePassed() public {
        vm.warp(1000);
        vm.expectRevert(
            abi.encodeWithSelector(MockAmmRouter.MockAmmRouterExpired.selector, 999, 1000)
        );
        vm.prank(user);
        router.swapExactTokensForTokens(1e18, 0, _path(address(weth), address(dai)), user, 999);
    }

    function test_RevertWhen_RouterNotApproved() public {
        address stranger = makeAddr("stranger");
        weth.mint(stranger, 1e18);
        vm.expectRevert(
            abi.encodeWithSelector(
                IERC20Errors.ERC20InsufficientAllowance.selector, address(router), 0, 1e18
            )
        );
        vm.prank(stranger);
        router.swapExactTokensForTokens(
            1e18, 0, _path(address(weth), address(dai)), stranger, block.timestamp
        );
    }

    function test_RevertWhen_PairSwapUnderpaid() public {
        (uint256 rIn, uint256 rOut) = _reserves(address(weth));
        uint256 out = _closedForm(1e18, rIn, rOut);
        weth.mint(address(pair), 1e18);
        bool wethIs0 = pair.token0() == address(weth);
        vm.expectRevert(MockAmmPair.MockAmmPairInvariantViolated.selector);
        pair.swap(wethIs0 ? 0 : out + 1, wethIs0 ? out + 1 : 0, recipient, "");
    }

    function test_RevertWhen_PairSwapGetsNoInput() public {
        vm.expectRevert(MockAmmPair.MockAmmPairInsufficientInput.selector);
        pair.swap(1, 1, recipient, "");
    }

    function test_RevertWhen_PairSwapHasCallbackData() public {
        vm.expectRevert(MockAmmPair.MockAmmPairFlashSwapUnsupported.selector);
        pair.swap(1, 0, recipient, hex"01");
    }

    function test_RevertWhen_SwappingFeeOnTransferInput() public {
        FeeOnTransferERC20 fot = new FeeOnTransferERC20("Fee", "FOT", 18);
        fot.mint(lp, 1_000_000e18);
        dai.mint(lp, 1_000_000e18);
        vm.startPrank(lp);
        fot.approve(address(router), type(uint256).max);
        router.addLiquidity(
            address(fot), address(dai), 1_000_000e18, 1_000_000e18, 0, 0, lp, block.timestamp
        );
        vm.stopPrank();
        fot.mint(user, 1000e18);
        vm.prank(user);
        fot.approve(address(router), type(uint256).max);

        vm.expectRevert(MockAmmPair.MockAmmPairInvariantViolated.selector);
        vm.prank(user);
        router.swapExactTokensForTokens(
            1000e18, 0, _path(address(fot), address(dai)), user, block.timestamp
        );
    }
}
