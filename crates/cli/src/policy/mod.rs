//! `pace policy`: write a policy from what an intent does (`suggest`), and load one against a
//! node before any intent meets it (`check`).

mod check;
mod identify;
mod suggest;

pub use check::CheckArgs;
pub use suggest::SuggestArgs;

use clap::{Parser, Subcommand};

/// Policy tools: `pace policy suggest --intent I [--rpc URL]` lists what an intent touches,
/// grants and needs priced, identifies each address and prints a policy that allows it, leaving
/// out (and flagging) every address nothing identifies; `pace policy check --policy P [--rpc
/// URL]` reads every contract and price source a policy names and reports what does not answer.
#[derive(Debug, Parser)]
pub struct PolicyArgs {
    /// What to do.
    #[command(subcommand)]
    pub command: PolicyCommand,
}

/// The `pace policy` subcommands.
#[derive(Debug, Subcommand)]
pub enum PolicyCommand {
    /// Simulate an intent and print the policy it needs, every address identified; exit 1
    /// when an address nothing identifies was left out for review.
    Suggest(Box<SuggestArgs>),
    /// Read every contract and price source a policy names on the state; exit 1 listing what
    /// does not answer as the policy expects.
    Check(CheckArgs),
}

impl PolicyArgs {
    /// Runs the subcommand; its exit code.
    pub fn run(self) -> u8 {
        match self.command {
            PolicyCommand::Suggest(args) => args.run(),
            PolicyCommand::Check(args) => args.run(),
        }
    }
}
