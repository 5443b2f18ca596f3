// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {Test} from "forge-std/Test.sol";
import {VmSafe} from "forge-std/Vm.sol";
import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {MockERC20} from "../../contracts/mocks/MockERC20.sol";
import {MockAmmRouter} from "../../contracts/mocks/MockAmmRouter.sol";
import {HiddenSink} from "../../contracts/mocks/HiddenSink.sol";
import {MaliciousRouter} from "../../contracts/mocks/MaliciousRouter.sol";

contract MaliciousRouterTest is Test {
    uint256 internal constant SKIM_BPS = 100;

    MockERC20 internal weth;
    MockERC20 internal dai;
    MockAmmRouter internal router;
    HiddenSink internal sink;
    MaliciousRouter internal evil;
    address internal user = makeAddr("user");

    function setUp() public {
        weth = new MockERC20("Wrapped Ether", "WETH", 18);
        dai = new MockERC20("Dai", "DAI", 18);
        router = new MockAmmRouter();
        weth.mint(address(this), 10_000e18);
        dai.mint(address(this), 10_000_000e18);
        weth.approve(address(router), type(uint256).max);
        dai.approve(address(router), type(uint256).max);
        router.addLiquidity(
            address(weth),
            address(dai),
            10_000e18,
            10_000_000e18,
            0,
            0,
            address(this),
            block.timestamp
        );
        sink = new HiddenSink();
        evil = new MaliciousRouter(router, sink, SKIM_BPS);

        weth.mint(user, 10e18);
        vm.prank(user);
        weth.approve(address(evil), type(uint256).max);
    }

    function _path() internal view returns (address[] memory path) {
        path = new address[](2);
        (path[0], path[1]) = (address(weth), address(dai));
    }

    function test_Swap_CallsHiddenSinkAndDivertsInput() public {
        uint256 amountIn = 10e18;
        uint256 skim = amountIn * SKIM_BPS / 10_000;
        uint256 quoted = evil.getAmountsOut(amountIn, _path())[1];
        uint256 honestRest = router.getAmountsOut(amountIn - skim, _path())[1];

        vm.expectCall(address(sink), abi.encodeCall(HiddenSink.collect, (IERC20(weth), skim)));
        vm.expectEmit(address(sink));
        emit HiddenSink.Collected(address(evil), address(weth), skim);
        vm.prank(user);
        uint256[] memory amounts =
            evil.swapExactTokensForTokens(amountIn, 0, _path(), user, block.timestamp);

        assertEq(weth.balanceOf(address(sink)), skim);
        assertEq(weth.balanceOf(user), 0);
        assertEq(amounts[0], amountIn);
        assertEq(amounts[1], honestRest);
        assertEq(dai.balanceOf(user), honestRest);
        assertLt(honestRest, quoted);
    }

    function test_Swap_SinkAppearsAmongAccessedAccounts() public {
        vm.startStateDiffRecording();
        vm.prank(user);
        evil.swapExactTokensForTokens(1e18, 0, _path(), user, block.timestamp);
        VmSafe.AccountAccess[] memory accesses = vm.stopAndReturnStateDiff();

        bool sinkCalled;
        for (uint256 i; i < accesses.length; ++i) {
            if (
                accesses[i].account == address(sink)
                    && accesses[i].kind == VmSafe.AccountAccessKind.Call
                    && accesses[i].accessor == address(evil)
            ) sinkCalled = true;
        }
        assertTrue(sinkCalled);
    }

    function test_Swap_ZeroSkimStillCallsSink() public {
        MaliciousRouter quiet = new MaliciousRouter(router, sink, 0);
        vm.prank(user);
        weth.approve(address(quiet), type(uint256).max);

        vm.expectCall(address(sink), abi.encodeCall(HiddenSink.collect, (IERC20(weth), 0)));
        vm.prank(user);
        quiet.swapExactTokensForTokens(1e18, 0, _path(), user, block.timestamp);
        assertEq(weth.balanceOf(address(sink)), 0);
    }

    function test_RevertWhen_QuotedMinimumCannotBeMet() public {
        uint256 quoted = evil.getAmountsOut(10e18, _path())[1];
        uint256 delivered = router.getAmountsOut(9.9e18, _path())[1];
        vm.expectRevert(
            abi.encodeWithSelector(
                MockAmmRouter.MockAmmRouterInsufficientOutput.selector, delivered, quoted
            )
        );
        vm.prank(user);
        evil.swapExactTokensForTokens(10e18, quoted, _path(), user, block.timestamp);
    }

    function test_RevertWhen_SkimAboveHundredPercent() public {
        vm.expectRevert(
            abi.encodeWithSelector(MaliciousRouter.MaliciousRouterSkimTooHigh.selector, 10_001)
        );
        new MaliciousRouter(router, sink, 10_001);
    }
}
