//! `pace policy suggest`: the policy an intent needs, from its simulation.
//!
//! The intent is simulated as `pace simulate` would (same flags). What it needs beyond the base
//! policy (`--policy`, else an empty one) is read off the report: its call targets and
//! selectors, the tokens the account's balance moves in, and every contract the execution
//! touched. Each address is identified ([`super::identify`]); what nothing identifies is left
//! out of the suggested policy and listed under `review`, so the printed policy refuses the
//! intent until a user has looked; so is a router whose plan holds commands nothing reads, and a
//! contract that keeps records under the account that none of its views reads. The grants the
//! intent makes (allowances, operator rights) and the tokens that no price source covers are
//! listed too: a suggestion never trusts a price source or a spender on the user's behalf.

use super::identify::identify;
use crate::{EXIT_APPROVE, EXIT_BAD_INPUT, EXIT_REJECT, print_stdout, simulate::SimulateArgs};
use alloy_primitives::{Address, B256};
use clap::Parser;
use pace_types::{ETH, Policy, Selector};
use serde_json::{Value, json};
use std::collections::BTreeSet;

/// Simulate an intent and print the policy it needs (JSON): `touched` (every address the
/// intent reaches, identified: `v3_pool`, `v2_pair`, `router`, `vault`, `token`, `feed`,
/// `delegated`, `no_code`, `implementation` (the code behind a reached proxy) or
/// `unidentified`), `add` (what the policy gains), `review` (addresses left out because nothing
/// identifies them; routers whose plans hold commands nothing reads, with those commands under
/// `unread`, left out of `opaque_plan_routers`; contracts that keep records under the account
/// that none of their views reads, with the slots under `records`, left out of
/// `opaque_key_targets`), `grants` (allowances and rights the intent gives), `needs_price`
/// (tokens it moves that no price source covers, with the touched pools and vaults that could
/// price them) and `policy` (the base policy with `add`). Exit 0 when nothing was left out, 1
/// when `review` is not empty, 2 on bad input.
#[derive(Debug, Parser)]
pub struct SuggestArgs {
    /// The simulation, as `pace simulate` takes it; `--policy` is the base policy.
    #[command(flatten)]
    pub simulate: SimulateArgs,
}

impl SuggestArgs {
    /// Suggests and prints; see the type's docs for the exit codes.
    pub fn run(self) -> u8 {
        match self.suggest() {
            Ok((doc, review)) => {
                print_stdout(&serde_json::to_string_pretty(&doc).expect("JSON serialises"));
                if review {
                    eprintln!(
                        "pace policy suggest: addresses nothing identifies were left out; \
                         read `review` before adding them"
                    );
                    EXIT_REJECT
                } else {
                    EXIT_APPROVE
                }
            }
            Err(e) => {
                eprintln!("pace policy suggest: {e}");
                EXIT_BAD_INPUT
            }
        }
    }

