//! Submission is permissionless: whoever holds a signed PDR can land it, picking the origin,
//! the gas price and the block. The signed outcome bounds carry the guarantee then. A time
//! bomb armed after signing (honest in the simulated block, stealing through a standing
//! allowance once armed) is landed by a third party in a later block: the account's held
//! balance may not fall, so the transaction reverts and nothing leaves.

use crate::door::evaluate;
use alloy_primitives::{Address, B256, U256};
use alloy_sol_types::{SolCall, SolValue, sol};
use pace_abi::bindings::{IERC20, PaceAccount};
use pace_pipeline::PipelineConfig;
use pace_signer::PdrSigner;
use pace_testkit::ether;
use pace_types::{Call, Claims, CompiledPolicy, Intent};
use pace_world::{Builder, World, default_policy};

sol! {
    function enlist(address pill);
    function arm();
    function checkIn();
}

#[test]
fn a_third_party_landing_a_pdr_in_a_hostile_environment_takes_nothing() {
    let signer = PdrSigner::from_bytes(&B256::repeat_byte(0x42)).unwrap();
    let mut world = World::new(signer.address()).unwrap();
    let a = world.addrs;
    let deadline = world.deadline();
    let loot = ether(1_000);
    let (accomplice, pill) = {
        let mut b = Builder::new(&mut world.evm, a.attacker, deadline).unwrap();
        let accomplice = b
            .project_from(
                a.attacker,
                "RedPillAccomplice",
                &a.dai.abi_encode(),
                "deploy the accomplice",
            )
            .unwrap();
        let pill = b
            .project_from(
                a.attacker,
                "RedPillTimestamp",
                &(accomplice, loot).abi_encode_params(),
                "deploy the time bomb",
            )
            .unwrap();
        (accomplice, pill)
    };
    let evm = &mut world.evm;
    let ok = |o: pace_evm::Outcome, what: &str| assert!(o.success, "{what}: {o:?}");
    ok(
        evm.call(
            a.attacker,
            accomplice,
            U256::ZERO,
            enlistCall { pill }.abi_encode().into(),
        )
        .unwrap(),
        "enlist",
    );
    // A standing DAI allowance the owner granted the accomplice long ago, through the raw path.
    let approve = IERC20::approveCall {
        spender: accomplice,
        value: U256::MAX,
    };
    let raw = PaceAccount::executeCall {
        target: a.dai,
        value: U256::ZERO,
        data: approve.abi_encode().into(),
    };
    ok(
        evm.call(a.owner, a.account, U256::ZERO, raw.abi_encode().into())
            .unwrap(),
        "the owner's approval",
    );

    // The agent checks in at the pill; honest in the simulated block, so approved.
    let intent = Intent {
        chain_id: evm.chain_id(),
        account: a.account,
        calls: vec![Call {
            target: pill,
            value: U256::ZERO,
            data: checkInCall {}.abi_encode().into(),
        }],
        claimed: Claims {
            touched: vec![pill],
            ..Claims::default()
        },
        metadata: Default::default(),
    };
    let mut policy = default_policy(&a);
    policy.allowed_targets.push(pill);
    policy.allowed_selectors.push(checkInCall::SELECTOR.into());
    let policy = CompiledPolicy::try_from(policy).unwrap();
    let eval = evaluate(evm, &intent, &policy, &signer, &PipelineConfig::default()).unwrap();
    assert!(eval.decision.approved(), "{:?}", eval.decision.violations);
    let checked = eval.checked.expect("pass 2 agrees");
    let pdr = &checked.signed().pdr;
    assert!(pdr.held.contains(&a.dai), "DAI is held: {:?}", pdr.held);

    // The attacker arms the bomb; a stranger lands the PDR a block later, as its origin.
    ok(
        evm.call(a.attacker, pill, U256::ZERO, armCall {}.abi_encode().into())
            .unwrap(),
        "arm",
    );
    let (number, timestamp) = (evm.block_number(), evm.timestamp());
    evm.set_block(number + 1, timestamp + 1);
    let dai = |evm: &pace_evm::InProcessEvm, who: Address| {
        evm.view_sol(a.dai, &IERC20::balanceOfCall { account: who })
            .unwrap()
    };
    let before = dai(evm, a.account);
    let stranger = Address::repeat_byte(0x57);
    let landed = evm
        .call(stranger, a.account, U256::ZERO, checked.calldata().clone())
        .unwrap();
    assert!(!landed.success, "the bomb's transaction executed");
    let error = landed.decode_revert::<PaceAccount::PaceAccountErrors>();
    assert!(
        matches!(
            error,
            Some(PaceAccount::PaceAccountErrors::PaceAccountHeldBalanceFell(ref e)) if e.token == a.dai
        ),
        "{error:?}"
    );
    assert_eq!(dai(evm, a.account), before, "DAI left the account");

    // The bomb is live: the same call outside a PDR takes the loot.
    let mut probe = evm.clone();
    probe
        .call(
            a.account,
            pill,
            U256::ZERO,
            checkInCall {}.abi_encode().into(),
        )
        .unwrap();
    assert_eq!(dai(&probe, a.account), before - loot);
}

