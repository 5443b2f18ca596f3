//! `--store`: which store, and how it is named in messages.
//!
//! - `sqlite:PATH` (or a bare `PATH`, as earlier releases took it): one SQLite file;
//! - `sqlite::memory:`: SQLite in memory (lost on exit);
//! - `postgres://[user@]host[:port]/database[?sslmode=verify-full&sslrootcert=ca.pem]` (or
//!   `postgresql://`): PostgreSQL, shared by several instances.
//!
//! The password never goes on the command line: a URL carrying one is refused. It comes from
//! `PGPASSWORD` or a password file (`PGPASSFILE`, default `~/.pgpass`), as for `psql`. A URL is
//! shown in messages with any password replaced by `***` ([`redact`]).

use super::{PgStore, SqliteStore, Store};
use crate::{Error, Result};
use std::path::PathBuf;

/// Where the store is.
#[derive(Clone, PartialEq, Eq)]
pub enum StoreSpec {
    /// SQLite in memory.
    Memory,
    /// A SQLite file.
    Sqlite(PathBuf),
    /// A PostgreSQL database (its URL, without a password).
    Postgres(String),
}

impl std::fmt::Debug for StoreSpec {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.to_string())
    }
}

impl std::fmt::Display for StoreSpec {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Memory => f.write_str("sqlite::memory:"),
            Self::Sqlite(path) => write!(f, "sqlite:{}", path.display()),
            Self::Postgres(url) => f.write_str(&redact(url)),
        }
    }
}

impl std::str::FromStr for StoreSpec {
    type Err = Error;

    fn from_str(s: &str) -> Result<Self> {
        let lower = s.to_ascii_lowercase();
        if lower.starts_with("postgres://") || lower.starts_with("postgresql://") {
            if has_password(s) {
                return Err(Error::Config(format!(
                    "--store {}: the password must not be on the command line; set PGPASSWORD \
                     or put it in a password file (PGPASSFILE, default ~/.pgpass)",
                    redact(s)
                )));
            }
            return Ok(Self::Postgres(s.to_owned()));
        }
        if s == "sqlite::memory:" || s == ":memory:" {
            return Ok(Self::Memory);
        }
        if let Some(path) = s.strip_prefix("sqlite:") {
            let path = path.strip_prefix("//").unwrap_or(path);
            if path.is_empty() {
                return Err(Error::Config("--store sqlite:PATH needs a path".into()));
            }
            return Ok(Self::Sqlite(PathBuf::from(path)));
        }
        if s.contains("://") {
            return Err(Error::Config(format!(
                "--store {}: a store is sqlite:PATH, a file path, or postgres://…",
                redact(s)
            )));
        }
        if s.is_empty() {
            return Err(Error::Config("--store needs a path or a URL".into()));
        }
        Ok(Self::Sqlite(PathBuf::from(s)))
    }
}

impl StoreSpec {
    /// Whether this store can be shared by several instances.
    pub fn shared(&self) -> bool {
        matches!(self, Self::Postgres(_))
    }

    /// Whether it survives the process.
    pub fn durable(&self) -> bool {
        !matches!(self, Self::Memory)
    }
}

/// Opens (creating or migrating as needed) the store `spec` names. A PostgreSQL store that
/// cannot be reached within its connect timeout is an error naming the URL (redacted), never
/// a hang.
pub fn open(spec: &StoreSpec) -> Result<Box<dyn Store>> {
    Ok(match spec {
        StoreSpec::Memory => Box::new(SqliteStore::in_memory()?),
        StoreSpec::Sqlite(path) => Box::new(SqliteStore::open(path)?),
        StoreSpec::Postgres(url) => Box::new(PgStore::connect(url)?),
    })
}

/// Whether the URL carries a password (in its user info, or as a `password` parameter).
fn has_password(url: &str) -> bool {
    let rest = url.split_once("://").map_or(url, |(_, r)| r);
    let authority = rest.split(['/', '?']).next().unwrap_or("");
    let userinfo_password = authority
        .rsplit_once('@')
        .is_some_and(|(userinfo, _)| userinfo.contains(':'));
    let param = url.split_once('?').is_some_and(|(_, q)| {
        q.split('&')
            .any(|kv| kv.to_ascii_lowercase().starts_with("password="))
    });
    userinfo_password || param
}

/// `url` with any password replaced by `***`: what messages and logs show.
pub fn redact(url: &str) -> String {
    let (scheme, rest) = match url.split_once("://") {
        Some((s, r)) => (Some(s), r),
        None => (None, url),
    };
    let (authority, tail) = match rest.find(['/', '?']) {
        Some(i) => rest.split_at(i),
        None => (rest, ""),
    };
    let authority = match authority.rsplit_once('@') {
        Some((userinfo, host)) => match userinfo.split_once(':') {
            Some((user, _)) => format!("{user}:***@{host}"),
            None => format!("{userinfo}@{host}"),
        },
        None => authority.to_owned(),
    };
    let tail = match tail.split_once('?') {
        Some((path, query)) => {
            let query: Vec<String> = query
                .split('&')
                .map(|kv| {
                    if kv.to_ascii_lowercase().starts_with("password=") {
                        "password=***".to_owned()
                    } else {
                        kv.to_owned()
                    }
                })
                .collect();
            format!("{path}?{}", query.join("&"))
        }
        None => tail.to_owned(),
    };
    match scheme {
        Some(s) => format!("{s}://{authority}{tail}"),
        None => format!("{authority}{tail}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn specs_parse_and_passwords_stay_off_the_command_line() {
        let p = |s: &str| s.parse::<StoreSpec>();
        assert_eq!(
            p("pace.sqlite").unwrap(),
            StoreSpec::Sqlite("pace.sqlite".into())
        );
        assert_eq!(
            p("sqlite:/var/pace.sqlite").unwrap(),
            StoreSpec::Sqlite("/var/pace.sqlite".into())
        );
        assert_eq!(p("sqlite::memory:").unwrap(), StoreSpec::Memory);
        assert!(p("postgres://pace@db:5432/pace?sslmode=verify-full").is_ok());
        for bad in [
            "postgres://pace:hunter2@db/pace",
            "postgresql://pace:hunter2@db/pace?sslmode=require",
            "postgres://db/pace?password=hunter2",
        ] {
            let e = p(bad).unwrap_err().to_string();
            assert!(e.contains("PGPASSWORD") && !e.contains("hunter2"), "{e}");
        }
        assert!(p("mysql://db/pace").is_err());
    }

    #[test]
    fn urls_are_redacted() {
        assert_eq!(
            redact("postgres://pace:hunter2@db:5432/pace?sslmode=require&password=x"),
            "postgres://pace:***@db:5432/pace?sslmode=require&password=***"
        );
        assert_eq!(redact("postgres://db/pace"), "postgres://db/pace");
        assert_eq!(redact("postgres://pace@db/pace"), "postgres://pace@db/pace");
    }
}
