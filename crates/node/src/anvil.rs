//! [`Anvil`]: a local anvil node on a free loopback port, owned by the value and killed by PID
//! when it is dropped.

use crate::error::{Error, Result};
use alloy::signers::local::PrivateKeySigner;
use alloy_primitives::{Address, B256, b256};
use std::{
    env,
    io::{self, Read, Write},
    net::{Ipv4Addr, SocketAddr, TcpListener, TcpStream},
    path::{Path, PathBuf},
    process::{Child, Command, Stdio},
    sync::{Arc, Mutex, PoisonError},
    thread,
    time::{Duration, Instant},
};

/// Environment variable naming the anvil binary to run instead of the npm one.
pub const ANVIL_ENV: &str = "PACE_ANVIL";

/// The chain id anvil runs by default.
pub const DEFAULT_CHAIN_ID: u64 = 31337;

/// How long anvil gets to answer `eth_chainId` by default.
pub const STARTUP_TIMEOUT: Duration = Duration::from_secs(5);

/// The mnemonic anvil derives its dev accounts from (`m/44'/60'/0'/0/i`).
pub const DEV_MNEMONIC: &str = "test test test test test test test test test test test junk";

/// The private keys of anvil's first dev accounts, each funded with 10,000 ETH at genesis.
/// Public knowledge: never use them on a real chain.
pub const DEV_KEYS: [B256; 3] = [
    b256!("0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80"),
    b256!("0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d"),
    b256!("0x5de4111afa1a4b94908f83103eb1f1706367c2e68ca870fc3fb9a804cdab365a"),
];

/// The addresses of [`DEV_KEYS`].
pub const DEV_ADDRESSES: [Address; 3] = [
    alloy_primitives::address!("0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266"),
    alloy_primitives::address!("0x70997970C51812dc3A010C7d01b50e0d17dc79C8"),
    alloy_primitives::address!("0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC"),
];

/// How many free ports to try when anvil exits at start (another process took the port).
const PORT_ATTEMPTS: usize = 3;
/// How much of anvil's stderr to keep for error messages.
const STDERR_KEEP: usize = 4096;

/// Options for starting an [`Anvil`].
#[derive(Clone, Debug)]
pub struct AnvilBuilder {
    chain_id: u64,
    args: Vec<String>,
    startup_timeout: Duration,
    binary: Option<PathBuf>,
}

impl Default for AnvilBuilder {
    fn default() -> Self {
        Self {
            chain_id: DEFAULT_CHAIN_ID,
            args: Vec::new(),
            startup_timeout: STARTUP_TIMEOUT,
            binary: None,
        }
    }
}

impl AnvilBuilder {
    /// The chain id (default [`DEFAULT_CHAIN_ID`]).
    pub fn chain_id(mut self, chain_id: u64) -> Self {
        self.chain_id = chain_id;
        self
    }

    /// Turns automine off (`--no-mining`): transactions stay pending.
    pub fn no_mining(self) -> Self {
        self.arg("--no-mining")
    }

    /// An extra command-line argument for anvil.
    pub fn arg(mut self, arg: impl Into<String>) -> Self {
        self.args.push(arg.into());
        self
    }

    /// How long anvil may take to answer `eth_chainId` (default [`STARTUP_TIMEOUT`]).
    pub fn startup_timeout(mut self, timeout: Duration) -> Self {
        self.startup_timeout = timeout;
        self
    }

    /// The anvil binary to run (default: [`Anvil::find_binary`]).
    pub fn binary(mut self, path: impl Into<PathBuf>) -> Self {
        self.binary = Some(path.into());
        self
    }

    /// Starts anvil on a free port of 127.0.0.1 and waits until it answers `eth_chainId`
    /// with the configured chain id.
    pub fn spawn(self) -> Result<Anvil> {
        let binary = match &self.binary {
            Some(path) => path.clone(),
            None => Anvil::find_binary()?,
        };
        let started = Instant::now();
        let mut failures = Vec::new();
        for _ in 0..PORT_ATTEMPTS {
            match self.try_spawn(&binary, started)? {
                Ok(anvil) => return Ok(anvil),
                // It exited at start; most likely another process took the port meanwhile.
                Err(exited) => failures.push(exited),
            }
        }
        Err(Error::AnvilStartup(failures.join("; ")))
    }

