//! Bad input: exit code 2, one line on stderr naming the file and the field or position,
//! nothing on stdout, never a panic.

use crate::*;
use std::fs;

/// Asserts a bad-input outcome and returns the stderr line.
fn bad(out: &std::process::Output, what: &str) -> String {
    let err = stderr(out);
    assert_eq!(out.status.code(), Some(2), "{what}: {err}");
    assert!(out.stdout.is_empty(), "{what}: stdout {}", stdout(out));
    assert!(!err.contains("panicked"), "{what}: {err}");
    assert_eq!(err.lines().count(), 1, "{what}: not one line: {err:?}");
    assert!(err.starts_with("pace: "), "{what}: {err}");
    err
}

fn write(dir: &std::path::Path, name: &str, contents: impl AsRef<[u8]>) -> std::path::PathBuf {
    let path = dir.join(name);
    fs::write(&path, contents).unwrap();
    path
}

fn benign_intent() -> String {
    fs::read_to_string(example("benign-swap.intent.json")).unwrap()
}

#[test]
fn missing_file() {
    let dir = scratch("missing_file");
    let path = dir.join("nope.json");
    let err = bad(&verify(&path, None, Some(NOW)), "missing intent");
    assert!(err.contains("nope.json: cannot read: "), "{err}");
    let err = bad(
        &verify(&example("benign-swap.intent.json"), Some(&path), Some(NOW)),
        "missing report",
    );
    assert!(err.contains("nope.json: cannot read"), "{err}");
}

#[test]
fn malformed_json_names_the_position() {
    let dir = scratch("malformed_json");
    let cases = [
        (
            "truncated.json",
            benign_intent()[..200].to_owned(),
            "EOF while parsing",
        ),
        (
            "empty.json",
            String::new(),
            "EOF while parsing a value (line 1, column 0)",
        ),
        (
            "trailing.json",
            benign_intent() + "{}",
            "trailing characters (line 32, column 1)",
        ),
        (
            "comma.json",
            benign_intent().replace("\"chain_id\": 1,", "\"chain_id\": 1,,"),
            "(line 2, column 17)",
        ),
    ];
    for (name, contents, expected) in cases {
        let path = write(&dir, name, contents);
        let err = bad(&verify(&path, None, Some(NOW)), name);
        assert!(
            err.contains(name) && err.contains(expected),
            "{name}: {err}"
        );
    }
    let path = write(&dir, "binary.json", [0xff, 0xfe, 0x00, 0x01]);
    let err = bad(&verify(&path, None, Some(NOW)), "binary");
    assert!(
        err.contains("binary.json: expected value (line 1, column 1)"),
        "{err}"
    );
}

#[test]
fn wrong_types_and_unknown_fields_name_the_field() {
    let dir = scratch("wrong_types");
    let cases = [
        (
            "number-amount.json",
            benign_intent().replace("\"value\": \"0\"", "\"value\": 0"),
            "calls[0].value: invalid type: integer `0`, expected an amount as a decimal string",
        ),
        (
            "hex-amount.json",
            benign_intent().replace("\"value\": \"0\"", "\"value\": \"0x0\""),
            "calls[0].value: hex amount \"0x0\" is not accepted",
        ),
        (
            "bad-address.json",
            benign_intent().replace("\"chain_id\": 1", "\"chain_id\": \"1\""),
            "chain_id: invalid type: string \"1\", expected u64",
        ),
        (
            "unknown.json",
            benign_intent().replace("\"chain_id\": 1,", "\"chain_id\": 1,\n  \"gas\": 5,"),
            "unknown field `gas`",
        ),
        (
            "no-calls.json",
            benign_intent().replace("\"calls\": [", "\"calls\": [], \"x\": ["),
            "unknown field `x`",
        ),
        (
            "bad-data.json",
            benign_intent().replace("\"data\": \"0x38", "\"data\": \"0xzz38"),
            "calls[0].data: invalid hex value \"0xzz38",
        ),
    ];
    for (name, contents, expected) in cases {
        let path = write(&dir, name, contents);
        let err = bad(&verify(&path, None, Some(NOW)), name);
        assert!(
            err.contains(name) && err.contains(expected),
            "{name}: {err}"
        );
        assert!(err.contains("(line "), "{name}: {err}");
    }
    let empty_calls = write(
        &dir,
        "empty-calls.json",
        r#"{"chain_id":1,"account":"0x9f9bdd8a96fb9aa78f72e4f491a61fae724b5a45","calls":[]}"#,
    );
    let err = bad(&verify(&empty_calls, None, Some(NOW)), "empty calls");
    assert!(
        err.contains("empty-calls.json: calls: an intent needs at least one call"),
        "{err}"
    );
}

