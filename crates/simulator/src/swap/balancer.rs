//! A Balancer V2 weighted pool's hop: the pool a Vault `Swap` log names, its balances from the
//! Vault before and after the call, and its weights.
//!
//! A weighted pool's spot price of `out` in `in` (no fee) is `(B_out / w_out) / (B_in / w_in)`,
//! so the hop's `(reserveIn, reserveOut)` are `(B_in * w_out, B_out * w_in)`: the quote and the
//! impact over hops then apply unchanged. The balances are the Vault's raw ones
//! (`getPoolTokens`); the tokens' scaling factors cancel out of the ratio. A pool without
//! `getNormalizedWeights` (stable, linear and other pool types) has no hop here: the swap is
//! unpriced, and the verifier refuses it.

use super::Hop;
use crate::{error::Result, fork::Viewer, health::view};
use alloy_primitives::{Address, B256, Log, U256};
use alloy_sol_types::{SolCall, SolEvent};
use pace_abi::balancer::{IBalancerVault as Vault, IWeightedPoolView};
use pace_evm::{ForkError, revm::DatabaseRef};

/// `holder`'s internal balance of `token` in `vault` (`getInternalBalance`), `None` when the
/// Vault answers no single amount.
pub(super) fn internal_balance<D: DatabaseRef<Error = ForkError>>(
    viewer: &mut Viewer<'_, '_, D>,
    vault: Address,
    holder: Address,
    token: Address,
) -> Result<Option<U256>> {
    let call = Vault::getInternalBalanceCall {
        user: holder,
        tokens: vec![token],
    };
    // The array's offset, its length (one) and the amount.
    Ok(viewer
        .words(vault, call.abi_encode(), 3)?
        .filter(|w| w[0] == U256::from(32u8) && w[1] == U256::from(1u8))
        .map(|w| w[2]))
}

/// The hop from `a` to `b` (`Address::ZERO`: ether, the Vault's WETH in its pools) of a swap
/// through `vault`: the pool of the first `Swap` log the Vault itself emitted for that pair.
pub(super) fn hop<P, Q>(
    vault: Address,
    a: Address,
    b: Address,
    logs: &[Log],
    before: &mut Viewer<'_, '_, P>,
    after: &mut Viewer<'_, '_, Q>,
) -> Result<Option<Hop>>
where
    P: DatabaseRef<Error = ForkError>,
    Q: DatabaseRef<Error = ForkError>,
{
    let mut weth = None;
    let mut token = |t: Address, v: &mut Viewer<'_, '_, P>| -> Result<Option<Address>> {
        if !t.is_zero() {
            return Ok(Some(t));
        }
        if weth.is_none() {
            weth = v
                .word(vault, Vault::WETHCall {}.abi_encode())?
                .map(|w| Address::from_word(w.into()));
        }
        Ok(weth)
    };
    let (Some(a), Some(b)) = (token(a, before)?, token(b, before)?) else {
        return Ok(None);
    };
    let Some(pool_id) = logs.iter().find_map(|log| swap_of(vault, log, a, b)) else {
        return Ok(None);
    };
    let Some(pool) = view(before, vault, &Vault::getPoolCall { poolId: pool_id })?.map(|r| r.pool)
    else {
        return Ok(None);
    };
    let Some(weights) = view(
        before,
        pool,
        &IWeightedPoolView::getNormalizedWeightsCall {},
    )?
    else {
        return Ok(None);
    };
    let tokens = Vault::getPoolTokensCall { poolId: pool_id };
    let (Some(pre), Some(post)) = (view(before, vault, &tokens)?, view(after, vault, &tokens)?)
    else {
        return Ok(None);
    };
    let index = |t: Address| pre.tokens.iter().position(|&x| x == t);
    let (Some(i), Some(o)) = (index(a), index(b)) else {
        return Ok(None);
    };
    if weights.len() != pre.tokens.len() || post.tokens != pre.tokens {
        return Ok(None);
    }
    let (w_in, w_out) = (weights[i], weights[o]);
    let reserves = |balances: &[U256]| -> Option<(U256, U256)> {
        let r_in = balances.get(i)?.checked_mul(w_out)?;
        let r_out = balances.get(o)?.checked_mul(w_in)?;
        Some((r_in, r_out))
    };
    let (Some(before), Some(after)) = (reserves(&pre.balances), reserves(&post.balances)) else {
        return Ok(None);
    };
    if before.0.is_zero() || before.1.is_zero() {
        return Ok(None);
    }
    Ok(Some(Hop {
        pool,
        before,
        after,
    }))
}

/// The pool id of `log` when it is `vault`'s `Swap` of `token_in` for `token_out`.
fn swap_of(vault: Address, log: &Log, token_in: Address, token_out: Address) -> Option<B256> {
    let topics = log.topics();
    if log.address != vault || topics.len() != 4 || topics[0] != Vault::Swap::SIGNATURE_HASH {
        return None;
    }
    let address = |t: &B256| Address::from_word(*t);
    (address(&topics[2]) == token_in && address(&topics[3]) == token_out).then_some(topics[1])
}
