//! `InProcessEvm::fork` over a real node: same contracts, same answers as `eth_call`, same
//! gas as the chain.

use super::*;
use pace_evm::{ForkError, InProcessEvm, revm::DatabaseRef};
use pace_simulator::SimulateOptions;
use pace_types::{Call, Claims, Intent};
use std::collections::BTreeMap;

#[tokio::test]
async fn a_fork_sees_the_deployed_contracts_and_views_match_eth_call() {
    let world = World::new().await;
    let latest = world.owner.latest_block().await.unwrap();
    let evm = InProcessEvm::fork(world.anvil.url(), None).unwrap();
    assert_eq!(evm.chain_id(), world.anvil.chain_id());
    assert_eq!(evm.block_number(), latest.number);
    assert_eq!(evm.timestamp(), latest.timestamp);
    assert_eq!(evm.fork_block().unwrap().hash, latest.hash);

    for contract in [world.account, world.token] {
        let code = world.owner.code(contract).await.unwrap();
        assert!(!code.is_empty());
        assert_eq!(evm.code(contract).unwrap(), code);
    }
    assert_eq!(
        evm.view_sol(world.account, &PaceAccount::ownerCall {})
            .unwrap(),
        world.owner.address()
    );
    assert_eq!(
        evm.view_sol(world.account, &PaceAccount::verifierCall {})
            .unwrap(),
        world.signer.address()
    );
    assert_eq!(
        evm.view_sol(
            world.token,
            &IERC20::balanceOfCall {
                account: world.account
            }
        )
        .unwrap(),
        U256::from(MINTED)
    );
    // Byte for byte, for a few views.
    let (pdr, _, _) = world.signed_transfer(1).await;
    let views: Vec<(Address, Bytes)> = vec![
        (
            world.account,
            PaceAccount::domainSeparatorCall {}.abi_encode().into(),
        ),
        (
            world.account,
            PaceAccount::nextSequenceCall { key: 0 }.abi_encode().into(),
        ),
        (
            world.account,
            PaceAccount::pdrDigestCall {
                calls: vec![PaceAccount::Call {
                    target: pdr.calls[0].target,
                    value: pdr.calls[0].value,
                    data: pdr.calls[0].data.clone(),
                }],
                bounds: vec![],
                held: vec![],
                checks: vec![],
                attestation: pdr.attestation_hash(),
                terms: pdr.terms().pack(),
            }
            .abi_encode()
            .into(),
        ),
        (world.token, IERC20::totalSupplyCall {}.abi_encode().into()),
    ];
    for (to, data) in views {
        let node = world.owner.call(to, data.clone()).await.unwrap();
        assert_eq!(evm.view(to, data).unwrap(), node);
    }
    // The digest the account computes on the fork is the one Rust signs.
    let digest = evm
        .view_sol(world.account, &PaceAccount::domainSeparatorCall {})
        .unwrap();
    assert_eq!(
        digest,
        pace_types::pdr::domain(31337, world.account).separator()
    );
    let rpc = evm.backend().rpc().unwrap();
    eprintln!(
        "fork: {} JSON-RPC requests for the views above",
        rpc.requests()
    );
}

#[tokio::test]
async fn a_pdr_simulated_on_the_fork_costs_what_it_costs_on_chain() {
    let world = World::new().await;
    let (pdr, r, vs) = world.signed_transfer(77).await;
    let data = execute_pdr(&pdr, pdr.calls[0].data.clone(), r, vs);

    let mut evm = InProcessEvm::fork(world.anvil.url(), None).unwrap();
    let simulated = evm
        .simulate(
            world.relayer.address(),
            world.account,
            U256::ZERO,
            data.clone(),
        )
        .unwrap();
    assert!(simulated.success, "{simulated:?}");
    // Committing on the fork changes the local copy only.
    let committed = evm
        .call(
            world.relayer.address(),
            world.account,
            U256::ZERO,
            data.clone(),
        )
        .unwrap();
    assert!(committed.success);
    assert_eq!(committed.gas_used, simulated.gas_used);
    assert_eq!(
        evm.view_sol(world.token, &IERC20::balanceOfCall { account: BOB })
            .unwrap(),
        U256::from(77)
    );
    assert_eq!(world.token_balance(BOB).await, U256::ZERO);

    let outcome = world
        .relayer
        .execute(Tx::call(world.account, U256::ZERO, data))
        .await
        .unwrap();
    assert_eq!(executed_gas(&outcome), simulated.gas_used);
    assert_eq!(
        outcome.events::<IERC20::Transfer>().len(),
        committed.events::<IERC20::Transfer>().len()
    );

    // A fork stays on its block: a fresh one sees the transfer, the old one its own copy.
    let fresh = InProcessEvm::fork(world.anvil.url(), None).unwrap();
    assert!(fresh.block_number() > evm.block_number());
    assert_eq!(
        fresh
            .view_sol(world.token, &IERC20::balanceOfCall { account: BOB })
            .unwrap(),
        U256::from(77)
    );
    let pinned = InProcessEvm::fork(world.anvil.url(), Some(evm.block_number())).unwrap();
    assert_eq!(
        pinned
            .view_sol(world.token, &IERC20::balanceOfCall { account: BOB })
            .unwrap(),
        U256::ZERO
    );
}

