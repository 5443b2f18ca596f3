//! A test bed of the DeFi protocols agents really call (feature `protocols`): Uniswap V3
//! (factory, pools with liquidity and a TWAP history, SwapRouter, NonfungiblePositionManager,
//! QuoterV2), the Universal Router 2.1 over a Permit2-compatible contract, a full Aave V3 market,
//! a Compound-style market and Chainlink-style feeds, deployed on top of the embedded world
//! ([`pace_world::World`]: its WETH, DAI, USDC, trader and account).
//!
//! Uniswap V3, the Universal Router and Aave V3 are the protocols' own npm bytecode, read at run
//! time from the pinned packages in `node_modules/` ([`npm`]): never embedded in a binary
//! (Uniswap V3 core and Aave V3 are BUSL-1.1; docs/third-party.md). Permit2, the feeds and the
//! Compound-style market ship no bytecode in any registry package; they are the project's own
//! contracts in `contracts/mocks/protocols/`, written from the public interfaces, and are NOT
//! mainnet's bytecode.
//!
//! One deployment runs on any [`Chain`]: the in-process EVM ([`pace_evm::InProcessEvm`]) or,
//! with the `node` feature, an anvil node ([`node::NodeChain`]), where the same transactions
//! from the same senders give the same addresses. Each protocol has a struct of its addresses
//! and encoders of its everyday actions as [`pace_types::Call`]s, ready for an intent or for
//! [`actions::owner_execute`] (the account's owner path).
//!
//! ```no_run
//! use pace_testkit::protocols::{self, actions};
//!
//! let (mut world, bed) = protocols::world_with_protocols(alloy_primitives::Address::ZERO)?;
//! let a = world.addrs;
//! let deadline = protocols::uniswap_v3::deadline(&world.evm)?;
//! let swap = bed.uniswap_v3.exact_input_single(
//!     &bed.uniswap_v3.weth_dai, a.weth, protocols::ether(1), Default::default(), a.account, deadline,
//! );
//! actions::owner_execute(&mut world.evm, &a, &swap)?;
//! # Ok::<(), protocols::Error>(())
//! ```

pub mod aave;
pub mod actions;
pub mod balancer;
pub mod bindings;
mod chain;
pub mod compound;
pub mod feeds;
#[cfg(feature = "node")]
pub mod node;
pub mod npm;
pub mod safe;
pub mod uniswap_v3;
pub mod uniswap_v4;
pub mod universal_router;

pub use aave::AaveV3;
pub use chain::{Chain, Context, Error, Result, SECONDS_PER_BLOCK, describe_revert};
pub use compound::Compound;
pub use feeds::Feeds;
pub use pace_types::units::ether;
pub use uniswap_v3::UniswapV3;
pub use universal_router::UniversalRouter;

use alloy_primitives::{Address, U256, keccak256};
use pace_contracts::ContractArtifact;
use pace_world::{Addresses, World};
use std::{
    collections::HashMap,
    sync::{Mutex, OnceLock},
};

/// Ether the bed's deployer is given for gas on a node.
const DEPLOYER_ETHER: u64 = 1_000;

/// A fixed address for one of the bed's actors, from a label.
pub fn actor(label: &str) -> Address {
    Address::from_word(keccak256(format!("pace-testkit/protocols/{label}")))
}

/// Deploys every contract of the bed and owns its administration: the feeds' owner, Aave's
/// pool admin, the comptroller's admin. Its own nonces fix the bed's addresses, whatever the
/// world's deployer did.
pub fn deployer() -> Address {
    actor("deployer")
}

/// Everything the bed deploys.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Protocols {
    /// Deploys and administers (see [`deployer`]).
    pub deployer: Address,
    /// ETH, DAI and USDC in USD.
    pub feeds: Feeds,
    /// Uniswap V3 with its pools.
    pub uniswap_v3: UniswapV3,
    /// The Universal Router and its Permit2.
    pub universal_router: UniversalRouter,
    /// Aave V3.
    pub aave: AaveV3,
    /// The Compound-style market.
    pub compound: Compound,
    /// SwapRouter02 over the world's V2 factory and the bed's V3 (deployed last, so the
    /// addresses before it are the bed's without it).
    pub swap_router02: Address,
}

impl Protocols {
    /// Deploys the bed on `chain`, which holds the world `world` describes (its tokens, trader
    /// and Uniswap V2 factory): feeds, Uniswap V3 (moving the chain 2,400 s forward while the
    /// pools' observations are written), the Universal Router with Permit2, Aave V3, the
    /// Compound-style market and SwapRouter02, in that order.
    pub fn deploy<C: Chain>(chain: &mut C, world: &Addresses) -> Result<Self> {
        let deployer = deployer();
        chain.fund(deployer, ether(DEPLOYER_ETHER))?;
        let feeds = Feeds::deploy(chain, deployer).step("feeds")?;
        let uniswap_v3 = UniswapV3::deploy(chain, world, deployer).step("Uniswap V3")?;
        let universal_router = UniversalRouter::deploy(chain, world, &uniswap_v3, deployer)
            .step("Universal Router")?;
        let aave = AaveV3::deploy(chain, world, &feeds, deployer).step("Aave V3")?;
        let compound = Compound::deploy(chain, world, &feeds, deployer).step("Compound")?;
        let swap_router02 = uniswap_v3::deploy_swap_router02(chain, world, &uniswap_v3, deployer)
            .step("SwapRouter02")?;
        Ok(Self {
            deployer,
            feeds,
            uniswap_v3,
            universal_router,
            aave,
            compound,
            swap_router02,
        })
    }
}

/// The embedded world (verifier key address `verifier`) with the bed deployed on its
/// in-process EVM. Built once per process and verifier, then cloned.
pub fn world_with_protocols(verifier: Address) -> Result<(World, Protocols)> {
    static CACHE: OnceLock<Mutex<HashMap<Address, (World, Protocols)>>> = OnceLock::new();
    let cache = CACHE.get_or_init(Default::default);
    if let Some(hit) = cache
        .lock()
        .map_err(|_| Error::msg("cache poisoned"))?
        .get(&verifier)
    {
        return Ok(hit.clone());
    }
    let mut world = World::new(verifier).map_err(|e| Error::msg(e.to_string()))?;
    let bed = Protocols::deploy(&mut world.evm, &world.addrs)?;
    cache
        .lock()
        .map_err(|_| Error::msg("cache poisoned"))?
        .insert(verifier, (world.clone(), bed.clone()));
    Ok((world, bed))
}

/// An embedded artifact of `contracts/` (the project's own contracts).
pub(crate) fn embedded(name: &str) -> Result<&'static ContractArtifact> {
    Ok(pace_contracts::artifacts()?.get(name)?)
}

/// `amount` whole units of a token with `decimals`.
pub fn units(amount: u64, decimals: u8) -> U256 {
    U256::from(amount) * U256::from(10).pow(U256::from(decimals))
}
