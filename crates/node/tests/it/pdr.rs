//! A Rust-signed PDR executes over JSON-RPC; a calldata-mutated one reverts on-chain.

use super::*;
use std::time::Instant;

#[tokio::test]
async fn a_signed_pdr_executes_and_a_mutated_one_reverts_on_chain() {
    let world = World::new().await;
    let (pdr, r, vs) = world.signed_transfer(250).await;
    let data = execute_pdr(&pdr, pdr.calls[0].data.clone(), r, vs);

    let sent = Instant::now();
    let outcome = world
        .relayer
        .execute(Tx::call(world.account, U256::ZERO, data))
        .await
        .unwrap();
    eprintln!("executePDR: receipt {:?} after submit", sent.elapsed());
    let gas = executed_gas(&outcome);
    assert!(gas > 21_000);
    let executed = outcome.events::<PaceAccount::PdrExecuted>();
    assert_eq!(executed.len(), 1);
    assert_eq!(executed[0].0, world.account);
    assert_eq!(
        executed[0].1.digest,
        pdr.digest(world.owner.chain_id(), world.account)
    );
    let transfers = outcome.events::<IERC20::Transfer>();
    assert_eq!(
        transfers,
        vec![(
            world.token,
            IERC20::Transfer {
                from: world.account,
                to: BOB,
                value: U256::from(250),
            }
        )]
    );
    assert_eq!(world.token_balance(BOB).await, U256::from(250));
    assert_eq!(
        world.token_balance(world.account).await,
        U256::from(MINTED - 250)
    );

    // The next PDR, signed for a transfer of 10, submitted with the amount changed to 11:
    // mined, status 0, the account's own error.
    let (pdr, r, vs) = world.signed_transfer(10).await;
    let mutated = IERC20::transferCall {
        to: BOB,
        value: U256::from(11),
    };
    let data = execute_pdr(&pdr, mutated.abi_encode().into(), r, vs);
    // An explicit gas limit: estimation would refuse to send a reverting transaction.
    let tx = Tx::call(world.account, U256::ZERO, data).with_gas_limit(300_000);
    let outcome = world.relayer.execute(tx).await.unwrap();
    let TxOutcome::Reverted {
        gas_used,
        block_number,
        ..
    } = &outcome
    else {
        panic!("expected an on-chain revert, got {outcome}");
    };
    assert!(*gas_used > 21_000 && *gas_used < 300_000);
    assert!(*block_number > 0);
    match outcome.decode_revert::<PaceAccount::PaceAccountErrors>() {
        Some(PaceAccount::PaceAccountErrors::PaceAccountInvalidSigner(e)) => {
            assert_ne!(e.recovered, world.signer.address())
        }
        other => panic!("expected PaceAccountInvalidSigner, got {other:?} from {outcome}"),
    }
    // Nothing moved, and the sequence was not consumed.
    assert_eq!(world.token_balance(BOB).await, U256::from(250));
    let next = world
        .owner
        .call_sol(world.account, &PaceAccount::nextSequenceCall { key: 0 })
        .await
        .unwrap();
    assert_eq!(next, pdr.terms().sequence);
}

#[tokio::test]
async fn gas_estimation_refuses_a_reverting_send_before_broadcast() {
    let world = World::new().await;
    let (pdr, r, vs) = world.signed_transfer(10).await;
    let mutated = IERC20::transferCall {
        to: BOB,
        value: U256::from(11),
    };
    let data = execute_pdr(&pdr, mutated.abi_encode().into(), r, vs);
    let nonce = world.relayer.nonce(world.relayer.address()).await.unwrap();
    let err = world
        .relayer
        .send(world.account, U256::ZERO, data)
        .await
        .unwrap_err();
    let revert = err.revert_data().expect("the estimate's revert data");
    assert!(matches!(
        <PaceAccount::PaceAccountErrors as alloy_sol_types::SolInterface>::abi_decode(&revert),
        Ok(PaceAccount::PaceAccountErrors::PaceAccountInvalidSigner(_))
    ));
    // Nothing was sent: the relayer's nonce did not move.
    assert_eq!(
        world.relayer.nonce(world.relayer.address()).await.unwrap(),
        nonce
    );
}
