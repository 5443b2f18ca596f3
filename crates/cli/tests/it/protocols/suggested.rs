//! `pace policy suggest` on the bed: a policy that names no protocol internals, completed from
//! an intent's simulation, then used as it is by `pace run`.

use super::{
    harness::{Harness, Watch},
    less_bps, policies,
};
use alloy_primitives::Address;
use pace_testkit::protocols::{ether, uniswap_v3::deadline};
use pace_types::Policy;
use serde_json::Value;

/// 10 WETH supplied to Aave V3 and 1 WETH swapped for DAI through SwapRouter, under a base
/// policy with the user's caps and prices and no target, selector or counterparty: the
/// suggestion identifies the V3 pool, the router, the Aave pool's proxy and the code behind
/// it, and the tokens, leaves out for review only what answers no known view and runs behind
/// no proxy (Aave's logic libraries and rate strategy), and, those added as a reviewing user
/// would, the printed
/// policy runs the intent through `pace run` as simulated. `pace policy check` then reads the
/// suggested policy on the node without a problem.
pub(super) fn suggested_policy_runs_an_aave_supply_and_a_v3_swap(h: &mut Harness) {
    let (a, v3, aave) = (h.a, h.bed.uniswap_v3, h.bed.aave.clone());
    let pool = v3.weth_dai;
    let quote = v3.quote(&h.node, &pool, a.weth, ether(1)).unwrap();
    let mut calls = aave.supply(a.weth, ether(10), a.account);
    calls.extend(v3.exact_input_single(
        &pool,
        a.weth,
        ether(1),
        less_bps(quote, 50),
        a.account,
        deadline(&h.node).unwrap(),
    ));
    let base = policies::base(h, &[], &[], &[], &[]);
    let (code, doc) = h.suggest("suggested", calls.clone(), &base);

    let kind = |address: Address| -> Value {
        doc["touched"]
            .as_array()
            .unwrap()
            .iter()
            .find(|t| t["address"].as_str().and_then(|s| s.parse().ok()) == Some(address))
            .unwrap_or_else(|| panic!("{address} is not among the touched: {doc:#}"))
            .clone()
    };
    let v3_pool = kind(pool.address);
    assert_eq!(v3_pool["kind"], "v3_pool", "{v3_pool}");
    assert_eq!(v3_pool["fee"], pool.fee, "{v3_pool}");
    let router = kind(v3.swap_router);
    assert_eq!(router["kind"], "router", "{router}");
    let lending = kind(aave.pool);
    assert_eq!(
        lending["implementation"]
            .as_str()
            .map(str::parse::<Address>),
        Some(Ok(aave.pool_implementation)),
        "{lending}"
    );
    assert_eq!(kind(aave.pool_implementation)["kind"], "implementation");
    assert_eq!(kind(a.weth)["kind"], "token");

    // Left out: only code nothing identifies, and the exit code says so.
    let review: Vec<Address> = doc["review"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["address"].as_str().unwrap().parse().unwrap())
        .collect();
    assert_eq!(code, Some(if review.is_empty() { 0 } else { 1 }), "{doc:#}");
    let internals = policies::aave_contracts(h);
    for r in &review {
        assert_eq!(kind(*r)["kind"], "unidentified", "{r}");
        assert!(
            internals.contains(r),
            "{r} was left for review, though it is none of Aave's internals: {doc:#}"
        );
    }

    // The user reads the libraries and allows them; the policy runs the intent.
    let mut policy: Policy = serde_json::from_value(doc["policy"].clone()).expect("a policy");
    policy.allowed_touched.extend(&review);
    let hand = policies::with_v3(h, policies::aave(h));
    let count =
        |p: &Policy| p.allowed_targets.len() + p.allowed_touched.len() + p.allowed_tokens.len();
    eprintln!(
        "  suggested: {} addresses ({} of them reviewed by hand) against {} in the hand-written \
         Aave and V3 policy",
        count(&policy),
        review.len(),
        count(&hand)
    );
    let run = h.run(
        "suggested",
        calls,
        &policy,
        &[Watch::Token(a.weth), Watch::Token(a.dai)],
    );
    run.assert_executed_as_simulated(&[], super::accrual());
    let (code, doc) = h.check_policy("suggested", &policy);
    assert_eq!(code, Some(0), "{doc:#}");
    assert!(doc["checked"].as_u64().unwrap() >= 5, "{doc:#}");
}

