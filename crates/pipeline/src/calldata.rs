//! The transaction that carries a signed PDR to the account.

use alloy_primitives::Bytes;
use alloy_sol_types::SolCall;
use pace_abi::bindings::PaceAccount;
use pace_signer::SignedPdr;

/// The calldata that carries `signed` to its `PaceAccount`: `executePDR` for one call without
/// bounds (the cheap path) on an account without spending budgets (`budgeted` false),
/// `executeBatchPDR` otherwise. [`crate::Pipeline::submit`] sends it; a relay of its own may.
pub fn submission_calldata(signed: &SignedPdr, budgeted: bool) -> Bytes {
    let pdr = &signed.pdr;
    let (attestation, terms) = (signed.attestation_hash(), signed.terms_word());
    let (r, vs) = (signed.signature.r, signed.signature.vs);
    if signed.is_single_unbounded() && !budgeted {
        let call = &pdr.calls[0];
        return PaceAccount::executePDRCall {
            target: call.target,
            value: call.value,
            data: call.data.clone(),
            attestation,
            terms,
            r,
            vs,
        }
        .abi_encode()
        .into();
    }
    PaceAccount::executeBatchPDRCall {
        calls: pdr.calls.iter().map(PaceAccount::Call::from).collect(),
        bounds: pdr.bounds.iter().map(PaceAccount::Bound::from).collect(),
        held: pdr.held.clone(),
        attestation,
        terms,
        r,
        vs,
    }
    .abi_encode()
    .into()
}
