//! What an encoder answers is a propose request as it is, for every encoder and on both
//! transports: over HTTP its body is posted to `/v1/propose` unchanged; over MCP its
//! structured content passes propose's own input schema (the intent's metadata as pairs) and
//! propose takes it, alone or with the other members `null`. The swap's minimum comes from the
//! quote tool.

use crate::common::{Setup, ether, http, listen, mcp_client, tool_call, tool_refusal};
use pace_service::{args, schema};
use serde_json::{Value, json};

/// Each encoder with arguments on the world's tokens, in the strict form (every member, `null`
/// for what is left out); `min_out` is the swap's minimum.
fn cases(s: &Setup, min_out: &str) -> Vec<(&'static str, Value)> {
    let a = s.addrs;
    vec![
        (
            "encode_erc20_transfer",
            json!({ "account": null, "token": a.weth, "to": a.payee,
                "amount": "1000000000000000" }),
        ),
        (
            "encode_erc20_approve",
            json!({ "account": null, "token": a.weth, "spender": a.router, "amount": "1000" }),
        ),
        (
            "encode_swap",
            json!({ "account": null, "router": a.router, "path": [a.weth, a.dai],
                "amount_in": ether(1).to_string(), "min_amount_out": min_out,
                "deadline": null }),
        ),
        (
            "encode_wrap",
            json!({ "account": null, "weth": a.weth, "amount": "1000000000000000" }),
        ),
        (
            "encode_unwrap",
            json!({ "account": null, "weth": a.weth, "amount": "1000000000000000" }),
        ),
    ]
}

/// Checks a propose answer: a preview whose claims match the trace (the encoder claimed what
/// its calls do), approved for the transfer and the swap.
fn proposed_as_encoded(tool: &str, answer: &Value) {
    let preview = &answer["preview"];
    assert!(preview["proposal_id"].is_string(), "{tool}: {answer}");
    let mismatches: Vec<&Value> = preview["violations"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|v| v["code"].as_str().unwrap().ends_with("_CLAIM_MISMATCH"))
        .collect();
    assert!(mismatches.is_empty(), "{tool}: {mismatches:?}");
    if ["encode_erc20_transfer", "encode_swap"].contains(&tool) {
        assert_eq!(preview["approved"], json!(true), "{tool}: {answer}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_encoder_answer_is_proposed_as_it_is_over_http() {
    let s = Setup::default();
    let addr = listen(&s).await;
    let quote = json!({ "router": s.addrs.router, "path": [s.addrs.weth, s.addrs.dai],
        "amount_in": ether(1).to_string() });
    let (st, body) = http(addr, "POST", "/v1/quote", Some("alice"), &quote.to_string()).await;
    assert_eq!(st, 200, "{body}");
    let min_out = serde_json::from_str::<Value>(&body).unwrap()["min_amount_out"].clone();
    for (tool, args) in cases(&s, min_out.as_str().unwrap()) {
        let path = format!("/v1/encode/{}", tool.trim_start_matches("encode_"));
        let (st, encoded) = http(addr, "POST", &path, Some("alice"), &args.to_string()).await;
        assert_eq!(st, 200, "{tool}: {encoded}");
        // The answer, byte for byte, is the body of /v1/propose.
        let (st, answer) = http(addr, "POST", "/v1/propose", Some("alice"), &encoded).await;
        assert_eq!(st, 200, "{tool}: {answer}");
        proposed_as_encoded(tool, &serde_json::from_str(&answer).unwrap());
    }
    assert_eq!(s.next_sequence(0), 0, "nothing was signed");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_encoder_answer_is_proposed_as_it_is_over_mcp() {
    let s = Setup::default();
    let addr = listen(&s).await;
    let client = mcp_client(addr, "alice").await;
    let quote = json!({ "account": null, "router": s.addrs.router,
        "path": [s.addrs.weth, s.addrs.dai], "amount_in": ether(1).to_string(),
        "slippage_bps": null });
    let quoted = client.call_tool(tool_call("quote", quote)).await.unwrap();
    assert_eq!(tool_refusal(&quoted), None);
    let min_out = quoted.structured_content.unwrap()["min_amount_out"].clone();
    let propose_schema = schema::input("propose").unwrap();
    let tools = client.list_all_tools().await.unwrap();
    for (tool, args) in cases(&s, min_out.as_str().unwrap()) {
        // The encoder's output schema describes its intent as propose's input schema does.
        let listed = tools.iter().find(|t| t.name == tool).unwrap();
        let mut described = listed.output_schema.as_ref().unwrap()["properties"]["intent"].clone();
        let mut expected = propose_schema["properties"]["intent"].clone();
        described["description"] = Value::Null;
        expected["description"] = Value::Null;
        assert_eq!(described, expected, "{tool}");
        let encoded = client.call_tool(tool_call(tool, args)).await.unwrap();
        assert_eq!(tool_refusal(&encoded), None, "{tool}");
        let answer = encoded.structured_content.unwrap();
        // The answer's intent is what propose's schema describes: metadata as pairs.
        assert!(answer["intent"]["metadata"].is_array(), "{tool}: {answer}");
        let strict = json!({ "intent": answer["intent"], "execute": null,
            "allow_repeat": null, "idempotency_key": null });
        args::check(&propose_schema, &strict, "").unwrap_or_else(|e| panic!("{tool}: {e}"));
        // Propose takes the answer as it is, and in the strict form a model sends.
        for call in [answer.clone(), strict] {
            let r = client.call_tool(tool_call("propose", call)).await.unwrap();
            assert_eq!(tool_refusal(&r), None, "{tool}: {r:?}");
            proposed_as_encoded(tool, r.structured_content.as_ref().unwrap());
        }
    }
    assert_eq!(s.next_sequence(0), 0, "nothing was signed");
    client.cancel().await.unwrap();
}
