//! A rebasing token in Lido's stETH shape (`RebasingToken`: a ledger of shares, balances their
//! worth at the pooled ether per share), with no adapter or descriptor for it.
//!
//! Paying a payee with it moves the account's shares, a record no standard view answers as it
//! is: the balance falls with them at one rate, so the record is the balance's ledger, and the
//! payment is approved and lands like any token's, measured on the balance. Receiving it (shares
//! that rise: a scaled debt rises the same way) stays a record nothing reads, until a descriptor
//! the policy pins names `sharesOf` as the view that reads it.

use crate::door::{evaluate, execute, world_relayer};
use alloy_primitives::{Address, B256, U256};
use alloy_sol_types::{SolCall, SolValue, sol};
use pace_pipeline::{Evaluation, PipelineConfig};
use pace_signer::PdrSigner;
use pace_testkit::ether;
use pace_types::{
    Call, Claims, CompiledPolicy, Intent, ProtocolPin, TablePrice, TokenAmount,
    ViolationCode as Code, descriptor::Descriptor,
};
use pace_world::{Builder, World, default_policy};

sol! {
    function submit() payable returns (uint256);
    function rebase(uint256 pooled);
    function sharesOf(address holder) returns (uint256);
    function balanceOf(address holder) returns (uint256);
    function transfer(address to, uint256 amount) returns (bool);
}

/// The token, its oracle the deployer, with 1,000 ether pooled (the account's 400 of it) and
/// rebased to 1,100: a share is worth 1.1 ether, so no balance is its shares.
pub(super) fn token(world: &mut World) -> Address {
    let a = world.addrs;
    let deadline = world.deadline();
    let mut b = Builder::new(&mut world.evm, a.deployer, deadline).unwrap();
    let token = b
        .project(
            "RebasingToken",
            &a.deployer.abi_encode(),
            "deploy the token",
        )
        .unwrap();
    b.call(a.deployer, token, ether(1_000), &submitCall {}, "submit")
        .unwrap();
    let to_account = transferCall {
        to: a.account,
        amount: ether(400),
    };
    b.call(a.deployer, token, U256::ZERO, &to_account, "the account's")
        .unwrap();
    let pooled = ether(1_100);
    b.call(
        a.deployer,
        token,
        U256::ZERO,
        &rebaseCall { pooled },
        "rebase",
    )
    .unwrap();
    token
}

/// The default policy with `token` allowed as a target, capped and priced at par with ether.
pub(super) fn policy(world: &World, token: Address) -> CompiledPolicy {
    let mut p = default_policy(&world.addrs);
    p.allowed_tokens.push(token);
    p.allowed_targets.push(token);
    for s in [transferCall::SELECTOR, submitCall::SELECTOR] {
        p.allowed_selectors.push(s.into());
    }
    p.spend_caps.push(TokenAmount {
        token,
        amount: ether(1_000),
    });
    p.prices.push(TablePrice {
        token,
        amount: ether(1),
        value: ether(1),
    });
    CompiledPolicy::try_from(p).unwrap()
}

fn intent(world: &World, call: Call, outflows: Vec<TokenAmount>) -> Intent {
    Intent {
        chain_id: world.evm.chain_id(),
        account: world.addrs.account,
        calls: vec![call],
        claimed: Claims {
            outflows,
            ..Claims::default()
        },
        metadata: Default::default(),
    }
}

/// The account pools 1 ether in `token` for its shares.
fn submit(world: &World, token: Address) -> Intent {
    let call = Call {
        target: token,
        value: ether(1),
        data: submitCall {}.abi_encode().into(),
    };
    let outflows = vec![TokenAmount {
        token: pace_types::ETH,
        amount: ether(1),
    }];
    intent(world, call, outflows)
}

pub(super) fn decide(world: &World, intent: &Intent, policy: &CompiledPolicy) -> Evaluation {
    let signer = PdrSigner::from_bytes(&B256::repeat_byte(0x42)).unwrap();
    evaluate(
        &world.evm,
        intent,
        policy,
        &signer,
        &PipelineConfig::default(),
    )
    .unwrap()
}

