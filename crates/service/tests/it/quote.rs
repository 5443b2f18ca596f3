//! The quote: Router02's `getAmountsOut` on the latest state, over MCP and HTTP alike; its
//! `min_amount_out` for a slippage the policy allows is accepted by `encode_swap` and passes
//! the policy's slippage check, one allowing more is refused by it; a slippage above the
//! policy's maximum is refused naming the field; a read: scope `read`, nothing signed or
//! stored.

use crate::common::{Setup, ether, grant, http, listen, mcp_client, tool_call, tool_refusal};
use alloy_primitives::U256;
use pace_abi::bindings::IUniswapV2Router02;
use pace_service::{ServiceConfig, auth::Scope};
use serde_json::{Value, json};

/// The router's own quote for 1 WETH, read on the world directly.
fn routers_quote(s: &Setup) -> U256 {
    let st = s.service.state();
    let evm = &st.chain.world().unwrap().evm;
    let call = IUniswapV2Router02::getAmountsOutCall {
        amountIn: ether(1),
        path: vec![s.addrs.weth, s.addrs.dai],
    };
    evm.view_sol(s.addrs.router, &call).unwrap()[1]
}

fn audit_len(s: &Setup) -> usize {
    s.service
        .state()
        .store
        .audit_records(1, 100_000)
        .unwrap()
        .len()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_quote_gives_the_routers_amount_and_a_minimum_the_policy_accepts() {
    let s = Setup::new(
        vec![
            grant("alice", crate::common::ALL),
            grant("reader", &[Scope::Read]),
            grant("writer", &[Scope::Propose]),
        ],
        ServiceConfig::default(),
    );
    let addr = listen(&s).await;
    let client = mcp_client(addr, "alice").await;
    let expected = routers_quote(&s);
    let quote = |slippage: Value| {
        json!({ "account": null, "router": s.addrs.router, "path": [s.addrs.weth, s.addrs.dai],
            "amount_in": ether(1).to_string(), "slippage_bps": slippage })
    };
    let (audit, history) = (audit_len(&s), s.service.history(&s.caller("alice"), 1_000));
    let r = client
        .call_tool(tool_call("quote", quote(json!(50))))
        .await
        .unwrap();
    assert_eq!(tool_refusal(&r), None);
    let q = r.structured_content.unwrap();
    assert_eq!(q["amount_out"], json!(expected.to_string()), "{q}");
    assert_eq!(q["amounts_out"][0], json!(ether(1).to_string()));
    let min_50 = (expected * U256::from(9_950)).div_ceil(U256::from(10_000));
    assert_eq!(q["min_amount_out"], json!(min_50.to_string()), "{q}");
    assert_eq!(
        (q["slippage_bps"].clone(), q["max_slippage_bps"].clone()),
        (json!(50), json!(100))
    );

    // The same over HTTP, a member left out read as null: the policy's maximum.
    let body = json!({ "router": s.addrs.router, "path": [s.addrs.weth, s.addrs.dai],
        "amount_in": ether(1).to_string() });
    let (st, http_quote) = http(addr, "POST", "/v1/quote", Some("alice"), &body.to_string()).await;
    assert_eq!(st, 200, "{http_quote}");
    let at_max: Value = serde_json::from_str(&http_quote).unwrap();
    let min_100 = (expected * U256::from(9_900)).div_ceil(U256::from(10_000));
    assert_eq!(at_max["slippage_bps"], json!(100));
    assert_eq!(at_max["min_amount_out"], json!(min_100.to_string()));
    let over_mcp = client
        .call_tool(tool_call("quote", quote(Value::Null)))
        .await
        .unwrap();
    assert_eq!(
        over_mcp.structured_content.unwrap(),
        at_max,
        "one answer on both transports"
    );

    // Read only: nothing signed, nothing stored, nothing audited.
    assert_eq!(s.next_sequence(0), 0);
    assert_eq!(audit_len(&s), audit);
    assert_eq!(
        s.service.history(&s.caller("alice"), 1_000).unwrap().len(),
        history.unwrap().len()
    );

    // Above the policy's maximum: refused, naming the field, on both transports.
    let r = client
        .call_tool(tool_call("quote", quote(json!(101))))
        .await
        .unwrap();
    let (code, message) = tool_refusal(&r).expect("refused");
    assert_eq!(code, "BAD_REQUEST");
    assert!(
        message.starts_with("bad request: slippage_bps: 101 is above"),
        "{message}"
    );
    let mut over = body.clone();
    over["slippage_bps"] = json!(101);
    let (st, refused) = http(addr, "POST", "/v1/quote", Some("alice"), &over.to_string()).await;
    assert_eq!(st, 400, "{refused}");
    assert!(refused.contains("slippage_bps"), "{refused}");

    // The minimum at the policy's maximum is encoded and approved; one allowing 2 % is not.
    for (min, approved) in [
        (min_100, true),
        (expected * U256::from(98) / U256::from(100), false),
    ] {
        let args = json!({ "account": null, "router": s.addrs.router,
            "path": [s.addrs.weth, s.addrs.dai], "amount_in": ether(1).to_string(),
            "min_amount_out": min.to_string(), "deadline": null });
        let encoded = client
            .call_tool(tool_call("encode_swap", args))
            .await
            .unwrap();
        let intent = encoded.structured_content.unwrap()["intent"].clone();
        let r = client
            .call_tool(tool_call("propose", json!({ "intent": intent })))
            .await
            .unwrap();
        let preview = &r.structured_content.unwrap()["preview"];
        assert_eq!(preview["approved"], json!(approved), "{preview}");
        let codes: Vec<&str> = preview["violations"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v["code"].as_str().unwrap())
            .collect();
        assert_eq!(codes.contains(&"SLIPPAGE_EXCEEDED"), !approved, "{codes:?}");
    }

    // A path the router cannot quote (no pair): refused with its own code.
    let mut no_pair = quote(Value::Null);
    no_pair["path"] = json!([s.addrs.weth, s.addrs.attacker]);
    let r = client.call_tool(tool_call("quote", no_pair)).await.unwrap();
    assert_eq!(tool_refusal(&r).unwrap().0, "QUOTE_UNAVAILABLE");

    // Scope read: a reader quotes, a writer without read does not.
    let reader = mcp_client(addr, "reader").await;
    let r = reader
        .call_tool(tool_call("quote", quote(Value::Null)))
        .await
        .unwrap();
    assert_eq!(tool_refusal(&r), None);
    let writer = mcp_client(addr, "writer").await;
    let r = writer
        .call_tool(tool_call("quote", quote(Value::Null)))
        .await
        .unwrap();
    assert_eq!(tool_refusal(&r).unwrap().0, "FORBIDDEN_SCOPE");
    for c in [client, reader, writer] {
        c.cancel().await.unwrap();
    }
}