    /// `Ok(Err(why))` when the process exited during start-up (worth another port).
    fn try_spawn(&self, binary: &Path, started: Instant) -> Result<Result<Anvil, String>> {
        let port = free_port().map_err(|e| Error::AnvilStartup(format!("no free port: {e}")))?;
        let mut child = Command::new(binary)
            .args(["--host", "127.0.0.1", "--port", &port.to_string()])
            .args(["--chain-id", &self.chain_id.to_string(), "--silent"])
            .args(&self.args)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(|source| Error::AnvilSpawn {
                path: binary.to_owned(),
                source,
            })?;
        let stderr = drain(child.stderr.take());
        // Owned from here on: every early return kills it.
        let mut anvil = Anvil {
            pid: child.id(),
            child: Some(child),
            port,
            url: format!("http://127.0.0.1:{port}"),
            chain_id: self.chain_id,
            startup: Duration::ZERO,
        };
        let deadline = Instant::now() + self.startup_timeout;
        loop {
            if let Some(status) = anvil.exit_status() {
                let output = stderr
                    .lock()
                    .unwrap_or_else(PoisonError::into_inner)
                    .clone();
                return Ok(Err(format!(
                    "anvil on port {port} exited with {status}: {}",
                    output.trim()
                )));
            }
            match chain_id_of(port) {
                // Answered, and still ours (a dying anvil cannot answer for someone else).
                Ok(id) if anvil.exit_status().is_none() => {
                    if id != self.chain_id {
                        return Err(Error::AnvilStartup(format!(
                            "the node on port {port} reports chain id {id}, expected {}",
                            self.chain_id
                        )));
                    }
                    anvil.startup = started.elapsed();
                    return Ok(Ok(anvil));
                }
                _ if Instant::now() >= deadline => {
                    return Err(Error::AnvilStartup(format!(
                        "no answer to eth_chainId on port {port} within {:?}",
                        self.startup_timeout
                    )));
                }
                _ => thread::sleep(Duration::from_millis(10)),
            }
        }
    }
}

/// A running anvil node on 127.0.0.1, killed (by its PID) when dropped — during a test's
/// unwinding too, so a failing test leaves no process behind.
#[derive(Debug)]
pub struct Anvil {
    child: Option<Child>,
    pid: u32,
    port: u16,
    url: String,
    chain_id: u64,
    startup: Duration,
}

impl Anvil {
    /// Starts anvil with the defaults: chain id [`DEFAULT_CHAIN_ID`], automine on.
    pub fn spawn() -> Result<Self> {
        AnvilBuilder::default().spawn()
    }

    /// Options for starting anvil.
    pub fn builder() -> AnvilBuilder {
        AnvilBuilder::default()
    }

    /// The anvil binary: `$PACE_ANVIL` if set, else the platform binary the npm package
    /// `@foundry-rs/anvil` installs under `node_modules/` of the workspace (looked up from
    /// the current directory and from this crate's source directory, upwards). The binary is
    /// run directly, not through npm's node wrapper, so its PID is anvil's.
    pub fn find_binary() -> Result<PathBuf> {
        if let Some(path) = env::var_os(ANVIL_ENV) {
            return Ok(PathBuf::from(path));
        }
        let relative = Path::new("node_modules/@foundry-rs")
            .join(format!("anvil-{}", npm_platform()))
            .join("bin")
            .join(if cfg!(windows) { "anvil.exe" } else { "anvil" });
        let mut starts = vec![PathBuf::from(env!("CARGO_MANIFEST_DIR"))];
        if let Ok(cwd) = env::current_dir() {
            starts.insert(0, cwd);
        }
        let mut searched = Vec::new();
        for start in starts {
            for dir in start.ancestors() {
                let candidate = dir.join(&relative);
                if candidate.is_file() {
                    return Ok(candidate);
                }
                searched.push(candidate);
            }
        }
        searched.dedup();
        Err(Error::AnvilNotFound { searched })
    }

    /// The JSON-RPC URL, `http://127.0.0.1:<port>`.
    pub fn url(&self) -> &str {
        &self.url
    }

    /// The port it listens on.
    pub fn port(&self) -> u16 {
        self.port
    }

    /// The chain id.
    pub fn chain_id(&self) -> u64 {
        self.chain_id
    }

    /// The process id.
    pub fn pid(&self) -> u32 {
        self.pid
    }

    /// From spawning the process to its first `eth_chainId` answer.
    pub fn startup_time(&self) -> Duration {
        self.startup
    }

    /// The private key of dev account `index` (see [`DEV_KEYS`]).
    ///
    /// # Panics
    ///
    /// If `index` is not below `DEV_KEYS.len()`.
    pub fn dev_key(index: usize) -> B256 {
        DEV_KEYS[index]
    }

    /// A signer for dev account `index`.
    ///
    /// # Panics
    ///
    /// If `index` is not below `DEV_KEYS.len()`.
    pub fn dev_signer(index: usize) -> PrivateKeySigner {
        PrivateKeySigner::from_bytes(&DEV_KEYS[index]).expect("anvil's dev keys are valid keys")
    }

