//! The transaction that carries a signed PDR to its account, on every entry path: the one
//! builder the passes, the submission and the tools that relay PDRs themselves use.

use super::ENTRY_POINT;
use alloy_primitives::{Address, Bytes, keccak256};
use alloy_sol_types::{SolCall, SolValue};
use pace_abi::bindings::PaceAccount;
use pace_signer::SignedPdr;
use pace_types::user_op::PackedUserOperation;

/// `handleOps(PackedUserOperation[],address)`'s signature.
const HANDLE_OPS: &str =
    "handleOps((address,uint256,bytes,bytes,bytes32,uint256,bytes32,bytes,bytes)[],address)";

/// Where `signed`'s transaction goes and its calldata: on the direct path, the account (a
/// Safe's module) and [`submission_calldata`]; on the EntryPoint path, the EntryPoint and `handleOps([op],
/// beneficiary)` with the PDR's user operation.
pub fn pdr_transaction(
    signed: &SignedPdr,
    budgeted: bool,
    beneficiary: Address,
) -> (Address, Bytes) {
    match (&signed.entry_point, signed.user_op()) {
        (Some(route), Some(op)) => (route.entry_point, handle_ops_calldata(op, beneficiary)),
        _ => (signed.sender(), submission_calldata(signed, budgeted)),
    }
}

/// The direct path's calldata for `signed`: `executePDR` for one call without bounds (the
/// cheap path) on an account without spending budgets (`budgeted` false), `executeBatchPDR`
/// otherwise.
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
        checks: pdr.checks.iter().map(PaceAccount::Check::from).collect(),
        attestation,
        terms,
        r,
        vs,
    }
    .abi_encode()
    .into()
}

/// `handleOps([op], beneficiary)`: the transaction the relayer sends to the EntryPoint.
fn handle_ops_calldata(op: PackedUserOperation, beneficiary: Address) -> Bytes {
    debug_assert_ne!(ENTRY_POINT, Address::ZERO);
    let mut data = keccak256(HANDLE_OPS)[..4].to_vec();
    data.extend_from_slice(&(vec![op], beneficiary).abi_encode_params());
    data.into()
}
