//! The MCP tools a model can fill in: every input schema in the strict subset, annotations,
//! output schemas and structured content, the server's own name; argument mistakes as tool
//! errors carrying the `/v1` error object and naming the field; the reads (policy redacted, budgets
//! from the account, balances); an encoded transfer proposed and confirmed; the claims the
//! trace implies for an intent without claims.

use crate::common::{Setup, ether};
use alloy_primitives::U256;
use pace_contracts::bindings::PaceAccount;
use pace_service::{api::Operation, http::serve, schema::check_strict};
use rmcp::{
    ServiceExt,
    model::CallToolRequestParams,
    transport::{
        StreamableHttpClientTransport, streamable_http_client::StreamableHttpClientTransportConfig,
    },
};
use serde_json::{Value, json};

async fn start(s: &Setup) -> std::net::SocketAddr {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(serve(s.service.clone(), listener, std::future::pending()));
    addr
}

fn params(name: &'static str, args: Value) -> CallToolRequestParams {
    let Value::Object(map) = args else {
        panic!("arguments are an object")
    };
    CallToolRequestParams::new(name).with_arguments(map)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_tool_is_strict_annotated_and_answers_structured() {
    let s = Setup::default();
    let addr = start(&s).await;
    let config = StreamableHttpClientTransportConfig::with_uri(format!("http://{addr}/mcp"))
        .auth_header("alice");
    let client = ().serve(StreamableHttpClientTransport::from_config(config)).await.unwrap();
    let info = client.peer_info().unwrap().server_info.clone().unwrap();
    assert_eq!(info.name, "pace");
    assert_eq!(info.version, env!("CARGO_PKG_VERSION"));

    let tools = client.list_all_tools().await.unwrap();
    let mut names: Vec<&str> = tools.iter().map(|t| t.name.as_ref()).collect();
    names.sort();
    assert_eq!(
        names,
        [
            "balances",
            "budgets",
            "confirm",
            "encode_erc20_approve",
            "encode_erc20_transfer",
            "encode_swap",
            "encode_unwrap",
            "encode_wrap",
            "history",
            "pending",
            "policy",
            "propose",
            "quote",
            "status"
        ]
    );
    for t in &tools {
        let schema = Value::Object((*t.input_schema).clone());
        check_strict(&schema).unwrap_or_else(|e| panic!("{}: {e}", t.name));
        assert!(t.output_schema.is_some(), "{}", t.name);
        let a = t.annotations.as_ref().expect("annotations");
        let read_only = a.read_only_hint.unwrap();
        assert_eq!(
            a.destructive_hint.unwrap(),
            ["propose", "confirm"].contains(&t.name.as_ref()),
            "{}",
            t.name
        );
        assert_eq!(
            read_only,
            !["propose", "confirm"].contains(&t.name.as_ref())
        );
        assert!(a.idempotent_hint.is_some());
    }

    // A strict caller fills every member, null for what it leaves out.
    let mut intent = serde_json::to_value(&s.swap).unwrap();
    intent["metadata"] = json!([{ "key": "memo", "value": "rebalance" }]);
    intent["claimed"]["touched"] = Value::Null;
    let strict = json!({ "intent": intent, "execute": null, "allow_repeat": null,
        "idempotency_key": null });
    let proposed = client.call_tool(params("propose", strict)).await.unwrap();
    assert_ne!(proposed.is_error, Some(true), "{proposed:?}");
    let id = proposed.structured_content.unwrap()["preview"]["proposal_id"]
        .as_str()
        .unwrap()
        .to_owned();
    for (name, args) in [
        ("status", json!({ "proposal_id": id })),
        ("history", json!({ "limit": null })),
        ("pending", json!({ "limit": 5 })),
        ("policy", json!({ "account": null })),
        ("budgets", json!({ "account": null })),
        ("balances", json!({ "account": null })),
    ] {
        let r = client.call_tool(params(name, args)).await.unwrap();
        assert_ne!(r.is_error, Some(true), "{name}: {r:?}");
        assert!(
            r.structured_content.as_ref().is_some_and(Value::is_object),
            "{name}: {r:?}"
        );
    }

    // Argument mistakes: tool errors a model reads, the /v1 error object as structured content.
    for (name, args, field) in [
        (
            "confirm",
            json!({ "proposal_id": id, "confirm": "true" }),
            "confirm",
        ),
        ("status", json!({ "proposal_id": id, "extra": 1 }), "extra"),
        (
            "propose",
            json!({ "intent": { "chain_id": 1 } }),
            "intent.account",
        ),
        (
            "encode_erc20_transfer",
            json!({ "token": s.addrs.weth, "to": s.addrs.payee, "amount": "-1", "account": null }),
            "amount",
        ),
    ] {
        let r = client.call_tool(params(name, args)).await.unwrap();
        assert_eq!(r.is_error, Some(true), "{name}: {r:?}");
        let error = &r.structured_content.unwrap()["error"];
        assert_eq!(error["code"], "BAD_REQUEST", "{name}");
        let message = error["message"].as_str().unwrap();
        assert!(
            message.starts_with(&format!("bad request: {field}: ")),
            "{name}: {message}"
        );
    }
    assert_eq!(s.next_sequence(0), 0, "nothing was signed");
    client.cancel().await.unwrap();
}

#[test]
fn the_reads_show_the_policy_redacted_the_budgets_left_and_the_balances() {
    let s = Setup::default();
    let alice = s.caller("alice");
    let view = s.service.policy_view(&alice, None).unwrap();
    let policy = s.service.policy("default").unwrap();
    assert_eq!(view["policy_hash"], json!(policy.policy_hash()));
    assert!(view["policy"].get("metadata_patterns").is_none());
    assert_eq!(
        view["metadata_patterns_redacted"],
        json!(policy.policy().metadata_patterns.len())
    );
    assert!(!policy.policy().metadata_patterns.is_empty());
    assert!(
        !view
            .to_string()
            .contains(&policy.policy().metadata_patterns[0])
    );

    // A budget set on the account is read from it, and what a PDR moves is taken off it.
    s.send(
        s.addrs.owner,
        s.addrs.account,
        U256::ZERO,
        &PaceAccount::setBudgetCall {
            token: s.addrs.weth,
            limit: 5_000_000_000_000_000_000,
            period: 86_400,
        },
    );
    let budgets = s.service.budgets(&alice, None).unwrap();
    let b = &budgets["budgets"][0];
    assert_eq!(
        (b["token"].clone(), b["left"].as_str()),
        (json!(s.addrs.weth), Some("5000000000000000000"))
    );
    let id = s
        .service
        .propose(&alice, s.swap.clone(), false)
        .unwrap()
        .preview
        .proposal_id;
    s.service.confirm(&alice, &id, true).unwrap();
    let budgets = s.service.budgets(&alice, None).unwrap();
    assert_eq!(
        budgets["budgets"][0]["left"].as_str(),
        Some("4000000000000000000"),
        "{budgets}"
    );

    let balances = s.service.balances(&alice, None).unwrap();
    let weth = balances["balances"]
        .as_array()
        .unwrap()
        .iter()
        .find(|b| b["token"] == json!(s.addrs.weth))
        .unwrap()
        .clone();
    assert_eq!(
        weth["balance"].as_str().unwrap(),
        s.balance(s.addrs.weth, s.addrs.account).to_string()
    );
    // The reads need the read scope.
    let writer = {
        let s2 = Setup::new(
            vec![crate::common::grant(
                "w",
                &[pace_service::auth::Scope::Propose],
            )],
            Default::default(),
        );
        s2.service.policy_view(&s2.caller("w"), None).unwrap_err()
    };
    assert_eq!(writer.code(), "FORBIDDEN_SCOPE");
}

#[test]
fn an_encoded_transfer_is_proposed_and_confirmed_like_any_intent() {
    let s = Setup::default();
    let alice = s.caller("alice");
    let before = s.balance(s.addrs.weth, s.addrs.payee);
    let args = json!({ "token": s.addrs.weth, "to": s.addrs.payee,
        "amount": ether(1).to_string() });
    let encoded = s
        .service
        .encode(&alice, "encode_erc20_transfer", args)
        .unwrap();
    assert_eq!(s.next_sequence(0), 0, "encoding signs nothing");
    let body = json!({ "intent": encoded["intent"] }).to_string();
    let proposed = s
        .service
        .answer(&alice, Operation::Propose, body.as_bytes(), None);
    assert_eq!(proposed.status, 200, "{}", proposed.body);
    let p: Value = serde_json::from_str(&proposed.body).unwrap();
    assert_eq!(p["preview"]["approved"], json!(true), "{p}");
    let id = p["preview"]["proposal_id"].as_str().unwrap();
    let done = s.service.confirm(&alice, id, true).unwrap();
    assert_eq!(done.state.as_str(), "executed");
    assert_eq!(s.balance(s.addrs.weth, s.addrs.payee), before + ether(1));

    // A transfer to a stranger encodes as well, and the guard refuses it on its own evidence.
    let stranger = json!({ "token": s.addrs.weth, "to": s.addrs.attacker,
        "amount": ether(1).to_string() });
    let encoded = s
        .service
        .encode(&alice, "encode_erc20_transfer", stranger)
        .unwrap();
    let intent = serde_json::from_value(encoded["intent"].clone()).unwrap();
    let refused = s.service.propose(&alice, intent, false).unwrap();
    assert!(!refused.preview.approved);
}

#[test]
fn an_intent_without_claims_is_told_the_claims_the_trace_implies() {
    let s = Setup::default();
    let alice = s.caller("alice");
    let mut bare = s.swap.clone();
    bare.claimed = Default::default();
    let first = s
        .service
        .propose(&alice, bare.clone(), false)
        .unwrap()
        .preview;
    assert!(!first.approved);
    assert!(
        first
            .violations
            .iter()
            .any(|v| v.code.as_str().ends_with("_CLAIM_MISMATCH"))
    );
    let implied = first.implied_claims.expect("implied claims");
    assert_eq!(implied.outflows, s.swap.claimed.outflows);
    assert_eq!(implied.approvals, s.swap.claimed.approvals);
    // Proposed again with them, the same calls pass.
    bare.claimed = implied;
    let again = s.service.propose(&alice, bare, false).unwrap().preview;
    assert!(again.approved, "{:?}", again.violations);
    assert!(again.implied_claims.is_none());
}

/// Every encoder's claims are the ones the simulation shows: no claim mismatch, whatever else
/// the policy says of the action.
#[test]
fn every_encoder_claims_what_its_calls_do() {
    use pace_abi::bindings::IUniswapV2Router02;
    let s = Setup::default();
    let alice = s.caller("alice");
    let quote = {
        let st = s.service.state();
        let evm = &st.chain.world().unwrap().evm;
        evm.view_sol(
            s.addrs.router,
            &IUniswapV2Router02::getAmountsOutCall {
                amountIn: ether(1),
                path: vec![s.addrs.weth, s.addrs.dai],
            },
        )
        .unwrap()[1]
    };
    let min_out = quote * U256::from(995) / U256::from(1000);
    let cases = [
        (
            "encode_erc20_approve",
            json!({ "token": s.addrs.weth, "spender": s.addrs.router, "amount": "1000" }),
        ),
        (
            "encode_swap",
            json!({ "router": s.addrs.router, "path": [s.addrs.weth, s.addrs.dai],
                "amount_in": ether(1).to_string(), "min_amount_out": min_out.to_string() }),
        ),
        (
            "encode_wrap",
            json!({ "weth": s.addrs.weth, "amount": "1000000000000000" }),
        ),
        (
            "encode_unwrap",
            json!({ "weth": s.addrs.weth, "amount": "1000000000000000" }),
        ),
    ];
    for (tool, args) in cases {
        let encoded = s.service.encode(&alice, tool, args).unwrap();
        let intent = serde_json::from_value(encoded["intent"].clone()).unwrap();
        let preview = s.service.propose(&alice, intent, false).unwrap().preview;
        let mismatches: Vec<_> = preview
            .violations
            .iter()
            .filter(|v| v.code.as_str().ends_with("_CLAIM_MISMATCH"))
            .collect();
        assert!(mismatches.is_empty(), "{tool}: {mismatches:?}");
        assert!(preview.implied_claims.is_none(), "{tool}");
        if tool == "encode_swap" {
            assert!(preview.approved, "{tool}: {:?}", preview.violations);
        }
    }
}
