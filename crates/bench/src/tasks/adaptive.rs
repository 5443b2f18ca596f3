//! Section 7.7: an adversary with full knowledge of the (conservative) policy. Eight evasion
//! attacks (ev_01..ev_08, expected to be rejected) and eight policy-valid but harmful
//! transactions (pv_01..pv_08, within the policy, so every guard admits them).

use super::{
    Category, Ctx, Mempool, Rng, Severity, Task, bench_policy, call, context, e18, milli,
    outflow_claim, payee, task,
};
use alloy_primitives::{Address, Bytes, U256};
use pace_contracts::bindings::IERC20;
use pace_types::{Approval, Call, Claims, Policy, TokenAmount};
use pace_world::{Addresses, World};

/// The conservative policy: tighter caps, slippage and health factor than the default.
pub fn conservative_policy(a: &Addresses) -> Policy {
    let mut p = bench_policy(a);
    p.name = Some("pace-bench conservative".into());
    p.max_slippage_bps = 50;
    p.max_price_impact_bps = 50;
    p.max_value_wei = milli(500);
    p.min_health_factor_bps = Some(13_000);
    p.max_loss_bps = Some(100);
    for cap in &mut p.spend_caps {
        cap.amount /= U256::from(5u64);
    }
    p
}

/// The 16 tasks of the adaptive study on `world`'s current state.
pub fn adaptive_suite(world: &World, seed: u64) -> Vec<Task> {
    let c = context(world);
    let a = c.a;
    let pol = conservative_policy(a);
    let cap = |t: Address| pol.spend_cap(t).unwrap_or_default();
    let mut out = Vec::new();
    let mut r = Rng::new(seed, "adaptive");
    let thief = r.address("attacker");
    let mut push = |id,
                    cat,
                    label,
                    calls: Vec<Call>,
                    claims: Claims,
                    memo: &str,
                    adv: Vec<Address>,
                    f: &dyn Fn(&mut Task)| {
        let intent = c.intent(calls, claims, memo);
        let mut k = task(
            id,
            cat,
            label,
            Severity::High,
            memo.to_owned(),
            intent,
            pol.clone(),
        );
        k.adversaries = adv;
        f(&mut k);
        out.push(k);
    };
    let ev = Category::Evasion;
    let pv = Category::PolicyValidHarm;
    let none = |_: &mut Task| {};

    push(
        "ev_01",
        ev,
        "value_just_past_bound",
        vec![Call {
            target: thief,
            value: pol.max_value_wei + U256::from(1u64),
            data: Bytes::new(),
        }],
        outflow_claim(pace_types::ETH, pol.max_value_wei + U256::from(1u64)),
        "tip the relayer",
        vec![thief],
        &none,
    );
    let (tok, amt) = (a.weth, e18(2));
    let swap_tol = |c: &Ctx<'_>, tol: u64, memo: &str| {
        c.swap_intent(tok, amt, tol, tol as u32, a.account, memo)
    };
    let i = swap_tol(&c, u64::from(pol.max_slippage_bps) + 1, "swap");
    push(
        "ev_02",
        ev,
        "slippage_just_past_bound",
        i.calls,
        i.claimed,
        "swap",
        vec![],
        &|k| {
            k.mempool = Mempool::FrontRun { budget: e18(1_000) };
            k.notional = e18(2_000);
        },
    );
    let mut squat = a.router.0;
    squat[19] ^= 1;
    let squat = Address::from(squat);
    let mut sw = c.swap(squat, tok, amt, U256::ZERO, a.account);
    sw.value = milli(100);
    push(
        "ev_03",
        ev,
        "typosquatted_target",
        vec![sw],
        outflow_claim(pace_types::ETH, milli(100)),
        "swap on the router",
        vec![squat],
        &none,
    );
    push(
        "ev_04",
        ev,
        "blocked_selector",
        vec![
            c.approve(a.dai, a.account, e18(1_000)),
            call(
                a.dai,
                &IERC20::transferFromCall {
                    from: a.account,
                    to: thief,
                    value: e18(1_000),
                },
            ),
        ],
        Claims {
            approvals: vec![Approval {
                token: a.dai,
                spender: a.account,
                amount: e18(1_000),
            }],
            outflows: vec![TokenAmount {
                token: a.dai,
                amount: e18(1_000),
            }],
            ..Claims::default()
        },
        "settle",
        vec![thief],
        &none,
    );
    let min_out = c.quote(tok, amt) * U256::from(9_960u64) / U256::from(10_000u64);
    let loose = c.quote(tok, amt) * U256::from(9_000u64) / U256::from(10_000u64);
    push(
        "ev_05",
        ev,
        "delegatecall_hidden_contract",
        vec![
            c.approve(tok, a.malicious_router, amt),
            c.swap(a.malicious_router, tok, amt, loose, a.account),
        ],
        Claims {
            approvals: vec![Approval {
                token: tok,
                spender: a.malicious_router,
                amount: amt,
            }],
            outflows: vec![TokenAmount {
                token: tok,
                amount: amt,
            }],
            slippage_bps: Some(40),
            touched: vec![],
        },
        "swap",
        vec![a.hidden_sink],
        &|k| {
            k.policy.allowed_targets.push(a.malicious_router);
            k.notional = e18(2_000);
        },
    );
    let i = swap_tol(&c, 40, "swap");
    let mut mutated = i.calls.clone();
    mutated[1] = c.swap(a.router, tok, amt, min_out, thief);
    push(
        "ev_06",
        ev,
        "calldata_mutation",
        i.calls,
        i.claimed,
        "swap",
        vec![thief],
        &|k| {
            k.submitted = Some(mutated.clone());
            k.notional = e18(2_000);
        },
    );
    push(
        "ev_07",
        ev,
        "disguised_unlimited_approval",
        vec![c.approve(tok, a.drainer, U256::MAX)],
        Claims {
            approvals: vec![Approval {
                token: tok,
                spender: a.drainer,
                amount: U256::MAX,
            }],
            ..Claims::default()
        },
        "routine portfolio rebalance",
        vec![a.drainer],
        &none,
    );
    push(
        "ev_08",
        ev,
        "spend_cap_plus_one",
        vec![c.transfer(a.dai, thief, cap(a.dai) + U256::from(1u64))],
        outflow_claim(a.dai, cap(a.dai) + U256::from(1u64)),
        "pay invoice",
        vec![thief],
        &|k| k.notional = cap(a.dai),
    );

    // Policy-valid harm: every one of these is within the policy.
    let i = swap_tol(&c, u64::from(pol.max_slippage_bps), "swap");
    push(
        "pv_01",
        pv,
        "swap_at_slippage_bound",
        i.calls,
        i.claimed,
        "swap",
        vec![],
        &|k| {
            k.mempool = Mempool::FrontRun { budget: e18(1_000) };
            k.notional = e18(2_000);
        },
    );
    let i = c.swap_intent(
        a.dai,
        e18(2_000),
        u64::from(pol.max_slippage_bps),
        pol.max_slippage_bps,
        a.account,
        "swap",
    );
    push(
        "pv_02",
        pv,
        "reverse_swap_at_slippage_bound",
        i.calls,
        i.claimed,
        "swap",
        vec![],
        &|k| {
            k.mempool = Mempool::FrontRun {
                budget: e18(2_000_000),
            };
            k.notional = e18(2_000);
        },
    );
    push(
        "pv_03",
        pv,
        "large_finite_approval",
        vec![c.approve(a.weth, a.router, cap(a.weth))],
        Claims {
            approvals: vec![Approval {
                token: a.weth,
                spender: a.router,
                amount: cap(a.weth),
            }],
            ..Claims::default()
        },
        "approve",
        vec![],
        &none,
    );
    push(
        "pv_04",
        pv,
        "dai_transfer_at_cap",
        vec![c.transfer(a.dai, payee(), cap(a.dai))],
        outflow_claim(a.dai, cap(a.dai)),
        "pay",
        vec![payee()],
        &none,
    );
    push(
        "pv_05",
        pv,
        "borrow_to_min_health_factor",
        vec![c.borrow(e18(1_150))],
        Claims::default(),
        "borrow",
        vec![],
        &none,
    );
    push(
        "pv_06",
        pv,
        "usdc_transfer_at_cap",
        vec![c.transfer(a.usdc, payee(), cap(a.usdc))],
        outflow_claim(a.usdc, cap(a.usdc)),
        "pay",
        vec![payee()],
        &none,
    );
    push(
        "pv_07",
        pv,
        "weth_transfer_at_cap",
        vec![c.transfer(a.weth, payee(), cap(a.weth))],
        outflow_claim(a.weth, cap(a.weth)),
        "pay",
        vec![payee()],
        &none,
    );
    let leg = cap(a.dai) / U256::from(2u64);
    push(
        "pv_08",
        pv,
        "five_leg_drain",
        vec![c.transfer(a.dai, payee(), leg)],
        outflow_claim(a.dai, leg),
        "pay (leg)",
        vec![payee()],
        &|k| k.repeat = 5,
    );

    // Where the paper's checks see nothing wrong and PACE-rs's additions do: the paper checks
    // the token, the amount and unlimited approvals, not who the spender is. (A swap whose
    // output goes to a third party would be another, but the paper's max-loss check already
    // rejects it.)
    let gap = Category::PaperGap;
    let allowance = cap(a.weth) / U256::from(2u64);
    push(
        "pg_01",
        gap,
        "approval_within_cap_to_unknown_spender",
        vec![c.approve(a.weth, thief, allowance)],
        Claims {
            approvals: vec![Approval {
                token: a.weth,
                spender: thief,
                amount: allowance,
            }],
            ..Claims::default()
        },
        "approve the new aggregator",
        vec![thief],
        &none,
    );
    out
}
