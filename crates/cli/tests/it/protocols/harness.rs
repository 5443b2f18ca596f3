//! The harness of the protocols cases: anvil on a free loopback port, the embedded world put
//! on it by `pace world --rpc --deploy`, the protocols test bed deployed over it, a snapshot
//! every case starts from, and each case run as an agent and its user would: `pace simulate`
//! for the claims, then `pace run` with the world's verifier key and an anvil key as relayer,
//! with what the case watches read from the node before and after.

use crate::{scratch, stderr, stdout};
use alloy::providers::Provider as _;
use alloy_primitives::{Address, I256, U256};
use pace_contracts::bindings::IERC20;
use pace_node::Anvil;
use pace_testkit::protocols::{Chain as _, Protocols, actions, node::NodeChain};
use pace_types::{
    Approval, Call, Claims, Intent, Policy, SimulationReport, TokenAmount, Violation, ViolationCode,
};
use pace_world::Addresses;
use serde_json::{Value, json};
use std::{
    path::{Path, PathBuf},
    process::{Command, Output},
};

/// The anvil development account that relays (pays for) every submission.
const RELAYER: usize = 2;

/// Something of the account's the node is asked about before and after a run.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Watch {
    /// The account's balance of a token.
    Token(Address),
    /// Someone else's balance of a token.
    Held(Address, Address),
    /// The account's ERC-20 allowance of `token` to `spender`.
    Allowance(Address, Address),
    /// The account's Permit2 allowance of `token` to `spender` (its amount).
    Permit2(Address, Address),
    /// The account's ether.
    Ether,
}

/// What `pace run` left: its exit code, its JSON document, its stderr, and what the watched
/// values and the relayer's nonce were before and after.
pub(crate) struct Run {
    pub(crate) name: String,
    pub(crate) code: Option<i32>,
    pub(crate) doc: Value,
    pub(crate) stderr: String,
    pub(crate) watched: Vec<Watch>,
    pub(crate) before: Vec<U256>,
    pub(crate) after: Vec<U256>,
    pub(crate) relayed: u64,
}

impl Run {
    /// The codes of the decision's violations.
    pub(crate) fn codes(&self) -> Vec<ViolationCode> {
        let violations: Vec<Violation> =
            serde_json::from_value(self.doc["decision"]["violations"].clone())
                .unwrap_or_else(|e| panic!("{}: violations: {e}: {:#}", self.name, self.doc));
        violations.into_iter().map(|v| v.code).collect()
    }

    /// [`Self::codes`] beside a dump's own: a swap at no minimum is refused for its slippage,
    /// and for its impact and the loss it measures, whatever else is under test; those are
    /// taken out (once the slippage is seen) and the rest deduplicated.
    pub(crate) fn codes_beside_the_dump(&self) -> Vec<ViolationCode> {
        let all = self.codes();
        assert!(
            all.contains(&ViolationCode::SlippageExceeded),
            "{}: {all:?}",
            self.name
        );
        let mut rest: Vec<_> = all
            .into_iter()
            .filter(|c| {
                !matches!(
                    c,
                    ViolationCode::SlippageExceeded | ViolationCode::PriceImpactExceeded
                )
            })
            .collect();
        rest.dedup();
        rest
    }

    /// The simulation's net change of the account's `token` (0 when it shows none).
    pub(crate) fn simulated(&self, token: Address) -> I256 {
        self.delta_in("simulation", token)
    }

    /// The net change of `token` the submission read back after executing (0 when it shows
    /// none).
    pub(crate) fn realised(&self, token: Address) -> I256 {
        self.delta_in("execution", token)
    }

    fn delta_in(&self, part: &str, token: Address) -> I256 {
        let changes = self.doc[part]["balance_changes"]
            .as_array()
            .unwrap_or_else(|| panic!("{}: no {part} balance changes: {:#}", self.name, self.doc));
        changes
            .iter()
            .find(|c| c["token"].as_str().and_then(|t| t.parse().ok()) == Some(token))
            .map_or(I256::ZERO, |c| {
                I256::from_dec_str(c["delta"].as_str().expect("a decimal delta"))
                    .expect("a signed delta")
            })
    }

    /// What the node shows `watch` changed by.
    pub(crate) fn executed(&self, watch: usize) -> I256 {
        let signed = |v: U256| I256::try_from(v).expect("fits");
        signed(self.after[watch]) - signed(self.before[watch])
    }

