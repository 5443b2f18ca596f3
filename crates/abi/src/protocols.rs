//! `sol!` bindings of the protocol views the simulator's valuation adapters read: Uniswap V3
//! pools, factories and position managers, AggregatorV3 feeds, Aave V3 pools and
//! Compound-style cTokens. Read-only functions only, declared by hand from the protocols'
//! public interfaces; `tests/it/protocols.rs` checks each selector against the npm artifacts
//! (Uniswap V3, Aave V3) or the golden signature (the feed and the cToken, which ship no
//! artifact in a registry package).

use alloy_sol_types::sol;

sol! {
    /// The state views of a Uniswap V3 pool (`IUniswapV3PoolState`, `IUniswapV3PoolImmutables`,
    /// `IUniswapV3PoolDerivedState`) and its `Swap` event.
    #[sol(all_derives)]
    interface IUniswapV3PoolView {
        event Swap(
            address indexed sender,
            address indexed recipient,
            int256 amount0,
            int256 amount1,
            uint160 sqrtPriceX96,
            uint128 liquidity,
            int24 tick
        );
        function token0() external view returns (address);
        function token1() external view returns (address);
        function fee() external view returns (uint24);
        function slot0() external view returns (
            uint160 sqrtPriceX96,
            int24 tick,
            uint16 observationIndex,
            uint16 observationCardinality,
            uint16 observationCardinalityNext,
            uint8 feeProtocol,
            bool unlocked
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
    }
}

sol! {
    /// A Uniswap V3 factory's pool registry.
    #[sol(all_derives)]
    interface IUniswapV3FactoryView {
        function getPool(address tokenA, address tokenB, uint24 fee)
            external view returns (address pool);
    }
}

sol! {
    /// The views of Uniswap V3's NonfungiblePositionManager (an enumerable ERC-721 of
    /// positions).
    #[sol(all_derives)]
    interface IPositionManagerView {
        function supportsInterface(bytes4 interfaceId) external view returns (bool);
        function factory() external view returns (address);
        function balanceOf(address owner) external view returns (uint256);
        function tokenOfOwnerByIndex(address owner, uint256 index) external view returns (uint256);
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
    }
}

sol! {
    /// A Chainlink-style AggregatorV3 feed.
    #[sol(all_derives)]
    interface IAggregatorV3 {
        function decimals() external view returns (uint8);
        function latestRoundData() external view returns (
            uint80 roundId,
            int256 answer,
            uint256 startedAt,
            uint256 updatedAt,
            uint80 answeredInRound
        );
    }
}

sol! {
    /// The reserve views of an Aave V3 pool (`IPool.getReservesList`, `getReserveData`, the
    /// 15-field `DataTypes.ReserveData` of Aave V3.0).
    #[sol(all_derives)]
    interface IAaveV3PoolView {
        struct ReserveConfigurationMap {
            uint256 data;
        }
        struct ReserveData {
            ReserveConfigurationMap configuration;
            uint128 liquidityIndex;
            uint128 currentLiquidityRate;
            uint128 variableBorrowIndex;
            uint128 currentVariableBorrowRate;
            uint128 currentStableBorrowRate;
            uint40 lastUpdateTimestamp;
            uint16 id;
            address aTokenAddress;
            address stableDebtTokenAddress;
            address variableDebtTokenAddress;
            address interestRateStrategyAddress;
            uint128 accruedToTreasury;
            uint128 unbacked;
            uint128 isolationModeTotalDebt;
        }
        function getReservesList() external view returns (address[] memory);
        function getReserveData(address asset) external view returns (ReserveData memory);
    }
}

sol! {
    /// The views of a Compound V2-style cToken. `exchangeRateCurrent` and
    /// `borrowBalanceCurrent` accrue interest first; the simulator calls them read-only.
    #[sol(all_derives)]
    interface ICTokenView {
        function underlying() external view returns (address);
        function comptroller() external view returns (address);
        function exchangeRateStored() external view returns (uint256);
        function exchangeRateCurrent() external returns (uint256);
        function borrowBalanceStored(address account) external view returns (uint256);
        function borrowBalanceCurrent(address account) external returns (uint256);
    }
}
