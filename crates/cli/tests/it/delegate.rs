//! `pace delegate` on a real anvil: the EOA's key signs the EIP-7702 authorization and the
//! `PaceDelegate` set-up offline (`sign`), a relayer sends them as one type-4 transaction
//! (`send`), and the EOA then carries the delegation designator, the signed verifier, lane
//! floor and a domain salt, and runs PDRs signed under its salted domains: one sent directly by
//! a relayer, one as a user operation through the real EntryPoint v0.8 (npm bytecode at its
//! canonical address) with the relayer as the bundler. A document whose nonce is spent, or
//! whose set-up nonce was used, sends nothing. The EOA may also relay its own delegation. The
//! standalone account's EntryPoint path runs on the same kind of node, for comparison.

use super::deploy::{json, pace_env};
use super::*;
use alloy::providers::Provider;
use alloy_primitives::{Address, B256, Bytes, U256};
use alloy_sol_types::{SolCall, SolConstructor, SolEvent, SolValue};
use pace_cli::PaceDelegate;
use pace_contracts::bindings::{IERC20, MockERC20, PaceAccount};
use pace_node::{Anvil, NodeClient, Tx, TxOutcome};
use pace_signer::PdrSigner;
use pace_testkit::protocols::npm::{NpmArtifact, Package};
use pace_types::pdr::{Attestation, Bound, Call, EntryPath, Pdr, PdrTerms};
use pace_types::user_op::{
    ENTRY_POINT_V08, PdrSignature, UserOpGas, delegation_designator, pdr_user_op, user_op_hash,
};

/// The EOA's key: a fresh account that holds no ether (the relayer pays).
const EOA_KEY: B256 = B256::repeat_byte(0x0a);
/// Where the PDRs send their tokens.
const PAYEE: Address = Address::repeat_byte(0x7e);
/// The ERC-4337 contracts, as package.json pins them.
const ACCOUNT_ABSTRACTION: Package = Package {
    name: "@account-abstraction/contracts",
    version: "0.8.0",
};

alloy_sol_types::sol! {
    /// EntryPoint v0.8's deposits.
    function depositTo(address account) external payable;
    function balanceOf(address account) external view returns (uint256);

    /// EntryPoint v0.8's record of each user operation it ran.
    event UserOperationEvent(
        bytes32 indexed userOpHash,
        address indexed sender,
        address indexed paymaster,
        uint256 nonce,
        bool success,
        uint256 actualGasCost,
        uint256 actualGasUsed
    );
}

struct Bed {
    anvil: Anvil,
    client: NodeClient,
    delegate: Address,
    eoa: Address,
    verifier: PdrSigner,
    dir: PathBuf,
}

async fn bed(test: &str) -> Bed {
    bed_on(test, Anvil::spawn().unwrap()).await
}

async fn bed_on(test: &str, anvil: Anvil) -> Bed {
    let client = NodeClient::connect(anvil.url(), Anvil::dev_signer(0))
        .await
        .unwrap();
    let code = pace_contracts::artifacts()
        .unwrap()
        .get("PaceDelegate")
        .unwrap()
        .deploy_code(&[]);
    let delegate = client.deploy(code).await.unwrap();
    let eoa = alloy::signers::local::PrivateKeySigner::from_bytes(&EOA_KEY)
        .unwrap()
        .address();
    Bed {
        anvil,
        client,
        delegate,
        eoa,
        verifier: PdrSigner::from_bytes(&Anvil::dev_key(1)).unwrap(),
        dir: scratch(test),
    }
}

impl Bed {
    /// `pace delegate sign` with the EOA's key into `name`, valid for an hour of the machine's
    /// clock; the file's path.
    fn sign(&self, name: &str, nonce: u64, setup_nonce: u64) -> PathBuf {
        let deadline = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_secs()
            + 3_600;
        let out = self.sign_until(name, nonce, setup_nonce, deadline, &[]);
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
        self.dir.join(name)
    }

