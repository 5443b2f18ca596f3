// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {Test} from "forge-std/Test.sol";
import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {IERC20Errors} from "@openzeppelin/contracts/interfaces/draft-IERC6093.sol";
import {IERC3156FlashBorrower} from "@openzeppelin/contracts/interfaces/IERC3156FlashBorrower.sol";
import {MockERC20} from "../../contracts/mocks/MockERC20.sol";
import {MockOracle} from "../../contracts/mocks/MockOracle.sol";
import {MockLendingPool} from "../../contracts/mocks/MockLendingPool.sol";

/// Flash-loan receiver: repays (or not) and records what it saw.
contract FlashBorrower is IERC3156FlashBorrower {
    bool public repay = true;
    bool public answerCorrectly = true;
    uint256 public seenBalance;
    bytes public seenData;

    function configure(bool repay_, bool answerCorrectly_) external {
        (repay, answerCorrectly) = (repay_, answerCorrectly_);
    }

    function onFlashLoan(address, address token, uint256 amount, uint256 fee, bytes calldata data)
        external
        returns (bytes32)
    {
        seenBalance = IERC20(token).balanceOf(address(this));
        seenData = data;
        if (repay) IERC20(token).approve(msg.sender, amount + fee);
        return answerCorrectly ? keccak256("ERC3156FlashBorrower.onFlashLoan") : bytes32(0);
    }
}

