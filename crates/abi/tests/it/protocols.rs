//! The valuation adapters' protocol views match the protocols: each Uniswap V3 and Aave V3
//! call is a function of the npm artifact with the same canonical signature and return types;
//! the feed and cToken views, which no registry package ships an artifact of, match their
//! published signatures.

use crate::artifacts::{Abi, load};
use alloy_primitives::hex;
use alloy_sol_types::{SolCall, SolType};
use pace_abi::protocols::*;

/// `C` is a function of `abi` with the same canonical signature and return types.
pub(crate) fn check<C: SolCall>(abi: &Abi) {
    let f = abi.functions.get(&C::SELECTOR).unwrap_or_else(|| {
        panic!(
            "{} (0x{}) is not a function of {}",
            C::SIGNATURE,
            hex::encode(C::SELECTOR),
            abi.name
        )
    });
    assert_eq!(f.signature, C::SIGNATURE, "in {}", abi.name);
    assert_eq!(
        <C::ReturnTuple<'_> as SolType>::SOL_NAME,
        f.outputs,
        "return types of {} in {}",
        C::SIGNATURE,
        abi.name
    );
}

#[test]
fn uniswap_v3_views_match_the_npm_artifacts() {
    use IPositionManagerView as M;
    use IUniswapV3PoolView as P;
    let pool = load("@uniswap/v3-core/artifacts/contracts/UniswapV3Pool.sol/UniswapV3Pool.json");
    check::<P::token0Call>(&pool);
    check::<P::token1Call>(&pool);
    check::<P::feeCall>(&pool);
    check::<P::slot0Call>(&pool);
    check::<P::observeCall>(&pool);
    check::<P::feeGrowthGlobal0X128Call>(&pool);
    check::<P::feeGrowthGlobal1X128Call>(&pool);
    check::<P::ticksCall>(&pool);
    assert_eq!(P::IUniswapV3PoolViewCalls::SELECTORS.len(), 8);
    let factory =
        load("@uniswap/v3-core/artifacts/contracts/UniswapV3Factory.sol/UniswapV3Factory.json");
    check::<IUniswapV3FactoryView::getPoolCall>(&factory);
    let manager = load(
        "@uniswap/v3-periphery/artifacts/contracts/NonfungiblePositionManager.sol/NonfungiblePositionManager.json",
    );
    check::<M::supportsInterfaceCall>(&manager);
    check::<M::factoryCall>(&manager);
    check::<M::balanceOfCall>(&manager);
    check::<M::tokenOfOwnerByIndexCall>(&manager);
    check::<M::positionsCall>(&manager);
    assert_eq!(M::IPositionManagerViewCalls::SELECTORS.len(), 5);
}

#[test]
fn aave_v3_views_match_the_npm_artifact() {
    let pool = load("@aave/core-v3/artifacts/contracts/protocol/pool/Pool.sol/Pool.json");
    check::<IAaveV3PoolView::getReservesListCall>(&pool);
    // A struct's `SOL_NAME` is its name: compare its fields with the artifact's tuple, and
    // its encoding with the fifteen static words that tuple is.
    let f = &pool.functions[&IAaveV3PoolView::getReserveDataCall::SELECTOR];
    assert_eq!(f.signature, IAaveV3PoolView::getReserveDataCall::SIGNATURE);
    assert_eq!(
        f.outputs,
        "(((uint256),uint128,uint128,uint128,uint128,uint128,uint40,uint16,address,address,\
         address,address,uint128,uint128,uint128))"
    );
    let data = IAaveV3PoolView::ReserveData {
        configuration: IAaveV3PoolView::ReserveConfigurationMap {
            data: alloy_primitives::U256::ZERO,
        },
        liquidityIndex: 0,
        currentLiquidityRate: 0,
        variableBorrowIndex: 0,
        currentVariableBorrowRate: 0,
        currentStableBorrowRate: 0,
        lastUpdateTimestamp: alloy_primitives::aliases::U40::ZERO,
        id: 0,
        aTokenAddress: alloy_primitives::Address::repeat_byte(1),
        stableDebtTokenAddress: alloy_primitives::Address::ZERO,
        variableDebtTokenAddress: alloy_primitives::Address::ZERO,
        interestRateStrategyAddress: alloy_primitives::Address::ZERO,
        accruedToTreasury: 0,
        unbacked: 0,
        isolationModeTotalDebt: 0,
    };
    let encoded = alloy_sol_types::SolValue::abi_encode(&data);
    assert_eq!(encoded.len(), 15 * 32);
    assert_eq!(
        &encoded[8 * 32 + 12..9 * 32],
        &[1u8; 20][..],
        "aTokenAddress is word 8"
    );
}

#[test]
fn feed_and_ctoken_views_have_their_published_signatures() {
    use ICTokenView as C;
    for (signature, selector) in [
        (IAggregatorV3::decimalsCall::SIGNATURE, "313ce567"),
        (IAggregatorV3::latestRoundDataCall::SIGNATURE, "feaf968c"),
        (C::underlyingCall::SIGNATURE, "6f307dc3"),
        (C::comptrollerCall::SIGNATURE, "5fe3b567"),
        (C::exchangeRateStoredCall::SIGNATURE, "182df0f5"),
        (C::exchangeRateCurrentCall::SIGNATURE, "bd6d894d"),
        (C::borrowBalanceStoredCall::SIGNATURE, "95dd9193"),
        (C::borrowBalanceCurrentCall::SIGNATURE, "17bfdfbc"),
    ] {
        assert_eq!(
            hex::encode(&alloy_primitives::keccak256(signature)[..4]),
            selector,
            "{signature}"
        );
    }
    assert_eq!(
        <IAggregatorV3::latestRoundDataCall as SolCall>::ReturnTuple::<'_>::SOL_NAME,
        "(uint80,int256,uint256,uint256,uint80)"
    );
}
