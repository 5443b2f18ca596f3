// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {SafeERC20} from "@openzeppelin/contracts/token/ERC20/utils/SafeERC20.sol";
import {IERC3156FlashBorrower} from "@openzeppelin/contracts/interfaces/IERC3156FlashBorrower.sol";
import {IERC3156FlashLender} from "@openzeppelin/contracts/interfaces/IERC3156FlashLender.sol";
import {Math} from "@openzeppelin/contracts/utils/math/Math.sol";
import {MockOracle} from "./MockOracle.sol";

/// @title MockLendingPool
/// @notice Single-market lending pool: deposit `collateralToken`, borrow `debtToken` against it,
///         repay, withdraw. Collateral is priced by a `MockOracle` (WAD price of one collateral
///         unit in debt units). Loan-to-value 75% caps borrowing; the liquidation threshold 80%
///         defines the health factor. Also an ERC-3156 flash lender for both tokens.
/// @dev With `value = collateral * price / 1e18` (in debt units):
///      - `healthFactor = value * 0.80 / debt` in WAD, `type(uint256).max` without debt;
///      - `borrow` reverts if the new debt exceeds `value * 0.75`;
///      - `withdraw` reverts if it leaves a health factor below 1e18 (Aave's rule).
///      The pool lends out whatever `debtToken` it holds: fund it by transferring or minting.
///      No interest, no liquidation.
contract MockLendingPool is IERC3156FlashLender {
    using SafeERC20 for IERC20;

    /*//////////////////////////////////////////////////////////////
                                 ERRORS
    //////////////////////////////////////////////////////////////*/

    /// @notice A zero amount was given.
    error MockLendingPoolZeroAmount();
    /// @notice The debt after `borrow` would exceed the 75% loan-to-value limit.
    error MockLendingPoolBorrowExceedsLtv(uint256 newDebt, uint256 borrowLimit);
    /// @notice `withdraw` would leave a health factor below 1 (WAD).
    error MockLendingPoolHealthFactorTooLow(uint256 healthFactor);
    /// @notice `withdraw` asked for more collateral than deposited.
    error MockLendingPoolInsufficientCollateral(uint256 requested, uint256 available);
    /// @notice The pool holds less of the token than requested.
    error MockLendingPoolInsufficientLiquidity(uint256 requested, uint256 available);
    /// @notice The token is neither the collateral nor the debt token.
    error MockLendingPoolUnsupportedToken(address token);
    /// @notice The flash-loan receiver did not return the ERC-3156 success value.
    error MockLendingPoolFlashLoanCallbackFailed();

    /*//////////////////////////////////////////////////////////////
                                 EVENTS
    //////////////////////////////////////////////////////////////*/

    /// @notice Collateral was deposited.
    /// @param user The depositor.
    /// @param amount Collateral deposited.
    event Deposited(address indexed user, uint256 amount);
    /// @notice Collateral was withdrawn.
    /// @param user The withdrawer.
    /// @param amount Collateral withdrawn.
    event Withdrawn(address indexed user, uint256 amount);
    /// @notice Debt was taken.
    /// @param user The borrower.
    /// @param amount Debt token borrowed.
    event Borrowed(address indexed user, uint256 amount);
    /// @notice Debt was repaid.
    /// @param user The borrower.
    /// @param amount Debt token repaid.
    event Repaid(address indexed user, uint256 amount);
    /// @notice A flash loan was made and repaid with its fee.
    /// @param receiver The borrower.
    /// @param token The token lent.
    /// @param amount Amount lent.
    /// @param fee Fee paid on top.
    event FlashLoanExecuted(
        address indexed receiver, address indexed token, uint256 amount, uint256 fee
    );

    /*//////////////////////////////////////////////////////////////
                                 STORAGE
    //////////////////////////////////////////////////////////////*/

    /// @notice Loan-to-value limit for borrowing, in basis points.
    uint256 public constant LTV_BPS = 7500;
    /// @notice Liquidation threshold used by the health factor, in basis points.
    uint256 public constant LIQUIDATION_THRESHOLD_BPS = 8000;
    /// @notice Flash-loan fee, in basis points of the amount.
    uint256 public constant FLASH_LOAN_FEE_BPS = 9;

    uint256 private constant _BPS = 10_000;
    uint256 private constant _WAD = 1e18;
    bytes32 private constant _CALLBACK_SUCCESS = keccak256("ERC3156FlashBorrower.onFlashLoan");

    /// @notice The token deposited as collateral.
    IERC20 public immutable collateralToken;
    /// @notice The token borrowed.
    IERC20 public immutable debtToken;
    /// @notice The price feed for collateral in debt units.
    MockOracle public immutable oracle;

    /// @notice Collateral deposited by each user.
    mapping(address user => uint256 amount) public collateralOf;
    /// @notice Debt owed by each user.
    mapping(address user => uint256 amount) public debtOf;

    /*//////////////////////////////////////////////////////////////
                               CONSTRUCTOR
    //////////////////////////////////////////////////////////////*/

    /// @param collateralToken_ Token deposited as collateral.
    /// @param debtToken_ Token lent out.
    /// @param oracle_ Price feed for collateral in debt units.
    constructor(IERC20 collateralToken_, IERC20 debtToken_, MockOracle oracle_) {
        collateralToken = collateralToken_;
        debtToken = debtToken_;
        oracle = oracle_;
    }

    /*//////////////////////////////////////////////////////////////
                                EXTERNAL
    //////////////////////////////////////////////////////////////*/

    /// @notice Deposits `amount` collateral from `msg.sender` (needs an approval).
    /// @param amount Collateral to deposit.
    function deposit(uint256 amount) external {
        if (amount == 0) revert MockLendingPoolZeroAmount();
        collateralOf[msg.sender] += amount;
        collateralToken.safeTransferFrom(msg.sender, address(this), amount);
        emit Deposited(msg.sender, amount);
    }

    /// @notice Withdraws `amount` collateral to `msg.sender`; reverts if the health factor would
    ///         fall below 1.
    /// @param amount Collateral to withdraw.
    function withdraw(uint256 amount) external {
        if (amount == 0) revert MockLendingPoolZeroAmount();
        uint256 available = collateralOf[msg.sender];
        if (amount > available) revert MockLendingPoolInsufficientCollateral(amount, available);
        collateralOf[msg.sender] = available - amount;
        uint256 hf = healthFactor(msg.sender);
        if (hf < _WAD) revert MockLendingPoolHealthFactorTooLow(hf);
        collateralToken.safeTransfer(msg.sender, amount);
        emit Withdrawn(msg.sender, amount);
    }

    /// @notice Borrows `amount` debt token to `msg.sender`; reverts if the total debt would exceed
    ///         75% of the collateral's value.
    /// @param amount Debt token to borrow.
    function borrow(uint256 amount) external {
        if (amount == 0) revert MockLendingPoolZeroAmount();
        uint256 newDebt = debtOf[msg.sender] + amount;
        uint256 limit = borrowLimit(msg.sender);
        if (newDebt > limit) revert MockLendingPoolBorrowExceedsLtv(newDebt, limit);
        uint256 liquidity = debtToken.balanceOf(address(this));
        if (amount > liquidity) revert MockLendingPoolInsufficientLiquidity(amount, liquidity);
        debtOf[msg.sender] = newDebt;
        debtToken.safeTransfer(msg.sender, amount);
        emit Borrowed(msg.sender, amount);
    }

    /// @notice Repays up to `amount` of `msg.sender`'s debt (capped at the debt; needs an
    ///         approval).
    /// @param amount Most debt token to repay; `type(uint256).max` repays everything.
    /// @return repaid The amount actually repaid.
    function repay(uint256 amount) external returns (uint256 repaid) {
        if (amount == 0) revert MockLendingPoolZeroAmount();
        uint256 debt = debtOf[msg.sender];
        repaid = Math.min(amount, debt);
        debtOf[msg.sender] = debt - repaid;
        debtToken.safeTransferFrom(msg.sender, address(this), repaid);
        emit Repaid(msg.sender, repaid);
    }

    /// @notice ERC-3156 flash loan of `token` (collateral or debt token). Sends `amount` to
    ///         `receiver`, calls `receiver.onFlashLoan(msg.sender, token, amount, fee, data)`,
    ///         then pulls `amount + fee` back from `receiver` with `transferFrom`.
    /// @param receiver The borrower; must return `keccak256("ERC3156FlashBorrower.onFlashLoan")`
    ///        and approve the pool for `amount + fee`.
    /// @param token Token to borrow.
    /// @param amount Amount to borrow.
    /// @param data Passed through to the callback.
    /// @return Always true (failures revert).
    function flashLoan(
        IERC3156FlashBorrower receiver,
        address token,
        uint256 amount,
        bytes calldata data
    ) external returns (bool) {
        if (token != address(collateralToken) && token != address(debtToken)) {
            revert MockLendingPoolUnsupportedToken(token);
        }
        uint256 available = IERC20(token).balanceOf(address(this));
        if (amount > available) revert MockLendingPoolInsufficientLiquidity(amount, available);
        uint256 fee = _flashFee(amount);
        IERC20(token).safeTransfer(address(receiver), amount);
        if (receiver.onFlashLoan(msg.sender, token, amount, fee, data) != _CALLBACK_SUCCESS) {
            revert MockLendingPoolFlashLoanCallbackFailed();
        }
        IERC20(token).safeTransferFrom(address(receiver), address(this), amount + fee);
        emit FlashLoanExecuted(address(receiver), token, amount, fee);
        return true;
    }

    /// @notice ERC-3156 fee for borrowing `amount` of `token` (9 bps).
    /// @param token Collateral or debt token.
    /// @param amount Amount to borrow.
    /// @return The fee, rounded down.
    function flashFee(address token, uint256 amount) external view returns (uint256) {
        if (token != address(collateralToken) && token != address(debtToken)) {
            revert MockLendingPoolUnsupportedToken(token);
        }
        return _flashFee(amount);
    }

    /*//////////////////////////////////////////////////////////////
                                 VIEWS
    //////////////////////////////////////////////////////////////*/

    /// @notice ERC-3156 maximum flash loan: the pool's balance of a supported token, else 0.
    /// @param token Token to borrow.
    /// @return The largest amount `flashLoan` accepts.
    function maxFlashLoan(address token) public view returns (uint256) {
        if (token != address(collateralToken) && token != address(debtToken)) return 0;
        return IERC20(token).balanceOf(address(this));
    }

    /// @notice Value of `user`'s collateral in debt units: `collateral * price / 1e18`.
    /// @param user The borrower.
    /// @return Collateral value, rounded down.
    function collateralValue(address user) public view returns (uint256) {
        return Math.mulDiv(collateralOf[user], oracle.price(), _WAD);
    }

    /// @notice Most debt `user` may hold: `collateral * price * 0.75 / 1e18`.
    /// @param user The borrower.
    /// @return Borrow limit in debt units, rounded down.
    function borrowLimit(address user) public view returns (uint256) {
        return Math.mulDiv(collateralOf[user], oracle.price() * LTV_BPS, _WAD * _BPS);
    }

    /// @notice Health factor in WAD: `collateral * price * 0.80 / debt`, with the WAD price
    ///         making the result WAD-scaled; `type(uint256).max` when `user` has no debt.
    /// @param user The borrower.
    /// @return The health factor, rounded down; below 1e18 means liquidatable.
    function healthFactor(address user) public view returns (uint256) {
        uint256 debt = debtOf[user];
        if (debt == 0) return type(uint256).max;
        return
            Math.mulDiv(collateralOf[user], oracle.price() * LIQUIDATION_THRESHOLD_BPS, debt * _BPS);
    }

    /*//////////////////////////////////////////////////////////////
                                INTERNAL
    //////////////////////////////////////////////////////////////*/

    /// @dev Flash-loan fee for `amount`.
    function _flashFee(uint256 amount) private pure returns (uint256) {
        return amount * FLASH_LOAN_FEE_BPS / _BPS;
    }
}