contract MockLendingPoolTest is Test {
    // The paper's market (section 5.2): 1,000 DAI per ETH, LTV 0.75, liquidation threshold 0.80.
    uint256 internal constant PRICE = 1000e18;

    MockERC20 internal weth;
    MockERC20 internal dai;
    MockOracle internal oracle;
    MockLendingPool internal pool;
    address internal user = makeAddr("user");

    function setUp() public {
        weth = new MockERC20("Wrapped Ether", "WETH", 18);
        dai = new MockERC20("Dai", "DAI", 18);
        oracle = new MockOracle(PRICE);
        pool = new MockLendingPool(weth, dai, oracle);
        dai.mint(address(pool), 1_000_000e18);

        weth.mint(user, 10e18);
        vm.startPrank(user);
        weth.approve(address(pool), type(uint256).max);
        dai.approve(address(pool), type(uint256).max);
        vm.stopPrank();
    }

    function _deposit(uint256 amount) internal {
        vm.prank(user);
        pool.deposit(amount);
    }

    function _borrow(uint256 amount) internal {
        vm.prank(user);
        pool.borrow(amount);
    }

    function test_HealthFactor_MaxWithoutDebt() public {
        assertEq(pool.healthFactor(user), type(uint256).max);
        _deposit(10e18);
        assertEq(pool.healthFactor(user), type(uint256).max);
    }

    function test_Borrow_UpToLtv() public {
        _deposit(10e18);
        assertEq(pool.collateralValue(user), 10_000e18);
        assertEq(pool.borrowLimit(user), 7500e18);

        vm.expectEmit(address(pool));
        emit MockLendingPool.Borrowed(user, 7500e18);
        _borrow(7500e18);

        assertEq(dai.balanceOf(user), 7500e18);
        assertEq(pool.debtOf(user), 7500e18);
        // 10,000 * 0.80 / 7,500 = 1.0666...
        assertEq(pool.healthFactor(user), uint256(10_000e18) * 0.8e18 / 7500e18);
    }

    function test_RevertWhen_BorrowExceedsLtv() public {
        _deposit(10e18);
        vm.expectRevert(
            abi.encodeWithSelector(
                MockLendingPool.MockLendingPoolBorrowExceedsLtv.selector, 7500e18 + 1, 7500e18
            )
        );
        _borrow(7500e18 + 1);
    }

    function test_RevertWhen_SecondBorrowExceedsLtv() public {
        _deposit(10e18);
        _borrow(5000e18);
        vm.expectRevert(
            abi.encodeWithSelector(
                MockLendingPool.MockLendingPoolBorrowExceedsLtv.selector, 7600e18, 7500e18
            )
        );
        _borrow(2600e18);
    }

    function test_RevertWhen_BorrowExceedsPoolLiquidity() public {
        weth.mint(user, 10_000e18);
        _deposit(10_000e18);
        vm.expectRevert(
            abi.encodeWithSelector(
                MockLendingPool.MockLendingPoolInsufficientLiquidity.selector,
                1_000_001e18,
                1_000_000e18
            )
        );
        _borrow(1_000_001e18);
    }

    function test_PriceDrop_PushesHealthFactorBelowOne() public {
        _deposit(10e18);
        _borrow(7500e18);
        oracle.setPrice(900e18);
        // 9,000 * 0.80 / 7,500 = 0.96
        assertEq(pool.healthFactor(user), 0.96e18);
    }

    function testFuzz_HealthFactorMatchesFormula(uint256 collateral, uint256 debt, uint256 price)
        public
    {
        collateral = bound(collateral, 1, 1e30);
        price = bound(price, 1e12, 1e24);
        uint256 limit = collateral * price * 7500 / (1e18 * 10_000);
        vm.assume(limit > 0);
        debt = bound(debt, 1, limit);
        weth.mint(user, collateral);
        dai.mint(address(pool), debt);
        oracle.setPrice(price);

        _deposit(collateral);
        _borrow(debt);

        uint256 expected = collateral * price * 8000 / (debt * 10_000);
        assertEq(pool.healthFactor(user), expected);
        // Borrowing within the 75% LTV always leaves HF >= 0.80 / 0.75.
        assertGe(pool.healthFactor(user) + 1, uint256(1e18) * 8000 / 7500);
    }

    function test_Repay_CapsAtDebt() public {
        _deposit(10e18);
        _borrow(1000e18);
        dai.mint(user, 500e18);
        vm.prank(user);
        uint256 repaid = pool.repay(type(uint256).max);
        assertEq(repaid, 1000e18);
        assertEq(pool.debtOf(user), 0);
        assertEq(dai.balanceOf(user), 500e18);
        assertEq(pool.healthFactor(user), type(uint256).max);
    }

    function test_Withdraw_KeepsHealthFactorAboveOne() public {
        _deposit(10e18);
        _borrow(4000e18);
        // Needs 5 WETH at 0.80 to keep HF >= 1: 5 WETH may leave.
        vm.prank(user);
        pool.withdraw(5e18);
        assertEq(pool.healthFactor(user), 1e18);
        assertEq(weth.balanceOf(user), 5e18);
    }

    function test_RevertWhen_WithdrawBreaksHealthFactor() public {
        _deposit(10e18);
        _borrow(4000e18);
        // 4.999 WETH left: 4,999 * 0.80 / 4,000 = 0.99980
        vm.expectRevert(
            abi.encodeWithSelector(
                MockLendingPool.MockLendingPoolHealthFactorTooLow.selector, 0.9998e18
            )
        );
        vm.prank(user);
        pool.withdraw(5.001e18);
    }

    function test_RevertWhen_WithdrawMoreThanDeposited() public {
        _deposit(1e18);
        vm.expectRevert(
            abi.encodeWithSelector(
                MockLendingPool.MockLendingPoolInsufficientCollateral.selector, 2e18, 1e18
            )
        );
        vm.prank(user);
        pool.withdraw(2e18);
    }

    function test_RevertWhen_ZeroAmount() public {
        vm.expectRevert(MockLendingPool.MockLendingPoolZeroAmount.selector);
        vm.prank(user);
        pool.deposit(0);
    }

    function test_FlashLoan_RepaidWithFee() public {
        FlashBorrower borrower = new FlashBorrower();
        uint256 amount = 100_000e18;
        uint256 fee = pool.flashFee(address(dai), amount);
        assertEq(fee, 90e18);
        dai.mint(address(borrower), fee);

        vm.expectEmit(address(pool));
        emit MockLendingPool.FlashLoanExecuted(address(borrower), address(dai), amount, fee);
        assertTrue(pool.flashLoan(borrower, address(dai), amount, "hello"));

        assertEq(borrower.seenBalance(), amount + fee);
        assertEq(borrower.seenData(), "hello");
        assertEq(dai.balanceOf(address(pool)), 1_000_000e18 + fee);
        assertEq(dai.balanceOf(address(borrower)), 0);
        assertEq(pool.maxFlashLoan(address(dai)), 1_000_000e18 + fee);
    }

    function test_RevertWhen_FlashLoanNotRepaid() public {
        FlashBorrower borrower = new FlashBorrower();
        borrower.configure(false, true);
        vm.expectRevert(
            abi.encodeWithSelector(
                IERC20Errors.ERC20InsufficientAllowance.selector, address(pool), 0, 1000.9e18
            )
        );
        pool.flashLoan(borrower, address(dai), 1000e18, "");
    }

    function test_RevertWhen_FlashLoanCallbackAnswersWrongly() public {
        FlashBorrower borrower = new FlashBorrower();
        borrower.configure(true, false);
        vm.expectRevert(MockLendingPool.MockLendingPoolFlashLoanCallbackFailed.selector);
        pool.flashLoan(borrower, address(dai), 1000e18, "");
    }

    function test_RevertWhen_FlashLoanUnsupportedToken() public {
        FlashBorrower borrower = new FlashBorrower();
        MockERC20 other = new MockERC20("Other", "OTH", 18);
        assertEq(pool.maxFlashLoan(address(other)), 0);
        vm.expectRevert(
            abi.encodeWithSelector(
                MockLendingPool.MockLendingPoolUnsupportedToken.selector, address(other)
            )
        );
        pool.flashLoan(borrower, address(other), 1, "");
    }
}
