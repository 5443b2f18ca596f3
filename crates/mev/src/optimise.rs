//! The sandwich itself and the search for its most profitable front-run.

use crate::{
    amm::{Pool, Victim, check_u112},
    error::Result,
};
use alloy_primitives::{I256, U256};
use serde::{Deserialize, Serialize};

/// The three swaps of one sandwich, replayed on the pool with exact Uniswap V2 rounding.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Sandwich {
    /// What the attacker sells first (input token).
    pub front_run_in: U256,
    /// What the front-run buys (output token).
    pub front_run_out: U256,
    /// What the victim receives; 0 when its swap reverts.
    pub victim_out: U256,
    /// Whether the victim's swap reverts (output below its minimum, or zero).
    pub victim_reverts: bool,
    /// What the attacker gets back (input token) selling all of `front_run_out`.
    pub back_run_out: U256,
    /// `back_run_out − front_run_in`, in the input token, after both pool fees.
    pub profit: I256,
}

impl Sandwich {
    /// Whether every swap of this sandwich executes: the front-run and back-run buy something
    /// and the victim's swap meets its minimum output. The empty sandwich (no front-run) is
    /// feasible when the victim's swap is.
    pub fn feasible(&self) -> bool {
        let attacked = !self.front_run_in.is_zero();
        !self.victim_reverts
            && (!attacked || (!self.front_run_out.is_zero() && !self.back_run_out.is_zero()))
    }
}

/// Replays front-run `front_run`, the victim's swap and the back-run on `pool`.
///
/// When the victim's swap reverts it leaves the pool as it was, and the back-run unwinds the
/// front-run alone (a pure loss of fees), exactly as on chain. `front_run = 0` is the victim's
/// swap without an attack.
pub fn simulate(pool: &Pool, victim: &Victim, front_run: U256) -> Sandwich {
    let fee = pool.fee_bps;
    let (mut r_in, mut r_out) = (pool.reserve_in, pool.reserve_out);
    let front_run_out = crate::get_amount_out(front_run, r_in, r_out, fee);
    r_in += front_run;
    r_out -= front_run_out;
    let out = crate::get_amount_out(victim.amount_in, r_in, r_out, fee);
    let victim_reverts = out.is_zero() || out < victim.amount_out_min;
    let victim_out = if victim_reverts {
        U256::ZERO
    } else {
        r_in += victim.amount_in;
        r_out -= out;
        out
    };
    let back_run_out = if front_run.is_zero() {
        U256::ZERO
    } else {
        crate::get_amount_out(front_run_out, r_out, r_in, fee)
    };
    Sandwich {
        front_run_in: front_run,
        front_run_out,
        victim_out,
        victim_reverts,
        back_run_out,
        profit: I256::from_raw(back_run_out) - I256::from_raw(front_run),
    }
}

/// What the optimiser concluded.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum AttackOutcome {
    /// A feasible sandwich with positive profit exists; the report describes the best one.
    Profitable,
    /// Without the victim's minimum output a profitable sandwich would exist, but every
    /// sandwich that lets the victim's swap succeed loses money: slippage protection blocks it.
    BlockedBySlippage,
    /// No sandwich within the budget is profitable even ignoring the victim's minimum output
    /// (the victim's price impact does not pay for two pool fees).
    Unprofitable,
    /// The attacker has no budget.
    NoBudget,
    /// The victim's swap fails even without an attack; there is nothing to sandwich.
    VictimReverts,
}

/// The optimiser's answer for one pool, victim and budget.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct MevReport {
    /// The pool before the attack.
    pub pool: Pool,
    /// The victim's trade.
    pub victim: Victim,
    /// The attacker's budget in the input token.
    pub budget: U256,
    /// The verdict.
    pub outcome: AttackOutcome,
    /// The chosen front-run (0 unless [`AttackOutcome::Profitable`]).
    pub front_run: U256,
    /// The sandwich at `front_run`.
    pub sandwich: Sandwich,
    /// The victim's output without an attack.
    pub victim_out_clean: U256,
    /// The victim's output with the chosen attack (equal to the clean output when there is none).
    pub victim_out_attacked: U256,
    /// `victim_out_clean − victim_out_attacked`, in the output token.
    pub victim_loss: U256,
    /// The loss in basis points of the clean output, rounded down.
    pub victim_loss_bps: u32,
    /// The attacker's profit in the input token after both fees (before gas); 0 with no attack.
    pub attacker_profit: U256,
    /// The largest front-run within the budget that still lets the victim's swap succeed.
    pub max_feasible_front_run: U256,
    /// The most profitable front-run ignoring the victim's minimum output (0 if none profits).
    pub unconstrained_front_run: U256,
    /// Its profit.
    pub unconstrained_profit: U256,
    /// How many sandwiches the search replayed.
    pub evaluations: u32,
}