sol! {
    function mint(address to, uint256 id);
    function setApprovalForAll(address operator, bool approved);
}

/// The account holds an NFT and once made a contract an operator of the collection
/// (`setApprovalForAll`). An intent that touches that contract is refused, however harmless
/// in the simulation: at execution it could swap the item for another under the count the
/// bounds hold. Revoked, the same intent is approved.
#[test]
fn a_touched_contract_that_is_already_an_operator_is_refused() {
    let signer = PdrSigner::from_bytes(&B256::repeat_byte(0x42)).unwrap();
    let mut world = World::new(signer.address()).unwrap();
    let a = world.addrs;
    let deadline = world.deadline();
    let (collection, pill) = {
        let mut b = Builder::new(&mut world.evm, a.deployer, deadline).unwrap();
        let collection = b
            .project("MockERC721", &[], "deploy the collection")
            .unwrap();
        let pill = b
            .project_from(
                a.attacker,
                "RedPillTimestamp",
                &(a.attacker, U256::ZERO).abi_encode_params(),
                "deploy the pill",
            )
            .unwrap();
        (collection, pill)
    };
    let evm = &mut world.evm;
    let mint = mintCall {
        to: a.account,
        id: U256::from(1u8),
    };
    assert!(
        evm.call(a.deployer, collection, U256::ZERO, mint.abi_encode().into())
            .unwrap()
            .success
    );
    let grant = |approved: bool| PaceAccount::executeCall {
        target: collection,
        value: U256::ZERO,
        data: setApprovalForAllCall {
            operator: pill,
            approved,
        }
        .abi_encode()
        .into(),
    };
    assert!(
        evm.call(
            a.owner,
            a.account,
            U256::ZERO,
            grant(true).abi_encode().into()
        )
        .unwrap()
        .success
    );
    let intent = Intent {
        chain_id: evm.chain_id(),
        account: a.account,
        calls: vec![Call {
            target: pill,
            value: U256::ZERO,
            data: checkInCall {}.abi_encode().into(),
        }],
        claimed: Claims {
            touched: vec![pill],
            ..Claims::default()
        },
        metadata: Default::default(),
    };
    let mut policy = default_policy(&a);
    policy.allowed_targets.push(pill);
    policy.allowed_selectors.push(checkInCall::SELECTOR.into());
    policy.allowed_tokens.push(collection);
    let policy = CompiledPolicy::try_from(policy).unwrap();
    let config = PipelineConfig::default();
    let eval = evaluate(evm, &intent, &policy, &signer, &config).unwrap();
    let codes: Vec<_> = eval.decision.codes().collect();
    assert_eq!(
        codes,
        vec![pace_types::ViolationCode::StandingOperator],
        "{:?}",
        eval.decision.violations
    );
    assert!(
        evm.call(
            a.owner,
            a.account,
            U256::ZERO,
            grant(false).abi_encode().into()
        )
        .unwrap()
        .success
    );
    let eval = evaluate(evm, &intent, &policy, &signer, &config).unwrap();
    assert!(eval.decision.approved(), "{:?}", eval.decision.violations);
}
