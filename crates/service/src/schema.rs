//! The tools' input schemas, in the strict subset of JSON Schema that LLM tool-calling
//! accepts (OpenAI's strict mode): the root is an object; every object has
//! `additionalProperties: false` and lists every property in `required`; an optional
//! property is a union with `null`; only [`ALLOWED_KEYWORDS`] appear; objects nest at most
//! [`MAX_DEPTH`] deep. [`check_strict`] checks a schema against these rules.
//!
//! A model fills every property, `null` for what it leaves out; [`from_strict`] reads such
//! arguments back into the service's requests: a `null` member is an absent one, and the
//! intent's `metadata`, which the strict subset cannot describe as a free-form object, is a
//! list of `{key, value}` pairs (an object is still accepted from other clients).

use serde_json::{Map, Value, json};

/// The keywords a strict schema may use.
pub const ALLOWED_KEYWORDS: &[&str] = &[
    "type",
    "properties",
    "required",
    "additionalProperties",
    "items",
    "enum",
    "const",
    "anyOf",
    "description",
    "pattern",
    "minItems",
    "maxItems",
    "minimum",
    "maximum",
];

/// How deep objects may nest (the root is depth 1).
pub const MAX_DEPTH: usize = 5;

const ADDRESS: &str = "^0x[0-9a-fA-F]{40}$";
const DECIMAL: &str = "^[0-9]{1,78}$";
const HEX: &str = "^0x([0-9a-fA-F]{2})*$";

fn address(description: &str) -> Value {
    json!({ "type": "string", "pattern": ADDRESS, "description": description })
}

fn decimal(description: &str) -> Value {
    json!({ "type": "string", "pattern": DECIMAL, "description": description })
}

fn nullable(mut schema: Value) -> Value {
    if let Some(t) = schema.get("type").and_then(Value::as_str) {
        let t = t.to_owned();
        schema["type"] = json!([t, "null"]);
        schema
    } else {
        json!({ "anyOf": [schema, { "type": "null" }] })
    }
}

/// A strict object: every property required, nothing else admitted.
fn object(description: &str, properties: Vec<(&str, Value)>) -> Value {
    let required: Vec<&str> = properties.iter().map(|(k, _)| *k).collect();
    let properties: Map<String, Value> = properties
        .into_iter()
        .map(|(k, v)| (k.to_owned(), v))
        .collect();
    json!({
        "type": "object",
        "description": description,
        "properties": properties,
        "required": required,
        "additionalProperties": false,
    })
}

/// The schema of an intent (the `Intent` JSON of `pace verify`, metadata as pairs).
pub fn intent() -> Value {
    let call = object(
        "One EVM call the smart account makes.",
        vec![
            ("target", address("The contract (or account) called.")),
            (
                "value",
                nullable(decimal("Wei sent with the call, decimal (null: 0).")),
            ),
            (
                "data",
                nullable(json!({ "type": "string", "pattern": HEX,
                    "description": "Calldata, 0x-hex (null: none, a plain ether transfer)." })),
            ),
        ],
    );
    let token_amount = object(
        "An amount of one token (ether: the zero address).",
        vec![
            ("token", address("The token.")),
            ("amount", decimal("In the token's smallest unit, decimal.")),
        ],
    );
    let approval = object(
        "An ERC-20 approval the intent grants.",
        vec![
            ("token", address("The token.")),
            ("spender", address("Who may spend it.")),
            ("amount", decimal("The allowance, smallest unit, decimal.")),
        ],
    );
    let claims = object(
        "What the agent claims the calls do; compared against what the simulation shows. \
         A mismatch is answered with the claims the trace implies (implied_claims).",
        vec![
            (
                "approvals",
                nullable(json!({ "type": "array", "items": approval,
                    "description": "Approvals granted." })),
            ),
            (
                "outflows",
                nullable(json!({ "type": "array", "items": token_amount,
                    "description": "Gross amounts leaving the account, per token." })),
            ),
            (
                "slippage_bps",
                nullable(json!({ "type": "integer", "minimum": 0, "maximum": 10000,
                    "description": "The slippage tolerance set, in basis points." })),
            ),
            (
                "touched",
                nullable(json!({ "type": "array", "items": address("A contract."),
                    "description": "Contracts the execution is expected to touch." })),
            ),
        ],
    );
    let pair = object(
        "One metadata entry.",
        vec![
            (
                "key",
                json!({ "type": "string", "description": "Its key (once)." }),
            ),
            (
                "value",
                json!({ "type": "string", "description": "Its value." }),
            ),
        ],
    );
    object(
        "A transaction intent: the calls the PACE account is asked to make, and the claims.",
        vec![
            (
                "chain_id",
                json!({ "type": "integer", "minimum": 1, "description": "The chain." }),
            ),
            ("account", address("The PACE smart account that executes.")),
            (
                "calls",
                json!({ "type": "array", "items": call, "minItems": 1,
                    "description": "The calls in order; several form one atomic batch." }),
            ),
            ("claimed", nullable(claims)),
            (
                "metadata",
                nullable(json!({ "type": "array", "items": pair,
                    "description": "Free-form agent metadata (task, memo)." })),
            ),
        ],
    )
}

