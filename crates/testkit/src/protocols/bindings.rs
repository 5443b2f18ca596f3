//! `sol!` bindings of the protocols the test bed deploys: the subset of each ABI the bed and its
//! actions use, declared by hand from the public interfaces. The protocol tests check every
//! selector, event topic and error selector declared here against the ABI of the artifact that
//! is deployed (the npm package's, or the embedded one for the contracts of
//! `contracts/mocks/protocols/`), so a drifting signature fails a test instead of encoding the
//! wrong call.

#![allow(missing_docs)] // generated items; each interface is documented

use alloy_sol_types::sol;

sol! {
    /// Uniswap V3 factory (`@uniswap/v3-core`).
    #[sol(all_derives)]
    interface IUniswapV3Factory {
        event PoolCreated(
            address indexed token0,
            address indexed token1,
            uint24 indexed fee,
            int24 tickSpacing,
            address pool
        );
        function owner() external view returns (address);
        function feeAmountTickSpacing(uint24 fee) external view returns (int24);
        function getPool(address tokenA, address tokenB, uint24 fee)
            external view returns (address pool);
        function createPool(address tokenA, address tokenB, uint24 fee)
            external returns (address pool);
    }
}

sol! {
    /// A Uniswap V3 pool (`@uniswap/v3-core`).
    #[sol(all_derives)]
    interface IUniswapV3Pool {
        event Swap(
            address indexed sender,
            address indexed recipient,
            int256 amount0,
            int256 amount1,
            uint160 sqrtPriceX96,
            uint128 liquidity,
            int24 tick
        );
        event Mint(
            address sender,
            address indexed owner,
            int24 indexed tickLower,
            int24 indexed tickUpper,
            uint128 amount,
            uint256 amount0,
            uint256 amount1
        );
        function token0() external view returns (address);
        function token1() external view returns (address);
        function fee() external view returns (uint24);
        function tickSpacing() external view returns (int24);
        function liquidity() external view returns (uint128);
        function slot0() external view returns (
            uint160 sqrtPriceX96,
            int24 tick,
            uint16 observationIndex,
            uint16 observationCardinality,
            uint16 observationCardinalityNext,
            uint8 feeProtocol,
            bool unlocked
        );
        function observations(uint256 index) external view returns (
            uint32 blockTimestamp,
            int56 tickCumulative,
            uint160 secondsPerLiquidityCumulativeX128,
            bool initialized
        );
        function observe(uint32[] calldata secondsAgos) external view returns (
            int56[] memory tickCumulatives,
            uint160[] memory secondsPerLiquidityCumulativeX128s
        );
        function feeGrowthGlobal0X128() external view returns (uint256);
        function feeGrowthGlobal1X128() external view returns (uint256);
        function ticks(int24 tick) external view returns (
            uint128 liquidityGross,
            int128 liquidityNet,
            uint256 feeGrowthOutside0X128,
            uint256 feeGrowthOutside1X128,
            int56 tickCumulativeOutside,
            uint160 secondsPerLiquidityOutsideX128,
            uint32 secondsOutside,
            bool initialized
        );
        function increaseObservationCardinalityNext(uint16 observationCardinalityNext) external;
    }
}

sol! {
    /// Uniswap V3 NonfungiblePositionManager (`@uniswap/v3-periphery`).
    #[sol(all_derives)]
    contract NonfungiblePositionManager {
        struct MintParams {
            address token0;
            address token1;
            uint24 fee;
            int24 tickLower;
            int24 tickUpper;
            uint256 amount0Desired;
            uint256 amount1Desired;
            uint256 amount0Min;
            uint256 amount1Min;
            address recipient;
            uint256 deadline;
        }
        struct DecreaseLiquidityParams {
            uint256 tokenId;
            uint128 liquidity;
            uint256 amount0Min;
            uint256 amount1Min;
            uint256 deadline;
        }
        struct CollectParams {
            uint256 tokenId;
            address recipient;
            uint128 amount0Max;
            uint128 amount1Max;
        }
        event IncreaseLiquidity(
            uint256 indexed tokenId, uint128 liquidity, uint256 amount0, uint256 amount1
        );
        event Transfer(address indexed from, address indexed to, uint256 indexed tokenId);

        constructor(address _factory, address _WETH9, address _tokenDescriptor_);

        function createAndInitializePoolIfNecessary(
            address token0, address token1, uint24 fee, uint160 sqrtPriceX96
        ) external payable returns (address pool);
        function mint(MintParams calldata params) external payable returns (
            uint256 tokenId, uint128 liquidity, uint256 amount0, uint256 amount1
        );
        function decreaseLiquidity(DecreaseLiquidityParams calldata params)
            external payable returns (uint256 amount0, uint256 amount1);
        function collect(CollectParams calldata params)
            external payable returns (uint256 amount0, uint256 amount1);
        function positions(uint256 tokenId) external view returns (
            uint96 nonce,
            address operator,
            address token0,
            address token1,
            uint24 fee,
            int24 tickLower,
            int24 tickUpper,
            uint128 liquidity,
            uint256 feeGrowthInside0LastX128,
            uint256 feeGrowthInside1LastX128,
            uint128 tokensOwed0,
            uint128 tokensOwed1
        );
        function balanceOf(address owner) external view returns (uint256);
        function ownerOf(uint256 tokenId) external view returns (address);
        function tokenOfOwnerByIndex(address owner, uint256 index) external view returns (uint256);
        function approve(address to, uint256 tokenId) external;
        function getApproved(uint256 tokenId) external view returns (address);
    }
}

