//! Pass 2 again in another world: a check-in that moves nothing in the block whose producer
//! the simulation saw, and takes the account's tokens in any other, is approved by the
//! verifier (the simulation shows a visit) and refused before anything is sent. Every honest
//! flow of the other tests passes the same perturbed run.

use crate::protocols_bed::{bed, deploy, selector};
use alloy_primitives::{Address, keccak256};
use alloy_sol_types::{SolConstructor, sol};
use pace_abi::bindings::IERC20;
use pace_testkit::protocols::actions::call;
use pace_types::units::ether;

sol! {
    contract MockERC20 {
        constructor(string name_, string symbol_, uint8 decimals_);
        function mint(address to, uint256 amount) external;
    }
    contract RedPillOutOfGas {
        constructor(address thief, uint256 rounds, address holder, uint256 amount);
        function checkIn() external;
    }
    contract RedPillProducer {
        constructor(address token, address thief, uint256 loot, address producer);
        function checkIn() external;
    }
}

#[test]
fn a_call_keyed_on_the_block_producer_is_refused_before_it_is_sent() {
    let mut b = bed();
    let a = b.a();
    let thief = Address::from_word(keccak256("pace-perturbed/thief"));
    let producer = b.world.evm.block_env().beneficiary;
    // A token the policy does not name, so no signed bound holds it: only the perturbed run
    // stands between it and the thief.
    let args = MockERC20::constructorCall {
        name_: "Loyalty points".into(),
        symbol_: "PTS".into(),
        decimals_: 18,
    }
    .abi_encode();
    let points = deploy(&mut b, "MockERC20", &args);
    b.send(
        b.bed.deployer,
        points,
        &MockERC20::mintCall {
            to: a.account,
            amount: ether(1_000),
        },
    );
    let args = RedPillProducer::constructorCall {
        token: points,
        thief,
        loot: ether(1_000),
        producer,
    }
    .abi_encode();
    let pill = deploy(&mut b, "RedPillProducer", &args);
    // An allowance the owner gave it earlier, as a loyalty programme might ask for.
    b.owner(&[call(
        points,
        &IERC20::approveCall {
            spender: pill,
            value: ether(1_000),
        },
    )]);
    let policy = b.policy(
        &[pill],
        &[selector::<RedPillProducer::checkInCall>()],
        &[],
        &[],
    );
    let check_in = call(pill, &RedPillProducer::checkInCall {});
    let e = b.evaluate_claimed(b.intent(vec![check_in]), &policy);
    // The decision approves what the simulation showed: a visit, nothing moved.
    assert!(e.decision.approved(), "{:?}", e.decision.violations);
    assert!(e.checked.is_none(), "nothing may be sent");
    let why = e.refused.expect("refused before it is sent");
    assert!(why.contains("movements"), "{why}");
    // Sent anyway, in a block another producer makes, it would have taken the points: the
    // account's bounds hold only what the policy names.
    assert_eq!(b.balance(points, thief), alloy_primitives::U256::ZERO);
}

sol! {
    contract RedPillLaterApproval {
        constructor(address thief, uint256 honestUntil, uint256 gasAbove, address holder, uint256 amount);
        function checkIn() external;
        function allowance(address owner, address spender) external view returns (uint256);
    }
}

/// A `RedPillLaterApproval` points token that grants `thief` after block `honest_until` or
/// above `gas_above` gas left, 1,000 of its points held by the account, and a policy allowing
/// its check-in.
fn points(
    b: &mut crate::protocols_bed::Bed,
    thief: Address,
    honest_until: u64,
    gas_above: u64,
) -> (Address, pace_types::Policy) {
    let args = RedPillLaterApproval::constructorCall {
        thief,
        honestUntil: alloy_primitives::U256::from(honest_until),
        gasAbove: alloy_primitives::U256::from(gas_above),
        holder: b.a().account,
        amount: ether(1_000),
    }
    .abi_encode();
    let points = deploy(b, "RedPillLaterApproval", &args);
    let policy = b.policy(
        &[points],
        &[selector::<RedPillLaterApproval::checkInCall>()],
        &[],
        &[],
    );
    (points, policy)
}

