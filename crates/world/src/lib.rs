//! The embedded default world of PACE-rs: an in-process EVM with a `PaceAccount`, the real
//! Uniswap V2 bytecode (Factory, Router02, WETH9 from npm) and the paper's section 5.2
//! fixtures (ERC-20 tokens, a 30 bps constant-product AMM, an oracle-priced lending pool, a
//! malicious router with a hidden contract, an approval drainer, a fee-on-transfer token).
//!
//! [`revert_decoder`] names the custom errors of its mock contracts for the simulator, which
//! knows none of them.
//!
//! Deployment is deterministic: the same world, at the same addresses, every time, so intents,
//! policies and reports written against it stay valid across runs and machines.

mod addresses;
mod deploy;
mod policy;
mod reverts;

pub use addresses::Addresses;
pub use deploy::{CHAIN_ID, Error, GENESIS_BLOCK, GENESIS_TIME, World};
pub use policy::default_policy;
pub use reverts::revert_decoder;
