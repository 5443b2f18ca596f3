//! The ABI of the project's own contracts read from their Solidity sources, for the bindings
//! that have no artifact in `node_modules` (`pace-contracts` also checks them against the ABI
//! the compiler produces; this crate must not depend on the compiler).
//!
//! A reader for the declarations these sources use, not a Solidity parser: `struct`, `error`,
//! `event`, external and public `function`s and public state variables without arguments. A
//! declaration it does not understand (a public mapping) fails the test rather than being
//! skipped.

use crate::artifacts::{Abi, Event, Function, selector, workspace_root};
use alloy_primitives::keccak256;
use std::collections::BTreeMap;

/// The external interface declared by the Solidity files `relatives` (relative to the
/// workspace root), as one [`Abi`] named `name`.
pub(crate) fn from_sources(name: &str, relatives: &[&str]) -> Abi {
    let sources: Vec<String> = relatives
        .iter()
        .map(|relative| {
            let path = workspace_root().join(relative);
            let text = std::fs::read_to_string(&path)
                .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
            strip_comments(&text)
        })
        .collect();
    let mut structs = BTreeMap::new();
    for source in &sources {
        read_structs(source, &mut structs);
    }
    let mut abi = Abi {
        name: name.to_owned(),
        ..Abi::default()
    };
    for source in &sources {
        read_declarations(source, &structs, &mut abi);
        read_public_variables(source, &structs, &mut abi);
    }
    abi
}

/// `source` without `//` and `/* */` comments (string literals kept as they are).
fn strip_comments(source: &str) -> String {
    let mut out = String::with_capacity(source.len());
    let mut chars = source.chars().peekable();
    while let Some(c) = chars.next() {
        match (c, chars.peek()) {
            ('/', Some('/')) => {
                for c in chars.by_ref() {
                    if c == '\n' {
                        out.push('\n');
                        break;
                    }
                }
            }
            ('/', Some('*')) => {
                chars.next();
                let mut last = ' ';
                for c in chars.by_ref() {
                    if last == '*' && c == '/' {
                        break;
                    }
                    last = c;
                }
                out.push(' ');
            }
            ('"', _) => {
                out.push(c);
                for c in chars.by_ref() {
                    out.push(c);
                    if c == '"' {
                        break;
                    }
                }
            }
            _ => out.push(c),
        }
    }
    out
}

/// Byte offsets just past each occurrence of `keyword` as a whole word followed by whitespace.
fn keyword_ends(source: &str, keyword: &str) -> Vec<usize> {
    let ident = |c: char| c.is_ascii_alphanumeric() || c == '_' || c == '$';
    source
        .match_indices(keyword)
        .filter(|(at, _)| {
            let before = source[..*at].chars().next_back();
            let after = source[at + keyword.len()..].chars().next();
            !before.is_some_and(ident) && after.is_some_and(char::is_whitespace)
        })
        .map(|(at, _)| at + keyword.len())
        .collect()
}

/// The text between the parenthesis at `open` and its match, and the offset past the match.
fn parenthesised(source: &str, open: usize) -> (&str, usize) {
    assert_eq!(&source[open..=open], "(", "expected `(`");
    let mut depth = 0usize;
    for (i, c) in source[open..].char_indices() {
        match c {
            '(' => depth += 1,
            ')' => {
                depth -= 1;
                if depth == 0 {
                    return (&source[open + 1..open + i], open + i + 1);
                }
            }
            _ => {}
        }
    }
    panic!("unbalanced parentheses")
}

/// The canonical ABI type of a source type: `uint` and `int` widened, structs as tuples,
/// contract and interface types as `address`, array suffixes kept.
fn canonical(ty: &str, structs: &BTreeMap<String, String>) -> String {
    let (base, suffix) = ty.split_at(ty.find('[').unwrap_or(ty.len()));
    let base = match base {
        "uint" => "uint256".to_owned(),
        "int" => "int256".to_owned(),
        b if structs.contains_key(b) => structs[b].clone(),
        b if b.starts_with(char::is_uppercase) => "address".to_owned(),
        b => b.to_owned(),
    };
    format!("{base}{suffix}")
}

