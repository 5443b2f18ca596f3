//! The hash-chained audit log: every decision, approved or rejected, every confirmation,
//! refusal and submission outcome, with the actor.
//!
//! Record `n` stores `hash_n = keccak256("PACE-RS/audit/v1\n" || hash_{n-1} || body_n)` where
//! `body_n` is the canonical JSON of the record without its hash, so editing a record breaks
//! its own hash, and deleting one breaks the next record's link. The store also keeps the head
//! (last sequence and hash) beside the records, so truncating the tail is detected too.

use alloy_primitives::{B256, keccak256};
use serde::{Deserialize, Serialize};

/// The audit-log format version written into every record.
pub const AUDIT_VERSION: u32 = 1;

/// Domain prefix of the record hash.
const AUDIT_DOMAIN: &[u8] = b"PACE-RS/audit/v1\n";

/// What a caller is: decides nothing, only recorded (the paper's `caller_type`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CallerType {
    /// A person confirming previews.
    Human,
    /// Software acting under a delegation token.
    Agent,
}

/// What an audit event records.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum AuditKind {
    /// A proposal was simulated and judged (approved or rejected).
    Propose,
    /// A confirmation was recorded.
    Confirm,
    /// A request or a transition was refused (its error code in `codes`).
    Refuse,
    /// A PDR was signed.
    Sign,
    /// What the chain did with a submission.
    Outcome,
    /// The service reconciled a proposal against the chain (or a restarted world).
    Reconcile,
    /// The service replaced a stuck transaction.
    Replace,
    /// A confirmation above the caller's approval threshold: the proposal waits for a human.
    AwaitApproval,
    /// A human approved or declined a proposal that waited for one.
    Approve,
    /// The kill switch was set or lifted.
    Halt,
    /// The service broadcast a recorded transaction again from its signed bytes.
    Rebroadcast,
    /// An instance took over a nonce lane whose lease another instance let lapse.
    Lease,
}

impl AuditKind {
    /// The kind's name, as recorded.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Propose => "propose",
            Self::Confirm => "confirm",
            Self::Refuse => "refuse",
            Self::Sign => "sign",
            Self::Outcome => "outcome",
            Self::Reconcile => "reconcile",
            Self::Replace => "replace",
            Self::AwaitApproval => "await_approval",
            Self::Approve => "approve",
            Self::Halt => "halt",
            Self::Rebroadcast => "rebroadcast",
            Self::Lease => "lease",
        }
    }
}

impl PartialEq<&str> for AuditKind {
    fn eq(&self, other: &&str) -> bool {
        self.as_str() == *other
    }
}

impl std::fmt::Display for AuditKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One audit event, before it is chained.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AuditEntry {
    /// What happened.
    pub kind: AuditKind,
    /// Who asked (the API token's id).
    pub actor: String,
    /// The actor's type.
    pub caller_type: CallerType,
    /// The scopes the operation required (`Σ_τ`).
    pub scopes: Vec<String>,
    /// The proposal concerned.
    pub proposal_id: Option<String>,
    /// The intent's content hash.
    pub intent_hash: Option<B256>,
    /// The policy's content hash.
    pub policy_hash: Option<B256>,
    /// The simulation report's content hash.
    pub simulation_hash: Option<B256>,
    /// Violation codes (empty for an approval) or the refusal's error code.
    pub codes: Vec<String>,
    /// Kind-specific details: the decision, the signed PDR, the outcome.
    pub detail: serde_json::Value,
}

/// A chained audit record as stored.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AuditRecord {
    /// Position in the log, from 1, without gaps.
    pub seq: u64,
    /// Format version ([`AUDIT_VERSION`]).
    pub version: u32,
    /// Unix time it was written.
    pub at: u64,
    /// The event.
    pub entry: AuditEntry,
    /// The previous record's hash (zero for the first).
    pub prev_hash: B256,
    /// This record's hash.
    pub hash: B256,
}

/// The part of a record its hash covers: everything but the hash.
#[derive(Serialize)]
struct Body<'a> {
    seq: u64,
    version: u32,
    at: u64,
    entry: &'a AuditEntry,
}

impl AuditRecord {
    /// Chains `entry` after a record with `prev_hash` at position `seq`.
    pub fn chain(seq: u64, at: u64, entry: AuditEntry, prev_hash: B256) -> Self {
        let mut rec = Self {
            seq,
            version: AUDIT_VERSION,
            at,
            entry,
            prev_hash,
            hash: B256::ZERO,
        };
        rec.hash = rec.compute_hash();
        rec
    }

    /// The hash this record's contents and link call for.
    pub fn compute_hash(&self) -> B256 {
        let body = Body {
            seq: self.seq,
            version: self.version,
            at: self.at,
            entry: &self.entry,
        };
        let mut bytes = AUDIT_DOMAIN.to_vec();
        bytes.extend_from_slice(self.prev_hash.as_slice());
        bytes.extend_from_slice(&pace_types::hash::canonical_json(&body));
        keccak256(bytes)
    }
}

