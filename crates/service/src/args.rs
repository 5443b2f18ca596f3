//! A tool's arguments, read as the service takes them: checked against the tool's own input
//! schema ([`crate::schema`]), then against what JSON Schema cannot say (an address's EIP-55
//! checksum, an amount's bound of 2^256-1), then read back into the service's requests
//! ([`crate::schema::from_strict`]).
//!
//! The first mistake is refused as `BAD_REQUEST` with a message that names the field by its
//! path (`amount`, `path[1]`, `intent.calls[0].target`) and says what it accepts: the field's
//! own description, examples included. A member left out is read as `null` when the schema
//! admits `null` (a model sends `null`, other clients leave it out); one the schema does not
//! define is refused.

use crate::{Error, Result, schema};
use regex::Regex;
use serde_json::{Map, Value};
use std::{
    collections::HashMap,
    sync::{LazyLock, Mutex},
};

/// The arguments `args` of tool `tool`, checked and read back into the service's form:
/// `null` members absent, the intent's metadata pairs an object.
pub fn read(tool: &str, args: Value) -> Result<Value> {
    let schema = schema::input(tool).ok_or_else(|| Error::BadRequest(format!("no tool {tool}")))?;
    let args = schema::to_strict(args);
    check(&schema, &args, "").map_err(Error::BadRequest)?;
    schema::from_strict(tool, args).map_err(Error::BadRequest)
}

/// Checks `value` against `schema` (the strict subset's keywords), `at` its path: the first
/// mistake, naming the path and what the schema accepts there.
pub fn check(schema: &Value, value: &Value, at: &str) -> Result<(), String> {
    if let Some(options) = schema.get("anyOf").and_then(Value::as_array) {
        return any_of(options, value, at);
    }
    let types = types(schema);
    let kind = kind(value);
    if !types.is_empty() && !types.iter().any(|t| admits(t, kind)) {
        return Err(refusal(
            at,
            &format!("{} is not {}", shown(value), expected(&types)),
            schema,
        ));
    }
    if let Some(c) = schema.get("const")
        && value != c
    {
        return Err(refusal(
            at,
            &format!("must be {c}, not {}", shown(value)),
            schema,
        ));
    }
    if let Some(options) = schema.get("enum").and_then(Value::as_array)
        && !options.contains(value)
    {
        let list = Value::from(options.clone());
        return Err(refusal(
            at,
            &format!("{} is not one of {list}", shown(value)),
            schema,
        ));
    }
    match value {
        Value::String(s) => string(schema, s, at),
        Value::Number(n) => number(schema, n, at),
        Value::Array(items) => array(schema, items, at),
        Value::Object(members) => object(schema, members, at),
        Value::Null | Value::Bool(_) => Ok(()),
    }
}

/// `anyOf`: the value passes one option. Refused, the option of the value's own type says why.
fn any_of(options: &[Value], value: &Value, at: &str) -> Result<(), String> {
    let mut first = None;
    for o in options {
        match check(o, value, at) {
            Ok(()) => return Ok(()),
            Err(e) if types(o).iter().any(|t| admits(t, kind(value))) => return Err(e),
            Err(e) => {
                first.get_or_insert(e);
            }
        }
    }
    Err(first.unwrap_or_else(|| format!("{}: no option of anyOf", name(at))))
}

fn string(schema: &Value, s: &str, at: &str) -> Result<(), String> {
    let Some(pattern) = schema.get("pattern").and_then(Value::as_str) else {
        return Ok(());
    };
    if !matches(pattern, s)? {
        return Err(refusal(
            at,
            &format!("{} does not match {pattern}", shown(&Value::from(s))),
            schema,
        ));
    }
    beyond_schema(pattern, s).map_err(|why| refusal(at, &why, schema))
}

/// What the server checks of a patterned string beyond its pattern: an address's EIP-55
/// checksum (mixed case), an amount's bound of 2^256-1.
fn beyond_schema(pattern: &str, s: &str) -> Result<(), String> {
    match pattern {
        schema::ADDRESS => pace_types::address::parse(s).map(drop),
        schema::AMOUNT => pace_types::amount::parse_u256(s)
            .map(drop)
            .map_err(|e| e.to_string()),
        _ => Ok(()),
    }
}

fn number(schema: &Value, n: &serde_json::Number, at: &str) -> Result<(), String> {
    let below = |bound: &Value| compare(n, bound).is_some_and(|o| o.is_lt());
    let above = |bound: &Value| compare(n, bound).is_some_and(|o| o.is_gt());
    if let Some(min) = schema.get("minimum").filter(|m| below(m)) {
        return Err(refusal(
            at,
            &format!("{n} is below the minimum {min}"),
            schema,
        ));
    }
    if let Some(max) = schema.get("maximum").filter(|m| above(m)) {
        return Err(refusal(
            at,
            &format!("{n} is above the maximum {max}"),
            schema,
        ));
    }
    Ok(())
}

