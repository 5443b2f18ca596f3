//! `pace serve`: the pipeline served to agents over HTTP and MCP; `pace token` makes API
//! tokens for it.

use crate::{EXIT_APPROVE, EXIT_BAD_INPUT, input, print_stdout};
use alloy::signers::local::PrivateKeySigner;
use clap::Parser;
use pace_pipeline::{Pipeline, PipelineConfig};
use pace_service::{
    Service, ServiceConfig,
    audit::CallerType,
    auth::{ApiTokens, Grant, Scope, token_hash},
    chain::{NodeChain, NodeConfig, ServiceChain},
    store::{SqliteStore, Store},
};
use pace_signer::PdrSigner;
use std::{net::SocketAddr, path::PathBuf, sync::Arc, time::Duration};

/// Serve agents: `propose` (simulate + verify, preview), `confirm` (re-check, sign, submit),
/// `status`, `history`, over an HTTP JSON API and MCP (streamable HTTP at /mcp, or stdio),
/// on the embedded in-process world (`--world`, the default) or a node (`--rpc URL`). Binds
/// loopback only. Keys are never printed.
///
/// With `--rpc`, propose simulates on a fork of the node's latest block; confirm re-simulates
/// on fresh state, checks the balances at the node's latest block, reserves a nonce lane's
/// sequence in the store, signs, records the transaction hash, broadcasts (EIP-1559, fees
/// capped by --max-fee-per-gas) and polls the receipt for --receipt-timeout-ms, then reports
/// `uncertain` with the hash; `executed` comes only from a receipt --confirmations deep. On
/// start, every submitted or uncertain transaction in the store is reconciled against the
/// node first.
#[derive(Debug, Parser)]
pub struct ServeArgs {
    /// Run on the embedded in-process world (the default).
    #[arg(long, conflicts_with = "rpc")]
    pub world: bool,
    /// Run on the node at this JSON-RPC endpoint (http:// or https://). Needs --store, the
    /// verifier key (--verifier-keystore or PACE_VERIFIER_KEY) and the relayer's
    /// (--relayer-keystore or PACE_RELAYER_KEY).
    #[arg(long)]
    pub rpc: Option<String>,
    /// The SQLite store (one file, WAL). Default with --world: in memory; required with --rpc.
    #[arg(long)]
    pub store: Option<PathBuf>,
    /// The listener (port 0 picks a free one, printed on stderr). Loopback only, unless
    /// --tls-cert and --tls-key are given.
    #[arg(long, default_value = "127.0.0.1:8788")]
    pub listen: SocketAddr,
    /// Serve over TLS with this certificate chain (PEM, leaf first); required to listen on
    /// anything but loopback.
    #[arg(long, requires = "tls_key")]
    pub tls_cert: Option<PathBuf>,
    /// The TLS certificate's private key (PEM).
    #[arg(long, requires = "tls_cert")]
    pub tls_key: Option<PathBuf>,
    /// Serve MCP over stdin/stdout instead of the listener. The caller holds the generated
    /// token (every scope) or, with --tokens, the one in PACE_API_TOKEN.
    #[arg(long)]
    pub stdio: bool,
    /// The API token grants (JSON, tokens stored hashed; see `pace token`). Without it, one
    /// token with every scope is generated for this run and printed on stderr.
    #[arg(long)]
    pub tokens: Option<PathBuf>,
    /// The policy (JSON). Default: the embedded world's default policy.
    #[arg(long)]
    pub policy: Option<PathBuf>,
    /// The verifier key as an encrypted keystore file (password in PACE_KEYSTORE_PASSWORD).
    /// Otherwise PACE_VERIFIER_KEY (hex); with neither, the public development key.
    #[arg(long)]
    pub verifier_keystore: Option<PathBuf>,
    /// Nonce lanes this instance owns (disjoint from every other instance's).
    #[arg(long, value_delimiter = ',', default_value = "0,1,2,3")]
    pub lanes: Vec<u32>,
    /// Seconds a PDR stays valid.
    #[arg(long, default_value_t = 300)]
    pub validity_secs: u64,
    /// Seconds a preview can be confirmed.
    #[arg(long, default_value_t = 300)]
    pub proposal_ttl_secs: u64,
    /// Basis points a token's change may move between preview and confirm.
    #[arg(long, default_value_t = 50)]
    pub preview_tolerance_bps: u32,
    /// Seconds a duplicate request gets the recorded response.
    #[arg(long, default_value_t = 30)]
    pub idempotency_window_secs: u64,
    /// With --rpc: the relayer's key as an encrypted keystore file (password in
    /// PACE_RELAYER_KEYSTORE_PASSWORD); otherwise PACE_RELAYER_KEY (hex).
    #[arg(long, requires = "rpc")]
    pub relayer_keystore: Option<PathBuf>,
    /// The EIP-1559 fee cap per gas the relayer pays, in wei.
    #[arg(long, default_value_t = 50_000_000_000)]
    pub max_fee_per_gas: u64,
    /// With --rpc: milliseconds a confirm polls for the receipt before it reports `uncertain`
    /// with the transaction hash.
    #[arg(long, default_value_t = 12_000)]
    pub receipt_timeout_ms: u64,
    /// With --rpc: blocks a receipt needs (its own included) to count as executed.
    #[arg(long, default_value_t = 1)]
    pub confirmations: u64,
    /// With --rpc: seconds a transaction may stay pending before it is replaced (same nonce,
    /// fees raised by 12.5 %, never above --max-fee-per-gas); every hash is kept.
    #[arg(long, default_value_t = 60)]
    pub replace_after_secs: u64,
    /// With --rpc: seconds between two reconciliations of submitted and uncertain
    /// transactions against the node (0: only at start and on `status`).
    #[arg(long, default_value_t = 15)]
    pub reconcile_secs: u64,
}

