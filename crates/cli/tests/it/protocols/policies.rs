//! The policies of the protocols cases, as the pipeline's in-process protocol tests write them:
//! the bed's tokens with caps and prices, each protocol's entry points as targets and
//! selectors, and the contracts it acts through as counterparties.

use super::harness::Harness;
use alloy_primitives::{Address, U256, b256};
use alloy_sol_types::SolCall;
use pace_abi::rights::IAaveV3Pool;
use pace_contracts::bindings::IERC20;
use pace_testkit::protocols::{
    Chain as _,
    bindings::{
        AavePool, MockCToken, MockComptroller, MockPermit2, NonfungiblePositionManager, SwapRouter,
        UniversalRouter as Router,
    },
    ether,
};
use pace_types::{Policy, TablePrice, TokenAmount, V3PoolPrice};

/// EIP-1967's implementation slot: a proxy's logic contract.
const IMPLEMENTATION_SLOT: alloy_primitives::B256 =
    b256!("360894a13ba1a3210667c828492db98dca3e2076cc3735a920a3ca505d382bbc");

fn selector<C: SolCall>() -> [u8; 4] {
    C::SELECTOR
}

/// A policy over the world's tokens for `targets` and `selectors`, with `tokens` allowed too
/// and the contracts the protocols act through (`touched`) as counterparties: WETH at par with
/// ether, DAI and USDC at 1,000 per ether, caps of 100 WETH and 100,000 DAI and USDC, a loss of
/// at most 1 % and a health factor of at least 1.2.
pub(crate) fn base(
    h: &Harness,
    targets: &[Address],
    selectors: &[[u8; 4]],
    tokens: &[Address],
    touched: &[Address],
) -> Policy {
    let a = h.a;
    let mut allowed_tokens = vec![a.weth, a.dai, a.usdc];
    allowed_tokens.extend_from_slice(tokens);
    let usdc = |n: u64| U256::from(n) * U256::from(1_000_000u64);
    let cap = |token, amount| TokenAmount { token, amount };
    let price = |token, amount| TablePrice {
        token,
        amount,
        value: ether(1),
    };
    Policy {
        name: Some("protocols bed on anvil".into()),
        chain_id: Some(h.anvil.chain_id()),
        account: Some(a.account),
        allowed_targets: targets.to_vec(),
        allowed_selectors: selectors.iter().map(|s| (*s).into()).collect(),
        allowed_tokens,
        spend_caps: vec![
            cap(a.weth, ether(100)),
            cap(a.dai, ether(100_000)),
            cap(a.usdc, usdc(100_000)),
        ],
        max_slippage_bps: 100,
        max_price_impact_bps: 100,
        max_simulation_age_secs: 60,
        allowed_touched: touched.to_vec(),
        prices: vec![
            price(a.weth, ether(1)),
            price(a.dai, ether(1_000)),
            price(a.usdc, usdc(1_000)),
        ],
        min_health_factor_bps: Some(12_000),
        max_loss_bps: Some(100),
        outcome_tolerance_bps: 50,
        ..Policy::default()
    }
}

/// Uniswap V3 swaps: SwapRouter and the position manager as targets, the pools as
/// counterparties, WETH at par and DAI and USDC priced by the V3 pools' TWAP only.
pub(crate) fn v3(h: &Harness) -> Policy {
    let (a, v3) = (h.a, h.bed.uniswap_v3);
    let pools: Vec<Address> = v3.pools().iter().map(|p| p.address).collect();
    let mut p = base(
        h,
        &[a.weth, a.dai, a.usdc, v3.swap_router, v3.position_manager],
        &[
            selector::<IERC20::approveCall>(),
            selector::<SwapRouter::exactInputSingleCall>(),
            selector::<SwapRouter::exactInputCall>(),
            selector::<NonfungiblePositionManager::mintCall>(),
        ],
        &[v3.position_manager],
        &pools,
    );
    p.prices.retain(|t| t.token == a.weth);
    p.price_v3_pools = pools
        .iter()
        .map(|&pool| V3PoolPrice { pool, spot: false })
        .collect();
    p
}

/// `base` with the V3 policy's targets, selectors, pools and prices added.
pub(crate) fn with_v3(h: &Harness, mut base: Policy) -> Policy {
    let v3 = v3(h);
    for t in v3.allowed_targets {
        if !base.allowed_targets.contains(&t) {
            base.allowed_targets.push(t);
        }
    }
    base.allowed_selectors.extend(v3.allowed_selectors);
    base.allowed_touched.extend(v3.allowed_touched);
    base.price_v3_pools = v3.price_v3_pools;
    base
}

