//! The Solidity side of PACE as Rust values: compiled bytecode and ABIs of `contracts/`, the
//! prebuilt Uniswap V2 and EntryPoint v0.8 artifacts from npm, and `sol!` bindings for all of
//! them.
//!
//! The build script (`build/main.rs`) compiles `contracts/` with foundry-compilers through the
//! solcjs shim `script/solc` (offline: no svm, no download), with the compiler settings of
//! `foundry.toml`, so bytecode and gas are the ones `forge` produces; it also reads the Uniswap
//! V2 artifacts from `node_modules/`. Both are embedded in the library: [`artifacts`] and
//! [`uniswap_v2`] read nothing from disk, so a binary runs without the checkout, node or solc.
//! Building needs `node_modules/` (`npm ci`) and `node`.
//!
//! This crate never touches the network or the file system at run time.
//!
//! ```
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
//! assert!(init_code.len() > token.bytecode.len());
//! # Ok::<(), pace_contracts::Error>(())
//! ```

mod artifact;
pub mod bindings;
mod embedded;
mod error;
pub mod helpers;
mod settings;
mod uniswap;

pub use artifact::{Artifacts, ContractArtifact};
pub use embedded::artifacts;
pub use error::{Error, Result};
pub use uniswap::{
    MAINNET_PAIR_INIT_CODE_HASH, SAFE_V141_NAMES, UNISWAP_V2_NAMES, entry_point_v08, safe_v141,
    uniswap_v2,
};

/// The solc version `contracts/` is compiled with (`script/solc` wraps it; pinned in
/// package.json and foundry.toml).
pub const SOLC_VERSION: semver::Version = settings::SOLC_VERSION;
/// Optimizer runs, as in foundry.toml.
pub const OPTIMIZER_RUNS: usize = settings::OPTIMIZER_RUNS;
