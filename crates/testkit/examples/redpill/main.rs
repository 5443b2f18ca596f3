//! `make redpill`: a red-pill suite against the real `pace run --rpc`, judged from chain state.
//!
//! A red pill is a contract that behaves honestly when it believes it is simulated and steals
//! when it believes it runs for real. Each case here deploys one (`contracts/mocks/redpill/`),
//! keyed on one thing that differs between a simulation and the account's real transaction
//! (gas price, base fee, origin, block number, timestamp, gas left, access warmth, transient
//! storage between the calls of a batch, the account's own views), and stealing through an
//! asset the simulation does not move (a standing ERC-20 allowance, a Permit2-style grant, an
//! operator approval, the wrong ERC-721 or ERC-1155 id, a vault's underlying), or through the
//! value of what the account receives while every balance moves as simulated (a vault that
//! dilutes its shares: only a revert or a refusal passes).
//!
//! The harness starts its own anvil (loopback, free port, `--timestamp 1699999900`, stopped by
//! its PID at the end, failures included), puts the embedded world on it with `pace world
//! --rpc URL --deploy` (the `pace` of `PACE_BIN`), deploys the red pills from the world's
//! attacker and grants the standing rights from the victim account's owner (both keyless:
//! anvil impersonation). For each case it widens the world's default policy as an honest user
//! would (the red pill as a target, its function, the assets it trades and their prices), has
//! `pace simulate` produce the report an agent would claim from, then runs `pace run` with the
//! world's development verifier key and an anvil key as relayer. Every asset and right of the
//! account is read before and after and compared with the simulation. One line per case:
//!
//! `redpill case=<name> field=<env field> asset=<class> outcome=<…> detail=<…>`
//!
//! with outcome `refused` (not broadcast), `reverted_by_bounds` (broadcast, the account
//! reverted it), `executed_with_loss` (the account lost an asset or a right the simulation did
//! not show it losing) or `clean`; then
//!
//! `redpill: cases=<n> env_fields=<k> executed_with_loss=<x> reverted_by_bounds=<r> refused=<s>`
//!
//! Exit code 1 when any case executed with a loss or could not be set up (`outcome=error`).

mod abi;
mod cases;
mod chain;
mod files;
mod judge;
mod pace;
mod rpc;
mod setup;

use alloy_primitives::{Address, U256};
use cases::Case;
use chain::Chain;
use judge::{Asset, Outcome};
use pace::Pace;
use pace_node::Anvil;
use setup::{Kit, World};
use std::{
    collections::BTreeSet,
    path::Path,
    process::ExitCode,
    time::{Duration, Instant},
};

/// The world's clock starts here: its examples' deadlines hold for an hour (see the README).
const GENESIS_TIMESTAMP: &str = "1699999900";

fn main() -> ExitCode {
    let started = Instant::now();
    let result = run();
    eprintln!("redpill: {:.1} s", started.elapsed().as_secs_f64());
    match result {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::FAILURE,
        Err(e) => {
            eprintln!("redpill: FAILED: {e}");
            ExitCode::FAILURE
        }
    }
}

