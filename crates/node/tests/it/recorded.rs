//! `submit_recorded`: the hash is handed over after signing and before the broadcast, a
//! failing recorder stops the broadcast, and the fee cap bounds `maxFeePerGas`.

use super::*;
use alloy::{consensus::Transaction, providers::Provider};

#[tokio::test]
async fn the_hash_is_recorded_before_the_broadcast_and_a_failed_record_sends_nothing() {
    let anvil = start_anvil();
    let cap = 3_000_000_000u128;
    let sender = client(&anvil, 1).await.with_max_fee_per_gas(cap);
    let to = Anvil::dev_address(2);

    let mut seen = None;
    let submission = sender
        .submit_recorded(Tx::call(to, U256::from(7), Bytes::new()), |s| {
            // Called after signing, before the broadcast.
            seen = Some(s.tx_hash);
            Ok(())
        })
        .await
        .unwrap();
    assert_eq!(seen, Some(submission.tx_hash));
    assert!(sender.wait(&submission).await.is_executed());
    let tx = sender
        .provider()
        .get_transaction_by_hash(submission.tx_hash)
        .await
        .unwrap()
        .unwrap();
    assert!(
        tx.inner.max_fee_per_gas() <= cap,
        "{}",
        tx.inner.max_fee_per_gas()
    );

    let nonce = sender.nonce(sender.address()).await.unwrap();
    let err = sender
        .submit_recorded(Tx::call(to, U256::from(7), Bytes::new()), |_| {
            Err("the store is full".to_owned())
        })
        .await
        .unwrap_err();
    assert!(matches!(&err, pace_node::Error::NotBroadcast(m) if m.contains("store is full")));
    let pending = sender
        .provider()
        .get_transaction_count(sender.address())
        .pending()
        .await
        .unwrap();
    assert_eq!(pending, nonce, "nothing was broadcast");
}

#[tokio::test]
async fn a_cap_below_the_base_fee_is_refused_before_anything_lands() {
    let anvil = start_anvil();
    // anvil's base fee starts at 1 gwei: a cap of 1 wei cannot pay it.
    let sender = client(&anvil, 1).await.with_max_fee_per_gas(1);
    let out = sender
        .submit(Tx::call(Anvil::dev_address(2), U256::from(1), Bytes::new()))
        .await;
    assert!(out.is_err(), "{out:?}");
    assert_eq!(sender.nonce(sender.address()).await.unwrap(), 0);
}