/// `pace policy check` passes the bed's own V3 policy, and names what does not answer as the
/// policy takes it: a target without code, a token that is no token (the router), a pair that
/// is no pair (a V3 pool).
pub(super) fn policy_check_names_what_does_not_answer(h: &mut Harness) {
    let v3 = h.bed.uniswap_v3;
    let (code, doc) = h.check_policy("v3_checked", &policies::v3(h));
    assert_eq!(code, Some(0), "{doc:#}");
    let mut broken = policies::v3(h);
    let nowhere = super::stranger();
    broken.allowed_tokens.push(v3.swap_router);
    broken.allowed_targets.push(nowhere);
    broken.price_pools.push(v3.weth_dai.address);
    let (code, doc) = h.check_policy("v3_broken", &broken);
    assert_eq!(code, Some(1), "{doc:#}");
    let problems: Vec<(String, Address)> = doc["problems"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| {
            (
                p["field"].as_str().unwrap().to_owned(),
                p["address"].as_str().unwrap().parse().unwrap(),
            )
        })
        .collect();
    let expected = [
        ("allowed_targets".to_owned(), nowhere),
        ("allowed_tokens".to_owned(), v3.swap_router),
        ("price_pools".to_owned(), v3.weth_dai.address),
    ];
    assert_eq!(problems, expected, "{doc:#}");
}

/// A Universal Router plan holding a command nothing reads (a V3 swap into the router, then a
/// `TRANSFER` of part of what it holds): the suggestion adds the router as a target but leaves it out of
/// `opaque_plan_routers`, naming it under `review` with the command, and exits 1.
pub(super) fn a_plan_with_a_command_nothing_reads_is_left_for_review(h: &mut Harness) {
    use alloy_primitives::{U256, aliases::U160};
    use alloy_sol_types::SolValue as _;
    use pace_testkit::protocols::{
        Chain as _,
        universal_router::{ADDRESS_THIS, MSG_SENDER, commands, v3_path},
    };
    let (a, ur) = (h.a, h.bed.universal_router);
    let now = h.node.timestamp().unwrap();
    let swap: alloy_primitives::Bytes = (
        ADDRESS_THIS,
        ether(1),
        U256::ZERO,
        v3_path(
            &[(a.weth, pace_testkit::protocols::uniswap_v3::FEE_MEDIUM)],
            a.dai,
        ),
        true,
    )
        .abi_encode_params()
        .into();
    // `TRANSFER` (0x05): `(token, recipient, value)`, part of what the router holds (the rest
    // stays there; a transfer of all of it would be the trade's payment, and read).
    let transfer = (a.dai, MSG_SENDER, ether(100)).abi_encode_params().into();
    let calls = vec![
        ur.approve_permit2(a.weth, ether(1)),
        ur.permit2_approve(
            a.weth,
            ur.router,
            U160::saturating_from(ether(1)),
            now + 600,
        ),
        ur.execute(
            &[(commands::V3_SWAP_EXACT_IN, swap), (0x05, transfer)],
            deadline(&h.node).unwrap(),
        ),
    ];
    let base = policies::base(h, &[], &[], &[], &[]);
    let (code, doc) = h.suggest("unread_plan", calls, &base);
    let flagged: Vec<&Value> = doc["review"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["address"].as_str().and_then(|s| s.parse().ok()) == Some(ur.router))
        .collect();
    assert_eq!(flagged.len(), 1, "{doc:#}");
    assert_eq!(flagged[0]["unread"], serde_json::json!(["0x05"]), "{doc:#}");
    assert_eq!(code, Some(1), "{doc:#}");
    let policy: Policy = serde_json::from_value(doc["policy"].clone()).expect("a policy");
    assert!(policy.allowed_targets.contains(&ur.router));
    assert!(policy.opaque_plan_routers.is_empty());
}
