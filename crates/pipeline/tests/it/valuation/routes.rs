//! The unpaid-inflow rule's false rejections on honest multi-hop swaps and nested batch routers,
//! measured: every route below is an honest trade of the account's own tokens back to the
//! account, through SwapRouter (`exactInput` over two and three pools, and its `multicall`
//! holding the output in the router and sweeping or unwrapping it after) and the Universal
//! Router (V3 paths paid through Permit2, and plans that park the proceeds in the router
//! between a V3 and a V2 leg), each at three sizes, under two policies: prices from the V3
//! pools' TWAPs alone, and the same with USDC at a table price 0.5 % off the pools (trusted
//! prices that disagree along the route). Every one must be approved, execute and read back as
//! simulated (the two plans whose legs are not one trade once the policy names the router:
//! without it they are refused as unread); the tally printed is the measurement (`cargo test -p pace-pipeline --test it
//! valuation::routes -- --nocapture`).

use super::support::{less_bps, reads_back, v3_policy};
use crate::protocols_bed::{Bed, bed, selector};
use alloy_primitives::{Address, Bytes, U256, aliases::U160};
use alloy_sol_types::{SolCall, SolValue as _, sol};
use pace_testkit::protocols::{
    actions::{approve, call},
    bindings::{MockPermit2, SwapRouter, UniversalRouter as UrBindings},
    ether,
    uniswap_v3::{FEE_LOW, FEE_MEDIUM, deadline},
    universal_router::{
        ADDRESS_THIS, MSG_SENDER, commands, v2_swap_exact_in, v3_path, v3_swap_exact_in,
    },
};
use pace_types::{Call, Check, Policy, TablePrice, ViolationCode};
use std::collections::BTreeMap;

sol! {
    /// SwapRouter's batching and payments (`Multicall`, `PeripheryPayments`).
    interface IRouterPayments {
        function multicall(bytes[] data) external payable returns (bytes[] results);
        function sweepToken(address token, uint256 amountMinimum, address recipient) external payable;
        function unwrapWETH9(uint256 amountMinimum, address recipient) external payable;
    }
}

/// One honest route: its name and its calls.
struct Route {
    name: String,
    calls: Vec<Call>,
    /// Tokens whose balance it moves.
    watch: Vec<Address>,
    /// Its legs are read but are not one trade (a leg paid an explicit amount from the router,
    /// the rest swept back): refused as unread unless the policy names the router, and
    /// measured with it named.
    unread: bool,
}

/// The V3 policy with the Universal Router, Permit2, the V2 pair and SwapRouter's payments
/// allowed.
pub(super) fn routes_policy(b: &Bed) -> Policy {
    let (a, ur) = (b.a(), b.bed.universal_router);
    let mut p = v3_policy(b);
    p.allowed_targets.extend([ur.router, ur.permit2]);
    p.allowed_selectors.extend(
        [
            selector::<UrBindings::executeCall>(),
            selector::<MockPermit2::approveCall>(),
            selector::<IRouterPayments::multicallCall>(),
        ]
        .map(pace_types::Selector::from),
    );
    p.allowed_touched.extend([a.pair_weth_dai, a.factory]);
    p.price_pools.push(a.pair_weth_dai);
    // Two hops pay two fees and two impacts.
    p.max_loss_bps = Some(200);
    p.max_price_impact_bps = 200;
    p
}

