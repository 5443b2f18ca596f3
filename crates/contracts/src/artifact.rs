//! Compiled contracts: ABI, creation and runtime bytecode, looked up by name.

use crate::error::{Error, Result};
use alloy_json_abi::JsonAbi;
use alloy_primitives::Bytes;
use std::collections::BTreeMap;

/// One compiled contract.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ContractArtifact {
    /// The contract name, e.g. `PaceAccount`.
    pub name: String,
    /// Where it came from, relative to the workspace root: the source file for contracts compiled
    /// here (`contracts/PaceAccount.sol`), the JSON file for prebuilt ones.
    pub source: String,
    /// The ABI.
    pub abi: JsonAbi,
    /// Creation (init) code, without constructor arguments. Empty for interfaces and abstract
    /// contracts.
    pub bytecode: Bytes,
    /// Runtime code as the compiler emits it. Immutables are zero placeholders here; the code an
    /// account ends up with after deployment has them filled in.
    pub deployed_bytecode: Bytes,
}

impl ContractArtifact {
    /// `path:Name`, e.g. `contracts/PaceAccount.sol:PaceAccount`.
    pub fn id(&self) -> String {
        format!("{}:{}", self.source, self.name)
    }

    /// Creation code followed by the ABI-encoded constructor arguments (`abi_encode` of the
    /// `sol!` `constructorCall`, or empty), ready to send as a contract-creation transaction.
    pub fn deploy_code(&self, ctor_args: &[u8]) -> Bytes {
        let mut code = Vec::with_capacity(self.bytecode.len() + ctor_args.len());
        code.extend_from_slice(&self.bytecode);
        code.extend_from_slice(ctor_args);
        code.into()
    }

    /// Whether there is creation code (false for interfaces and abstract contracts).
    pub fn is_deployable(&self) -> bool {
        !self.bytecode.is_empty()
    }
}

/// Every contract of the build-time compilation of `contracts/` (and the library sources it imports),
/// keyed by fully qualified id `path:Name`.
#[derive(Clone, Debug)]
pub struct Artifacts {
    by_id: BTreeMap<String, ContractArtifact>,
}

/// Prefix of the sources that belong to this project (as opposed to `node_modules/`).
const PROJECT_PREFIX: &str = "contracts/";

impl Artifacts {
    pub(crate) fn new(artifacts: impl IntoIterator<Item = ContractArtifact>) -> Self {
        let by_id = artifacts.into_iter().map(|a| (a.id(), a)).collect();
        Self { by_id }
    }

    /// Looks a contract up by name (`MockERC20`) or by fully qualified id
    /// (`contracts/mocks/MockERC20.sol:MockERC20`, `node_modules/.../ERC20.sol:ERC20`).
    ///
    /// A bare name resolves to the contract under `contracts/` if there is one, else to the only
    /// contract of that name; several matches outside `contracts/` are an error.
    pub fn get(&self, name: &str) -> Result<&ContractArtifact> {
        if let Some(artifact) = self.by_id.get(name) {
            return Ok(artifact);
        }
        let matches: Vec<&ContractArtifact> =
            self.by_id.values().filter(|a| a.name == name).collect();
        let project: Vec<&ContractArtifact> = matches
            .iter()
            .copied()
            .filter(|a| a.source.starts_with(PROJECT_PREFIX))
            .collect();
        match (project.as_slice(), matches.as_slice()) {
            ([one], _) | ([], [one]) => Ok(one),
            ([], []) => Err(Error::UnknownContract(name.to_owned())),
            (several, _) if !several.is_empty() => Err(Error::AmbiguousContract {
                name: name.to_owned(),
                candidates: several.iter().map(|a| a.id()).collect(),
            }),
            (_, several) => Err(Error::AmbiguousContract {
                name: name.to_owned(),
                candidates: several.iter().map(|a| a.id()).collect(),
            }),
        }
    }

    /// All fully qualified ids, sorted.
    pub fn ids(&self) -> impl Iterator<Item = &str> {
        self.by_id.keys().map(String::as_str)
    }

    /// Every artifact, in id order.
    pub fn iter(&self) -> impl Iterator<Item = &ContractArtifact> {
        self.by_id.values()
    }

    /// The artifacts whose source is under `contracts/` (not `node_modules/`).
    pub fn project_contracts(&self) -> impl Iterator<Item = &ContractArtifact> {
        self.iter().filter(|a| a.source.starts_with(PROJECT_PREFIX))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn artifact(source: &str, name: &str) -> ContractArtifact {
        ContractArtifact {
            name: name.into(),
            source: source.into(),
            abi: JsonAbi::new(),
            bytecode: Bytes::from_static(&[0x60, 0x00]),
            deployed_bytecode: Bytes::new(),
        }
    }

    #[test]
    fn lookup_prefers_project_sources_and_reports_ambiguity() {
        let all = Artifacts::new([
            artifact("contracts/mocks/MockERC20.sol", "MockERC20"),
            artifact("node_modules/a/ERC20.sol", "ERC20"),
            artifact("node_modules/b/ERC20.sol", "ERC20"),
            artifact("node_modules/a/IERC20.sol", "IERC20"),
            artifact("contracts/X.sol", "IERC20"),
        ]);
        assert_eq!(
            all.get("MockERC20").unwrap().source,
            "contracts/mocks/MockERC20.sol"
        );
        assert_eq!(all.get("IERC20").unwrap().source, "contracts/X.sol");
        assert_eq!(
            all.get("node_modules/b/ERC20.sol:ERC20").unwrap().source,
            "node_modules/b/ERC20.sol"
        );
        assert!(matches!(
            all.get("ERC20"),
            Err(Error::AmbiguousContract { .. })
        ));
        assert!(matches!(all.get("Nope"), Err(Error::UnknownContract(_))));
        assert_eq!(all.project_contracts().count(), 2);
    }

    #[test]
    fn deploy_code_appends_args() {
        let a = artifact("contracts/A.sol", "A");
        assert_eq!(a.deploy_code(&[1, 2]).as_ref(), &[0x60, 0x00, 1, 2]);
        assert_eq!(a.id(), "contracts/A.sol:A");
    }
}
