//! The preview: a transition rendered for a person before anything is signed.

use alloy_primitives::{Address, B256, I256, U256, keccak256};
use pace_types::{
    Approval, Check, Claims, Decision, Intent, SimulationReport, TokenAmount, Violation,
};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// A token's display name and decimals.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TokenMeta {
    /// The symbol (`ETH` for ether, the address when the token has none).
    pub symbol: String,
    /// Decimals (18 when the token does not say).
    pub decimals: u8,
}

/// One token's net change for the account.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TokenDelta {
    /// The token (zero address: ether).
    pub token: Address,
    /// Its symbol.
    pub symbol: String,
    /// Its decimals.
    pub decimals: u8,
    /// The change in the smallest unit, signed decimal.
    pub delta: String,
    /// The change in whole tokens, e.g. `-1.5`.
    pub human: String,
}

impl TokenDelta {
    /// The change as a number.
    pub fn amount(&self) -> I256 {
        I256::from_dec_str(&self.delta).unwrap_or_default()
    }
}

/// One call as shown.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CallView {
    /// The contract called.
    pub target: Address,
    /// Ether sent, in wei (decimal).
    pub value: String,
    /// The 4-byte selector, when the calldata has one.
    pub selector: Option<String>,
}

/// The claims `report` implies for `intent`: `outflows` (the account's gross outflows per
/// token), the last allowance the trace sets per token and spender for the account, the
/// agent's slippage, and the traced contracts when the agent claimed any.
fn implied(intent: &Intent, report: &SimulationReport, outflows: &[TokenAmount]) -> Claims {
    let mut approvals: Vec<Approval> = Vec::new();
    for a in report
        .approvals
        .iter()
        .filter(|a| a.owner == intent.account)
    {
        approvals.retain(|x| (x.token, x.spender) != (a.token, a.spender));
        approvals.push(Approval {
            token: a.token,
            spender: a.spender,
            amount: a.amount,
        });
    }
    let mut touched = Vec::new();
    if !intent.claimed.touched.is_empty() {
        for t in &report.touched_contracts {
            if !touched.contains(t) {
                touched.push(*t);
            }
        }
    }
    Claims {
        approvals,
        outflows: outflows.to_vec(),
        slippage_bps: intent.claimed.slippage_bps,
        touched,
    }
}

/// The transition as rendered for confirmation.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Preview {
    /// The proposal to confirm.
    pub proposal_id: String,
    /// Whether the verifier approved.
    pub approved: bool,
    /// Every violation with its stable code.
    pub violations: Vec<Violation>,
    /// The chain.
    pub chain_id: u64,
    /// The account that executes.
    pub account: Address,
    /// The calls.
    pub calls: Vec<CallView>,
    /// The account's net change per token.
    pub deltas: Vec<TokenDelta>,
    /// Gross amounts leaving the account per token (what its balance must cover).
    pub outflows: Vec<TokenAmount>,
    /// Everyone else tokens move from or to, and the contracts called.
    pub counterparties: Vec<Address>,
    /// Simulated gas.
    pub gas_used: u64,
    /// The fee cap per gas the relayer pays at most, in wei.
    pub max_fee_per_gas: u64,
    /// The most the relayer pays for the transaction, in wei (`gas_used * max_fee_per_gas`).
    pub max_fee_wei: String,
    /// Block of the simulated state.
    pub block_number: u64,
    /// Its timestamp.
    pub timestamp: u64,
    /// Intent content hash.
    pub intent_hash: B256,
    /// Policy content hash.
    pub policy_hash: B256,
    /// Simulation report content hash.
    pub simulation_hash: Option<B256>,
    /// Unix time after which the preview can no longer be confirmed.
    pub expires_at: u64,
    /// What the gross outflows are worth at pre-execution prices, in wei (the policy's unit of
    /// account), rounded up; absent when an outflow cannot be priced from what the policy
    /// trusts, valued as the verifier values (`pace_pipeline::Assessed::outflow_value`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub outflow_value_wei: Option<String>,
    /// When the verifier found the claims missing or wrong: the claims the simulation
    /// implies (the account's gross outflows and the approvals the trace sets, the agent's
    /// own slippage, and the traced contracts when it claimed any). Shown, never adopted: the
    /// intent stays rejected, and an agent that proposes again with them states what the
    /// trace shows; whether that is what the user asked for is for the agent and the human.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub implied_claims: Option<Claims>,
}

