//! Post-conditions: the facts an approval rested on that the execution can change, signed as
//! [`Check`]s the account re-reads after the calls.
//!
//! They come from the approval alone ([`pace_verifier::ApprovedIntent::relied`]: the reads
//! the verifier used, answered on the simulated state), never from the agent, so the signer
//! needs no knowledge of any protocol:
//!
//! - [`ReadKind::Valuation`] (what a received share is worth by its issuer's own rate, an
//!   ERC-4626 vault's `convertToAssets`): WITHIN, at least the simulated answer after the calls
//!   less the policy's `outcome_tolerance_bps` (the tolerance the bounds use), with no ceiling.
//!   A vault that dilutes its shares at execution reverts the PDR.
//! - [`ReadKind::HealthFactor`] (a lending market's health factor of the account, in WAD):
//!   WITHIN, at least the policy's `min_health_factor_bps`, or the simulated answer less the
//!   tolerance when that is lower (a repayment that leaves a position under the minimum was
//!   approved as an improvement, and stays landable), with no ceiling. A price that moves
//!   between the simulation and the execution so far that the position lands under the
//!   minimum reverts the PDR.
//! - [`ReadKind::Debt`] (the account's debt in a market read by its own views, a generic
//!   market's `debtOf`): WITHIN, at most the simulated answer after the calls plus the
//!   tolerance (interest accrues until the PDR lands), with no floor. Debt booked on the account
//!   at execution beyond that reverts the PDR.
//!
//! - [`ReadKind::HealthTerm`] (the price a protocol descriptor's health model computed a health
//!   factor from) and [`ReadKind::Holding`] (an amount the account holds in a protocol, read by
//!   a descriptor's position view, the health model's collateral among them): WITHIN, at least
//!   the simulated answer after the calls less the tolerance, with no ceiling; with the debt's
//!   ceiling, the health factor cannot land below what the verifier judged.
//!
//! - [`ReadKind::Right`] (a right over the account's value that a party the policy does not
//!   name holds, by the recording contract's own view: an allowance, an operator approval, a
//!   Permit2 allowance, a credit delegation): WITHIN, at most its simulated answer before the
//!   calls (after them, when the contract could not answer before), with no floor. A right
//!   granted at execution reverts the PDR.
//!
//! - [`ReadKind::DeclaredFloor`], [`ReadKind::DeclaredCeiling`], [`ReadKind::DeclaredExact`]
//!   (a fact a protocol descriptor the policy pins declares: `checks`): WITHIN, at least the
//!   simulated answer after the calls less the tolerance (as a valuation), at most it plus the
//!   tolerance (as a debt), or exactly it (as control).
//!
//! The checks are sorted, and a read that appears twice is checked once, at the tighter of its
//! ranges: the same decision always signs the same checks.

use crate::{Error, Result};
use alloy_primitives::U256;
use pace_types::{
    BPS_SCALE, Bps, FactRead, ReadKind,
    pdr::{Check, CheckRelation},
};

