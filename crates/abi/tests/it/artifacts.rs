//! Reading reference ABIs from `node_modules` (installed by `make setup`), with selectors and
//! topics computed here from the canonical signatures.

use alloy_primitives::{B256, keccak256};
use serde_json::Value;
use std::{
    collections::BTreeMap,
    path::{Path, PathBuf},
};

/// One function of an artifact.
#[derive(Debug, Clone)]
pub(crate) struct Function {
    pub(crate) signature: String,
    /// Canonical output tuple, e.g. `(uint112,uint112,uint32)`.
    pub(crate) outputs: String,
    pub(crate) mutability: String,
}

/// One event of an artifact.
#[derive(Debug, Clone)]
pub(crate) struct Event {
    pub(crate) signature: String,
    /// Canonical tuple of the indexed arguments' types, in order.
    pub(crate) indexed: String,
    /// Canonical tuple of the other arguments' types, in order.
    pub(crate) data: String,
}

/// The functions, events and errors of one or more artifacts, keyed by selector / topic.
#[derive(Debug, Default)]
pub(crate) struct Abi {
    pub(crate) name: String,
    pub(crate) functions: BTreeMap<[u8; 4], Function>,
    pub(crate) events: BTreeMap<B256, Event>,
    pub(crate) errors: BTreeMap<[u8; 4], String>,
}

pub(crate) fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

pub(crate) fn selector(signature: &str) -> [u8; 4] {
    keccak256(signature)[..4].try_into().unwrap()
}

fn canonical_type(param: &Value) -> String {
    let ty = param["type"].as_str().expect("a parameter type");
    match ty.strip_prefix("tuple") {
        Some(suffix) => {
            let components: Vec<_> = param["components"]
                .as_array()
                .expect("tuple components")
                .iter()
                .map(canonical_type)
                .collect();
            format!("({}){suffix}", components.join(","))
        }
        None => ty.to_owned(),
    }
}

fn tuple<'a>(params: impl Iterator<Item = &'a Value>) -> String {
    let types: Vec<_> = params.map(canonical_type).collect();
    format!("({})", types.join(","))
}

fn params(entry: &Value, key: &str) -> Vec<Value> {
    entry[key].as_array().cloned().unwrap_or_default()
}

/// Reads one artifact (a JSON object with an `abi` array, or the bare array), relative to
/// `node_modules`.
/// Panics with a pointer to `make setup` when it is missing: nothing is skipped.
pub(crate) fn load(relative: &str) -> Abi {
    let path = workspace_root().join("node_modules").join(relative);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| {
        panic!(
            "cannot read the reference ABI {}: {e}. The ABI tests need node_modules: run \
             `make setup` in the workspace root",
            path.display()
        )
    });
    let json: Value = serde_json::from_str(&text)
        .unwrap_or_else(|e| panic!("{} is not JSON: {e}", path.display()));
    let entries = json
        .as_array()
        .or_else(|| json["abi"].as_array())
        .unwrap_or_else(|| panic!("{} has no `abi` array", path.display()));
    let mut abi = Abi {
        name: relative.to_owned(),
        ..Abi::default()
    };
    for entry in entries {
        let name = entry["name"].as_str().unwrap_or_default();
        let inputs = params(entry, "inputs");
        let signature = format!("{name}{}", tuple(inputs.iter()));
        match entry["type"].as_str() {
            Some("function") => {
                let function = Function {
                    outputs: tuple(params(entry, "outputs").iter()),
                    mutability: entry["stateMutability"]
                        .as_str()
                        .unwrap_or_default()
                        .to_owned(),
                    signature: signature.clone(),
                };
                abi.functions.insert(selector(&signature), function);
            }
            Some("event") => {
                let indexed = |p: &&Value| p["indexed"].as_bool().unwrap_or(false);
                let event = Event {
                    indexed: tuple(inputs.iter().filter(indexed)),
                    data: tuple(inputs.iter().filter(|p| !indexed(p))),
                    signature: signature.clone(),
                };
                abi.events.insert(keccak256(&signature), event);
            }
            Some("error") => {
                abi.errors.insert(selector(&signature), signature);
            }
            _ => {}
        }
    }
    abi
}

/// The union of several artifacts (a binding may gather functions from more than one).
pub(crate) fn union(relatives: &[&str]) -> Abi {
    let mut all = Abi {
        name: relatives.join(" + "),
        ..Abi::default()
    };
    for relative in relatives {
        let abi = load(relative);
        all.functions.extend(abi.functions);
        all.events.extend(abi.events);
        all.errors.extend(abi.errors);
    }
    all
}