impl Preview {
    /// Renders `intent`, simulated as `report` and judged as `decision`. `meta` names tokens.
    #[allow(clippy::too_many_arguments)]
    pub fn render(
        proposal_id: String,
        intent: &Intent,
        report: &SimulationReport,
        decision: &Decision,
        meta: &dyn Fn(Address) -> TokenMeta,
        max_fee_per_gas: u64,
        expires_at: u64,
    ) -> Self {
        let account = intent.account;
        let deltas = report
            .balance_changes
            .iter()
            .map(|c| {
                let m = meta(c.token);
                TokenDelta {
                    token: c.token,
                    human: human(c.delta, m.decimals),
                    symbol: m.symbol,
                    decimals: m.decimals,
                    delta: c.delta.to_string(),
                }
            })
            .collect();
        let mut outflows: BTreeMap<Address, U256> = BTreeMap::new();
        let mut counterparties: Vec<Address> = intent.calls.iter().map(|c| c.target).collect();
        for f in &report.token_flows {
            if f.from == account {
                let e = outflows.entry(f.token).or_default();
                *e = e.saturating_add(f.amount);
            }
            counterparties.extend([f.from, f.to].into_iter().filter(|a| *a != account));
        }
        counterparties.sort();
        counterparties.dedup();
        let outflows: Vec<TokenAmount> = outflows
            .into_iter()
            .map(|(token, amount)| TokenAmount { token, amount })
            .collect();
        let claims_wrong = decision
            .violations
            .iter()
            .any(|v| v.code.check() == Some(Check::Claims));
        let implied_claims = claims_wrong.then(|| implied(intent, report, &outflows));
        Self {
            proposal_id,
            approved: decision.approved(),
            violations: decision.violations.clone(),
            chain_id: intent.chain_id,
            account,
            calls: intent
                .calls
                .iter()
                .map(|c| CallView {
                    target: c.target,
                    value: c.value.to_string(),
                    selector: c.selector().map(|s| format!("0x{}", hex_bytes(&s))),
                })
                .collect(),
            deltas,
            outflows,
            counterparties,
            gas_used: report.gas_used,
            max_fee_per_gas,
            max_fee_wei: (U256::from(report.gas_used) * U256::from(max_fee_per_gas)).to_string(),
            block_number: report.block_number,
            timestamp: report.timestamp,
            intent_hash: decision.intent_hash,
            policy_hash: decision.policy_hash,
            simulation_hash: decision.simulation_hash,
            expires_at,
            outflow_value_wei: None,
            implied_claims,
        }
    }

    /// [`Self::outflow_value_wei`] as a number; `None` when unpriced.
    pub fn outflow_value(&self) -> Option<U256> {
        self.outflow_value_wei
            .as_deref()
            .and_then(|v| U256::from_str_radix(v, 10).ok())
    }

    /// The content hash of the rendering: what a confirmation binds to.
    pub fn hash(&self) -> B256 {
        let mut bytes = b"PACE-RS/preview/v1\n".to_vec();
        bytes.extend_from_slice(&pace_types::hash::canonical_json(self));
        keccak256(bytes)
    }

    /// The net change of `token` (zero if the preview shows none).
    pub fn delta_of(&self, token: Address) -> I256 {
        self.deltas
            .iter()
            .find(|d| d.token == token)
            .map_or(I256::ZERO, TokenDelta::amount)
    }

    /// The outcome bounds of what this preview shows, `tolerance_bps` around each token's net
    /// change (the same rules as the simulation's bounds): what a PDR signed on its
    /// confirmation must also respect on-chain.
    pub fn bounds(&self, tolerance_bps: u32) -> Vec<pace_types::pdr::Bound> {
        let changes: Vec<pace_types::BalanceChange> = self
            .deltas
            .iter()
            .map(|d| pace_types::BalanceChange {
                token: d.token,
                delta: d.amount(),
            })
            .collect();
        pace_pipeline::bounds_from_changes(&changes, tolerance_bps)
    }
}

fn hex_bytes(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}

/// `v` in units of `10^decimals`, without trailing zeros: `-1500000` with 6 decimals is
/// `-1.5`.
pub fn human(v: I256, decimals: u8) -> String {
    let (neg, abs) = (v.is_negative(), v.unsigned_abs());
    let scale = U256::from(10u64).pow(U256::from(decimals));
    let (whole, frac) = (abs / scale, abs % scale);
    let mut out = if neg { "-".to_owned() } else { String::new() };
    out.push_str(&whole.to_string());
    if !frac.is_zero() {
        let digits = frac.to_string();
        let padded = format!(
            "{}{digits}",
            "0".repeat(usize::from(decimals) - digits.len())
        );
        out.push('.');
        out.push_str(padded.trim_end_matches('0'));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn human_decimals() {
        assert_eq!(human(I256::try_from(-1_500_000i64).unwrap(), 6), "-1.5");
        assert_eq!(human(I256::try_from(2_000_000i64).unwrap(), 6), "2");
        assert_eq!(human(I256::try_from(5i64).unwrap(), 3), "0.005");
        assert_eq!(human(I256::ZERO, 18), "0");
        assert_eq!(human(I256::try_from(123i64).unwrap(), 0), "123");
    }
}
