use super::*;
use pace_node::{AnvilBuilder, DEV_ADDRESSES};
use std::time::Instant;

#[test]
fn anvil_starts_answers_and_is_gone_after_drop() {
    let started = Instant::now();
    let anvil = start_anvil();
    let elapsed = started.elapsed();
    assert!(elapsed < Duration::from_secs(5), "start took {elapsed:?}");
    eprintln!("anvil listened {:?} after spawn", anvil.startup_time());
    assert_eq!(anvil.chain_id(), 31337);
    assert!(anvil.url().starts_with("http://127.0.0.1:"));
    let pid = anvil.pid();
    assert!(!process_gone(pid));
    drop(anvil);
    assert!(process_gone(pid), "anvil {pid} still running after drop");
}

#[test]
fn anvil_is_killed_when_a_test_panics() {
    let (tx, rx) = std::sync::mpsc::channel();
    let panicked = std::thread::spawn(move || {
        let anvil = start_anvil();
        tx.send(anvil.pid()).unwrap();
        panic!("a failing test");
    })
    .join();
    assert!(panicked.is_err());
    let pid = rx.recv().unwrap();
    assert!(process_gone(pid), "anvil {pid} survived the panic");
}

#[tokio::test]
async fn dev_keys_are_anvils_funded_accounts_and_chain_id_is_configurable() {
    let anvil = AnvilBuilder::default().chain_id(4_242).spawn().unwrap();
    assert_eq!(anvil.chain_id(), 4_242);
    let client = client(&anvil, 2).await;
    assert_eq!(client.chain_id(), 4_242);
    assert_eq!(client.address(), DEV_ADDRESSES[2]);
    let accounts: Vec<Address> = alloy::providers::Provider::get_accounts(client.provider())
        .await
        .unwrap();
    assert_eq!(&accounts[..3], &DEV_ADDRESSES[..]);
    for address in DEV_ADDRESSES {
        assert_eq!(
            client.balance(address).await.unwrap(),
            U256::from(10_000u64) * U256::from(10u64).pow(U256::from(18))
        );
    }
}

#[test]
fn several_anvils_run_side_by_side() {
    let nodes: Vec<Anvil> = (0..3).map(|_| start_anvil()).collect();
    let mut ports: Vec<u16> = nodes.iter().map(Anvil::port).collect();
    ports.sort_unstable();
    ports.dedup();
    assert_eq!(ports.len(), 3);
    let pids: Vec<u32> = nodes.iter().map(Anvil::pid).collect();
    drop(nodes);
    assert!(pids.into_iter().all(process_gone));
}

#[test]
fn a_missing_binary_is_a_clear_error() {
    let err = AnvilBuilder::default()
        .binary("/nonexistent/anvil")
        .spawn()
        .unwrap_err();
    assert!(matches!(err, pace_node::Error::AnvilSpawn { .. }), "{err}");
}

#[test]
fn a_node_that_exits_at_start_is_an_error_not_a_hang() {
    // alloy reports it as a start-up timeout; anvil's own complaint goes to stderr.
    let err = AnvilBuilder::default()
        .arg("--no-such-flag")
        .startup_timeout(Duration::from_secs(1))
        .spawn()
        .unwrap_err();
    assert!(matches!(err, pace_node::Error::AnvilStartup(_)), "{err}");
}
