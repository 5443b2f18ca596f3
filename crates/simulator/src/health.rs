//! The account's lending health before and after, through small adapters:
//!
//! - the generic [`ILendingPosition`] view `healthFactor(address)` on the first call target
//!   that answers it fills the report's `health_factor_before_bps` / `health_factor_after_bps`
//!   ([`health_factors`]), as it always has;
//! - [`lending_facts`] adds one [`LendingFact`] per market the other adapters recognise:
//!   Aave V3 pools ([`aave`]: `getUserAccountData`), Compound-style comptrollers
//!   ([`compound`]: `getAccountLiquidity`), and generic markets whose position fell (collateral
//!   out or debt in, from the generic position views) that the fields above do not cover.
//!
//! Each fact says whether the calls moved the position in a way that can lower its health
//! factor (`lowers`), read from the position itself (collateral and debt before and after)
//! and, where the health factor cannot be read, from what the account holds in the market;
//! what cannot be established counts as lowering. The verifier refuses an intent that lowers a
//! position whose health factor after the calls it cannot read: unknown means refuse.

mod aave;
mod compound;
mod model;
mod reads;

pub(crate) use model::model_health;
pub(crate) use reads::health_reads;

use alloy_primitives::{Address, I256, U256};
use alloy_sol_types::SolCall;
use pace_abi::bindings::ILendingPosition;
use pace_evm::{ForkError, revm::DatabaseRef};
use pace_types::{
    BalanceChange, Bps, ETH, LendingFact, LendingProtocol, LendingState, PositionChange, TokenFlow,
};

use crate::{error::Result, fork::Viewer};

/// WAD per basis point: a health factor of 1.0 is `1e18` WAD and `10_000` bps.
const WAD_PER_BPS: U256 = U256::from_limbs([100_000_000_000_000, 0, 0, 0]);

/// How many markets one adapter reads for one account; past it, the position is unreadable.
const MAX_MARKETS: usize = 32;

/// The first of `targets` that answers `healthFactor(account)` with exactly one word, with
/// its answers in bps before (`world`) and after (`fork`) the calls.
pub(crate) fn health_factors<B, A>(
    targets: &[Address],
    account: Address,
    before: &mut Viewer<'_, '_, B>,
    after: &mut Viewer<'_, '_, A>,
) -> Result<(Option<Address>, Option<Bps>, Option<Bps>)>
where
    B: DatabaseRef<Error = ForkError>,
    A: DatabaseRef<Error = ForkError>,
{
    Ok(generic_source(targets, account, before, after)?
        .map_or((None, None, None), |(s, b, a)| (Some(s), b, a)))
}

/// A market and its health factor readings, before and after.
type HealthSource = (Address, Option<Bps>, Option<Bps>);

/// The first of `targets` that answers `healthFactor(account)`, with its readings.
fn generic_source<B, A>(
    targets: &[Address],
    account: Address,
    before: &mut Viewer<'_, '_, B>,
    after: &mut Viewer<'_, '_, A>,
) -> Result<Option<HealthSource>>
where
    B: DatabaseRef<Error = ForkError>,
    A: DatabaseRef<Error = ForkError>,
{
    for &target in targets {
        let hf_before = generic_health(before, target, account)?;
        let hf_after = generic_health(after, target, account)?;
        if hf_before.is_some() || hf_after.is_some() {
            return Ok(Some((target, hf_before, hf_after)));
        }
    }
    Ok(None)
}

fn generic_health<D: DatabaseRef<Error = ForkError>>(
    viewer: &mut Viewer<'_, '_, D>,
    market: Address,
    account: Address,
) -> Result<Option<Bps>> {
    let data = ILendingPosition::healthFactorCall { user: account }.abi_encode();
    Ok(viewer.words(market, data, 1)?.map(|w| wad_to_bps(w[0])))
}

/// A WAD health factor in bps, rounded down, saturating at `u32::MAX` (no debt is
/// `type(uint256).max`).
pub(crate) fn wad_to_bps(wad: U256) -> Bps {
    u32::try_from(wad / WAD_PER_BPS).unwrap_or(u32::MAX)
}

/// What [`lending_facts`] looks at.
pub(crate) struct LendingInputs<'a> {
    /// The account.
    pub(crate) account: Address,
    /// The intent's call targets, each once, in call order.
    pub(crate) targets: &'a [Address],
    /// The account's balance changes (its aTokens, debt tokens and cTokens among them).
    pub(crate) changes: &'a [BalanceChange],
    /// The account's positions in generic markets.
    pub(crate) positions: &'a [PositionChange],
    /// Every token flow of the execution.
    pub(crate) flows: &'a [TokenFlow],
    /// The markets a descriptor's health model reads ([`model_health`]): no generic fact.
    pub(crate) modelled: &'a [Address],
}

