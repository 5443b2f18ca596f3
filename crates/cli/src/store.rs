//! `pace store migrate`: moves a SQLite store into PostgreSQL, its audit chain intact.

use crate::{EXIT_APPROVE, EXIT_BAD_INPUT, EXIT_REJECT, print_stdout};
use clap::{Parser, Subcommand};
use pace_service::store::{PgStore, SqliteStore, Store, StoreSpec};

/// The store of `pace serve`.
#[derive(Debug, Parser)]
pub struct StoreArgs {
    /// What to do.
    #[command(subcommand)]
    pub command: StoreCommand,
}

/// Store subcommands.
#[derive(Debug, Subcommand)]
pub enum StoreCommand {
    /// Copy a SQLite store into an empty PostgreSQL store in one transaction: every proposal,
    /// confirmation, idempotency record, reservation, transaction, setting and charge, and the
    /// audit records byte for byte. The audit chain is verified before and after, and must
    /// end at the same head. The instance on the SQLite file must be stopped (its file lock is
    /// taken); the PostgreSQL store is created or migrated to this build's schema first.
    Migrate {
        /// The SQLite store: `sqlite:PATH` or a bare PATH.
        #[arg(long)]
        from: String,
        /// The PostgreSQL store: `postgres://…` (the password from PGPASSWORD or a password
        /// file).
        #[arg(long)]
        to: String,
    },
}

impl StoreArgs {
    /// Runs the subcommand.
    pub fn run(self) -> u8 {
        match self.command {
            StoreCommand::Migrate { from, to } => match migrate(&from, &to) {
                Ok(line) => {
                    print_stdout(&line);
                    EXIT_APPROVE
                }
                Err((code, e)) => {
                    eprintln!("pace store migrate: {e}");
                    code
                }
            },
        }
    }
}

fn migrate(from: &str, to: &str) -> Result<String, (u8, String)> {
    let bad = |e: String| (EXIT_BAD_INPUT, e);
    let from = from.parse::<StoreSpec>().map_err(|e| bad(e.to_string()))?;
    let to = to.parse::<StoreSpec>().map_err(|e| bad(e.to_string()))?;
    let (StoreSpec::Sqlite(path), StoreSpec::Postgres(url)) = (&from, &to) else {
        return Err(bad(
            "--from is a SQLite store (sqlite:PATH) and --to a PostgreSQL one (postgres://…)"
                .into(),
        ));
    };
    if !path.exists() {
        return Err(bad(format!("{}: no such file", path.display())));
    }
    let source = SqliteStore::open(path).map_err(|e| bad(format!("{from}: {e}")))?;
    let records = match source.verify_audit().map_err(|e| bad(e.to_string()))? {
        Ok(n) => n,
        Err(broken) => {
            return Err((
                EXIT_REJECT,
                format!("{from}: the audit chain is broken ({broken}); nothing was copied"),
            ));
        }
    };
    let head = source.audit_head().map_err(|e| bad(e.to_string()))?;
    let rows = source.export().map_err(|e| bad(e.to_string()))?;
    let target = PgStore::connect(url).map_err(|e| bad(format!("{to}: {e}")))?;
    target
        .import(&rows)
        .map_err(|e| bad(format!("{to}: {e}")))?;
    match target.verify_audit().map_err(|e| bad(e.to_string()))? {
        Ok(n) if n == records && target.audit_head().ok().flatten() == head => {}
        Ok(n) => {
            return Err((
                EXIT_REJECT,
                format!("{to}: {n} audit records after the copy, {records} before"),
            ));
        }
        Err(broken) => {
            return Err((
                EXIT_REJECT,
                format!("{to}: the copied chain is broken: {broken}"),
            ));
        }
    }
    Ok(format!(
        "migrated {from} into {to}: {} proposals, {} reservations, {} transactions, {records} \
         audit records; audit chain intact{}",
        rows.proposals.len(),
        rows.reservations.len(),
        rows.transactions.len(),
        head.map(|(seq, hash)| format!(" (head {seq} {hash})"))
            .unwrap_or_default()
    ))
}
