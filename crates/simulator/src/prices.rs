//! Exchange rates read from the state before the calls ran, for value conservation.
//!
//! The simulator reads every rate it can find for the assets that moved: the reserves of
//! every constant-product pool among the touched contracts, the assets and the named sources
//! (Uniswap V2 `token0` / `token1` / `getReserves`, and `totalSupply` for the pool's own
//! LP token), ERC-4626 `convertToAssets` of every vault among them, and the answers of the
//! feeds the options name. It does not judge them: the verifier trusts only the sources the
//! policy names, so a pool an attacker seeded prices nothing.

use alloy_primitives::{Address, U256};
use alloy_sol_types::SolCall;
use core::convert::Infallible;
use pace_abi::bindings::{IERC20, IERC4626, IPriceOracle, IUniswapV2Pair};
use pace_evm::revm::DatabaseRef;
use pace_types::{
    BalanceChange, ETH, NftFlow, PositionChange, PriceFact, PriceSource, TokenAmount, TokenFlow,
};

use crate::{fork::Viewer, simulate::SimulateOptions};

/// How many shares a vault's rate is read for: enough precision for any share decimals.
const VAULT_PROBE_SHARES: U256 = U256::from_limbs([1_000_000_000_000_000_000, 0, 0, 0]);

/// What [`price_facts`] looks at.
pub(crate) struct PriceInputs<'a> {
    pub(crate) flows: &'a [TokenFlow],
    pub(crate) nft_flows: &'a [NftFlow],
    pub(crate) changes: &'a [BalanceChange],
    pub(crate) positions: &'a [PositionChange],
    pub(crate) touched: &'a [Address],
    pub(crate) options: &'a SimulateOptions,
}

/// Every rate readable before execution from the pools, vaults and feeds around the assets
/// that moved; see the module docs. Deterministic: sources in a fixed order.
pub(crate) fn price_facts<D: DatabaseRef<Error = Infallible>>(
    input: &PriceInputs<'_>,
    before: &mut Viewer<'_, '_, D>,
) -> Vec<PriceFact> {
    let mut sources: Vec<Address> = Vec::new();
    let add = |list: &mut Vec<Address>, a: Address| {
        if a != ETH && !list.contains(&a) {
            list.push(a);
        }
    };
    // The assets that moved first, then what else may price them.
    let assets = input
        .flows
        .iter()
        .map(|f| f.token)
        .chain(input.nft_flows.iter().map(|f| f.token))
        .chain(input.changes.iter().map(|c| c.token))
        .chain(input.positions.iter().map(|p| p.token));
    for a in assets
        .chain(input.touched.iter().copied())
        .chain(input.options.price_sources.iter().copied())
    {
        add(&mut sources, a);
    }

    let mut facts = Vec::new();
    for feed in &input.options.price_oracles {
        if let Some(answer) = oracle_answer(before, feed.oracle) {
            facts.push(PriceFact {
                token: feed.token,
                source: PriceSource::Oracle,
                via: feed.oracle,
                amount: feed.scale,
                worth: vec![TokenAmount {
                    token: feed.quote,
                    amount: answer,
                }],
            });
        }
    }
    for &source in &sources {
        if let Some((t0, r0, t1, r1)) = pool_reserves(before, source) {
            for (token, amount, quote, worth) in [(t0, r0, t1, r1), (t1, r1, t0, r0)] {
                facts.push(PriceFact {
                    token,
                    source: PriceSource::Pool,
                    via: source,
                    amount,
                    worth: vec![TokenAmount {
                        token: quote,
                        amount: worth,
                    }],
                });
            }
            let supply = before
                .word(source, IERC20::totalSupplyCall {}.abi_encode())
                .filter(|s| !s.is_zero());
            if let Some(supply) = supply {
                facts.push(PriceFact {
                    token: source,
                    source: PriceSource::PoolShare,
                    via: source,
                    amount: supply,
                    worth: vec![
                        TokenAmount {
                            token: t0,
                            amount: r0,
                        },
                        TokenAmount {
                            token: t1,
                            amount: r1,
                        },
                    ],
                });
            }
        } else if let Some((asset, assets_out)) = vault_rate(before, source) {
            facts.push(PriceFact {
                token: source,
                source: PriceSource::Vault,
                via: source,
                amount: VAULT_PROBE_SHARES,
                worth: vec![TokenAmount {
                    token: asset,
                    amount: assets_out,
                }],
            });
        }
    }
    facts
}

/// An address returned in one word (its high 12 bytes zero).
fn address_word<D: DatabaseRef<Error = Infallible>>(
    viewer: &mut Viewer<'_, '_, D>,
    to: Address,
    data: Vec<u8>,
) -> Option<Address> {
    let word = viewer.words(to, data, 1)?[0];
    (word >> 160usize)
        .is_zero()
        .then(|| Address::from_word(word.into()))
}

/// `(token0, reserve0, token1, reserve1)` of a constant-product pool with both reserves.
fn pool_reserves<D: DatabaseRef<Error = Infallible>>(
    viewer: &mut Viewer<'_, '_, D>,
    pool: Address,
) -> Option<(Address, U256, Address, U256)> {
    let reserves = viewer.words(pool, IUniswapV2Pair::getReservesCall {}.abi_encode(), 3)?;
    let (r0, r1) = (reserves[0], reserves[1]);
    if r0.is_zero() || r1.is_zero() || r0.bit_len() > 112 || r1.bit_len() > 112 {
        return None;
    }
    let t0 = address_word(viewer, pool, IUniswapV2Pair::token0Call {}.abi_encode())?;
    let t1 = address_word(viewer, pool, IUniswapV2Pair::token1Call {}.abi_encode())?;
    (t0 != t1 && t0 != pool && t1 != pool).then_some((t0, r0, t1, r1))
}

/// `(asset, convertToAssets(VAULT_PROBE_SHARES))` of an ERC-4626 vault.
fn vault_rate<D: DatabaseRef<Error = Infallible>>(
    viewer: &mut Viewer<'_, '_, D>,
    vault: Address,
) -> Option<(Address, U256)> {
    let asset = address_word(viewer, vault, IERC4626::assetCall {}.abi_encode())?;
    if asset == vault || asset == Address::ZERO {
        return None;
    }
    let data = IERC4626::convertToAssetsCall {
        shares: VAULT_PROBE_SHARES,
    }
    .abi_encode();
    let out = viewer.words(vault, data, 1)?[0];
    Some((asset, out))
}

/// A feed's positive answer: `latestRoundData`, else `latestAnswer`, else `price`.
fn oracle_answer<D: DatabaseRef<Error = Infallible>>(
    viewer: &mut Viewer<'_, '_, D>,
    oracle: Address,
) -> Option<U256> {
    let positive = |w: U256| (!w.is_zero() && !w.bit(255)).then_some(w);
    if let Some(words) = viewer.words(oracle, IPriceOracle::latestRoundDataCall {}.abi_encode(), 5)
    {
        return positive(words[1]);
    }
    if let Some(words) = viewer.words(oracle, IPriceOracle::latestAnswerCall {}.abi_encode(), 1) {
        return positive(words[0]);
    }
    positive(viewer.words(oracle, IPriceOracle::priceCall {}.abi_encode(), 1)?[0])
}