/// The post-conditions for the reads `relied` (an approval's [`relied`]) under a policy of
/// `tolerance_bps` and `min_health_bps` (see the module docs). Errors when a relied read had
/// no answer after the calls in the simulation: a fact the decision rests on that cannot be
/// re-read is not signed blind.
///
/// [`relied`]: pace_verifier::ApprovedIntent::relied
pub fn post_conditions(
    relied: &[FactRead],
    tolerance_bps: Bps,
    min_health_bps: Option<Bps>,
) -> Result<Vec<Check>> {
    let scale = U256::from(BPS_SCALE);
    let keep = scale - U256::from(tolerance_bps.min(BPS_SCALE));
    let mut checks = Vec::with_capacity(relied.len());
    for (index, read) in relied.iter().enumerate() {
        let after = read.after.ok_or(Error::UnreadableFact { index })?;
        checks.push(match read.kind {
            ReadKind::Valuation
            | ReadKind::HealthTerm
            | ReadKind::Holding
            | ReadKind::DeclaredFloor => Check::within(
                read.target,
                read.data.clone(),
                read.word,
                after.saturating_mul(keep) / scale,
                U256::MAX,
            ),
            ReadKind::HealthFactor => {
                let kept = after.saturating_mul(keep) / scale;
                let floor = min_health_bps.map_or(kept, |min| {
                    U256::from(min).saturating_mul(WAD_PER_BPS).min(kept)
                });
                Check::within(read.target, read.data.clone(), read.word, floor, U256::MAX)
            }
            // Not above where the simulation found it before the calls (where it left it,
            // when the contract could not answer before them): a right of a party the policy
            // does not name grows at execution only by a grant the verifier never saw.
            ReadKind::Right => Check::within(
                read.target,
                read.data.clone(),
                read.word,
                U256::ZERO,
                read.before.unwrap_or(after),
            ),
            // Exactly who the simulation left owning it: control handed to anyone else at
            // execution reverts the PDR.
            ReadKind::Control | ReadKind::DeclaredExact => {
                Check::within(read.target, read.data.clone(), read.word, after, after)
            }
            ReadKind::Debt | ReadKind::DeclaredCeiling => {
                let slack = after.saturating_mul(U256::from(tolerance_bps)) / scale;
                Check::within(
                    read.target,
                    read.data.clone(),
                    read.word,
                    U256::ZERO,
                    after.saturating_add(slack),
                )
            }
        });
    }
    Ok(normalise(checks))
}

/// WAD per basis point: a health factor of 1.0 is `1e18` WAD and `10_000` bps.
const WAD_PER_BPS: U256 = U256::from_limbs([100_000_000_000_000, 0, 0, 0]);