    /// The address of dev account `index` (see [`DEV_ADDRESSES`]).
    ///
    /// # Panics
    ///
    /// If `index` is not below `DEV_ADDRESSES.len()`.
    pub fn dev_address(index: usize) -> Address {
        DEV_ADDRESSES[index]
    }

    /// Whether the process is still running.
    pub fn is_running(&mut self) -> bool {
        self.child.is_some() && self.exit_status().is_none()
    }

    /// Kills the process (SIGKILL to its PID) and reaps it. Idempotent; dropping does the same.
    pub fn kill(&mut self) -> io::Result<()> {
        let Some(mut child) = self.child.take() else {
            return Ok(());
        };
        if child.try_wait()?.is_none() {
            child.kill()?;
        }
        child.wait().map(drop)
    }

    fn exit_status(&mut self) -> Option<std::process::ExitStatus> {
        // An error polling the process counts as "still running": kill() will tell.
        self.child.as_mut()?.try_wait().ok().flatten()
    }
}

impl Drop for Anvil {
    fn drop(&mut self) {
        // Nothing to do with an error here; the process is gone or was never ours.
        let _ = self.kill();
    }
}

/// The suffix of the npm package carrying this platform's binary.
fn npm_platform() -> String {
    let os = match env::consts::OS {
        "macos" => "darwin",
        "windows" => "win32",
        other => other,
    };
    let arch = match env::consts::ARCH {
        "x86_64" => "amd64",
        "aarch64" => "arm64",
        other => other,
    };
    format!("{os}-{arch}")
}

/// A port of 127.0.0.1 nobody listens on right now.
fn free_port() -> io::Result<u16> {
    Ok(TcpListener::bind((Ipv4Addr::LOCALHOST, 0))?
        .local_addr()?
        .port())
}

/// Keeps the last [`STDERR_KEEP`] bytes of a pipe, read on a thread so anvil never blocks on
/// a full pipe.
fn drain(pipe: Option<std::process::ChildStderr>) -> Arc<Mutex<String>> {
    let kept = Arc::new(Mutex::new(String::new()));
    if let Some(mut pipe) = pipe {
        let sink = Arc::clone(&kept);
        thread::spawn(move || {
            let mut buf = [0u8; 1024];
            while let Ok(n @ 1..) = pipe.read(&mut buf) {
                let mut kept = sink.lock().unwrap_or_else(PoisonError::into_inner);
                kept.push_str(&String::from_utf8_lossy(&buf[..n]));
                if kept.len() > STDERR_KEEP {
                    let mut cut = kept.len() - STDERR_KEEP;
                    while !kept.is_char_boundary(cut) {
                        cut += 1;
                    }
                    kept.drain(..cut);
                }
            }
        });
    }
    kept
}

/// Asks `eth_chainId` of 127.0.0.1:`port` with a minimal blocking HTTP/1.1 request, so
/// start-up needs no async runtime.
fn chain_id_of(port: u16) -> io::Result<u64> {
    let addr = SocketAddr::from((Ipv4Addr::LOCALHOST, port));
    let mut stream = TcpStream::connect_timeout(&addr, Duration::from_millis(200))?;
    stream.set_read_timeout(Some(Duration::from_millis(500)))?;
    stream.set_write_timeout(Some(Duration::from_millis(500)))?;
    let body = r#"{"jsonrpc":"2.0","id":1,"method":"eth_chainId","params":[]}"#;
    write!(
        stream,
        "POST / HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Type: application/json\r\n\
         Content-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    )?;
    let mut response = String::new();
    stream.read_to_string(&mut response)?;
    let invalid = |what: &str| io::Error::new(io::ErrorKind::InvalidData, what.to_owned());
    let (_, body) = response
        .split_once("\r\n\r\n")
        .ok_or_else(|| invalid("no HTTP body"))?;
    // The JSON object, also if the body came chunked.
    let json = match (body.find('{'), body.rfind('}')) {
        (Some(start), Some(end)) if start < end => &body[start..=end],
        _ => return Err(invalid("no JSON in the body")),
    };
    let json: serde_json::Value =
        serde_json::from_str(json).map_err(|e| invalid(&e.to_string()))?;
    let hex = json["result"]
        .as_str()
        .ok_or_else(|| invalid("no result"))?;
    u64::from_str_radix(hex.trim_start_matches("0x"), 16).map_err(|e| invalid(&e.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dev_addresses_are_the_keys_addresses() {
        for i in 0..DEV_KEYS.len() {
            assert_eq!(Anvil::dev_signer(i).address(), Anvil::dev_address(i));
        }
    }

    #[test]
    fn the_npm_platform_names_this_machine() {
        let platform = npm_platform();
        assert!(!platform.contains("x86_64") && !platform.contains("macos"));
    }
}
