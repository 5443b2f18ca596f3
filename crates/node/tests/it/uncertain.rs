//! After a broadcast, a lost receipt is Uncertain (with the hash), never Reverted; before it,
//! an unreachable node is an error (nothing was sent).

use super::*;
use alloy::providers::Provider;
use pace_node::{Error, Uncertainty};

#[tokio::test]
async fn a_transaction_that_is_never_mined_is_uncertain_then_executes() {
    let anvil = Anvil::builder().no_mining().spawn().unwrap();
    let client = client(&anvil, 0)
        .await
        .with_receipt_timeout(Duration::from_millis(300));
    let submission = client
        .send(BOB, U256::from(1_000), Bytes::new())
        .await
        .unwrap();
    assert_eq!(submission.broadcast_error, None);
    let outcome = client.wait(&submission).await;
    match &outcome {
        TxOutcome::Uncertain {
            tx_hash: Some(hash),
            reason: Uncertainty::NoReceipt { waited, .. },
        } => {
            assert_eq!(*hash, submission.tx_hash);
            assert!(*waited >= Duration::from_millis(250), "{waited:?}");
        }
        other => panic!("expected Uncertain(NoReceipt), got {other}"),
    }
    // It was right not to call it failed: the transaction is pending and lands once mined.
    let pending = client
        .provider()
        .get_transaction_by_hash(submission.tx_hash)
        .await
        .unwrap();
    assert!(pending.is_some());
    let _: String = client
        .provider()
        .raw_request("evm_mine".into(), ())
        .await
        .unwrap();
    let outcome = client.wait(&submission).await;
    assert_eq!(executed_gas(&outcome), 21_000);
    assert_eq!(client.balance(BOB).await.unwrap(), U256::from(1_000));
}

#[tokio::test]
async fn a_node_lost_after_the_broadcast_gives_uncertain_with_the_hash() {
    let mut anvil = start_anvil();
    let client = client(&anvil, 0)
        .await
        .with_receipt_timeout(Duration::from_millis(500));
    let submission = client.send(BOB, U256::from(1), Bytes::new()).await.unwrap();
    // The transaction is out (and, with automine, mined); the node goes away before the
    // receipt is read.
    anvil.kill();
    let outcome = client.wait(&submission).await;
    match &outcome {
        TxOutcome::Uncertain {
            tx_hash: Some(hash),
            reason: Uncertainty::NodeUnreachable { .. },
        } => assert_eq!(*hash, submission.tx_hash),
        other => panic!("expected Uncertain(NodeUnreachable), got {other}"),
    }
    assert!(!outcome.is_reverted() && !outcome.is_executed());
    assert!(outcome.to_string().contains("uncertain"));
}

#[tokio::test]
async fn a_node_lost_before_the_broadcast_is_an_error_and_nothing_is_sent() {
    let mut anvil = start_anvil();
    let client = client(&anvil, 0).await;
    anvil.kill();
    let err = client
        .execute(Tx::call(BOB, U256::from(1), Bytes::new()))
        .await
        .unwrap_err();
    assert!(
        matches!(
            err,
            Error::Rpc {
                method: "eth_getTransactionCount",
                ..
            }
        ),
        "{err}"
    );

    // A closed port: no client at all.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let err = NodeClient::connect(&format!("http://127.0.0.1:{port}"), Anvil::dev_signer(0))
        .await
        .unwrap_err();
    assert!(
        matches!(
            err,
            Error::Rpc {
                method: "eth_chainId",
                ..
            }
        ),
        "{err}"
    );
}

#[tokio::test]
async fn a_transaction_the_node_refuses_is_rejected_not_uncertain() {
    let anvil = start_anvil();
    let client = client(&anvil, 0).await;
    // Below the 21,000 intrinsic gas: the node refuses it at the door.
    let err = client
        .execute(Tx::call(BOB, U256::from(1), Bytes::new()).with_gas_limit(20_000))
        .await
        .unwrap_err();
    assert!(matches!(err, Error::Rejected { .. }), "{err}");
    assert_eq!(client.nonce(client.address()).await.unwrap(), 0);
}