/// Finds the profit-maximising front-run for `victim` on `pool` with at most `budget`.
///
/// Only sandwiches in which the victim's swap succeeds count (otherwise the attacker merely
/// pays two fees). The victim's output falls monotonically with the front-run, so the feasible
/// front-runs form an interval, found by bisection; on it the profit is unimodal and a ternary
/// search narrows it to a small window, which is scanned and then refined by hill climbing
/// until both integer neighbours are no better. Errors only on inputs Uniswap V2 cannot hold.
pub fn optimise(pool: &Pool, victim: &Victim, budget: U256) -> Result<MevReport> {
    pool.validate()?;
    check_u112(victim.amount_in, "victim amount_in")?;
    check_u112(budget, "budget")?;
    let clean = simulate(pool, victim, U256::ZERO);
    let mut search = Search { evaluations: 0 };
    let constrained = search.best(pool, victim, budget);
    let loose = Victim {
        amount_out_min: U256::ZERO,
        ..*victim
    };
    let unconstrained = search.best(pool, &loose, budget);
    let outcome = if clean.victim_reverts {
        AttackOutcome::VictimReverts
    } else if budget.is_zero() {
        AttackOutcome::NoBudget
    } else if constrained.profit > I256::ZERO {
        AttackOutcome::Profitable
    } else if unconstrained.profit > I256::ZERO {
        AttackOutcome::BlockedBySlippage
    } else {
        AttackOutcome::Unprofitable
    };
    let front_run = if outcome == AttackOutcome::Profitable {
        constrained.front_run
    } else {
        U256::ZERO
    };
    let sandwich = simulate(pool, victim, front_run);
    let victim_loss = clean.victim_out.saturating_sub(sandwich.victim_out);
    let victim_loss_bps = if clean.victim_out.is_zero() {
        0
    } else {
        (victim_loss * U256::from(crate::BPS) / clean.victim_out).saturating_to::<u32>()
    };
    Ok(MevReport {
        pool: *pool,
        victim: *victim,
        budget,
        outcome,
        front_run,
        sandwich,
        victim_out_clean: clean.victim_out,
        victim_out_attacked: sandwich.victim_out,
        victim_loss,
        victim_loss_bps,
        attacker_profit: sandwich.profit.max(I256::ZERO).into_raw(),
        max_feasible_front_run: constrained.max_feasible,
        unconstrained_front_run: if unconstrained.profit > I256::ZERO {
            unconstrained.front_run
        } else {
            U256::ZERO
        },
        unconstrained_profit: unconstrained.profit.max(I256::ZERO).into_raw(),
        evaluations: search.evaluations,
    })
}

/// Width below which the ternary search hands over to a scan.
const SCAN_WIDTH: u64 = 64;
/// Bound on hill-climbing steps (the scan leaves at most a few).
const MAX_CLIMB: u32 = 100_000;

struct Best {
    front_run: U256,
    profit: I256,
    max_feasible: U256,
}

struct Search {
    evaluations: u32,
}

impl Search {
    fn run(&mut self, pool: &Pool, victim: &Victim, a: U256) -> Sandwich {
        self.evaluations += 1;
        simulate(pool, victim, a)
    }

    /// Profit at `a`, or `None` when the sandwich is infeasible.
    fn profit(&mut self, pool: &Pool, victim: &Victim, a: U256) -> Option<I256> {
        let s = self.run(pool, victim, a);
        s.feasible().then_some(s.profit)
    }

    /// Largest `a` in `[lo, hi]` with `pred(a)`, given `pred` holds on a prefix and at `lo`.
    fn last_true(
        &mut self,
        mut lo: U256,
        mut hi: U256,
        mut pred: impl FnMut(&mut Self, U256) -> bool,
    ) -> U256 {
        while lo < hi {
            let mid = lo + (hi - lo + U256::from(1)) / U256::from(2);
            if pred(self, mid) {
                lo = mid;
            } else {
                hi = mid - U256::from(1);
            }
        }
        lo
    }