fn key() -> Value {
    nullable(json!({ "type": "string",
        "description": "A key of 1 to 255 visible ASCII characters: a retry with it gets the recorded answer." }))
}

fn account_choice() -> Value {
    nullable(address(
        "The account (null: the caller's only or default account).",
    ))
}

fn limit() -> Value {
    nullable(json!({ "type": "integer", "minimum": 1, "maximum": 1000,
        "description": "How many, newest first (null: 50)." }))
}

/// The input schema of tool `name` (`None` for a tool the service does not have).
pub fn input(name: &str) -> Option<Value> {
    let amount = || decimal("In the token's smallest unit, decimal.");
    let schema = match name {
        "propose" => object(
            "Propose an intent.",
            vec![
                ("intent", intent()),
                (
                    "execute",
                    nullable(json!({ "type": "boolean",
                        "description": "Confirm at once, unattended (scope unattended; null: false)." })),
                ),
                (
                    "allow_repeat",
                    nullable(json!({ "type": "boolean",
                        "description": "With execute: run an intent equal to one executed in the repeat window (null: false)." })),
                ),
                ("idempotency_key", key()),
            ],
        ),
        "confirm" => object(
            "Confirm a proposal.",
            vec![
                (
                    "proposal_id",
                    json!({ "type": "string", "description": "The proposal." }),
                ),
                (
                    "confirm",
                    json!({ "type": "boolean", "const": true,
                        "description": "Must be true: the user saw the preview." }),
                ),
                ("idempotency_key", key()),
            ],
        ),
        "status" => object(
            "A proposal's state.",
            vec![(
                "proposal_id",
                json!({ "type": "string", "description": "The proposal." }),
            )],
        ),
        "history" | "pending" => object("The latest proposals.", vec![("limit", limit())]),
        "policy" | "budgets" | "balances" => {
            object("What to read.", vec![("account", account_choice())])
        }
        "encode_erc20_transfer" => object(
            "An ERC-20 transfer.",
            vec![
                ("account", account_choice()),
                ("token", address("The token.")),
                ("to", address("The recipient.")),
                ("amount", amount()),
            ],
        ),
        "encode_erc20_approve" => object(
            "An ERC-20 approval.",
            vec![
                ("account", account_choice()),
                ("token", address("The token.")),
                ("spender", address("Who may spend it.")),
                ("amount", amount()),
            ],
        ),
        "encode_wrap" | "encode_unwrap" => object(
            "Wrapping ether (WETH deposit) or unwrapping it (withdraw).",
            vec![
                ("account", account_choice()),
                ("weth", address("The wrapped-ether contract.")),
                ("amount", decimal("Wei, decimal.")),
            ],
        ),
        "encode_swap" => object(
            "An exact-input swap on a Uniswap V2 router: approve the router for amount_in, then swapExactTokensForTokens along path to the account.",
            vec![
                ("account", account_choice()),
                ("router", address("The Uniswap V2 router.")),
                (
                    "path",
                    json!({ "type": "array", "items": address("A token."), "minItems": 2,
                        "description": "Token in first, token out last." }),
                ),
                ("amount_in", amount()),
                ("min_amount_out", amount()),
                (
                    "deadline",
                    nullable(json!({ "type": "integer", "minimum": 0,
                        "description": "Unix time after which the swap reverts (null: 30 minutes from the latest block)." })),
                ),
            ],
        ),
        _ => return None,
    };
    Some(schema)
}

/// The input schema of tool `name` as rmcp takes it.
pub fn input_object(name: &str) -> std::sync::Arc<Map<String, Value>> {
    let schema = input(name).unwrap_or_else(|| object("No arguments.", vec![]));
    match schema {
        Value::Object(m) => std::sync::Arc::new(m),
        _ => unreachable!("a schema is an object"),
    }
}

