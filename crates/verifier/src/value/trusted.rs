//! The protocol facts the policy trusts: those whose market or position manager is among its
//! `allowed_targets` (the contracts the user lets the agent call, and so trusts to report what
//! they hold). Everything else the adapters read is ignored, so a contract nobody named cannot
//! declare a token a debt (and an outflow of it a repayment) or a position worth more than it
//! is.

use crate::MAX_REPORT_LIST_LEN;
use alloy_primitives::Address;
use pace_types::{
    AdapterGap, CounterpartyGroup, DebtToken, LendingDebt, Policy, SimulationReport, V3Position,
};

/// The adapter facts of one report that `policy` trusts.
#[derive(Debug, Default)]
pub(crate) struct Trusted<'a> {
    /// Debt tokens declared by trusted markets.
    pub(crate) debt_tokens: Vec<&'a DebtToken>,
    /// Compound-style debts in trusted markets.
    pub(crate) lending_debts: Vec<&'a LendingDebt>,
    /// V3 positions in trusted position managers.
    pub(crate) positions: Vec<&'a V3Position>,
    /// The trusted position managers whose positions the report carries (their NFTs are valued
    /// as positions, not per item).
    pub(crate) managers: Vec<Address>,
    /// Counterparty groups declared by trusted markets.
    pub(crate) groups: Vec<&'a CounterpartyGroup>,
    /// Reads that failed at trusted contracts.
    pub(crate) gaps: Vec<&'a AdapterGap>,
    /// The report carries more adapter facts than the verifier reads: nothing of them is
    /// trusted, and the valuation is refused.
    pub(crate) oversized: bool,
}

impl<'a> Trusted<'a> {
    /// What of `report`'s adapter facts `policy` trusts.
    pub(crate) fn of(report: &'a SimulationReport, policy: &Policy) -> Self {
        let p = &report.protocols;
        if p.longest() > MAX_REPORT_LIST_LEN || report.debt_tokens.len() > MAX_REPORT_LIST_LEN {
            return Self {
                oversized: true,
                ..Self::default()
            };
        }
        let trusts = |a: &Address| policy.is_target(a);
        let positions: Vec<&V3Position> = p
            .v3_positions
            .iter()
            .filter(|v| trusts(&v.manager))
            .collect();
        let mut managers: Vec<Address> = Vec::new();
        for v in &positions {
            if !managers.contains(&v.manager) {
                managers.push(v.manager);
            }
        }
        Self {
            debt_tokens: report
                .debt_tokens
                .iter()
                .filter(|d| trusts(&d.market))
                .collect(),
            lending_debts: p
                .lending_debts
                .iter()
                .filter(|d| trusts(&d.market))
                .collect(),
            positions,
            managers,
            groups: p
                .groups
                .iter()
                .filter(|g| trusts(&g.market) && g.members.contains(&g.market))
                .collect(),
            gaps: p.gaps.iter().filter(|g| trusts(&g.via)).collect(),
            oversized: false,
        }
    }

    /// The trusted debt token `token`, if it is one.
    pub(crate) fn debt(&self, token: Address) -> Option<&'a DebtToken> {
        self.debt_tokens.iter().copied().find(|d| d.token == token)
    }

    /// Whether `token` is a trusted position manager's collection.
    pub(crate) fn is_manager(&self, token: Address) -> bool {
        self.managers.contains(&token)
    }

    /// The counterparty `a` acts as: its trusted group's market, else itself.
    pub(crate) fn party(&self, a: Address) -> Address {
        self.groups
            .iter()
            .find(|g| g.members.contains(&a))
            .map_or(a, |g| g.market)
    }
}