impl ServeArgs {
    /// Runs the service until interrupted.
    pub fn run(self) -> u8 {
        match self.go() {
            Ok(()) => EXIT_APPROVE,
            Err(e) => {
                eprintln!("pace serve: {e}");
                EXIT_BAD_INPUT
            }
        }
    }

    fn signer(&self) -> Result<PdrSigner, String> {
        if let Some(path) = &self.verifier_keystore {
            let password = std::env::var("PACE_KEYSTORE_PASSWORD")
                .map_err(|_| "--verifier-keystore needs PACE_KEYSTORE_PASSWORD".to_owned())?;
            return pace_service::keys::from_keystore(path, &password).map_err(|e| e.to_string());
        }
        if let Ok(hex) = std::env::var("PACE_VERIFIER_KEY") {
            return pace_service::keys::from_hex(&hex, "PACE_VERIFIER_KEY")
                .map_err(|e| e.to_string());
        }
        if self.rpc.is_some() {
            return Err(
                "--rpc needs the verifier key: --verifier-keystore FILE (password in \
                 PACE_KEYSTORE_PASSWORD) or PACE_VERIFIER_KEY (hex)"
                    .to_owned(),
            );
        }
        eprintln!("pace serve: using the public development verifier key (embedded world only)");
        PdrSigner::from_bytes(&pace_signer::DEV_VERIFIER_KEY).map_err(|e| e.to_string())
    }

    fn relayer(&self) -> Result<PrivateKeySigner, String> {
        if let Some(path) = &self.relayer_keystore {
            let password = std::env::var("PACE_RELAYER_KEYSTORE_PASSWORD").map_err(|_| {
                "--relayer-keystore needs PACE_RELAYER_KEYSTORE_PASSWORD".to_owned()
            })?;
            return pace_service::keys::relayer_from_keystore(path, &password)
                .map_err(|e| e.to_string());
        }
        let hex = std::env::var("PACE_RELAYER_KEY").map_err(|_| {
            "--rpc needs the relayer key: --relayer-keystore FILE or PACE_RELAYER_KEY (hex)"
                .to_owned()
        })?;
        pace_service::keys::relayer_from_hex(&hex, "PACE_RELAYER_KEY").map_err(|e| e.to_string())
    }

