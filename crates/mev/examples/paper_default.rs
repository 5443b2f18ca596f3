//! The paper's default pool (10,000 WETH / 10,000,000 DAI, 0.3 % fee) with a 10 WETH victim at
//! 1 % and 0.1 % slippage and a 100 WETH attacker budget, plus a larger victim for contrast.
//!
//! `cargo run -p pace-mev --example paper_default`

use alloy_primitives::utils::format_ether;
use pace_mev::{Pool, Victim, optimise};
use pace_testkit::ether;

fn main() {
    let pool = Pool::uniswap_v2(ether(10_000), ether(10_000_000));
    for (victim_weth, slippage_bps, budget) in [
        (10, 100, 100),
        (10, 10, 100),
        (100, 100, 1_000),
        (100, 10, 1_000),
    ] {
        let victim = Victim::with_slippage(&pool, ether(victim_weth), slippage_bps).unwrap();
        let r = optimise(&pool, &victim, ether(budget)).unwrap();
        println!(
            "victim {victim_weth} WETH @ {slippage_bps} bps, budget {budget} WETH: {:?}\n  \
             front-run {} WETH (max feasible {}), victim out clean {} DAI, attacked {} DAI, \
             loss {} DAI ({} bps), attacker profit {} WETH; unconstrained: front-run {} WETH, \
             profit {} WETH; {} evaluations",
            r.outcome,
            format_ether(r.front_run),
            format_ether(r.max_feasible_front_run),
            format_ether(r.victim_out_clean),
            format_ether(r.victim_out_attacked),
            format_ether(r.victim_loss),
            r.victim_loss_bps,
            format_ether(r.attacker_profit),
            format_ether(r.unconstrained_front_run),
            format_ether(r.unconstrained_profit),
            r.evaluations,
        );
    }
}
