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
use pace_types::{
    Call, Claims, CompiledPolicy, Intent,
    pdr::{BoundKind, grant_bit},
};
use pace_world::{Builder, World, default_policy};

sol! {
    function enlist(address pill);
    function arm();
    function checkIn();
}

/// A time bomb and its accomplice, deployed by the attacker and enlisted: once armed, a
/// check-in at the bomb has the accomplice take `loot` DAI from the caller, through the
/// caller's DAI allowance to the accomplice.
struct Bomb {
    accomplice: Address,
    pill: Address,
}

impl Bomb {
    fn deploy(world: &mut World, loot: U256) -> Self {
        let a = world.addrs;
        let deadline = world.deadline();
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
        let bomb = Self { accomplice, pill };
        bomb.ok(
            &mut world.evm,
            a.attacker,
            accomplice,
            enlistCall { pill }.abi_encode(),
            "enlist",
        );
        bomb
    }

    fn ok(
        &self,
        evm: &mut pace_evm::InProcessEvm,
        from: Address,
        to: Address,
        data: Vec<u8>,
        what: &str,
    ) {
        let o = evm.call(from, to, U256::ZERO, data.into()).unwrap();
        assert!(o.success, "{what}: {o:?}");
    }

    /// The owner's standing DAI allowance to the accomplice, through the raw path.
    fn grant(&self, world: &mut World) {
        let a = world.addrs;
        let approve = IERC20::approveCall {
            spender: self.accomplice,
            value: U256::MAX,
        };
        let raw = PaceAccount::executeCall {
            target: a.dai,
            value: U256::ZERO,
            data: approve.abi_encode().into(),
        };
        self.ok(
            &mut world.evm,
            a.owner,
            a.account,
            raw.abi_encode(),
            "the owner's approval",
        );
    }

    fn arm(&self, world: &mut World) {
        let attacker = world.addrs.attacker;
        self.ok(
            &mut world.evm,
            attacker,
            self.pill,
            armCall {}.abi_encode(),
            "arm",
        );
    }

    /// The check-in, approved and checked in pass 2 (honest in the simulated block).
    fn approved(&self, world: &World, signer: &PdrSigner) -> pace_pipeline::Checked {
        let (intent, policy) = self.check_in(world);
        let config = PipelineConfig::default();
        let eval = evaluate(&world.evm, &intent, &policy, signer, &config).unwrap();
        assert!(eval.decision.approved(), "{:?}", eval.decision.violations);
        eval.checked.expect("pass 2 agrees")
    }

    /// The agent's check-in at the bomb, and a policy that allows it.
    fn check_in(&self, world: &World) -> (Intent, CompiledPolicy) {
        let a = world.addrs;
        let intent = Intent {
            chain_id: world.evm.chain_id(),
            account: a.account,
            calls: vec![Call {
                target: self.pill,
                value: U256::ZERO,
                data: checkInCall {}.abi_encode().into(),
            }],
            claimed: Claims {
                touched: vec![self.pill],
                ..Claims::default()
            },
            metadata: Default::default(),
        };
        let mut policy = default_policy(&a);
        policy.allowed_targets.push(self.pill);
        policy.allowed_selectors.push(checkInCall::SELECTOR.into());
        (intent, CompiledPolicy::try_from(policy).unwrap())
    }
}

fn dai(world: &World, who: Address) -> U256 {
    world
        .evm
        .view_sol(world.addrs.dai, &IERC20::balanceOfCall { account: who })
        .unwrap()
}

/// `calldata` landed by a stranger a block later.
fn land(world: &mut World, calldata: &alloy_primitives::Bytes) -> pace_evm::Outcome {
    let evm = &mut world.evm;
    let (number, timestamp) = (evm.block_number(), evm.timestamp());
    evm.set_block(number + 1, timestamp + 1);
    let stranger = Address::repeat_byte(0x57);
    evm.call(stranger, world.addrs.account, U256::ZERO, calldata.clone())
        .unwrap()
}

