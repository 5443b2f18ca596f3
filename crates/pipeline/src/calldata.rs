//! The transaction that carries a signed PDR to the account.

use alloy_primitives::Bytes;
use alloy_sol_types::SolCall;
use pace_abi::bindings::PaceAccount;
use pace_signer::SignedPdr;
use pace_types::Call;

/// The calldata for `PaceAccount`: `executePDR` for one call without bounds (the cheap path)
/// on an account without spending budgets, `executeBatchPDR` otherwise.
pub(crate) fn submission_calldata(signed: &SignedPdr, budgeted: bool) -> Bytes {
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

/// The calldata a tampering relayer sends: `signed`'s submission carrying `calls` in place of
/// the calls it was signed for, signature unchanged (see [`tampered`]). Nothing in the
/// pipeline sends it; the demo and the benchmark send it as the attacker would.
pub fn tampered_calldata(signed: &SignedPdr, calls: &[Call]) -> Bytes {
    submission_calldata(&tampered(signed, calls), false)
}

/// `signed` carrying `calls` in place of the calls it was signed for, signature unchanged:
/// what a tampering relayer submits. The account must refuse it unless `calls` are the signed
/// ones (the digest covers every call); the demo and the benchmark's calldata-mutation trials
/// submit it.
pub fn tampered(signed: &SignedPdr, calls: &[Call]) -> SignedPdr {
    let mut out = signed.clone();
    for (slot, call) in out.pdr.calls.iter_mut().zip(calls) {
        slot.target = call.target;
        slot.value = call.value;
        slot.data = call.data.clone();
    }
    out
}