/// A check-in on a points token that, in blocks after the simulated one (any, or only from
/// the third on), gives a thief an unlimited allowance over the caller's points: nothing moves
/// in the PDR, so no bound can catch it; the run in the last block the PDR can land in grants
/// what pass 2 did not, and nothing is sent. The same contract honest in every block passes.
#[test]
fn a_right_granted_only_in_a_later_block_is_refused_before_it_is_sent() {
    for (honest, delay) in [(false, 0), (false, 3), (true, 0)] {
        let mut b = bed();
        let thief = Address::from_word(keccak256("pace-perturbed/later-thief"));
        let simulated = b.world.evm.block_env().number.saturating_to::<u64>() + 1;
        let honest_until = if honest { u64::MAX } else { simulated + delay };
        let (points, policy) = points(&mut b, thief, honest_until, u64::MAX);
        let check_in = call(points, &RedPillLaterApproval::checkInCall {});
        let e = b.evaluate_claimed(b.intent(vec![check_in]), &policy);
        assert!(e.decision.approved(), "{:?}", e.decision.violations);
        if honest {
            assert!(e.checked.is_some(), "refused: {:?}", e.refused);
            continue;
        }
        assert!(e.checked.is_none(), "nothing may be sent");
        let why = e.refused.expect("refused before it is sent");
        assert!(why.contains("landing later it approves"), "{why}");
    }
}

/// The same check-in keyed on the gas left: with more than the relayer's 3,000,000 gas (a
/// lander who picks its own limit) it gives the thief the allowance. The run under another
/// producer and sender has a transaction's whole gas and grants what pass 2 did not: nothing
/// is sent.
#[test]
fn a_right_granted_only_with_more_gas_than_the_relayer_gives_is_refused() {
    let mut b = bed();
    let thief = Address::from_word(keccak256("pace-perturbed/gas-thief"));
    let (points, policy) = points(&mut b, thief, u64::MAX, 3_500_000);
    let compiled = pace_types::CompiledPolicy::try_from(policy).unwrap();
    let intent = b.claimed(
        b.intent(vec![call(points, &RedPillLaterApproval::checkInCall {})]),
        &compiled,
    );
    let e = pace_pipeline::Pipeline::new(b.signer.clone())
        .with_relayer(pace_pipeline::Relayer::free(
            crate::door::world_relayer(),
            3_000_000,
        ))
        .evaluate(&b.world.evm, &intent, &compiled, 0)
        .unwrap();
    assert!(e.decision.approved(), "{:?}", e.decision.violations);
    assert!(e.checked.is_none(), "nothing may be sent");
    let why = e.refused.expect("refused before it is sent");
    assert!(why.contains("approvals differ"), "{why}");
}

/// The same keyed on gas without reading it: the check-in's subcall asks for more gas than the
/// relayer's 3,000,000 leaves, runs out of gas under it, and completes with a lander's larger
/// limit, granting the thief an allowance. The trace records the subcall that ran out of gas, so
/// pass 2's other runs are made; here the PDR's gas floor (the call used all it was given)
/// already cannot be met under the relayer's limit: either way nothing is sent.
#[test]
fn a_right_granted_only_when_a_subcall_has_more_gas_is_never_sent() {
    let mut b = bed();
    let thief = Address::from_word(keccak256("pace-perturbed/out-of-gas-thief"));
    let args = RedPillOutOfGas::constructorCall {
        thief,
        rounds: alloy_primitives::U256::from(60_000u64),
        holder: b.a().account,
        amount: ether(1_000),
    }
    .abi_encode();
    let points = deploy(&mut b, "RedPillOutOfGas", &args);
    let policy = b.policy(
        &[points],
        &[selector::<RedPillOutOfGas::checkInCall>()],
        &[],
        &[],
    );
    let compiled = pace_types::CompiledPolicy::try_from(policy).unwrap();
    let intent = b.claimed(
        b.intent(vec![call(points, &RedPillOutOfGas::checkInCall {})]),
        &compiled,
    );
    let pipeline = pace_pipeline::Pipeline::new(b.signer.clone()).with_relayer(
        pace_pipeline::Relayer::free(crate::door::world_relayer(), 3_000_000),
    );
    let simulated = pipeline
        .simulate(&b.world.evm, intent.clone(), &compiled)
        .unwrap();
    assert_eq!(
        simulated.report().environment,
        vec![pace_types::EnvRead::OutOfGas]
    );
    // Under the relayer's gas the check-in moved nothing: the verifier approves it.
    assert!(simulated.report().approvals.is_empty());
    if let Ok(e) = pipeline.evaluate(&b.world.evm, &intent, &compiled, 0) {
        assert!(e.checked.is_none(), "nothing may be sent");
    }
}
