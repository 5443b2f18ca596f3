//! Properties of the optimiser over random pools, victims and budgets.

use alloy_primitives::{I256, U256};
use pace_mev::{AttackOutcome, Pool, Victim, optimise, simulate};
use proptest::prelude::*;

fn e15(n: u64) -> U256 {
    U256::from(n) * U256::from(1_000_000_000_000_000u64)
}

prop_compose! {
    fn case()(
        r_in in 1_000u64..100_000_000,       // 1 .. 100,000 tokens (in units of 1e-3)
        price in 1u64..10_000,
        x in 1u64..20_000_000,               // victim: up to 20,000 tokens
        slippage in 0u32..3_000,
        budget in 0u64..200_000_000,
        fee in prop_oneof![Just(30u32), 0u32..100],
    ) -> (Pool, U256, u32, U256) {
        let pool = Pool {
            reserve_in: e15(r_in),
            reserve_out: e15(r_in) * U256::from(price),
            fee_bps: fee,
        };
        (pool, e15(x), slippage, e15(budget))
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 128, ..ProptestConfig::default() })]

    #[test]
    fn chosen_profit_is_never_negative_and_matches_replay((pool, x, slippage, budget) in case()) {
        let victim = Victim::with_slippage(&pool, x, slippage).unwrap();
        let r = optimise(&pool, &victim, budget).unwrap();
        prop_assert!(r.front_run <= budget);
        let s = simulate(&pool, &victim, r.front_run);
        prop_assert_eq!(s, r.sandwich);
        prop_assert!(s.profit >= I256::ZERO);
        prop_assert!(!s.victim_reverts);
        prop_assert!(r.victim_out_attacked >= victim.amount_out_min);
        prop_assert_eq!(I256::from_raw(r.attacker_profit), s.profit);
        if r.outcome == AttackOutcome::Profitable {
            prop_assert!(r.attacker_profit > U256::ZERO);
        } else {
            prop_assert_eq!(r.front_run, U256::ZERO);
            prop_assert_eq!(r.victim_loss, U256::ZERO);
        }
    }

    #[test]
    fn tighter_slippage_never_increases_profit(
        (pool, x, slippage, budget) in case(),
        tighter in 0u32..3_000,
    ) {
        let tighter = tighter.min(slippage);
        let loose = optimise(&pool, &Victim::with_slippage(&pool, x, slippage).unwrap(), budget).unwrap();
        let tight = optimise(&pool, &Victim::with_slippage(&pool, x, tighter).unwrap(), budget).unwrap();
        // The optimiser searches in integers: the two optima may differ by one wei of rounding
        // (a shrunk counterexample: 65416763892458905 against 65416763892458904).
        prop_assert!(tight.attacker_profit <= loose.attacker_profit + U256::from(1u8),
            "{} bps: {} > {} bps: {}", tighter, tight.attacker_profit, slippage, loose.attacker_profit);
        prop_assert!(tight.victim_loss_bps <= tighter);
    }

    #[test]
    fn zero_budget_means_no_attack((pool, x, slippage, _budget) in case()) {
        let victim = Victim::with_slippage(&pool, x, slippage).unwrap();
        let r = optimise(&pool, &victim, U256::ZERO).unwrap();
        prop_assert!(matches!(r.outcome, AttackOutcome::NoBudget | AttackOutcome::VictimReverts));
        prop_assert_eq!(r.front_run, U256::ZERO);
        prop_assert_eq!(r.attacker_profit, U256::ZERO);
        prop_assert_eq!(r.victim_out_attacked, r.victim_out_clean);
    }

    #[test]
    fn chosen_size_beats_its_neighbours((pool, x, slippage, budget) in case()) {
        let victim = Victim::with_slippage(&pool, x, slippage).unwrap();
        let r = optimise(&pool, &victim, budget).unwrap();
        prop_assume!(r.outcome == AttackOutcome::Profitable);
        let one = U256::from(1);
        let neighbours = [r.front_run - one, r.front_run + one];
        for n in neighbours {
            let s = simulate(&pool, &victim, n);
            if n <= budget && s.feasible() {
                prop_assert!(s.profit <= r.sandwich.profit, "{} beats {}", n, r.front_run);
            }
        }
        // A much larger or smaller front-run is no better either.
        for n in [r.front_run / U256::from(2), r.front_run * U256::from(2)] {
            let s = simulate(&pool, &victim, n);
            if n <= budget && s.feasible() {
                prop_assert!(s.profit <= r.sandwich.profit);
            }
        }
    }
}
