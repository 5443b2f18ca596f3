//! 9. Forbidden metadata patterns.

use super::{Ctx, Out, push};
use pace_types::ViolationCode as Code;

/// Check 9: `METADATA_PATTERN_MATCHED`: one violation per (entry, key-or-value, pattern) match, in
/// key order. The message names the key and the pattern, never the (untrusted) value.
pub(crate) fn metadata_patterns(ctx: &Ctx<'_>, out: &mut Out) {
    let set = ctx.policy.metadata_patterns();
    if set.is_empty() {
        return;
    }
    for (key, value) in &ctx.intent.metadata {
        for (part, text) in [("key", key), ("value", value)] {
            if !set.is_match(text) {
                continue;
            }
            for index in set.matches(text).iter() {
                let pattern = &set.patterns()[index];
                push(
                    out,
                    Code::MetadataPatternMatched,
                    format!(
                        "metadata {part} of entry {key:?} matches forbidden pattern #{index} {pattern:?}"
                    ),
                );
            }
        }
    }
}
