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
    /// The view's call data for the account (`None`: it cannot be built, and no read carries
    /// it).
    pub(crate) data: Option<Bytes>,
    pub(crate) word: u16,
}

impl Expected<'_> {
    /// Whether `r` is this check's read.
    pub(crate) fn matches(&self, r: &FactRead) -> bool {
        r.kind == self.kind
            && r.target == self.target
            && r.word == self.word
            && self.data.as_ref() == Some(&r.data)
    }
}

/// The checks `d` declares, as the reads that carry them for `account`.
fn checks_of(d: &Descriptor, account: Address) -> impl Iterator<Item = Expected<'_>> {
    d.checks.iter().filter_map(move |c| {
        // A validated descriptor names its roots.
        let root = d.root(&c.read.root)?;
        Some(Expected {
            descriptor: d,
            view: &c.read.view,
            kind: c.keep.read_kind(),
            target: root.address,
            data: c.read.call_data(account).map(Bytes::from),
            word: u16::try_from(c.read.word).unwrap_or(u16::MAX),
        })
    })
}

/// The declared checks of the protocols `policy` pins that `intent`'s execution in `report`
/// reached (see the module docs).
pub(crate) fn expected<'p>(
    policy: &'p Policy,
    intent: &Intent,
    report: &SimulationReport,
) -> Vec<Expected<'p>> {
    let reached =
        || (intent.calls.iter().map(|c| c.target)).chain(report.touched_contracts.iter().copied());
    policy
        .descriptors()
        .filter(|d| !d.checks.is_empty() && d.is_reached(reached(), &report.protocols.members))
        .flat_map(|d| checks_of(d, intent.account))
        .collect()
}

/// Whether the declared read `r` is one of the checks `policy`'s descriptors declare for the
/// account `account` (a read of a declared kind that no descriptor declares is not relied on).
pub(crate) fn declared(policy: &Policy, account: Address, r: &FactRead) -> bool {
    policy
        .descriptors()
        .flat_map(|d| checks_of(d, account))
        .any(|e| e.matches(r))
}