/// `n` against the bound `b`, exactly for integers.
fn compare(n: &serde_json::Number, b: &Value) -> Option<std::cmp::Ordering> {
    let int = |x: &serde_json::Number| {
        x.as_u64()
            .map(i128::from)
            .or_else(|| x.as_i64().map(i128::from))
    };
    let b = b.as_number()?;
    match (int(n), int(b)) {
        (Some(x), Some(y)) => Some(x.cmp(&y)),
        _ => n.as_f64()?.partial_cmp(&b.as_f64()?),
    }
}

fn array(schema: &Value, items: &[Value], at: &str) -> Result<(), String> {
    let len = items.len() as u64;
    if let Some(min) = schema.get("minItems").and_then(Value::as_u64)
        && len < min
    {
        return Err(refusal(
            at,
            &format!("{len} items, at least {min} needed"),
            schema,
        ));
    }
    if let Some(max) = schema.get("maxItems").and_then(Value::as_u64)
        && len > max
    {
        return Err(refusal(
            at,
            &format!("{len} items, at most {max} allowed"),
            schema,
        ));
    }
    if let Some(item) = schema.get("items") {
        for (i, v) in items.iter().enumerate() {
            check(item, v, &format!("{at}[{i}]"))?;
        }
    }
    Ok(())
}

fn object(schema: &Value, members: &Map<String, Value>, at: &str) -> Result<(), String> {
    let empty = Map::new();
    let props = schema
        .get("properties")
        .and_then(Value::as_object)
        .unwrap_or(&empty);
    let path = |k: &str| {
        if at.is_empty() {
            k.to_owned()
        } else {
            format!("{at}.{k}")
        }
    };
    if schema.get("additionalProperties") == Some(&Value::Bool(false))
        && let Some(k) = members.keys().find(|k| !props.contains_key(*k))
    {
        let known: Vec<&str> = props.keys().map(String::as_str).collect();
        return Err(format!(
            "{}: not a member here; the members are {}",
            path(k),
            known.join(", ")
        ));
    }
    let required = schema.get("required").and_then(Value::as_array);
    for k in required.into_iter().flatten().filter_map(Value::as_str) {
        let admits_null = props
            .get(k)
            .is_some_and(|s| check(s, &Value::Null, "").is_ok());
        if !members.contains_key(k) && !admits_null {
            let why = "missing: it is required";
            return Err(match props.get(k) {
                Some(s) => refusal(&path(k), why, s),
                None => format!("{}: {why}", path(k)),
            });
        }
    }
    for (k, v) in members {
        if let Some(s) = props.get(k) {
            check(s, v, &path(k))?;
        }
    }
    Ok(())
}

/// The JSON type names a schema's `type` lists.
fn types(schema: &Value) -> Vec<&str> {
    match schema.get("type") {
        Some(Value::String(t)) => vec![t.as_str()],
        Some(Value::Array(ts)) => ts.iter().filter_map(Value::as_str).collect(),
        _ => Vec::new(),
    }
}

/// The JSON type of `value`; an integer is a number without a fraction or exponent.
fn kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(n) if n.is_u64() || n.is_i64() => "integer",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

/// `a string`, `an integer or null`: the types a message names.
fn expected(types: &[&str]) -> String {
    let named: Vec<String> = types
        .iter()
        .map(|t| match *t {
            "null" => "null".to_owned(),
            t if t.starts_with(['a', 'e', 'i', 'o', 'u']) => format!("an {t}"),
            t => format!("a {t}"),
        })
        .collect();
    named.join(" or ")
}

/// Whether schema type `t` admits a value of JSON type `kind`.
fn admits(t: &str, kind: &str) -> bool {
    t == kind || (t == "number" && kind == "integer")
}

/// The path as a message names it (`the arguments` for the root).
fn name(at: &str) -> &str {
    if at.is_empty() { "the arguments" } else { at }
}

/// `at: why. Accepted: <the schema's description>`.
fn refusal(at: &str, why: &str, schema: &Value) -> String {
    match schema.get("description").and_then(Value::as_str) {
        Some(d) => format!("{}: {why}. Accepted: {d}", name(at)),
        None => format!("{}: {why}", name(at)),
    }
}

