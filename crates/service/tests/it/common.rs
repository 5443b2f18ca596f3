//! A service on a fresh embedded world with an in-memory SQLite store.

use alloy_primitives::{Address, Bytes, U256};
use alloy_sol_types::SolCall;
use pace_contracts::bindings::{IERC20, IUniswapV2Router02, IWETH9};
use pace_pipeline::Pipeline;
use pace_service::{
    Service, ServiceConfig,
    audit::CallerType,
    auth::{ApiTokens, Caller, Grant, Scope, token_hash},
    store::{SqliteStore, Store},
    tenant::Tenant,
};
use pace_signer::{DEV_VERIFIER_KEY, PdrSigner};
use pace_types::{CompiledPolicy, Intent};
use pace_world::{Addresses, World, default_policy};
use std::{
    collections::{BTreeMap, BTreeSet},
    sync::Arc,
};

/// A grant named `id` (secret = id) with `scopes`.
pub(crate) fn grant(id: &str, scopes: &[Scope]) -> Grant {
    Grant {
        id: id.to_owned(),
        caller_type: CallerType::Agent,
        token_hashes: vec![token_hash(id)],
        scopes: scopes.iter().copied().collect::<BTreeSet<_>>(),
        tokens: None,
        max_outflow: BTreeMap::new(),
        rate_per_minute: 1_000,
        tenants: None,
        approval_threshold_wei: None,
    }
}

/// A human's grant named `id` (secret = id): approves and reads.
pub(crate) fn human(id: &str) -> Grant {
    Grant {
        caller_type: CallerType::Human,
        ..grant(id, &[Scope::Approve, Scope::Read])
    }
}

/// Every scope.
pub(crate) const ALL: &[Scope] = &[
    Scope::Propose,
    Scope::Confirm,
    Scope::Unattended,
    Scope::Read,
];

/// A service and what the tests need from its world.
pub(crate) struct Setup {
    pub(crate) service: Arc<Service>,
    pub(crate) addrs: Addresses,
    /// The demo agent's benign swap: approve 1 WETH + swap it for DAI at most 0.5 % below
    /// the quote.
    pub(crate) swap: Intent,
}

impl Setup {
    pub(crate) fn new(grants: Vec<Grant>, config: ServiceConfig) -> Self {
        Self::with_store(grants, config, Box::new(SqliteStore::in_memory().unwrap()))
    }

    pub(crate) fn with_store(
        grants: Vec<Grant>,
        config: ServiceConfig,
        store: Box<dyn Store>,
    ) -> Self {
        Self::with_tenants(grants, config, store, |_| Vec::new())
    }

    /// A service on the world's account (the default tenant) and the tenants `extra` makes
    /// from the world's addresses.
    pub(crate) fn with_tenants(
        grants: Vec<Grant>,
        config: ServiceConfig,
        store: Box<dyn Store>,
        extra: impl FnOnce(&Addresses) -> Vec<Tenant>,
    ) -> Self {
        let signer = PdrSigner::from_bytes(&DEV_VERIFIER_KEY).unwrap();
        let world = World::new(signer.address()).unwrap();
        let policy = CompiledPolicy::try_from(default_policy(&world.addrs)).unwrap();
        let swap = pace_world::scenarios(&world)[0].intent.clone();
        let addrs = world.addrs;
        let pipeline = Pipeline::new(signer).with_revert_decoder(pace_world::revert_decoder());
        let mut tenants = vec![Tenant::default_for(
            policy,
            config.lanes.clone(),
            config.relayer_budget_wei,
        )];
        tenants.extend(extra(&addrs));
        let service = Arc::new(
            Service::with_tenants(
                pipeline,
                tenants,
                world,
                store,
                ApiTokens::from_grants(grants).unwrap(),
                config,
            )
            .unwrap(),
        );
        Self {
            service,
            addrs,
            swap,
        }
    }

    /// A service where "alice" holds every scope.
    pub(crate) fn default() -> Self {
        Self::new(vec![grant("alice", ALL)], ServiceConfig::default())
    }

    pub(crate) fn caller(&self, id: &str) -> Caller {
        self.service.authenticate(Some(id)).unwrap()
    }

    /// Sends a transaction on the world as `from`; panics if it fails.
    pub(crate) fn send<C: SolCall>(&self, from: Address, to: Address, value: U256, call: &C) {
        let out = self
            .service
            .state()
            .chain
            .world_mut()
            .expect("the embedded world")
            .evm
            .call(from, to, value, Bytes::from(call.abi_encode()))
            .unwrap();
        assert!(out.success, "setup transaction failed: {out:?}");
    }

    pub(crate) fn balance(&self, token: Address, who: Address) -> U256 {
        self.service.state().chain.balance_of(token, who).unwrap()
    }

