//! `docs/violation-codes.md` documents every code, with the check that emits it, in order.

use pace_types::ViolationCode;

const DOC: &str = include_str!("../../../../docs/violation-codes.md");

#[test]
fn every_code_is_documented_with_its_check() {
    // The verifier's table: the "Codes" section (the service's error codes follow apart).
    let section = DOC
        .split("\n## Codes\n")
        .nth(1)
        .expect("a \"Codes\" section");
    let section = section.split("\n## ").next().unwrap_or(section);
    let rows: Vec<(&str, &str)> = section
        .lines()
        .filter_map(|l| l.strip_prefix("| `"))
        .filter_map(|l| {
            let (code, rest) = l.split_once("` | ")?;
            let check = rest.split(" | ").next()?;
            Some((code, check))
        })
        .collect();
    let codes: Vec<&str> = rows.iter().map(|(c, _)| *c).collect();
    let expected: Vec<&str> = ViolationCode::ALL.iter().map(|c| c.as_str()).collect();
    assert_eq!(
        codes, expected,
        "the table must list every code once, in ViolationCode::ALL order"
    );
    for (&code, (_, check)) in ViolationCode::ALL.iter().zip(&rows) {
        let expected = code
            .check()
            .map_or("structural (always on)".to_owned(), |c| {
                format!("`{}`", c.name())
            });
        assert_eq!(*check, expected, "{code}");
    }
}