/// The output schema of tool `name`: an object with the members the answer has (an answer
/// refused by the service is `{"error": {code, message, …}}` instead, as on `/v1`). Open to
/// members added later.
pub fn output(name: &str) -> Value {
    let members: &[(&str, &str)] = match name {
        "propose" => &[
            (
                "preview",
                "The rendered transition: decision, violations, deltas, outflows, implied_claims.",
            ),
            ("preview_hash", "What a confirmation binds to."),
            ("confirmed", "With execute: what confirm did."),
        ],
        "confirm" => &[
            ("proposal_id", "The proposal."),
            ("state", "Where it stands."),
            ("pdr_digest", "The signed PDR's digest."),
            ("lane", "Its nonce lane."),
            ("sequence", "Its sequence."),
            ("outcome", "What the chain did."),
        ],
        "status" => &[
            ("proposal_id", "The proposal."),
            ("state", "Where it stands."),
            ("tx_hashes", "Every transaction hash sent for it."),
            ("outcome", "What the chain did."),
        ],
        "history" | "pending" => &[("proposals", "The proposals, newest first.")],
        "policy" => &[
            ("tenant", "The tenant."),
            ("account", "The account."),
            ("policy_hash", "The policy's content hash."),
            ("policy", "The policy, metadata_patterns removed."),
            (
                "metadata_patterns_redacted",
                "How many metadata patterns were removed.",
            ),
        ],
        "budgets" => &[
            ("account", "The account."),
            ("block_number", "The block read."),
            ("budgets", "Each budget: limit, spent, left, resets_at."),
        ],
        "balances" => &[
            ("account", "The account."),
            ("block_number", "The block read."),
            ("balances", "Each token's balance."),
        ],
        _ => &[
            ("intent", "The encoded intent, to propose."),
            ("note", "What was done."),
        ],
    };
    let mut properties: Map<String, Value> = members
        .iter()
        .map(|(k, d)| ((*k).to_owned(), json!({ "description": d })))
        .collect();
    properties.insert(
        "error".into(),
        json!({ "type": "object", "description": "When refused: {code, message}, as on /v1." }),
    );
    json!({ "type": "object", "properties": properties })
}

/// The output schema of tool `name` as rmcp takes it.
pub fn output_object(name: &str) -> std::sync::Arc<Map<String, Value>> {
    match output(name) {
        Value::Object(m) => std::sync::Arc::new(m),
        _ => unreachable!("a schema is an object"),
    }
}

/// Checks `schema` against the strict subset: the root an object, every object closed with
/// every property required, only [`ALLOWED_KEYWORDS`], objects at most [`MAX_DEPTH`] deep.
/// The first breach, with its JSON pointer.
pub fn check_strict(schema: &Value) -> Result<(), String> {
    if schema.get("type") != Some(&json!("object")) {
        return Err("the root is not an object".into());
    }
    walk(schema, "", 1)
}

fn walk(schema: &Value, at: &str, depth: usize) -> Result<(), String> {
    let Some(map) = schema.as_object() else {
        return Err(format!("{at}: a schema is an object"));
    };
    for k in map.keys() {
        if !ALLOWED_KEYWORDS.contains(&k.as_str()) {
            return Err(format!("{at}: keyword {k:?} is not in the strict subset"));
        }
    }
    let types: Vec<&str> = match map.get("type") {
        Some(Value::String(t)) => vec![t.as_str()],
        Some(Value::Array(ts)) => ts.iter().filter_map(Value::as_str).collect(),
        Some(_) => return Err(format!("{at}: type is a name or a list of names")),
        None if map.contains_key("anyOf") => Vec::new(),
        None => return Err(format!("{at}: no type")),
    };
    if let Some(Value::Array(options)) = map.get("anyOf") {
        for (i, o) in options.iter().enumerate() {
            walk(o, &format!("{at}/anyOf/{i}"), depth)?;
        }
    }
    if types.contains(&"object") {
        if depth > MAX_DEPTH {
            return Err(format!("{at}: objects nest deeper than {MAX_DEPTH}"));
        }
        if map.get("additionalProperties") != Some(&json!(false)) {
            return Err(format!("{at}: additionalProperties is not false"));
        }
        let props = map
            .get("properties")
            .and_then(Value::as_object)
            .ok_or_else(|| format!("{at}: an object without properties"))?;
        let required: Vec<&str> = map
            .get("required")
            .and_then(Value::as_array)
            .ok_or_else(|| format!("{at}: an object without required"))?
            .iter()
            .filter_map(Value::as_str)
            .collect();
        for (name, sub) in props {
            if !required.contains(&name.as_str()) {
                return Err(format!("{at}/properties/{name}: not required"));
            }
            walk(sub, &format!("{at}/properties/{name}"), depth + 1)?;
        }
        if required.len() != props.len() {
            return Err(format!(
                "{at}: required names a property that is not defined"
            ));
        }
    }
    if let Some(items) = map.get("items") {
        walk(items, &format!("{at}/items"), depth)?;
    }
    Ok(())
}