/// Every contract the bed's Aave V3 market acts through: its pool and implementation,
/// registry, oracle and feeds, logic libraries, and each reserve's tokens (with their
/// implementations, read from the node) and interest rate strategy.
pub(crate) fn aave_contracts(h: &Harness) -> Vec<Address> {
    let (aave, f) = (&h.bed.aave, &h.bed.feeds);
    let mut out = vec![
        aave.pool,
        aave.pool_implementation,
        aave.addresses_provider,
        aave.acl_manager,
        aave.oracle,
        aave.data_provider,
        f.eth_usd,
        f.dai_usd,
        f.usdc_usd,
    ];
    out.extend(aave.libraries.values().copied());
    for r in aave.reserves() {
        for token in [r.a_token, r.variable_debt_token, r.stable_debt_token] {
            out.push(token);
            let implementation = h.storage(token, U256::from_be_bytes(IMPLEMENTATION_SLOT.0));
            out.push(Address::from_word(
                implementation.to_be_bytes::<32>().into(),
            ));
        }
        let data = h
            .node
            .view_sol(
                aave.pool,
                &IAaveV3Pool::getReserveDataCall { asset: r.asset },
            )
            .unwrap_or_else(|e| panic!("getReserveData: {e}"));
        out.push(data.interestRateStrategyAddress);
    }
    out.sort_unstable();
    out.dedup();
    out
}

/// The bed's Aave V3 market: the pool as target, its tokens allowed (the aTokens and variable
/// debt tokens with a cap: withdrawing burns aTokens and repaying burns debt tokens, both
/// leaving the account), every contract it acts through as a counterparty.
pub(crate) fn aave(h: &Harness) -> Policy {
    let (a, aave) = (h.a, &h.bed.aave);
    let tokens: Vec<Address> = aave
        .reserves()
        .iter()
        .flat_map(|r| [r.a_token, r.variable_debt_token, r.stable_debt_token])
        .collect();
    let mut p = base(
        h,
        &[a.weth, a.dai, a.usdc, aave.pool],
        &[
            selector::<IERC20::approveCall>(),
            selector::<AavePool::supplyCall>(),
            selector::<AavePool::borrowCall>(),
            selector::<AavePool::repayCall>(),
            selector::<AavePool::withdrawCall>(),
        ],
        &tokens,
        &aave_contracts(h),
    );
    for r in aave.reserves() {
        for token in [r.a_token, r.variable_debt_token] {
            p.spend_caps.push(TokenAmount {
                token,
                amount: U256::MAX >> 1,
            });
        }
    }
    p
}

/// The bed's Compound-style market: the cTokens and the comptroller as targets, the cTokens as
/// tokens (capped: redeeming burns them), the feeds the comptroller reads as counterparties.
pub(crate) fn compound(h: &Harness) -> Policy {
    let (a, c, f) = (h.a, h.bed.compound, h.bed.feeds);
    let markets: Vec<Address> = c.markets().iter().map(|m| m.c_token).collect();
    let mut targets = vec![a.weth, a.dai, a.usdc, c.comptroller];
    targets.extend(&markets);
    let mut p = base(
        h,
        &targets,
        &[
            selector::<IERC20::approveCall>(),
            selector::<MockCToken::mintCall>(),
            selector::<MockCToken::borrowCall>(),
            selector::<MockCToken::repayBorrowCall>(),
            selector::<MockCToken::redeemUnderlyingCall>(),
            selector::<MockComptroller::enterMarketsCall>(),
        ],
        &markets,
        &[c.comptroller, f.eth_usd, f.dai_usd, f.usdc_usd],
    );
    for token in markets {
        p.spend_caps.push(TokenAmount {
            token,
            amount: U256::MAX >> 1,
        });
    }
    p
}

/// The Universal Router over Permit2: WETH and DAI approvals, `Permit2.approve` and the
/// router's `execute` as the entry points; Permit2, the router and the WETH/DAI V3 pool as
/// counterparties.
pub(crate) fn permit2(h: &Harness) -> Policy {
    let (a, ur) = (h.a, h.bed.universal_router);
    base(
        h,
        &[a.weth, a.dai, ur.permit2, ur.router],
        &[
            selector::<IERC20::approveCall>(),
            selector::<MockPermit2::approveCall>(),
            selector::<Router::executeCall>(),
        ],
        &[],
        &[ur.permit2, ur.router, h.bed.uniswap_v3.weth_dai.address],
    )
}