sol! {
    /// Uniswap V3 SwapRouter (`@uniswap/v3-periphery`).
    #[sol(all_derives)]
    contract SwapRouter {
        struct ExactInputSingleParams {
            address tokenIn;
            address tokenOut;
            uint24 fee;
            address recipient;
            uint256 deadline;
            uint256 amountIn;
            uint256 amountOutMinimum;
            uint160 sqrtPriceLimitX96;
        }
        struct ExactInputParams {
            bytes path;
            address recipient;
            uint256 deadline;
            uint256 amountIn;
            uint256 amountOutMinimum;
        }
        constructor(address _factory, address _WETH9);
        function exactInputSingle(ExactInputSingleParams calldata params)
            external payable returns (uint256 amountOut);
        function exactInput(ExactInputParams calldata params)
            external payable returns (uint256 amountOut);
    }
}

sol! {
    /// Uniswap V3 QuoterV2 (`@uniswap/v3-periphery`): quotes by simulating the swap (call it
    /// read-only).
    #[sol(all_derives)]
    contract QuoterV2 {
        struct QuoteExactInputSingleParams {
            address tokenIn;
            address tokenOut;
            uint256 amountIn;
            uint24 fee;
            uint160 sqrtPriceLimitX96;
        }
        constructor(address _factory, address _WETH9);
        function quoteExactInputSingle(QuoteExactInputSingleParams memory params)
            external returns (
                uint256 amountOut,
                uint160 sqrtPriceX96After,
                uint32 initializedTicksCrossed,
                uint256 gasEstimate
            );
    }
}

sol! {
    /// The Universal Router 2.1 (`@uniswap/universal-router`).
    #[sol(all_derives)]
    contract UniversalRouter {
        struct RouterParameters {
            address permit2;
            address weth9;
            address v2Factory;
            address v3Factory;
            bytes32 pairInitCodeHash;
            bytes32 poolInitCodeHash;
            address v4PoolManager;
            address v3NFTPositionManager;
            address v4PositionManager;
            address spokePool;
        }
        error ExecutionFailed(uint256 commandIndex, bytes message);
        error TransactionDeadlinePassed();
        error V3TooLittleReceived();
        error V2TooLittleReceived();
        constructor(RouterParameters params);
        function execute(bytes calldata commands, bytes[] calldata inputs, uint256 deadline)
            external payable;
        function V3_POSITION_MANAGER() external view returns (address);
    }
}

