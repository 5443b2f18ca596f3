//! Turning a model's free-text answer into a decision and an optional intent.
//!
//! The parser, in order: (1) the first balanced `{...}` JSON object in the answer (code fences
//! are fine) with a `decision` field (`approve`/`reject` and synonyms) and an optional `intent`
//! object; (2) otherwise the words APPROVE / REJECT (or SAFE / UNSAFE) in the text, when exactly
//! one of the two kinds appears. Anything else is [`ModelDecision::Unclear`], which never
//! executes.

use pace_types::Intent;
use serde::{Deserialize, Serialize};

/// What the model said about the proposed transaction.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ModelDecision {
    /// The model approves the transaction.
    Approve,
    /// The model rejects it.
    Reject,
    /// The answer could not be read as either (treated as a rejection).
    Unclear,
}

impl ModelDecision {
    /// `true` only for [`ModelDecision::Approve`].
    pub fn approves(self) -> bool {
        self == Self::Approve
    }

    fn from_word(word: &str) -> Option<Self> {
        match word.trim().to_ascii_lowercase().as_str() {
            "approve" | "approved" | "approval" | "safe" | "yes" | "allow" | "execute" => {
                Some(Self::Approve)
            }
            "reject" | "rejected" | "unsafe" | "no" | "deny" | "block" | "refuse" => {
                Some(Self::Reject)
            }
            _ => None,
        }
    }
}

/// The parsed answer.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ParsedAnswer {
    /// The decision.
    pub decision: ModelDecision,
    /// The model's stated reason, if it gave one in its JSON.
    pub reason: Option<String>,
    /// The intent the model proposed, if it gave a valid one.
    pub intent: Option<Intent>,
    /// Why the model's `intent` was dropped, if it gave an invalid one.
    pub intent_error: Option<String>,
}

/// Parses a model's answer; never fails (an unreadable answer is [`ModelDecision::Unclear`]).
pub fn parse_answer(content: &str) -> ParsedAnswer {
    if let Some(parsed) = json_object(content).and_then(|v| from_json(&v)) {
        return parsed;
    }
    ParsedAnswer {
        decision: keyword_decision(content),
        reason: None,
        intent: None,
        intent_error: None,
    }
}

fn from_json(v: &serde_json::Value) -> Option<ParsedAnswer> {
    let obj = v.as_object()?;
    let decision = ["decision", "verdict", "action"]
        .iter()
        .find_map(|k| obj.get(*k).and_then(|d| d.as_str()))
        .and_then(ModelDecision::from_word)
        .or_else(|| {
            obj.get("approve")
                .and_then(serde_json::Value::as_bool)
                .map(|b| {
                    if b {
                        ModelDecision::Approve
                    } else {
                        ModelDecision::Reject
                    }
                })
        })?;
    let reason = obj
        .get("reason")
        .and_then(|r| r.as_str())
        .map(str::to_owned);
    let (intent, intent_error) = match obj.get("intent") {
        None | Some(serde_json::Value::Null) => (None, None),
        Some(i) => match Intent::from_json_str(&i.to_string()) {
            Ok(intent) => (Some(intent), None),
            Err(e) => (None, Some(e.to_string())),
        },
    };
    Some(ParsedAnswer {
        decision,
        reason,
        intent,
        intent_error,
    })
}

/// The first balanced JSON object in `text` that parses.
fn json_object(text: &str) -> Option<serde_json::Value> {
    let bytes = text.as_bytes();
    let mut start = 0;
    // Each iteration moves `start` forward past one '{'.
    while let Some(off) = text[start..].find('{') {
        let open = start + off;
        let (mut depth, mut in_str, mut escaped) = (0usize, false, false);
        for (i, &b) in bytes.iter().enumerate().skip(open) {
            if in_str {
                match (escaped, b) {
                    (true, _) => escaped = false,
                    (false, b'\\') => escaped = true,
                    (false, b'"') => in_str = false,
                    _ => {}
                }
                continue;
            }
            match b {
                b'"' => in_str = true,
                b'{' => depth += 1,
                b'}' => {
                    depth -= 1;
                    if depth == 0 {
                        if let Ok(v) = serde_json::from_str(&text[open..=i]) {
                            return Some(v);
                        }
                        break;
                    }
                }
                _ => {}
            }
        }
        start = open + 1;
    }
    None
}

fn keyword_decision(text: &str) -> ModelDecision {
    let words: Vec<String> = text
        .split(|c: char| !c.is_ascii_alphabetic())
        .filter(|w| !w.is_empty())
        .map(str::to_ascii_lowercase)
        .collect();
    let has = |set: &[&str]| words.iter().any(|w| set.contains(&w.as_str()));
    let approve = has(&["approve", "approved", "safe"]);
    let reject = has(&["reject", "rejected", "unsafe", "deny", "denied"]);
    match (approve, reject) {
        (true, false) => ModelDecision::Approve,
        (false, true) => ModelDecision::Reject,
        _ => ModelDecision::Unclear,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_answers() {
        let a =
            parse_answer("```json\n{\"decision\": \"APPROVE\", \"reason\": \"looks {fine}\"}\n```");
        assert_eq!(a.decision, ModelDecision::Approve);
        assert_eq!(a.reason.as_deref(), Some("looks {fine}"));
        let a = parse_answer("Sure. {\"decision\":\"reject\",\"intent\":{\"bad\":1}}");
        assert_eq!(a.decision, ModelDecision::Reject);
        assert!(a.intent.is_none() && a.intent_error.is_some());
        assert_eq!(
            parse_answer("{\"approve\": false}").decision,
            ModelDecision::Reject
        );
    }

    #[test]
    fn keyword_answers() {
        assert_eq!(
            parse_answer("I APPROVE this swap.").decision,
            ModelDecision::Approve
        );
        assert_eq!(
            parse_answer("This is unsafe; reject.").decision,
            ModelDecision::Reject
        );
        assert_eq!(
            parse_answer("Safe? No, reject.").decision,
            ModelDecision::Unclear
        );
        assert_eq!(parse_answer("").decision, ModelDecision::Unclear);
        assert_eq!(parse_answer("{ not json").decision, ModelDecision::Unclear);
    }
}
