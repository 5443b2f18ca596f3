//! The JSON files a case hands to `pace`: the widened policy and the intent, whose claims are
//! what the simulation shows (as an agent that simulates before it proposes would claim).

use crate::{cases::Case, cases::Widen, setup::World};
use alloy_primitives::{Address, U256, hex};
use serde_json::{Value, json};

fn lower(a: Address) -> String {
    format!("{a:#x}")
}

fn push_unique(list: &mut Value, item: Value) {
    if !list.is_array() {
        *list = json!([]);
    }
    let items = list.as_array_mut().expect("an array");
    let same = |v: &Value| match (v.as_str(), item.as_str()) {
        (Some(a), Some(b)) => a.eq_ignore_ascii_case(b),
        _ => *v == item,
    };
    if !items.iter().any(same) {
        items.push(item);
    }
}

/// The world's default policy with what `widen` adds: targets, selectors, tokens, table prices
/// and trusted vaults. Nothing is removed and no tolerance changes.
pub(crate) fn policy(default: &Value, widen: &Widen) -> Value {
    let mut p = default.clone();
    for &t in &widen.targets {
        push_unique(&mut p["allowed_targets"], json!(lower(t)));
    }
    for s in &widen.selectors {
        push_unique(&mut p["allowed_selectors"], json!(hex::encode_prefixed(s)));
    }
    for &t in &widen.tokens {
        push_unique(&mut p["allowed_tokens"], json!(lower(t)));
    }
    for &(token, amount, value) in &widen.prices {
        push_unique(
            &mut p["prices"],
            json!({"token": lower(token), "amount": amount.to_string(), "value": value.to_string()}),
        );
    }
    for &v in &widen.vaults {
        push_unique(&mut p["price_vaults"], json!(lower(v)));
    }
    p
}

/// The claims an agent makes after simulating: the report's outflows of the account per token
/// and its approvals. Nothing for a draft (`report` null).
pub(crate) fn claims(report: &Value, account: Address) -> Result<Value, String> {
    if report.is_null() {
        return Ok(json!({}));
    }
    let is_account = |v: &Value| {
        v.as_str()
            .and_then(|s| s.parse::<Address>().ok())
            .is_some_and(|a| a == account)
    };
    let mut outflows: Vec<(String, U256)> = Vec::new();
    for f in report["token_flows"]
        .as_array()
        .map(Vec::as_slice)
        .unwrap_or_default()
    {
        if !is_account(&f["from"]) || is_account(&f["to"]) {
            continue;
        }
        let token = f["token"].as_str().unwrap_or_default().to_ascii_lowercase();
        let amount: U256 = f["amount"]
            .as_str()
            .and_then(|s| s.parse().ok())
            .ok_or_else(|| format!("a flow without an amount: {f}"))?;
        match outflows.iter_mut().find(|(t, _)| *t == token) {
            Some((_, sum)) => *sum += amount,
            None => outflows.push((token, amount)),
        }
    }
    let approvals: Vec<Value> = report["approvals"]
        .as_array()
        .map(Vec::as_slice)
        .unwrap_or_default()
        .iter()
        .filter(|a| is_account(&a["owner"]))
        .map(|a| json!({"token": a["token"], "spender": a["spender"], "amount": a["amount"]}))
        .collect();
    Ok(json!({
        "approvals": approvals,
        "outflows": outflows
            .into_iter()
            .map(|(token, amount)| json!({"token": token, "amount": amount.to_string()}))
            .collect::<Vec<_>>(),
        "touched": [],
    }))
}

/// The intent of `case` with `claimed`.
pub(crate) fn intent(w: &World, case: &Case, claimed: &Value) -> Value {
    let calls: Vec<Value> = case
        .calls
        .iter()
        .map(|(target, data)| {
            json!({"target": lower(*target), "value": "0", "data": hex::encode_prefixed(data)})
        })
        .collect();
    json!({
        "chain_id": w.chain_id,
        "account": lower(w.account),
        "calls": calls,
        "claimed": claimed,
        "metadata": {"memo": case.memo},
    })
}

/// Writes `doc` to `path`.
pub(crate) fn write(path: &std::path::Path, doc: &Value) -> Result<(), String> {
    let text = serde_json::to_vec_pretty(doc).map_err(|e| e.to_string())?;
    std::fs::write(path, text).map_err(|e| format!("{}: {e}", path.display()))
}