fn routes(b: &Bed, size: u64) -> Vec<Route> {
    let (a, v3, ur) = (b.a(), b.bed.uniswap_v3, b.bed.universal_router);
    let d = deadline(&b.world.evm).unwrap();
    let usdc = |n: u64| U256::from(n) * U256::from(1_000_000u64);
    // `size` tenths of a WETH, or its worth in DAI and USDC.
    let weth = ether(size) / U256::from(10u8);
    let dai = ether(100 * size);
    let usd = usdc(100 * size);
    // What QuoterV2 quotes hop by hop (each hop its own pool), less 0.5 %: the minimum an
    // honest caller sets.
    let minimum = |path: &[(Address, u32)], out: Address, amount: U256| {
        let tokens: Vec<Address> = path.iter().map(|h| h.0).chain([out]).collect();
        let quoted = tokens.windows(2).fold(amount, |amount, hop| {
            let pool = v3
                .pools()
                .into_iter()
                .find(|p| {
                    [p.token0, p.token1] == [hop[0], hop[1]]
                        || [p.token1, p.token0] == [hop[0], hop[1]]
                })
                .unwrap();
            v3.quote(&b.world.evm, &pool, hop[0], amount).unwrap()
        });
        less_bps(quoted, 50)
    };
    let exact_input = |path: &[(Address, u32)], out: Address, amount_in: U256, recipient| {
        SwapRouter::exactInputCall {
            params: SwapRouter::ExactInputParams {
                path: v3_path(path, out),
                recipient,
                deadline: d,
                amountIn: amount_in,
                amountOutMinimum: minimum(path, out, amount_in),
            },
        }
    };
    let hops = |path: &[(Address, u32)], out: Address, amount: U256, input: Address| {
        vec![
            approve(input, v3.swap_router, amount),
            call(v3.swap_router, &exact_input(path, out, amount, a.account)),
        ]
    };
    let multicall = |inner: Vec<Vec<u8>>| {
        call(
            v3.swap_router,
            &IRouterPayments::multicallCall {
                data: inner.into_iter().map(Bytes::from).collect(),
            },
        )
    };
    let expiration = b.world.evm.timestamp() + 3_600;
    let via_permit2 = |token: Address, amount: U256, plan: &[(u8, Bytes)]| {
        vec![
            ur.approve_permit2(token, amount),
            ur.permit2_approve(token, ur.router, U160::saturating_from(amount), expiration),
            ur.execute(plan, d),
        ]
    };
    let mut out = vec![
        Route {
            name: "SwapRouter WETH>USDC>DAI".into(),
            calls: hops(&[(a.weth, FEE_LOW), (a.usdc, FEE_LOW)], a.dai, weth, a.weth),
            watch: vec![a.weth, a.dai],
            unread: false,
        },
        Route {
            name: "SwapRouter DAI>USDC>WETH".into(),
            calls: hops(&[(a.dai, FEE_LOW), (a.usdc, FEE_LOW)], a.weth, dai, a.dai),
            watch: vec![a.weth, a.dai],
            unread: false,
        },
        Route {
            name: "SwapRouter USDC>WETH>DAI".into(),
            calls: hops(
                &[(a.usdc, FEE_LOW), (a.weth, FEE_MEDIUM)],
                a.dai,
                usd,
                a.usdc,
            ),
            watch: vec![a.usdc, a.dai],
            unread: false,
        },
    ];
    // SwapRouter's multicall: the route pays the router, which sweeps (or unwraps) to the
    // account.
    let mut calls = vec![approve(a.weth, v3.swap_router, weth)];
    calls.push(multicall(vec![
        exact_input(
            &[(a.weth, FEE_LOW), (a.usdc, FEE_LOW)],
            a.dai,
            weth,
            v3.swap_router,
        )
        .abi_encode(),
        IRouterPayments::sweepTokenCall {
            token: a.dai,
            amountMinimum: U256::ZERO,
            recipient: a.account,
        }
        .abi_encode(),
    ]));
    out.push(Route {
        name: "SwapRouter multicall(WETH>USDC>DAI to the router, sweep)".into(),
        calls,
        watch: vec![a.weth, a.dai],
        unread: false,
    });
    let mut calls = vec![approve(a.dai, v3.swap_router, dai)];
    calls.push(multicall(vec![
        exact_input(
            &[(a.dai, FEE_LOW), (a.usdc, FEE_LOW)],
            a.weth,
            dai,
            v3.swap_router,
        )
        .abi_encode(),
        IRouterPayments::unwrapWETH9Call {
            amountMinimum: U256::ZERO,
            recipient: a.account,
        }
        .abi_encode(),
    ]));
    out.push(Route {
        name: "SwapRouter multicall(DAI>USDC>WETH to the router, unwrap)".into(),
        calls,
        watch: vec![Address::ZERO, a.dai],
        unread: false,
    });
    // The Universal Router, paid through Permit2.
    let v3_in =
        |path: &[(Address, u32)], to: Address, amount: U256, out_token: Address, user: bool| {
            (
                commands::V3_SWAP_EXACT_IN,
                v3_swap_exact_in(
                    to,
                    amount,
                    minimum(path, out_token, amount),
                    v3_path(path, out_token),
                    user,
                ),
            )
        };
    out.push(Route {
        name: "Universal Router V3 WETH>USDC>DAI".into(),
        calls: via_permit2(
            a.weth,
            weth,
            &[v3_in(
                &[(a.weth, FEE_LOW), (a.usdc, FEE_LOW)],
                MSG_SENDER,
                weth,
                a.dai,
                true,
            )],
        ),
        watch: vec![a.weth, a.dai],
        unread: false,
    });
    out.push(Route {
        name: "Universal Router V3 DAI>WETH>USDC".into(),
        calls: via_permit2(
            a.dai,
            dai,
            &[v3_in(
                &[(a.dai, FEE_MEDIUM), (a.weth, FEE_LOW)],
                MSG_SENDER,
                dai,
                a.usdc,
                true,
            )],
        ),
        watch: vec![a.dai, a.usdc],
        unread: false,
    });
    // Nested: V3 to the router, then the router pays a V2 leg (and sweeps the dust).
    let dai_out = ether(99 * size);
    out.push(Route {
        name: "Universal Router V3 USDC>DAI to itself, V2 DAI>WETH, sweep".into(),
        calls: via_permit2(
            a.usdc,
            usd,
            &[
                v3_in(&[(a.usdc, FEE_LOW)], ADDRESS_THIS, usd, a.dai, true),
                (
                    commands::V2_SWAP_EXACT_IN,
                    v2_swap_exact_in(MSG_SENDER, dai_out, U256::ZERO, &[a.dai, a.weth], false),
                ),
                (
                    commands::SWEEP,
                    (a.dai, MSG_SENDER, U256::ZERO).abi_encode_params().into(),
                ),
            ],
        ),
        watch: vec![a.usdc, a.weth],
        unread: true,
    });
    out.push(Route {
        name: "Universal Router V2 WETH>DAI to itself, V3 DAI>USDC, sweep".into(),
        calls: via_permit2(
            a.weth,
            weth,
            &[
                (
                    commands::V2_SWAP_EXACT_IN,
                    v2_swap_exact_in(ADDRESS_THIS, weth, U256::ZERO, &[a.weth, a.dai], true),
                ),
                (
                    commands::V3_SWAP_EXACT_IN,
                    v3_swap_exact_in(
                        MSG_SENDER,
                        less_bps(dai_out, 300),
                        U256::ZERO,
                        v3_path(&[(a.dai, FEE_LOW)], a.usdc),
                        false,
                    ),
                ),
                (
                    commands::SWEEP,
                    (a.dai, MSG_SENDER, U256::ZERO).abi_encode_params().into(),
                ),
            ],
        ),
        watch: vec![a.weth, a.dai, a.usdc],
        unread: true,
    });
    for r in &mut out {
        r.name = format!("{} ({}/10 WETH)", r.name, size);
    }
    out
}

