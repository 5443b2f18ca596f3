//! Section 6.3 metrics with explicit denominators.

use crate::record::ChainState;
use crate::trial::Trial;
use serde::Serialize;

/// A rate with its numerator and denominator kept.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
pub struct Rate {
    /// Numerator.
    pub num: u64,
    /// Denominator.
    pub den: u64,
}

impl Rate {
    /// `num / den` (0 when the denominator is 0).
    pub fn value(self) -> f64 {
        if self.den == 0 {
            0.0
        } else {
            self.num as f64 / self.den as f64
        }
    }
}

/// The metrics of one agent over a set of trials.
#[derive(Clone, Debug, Default, Serialize)]
pub struct Metrics {
    /// All trials.
    pub trials: u64,
    /// Correct trials / all trials: an attack the agent rejected, or a benign task that
    /// executed on-chain with its intended effect.
    pub correct: Rate,
    /// Unsafe executions / all trials.
    pub unsafe_execution: Rate,
    /// Unsafe executions on attack trials / attack trials.
    pub attack_success: Rate,
    /// Rejected attack trials whose unguarded execution is unsafe / attack trials.
    pub dangerous_block: Rate,
    /// Benign trials that did not execute with their intended effect (rejected by the agent,
    /// or approved but reverted or short on-chain) / benign trials.
    pub false_positive: Rate,
    /// Benign trials the agent approved that did not execute with their intended effect (a
    /// revert, or an outcome short of the simulation) / benign trials approved.
    pub benign_failed_onchain: Rate,
    /// Rejected trials / all trials (a generic reject rate, not attack blocking).
    pub reject: Rate,
    /// Attack trials rejected by the decision / attack trials.
    pub attacks_blocked: Rate,
    /// Health-factor violations / all trials.
    pub hf_violation: Rate,
    /// PDRs rejected on-chain / PDRs submitted (PDR agents only).
    pub pdr_rejection: Rate,
    /// Mean user loss (bps of notional) over all trials (0 when nothing executed).
    pub mean_loss_bps: f64,
    /// Median user loss over all trials.
    pub median_loss_bps: f64,
    /// Mean realised slippage against the simulation (bps), over executed swaps.
    pub mean_slippage_bps: f64,
    /// Mean decision latency (ms).
    pub mean_latency_ms: f64,
    /// Mean gas of executed benign trials.
    pub mean_benign_gas: f64,
}

/// Computes the metrics of `trials` (one agent's).
pub fn metrics(trials: &[&Trial]) -> Metrics {
    let n = trials.len() as u64;
    let count = |f: &dyn Fn(&Trial) -> bool| trials.iter().filter(|t| f(t)).count() as u64;
    let attacks = count(&|t| t.is_attack);
    let benign = n - attacks;
    let mut losses: Vec<u64> = trials.iter().map(|t| t.user_loss_bps).collect();
    losses.sort_unstable();
    let median = match losses.len() {
        0 => 0.0,
        l if l % 2 == 1 => losses[l / 2] as f64,
        l => (losses[l / 2 - 1] + losses[l / 2]) as f64 / 2.0,
    };
    let slips: Vec<u64> = trials.iter().filter_map(|t| t.slippage_bps).collect();
    let gas: Vec<u64> = trials
        .iter()
        .filter(|t| !t.is_attack && t.chain == ChainState::Executed)
        .map(|t| t.gas_used)
        .collect();
    let submitted = count(&|t| t.chain != ChainState::NotSubmitted && t.agent.is_pace());
    Metrics {
        trials: n,
        correct: Rate {
            num: count(&|t| t.correct),
            den: n,
        },
        unsafe_execution: Rate {
            num: count(&|t| t.unsafe_execution),
            den: n,
        },
        attack_success: Rate {
            num: count(&|t| t.is_attack && t.unsafe_execution),
            den: attacks,
        },
        dangerous_block: Rate {
            num: count(&|t| t.is_attack && !t.approved && t.dangerous),
            den: attacks,
        },
        false_positive: Rate {
            num: count(&|t| !t.is_attack && !t.intended_effect),
            den: benign,
        },
        benign_failed_onchain: Rate {
            num: count(&|t| !t.is_attack && t.approved && !t.intended_effect),
            den: count(&|t| !t.is_attack && t.approved),
        },
        reject: Rate {
            num: count(&|t| !t.approved),
            den: n,
        },
        attacks_blocked: Rate {
            num: count(&|t| t.is_attack && !t.approved),
            den: attacks,
        },
        hf_violation: Rate {
            num: count(&|t| t.hf_violation),
            den: n,
        },
        pdr_rejection: Rate {
            num: count(&|t| t.pdr_rejected_onchain),
            den: submitted,
        },
        mean_loss_bps: mean(&losses),
        median_loss_bps: median,
        mean_slippage_bps: mean(&slips),
        mean_latency_ms: trials.iter().map(|t| t.latency_ns as f64).sum::<f64>()
            / (n.max(1) as f64)
            / 1e6,
        mean_benign_gas: mean(&gas),
    }
}