    fn best(&mut self, pool: &Pool, victim: &Victim, budget: U256) -> Best {
        let none = |max_feasible| Best {
            front_run: U256::ZERO,
            profit: I256::ZERO,
            max_feasible,
        };
        if self.run(pool, victim, U256::ZERO).victim_reverts || budget.is_zero() {
            return none(U256::ZERO);
        }
        // Victim output is non-increasing in the front-run: feasible sizes are a prefix.
        let hi = self.last_true(U256::ZERO, budget, |s, a| {
            !s.run(pool, victim, a).victim_reverts
        });
        // Front-run output is non-decreasing: sizes that buy nothing are a prefix too.
        let lo = self.last_true(U256::ZERO, hi, |s, a| {
            s.run(pool, victim, a).front_run_out.is_zero()
        }) + U256::from(1);
        if lo > hi {
            return none(hi);
        }
        let profit = |s: &mut Self, a: U256| s.profit(pool, victim, a).unwrap_or(I256::MIN);

        let (mut l, mut h) = (lo, hi);
        while h - l > U256::from(SCAN_WIDTH) {
            let third = (h - l) / U256::from(3);
            let (m1, m2) = (l + third, h - third);
            if profit(self, m1) < profit(self, m2) {
                l = m1 + U256::from(1);
            } else {
                h = m2;
            }
        }
        let mut best = (lo, profit(self, lo));
        let mut a = l;
        while a <= h {
            let p = profit(self, a);
            if p > best.1 {
                best = (a, p);
            }
            a += U256::from(1);
        }
        let p_hi = profit(self, hi);
        if p_hi > best.1 {
            best = (hi, p_hi);
        }
        // Refine: climb until both integer neighbours are no better.
        for _ in 0..MAX_CLIMB {
            let (a, p) = best;
            let up = (a < hi).then(|| (a + U256::from(1), profit(self, a + U256::from(1))));
            let down = (a > lo).then(|| (a - U256::from(1), profit(self, a - U256::from(1))));
            match [up, down].into_iter().flatten().find(|&(_, q)| q > p) {
                Some(next) => best = next,
                None => break,
            }
        }
        Best {
            front_run: best.0,
            profit: best.1,
            max_feasible: hi,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    use pace_testkit::ether;

    #[test]
    fn fee_30_is_uniswaps_997_over_1000() {
        let (x, r_in, r_out) = (ether(10), ether(10_000), ether(10_000_000));
        let with_fee = x * U256::from(997);
        let uni = with_fee * r_out / (r_in * U256::from(1000) + with_fee);
        assert_eq!(crate::get_amount_out(x, r_in, r_out, 30), uni);
    }

    #[test]
    fn large_victim_is_sandwiched_up_to_its_slippage() {
        let pool = Pool::uniswap_v2(ether(10_000), ether(10_000_000));
        let victim = Victim::with_slippage(&pool, ether(100), 100).unwrap();
        let r = optimise(&pool, &victim, ether(1_000)).unwrap();
        assert_eq!(r.outcome, AttackOutcome::Profitable);
        assert!(r.attacker_profit > U256::ZERO);
        // The slippage bound binds: the chosen front-run is the largest feasible one.
        assert_eq!(r.front_run, r.max_feasible_front_run);
        assert!(r.victim_loss_bps <= 100);
        assert!(r.victim_out_attacked >= victim.amount_out_min);
    }

    #[test]
    fn paper_default_victim_is_not_worth_sandwiching() {
        // 10 WETH into 10,000 WETH moves the price ~0.2 %, less than two 0.3 % fees.
        let pool = Pool::uniswap_v2(ether(10_000), ether(10_000_000));
        for slippage in [100, 10] {
            let victim = Victim::with_slippage(&pool, ether(10), slippage).unwrap();
            let r = optimise(&pool, &victim, ether(100)).unwrap();
            assert_eq!(r.outcome, AttackOutcome::Unprofitable);
            assert_eq!(
                (r.front_run, r.attacker_profit, r.victim_loss),
                (U256::ZERO, U256::ZERO, U256::ZERO)
            );
        }
    }

    #[test]
    fn zero_slippage_blocks_a_sandwich_that_would_pay() {
        let pool = Pool::uniswap_v2(ether(10_000), ether(10_000_000));
        let victim = Victim::with_slippage(&pool, ether(100), 0).unwrap();
        let r = optimise(&pool, &victim, ether(1_000)).unwrap();
        assert_eq!(r.outcome, AttackOutcome::BlockedBySlippage);
        assert_eq!(r.front_run, U256::ZERO);
        assert!(r.unconstrained_profit > U256::ZERO);
    }

    #[test]
    fn invalid_inputs_are_errors() {
        let victim = Victim {
            amount_in: ether(1),
            amount_out_min: U256::ZERO,
        };
        let zero = Pool::uniswap_v2(U256::ZERO, ether(1));
        assert_eq!(
            optimise(&zero, &victim, ether(1)),
            Err(crate::Error::ZeroReserve)
        );
        let fee = Pool {
            fee_bps: 10_000,
            ..Pool::uniswap_v2(ether(1), ether(1))
        };
        assert_eq!(
            optimise(&fee, &victim, ether(1)),
            Err(crate::Error::FeeTooHigh(10_000))
        );
        let ok = Pool::uniswap_v2(ether(1), ether(1));
        assert!(optimise(&ok, &victim, U256::MAX).is_err());
        assert!(Victim::with_slippage(&ok, ether(1), 10_001).is_err());
    }
}
