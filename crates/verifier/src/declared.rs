//! The facts protocol descriptors declare for the account to re-check after the calls
//! (`Descriptor::checks`): which of a report's reads carry them, and which reads a report of
//! an intent that reaches a protocol must carry.
//!
//! A protocol is reached when one of its roots is a call's target or a touched contract, or
//! the report names one of those a member of it (as the simulator decides). Every check of a
//! reached protocol is a read the decision rests on: the signer keeps its answer at execution
//! as the check's `keep` says. A report that lacks one, or whose read of one has no answer
//! after the calls, is refused (`POSITION_UNREADABLE`): the decision would otherwise be
//! signed without a fact the protocol's descriptor says it rests on.

use alloy_primitives::{Address, Bytes};
use pace_types::{FactRead, Intent, Policy, ReadKind, SimulationReport, descriptor::Descriptor};

/// One declared check as the read that carries it.
pub(crate) struct Expected<'d> {
    pub(crate) descriptor: &'d Descriptor,
    pub(crate) view: &'d str,
    pub(crate) kind: ReadKind,
    pub(crate) target: Address,
    pub(crate) data: Bytes,
    pub(crate) word: u16,
}

impl Expected<'_> {
    /// Whether `r` is this check's read.
    pub(crate) fn matches(&self, r: &FactRead) -> bool {
        r.kind == self.kind && r.target == self.target && r.word == self.word && r.data == self.data
    }
}

/// The declared checks of the protocols `policy` pins that `intent`'s execution in `report`
/// reached (see the module docs). A check whose call cannot be built for the account is still
/// expected, with empty call data no read carries.
pub(crate) fn expected<'p>(
    policy: &'p Policy,
    intent: &Intent,
    report: &SimulationReport,
) -> Vec<Expected<'p>> {
    let targets = || intent.calls.iter().map(|c| c.target);
    let reached = |a: Address| targets().any(|t| t == a) || report.touched_contracts.contains(&a);
    let mut out = Vec::new();
    for d in policy.descriptors().filter(|d| !d.checks.is_empty()) {
        let touched = d.roots.iter().any(|r| reached(r.address))
            || (report.protocols.members.iter()).any(|m| m.protocol == d.id && reached(m.contract));
        if !touched {
            continue;
        }
        for c in &d.checks {
            let Some(root) = d.root(&c.read.root) else {
                continue; // a validated descriptor names its roots
            };
            out.push(Expected {
                descriptor: d,
                view: &c.read.view,
                kind: c.keep.read_kind(),
                target: root.address,
                data: c.read.call_data(intent.account).unwrap_or_default().into(),
                word: u16::try_from(c.read.word).unwrap_or(u16::MAX),
            });
        }
    }
    out
}

/// Whether the declared read `r` is one of the checks `policy`'s descriptors declare for the
/// account `account` (a read of a declared kind that no descriptor declares is not relied on).
pub(crate) fn declared(policy: &Policy, account: Address, r: &FactRead) -> bool {
    policy.descriptors().any(|d| {
        d.checks.iter().any(|c| {
            c.keep.read_kind() == r.kind
                && d.root(&c.read.root)
                    .is_some_and(|root| root.address == r.target)
                && usize::from(r.word) == c.read.word
                && c.read.call_data(account).is_some_and(|data| r.data == data)
        })
    })
}
