//! PDR records: signed for approvals, unsigned for rejections.

use crate::{Bounds, CompactSignature, Error, PdrSigner, Result};
use alloy_primitives::{Address, B256, U256};
use pace_types::{
    Decision,
    account::{AccountKind, Entry, EntryPointRoute, Route, kind_of},
    pdr::{Attestation, BoundKind, Call, EntryPath, MAX_TIMESTAMP, Pdr, PdrTerms},
    user_op::{PackedUserOperation, PdrSignature, pdr_user_op, user_op_hash},
};
use pace_verifier::ApprovedIntent;

/// A PDR with the verifier's signature, ready for `executePDR` / `executeBatchPDR` on the
/// account, or for the EntryPoint in its user operation ([`SignedPdr::user_op`]).
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SignedPdr {
    /// Chain id of the EIP-712 domain.
    pub chain_id: u64,
    /// The account: a `PaceAccount`, an EOA delegated to `PaceDelegate` (either is the domain's
    /// `verifyingContract`), or a Safe guarded by its `PaceModule` ([`Self::module`]).
    pub account: Address,
    /// The signed typed data.
    pub pdr: Pdr,
    /// Its EIP-712 digest.
    pub digest: B256,
    /// The verifier's signature over `digest`.
    pub signature: CompactSignature,
    /// The delegate's set-up salt when `account` is an EOA delegated to `PaceDelegate`
    /// (absent for a `PaceAccount`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub delegate_salt: Option<B256>,
    /// The `PaceModule` it goes to when `account` is a Safe (the domain's `verifyingContract`;
    /// absent for the other accounts).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub module: Option<Address>,
    /// The user operation that carries it through the EntryPoint (absent on the direct path).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub entry_point: Option<EntryPointRoute>,
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
        let Some(path) = self.path() else {
            return false;
        };
        let digest = self.pdr.digest_on(self.chain_id, &path);
        digest == self.digest && self.signature.recover(digest) == Some(verifier)
    }

    /// The entry path the PDR is signed for; `None` when its user operation no longer hashes
    /// to the recorded hash (a tampered record).
    pub fn path(&self) -> Option<EntryPath> {
        let user_op_hash = match &self.entry_point {
            None => None,
            Some(route) => {
                let op = pdr_user_op(self.sender(), &self.pdr, &route.gas, Default::default());
                let hash = user_op_hash(&op, route.entry_point, self.chain_id, None).ok()?;
                if hash != route.user_op_hash {
                    return None;
                }
                Some(hash)
            }
        };
        Some(EntryPath::new(
            self.account,
            self.delegate_salt,
            self.module,
            user_op_hash,
        ))
    }

    /// Where its transaction goes, and the sender of its user operation: the module of a
    /// Safe, or the account itself.
    pub fn sender(&self) -> Address {
        self.module.unwrap_or(self.account)
    }

    /// The kind of account it was signed for (a delegate's PDR carries its set-up salt, a
    /// Safe's its module).
    pub fn kind(&self) -> AccountKind {
        kind_of(self.delegate_salt, self.module)
    }

    /// How it reaches its account.
    pub fn entry(&self) -> Entry {
        if self.entry_point.is_some() {
            Entry::EntryPoint
        } else {
            Entry::Direct
        }
    }

    /// The signed user operation for the EntryPoint path (`None` on the direct path): the
    /// operation [`EntryPointRoute`] describes, with the PDR's signature.
    pub fn user_op(&self) -> Option<PackedUserOperation> {
        let route = self.entry_point.as_ref()?;
        let mut op = pdr_user_op(self.sender(), &self.pdr, &route.gas, Default::default());
        op.signature = PdrSignature {
            attestation: self.attestation_hash(),
            r: self.signature.r,
            vs: self.signature.vs,
        }
        .encode();
        Some(op)
    }

    /// Whether it can go through the lean single-call entry point `executePDR` (one call, no
    /// bounds, nothing held, no post-conditions).
    pub fn is_single_unbounded(&self) -> bool {
        self.pdr.calls.len() == 1
            && self.pdr.bounds.is_empty()
            && self.pdr.held.is_empty()
            && self.pdr.checks.is_empty()
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
/// post-conditions the approval relied on ([`crate::post_conditions`], unless `bounds` turns
/// them off), the `terms`, and the approving decision's policy, intent and simulation hashes
/// (zero when no simulation was judged).
///
/// Only the verifier makes an [`ApprovedIntent`], so nothing else can be signed; a rejection
/// is recorded as [`PdrRecord::Unsigned`], without the signer. Errors when the validity window
/// is empty or beyond `uint40`, when a relied read has no simulated answer to re-check (and, in
/// depth, when the intent has no call, which the verifier never approves).
pub fn attest(
    signer: &PdrSigner,
    approval: &ApprovedIntent,
    terms: PdrTerms,
    bounds: Bounds,
) -> Result<SignedPdr> {
    attest_on(signer, approval, terms, bounds, &Route::default())
}

/// [`attest`] for the entry path `route` names: the domain of a `PaceDelegate` EOA (its set-up
/// salt), and on the EntryPoint path the domain salted with the hash of the user operation that
/// carries the PDR with `route`'s gas terms.
pub fn attest_on(
    signer: &PdrSigner,
    approval: &ApprovedIntent,
    terms: PdrTerms,
    bounds: Bounds,
    route: &Route,
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
    let checks = if bounds.post_conditions {
        crate::post_conditions(
            approval.relied(),
            approval.outcome_tolerance_bps(),
            approval.min_health_factor_bps(),
        )?
    } else {
        Vec::new()
    };
    let pdr = Pdr::new(
        attestation,
        calls,
        bounds.bounds,
        bounds.held,
        checks,
        &terms,
    );
    let account = intent.account;
    let entry_point = route.entry_point.map(|(entry_point, gas)| {
        let op = pdr_user_op(
            route.module.unwrap_or(account),
            &pdr,
            &gas,
            Default::default(),
        );
        EntryPointRoute {
            entry_point,
            gas,
            user_op_hash: user_op_hash(&op, entry_point, intent.chain_id, None)
                .expect("a PDR user operation has no initCode"),
        }
    });
    let path = EntryPath::new(
        account,
        route.delegate_salt,
        route.module,
        entry_point.map(|r| r.user_op_hash),
    );
    let digest = pdr.digest_on(intent.chain_id, &path);
    let signature = signer.sign_digest(digest)?;
    Ok(SignedPdr {
        chain_id: intent.chain_id,
        account,
        pdr,
        digest,
        signature,
        delegate_salt: route.delegate_salt,
        module: route.module,
        entry_point,
    })
}
