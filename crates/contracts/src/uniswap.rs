//! Prebuilt Uniswap V2 artifacts shipped by the npm packages `@uniswap/v2-core` and
//! `@uniswap/v2-periphery` (compiled by Uniswap with solc 0.5.16 / 0.6.6; not recompiled here).

use crate::{
    artifact::ContractArtifact,
    error::{Error, Result},
    root::workspace_root,
};
use alloy_json_abi::JsonAbi;
use alloy_primitives::{B256, Bytes, hex};
use serde_json::Value;
use std::path::Path;

/// The artifacts [`uniswap_v2`] knows, with their file relative to the workspace root.
const FILES: &[(&str, &str)] = &[
    (
        "UniswapV2Factory",
        "node_modules/@uniswap/v2-core/build/UniswapV2Factory.json",
    ),
    (
        "UniswapV2Pair",
        "node_modules/@uniswap/v2-core/build/UniswapV2Pair.json",
    ),
    (
        "UniswapV2Router02",
        "node_modules/@uniswap/v2-periphery/build/UniswapV2Router02.json",
    ),
    (
        "WETH9",
        "node_modules/@uniswap/v2-periphery/build/WETH9.json",
    ),
    (
        "DeflatingERC20",
        "node_modules/@uniswap/v2-periphery/build/DeflatingERC20.json",
    ),
];

/// Names accepted by [`uniswap_v2`].
pub const UNISWAP_V2_NAMES: &[&str] = &[
    "UniswapV2Factory",
    "UniswapV2Pair",
    "UniswapV2Router02",
    "WETH9",
    "DeflatingERC20",
];

/// The pair init-code hash hard-coded in `UniswapV2Library.pairFor` of the periphery (mainnet's).
/// The router finds pairs by CREATE2 address with it, so it only works with a factory whose pair
/// creation code hashes to this value. The npm `UniswapV2Pair` creation code does (tested), so the
/// npm factory and router work together unmodified.
pub const MAINNET_PAIR_INIT_CODE_HASH: B256 =
    alloy_primitives::b256!("96e8ac4277198ff8b6f785478aa9a39f403cb768dd02cbee326c3e7da348845f");

/// A prebuilt Uniswap V2 artifact: `UniswapV2Factory`, `UniswapV2Pair`, `UniswapV2Router02`,
/// `WETH9` or `DeflatingERC20` (a fee-on-transfer token).
///
/// Constructors: Factory `(address feeToSetter)`, Router02 `(address factory, address WETH)`,
/// DeflatingERC20 `(uint256 totalSupply)`, WETH9 none (the Pair is created by the factory).
pub fn uniswap_v2(name: &str) -> Result<ContractArtifact> {
    let (_, file) =
        FILES
            .iter()
            .find(|(n, _)| *n == name)
            .ok_or_else(|| Error::UnknownUniswapArtifact {
                name: name.to_owned(),
                known: UNISWAP_V2_NAMES,
            })?;
    read_artifact(&workspace_root()?, name, file)
}

fn read_artifact(root: &Path, name: &str, file: &str) -> Result<ContractArtifact> {
    let path = root.join(file);
    if !root.join("node_modules").is_dir() {
        return Err(Error::NodeModulesMissing(root.join("node_modules")));
    }
    let text = std::fs::read_to_string(&path).map_err(|e| Error::io("reading", &path, e))?;
    let bad = |message: String| Error::BadArtifact {
        path: path.clone(),
        message,
    };
    let json: Value = serde_json::from_str(&text).map_err(|e| bad(e.to_string()))?;
    let abi: JsonAbi = serde_json::from_value(json.get("abi").cloned().unwrap_or(Value::Null))
        .map_err(|e| bad(format!("abi: {e}")))?;
    let evm = json.get("evm");
    let object = |name: &str| -> Result<Bytes> {
        let section = evm.and_then(|e| e.get(name));
        if section
            .and_then(|s| s.get("linkReferences"))
            .and_then(Value::as_object)
            .is_some_and(|refs| !refs.is_empty())
        {
            return Err(Error::Unlinked(name.to_owned()));
        }
        let hex_str = section
            .and_then(|s| s.get("object"))
            .and_then(Value::as_str)
            .ok_or_else(|| bad(format!("missing evm.{name}.object")))?;
        hex::decode(hex_str)
            .map(Into::into)
            .map_err(|e| bad(format!("bytecode hex: {e}")))
    };
    let bytecode = match object("bytecode") {
        Ok(code) => code,
        // Older artifact layout: a top-level "bytecode" string.
        Err(Error::BadArtifact { .. }) => {
            let hex_str = json
                .get("bytecode")
                .and_then(Value::as_str)
                .ok_or_else(|| bad("neither evm.bytecode.object nor bytecode".into()))?;
            hex::decode(hex_str)
                .map_err(|e| bad(format!("bytecode hex: {e}")))?
                .into()
        }
        Err(e) => return Err(e),
    };
    let deployed_bytecode = match object("deployedBytecode") {
        Err(Error::BadArtifact { .. }) => Bytes::new(),
        other => other?,
    };
    Ok(ContractArtifact {
        name: name.to_owned(),
        source: file.to_owned(),
        abi,
        bytecode,
        deployed_bytecode,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_list_the_files() {
        let names: Vec<&str> = FILES.iter().map(|(name, _)| *name).collect();
        assert_eq!(names, UNISWAP_V2_NAMES);
    }
}
