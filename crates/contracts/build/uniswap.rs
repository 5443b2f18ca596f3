//! The prebuilt npm artifacts: Uniswap V2 from `@uniswap/v2-core` and `@uniswap/v2-periphery`,
//! the EntryPoint v0.8 from `@account-abstraction/contracts`.

use crate::{Embedded, Result, settings::PREBUILT_FILES};
use serde_json::Value;
use std::path::Path;

/// Every artifact of [`PREBUILT_FILES`], in that order.
pub(crate) fn read(root: &Path) -> Result<Vec<Embedded>> {
    PREBUILT_FILES
        .iter()
        .map(|(name, file)| read_one(root, name, file))
        .collect()
}

fn read_one(root: &Path, name: &str, file: &str) -> Result<Embedded> {
    let path = root.join(file);
    let bad = |message: String| format!("artifact {}: {message}", path.display());
    let text = std::fs::read_to_string(&path).map_err(|e| bad(e.to_string()))?;
    let json: Value = serde_json::from_str(&text).map_err(|e| bad(e.to_string()))?;
    let abi = json
        .get("abi")
        .cloned()
        .ok_or_else(|| bad("no abi".into()))?;
    let evm = json.get("evm");
    // `Ok(None)`: the section is absent; an error: it needs linking.
    let object = |section: &str| -> Result<Option<String>> {
        let section_json = evm.and_then(|e| e.get(section));
        if section_json
            .and_then(|s| s.get("linkReferences"))
            .and_then(Value::as_object)
            .is_some_and(|refs| !refs.is_empty())
        {
            return Err(bad(format!("{section} needs library linking")));
        }
        Ok(section_json
            .and_then(|s| s.get("object"))
            .and_then(Value::as_str)
            .map(hex_prefixed))
    };
    let bytecode = match object("bytecode")? {
        Some(code) => code,
        // Older artifact layout: a top-level "bytecode" string.
        None => json
            .get("bytecode")
            .and_then(Value::as_str)
            .map(hex_prefixed)
            .ok_or_else(|| bad("neither evm.bytecode.object nor bytecode".into()))?,
    };
    let deployed_bytecode = object("deployedBytecode")?.unwrap_or_else(|| "0x".into());
    Ok(Embedded {
        name: name.to_owned(),
        source: file.to_owned(),
        abi,
        bytecode,
        deployed_bytecode,
    })
}

fn hex_prefixed(s: &str) -> String {
    if s.starts_with("0x") {
        s.to_owned()
    } else {
        format!("0x{s}")
    }
}
