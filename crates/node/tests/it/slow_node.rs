//! Receipt polling against a node that answers slowly: a poll cut short by the receipt
//! deadline is not evidence that the node is unreachable (the CI flake this file pins down),
//! while a node that never answers at all is.

use super::*;
use pace_node::{Submission, Uncertainty};
use std::{
    io::{BufRead, BufReader, Read, Write},
    net::{TcpListener, TcpStream},
    thread,
};

/// A JSON-RPC server on 127.0.0.1 that answers `eth_chainId` at once and every other
/// request with `null` after `delay` (`None`: never). One thread per connection, keep-alive.
fn slow_node(delay: Option<Duration>) -> String {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            thread::spawn(move || serve(stream, delay));
        }
    });
    url
}

fn serve(stream: TcpStream, delay: Option<Duration>) {
    stream
        .set_read_timeout(Some(Duration::from_secs(20)))
        .unwrap();
    let mut writer = stream.try_clone().unwrap();
    let mut reader = BufReader::new(stream);
    loop {
        let mut length = 0;
        loop {
            let mut line = String::new();
            if reader.read_line(&mut line).unwrap_or(0) == 0 {
                return;
            }
            let line = line.trim_end();
            if line.is_empty() {
                break;
            }
            if let Some((name, value)) = line.split_once(':')
                && name.eq_ignore_ascii_case("content-length")
            {
                length = value.trim().parse().unwrap();
            }
        }
        let mut body = vec![0; length];
        if reader.read_exact(&mut body).is_err() {
            return;
        }
        let request: serde_json::Value = serde_json::from_slice(&body).unwrap();
        let result = if request["method"] == "eth_chainId" {
            serde_json::json!("0x7a69")
        } else {
            match delay {
                Some(delay) => thread::sleep(delay),
                // Hold the connection open, silent, until the client goes away.
                None => thread::sleep(Duration::from_secs(20)),
            }
            serde_json::Value::Null
        };
        let reply = serde_json::json!({"jsonrpc": "2.0", "id": request["id"], "result": result});
        let reply = reply.to_string();
        let head = format!(
            "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n",
            reply.len()
        );
        if writer.write_all(head.as_bytes()).is_err() || writer.write_all(reply.as_bytes()).is_err()
        {
            return;
        }
    }
}

fn submission() -> Submission {
    Submission {
        tx_hash: B256::repeat_byte(0x11),
        from: Anvil::dev_signer(0).address(),
        nonce: 0,
        gas_limit: 21_000,
        tx: Tx::call(BOB, U256::from(1), Bytes::new()),
        broadcast_error: None,
    }
}

async fn slow_client(url: &str) -> NodeClient {
    NodeClient::connect(url, Anvil::dev_signer(0))
        .await
        .unwrap()
        .with_receipt_timeout(Duration::from_millis(900))
        .with_poll_interval(Duration::from_millis(50))
        .with_rpc_timeout(Duration::from_secs(5))
}

#[tokio::test]
async fn a_last_poll_cut_short_by_the_deadline_is_no_receipt_not_an_unreachable_node() {
    // Answers take 300 ms: polls answer (null) at ~300 and ~650 ms, the third starts at
    // ~700 ms and the 900 ms deadline cuts it short. The node answered; it just has no
    // receipt yet. (A first answer may come up to 600 ms late on a loaded machine.)
    let url = slow_node(Some(Duration::from_millis(300)));
    let outcome = slow_client(&url).await.wait(&submission()).await;
    match &outcome {
        TxOutcome::Uncertain {
            tx_hash: Some(hash),
            reason: Uncertainty::NoReceipt { waited, .. },
        } => {
            assert_eq!(*hash, submission().tx_hash);
            assert!(*waited >= Duration::from_millis(850), "{waited:?}");
        }
        other => panic!("expected Uncertain(NoReceipt), got {other}"),
    }
}

#[tokio::test]
async fn a_node_that_never_answers_a_receipt_poll_is_unreachable() {
    let url = slow_node(None);
    let outcome = slow_client(&url).await.wait(&submission()).await;
    match &outcome {
        TxOutcome::Uncertain {
            tx_hash: Some(_),
            reason: Uncertainty::NodeUnreachable { error, .. },
        } => assert!(error.contains("no answer"), "{error}"),
        other => panic!("expected Uncertain(NodeUnreachable), got {other}"),
    }
}