    /// The chain: the embedded world, or the node at --rpc.
    fn chain(&self, verifier: &PdrSigner) -> Result<ServiceChain, String> {
        let Some(url) = &self.rpc else {
            let world = pace_world::World::new(verifier.address()).map_err(|e| e.to_string())?;
            return Ok(world.into());
        };
        if self.store.is_none() {
            return Err(
                "--rpc needs --store FILE: nonce lanes and submitted transactions must survive \
                 a restart"
                    .to_owned(),
            );
        }
        let config = NodeConfig {
            receipt_window: Duration::from_millis(self.receipt_timeout_ms),
            confirmations: self.confirmations,
            replace_after_secs: self.replace_after_secs,
            max_fee_per_gas: u128::from(self.max_fee_per_gas),
            ..NodeConfig::default()
        };
        let node = NodeChain::connect(url, self.relayer()?, config)
            .map_err(|e| format!("{url}: {}", crate::causes(&e)))?;
        eprintln!(
            "pace serve: on {url} (chain {}), relayer {}",
            node.client().chain_id(),
            node.client().address()
        );
        Ok(node.into())
    }

    fn go(&self) -> Result<(), String> {
        let tls = match (&self.tls_cert, &self.tls_key) {
            (Some(cert), Some(key)) => {
                Some(pace_service::tls::acceptor(cert, key).map_err(|e| e.to_string())?)
            }
            _ => {
                pace_service::http::check_bind(&self.listen).map_err(|e| e.to_string())?;
                None
            }
        };
        let signer = self.signer()?;
        let chain = self.chain(&signer)?;
        let policy = match &self.policy {
            Some(path) => input::policy(path).map_err(|e| e.to_string())?,
            None => {
                // The embedded world's default policy; on a node, the world put there by
                // `pace world --rpc URL --deploy` (same addresses).
                let addrs = match chain.world() {
                    Some(world) => world.addrs,
                    None => {
                        pace_world::World::new(signer.address())
                            .map_err(|e| e.to_string())?
                            .addrs
                    }
                };
                pace_types::CompiledPolicy::try_from(pace_world::default_policy(&addrs))
                    .map_err(|e| format!("default policy: {e}"))?
            }
        };
        let (tokens, generated) = match &self.tokens {
            Some(path) => {
                let bytes = std::fs::read(path)
                    .map_err(|e| format!("{}: cannot read: {e}", path.display()))?;
                (
                    ApiTokens::from_json(&bytes).map_err(|e| format!("{}: {e}", path.display()))?,
                    None,
                )
            }
            None => {
                let secret = random_secret()?;
                let grant = grant("dev", CallerType::Human, &secret, all_scopes());
                (
                    ApiTokens::from_grants(vec![grant]).map_err(|e| e.to_string())?,
                    Some(secret),
                )
            }
        };
        let store: Box<dyn Store> = match &self.store {
            Some(path) => Box::new(SqliteStore::open(path).map_err(|e| e.to_string())?),
            None => Box::new(SqliteStore::in_memory().map_err(|e| e.to_string())?),
        };
        let config = ServiceConfig {
            pipeline: PipelineConfig {
                validity_secs: self.validity_secs,
                ..PipelineConfig::default()
            },
            lanes: self.lanes.clone(),
            proposal_ttl_secs: self.proposal_ttl_secs,
            preview_tolerance_bps: self.preview_tolerance_bps,
            idempotency_window_secs: self.idempotency_window_secs,
            max_fee_per_gas: self.max_fee_per_gas,
        };
        let pipeline = Pipeline::new(signer).with_revert_decoder(pace_world::revert_decoder());
        let service = Arc::new(
            Service::new(pipeline, policy, chain, store, tokens, config)
                .map_err(|e| e.to_string())?,
        );
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .enable_all()
            .build()
            .map_err(|e| format!("tokio runtime: {e}"))?;
        if self.rpc.is_some() && self.reconcile_secs > 0 {
            runtime.spawn(reconcile_every(
                service.clone(),
                Duration::from_secs(self.reconcile_secs),
            ));
        }
        runtime.block_on(async move {
            if self.stdio {
                // Without a token file the spawning process holds the generated token.
                let token = generated
                    .or_else(|| std::env::var("PACE_API_TOKEN").ok())
                    .ok_or("--stdio with --tokens needs PACE_API_TOKEN")?;
                return pace_service::mcp::serve_stdio(service, token)
                    .await
                    .map_err(|e| e.to_string());
            }
            if let Some(secret) = &generated {
                eprintln!("pace serve: API token for this run (every scope): {secret}");
            }
            let listener = tokio::net::TcpListener::bind(self.listen)
                .await
                .map_err(|e| format!("{}: {e}", self.listen))?;
            let addr = listener.local_addr().map_err(|e| e.to_string())?;
            let scheme = if tls.is_some() { "https" } else { "http" };
            eprintln!("pace serve: listening on {scheme}://{addr} (MCP at /mcp)");
            let shutdown = async {
                let _ = tokio::signal::ctrl_c().await;
            };
            match tls {
                Some(acceptor) => {
                    pace_service::tls::serve_tls(service, listener, acceptor, shutdown).await
                }
                None => pace_service::http::serve(service, listener, shutdown).await,
            }
            .map_err(|e| e.to_string())
        })
    }
}

