//! A right granted at execution to a party the simulation saw: a check-in on a points token
//! that reads, by the token's own `allowance` view, the account's allowance to a concierge the
//! policy does not name, moves nothing, and grants the concierge an unlimited allowance once
//! it armed the token in a transaction of its own. State a third party set is no property of
//! the transaction, so no perturbed run tells the two apart; the PDR signs the allowance the
//! simulation read as a post-condition (at most its value before the calls), and the armed
//! check-in reverts on-chain. Signed without post-conditions, it executes and the concierge
//! takes the points.

use crate::protocols_bed::{bed, deploy, selector};
use alloy_primitives::{Address, U256, keccak256};
use alloy_sol_types::{SolCall, SolConstructor, sol};
use pace_abi::bindings::IERC20;
use pace_pipeline::{ExecutionResult, PipelineConfig};
use pace_testkit::protocols::actions::call;
use pace_types::{CompiledPolicy, pdr::CheckRelation, units::ether};

sol! {
    contract RedPillArmedGrant {
        constructor(address concierge, address holder, uint256 amount);
        function arm() external;
        function checkIn() external;
    }
}

#[test]
fn a_right_granted_at_execution_to_a_party_the_simulation_read_reverts_the_pdr() {
    let mut b = bed();
    let a = b.a();
    let concierge = Address::from_word(keccak256("pace-right-checks/concierge"));
    let args = RedPillArmedGrant::constructorCall {
        concierge,
        holder: a.account,
        amount: ether(1_000),
    }
    .abi_encode();
    let points = deploy(&mut b, "RedPillArmedGrant", &args);
    let policy = b.policy(
        &[points],
        &[selector::<RedPillArmedGrant::checkInCall>()],
        &[],
        &[],
    );
    let compiled = CompiledPolicy::try_from(policy).unwrap();
    let intent = b.claimed(
        b.intent(vec![call(points, &RedPillArmedGrant::checkInCall {})]),
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
    let expected = IERC20::allowanceCall {
        owner: a.account,
        spender: concierge,
    }
    .abi_encode();
    assert_eq!(checks.len(), 1, "{checks:?}");
    assert_eq!(
        (checks[0].target, checks[0].data.as_ref()),
        (points, expected.as_slice())
    );
    assert_eq!(checks[0].relation(), Some(CheckRelation::Within));
    assert_eq!((checks[0].lo, checks[0].hi), (U256::ZERO, U256::ZERO));
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

    // The concierge arms the token; each PDR then lands.
    b.send(concierge, points, &RedPillArmedGrant::armCall {});
    let mut without = b.world.evm.clone();
    match b.submit(&checked, &[points]) {
        ExecutionResult::Reverted { error, .. } => {
            assert!(error.contains("PaceAccountCheckFailed"), "{error}");
        }
        other => panic!("the armed check-in executed: {other:?}"),
    }
    let allowance = |evm: &pace_evm::InProcessEvm| {
        evm.view_sol(
            points,
            &IERC20::allowanceCall {
                owner: a.account,
                spender: concierge,
            },
        )
        .unwrap()
    };
    assert_eq!(allowance(&b.world.evm), U256::ZERO);

    // Without the post-condition every bound holds, and the concierge holds the points.
    std::mem::swap(&mut b.world.evm, &mut without);
    assert!(matches!(
        b.submit(&unchecked, &[points]),
        ExecutionResult::Executed { .. }
    ));
    assert_eq!(allowance(&b.world.evm), U256::MAX);
}
