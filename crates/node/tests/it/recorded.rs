//! `submit_recorded`: the hash is handed over after signing and before the broadcast, a
//! failing recorder stops the broadcast, and the fee cap bounds `maxFeePerGas`. `replace`: a
//! stuck transaction replaced with the same nonce and higher fees, under the cap.

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

#[tokio::test]
async fn a_stuck_transaction_is_replaced_with_the_same_nonce_and_higher_fees() {
    let anvil = Anvil::builder().no_mining().spawn().unwrap();
    let sender = client(&anvil, 1).await;
    let to = Anvil::dev_address(2);
    let stuck = sender
        .submit(Tx::call(to, U256::from(7), Bytes::new()))
        .await
        .unwrap();
    let p = sender.provider();
    let old = p
        .get_transaction_by_hash(stuck.tx_hash)
        .await
        .unwrap()
        .unwrap();

    let mut recorded = None;
    let bumped = sender
        .replace(stuck.tx_hash, |s| {
            recorded = Some(s.tx_hash);
            Ok(())
        })
        .await
        .unwrap();
    assert_eq!(recorded, Some(bumped.tx_hash));
    assert_ne!(bumped.tx_hash, stuck.tx_hash);
    assert_eq!(bumped.nonce, stuck.nonce);
    let new = p
        .get_transaction_by_hash(bumped.tx_hash)
        .await
        .unwrap()
        .unwrap();
    assert!(new.inner.max_fee_per_gas() > old.inner.max_fee_per_gas());
    assert!(
        new.inner.max_priority_fee_per_gas() > old.inner.max_priority_fee_per_gas(),
        "{new:?}"
    );

    let _: String = p.raw_request("evm_mine".into(), ()).await.unwrap();
    assert!(sender.wait(&bumped).await.is_executed());
    let old_receipt = p.get_transaction_receipt(stuck.tx_hash).await.unwrap();
    assert!(old_receipt.is_none(), "both landed: {old_receipt:?}");
    assert_eq!(sender.nonce(sender.address()).await.unwrap(), 1);

    // Mined: nothing to replace, nothing sent.
    let err = sender
        .replace(bumped.tx_hash, |_| Ok(()))
        .await
        .unwrap_err();
    assert!(matches!(err, pace_node::Error::NotReplaceable(_)), "{err}");
}

#[tokio::test]
async fn the_fee_cap_bounds_a_replacement() {
    let anvil = Anvil::builder().no_mining().spawn().unwrap();
    let sender = client(&anvil, 1).await;
    let stuck = sender
        .submit(Tx::call(Anvil::dev_address(2), U256::from(7), Bytes::new()))
        .await
        .unwrap();
    let old = sender
        .provider()
        .get_transaction_by_hash(stuck.tx_hash)
        .await
        .unwrap()
        .unwrap();
    // A cap at the stuck transaction's own fee leaves no room for the 10 % raise.
    let capped = sender.with_max_fee_per_gas(old.inner.max_fee_per_gas());
    let err = capped.replace(stuck.tx_hash, |_| Ok(())).await.unwrap_err();
    assert!(
        matches!(&err, pace_node::Error::NotReplaceable(m) if m.contains("fee cap")),
        "{err}"
    );
}