/// A value as a message quotes it: its JSON, at most 64 characters of it.
fn shown(value: &Value) -> String {
    let text = value.to_string();
    if text.chars().count() <= 64 {
        return text;
    }
    let head: String = text.chars().take(64).collect();
    format!("{head}…")
}

/// Whether `s` matches `pattern`; each pattern is compiled once.
fn matches(pattern: &str, s: &str) -> Result<bool, String> {
    static COMPILED: LazyLock<Mutex<HashMap<String, Regex>>> = LazyLock::new(Default::default);
    let mut compiled = COMPILED.lock().unwrap_or_else(|e| e.into_inner());
    if !compiled.contains_key(pattern) {
        let re = Regex::new(pattern).map_err(|e| format!("schema pattern {pattern}: {e}"))?;
        compiled.insert(pattern.to_owned(), re);
    }
    Ok(compiled.get(pattern).is_some_and(|re| re.is_match(s)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn refused(tool: &str, args: Value) -> String {
        match read(tool, args) {
            Err(Error::BadRequest(m)) => m,
            other => panic!("{tool}: {other:?}"),
        }
    }

    #[test]
    fn mistakes_name_the_field_and_what_it_accepts() {
        let token = "0x00000000000000000000000000000000000000aa";
        let transfer = |amount: Value| json!({ "token": token, "to": token, "amount": amount });
        let m = refused("encode_erc20_transfer", transfer(json!("-1")));
        assert!(m.starts_with("amount: \"-1\" does not match"), "{m}");
        assert!(m.contains("Accepted: In the token's smallest unit."), "{m}");
        assert!(m.contains("Examples: [\"0\""), "{m}");
        let m = refused("encode_erc20_transfer", transfer(json!(5)));
        assert!(m.starts_with("amount: 5 is not a string"), "{m}");
        // 2^256: 78 digits, as the pattern admits, one above the bound.
        let over = "115792089237316195423570985008687907853269984665640564039457584007913129639936";
        let m = refused("encode_erc20_transfer", transfer(json!(over)));
        assert!(
            m.starts_with("amount: amount ") && m.contains("out of range"),
            "{m}"
        );

        let bad_checksum = "0x000000000000000000000000000000000000DeaD";
        let m = refused(
            "encode_erc20_transfer",
            json!({ "token": bad_checksum, "to": token, "amount": "1" }),
        );
        assert!(
            m.starts_with("token: address ") && m.contains("EIP-55"),
            "{m}"
        );
        let m = refused(
            "encode_swap",
            json!({ "router": token, "path": [token, "0x12"], "amount_in": "1",
                "min_amount_out": "0" }),
        );
        assert!(m.starts_with("path[1]: \"0x12\" does not match"), "{m}");
        let m = refused("status", json!({ "proposal_id": "p-1", "extra": 1 }));
        assert!(m.starts_with("extra: not a member here"), "{m}");
        let m = refused("status", json!({}));
        assert!(m.starts_with("proposal_id: missing"), "{m}");
        let m = refused(
            "confirm",
            json!({ "proposal_id": "p-1", "confirm": "true" }),
        );
        assert!(m.starts_with("confirm: \"true\" is not a boolean"), "{m}");
        let m = refused("confirm", json!({ "proposal_id": "p-1", "confirm": false }));
        assert!(m.starts_with("confirm: must be true"), "{m}");
        let m = refused("history", json!({ "limit": 0 }));
        assert!(m.starts_with("limit: 0 is below the minimum 1"), "{m}");
        let m = refused("history", json!({ "limit": 2.5 }));
        assert!(m.starts_with("limit: 2.5 is not an integer or null"), "{m}");
        let m = refused(
            "confirm",
            json!({ "proposal_id": "p-1", "confirm": true, "idempotency_key": "has space" }),
        );
        assert!(
            m.starts_with("idempotency_key: \"has space\" does not match"),
            "{m}"
        );
        let m = refused(
            "propose",
            json!({ "intent": { "chain_id": 1, "account": token, "calls": [{ "target": "0xAA" }] } }),
        );
        assert!(m.starts_with("intent.calls[0].target: "), "{m}");
    }

    #[test]
    fn absent_and_null_members_are_alike_and_metadata_may_be_an_object() {
        let token = "0x00000000000000000000000000000000000000aa";
        let intent = json!({ "chain_id": 1, "account": token, "calls": [{ "target": token }],
            "metadata": { "memo": "x" } });
        let read = read("propose", json!({ "intent": intent, "execute": null })).unwrap();
        assert_eq!(read["intent"]["metadata"], json!({ "memo": "x" }));
        assert!(read.get("execute").is_none());
        let read = super::read("history", json!({})).unwrap();
        assert_eq!(read, json!({}));
    }
}
