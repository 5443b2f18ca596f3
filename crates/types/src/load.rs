//! Strict JSON loading with field paths in errors.

use crate::error::{Error, Result, one_line};
use serde::de::DeserializeOwned;

/// The fields of PACE-RS documents whose JSON form is an array. serde also accepts a struct
/// written as an array of its fields in declaration order (`[1, "0x…", […], …]` for an
/// intent); the loaders refuse that form, so every struct is a JSON object with named fields.
const LIST_FIELDS: &[&str] = &[
    "calls",
    "approvals",
    "outflows",
    "touched",
    "allowed_targets",
    "allowed_selectors",
    "allowed_tokens",
    "blocked_selectors",
    "spend_caps",
    "budgets",
    "allowed_touched",
    "allowed_recipients",
    "fee_recipients",
    "prices",
    "price_oracles",
    "price_vaults",
    "price_pools",
    "worth",
    "nft_flows",
    "positions",
    "minters",
    "metadata_patterns",
    "touched_contracts",
    "precompiles",
    "token_flows",
    "balance_changes",
    "violations",
    // Protocol valuation (adapters).
    "price_v3_pools",
    "debt_tokens",
    "feeds",
    "v3_positions",
    "lending_debts",
    "groups",
    "members",
    "gaps",
    // Rights and lending health (adapters).
    "nft_collections",
    "lending",
    "rights",
    "item_approvals",
];

/// Deserializes `T` from JSON text, reporting the failing field's path, line and column. A
/// leading UTF-8 byte-order mark, which some editors write, is skipped (RFC 8259 allows it).
pub(crate) fn from_str<T: DeserializeOwned>(json: &str) -> Result<T> {
    let json = json.strip_prefix('\u{FEFF}').unwrap_or(json);
    let mut de = serde_json::Deserializer::from_str(json);
    let value = finish(&mut de)?;
    objects_only(json.as_bytes())?;
    Ok(value)
}

/// Deserializes `T` from JSON bytes (must be UTF-8), reporting path, line and column.
pub(crate) fn from_slice<T: DeserializeOwned>(json: &[u8]) -> Result<T> {
    let json = json.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(json);
    let mut de = serde_json::Deserializer::from_slice(json);
    let value = finish(&mut de)?;
    objects_only(json)?;
    Ok(value)
}

/// Refuses arrays anywhere but in [`LIST_FIELDS`] (and their elements being arrays), on a
/// document that already deserialized.
fn objects_only(json: &[u8]) -> Result<()> {
    let value: serde_json::Value = serde_json::from_slice(json).map_err(|e| json_error("", &e))?;
    shape(&value, "", false)
}

fn shape(value: &serde_json::Value, path: &str, list_allowed: bool) -> Result<()> {
    match value {
        serde_json::Value::Object(members) => {
            for (key, member) in members {
                let at = if path.is_empty() {
                    key.clone()
                } else {
                    format!("{path}.{key}")
                };
                shape(member, &at, LIST_FIELDS.contains(&key.as_str()))?;
            }
            Ok(())
        }
        serde_json::Value::Array(items) if list_allowed => items
            .iter()
            .enumerate()
            .try_for_each(|(i, item)| shape(item, &format!("{path}[{i}]"), false)),
        serde_json::Value::Array(_) => Err(Error::invalid(
            if path.is_empty() { "document" } else { path },
            "expected a JSON object with named fields, found an array",
        )),
        _ => Ok(()),
    }
}

fn finish<'de, R, T>(de: &mut serde_json::Deserializer<R>) -> Result<T>
where
    R: serde_json::de::Read<'de>,
    T: DeserializeOwned,
{
    let value = serde_path_to_error::deserialize(&mut *de).map_err(|e| {
        // `.` is the root and `?` an unknown position (e.g. a syntax error): no path then.
        let path = e.path().to_string();
        let path = if path == "." || path == "?" {
            String::new()
        } else {
            path
        };
        json_error(&path, e.inner())
    })?;
    de.end().map_err(|e| json_error("", &e))?;
    Ok(value)
}