    pub(crate) fn next_sequence(&self, lane: u32) -> u64 {
        self.service
            .state()
            .chain
            .world()
            .expect("the embedded world")
            .evm
            .view_sol(
                self.addrs.account,
                &pace_contracts::bindings::PaceAccount::nextSequenceCall { key: lane },
            )
            .unwrap()
    }

    /// Executions on the world's account: the sum of its lanes' positions.
    pub(crate) fn executed(&self) -> u64 {
        (0..4).map(|lane| self.next_sequence(lane)).sum()
    }

    /// A trader sells `weth` WETH for DAI on the Uniswap pair the swap uses, moving its price.
    pub(crate) fn move_price(&self, weth: U256) {
        let (a, t) = (self.addrs, self.addrs.trader);
        self.send(t, a.weth, weth, &IWETH9::depositCall {});
        self.send(
            t,
            a.weth,
            U256::ZERO,
            &IERC20::approveCall {
                spender: a.router,
                value: weth,
            },
        );
        let deadline = U256::from(self.service.state().chain.latest().unwrap().timestamp() + 3_600);
        self.send(
            t,
            a.router,
            U256::ZERO,
            &IUniswapV2Router02::swapExactTokensForTokensCall {
                amountIn: weth,
                amountOutMin: U256::ZERO,
                path: vec![a.weth, a.dai],
                to: t,
                deadline,
            },
        );
    }
}

/// A file for a store, in a fresh directory of its own.
pub(crate) fn scratch_store(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("pace-it-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir.join("pace.sqlite")
}

/// 10^18.
pub(crate) fn ether(n: u64) -> U256 {
    U256::from(n) * U256::from(10u64).pow(U256::from(18u64))
}

/// Serves `s` (HTTP API and MCP) on a free loopback port until the test ends.
pub(crate) async fn listen(s: &Setup) -> std::net::SocketAddr {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(pace_service::http::serve(
        s.service.clone(),
        listener,
        std::future::pending(),
    ));
    addr
}

/// An MCP client session (rmcp, streamable HTTP) on `addr` as the holder of `token`.
pub(crate) async fn mcp_client(
    addr: std::net::SocketAddr,
    token: &str,
) -> rmcp::service::RunningService<rmcp::RoleClient, ()> {
    use rmcp::{
        ServiceExt,
        transport::{
            StreamableHttpClientTransport,
            streamable_http_client::StreamableHttpClientTransportConfig,
        },
    };
    let config = StreamableHttpClientTransportConfig::with_uri(format!("http://{addr}/mcp"))
        .auth_header(token);
    ().serve(StreamableHttpClientTransport::from_config(config))
        .await
        .unwrap()
}

/// A `tools/call` of `name` with the object `args`.
pub(crate) fn tool_call(name: &str, args: serde_json::Value) -> rmcp::model::CallToolRequestParams {
    let serde_json::Value::Object(map) = args else {
        panic!("arguments are an object")
    };
    rmcp::model::CallToolRequestParams::new(name.to_owned()).with_arguments(map)
}

/// The `{code, message}` of a tool result that is a refusal (`isError`), its code also in the
/// text a model reads; `None` when the result is no refusal.
pub(crate) fn tool_refusal(r: &rmcp::model::CallToolResult) -> Option<(String, String)> {
    if r.is_error != Some(true) {
        return None;
    }
    let error = &r.structured_content.as_ref().expect("structured content")["error"];
    let code = error["code"].as_str().expect("a code").to_owned();
    let text = r.content.first().and_then(|c| c.as_text()).expect("a text");
    assert!(
        text.text.contains(&code),
        "the text names the code: {}",
        text.text
    );
    Some((
        code,
        error["message"].as_str().expect("a message").to_owned(),
    ))
}

/// One HTTP/1.1 request to `addr`; the status and the body.
pub(crate) async fn http(
    addr: std::net::SocketAddr,
    method: &str,
    path: &str,
    token: Option<&str>,
    body: &str,
) -> (u16, String) {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let mut stream = tokio::net::TcpStream::connect(addr).await.unwrap();
    let auth = token.map_or(String::new(), |t| format!("Authorization: Bearer {t}\r\n"));
    let req = format!(
        "{method} {path} HTTP/1.1\r\nHost: 127.0.0.1\r\n{auth}Content-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    );
    stream.write_all(req.as_bytes()).await.unwrap();
    let mut out = String::new();
    stream.read_to_string(&mut out).await.unwrap();
    let status = out[9..12].parse().unwrap();
    let body = out
        .split_once("\r\n\r\n")
        .map(|(_, b)| b.to_owned())
        .unwrap();
    (status, body)
}
