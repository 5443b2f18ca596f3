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
    http::McpAccess,
    store::{LeaseConfig, PgStore, Store, StoreSpec},
    tenant::Tenant,
};
use pace_signer::PdrSigner;
use std::{
    net::SocketAddr,
    path::{Path, PathBuf},
    sync::Arc,
    time::Duration,
};

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
    /// The kind of account the tenants' accounts are: `pace-account` (a PaceAccount of its
    /// own) or `pace-delegate` (EOAs delegated to PaceDelegate with EIP-7702).
    #[arg(long, default_value = "pace-account", value_parser = crate::account::kind_parser())]
    pub account_kind: pace_types::AccountKind,
    /// Run on the node at this JSON-RPC endpoint (http:// or https://). Needs --store, the
    /// verifier key (--verifier-keystore or PACE_VERIFIER_KEY) and the relayer's
    /// (--relayer-keystore or PACE_RELAYER_KEY).
    #[arg(long)]
    pub rpc: Option<String>,
    /// The store: `sqlite:PATH` (or a bare PATH: one SQLite file, WAL, one instance) or
    /// `postgres://[user@]host[:port]/db[?sslmode=verify-full&sslrootcert=ca.pem]` (shared by
    /// several instances; the password from PGPASSWORD or a password file, never here).
    /// Default with --world: SQLite in memory; required with --rpc.
    #[arg(long)]
    pub store: Option<String>,
    /// With a PostgreSQL store: the most connections this instance opens.
    #[arg(long, default_value_t = 16)]
    pub store_pool: u32,
    /// This instance's name in the store (its leases, the audit log). Default: the host name
    /// and the listener.
    #[arg(long)]
    pub instance_name: Option<String>,
    /// Milliseconds a lease (on a nonce lane, on the relayer, on the instance itself) lasts
    /// without renewal, timed by the store's clock: an instance that stops loses its lanes to
    /// the others this long after its last renewal.
    #[arg(long, default_value_t = 10_000)]
    pub lease_ms: u64,
    /// Milliseconds a confirm waits for a free nonce lane before it answers NO_FREE_LANE.
    #[arg(long, default_value_t = 5_000)]
    pub lane_wait_ms: u64,
    /// Connections open at once; at the limit the oldest idle one is closed to make room, and
    /// when every one is busy a new one is refused (503 with Retry-After).
    #[arg(long, default_value_t = 1_024)]
    pub max_connections: usize,
    /// Connections open at once from one client address (same rule).
    #[arg(long, default_value_t = 256)]
    pub max_connections_per_ip: usize,
    /// Milliseconds a connection may take to send a complete request head, idle keep-alive
    /// connections included; then it is closed.
    #[arg(long, default_value_t = 10_000)]
    pub header_timeout_ms: u64,
    /// MCP sessions one token may hold open at once (across the instances of a store).
    #[arg(long, default_value_t = 16)]
    pub mcp_sessions_per_token: u32,
    /// Seconds an MCP session may be idle before it expires.
    #[arg(long, default_value_t = 600)]
    pub mcp_session_idle_secs: u64,
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
    /// agent token or, with --tokens, the one in PACE_API_TOKEN. The approval page is served
    /// for the human on --approval-listen.
    #[arg(long)]
    pub stdio: bool,
    /// The API token grants (JSON, tokens stored hashed; see `pace token`), re-read when the
    /// file changes and on SIGHUP (a removed token is refused from the next request on).
    /// Without it, two tokens are generated for this run and printed on stderr: the agent's
    /// (propose, confirm, read; a human approves above --approval-threshold-wei) and the
    /// human's approval credential (approve, read).
    #[arg(long)]
    pub tokens: Option<PathBuf>,
    /// The tenants (JSON: id, account, policy file, lanes, relayer_budget_wei), each an
    /// account with its own policy and lanes, besides the configured one (`default`).
    #[arg(long)]
    pub tenants: Option<PathBuf>,
    /// Without --tokens: the generated agent token's approval threshold, in wei of value moved
    /// per 24 h at pre-execution prices (`none`: no threshold). Default 0: a human approves
    /// every confirmation that moves value.
    #[arg(long, default_value = "0")]
    pub approval_threshold_wei: String,
    /// Seconds a proposal waits for a human's approval.
    #[arg(long, default_value_t = 1_800)]
    pub approval_ttl_secs: u64,
    /// With --stdio: the loopback listener that serves the approval page to the human.
    #[arg(long, default_value = "127.0.0.1:0")]
    pub approval_listen: SocketAddr,
    /// The address agents and humans reach this service at (`https://pace.example:8788`):
    /// the approval links and the approval page's origin check use it. Default: the
    /// listener's scheme and address, with TLS the certificate's first DNS name.
    #[arg(long)]
    pub public_url: Option<String>,
    /// Host names `/mcp` answers to (the `Host` header). Default: the certificate's DNS names
    /// and the loopback names.
    #[arg(long, value_delimiter = ',')]
    pub allowed_hosts: Vec<String>,
    /// Browser origins `/mcp` accepts (`https://app.example:443`); a request without `Origin`
    /// passes, one with another origin is refused. Default: none.
    #[arg(long, value_delimiter = ',')]
    pub allowed_origins: Vec<String>,
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
    /// Seconds a duplicate request sent without an idempotency key (identified by its
    /// canonical content) gets the recorded response.
    #[arg(long, default_value_t = 30)]
    pub idempotency_window_secs: u64,
    /// Seconds a client's idempotency key (the Idempotency-Key header, or the tools'
    /// idempotency_key) is kept.
    #[arg(long, default_value_t = 86_400)]
    pub idempotency_retention_secs: u64,
    /// Seconds within which an unattended execution of an intent equal to one already
    /// executed (same account, chain and calls) needs allow_repeat.
    #[arg(long, default_value_t = 86_400)]
    pub repeat_window_secs: u64,
    /// The configured account's relayer gas budget per 24 h, in wei (default: unlimited).
    #[arg(long)]
    pub relayer_budget_wei: Option<String>,
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
    /// Serve /metrics without a token (for a scraper on a trusted network). Default: a token
    /// with the read scope is needed.
    #[arg(long)]
    pub metrics_public: bool,
    /// On SIGTERM or Ctrl-C: seconds to wait for the requests in flight (a signed
    /// confirmation is recorded and submitted) after the listener stops accepting; exit 0 once
    /// none is left, 1 if some still ran when the time was up.
    #[arg(long, default_value_t = 30)]
    pub shutdown_grace_secs: u64,
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
                "--rpc needs --store (sqlite:PATH or postgres://…): nonce lanes and submitted \
                 transactions must survive a restart"
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
        // The store first: a database that is missing or unreachable is said at once.
        let spec = match &self.store {
            Some(s) => s.parse::<StoreSpec>().map_err(|e| e.to_string())?,
            None => StoreSpec::Memory,
        };
        if spec.shared() && self.rpc.is_none() {
            return Err(
                "--store postgres://… is for instances that share accounts on a node: give --rpc \
                 URL (the embedded world lives in one process)"
                    .to_owned(),
            );
        }
        if spec.shared() && self.tokens.is_none() {
            return Err(
                "--store postgres://… needs --tokens FILE: the grants every instance of the \
                 store follows (generated tokens would differ per instance)"
                    .to_owned(),
            );
        }
        let store: Box<dyn Store> = match &spec {
            StoreSpec::Postgres(url) => {
                let config = pace_service::store::postgres::PgConfig {
                    max_connections: self.store_pool,
                    ..Default::default()
                };
                Box::new(PgStore::connect_with(url, config).map_err(|e| e.to_string())?)
            }
            spec => pace_service::store::open(spec).map_err(|e| e.to_string())?,
        };
        eprintln!(
            "pace serve: store {} (schema version {})",
            store.describe(),
            store.schema_version().map_err(|e| e.to_string())?
        );
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
        let threshold = parse_threshold(&self.approval_threshold_wei)?;
        let (tokens, generated) = match &self.tokens {
            Some(path) => (
                read_grants(path).and_then(|g| {
                    ApiTokens::from_grants(g).map_err(|e| format!("{}: {e}", path.display()))
                })?,
                None,
            ),
            None => {
                let (agent, human) = (random_secret()?, random_secret()?);
                let mut dev = grant("dev", CallerType::Agent, &agent, agent_scopes());
                dev.approval_threshold_wei = threshold.map(|t| t.to_string());
                let approver = grant(
                    "dev-human",
                    CallerType::Human,
                    &human,
                    vec![Scope::Approve, Scope::Read],
                );
                (
                    ApiTokens::from_grants(vec![dev, approver]).map_err(|e| e.to_string())?,
                    Some((agent, human)),
                )
            }
        };
        let relayer_budget_wei = self
            .relayer_budget_wei
            .as_deref()
            .map(|b| {
                alloy_primitives::U256::from_str_radix(b, 10)
                    .map_err(|e| format!("--relayer-budget-wei {b:?}: {e}"))
            })
            .transpose()?;
        let config = ServiceConfig {
            pipeline: PipelineConfig {
                validity_secs: self.validity_secs,
                account: self.account_kind,
                ..PipelineConfig::default()
            },
            lanes: self.lanes.clone(),
            proposal_ttl_secs: self.proposal_ttl_secs,
            preview_tolerance_bps: self.preview_tolerance_bps,
            idempotency_window_secs: self.idempotency_window_secs,
            idempotency_retention_secs: self.idempotency_retention_secs,
            repeat_window_secs: self.repeat_window_secs,
            approval_ttl_secs: self.approval_ttl_secs,
            max_fee_per_gas: self.max_fee_per_gas,
            relayer_budget_wei,
            instance_name: self
                .instance_name
                .clone()
                .unwrap_or_else(|| format!("{}@{}", host_name(), self.listen)),
            lease: LeaseConfig {
                ttl: Duration::from_millis(self.lease_ms.max(300)),
                idle: Duration::from_millis(self.lease_ms.max(300) / 2),
            },
            lane_wait: Duration::from_millis(self.lane_wait_ms),
            mcp_sessions_per_token: self.mcp_sessions_per_token,
            mcp_session_idle_secs: self.mcp_session_idle_secs,
        };
        let limits = pace_service::listener::Limits {
            max_connections: self.max_connections.max(1),
            max_per_ip: self.max_connections_per_ip.max(1),
            header_timeout: Duration::from_millis(self.header_timeout_ms.max(100)),
        };
        let mut tenants = vec![Tenant::default_for(
            policy,
            self.lanes.clone(),
            relayer_budget_wei,
        )];
        if let Some(path) = &self.tenants {
            tenants.extend(pace_service::tenant::load(path).map_err(|e| e.to_string())?);
        }
        let pipeline = Pipeline::new(signer).with_revert_decoder(pace_world::revert_decoder());
        let service = Arc::new(
            Service::with_tenants(pipeline, tenants, chain, store, tokens, config)
                .map_err(|e| e.to_string())?,
        );
        service.set_metrics_public(self.metrics_public);
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
        if let Some(path) = &self.tokens {
            runtime.spawn(reload_grants(service.clone(), path.clone()));
        }
        let cert_names = match &self.tls_cert {
            Some(cert) => pace_service::tls::dns_names(cert).map_err(|e| e.to_string())?,
            None => Vec::new(),
        };
        let mut access = McpAccess::with_names(cert_names.iter().cloned());
        if !self.allowed_hosts.is_empty() {
            access.allowed_hosts = self.allowed_hosts.clone();
        }
        access.allowed_origins = self.allowed_origins.clone();
        let grace = Duration::from_secs(self.shutdown_grace_secs);
        let served = runtime.block_on(async move {
            if self.stdio {
                // Without a token file the spawning process holds the generated agent token.
                let token = generated
                    .as_ref()
                    .map(|(agent, _)| agent.clone())
                    .or_else(|| std::env::var("PACE_API_TOKEN").ok())
                    .ok_or("--stdio with --tokens needs PACE_API_TOKEN")?;
                pace_service::http::check_bind(&self.approval_listen).map_err(|e| e.to_string())?;
                let listener = tokio::net::TcpListener::bind(self.approval_listen)
                    .await
                    .map_err(|e| format!("{}: {e}", self.approval_listen))?;
                let addr = listener.local_addr().map_err(|e| e.to_string())?;
                let base = self.public_url.clone().unwrap_or(format!("http://{addr}"));
                service.set_approval_base(&base);
                eprintln!("pace serve: approval page for the human at {base}/approve/<proposal>");
                if let Some((_, human)) = &generated {
                    eprintln!(
                        "pace serve: approval credential for the human (approve, read): {human}"
                    );
                }
                let page = pace_service::http::approval_router(service.clone());
                tokio::spawn(pace_service::http::serve_router(
                    page,
                    listener,
                    std::future::pending(),
                ));
                // SIGTERM ends the session as on the listener: what runs is let finish.
                tokio::select! {
                    done = pace_service::mcp::serve_stdio(service.clone(), token) => {
                        return done.map_err(|e| e.to_string());
                    }
                    () = terminated() => {}
                }
                let drained = service.drain(grace).await;
                if let Err(e) = service.retire() {
                    eprintln!("pace serve: leases not given back (they lapse): {e}");
                }
                return if drained {
                    eprintln!("pace serve: stopped: nothing in flight");
                    Ok(())
                } else {
                    Err(format!(
                        "stopped with {} request(s) still in flight after {}s",
                        service.in_flight(),
                        grace.as_secs()
                    ))
                };
            }
            if let Some((agent, human)) = &generated {
                let approval = match threshold {
                    Some(t) => format!("; a human approves above {t} wei per 24 h"),
                    None => String::new(),
                };
                eprintln!(
                    "pace serve: API token for this run (propose, confirm, read{approval}): {agent}"
                );
                eprintln!("pace serve: approval credential for the human (approve, read): {human}");
            }
            let listener = tokio::net::TcpListener::bind(self.listen)
                .await
                .map_err(|e| format!("{}: {e}", self.listen))?;
            let addr = listener.local_addr().map_err(|e| e.to_string())?;
            let scheme = if tls.is_some() { "https" } else { "http" };
            let base = self
                .public_url
                .clone()
                .unwrap_or_else(|| match cert_names.first() {
                    Some(name) if tls.is_some() => format!("https://{name}:{}", addr.port()),
                    _ => format!("{scheme}://{addr}"),
                });
            service.set_approval_base(&base);
            eprintln!("pace serve: listening on {scheme}://{addr} (MCP at /mcp)");
            let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
            let shutdown = async {
                let _ = stopped.await;
            };
            let routes = pace_service::http::router_with(service.clone(), &access);
            let server = tokio::spawn(async move {
                match tls {
                    Some(acceptor) => {
                        pace_service::tls::serve_tls_router_with(
                            routes, listener, acceptor, limits, shutdown,
                        )
                        .await
                    }
                    None => {
                        pace_service::http::serve_router_with(routes, listener, limits, shutdown)
                            .await
                    }
                }
                .map_err(|e| e.to_string())
            });
            let mut server = std::pin::pin!(server);
            tokio::select! {
                done = &mut server => return done.map_err(|e| e.to_string())?,
                () = terminated() => {}
            }
            // Stop accepting; let what runs finish recording, up to the grace period.
            let _ = stop.send(());
            eprintln!(
                "pace serve: stopping: no new connections; waiting up to {}s for {} request(s) \
                 in flight",
                grace.as_secs(),
                service.in_flight()
            );
            let drained = service.drain(grace).await;
            // Its lanes are free for the other instances at once, not after the lease.
            if let Err(e) = service.retire() {
                eprintln!("pace serve: leases not given back (they lapse): {e}");
            }
            // Open MCP streams are closed with the process; give quiet connections a moment.
            let _ = tokio::time::timeout(Duration::from_millis(500), &mut server).await;
            if drained {
                eprintln!("pace serve: stopped: nothing in flight");
                Ok(())
            } else {
                Err(format!(
                    "stopped with {} request(s) still in flight after {}s: they are reconciled \
                     from the store on the next start",
                    service.in_flight(),
                    grace.as_secs()
                ))
            }
        });
        // Blocking work still running (a confirmation past the grace period) is not waited for.
        runtime.shutdown_timeout(Duration::from_millis(200));
        served
    }
}

