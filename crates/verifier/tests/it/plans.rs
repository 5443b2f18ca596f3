//! `PLAN_NOT_DECODED`: a Universal Router plan with a command nothing reads is refused, unless
//! the policy names its router; a plan of read commands is left to the other checks.

use crate::case::Case;
use alloy_primitives::{Address, Bytes, U256, address};
use alloy_sol_types::{SolCall, SolValue as _, sol};
use pace_testkit::mainnet::*;
use pace_types::{Call, Check, ViolationCode as Code};

sol! {
    function execute(bytes commands, bytes[] inputs, uint256 deadline) external payable;
    function execute(bytes commands, bytes[] inputs) external payable;
}

const UNIVERSAL_ROUTER: Address = address!("66a9893cc07d91d95644aedd05d03f95e1dba8af");

/// `TRANSFER`, `V4_SWAP`, `EXECUTE_SUB_PLAN`; `V2_SWAP_EXACT_IN`, `SWEEP`; the allow-revert flag.
const TRANSFER: u8 = 0x05;
const V4_SWAP: u8 = 0x10;
const SUB_PLAN: u8 = 0x21;
const V2_SWAP_EXACT_IN: u8 = 0x08;
const SWEEP: u8 = 0x04;
const ALLOW_REVERT: u8 = 0x80;

/// A V2 leg selling 1,000 USDC the caller pays for WETH paid to `recipient`.
fn v2_leg(recipient: Address) -> Bytes {
    (
        recipient,
        U256::from(1_000u64),
        U256::from(1u8),
        vec![USDC, WETH],
        true,
    )
        .abi_encode_params()
        .into()
}

/// A well-formed input for `command`: a V2 leg selling USDC for WETH to the caller, a sweep of
/// WETH to the caller, a transfer of 1 WETH to the caller; empty for the others (nothing reads
/// them).
fn input(command: u8) -> Bytes {
    let caller = Address::with_last_byte(1);
    match command & !ALLOW_REVERT {
        V2_SWAP_EXACT_IN => v2_leg(caller),
        SWEEP => (WETH, caller, U256::from(1u8)).abi_encode_params().into(),
        // Part of the output: not the trade's payment.
        TRANSFER => (WETH, caller, U256::from(1u8)).abi_encode_params().into(),
        _ => Bytes::new(),
    }
}

/// The approve-only case with a call to the router running `commands`, the router and
/// `execute` allowed.
fn with_plan(commands: &[u8], deadline: bool) -> Case {
    let inputs = commands.iter().map(|c| input(*c)).collect();
    let data = if deadline {
        execute_0Call {
            commands: commands.to_vec().into(),
            inputs,
            deadline: U256::from(NOW + 60),
        }
        .abi_encode()
    } else {
        execute_1Call {
            commands: commands.to_vec().into(),
            inputs,
        }
        .abi_encode()
    };
    Case::approve_only(U256::from(1_000u64))
        .with(|c| {
            c.intent.calls.push(Call {
                target: UNIVERSAL_ROUTER,
                value: U256::ZERO,
                data: data.into(),
            });
            c.policy.allowed_targets.push(UNIVERSAL_ROUTER);
            c.policy.allowed_selectors.extend(
                [execute_0Call::SELECTOR, execute_1Call::SELECTOR].map(pace_types::Selector::from),
            );
        })
        .rehash()
}

#[test]
fn a_plan_with_a_command_nothing_reads_is_refused_unless_its_router_is_named() {
    for (commands, deadline) in [
        (vec![V2_SWAP_EXACT_IN, TRANSFER], true),
        (vec![V4_SWAP], false),
        (vec![SUB_PLAN, SWEEP], true),
        (vec![V2_SWAP_EXACT_IN | ALLOW_REVERT, SWEEP], true),
    ] {
        let case = with_plan(&commands, deadline);
        let decision = case.decide();
        assert_eq!(
            decision.codes().collect::<Vec<_>>(),
            vec![Code::PlanNotDecoded],
            "{commands:02x?}: {:#?}",
            decision.violations
        );
        let named = case
            .clone()
            .with(|c| c.policy.opaque_plan_routers.push(UNIVERSAL_ROUTER))
            .decide();
        assert!(named.approved(), "{commands:02x?}: {:#?}", named.violations);
        // Another router named changes nothing.
        let other = case
            .clone()
            .with(|c| c.policy.opaque_plan_routers.push(ROUTER))
            .codes();
        assert_eq!(other, vec![Code::PlanNotDecoded]);
        let off = case
            .with(|c| c.policy.checks.set(Check::Slippage, false))
            .decide();
        assert!(off.approved(), "{commands:02x?}: {:#?}", off.violations);
    }
}

