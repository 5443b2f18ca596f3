//! The embedded default world of PACE-rs: an in-process EVM with a `PaceAccount`, the real
//! Uniswap V2 bytecode (Factory, Router02, WETH9 from npm) and the paper's section 5.2
//! fixtures (ERC-20 tokens, a 30 bps constant-product AMM, an oracle-priced lending pool, a
//! malicious router with a hidden contract, an approval drainer, a fee-on-transfer token).
//!
//! [`World::new`] runs the steps of a [`Builder`] (deploy a token, Uniswap, seed a pool, ...);
//! test fixtures build smaller worlds from the same steps.
//!
//! [`revert_decoder`] names the custom errors of its mock contracts for the simulator, which
//! knows none of them. [`scenarios`] are the scripted agent's proposals on it (`pace demo`).
//!
//! [`World::add_safe`] adds a Safe 1.4.1 guarded by a `PaceModule` to a world.
//!
//! With the `node` feature, [`on_node::copy_state`] writes a world onto a development node.
//!
//! Deployment is deterministic: the same world, at the same addresses, every time, so intents,
//! policies and reports written against it stay valid across runs and machines.

mod addresses;
mod builder;
mod deploy;
#[cfg(feature = "node")]
pub mod on_node;
mod policy;
mod reverts;
mod safe;
mod scenarios;
mod second;
mod steps;
mod tamper;

pub use addresses::Addresses;
pub use builder::Builder;
pub use deploy::{CHAIN_ID, Error, GENESIS_BLOCK, GENESIS_TIME, World, balance_of};
pub use policy::default_policy;
pub use reverts::revert_decoder;
pub use safe::SafeAddresses;
pub use scenarios::{Scenario, scenarios, scenarios_for};
pub use second::SECOND_ACCOUNT_DAI;
pub use steps::ENTRY_POINT_DEPOSIT;
pub use tamper::tampered_submission;
