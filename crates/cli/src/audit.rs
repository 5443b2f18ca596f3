//! `pace audit verify`: checks the hash chain of a service's audit log.

use crate::{EXIT_APPROVE, EXIT_BAD_INPUT, EXIT_REJECT, print_stdout};
use clap::{Parser, Subcommand};
use pace_service::store::{PgStore, SqliteStore, Store, StoreSpec};

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
        /// The service's store: `sqlite:PATH` (or a bare PATH) or `postgres://…` (the
        /// password from PGPASSWORD or a password file). Read only: a running instance may
        /// keep writing.
        #[arg(long)]
        store: String,
    },
}

impl AuditArgs {
    /// Runs the subcommand.
    pub fn run(self) -> u8 {
        match self.command {
            AuditCommand::Verify { store } => {
                let spec = match store.parse::<StoreSpec>() {
                    Ok(s) => s,
                    Err(e) => {
                        eprintln!("pace audit verify: {e}");
                        return EXIT_BAD_INPUT;
                    }
                };
                let opened: Result<Box<dyn Store>, _> = match &spec {
                    StoreSpec::Sqlite(path) if !path.exists() => {
                        eprintln!("pace audit verify: {}: no such file", path.display());
                        return EXIT_BAD_INPUT;
                    }
                    // Migrated in place when no instance holds it; read beside one that does.
                    StoreSpec::Sqlite(path) => match SqliteStore::open(path) {
                        Ok(s) => Ok(Box::new(s) as Box<dyn Store>),
                        Err(_) => {
                            SqliteStore::open_read_only(path).map(|s| Box::new(s) as Box<dyn Store>)
                        }
                    },
                    StoreSpec::Postgres(url) => {
                        PgStore::open_existing(url).map(|s| Box::new(s) as Box<dyn Store>)
                    }
                    StoreSpec::Memory => {
                        eprintln!("pace audit verify: an in-memory store has nothing to verify");
                        return EXIT_BAD_INPUT;
                    }
                };
                let checked = match opened {
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
                        eprintln!("pace audit verify: {spec}: {e}");
                        EXIT_BAD_INPUT
                    }
                }
            }
        }
    }
}
