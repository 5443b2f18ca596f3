//! Strict JSON loading with field paths in errors: every struct is a JSON object with named
//! fields ([`objects`]), and a failure names the field, line and column.

mod objects;

use crate::error::{Error, Result, one_line};
use objects::Objects;
use serde::de::DeserializeOwned;

/// Deserializes `T` from JSON text, reporting the failing field's path, line and column. A
/// leading UTF-8 byte-order mark, which some editors write, is skipped (RFC 8259 allows it).
pub(crate) fn from_str<T: DeserializeOwned>(json: &str) -> Result<T> {
    let json = json.strip_prefix('\u{FEFF}').unwrap_or(json);
    let mut de = serde_json::Deserializer::from_str(json);
    finish(&mut de)
}

/// Deserializes `T` from JSON bytes (must be UTF-8), reporting path, line and column.
pub(crate) fn from_slice<T: DeserializeOwned>(json: &[u8]) -> Result<T> {
    let json = json.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(json);
    let mut de = serde_json::Deserializer::from_slice(json);
    finish(&mut de)
}

fn finish<'de, R, T>(de: &mut serde_json::Deserializer<R>) -> Result<T>
where
    R: serde_json::de::Read<'de>,
    T: DeserializeOwned,
{
    let value = serde_path_to_error::deserialize(Objects(&mut *de)).map_err(|e| {
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
    use super::objects::OBJECT_EXPECTED;
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
    fn structs_written_as_arrays_are_refused() {
        let err = from_str::<Doc>("[[[5]]]").unwrap_err();
        let Error::Json { path, message, .. } = &err else {
            panic!("{err:?}")
        };
        assert_eq!((path.as_str(), message.as_str()), ("", OBJECT_EXPECTED));
        let err = from_str::<Outer>(r#"{"doc": [[{"b": 1}]]}"#)
            .unwrap_err()
            .to_string();
        assert!(
            err.starts_with("doc: ") && err.contains(OBJECT_EXPECTED),
            "{err}"
        );
        // At any depth: inside a list, an option, a map's values and an enum's struct variant.
        for (doc, at) in [
            (r#"{"doc": {"a": [{"b": 1}, [2]]}}"#, "doc.a[1]"),
            (r#"{"doc": {"a": []}, "maybe": [3]}"#, "maybe"),
            (r#"{"doc": {"a": []}, "by_name": {"x": [4]}}"#, "by_name.x"),
            (
                r#"{"doc": {"a": []}, "shape": {"Square": [5]}}"#,
                "shape.Square",
            ),
        ] {
            let err = from_str::<Outer>(doc).unwrap_err().to_string();
            assert!(
                err.starts_with(&format!("{at}: ")) && err.contains(OBJECT_EXPECTED),
                "{doc}: {err}"
            );
        }
    }

    #[test]
    fn lists_and_tuples_are_arrays_wherever_their_type_says() {
        // No list of field names: a `Vec`, a tuple and a list of lists read as arrays at any
        // depth, beside every struct read as an object.
        let outer: Outer = from_str(
            r#"{"doc": {"a": [{"b": 1}, {"b": 2}]}, "maybe": {"b": 3},
                "by_name": {"x": {"b": 4}}, "shape": {"Square": {"side": 5}},
                "pairs": [[1, 2], [3, 4]], "nested": [[{"b": 6}], []]}"#,
        )
        .unwrap();
        assert_eq!(outer.doc.a.len(), 2);
        assert_eq!(outer.maybe.map(|i| i.b), Some(3));
        assert_eq!(outer.pairs, vec![(1, 2), (3, 4)]);
        assert_eq!(outer.nested[0][0].b, 6);
    }

    #[derive(Debug, serde::Deserialize)]
    #[serde(deny_unknown_fields)]
    #[allow(dead_code)]
    struct Outer {
        doc: Doc,
        #[serde(default)]
        maybe: Option<Inner>,
        #[serde(default)]
        by_name: std::collections::BTreeMap<String, Inner>,
        #[serde(default)]
        shape: Option<Shape>,
        #[serde(default)]
        pairs: Vec<(u32, u32)>,
        #[serde(default)]
        nested: Vec<Vec<Inner>>,
    }

    #[derive(Debug, serde::Deserialize)]
    #[allow(dead_code)]
    enum Shape {
        Square { side: u32 },
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