    /// `pace delegate sign` into `name` with `deadline` and `extra` flags.
    fn sign_until(
        &self,
        name: &str,
        nonce: u64,
        setup_nonce: u64,
        deadline: u64,
        extra: &[&str],
    ) -> Output {
        let file = self.dir.join(name);
        let deadline = deadline.to_string();
        let (delegate, verifier) = (
            self.delegate.to_string(),
            self.verifier.address().to_string(),
        );
        let chain_id = self.anvil.chain_id().to_string();
        let (nonce, setup_nonce) = (nonce.to_string(), setup_nonce.to_string());
        let mut args = vec![
            "delegate",
            "sign",
            "--delegate",
            &delegate,
            "--verifier",
            &verifier,
            "--chain-id",
            &chain_id,
            "--nonce",
            &nonce,
            "--setup-nonce",
            &setup_nonce,
            "--deadline",
            &deadline,
            "--lane",
            "5:3",
            "--out",
            file.to_str().unwrap(),
        ];
        args.extend_from_slice(extra);
        pace_env(&args, &[("PACE_EOA_KEY", EOA_KEY.to_string())])
    }

    /// `pace delegate send` of `file` from anvil's dev account 2.
    fn send(&self, file: &Path) -> Output {
        self.send_from(file, Anvil::dev_key(2))
    }

    /// `pace delegate send` of `file` signed with `relayer_key`.
    fn send_from(&self, file: &Path, relayer_key: B256) -> Output {
        pace_env(
            &[
                "delegate",
                "send",
                "--rpc",
                self.anvil.url(),
                file.to_str().unwrap(),
            ],
            &[("PACE_RELAYER_KEY", relayer_key.to_string())],
        )
    }
}

