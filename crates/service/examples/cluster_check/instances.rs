//! The `pace serve` processes of the check: started, killed (`-9`), paused (`SIGSTOP`) and
//! continued (`SIGCONT`) by their own PIDs.

use std::{
    io::{BufRead, BufReader, Write},
    path::{Path, PathBuf},
    process::{Child, Command, Stdio},
    time::{Duration, Instant},
};

/// The dev verifier key (the embedded world's account trusts it).
const VERIFIER_KEY: &str = "0x5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a";

/// How every instance is started.
pub(crate) struct Launch {
    pub(crate) bin: PathBuf,
    pub(crate) rpc: String,
    pub(crate) store: String,
    pub(crate) tokens: PathBuf,
    pub(crate) lanes: String,
    pub(crate) lease_ms: u64,
    pub(crate) dir: PathBuf,
}

/// One running instance.
pub(crate) struct Instance {
    pub(crate) name: String,
    pub(crate) child: Child,
    pub(crate) addr: String,
}

impl Instance {
    /// Starts instance `name` with its own relayer key; with `stop_before_signature`, the
    /// process stops itself before its first signature is recorded (the paused signer).
    pub(crate) fn start(
        l: &Launch,
        name: &str,
        relayer_key: &str,
        stop_before_signature: bool,
    ) -> Result<Self, String> {
        let mut cmd = Command::new(&l.bin);
        cmd.args(["serve", "--rpc", &l.rpc, "--listen", "127.0.0.1:0"])
            .args(["--store", &l.store])
            .arg("--tokens")
            .arg(&l.tokens)
            .args(["--lanes", &l.lanes, "--instance-name", name])
            .args(["--lease-ms", &l.lease_ms.to_string()])
            .args(["--receipt-timeout-ms", "3000", "--reconcile-secs", "2"])
            .args(["--lane-wait-ms", "3000", "--metrics-public"])
            .env_clear()
            .env("PACE_VERIFIER_KEY", VERIFIER_KEY)
            .env("PACE_RELAYER_KEY", relayer_key)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped());
        if stop_before_signature {
            cmd.env("PACE_TEST_STOP_BEFORE_SIGNATURE", "cluster-fence");
        }
        let mut child = cmd
            .spawn()
            .map_err(|e| format!("{}: {e}", l.bin.display()))?;
        let stderr = child.stderr.take().ok_or("no stderr")?;
        let log_path = l.dir.join(format!("{name}.log"));
        let (tx, rx) = std::sync::mpsc::channel();
        // Drains stderr into the instance's log for the process's whole life.
        std::thread::spawn(move || {
            let mut log = std::fs::OpenOptions::new()
                .create(true)
                .append(true)
                .open(&log_path)
                .ok();
            for line in BufReader::new(stderr).lines().map_while(Result::ok) {
                if let Some(log) = log.as_mut() {
                    let _ = writeln!(log, "{line}");
                }
                if let Some(a) = line.split("listening on http://").nth(1) {
                    let _ = tx.send(Some(a.split_whitespace().next().unwrap_or("").to_owned()));
                }
            }
            let _ = tx.send(None);
        });
        match rx.recv_timeout(Duration::from_secs(90)) {
            Ok(Some(addr)) => Ok(Self {
                name: name.to_owned(),
                child,
                addr,
            }),
            _ => {
                let _ = child.kill();
                let _ = child.wait();
                let log =
                    std::fs::read_to_string(l.dir.join(format!("{name}.log"))).unwrap_or_default();
                Err(format!("instance {name} did not start: {}", log.trim()))
            }
        }
    }

    /// The instance's PID.
    pub(crate) fn pid(&self) -> u32 {
        self.child.id()
    }

    /// `kill -9` of its PID, and its exit collected.
    pub(crate) fn kill9(mut self) -> Result<(), String> {
        self.child
            .kill()
            .map_err(|e| format!("kill {}: {e}", self.child.id()))?;
        self.child.wait().map_err(|e| e.to_string())?;
        Ok(())
    }

    /// Sends `signal` (`STOP`, `CONT`) to its PID.
    pub(crate) fn signal(&self, signal: &str) -> Result<(), String> {
        let ok = Command::new("kill")
            .args([&format!("-{signal}"), &self.pid().to_string()])
            .status()
            .is_ok_and(|s| s.success());
        if ok {
            Ok(())
        } else {
            Err(format!("kill -{signal} {}", self.pid()))
        }
    }

    /// Waits until the process is stopped (`T` in `/proc/PID/stat`).
    pub(crate) fn wait_stopped(&self, within: Duration) -> Result<(), String> {
        let until = Instant::now() + within;
        let stat = format!("/proc/{}/stat", self.pid());
        loop {
            let state = std::fs::read_to_string(&stat)
                .ok()
                .and_then(|s| s.rsplit(')').next().map(|r| r.trim().to_owned()))
                .and_then(|r| r.chars().next());
            if state == Some('T') {
                return Ok(());
            }
            if Instant::now() > until {
                return Err(format!(
                    "instance {} did not stop within {within:?}",
                    self.name
                ));
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

impl Drop for Instance {
    fn drop(&mut self) {
        if let Ok(None) = self.child.try_wait() {
            // A stopped process is continued first, so that it can die.
            let _ = Command::new("kill")
                .args(["-CONT", &self.child.id().to_string()])
                .status();
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
