//! 9. Forbidden metadata patterns.

use super::{Ctx, Out, push};
use crate::normalize::variants;
use pace_types::ViolationCode as Code;
use std::collections::BTreeSet;

/// Check 9: `METADATA_PATTERN_MATCHED`: one violation per (entry, key-or-value, pattern) match, in
/// key order. Each text is matched as written and in its other spellings (lookalike letters
/// and invisible characters folded, base64 / hex payloads decoded: [`variants`]). The message
/// names the key and the pattern, never the (untrusted) value.
pub(crate) fn metadata_patterns(ctx: &Ctx<'_>, out: &mut Out) {
    let set = ctx.policy.metadata_patterns();
    if set.is_empty() {
        return;
    }
    for (key, value) in &ctx.intent.metadata {
        for (part, text) in [("key", key), ("value", value)] {
            // `is_match` first: it is much faster than `matches` and nearly always false.
            let hits = |t: &str| -> BTreeSet<usize> {
                if set.is_match(t) {
                    set.matches(t).into_iter().collect()
                } else {
                    BTreeSet::new()
                }
            };
            let as_written = hits(text);
            let mut respelled = BTreeSet::new();
            for variant in variants(text) {
                respelled.extend(hits(&variant));
            }
            for &index in as_written.union(&respelled) {
                let pattern = &set.patterns()[index];
                let how = if as_written.contains(&index) {
                    ""
                } else {
                    " once folded or decoded"
                };
                push(
                    out,
                    Code::MetadataPatternMatched,
                    format!(
                        "metadata {part} of entry {key:?} matches forbidden pattern #{index} {pattern:?}{how}"
                    ),
                );
            }
        }
    }
}