/// The EOA may send its own delegation: the authorization is then checked after the
/// transaction's own nonce bump, so it must carry the next nonce but one.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_eoa_can_relay_its_own_delegation_with_the_nonce_after_its_own() {
    let b = bed("delegate_self").await;
    let fund = b
        .client
        .execute(Tx::call(b.eoa, U256::from(10u128.pow(17)), Bytes::new()))
        .await
        .unwrap();
    assert!(fund.is_executed());
    let wrong = b.sign("wrong.json", 0, 1);
    let out = tokio::task::block_in_place(|| b.send_from(&wrong, EOA_KEY));
    assert_eq!(out.status.code(), Some(2), "{}", stdout(&out));
    assert!(
        stderr(&out).contains("--nonce 1"),
        "tells the nonce to sign: {}",
        stderr(&out)
    );
    let file = b.sign("self.json", 1, 1);
    let out = tokio::task::block_in_place(|| b.send_from(&file, EOA_KEY));
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}\n{}",
        stdout(&out),
        stderr(&out)
    );
    assert_eq!(json(&out)["status"], "delegated");
    assert_eq!(
        b.client.code(b.eoa).await.unwrap(),
        delegation_designator(b.delegate)
    );
    assert_eq!(b.client.nonce(b.eoa).await.unwrap(), 2);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_relayer_delegates_and_sets_up_the_eoa_with_one_type_4_transaction() {
    let b = bed("delegate_type_4").await;
    let file = b.sign("delegation.json", 0, 1);
    let doc: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
    assert_eq!(doc["eoa"], serde_json::json!(b.eoa));
    assert_eq!(doc["authorization"]["nonce"], 0);

    let out = tokio::task::block_in_place(|| b.send(&file));
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}\n{}",
        stdout(&out),
        stderr(&out)
    );
    let sent = json(&out);
    assert_eq!(sent["status"], "delegated", "{sent:#}");
    assert_eq!(sent["execution"]["status"], "executed");
    let tx_hash: B256 = sent["tx_hash"].as_str().unwrap().parse().unwrap();

    // A type-4 transaction from the relayer to the EOA.
    let tx: serde_json::Value = b
        .client
        .provider()
        .raw_request("eth_getTransactionByHash".into(), (tx_hash,))
        .await
        .unwrap();
    assert_eq!(tx["type"], "0x4", "{tx:#}");
    assert_eq!(
        tx["from"].as_str().unwrap().parse::<Address>().unwrap(),
        Anvil::dev_address(2)
    );
    assert_eq!(
        tx["to"].as_str().unwrap().parse::<Address>().unwrap(),
        b.eoa
    );
    assert_eq!(tx["authorizationList"].as_array().unwrap().len(), 1);

    // The EOA: delegated, set up as signed.
    assert_eq!(
        b.client.code(b.eoa).await.unwrap(),
        delegation_designator(b.delegate)
    );
    let verifier = b
        .client
        .call_sol(b.eoa, &PaceAccount::verifierCall {})
        .await
        .unwrap();
    assert_eq!(verifier, b.verifier.address());
    let salt = b
        .client
        .call_sol(b.eoa, &PaceDelegate::domainSaltCall {})
        .await
        .unwrap();
    assert_ne!(salt, B256::ZERO);
    assert_eq!(
        sent["state"]["domain_salt"].as_str().unwrap(),
        salt.to_string()
    );
    let lane = b
        .client
        .call_sol(b.eoa, &PaceAccount::nextSequenceCall { key: 5 })
        .await
        .unwrap();
    assert_eq!(lane, 3, "the signed lane floor");
    assert_eq!(
        b.client.nonce(b.eoa).await.unwrap(),
        1,
        "the authorization used nonce 0"
    );

    // The same document again: its authorization nonce is spent; nothing is sent.
    let again = tokio::task::block_in_place(|| b.send(&file));
    assert_eq!(again.status.code(), Some(2), "{}", stdout(&again));
    assert!(
        stderr(&again).contains("nothing was sent"),
        "{}",
        stderr(&again)
    );
    // A fresh authorization with the used set-up nonce: the delegate refuses it in estimation
    // (set-ups are ordered: a nonce must be above the last one that landed).
    let replayed = b.sign("replayed.json", 1, 1);
    let out = tokio::task::block_in_place(|| b.send(&replayed));
    assert_eq!(out.status.code(), Some(2), "{}", stdout(&out));
    assert!(
        stderr(&out).contains("PaceDelegateSetupNonceNotIncreasing"),
        "{}",
        stderr(&out)
    );

    // The delegated EOA runs a PDR signed under its salted domain, sent by anyone, and one
    // through the real EntryPoint v0.8, the relayer as the bundler.
    let token = token_held_by(&b, b.eoa).await;
    tokio::task::block_in_place(|| simulate_then_verify_as_the_delegate(&b, token));
    run_pdr(&b, token, salt).await;
    let eoa = b.eoa;
    run_user_op(&b, token, eoa, |user_op_hash| {
        EntryPath::DelegateEntryPoint {
            eoa,
            setup_salt: salt,
            user_op_hash,
        }
    })
    .await;
}

