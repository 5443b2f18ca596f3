//! Universal Router plans as an interface sends them, on the router's real bytecode: ether
//! wrapped into the router and sold, an interface fee paid as a portion of the output before
//! the rest is swept to the account, and one exact-output leg. Each is read as the one trade it
//! is (the swap facts the slippage and impact checks judge), approved when honest, executed and
//! read back as simulated; a plan with no minimum after the fee, or one sweeping to a stranger,
//! is refused for it.

use super::{
    routes::routes_policy,
    support::{less_bps, reads_back},
};
use crate::protocols_bed::bed;
use alloy_primitives::{Address, Bytes, U256, aliases::U160};
use alloy_sol_types::SolValue as _;
use pace_testkit::protocols::{
    ether,
    uniswap_v3::{FEE_LOW, deadline},
    universal_router::{ADDRESS_THIS, MSG_SENDER, commands, v2_swap_exact_in, v3_path},
};
use pace_types::{Call, ViolationCode};

/// `WRAP_ETH`, `PAY_PORTION`, the exact-output legs and `TRANSFER` (`Commands.sol`).
const WRAP_ETH: u8 = 0x0b;
const PAY_PORTION: u8 = 0x06;
const V3_SWAP_EXACT_OUT: u8 = 0x01;
/// `TRANSFER`: `(token, recipient, value)`, a command the decoder does not read.
const TRANSFER: u8 = 0x05;
/// `ActionConstants.CONTRACT_BALANCE`.
const CONTRACT_BALANCE: U256 = U256::from_limbs([0, 0, 0, 1 << 63]);

#[test]
fn ether_sold_with_an_interface_fee_is_read_as_its_trade() {
    let mut b = bed();
    let (a, ur) = (b.a(), b.bed.universal_router);
    let d = deadline(&b.world.evm).unwrap();
    let sold = ether(1);
    let quote = pace_testkit::mainnet::amount_out(
        sold,
        b.balance(a.weth, a.pair_weth_dai),
        b.balance(a.dai, a.pair_weth_dai),
    );
    // The interface keeps 0.25 % of the output.
    let (fee_bips, interface) = (25u64, Address::repeat_byte(0xfe));
    let swept = quote - quote * U256::from(fee_bips) / U256::from(10_000u64);
    let plan = |min: U256, to: Address| {
        let mut call = ur.execute(
            &[
                (
                    WRAP_ETH,
                    (ADDRESS_THIS, CONTRACT_BALANCE).abi_encode_params().into(),
                ),
                (
                    commands::V2_SWAP_EXACT_IN,
                    v2_swap_exact_in(
                        ADDRESS_THIS,
                        CONTRACT_BALANCE,
                        U256::ZERO,
                        &[a.weth, a.dai],
                        false,
                    ),
                ),
                (
                    PAY_PORTION,
                    (a.dai, interface, U256::from(fee_bips))
                        .abi_encode_params()
                        .into(),
                ),
                (commands::SWEEP, (a.dai, to, min).abi_encode_params().into()),
            ],
            d,
        );
        call.value = sold;
        vec![call]
    };
    // The user sends ether and names the interface's fee recipient.
    let mut policy = routes_policy(&b);
    policy.max_value_wei = sold;
    policy.fee_recipients.push(interface);
    let evaluate = |calls: Vec<Call>| b.evaluate_claimed(b.intent(calls), &policy);
    let loose = evaluate(plan(U256::ZERO, MSG_SENDER));
    assert!(
        loose.decision.has(ViolationCode::SlippageExceeded),
        "{:?}",
        loose.decision.violations
    );
    let stolen = evaluate(plan(less_bps(swept, 50), a.attacker));
    assert!(
        stolen.decision.has(ViolationCode::SwapRecipientNotAccount),
        "{:?}",
        stolen.decision.violations
    );
    let honest = evaluate(plan(less_bps(swept, 50), MSG_SENDER));
    assert!(
        honest.decision.approved(),
        "{:?}",
        honest.decision.violations
    );
    let facts = honest.report.swap.clone().expect("the plan is measured");
    assert_eq!((facts.token_in, facts.token_out), (pace_types::ETH, a.dai));
    assert_eq!((facts.amount_in, facts.amount_out), (sold, swept));
    let result = b.submit(&honest, &[a.dai]);
    reads_back(&honest, &result, &[a.dai], U256::ZERO);
    assert_eq!(b.balance(a.dai, interface), quote - swept);
}

