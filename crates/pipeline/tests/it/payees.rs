//! A payment to a payee is credited with what the payee's balance gained, at most the logged
//! amount: a token that logs the whole transfer but delivers less (its cut goes elsewhere,
//! silently) shows as the loss it is beyond the policy's loss bound on the payment, and the same
//! payment in an honest token passes.

use crate::door::{evaluate, execute, world_relayer};
use alloy_primitives::{Address, U256};
use alloy_sol_types::{SolCall, SolConstructor, SolValue, sol};
use pace_pipeline::PipelineConfig;
use pace_signer::PdrSigner;
use pace_testkit::ether;
use pace_types::{
    Call, Claims, CompiledPolicy, Intent, TablePrice, TokenAmount, ViolationCode as Code,
};
use pace_world::{Builder, World, default_policy};

sol! {
    function mint(address to, uint256 amount);
    function transfer(address to, uint256 amount) returns (bool);
    function balanceOf(address who) returns (uint256);
}

/// Deploys `SilentSkimERC20` with a cut of `bps` to the attacker, or a plain `MockERC20` when
/// `bps` is `None`, and mints 1,000 of it to the account.
fn token(world: &mut World, bps: Option<u64>) -> Address {
    let a = world.addrs;
    let deadline = world.deadline();
    let mut b = Builder::new(&mut world.evm, a.deployer, deadline).unwrap();
    let token = match bps {
        Some(bps) => b
            .project(
                "SilentSkimERC20",
                &(a.attacker, U256::from(bps)).abi_encode_params(),
                "deploy SKIM",
            )
            .unwrap(),
        None => b.token("Honest", "HON", 18, "deploy HON").unwrap(),
    };
    b.mint(a.deployer, token, a.account, ether(1_000), "mint")
        .unwrap();
    token
}

/// The default policy with `token` allowed, capped and priced at 0.001 ether.
fn policy(world: &World, token: Address) -> CompiledPolicy {
    let mut p = default_policy(&world.addrs);
    p.allowed_tokens.push(token);
    p.allowed_targets.push(token);
    p.spend_caps.push(TokenAmount {
        token,
        amount: ether(1_000),
    });
    p.prices.push(TablePrice {
        token,
        amount: ether(1),
        value: ether(1) / U256::from(1_000u64),
    });
    CompiledPolicy::try_from(p).unwrap()
}

/// Pays the payee 100 of `token`.
fn pay(world: &World, token: Address) -> Intent {
    let amount = ether(100);
    Intent {
        chain_id: world.evm.chain_id(),
        account: world.addrs.account,
        calls: vec![Call {
            target: token,
            value: U256::ZERO,
            data: transferCall {
                to: world.addrs.payee,
                amount,
            }
            .abi_encode()
            .into(),
        }],
        claimed: Claims {
            outflows: vec![TokenAmount { token, amount }],
            ..Claims::default()
        },
        metadata: Default::default(),
    }
}

#[test]
fn a_payee_paid_less_than_the_log_says_is_a_loss() {
    let signer = PdrSigner::from_bytes(&alloy_primitives::B256::repeat_byte(0x42)).unwrap();
    let config = PipelineConfig::default();

    // Honest: the payee gains the 100 the log says, and the payment executes.
    let mut world = World::new(signer.address()).unwrap();
    let honest = token(&mut world, None);
    let eval = evaluate(
        &world.evm,
        &pay(&world, honest),
        &policy(&world, honest),
        &signer,
        &config,
    )
    .unwrap();
    assert!(eval.decision.approved(), "{:#?}", eval.decision.violations);
    assert_eq!(
        eval.report.payee_receipts,
        vec![TokenAmount {
            token: honest,
            amount: ether(100)
        }]
    );
    let checked = eval.checked.expect("pass 2 agrees");
    let payee = world.addrs.payee;
    execute(&mut world.evm, world_relayer(), &checked, &[honest]).unwrap();
    let got = world
        .evm
        .view_sol(honest, &balanceOfCall { who: payee })
        .unwrap();
    assert_eq!(got, ether(100));

    // Skimming 5 % silently: the log says 100, the payee's balance 95, so 5 of the 100 that
    // left are lost (above the policy's 2 %).
    let mut world = World::new(signer.address()).unwrap();
    let skim = token(&mut world, Some(500));
    let eval = evaluate(
        &world.evm,
        &pay(&world, skim),
        &policy(&world, skim),
        &signer,
        &config,
    )
    .unwrap();
    assert_eq!(
        eval.report.payee_receipts,
        vec![TokenAmount {
            token: skim,
            amount: ether(95)
        }]
    );
    // The loss, and the skimmer credited silently (its balance slot, keyed by an address the
    // token's code holds, with no Transfer naming it) as a recorded stranger.
    let codes: Vec<_> = eval.decision.codes().collect();
    assert_eq!(
        codes,
        vec![Code::LossExceeded, Code::RoleHolderNotAllowed],
        "{:#?}",
        eval.decision.violations
    );
    assert!(eval.record.signed().is_none());

    // The same 1 % cut judged alike whether the token logs it (a fee-on-transfer token's
    // burn) or hides it: within the policy's 2 % loss bound it is the payment's own cost, not
    // a loss (the burn is approved; the hidden cut still credits a stranger, which the rights
    // rule refuses); under a bound of 0.5 % all of it is the loss.
    for fee_token in [Fee::Logged, Fee::Silent] {
        let mut world = World::new(signer.address()).unwrap();
        let t = match fee_token {
            Fee::Logged => fee_on_transfer(&mut world),
            Fee::Silent => token(&mut world, Some(100)),
        };
        let allowed = policy(&world, t);
        assert_eq!(allowed.loss_bound_bps(), 200);
        let eval = evaluate(&world.evm, &pay(&world, t), &allowed, &signer, &config).unwrap();
        let codes: Vec<_> = eval.decision.codes().collect();
        let expected = match fee_token {
            Fee::Logged => vec![],
            Fee::Silent => vec![Code::RoleHolderNotAllowed],
        };
        assert_eq!(
            codes, expected,
            "{fee_token:?}: {:?}",
            eval.decision.violations
        );
        let mut tight = allowed.policy().clone();
        tight.max_loss_bps = Some(50);
        let tight = CompiledPolicy::try_from(tight).unwrap();
        let eval = evaluate(&world.evm, &pay(&world, t), &tight, &signer, &config).unwrap();
        let loss = eval
            .decision
            .violations
            .iter()
            .find(|v| v.code == Code::LossExceeded);
        assert!(
            loss.is_some_and(|v| v.message.contains("loses 1000000000000000 wei")),
            "{fee_token:?}: {:?}",
            eval.decision.violations
        );
    }
}

#[derive(Debug, Clone, Copy)]
enum Fee {
    Logged,
    Silent,
}

/// Deploys `FeeOnTransferERC20` (a logged 1 % burn) and mints 1,000 of it to the account.
fn fee_on_transfer(world: &mut World) -> Address {
    let a = world.addrs;
    let deadline = world.deadline();
    let mut b = Builder::new(&mut world.evm, a.deployer, deadline).unwrap();
    // Its constructor is MockERC20's.
    let ctor = pace_contracts::bindings::MockERC20::constructorCall {
        name_: "Fee".into(),
        symbol_: "FEE".into(),
        decimals_: 18,
    }
    .abi_encode();
    let token = b
        .project("FeeOnTransferERC20", &ctor, "deploy FEE")
        .unwrap();
    b.mint(a.deployer, token, a.account, ether(1_000), "mint")
        .unwrap();
    token
}
