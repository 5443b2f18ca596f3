//! PDR records: signed for approvals, unsigned for rejections.

use crate::{Bounds, CompactSignature, Error, PdrSigner, Result};
use alloy_primitives::{Address, B256, U256};
use pace_types::{
    Decision,
    pdr::{Attestation, BoundKind, Call, MAX_TIMESTAMP, Pdr, PdrTerms},
};
use pace_verifier::ApprovedIntent;

/// A PDR with the verifier's signature, ready for `PaceAccount.executePDR` /
/// `executeBatchPDR`.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SignedPdr {
    /// Chain id of the EIP-712 domain.
    pub chain_id: u64,
    /// The account (the domain's `verifyingContract`).
    pub account: Address,
    /// The signed typed data.
    pub pdr: Pdr,
    /// Its EIP-712 digest.
    pub digest: B256,
    /// The verifier's signature over `digest`.
    pub signature: CompactSignature,
}

impl SignedPdr {
    /// `hashStruct(Attestation)`: the `attestation` argument of the account's entry points.
    pub fn attestation_hash(&self) -> B256 {
        self.pdr.attestation_hash()
    }

    /// The packed `terms` argument of the account's entry points.
    pub fn terms_word(&self) -> U256 {
        self.pdr.terms().pack()
    }

    /// Whether the signature recovers to `verifier` over a digest recomputed from the fields.
    pub fn is_signed_by(&self, verifier: Address) -> bool {
        let digest = self.pdr.digest(self.chain_id, self.account);
        digest == self.digest && self.signature.recover(digest) == Some(verifier)
    }

    /// Whether it can go through the lean single-call entry point `executePDR` (one call, no
    /// bounds, nothing held).
    pub fn is_single_unbounded(&self) -> bool {
        self.pdr.calls.len() == 1 && self.pdr.bounds.is_empty() && self.pdr.held.is_empty()
    }
}

/// The audit record of one decision: [`attest`]'s PDR with its approval, or a rejection.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(tag = "status", rename_all = "snake_case", deny_unknown_fields)]
pub enum PdrRecord {
    /// An approved decision and the PDR signed for it.
    Signed {
        /// The verifier's decision.
        decision: Decision,
        /// The signed PDR.
        pdr: Box<SignedPdr>,
    },
    /// A rejected decision: kept for the audit trail, never signed.
    Unsigned {
        /// The verifier's decision.
        decision: Decision,
    },
}

impl PdrRecord {
    /// The decision either way.
    pub fn decision(&self) -> &Decision {
        match self {
            Self::Signed { decision, .. } | Self::Unsigned { decision } => decision,
        }
    }

    /// The signed PDR, if the decision was an approval.
    pub fn signed(&self) -> Option<&SignedPdr> {
        match self {
            Self::Signed { pdr, .. } => Some(pdr.as_ref()),
            Self::Unsigned { .. } => None,
        }
    }
}

/// Signs the PDR for `approval`: it binds the approved intent's calls, the `bounds`, the
/// `terms`, and the approving decision's policy, intent and simulation hashes (zero when no
/// simulation was judged).
///
/// Only the verifier makes an [`ApprovedIntent`], so nothing else can be signed; a rejection
/// is recorded as [`PdrRecord::Unsigned`], without the signer. Errors when the validity window
/// is empty or beyond `uint40` (and, in depth, when the intent has no call, which the verifier
/// never approves).
pub fn attest(
    signer: &PdrSigner,
    approval: &ApprovedIntent,
    terms: PdrTerms,
    bounds: Bounds,
) -> Result<SignedPdr> {
    let (intent, decision) = (approval.intent(), approval.decision());
    if intent.calls.is_empty() {
        return Err(Error::NoCalls);
    }
    if terms.valid_after > terms.valid_until || terms.valid_until > MAX_TIMESTAMP {
        return Err(Error::InvalidWindow {
            valid_after: terms.valid_after,
            valid_until: terms.valid_until,
        });
    }
    let attestation = Attestation {
        policyHash: decision.policy_hash,
        intentHash: intent.hash(),
        simulationHash: decision.simulation_hash.unwrap_or_default(),
    };
    let calls = intent.calls.iter().map(Call::from).collect();
    // The account refuses a kind it does not know, or a holder wider than an address, only
    // once the PDR executes: such a bound is never signed.
    for (index, bound) in bounds.bounds.iter().enumerate() {
        let holder_fits =
            bound.kind() != Some(BoundKind::Holding) || bound.id < U256::from(1u8) << 160;
        if bound.kind().is_none() || !holder_fits {
            return Err(Error::InvalidBound { index });
        }
    }
    let pdr = Pdr::new(attestation, calls, bounds.bounds, bounds.held, &terms);
    let digest = pdr.digest(intent.chain_id, intent.account);
    let signature = signer.sign_digest(digest)?;
    Ok(SignedPdr {
        chain_id: intent.chain_id,
        account: intent.account,
        pdr,
        digest,
        signature,
    })
}
