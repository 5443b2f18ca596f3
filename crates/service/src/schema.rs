//! The tools' input schemas, in the strict subset of JSON Schema that LLM tool-calling
//! accepts (OpenAI's strict mode): the root is an object; every object has
//! `additionalProperties: false` and lists every property in `required`; an optional
//! property is a union with `null`; only [`ALLOWED_KEYWORDS`] appear; objects nest at most
//! [`MAX_DEPTH`] deep. [`check_strict`] checks a schema against these rules.
//!
//! A schema says what the server accepts wherever JSON Schema can: addresses, amounts (at most
//! 78 digits, no leading zero), calldata and idempotency keys are patterned strings, integers
//! are bounded. What it cannot say (an EIP-55 checksum needs keccak; an amount's bound is
//! 2^256-1, not a digit count) the server checks after it ([`crate::args`]) and its refusal
//! names the field. `examples` is not in the strict subset: a value's description ends with
//! ` Examples: ` and a JSON list of accepted values ([`examples`] reads it back).
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

/// An address: `0x` and 40 hex digits (a mixed-case one must also carry a valid EIP-55
/// checksum, which the server checks).
pub const ADDRESS: &str = "^0x[0-9a-fA-F]{40}$";
/// An unsigned amount: a canonical decimal string, `0` or at most 78 digits without a leading
/// zero (the server also bounds it by 2^256-1).
pub const AMOUNT: &str = "^(0|[1-9][0-9]{0,77})$";
/// Calldata: `0x` and whole bytes of hex.
pub const HEX: &str = "^0x([0-9a-fA-F]{2})*$";
/// An idempotency key: 1 to 255 visible ASCII characters.
pub const IDEMPOTENCY_KEY: &str = "^[!-~]{1,255}$";

/// The largest `uint256`, the bound of every amount.
const U256_MAX: &str =
    "115792089237316195423570985008687907853269984665640564039457584007913129639935";

/// What the server accepts of an address, said to the model.
const ADDRESS_RULE: &str = "0x and 40 hex digits; mixed case must be a valid EIP-55 checksum.";

/// What the server accepts of an amount, said to the model.
const AMOUNT_RULE: &str = "A decimal integer string: digits only, no sign, no leading zero, at \
     most 2^256-1 (78 digits).";

/// `description`, then ` Examples: ` and `examples` as a JSON list.
fn described(description: &str, examples: &[Value]) -> String {
    if examples.is_empty() {
        return description.to_owned();
    }
    format!("{description} Examples: {}", Value::from(examples.to_vec()))
}

/// The examples a schema's description lists (after ` Examples: `, a JSON list); none when it
/// lists none.
pub fn examples(schema: &Value) -> Vec<Value> {
    schema
        .get("description")
        .and_then(Value::as_str)
        .and_then(|d| d.rsplit_once(" Examples: "))
        .and_then(|(_, list)| serde_json::from_str::<Vec<Value>>(list).ok())
        .unwrap_or_default()
}

fn address(description: &str) -> Value {
    let examples = [
        json!("0x000000000000000000000000000000000000dEaD"),
        json!("0x00000000000000000000000000000000000000aa"),
    ];
    json!({ "type": "string", "pattern": ADDRESS,
        "description": described(&format!("{description} {ADDRESS_RULE}"), &examples) })
}

fn decimal(description: &str) -> Value {
    let examples = [json!("0"), json!("1000000000000000000"), json!(U256_MAX)];
    json!({ "type": "string", "pattern": AMOUNT,
        "description": described(&format!("{description} {AMOUNT_RULE}"), &examples) })
}

/// An integer from `min` to `max`.
fn integer(description: &str, min: u64, max: u64, examples: &[Value]) -> Value {
    json!({ "type": "integer", "minimum": min, "maximum": max,
        "description": described(description, examples) })
}