/// Deadlines are the chain's: on a chain a day behind the machine's clock, a set-up valid for
/// ten more minutes of chain time signs (offline, and against the chain with `--rpc`) and
/// lands; one the chain has passed is refused by `sign --rpc` and by `send`, nothing sent.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn set_up_deadlines_are_measured_on_the_chains_clock() {
    let day_ago = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs()
        - 86_400;
    let anvil = Anvil::builder()
        .arg("--timestamp")
        .arg(day_ago.to_string())
        .spawn()
        .unwrap();
    let b = bed_on("delegate_chain_clock", anvil).await;
    let chain_now = b.client.latest_block().await.unwrap().timestamp;
    assert!(chain_now < day_ago + 3_600, "the chain runs a day behind");
    let url = b.anvil.url().to_owned();

    let passed = tokio::task::block_in_place(|| {
        b.sign_until("passed.json", 0, 1, chain_now - 1, &["--rpc", &url])
    });
    assert_eq!(passed.status.code(), Some(2), "{}", stdout(&passed));
    assert!(
        stderr(&passed).contains("has passed on the chain"),
        "{}",
        stderr(&passed)
    );
    let offline =
        tokio::task::block_in_place(|| b.sign_until("late.json", 0, 1, chain_now - 1, &[]));
    assert_eq!(offline.status.code(), Some(0), "{}", stderr(&offline));
    let out = tokio::task::block_in_place(|| b.send(&b.dir.join("late.json")));
    assert_eq!(out.status.code(), Some(2), "{}", stdout(&out));
    assert!(
        stderr(&out).contains("nothing was sent"),
        "{}",
        stderr(&out)
    );

    let soon = chain_now + 600;
    for extra in [&["--rpc", url.as_str()][..], &[]] {
        let out = tokio::task::block_in_place(|| b.sign_until("soon.json", 0, 1, soon, extra));
        assert_eq!(out.status.code(), Some(0), "{extra:?}: {}", stderr(&out));
    }
    let out = tokio::task::block_in_place(|| b.send(&b.dir.join("soon.json")));
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}{}",
        stdout(&out),
        stderr(&out)
    );
    assert_eq!(json(&out)["status"], "delegated");
}

/// The standalone account's EntryPoint path on the same node: a PDR user operation through
/// `handleOps`, signed under the domain salted with its hash.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_standalone_account_runs_a_pdr_user_operation_through_the_entry_point() {
    let b = bed("standalone_user_op").await;
    let code = pace_cli::init_code(Anvil::dev_address(0), b.verifier.address()).unwrap();
    let account = b.client.deploy(code).await.unwrap();
    let token = token_held_by(&b, account).await;
    run_user_op(&b, token, account, |user_op_hash| EntryPath::EntryPoint {
        account,
        user_op_hash,
    })
    .await;
}

/// `pace simulate --account-kind pace-delegate` of a transfer from the delegated EOA, then
/// `pace verify` of that report with the same flags approves; without them (a report for a
/// `pace-account`), or on the EntryPoint path, it refuses the input. Without the flag the
/// simulation itself fails (the delegate's domain is not the standalone account's).
fn simulate_then_verify_as_the_delegate(b: &Bed, token: Address) {
    let (intent, policy) = super::run::write_transfer(&b.dir, b.eoa, token, b.anvil.chain_id(), 40);
    let report = b.dir.join("report.json");
    let simulate = |kind: &str| {
        pace([
            "simulate".as_ref(),
            "--rpc".as_ref(),
            b.anvil.url().as_ref(),
            "--intent".as_ref(),
            intent.as_os_str(),
            "--policy".as_ref(),
            policy.as_os_str(),
            "--account-kind".as_ref(),
            std::ffi::OsStr::new(kind),
        ])
    };
    let out = simulate("pace-delegate");
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let simulated: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(simulated["success"], true, "{simulated:#}");
    assert_eq!(simulated["execution"]["account_kind"], "pace-delegate");
    std::fs::write(&report, &out.stdout).unwrap();
    let as_account = simulate("pace-account");
    let failed: serde_json::Value = serde_json::from_slice(&as_account.stdout).unwrap();
    assert_eq!(failed["success"], false, "{failed:#}");

    let now = (simulated["timestamp"].as_u64().unwrap() + 12).to_string();
    let verify = |flags: &[&str]| {
        let mut args: Vec<&std::ffi::OsStr> = vec![
            "verify".as_ref(),
            "--intent".as_ref(),
            intent.as_os_str(),
            "--policy".as_ref(),
            policy.as_os_str(),
            "--simulation".as_ref(),
            report.as_os_str(),
            "--now".as_ref(),
            now.as_ref(),
        ];
        args.extend(flags.iter().map(std::ffi::OsStr::new));
        pace(args)
    };
    let out = verify(&["--account-kind", "pace-delegate"]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}{}",
        stdout(&out),
        stderr(&out)
    );
    for flags in [
        &[][..],
        &["--account-kind", "pace-delegate", "--entry", "entry-point"],
    ] {
        let out = verify(flags);
        assert_eq!(out.status.code(), Some(2), "{flags:?}: {}", stdout(&out));
        assert!(
            stderr(&out).contains("simulated for --account-kind pace-delegate"),
            "{}",
            stderr(&out)
        );
    }
}

