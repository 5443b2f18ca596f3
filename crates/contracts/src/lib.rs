//! The Solidity side of PACE as Rust values: compiled bytecode and ABIs of `contracts/`, the
//! prebuilt Uniswap V2 artifacts from npm, and `sol!` bindings for all of them.
//!
//! [`artifacts`] compiles `contracts/` at run time with foundry-compilers through the solcjs shim
//! `script/solc` (offline: no svm, no download), with the compiler settings of `foundry.toml`, so
//! bytecode and gas are the ones `forge` produces. Results are cached in
//! `target/pace-contracts/`; an unchanged tree compiles in milliseconds. Concurrent processes
//! serialise on a file lock there.
//!
//! This crate never touches the network and never writes outside `target/pace-contracts/`.
//!
//! ```no_run
//! use alloy_sol_types::SolConstructor;
//! use pace_contracts::{artifacts, bindings::MockERC20};
//!
//! let token = artifacts()?.get("MockERC20")?;
//! let ctor = MockERC20::constructorCall {
//!     name_: "Token".into(),
//!     symbol_: "TKN".into(),
//!     decimals_: 18,
//! };
//! let init_code = token.deploy_code(&ctor.abi_encode());
//! # Ok::<(), pace_contracts::Error>(())
//! ```

mod artifact;
pub mod bindings;
mod compile;
mod error;
mod root;
mod uniswap;

pub use artifact::{Artifacts, ContractArtifact};
pub use compile::{OPTIMIZER_RUNS, OUT_DIR, SOLC_VERSION, artifacts, compile, compile_at};
pub use error::{Error, Result};
pub use root::{ROOT_ENV, workspace_root};
pub use uniswap::{MAINNET_PAIR_INIT_CODE_HASH, UNISWAP_V2_NAMES, uniswap_v2};
