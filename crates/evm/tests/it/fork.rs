//! The fork backend without a node: what fails, and how (the tests against a live node are in
//! pace-node, which starts anvil).

use super::*;
use alloy_primitives::B256;
use pace_evm::{
    Backend, ForkError,
    revm::{DatabaseRef, context::result::EVMError},
};

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
    assert_eq!(evm.balance(ALICE).unwrap(), U256::ZERO);
    assert_eq!(evm.code(ALICE).unwrap(), Bytes::new());
    // revm's EmptyDB answers, unchanged.
    assert_eq!(
        evm.db().block_hash_ref(7).unwrap(),
        alloy_primitives::keccak256("7")
    );
    assert_eq!(evm.block_env().number, U256::from(1));
    assert_eq!(evm.cfg_env().chain_id, CHAIN_ID);
}

#[test]
fn a_read_revm_cannot_make_is_a_typed_database_error() {
    // An EVM error carrying a failed forked read is the fork's error, not a refused transaction.
    let read = || ForkError::UnknownCode(B256::repeat_byte(0xc0));
    let err = pace_evm::Error::from(EVMError::Database(read()));
    assert!(
        matches!(err, pace_evm::Error::Fork(ForkError::UnknownCode(_))),
        "{err}"
    );
    assert!(
        err.to_string()
            .starts_with("forked state unavailable: no code with hash")
    );
    let refused = pace_evm::Error::from(EVMError::<ForkError>::Custom("x".into()));
    assert!(matches!(refused, pace_evm::Error::Evm(_)), "{refused}");
    // What revm asks of a database's error type.
    fn check<E: pace_evm::revm::database_interface::DBErrorMarker>() {}
    check::<ForkError>();
}

#[test]
fn the_world_is_send_and_sync() {
    fn check<T: Send + Sync + 'static>() {}
    check::<InProcessEvm>();
    check::<pace_evm::Snapshot>();
    check::<pace_evm::Error>();
}