fn json_error(path: &str, e: &serde_json::Error) -> Error {
    let full = e.to_string();
    // serde_json appends " at line L column C"; keep the message and report the position apart.
    let suffix = format!(" at line {} column {}", e.line(), e.column());
    let message = full.strip_suffix(&suffix).unwrap_or(&full);
    Error::Json {
        path: one_line(path),
        message: one_line(message),
        line: e.line(),
        column: e.column(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, serde::Deserialize)]
    #[serde(deny_unknown_fields)]
    #[allow(dead_code)]
    struct Doc {
        a: Vec<Inner>,
    }

    #[derive(Debug, serde::Deserialize)]
    #[serde(deny_unknown_fields)]
    #[allow(dead_code)]
    struct Inner {
        b: u32,
    }

    #[test]
    fn errors_carry_path_and_position() {
        let err = from_str::<Doc>("{\"a\": [{\"b\": 1}, {\"b\": \"x\"}]}").unwrap_err();
        let Error::Json {
            path,
            line,
            column,
            message,
        } = &err
        else {
            panic!("{err:?}")
        };
        assert_eq!(path, "a[1].b");
        assert_eq!((*line, *column), (1, 26));
        assert!(message.starts_with("invalid type: string"), "{message}");
        assert_eq!(
            err.to_string(),
            format!("a[1].b: {message} (line 1, column 26)")
        );
    }

    #[test]
    fn list_fields_are_exactly_the_array_valued_fields() {
        use crate::{Decision, Intent, Policy, SimulationReport};
        use alloy_primitives::B256;
        let report = SimulationReport::from_json_str(
            r#"{"intent_hash":"0x0000000000000000000000000000000000000000000000000000000000000000",
                "block_number":1,"timestamp":1,"success":true,
                "prices":[{"token":"0x0000000000000000000000000000000000000001","source":"pool",
                "via":"0x0000000000000000000000000000000000000002","amount":"1","worth":[]}]}"#,
        )
        .unwrap();
        let documents = [
            serde_json::to_value(
                Intent::from_json_str(
                    r#"{"chain_id":1,"account":"0x0000000000000000000000000000000000000001",
                        "calls":[{"target":"0x0000000000000000000000000000000000000002","value":"0","data":"0x"}]}"#,
                )
                .unwrap(),
            )
            .unwrap(),
            serde_json::to_value(Policy::default()).unwrap(),
            serde_json::to_value(&report).unwrap(),
            serde_json::to_value(Decision::new(B256::ZERO, B256::ZERO, None, vec![])).unwrap(),
        ];
        let mut arrays = std::collections::BTreeSet::new();
        fn collect(v: &serde_json::Value, out: &mut std::collections::BTreeSet<String>) {
            match v {
                serde_json::Value::Object(m) => {
                    for (k, v) in m {
                        if v.is_array() {
                            out.insert(k.clone());
                        }
                        collect(v, out);
                    }
                }
                serde_json::Value::Array(items) => items.iter().for_each(|i| collect(i, out)),
                _ => {}
            }
        }
        // Empty lists still serialize as `[]`; the claims struct nests three of them.
        documents.iter().for_each(|d| collect(d, &mut arrays));
        // Rights and lending health (adapters): lists omitted when empty.
        let policy = Policy::from_json_str(
            r#"{"max_value_wei":"0","max_slippage_bps":0,"max_price_impact_bps":0,
                "max_simulation_age_secs":0,
                "nft_collections":["0x0000000000000000000000000000000000000001"]}"#,
        )
        .unwrap();
        let a = "0x0000000000000000000000000000000000000001";
        let report = SimulationReport::from_json_str(&format!(
            r#"{{"intent_hash":"0x0000000000000000000000000000000000000000000000000000000000000000",
                "block_number":1,"timestamp":1,"success":true,
                "lending":[{{"protocol":"compound","market":"{a}","before":{{}},"after":{{}},"lowers":true}}],
                "rights":[{{"kind":"displaced_account","contract":"{a}","holder":"{a}"}}],
                "item_approvals":[{{"token":"{a}","spender":"{a}","id":"1"}}]}}"#
        ))
        .unwrap();
        collect(&serde_json::to_value(policy).unwrap(), &mut arrays);
        collect(&serde_json::to_value(&report).unwrap(), &mut arrays);
        // Protocol valuation (adapters): lists omitted when empty.
        let policy = Policy::from_json_str(&format!(
            r#"{{"max_value_wei":"0","max_slippage_bps":0,"max_price_impact_bps":0,
                "max_simulation_age_secs":0,"price_v3_pools":[{{"pool":"{a}"}}]}}"#
        ))
        .unwrap();
        let report = SimulationReport::from_json_str(&format!(
            r#"{{"intent_hash":"0x0000000000000000000000000000000000000000000000000000000000000000",
                "block_number":1,"timestamp":1,"success":true,
                "debt_tokens":[{{"token":"{a}","underlying":"{a}","market":"{a}"}}],
                "protocols":{{
                "feeds":[{{"oracle":"{a}","token":"{a}","quote":"{a}","round_id":"1","answer":"1",
                    "started_at":"1","updated_at":"1","answered_in_round":"1"}}],
                "v3_positions":[{{"manager":"{a}","id":"1","pool":"{a}","token0":"{a}","token1":"{a}",
                    "tick_lower":-1,"tick_upper":1,"sqrt_lower_x96":"1","sqrt_upper_x96":"2"}}],
                "lending_debts":[{{"market":"{a}","token":"{a}","before":"0","after":"1"}}],
                "groups":[{{"market":"{a}","members":["{a}"]}}],
                "gaps":[{{"via":"{a}","what":"x"}}]}}}}"#
        ))
        .unwrap();
        collect(&serde_json::to_value(policy).unwrap(), &mut arrays);
        collect(&serde_json::to_value(&report).unwrap(), &mut arrays);
        let listed: std::collections::BTreeSet<String> =
            LIST_FIELDS.iter().map(|s| s.to_string()).collect();
        assert_eq!(arrays, listed);
    }

    #[test]
    fn structs_written_as_arrays_are_refused() {
        let err = from_str::<Doc>("[[[5]]]").unwrap_err().to_string();
        assert!(
            err.contains("document") && err.contains("found an array"),
            "{err}"
        );
        let err = from_str::<Outer>(r#"{"doc": [[{"b": 1}]]}"#)
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("doc") && err.contains("found an array"),
            "{err}"
        );
    }

    #[derive(Debug, serde::Deserialize)]
    #[serde(deny_unknown_fields)]
    #[allow(dead_code)]
    struct Outer {
        doc: Doc,
    }

    #[test]
    fn a_byte_order_mark_is_skipped() {
        let doc = "\u{FEFF}{\"b\": 1}";
        assert_eq!(from_str::<Inner>(doc).unwrap().b, 1);
        assert_eq!(from_slice::<Inner>(doc.as_bytes()).unwrap().b, 1);
        // Only at the start.
        assert!(from_str::<Inner>("{\"b\": 1}\u{FEFF}").is_err());
    }

    #[test]
    fn trailing_garbage_and_syntax_errors() {
        let err = from_str::<Doc>("{\"a\": []} x").unwrap_err().to_string();
        assert!(err.starts_with("trailing characters"), "{err}");
        let err = from_slice::<Doc>(b"{\"a\": [").unwrap_err().to_string();
        assert!(err.contains("EOF"), "{err}");
        let err = from_str::<Doc>("{\"a\\nb\": []}").unwrap_err().to_string();
        assert!(!err.contains('\n'), "{err}");
    }
}