pub(super) fn view<C: SolCall<Return = U256>>(world: &World, token: Address, call: &C) -> U256 {
    world.evm.view_sol(token, call).unwrap()
}

#[test]
fn paying_with_a_rebasing_token_is_approved_and_lands() {
    let signer = PdrSigner::from_bytes(&B256::repeat_byte(0x42)).unwrap();
    let mut world = World::new(signer.address()).unwrap();
    let token = token(&mut world);
    let (account, payee) = (world.addrs.account, world.addrs.payee);
    let shares = view(&world, token, &sharesOfCall { holder: account });
    let balance = view(&world, token, &balanceOfCall { holder: account });
    assert!(shares < balance, "a share is worth more than a unit");

    let amount = ether(100);
    let pay = Call {
        target: token,
        value: U256::ZERO,
        data: transferCall { to: payee, amount }.abi_encode().into(),
    };
    let e = decide(
        &world,
        &intent(&world, pay, vec![TokenAmount { token, amount }]),
        &policy(&world, token),
    );
    assert!(e.decision.approved(), "{:#?}", e.decision.violations);
    assert!(
        e.report.unread_positions.is_empty(),
        "{:?}",
        e.report.unread_positions
    );
    let checked = e.checked.expect("pass 2 agrees");
    execute(&mut world.evm, world_relayer(), &checked, &[token]).unwrap();
    let paid = view(&world, token, &balanceOfCall { holder: payee });
    // Shares move rounded down, so each balance is within two units of the amount.
    let near = |a: U256, b: U256| a.abs_diff(b) <= U256::from(2);
    assert!(near(paid, amount), "{paid}");
    let left = view(&world, token, &sharesOfCall { holder: account });
    assert!(left < shares, "the account's shares paid");
    let now = view(&world, token, &balanceOfCall { holder: account });
    assert!(near(now + amount, balance), "{now}");
}

#[test]
fn shares_that_rise_stay_a_record_nothing_reads() {
    let signer = PdrSigner::from_bytes(&B256::repeat_byte(0x42)).unwrap();
    let mut world = World::new(signer.address()).unwrap();
    let token = token(&mut world);
    let e = decide(&world, &submit(&world, token), &policy(&world, token));
    let codes: Vec<Code> = e.decision.codes().collect();
    assert!(
        codes.contains(&Code::OpaqueAuthorization),
        "{:#?}",
        e.decision.violations
    );
    assert!(
        e.report
            .unread_positions
            .iter()
            .any(|u| u.contract == token && u.silent && u.grew()),
        "{:?}",
        e.report.unread_positions
    );
}

#[test]
fn a_descriptor_reading_the_shares_makes_receiving_them_ordinary_use() {
    let signer = PdrSigner::from_bytes(&B256::repeat_byte(0x42)).unwrap();
    let mut world = World::new(signer.address()).unwrap();
    let token = token(&mut world);
    let account = world.addrs.account;
    let json = format!(
        r#"{{"schema": 1, "id": "a-rebasing-token", "license": "MIT",
            "roots": [{{"name": "token", "address": "{token:#x}"}}],
            "entry_points": [{{"root": "token", "selectors": ["{:#010x}"]}}],
            "records": [{{"view": "sharesOf(address)", "args": ["account"]}}]}}"#,
        u32::from_be_bytes(submitCall::SELECTOR)
    );
    let d = Descriptor::from_json_slice(json.as_bytes()).expect("the descriptor loads");
    let mut pinned = policy(&world, token).policy().clone();
    pinned.protocols = vec![ProtocolPin::from(d)];
    let e = decide(
        &world,
        &submit(&world, token),
        &CompiledPolicy::try_from(pinned).unwrap(),
    );
    assert!(e.decision.approved(), "{:#?}", e.decision.violations);
    let shares = view(&world, token, &sharesOfCall { holder: account });
    let checked = e.checked.expect("pass 2 agrees");
    execute(&mut world.evm, world_relayer(), &checked, &[token]).unwrap();
    assert!(view(&world, token, &sharesOfCall { holder: account }) > shares);
}