#[tokio::test]
async fn a_fork_whose_node_is_gone_errs_instead_of_inventing_state() {
    let mut world = World::new().await;
    let evm = InProcessEvm::fork(world.anvil.url(), None).unwrap();
    // Loaded before the node goes: still answered from memory.
    let owner = evm
        .view_sol(world.account, &PaceAccount::ownerCall {})
        .unwrap();
    world.anvil.kill();
    assert_eq!(
        evm.view_sol(world.account, &PaceAccount::ownerCall {})
            .unwrap(),
        owner
    );
    // Anything new needs the node.
    let err = evm
        .view_sol(world.token, &IERC20::balanceOfCall { account: BOB })
        .unwrap_err();
    assert!(matches!(err, pace_evm::Error::Fork(_)), "{err}");
    assert!(
        matches!(evm.balance(BOB), Err(ForkError::Rpc { .. })),
        "{:?}",
        evm.balance(BOB)
    );
    let mut evm = evm;
    assert!(evm.fund(BOB, U256::from(1)).is_err());
    let err = evm
        .call(BOB, world.token, U256::ZERO, Bytes::new())
        .unwrap_err();
    assert!(matches!(err, pace_evm::Error::Fork(_)), "{err}");
    // The world survived the failed transaction: what was loaded is still there.
    assert_eq!(
        evm.view_sol(world.account, &PaceAccount::ownerCall {})
            .unwrap(),
        owner
    );
    // Reading the forked state through revm's `DatabaseRef`: the database's own error.
    let read = DatabaseRef::basic_ref(evm.db(), Address::repeat_byte(0x99));
    assert!(matches!(read, Err(ForkError::Rpc { .. })), "{read:?}");
    // And no fork at all from a node that is not there.
    assert!(InProcessEvm::fork(world.anvil.url(), None).is_err());
}

#[tokio::test]
async fn a_simulation_on_a_fork_whose_node_is_gone_is_a_fork_error_not_a_report() {
    let mut world = World::new().await;
    let evm = InProcessEvm::fork(world.anvil.url(), None).unwrap();
    let transfer = Intent {
        chain_id: evm.chain_id(),
        account: world.account,
        calls: vec![Call {
            target: world.token,
            value: U256::ZERO,
            data: IERC20::transferCall {
                to: BOB,
                value: U256::from(5),
            }
            .abi_encode()
            .into(),
        }],
        claimed: Claims::default(),
        metadata: BTreeMap::new(),
    };
    // Everything this simulation reads is loaded while the node is up, and remembered.
    let report = pace_simulator::simulate(&evm, &transfer).unwrap();
    assert!(report.success, "{report:?}");
    world.anvil.kill();
    assert_eq!(pace_simulator::simulate(&evm, &transfer).unwrap(), report);

    // A view the node would have to answer: a balance (`balanceOf` of a token that was never
    // loaded), a price (the reserves of a pool that was never loaded). Either aborts the
    // simulation instead of reading as "no answer".
    let unloaded = Address::repeat_byte(0x99);
    for options in [
        SimulateOptions {
            extra_tokens: vec![unloaded],
            ..SimulateOptions::default()
        },
        SimulateOptions {
            price_sources: vec![unloaded],
            ..SimulateOptions::default()
        },
    ] {
        let err = pace_simulator::simulate_with(&evm, &transfer, &options).unwrap_err();
        assert!(
            matches!(err, pace_simulator::Error::Fork(ForkError::Rpc { .. })),
            "{err}"
        );
    }
    // So does a call of the intent that needs the node.
    let mut elsewhere = transfer;
    elsewhere.calls[0].target = unloaded;
    let err = pace_simulator::simulate(&evm, &elsewhere).unwrap_err();
    assert!(matches!(err, pace_simulator::Error::Fork(_)), "{err}");
}
