//! [`Anvil`]: a local anvil node on 127.0.0.1, started by alloy's node bindings
//! ([`alloy_node_bindings::Anvil`]) and stopped when it is dropped.
//!
//! alloy does the process work: it starts anvil with `--port 0` so anvil binds a free port
//! itself (no race with other processes), reads the port from anvil's banner, waits until
//! anvil says it listens, and on drop sends SIGTERM, then SIGKILL, and reaps the process.
//! Because it reads the banner, anvil runs without `--silent`; after start-up its stdout is
//! closed, which anvil tolerates (it only logs there).
//!
//! What stays here is what alloy cannot know: where this workspace's anvil is (the npm
//! toolchain's platform binary, or `$PACE_ANVIL`; alloy would run `anvil` from the `PATH`),
//! this crate's error type, and anvil's well-known dev keys for code with no node at hand.
//!
//! Known limit: alloy passes anvil's stderr through to this process's stderr, and a node
//! that exits during start-up is reported as a timeout once [`STARTUP_TIMEOUT`] has passed
//! (anvil's own message is on stderr). Reporting its exit status and stderr in the error
//! instead would mean spawning the process here again.

use crate::error::{Error, Result};
use alloy::signers::local::PrivateKeySigner;
use alloy_node_bindings::{AnvilInstance, NodeError};
use alloy_primitives::{Address, B256, b256};
use std::{
    env,
    ffi::OsString,
    path::{Path, PathBuf},
    time::{Duration, Instant},
};

use crate::error::ANVIL_ENV;

/// The chain id anvil runs by default.
pub const DEFAULT_CHAIN_ID: u64 = 31337;

/// How long anvil gets to report that it listens, by default.
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

/// Options for starting an [`Anvil`].
#[derive(Clone, Debug)]
pub struct AnvilBuilder {
    chain_id: u64,
    args: Vec<OsString>,
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
    pub fn arg(mut self, arg: impl Into<OsString>) -> Self {
        self.args.push(arg.into());
        self
    }

    /// How long anvil may take to report that it listens (default [`STARTUP_TIMEOUT`]).
    pub fn startup_timeout(mut self, timeout: Duration) -> Self {
        self.startup_timeout = timeout;
        self
    }

    /// The anvil binary to run (default: [`Anvil::find_binary`]).
    pub fn binary(mut self, path: impl Into<PathBuf>) -> Self {
        self.binary = Some(path.into());
        self
    }

    /// Starts anvil on a free port of 127.0.0.1 and waits until it listens.
    pub fn spawn(self) -> Result<Anvil> {
        let binary = match self.binary {
            Some(path) => path,
            None => Anvil::find_binary()?,
        };
        let started = Instant::now();
        let instance = alloy_node_bindings::Anvil::at(&binary)
            .host("127.0.0.1")
            .chain_id(self.chain_id)
            .args(self.args)
            .timeout(u64::try_from(self.startup_timeout.as_millis()).unwrap_or(u64::MAX))
            .try_spawn()
            .map_err(|e| match e {
                NodeError::SpawnError(source) => Error::AnvilSpawn {
                    path: binary,
                    source,
                },
                other => Error::AnvilStartup(other.to_string()),
            })?;
        Ok(Anvil {
            url: instance.endpoint(),
            port: instance.port(),
            chain_id: instance.chain_id(),
            pid: instance.child().id(),
            startup: started.elapsed(),
            instance: Some(instance),
        })
    }
}

/// A running anvil node on 127.0.0.1, stopped and reaped when dropped — during a test's
/// unwinding too, so a failing test leaves no process behind.
#[derive(Debug)]
pub struct Anvil {
    /// `None` once [`Anvil::kill`] stopped it.
    instance: Option<AnvilInstance>,
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
    /// run directly, not through npm's node wrapper, so the process signalled on drop is
    /// anvil itself.
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

    /// From spawning the process to anvil reporting that it listens.
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

    /// Stops the node and reaps the process. Idempotent; dropping does the same.
    pub fn kill(&mut self) {
        // alloy's `Drop` for the instance: SIGTERM, then SIGKILL after 10 s, then wait.
        self.instance = None;
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