#[test]
fn bad_policy_and_report() {
    let dir = scratch("bad_policy");
    let policy = fs::read_to_string(example("policy.json")).unwrap();
    let bad_regex = write(
        &dir,
        "regex.json",
        policy.replace("(?i)ignore", "(?i)ignore ("),
    );
    let out = pace([
        "verify".as_ref(),
        "--policy".as_ref(),
        bad_regex.as_os_str(),
        "--intent".as_ref(),
        example("benign-swap.intent.json").as_os_str(),
    ]);
    let err = bad(&out, "bad regex");
    assert!(
        err.contains("regex.json: metadata_patterns[0]: invalid regex"),
        "{err}"
    );

    // An intent passed as the policy: unknown field, named.
    let out = pace([
        "verify".as_ref(),
        "--policy".as_ref(),
        example("benign-swap.intent.json").as_os_str(),
        "--intent".as_ref(),
        example("benign-swap.intent.json").as_os_str(),
    ]);
    let err = bad(&out, "wrong document");
    assert!(
        err.contains("benign-swap.intent.json: calls: unknown field `calls`"),
        "{err}"
    );

    let report = fs::read_to_string(example("benign-swap.simulation.json")).unwrap();
    let sim = write(
        &dir,
        "sim.json",
        report.replace("\"delta\": \"-2500000000\"", "\"delta\": -2500000000"),
    );
    let err = bad(
        &verify(&example("benign-swap.intent.json"), Some(&sim), Some(NOW)),
        "bad report",
    );
    assert!(
        err.contains("sim.json: balance_changes[0].delta: invalid type: integer"),
        "{err}"
    );
}

#[test]
fn usage_errors_exit_2() {
    let out = pace(["verify", "--intent", "x.json"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("--policy"));
    let out = pace([
        "verify",
        "--intent",
        "x.json",
        "--policy",
        "y.json",
        "--now",
        "yesterday",
    ]);
    assert_eq!(out.status.code(), Some(2));
    let out = pace(["--help"]);
    assert_eq!(out.status.code(), Some(0));
    assert!(stdout(&out).contains("verify"));
}

/// Byte-level damage to valid documents: always a clean exit (0, 1 or 2), never a panic,
/// and bad input always gives one line on stderr.
#[test]
fn damaged_documents_never_panic() {
    let dir = scratch("damaged");
    let sources = [
        benign_intent(),
        fs::read_to_string(example("benign-swap.simulation.json")).unwrap(),
        fs::read_to_string(example("policy.json")).unwrap(),
    ];
    // A deterministic pseudo-random walk over positions and bytes.
    let mut state: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut next = || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    for round in 0..60 {
        let which = round % 3;
        let mut bytes = sources[which].clone().into_bytes();
        for _ in 0..(1 + next() % 3) {
            let at = (next() % bytes.len() as u64) as usize;
            bytes[at] = (next() % 256) as u8;
        }
        let path = write(&dir, &format!("damaged-{round}.json"), &bytes);
        let (intent, sim, policy) = match which {
            0 => (
                path.clone(),
                example("benign-swap.simulation.json"),
                example("policy.json"),
            ),
            1 => (
                example("benign-swap.intent.json"),
                path.clone(),
                example("policy.json"),
            ),
            _ => (
                example("benign-swap.intent.json"),
                example("benign-swap.simulation.json"),
                path.clone(),
            ),
        };
        let out = pace([
            "verify".as_ref(),
            "--policy".as_ref(),
            policy.as_os_str(),
            "--intent".as_ref(),
            intent.as_os_str(),
            "--simulation".as_ref(),
            sim.as_os_str(),
            "--now".as_ref(),
            NOW.as_ref(),
        ]);
        match out.status.code() {
            Some(0 | 1) => assert!(out.stderr.is_empty(), "round {round}: {}", stderr(&out)),
            Some(2) => {
                bad(&out, &format!("round {round}"));
            }
            other => panic!("round {round}: exit {other:?}: {}", stderr(&out)),
        }
    }
}
