//! The MEV sandwich study (paper section 5.3) with `pace-mev`'s optimiser: for the paper's pool
//! (10,000 WETH / 10,000,000 DAI, 30 bps fee), victims of several sizes and slippage
//! tolerances, the profit-maximising front-run within the attacker's budget, the victim's loss,
//! the attacker's profit, and whether strict slippage blocks the attack. The optimiser's
//! arithmetic is replayed on the real Uniswap V2 bytecode by `crates/mev/tests`.

use alloy_primitives::U256;
use pace_mev::{AttackOutcome, MevReport, Pool, Victim, optimise};
use std::fmt::Write as _;

/// Victim sizes in WETH.
pub const VICTIMS_WETH: [u64; 3] = [10, 100, 500];
/// Victim slippage tolerances in basis points.
pub const SLIPPAGES_BPS: [u32; 4] = [0, 10, 100, 1_000];
/// The attacker's budget in WETH.
pub const BUDGET_WETH: u64 = 1_000;

use pace_types::units::ether as e18;

/// One row of the study.
#[derive(Debug, Clone, serde::Serialize)]
pub struct SandwichRow {
    /// The victim's input in WETH.
    pub victim_weth: u64,
    /// The victim's slippage tolerance.
    pub slippage_bps: u32,
    /// The optimiser's report.
    pub report: MevReport,
}

/// Runs the optimiser over [`VICTIMS_WETH`] × [`SLIPPAGES_BPS`].
pub fn run() -> Vec<SandwichRow> {
    let pool = Pool::uniswap_v2(e18(10_000), e18(10_000_000));
    let mut rows = Vec::new();
    for victim_weth in VICTIMS_WETH {
        for slippage_bps in SLIPPAGES_BPS {
            let victim =
                Victim::with_slippage(&pool, e18(victim_weth), slippage_bps).expect("valid victim");
            let report = optimise(&pool, &victim, e18(BUDGET_WETH)).expect("valid pool");
            rows.push(SandwichRow {
                victim_weth,
                slippage_bps,
                report,
            });
        }
    }
    rows
}

fn weth(x: U256) -> String {
    let milli = x / U256::from(10u64).pow(U256::from(15u64));
    let milli: u128 = milli.to();
    format!("{}.{:03}", milli / 1000, milli % 1000)
}

/// The study as a markdown section.
pub fn markdown(rows: &[SandwichRow]) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "\n## MEV sandwich optimiser (pool 10,000 WETH / 10,000,000 DAI, fee 30 bps, attacker budget {BUDGET_WETH} WETH)\n"
    );
    let _ = writeln!(
        s,
        "| Victim (WETH) | Slippage (bps) | Outcome | Front-run (WETH) | Victim loss (bps) | Attacker profit (WETH, before gas) | Blocked by strict slippage |"
    );
    let _ = writeln!(s, "|---|---|---|---|---|---|---|");
    for r in rows {
        let m = &r.report;
        let _ = writeln!(
            s,
            "| {} | {} | {:?} | {} | {} | {} | {} |",
            r.victim_weth,
            r.slippage_bps,
            m.outcome,
            weth(m.front_run),
            m.victim_loss_bps,
            weth(m.attacker_profit),
            if m.outcome == AttackOutcome::BlockedBySlippage {
                "yes"
            } else {
                "no"
            }
        );
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tighter_slippage_never_raises_the_attackers_profit() {
        let rows = run();
        for size in VICTIMS_WETH {
            let profits: Vec<U256> = rows
                .iter()
                .filter(|r| r.victim_weth == size)
                .map(|r| r.report.attacker_profit)
                .collect();
            assert!(
                profits.windows(2).all(|w| w[0] <= w[1]),
                "{size} WETH: {profits:?}"
            );
        }
        // Zero tolerance leaves nothing to extract.
        assert!(
            rows.iter()
                .filter(|r| r.slippage_bps == 0)
                .all(|r| r.report.attacker_profit.is_zero())
        );
        assert!(markdown(&rows).contains("| 100 | 100 |"));
    }
}
