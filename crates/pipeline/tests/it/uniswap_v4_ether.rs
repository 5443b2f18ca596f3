//! Ether sold in a native-ether Uniswap V4 pool through the real Universal Router: the router
//! settles the swap from the ether the call sends it, so a plan is read as the trade only when
//! the call sends exactly the swap's exact input. Then the trade carries swap facts (the pool the
//! calldata names priced at its `slot0`), is approved when honest and lands as simulated; a
//! zero minimum is refused, and a call sending more than the input (the rest would stay in the
//! router for anyone to sweep) is a command nothing reads. Ether bought with an exact output is
//! read the same way when the call sends the maximum input and the plan sweeps what is left back.

use crate::{
    protocols_bed::Bed,
    uniswap_v4::{policy, setup},
};
use alloy_primitives::{Address, Bytes, U256};
use alloy_sol_types::SolValue as _;
use pace_pipeline::ExecutionResult;
use pace_testkit::protocols::{
    ether,
    uniswap_v3::deadline,
    uniswap_v4::{UniswapV4, V4_SWAP, V4ExactInputSingleParams, actions},
};
use pace_types::{Call, ViolationCode as Code};

/// 0.1 ether sold for DAI with the swap's `min_out`, the call sending `value`.
fn ether_trade(b: &Bed, v4: &UniswapV4, min_out: u128, value: U256) -> Vec<Call> {
    let amount = ether(1) / U256::from(10u8);
    let input = UniswapV4::exact_in_single(&v4.eth_dai, Address::ZERO, amount.to(), min_out, None);
    let router = v4.universal_router();
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

/// `SWAP_EXACT_OUT_SINGLE`: `ExactOutputSingleParams`, laid out as the exact input's
/// (`amountOut`, `amountInMaximum`).
const SWAP_EXACT_OUT_SINGLE: u8 = 0x08;
/// `SWEEP`: `(token, recipient, amountMin)`; `address(0)` is ether, `address(1)` the caller.
const SWEEP: u8 = 0x04;

/// 100 DAI bought with at most `max_in` of ether (all of it sent), and what is left swept to
/// `refund`.
fn exact_out(b: &Bed, v4: &UniswapV4, max_in: U256, refund: Address) -> Vec<Call> {
    let a = b.a();
    let swap = V4ExactInputSingleParams {
        poolKey: v4.eth_dai.clone(),
        zeroForOne: true,
        amountIn: ether(100).to(),
        amountOutMinimum: max_in.to(),
        hookData: Bytes::new(),
    };
    let params: Vec<Bytes> = vec![
        swap.abi_encode().into(),
        (Address::ZERO, max_in).abi_encode_params().into(),
        (a.dai, ether(100)).abi_encode_params().into(),
    ];
    let list = Bytes::from(vec![
        SWAP_EXACT_OUT_SINGLE,
        actions::SETTLE_ALL,
        actions::TAKE_ALL,
    ]);
    let router = v4.universal_router();
    let mut call = router.execute(
        &[
            (V4_SWAP, (list, params).abi_encode_params().into()),
            (
                SWEEP,
                (Address::ZERO, refund, U256::ZERO)
                    .abi_encode_params()
                    .into(),
            ),
        ],
        deadline(&b.world.evm).unwrap(),
    );
    call.value = max_in;
    vec![call]
}

#[test]
fn ether_spent_on_an_exact_output_is_read_when_the_rest_is_swept_back() {
    let (mut b, v4) = setup();
    let a = b.a();
    // 100 DAI cost about 0.1003 ether (fee and impact): at most 0.101.
    let max_in = ether(101) / U256::from(1_000u16);
    let mut policy = policy(&b, &v4);
    policy.max_value_wei = max_in;
    let caller = Address::with_last_byte(1);
    let stolen = b.evaluate_claimed(b.intent(exact_out(&b, &v4, max_in, a.attacker)), &policy);
    assert!(
        stolen.decision.has(Code::PlanNotDecoded),
        "{:?}",
        stolen.decision.violations
    );
    let honest = b.evaluate_claimed(b.intent(exact_out(&b, &v4, max_in, caller)), &policy);
    assert!(
        honest.decision.approved(),
        "{:?}",
        honest.decision.violations
    );
    let f = honest.report.swap.clone().expect("the trade is measured");
    assert_eq!((f.token_in, f.token_out), (pace_types::ETH, a.dai));
    assert_eq!(f.amount_out, ether(100));
    assert!(f.amount_in < max_in, "{f:?}");
    let before = b.balance(a.dai, a.account);
    let result = b.submit(&honest, &[a.dai]);
    assert!(
        matches!(result, ExecutionResult::Executed { .. }),
        "{result:?}"
    );
    assert_eq!(b.balance(a.dai, a.account) - before, ether(100));
}
