//! The `pace` command line.
//!
//! `pace verify` loads an intent, a policy and optionally a simulation report, runs the pure
//! verifier and prints the decision as JSON; its exit code is [`EXIT_APPROVE`] (0),
//! [`EXIT_REJECT`] (1) or [`EXIT_BAD_INPUT`] (2). Bad input (an unreadable file, malformed
//! JSON, a wrong type, an unknown field, an invalid regex) is reported as one line on stderr
//! naming the file and the field or position; the command never panics on input.
//!
//! The verifier never reads a clock: `pace verify` passes it `--now`, or the system clock
//! when `--now` is not given. `pace hash` prints the content hashes of documents.
//!
//! `pace demo` runs the scripted agent on the embedded in-process world; `pace world` prints
//! that world's addresses and default policy; `pace simulate` prints the SimulationReport of
//! an intent; `pace policy suggest` prints the policy an intent needs and `pace policy check`
//! reads a policy's sources on a node; `pace run --rpc` runs the whole pipeline against a node. `pace serve` serves
//! agents over HTTP and MCP (`pace token` makes its API tokens); `pace audit verify` checks
//! its audit log's hash chain.
//!
//! `pace deploy` puts a PaceAccount at its deterministic CREATE2 address; `pace admin` runs
//! its owner's functions (pause, set-verifier, ...); `pace delegate` hands an EOA to
//! `PaceDelegate` with EIP-7702 (its key signs offline, a relayer sends the type-4 transaction);
//! `pace world --rpc URL --deploy` writes the embedded world onto a development node.

mod account;
mod admin;
mod audit;
mod bench;
mod delegate;
mod demo;
mod deploy;
mod hash;
mod helpers;
mod input;
mod policy;
mod run;
mod safe;
mod sender;
mod serve;
mod simulate;
mod store;
mod verify;
mod world;

pub use account::AccountArgs;
pub use admin::{AdminAction, AdminArgs, OWNER_KEY_ENV, Target};
pub use audit::{AuditArgs, AuditCommand};
pub use bench::BenchArgs;
pub use delegate::{
    DelegateAction, DelegateArgs, Delegation, EOA_KEY_ENV, PaceDelegate, RELAYER_KEY_ENV, SendArgs,
    SignArgs, setup_digest,
};
pub use demo::DemoArgs;
pub use deploy::{
    CREATE2_DEPLOYER, DEPLOYER_KEY_ENV, DeployArgs, default_salt, init_code, predict,
};
pub use hash::HashArgs;
pub use helpers::DeployHelpersArgs;
pub use input::InputError;
pub use policy::{CheckArgs, PolicyArgs, PolicyCommand, SuggestArgs};
pub use run::{EXIT_UNCERTAIN, RunArgs};
pub use sender::KEYSTORE_PASSWORD_ENV;
pub use serve::{ServeArgs, TokenArgs};
pub use simulate::SimulateArgs;
pub use store::{StoreArgs, StoreCommand};
pub use verify::VerifyArgs;
pub use world::WorldArgs;

use clap::{Parser, Subcommand};
use std::process::ExitCode;

/// Exit code of an approved decision (and of successful commands).
pub const EXIT_APPROVE: u8 = 0;
/// Exit code of a rejected decision.
pub const EXIT_REJECT: u8 = 1;
/// Exit code of bad input or bad usage.
pub const EXIT_BAD_INPUT: u8 = 2;

/// `pace`: policy-attested execution for AI agents on Ethereum.
#[derive(Debug, Parser)]
#[command(name = "pace", version, about, long_about = None)]
pub struct Cli {
    /// What to do.
    #[command(subcommand)]
    pub command: Command,
}

