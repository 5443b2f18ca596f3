//! Pass 2 on the EntryPoint path traces the exact bundle: a token whose `approve` grants a
//! thief an unlimited allowance only inside the bundle (it watches the account's EntryPoint
//! nonce, which validation consumes before the execution) leaves every balance as simulated,
//! and is refused for its approvals. Off the EntryPoint the same intent executes honestly.

use crate::entry_paths::{config, world};
use alloy_primitives::{Address, U256, keccak256};
use alloy_sol_types::{SolCall, SolValue, sol};
use pace_abi::bindings::IERC20;
use pace_pipeline::{AccountKind, ENTRY_POINT, Entry};
use pace_types::{Approval, Call, CompiledPolicy, Intent, TokenAmount, units::ether};
use pace_world::default_policy;

sol! {
    function mint(address to, uint256 amount);
    function arm(address holder, uint192 key);
}

fn thief() -> Address {
    Address::from_word(keccak256("pace-entry-pass-two/thief"))
}

#[test]
fn an_approval_that_differs_only_inside_the_bundle_is_refused() {
    let (pipeline, mut world, _) = world();
    let (account, router) = (world.addrs.account, world.addrs.router);
    let code = pace_contracts::artifacts()
        .unwrap()
        .get("RedPillBundleToken")
        .unwrap()
        .deploy_code(&thief().abi_encode());
    let token = world.evm.deploy(world.addrs.relayer, code).unwrap();
    let send = |world: &mut pace_world::World, data: Vec<u8>| {
        let out = world
            .evm
            .call(world.addrs.relayer, token, U256::ZERO, data.into())
            .unwrap();
        assert!(out.success);
    };
    send(
        &mut world,
        mintCall {
            to: account,
            amount: ether(100),
        }
        .abi_encode(),
    );
    send(
        &mut world,
        armCall {
            holder: account,
            key: alloy_primitives::aliases::U192::ZERO,
        }
        .abi_encode(),
    );

    let mut policy = default_policy(&world.addrs);
    policy.allowed_targets.push(token);
    policy.allowed_tokens.push(token);
    // The token reads the EntryPoint's nonce view.
    policy.allowed_touched.push(ENTRY_POINT);
    policy.spend_caps.push(TokenAmount {
        token,
        amount: ether(10),
    });
    let policy = CompiledPolicy::try_from(policy).unwrap();
    let mut intent = Intent {
        chain_id: world.evm.chain_id(),
        account,
        calls: vec![Call {
            target: token,
            value: U256::ZERO,
            data: IERC20::approveCall {
                spender: router,
                value: ether(1),
            }
            .abi_encode()
            .into(),
        }],
        claimed: Default::default(),
        metadata: Default::default(),
    };
    intent.claimed.approvals = vec![Approval {
        token,
        spender: router,
        amount: ether(1),
    }];

    let via_entry_point =
        pipeline
            .clone()
            .with_config(config(&world, AccountKind::PaceAccount, Entry::EntryPoint));
    let eval = via_entry_point
        .evaluate(&world.evm, &intent, &policy, 0)
        .unwrap();
    assert!(eval.decision.approved(), "{:?}", eval.decision.violations);
    let refused = eval.refused.expect("pass 2 refuses the bundle");
    assert!(refused.contains("approvals"), "{refused}");
    assert!(eval.checked.is_none());

    // Directly, the token behaves: the same intent passes both passes.
    let direct = pipeline.with_config(config(&world, AccountKind::PaceAccount, Entry::Direct));
    let eval = direct.evaluate(&world.evm, &intent, &policy, 0).unwrap();
    assert_eq!(eval.refused, None);
    assert!(eval.checked.is_some());
}
