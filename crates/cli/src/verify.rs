//! `pace verify`.

use crate::{EXIT_APPROVE, EXIT_BAD_INPUT, EXIT_REJECT, InputError, input, print_stdout};
use clap::Parser;
use pace_types::Decision;
use std::{
    path::PathBuf,
    time::{SystemTime, UNIX_EPOCH},
};

/// Judge an intent against a policy and print the decision as JSON.
///
/// Exit code 0: approved; 1: rejected; 2: bad input (one line on stderr names the file and
/// the field or position).
#[derive(Debug, Clone, Parser)]
pub struct VerifyArgs {
    /// The agent's intent (JSON).
    #[arg(long, value_name = "FILE")]
    pub intent: PathBuf,
    /// The user's policy (JSON).
    #[arg(long, value_name = "FILE")]
    pub policy: PathBuf,
    /// The simulation report of the intent (JSON).
    #[arg(long, value_name = "FILE")]
    pub simulation: Option<PathBuf>,
    /// Decision time in unix seconds; defaults to the system clock. Freshness is
    /// `now - report.timestamp <= max_simulation_age_secs`.
    #[arg(long, value_name = "UNIX_SECONDS")]
    pub now: Option<u64>,
    /// Where the PDR will go and how it will get there, as `pace run` takes them: the report
    /// must have been simulated for the same (its `execution` records them), or the input is
    /// refused (exit 2).
    #[command(flatten)]
    pub account: crate::account::AccountArgs,
}

impl VerifyArgs {
    /// Runs the command: prints the decision (pretty JSON) and returns the exit code.
    pub fn run(self) -> u8 {
        match self.decide() {
            Ok(decision) => {
                let json = serde_json::to_string_pretty(&decision).expect("decisions serialize");
                print_stdout(&json);
                if decision.approved() {
                    EXIT_APPROVE
                } else {
                    EXIT_REJECT
                }
            }
            Err(e) => {
                eprintln!("pace: {e}");
                EXIT_BAD_INPUT
            }
        }
    }

    /// Loads the inputs and decides. The only impure step, reading the clock when `--now`
    /// is absent, happens here and not in the verifier.
    pub fn decide(&self) -> Result<Decision, InputError> {
        let policy = input::policy(&self.policy)?;
        let intent = input::intent(&self.intent)?;
        let report = self.simulation.as_deref().map(input::report).transpose()?;
        if let (Some(path), Some(env)) = (
            &self.simulation,
            report.as_ref().and_then(|r| r.execution.as_ref()),
        ) {
            let (kind, entry) = (self.account.account_kind, self.account.entry);
            if (env.account_kind, env.entry) != (kind, entry) {
                return Err(InputError {
                    file: path.display().to_string(),
                    message: format!(
                        "execution: simulated for --account-kind {} --entry {}, verified for \
                         --account-kind {kind} --entry {entry}",
                        env.account_kind, env.entry
                    ),
                });
            }
        }
        let now = match self.now {
            Some(now) => now,
            None => SystemTime::now()
                .duration_since(UNIX_EPOCH)
                .map(|d| d.as_secs())
                .map_err(|_| InputError {
                    file: "<system clock>".into(),
                    message: "the clock is before 1970; pass --now".into(),
                })?,
        };
        Ok(pace_verifier::verify(
            &intent,
            &policy,
            report.as_ref(),
            now,
        ))
    }
}