    /// Approved, broadcast once and executed; every watched token balance of the account
    /// changed on the node as the simulation said, to within `tolerance` smallest units of the
    /// tokens in `accruing` (interest between the simulated block and the executed one) and
    /// exactly for the others.
    pub(crate) fn assert_executed_as_simulated(&self, accruing: &[Address], tolerance: U256) {
        let n = &self.name;
        assert_eq!(self.code, Some(0), "{n}: {:#}\n{}", self.doc, self.stderr);
        assert_eq!(
            self.doc["execution"]["status"], "executed",
            "{n}: {:#}",
            self.doc
        );
        assert_eq!(self.relayed, 1, "{n}: one transaction relayed");
        assert!(
            self.doc["pdr"]["bounds"].as_u64() > Some(0),
            "{n}: a PDR with outcome bounds: {:#}",
            self.doc["pdr"]
        );
        for (i, watch) in self.watched.iter().enumerate() {
            let Watch::Token(token) = *watch else {
                continue;
            };
            let (simulated, executed) = (self.simulated(token), self.executed(i));
            let allowed = if accruing.contains(&token) {
                tolerance
            } else {
                U256::ZERO
            };
            assert!(
                (simulated - executed).unsigned_abs() <= allowed,
                "{n}: token {token}: simulated {simulated}, executed {executed}"
            );
            let realised = self.realised(token);
            assert!(
                (realised - executed).unsigned_abs() <= allowed,
                "{n}: token {token}: pace read back {realised}, the node shows {executed}"
            );
        }
    }

    /// Exit 1 with `code` among the violations, nothing broadcast, and every watched value
    /// (balances, allowances) as it was.
    pub(crate) fn assert_refused(&self, code: ViolationCode) {
        let n = &self.name;
        assert_eq!(self.code, Some(1), "{n}: {:#}\n{}", self.doc, self.stderr);
        assert!(self.codes().contains(&code), "{n}: {:?}", self.codes());
        assert!(self.doc["execution"].is_null(), "{n}: {:#}", self.doc);
        assert_eq!(self.relayed, 0, "{n}: the relayer sent nothing");
        for (i, watch) in self.watched.iter().enumerate() {
            assert_eq!(
                self.before[i], self.after[i],
                "{n}: {watch:?} changed though the intent was refused"
            );
        }
    }
}

/// Anvil with the world and the bed, and the `pace` binary pointed at it.
pub(crate) struct Harness {
    /// Stopped (by its PID) when the harness drops.
    pub(crate) anvil: Anvil,
    /// The node as the bed's [`pace_testkit::protocols::Chain`] (impersonating senders).
    pub(crate) node: NodeChain,
    /// The world's addresses.
    pub(crate) a: Addresses,
    /// The bed's contracts.
    pub(crate) bed: Protocols,
    dir: PathBuf,
    snapshot: Option<Value>,
}

impl Harness {
    /// Starts anvil, puts the world on it with `pace world --rpc URL --deploy` and deploys the
    /// bed over it from the bed's deployer.
    pub(crate) fn start(test: &str) -> Self {
        let anvil = Anvil::spawn().expect("anvil starts");
        let out = crate::pace(["world", "--rpc", anvil.url(), "--deploy"]);
        assert_eq!(out.status.code(), Some(0), "pace world: {}", stderr(&out));
        let doc: Value = serde_json::from_str(&stdout(&out)).expect("pace world prints JSON");
        let verifier = pace_signer::PdrSigner::from_bytes(&pace_signer::DEV_VERIFIER_KEY)
            .expect("the development key")
            .address();
        let a = pace_world::World::new(verifier)
            .expect("the embedded world")
            .addrs;
        assert_eq!(
            doc["addresses"]["account"]
                .as_str()
                .map(str::parse::<Address>),
            Some(Ok(a.account)),
            "pace world put the account where the embedded world has it"
        );
        let mut node = NodeChain::connect(anvil.url()).unwrap_or_else(|e| panic!("{e}"));
        let bed = Protocols::deploy(&mut node, &a).unwrap_or_else(|e| panic!("the bed: {e}"));
        Self {
            anvil,
            node,
            a,
            bed,
            dir: scratch(test),
            snapshot: None,
        }
    }

    fn rpc(&self, method: &'static str, params: Value) -> Value {
        self.node
            .block_on(
                self.node
                    .client()
                    .provider()
                    .raw_request(method.into(), params),
            )
            .unwrap_or_else(|e| panic!("{method}: {e}"))
    }

    /// Puts the node back where the first call left it (the world and the bed, nothing else),
    /// so each case starts from the same state.
    pub(crate) fn fresh(&mut self) {
        if let Some(id) = self.snapshot.take() {
            let reverted = self.rpc("evm_revert", json!([id]));
            assert_eq!(reverted, json!(true), "evm_revert {id}");
        }
        self.snapshot = Some(self.rpc("evm_snapshot", json!([])));
    }