sol! {
    /// The Permit2-compatible allowance contract (`contracts/mocks/protocols/MockPermit2.sol`):
    /// Permit2's AllowanceTransfer ABI.
    #[sol(all_derives)]
    contract MockPermit2 {
        struct PermitDetails {
            address token;
            uint160 amount;
            uint48 expiration;
            uint48 nonce;
        }
        struct PermitSingle {
            PermitDetails details;
            address spender;
            uint256 sigDeadline;
        }
        struct PermitBatch {
            PermitDetails[] details;
            address spender;
            uint256 sigDeadline;
        }
        struct TokenSpenderPair {
            address token;
            address spender;
        }
        struct AllowanceTransferDetails {
            address from;
            address to;
            uint160 amount;
            address token;
        }

        error AllowanceExpired(uint256 deadline);
        error InsufficientAllowance(uint256 amount);
        error ExcessiveInvalidation();
        error SignatureExpired(uint256 signatureDeadline);
        error InvalidNonce();
        error InvalidSignatureLength();
        error InvalidSignature();
        error InvalidSigner();
        error InvalidContractSignature();

        event Approval(
            address indexed owner,
            address indexed token,
            address indexed spender,
            uint160 amount,
            uint48 expiration
        );
        event Permit(
            address indexed owner,
            address indexed token,
            address indexed spender,
            uint160 amount,
            uint48 expiration,
            uint48 nonce
        );
        event Lockdown(address indexed owner, address token, address spender);
        event NonceInvalidation(
            address indexed owner,
            address indexed token,
            address indexed spender,
            uint48 newNonce,
            uint48 oldNonce
        );

        function DOMAIN_SEPARATOR() external view returns (bytes32);
        function allowance(address user, address token, address spender)
            external view returns (uint160 amount, uint48 expiration, uint48 nonce);
        function approve(address token, address spender, uint160 amount, uint48 expiration)
            external;
        function permit(address owner, PermitSingle memory permitSingle, bytes calldata signature)
            external;
        function permit(address owner, PermitBatch memory permitBatch, bytes calldata signature)
            external;
        function transferFrom(address from, address to, uint160 amount, address token) external;
        function transferFrom(AllowanceTransferDetails[] calldata transferDetails) external;
        function lockdown(TokenSpenderPair[] calldata approvals) external;
        function invalidateNonces(address token, address spender, uint48 newNonce) external;
    }
}

sol! {
    /// The settable AggregatorV3 feed (`contracts/mocks/protocols/MockAggregatorV3.sol`).
    #[sol(all_derives)]
    contract MockAggregatorV3 {
        error MockAggregatorV3NotOwner(address caller);
        event AnswerUpdated(int256 indexed current, uint256 indexed roundId, uint256 updatedAt);
        event NewRound(uint256 indexed roundId, address indexed startedBy, uint256 startedAt);
        constructor(uint8 decimals_, string description_, int256 initialAnswer);
        function decimals() external view returns (uint8);
        function description() external view returns (string memory);
        function version() external view returns (uint256);
        function owner() external view returns (address);
        function latestRoundData() external view returns (
            uint80 roundId,
            int256 answer,
            uint256 startedAt,
            uint256 updatedAt,
            uint80 answeredInRound
        );
        function getRoundData(uint80 roundId) external view returns (
            uint80 roundId,
            int256 answer,
            uint256 startedAt,
            uint256 updatedAt,
            uint80 answeredInRound
        );
        function latestAnswer() external view returns (int256);
        function latestTimestamp() external view returns (uint256);
        function latestRound() external view returns (uint256);
        function updateAnswer(int256 answer) external;
        function setRoundData(
            uint80 roundId,
            int256 answer,
            uint256 startedAt,
            uint256 updatedAt,
            uint80 answeredInRound
        ) external;
    }
}

sol! {
    /// The Compound-style comptroller (`contracts/mocks/protocols/MockComptroller.sol`).
    #[sol(all_derives)]
    contract MockComptroller {
        error MockComptrollerNotAdmin(address caller);
        event MarketListed(address cToken, address feed);
        event MarketEntered(address cToken, address account);
        event MarketExited(address cToken, address account);
        constructor();
        function admin() external view returns (address);
        function supportMarket(address cToken, address feed) external;
        function setCollateralFactor(address cToken, uint256 newCollateralFactorMantissa) external;
        function enterMarkets(address[] calldata cTokens) external returns (uint256[] memory);
        function exitMarket(address cToken) external returns (uint256);
        function markets(address cToken) external view returns (
            bool isListed, uint256 collateralFactorMantissa, bool isComped
        );
        function getAssetsIn(address account) external view returns (address[] memory);
        function checkMembership(address account, address cToken) external view returns (bool);
        function priceFeed(address cToken) external view returns (address);
        function getUnderlyingPrice(address cToken) external view returns (uint256);
        function getAccountLiquidity(address account) external view returns (
            uint256 error, uint256 liquidity, uint256 shortfall
        );
        function getHypotheticalAccountLiquidity(
            address account, address cTokenModify, uint256 redeemTokens, uint256 borrowAmount
        ) external view returns (uint256 error, uint256 liquidity, uint256 shortfall);
    }
}

