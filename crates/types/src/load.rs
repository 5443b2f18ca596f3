//! Strict JSON loading with field paths in errors.

use crate::error::{Error, Result, one_line};
use serde::de::DeserializeOwned;

/// Deserializes `T` from JSON text, reporting the failing field's path, line and column.
pub(crate) fn from_str<T: DeserializeOwned>(json: &str) -> Result<T> {
    let mut de = serde_json::Deserializer::from_str(json);
    finish(&mut de)
}

/// Deserializes `T` from JSON bytes (must be UTF-8), reporting path, line and column.
pub(crate) fn from_slice<T: DeserializeOwned>(json: &[u8]) -> Result<T> {
    let mut de = serde_json::Deserializer::from_slice(json);
    finish(&mut de)
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
    fn trailing_garbage_and_syntax_errors() {
        let err = from_str::<Doc>("{\"a\": []} x").unwrap_err().to_string();
        assert!(err.starts_with("trailing characters"), "{err}");
        let err = from_slice::<Doc>(b"{\"a\": [").unwrap_err().to_string();
        assert!(err.contains("EOF"), "{err}");
        let err = from_str::<Doc>("{\"a\\nb\": []}").unwrap_err().to_string();
        assert!(!err.contains('\n'), "{err}");
    }
}