/// A plan of read commands that is one trade is left to the other checks; one whose legs are
/// read but are not one trade together (here the leg pays the caller and the sweep after it
/// pays what the router held before) is refused, its legs named.
#[test]
fn a_plan_of_read_commands_is_refused_only_when_it_is_not_one_trade() {
    let apart = with_plan(&[V2_SWAP_EXACT_IN, SWEEP], true);
    let decision = apart.decide();
    assert_eq!(
        decision.codes().collect::<Vec<_>>(),
        vec![Code::PlanNotDecoded]
    );
    assert!(
        decision.violations[0]
            .message
            .contains("swap command(s) 0x08 are not read as one trade"),
        "{:?}",
        decision.violations
    );
    let named = apart
        .with(|c| c.policy.opaque_plan_routers.push(UNIVERSAL_ROUTER))
        .decide();
    assert!(named.approved(), "{:#?}", named.violations);
    // The same leg paying the router, swept to the caller: one trade.
    let one = with_plan(&[V2_SWAP_EXACT_IN, SWEEP], true).with(|c| {
        let data = execute_0Call {
            commands: vec![V2_SWAP_EXACT_IN, SWEEP].into(),
            inputs: vec![v2_leg(Address::with_last_byte(2)), input(SWEEP)],
            deadline: U256::from(NOW + 60),
        };
        c.intent.calls.last_mut().unwrap().data = data.abi_encode().into();
    });
    assert!(!one.rehash().codes().contains(&Code::PlanNotDecoded));
}

/// A swap router's batch holding a swap and a call nothing reads (here `wrapETH`) is refused
/// the same way; a batch of a swap and its payment, or one holding no swap, is not.
#[test]
fn a_swap_batch_with_a_call_nothing_reads_is_refused_unless_its_router_is_named() {
    use pace_abi::bindings::ISwapRouter02 as Router02;
    let swap: Bytes = Router02::exactInputSingleCall {
        params: Router02::ExactInputSingleParams {
            tokenIn: USDC,
            tokenOut: WETH,
            fee: alloy_primitives::aliases::U24::from(500),
            recipient: Address::with_last_byte(1),
            amountIn: U256::from(1_000u64),
            amountOutMinimum: U256::from(1u8),
            sqrtPriceLimitX96: Default::default(),
        },
    }
    .abi_encode()
    .into();
    // `wrapETH(uint256)`, which the decoder does not read.
    let wrap: Bytes = [&[0x1c, 0x58, 0xdb, 0x4f][..], &[0u8; 32]].concat().into();
    let unwrap: Bytes = Router02::unwrapWETH9_0Call {
        amountMinimum: U256::from(1u8),
    }
    .abi_encode()
    .into();
    const SWAP_ROUTER02: Address = address!("68b3465833fb72a70ecdf485e0e4c7bd8665fc45");
    let with_batch = |data: Vec<Bytes>| {
        let call = Router02::multicall_0Call {
            deadline: U256::from(NOW + 60),
            data,
        };
        Case::approve_only(U256::from(1_000u64))
            .with(|c| {
                c.intent.calls.push(Call {
                    target: SWAP_ROUTER02,
                    value: U256::ZERO,
                    data: call.abi_encode().into(),
                });
                c.policy.allowed_targets.push(SWAP_ROUTER02);
                c.policy
                    .allowed_selectors
                    .push(Router02::multicall_0Call::SELECTOR.into());
            })
            .rehash()
    };
    let refused = with_batch(vec![wrap.clone(), swap.clone()]);
    assert_eq!(refused.codes(), vec![Code::PlanNotDecoded]);
    let named = refused
        .with(|c| c.policy.opaque_plan_routers.push(SWAP_ROUTER02))
        .decide();
    assert!(named.approved(), "{:#?}", named.violations);
    for read in [vec![swap, unwrap.clone()], vec![wrap, unwrap]] {
        assert!(!with_batch(read).codes().contains(&Code::PlanNotDecoded));
    }
}