#[test]
fn one_exact_output_leg_is_read_as_its_trade() {
    let mut b = bed();
    let (a, v3, ur) = (b.a(), b.bed.uniswap_v3, b.bed.universal_router);
    let d = deadline(&b.world.evm).unwrap();
    let usdc_in = U256::from(1_000_000_000u64);
    let pool = v3
        .pools()
        .into_iter()
        .find(|p| [p.token0, p.token1].contains(&a.usdc) && [p.token0, p.token1].contains(&a.dai))
        .unwrap();
    // What 1,000 USDC buys, bought exactly, paying at most 0.5 % more.
    let dai_out = v3.quote(&b.world.evm, &pool, a.usdc, usdc_in).unwrap();
    let max_in = usdc_in * U256::from(10_050u64) / U256::from(10_000u64);
    let expiration = b.world.evm.timestamp() + 3_600;
    let plan = |to: Address| {
        let leg: Bytes = (
            to,
            dai_out,
            max_in,
            v3_path(&[(a.dai, FEE_LOW)], a.usdc),
            true,
        )
            .abi_encode_params()
            .into();
        vec![
            ur.approve_permit2(a.usdc, max_in),
            ur.permit2_approve(a.usdc, ur.router, U160::saturating_from(max_in), expiration),
            ur.execute(&[(V3_SWAP_EXACT_OUT, leg)], d),
        ]
    };
    let policy = routes_policy(&b);
    let stolen = b.evaluate_claimed(b.intent(plan(a.attacker)), &policy);
    assert!(
        stolen.decision.has(ViolationCode::SwapRecipientNotAccount),
        "{:?}",
        stolen.decision.violations
    );
    let honest = b.evaluate_claimed(b.intent(plan(MSG_SENDER)), &policy);
    assert!(
        honest.decision.approved(),
        "{:?}",
        honest.decision.violations
    );
    let facts = honest.report.swap.clone().expect("the plan is measured");
    assert_eq!((facts.token_in, facts.token_out), (a.usdc, a.dai));
    assert_eq!(facts.amount_out, dai_out);
    assert!(facts.amount_in <= max_in && facts.amount_in >= usdc_in - U256::from(2u8));
    let result = b.submit(&honest, &[a.usdc, a.dai]);
    reads_back(&honest, &result, &[a.usdc, a.dai], U256::ZERO);
}

/// A plan holding a command nothing reads (here a `TRANSFER` of part of the output, the rest
/// swept) is refused as such, whatever else it does; named by the policy, the router's plan is
/// judged by the general rules alone: approved when what the simulation shows is honest, and
/// executed. A `TRANSFER` of all the output is the trade's payment: read, its minimum the leg's.
#[test]
fn a_plan_with_a_command_nothing_reads_is_refused_unless_the_policy_names_the_router() {
    let mut b = bed();
    let (a, ur) = (b.a(), b.bed.universal_router);
    let d = deadline(&b.world.evm).unwrap();
    let sold = ether(1);
    let quote = pace_testkit::mainnet::amount_out(
        sold,
        b.balance(a.weth, a.pair_weth_dai),
        b.balance(a.dai, a.pair_weth_dai),
    );
    let expiration = b.world.evm.timestamp() + 3_600;
    let plan = |min: U256, paid: &[(u8, Bytes)]| {
        let mut steps = vec![(
            commands::V2_SWAP_EXACT_IN,
            v2_swap_exact_in(ADDRESS_THIS, sold, min, &[a.weth, a.dai], true),
        )];
        steps.extend_from_slice(paid);
        vec![
            ur.approve_permit2(a.weth, sold),
            ur.permit2_approve(a.weth, ur.router, U160::saturating_from(sold), expiration),
            ur.execute(&steps, d),
        ]
    };
    let transfer = |value: U256| -> (u8, Bytes) {
        (
            TRANSFER,
            (a.dai, MSG_SENDER, value).abi_encode_params().into(),
        )
    };
    let mut policy = routes_policy(&b);
    // All of the output transferred: the trade's payment, judged as the trade.
    let whole = [transfer(CONTRACT_BALANCE)];
    let loose = b.evaluate_claimed(b.intent(plan(U256::ZERO, &whole)), &policy);
    assert!(
        loose.decision.has(ViolationCode::SlippageExceeded),
        "{:?}",
        loose.decision.violations
    );
    let paid = b.evaluate_claimed(b.intent(plan(less_bps(quote, 50), &whole)), &policy);
    assert!(paid.decision.approved(), "{:?}", paid.decision.violations);
    // Half of it transferred, the rest swept: the transfer is read by nothing.
    let calls = plan(
        less_bps(quote, 50),
        &[
            transfer(quote / U256::from(2u8)),
            (
                commands::SWEEP,
                (a.dai, MSG_SENDER, U256::ZERO).abi_encode_params().into(),
            ),
        ],
    );
    let refused = b.evaluate_claimed(b.intent(calls.clone()), &policy);
    assert_eq!(
        refused
            .decision
            .violations
            .iter()
            .map(|v| v.code)
            .collect::<Vec<_>>(),
        vec![ViolationCode::PlanNotDecoded],
        "{:?}",
        refused.decision.violations
    );
    policy.opaque_plan_routers.push(ur.router);
    let named = b.evaluate_claimed(b.intent(calls), &policy);
    assert!(named.decision.approved(), "{:?}", named.decision.violations);
    let result = b.submit(&named, &[a.weth, a.dai]);
    reads_back(&named, &result, &[a.weth, a.dai], U256::ZERO);
    assert_eq!(
        b.balance(a.dai, ur.router),
        U256::ZERO,
        "nothing left behind"
    );
}