    /// `storage[slot]` of `contract` at the latest block.
    pub(crate) fn storage(&self, contract: Address, slot: U256) -> U256 {
        self.node
            .block_on(std::future::IntoFuture::into_future(
                self.node.client().provider().get_storage_at(contract, slot),
            ))
            .unwrap_or_else(|e| panic!("eth_getStorageAt: {e}"))
    }

    /// The account executes `calls` through its owner's raw path (no PDR); must succeed.
    pub(crate) fn owner(&mut self, calls: &[Call]) {
        let a = self.a;
        actions::owner_execute(&mut self.node, &a, calls)
            .unwrap_or_else(|e| panic!("owner path: {e}"));
    }

    /// `who`'s balance of `token`.
    pub(crate) fn balance(&self, token: Address, who: Address) -> U256 {
        actions::balance(&self.node, token, who).unwrap_or_else(|e| panic!("balanceOf: {e}"))
    }

    /// `who`'s ether.
    pub(crate) fn ether(&self, who: Address) -> U256 {
        self.node
            .block_on(self.node.client().balance(who))
            .unwrap_or_else(|e| panic!("eth_getBalance: {e}"))
    }

    fn read(&self, watch: Watch) -> U256 {
        let account = self.a.account;
        match watch {
            Watch::Token(token) => self.balance(token, account),
            Watch::Held(token, who) => self.balance(token, who),
            Watch::Allowance(token, spender) => self
                .node
                .view_sol(
                    token,
                    &IERC20::allowanceCall {
                        owner: account,
                        spender,
                    },
                )
                .unwrap_or_else(|e| panic!("allowance: {e}")),
            Watch::Permit2(token, spender) => {
                self.bed
                    .universal_router
                    .allowance(&self.node, account, token, spender)
                    .unwrap_or_else(|e| panic!("Permit2 allowance: {e}"))
                    .0
            }
            Watch::Ether => self.ether(account),
        }
    }

    fn relayer_nonce(&self) -> u64 {
        self.node
            .block_on(self.node.client().nonce(Anvil::dev_address(RELAYER)))
            .unwrap_or_else(|e| panic!("eth_getTransactionCount: {e}"))
    }

    /// The account's intent of `calls` with no claims.
    pub(crate) fn intent(&self, calls: Vec<Call>) -> Intent {
        Intent {
            chain_id: self.anvil.chain_id(),
            account: self.a.account,
            calls,
            claimed: Claims::default(),
            metadata: Default::default(),
        }
    }

    /// Case `name`: writes `policy` and the intent of `calls`, has `pace simulate --rpc` show
    /// what the agent claims (the account's approvals and outflows; the honest path must
    /// simulate), then `pace run --rpc`, reading `watch` and the relayer's nonce around it.
    pub(crate) fn run(
        &self,
        name: &str,
        calls: Vec<Call>,
        policy: &Policy,
        watch: &[Watch],
    ) -> Run {
        let policy_path = self.dir.join(format!("{name}.policy.json"));
        write(
            &policy_path,
            &serde_json::to_value(policy).expect("policies serialise"),
        );
        let intent_path = self.dir.join(format!("{name}.intent.json"));
        let mut intent = self.intent(calls);
        write(
            &intent_path,
            &serde_json::to_value(&intent).expect("intents serialise"),
        );
        let t = std::time::Instant::now();
        let report = self.simulate(&intent_path, &policy_path);
        let simulated_in = t.elapsed();
        assert!(report.success, "{name}: the simulation reverts: {report:?}");
        intent.claimed = claims_of(&report, self.a.account);
        write(
            &intent_path,
            &serde_json::to_value(&intent).expect("intents serialise"),
        );

        let before = watch.iter().map(|w| self.read(*w)).collect();
        let sent = self.relayer_nonce();
        let out = Command::new(env!("CARGO_BIN_EXE_pace"))
            .args(["run", "--rpc", self.anvil.url(), "--intent"])
            .arg(&intent_path)
            .arg("--policy")
            .arg(&policy_path)
            .env(
                "PACE_VERIFIER_KEY",
                pace_signer::DEV_VERIFIER_KEY.to_string(),
            )
            .env("PACE_RELAYER_KEY", Anvil::dev_key(RELAYER).to_string())
            .output()
            .expect("the pace binary runs");
        let relayed = self.relayer_nonce() - sent;
        let ran_in = t.elapsed() - simulated_in;
        let after = watch.iter().map(|w| self.read(*w)).collect();
        let doc: Value = serde_json::from_str(&stdout(&out))
            .unwrap_or_else(|e| panic!("{name}: pace run printed no JSON ({e}): {}", stderr(&out)));
        let codes: Vec<&str> = doc["decision"]["violations"]
            .as_array()
            .map(Vec::as_slice)
            .unwrap_or_default()
            .iter()
            .filter_map(|v| v["code"].as_str())
            .collect();
        eprintln!(
            "  {name}: exit {:?}, {}, violations {codes:?}, relayed {relayed} (simulate {:.1} s, \
             run {:.1} s)",
            out.status.code(),
            doc["execution"]["status"]
                .as_str()
                .unwrap_or("nothing executed"),
            simulated_in.as_secs_f64(),
            ran_in.as_secs_f64(),
        );
        Run {
            name: name.to_owned(),
            code: out.status.code(),
            doc,
            stderr: stderr(&out),
            watched: watch.to_vec(),
            before,
            after,
            relayed,
        }
    }