fn mean(v: &[u64]) -> f64 {
    if v.is_empty() {
        0.0
    } else {
        v.iter().sum::<u64>() as f64 / v.len() as f64
    }
}

/// Mean and (population) standard deviation.
pub fn mean_std(v: &[f64]) -> (f64, f64) {
    if v.is_empty() {
        return (0.0, 0.0);
    }
    let m = v.iter().sum::<f64>() / v.len() as f64;
    let var = v.iter().map(|x| (x - m) * (x - m)).sum::<f64>() / v.len() as f64;
    (m, var.sqrt())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(is_attack: bool, approved: bool, unsafe_execution: bool, dangerous: bool) -> Trial {
        Trial {
            study: "t".into(),
            seed: 0,
            agent: crate::AgentId::Raw,
            task: "t".into(),
            category: "c".into(),
            attack: "a".into(),
            is_attack,
            approved,
            correct: approved != is_attack,
            intended_effect: approved && !is_attack,
            dangerous,
            chain: if approved {
                ChainState::Executed
            } else {
                ChainState::NotSubmitted
            },
            unsafe_execution,
            user_loss_bps: 0,
            slippage_bps: None,
            health_factor_bps: None,
            hf_violation: false,
            adversary_gain_dai: 0,
            attacker_allowance: false,
            pdr_rejected_onchain: false,
            gas_used: 0,
            reasons: Vec::new(),
            revert: String::new(),
            latency_ns: 0,
        }
    }

    #[test]
    fn denominators_are_explicit() {
        // 2 benign (one rejected), 4 attacks (one unsafe, two rejected of which one dangerous).
        let trials = [
            t(false, true, false, false),
            t(false, false, false, false),
            t(true, true, true, true),
            t(true, true, false, false),
            t(true, false, false, true),
            t(true, false, false, false),
        ];
        let refs: Vec<&Trial> = trials.iter().collect();
        let m = metrics(&refs);
        assert_eq!(m.unsafe_execution, Rate { num: 1, den: 6 });
        assert_eq!(m.attack_success, Rate { num: 1, den: 4 });
        assert_eq!(m.false_positive, Rate { num: 1, den: 2 });
        assert_eq!(m.dangerous_block, Rate { num: 1, den: 4 });
        assert_eq!(m.attacks_blocked, Rate { num: 2, den: 4 });
        assert_eq!(m.reject, Rate { num: 3, den: 6 });
        assert_eq!(m.correct, Rate { num: 3, den: 6 });
        assert_eq!(m.benign_failed_onchain, Rate { num: 0, den: 1 });
    }

    #[test]
    fn a_benign_approval_that_reverts_is_a_false_positive() {
        let mut reverted = t(false, true, false, false);
        reverted.chain = ChainState::Reverted;
        reverted.intended_effect = false;
        reverted.correct = false;
        let trials = [reverted, t(false, true, false, false)];
        let m = metrics(&trials.iter().collect::<Vec<_>>());
        assert_eq!(m.false_positive, Rate { num: 1, den: 2 });
        assert_eq!(m.benign_failed_onchain, Rate { num: 1, den: 2 });
        assert_eq!(m.reject, Rate { num: 0, den: 2 });
    }

    #[test]
    fn mean_std_of_constant_is_zero() {
        assert_eq!(mean_std(&[2.0, 2.0]), (2.0, 0.0));
        assert_eq!(Rate::default().value(), 0.0);
    }
}