/// Starts anvil, runs the suite, stops anvil (by its PID, on every path) and cleans up.
fn run() -> Result<bool, String> {
    let bin = pace::pace_bin()?;
    let dir = std::env::temp_dir().join(format!("pace-redpill-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let mut anvil = Anvil::builder()
        .arg("--timestamp")
        .arg(GENESIS_TIMESTAMP)
        .spawn()
        .map_err(|e| format!("anvil: {e}"))?;
    eprintln!("redpill: anvil (pid {}) at {}", anvil.pid(), anvil.url());
    let url = anvil.url().to_owned();
    let out = suite(&bin, &url, &dir);
    anvil.kill();
    let _ = std::fs::remove_dir_all(&dir);
    out
}

#[derive(Default)]
struct Tally {
    executed_with_loss: usize,
    reverted_by_bounds: usize,
    refused: usize,
    clean: usize,
    errors: usize,
}

fn suite(bin: &Path, url: &str, dir: &Path) -> Result<bool, String> {
    let relayer = Anvil::dev_address(1);
    let pace = Pace::new(bin.to_owned(), url, Anvil::dev_key(1).to_string());
    let world = World::from_json(&pace.deploy_world()?)?;
    let chain = Chain::new(url)?;
    let kit = setup::deploy(&chain, &world).map_err(|e| format!("setting up: {e}"))?;
    eprintln!(
        "redpill: red pills deployed, standing rights granted; environment recorder at {}",
        kit.recorder
    );
    let assets = judge::watched(&world, &kit);
    let tolerance = world.policy["outcome_tolerance_bps"].as_u64().unwrap_or(0);
    let all = cases::all(&world, &kit);
    let ctx = Ctx {
        pace: &pace,
        chain: &chain,
        world: &world,
        kit: &kit,
        assets: &assets,
        dir,
        relayer,
        tolerance,
    };
    let mut tally = Tally::default();
    for case in &all {
        let (outcome, detail) = match ctx.case(case).map(|o| value_moved(case, o)) {
            Ok(o) => {
                match o {
                    Outcome::Refused(_) => tally.refused += 1,
                    Outcome::RevertedByBounds(_) => tally.reverted_by_bounds += 1,
                    Outcome::ExecutedWithLoss(_) => tally.executed_with_loss += 1,
                    Outcome::Clean(_) => tally.clean += 1,
                }
                (o.name(), o.detail().to_owned())
            }
            Err(e) => {
                tally.errors += 1;
                ("error", e)
            }
        };
        println!(
            "redpill case={} field={} asset={} outcome={outcome} detail={detail}",
            case.name, case.field, case.asset
        );
    }
    // Last, so its trade moves no price a red-pill case is valued at.
    let control = cases::control(&world, &chain)?;
    let honest = ctx.case(&control);
    let control_clean = matches!(honest, Ok(Outcome::Clean(_)));
    let (name, detail) = match &honest {
        Ok(o) => (o.name(), o.detail().to_owned()),
        Err(e) => ("error", e.clone()),
    };
    println!(
        "redpill control={} outcome={name} detail={detail}",
        control.name
    );
    let fields: BTreeSet<&str> = all.iter().map(|c| c.field).collect();
    println!(
        "redpill: cases={} env_fields={} executed_with_loss={} reverted_by_bounds={} refused={}",
        all.len(),
        fields.len(),
        tally.executed_with_loss,
        tally.reverted_by_bounds,
        tally.refused
    );
    if tally.clean + tally.errors > 0 {
        eprintln!(
            "redpill: {} clean, {} could not be set up",
            tally.clean, tally.errors
        );
    }
    if !control_clean {
        eprintln!(
            "redpill: the honest control swap did not execute as simulated: the pipeline refuses \
             honest intents or the judge misreads the chain, and no case can be trusted"
        );
    }
    Ok(tally.executed_with_loss == 0 && tally.errors == 0 && control_clean)
}

/// A case whose loss is in value only (`Case::value_only`) and that executed lost that value,
/// whatever the balances say.
fn value_moved(case: &Case, outcome: Outcome) -> Outcome {
    match outcome {
        Outcome::Clean(detail) if case.value_only => Outcome::ExecutedWithLoss(format!(
            "executed: what the account received is worth less than simulated ({detail})"
        )),
        o => o,
    }
}

/// What every case runs against.
struct Ctx<'a> {
    pace: &'a Pace,
    chain: &'a Chain,
    world: &'a World,
    kit: &'a Kit,
    assets: &'a [Asset],
    dir: &'a Path,
    relayer: Address,
    tolerance: u64,
}

impl Ctx<'_> {
    /// Checks the case's setup, arms its red pill, writes its policy and intent (claims from
    /// `pace simulate`), runs `pace run` and judges the chain.
    fn case(&self, case: &Case) -> Result<Outcome, String> {
        let (w, chain) = (self.world, self.chain);
        for need in &case.needs {
            judge::check(chain, w, self.kit, need).map_err(|e| format!("not set up: {e}"))?;
        }
        let policy = self.dir.join(format!("{}.policy.json", case.name));
        files::write(&policy, &files::policy(&w.policy, &case.widen))?;
        if let Some((pill, data)) = &case.arm {
            chain.send(
                w.attacker,
                Some(*pill),
                U256::ZERO,
                data,
                "arm the red pill",
            )?;
        }
        if case.later_clock {
            std::thread::sleep(Duration::from_millis(1_100));
        }
        let intent = self.dir.join(format!("{}.intent.json", case.name));
        files::write(
            &intent,
            &files::intent(
                w,
                case,
                &files::claims(&serde_json::Value::Null, w.account)?,
            ),
        )?;
        let report = self.pace.simulate(&intent, &policy)?;
        if report["success"] != true {
            return Err(format!(
                "not set up: the honest path fails in simulation: {}",
                report["revert_reason"]
            ));
        }
        files::write(
            &intent,
            &files::intent(w, case, &files::claims(&report, w.account)?),
        )?;

        let before = judge::snapshot(chain, w, self.kit, self.assets)?;
        let sent = chain.nonce(self.relayer)?;
        let run = self.pace.run(&intent, &policy)?;
        let after = judge::snapshot(chain, w, self.kit, self.assets)?;
        let broadcast = chain.nonce(self.relayer)? > sent;
        let run_changes = run
            .doc
            .as_ref()
            .map(|d| &d["simulation"]["balance_changes"])
            .filter(|v| v.is_array());
        // What executed is judged against the simulation; anything else against no change.
        let executed = broadcast
            && run
                .doc
                .as_ref()
                .is_some_and(|d| d["execution"]["status"] == "executed");
        let expected = if executed {
            judge::Simulated::new(&report, run_changes)?
        } else {
            judge::Simulated::nothing()
        };
        let losses = judge::losses(
            w.account,
            self.assets,
            &before,
            &after,
            &expected,
            self.tolerance,
        );
        judge::classify(&run, broadcast, &losses)
    }
}
