//! Exchange rates read from the state before the calls ran, for value conservation.
//!
//! The simulator reads every rate it can find for the assets that moved: the reserves of
//! every constant-product pool among the touched contracts, the assets and the named sources
//! (Uniswap V2 `token0` / `token1` / `getReserves`, and `totalSupply` for the pool's own
//! LP token), ERC-4626 `convertToAssets` of every vault among them, and the `slot0` price and
//! 30-minute TWAP of every Uniswap V3 pool among them ([`crate::adapters::uniswap_v3`]). The
//! feeds the options name are read by [`crate::adapters`], with their rounds' age. It does not
//! judge them: the verifier trusts only the sources the policy names, so a pool an attacker
//! seeded prices nothing.

use alloy_primitives::{Address, U256};
use alloy_sol_types::SolCall;
use pace_abi::{
    bindings::{IERC20, IERC4626, IPaceShareValue, IUniswapV2Pair},
    protocols::ICTokenView,
};
use pace_evm::{ForkError, revm::DatabaseRef};
use pace_types::{
    BalanceChange, ETH, FactRead, NftFlow, PositionChange, PriceFact, PriceSource, ReadKind,
    TokenAmount, TokenFlow,
};

use crate::{adapters, error::Result, fork::Viewer, simulate::SimulateOptions};

/// How many shares a vault's rate (or a pool share's value, through `PaceShareValue`) is read
/// for: enough precision for any share decimals.
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
pub(crate) fn price_facts<D: DatabaseRef<Error = ForkError>>(
    input: &PriceInputs<'_>,
    before: &mut Viewer<'_, '_, D>,
) -> Result<Vec<PriceFact>> {
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
    for &source in &sources {
        if let Some((t0, r0, t1, r1)) = pool_reserves(before, source)? {
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
                .word(source, IERC20::totalSupplyCall {}.abi_encode())?
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
        } else if let Some((asset, assets_out)) = vault_rate(before, source)? {
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
        } else if let Some(pool) = balancer_share(before, source)? {
            facts.extend(pool);
        } else {
            facts.extend(adapters::uniswap_v3::pool_prices(before, source)?);
        }
    }
    Ok(facts)
}

/// A Balancer V2 weighted pool's facts: its share priced by the pool's balances in its Vault
/// (`getPoolTokens`) over its `totalSupply`, and, as a pair's, its mid price of each token in
/// each other (`(B_j / w_j) / (B_i / w_i)`, so `B_i * w_j` of token `i` are worth `B_j * w_i` of
/// token `j`), which the verifier holds against the policy's own prices before it values a
/// share by the balances (a pool pushed off the market price makes its balances look worth
/// more than its shares can fetch). The Vault must name the pool under the id the pool gives,
/// no token may be the pool's own share, the pool must have one weight per token, and it must
/// answer `getRate`, the read the account re-checks for shares it receives
/// ([`valuation_reads`]).
fn balancer_share<D: DatabaseRef<Error = ForkError>>(
    viewer: &mut Viewer<'_, '_, D>,
    pool: Address,
) -> Result<Option<Vec<PriceFact>>> {
    use crate::health::view;
    use pace_abi::balancer::{
        IBalancerPoolView as Pool, IBalancerVault as Vault, IWeightedPoolView,
    };
    let Some(vault) = address_word(viewer, pool, Pool::getVaultCall {}.abi_encode())? else {
        return Ok(None);
    };
    let Some(id) = viewer.word(pool, Pool::getPoolIdCall {}.abi_encode())? else {
        return Ok(None);
    };
    let id = alloy_primitives::B256::from(id);
    let registered = view(viewer, vault, &Vault::getPoolCall { poolId: id })?;
    if registered.is_none_or(|r| r.pool != pool) {
        return Ok(None);
    }
    let Some(held) = view(viewer, vault, &Vault::getPoolTokensCall { poolId: id })? else {
        return Ok(None);
    };
    if held.tokens.is_empty()
        || held.tokens.len() != held.balances.len()
        || held.tokens.contains(&pool)
        || held.balances.iter().any(U256::is_zero)
    {
        return Ok(None);
    }
    let rate = viewer.word(pool, Pool::getRateCall {}.abi_encode())?;
    let supply = viewer.word(pool, IERC20::totalSupplyCall {}.abi_encode())?;
    let (Some(_), Some(supply)) = (rate.filter(|r| !r.is_zero()), supply) else {
        return Ok(None);
    };
    if supply.is_zero() {
        return Ok(None);
    }
    let weights = view(
        viewer,
        pool,
        &IWeightedPoolView::getNormalizedWeightsCall {},
    )?;
    let Some(weights) =
        weights.filter(|w| w.len() == held.tokens.len() && !w.contains(&U256::ZERO))
    else {
        return Ok(None);
    };
    let legs: Vec<(Address, U256, U256)> = held
        .tokens
        .iter()
        .zip(&held.balances)
        .zip(&weights)
        .map(|((&token, &balance), &weight)| (token, balance, weight))
        .collect();
    let mut facts = vec![PriceFact {
        token: pool,
        source: PriceSource::PoolShare,
        via: pool,
        amount: supply,
        worth: legs
            .iter()
            .map(|&(token, amount, _)| TokenAmount { token, amount })
            .collect(),
    }];
    for &(a, balance_a, weight_a) in &legs {
        for &(b, balance_b, weight_b) in legs.iter().filter(|l| l.0 != a) {
            let (Some(amount), Some(worth)) = (
                balance_a.checked_mul(weight_b),
                balance_b.checked_mul(weight_a),
            ) else {
                return Ok(None);
            };
            facts.push(PriceFact {
                token: a,
                source: PriceSource::Pool,
                via: pool,
                amount,
                worth: vec![TokenAmount {
                    token: b,
                    amount: worth,
                }],
            });
        }
    }
    Ok(Some(facts))
}

