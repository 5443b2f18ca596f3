//! The artifacts the build script compiled, embedded in the binary and parsed once per process.

use crate::{
    artifact::{Artifacts, ContractArtifact},
    error::{Error, Result},
};
use alloy_json_abi::JsonAbi;
use alloy_primitives::Bytes;
use serde::Deserialize;
use std::sync::OnceLock;

/// `contracts/` compiled by the build script (`build/solidity.rs`).
const CONTRACTS_JSON: &str = include_str!(concat!(env!("OUT_DIR"), "/pace-contracts.json"));
/// The npm Uniswap V2 artifacts read by the build script (`build/uniswap.rs`).
const UNISWAP_JSON: &str = include_str!(concat!(env!("OUT_DIR"), "/uniswap-v2.json"));

/// One embedded artifact, as `build/main.rs` writes it.
#[derive(Deserialize)]
struct Embedded {
    name: String,
    source: String,
    abi: JsonAbi,
    bytecode: Bytes,
    deployed_bytecode: Bytes,
}

impl From<Embedded> for ContractArtifact {
    fn from(e: Embedded) -> Self {
        Self {
            name: e.name,
            source: e.source,
            abi: e.abi,
            bytecode: e.bytecode,
            deployed_bytecode: e.deployed_bytecode,
        }
    }
}

fn parse(what: &str, json: &str) -> Result<Vec<ContractArtifact>> {
    let list: Vec<Embedded> = serde_json::from_str(json).map_err(|e| Error::BadArtifact {
        path: what.into(),
        message: e.to_string(),
    })?;
    Ok(list.into_iter().map(Into::into).collect())
}

/// The compiled contracts of this workspace: `contracts/` and the library sources it imports,
/// compiled at build time with the settings of `foundry.toml` and embedded in the binary. The
/// first call parses them; later calls return the same value. Nothing is read from disk.
pub fn artifacts() -> Result<&'static Artifacts> {
    static CELL: OnceLock<Result<Artifacts, String>> = OnceLock::new();
    CELL.get_or_init(|| {
        parse("embedded contracts", CONTRACTS_JSON)
            .map(Artifacts::new)
            .map_err(|e| e.to_string())
    })
    .as_ref()
    .map_err(|message| Error::BadArtifact {
        path: "embedded contracts".into(),
        message: message.clone(),
    })
}

/// The embedded prebuilt npm artifacts (Uniswap V2, then the EntryPoint v0.8).
pub(crate) fn uniswap() -> Result<&'static [ContractArtifact]> {
    static CELL: OnceLock<Result<Vec<ContractArtifact>, String>> = OnceLock::new();
    CELL.get_or_init(|| {
        parse("embedded Uniswap V2 artifacts", UNISWAP_JSON).map_err(|e| e.to_string())
    })
    .as_ref()
    .map(Vec::as_slice)
    .map_err(|message| Error::BadArtifact {
        path: "embedded Uniswap V2 artifacts".into(),
        message: message.clone(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_embedded_json_parses() {
        let all = artifacts().unwrap();
        assert!(all.get("PaceAccount").unwrap().is_deployable());
        assert_eq!(
            uniswap().unwrap().len(),
            crate::UNISWAP_V2_NAMES.len() + 1 + crate::SAFE_V141_NAMES.len()
        );
        assert!(parse("x", "[{\"name\": 1}]").is_err());
    }
}
