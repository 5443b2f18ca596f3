//! A Universal Router trade split across a V3 pool and a V2 pair of the same two tokens, the
//! way an interface's router spreads an order: read as one trade whose minimum is the payment's
//! and whose quote is each route's share at its own pool's mid price. Refused with no minimum
//! or paid to a stranger; approved when honest, executed and read back as simulated. Legs that
//! together are not one trade (two routes paid to two recipients) are refused as unread.

use super::{
    routes::routes_policy,
    support::{less_bps, reads_back},
};
use crate::protocols_bed::bed;
use alloy_primitives::{Address, U256, aliases::U160};
use alloy_sol_types::SolValue as _;
use pace_testkit::protocols::{
    ether,
    uniswap_v3::deadline,
    universal_router::{
        ADDRESS_THIS, MSG_SENDER, commands, v2_swap_exact_in, v3_path, v3_swap_exact_in,
    },
};
use pace_types::{Call, ViolationCode};

/// `UNWRAP_WETH`: `(recipient, amountMin)`.
const UNWRAP_WETH: u8 = 0x0c;

#[test]
fn a_trade_split_across_a_v3_pool_and_a_v2_pair_is_read_as_one_trade() {
    let mut b = bed();
    let (a, v3, ur) = (b.a(), b.bed.uniswap_v3, b.bed.universal_router);
    let d = deadline(&b.world.evm).unwrap();
    let pool = v3.weth_dai;
    // 1,000 DAI for ether: 600 through the V3 pool, 400 through the V2 pair.
    let (v3_in, v2_in) = (ether(600), ether(400));
    let from_v3 = v3.quote(&b.world.evm, &pool, a.dai, v3_in).unwrap();
    let from_v2 = pace_testkit::mainnet::amount_out(
        v2_in,
        b.balance(a.dai, a.pair_weth_dai),
        b.balance(a.weth, a.pair_weth_dai),
    );
    let out = from_v3 + from_v2;
    let total = v3_in + v2_in;
    let expiration = b.world.evm.timestamp() + 3_600;
    // `recipients`: where each route pays (the router, then unwrapped to `to`; or each route
    // its own recipient, nothing unwrapped).
    let plan = |min: U256, to: Address, recipients: Option<(Address, Address)>| {
        let (first, second) = recipients.unwrap_or((ADDRESS_THIS, ADDRESS_THIS));
        let mut steps = vec![
            (
                commands::V3_SWAP_EXACT_IN,
                v3_swap_exact_in(
                    first,
                    v3_in,
                    U256::ZERO,
                    v3_path(&[(a.dai, pool.fee)], a.weth),
                    true,
                ),
            ),
            (
                commands::V2_SWAP_EXACT_IN,
                v2_swap_exact_in(second, v2_in, U256::ZERO, &[a.dai, a.weth], true),
            ),
        ];
        if recipients.is_none() {
            steps.push((UNWRAP_WETH, (to, min).abi_encode_params().into()));
        }
        vec![
            ur.approve_permit2(a.dai, total),
            ur.permit2_approve(a.dai, ur.router, U160::saturating_from(total), expiration),
            ur.execute(&steps, d),
        ]
    };
    let policy = routes_policy(&b);
    let evaluate = |calls: Vec<Call>| b.evaluate_claimed(b.intent(calls), &policy);
    let loose = evaluate(plan(U256::ZERO, MSG_SENDER, None));
    assert!(
        loose.decision.has(ViolationCode::SlippageExceeded),
        "{:?}",
        loose.decision.violations
    );
    let stolen = evaluate(plan(less_bps(out, 50), a.attacker, None));
    assert!(
        stolen.decision.has(ViolationCode::SwapRecipientNotAccount),
        "{:?}",
        stolen.decision.violations
    );
    let apart = evaluate(plan(U256::ZERO, MSG_SENDER, Some((MSG_SENDER, a.attacker))));
    assert!(
        apart.decision.has(ViolationCode::PlanNotDecoded),
        "{:?}",
        apart.decision.violations
    );
    let honest = evaluate(plan(less_bps(out, 50), MSG_SENDER, None));
    assert!(
        honest.decision.approved(),
        "{:?}",
        honest.decision.violations
    );
    let facts = honest
        .report
        .swap
        .clone()
        .expect("the split trade is measured");
    assert_eq!((facts.token_in, facts.token_out), (a.dai, pace_types::ETH));
    assert_eq!((facts.amount_in, facts.amount_out), (total, out));
    assert_eq!(facts.min_out, less_bps(out, 50));
    // Each route quoted at its own pool: fees and impact put the output under the quote, by
    // less than the 2 % the two of them could cost.
    assert!(
        facts.quoted_out > out && facts.quoted_out < out * U256::from(102u8) / U256::from(100u8),
        "{facts:?}"
    );
    assert!(facts.price_impact_bps > 0, "{facts:?}");
    let result = b.submit(&honest, &[a.dai]);
    reads_back(&honest, &result, &[a.dai], U256::ZERO);
}

/// Ether sold across both pools (wrapped into the router, 0.6 of it paid to the V3 pool, the
/// rest to the V2 pair) and bought across both with each route paying the account itself:
/// each read as one trade, approved, executed and read back as simulated.
#[test]
fn ether_split_and_routes_paying_the_account_are_read_as_one_trade() {
    let mut b = bed();
    let (a, v3, ur) = (b.a(), b.bed.uniswap_v3, b.bed.universal_router);
    let d = deadline(&b.world.evm).unwrap();
    let pool = v3.weth_dai;
    let contract_balance = U256::from(1u8) << 255;
    let sold = ether(1);
    let share = sold * U256::from(6u8) / U256::from(10u8);
    let from_v3 = v3.quote(&b.world.evm, &pool, a.weth, share).unwrap();
    let from_v2 = pace_testkit::mainnet::amount_out(
        sold - share,
        b.balance(a.weth, a.pair_weth_dai),
        b.balance(a.dai, a.pair_weth_dai),
    );
    let out = from_v3 + from_v2;
    let mut wrapped = ur.execute(
        &[
            (
                0x0b, // WRAP_ETH
                (ADDRESS_THIS, sold).abi_encode_params().into(),
            ),
            (
                commands::V3_SWAP_EXACT_IN,
                v3_swap_exact_in(
                    MSG_SENDER,
                    share,
                    less_bps(from_v3, 50),
                    v3_path(&[(a.weth, pool.fee)], a.dai),
                    false,
                ),
            ),
            (
                commands::V2_SWAP_EXACT_IN,
                v2_swap_exact_in(
                    MSG_SENDER,
                    contract_balance,
                    less_bps(from_v2, 50),
                    &[a.weth, a.dai],
                    false,
                ),
            ),
        ],
        d,
    );
    wrapped.value = sold;
    let mut policy = routes_policy(&b);
    policy.max_value_wei = sold;
    let honest = b.evaluate_claimed(b.intent(vec![wrapped]), &policy);
    assert!(
        honest.decision.approved(),
        "{:?}",
        honest.decision.violations
    );
    let facts = honest
        .report
        .swap
        .clone()
        .expect("the split trade is measured");
    assert_eq!((facts.token_in, facts.token_out), (pace_types::ETH, a.dai));
    assert_eq!((facts.amount_in, facts.amount_out), (sold, out));
    // With no payment after them, the routes' own minimums added up.
    assert_eq!(facts.min_out, less_bps(from_v3, 50) + less_bps(from_v2, 50));
    let result = b.submit(&honest, &[a.dai]);
    reads_back(&honest, &result, &[a.dai], U256::ZERO);
}
