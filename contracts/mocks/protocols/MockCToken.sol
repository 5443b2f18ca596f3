// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {SafeERC20} from "@openzeppelin/contracts/token/ERC20/utils/SafeERC20.sol";
import {MockComptroller} from "./MockComptroller.sol";

/// @title MockCToken
/// @notice A Compound-style market over one ERC-20 underlying, written for this project from
///         Compound V2's public cToken interface and documented semantics (no Compound bytecode
///         ships in a registry package). Suppliers `mint` cTokens (8 decimals) at the exchange
///         rate and `redeem` them; borrowers `borrow` against collateral their comptroller
///         counts and `repayBorrow`. Debt accrues simple interest per block, compounded at each
///         accrual, as in Compound.
/// @dev Compound's formulas (mantissas scaled by 1e18):
///      - `exchangeRate = (cash + totalBorrows) * 1e18 / totalSupply`, the initial rate while
///        nothing is supplied (no reserves: the reserve factor is 0);
///      - accrual over `n` blocks: `factor = borrowRatePerBlock * n`, `totalBorrows +=
///        totalBorrows * factor`, `borrowIndex += borrowIndex * factor`;
///      - `borrowBalanceStored(a) = principal(a) * borrowIndex / interestIndex(a)`.
///      `mint` and `repayBorrow` count the underlying actually received. `redeemUnderlying`
///      burns the cTokens rounded up (Compound rounds down, which leaks dust to redeemers).
///      Failures revert with custom errors carrying the comptroller's code. No liquidation,
///      no reserves, no `repayBorrow` of someone else's debt without `repayBorrowBehalf`.
contract MockCToken is IERC20 {
    using SafeERC20 for IERC20;

    /*//////////////////////////////////////////////////////////////
                                 ERRORS
    //////////////////////////////////////////////////////////////*/

    /// @notice The comptroller refused the action with `errorCode`.
    error MockCTokenComptrollerRejection(uint256 errorCode);
    /// @notice The market holds less underlying than asked for.
    error MockCTokenCashNotAvailable(uint256 requested, uint256 cash);
    /// @notice A repayment above the debt.
    error MockCTokenRepayExceedsDebt(uint256 repayAmount, uint256 debt);
    /// @notice Not enough cTokens (balance or allowance).
    error MockCTokenInsufficientTokens(uint256 requested, uint256 available);
    /// @notice An amount that converts to zero cTokens.
    error MockCTokenZeroTokens();

    /*//////////////////////////////////////////////////////////////
                                 EVENTS
    //////////////////////////////////////////////////////////////*/

    /// @notice Interest accrued (Compound's event).
    /// @param cashPrior Cash before.
    /// @param interestAccumulated Interest added to the borrows.
    /// @param borrowIndex The new index.
    /// @param totalBorrows The new total.
    event AccrueInterest(
        uint256 cashPrior, uint256 interestAccumulated, uint256 borrowIndex, uint256 totalBorrows
    );
    /// @notice `minter` supplied `mintAmount` for `mintTokens` (Compound's event).
    /// @param minter The supplier.
    /// @param mintAmount Underlying received.
    /// @param mintTokens cTokens minted.
    event Mint(address minter, uint256 mintAmount, uint256 mintTokens);
    /// @notice `redeemer` redeemed `redeemTokens` for `redeemAmount` (Compound's event).
    /// @param redeemer The supplier.
    /// @param redeemAmount Underlying paid out.
    /// @param redeemTokens cTokens burnt.
    event Redeem(address redeemer, uint256 redeemAmount, uint256 redeemTokens);
    /// @notice `borrower` borrowed `borrowAmount` (Compound's event).
    /// @param borrower The borrower.
    /// @param borrowAmount Underlying lent.
    /// @param accountBorrows The borrower's debt after.
    /// @param totalBorrows The market's borrows after.
    event Borrow(
        address borrower, uint256 borrowAmount, uint256 accountBorrows, uint256 totalBorrows
    );
    /// @notice `payer` repaid `repayAmount` of `borrower`'s debt (Compound's event).
    /// @param payer Who paid.
    /// @param borrower Whose debt.
    /// @param repayAmount Underlying received.
    /// @param accountBorrows The borrower's debt after.
    /// @param totalBorrows The market's borrows after.
    event RepayBorrow(
        address payer,
        address borrower,
        uint256 repayAmount,
        uint256 accountBorrows,
        uint256 totalBorrows
    );

    /*//////////////////////////////////////////////////////////////
                                 STORAGE
    //////////////////////////////////////////////////////////////*/

    /// @notice One account's debt: its principal at `interestIndex`.
    struct BorrowSnapshot {
        uint256 principal;
        uint256 interestIndex;
    }

    /// @notice cToken decimals, as Compound's.
    uint8 public constant decimals = 8;

    /// @notice The asset supplied and borrowed.
    address public immutable underlying;
    /// @notice The risk manager.
    MockComptroller public immutable comptroller;
    /// @notice The exchange rate while nothing is supplied.
    uint256 public immutable initialExchangeRateMantissa;
    /// @notice Interest per block, scaled by 1e18.
    uint256 public immutable borrowRatePerBlock;
    /// @notice The cToken's name.
    string public name;
    /// @notice The cToken's symbol.
    string public symbol;

    /// @inheritdoc IERC20
    uint256 public totalSupply;
    /// @notice Total debt of all borrowers, as of the last accrual.
    uint256 public totalBorrows;
    /// @notice The borrow index (starts at 1e18).
    uint256 public borrowIndex;
    /// @notice The block of the last accrual.
    uint256 public accrualBlockNumber;

    mapping(address => uint256) internal balances;
    mapping(address => mapping(address => uint256)) internal allowances;
    mapping(address => BorrowSnapshot) internal accountBorrows;

    /*//////////////////////////////////////////////////////////////
                               CONSTRUCTOR
    //////////////////////////////////////////////////////////////*/

    /// @param underlying_ The underlying ERC-20.
    /// @param comptroller_ The comptroller that lists this market.
    /// @param initialExchangeRateMantissa_ Underlying per cToken, scaled by 1e18, at start.
    /// @param borrowRatePerBlock_ Interest per block, scaled by 1e18.
    /// @param name_ The cToken's name.
    /// @param symbol_ The cToken's symbol.
    constructor(
        address underlying_,
        MockComptroller comptroller_,
        uint256 initialExchangeRateMantissa_,
        uint256 borrowRatePerBlock_,
        string memory name_,
        string memory symbol_
    ) {
        underlying = underlying_;
        comptroller = comptroller_;
        initialExchangeRateMantissa = initialExchangeRateMantissa_;
        borrowRatePerBlock = borrowRatePerBlock_;
        name = name_;
        symbol = symbol_;
        borrowIndex = 1e18;
        accrualBlockNumber = block.number;
    }

    /*//////////////////////////////////////////////////////////////
                                 MARKET
    //////////////////////////////////////////////////////////////*/

    /// @notice Supplies `mintAmount` of the underlying (approve it first) for cTokens.
    /// @param mintAmount Underlying to supply.
    /// @return 0 (Compound's success code).
    function mint(uint256 mintAmount) external returns (uint256) {
        accrueInterest();
        _check(comptroller.mintAllowed(address(this), msg.sender, mintAmount));
        uint256 rate = exchangeRateStored();
        uint256 received = _pullUnderlying(msg.sender, mintAmount);
        uint256 tokens = received * 1e18 / rate;
        if (tokens == 0) revert MockCTokenZeroTokens();
        totalSupply += tokens;
        balances[msg.sender] += tokens;
        emit Mint(msg.sender, received, tokens);
        emit Transfer(address(this), msg.sender, tokens);
        return 0;
    }

    /// @notice Burns `redeemTokens` cTokens for underlying.
    /// @param redeemTokens cTokens to burn.
    /// @return 0 (Compound's success code).
    function redeem(uint256 redeemTokens) external returns (uint256) {
        accrueInterest();
        _redeem(redeemTokens, redeemTokens * exchangeRateStored() / 1e18);
        return 0;
    }

    /// @notice Burns the cTokens worth `redeemAmount` of underlying (rounded up) for it.
    /// @param redeemAmount Underlying to receive.
    /// @return 0 (Compound's success code).
    function redeemUnderlying(uint256 redeemAmount) external returns (uint256) {
        accrueInterest();
        uint256 rate = exchangeRateStored();
        _redeem((redeemAmount * 1e18 + rate - 1) / rate, redeemAmount);
        return 0;
    }

    /// @notice Borrows `borrowAmount` of the underlying against the caller's collateral.
    /// @param borrowAmount Underlying to borrow.
    /// @return 0 (Compound's success code).
    function borrow(uint256 borrowAmount) external returns (uint256) {
        accrueInterest();
        _check(comptroller.borrowAllowed(address(this), msg.sender, borrowAmount));
        uint256 cash = getCash();
        if (borrowAmount > cash) revert MockCTokenCashNotAvailable(borrowAmount, cash);
        uint256 debt = borrowBalanceStored(msg.sender) + borrowAmount;
        accountBorrows[msg.sender] = BorrowSnapshot(debt, borrowIndex);
        totalBorrows += borrowAmount;
        emit Borrow(msg.sender, borrowAmount, debt, totalBorrows);
        IERC20(underlying).safeTransfer(msg.sender, borrowAmount);
        return 0;
    }

    /// @notice Repays `repayAmount` of the caller's debt (`type(uint256).max`: all of it).
    /// @param repayAmount Underlying to repay (approve it first).
    /// @return 0 (Compound's success code).
    function repayBorrow(uint256 repayAmount) external returns (uint256) {
        _repay(msg.sender, msg.sender, repayAmount);
        return 0;
    }

    /// @notice Repays `repayAmount` of `borrower`'s debt from the caller.
    /// @param borrower Whose debt.
    /// @param repayAmount Underlying to repay (`type(uint256).max`: all of it).
    /// @return 0 (Compound's success code).
    function repayBorrowBehalf(address borrower, uint256 repayAmount) external returns (uint256) {
        _repay(msg.sender, borrower, repayAmount);
        return 0;
    }

    /// @notice Accrues interest up to this block.
    /// @return 0 (Compound's success code).
    function accrueInterest() public returns (uint256) {
        uint256 blocks = block.number - accrualBlockNumber;
        if (blocks == 0) return 0;
        uint256 cashPrior = getCash();
        uint256 factor = borrowRatePerBlock * blocks;
        uint256 interest = factor * totalBorrows / 1e18;
        totalBorrows += interest;
        borrowIndex += factor * borrowIndex / 1e18;
        accrualBlockNumber = block.number;
        emit AccrueInterest(cashPrior, interest, borrowIndex, totalBorrows);
        return 0;
    }

    /*//////////////////////////////////////////////////////////////
                                  VIEWS
    //////////////////////////////////////////////////////////////*/

    /// @notice Always true: this is a cToken.
    /// @return True.
    function isCToken() external pure returns (bool) {
        return true;
    }

    /// @notice The underlying the market holds.
    /// @return The cash.
    function getCash() public view returns (uint256) {
        return IERC20(underlying).balanceOf(address(this));
    }

    /// @notice Underlying per cToken, scaled by 1e18, as of the last accrual.
    /// @return The rate.
    function exchangeRateStored() public view returns (uint256) {
        if (totalSupply == 0) return initialExchangeRateMantissa;
        return (getCash() + totalBorrows) * 1e18 / totalSupply;
    }

    /// @notice Accrues, then returns the exchange rate.
    /// @return The rate.
    function exchangeRateCurrent() external returns (uint256) {
        accrueInterest();
        return exchangeRateStored();
    }

    /// @notice `account`'s debt as of the last accrual.
    /// @param account The borrower.
    /// @return The debt in underlying.
    function borrowBalanceStored(address account) public view returns (uint256) {
        BorrowSnapshot memory s = accountBorrows[account];
        if (s.principal == 0) return 0;
        return s.principal * borrowIndex / s.interestIndex;
    }

    /// @notice Accrues, then returns `account`'s debt.
    /// @param account The borrower.
    /// @return The debt in underlying.
    function borrowBalanceCurrent(address account) external returns (uint256) {
        accrueInterest();
        return borrowBalanceStored(account);
    }

    /// @notice Accrues, then returns the total debt.
    /// @return The total borrows.
    function totalBorrowsCurrent() external returns (uint256) {
        accrueInterest();
        return totalBorrows;
    }

    /// @notice Accrues, then returns the underlying `owner`'s cTokens are worth.
    /// @param owner The supplier.
    /// @return The underlying amount.
    function balanceOfUnderlying(address owner) external returns (uint256) {
        accrueInterest();
        return balances[owner] * exchangeRateStored() / 1e18;
    }

    /// @notice Interest per block suppliers earn: the borrow rate times utilisation.
    /// @return The rate, scaled by 1e18.
    function supplyRatePerBlock() external view returns (uint256) {
        uint256 total = getCash() + totalBorrows;
        return total == 0 ? 0 : borrowRatePerBlock * totalBorrows / total;
    }

    /// @notice What the comptroller reads: `(0, cTokenBalance, borrowBalance, exchangeRate)`.
    /// @param account The account.
    /// @return error 0.
    /// @return tokens Its cTokens.
    /// @return borrowed Its debt, as of the last accrual.
    /// @return rate The stored exchange rate.
    function getAccountSnapshot(address account)
        external
        view
        returns (uint256 error, uint256 tokens, uint256 borrowed, uint256 rate)
    {
        return (0, balances[account], borrowBalanceStored(account), exchangeRateStored());
    }

    /*//////////////////////////////////////////////////////////////
                                 ERC-20
    //////////////////////////////////////////////////////////////*/

    /// @inheritdoc IERC20
    function balanceOf(address account) external view returns (uint256) {
        return balances[account];
    }

    /// @inheritdoc IERC20
    function allowance(address owner, address spender) external view returns (uint256) {
        return allowances[owner][spender];
    }

    /// @inheritdoc IERC20
    function approve(address spender, uint256 value) external returns (bool) {
        allowances[msg.sender][spender] = value;
        emit Approval(msg.sender, spender, value);
        return true;
    }

    /// @inheritdoc IERC20
    function transfer(address to, uint256 value) external returns (bool) {
        _transferTokens(msg.sender, to, value);
        return true;
    }

    /// @inheritdoc IERC20
    function transferFrom(address from, address to, uint256 value) external returns (bool) {
        uint256 allowed = allowances[from][msg.sender];
        if (allowed != type(uint256).max) {
            if (value > allowed) revert MockCTokenInsufficientTokens(value, allowed);
            allowances[from][msg.sender] = allowed - value;
        }
        _transferTokens(from, to, value);
        return true;
    }

    /*//////////////////////////////////////////////////////////////
                                INTERNAL
    //////////////////////////////////////////////////////////////*/

    function _redeem(uint256 tokens, uint256 amount) private {
        if (tokens == 0) revert MockCTokenZeroTokens();
        _check(comptroller.redeemAllowed(address(this), msg.sender, tokens));
        uint256 held = balances[msg.sender];
        if (tokens > held) revert MockCTokenInsufficientTokens(tokens, held);
        uint256 cash = getCash();
        if (amount > cash) revert MockCTokenCashNotAvailable(amount, cash);
        balances[msg.sender] = held - tokens;
        totalSupply -= tokens;
        emit Transfer(msg.sender, address(this), tokens);
        emit Redeem(msg.sender, amount, tokens);
        IERC20(underlying).safeTransfer(msg.sender, amount);
    }

    function _repay(address payer, address borrower, uint256 repayAmount) private {
        accrueInterest();
        _check(comptroller.repayBorrowAllowed(address(this), payer, borrower, repayAmount));
        uint256 debt = borrowBalanceStored(borrower);
        uint256 amount = repayAmount == type(uint256).max ? debt : repayAmount;
        if (amount > debt) revert MockCTokenRepayExceedsDebt(amount, debt);
        uint256 received = _pullUnderlying(payer, amount);
        uint256 left = debt - received;
        accountBorrows[borrower] = BorrowSnapshot(left, borrowIndex);
        // Rounding of the accounts' balances may leave the total a unit below their sum.
        totalBorrows = totalBorrows > received ? totalBorrows - received : 0;
        emit RepayBorrow(payer, borrower, received, left, totalBorrows);
    }

    function _transferTokens(address from, address to, uint256 value) private {
        _check(comptroller.transferAllowed(address(this), from, to, value));
        uint256 held = balances[from];
        if (value > held) revert MockCTokenInsufficientTokens(value, held);
        balances[from] = held - value;
        balances[to] += value;
        emit Transfer(from, to, value);
    }

    /// @dev Pulls `amount` from `from` and returns what actually arrived (fee-on-transfer safe).
    function _pullUnderlying(address from, uint256 amount) private returns (uint256) {
        uint256 before = getCash();
        IERC20(underlying).safeTransferFrom(from, address(this), amount);
        return getCash() - before;
    }

    function _check(uint256 errorCode) private pure {
        if (errorCode != 0) revert MockCTokenComptrollerRejection(errorCode);
    }
}