/// Sorted, one check per read (target, data, word, relation) at the tighter of its ranges.
pub(crate) fn normalise(mut checks: Vec<Check>) -> Vec<Check> {
    checks.sort();
    let mut out: Vec<Check> = Vec::with_capacity(checks.len());
    for c in checks {
        match out.last_mut() {
            Some(last) if last.key() == c.key() => {
                if c.relation() == Some(CheckRelation::Within) {
                    // The higher floor and the lower ceiling.
                    last.lo = last.lo.max(c.lo);
                    last.hi = last.hi.min(c.hi);
                } else {
                    // The smaller fall and the smaller rise.
                    last.lo = last.lo.min(c.lo);
                    last.hi = last.hi.min(c.hi);
                }
            }
            _ => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloy_primitives::{Address, Bytes};

    fn read(target: u8, data: &[u8], after: Option<u64>) -> FactRead {
        FactRead {
            kind: ReadKind::Valuation,
            subject: Address::repeat_byte(target),
            target: Address::repeat_byte(target),
            data: Bytes::copy_from_slice(data),
            word: 0,
            before: Some(U256::from(1_000u64)),
            after: after.map(U256::from),
        }
    }

    #[test]
    fn a_valuation_keeps_its_simulated_answer_within_the_tolerance() {
        let checks = post_conditions(&[read(1, &[7], Some(1_000_000))], 50, None).unwrap();
        assert_eq!(
            checks,
            vec![Check::within(
                Address::repeat_byte(1),
                Bytes::from(vec![7]),
                0,
                U256::from(995_000u64),
                U256::MAX
            )]
        );
        // No tolerance: not a unit less; a tolerance above 100 % floors at 0.
        assert_eq!(
            post_conditions(&[read(1, &[7], Some(10))], 0, None).unwrap()[0].lo,
            U256::from(10u8)
        );
        assert_eq!(
            post_conditions(&[read(1, &[7], Some(10))], 20_000, None).unwrap()[0].lo,
            U256::ZERO
        );
    }

    #[test]
    fn sorted_and_each_read_once_at_the_tighter_range() {
        let relied = [
            read(2, &[1], Some(100)),
            read(1, &[9], Some(500)),
            read(2, &[1], Some(300)),
            read(1, &[9], Some(500)),
        ];
        let checks = post_conditions(&relied, 0, None).unwrap();
        assert_eq!(checks.len(), 2);
        assert_eq!(checks[0].target, Address::repeat_byte(1));
        assert_eq!(checks[1].target, Address::repeat_byte(2));
        assert_eq!(checks[1].lo, U256::from(300u16), "the higher floor");
        let mut reversed = relied;
        reversed.reverse();
        assert_eq!(post_conditions(&reversed, 0, None).unwrap(), checks);
    }

    #[test]
    fn a_kept_read_keeps_the_smaller_fall_and_rise() {
        let (t, d) = (Address::repeat_byte(3), Bytes::from(vec![1]));
        let merged = normalise(vec![
            Check::kept(t, d.clone(), 5, U256::from(10u8), U256::from(1u8)),
            Check::kept(t, d.clone(), 5, U256::from(4u8), U256::from(9u8)),
        ]);
        assert_eq!(
            merged,
            vec![Check::kept(t, d, 5, U256::from(4u8), U256::from(1u8))]
        );
    }

    #[test]
    fn a_read_without_an_answer_after_the_calls_is_refused() {
        assert!(matches!(
            post_conditions(&[read(1, &[7], Some(5)), read(2, &[7], None)], 50, None),
            Err(Error::UnreadableFact { index: 1 })
        ));
    }

    #[test]
    fn a_debt_may_not_rise_past_the_simulated_one_and_the_tolerance() {
        let debt = |after: u64| FactRead {
            kind: ReadKind::Debt,
            after: Some(U256::from(after)),
            ..read(9, &[6], Some(0))
        };
        let checks = post_conditions(&[debt(10_000)], 50, Some(12_000)).unwrap();
        assert_eq!(
            (checks[0].lo, checks[0].hi),
            (U256::ZERO, U256::from(10_050u64))
        );
        assert_eq!(checks[0].relation(), Some(CheckRelation::Within));
        // None simulated: none may be booked.
        let checks = post_conditions(&[debt(0)], 50, None).unwrap();
        assert_eq!((checks[0].lo, checks[0].hi), (U256::ZERO, U256::ZERO));
    }

    #[test]
    fn a_strangers_right_may_not_grow_past_where_the_calls_found_it() {
        let right = |before: Option<u64>, after: u64| FactRead {
            kind: ReadKind::Right,
            before: before.map(U256::from),
            after: Some(U256::from(after)),
            ..read(4, &[3], Some(0))
        };
        // None before the calls: none after them, whatever the tolerance.
        let checks = post_conditions(&[right(Some(0), 0)], 5_000, None).unwrap();
        assert_eq!((checks[0].lo, checks[0].hi), (U256::ZERO, U256::ZERO));
        assert_eq!(checks[0].relation(), Some(CheckRelation::Within));
        // A standing allowance the calls spent from may not come back above where it stood.
        let checks = post_conditions(&[right(Some(70), 20)], 0, None).unwrap();
        assert_eq!(checks[0].hi, U256::from(70u8));
        // A contract that could not answer before the calls: where they left it.
        let checks = post_conditions(&[right(None, 9)], 0, None).unwrap();
        assert_eq!(checks[0].hi, U256::from(9u8));
    }

    #[test]
    fn a_health_factor_stays_at_the_minimum_or_where_a_repayment_left_it() {
        let wad = |x: u64| U256::from(x) * U256::from(10u64).pow(U256::from(14u8));
        let health = |after: U256| FactRead {
            kind: ReadKind::HealthFactor,
            after: Some(after),
            ..read(9, &[5], Some(0))
        };
        // 1.5 after the calls, a minimum of 1.2: at least 1.2.
        let checks = post_conditions(&[health(wad(15_000))], 50, Some(12_000)).unwrap();
        assert_eq!(checks[0].lo, wad(12_000));
        assert_eq!(checks[0].hi, U256::MAX);
        assert_eq!(checks[0].relation(), Some(CheckRelation::Within));
        // A repayment left it at 1.1, under the minimum: it may not fall past the tolerance.
        let checks = post_conditions(&[health(wad(11_000))], 50, Some(12_000)).unwrap();
        assert_eq!(
            checks[0].lo,
            wad(11_000) * U256::from(9_950u64) / U256::from(10_000u64)
        );
    }
}
