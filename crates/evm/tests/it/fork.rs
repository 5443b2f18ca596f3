//! The fork backend without a node: what fails, and how (the tests against a live node are in
//! pace-node, which starts anvil).

use super::*;
use pace_evm::{Backend, ForkError, catch_fork_error, revm::DatabaseRef};

/// A loopback port nobody listens on.
fn closed_port_url() -> String {
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    format!("http://127.0.0.1:{port}")
}

#[test]
fn forking_an_absent_node_is_an_error() {
    match InProcessEvm::fork(&closed_port_url(), None) {
        Err(ForkError::Rpc { method, .. }) => assert_eq!(method, "eth_chainId"),
        other => panic!("expected an RPC error, got {other:?}"),
    }
    assert!(matches!(
        InProcessEvm::fork("not a url", Some(1)),
        Err(ForkError::InvalidUrl { .. })
    ));
}

#[test]
fn the_in_memory_world_has_an_empty_backend() {
    let evm = InProcessEvm::new(CHAIN_ID);
    assert!(matches!(evm.backend(), Backend::Empty));
    assert!(evm.fork_block().is_none());
    assert_eq!(evm.try_balance(ALICE).unwrap(), U256::ZERO);
    assert_eq!(evm.try_code(ALICE).unwrap(), Bytes::new());
    // revm's EmptyDB answers, unchanged.
    assert_eq!(
        evm.db().block_hash_ref(7).unwrap(),
        alloy_primitives::keccak256("7")
    );
    assert_eq!(evm.block_env().number, U256::from(1));
    assert_eq!(evm.cfg_env().chain_id, CHAIN_ID);
}

#[test]
fn catch_fork_error_lets_other_panics_through() {
    assert_eq!(catch_fork_error(|| 7).unwrap(), 7);
    let other = std::panic::catch_unwind(|| catch_fork_error(|| panic!("not a fork failure")));
    assert!(other.is_err());
}

#[test]
fn the_world_is_send_and_sync() {
    fn check<T: Send + Sync + 'static>() {}
    check::<InProcessEvm>();
    check::<pace_evm::Snapshot>();
    check::<pace_evm::Error>();
}
