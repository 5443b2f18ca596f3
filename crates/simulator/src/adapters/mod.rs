//! The protocol adapters: what the account holds and owes in real protocols, read from the
//! protocols' own views, one small module per protocol.
//!
//! - [`feeds`]: the latest AggregatorV3 round of every feed the policy names, with the
//!   decimals of the feed and of its two assets;
//! - [`uniswap_v3`]: a V3 pool's `slot0` price and 30-minute TWAP (for [`crate::prices`]), and
//!   the account's positions in a NonfungiblePositionManager it calls;
//! - [`aave_v3`]: an Aave V3 pool it calls: each reserve's aToken (a claim on the
//!   underlying, 1:1), its debt tokens (liabilities), and the market as one counterparty;
//! - [`compound`]: a Compound-style cToken it calls: the cToken's exchange rate and the
//!   account's borrow balance before and after.
//!
//! Adapters read only what the intent points them at (its call targets, the policy's feeds and
//! pools), and judge nothing: every fact names the contract it came from and the verifier
//! trusts it only when the policy trusts that contract. A contract that does not answer a
//! protocol's views is not that protocol; one that answers some of them and then fails leaves
//! an [`AdapterGap`](pace_types::AdapterGap), which the verifier refuses when it trusts the
//! contract.

mod aave_v3;
mod compound;
mod feeds;
pub(crate) mod tick_math;
pub(crate) mod uniswap_v3;

use alloy_primitives::Address;
use pace_evm::{ForkError, revm::DatabaseRef};
use pace_types::{AdapterGap, DebtToken, OraclePrice, PriceFact, ProtocolFacts};

pub(crate) use crate::health::view;
use crate::{error::Result, fork::Viewer};

/// How many reserves of a market, or positions of an account in one manager, an adapter
/// reads; past it, a gap.
const MAX_ITEMS: usize = 32;

/// What the adapters look at.
pub(crate) struct Inputs<'a> {
    /// The account.
    pub(crate) account: Address,
    /// The intent's call targets, each once.
    pub(crate) targets: &'a [Address],
    /// The feeds the policy names.
    pub(crate) oracles: &'a [OraclePrice],
}

/// What the adapters read.
#[derive(Debug, Default)]
pub(crate) struct Adapted {
    /// Claim tokens' rates in their underlying (before the calls).
    pub(crate) prices: Vec<PriceFact>,
    /// Tokens whose balance is a liability.
    pub(crate) debt_tokens: Vec<DebtToken>,
    /// Everything else.
    pub(crate) protocols: ProtocolFacts,
}

impl Adapted {
    fn gap(&mut self, via: Address, what: impl Into<String>) {
        self.protocols.gaps.push(AdapterGap {
            via,
            what: what.into(),
        });
    }
}

/// Runs every adapter; see the module docs. Deterministic: targets in order.
pub(crate) fn read<B, A>(
    inputs: &Inputs<'_>,
    before: &mut Viewer<'_, '_, B>,
    after: &mut Viewer<'_, '_, A>,
) -> Result<Adapted>
where
    B: DatabaseRef<Error = ForkError>,
    A: DatabaseRef<Error = ForkError>,
{
    let mut out = Adapted::default();
    out.protocols.feeds = feeds::rounds(inputs.oracles, before)?;
    for &target in inputs.targets {
        if aave_v3::read(target, before, &mut out)? {
            continue;
        }
        if compound::read(target, inputs.account, before, after, &mut out)? {
            continue;
        }
        uniswap_v3::positions(target, inputs.account, before, after, &mut out)?;
    }
    Ok(out)
}

/// The first read-only calls the adapters make to a contract the intent calls or a pool the
/// policy names, for [`crate::prefetch`] to trace on the state before the calls (the account's
/// own balances and positions, and the contracts these name, are fetched as the simulation
/// discovers them).
pub(crate) fn probes() -> Vec<Vec<u8>> {
    let mut out = uniswap_v3::pool_probes();
    out.extend(uniswap_v3::position_probes());
    out.extend(aave_v3::probes());
    out.extend(compound::probes());
    out
}

pub(crate) use feeds::probes as feed_probes;
