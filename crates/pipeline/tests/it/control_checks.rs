//! Control of a contract the account owns, handed over at execution: a storage box whose
//! ERC-173 `owner()` is the account, with a check-in that moves nothing and, once its caretaker
//! armed it in a transaction of its own, hands the box to the caretaker. State a third party set
//! is no property of the transaction, so no perturbed run tells the two apart; the PDR signs
//! the owner the simulation left (the account) as a post-condition, and the armed check-in
//! reverts on-chain. Signed without post-conditions, it executes and the caretaker owns the box.

use crate::protocols_bed::{bed, deploy, selector};
use alloy_primitives::{Address, U256, keccak256};
use alloy_sol_types::{SolCall, SolConstructor, sol};
use pace_abi::bindings::IOwnable;
use pace_pipeline::{ExecutionResult, PipelineConfig};
use pace_testkit::protocols::actions::call;
use pace_types::{CompiledPolicy, pdr::CheckRelation};

sol! {
    contract RedPillArmedHandover {
        constructor(address owner_, address caretaker);
        function arm() external;
        function checkIn() external;
    }
}

#[test]
fn control_handed_over_at_execution_reverts_the_pdr() {
    let mut b = bed();
    let a = b.a();
    let caretaker = Address::from_word(keccak256("pace-control-checks/caretaker"));
    let args = RedPillArmedHandover::constructorCall {
        owner_: a.account,
        caretaker,
    }
    .abi_encode();
    let boxed = deploy(&mut b, "RedPillArmedHandover", &args);
    let policy = b.policy(
        &[boxed],
        &[selector::<RedPillArmedHandover::checkInCall>()],
        &[],
        &[],
    );
    let compiled = CompiledPolicy::try_from(policy).unwrap();
    let intent = b.claimed(
        b.intent(vec![call(boxed, &RedPillArmedHandover::checkInCall {})]),
        &compiled,
    );
    let sign = |b: &crate::protocols_bed::Bed, post_conditions: bool| {
        let config = PipelineConfig {
            post_conditions,
            ..PipelineConfig::default()
        };
        crate::door::evaluate(&b.world.evm, &intent, &compiled, &b.signer, &config).unwrap()
    };
    let checked = sign(&b, true);
    assert!(
        checked.decision.approved(),
        "{:?}",
        checked.decision.violations
    );
    let checks = &checked.checked.as_ref().expect("sent").signed().pdr.checks;
    let owner = IOwnable::ownerCall {}.abi_encode();
    let account = U256::from_be_slice(a.account.as_slice());
    assert_eq!(checks.len(), 1, "{checks:?}");
    assert_eq!(
        (checks[0].target, checks[0].data.as_ref()),
        (boxed, owner.as_slice())
    );
    assert_eq!(checks[0].relation(), Some(CheckRelation::Within));
    assert_eq!((checks[0].lo, checks[0].hi), (account, account));
    let unchecked = sign(&b, false);
    assert!(
        unchecked
            .checked
            .as_ref()
            .expect("sent")
            .signed()
            .pdr
            .checks
            .is_empty()
    );

    // The caretaker arms the box; each PDR then lands.
    b.send(caretaker, boxed, &RedPillArmedHandover::armCall {});
    let mut without = b.world.evm.clone();
    match b.submit(&checked, &[]) {
        ExecutionResult::Reverted { error, .. } => {
            assert!(error.contains("PaceAccountCheckFailed"), "{error}");
        }
        other => panic!("the armed check-in executed: {other:?}"),
    }
    let owner_of =
        |evm: &pace_evm::InProcessEvm| evm.view_sol(boxed, &IOwnable::ownerCall {}).unwrap();
    assert_eq!(owner_of(&b.world.evm), a.account);

    // Without the post-condition every bound holds, and the caretaker owns the box.
    std::mem::swap(&mut b.world.evm, &mut without);
    assert!(matches!(
        b.submit(&unchecked, &[]),
        ExecutionResult::Executed { .. }
    ));
    assert_eq!(owner_of(&b.world.evm), caretaker);
}
