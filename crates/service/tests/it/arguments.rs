//! What the tools' schemas say the server accepts, fed to the server over MCP: every example
//! value each schema lists, at its place in an otherwise valid call, is accepted (whatever the
//! service then says of it, it is no argument mistake); values the server refuses come back
//! as tool errors (`isError`, `BAD_REQUEST`) whose message names the field, including the
//! ones JSON Schema cannot refuse (an EIP-55 checksum, 2^256, a slippage above the policy's
//! maximum). What is not a call of a known tool stays a JSON-RPC error.

use crate::common::{Setup, listen, mcp_client, tool_call, tool_refusal};
use pace_service::schema::{self, check_strict};
use serde_json::{Value, json};

/// The first non-null option of a nullable schema, or the schema itself.
fn non_null(schema: &Value) -> &Value {
    match schema.get("anyOf").and_then(Value::as_array) {
        Some(options) => options
            .iter()
            .find(|o| o.get("type") != Some(&json!("null")))
            .expect("a non-null option"),
        None => schema,
    }
}

fn nullable(schema: &Value) -> bool {
    let t = &schema["type"];
    t == "null"
        || t.as_array().is_some_and(|ts| ts.contains(&json!("null")))
        || schema["anyOf"]
            .as_array()
            .is_some_and(|o| o.iter().any(|o| o["type"] == "null"))
}