/// A fresh MockERC20 of which `holder` has 1,000.
async fn token_held_by(b: &Bed, holder: Address) -> Address {
    let ctor = MockERC20::constructorCall {
        name_: "Dai".into(),
        symbol_: "DAI".into(),
        decimals_: 18,
    };
    let code = pace_contracts::artifacts()
        .unwrap()
        .get("MockERC20")
        .unwrap()
        .deploy_code(&ctor.abi_encode());
    let token = b.client.deploy(code).await.unwrap();
    let mint = MockERC20::mintCall {
        to: holder,
        amount: U256::from(1_000u64),
    };
    let minted = b
        .client
        .execute(Tx::call(token, U256::ZERO, mint.abi_encode().into()))
        .await
        .unwrap();
    assert!(minted.is_executed());
    token
}

/// The PDR of a 40-token transfer to [`PAYEE`] on lane `key`, sequence `sequence`, fresh at
/// the latest block.
async fn transfer_pdr(b: &Bed, token: Address, key: u32, sequence: u64) -> Pdr {
    let latest = b.client.latest_block().await.unwrap();
    let transfer = IERC20::transferCall {
        to: PAYEE,
        value: U256::from(40u64),
    };
    let mut bound = Bound::balance(token);
    bound.maxOut = U256::from(40u64);
    let terms = PdrTerms {
        key,
        sequence,
        valid_after: 0,
        valid_until: latest.timestamp + 600,
        simulation_block: latest.number,
        max_simulation_age: 10,
        call_gas_kib: 0,
    };
    Pdr::new(
        Attestation {
            policyHash: B256::repeat_byte(1),
            intentHash: B256::repeat_byte(2),
            simulationHash: B256::repeat_byte(3),
        },
        vec![Call {
            target: token,
            value: U256::ZERO,
            data: transfer.abi_encode().into(),
        }],
        vec![bound],
        vec![],
        vec![],
        &terms,
    )
}

async fn paid(b: &Bed, token: Address) -> U256 {
    b.client
        .call_sol(token, &IERC20::balanceOfCall { account: PAYEE })
        .await
        .unwrap()
}

/// A PDR on the delegate's direct path (lane 5, at its signed floor 3), sent by a relayer.
async fn run_pdr(b: &Bed, token: Address, salt: B256) {
    let pdr = transfer_pdr(b, token, 5, 3).await;
    let before = paid(b, token).await;
    let path = EntryPath::Delegate {
        eoa: b.eoa,
        setup_salt: salt,
    };
    let sig = b
        .verifier
        .sign_digest(pdr.digest_on(b.anvil.chain_id(), &path))
        .unwrap();
    let call = PaceAccount::executeBatchPDRCall {
        calls: pdr.calls.iter().map(Into::into).collect(),
        bounds: pdr.bounds.iter().map(Into::into).collect(),
        held: vec![],
        checks: Vec::new(),
        attestation: pdr.attestation_hash(),
        terms: pdr.terms().pack(),
        r: sig.r,
        vs: sig.vs,
    };
    let relayer = NodeClient::connect(b.anvil.url(), Anvil::dev_signer(2))
        .await
        .unwrap();
    let outcome = relayer
        .execute(Tx::call(b.eoa, U256::ZERO, call.abi_encode().into()))
        .await
        .unwrap();
    assert!(outcome.is_executed(), "{outcome:?}");
    assert_eq!(paid(b, token).await - before, U256::from(40u64));
}

