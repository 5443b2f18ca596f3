//! What a tampering relayer sends: the transaction that carries a signed PDR to the account,
//! with other calls in place of those it was signed for and the signature unchanged. The
//! account must refuse it unless the calls are the signed ones (the digest covers every call);
//! the demo's calldata-mutation scenario and the benchmark's calldata-mutation trials send it
//! as the attacker would.

use alloy_primitives::Bytes;
use alloy_sol_types::SolCall;
use pace_abi::bindings::PaceAccount;
use pace_types::Call;

/// `submission` (an `executePDR` or `executeBatchPDR` call to the account) carrying `calls` in
/// place of its own, call by call, everything else unchanged; `None` when `submission` is
/// neither.
pub fn tampered_submission(submission: &[u8], calls: &[Call]) -> Option<Bytes> {
    if let Ok(mut c) = PaceAccount::executeBatchPDRCall::abi_decode(submission) {
        for (slot, call) in c.calls.iter_mut().zip(calls) {
            *slot = PaceAccount::Call::from(call);
        }
        return Some(c.abi_encode().into());
    }
    let mut c = PaceAccount::executePDRCall::abi_decode(submission).ok()?;
    if let Some(call) = calls.first() {
        (c.target, c.value, c.data) = (call.target, call.value, call.data.clone());
    }
    Some(c.abi_encode().into())
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloy_primitives::{Address, B256, U256};

    fn call(byte: u8) -> Call {
        Call {
            target: Address::repeat_byte(byte),
            value: U256::from(byte),
            data: vec![byte; 3].into(),
        }
    }

    #[test]
    fn only_the_calls_change() {
        let batch = PaceAccount::executeBatchPDRCall {
            calls: vec![
                PaceAccount::Call::from(&call(1)),
                PaceAccount::Call::from(&call(2)),
            ],
            bounds: Vec::new(),
            held: vec![Address::ZERO],
            checks: Vec::new(),
            attestation: B256::repeat_byte(9),
            terms: U256::from(7u8),
            r: B256::repeat_byte(5),
            vs: B256::repeat_byte(6),
        };
        let out = tampered_submission(&batch.abi_encode(), &[call(3)]).unwrap();
        let back = PaceAccount::executeBatchPDRCall::abi_decode(&out).unwrap();
        assert_eq!(back.calls[0], PaceAccount::Call::from(&call(3)));
        assert_eq!(back.calls[1], batch.calls[1]);
        assert_eq!(
            (back.held, back.terms, back.r),
            (batch.held, batch.terms, batch.r)
        );
        assert!(tampered_submission(&[1, 2, 3, 4], &[call(3)]).is_none());
    }
}