/// A value `schema` accepts, made of the examples its leaves list (each leaf's first), with
/// every leaf that lists examples recorded as (JSON pointer, its schema).
fn instance<'a>(schema: &'a Value, at: &str, leaves: &mut Vec<(String, &'a Value)>) -> Value {
    let s = non_null(schema);
    if let Some(c) = s.get("const") {
        return c.clone();
    }
    let examples = schema::examples(s);
    if let Some(first) = examples.first() {
        leaves.push((at.to_owned(), s));
        return first.clone();
    }
    let kind = match &s["type"] {
        Value::Array(ts) => ts.iter().find(|t| *t != "null").unwrap().clone(),
        t => t.clone(),
    };
    match kind.as_str().unwrap() {
        "object" => Value::Object(
            s["properties"]
                .as_object()
                .unwrap()
                .iter()
                .map(|(k, sub)| (k.clone(), instance(sub, &format!("{at}/{k}"), leaves)))
                .collect(),
        ),
        "array" => {
            let n = s["minItems"].as_u64().unwrap_or(1).max(1);
            (0..n)
                .map(|i| instance(&s["items"], &format!("{at}/{i}"), leaves))
                .collect()
        }
        "boolean" if nullable(schema) => Value::Null,
        "boolean" => json!(false),
        other => panic!("{at}: a {other} without examples"),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_example_a_schema_lists_is_accepted_and_mistakes_name_the_field() {
    let s = Setup::default();
    let addr = listen(&s).await;
    let client = mcp_client(addr, "alice").await;
    let tools = client.list_all_tools().await.unwrap();
    let mut fed = 0;
    for t in &tools {
        let input = Value::Object((*t.input_schema).clone());
        check_strict(&input).unwrap_or_else(|e| panic!("{}: {e}", t.name));
        let mut leaves = Vec::new();
        let base = instance(&input, "", &mut leaves);
        assert!(!leaves.is_empty(), "{}: no examples", t.name);
        for (at, leaf) in leaves {
            for example in schema::examples(leaf) {
                let mut args = base.clone();
                *args.pointer_mut(&at).unwrap() = example.clone();
                let r = client.call_tool(tool_call(&t.name, args)).await.unwrap();
                if let Some((code, message)) = tool_refusal(&r) {
                    assert_ne!(code, "BAD_REQUEST", "{}{at} = {example}: {message}", t.name);
                }
                fed += 1;
            }
        }
    }
    assert!(fed > 60, "{fed} examples fed");
    assert_eq!(s.next_sequence(0), 0, "nothing was signed");

    let (weth, payee, router) = (s.addrs.weth, s.addrs.payee, s.addrs.router);
    let mixed = |a: alloy_primitives::Address| a.to_checksum(None);
    // One digit's case flipped: still 0x and 40 hex digits, no longer its checksum.
    let bad_checksum = {
        let good = mixed(weth);
        let i = good[2..].find(|c: char| c.is_ascii_alphabetic()).unwrap() + 2;
        let flipped = if good.as_bytes()[i].is_ascii_uppercase() {
            good[i..=i].to_lowercase()
        } else {
            good[i..=i].to_uppercase()
        };
        format!("{}{flipped}{}", &good[..i], &good[i + 1..])
    };
    let two_pow_256 =
        "115792089237316195423570985008687907853269984665640564039457584007913129639936";
    let bases = std::collections::HashMap::from([
        (
            "encode_erc20_transfer",
            json!({ "account": null, "token": weth, "to": payee, "amount": "1" }),
        ),
        (
            "encode_swap",
            json!({ "account": null, "router": router, "path": [weth, s.addrs.dai],
                "amount_in": "1", "min_amount_out": "1", "deadline": null }),
        ),
        (
            "quote",
            json!({ "account": null, "router": router, "path": [weth, s.addrs.dai],
                "amount_in": "1000", "slippage_bps": null }),
        ),
        ("propose", {
            let mut intent = serde_json::to_value(&s.swap).unwrap();
            intent["metadata"] = Value::Null;
            json!({ "intent": intent, "execute": null, "allow_repeat": null,
                "idempotency_key": null })
        }),
        (
            "confirm",
            json!({ "proposal_id": "p-1", "confirm": true, "idempotency_key": null }),
        ),
        ("history", json!({ "limit": null })),
        ("policy", json!({ "account": null })),
    ]);
    let bad = bad_checksum.as_str();
    // (tool, where, the value, whether JSON Schema admits it, the field the message names)
    let cases = [
        (
            "encode_erc20_transfer",
            "/amount",
            json!("-1"),
            false,
            "amount",
        ),
        (
            "encode_erc20_transfer",
            "/amount",
            json!("01"),
            false,
            "amount",
        ),
        (
            "encode_erc20_transfer",
            "/amount",
            json!(1000),
            false,
            "amount",
        ),
        (
            "encode_erc20_transfer",
            "/amount",
            json!(two_pow_256),
            true,
            "amount",
        ),
        ("encode_erc20_transfer", "/token", json!(bad), true, "token"),
        ("encode_swap", "/path/1", json!(bad), true, "path[1]"),
        ("encode_swap", "/path", json!([weth]), false, "path"),
        ("encode_swap", "/deadline", json!(-1), false, "deadline"),
        ("quote", "/slippage_bps", json!(101), true, "slippage_bps"),
        ("quote", "/amount_in", json!("0x10"), false, "amount_in"),
        (
            "propose",
            "/intent/calls/0/target",
            json!(bad),
            true,
            "intent.calls[0].target",
        ),
        (
            "propose",
            "/intent/claimed/outflows/0/amount",
            json!(two_pow_256),
            true,
            "intent.claimed.outflows[0].amount",
        ),
        (
            "propose",
            "/idempotency_key",
            json!("has space"),
            false,
            "idempotency_key",
        ),
        (
            "propose",
            "/intent/chain_id",
            json!("1"),
            false,
            "intent.chain_id",
        ),
        ("confirm", "/confirm", json!("true"), false, "confirm"),
        (
            "confirm",
            "/idempotency_key",
            json!("k".repeat(256)),
            false,
            "idempotency_key",
        ),
        ("history", "/limit", json!(0), false, "limit"),
        ("policy", "/account", json!("0x12"), false, "account"),
    ];
    let schemas: std::collections::HashMap<&str, Value> = tools
        .iter()
        .map(|t| (t.name.as_ref(), Value::Object((*t.input_schema).clone())))
        .collect();
    for (tool, at, value, beyond, field) in cases {
        if beyond {
            // JSON Schema admits it: only the server can say no.
            let leaf = leaf_at(&schemas[tool], at);
            assert!(admitted_by_json_schema(leaf, &value), "{tool}{at}: {value}");
        }
        let mut args = bases[tool].clone();
        *args.pointer_mut(at).unwrap() = value.clone();
        let r = client.call_tool(tool_call(tool, args)).await.unwrap();
        let (code, message) =
            tool_refusal(&r).unwrap_or_else(|| panic!("{tool}{at} = {value}: accepted"));
        assert_eq!(code, "BAD_REQUEST", "{tool}{at}: {message}");
        assert!(
            message.starts_with(&format!("bad request: {field}: ")),
            "{tool}{at}: {message}"
        );
    }

    // Not a call of a known tool: a JSON-RPC error, as before.
    let unknown = client.call_tool(tool_call("no_such_tool", json!({}))).await;
    assert!(unknown.is_err(), "{unknown:?}");
    assert_eq!(s.next_sequence(0), 0, "nothing was signed");
    client.cancel().await.unwrap();
}

/// The schema of the value at JSON pointer `at` of the arguments.
fn leaf_at<'a>(schema: &'a Value, at: &str) -> &'a Value {
    at.split('/').skip(1).fold(schema, |s, seg| {
        let s = non_null(s);
        if seg.parse::<usize>().is_ok() {
            &s["items"]
        } else {
            &s["properties"][seg]
        }
    })
}

/// Whether `value` passes `leaf`'s type, pattern and bounds: what JSON Schema can check.
fn admitted_by_json_schema(leaf: &Value, value: &Value) -> bool {
    let leaf = non_null(leaf);
    let kind = |t: &str| {
        leaf["type"] == t
            || leaf["type"]
                .as_array()
                .is_some_and(|ts| ts.contains(&json!(t)))
    };
    match value {
        Value::String(s) => {
            kind("string")
                && leaf["pattern"]
                    .as_str()
                    .is_none_or(|p| regex::Regex::new(p).unwrap().is_match(s))
        }
        Value::Number(n) => {
            let n = n.as_f64().unwrap();
            kind("integer")
                && leaf["minimum"].as_f64().is_none_or(|m| n >= m)
                && leaf["maximum"].as_f64().is_none_or(|m| n <= m)
        }
        _ => false,
    }
}
