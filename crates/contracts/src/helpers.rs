//! Stateless helper contracts the account's post-conditions read, each at one address on every
//! chain: CREATE2 through the deterministic deployer ([`CREATE2_DEPLOYER`]) with salt 0, so the
//! address follows from the compiled code alone.

use crate::{Result, artifacts};
use alloy_primitives::{Address, B256, Bytes, address};
use std::sync::OnceLock;

/// The deterministic deployment proxy (Arachnid's), at this address on most chains and on
/// anvil from genesis.
pub const CREATE2_DEPLOYER: Address = address!("0x4e59b44847b379578588920cA78FbF26c0B4956C");

/// A helper contract as deployed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Helper {
    /// Where it lives on every chain.
    pub address: Address,
    /// Its creation code: what [`CREATE2_DEPLOYER`] is sent, after the 32-byte salt 0.
    pub init_code: Bytes,
    /// Its runtime code.
    pub runtime: Bytes,
}

/// `PaceShareValue` (`contracts/helpers/PaceShareValue.sol`): what shares of a two-reserve pool
/// are worth as the geometric mean of its reserves per share.
pub fn share_value() -> Result<&'static Helper> {
    static CELL: OnceLock<Helper> = OnceLock::new();
    if let Some(h) = CELL.get() {
        return Ok(h);
    }
    let artifact = artifacts()?.get("PaceShareValue")?;
    let helper = Helper {
        address: CREATE2_DEPLOYER.create2_from_code(B256::ZERO, &artifact.bytecode),
        init_code: artifact.bytecode.clone(),
        runtime: artifact.deployed_bytecode.clone(),
    };
    Ok(CELL.get_or_init(|| helper))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_share_value_helper_lives_where_create2_puts_its_code() {
        let h = share_value().unwrap();
        assert_eq!(
            h.address,
            CREATE2_DEPLOYER.create2(B256::ZERO, alloy_primitives::keccak256(&h.init_code))
        );
        assert!(!h.runtime.is_empty() && h.init_code.len() > h.runtime.len());
        assert_eq!(share_value().unwrap(), h, "one value per process");
        assert_eq!(
            h.address,
            pace_types::pdr::SHARE_VALUE_HELPER,
            "pace_types::pdr::SHARE_VALUE_HELPER is where the compiled code lives"
        );
    }
}
