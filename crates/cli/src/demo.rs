//! `pace demo`: the scripted agent on the embedded in-process EVM, and the text it prints.
//!
//! The scenarios and their typed outcomes come from [`pace_pipeline::demo`]; this module only
//! renders them.

use crate::{EXIT_APPROVE, EXIT_BAD_INPUT, print_stdout};
use alloy_primitives::Address;
use clap::Parser;
use pace_pipeline::{ExecutionResult, demo::DemoRun};
use pace_signer::{DEV_VERIFIER_KEY, PdrSigner};
use pace_types::ETH;
use std::fmt::Write as _;

/// Run five agent proposals (a benign swap and four attacks) through simulate -> verify ->
/// sign -> execute on the embedded world, and print what happened to each.
#[derive(Debug, Parser)]
pub struct DemoArgs {}

impl DemoArgs {
    /// Runs the demo; exit code 0 unless the machinery itself fails.
    pub fn run(self) -> u8 {
        let run = PdrSigner::from_bytes(&DEV_VERIFIER_KEY)
            .map_err(pace_pipeline::Error::from)
            .and_then(|signer| pace_pipeline::demo::run(&signer));
        match run {
            Ok(run) => {
                print_stdout(&format!(
                    "PACE demo on the embedded in-process EVM (revm): PaceAccount {} with real Uniswap V2 bytecode\n",
                    run.addrs.account
                ));
                print_stdout(render(&run).trim_end());
                EXIT_APPROVE
            }
            Err(e) => {
                eprintln!("pace demo: {e}");
                EXIT_BAD_INPUT
            }
        }
    }
}

/// A human-readable account of the outcomes.
fn render(run: &DemoRun) -> String {
    let (world_addrs, outcomes) = (&run.addrs, &run.outcomes);
    let symbol = |t: Address| {
        if t == world_addrs.weth {
            ("WETH", 18)
        } else if t == world_addrs.dai {
            ("DAI", 18)
        } else if t == world_addrs.usdc {
            ("USDC", 6)
        } else if t == ETH {
            ("ETH", 18)
        } else {
            ("?", 0)
        }
    };
    let mut out = String::new();
    for (i, o) in outcomes.iter().enumerate() {
        let _ = writeln!(out, "[{}] {}: {}", i + 1, o.scenario.name, o.scenario.story);
        let verdict = if o.decision.approved() {
            "APPROVE"
        } else {
            "REJECT"
        };
        let _ = writeln!(out, "    decision : {verdict}");
        for v in &o.decision.violations {
            let _ = writeln!(out, "      - {}: {}", v.code, v.message);
        }
        if let Some(d) = o.pdr_digest {
            let _ = writeln!(out, "    pdr      : signed, EIP-712 digest {d}");
        } else {
            let _ = writeln!(
                out,
                "    pdr      : not signed (unsigned audit record kept)"
            );
        }
        if let Some(t) = &o.tampered_decision {
            let codes: Vec<_> = t.violations.iter().map(|v| v.code.as_str()).collect();
            let _ = writeln!(
                out,
                "    tampered : off-chain re-check of the altered intent: {}",
                codes.join(", ")
            );
        }
        match &o.execution {
            None => {
                let _ = writeln!(out, "    on-chain : nothing submitted");
            }
            Some(ExecutionResult::Executed {
                gas_used,
                balance_changes,
                ..
            }) => {
                let changes: Vec<String> = balance_changes
                    .iter()
                    .map(|c| {
                        let (sym, dec) = symbol(c.token);
                        format!("{} {sym}", format_units(&c.delta.to_string(), dec))
                    })
                    .collect();
                let _ = writeln!(
                    out,
                    "    on-chain : EXECUTED, gas {gas_used}, balance changes: {}",
                    changes.join(", ")
                );
            }
            Some(ExecutionResult::Reverted {
                gas_used, error, ..
            }) => {
                let _ = writeln!(
                    out,
                    "    on-chain : REVERTED by PaceAccount, gas {gas_used}: {error}"
                );
            }
            Some(ExecutionResult::Uncertain { reason, .. }) => {
                let _ = writeln!(out, "    on-chain : UNCERTAIN: {reason}");
            }
        }
        out.push('\n');
    }
    out
}

/// `-1500000000000000000` with 18 decimals -> `-1.5`.
fn format_units(raw: &str, decimals: usize) -> String {
    let (sign, digits) = raw.strip_prefix('-').map_or(("+", raw), |d| ("-", d));
    if decimals == 0 {
        return format!("{sign}{digits}");
    }
    let padded = format!("{digits:0>width$}", width = decimals + 1);
    let (int, frac) = padded.split_at(padded.len() - decimals);
    let frac = frac.trim_end_matches('0');
    if frac.is_empty() {
        format!("{sign}{int}")
    } else {
        format!("{sign}{int}.{}", &frac[..frac.len().min(6)])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats_units() {
        assert_eq!(format_units("-1500000000000000000", 18), "-1.5");
        assert_eq!(format_units("996006981039903216493", 18), "+996.006981");
        assert_eq!(format_units("5", 6), "+0.000005");
    }

    #[test]
    fn renders_each_scenario_and_the_tampered_submission_revert() {
        let signer = PdrSigner::from_bytes(&DEV_VERIFIER_KEY).unwrap();
        let text = render(&pace_pipeline::demo::run(&signer).unwrap());
        for i in 1..=5 {
            assert!(text.contains(&format!("[{i}] ")), "{text}");
        }
        assert!(text.contains("REVERTED by PaceAccount"), "{text}");
    }
}