impl LendingInputs<'_> {
    /// The account's change of every token it holds that moved: its measured balance change,
    /// else its logged net flow (a balance that could not be read still moved). Ether apart.
    pub(crate) fn moves(&self) -> Vec<(Address, I256)> {
        let mut out: Vec<(Address, I256)> = self
            .changes
            .iter()
            .filter(|c| c.token != ETH)
            .map(|c| (c.token, c.delta))
            .collect();
        for f in self
            .flows
            .iter()
            .filter(|f| f.token != ETH && f.from != f.to)
        {
            let sign = if f.to == self.account {
                I256::ONE
            } else if f.from == self.account {
                I256::MINUS_ONE
            } else {
                continue;
            };
            if self.changes.iter().any(|c| c.token == f.token) {
                continue;
            }
            let amount = I256::try_from(f.amount).unwrap_or(I256::MAX);
            match out.iter_mut().find(|m| m.0 == f.token) {
                Some(m) => m.1 = m.1.saturating_add(sign.saturating_mul(amount)),
                None => out.push((f.token, sign.saturating_mul(amount))),
            }
        }
        out
    }
}

/// The lending facts of every market the adapters recognise among the intent's targets and
/// the tokens whose balance the account's changed: Aave V3 pools, then Compound-style
/// comptrollers, then generic markets. See the module docs.
pub(crate) fn lending_facts<B, A>(
    input: &LendingInputs<'_>,
    before: &mut Viewer<'_, '_, B>,
    after: &mut Viewer<'_, '_, A>,
) -> Result<Vec<LendingFact>>
where
    B: DatabaseRef<Error = ForkError>,
    A: DatabaseRef<Error = ForkError>,
{
    let mut out = aave::facts(input, before, after)?;
    out.extend(compound::facts(input, before, after)?);
    out.extend(generic_facts(input, before, after)?);
    Ok(out)
}

/// A generic market whose position fell (negative collateral or debt delta) and that is not
/// the market `health_factor_*_bps` already reads: its `healthFactor` before and after.
fn generic_facts<B, A>(
    input: &LendingInputs<'_>,
    before: &mut Viewer<'_, '_, B>,
    after: &mut Viewer<'_, '_, A>,
) -> Result<Vec<LendingFact>>
where
    B: DatabaseRef<Error = ForkError>,
    A: DatabaseRef<Error = ForkError>,
{
    let mut markets: Vec<Address> = Vec::new();
    for p in input.positions.iter().filter(|p| p.delta.is_negative()) {
        if !markets.contains(&p.market) && !input.modelled.contains(&p.market) {
            markets.push(p.market);
        }
    }
    if markets.is_empty() {
        return Ok(Vec::new());
    }
    let covered = generic_source(input.targets, input.account, before, after)?.map(|s| s.0);
    let mut out = Vec::new();
    for market in markets
        .into_iter()
        .filter(|m| Some(*m) != covered && !input.modelled.contains(m))
    {
        let state = |hf: Option<Bps>| LendingState {
            health_factor_bps: hf,
            ..LendingState::default()
        };
        out.push(LendingFact {
            protocol: LendingProtocol::Generic,
            market,
            before: state(generic_health(before, market, input.account)?),
            after: state(generic_health(after, market, input.account)?),
            lowers: true,
        });
    }
    Ok(out)
}

/// `call` on `to`, its return decoded strictly; `None` when it reverts or answers something
/// else.
pub(crate) fn view<C: SolCall, D: DatabaseRef<Error = ForkError>>(
    viewer: &mut Viewer<'_, '_, D>,
    to: Address,
    call: &C,
) -> Result<Option<C::Return>> {
    Ok(viewer
        .call(to, call.abi_encode())?
        .and_then(|out| C::abi_decode_returns_validate(&out).ok()))
}

/// `collateral * 10_000 / debt` in bps, rounded down, saturating at `u32::MAX` (no debt).
fn ratio_bps(collateral: U256, debt: U256) -> Bps {
    if debt.is_zero() {
        return u32::MAX;
    }
    let (q, _) = alloy_primitives::U512::from(collateral)
        .saturating_mul(alloy_primitives::U512::from(10_000u64))
        .div_rem(alloy_primitives::U512::from(debt));
    u32::try_from(q).unwrap_or(u32::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wad_conversion() {
        let wad = |x: u128| U256::from(x);
        assert_eq!(wad_to_bps(wad(1_000_000_000_000_000_000)), 10_000);
        assert_eq!(wad_to_bps(wad(1_066_666_666_666_666_666)), 10_666);
        assert_eq!(wad_to_bps(wad(99_999_999_999_999)), 0);
        assert_eq!(wad_to_bps(U256::MAX), u32::MAX);
    }

    #[test]
    fn ratios_round_down_and_saturate() {
        let u = U256::from;
        assert_eq!(ratio_bps(u(3u8), u(2u8)), 15_000);
        assert_eq!(ratio_bps(u(2u8), u(3u8)), 6_666);
        assert_eq!(ratio_bps(u(1u8), U256::ZERO), u32::MAX);
        assert_eq!(ratio_bps(U256::MAX, u(1u8)), u32::MAX);
        assert_eq!(ratio_bps(U256::ZERO, u(1u8)), 0);
    }
}