#[test]
fn honest_multi_hop_swaps_and_nested_routers_pass_the_unpaid_inflow_rule() {
    let base = bed();
    let mut tally: BTreeMap<String, u32> = BTreeMap::new();
    let (mut cases, mut approved) = (0u32, 0u32);
    let policies = {
        let plain = routes_policy(&base);
        let mut skewed = plain.clone();
        // USDC at a table price 0.5 % below the pools: a route through USDC is valued less in
        // the middle than at its ends.
        skewed.prices.push(TablePrice {
            token: base.a().usdc,
            amount: U256::from(1_000_000_000u64),
            value: ether(1) * U256::from(995u64) / U256::from(1_000u64),
        });
        [("TWAP prices", plain), ("USDC 0.5 % off", skewed)]
    };
    // Refusals by value conservation (its codes: the loss, the unpaid-inflow rule, the
    // sources), and by any other check.
    let (mut ours, mut others) = (Vec::new(), Vec::new());
    for (label, policy) in &policies {
        for size in [1, 10, 30] {
            for route in routes(&base, size) {
                let mut b = bed();
                cases += 1;
                let mut policy = policy.clone();
                if route.unread {
                    let refused = b.evaluate_claimed(b.intent(route.calls.clone()), &policy);
                    assert_eq!(
                        refused.decision.codes().collect::<Vec<_>>(),
                        vec![ViolationCode::PlanNotDecoded],
                        "{}",
                        route.name
                    );
                    policy
                        .opaque_plan_routers
                        .push(b.bed.universal_router.router);
                }
                let policy = &policy;
                let evaluation = b.evaluate_claimed(b.intent(route.calls.clone()), policy);
                if !evaluation.decision.approved() {
                    for code in evaluation.decision.codes() {
                        *tally.entry(code.to_string()).or_default() += 1;
                    }
                    let line = format!(
                        "{label}: {}: {:?}",
                        route.name, evaluation.decision.violations
                    );
                    if evaluation
                        .decision
                        .codes()
                        .any(|c| c.check() == Some(Check::MaxLoss))
                    {
                        ours.push(line);
                        continue;
                    }
                    others.push(line);
                    // Refused by another check only: judged again without it, value
                    // conservation must still pass and the execution read back.
                    let mut lax = policy.clone();
                    for c in evaluation.decision.codes().filter_map(|c| c.check()) {
                        lax.checks.set(c, false);
                    }
                    let evaluation = b.evaluate_claimed(b.intent(route.calls.clone()), &lax);
                    assert!(
                        evaluation.decision.approved(),
                        "{:?}",
                        evaluation.decision.violations
                    );
                    let result = b.submit(&evaluation, &route.watch);
                    reads_back(&evaluation, &result, &route.watch, U256::ZERO);
                    continue;
                }
                approved += 1;
                let result = b.submit(&evaluation, &route.watch);
                reads_back(&evaluation, &result, &route.watch, U256::ZERO);
            }
        }
    }
    let unpaid = tally
        .get(ViolationCode::UnpaidInflow.as_str())
        .copied()
        .unwrap_or(0);
    println!(
        "{cases} honest routes: {approved} approved and executed as simulated, \
         {unpaid} refused as unpaid inflows; codes of the refusals: {tally:?}"
    );
    for line in &others {
        println!(
            "refused by another check (then approved without it, executed, read back): {line}"
        );
    }
    assert!(
        ours.is_empty(),
        "honest routes refused by value conservation:\n{}",
        ours.join("\n")
    );
    // No honest route is refused by any other check either (the Permit2 allowances the
    // Universal Router's routes grant are the account's own, to the router).
    assert!(
        others.is_empty(),
        "honest routes refused by another check:\n{}",
        others.join("\n")
    );
}

