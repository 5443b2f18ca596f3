//! What the valuation tests share: policies over the bed that price through its protocols,
//! and reading an execution back against its simulation.

use crate::protocols_bed::{Bed, selector};
use alloy_primitives::{Address, I256, U256};
use pace_pipeline::{Evaluation, ExecutionResult};
use pace_testkit::protocols::bindings::{
    MockCToken, MockComptroller, NonfungiblePositionManager, SwapRouter,
};
use pace_types::{
    Approval, BalanceChange, CompiledPolicy, Intent, Policy, TokenAmount, V3PoolPrice,
};

/// ERC-20 `approve`.
const APPROVE: [u8; 4] = [0x09, 0x5e, 0xa7, 0xb3];

/// The bed's V3 pools, trusted at their TWAP.
pub(crate) fn v3_prices(b: &Bed) -> Vec<V3PoolPrice> {
    b.bed
        .uniswap_v3
        .pools()
        .iter()
        .map(|p| V3PoolPrice {
            pool: p.address,
            spot: false,
        })
        .collect()
}

/// A policy for Uniswap V3 swaps and positions: SwapRouter and the position manager as
/// targets, the pools as counterparties, WETH at par and DAI and USDC priced by the V3 pools'
/// TWAP only (no table price).
pub(crate) fn v3_policy(b: &Bed) -> Policy {
    let (a, v3) = (b.a(), b.bed.uniswap_v3);
    let pools: Vec<Address> = v3.pools().iter().map(|p| p.address).collect();
    let mut p = b.policy(
        &[a.weth, a.dai, a.usdc, v3.swap_router, v3.position_manager],
        &[
            APPROVE,
            selector::<SwapRouter::exactInputSingleCall>(),
            selector::<SwapRouter::exactInputCall>(),
            selector::<NonfungiblePositionManager::mintCall>(),
        ],
        &[v3.position_manager],
        &pools,
    );
    p.prices.retain(|t| t.token == a.weth);
    p.price_v3_pools = v3_prices(b);
    p
}

/// A policy for the bed's Aave V3 market: the pool as target, its tokens allowed (the debt
/// tokens with a cap, for repays), every contract it acts through as a counterparty.
pub(crate) fn aave_policy(b: &Bed) -> Policy {
    use pace_testkit::protocols::bindings::AavePool;
    let (a, aave) = (b.a(), &b.bed.aave);
    let mut tokens = Vec::new();
    for r in aave.reserves() {
        tokens.extend([r.a_token, r.variable_debt_token, r.stable_debt_token]);
    }
    let mut p = b.policy(
        &[a.weth, a.dai, a.usdc, aave.pool],
        &[
            APPROVE,
            selector::<AavePool::supplyCall>(),
            selector::<AavePool::borrowCall>(),
            selector::<AavePool::repayCall>(),
            selector::<AavePool::withdrawCall>(),
        ],
        &tokens,
        &b.aave_contracts(),
    );
    // Repaying burns debt tokens and withdrawing burns aTokens: both leave the account.
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

/// A policy for the bed's Compound-style market: the cTokens and the comptroller as targets,
/// the cTokens as tokens, the feeds the comptroller reads as counterparties.
pub(crate) fn compound_policy(b: &Bed) -> Policy {
    let (a, c, f) = (b.a(), b.bed.compound, b.bed.feeds);
    let markets: Vec<Address> = c.markets().iter().map(|m| m.c_token).collect();
    let mut targets = vec![a.weth, a.dai, a.usdc, c.comptroller];
    targets.extend(&markets);
    let mut p = b.policy(
        &targets,
        &[
            APPROVE,
            selector::<MockCToken::mintCall>(),
            selector::<MockCToken::borrowCall>(),
            selector::<MockCToken::repayBorrowCall>(),
            selector::<MockCToken::redeemUnderlyingCall>(),
            selector::<MockComptroller::enterMarketsCall>(),
        ],
        &markets,
        &[c.comptroller, f.eth_usd, f.dai_usd, f.usdc_usd],
    );
    // Redeeming burns cTokens.
    for token in markets {
        p.spend_caps.push(TokenAmount {
            token,
            amount: U256::MAX >> 1,
        });
    }
    p
}

/// The watched tokens of an execution and what the simulation said each would do, read back:
/// every watched balance changed as simulated, to within `tolerance` smallest units (interest
/// accrued between the simulated block and the next).
pub(crate) fn reads_back(
    evaluation: &Evaluation,
    result: &ExecutionResult,
    watch: &[Address],
    tolerance: U256,
) {
    let ExecutionResult::Executed {
        balance_changes, ..
    } = result
    else {
        panic!("not executed: {result:?}");
    };
    let of = |list: &[BalanceChange], t: Address| {
        list.iter()
            .find(|c| c.token == t)
            .map_or(I256::ZERO, |c| c.delta)
    };
    for &t in watch {
        let (simulated, executed) = (
            of(&evaluation.report.balance_changes, t),
            of(balance_changes, t),
        );
        assert!(
            (simulated - executed).unsigned_abs() <= tolerance,
            "token {t}: simulated {simulated}, executed {executed}"
        );
    }
}

/// `intent` evaluated under `policy` with the claims an honest agent makes: the bed's
/// (what its own simulation shows), with an allowance the batch sets twice claimed once, at
/// the larger amount the calldata grants.
pub(crate) fn evaluate_honestly(b: &Bed, intent: Intent, policy: &Policy) -> Evaluation {
    let compiled = CompiledPolicy::try_from(policy.clone()).expect("the policy compiles");
    let mut intent = b.claimed(intent, &compiled);
    let mut approvals: Vec<Approval> = Vec::new();
    for claim in intent.claimed.approvals {
        match approvals
            .iter_mut()
            .find(|c| c.token == claim.token && c.spender == claim.spender)
        {
            Some(c) => c.amount = c.amount.max(claim.amount),
            None => approvals.push(claim),
        }
    }
    intent.claimed.approvals = approvals;
    b.evaluate(&intent, policy)
}

/// `amount` less `bps`.
pub(crate) fn less_bps(amount: U256, bps: u64) -> U256 {
    amount * U256::from(10_000 - bps) / U256::from(10_000u64)
}
