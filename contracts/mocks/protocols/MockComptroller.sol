// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {IERC20Metadata} from "@openzeppelin/contracts/token/ERC20/extensions/IERC20Metadata.sol";
import {MockAggregatorV3} from "./MockAggregatorV3.sol";
import {MockCToken} from "./MockCToken.sol";

/// @title MockComptroller
/// @notice The risk manager of a Compound-style money market, written for this project from
///         Compound V2's public interface and documented semantics (no Compound bytecode ships
///         in a registry package): markets are listed with a collateral factor and a price
///         feed; an account enters markets to use its supply there as collateral; every
///         borrow, redeem and cToken transfer is checked against the account's liquidity.
/// @dev Compound's rules, in its units (USD with 18 decimals):
///      - the price of a market's underlying is `answer * 10^(36 - feedDecimals -
///        underlyingDecimals)` (Compound's "price per smallest unit, scaled by 1e18"); a feed
///        answer <= 0 is `PRICE_ERROR`;
///      - collateral = sum over entered markets of `cTokenBalance * exchangeRate * price *
///        collateralFactor`; debt = sum of `borrowBalance * price`;
///      - `getAccountLiquidity` returns `(0, collateral - debt, 0)` or `(0, 0, debt - collateral)`;
///      - a borrow or redeem that would leave a shortfall is refused (`INSUFFICIENT_LIQUIDITY`);
///        a borrower not yet in the market enters it on borrow, as in Compound.
///      Error codes are Compound's: 0 NO_ERROR, 3 INSUFFICIENT_SHORTFALL, 4
///      INSUFFICIENT_LIQUIDITY, 9 MARKET_NOT_LISTED, 12 NONZERO_BORROW_BALANCE, 13 PRICE_ERROR,
///      14 REJECTION. No liquidation, no COMP rewards, no close factor.
contract MockComptroller {
    /*//////////////////////////////////////////////////////////////
                                 ERRORS
    //////////////////////////////////////////////////////////////*/

    /// @notice The caller is not the admin.
    error MockComptrollerNotAdmin(address caller);
    /// @notice The market is already listed.
    error MockComptrollerMarketListed(address cToken);
    /// @notice The market is not listed.
    error MockComptrollerMarketNotListed(address cToken);
    /// @notice A collateral factor above 90 %.
    error MockComptrollerCollateralFactorTooHigh(uint256 mantissa);
    /// @notice A cToken that does not name this comptroller.
    error MockComptrollerWrongComptroller(address cToken);

    /*//////////////////////////////////////////////////////////////
                                 EVENTS
    //////////////////////////////////////////////////////////////*/

    /// @notice A market was listed.
    /// @param cToken The market.
    /// @param feed Its underlying's price feed.
    event MarketListed(address cToken, address feed);
    /// @notice `account` entered `cToken`'s market.
    /// @param cToken The market.
    /// @param account The account.
    event MarketEntered(address cToken, address account);
    /// @notice `account` left `cToken`'s market.
    /// @param cToken The market.
    /// @param account The account.
    event MarketExited(address cToken, address account);
    /// @notice A market's collateral factor changed.
    /// @param cToken The market.
    /// @param oldCollateralFactorMantissa Before.
    /// @param newCollateralFactorMantissa After.
    event NewCollateralFactor(
        address cToken, uint256 oldCollateralFactorMantissa, uint256 newCollateralFactorMantissa
    );

    /*//////////////////////////////////////////////////////////////
                                 STORAGE
    //////////////////////////////////////////////////////////////*/

    /// @notice No error.
    uint256 public constant NO_ERROR = 0;
    /// @notice The account has no shortfall (Compound's code 3).
    uint256 public constant INSUFFICIENT_SHORTFALL = 3;
    /// @notice The action would leave a shortfall (Compound's code 4).
    uint256 public constant INSUFFICIENT_LIQUIDITY = 4;
    /// @notice The market is not listed (Compound's code 9).
    uint256 public constant MARKET_NOT_LISTED = 9;
    /// @notice The account still borrows in the market (Compound's code 12).
    uint256 public constant NONZERO_BORROW_BALANCE = 12;
    /// @notice A feed gave no positive price (Compound's code 13).
    uint256 public constant PRICE_ERROR = 13;
    /// @notice The caller may not do this (Compound's code 14).
    uint256 public constant REJECTION = 14;
    /// @notice The highest collateral factor, 90 %.
    uint256 public constant MAX_COLLATERAL_FACTOR = 0.9e18;

    /// @notice One market.
    struct Market {
        bool isListed;
        uint256 collateralFactorMantissa;
        MockAggregatorV3 feed;
        mapping(address account => bool) membership;
    }

    /// @notice A hypothetical action: redeem `redeemTokens` of and borrow `borrowAmount` from
    ///         `cToken`.
    struct Change {
        address cToken;
        uint256 redeemTokens;
        uint256 borrowAmount;
    }

    /// @notice Who lists markets and sets collateral factors.
    address public immutable admin;

    mapping(address cToken => Market) internal _markets;
    mapping(address account => MockCToken[]) internal _accountAssets;

    /*//////////////////////////////////////////////////////////////
                               CONSTRUCTOR
    //////////////////////////////////////////////////////////////*/

    constructor() {
        admin = msg.sender;
    }

    /*//////////////////////////////////////////////////////////////
                              ADMINISTRATION
    //////////////////////////////////////////////////////////////*/

    /// @notice Lists `cToken`, priced by `feed`, with a collateral factor of 0.
    /// @param cToken The market (its `comptroller()` must be this contract).
    /// @param feed The AggregatorV3 feed of its underlying in USD.
    function supportMarket(MockCToken cToken, MockAggregatorV3 feed) external {
        _onlyAdmin();
        Market storage m = _markets[address(cToken)];
        if (m.isListed) revert MockComptrollerMarketListed(address(cToken));
        if (address(cToken.comptroller()) != address(this)) {
            revert MockComptrollerWrongComptroller(address(cToken));
        }
        m.isListed = true;
        m.feed = feed;
        emit MarketListed(address(cToken), address(feed));
    }

    /// @notice Sets `cToken`'s collateral factor (1e18 = 100 %, at most 90 %).
    /// @param cToken The market.
    /// @param newCollateralFactorMantissa The factor.
    function setCollateralFactor(MockCToken cToken, uint256 newCollateralFactorMantissa) external {
        _onlyAdmin();
        Market storage m = _listed(address(cToken));
        if (newCollateralFactorMantissa > MAX_COLLATERAL_FACTOR) {
            revert MockComptrollerCollateralFactorTooHigh(newCollateralFactorMantissa);
        }
        uint256 old = m.collateralFactorMantissa;
        m.collateralFactorMantissa = newCollateralFactorMantissa;
        emit NewCollateralFactor(address(cToken), old, newCollateralFactorMantissa);
    }

    /*//////////////////////////////////////////////////////////////
                                 ACCOUNTS
    //////////////////////////////////////////////////////////////*/

    /// @notice Enters the caller into each market, so its supply there counts as collateral.
    /// @param cTokens The markets.
    /// @return results One error code per market (0, or 9 for a market not listed).
    function enterMarkets(address[] calldata cTokens) external returns (uint256[] memory results) {
        results = new uint256[](cTokens.length);
        for (uint256 i = 0; i < cTokens.length; ++i) {
            results[i] = _enter(MockCToken(cTokens[i]), msg.sender);
        }
    }

    /// @notice Leaves a market: refused while the caller borrows there or if its supply there
    ///         is needed as collateral.
    /// @param cToken The market.
    /// @return An error code (0 on success).
    function exitMarket(address cToken) external returns (uint256) {
        (, uint256 tokens, uint256 borrowed,) = MockCToken(cToken).getAccountSnapshot(msg.sender);
        if (borrowed != 0) return NONZERO_BORROW_BALANCE;
        uint256 allowed = redeemAllowed(cToken, msg.sender, tokens);
        if (allowed != NO_ERROR) return allowed;
        Market storage m = _markets[cToken];
        if (!m.membership[msg.sender]) return NO_ERROR;
        m.membership[msg.sender] = false;
        MockCToken[] storage assets = _accountAssets[msg.sender];
        for (uint256 i = 0; i < assets.length; ++i) {
            if (address(assets[i]) == cToken) {
                assets[i] = assets[assets.length - 1];
                assets.pop();
                break;
            }
        }
        emit MarketExited(cToken, msg.sender);
        return NO_ERROR;
    }

    /*//////////////////////////////////////////////////////////////
                                  VIEWS
    //////////////////////////////////////////////////////////////*/

    /// @notice A market's listing, as Compound's `markets(address)` returns it.
    /// @param cToken The market.
    /// @return isListed Whether it is listed.
    /// @return collateralFactorMantissa Its collateral factor.
    /// @return isComped Always false (no rewards).
    function markets(address cToken)
        external
        view
        returns (bool isListed, uint256 collateralFactorMantissa, bool isComped)
    {
        Market storage m = _markets[cToken];
        return (m.isListed, m.collateralFactorMantissa, false);
    }

    /// @notice The markets `account` entered.
    /// @param account The account.
    /// @return The markets.
    function getAssetsIn(address account) external view returns (MockCToken[] memory) {
        return _accountAssets[account];
    }

    /// @notice Whether `account` entered `cToken`'s market.
    /// @param account The account.
    /// @param cToken The market.
    /// @return Whether it did.
    function checkMembership(address account, address cToken) external view returns (bool) {
        return _markets[cToken].membership[account];
    }

    /// @notice The feed pricing `cToken`'s underlying.
    /// @param cToken The market.
    /// @return The feed.
    function priceFeed(address cToken) external view returns (address) {
        return address(_markets[cToken].feed);
    }

    /// @notice The price of one smallest unit of `cToken`'s underlying in USD, scaled by 1e18
    ///         (Compound's oracle convention); 0 if the feed gives no positive answer.
    /// @param cToken The market.
    /// @return The price mantissa.
    function getUnderlyingPrice(address cToken) public view returns (uint256) {
        MockAggregatorV3 feed = _markets[cToken].feed;
        if (address(feed) == address(0)) return 0;
        (, int256 answer,,,) = feed.latestRoundData();
        if (answer <= 0) return 0;
        uint256 decimals = uint256(feed.decimals())
            + uint256(IERC20Metadata(MockCToken(cToken).underlying()).decimals());
        // forge-lint: disable-next-line(unsafe-typecast)
        return uint256(answer) * 10 ** (36 - decimals); // answer > 0 checked above
    }

    /// @notice `account`'s liquidity across the markets it entered.
    /// @param account The account.
    /// @return error An error code (13 if a price is missing).
    /// @return liquidity USD (1e18) it may still borrow.
    /// @return shortfall USD (1e18) its debt exceeds its collateral by.
    function getAccountLiquidity(address account)
        external
        view
        returns (uint256 error, uint256 liquidity, uint256 shortfall)
    {
        return _hypothetical(account, Change(address(0), 0, 0));
    }

    /// @notice The liquidity `account` would have after redeeming `redeemTokens` of and
    ///         borrowing `borrowAmount` from `cTokenModify`.
    /// @param account The account.
    /// @param cTokenModify The market acted on.
    /// @param redeemTokens cTokens redeemed.
    /// @param borrowAmount Underlying borrowed.
    /// @return error An error code.
    /// @return liquidity USD (1e18) left to borrow.
    /// @return shortfall USD (1e18) of shortfall.
    function getHypotheticalAccountLiquidity(
        address account,
        address cTokenModify,
        uint256 redeemTokens,
        uint256 borrowAmount
    ) external view returns (uint256 error, uint256 liquidity, uint256 shortfall) {
        return _hypothetical(account, Change(cTokenModify, redeemTokens, borrowAmount));
    }

    /*//////////////////////////////////////////////////////////////
                          HOOKS CALLED BY MARKETS
    //////////////////////////////////////////////////////////////*/

    /// @notice Whether `minter` may supply to `cToken`.
    /// @param cToken The market.
    /// @return An error code.
    function mintAllowed(address cToken, address, uint256) external view returns (uint256) {
        return _markets[cToken].isListed ? NO_ERROR : MARKET_NOT_LISTED;
    }

    /// @notice Whether `redeemer` may redeem `redeemTokens` of `cToken`: refused if that leaves
    ///         a shortfall.
    /// @param cToken The market.
    /// @param redeemer The account.
    /// @param redeemTokens cTokens redeemed.
    /// @return An error code.
    function redeemAllowed(address cToken, address redeemer, uint256 redeemTokens)
        public
        view
        returns (uint256)
    {
        Market storage m = _markets[cToken];
        if (!m.isListed) return MARKET_NOT_LISTED;
        if (!m.membership[redeemer]) return NO_ERROR;
        (uint256 err,, uint256 shortfall) = _hypothetical(redeemer, Change(cToken, redeemTokens, 0));
        if (err != NO_ERROR) return err;
        return shortfall > 0 ? INSUFFICIENT_LIQUIDITY : NO_ERROR;
    }

    /// @notice Whether `borrower` may borrow `borrowAmount` from `cToken`; a borrower not in the
    ///         market enters it (only when the market itself asks).
    /// @param cToken The market.
    /// @param borrower The account.
    /// @param borrowAmount Underlying borrowed.
    /// @return An error code.
    function borrowAllowed(address cToken, address borrower, uint256 borrowAmount)
        external
        returns (uint256)
    {
        Market storage m = _markets[cToken];
        if (!m.isListed) return MARKET_NOT_LISTED;
        if (!m.membership[borrower]) {
            if (msg.sender != cToken) return REJECTION;
            uint256 entered = _enter(MockCToken(cToken), borrower);
            if (entered != NO_ERROR) return entered;
        }
        if (getUnderlyingPrice(cToken) == 0) return PRICE_ERROR;
        (uint256 err,, uint256 shortfall) = _hypothetical(borrower, Change(cToken, 0, borrowAmount));
        if (err != NO_ERROR) return err;
        return shortfall > 0 ? INSUFFICIENT_LIQUIDITY : NO_ERROR;
    }

    /// @notice Whether a repayment to `cToken` may happen.
    /// @param cToken The market.
    /// @return An error code.
    function repayBorrowAllowed(address cToken, address, address, uint256)
        external
        view
        returns (uint256)
    {
        return _markets[cToken].isListed ? NO_ERROR : MARKET_NOT_LISTED;
    }

    /// @notice Whether `src` may transfer `transferTokens` of `cToken` (as a redeem would).
    /// @param cToken The market.
    /// @param src The sender.
    /// @param transferTokens cTokens moved.
    /// @return An error code.
    function transferAllowed(address cToken, address src, address, uint256 transferTokens)
        external
        view
        returns (uint256)
    {
        return redeemAllowed(cToken, src, transferTokens);
    }

    /*//////////////////////////////////////////////////////////////
                                INTERNAL
    //////////////////////////////////////////////////////////////*/

    function _enter(MockCToken cToken, address account) private returns (uint256) {
        Market storage m = _markets[address(cToken)];
        if (!m.isListed) return MARKET_NOT_LISTED;
        if (m.membership[account]) return NO_ERROR;
        m.membership[account] = true;
        _accountAssets[account].push(cToken);
        emit MarketEntered(address(cToken), account);
        return NO_ERROR;
    }

    function _hypothetical(address account, Change memory change)
        private
        view
        returns (uint256, uint256, uint256)
    {
        uint256 collateral;
        uint256 debt;
        MockCToken[] storage assets = _accountAssets[account];
        for (uint256 i = 0; i < assets.length; ++i) {
            (bool priced, uint256 c, uint256 d) = _position(assets[i], account, change);
            if (!priced) return (PRICE_ERROR, 0, 0);
            collateral += c;
            debt += d;
        }
        if (collateral > debt) return (NO_ERROR, collateral - debt, 0);
        return (NO_ERROR, 0, debt - collateral);
    }

    /// @dev `account`'s collateral value in `asset` and its debt there, plus the effects of
    ///      `change` if it acts on `asset`, in USD 1e18; `priced` is false when the feed gives no
    ///      positive price.
    function _position(MockCToken asset, address account, Change memory change)
        private
        view
        returns (bool priced, uint256 collateral, uint256 debt)
    {
        uint256 price = getUnderlyingPrice(address(asset));
        if (price == 0) return (false, 0, 0);
        (, uint256 tokens, uint256 borrowed, uint256 rate) = asset.getAccountSnapshot(account);
        if (address(asset) == change.cToken) borrowed += change.borrowAmount;
        debt = price * borrowed / 1e18;
        // Value of one cToken (scaled by 1e18) as collateral, in USD 1e18.
        rate = _markets[address(asset)].collateralFactorMantissa * rate / 1e18 * price / 1e18;
        collateral = rate * tokens / 1e18;
        if (address(asset) == change.cToken) debt += rate * change.redeemTokens / 1e18;
        return (true, collateral, debt);
    }

    function _listed(address cToken) private view returns (Market storage m) {
        m = _markets[cToken];
        if (!m.isListed) revert MockComptrollerMarketNotListed(cToken);
    }

    function _onlyAdmin() private view {
        if (msg.sender != admin) revert MockComptrollerNotAdmin(msg.sender);
    }
}
