//! `pace demo`: the scripted agent ([`pace_world::scenarios`]) on the embedded in-process
//! EVM, each proposal through the pipeline's one door (simulate -> decide -> sign -> submit),
//! and the text it prints.

use crate::{EXIT_APPROVE, EXIT_BAD_INPUT, print_stdout};
use alloy_primitives::{Address, B256};
use clap::Parser;
use pace_pipeline::{
    AccountKind, Entry, Evidence, ExecutionResult, InProcessChain, Nonce, Pipeline, PipelineConfig,
    Relayer,
};
use pace_signer::DEV_VERIFIER_KEY;
use pace_types::{CompiledPolicy, Decision, ETH};
use pace_world::{Scenario, World, default_policy, scenarios_for};
use std::fmt::Write as _;

/// Run five agent proposals (a benign swap and four attacks) through simulate -> verify ->
/// sign -> execute on the embedded world, and print what happened to each.
#[derive(Debug, Parser)]
pub struct DemoArgs {
    /// Run them for a Safe 1.4.1 guarded by a PaceModule instead of the world's PaceAccount:
    /// the same assets, the PDRs sent to the module, the calls made by the Safe.
    #[arg(long)]
    pub safe: bool,
}

impl DemoArgs {
    /// Runs the demo; exit code 0 unless the machinery itself fails.
    pub fn run(self) -> u8 {
        let run = Pipeline::from_key(&DEV_VERIFIER_KEY)
            .map_err(|e| e.to_string())
            .and_then(|pipeline| {
                run(
                    &pipeline.with_revert_decoder(pace_world::revert_decoder()),
                    self.safe,
                )
            });
        match run {
            Ok(run) => {
                let holder = match run.safe {
                    None => format!("PaceAccount {}", run.addrs.account),
                    Some(s) => format!("Safe 1.4.1 {} through its PaceModule {}", s.safe, s.module),
                };
                print_stdout(&format!(
                    "PACE demo on the embedded in-process EVM (revm): {holder} with real Uniswap V2 bytecode\n"
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

/// What happened to one scenario.
#[derive(Clone, Debug)]
struct DemoOutcome {
    /// The scenario.
    scenario: Scenario,
    /// The verifier's decision on the proposed intent.
    decision: Decision,
    /// The EIP-712 digest of the signed PDR, when approved.
    pdr_digest: Option<B256>,
    /// For the tampering scenario: the verifier's decision on the tampered intent against the
    /// original simulation (the off-chain intent-hash check).
    tampered_decision: Option<Decision>,
    /// What the chain did, when something was submitted.
    execution: Option<ExecutionResult>,
}

/// The demo's results and the world they ran in.
#[derive(Clone, Debug)]
struct DemoRun {
    /// Who is who in the world.
    addrs: pace_world::Addresses,
    /// The Safe the scenarios ran for, when not the world's account.
    safe: Option<pace_world::SafeAddresses>,
    /// One outcome per scenario, in order.
    outcomes: Vec<DemoOutcome>,
}

/// Runs the five scenarios on a fresh world whose account trusts `pipeline`'s verifier (or, with
/// `safe`, for the world's Safe, whose module does), each approved one submitted from the
/// world's relayer in the next block.
fn run(pipeline: &Pipeline, safe: bool) -> Result<DemoRun, String> {
    let mut world = World::new(pipeline.verifier()).map_err(|e| e.to_string())?;
    let safe = if safe {
        Some(world.add_safe().map_err(|e| e.to_string())?)
    } else {
        None
    };
    let (holder, kind) = match safe {
        Some(s) => (s.safe, AccountKind::PaceModule),
        None => (world.addrs.account, AccountKind::PaceAccount),
    };
    let err = |e: pace_pipeline::Error| e.to_string();
    let relayer = Relayer::free(world.addrs.relayer, world.evm.tx_gas_limit());
    let pipeline = pipeline.clone().with_config(PipelineConfig {
        relayer,
        account: kind,
        ..PipelineConfig::default()
    });
    let mut policy = default_policy(&world.addrs);
    if safe.is_some() {
        policy.account = Some(holder);
    }
    let policy = CompiledPolicy::try_from(policy).expect("the default policy compiles");
    let watch = [world.addrs.weth, world.addrs.dai, world.addrs.usdc, ETH];

    let mut outcomes = Vec::new();
    for scenario in scenarios_for(&world, holder) {
        let simulated = pipeline
            .simulate(&world.evm, scenario.intent.clone(), &policy)
            .map_err(err)?;
        let original = simulated.report().get().clone();
        let now = world.evm.timestamp();
        let assessed = pipeline.decide(Evidence::Simulated(simulated), &policy, now);
        let mut outcome = DemoOutcome {
            decision: assessed.decision().clone(),
            pdr_digest: None,
            tampered_decision: None,
            execution: None,
            scenario: scenario.clone(),
        };
        if assessed.approved() {
            let account = scenario.intent.account;
            let nonce = Nonce {
                key: 0,
                sequence: pace_pipeline::sequence_for(&world.evm, account, 0, kind, Entry::Direct)
                    .map_err(err)?,
            };
            let route = pipeline
                .route(&world.evm, &scenario.intent, &assessed)
                .map_err(err)?;
            let signed = pipeline
                .sign_on(&assessed, &policy, nonce, &[], &route)
                .map_err(err)?;
            outcome.pdr_digest = Some(signed.digest);
            let checked = pipeline
                .preflight(&world.evm, &policy, &assessed, &signed)
                .map_err(err)?;
            // The transaction lands in the next block.
            world.advance(1);
            let mut chain = InProcessChain::new(&mut world.evm, world.addrs.relayer);
            outcome.execution = Some(match &scenario.tampered_calls {
                None => chain.submit(&checked, &watch).map_err(err)?,
                Some(calls) => {
                    let mut altered = scenario.intent.clone();
                    altered.calls.clone_from(calls);
                    let evidence = Evidence::Presented {
                        intent: altered,
                        report: Some(original),
                    };
                    let check = pipeline.decide(evidence, &policy, chain.evm.timestamp());
                    outcome.tampered_decision = Some(check.into_decision());
                    // The agent sends the signed PDR with its own calls, as an attacker would.
                    let data = pace_world::tampered_submission(
                        &pace_pipeline::submission_calldata(&signed, false),
                        calls,
                    )
                    .expect("the pipeline's calldata is a PDR submission");
                    chain.send_now(signed.sender(), data).map_err(err)?
                }
            });
        }
        outcomes.push(outcome);
    }
    Ok(DemoRun {
        addrs: world.addrs,
        safe,
        outcomes,
    })
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
    let guard = if run.safe.is_some() {
        "PaceModule"
    } else {
        "PaceAccount"
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
                    "    on-chain : REVERTED by {guard}, gas {gas_used}: {error}"
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
    use pace_types::ViolationCode as Code;

    #[test]
    fn demo_has_its_five_documented_outcomes() {
        for safe in [false, true] {
            five_outcomes(&run(&Pipeline::from_key(&DEV_VERIFIER_KEY).unwrap(), safe).unwrap());
        }
    }

    /// The documented outcomes, for the world's account or its Safe: the benign swap moves
    /// the holder's two tokens, the attacks are refused, the tampered submission reverts.
    fn five_outcomes(run: &DemoRun) {
        let outcomes = &run.outcomes;
        assert_eq!(outcomes.len(), 5);

        let benign = &outcomes[0];
        assert!(
            benign.decision.approved(),
            "{:?}",
            benign.decision.violations
        );
        assert!(benign.pdr_digest.is_some());
        match &benign.execution {
            Some(ExecutionResult::Executed {
                balance_changes, ..
            }) => assert_eq!(balance_changes.len(), 2),
            other => panic!("benign swap: {other:?}"),
        }

        let injected = &outcomes[1];
        assert!(!injected.decision.approved());
        assert!(injected.decision.has(Code::MetadataPatternMatched));
        assert!(injected.decision.has(Code::RecipientNotAllowed));
        assert!(injected.execution.is_none() && injected.pdr_digest.is_none());

        let unlimited = &outcomes[2];
        assert!(unlimited.decision.has(Code::UnlimitedApproval));
        assert!(unlimited.execution.is_none());

        let slippage = &outcomes[3];
        assert!(slippage.decision.has(Code::SlippageExceeded));
        assert!(slippage.execution.is_none());

        let mutated = &outcomes[4];
        assert!(mutated.decision.approved());
        assert!(
            mutated
                .tampered_decision
                .as_ref()
                .unwrap()
                .has(Code::IntentHashMismatch)
        );
        match &mutated.execution {
            Some(ExecutionResult::Reverted { error, .. }) => {
                assert!(error.starts_with("PaceAccountInvalidSigner"), "{error}")
            }
            other => panic!("calldata mutation: {other:?}"),
        }
    }

    #[test]
    fn formats_units() {
        assert_eq!(format_units("-1500000000000000000", 18), "-1.5");
        assert_eq!(format_units("996006981039903216493", 18), "+996.006981");
        assert_eq!(format_units("5", 6), "+0.000005");
    }

    #[test]
    fn renders_each_scenario_and_the_tampered_submission_revert() {
        let pipeline = Pipeline::from_key(&DEV_VERIFIER_KEY).unwrap();
        let text = render(&run(&pipeline, false).unwrap());
        for i in 1..=5 {
            assert!(text.contains(&format!("[{i}] ")), "{text}");
        }
        assert!(text.contains("REVERTED by PaceAccount"), "{text}");
        let text = render(&run(&pipeline, true).unwrap());
        assert!(text.contains("REVERTED by PaceModule"), "{text}");
    }
}
