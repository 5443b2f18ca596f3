//! Outcome bounds derived from the simulation.

use alloy_primitives::{I256, U256};
use pace_types::{BalanceChange, Bps, SimulationReport, pdr::Bound};

const BPS: u64 = 10_000;

/// The outcome bounds for a PDR: one per token whose balance the simulation changed, from
/// the account's simulated net balance changes plus a tolerance in basis points.
///
/// - a simulated outflow of `x` allows at most `x * (1 + tolerance)` out;
/// - a simulated inflow of `y` requires at least `y * (1 - tolerance)` in.
///
/// Tokens the simulation left unchanged get no bound (the calldata binding already fixes what
/// is called). A tolerance of 0 demands exactly the simulated outcome or better.
pub fn bounds_from_report(report: &SimulationReport, tolerance_bps: Bps) -> Vec<Bound> {
    bounds_from_changes(&report.balance_changes, tolerance_bps)
}

/// [`bounds_from_report`] for net balance changes given directly (what a person confirmed in
/// a preview, say), with the same rules.
pub fn bounds_from_changes(changes: &[BalanceChange], tolerance_bps: Bps) -> Vec<Bound> {
    let tolerance = u64::from(tolerance_bps);
    let tol = U256::from(tolerance.min(BPS));
    let scale = U256::from(BPS);
    let ceiling = scale + tol;
    let mut out: Vec<Bound> = changes
        .iter()
        .filter(|c| c.delta != I256::ZERO)
        .map(|c| {
            let magnitude = c.delta.unsigned_abs();
            if c.delta.is_negative() {
                let max_out = magnitude.saturating_mul(ceiling).div_ceil(scale);
                Bound {
                    token: c.token,
                    maxOut: max_out,
                    minIn: U256::ZERO,
                }
            } else {
                let min_in = magnitude.saturating_mul(scale - tol) / scale;
                Bound {
                    token: c.token,
                    maxOut: U256::ZERO,
                    minIn: min_in,
                }
            }
        })
        .collect();
    out.sort_by_key(|b| b.token);
    out
}

/// The tighter of two sets of bounds, token by token: the smaller ceiling on what leaves, the
/// larger floor on what arrives; a token bounded in one set only keeps that bound. What both
/// allow, so a PDR signed with it honours both (the policy's tolerance around the fresh
/// simulation and a person's around what they confirmed).
pub fn tightest(a: &[Bound], b: &[Bound]) -> Vec<Bound> {
    let mut out: Vec<Bound> = a.to_vec();
    for bound in b {
        match out.iter_mut().find(|o| o.token == bound.token) {
            Some(o) => {
                o.maxOut = o.maxOut.min(bound.maxOut);
                o.minIn = o.minIn.max(bound.minIn);
            }
            None => out.push(bound.clone()),
        }
    }
    out.sort_by_key(|b| b.token);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloy_primitives::Address;
    use pace_types::BalanceChange;

    fn report(changes: &[(u8, i64)]) -> SimulationReport {
        let mut r: SimulationReport = serde_json::from_str(
            r#"{"intent_hash":"0x0000000000000000000000000000000000000000000000000000000000000000",
                "block_number":1,"timestamp":1,"success":true,"gas_used":0}"#,
        )
        .expect("minimal report parses");
        r.balance_changes = changes
            .iter()
            .map(|&(t, d)| BalanceChange {
                token: Address::repeat_byte(t),
                delta: I256::try_from(d).unwrap(),
            })
            .collect();
        r
    }

    #[test]
    fn outflows_get_a_ceiling_and_inflows_a_floor() {
        let b = bounds_from_report(&report(&[(2, 1_000), (1, -10_000), (3, 0)]), 50);
        assert_eq!(b.len(), 2);
        assert_eq!(
            b[0],
            Bound {
                token: Address::repeat_byte(1),
                maxOut: U256::from(10_050),
                minIn: U256::ZERO
            }
        );
        assert_eq!(
            b[1],
            Bound {
                token: Address::repeat_byte(2),
                maxOut: U256::ZERO,
                minIn: U256::from(995)
            }
        );
    }

    #[test]
    fn the_tightest_bounds_are_what_both_sets_allow() {
        let fresh = bounds_from_report(&report(&[(1, -10_000), (2, 1_000)]), 100);
        let confirmed = bounds_from_report(&report(&[(1, -9_990), (2, 1_002), (4, -5)]), 50);
        let both = tightest(&fresh, &confirmed);
        let by = |t: u8| {
            both.iter()
                .find(|b| b.token == Address::repeat_byte(t))
                .unwrap()
        };
        // Out: min(10_100, 10_040); in: max(990, 996); token 4 only in the second set.
        assert_eq!(by(1).maxOut, U256::from(10_040));
        assert_eq!(by(2).minIn, U256::from(996));
        assert_eq!((by(4).maxOut, by(4).minIn), (U256::from(6), U256::ZERO));
        assert_eq!(both.len(), 3);
        assert!(both.windows(2).all(|w| w[0].token < w[1].token));
        // Symmetric.
        assert_eq!(tightest(&confirmed, &fresh), both);
    }

    #[test]
    fn zero_tolerance_is_exact_and_tolerance_is_capped() {
        let b = bounds_from_report(&report(&[(1, -7), (2, 9)]), 0);
        assert_eq!((b[0].maxOut, b[1].minIn), (U256::from(7), U256::from(9)));
        let b = bounds_from_report(&report(&[(2, 9)]), 60_000);
        assert_eq!(b[0].minIn, U256::ZERO);
    }
}