/// An address returned in one word (its high 12 bytes zero).
fn address_word<D: DatabaseRef<Error = ForkError>>(
    viewer: &mut Viewer<'_, '_, D>,
    to: Address,
    data: Vec<u8>,
) -> Result<Option<Address>> {
    let Some(words) = viewer.words(to, data, 1)? else {
        return Ok(None);
    };
    let word = words[0];
    Ok((word >> 160usize)
        .is_zero()
        .then(|| Address::from_word(word.into())))
}

/// `(token0, reserve0, token1, reserve1)` of a constant-product pool with both reserves.
fn pool_reserves<D: DatabaseRef<Error = ForkError>>(
    viewer: &mut Viewer<'_, '_, D>,
    pool: Address,
) -> Result<Option<(Address, U256, Address, U256)>> {
    let Some(reserves) = viewer.words(pool, IUniswapV2Pair::getReservesCall {}.abi_encode(), 3)?
    else {
        return Ok(None);
    };
    let (r0, r1) = (reserves[0], reserves[1]);
    if r0.is_zero() || r1.is_zero() || r0.bit_len() > 112 || r1.bit_len() > 112 {
        return Ok(None);
    }
    let Some(t0) = address_word(viewer, pool, IUniswapV2Pair::token0Call {}.abi_encode())? else {
        return Ok(None);
    };
    let Some(t1) = address_word(viewer, pool, IUniswapV2Pair::token1Call {}.abi_encode())? else {
        return Ok(None);
    };
    Ok((t0 != t1 && t0 != pool && t1 != pool).then_some((t0, r0, t1, r1)))
}

/// `(asset, convertToAssets(VAULT_PROBE_SHARES))` of an ERC-4626 vault.
fn vault_rate<D: DatabaseRef<Error = ForkError>>(
    viewer: &mut Viewer<'_, '_, D>,
    vault: Address,
) -> Result<Option<(Address, U256)>> {
    let Some(asset) = address_word(viewer, vault, IERC4626::assetCall {}.abi_encode())? else {
        return Ok(None);
    };
    if asset == vault || asset == Address::ZERO {
        return Ok(None);
    }
    let data = IERC4626::convertToAssetsCall {
        shares: VAULT_PROBE_SHARES,
    }
    .abi_encode();
    Ok(viewer.words(vault, data, 1)?.map(|out| (asset, out[0])))
}