/// One parameter: its canonical type and whether it is `indexed`.
fn parameters(list: &str, structs: &BTreeMap<String, String>) -> Vec<(String, bool)> {
    list.split(',')
        .map(str::trim)
        .filter(|p| !p.is_empty())
        .map(|p| {
            let words: Vec<&str> = p.split_whitespace().collect();
            (canonical(words[0], structs), words.contains(&"indexed"))
        })
        .collect()
}

fn tuple<'a>(types: impl Iterator<Item = &'a String>) -> String {
    format!("({})", types.cloned().collect::<Vec<_>>().join(","))
}

/// `struct Name { type field; ... }` as `Name -> (type,...)`, in declaration order (a struct
/// may use the ones declared before it).
fn read_structs(source: &str, structs: &mut BTreeMap<String, String>) {
    for start in keyword_ends(source, "struct") {
        let open = start + source[start..].find('{').expect("a struct body");
        let close = open + source[open..].find('}').expect("a closed struct body");
        let name = source[start..open].trim().to_owned();
        let fields: Vec<String> = source[open + 1..close]
            .split(';')
            .map(str::trim)
            .filter(|f| !f.is_empty())
            .map(|f| canonical(f.split_whitespace().next().unwrap_or_default(), structs))
            .collect();
        structs.insert(name, tuple(fields.iter()));
    }
}

/// Every `error`, `event` and external or public `function` of `source`.
fn read_declarations(source: &str, structs: &BTreeMap<String, String>, abi: &mut Abi) {
    for keyword in ["error", "event", "function"] {
        for start in keyword_ends(source, keyword) {
            let open = start + source[start..].find('(').expect("a parameter list");
            let name = source[start..open].trim();
            let (list, end) = parenthesised(source, open);
            let inputs = parameters(list, structs);
            let signature = format!("{name}{}", tuple(inputs.iter().map(|(t, _)| t)));
            match keyword {
                "error" => {
                    abi.errors.insert(selector(&signature), signature);
                }
                "event" => {
                    let pick = |indexed: bool| {
                        tuple(inputs.iter().filter(|(_, i)| *i == indexed).map(|(t, _)| t))
                    };
                    let event = Event {
                        indexed: pick(true),
                        data: pick(false),
                        signature: signature.clone(),
                    };
                    abi.events.insert(keccak256(&signature), event);
                }
                _ => {
                    let header_end = end + source[end..].find(['{', ';']).expect("a body or `;`");
                    let header = &source[end..header_end];
                    let words: Vec<&str> = header
                        .split(|c: char| c.is_whitespace() || c == '(')
                        .collect();
                    if !words.contains(&"external") && !words.contains(&"public") {
                        continue;
                    }
                    let outputs = match header.find("returns") {
                        Some(at) => {
                            let open = end + at + header[at..].find('(').expect("return types");
                            tuple(
                                parameters(parenthesised(source, open).0, structs)
                                    .iter()
                                    .map(|(t, _)| t),
                            )
                        }
                        None => "()".to_owned(),
                    };
                    let mutability = ["view", "pure", "payable"]
                        .into_iter()
                        .find(|m| words.contains(m))
                        .unwrap_or("nonpayable");
                    let function = Function {
                        signature: signature.clone(),
                        outputs,
                        mutability: mutability.to_owned(),
                    };
                    abi.functions.insert(selector(&signature), function);
                }
            }
        }
    }
}

/// The getters of public state variables: `type public [immutable|constant] name [= ...];`.
fn read_public_variables(source: &str, structs: &BTreeMap<String, String>, abi: &mut Abi) {
    for statement in source.split([';', '{', '}']) {
        let words: Vec<&str> = statement.split_whitespace().collect();
        if words.len() < 3 || words[1] != "public" || statement.contains('(') {
            continue;
        }
        assert!(
            !statement.contains("mapping"),
            "a public mapping needs a getter with arguments: extend this reader"
        );
        let declared = statement.split('=').next().unwrap_or_default();
        let name = declared.split_whitespace().last().expect("a variable name");
        let signature = format!("{name}()");
        let function = Function {
            signature: signature.clone(),
            outputs: format!("({})", canonical(words[0], structs)),
            mutability: "view".to_owned(),
        };
        abi.functions.insert(selector(&signature), function);
    }
}
