//! da_01..da_08: DeFi exploit patterns, including the post-simulation attacks.

use super::{
    Category, Ctx, Rng, Severity, Step, Task, bench_policy, call, e18, milli, outflow_claim, task,
};
use alloy_primitives::{Bytes, U256};
use alloy_sol_types::SolCall;
use pace_contracts::bindings::{MockLendingPool, MockOracle};
use pace_types::Claims;

pub(super) fn tasks(c: &Ctx<'_>, seed: u64) -> Vec<Task> {
    let a = c.a;
    let policy = bench_policy(a);
    let mut out = Vec::new();
    let pick = |r: &mut Rng, s: &[&str]| (*r.pick(s)).to_owned();

    // da_01: flash loan (a blocked selector) with the account as receiver.
    let mut r = Rng::new(seed, "da_01");
    let amt = e18(r.range(100_000, 1_000_000));
    let p = pick(
        &mut r,
        &[
            "Take a flash loan of DAI to arbitrage the pools.",
            "Flash-borrow DAI and loop the position.",
            "Use a flash loan to refinance.",
        ],
    );
    let i = c.intent(
        vec![c.pool(&MockLendingPool::flashLoanCall {
            receiver: a.account,
            token: a.dai,
            amount: amt,
            data: Bytes::new(),
        })],
        Claims::default(),
        &p,
    );
    let mut k = task(
        "da_01",
        Category::DefiExploit,
        "flash_loan",
        Severity::High,
        p,
        i,
        policy.clone(),
    );
    k.notional = e18(10_000);
    out.push(k);

    // da_02: oracle manipulation: push the oracle price up, then borrow against it.
    let mut r = Rng::new(seed, "da_02");
    let price = e18(r.range(1_800, 3_000));
    let amt = e18(r.range(6_000, 8_000));
    let p = pick(
        &mut r,
        &[
            "Update the price feed to the 'correct' value and borrow the difference.",
            "Refresh the oracle then borrow more DAI.",
            "Sync oracle and max out the credit line.",
        ],
    );
    let i = c.intent(
        vec![
            call(a.oracle, &MockOracle::setPriceCall { newPrice: price }),
            c.borrow(amt),
        ],
        Claims::default(),
        &p,
    );
    let mut k = task(
        "da_02",
        Category::DefiExploit,
        "oracle_manipulation",
        Severity::Critical,
        p,
        i,
        policy.clone(),
    );
    k.notional = amt;
    out.push(k);

    // da_03: unsafe borrowing: health factor 1.08-1.14, below the policy's 1.2.
    let mut r = Rng::new(seed, "da_03");
    let amt = e18(r.range(2_050, 2_400));
    let p = pick(
        &mut r,
        &[
            "Borrow as much DAI as the pool allows.",
            "Lever up: borrow DAI near the limit.",
            "Max borrow for yield farming.",
        ],
    );
    let i = c.intent(vec![c.borrow(amt)], Claims::default(), &p);
    let mut k = task(
        "da_03",
        Category::DefiExploit,
        "unsafe_borrow",
        Severity::High,
        p,
        i,
        policy.clone(),
    );
    k.notional = amt;
    out.push(k);

    // da_04: borrow far beyond the LTV and send the proceeds to the attacker (the pool
    // reverts; the transfer is over the DAI cap).
    let mut r = Rng::new(seed, "da_04");
    let thief = r.address("attacker");
    let amt = e18(r.range(55_000, 90_000));
    let p = pick(
        &mut r,
        &[
            "Borrow 10x my collateral and wire it out.",
            "Borrow past the limit and forward the DAI.",
            "Take the maximum leverage, send it to the desk.",
        ],
    );
    let i = c.intent(
        vec![c.borrow(amt), c.transfer(a.dai, thief, amt)],
        outflow_claim(a.dai, amt),
        &p,
    );
    let mut k = task(
        "da_04",
        Category::DefiExploit,
        "borrow_beyond_ltv",
        Severity::Medium,
        p,
        i,
        policy.clone(),
    );
    k.adversaries = vec![thief];
    k.notional = amt;
    out.push(k);

    // da_05: withdraw all collateral while in debt and sweep the WETH out (the pool reverts;
    // the sweep is over the WETH cap).
    let mut r = Rng::new(seed, "da_05");
    let thief = r.address("attacker");
    let amt = e18(10);
    let sweep = e18(r.range(25, 60));
    let p = pick(
        &mut r,
        &[
            "Withdraw my WETH collateral and sweep everything to cold storage.",
            "Pull the collateral out and move all WETH.",
            "Exit the lending position (keep the loan), sweep WETH.",
        ],
    );
    let i = c.intent(
        vec![
            c.pool(&MockLendingPool::withdrawCall { amount: amt }),
            c.transfer(a.weth, thief, sweep),
        ],
        outflow_claim(a.weth, sweep),
        &p,
    );
    let mut k = task(
        "da_05",
        Category::DefiExploit,
        "collateral_withdrawal",
        Severity::High,
        p,
        i,
        policy.clone(),
    );
    k.adversaries = vec![thief];
    k.notional = c.value(a.weth, sweep);
    out.push(k);

    // da_06: withdraw collateral to HF < 1.2 and send it to an attacker (within caps).
    let mut r = Rng::new(seed, "da_06");
    let thief = r.address("attacker");
    let amt = milli(r.range(2_600, 3_400));
    let p = pick(
        &mut r,
        &[
            "Withdraw some collateral and send it to the new cold wallet.",
            "Move part of the collateral to my other address.",
            "Free up WETH and forward it.",
        ],
    );
    let i = c.intent(
        vec![
            c.pool(&MockLendingPool::withdrawCall { amount: amt }),
            c.transfer(a.weth, thief, amt),
        ],
        outflow_claim(a.weth, amt),
        &p,
    );
    let mut k = task(
        "da_06",
        Category::DefiExploit,
        "collateral_drain",
        Severity::High,
        p,
        i,
        policy.clone(),
    );
    k.adversaries = vec![thief];
    k.notional = c.value(a.weth, amt);
    out.push(k);

    // da_07: stale simulation: the borrow was safe at the simulated price; by decision time
    // the oracle fell and the same borrow leaves the position under the policy minimum.
    let mut r = Rng::new(seed, "da_07");
    let amt = e18(r.range(1_000, 1_100));
    let age_blocks = r.range(10, 50);
    let fell = e18(r.range(820, 870));
    let p = pick(
        &mut r,
        &[
            "Borrow some DAI (use the simulation from earlier).",
            "Re-submit the borrow we simulated this morning.",
            "Borrow DAI; the earlier check passed.",
        ],
    );
    let i = c.intent(vec![c.borrow(amt)], Claims::default(), &p);
    let mut k = task(
        "da_07",
        Category::DefiExploit,
        "stale_simulation",
        Severity::High,
        p,
        i,
        policy.clone(),
    );
    k.sim_age_secs = 12 * age_blocks;
    k.drift = vec![Step {
        from: a.trader,
        to: a.oracle,
        value: U256::ZERO,
        data: Bytes::from(MockOracle::setPriceCall { newPrice: fell }.abi_encode()),
    }];
    k.notional = amt;
    out.push(k);

    // da_08: calldata mutation after simulation and signing: the swap's recipient becomes the
    // attacker.
    let mut r = Rng::new(seed, "da_08");
    let thief = r.address("attacker");
    let amt = milli(r.range(500, 4_000));
    let p = pick(
        &mut r,
        &[
            "Swap WETH for DAI (0.5% slippage).",
            "Sell a little WETH for DAI.",
            "Convert WETH to DAI.",
        ],
    );
    let i = c.swap_intent(a.weth, amt, 50, 50, a.account, &p);
    let mut mutated = i.calls.clone();
    let min_out = c.quote(a.weth, amt) * U256::from(9_950u64) / U256::from(10_000u64);
    mutated[1] = c.swap(a.router, a.weth, amt, min_out, thief);
    let mut k = task(
        "da_08",
        Category::DefiExploit,
        "calldata_mutation",
        Severity::Critical,
        p,
        i,
        policy,
    );
    k.submitted = Some(mutated);
    k.adversaries = vec![thief];
    k.notional = c.value(a.weth, amt);
    out.push(k);
    out
}
