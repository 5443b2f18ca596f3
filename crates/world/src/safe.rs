//! The world's optional Safe: a Safe 1.4.1 proxy (the real singleton, proxy factory and
//! fallback handler, embedded from `@safe-global/safe-contracts`) guarded by a `PaceModule`
//! that trusts the world's verifier, holding the same assets as the world's account, for
//! `pace demo --safe` and the tests that run the pipeline through a Safe.
//!
//! It is not part of [`World::new`]: a caller adds it with [`World::add_safe`], after every
//! other step, so nothing the default world holds changes. Its deployer is an address of its
//! own, so its addresses are fixed. The Safe has one owner ([`World::safe_owner`]); the set-up
//! enables the module by a call from the Safe to itself, which only the in-process world can
//! make (on a real chain the owner signs `enableModule`, as `pace deploy --safe` prints).

use crate::builder::Step as _;
use crate::{Addresses, Builder, Error, World};
use alloy_primitives::{Address, Bytes, U256};
use alloy_sol_types::{SolCall, SolConstructor};
use pace_abi::bindings::{ISafe, ISafeProxyFactory, PaceModule};
use pace_contracts::bindings::MockERC20;
use pace_types::units::ether;

/// The world's Safe and what guards it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SafeAddresses {
    /// The Safe proxy: the account whose funds PDRs move.
    pub safe: Address,
    /// Its `PaceModule`, where PDRs go.
    pub module: Address,
    /// Its one owner.
    pub owner: Address,
}

impl World {
    /// The Safe's one owner (an externally owned address of its own).
    pub fn safe_owner() -> Address {
        Addresses::actor("safe-owner")
    }

    /// Deploys the Safe contracts, a 1-of-1 Safe of [`Self::safe_owner`] and its `PaceModule`
    /// with the world's verifier, enables the module, and funds the Safe like the world's
    /// account (110 WETH, 100,000 DAI, 50,000 USDC, 10 ETH). Call it once.
    pub fn add_safe(&mut self) -> Result<SafeAddresses, Error> {
        let deployer = Addresses::actor("safe-deployer");
        self.evm
            .fund(deployer, ether(1_000))
            .map_err(pace_evm::Error::Fork)
            .step("fund the Safe deployer")?;
        let owner = Self::safe_owner();
        let a = self.addrs;
        let deadline = self.deadline();
        let mut b = Builder::new(&mut self.evm, deployer, deadline)?;
        let code = |name: &str| -> Result<Bytes, Error> {
            Ok(pace_contracts::safe_v141(name)?.deploy_code(&[]))
        };
        let singleton = b.deploy(deployer, code("Safe")?, "deploy the Safe singleton")?;
        let factory = b.deploy(
            deployer,
            code("SafeProxyFactory")?,
            "deploy SafeProxyFactory",
        )?;
        let handler = b.deploy(
            deployer,
            code("CompatibilityFallbackHandler")?,
            "deploy CompatibilityFallbackHandler",
        )?;
        let initializer = ISafe::setupCall {
            owners: vec![owner],
            threshold: U256::from(1u8),
            to: Address::ZERO,
            data: Bytes::new(),
            fallbackHandler: handler,
            paymentToken: Address::ZERO,
            payment: U256::ZERO,
            paymentReceiver: Address::ZERO,
        };
        let create = ISafeProxyFactory::createProxyWithNonceCall {
            singleton,
            initializer: initializer.abi_encode().into(),
            saltNonce: U256::ZERO,
        };
        let safe = b.call(deployer, factory, U256::ZERO, &create, "create the Safe")?;
        let ctor = PaceModule::constructorCall {
            safe_: safe,
            verifier_: a.verifier,
        };
        let module = b.project("PaceModule", &ctor.abi_encode(), "deploy the PaceModule")?;
        b.call(
            safe,
            safe,
            U256::ZERO,
            &ISafe::enableModuleCall { module },
            "enable the module",
        )?;
        b.transfer(a.trader, a.weth, safe, ether(110), "fund the Safe's WETH")?;
        b.mint(a.trader, a.dai, safe, ether(100_000), "fund the Safe's DAI")?;
        let usdc = MockERC20::mintCall {
            to: safe,
            amount: U256::from(50_000_000_000u64),
        };
        b.call(a.trader, a.usdc, U256::ZERO, &usdc, "fund the Safe's USDC")?;
        b.evm()
            .fund(safe, ether(10))
            .map_err(pace_evm::Error::Fork)
            .step("fund the Safe's ETH")?;
        Ok(SafeAddresses {
            safe,
            module,
            owner,
        })
    }
}