/// The subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Judge an intent (and its simulation report) against a policy; print the decision.
    Verify(VerifyArgs),
    /// Print the content hashes of an intent, a policy and/or a simulation report.
    Hash(HashArgs),
    /// Run the scripted agent's five proposals end to end on the embedded in-process EVM.
    Demo(DemoArgs),
    /// Simulate an intent on revm (embedded world or a node's forked state); print the report.
    Simulate(SimulateArgs),
    /// Policy tools: `suggest` the policy an intent needs from its simulation, every address
    /// identified; `check` a policy's contracts and price sources against a node.
    Policy(PolicyArgs),
    /// The whole pipeline against a node: simulate, verify, sign, submit, wait for the receipt.
    Run(RunArgs),
    /// Print the embedded world's addresses and default policy.
    World(WorldArgs),
    /// Run the paper's benchmark (Tables 1, 2, 4) with real EVM execution of every approved trial.
    Bench(BenchArgs),
    /// Serve agents over HTTP and MCP: propose, confirm, status, history, pending (the
    /// embedded world, or a node with --rpc).
    Serve(Box<ServeArgs>),
    /// Make an API token for `pace serve` (prints the secret once and its hashed grant).
    Token(TokenArgs),
    /// The audit log of `pace serve` (`pace audit verify --store FILE|URL`).
    Audit(AuditArgs),
    /// The store of `pace serve` (`pace store migrate --from sqlite:PATH --to postgres://…`).
    Store(StoreArgs),
    /// Deploy PaceAccount at its deterministic CREATE2 address (as script/DeployPaceAccount.s.sol).
    Deploy(DeployArgs),
    /// Deploy the stateless helpers post-conditions read (PaceShareValue) at their one address
    /// on every chain, where they are not yet.
    DeployHelpers(DeployHelpersArgs),
    /// The owner's functions of a PaceAccount: pause, unpause, set-verifier, cancel-nonces,
    /// set-budget, revoke.
    Admin(AdminArgs),
    /// Delegate an EOA to PaceDelegate with EIP-7702: sign the authorization and set-up
    /// offline with the EOA's key, send them from a relayer as one type-4 transaction.
    Delegate(DelegateArgs),
}

impl Cli {
    /// Runs the command and returns its exit code.
    pub fn run(self) -> u8 {
        match self.command {
            Command::Verify(args) => args.run(),
            Command::Hash(args) => args.run(),
            Command::Demo(args) => args.run(),
            Command::Simulate(args) => args.run(),
            Command::Policy(args) => args.run(),
            Command::Run(args) => args.run(),
            Command::World(args) => args.run(),
            Command::Bench(args) => args.run(),
            Command::Serve(args) => (*args).run(),
            Command::Token(args) => args.run(),
            Command::Audit(args) => args.run(),
            Command::Store(args) => args.run(),
            Command::Deploy(args) => args.run(),
            Command::DeployHelpers(args) => args.run(),
            Command::Admin(args) => args.run(),
            Command::Delegate(args) => args.run(),
        }
    }
}

/// Parses the process arguments and runs the command.
pub fn run() -> ExitCode {
    match Cli::try_parse() {
        Ok(cli) => ExitCode::from(cli.run()),
        Err(e) => {
            // Help and version go to stdout with 0; usage errors to stderr with 2.
            let _ = e.print();
            ExitCode::from(if e.use_stderr() {
                EXIT_BAD_INPUT
            } else {
                EXIT_APPROVE
            })
        }
    }
}

/// Prints `text` and a newline on stdout. A closed stdout is reported on stderr but does not
/// change the exit code, which carries the outcome.
pub(crate) fn print_stdout(text: &str) {
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    if let Err(e) = writeln!(out, "{text}").and_then(|()| out.flush()) {
        eprintln!("pace: warning: cannot write to stdout: {e}");
    }
}

/// `e` and its causes, `: `-separated, skipping a cause whose text is already shown (a TLS
/// refusal is several layers below "error sending request").
pub(crate) fn causes(e: &(dyn std::error::Error + 'static)) -> String {
    let mut text = e.to_string();
    let mut next = e.source();
    while let Some(cause) = next {
        let part = cause.to_string();
        if !text.contains(&part) {
            text.push_str(": ");
            text.push_str(&part);
        }
        next = cause.source();
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;

    #[test]
    fn cli_definition_is_valid() {
        Cli::command().debug_assert();
    }

    #[test]
    fn causes_are_spelt_out_once() {
        #[derive(Debug)]
        struct Outer(std::io::Error);
        impl std::fmt::Display for Outer {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("error sending request")
            }
        }
        impl std::error::Error for Outer {
            fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
                Some(&self.0)
            }
        }
        let inner = std::io::Error::other("invalid peer certificate: UnknownIssuer");
        assert_eq!(
            causes(&Outer(inner)),
            "error sending request: invalid peer certificate: UnknownIssuer"
        );
        let plain = std::io::Error::other("refused");
        assert_eq!(causes(&plain), "refused");
    }
}