/// A string without a pattern.
fn text(description: &str, examples: &[Value]) -> Value {
    json!({ "type": "string", "description": described(description, examples) })
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
                    "description": described(
                        "Calldata: 0x and whole bytes of hex (null: none, a plain ether transfer).",
                        &[json!("0x"), json!("0xd0e30db0")],
                    ) })),
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
                nullable(integer(
                    "The slippage tolerance set, in basis points (0 to 10000).",
                    0,
                    10_000,
                    &[json!(50)],
                )),
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
            ("key", text("Its key (once).", &[json!("memo")])),
            ("value", text("Its value.", &[json!("rebalance to 50/50")])),
        ],
    );
    object(
        "A transaction intent: the calls the PACE account is asked to make, and the claims.",
        vec![
            (
                "chain_id",
                integer("The chain id.", 1, u64::MAX, &[json!(1), json!(31337)]),
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
    nullable(json!({ "type": "string", "pattern": IDEMPOTENCY_KEY,
        "description": described(
            "A key of your choosing, 1 to 255 visible ASCII characters (no space): a retry with \
             the same key gets the recorded answer (null: none).",
            &[json!("pay-1"), json!("order-42/confirm")],
        ) }))
}

fn proposal_id() -> Value {
    text(
        "The proposal, as propose returned it (preview.proposal_id).",
        &[json!("p-0123456789abcdef01234567")],
    )
}

fn account_choice() -> Value {
    nullable(address(
        "The account (null: the caller's only or default account).",
    ))
}

fn limit() -> Value {
    nullable(integer(
        "How many, newest first, 1 to 1000 (null: 50).",
        1,
        1_000,
        &[json!(50)],
    ))
}

/// A swap path: token in first, token out last.
fn path() -> Value {
    json!({ "type": "array", "items": address("A token."), "minItems": 2,
        "description": "The tokens the swap goes through: token in first, token out last, at least two." })
}

/// The input schema of tool `name` (`None` for a tool the service does not have).
pub fn input(name: &str) -> Option<Value> {
    let amount = || decimal("In the token's smallest unit.");
    let flag =
        |description: &str| nullable(json!({ "type": "boolean", "description": description }));
    let schema = match name {
        "propose" => object(
            "Propose an intent.",
            vec![
                ("intent", intent()),
                (
                    "execute",
                    flag("Confirm at once, unattended (scope unattended; null: false)."),
                ),
                (
                    "allow_repeat",
                    flag(
                        "With execute: run an intent equal to one executed in the repeat window \
                         (null: false).",
                    ),
                ),
                ("idempotency_key", key()),
            ],
        ),
        "confirm" => object(
            "Confirm a proposal.",
            vec![
                ("proposal_id", proposal_id()),
                (
                    "confirm",
                    json!({ "type": "boolean", "const": true,
                        "description": "Must be the boolean true: the user saw the preview." }),
                ),
                ("idempotency_key", key()),
            ],
        ),
        "status" => object("A proposal's state.", vec![("proposal_id", proposal_id())]),
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
                ("amount", decimal("Wei.")),
            ],
        ),
        "encode_swap" => object(
            "An exact-input swap on a Uniswap V2 router: approve the router for amount_in, then \
             swapExactTokensForTokens along path to the account.",
            vec![
                ("account", account_choice()),
                ("router", address("The Uniswap V2 router.")),
                ("path", path()),
                ("amount_in", amount()),
                (
                    "min_amount_out",
                    decimal(
                        "The least of the last token the swap may deliver, smallest unit (the \
                         quote tool gives one for a slippage the policy allows).",
                    ),
                ),
                (
                    "deadline",
                    nullable(integer(
                        "Unix time after which the swap reverts (null: 30 minutes from the latest \
                         block).",
                        0,
                        u64::MAX,
                        &[json!(1_767_225_600)],
                    )),
                ),
            ],
        ),
        "quote" => object(
            "A quote for an exact-input swap on a Uniswap V2 router, read on the latest state.",
            vec![
                ("account", account_choice()),
                ("router", address("The Uniswap V2 router.")),
                ("path", path()),
                ("amount_in", amount()),
                (
                    "slippage_bps",
                    nullable(integer(
                        "The slippage tolerance min_amount_out allows, in basis points, at most \
                         the policy's max_slippage_bps (null: that maximum).",
                        0,
                        10_000,
                        &[json!(50), json!(100)],
                    )),
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
/// members added later. An encoder's `intent` is described by [`intent`], the schema of
/// propose's own `intent`: what an encoder answers is what propose takes.
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
        "quote" => &[
            ("account", "The account the policy is read for."),
            ("block_number", "The block read."),
            ("router", "The router asked."),
            ("path", "The swap path."),
            ("amount_in", "The input amount, smallest unit."),
            (
                "amounts_out",
                "getAmountsOut: the amount at each step of path.",
            ),
            (
                "amount_out",
                "The expected output, smallest unit of the last token.",
            ),
            ("amount_out_human", "amount_out in whole tokens."),
            ("slippage_bps", "The slippage tolerance applied."),
            ("max_slippage_bps", "The policy's maximum."),
            (
                "min_amount_out",
                "amount_out less slippage_bps (rounded up): encode_swap's min_amount_out.",
            ),
        ],
        _ => &[],
    };
    let mut properties: Map<String, Value> = members
        .iter()
        .map(|(k, d)| ((*k).to_owned(), json!({ "description": d })))
        .collect();
    if crate::encode::TOOLS.contains(&name) {
        // What propose takes as its intent: the encoder's answer validates against it.
        let mut intent = intent();
        intent["description"] = json!("The encoded intent: pass it as propose's intent, as it is.");
        properties.insert("intent".into(), intent);
    }
    properties.insert(
        "error".into(),
        json!({ "type": "object",
            "description": "When refused: {code, message}, as on /v1; an argument mistake is \
                BAD_REQUEST and its message names the field and what it accepts." }),
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

/// `args` with its `intent.metadata` as `{key, value}` pairs when it is an object: the form
/// the strict schema describes. An encoder's answer is written so over MCP, and a client's
/// object is read so before its arguments are checked.
pub fn to_strict(mut args: Value) -> Value {
    if let Some(meta) = args.pointer_mut("/intent/metadata")
        && let Value::Object(m) = meta
    {
        let pairs = m
            .iter()
            .map(|(k, v)| json!({ "key": k, "value": v }))
            .collect();
        *meta = Value::Array(pairs);
    }
    args
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
