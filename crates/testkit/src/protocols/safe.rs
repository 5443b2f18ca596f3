//! Safe 1.4.1 on any [`Chain`], from its npm build artifacts ([`npm::safe`]): the singletons,
//! the proxy factory and the fallback handler; Safe proxies created through the factory;
//! transactions signed by the owners' keys exactly as a Safe owner signs them (the Safe's own
//! `getTransactionHash`, signatures sorted by owner address); and a `PaceModule` (embedded
//! `contracts/PaceModule.sol`) enabled on a Safe by such a transaction.

use super::{
    chain::{Chain, Context, Result},
    npm,
};
use alloy::signers::SignerSync;
/// The owners' keys (a local secp256k1 key).
pub use alloy::signers::local::PrivateKeySigner;
use alloy_primitives::{Address, Bytes, U256};
use alloy_sol_types::{SolCall, SolConstructor};
/// The Safe bindings the test bed uses (`pace_abi::bindings`).
pub use pace_abi::bindings::{ISafe, ISafeProxyFactory, PaceModule};

/// The Safe 1.4.1 contracts one deployment uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SafeContracts {
    /// The `Safe` singleton.
    pub singleton: Address,
    /// The `SafeL2` singleton.
    pub singleton_l2: Address,
    /// `SafeProxyFactory`.
    pub factory: Address,
    /// `CompatibilityFallbackHandler`, every Safe's fallback handler here.
    pub fallback_handler: Address,
}

impl SafeContracts {
    /// Deploys the four from `deployer`.
    pub fn deploy(chain: &mut impl Chain, deployer: Address) -> Result<Self> {
        let code = |a: Result<npm::NpmArtifact>| -> Result<Bytes> { a?.deploy_code(&[]) };
        Ok(Self {
            singleton: chain
                .deploy(deployer, code(npm::safe::singleton(false))?)
                .step("deploy the Safe singleton")?,
            singleton_l2: chain
                .deploy(deployer, code(npm::safe::singleton(true))?)
                .step("deploy the SafeL2 singleton")?,
            factory: chain
                .deploy(deployer, code(npm::safe::proxy_factory())?)
                .step("deploy SafeProxyFactory")?,
            fallback_handler: chain
                .deploy(deployer, code(npm::safe::fallback_handler())?)
                .step("deploy CompatibilityFallbackHandler")?,
        })
    }

    /// Creates a Safe proxy (on `SafeL2` when `l2`) owned by `owners`, `threshold` of them
    /// needed, with salt nonce `salt`, sent by `from`; returns its address.
    pub fn create_safe(
        &self,
        chain: &mut impl Chain,
        from: Address,
        l2: bool,
        owners: &[Address],
        threshold: u64,
        salt: u64,
    ) -> Result<Address> {
        let initializer = ISafe::setupCall {
            owners: owners.to_vec(),
            threshold: U256::from(threshold),
            to: Address::ZERO,
            data: Bytes::new(),
            fallbackHandler: self.fallback_handler,
            paymentToken: Address::ZERO,
            payment: U256::ZERO,
            paymentReceiver: Address::ZERO,
        };
        let create = ISafeProxyFactory::createProxyWithNonceCall {
            singleton: if l2 {
                self.singleton_l2
            } else {
                self.singleton
            },
            initializer: initializer.abi_encode().into(),
            saltNonce: U256::from(salt),
        };
        // The proxy's address is CREATE2 of the initializer and salt: read it, then create it.
        let proxy = chain
            .view_sol(self.factory, &create)
            .step("the proxy's address")?;
        chain
            .send_sol(from, self.factory, &create)
            .step("create the Safe proxy")?;
        Ok(proxy)
    }
}

/// The owners' signatures of `hash` as a Safe takes them: 65 bytes `r || s || v` each, sorted
/// by owner address.
pub fn owner_signatures(hash: alloy_primitives::B256, owners: &[&PrivateKeySigner]) -> Bytes {
    let mut sorted: Vec<&&PrivateKeySigner> = owners.iter().collect();
    sorted.sort_by_key(|k| k.address());
    let mut out = Vec::with_capacity(65 * sorted.len());
    for key in sorted {
        let sig = key.sign_hash_sync(&hash).expect("a local key signs");
        out.extend_from_slice(&sig.as_bytes());
    }
    out.into()
}

/// Runs (`to`, `value`, `data`, a `CALL`) as `safe`'s own transaction at its current nonce,
/// signed by `owners` (at least its threshold), no refund, sent by `from`. The Safe reverts
/// when the inner call fails (no `safeTxGas`, no gas price).
pub fn exec(
    chain: &mut impl Chain,
    safe: Address,
    from: Address,
    to: Address,
    data: Bytes,
    owners: &[&PrivateKeySigner],
) -> Result<()> {
    let nonce = chain.view_sol(safe, &ISafe::nonceCall {})?;
    let hash = chain.view_sol(
        safe,
        &ISafe::getTransactionHashCall {
            to,
            value: U256::ZERO,
            data: data.clone(),
            operation: 0,
            safeTxGas: U256::ZERO,
            baseGas: U256::ZERO,
            gasPrice: U256::ZERO,
            gasToken: Address::ZERO,
            refundReceiver: Address::ZERO,
            nonce,
        },
    )?;
    let call = ISafe::execTransactionCall {
        to,
        value: U256::ZERO,
        data,
        operation: 0,
        safeTxGas: U256::ZERO,
        baseGas: U256::ZERO,
        gasPrice: U256::ZERO,
        gasToken: Address::ZERO,
        refundReceiver: Address::ZERO,
        signatures: owner_signatures(hash, owners),
    };
    chain
        .send_sol(from, safe, &call)
        .step("the Safe's owner-signed transaction")
}

/// Deploys a `PaceModule` for `safe` with `verifier` from `deployer`, and enables it by a
/// transaction `owners` sign.
pub fn deploy_module(
    chain: &mut impl Chain,
    deployer: Address,
    safe: Address,
    verifier: Address,
    owners: &[&PrivateKeySigner],
) -> Result<Address> {
    let artifact = pace_contracts::artifacts()?.get("PaceModule")?;
    let ctor = PaceModule::constructorCall {
        safe_: safe,
        verifier_: verifier,
    };
    let module = chain
        .deploy(deployer, artifact.deploy_code(&ctor.abi_encode()))
        .step("deploy PaceModule")?;
    let enable = ISafe::enableModuleCall { module }.abi_encode().into();
    exec(chain, safe, deployer, safe, enable, owners).step("enable the module")?;
    if !chain.view_sol(safe, &ISafe::isModuleEnabledCall { module })? {
        return Err(super::Error::msg(
            "the module is not enabled after enableModule",
        ));
    }
    Ok(module)
}
