//! The `pace` binary under test, run as a user would: `pace world --deploy`, `pace simulate`
//! and `pace run` against the harness's node, each with an empty environment but for the keys.

use serde_json::Value;
use std::{
    path::{Path, PathBuf},
    process::{Command, Stdio},
};

/// The verifier key the world's account trusts: the public development key (never for funds).
const VERIFIER_KEY: &str = "0x5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a";

/// What `pace run` left: its exit code, its JSON document (if it printed one) and its stderr.
pub(crate) struct RunOutput {
    pub(crate) code: i32,
    pub(crate) doc: Option<Value>,
    pub(crate) stderr: String,
}

/// The `pace` binary and the node it works against.
pub(crate) struct Pace {
    bin: PathBuf,
    rpc: String,
    relayer_key: String,
}

impl Pace {
    pub(crate) fn new(bin: PathBuf, rpc: &str, relayer_key: String) -> Self {
        Self {
            bin,
            rpc: rpc.to_owned(),
            relayer_key,
        }
    }

    fn command(&self) -> Command {
        let mut c = Command::new(&self.bin);
        c.env_clear().stdin(Stdio::null());
        c
    }

    /// `pace world --rpc URL --deploy`: the world on the node; its JSON (addresses, policy).
    pub(crate) fn deploy_world(&self) -> Result<Value, String> {
        let out = self
            .command()
            .args(["world", "--rpc", &self.rpc, "--deploy"])
            .output()
            .map_err(|e| format!("{}: {e}", self.bin.display()))?;
        json_of("pace world --deploy", &out)
    }

    /// `pace simulate --rpc URL --intent I --policy P`: the simulation report.
    pub(crate) fn simulate(&self, intent: &Path, policy: &Path) -> Result<Value, String> {
        let out = self
            .command()
            .args(["simulate", "--rpc", &self.rpc])
            .arg("--intent")
            .arg(intent)
            .arg("--policy")
            .arg(policy)
            .output()
            .map_err(|e| format!("{}: {e}", self.bin.display()))?;
        json_of("pace simulate", &out)
    }

    /// `pace run --rpc URL --intent I --policy P` with the world's verifier key and the
    /// harness's relayer key.
    pub(crate) fn run(&self, intent: &Path, policy: &Path) -> Result<RunOutput, String> {
        let out = self
            .command()
            .args(["run", "--rpc", &self.rpc])
            .arg("--intent")
            .arg(intent)
            .arg("--policy")
            .arg(policy)
            .env("PACE_VERIFIER_KEY", VERIFIER_KEY)
            .env("PACE_RELAYER_KEY", &self.relayer_key)
            .output()
            .map_err(|e| format!("{}: {e}", self.bin.display()))?;
        Ok(RunOutput {
            code: out.status.code().unwrap_or(-1),
            doc: serde_json::from_slice(&out.stdout).ok(),
            stderr: String::from_utf8_lossy(&out.stderr).trim().to_owned(),
        })
    }
}

/// The JSON a successful command printed.
fn json_of(what: &str, out: &std::process::Output) -> Result<Value, String> {
    if !out.status.success() {
        return Err(format!(
            "{what} exited with {}: {}",
            out.status,
            String::from_utf8_lossy(&out.stderr).trim()
        ));
    }
    serde_json::from_slice(&out.stdout).map_err(|e| format!("{what}: output: {e}"))
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