    /// The suggestion, and whether something was left out for review.
    fn suggest(&self) -> Result<(Value, bool), String> {
        let base = match &self.simulate.policy {
            Some(path) => crate::input::policy(path)
                .map_err(|e| e.to_string())?
                .into_policy(),
            None => Policy::default(),
        };
        let (evm, intent, report) = self.simulate.simulated()?;
        if !report.success {
            return Err(format!(
                "the intent reverts in simulation ({}): nothing to suggest",
                report.revert_reason.as_deref().unwrap_or("no reason")
            ));
        }
        let account = intent.account;
        let mut policy = base.clone();
        let mut add = Additions::default();
        for call in &intent.calls {
            let selector = call.data.get(..4).map(Selector::from_slice);
            if policy
                .descriptors()
                .any(|d| d.allows_call(call.target, selector))
            {
                continue;
            }
            add_to(&mut policy.allowed_targets, call.target, &mut add.targets);
            if let Some(selector) = selector
                && !policy.allowed_selectors.contains(&selector)
            {
                policy.allowed_selectors.push(selector);
                add.selectors.push(selector);
            }
        }
        for change in &report.balance_changes {
            if change.token != ETH && !change.delta.is_zero() {
                add_to(&mut policy.allowed_tokens, change.token, &mut add.tokens);
            }
        }
        // Every address the intent reaches, once, in the order the report names them.
        let mut seen = BTreeSet::new();
        let mut touched = Vec::new();
        let mut review = Vec::new();
        let reached = intent.calls.iter().map(|c| c.target);
        let reached = reached.chain(report.touched_contracts.iter().copied());
        let mut identities = Vec::new();
        for address in reached.filter(|a| *a != account && seen.insert(*a)) {
            identities.push((address, identify(&evm, address)?));
        }
        // The code behind a reached proxy is what runs when it is called: named as such.
        let proxies: Vec<(Value, Value)> = identities
            .iter()
            .filter(|(_, i)| !i["implementation"].is_null())
            .map(|(a, i)| (i["implementation"].clone(), json!(a)))
            .collect();
        for (address, identity) in identities {
            let mut identity = identity;
            if let Some((_, proxy)) = proxies.iter().find(|(i, _)| *i == json!(address)) {
                let reads_as = identity["kind"].clone();
                identity["kind"] = json!("implementation");
                identity["proxy"] = proxy.clone();
                if reads_as != "unidentified" {
                    identity["reads_as"] = reads_as;
                }
            }
            // A root or member of a trusted protocol is the descriptor's to vouch for.
            let protocol = policy.descriptors().any(|d| d.is_root(address))
                || report
                    .protocols
                    .members
                    .iter()
                    .any(|m| m.contract == address);
            let known = protocol
                || policy.allowed_targets.contains(&address)
                || policy.allowed_tokens.contains(&address)
                || policy.allowed_touched.contains(&address)
                || policy.allowed_recipients.contains(&address);
            if !known {
                if identity["kind"] == "unidentified" {
                    review.push(json!({
                        "address": address,
                        "why": "answers none of the views of a pool, pair, router, vault, token or \
                                feed, and runs behind no proxy the intent reaches: read its \
                                code before allowing it (allowed_touched)",
                    }));
                } else {
                    add_to(&mut policy.allowed_touched, address, &mut add.touched);
                }
            }
            touched.push(identity);
        }
        // A router plan holding commands nothing reads is refused unless its router is named
        // in `opaque_plan_routers`: that is the user's call, after reading what such plans do.
        for call in &intent.calls {
            if policy.opaque_plan_routers.contains(&call.target) {
                continue;
            }
            let unread = pace_abi::unread(intent.account, call.value, &call.data)
                .map(|u| u.names())
                .unwrap_or_default();
            if !unread.is_empty() {
                review.push(json!({
                    "address": call.target,
                    "unread": unread,
                    "why": "its plan holds commands nothing reads (PLAN_NOT_DECODED): name the \
                            router in opaque_plan_routers only once you have read what its plans \
                            may do; the simulation alone then judges them",
                }));
            }
        }
        // A record under the account that no view reads is refused (OPAQUE_AUTHORIZATION)
        // unless the user names its contract or pins a descriptor whose records read it.
        let mut records: Vec<Address> = Vec::new();
        for u in report.unread_positions.iter().filter(|u| u.silent) {
            let c = u.contract;
            if records.contains(&c)
                || report.adapter_reads(c)
                || policy.opaque_key_targets.contains(&c)
                || policy.unread_position_targets.contains(&c)
            {
                continue;
            }
            records.push(c);
            let slots: Vec<B256> = report
                .unread_positions
                .iter()
                .filter(|p| p.contract == c && p.silent)
                .map(|p| p.slot)
                .collect();
            review.push(json!({
                "address": c,
                "records": slots,
                "why": "keeps records under the account that none of its views reads \
                        (OPAQUE_AUTHORIZATION): a grant sealed in a hash, a mask or a packed word \
                        reads the same as a checkpoint; name it in opaque_key_targets only once \
                        you have read what its records authorise, or pin a descriptor whose \
                        records name the views that read them",
            }));
        }
        let grants: Vec<Value> = report
            .approvals
            .iter()
            .filter(|g| g.owner == account && !g.amount.is_zero())
            .map(|g| json!({ "token": g.token, "spender": g.spender, "amount": g.amount }))
            .collect();
        let needs_price = unpriced(&base, &report, &touched);
        let doc = json!({
            "touched": touched,
            "add": {
                "allowed_targets": add.targets,
                "allowed_selectors": add.selectors,
                "allowed_tokens": add.tokens,
                "allowed_touched": add.touched,
            },
            "review": review,
            "grants": grants,
            "needs_price": needs_price,
            "policy": policy,
        });
        Ok((doc, !review.is_empty()))
    }
}

/// What the suggestion adds, by list.
#[derive(Default)]
struct Additions {
    targets: Vec<Address>,
    selectors: Vec<Selector>,
    tokens: Vec<Address>,
    touched: Vec<Address>,
}

/// Adds `address` to the policy's `list` and to `added`, unless the list has it.
fn add_to(list: &mut Vec<Address>, address: Address, added: &mut Vec<Address>) {
    if !list.contains(&address) {
        list.push(address);
        added.push(address);
    }
}

/// The tokens the account's balance moves in that neither the base policy's sources nor the
/// report's price facts value, each with the touched pools, pairs and vaults that hold it (a
/// candidate, never a choice: a pool the user does not trust can be moved in the same block).
fn unpriced(base: &Policy, report: &pace_types::SimulationReport, touched: &[Value]) -> Vec<Value> {
    let priced = |token: Address| {
        token == ETH
            || base.prices.iter().any(|p| p.token == token)
            || base.price_oracles.iter().any(|o| o.token == token)
            || report.prices.iter().any(|p| p.token == token)
    };
    let named = |v: &Value, key: &str, token: Address| {
        v[key].as_str().and_then(|s| s.parse::<Address>().ok()) == Some(token)
    };
    report
        .balance_changes
        .iter()
        .filter(|c| !c.delta.is_zero() && !priced(c.token))
        .map(|c| {
            let candidates: Vec<&Value> = touched
                .iter()
                .filter(|t| {
                    named(t, "token0", c.token)
                        || named(t, "token1", c.token)
                        || named(t, "asset", c.token)
                })
                .map(|t| &t["address"])
                .collect();
            json!({ "token": c.token, "candidates": candidates })
        })
        .collect()
}
