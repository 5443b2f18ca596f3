//! Prebuilt artifacts shipped by npm packages, embedded at build time (not recompiled here):
//! Uniswap V2 from `@uniswap/v2-core` and `@uniswap/v2-periphery` (compiled by Uniswap with solc
//! 0.5.16 / 0.6.6), and the ERC-4337 EntryPoint v0.8 from `@account-abstraction/contracts`.

use crate::{
    artifact::ContractArtifact,
    embedded,
    error::{Error, Result},
    settings::PREBUILT_FILES,
};
use alloy_primitives::B256;

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
/// `WETH9` or `DeflatingERC20` (a fee-on-transfer token). Its `source` is the npm file it was
/// read from at build time.
///
/// Constructors: Factory `(address feeToSetter)`, Router02 `(address factory, address WETH)`,
/// DeflatingERC20 `(uint256 totalSupply)`, WETH9 none (the Pair is created by the factory).
pub fn uniswap_v2(name: &str) -> Result<ContractArtifact> {
    if !UNISWAP_V2_NAMES.contains(&name) {
        return Err(Error::UnknownPrebuiltArtifact {
            name: name.to_owned(),
            known: UNISWAP_V2_NAMES,
        });
    }
    prebuilt(name)
}

/// The ERC-4337 EntryPoint v0.8 of `@account-abstraction/contracts` (MIT), prebuilt: its
/// constructor takes nothing and creates its `SenderCreator`. Its canonical address is
/// `pace_types::user_op::ENTRY_POINT_V08`.
pub fn entry_point_v08() -> Result<ContractArtifact> {
    prebuilt("EntryPoint")
}

/// The names of the embedded Safe 1.4.1 artifacts ([`safe_v141`]).
pub const SAFE_V141_NAMES: &[&str] = &["Safe", "SafeProxyFactory", "CompatibilityFallbackHandler"];

/// A Safe 1.4.1 contract of `@safe-global/safe-contracts` (LGPL-3.0; docs/third-party.md),
/// prebuilt: the `Safe` singleton, `SafeProxyFactory` or `CompatibilityFallbackHandler`, none
/// with constructor arguments. The embedded world's optional Safe (`pace_world::safe`) is
/// deployed from them.
pub fn safe_v141(name: &str) -> Result<ContractArtifact> {
    if !SAFE_V141_NAMES.contains(&name) {
        return Err(Error::UnknownPrebuiltArtifact {
            name: name.to_owned(),
            known: SAFE_V141_NAMES,
        });
    }
    prebuilt(name)
}

/// The embedded prebuilt artifact `name` of [`PREBUILT_FILES`].
fn prebuilt(name: &str) -> Result<ContractArtifact> {
    let (_, file) = PREBUILT_FILES
        .iter()
        .find(|(n, _)| *n == name)
        .expect("every prebuilt name is listed");
    embedded::uniswap()?
        .iter()
        .find(|a| a.source == *file)
        .cloned()
        .ok_or_else(|| Error::BadArtifact {
            path: (*file).into(),
            message: "not among the embedded artifacts".into(),
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_list_the_embedded_files() {
        let names: Vec<&str> = PREBUILT_FILES.iter().map(|(name, _)| *name).collect();
        assert_eq!(names[..UNISWAP_V2_NAMES.len()], *UNISWAP_V2_NAMES);
        for (name, file) in PREBUILT_FILES {
            assert_eq!(prebuilt(name).unwrap().source, *file);
        }
        assert!(uniswap_v2("EntryPoint").is_err());
        assert!(safe_v141("EntryPoint").is_err());
        for name in SAFE_V141_NAMES {
            assert!(safe_v141(name).unwrap().is_deployable(), "{name}");
        }
        assert!(entry_point_v08().unwrap().is_deployable());
    }
}