/// EntryPoint v0.8 from its npm bytecode, its runtime put at the canonical address with
/// `anvil_setCode`; `handleOps`' selector.
async fn entry_point(b: &Bed) -> [u8; 4] {
    let artifact = NpmArtifact::load(ACCOUNT_ABSTRACTION, "EntryPoint.json").unwrap();
    let deployed = b
        .client
        .deploy(artifact.deploy_code(&[]).unwrap())
        .await
        .unwrap();
    let runtime = b.client.code(deployed).await.unwrap();
    let _: serde_json::Value = b
        .client
        .provider()
        .raw_request("anvil_setCode".into(), (ENTRY_POINT_V08, runtime))
        .await
        .unwrap();
    artifact.abi.function("handleOps").unwrap()[0].selector().0
}

/// A PDR user operation of `sender` (lane 9) through the real EntryPoint v0.8, signed under
/// `path(userOpHash)`, the relayer as the bundler; `sender` pays the prefund from its EntryPoint
/// deposit.
async fn run_user_op(b: &Bed, token: Address, sender: Address, path: impl Fn(B256) -> EntryPath) {
    let handle_ops = entry_point(b).await;
    // A PDR user operation pays its gas from the sender's EntryPoint deposit, never from its
    // ether.
    let deposit = Tx::call(
        ENTRY_POINT_V08,
        U256::from(10u128.pow(17)),
        depositToCall { account: sender }.abi_encode().into(),
    );
    let fund = b.client.execute(deposit).await.unwrap();
    assert!(fund.is_executed(), "{fund:?}");

    let pdr = transfer_pdr(b, token, 9, 0).await;
    let gas = UserOpGas {
        verification_gas_limit: 300_000,
        call_gas_limit: 400_000,
        pre_verification_gas: 60_000,
        max_priority_fee_per_gas: 1_000_000_000,
        max_fee_per_gas: 20_000_000_000,
    };
    let mut op = pdr_user_op(sender, &pdr, &gas, Bytes::new());
    let hash = user_op_hash(&op, ENTRY_POINT_V08, b.anvil.chain_id(), None).unwrap();
    let sig = b
        .verifier
        .sign_digest(pdr.digest_on(b.anvil.chain_id(), &path(hash)))
        .unwrap();
    op.signature = PdrSignature {
        attestation: pdr.attestation_hash(),
        r: sig.r,
        vs: sig.vs,
    }
    .encode();
    let mut data = handle_ops.to_vec();
    data.extend((vec![op], Anvil::dev_address(2)).abi_encode_params());
    let before = paid(b, token).await;
    let eth_before = b.client.balance(sender).await.unwrap();
    let of_sender = balanceOfCall { account: sender };
    let deposit = || b.client.call_sol(ENTRY_POINT_V08, &of_sender);
    let deposit_before = deposit().await.unwrap();
    let bundler = NodeClient::connect(b.anvil.url(), Anvil::dev_signer(2))
        .await
        .unwrap();
    let outcome = bundler
        .execute(Tx::call(ENTRY_POINT_V08, U256::ZERO, data.into()))
        .await
        .unwrap();
    let TxOutcome::Executed { logs, .. } = &outcome else {
        panic!("handleOps did not execute: {outcome:?}");
    };
    let events: Vec<_> = logs
        .iter()
        .filter_map(|l| UserOperationEvent::decode_log(l).ok())
        .collect();
    assert_eq!(events.len(), 1);
    assert_eq!(events[0].address, ENTRY_POINT_V08);
    assert_eq!(events[0].userOpHash, hash);
    assert_eq!(events[0].sender, sender);
    assert!(
        events[0].success,
        "the user operation's execution succeeded"
    );
    assert_eq!(paid(b, token).await - before, U256::from(40u64));
    assert!(
        deposit().await.unwrap() < deposit_before,
        "the sender's deposit paid for its operation"
    );
    assert_eq!(
        b.client.balance(sender).await.unwrap(),
        eth_before,
        "its ether paid nothing"
    );
}