/// This machine's host name (`/etc/hostname`, `HOSTNAME`), or `localhost`.
fn host_name() -> String {
    std::fs::read_to_string("/etc/hostname")
        .ok()
        .map(|h| h.trim().to_owned())
        .filter(|h| !h.is_empty())
        .or_else(|| std::env::var("HOSTNAME").ok())
        .unwrap_or_else(|| "localhost".to_owned())
}

/// Resolves on SIGTERM or Ctrl-C (SIGINT).
async fn terminated() {
    let term = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut t) => {
                t.recv().await;
            }
            Err(_) => std::future::pending::<()>().await,
        }
    };
    tokio::select! {
        _ = tokio::signal::ctrl_c() => {}
        () = term => {}
    }
}

/// `--approval-threshold-wei`: a number, or `none`.
fn parse_threshold(s: &str) -> Result<Option<alloy_primitives::U256>, String> {
    if s.eq_ignore_ascii_case("none") {
        return Ok(None);
    }
    alloy_primitives::U256::from_str_radix(s, 10)
        .map(Some)
        .map_err(|e| format!("--approval-threshold-wei {s:?}: {e} (a number of wei, or none)"))
}

/// The grants of the file at `path`.
fn read_grants(path: &Path) -> Result<Vec<Grant>, String> {
    let bytes = std::fs::read(path).map_err(|e| format!("{}: cannot read: {e}", path.display()))?;
    ApiTokens::parse(&bytes).map_err(|e| format!("{}: {e}", path.display()))
}

