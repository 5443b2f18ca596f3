//! A mutable (intent, report, policy, now) scenario for tests.
#![allow(dead_code, unreachable_pub)]

use alloy_primitives::U256;
use pace_testkit::mainnet::*;
use pace_types::{Decision, Intent, Policy, SimulationReport, TokenAmount, ViolationCode};
use pace_verifier::verify;

#[derive(Debug, Clone)]
pub struct Case {
    pub intent: Intent,
    pub report: Option<SimulationReport>,
    pub policy: Policy,
    pub now: u64,
}

impl Case {
    /// The benign single swap with its faithful report under the demo policy.
    pub fn benign() -> Self {
        Self::from_spec(&SwapSpec::default())
    }

    pub fn from_spec(spec: &SwapSpec) -> Self {
        let intent = spec.intent();
        let report = spec.report(&intent);
        Self {
            intent,
            report: Some(report),
            policy: policy(),
            now: NOW,
        }
    }

    /// An approve-only intent (no swap), with a faithful report.
    pub fn approve_only(amount: U256) -> Self {
        let mut spec = SwapSpec {
            approve: Some(amount),
            ..SwapSpec::default()
        };
        spec.amount_in = U256::ZERO;
        let mut case = Self::from_spec(&spec);
        case.intent.calls.truncate(1);
        case.intent.claimed.outflows.clear();
        case.intent.claimed.slippage_bps = None;
        case.intent.claimed.touched = vec![USDC];
        let report = case.report.as_mut().unwrap();
        report.touched_contracts = vec![USDC];
        report.token_flows.clear();
        report.balance_changes.clear();
        report.swap = None;
        report.loss_bps = None;
        case.rehash()
    }

    /// Re-binds the report to the (edited) intent.
    pub fn rehash(mut self) -> Self {
        let hash = self.intent.intent_hash();
        if let Some(r) = self.report.as_mut() {
            r.intent_hash = hash;
        }
        self
    }

    pub fn with(mut self, f: impl FnOnce(&mut Self)) -> Self {
        f(&mut self);
        self
    }

    pub fn decide(&self) -> Decision {
        let policy = self.policy.clone().compile().expect("test policy compiles");
        verify(&self.intent, &policy, self.report.as_ref(), self.now)
    }

    pub fn codes(&self) -> Vec<ViolationCode> {
        self.decide().codes().collect()
    }

    /// The payees' gains as a faithful simulator measures them when every token transfers
    /// what it logs: each token's logged net inflow to the policy's payees.
    pub fn paid_as_logged(mut self) -> Self {
        let payees = self.policy.allowed_recipients.clone();
        let r = self.report_mut();
        let mut receipts: Vec<TokenAmount> = Vec::new();
        for f in &r.token_flows {
            if payees.contains(&f.to) && !payees.contains(&f.from) {
                match receipts.iter_mut().find(|t| t.token == f.token) {
                    Some(t) => t.amount += f.amount,
                    None => receipts.push(TokenAmount {
                        token: f.token,
                        amount: f.amount,
                    }),
                }
            }
        }
        r.payee_receipts = receipts;
        self
    }

    pub fn report_mut(&mut self) -> &mut SimulationReport {
        self.report.as_mut().expect("case has a report")
    }
}