#[test]
fn a_third_party_landing_a_pdr_in_a_hostile_environment_takes_nothing() {
    let signer = PdrSigner::from_bytes(&B256::repeat_byte(0x42)).unwrap();
    let mut world = World::new(signer.address()).unwrap();
    let a = world.addrs;
    let loot = ether(1_000);
    let bomb = Bomb::deploy(&mut world, loot);
    // A standing DAI allowance the owner granted the accomplice long ago, through the raw path.
    bomb.grant(&mut world);

    // The agent checks in at the pill; honest in the simulated block, so approved.
    let checked = bomb.approved(&world, &signer);
    let pdr = &checked.signed().pdr;
    assert!(pdr.held.contains(&a.dai), "DAI is held: {:?}", pdr.held);

    // The attacker arms the bomb; a stranger lands the PDR a block later, as its origin.
    bomb.arm(&mut world);
    let before = dai(&world, a.account);
    let landed = land(&mut world, checked.calldata());
    assert_refused(
        &world,
        &bomb,
        &landed,
        (before, loot),
        |error| matches!(error, PaceAccount::PaceAccountErrors::PaceAccountHeldBalanceFell(e) if e.token == a.dai),
    );
}

/// The same bomb, with the owner's allowance granted only after the PDR was signed: the
/// simulation found no right over DAI, so the PDR leaves DAI unread on its grant-filter bit
/// (an `UNGRANTED` bound), and the owner's approval sets that bit. Landed, the PDR is refused
/// before its call, and nothing leaves.
#[test]
fn a_right_granted_after_signing_over_what_the_pdr_left_unread_refuses_it() {
    let signer = PdrSigner::from_bytes(&B256::repeat_byte(0x42)).unwrap();
    let mut world = World::new(signer.address()).unwrap();
    let a = world.addrs;
    let loot = ether(1_000);
    let bomb = Bomb::deploy(&mut world, loot);
    let checked = bomb.approved(&world, &signer);
    let pdr = &checked.signed().pdr;
    assert!(
        !pdr.held.contains(&a.dai),
        "DAI is left unread: {:?}",
        pdr.held
    );
    let bit = U256::from(grant_bit(a.dai));
    let unread = pdr
        .bounds
        .iter()
        .find(|b| b.kind() == Some(BoundKind::Ungranted))
        .expect("an UNGRANTED bound");
    assert_eq!(unread.id & bit, bit, "on DAI's bit");

    bomb.grant(&mut world);
    bomb.arm(&mut world);
    let before = dai(&world, a.account);
    let landed = land(&mut world, checked.calldata());
    assert_refused(
        &world,
        &bomb,
        &landed,
        (before, loot),
        |error| matches!(error, PaceAccount::PaceAccountErrors::PaceAccountGrantRecorded(e) if e.bits & bit == bit),
    );
}

/// The landed PDR reverted with an error `expected` accepts, the account kept its `before` DAI,
/// and the bomb is live: outside a PDR it would have taken `loot`.
fn assert_refused(
    world: &World,
    bomb: &Bomb,
    landed: &pace_evm::Outcome,
    (before, loot): (U256, U256),
    expected: impl Fn(&PaceAccount::PaceAccountErrors) -> bool,
) {
    assert!(!landed.success, "the bomb's transaction executed");
    let error = landed.decode_revert::<PaceAccount::PaceAccountErrors>();
    assert!(error.as_ref().is_some_and(&expected), "{error:?}");
    assert_eq!(
        dai(world, world.addrs.account),
        before,
        "DAI left the account"
    );
    assert_bomb_is_live(world, bomb, before - loot);
}

/// The bomb is live: the same check-in outside a PDR leaves the account `left` DAI.
fn assert_bomb_is_live(world: &World, bomb: &Bomb, left: U256) {
    let mut probe = world.clone();
    let a = probe.addrs;
    probe
        .evm
        .call(
            a.account,
            bomb.pill,
            U256::ZERO,
            checkInCall {}.abi_encode().into(),
        )
        .unwrap();
    assert_eq!(dai(&probe, a.account), left);
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
