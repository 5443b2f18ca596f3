//! `pace audit verify`: checks the hash chain of a service's audit log.

use crate::{EXIT_APPROVE, EXIT_BAD_INPUT, EXIT_REJECT, print_stdout};
use clap::{Parser, Subcommand};
use pace_service::store::{SqliteStore, Store};
use std::path::PathBuf;

/// The audit log of `pace serve`.
#[derive(Debug, Parser)]
pub struct AuditArgs {
    /// What to do.
    #[command(subcommand)]
    pub command: AuditCommand,
}

/// Audit subcommands.
#[derive(Debug, Subcommand)]
pub enum AuditCommand {
    /// Verify the hash chain: exit 0 when intact, 1 naming the first edited or deleted record.
    Verify {
        /// The service's SQLite store.
        #[arg(long)]
        store: PathBuf,
    },
}

impl AuditArgs {
    /// Runs the subcommand.
    pub fn run(self) -> u8 {
        match self.command {
            AuditCommand::Verify { store } => {
                if !store.exists() {
                    eprintln!("pace audit verify: {}: no such file", store.display());
                    return EXIT_BAD_INPUT;
                }
                let checked = match SqliteStore::open(&store) {
                    Ok(s) => s.verify_audit(),
                    Err(e) => Err(e),
                };
                match checked {
                    Ok(Ok(n)) => {
                        print_stdout(&format!("audit log intact: {n} records"));
                        EXIT_APPROVE
                    }
                    Ok(Err(broken)) => {
                        eprintln!("pace audit verify: {broken}");
                        EXIT_REJECT
                    }
                    Err(e) => {
                        eprintln!("pace audit verify: {}: {e}", store.display());
                        EXIT_BAD_INPUT
                    }
                }
            }
        }
    }
}