/// A Universal Router plan that is one trade is read as that trade: V3 then V2 legs chained
/// through the router (`CONTRACT_BALANCE`), the output unwrapped to its recipient. Measured on
/// both pools; no minimum anywhere is refused for its slippage, the output unwrapped to a
/// stranger for its recipient, and the honest plan (the last leg's minimum 0.5 % under the
/// quote) is approved and executes as simulated.
#[test]
fn a_universal_router_plan_is_judged_as_the_trade_it_is() {
    let mut b = bed();
    let (a, v3, ur) = (b.a(), b.bed.uniswap_v3, b.bed.universal_router);
    let d = deadline(&b.world.evm).unwrap();
    let usdc_in = U256::from(1_000_000_000u64);
    let pool = v3
        .pools()
        .into_iter()
        .find(|p| [p.token0, p.token1].contains(&a.usdc) && [p.token0, p.token1].contains(&a.dai))
        .unwrap();
    let dai = v3.quote(&b.world.evm, &pool, a.usdc, usdc_in).unwrap();
    let weth = pace_testkit::mainnet::amount_out(
        dai,
        b.balance(a.dai, a.pair_weth_dai),
        b.balance(a.weth, a.pair_weth_dai),
    );
    let contract_balance = U256::from(1u8) << 255;
    let expiration = b.world.evm.timestamp() + 3_600;
    let plan = |min: U256, recipient: Address| {
        vec![
            ur.approve_permit2(a.usdc, usdc_in),
            ur.permit2_approve(
                a.usdc,
                ur.router,
                U160::saturating_from(usdc_in),
                expiration,
            ),
            ur.execute(
                &[
                    (
                        commands::V3_SWAP_EXACT_IN,
                        v3_swap_exact_in(
                            ADDRESS_THIS,
                            usdc_in,
                            U256::ZERO,
                            v3_path(&[(a.usdc, FEE_LOW)], a.dai),
                            true,
                        ),
                    ),
                    (
                        commands::V2_SWAP_EXACT_IN,
                        v2_swap_exact_in(
                            ADDRESS_THIS,
                            contract_balance,
                            min,
                            &[a.dai, a.weth],
                            false,
                        ),
                    ),
                    (
                        0x0c, // UNWRAP_WETH
                        (recipient, U256::ZERO).abi_encode_params().into(),
                    ),
                ],
                d,
            ),
        ]
    };
    let policy = routes_policy(&b);
    let evaluate = |calls: Vec<Call>| b.evaluate_claimed(b.intent(calls), &policy);
    let loose = evaluate(plan(U256::ZERO, MSG_SENDER));
    assert!(
        loose.decision.has(ViolationCode::SlippageExceeded),
        "{:?}",
        loose.decision.violations
    );
    let stolen = evaluate(plan(less_bps(weth, 50), a.attacker));
    assert!(
        stolen.decision.has(ViolationCode::SwapRecipientNotAccount),
        "{:?}",
        stolen.decision.violations
    );
    let honest = evaluate(plan(less_bps(weth, 50), MSG_SENDER));
    assert!(
        honest.decision.approved(),
        "{:?}",
        honest.decision.violations
    );
    let facts = honest.report.swap.clone().expect("the plan is measured");
    assert_eq!((facts.token_in, facts.token_out), (a.usdc, pace_types::ETH));
    assert_eq!((facts.amount_in, facts.amount_out), (usdc_in, weth));
    assert!(facts.price_impact_bps > 0, "{facts:?}");
    let result = b.submit(&honest, &[a.usdc]);
    reads_back(&honest, &result, &[a.usdc], U256::ZERO);
}
