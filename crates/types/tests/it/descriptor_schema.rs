//! `docs/descriptor.schema.json`, the published JSON Schema of protocol descriptors, agrees
//! with the loader: the shipped example and a descriptor with every field set (written by the
//! Rust types, so a field the schema does not declare fails) validate; an unknown key or a value
//! of the wrong type anywhere is refused by both; and no document the loader accepts is one the
//! schema refuses. The validator below reads the subset of JSON Schema 2020-12 the file uses.

use pace_types::descriptor::Descriptor;
use regex::Regex;
use serde_json::{Value, json};

fn root() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn schema() -> Value {
    let text = std::fs::read_to_string(root().join("docs/descriptor.schema.json")).unwrap();
    serde_json::from_str(&text).unwrap()
}

/// The first reason `value` fails `node` of `schema`, with its JSON path.
fn check(schema: &Value, node: &Value, value: &Value, path: &str) -> Result<(), String> {
    let fail = |why: String| Err(format!("{path}: {why}"));
    if let Some(r) = node.get("$ref").and_then(Value::as_str) {
        let name = r.strip_prefix("#/$defs/").expect("local refs only");
        check(schema, &schema["$defs"][name], value, path)?;
    }
    if let Some(c) = node.get("const")
        && value != c
    {
        return fail(format!("not {c}"));
    }
    if let Some(e) = node.get("enum").and_then(Value::as_array)
        && !e.contains(value)
    {
        return fail(format!("not one of {e:?}"));
    }
    match node.get("type").and_then(Value::as_str) {
        None => {}
        Some("object") if value.is_object() => {}
        Some("array") if value.is_array() => {}
        Some("string") if value.is_string() => {}
        Some("boolean") if value.is_boolean() => {}
        Some("integer") if value.is_u64() || value.is_i64() => {}
        Some(t) => return fail(format!("not a {t}")),
    }
    if let (Some(p), Some(s)) = (node.get("pattern").and_then(Value::as_str), value.as_str())
        && !Regex::new(p).unwrap().is_match(s)
    {
        return fail(format!("{s:?} does not match {p}"));
    }
    if let (Some(min), Some(s)) = (
        node.get("minLength").and_then(Value::as_u64),
        value.as_str(),
    ) && (s.chars().count() as u64) < min
    {
        return fail("too short".into());
    }
    if let Some(n) = value.as_i64()
        && (node
            .get("minimum")
            .and_then(Value::as_i64)
            .is_some_and(|m| n < m)
            || node
                .get("maximum")
                .and_then(Value::as_i64)
                .is_some_and(|m| n > m))
    {
        return fail(format!("{n} out of range"));
    }
    if let Some(items) = node.get("items") {
        for (i, v) in value.as_array().into_iter().flatten().enumerate() {
            check(schema, items, v, &format!("{path}[{i}]"))?;
        }
    }
    if let Some(object) = value.as_object() {
        let properties = node.get("properties").and_then(Value::as_object);
        for key in node
            .get("required")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            if !object.contains_key(key.as_str().unwrap()) {
                return fail(format!("{key} is required"));
            }
        }
        for (k, v) in object {
            match properties.and_then(|p| p.get(k)) {
                Some(sub) => check(schema, sub, v, &format!("{path}.{k}"))?,
                None if node.get("additionalProperties") == Some(&Value::Bool(false)) => {
                    return fail(format!("{k} is not a property"));
                }
                None => {}
            }
        }
    }
    Ok(())
}

fn schema_accepts(schema: &Value, value: &Value) -> Result<(), String> {
    check(schema, schema, value, "$")
}

fn loader_accepts(value: &Value) -> bool {
    Descriptor::from_json_slice(value.to_string().as_bytes()).is_ok()
}

/// A descriptor with every field set, as the Rust types write it.
fn full() -> Value {
    let a = |b: u8| format!("0x{}", format!("{b:02x}").repeat(20));
    let h = |b: u8| format!("0x{}", format!("{b:02x}").repeat(32));
    let d: Descriptor = serde_json::from_value(json!({
        "schema": 1, "id": "every-field", "chain_id": 1, "reviewed_by": "a reviewer",
        "license": "MIT",
        "roots": [{"name": "market", "address": a(1), "code_hash": h(2),
                   "implementation_code_hash": h(3)},
                  {"name": "factory", "address": a(4)}],
        "entry_points": [{"root": "market", "selectors": ["0x12345678"]}],
        "members": {"code_hashes": [h(5)], "implementations": true,
                    "registries": [{"root": "factory", "lookup": "getPool(address,address,uint24)",
                                    "args": ["token0()", "token1()", "fee()"]}],
                    "listings": [{"root": "factory", "view": "isPoolFromFactory(address)"}]},
        "positions": [
            {"root": "market", "view": "position(bytes32,address)", "args": [h(6), "account"],
             "word": 2, "token": a(7), "kind": "asset"},
            {"root": "market", "view": "position(bytes32,address)", "args": [h(6), "account"],
             "word": 1, "token": a(8), "kind": "debt"},
            {"root": "market", "view": "stake(address)", "args": ["account"],
             "word": 0, "token": a(7), "kind": "asset", "secures_debt": false}],
        "health": [{"collateral": 0, "debt": 1,
                    "price": {"root": "market", "view": "price(bytes32)", "args": [h(6)], "word": 0},
                    "price_scale": "1000000000000000000000000000000000000", "threshold_bps": 8600}],
        "prices": ["vault_rate"],
        "rates": [{"read": {"root": "factory", "view": "rate(uint256)", "args": [h(10)], "word": 0},
                   "per": "1000000000000000000", "asset": a(7)}],
        "records": [{"view": "userRewardPerTokenPaid(address)", "args": ["account"], "word": 0},
                    {"view": "balances(address,address[])",
                     "args": ["account", format!("[{},account]", h(9))], "word": 2}],
        "checks": [{"read": {"root": "market", "view": "fee(bytes32)", "args": [h(6)], "word": 0},
                    "keep": "at_most"}]
    }))
    .unwrap();
    d.validate().unwrap();
    serde_json::to_value(&d).unwrap()
}