/// The arguments of a strict call to tool `tool` as the service reads them: a `null` member
/// the tool's schema defines dropped (a member it does not define stays, to be refused), the
/// intent's metadata pairs made an object (a key twice is refused).
pub fn from_strict(tool: &str, mut args: Value) -> Result<Value, String> {
    if let Some(schema) = input(tool) {
        drop_nulls(&mut args, &schema);
    }
    if let Some(meta) = args.pointer_mut("/intent/metadata")
        && let Value::Array(pairs) = meta
    {
        let mut out = Map::new();
        for (i, p) in pairs.iter().enumerate() {
            let (Some(k), Some(v)) = (
                p.get("key").and_then(Value::as_str),
                p.get("value").and_then(Value::as_str),
            ) else {
                return Err(format!(
                    "intent.metadata[{i}]: a {{key, value}} pair of strings"
                ));
            };
            if out.insert(k.to_owned(), json!(v)).is_some() {
                return Err(format!("intent.metadata: key {k:?} appears twice"));
            }
        }
        *meta = Value::Object(out);
    }
    Ok(args)
}

/// The object schema of `schema`: itself, or its first `anyOf` option that is one.
fn object_schema(schema: &Value) -> Option<&Value> {
    if schema.get("properties").is_some() || schema.get("items").is_some() {
        return Some(schema);
    }
    schema
        .get("anyOf")?
        .as_array()?
        .iter()
        .find(|o| o.get("properties").is_some() || o.get("items").is_some())
}

fn drop_nulls(v: &mut Value, schema: &Value) {
    let Some(schema) = object_schema(schema) else {
        return;
    };
    match v {
        Value::Object(m) => {
            let Some(props) = schema.get("properties").and_then(Value::as_object) else {
                return;
            };
            m.retain(|k, x| !(x.is_null() && props.contains_key(k)));
            for (k, x) in m.iter_mut() {
                if let Some(sub) = props.get(k) {
                    drop_nulls(x, sub);
                }
            }
        }
        Value::Array(a) => {
            if let Some(items) = schema.get("items") {
                a.iter_mut().for_each(|x| drop_nulls(x, items));
            }
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_validator_refuses_each_breach() {
        let ok = object("x", vec![("a", nullable(json!({"type": "string"})))]);
        check_strict(&ok).unwrap();
        let mut open = ok.clone();
        open["additionalProperties"] = json!(true);
        assert!(
            check_strict(&open)
                .unwrap_err()
                .contains("additionalProperties")
        );
        let mut optional = ok.clone();
        optional["required"] = json!([]);
        assert!(
            check_strict(&optional)
                .unwrap_err()
                .contains("not required")
        );
        let mut format = ok.clone();
        format["properties"]["a"]["format"] = json!("uint64");
        assert!(check_strict(&format).unwrap_err().contains("\"format\""));
        assert!(check_strict(&json!({"type": "array", "items": ok})).is_err());
        let mut deep = json!({"type": "string"});
        for _ in 0..=MAX_DEPTH {
            deep = object("n", vec![("n", deep)]);
        }
        assert!(check_strict(&deep).unwrap_err().contains("deeper"));
    }

    #[test]
    fn null_members_are_absent_and_metadata_pairs_an_object() {
        let args = json!({"intent": {"claimed": null, "metadata": [
            {"key": "task", "value": "swap"}]}, "execute": null, "unknown": null});
        assert_eq!(
            from_strict("propose", args).unwrap(),
            json!({"intent": {"metadata": {"task": "swap"}}, "unknown": null})
        );
        let twice = json!({"intent": {"metadata": [
            {"key": "k", "value": "1"}, {"key": "k", "value": "2"}]}});
        assert!(from_strict("propose", twice).unwrap_err().contains("twice"));
    }
}