/// Reconciles the service against its node every `period` (stuck transactions replaced,
/// uncertain ones settled), until the process ends.
async fn reconcile_every(service: Arc<Service>, period: Duration) {
    loop {
        tokio::time::sleep(period).await;
        let s = service.clone();
        match tokio::task::spawn_blocking(move || s.reconcile().map_err(|e| e.to_string())).await {
            Ok(Ok(_)) => {}
            Ok(Err(e)) => eprintln!("pace serve: reconciliation: {e}"),
            Err(e) => eprintln!("pace serve: reconciliation stopped: {e}"),
        }
    }
}

fn all_scopes() -> Vec<Scope> {
    vec![
        Scope::Propose,
        Scope::Confirm,
        Scope::Unattended,
        Scope::Read,
    ]
}

fn grant(id: &str, caller_type: CallerType, secret: &str, scopes: Vec<Scope>) -> Grant {
    Grant {
        id: id.to_owned(),
        caller_type,
        token_hashes: vec![token_hash(secret)],
        scopes: scopes.into_iter().collect(),
        tokens: None,
        max_outflow: Default::default(),
        rate_per_minute: 120,
    }
}

/// 24 random bytes from the OS, hex.
fn random_secret() -> Result<String, String> {
    use std::io::Read;
    let mut bytes = [0u8; 24];
    std::fs::File::open("/dev/urandom")
        .and_then(|mut f| f.read_exact(&mut bytes))
        .map_err(|e| format!("/dev/urandom: {e}"))?;
    Ok(format!("pace_{}", alloy_primitives::hex::encode(bytes)))
}

/// Make an API token: prints the secret once and the grant (with only its hash) to add to the
/// `--tokens` file. To rotate, add the new hash to the grant's `token_hashes`, then remove the
/// old one.
#[derive(Debug, Parser)]
pub struct TokenArgs {
    /// The actor id recorded in the audit log.
    #[arg(long)]
    pub id: String,
    /// Scopes: propose, confirm, unattended, read.
    #[arg(long, value_delimiter = ',', default_value = "propose,read")]
    pub scopes: Vec<String>,
    /// human or agent.
    #[arg(long, default_value = "agent")]
    pub caller_type: String,
}

impl TokenArgs {
    /// Prints a new secret and its grant.
    pub fn run(self) -> u8 {
        let parse = |s: &str| serde_json::from_value::<Scope>(serde_json::json!(s));
        let scopes: Result<Vec<Scope>, _> = self.scopes.iter().map(|s| parse(s)).collect();
        let caller_type = serde_json::from_value::<CallerType>(serde_json::json!(self.caller_type));
        let (Ok(scopes), Ok(caller_type)) = (scopes, caller_type) else {
            eprintln!(
                "pace token: scopes are propose, confirm, unattended, read; caller types human, agent"
            );
            return EXIT_BAD_INPUT;
        };
        let secret = match random_secret() {
            Ok(s) => s,
            Err(e) => {
                eprintln!("pace token: {e}");
                return EXIT_BAD_INPUT;
            }
        };
        let doc = serde_json::json!({
            "secret": secret,
            "grant": grant(&self.id, caller_type, &secret, scopes),
        });
        print_stdout(&serde_json::to_string_pretty(&doc).expect("serialises"));
        EXIT_APPROVE
    }
}
