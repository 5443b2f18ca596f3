//! The Balancer V2 bindings match the Vault and weighted pool of `@balancer-labs/v2-deployments`:
//! each call is a function of the artifact with the same canonical signature and return types,
//! and the `Swap` event has the artifact's topic and indexed arguments.

use crate::artifacts::load;
use crate::protocols::check;
use alloy_sol_types::SolEvent;
use pace_abi::balancer::{IBalancerPoolView as P, IBalancerVault as V, IWeightedPoolView};

const TASKS: &str = "@balancer-labs/v2-deployments/dist/tasks";

#[test]
fn the_vault_bindings_match_the_npm_artifact() {
    let vault = load(&format!("{TASKS}/20210418-vault/artifact/Vault.json"));
    check::<V::swapCall>(&vault);
    check::<V::batchSwapCall>(&vault);
    check::<V::getPoolCall>(&vault);
    check::<V::getPoolTokensCall>(&vault);
    check::<V::WETHCall>(&vault);
    check::<V::getInternalBalanceCall>(&vault);
    assert_eq!(V::IBalancerVaultCalls::SELECTORS.len(), 6);
    let event = vault
        .events
        .get(&V::Swap::SIGNATURE_HASH)
        .expect("the Vault's Swap event");
    assert_eq!(event.signature, V::Swap::SIGNATURE);
    assert_eq!(event.indexed, "(bytes32,address,address)");
    assert_eq!(event.data, "(uint256,uint256)");
}

#[test]
fn the_weighted_pool_view_matches_the_npm_abi() {
    let pool = load(&format!(
        "{TASKS}/20210418-weighted-pool/abi/WeightedPool.json"
    ));
    check::<IWeightedPoolView::getNormalizedWeightsCall>(&pool);
    check::<P::getVaultCall>(&pool);
    check::<P::getPoolIdCall>(&pool);
    check::<P::getRateCall>(&pool);
}