sol! {
    /// A Compound-style market (`contracts/mocks/protocols/MockCToken.sol`).
    #[sol(all_derives)]
    contract MockCToken {
        error MockCTokenComptrollerRejection(uint256 errorCode);
        error MockCTokenCashNotAvailable(uint256 requested, uint256 cash);
        error MockCTokenRepayExceedsDebt(uint256 repayAmount, uint256 debt);
        error MockCTokenInsufficientTokens(uint256 requested, uint256 available);
        error MockCTokenZeroTokens();
        event Mint(address minter, uint256 mintAmount, uint256 mintTokens);
        event Redeem(address redeemer, uint256 redeemAmount, uint256 redeemTokens);
        event Borrow(
            address borrower, uint256 borrowAmount, uint256 accountBorrows, uint256 totalBorrows
        );
        event RepayBorrow(
            address payer,
            address borrower,
            uint256 repayAmount,
            uint256 accountBorrows,
            uint256 totalBorrows
        );
        constructor(
            address underlying_,
            address comptroller_,
            uint256 initialExchangeRateMantissa_,
            uint256 borrowRatePerBlock_,
            string name_,
            string symbol_
        );
        function underlying() external view returns (address);
        function comptroller() external view returns (address);
        function borrowRatePerBlock() external view returns (uint256);
        function totalBorrows() external view returns (uint256);
        function balanceOf(address account) external view returns (uint256);
        function mint(uint256 mintAmount) external returns (uint256);
        function redeem(uint256 redeemTokens) external returns (uint256);
        function redeemUnderlying(uint256 redeemAmount) external returns (uint256);
        function borrow(uint256 borrowAmount) external returns (uint256);
        function repayBorrow(uint256 repayAmount) external returns (uint256);
        function repayBorrowBehalf(address borrower, uint256 repayAmount)
            external returns (uint256);
        function accrueInterest() external returns (uint256);
        function getCash() external view returns (uint256);
        function exchangeRateStored() external view returns (uint256);
        function exchangeRateCurrent() external returns (uint256);
        function borrowBalanceStored(address account) external view returns (uint256);
        function borrowBalanceCurrent(address account) external returns (uint256);
        function balanceOfUnderlying(address owner) external returns (uint256);
        function getAccountSnapshot(address account) external view returns (
            uint256 error, uint256 tokens, uint256 borrowed, uint256 rate
        );
    }
}

sol! {
    /// Aave V3 PoolAddressesProvider (`@aave/core-v3`).
    #[sol(all_derives)]
    contract PoolAddressesProvider {
        constructor(string marketId, address owner);
        function setACLAdmin(address newAclAdmin) external;
        function setACLManager(address newAclManager) external;
        function setPoolImpl(address newPoolImpl) external;
        function setPoolConfiguratorImpl(address newPoolConfiguratorImpl) external;
        function setPriceOracle(address newPriceOracle) external;
        function setPoolDataProvider(address newDataProvider) external;
        function getPool() external view returns (address);
        function getPoolConfigurator() external view returns (address);
        function getPriceOracle() external view returns (address);
        function getACLManager() external view returns (address);
        function getPoolDataProvider() external view returns (address);
    }
}

sol! {
    /// Aave V3 ACLManager (`@aave/core-v3`).
    #[sol(all_derives)]
    contract ACLManager {
        constructor(address provider);
        function addPoolAdmin(address admin) external;
        function isPoolAdmin(address admin) external view returns (bool);
    }
}

sol! {
    /// Aave V3 Pool (`@aave/core-v3`), through its proxy.
    #[sol(all_derives)]
    contract AavePool {
        constructor(address provider);
        function supply(address asset, uint256 amount, address onBehalfOf, uint16 referralCode)
            external;
        function withdraw(address asset, uint256 amount, address to) external returns (uint256);
        function borrow(
            address asset,
            uint256 amount,
            uint256 interestRateMode,
            uint16 referralCode,
            address onBehalfOf
        ) external;
        function repay(address asset, uint256 amount, uint256 interestRateMode, address onBehalfOf)
            external returns (uint256);
        function setUserUseReserveAsCollateral(address asset, bool useAsCollateral) external;
        function getUserAccountData(address user) external view returns (
            uint256 totalCollateralBase,
            uint256 totalDebtBase,
            uint256 availableBorrowsBase,
            uint256 currentLiquidationThreshold,
            uint256 ltv,
            uint256 healthFactor
        );
        function getReservesList() external view returns (address[] memory);
        function ADDRESSES_PROVIDER() external view returns (address);
    }
}