/// Every JSON pointer to an object in `v`, and to every value.
fn pointers(v: &Value, at: &str, objects: &mut Vec<String>, leaves: &mut Vec<String>) {
    match v {
        Value::Object(m) => {
            objects.push(at.to_owned());
            for (k, x) in m {
                let p = format!("{at}/{k}");
                leaves.push(p.clone());
                pointers(x, &p, objects, leaves);
            }
        }
        Value::Array(xs) => {
            for (i, x) in xs.iter().enumerate() {
                let p = format!("{at}/{i}");
                leaves.push(p.clone());
                pointers(x, &p, objects, leaves);
            }
        }
        _ => {}
    }
}

#[test]
fn the_schema_is_whole() {
    let s = schema();
    let text = s.to_string();
    for name in s["$defs"].as_object().unwrap().keys() {
        assert!(
            text.contains(&format!("#/$defs/{name}")),
            "{name} is unused"
        );
    }
    for r in Regex::new(r##""#/\$defs/([a-z_0-9]+)""##)
        .unwrap()
        .captures_iter(&text)
    {
        assert!(
            s["$defs"].get(&r[1]).is_some(),
            "{} does not resolve",
            &r[1]
        );
    }
}

#[test]
fn the_example_and_every_field_validate() {
    let s = schema();
    let example: Value = serde_json::from_str(
        &std::fs::read_to_string(root().join("examples/world-uniswap-v2.descriptor.json")).unwrap(),
    )
    .unwrap();
    assert!(loader_accepts(&example));
    schema_accepts(&s, &example).unwrap();
    schema_accepts(&s, &full()).unwrap();
}

#[test]
fn the_schema_and_the_loader_agree_on_every_mutation() {
    let s = schema();
    let doc = full();
    let (mut objects, mut leaves) = (Vec::new(), Vec::new());
    pointers(&doc, "", &mut objects, &mut leaves);
    let mut tried = 0;
    // An unknown key in any object: both refuse.
    for o in &objects {
        let mut m = doc.clone();
        let target = if o.is_empty() {
            &mut m
        } else {
            m.pointer_mut(o).unwrap()
        };
        target
            .as_object_mut()
            .unwrap()
            .insert("surplus".into(), json!(1));
        assert!(!loader_accepts(&m), "loader took surplus at {o}");
        assert!(
            schema_accepts(&s, &m).is_err(),
            "schema took surplus at {o}"
        );
        tried += 1;
    }
    // A value of another type anywhere: both refuse.
    for p in &leaves {
        let was = doc.pointer(p).unwrap().clone();
        let other = match was {
            Value::String(_) => json!(7),
            Value::Array(_) | Value::Number(_) | Value::Bool(_) => json!({"x": "y"}),
            Value::Object(_) => json!(["x"]),
            Value::Null => continue,
        };
        let mut m = doc.clone();
        *m.pointer_mut(p).unwrap() = other;
        assert!(!loader_accepts(&m), "loader took another type at {p}");
        assert!(
            schema_accepts(&s, &m).is_err(),
            "schema took another type at {p}"
        );
        tried += 1;
    }
    // Any key removed: what the loader still accepts, the schema accepts.
    for p in leaves.iter().filter(|p| {
        let (parent, _) = p.rsplit_once('/').unwrap();
        objects.contains(&parent.to_string())
    }) {
        let (parent, key) = p.rsplit_once('/').unwrap();
        let mut m = doc.clone();
        let target = if parent.is_empty() {
            &mut m
        } else {
            m.pointer_mut(parent).unwrap()
        };
        target.as_object_mut().unwrap().remove(key);
        if loader_accepts(&m) {
            schema_accepts(&s, &m).unwrap_or_else(|e| panic!("without {p}: {e}"));
        } else if [
            "schema",
            "id",
            "name",
            "address",
            "selectors",
            "lookup",
            "view",
            "kind",
        ]
        .contains(&key)
        {
            assert!(
                schema_accepts(&s, &m).is_err(),
                "schema took a document without {p}"
            );
        }
        tried += 1;
    }
    assert!(tried > 100, "{tried} mutations");
}