/// Revocation without a restart: re-reads the grants file at `path` on SIGHUP and whenever
/// its modification time or size changes (checked every 2 s), replacing every grant at
/// once. A file that does not parse leaves the grants as they were.
async fn reload_grants(service: Arc<Service>, path: PathBuf) {
    let stamp = |p: &Path| {
        std::fs::metadata(p)
            .ok()
            .map(|m| (m.modified().ok(), m.len()))
    };
    let mut seen = stamp(&path);
    let mut hup = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::hangup()).ok();
    loop {
        let hangup = async {
            match hup.as_mut() {
                Some(h) => {
                    h.recv().await;
                }
                None => std::future::pending::<()>().await,
            }
        };
        let signalled = tokio::select! {
            () = hangup => true,
            () = tokio::time::sleep(Duration::from_secs(2)) => false,
        };
        let now = stamp(&path);
        if !signalled && now == seen {
            continue;
        }
        seen = now;
        match read_grants(&path).and_then(|g| service.replace_grants(g).map_err(|e| e.to_string()))
        {
            Ok(()) => eprintln!("pace serve: grants re-read from {}", path.display()),
            Err(e) => eprintln!("pace serve: grants not re-read, kept as they were: {e}"),
        }
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

/// The generated agent token's scopes: it proposes, confirms and reads, never executes
/// unattended.
fn agent_scopes() -> Vec<Scope> {
    vec![Scope::Propose, Scope::Confirm, Scope::Read]
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
        tenants: None,
        approval_threshold_wei: None,
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
    /// Scopes: propose, confirm, unattended, read, read_all, approve, halt.
    #[arg(long, value_delimiter = ',', default_value = "propose,read")]
    pub scopes: Vec<String>,
    /// human or agent.
    #[arg(long, default_value = "agent")]
    pub caller_type: String,
    /// The tenants the token acts for (default: the configured account).
    #[arg(long, value_delimiter = ',')]
    pub tenants: Vec<String>,
    /// Value in wei the token may move per 24 h on its own confirmations before a human
    /// approves (default: no threshold).
    #[arg(long)]
    pub approval_threshold_wei: Option<String>,
}

impl TokenArgs {
    /// Prints a new secret and its grant.
    pub fn run(self) -> u8 {
        let parse = |s: &str| serde_json::from_value::<Scope>(serde_json::json!(s));
        let scopes: Result<Vec<Scope>, _> = self.scopes.iter().map(|s| parse(s)).collect();
        let caller_type = serde_json::from_value::<CallerType>(serde_json::json!(self.caller_type));
        let (Ok(scopes), Ok(caller_type)) = (scopes, caller_type) else {
            eprintln!(
                "pace token: scopes are propose, confirm, unattended, read, read_all, approve, \
                 halt; caller types human, agent"
            );
            return EXIT_BAD_INPUT;
        };
        if let Some(t) = &self.approval_threshold_wei
            && let Err(e) = parse_threshold(t)
        {
            eprintln!("pace token: {e}");
            return EXIT_BAD_INPUT;
        }
        let secret = match random_secret() {
            Ok(s) => s,
            Err(e) => {
                eprintln!("pace token: {e}");
                return EXIT_BAD_INPUT;
            }
        };
        let mut g = grant(&self.id, caller_type, &secret, scopes);
        if !self.tenants.is_empty() {
            g.tenants = Some(self.tenants.iter().cloned().collect());
        }
        g.approval_threshold_wei = self.approval_threshold_wei;
        let doc = serde_json::json!({
            "secret": secret,
            "grant": g,
        });
        print_stdout(&serde_json::to_string_pretty(&doc).expect("serialises"));
        EXIT_APPROVE
    }
}
