//! `InProcessEvm::fork` over a real node: same contracts, same answers as `eth_call`, same
//! gas as the chain.

use super::*;
use pace_evm::InProcessEvm;

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
        assert_eq!(evm.code(contract), code);
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
    assert!(evm.try_balance(BOB).is_err());
    let mut evm = evm;
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
    // Running revm directly over the forked state: the failure is an error inside
    // `catch_fork_error`.
    let db = evm.db();
    let caught = pace_evm::catch_fork_error(|| {
        pace_evm::revm::DatabaseRef::basic_ref(db, Address::repeat_byte(0x99))
    });
    assert!(caught.is_err());
    // And no fork at all from a node that is not there.
    assert!(InProcessEvm::fork(world.anvil.url(), None).is_err());
}
