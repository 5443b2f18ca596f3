//! Intents for an account that is not a PaceAccount: the verifier still decides, a rejection
//! is recorded unsigned, and an approval stops before signing with an error that says why.

use crate::door::evaluate;
use alloy_primitives::{B256, Bytes, U256};
use pace_pipeline::{Error, PipelineConfig};
use pace_signer::PdrSigner;
use pace_types::{Call, Claims, CompiledPolicy, ETH, Intent, TokenAmount, ViolationCode};
use pace_world::{World, default_policy};

/// 1 wei of ether from the world's owner (an EOA) to the payee.
fn from_owner(world: &World) -> Intent {
    let a = world.addrs;
    Intent {
        chain_id: world.evm.chain_id(),
        account: a.owner,
        calls: vec![Call {
            target: a.payee,
            value: U256::from(1u64),
            data: Bytes::new(),
        }],
        claimed: Claims {
            outflows: vec![TokenAmount {
                token: ETH,
                amount: U256::from(1u64),
            }],
            ..Claims::default()
        },
        metadata: Default::default(),
    }
}

#[test]
fn a_rejection_needs_no_pace_account_and_an_approval_is_not_signed_for_one() {
    let signer = PdrSigner::from_bytes(&B256::repeat_byte(0x42)).unwrap();
    let world = World::new(signer.address()).unwrap();
    let a = world.addrs;
    let intent = from_owner(&world);
    let config = PipelineConfig::default();

    // The default policy governs the PACE account only: rejected, recorded, no error.
    let policy = CompiledPolicy::try_from(default_policy(&a)).unwrap();
    let eval = evaluate(&world.evm, &intent, &policy, &signer, &config).unwrap();
    assert!(
        eval.decision
            .codes()
            .any(|c| c == ViolationCode::AccountMismatch)
    );
    assert!(eval.record.signed().is_none());

    // A policy without that scope approves it; the EOA cannot take a PDR, so nothing is
    // signed and the error names the account.
    let mut open = default_policy(&a);
    open.account = None;
    open.allowed_targets.push(a.payee);
    let open = CompiledPolicy::try_from(open).unwrap();
    let err = evaluate(&world.evm, &intent, &open, &signer, &config).unwrap_err();
    assert!(
        matches!(err, Error::NotPaceAccount { account, .. } if account == a.owner),
        "{err}"
    );
    assert!(err.to_string().contains("is not a PaceAccount"), "{err}");
}
