//! Deploying the bed: deterministic, every contract has code, and how long it takes.

use crate::common::{VERIFIER, bed};
use alloy_primitives::{Address, Bytes, U256};
use pace_testkit::protocols::{Chain, Protocols, Result};
use pace_world::World;
use std::time::Instant;

/// A chain that counts what is sent through it.
struct Counting<'a, C> {
    inner: &'a mut C,
    deploys: usize,
    sends: usize,
}

impl<C: Chain> Chain for Counting<'_, C> {
    fn deploy(&mut self, from: Address, init_code: Bytes) -> Result<Address> {
        self.deploys += 1;
        self.inner.deploy(from, init_code)
    }
    fn send(&mut self, from: Address, to: Address, value: U256, data: Bytes) -> Result<()> {
        self.sends += 1;
        self.inner.send(from, to, value, data)
    }
    fn view(&self, to: Address, data: Bytes) -> Result<Bytes> {
        self.inner.view(to, data)
    }
    fn fund(&mut self, who: Address, wei: U256) -> Result<()> {
        self.inner.fund(who, wei)
    }
    fn advance(&mut self, blocks: u64) -> Result<()> {
        self.inner.advance(blocks)
    }
    fn timestamp(&self) -> Result<u64> {
        self.inner.timestamp()
    }
}

fn addresses(bed: &Protocols) -> Vec<Address> {
    let (v3, ur, aave, c, f) = (
        &bed.uniswap_v3,
        &bed.universal_router,
        &bed.aave,
        &bed.compound,
        &bed.feeds,
    );
    let mut all = vec![
        f.eth_usd,
        f.dai_usd,
        f.usdc_usd,
        v3.factory,
        v3.swap_router,
        v3.position_manager,
        v3.quoter,
        ur.router,
        ur.permit2,
        aave.addresses_provider,
        aave.acl_manager,
        aave.pool,
        aave.pool_configurator,
        aave.oracle,
        aave.data_provider,
        aave.pool_implementation,
        aave.configurator_implementation,
        c.comptroller,
    ];
    all.extend(v3.pools().map(|p| p.address));
    all.extend(
        aave.reserves()
            .iter()
            .flat_map(|r| [r.a_token, r.variable_debt_token, r.stable_debt_token]),
    );
    all.extend(aave.libraries.values().copied());
    all.extend(c.markets().map(|m| m.c_token));
    all
}

/// A fresh deployment on a fresh world lands at the cached bed's addresses, every contract has
/// code, and the deployment's size and time are reported.
#[test]
fn the_bed_deploys_in_process() {
    let mut world = World::new(VERIFIER).unwrap();
    let started = Instant::now();
    let mut chain = Counting {
        inner: &mut world.evm,
        deploys: 0,
        sends: 0,
    };
    let bed = Protocols::deploy(&mut chain, &world.addrs).unwrap_or_else(|e| panic!("{e}"));
    let (deploys, sends) = (chain.deploys, chain.sends);
    eprintln!(
        "in-process deploy: {:?}, {deploys} contracts deployed and {sends} transactions sent",
        started.elapsed()
    );
    assert_eq!(bed, self::bed().1, "deterministic");
    let all = addresses(&bed);
    assert_eq!(all.len(), 41);
    for address in all {
        assert!(
            !world.evm.code(address).unwrap().is_empty(),
            "{address} has no code"
        );
    }
}
