//! Ether sold in a native-ether Uniswap V4 pool through the real Universal Router: the router
//! settles the swap from the ether the call sends it, so a plan is read as the trade only when
//! the call sends exactly the swap's exact input. Then the trade carries swap facts (the pool the
//! calldata names priced at its `slot0`), is approved when honest and lands as simulated; a
//! zero minimum is refused, and a call sending more than the input (the rest would stay in the
//! router for anyone to sweep) is a command nothing reads.

use crate::{
    protocols_bed::Bed,
    uniswap_v4::{policy, setup},
};
use alloy_primitives::{Address, U256};
use pace_pipeline::ExecutionResult;
use pace_testkit::protocols::{
    ether,
    uniswap_v3::deadline,
    uniswap_v4::{UniswapV4, V4_SWAP},
    universal_router::UniversalRouter,
};
use pace_types::{Call, ViolationCode as Code};

/// 0.1 ether sold for DAI with the swap's `min_out`, the call sending `value`.
fn ether_trade(b: &Bed, v4: &UniswapV4, min_out: u128, value: U256) -> Vec<Call> {
    let amount = ether(1) / U256::from(10u8);
    let input = UniswapV4::exact_in_single(&v4.eth_dai, Address::ZERO, amount.to(), min_out, None);
    let router = UniversalRouter {
        router: v4.router,
        permit2: v4.permit2,
    };
    let mut call = router.execute(&[(V4_SWAP, input)], deadline(&b.world.evm).unwrap());
    call.value = value;
    vec![call]
}

#[test]
fn ether_sold_in_a_native_pool_is_read_when_the_call_sends_exactly_the_input() {
    let (mut b, v4) = setup();
    let a = b.a();
    let amount = ether(1) / U256::from(10u8);
    let mut policy = policy(&b, &v4);
    policy.max_value_wei = amount + U256::from(1u8);
    let f = b.swap_facts(ether_trade(&b, &v4, 1, amount), &policy);
    assert_eq!((f.token_in, f.token_out), (pace_types::ETH, a.dai));
    assert_eq!((f.pool, f.amount_in), (v4.pool_manager, amount));
    // 1,000 DAI per ether at the pool's price: 100 DAI, to the rounding of √P.
    assert!(
        f.quoted_out.abs_diff(ether(100)) < U256::from(10u64).pow(U256::from(12u8)),
        "{}",
        f.quoted_out
    );
    let evaluate = |calls| b.evaluate_claimed(b.intent(calls), &policy);
    let loose = evaluate(ether_trade(&b, &v4, 0, amount));
    assert!(
        loose.decision.has(Code::SlippageExceeded),
        "{:?}",
        loose.decision.violations
    );
    let min_out: u128 = (f.amount_out * U256::from(995u16) / U256::from(1_000u16)).to();
    let more = evaluate(ether_trade(&b, &v4, min_out, amount + U256::from(1u8)));
    assert!(
        more.decision.has(Code::PlanNotDecoded),
        "{:?}",
        more.decision.violations
    );
    let honest = evaluate(ether_trade(&b, &v4, min_out, amount));
    assert!(
        honest.decision.approved(),
        "{:?}",
        honest.decision.violations
    );
    let before = b.balance(a.dai, a.account);
    let result = b.submit(&honest, &[a.dai]);
    assert!(
        matches!(result, ExecutionResult::Executed { .. }),
        "{result:?}"
    );
    assert_eq!(b.balance(a.dai, a.account) - before, f.amount_out);
}