sol! {
    /// Aave V3 PoolConfigurator (`@aave/core-v3`), through its proxy.
    #[sol(all_derives)]
    contract PoolConfigurator {
        struct InitReserveInput {
            address aTokenImpl;
            address stableDebtTokenImpl;
            address variableDebtTokenImpl;
            uint8 underlyingAssetDecimals;
            address interestRateStrategyAddress;
            address underlyingAsset;
            address treasury;
            address incentivesController;
            string aTokenName;
            string aTokenSymbol;
            string variableDebtTokenName;
            string variableDebtTokenSymbol;
            string stableDebtTokenName;
            string stableDebtTokenSymbol;
            bytes params;
        }
        function initReserves(InitReserveInput[] calldata input) external;
        function configureReserveAsCollateral(
            address asset, uint256 ltv, uint256 liquidationThreshold, uint256 liquidationBonus
        ) external;
        function setReserveBorrowing(address asset, bool enabled) external;
        function setReserveFactor(address asset, uint256 newReserveFactor) external;
    }
}

sol! {
    /// Aave V3 AToken, VariableDebtToken and StableDebtToken implementations (`@aave/core-v3`):
    /// the constructor they share.
    #[sol(all_derives)]
    contract AaveTokenImplementation {
        constructor(address pool);
    }
}

sol! {
    /// Aave V3 VariableDebtToken (`@aave/core-v3`): credit delegation.
    #[sol(all_derives)]
    interface IAaveVariableDebtToken {
        event BorrowAllowanceDelegated(
            address indexed fromUser, address indexed toUser, address indexed asset, uint256 amount
        );
        function approveDelegation(address delegatee, uint256 amount) external;
        function borrowAllowance(address fromUser, address toUser)
            external view returns (uint256);
        function UNDERLYING_ASSET_ADDRESS() external view returns (address);
    }
}

sol! {
    /// Aave V3 DefaultReserveInterestRateStrategy (`@aave/core-v3`); rates in ray (1e27).
    #[sol(all_derives)]
    contract DefaultReserveInterestRateStrategy {
        constructor(
            address provider,
            uint256 optimalUsageRatio,
            uint256 baseVariableBorrowRate,
            uint256 variableRateSlope1,
            uint256 variableRateSlope2,
            uint256 stableRateSlope1,
            uint256 stableRateSlope2,
            uint256 baseStableRateOffset,
            uint256 stableRateExcessOffset,
            uint256 optimalStableToTotalDebtRatio
        );
    }
}

sol! {
    /// Aave V3 AaveOracle (`@aave/core-v3`): AggregatorV3 sources, `latestAnswer` read.
    #[sol(all_derives)]
    contract AaveOracle {
        constructor(
            address provider,
            address[] assets,
            address[] sources,
            address fallbackOracle,
            address baseCurrency,
            uint256 baseCurrencyUnit
        );
        function getAssetPrice(address asset) external view returns (uint256);
        function getSourceOfAsset(address asset) external view returns (address);
        function BASE_CURRENCY_UNIT() external view returns (uint256);
    }
}

sol! {
    /// Aave V3 AaveProtocolDataProvider (`@aave/core-v3`).
    #[sol(all_derives)]
    contract AaveProtocolDataProvider {
        constructor(address addressesProvider);
        function getReserveTokensAddresses(address asset) external view returns (
            address aTokenAddress, address stableDebtTokenAddress, address variableDebtTokenAddress
        );
        function getReserveConfigurationData(address asset) external view returns (
            uint256 decimals,
            uint256 ltv,
            uint256 liquidationThreshold,
            uint256 liquidationBonus,
            uint256 reserveFactor,
            bool usageAsCollateralEnabled,
            bool borrowingEnabled,
            bool stableBorrowRateEnabled,
            bool isActive,
            bool isFrozen
        );
        function getUserReserveData(address asset, address user) external view returns (
            uint256 currentATokenBalance,
            uint256 currentStableDebt,
            uint256 currentVariableDebt,
            uint256 principalStableDebt,
            uint256 scaledVariableDebt,
            uint256 stableBorrowRate,
            uint256 liquidityRate,
            uint40 stableRateLastUpdated,
            bool usageAsCollateralEnabled
        );
    }
}