/// The reads behind the issuers' own rates among `facts` (an ERC-4626 vault's
/// `convertToAssets`), each answered again on the state after the calls: what a post-condition
/// re-checks on-chain so that a share cannot be worth less at execution than simulated. What
/// shares the account received (`changes`) are worth by their issuer's accounting is read
/// through the stateless helper `PaceShareValue` (the ratio of two reads in one), when it is
/// deployed and answers before the calls: a two-reserve pool's shares by the geometric mean of
/// its reserves per share (`productShare`), a vault's by their part of its `totalAssets`
/// (`vaultShare`; beside its rate, which a vault may store rather than compute). A received
/// claim on a Compound-style market is read by the market's `exchangeRateStored`.
pub(crate) fn valuation_reads<B, A>(
    facts: &[PriceFact],
    changes: &[BalanceChange],
    before: &mut Viewer<'_, '_, B>,
    after: &mut Viewer<'_, '_, A>,
) -> Result<Vec<FactRead>>
where
    B: DatabaseRef<Error = ForkError>,
    A: DatabaseRef<Error = ForkError>,
{
    let mut out = Vec::new();
    let helper = pace_types::pdr::SHARE_VALUE_HELPER;
    let received = |token| {
        changes
            .iter()
            .any(|c| c.token == token && c.delta.is_positive())
    };
    for fact in facts.iter().filter(|f| received(f.token)) {
        let asked = match fact.source {
            PriceSource::PoolShare => vec![
                (
                    helper,
                    IPaceShareValue::productShareCall {
                        pool: fact.via,
                        shares: VAULT_PROBE_SHARES,
                    }
                    .abi_encode(),
                ),
                // A pool without reserves (a Balancer pool): its own invariant per share.
                (
                    fact.via,
                    pace_abi::balancer::IBalancerPoolView::getRateCall {}.abi_encode(),
                ),
            ],
            PriceSource::Vault => vec![(
                helper,
                IPaceShareValue::vaultShareCall {
                    vault: fact.via,
                    shares: VAULT_PROBE_SHARES,
                }
                .abi_encode(),
            )],
            _ => continue,
        };
        // The first read that answers before the calls.
        for (target, data) in asked {
            let Some(was) = before.word(target, data.clone())? else {
                continue;
            };
            out.push(FactRead {
                kind: ReadKind::Valuation,
                subject: fact.token,
                target,
                before: Some(was),
                after: after.word(target, data.clone())?,
                data: data.into(),
                word: 0,
            });
            break;
        }
    }
    for fact in facts.iter().filter(|f| f.source == PriceSource::Vault) {
        let data = IERC4626::convertToAssetsCall {
            shares: fact.amount,
        }
        .abi_encode();
        let after_value = after.words(fact.via, data.clone(), 1)?.map(|out| out[0]);
        out.push(FactRead {
            kind: ReadKind::Valuation,
            subject: fact.token,
            target: fact.via,
            data: data.into(),
            word: 0,
            before: fact.worth.first().map(|w| w.amount),
            after: after_value,
        });
    }
    // A market's own claim token at its exchange rate (a Compound-style cToken: the token is
    // the market): the rate as a view answers it on-chain, from the market's cash, debt and
    // supply, so claims minted for nothing lower it.
    for fact in facts
        .iter()
        .filter(|f| f.source == PriceSource::Claim && f.token == f.via && received(f.token))
    {
        let data = ICTokenView::exchangeRateStoredCall {}.abi_encode();
        out.push(FactRead {
            kind: ReadKind::Valuation,
            subject: fact.token,
            target: fact.via,
            before: before.word(fact.via, data.clone())?,
            after: after.word(fact.via, data.clone())?,
            data: data.into(),
            word: 0,
        });
    }
    Ok(out)
}

/// The read-only calls [`price_facts`] and the adapters make to a pool, vault or call target
/// `source` and to a price feed, for [`crate::prefetch`] to have the node trace them on the
/// state before the calls.
pub(crate) fn probes(source_calls: bool) -> Vec<Vec<u8>> {
    if source_calls {
        let mut out = vec![
            IUniswapV2Pair::getReservesCall {}.abi_encode(),
            IUniswapV2Pair::token0Call {}.abi_encode(),
            IUniswapV2Pair::token1Call {}.abi_encode(),
            IERC20::totalSupplyCall {}.abi_encode(),
            IERC4626::assetCall {}.abi_encode(),
            IERC4626::convertToAssetsCall {
                shares: VAULT_PROBE_SHARES,
            }
            .abi_encode(),
        ];
        out.extend(adapters::probes());
        // Whether the account controls it (`rights::control_reads`).
        out.push(pace_abi::bindings::IOwnable::ownerCall {}.abi_encode());
        out
    } else {
        adapters::feed_probes()
    }
}

/// The rates the pinned `descriptors` declare for the tokens their roots issue
/// ([`pace_types::descriptor::RateView`]), for each such token that `moved`: the rate before the
/// calls as a fact, and, for a token the account received (`changes`), the same read after the
/// calls, which the account re-checks. A rate that answers nothing or zero prices nothing.
pub(crate) fn descriptor_rates<B, A>(
    descriptors: &[pace_types::descriptor::Descriptor],
    (moved, changes): (&[Address], &[BalanceChange]),
    before: &mut Viewer<'_, '_, B>,
    after: &mut Viewer<'_, '_, A>,
) -> Result<(Vec<PriceFact>, Vec<FactRead>)>
where
    B: DatabaseRef<Error = ForkError>,
    A: DatabaseRef<Error = ForkError>,
{
    let (mut facts, mut reads) = (Vec::new(), Vec::new());
    for d in descriptors {
        for r in &d.rates {
            let Some(token) = d.root(&r.read.root).map(|root| root.address) else {
                continue;
            };
            // The loader refuses a rate whose arguments name the account or are malformed; a
            // word past any answer reads nothing.
            let (Some(data), Ok(word)) =
                (r.read.call_data(Address::ZERO), u16::try_from(r.read.word))
            else {
                continue;
            };
            if !moved.contains(&token) {
                continue;
            }
            let Some(rate) = before
                .word_at(token, data.clone(), r.read.word)?
                .filter(|w| !w.is_zero())
            else {
                continue;
            };
            facts.push(PriceFact {
                token,
                source: PriceSource::Rate,
                via: token,
                amount: r.per,
                worth: vec![TokenAmount {
                    token: r.asset,
                    amount: rate,
                }],
            });
            if changes
                .iter()
                .any(|c| c.token == token && c.delta.is_positive())
            {
                reads.push(FactRead {
                    kind: ReadKind::Valuation,
                    subject: token,
                    target: token,
                    before: Some(rate),
                    after: after.word_at(token, data.clone(), r.read.word)?,
                    data: data.into(),
                    word,
                });
            }
        }
    }
    Ok((facts, reads))
}