    /// `pace policy suggest --rpc URL` on `calls` with the base policy `base`: its exit code
    /// and its JSON.
    pub(crate) fn suggest(
        &self,
        name: &str,
        calls: Vec<Call>,
        base: &Policy,
    ) -> (Option<i32>, Value) {
        let intent = self.dir.join(format!("{name}.intent.json"));
        write(
            &intent,
            &serde_json::to_value(self.intent(calls)).expect("intents serialise"),
        );
        let policy = self.policy_file(&format!("{name}.base"), base);
        self.policy_command(name, "suggest", &[&intent, Path::new("--policy"), &policy])
    }

    /// `pace policy check --rpc URL` on `policy`: its exit code and its JSON.
    pub(crate) fn check_policy(&self, name: &str, policy: &Policy) -> (Option<i32>, Value) {
        let policy = self.policy_file(&format!("{name}.checked"), policy);
        self.policy_command(name, "check", &[&policy])
    }

    /// `policy` written to `NAME.json` in the scratch directory.
    fn policy_file(&self, name: &str, policy: &Policy) -> PathBuf {
        let path = self.dir.join(format!("{name}.json"));
        write(
            &path,
            &serde_json::to_value(policy).expect("policies serialise"),
        );
        path
    }

    /// `pace policy SUB --rpc URL --intent|--policy ARGS...`: its exit code and its JSON.
    fn policy_command(&self, name: &str, sub: &str, args: &[&Path]) -> (Option<i32>, Value) {
        let first = if sub == "suggest" {
            "--intent"
        } else {
            "--policy"
        };
        let out = Command::new(env!("CARGO_BIN_EXE_pace"))
            .args(["policy", sub, "--rpc", self.anvil.url(), first])
            .args(args)
            .output()
            .expect("the pace binary runs");
        let doc = serde_json::from_str(&stdout(&out)).unwrap_or_else(|e| {
            panic!(
                "{name}: pace policy {sub} printed no JSON ({e}): {}",
                stderr(&out)
            )
        });
        (out.status.code(), doc)
    }

    fn simulate(&self, intent: &Path, policy: &Path) -> SimulationReport {
        let out: Output = Command::new(env!("CARGO_BIN_EXE_pace"))
            .args(["simulate", "--rpc", self.anvil.url(), "--intent"])
            .arg(intent)
            .arg("--policy")
            .arg(policy)
            .output()
            .expect("the pace binary runs");
        assert_eq!(
            out.status.code(),
            Some(0),
            "pace simulate: {}",
            stderr(&out)
        );
        serde_json::from_str(&stdout(&out))
            .unwrap_or_else(|e| panic!("pace simulate: {e}: {}", stdout(&out)))
    }
}

fn write(path: &Path, doc: &Value) {
    std::fs::write(path, serde_json::to_vec_pretty(doc).expect("JSON"))
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
}

/// The claims an honest agent makes from its own simulation: the account's approvals (an
/// allowance the batch sets more than once claimed once, at the largest amount) and its gross
/// outflow per token.
fn claims_of(report: &SimulationReport, account: Address) -> Claims {
    let mut approvals: Vec<Approval> = Vec::new();
    for f in report.approvals.iter().filter(|f| f.owner == account) {
        match approvals
            .iter_mut()
            .find(|c| c.token == f.token && c.spender == f.spender)
        {
            Some(c) => c.amount = c.amount.max(f.amount),
            None => approvals.push(Approval {
                token: f.token,
                spender: f.spender,
                amount: f.amount,
            }),
        }
    }
    let mut outflows: Vec<TokenAmount> = Vec::new();
    for f in report
        .token_flows
        .iter()
        .filter(|f| f.from == account && f.to != account)
    {
        match outflows.iter_mut().find(|o| o.token == f.token) {
            Some(o) => o.amount += f.amount,
            None => outflows.push(TokenAmount {
                token: f.token,
                amount: f.amount,
            }),
        }
    }
    Claims {
        approvals,
        outflows,
        ..Claims::default()
    }
}