/// What [`verify_chain`] found wrong, at the first broken record.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ChainError {
    /// A record's contents do not match its hash: it was edited.
    #[error("audit record {seq} was edited: its hash does not match its contents")]
    Edited {
        /// The record.
        seq: u64,
    },
    /// A record does not link to the one before it, or a sequence number is missing.
    #[error("audit record before {seq} was deleted or reordered (expected seq {expected})")]
    Missing {
        /// The record found.
        seq: u64,
        /// The sequence number expected there.
        expected: u64,
    },
    /// The log ends before the recorded head: the tail was deleted.
    #[error("audit log truncated: the head says {head} records, the log has {found}")]
    Truncated {
        /// Records the head names.
        head: u64,
        /// Records present.
        found: u64,
    },
    /// A record of a format this build does not know.
    #[error("audit record {seq} has version {version}; this build reads version {AUDIT_VERSION}")]
    Version {
        /// The record.
        seq: u64,
        /// Its version.
        version: u32,
    },
}

/// Checks `records` (in order) form an unbroken chain ending at `head` (`(seq, hash)` of the
/// last record as the store recorded it, `None` for an empty log). Returns how many records
/// were checked.
pub fn verify_chain(
    records: impl IntoIterator<Item = AuditRecord>,
    head: Option<(u64, B256)>,
) -> Result<u64, ChainError> {
    let (mut expected, mut prev) = (1u64, B256::ZERO);
    for rec in records {
        if rec.version != AUDIT_VERSION {
            return Err(ChainError::Version {
                seq: rec.seq,
                version: rec.version,
            });
        }
        if rec.seq != expected || rec.prev_hash != prev {
            return Err(ChainError::Missing {
                seq: rec.seq,
                expected,
            });
        }
        if rec.compute_hash() != rec.hash {
            return Err(ChainError::Edited { seq: rec.seq });
        }
        prev = rec.hash;
        expected += 1;
    }
    let found = expected - 1;
    match head {
        Some((seq, hash)) if seq != found || hash != prev => {
            if seq > found {
                Err(ChainError::Truncated { head: seq, found })
            } else {
                Err(ChainError::Edited { seq })
            }
        }
        None if found > 0 => Err(ChainError::Truncated { head: 0, found }),
        _ => Ok(found),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(n: &str) -> AuditEntry {
        AuditEntry {
            kind: AuditKind::Propose,
            actor: "alice".to_owned(),
            caller_type: CallerType::Agent,
            scopes: vec!["propose".to_owned()],
            proposal_id: None,
            intent_hash: Some(B256::repeat_byte(1)),
            policy_hash: None,
            simulation_hash: None,
            codes: vec![],
            detail: serde_json::json!({"n": n}),
        }
    }

    fn log(n: u64) -> Vec<AuditRecord> {
        let mut out: Vec<AuditRecord> = Vec::new();
        for seq in 1..=n {
            let prev = out.last().map_or(B256::ZERO, |r| r.hash);
            out.push(AuditRecord::chain(
                seq,
                100 + seq,
                entry(&seq.to_string()),
                prev,
            ));
        }
        out
    }

    fn head(log: &[AuditRecord]) -> Option<(u64, B256)> {
        log.last().map(|r| (r.seq, r.hash))
    }

    #[test]
    fn intact_chain_verifies() {
        let l = log(4);
        assert_eq!(verify_chain(l.clone(), head(&l)), Ok(4));
        assert_eq!(verify_chain(Vec::new(), None), Ok(0));
    }

    #[test]
    fn edit_delete_and_truncation_are_detected() {
        let l = log(4);
        let h = head(&l);
        let mut edited = l.clone();
        edited[1].entry.actor = "mallory".to_owned();
        assert_eq!(verify_chain(edited, h), Err(ChainError::Edited { seq: 2 }));
        let mut deleted = l.clone();
        deleted.remove(2);
        assert_eq!(
            verify_chain(deleted, h),
            Err(ChainError::Missing {
                seq: 4,
                expected: 3
            })
        );
        let truncated = l[..3].to_vec();
        assert_eq!(
            verify_chain(truncated, h),
            Err(ChainError::Truncated { head: 4, found: 3 })
        );
        // An edit that recomputes the record's own hash still breaks the next link.
        let mut rehashed = l;
        rehashed[1].entry.codes = vec!["X".to_owned()];
        rehashed[1].hash = rehashed[1].compute_hash();
        assert_eq!(
            verify_chain(rehashed, h),
            Err(ChainError::Missing {
                seq: 3,
                expected: 3
            })
        );
    }
}
