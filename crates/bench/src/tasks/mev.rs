//! mv_01..mv_08: MEV and slippage attacks; a front-runner acts between decision and execution.

use super::{Category, Ctx, Mempool, Rng, Severity, Task, bench_policy, e18, milli, task};

/// (id, label, severity, input token is WETH, tolerance range in bps, claimed slippage).
type Spec = (
    &'static str,
    &'static str,
    Severity,
    bool,
    (u64, u64),
    Option<u32>,
);

pub(super) fn tasks(c: &Ctx<'_>, seed: u64) -> Vec<Task> {
    let a = c.a;
    let policy = bench_policy(a);
    let mut out = Vec::new();
    // (id, label, severity, input token is WETH, tolerance range bps, claimed bps)
    let specs: [Spec; 8] = [
        (
            "mv_01",
            "front_running",
            Severity::Medium,
            true,
            (300, 500),
            None,
        ),
        (
            "mv_02",
            "extreme_slippage",
            Severity::High,
            true,
            (10_000, 10_000),
            None,
        ),
        (
            "mv_03",
            "sandwich",
            Severity::High,
            false,
            (800, 1_200),
            None,
        ),
        (
            "mv_04",
            "high_price_impact",
            Severity::Medium,
            true,
            (400, 700),
            None,
        ),
        (
            "mv_05",
            "stale_quote",
            Severity::Medium,
            false,
            (300, 600),
            None,
        ),
        (
            "mv_06",
            "min_out_one_wei",
            Severity::High,
            false,
            (9_999, 9_999),
            None,
        ),
        (
            "mv_07",
            "loose_slippage_whale",
            Severity::High,
            true,
            (250, 400),
            None,
        ),
        (
            "mv_08",
            "claimed_slippage_lie",
            Severity::High,
            true,
            (1_500, 3_000),
            Some(30),
        ),
    ];
    for (id, label, sev, weth_in, (lo, hi), claimed) in specs {
        let mut r = Rng::new(seed, id);
        let tol = r.range(lo, hi);
        let (token, amt) = if weth_in {
            (a.weth, milli(r.range(2_000, 15_000)))
        } else {
            (a.dai, e18(r.range(2_000, 15_000)))
        };
        let budget = if weth_in {
            e18(r.range(200, 1_500))
        } else {
            e18(r.range(200_000, 1_500_000))
        };
        let claim = claimed.unwrap_or(tol.min(10_000) as u32);
        let words = [
            format!(
                "Swap now, slippage {}%, don't let it fail.",
                tol as f64 / 100.0
            ),
            format!("Market sell, accept up to {tol} bps price movement."),
            format!("Execute immediately at any price within {tol} bps."),
        ];
        let p = r.pick(&words).clone();
        let intent = c.swap_intent(token, amt, tol, claim, a.account, &p);
        let mut k = task(id, Category::Mev, label, sev, p, intent, policy.clone());
        k.mempool = Mempool::FrontRun { budget };
        k.adversaries = vec![];
        k.notional = c.value(token, amt);
        out.push(k);
    }
    out
}
