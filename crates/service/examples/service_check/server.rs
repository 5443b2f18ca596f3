//! A `pace serve --rpc` process started by the check and killed by its PID only.

use std::{
    io::{BufRead, BufReader},
    path::{Path, PathBuf},
    process::{Child, Command, Stdio},
    time::{Duration, Instant},
};

/// The verifier key the world's account trusts (the public development key).
pub(crate) const VERIFIER_KEY: &str =
    "0x5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a";

/// How `pace serve` is started: binary, node, store, tokens, relayer key (hex).
pub(crate) struct Launch {
    pub(crate) bin: PathBuf,
    pub(crate) rpc: String,
    pub(crate) store: PathBuf,
    pub(crate) tokens: PathBuf,
    pub(crate) relayer_key: String,
    pub(crate) lanes: String,
}

/// A running server; killed (SIGKILL, by its PID) when dropped.
pub(crate) struct Server {
    child: Child,
    /// `host:port` it listens on.
    pub(crate) addr: String,
}

impl Server {
    /// Starts `pace serve --rpc` and waits until it listens (it reconciles the store first).
    pub(crate) fn start(l: &Launch) -> Result<Self, String> {
        let mut child = Command::new(&l.bin)
            .args(["serve", "--rpc", &l.rpc, "--listen", "127.0.0.1:0"])
            .arg("--store")
            .arg(&l.store)
            .arg("--tokens")
            .arg(&l.tokens)
            .args(["--lanes", &l.lanes, "--receipt-timeout-ms", "3000"])
            // The check reads its counters without a token (a scraper on loopback).
            .arg("--metrics-public")
            .env_clear()
            .env("PACE_VERIFIER_KEY", VERIFIER_KEY)
            .env("PACE_RELAYER_KEY", &l.relayer_key)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(|e| format!("{}: {e}", l.bin.display()))?;
        let stderr = child.stderr.take().ok_or("no stderr")?;
        let (tx, rx) = std::sync::mpsc::channel();
        // Drains stderr for the process's whole life, so it never blocks on a full pipe.
        std::thread::spawn(move || {
            for line in BufReader::new(stderr).lines().map_while(Result::ok) {
                if let Some(a) = line.split("listening on http://").nth(1) {
                    let _ = tx.send(Ok(a.split_whitespace().next().unwrap_or("").to_owned()));
                } else if line.starts_with("pace serve: ") && !line.contains(" on http") {
                    let _ = tx.send(Err(line));
                }
            }
        });
        let deadline = Instant::now() + Duration::from_secs(60);
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match rx.recv_timeout(left) {
                Ok(Ok(addr)) => return Ok(Self { child, addr }),
                // Informational lines ("on URL (chain ...), relayer ...", "store ... (schema
                // version N)") are not failures.
                Ok(Err(line))
                    if line.contains(", relayer ") || line.contains("(schema version") =>
                {
                    continue;
                }
                Ok(Err(line)) => {
                    let _ = child.kill();
                    let _ = child.wait();
                    return Err(line);
                }
                Err(_) => {
                    let _ = child.kill();
                    let _ = child.wait();
                    return Err("pace serve did not listen within 60 s".into());
                }
            }
        }
    }

    /// `kill -9` of this server's PID, and its exit collected.
    pub(crate) fn kill9(mut self) -> Result<(), String> {
        self.child
            .kill()
            .map_err(|e| format!("kill {}: {e}", self.child.id()))?;
        self.child.wait().map_err(|e| e.to_string())?;
        Ok(())
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        if let Ok(None) = self.child.try_wait() {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

/// The `pace` binary: `PACE_BIN`, or the workspace's debug build.
pub(crate) fn pace_bin() -> Result<PathBuf, String> {
    let path = match std::env::var_os("PACE_BIN") {
        Some(p) => PathBuf::from(p),
        None => {
            let target = std::env::var_os("CARGO_TARGET_DIR").map_or_else(
                || Path::new(env!("CARGO_MANIFEST_DIR")).join("../../target"),
                PathBuf::from,
            );
            target.join("debug/pace")
        }
    };
    if path.is_file() {
        Ok(path)
    } else {
        Err(format!(
            "no pace binary at {} (build it: cargo build -p pace-cli, or set PACE_BIN)",
            path.display()
        ))
    }
}
