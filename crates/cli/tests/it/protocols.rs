//! The protocols agents really call, on a real node through the real `pace run --rpc`: anvil
//! holding the embedded world (`pace world --rpc --deploy`) and the protocols test bed (Uniswap
//! V3, the Universal Router over the Permit2-compatible contract and Aave V3 from their npm
//! bytecode; the Compound-style market and the feeds of the project's own contracts).
//!
//! Each honest case executes, and every balance of the account it moves changes on the node as
//! the simulation said. Each attack exits 1 with nothing broadcast and the account's balances,
//! allowances and rights as they were, and is then executed through the owner's raw path
//! (`executeBatch`, no PDR) to show what it would have cost. Every case starts from the same
//! state (an `evm_snapshot` taken after the bed was deployed).

mod attacks;
mod harness;
mod honest;
mod policies;
mod records;
mod rights;
mod suggested;

use alloy_primitives::{Address, I256, U256, keccak256};
use harness::Harness;
use pace_testkit::protocols::ether;
use std::time::Instant;

/// Interest a debt or a deposit may accrue between the simulated block and the executed one.
fn accrual() -> U256 {
    ether(1) / U256::from(1_000_000u64)
}

/// `amount` less `bps`.
fn less_bps(amount: U256, bps: u64) -> U256 {
    amount * U256::from(10_000 - bps) / U256::from(10_000u64)
}

fn signed(v: U256) -> I256 {
    I256::try_from(v).expect("fits")
}

/// Someone the policies know nothing of.
fn stranger() -> Address {
    Address::from_word(keccak256("pace-cli/protocols/stranger"))
}

type Case = fn(&mut Harness);

/// `(name, case)` pairs of case functions, named as the functions are.
macro_rules! cases {
    ($($module:ident::$case:ident),* $(,)?) => {
        &[$((stringify!($case), $module::$case as Case)),*]
    };
}

/// Every case, honest ones first.
const CASES: &[(&str, Case)] = cases![
    honest::v3_swap_priced_by_its_pool,
    honest::v3_lp_mint,
    honest::v3_lp_withdraw,
    honest::aave_supply_borrow_repay,
    honest::aave_withdraw_within_health,
    honest::repay_all,
    honest::compound_borrow_repay,
    honest::permit2_swap,
    honest::permit2_multi_hop_swap,
    attacks::aave_debt_masked_borrow,
    attacks::compound_debt_masked_borrow,
    attacks::stale_feed,
    attacks::health_factor_below_the_minimum,
    attacks::compound_health_factor_below_the_minimum,
    attacks::v3_swap_paying_a_stranger,
    attacks::v3_position_collected_to_a_stranger,
    rights::permit2_allowance_to_a_stranger,
    rights::credit_delegation_to_a_stranger,
    rights::ownership_handed_to_a_stranger,
    suggested::suggested_policy_runs_an_aave_supply_and_a_v3_swap,
    suggested::policy_check_names_what_does_not_answer,
    suggested::a_plan_with_a_command_nothing_reads_is_left_for_review,
    records::a_record_nothing_reads_is_left_for_review,
];

#[test]
fn the_protocols_bed_on_anvil_through_pace_run() {
    let started = Instant::now();
    let mut h = Harness::start("protocols_on_anvil");
    eprintln!(
        "world and bed on anvil (pid {}) in {:.1} s",
        h.anvil.pid(),
        started.elapsed().as_secs_f64()
    );
    for &(name, case) in CASES {
        let t = Instant::now();
        h.fresh();
        case(&mut h);
        eprintln!("{name}: ok in {:.1} s", t.elapsed().as_secs_f64());
    }
    eprintln!(
        "{} cases in {:.1} s",
        CASES.len(),
        started.elapsed().as_secs_f64()
    );
}
