//! Canonical encoding and content hashes.
//!
//! A content hash is `keccak256(domain_tag || canonical_json(value))` where:
//!
//! - `domain_tag` is one of [`INTENT_DOMAIN`], [`POLICY_DOMAIN`], [`SIMULATION_DOMAIN`],
//!   [`DECISION_DOMAIN`]: ASCII `PACE-RS/<kind>/v<version>` followed by one `\n`. The tag keeps
//!   an intent from ever hashing like a policy, and the version changes whenever the encoding
//!   of that kind changes.
//! - `canonical_json(value)` is the compact `serde_json` serialization of the typed value:
//!   no whitespace; object members in the order the Rust struct declares its fields; every
//!   field present (absent options are `null`, empty lists `[]`); maps (`metadata`) are
//!   `BTreeMap`s, so keys are sorted by their UTF-8 bytes; addresses, hashes, selectors and
//!   calldata are lowercase `0x`-hex (addresses are *not* EIP-55 checksummed); amounts are
//!   decimal strings without leading zeros (`"-5"` for signed); counts, timestamps and basis
//!   points are JSON integers; strings are escaped the way `serde_json` escapes them (`"`,
//!   `\` and control characters only, everything else as UTF-8).
//!
//! The hash is computed from the typed value, never from the input bytes, so two JSON
//! documents that parse to the same value (different whitespace, key order, hex case,
//! omitted defaults) have the same hash. Nothing iterates a hash map, so the hash is the same
//! on every run and platform; `tests/it/golden.rs` pins exact values.
//!
//! The JSON is streamed into the hasher through a small stack buffer, without allocating.
//! Hashing still costs about 10 cycles per canonical byte (keccak), so [`Hashed`] pairs a
//! value with its hash, computed once, for callers that judge or sign the same value
//! repeatedly. It is immutable, so the hash cannot go stale.

use alloy_primitives::{B256, Keccak256};
use serde::Serialize;
use std::io;

/// Domain tag of [`crate::Intent::intent_hash`].
pub const INTENT_DOMAIN: &[u8] = b"PACE-RS/intent/v1\n";
/// Domain tag of [`crate::Policy::policy_hash`].
pub const POLICY_DOMAIN: &[u8] = b"PACE-RS/policy/v3\n";
/// Domain tag of [`crate::SimulationReport::simulation_hash`].
pub const SIMULATION_DOMAIN: &[u8] = b"PACE-RS/simulation/v3\n";
/// Domain tag of [`crate::Decision::decision_hash`].
pub const DECISION_DOMAIN: &[u8] = b"PACE-RS/decision/v1\n";

/// The canonical JSON bytes of `value` (see the module docs).
pub fn canonical_json<T: Serialize + ?Sized>(value: &T) -> Vec<u8> {
    serde_json::to_vec(value).expect("PACE-RS types always serialize to JSON")
}

/// `keccak256(domain || canonical_json(value))`, streamed without allocating.
pub fn content_hash<T: Serialize + ?Sized>(domain: &[u8], value: &T) -> B256 {
    let mut writer = HashWriter {
        hasher: Keccak256::new(),
        buf: [0; BUF],
        len: 0,
    };
    writer.hasher.update(domain);
    serde_json::to_writer(&mut writer, value).expect("PACE-RS types always serialize to JSON");
    writer.flush_buf();
    writer.hasher.finalize()
}

/// A type with a domain-separated content hash.
pub trait ContentHash: Serialize {
    /// The domain tag of this type.
    const DOMAIN: &'static [u8];

    /// `keccak256(Self::DOMAIN || canonical_json(self))`.
    fn content_hash(&self) -> B256 {
        content_hash(Self::DOMAIN, self)
    }
}

impl ContentHash for crate::Intent {
    const DOMAIN: &'static [u8] = INTENT_DOMAIN;
}

impl ContentHash for crate::Policy {
    const DOMAIN: &'static [u8] = POLICY_DOMAIN;
}

impl ContentHash for crate::SimulationReport {
    const DOMAIN: &'static [u8] = SIMULATION_DOMAIN;
}

impl ContentHash for crate::Decision {
    const DOMAIN: &'static [u8] = DECISION_DOMAIN;
}

/// A value and its content hash, computed once at construction.
///
/// There is no mutable access to the value, so the hash always matches it: tampering with a
/// `Hashed<Intent>`'s calldata means building a new one, which hashes the new bytes.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Hashed<T> {
    value: T,
    hash: B256,
}

impl<T: ContentHash> Hashed<T> {
    /// Hashes `value`.
    pub fn new(value: T) -> Self {
        let hash = value.content_hash();
        Self { value, hash }
    }
}

impl<T> Hashed<T> {
    /// The content hash.
    pub fn hash(&self) -> B256 {
        self.hash
    }

    /// The value.
    pub fn get(&self) -> &T {
        &self.value
    }

    /// Gives the value back.
    pub fn into_inner(self) -> T {
        self.value
    }
}

impl<T> core::ops::Deref for Hashed<T> {
    type Target = T;

    fn deref(&self) -> &T {
        &self.value
    }
}

impl<T: ContentHash> From<T> for Hashed<T> {
    fn from(value: T) -> Self {
        Self::new(value)
    }
}

const BUF: usize = 512;

/// Collects serde_json's many tiny writes and feeds the hasher in larger chunks.
struct HashWriter {
    hasher: Keccak256,
    buf: [u8; BUF],
    len: usize,
}

impl HashWriter {
    fn flush_buf(&mut self) {
        self.hasher.update(&self.buf[..self.len]);
        self.len = 0;
    }
}

impl io::Write for HashWriter {
    fn write(&mut self, data: &[u8]) -> io::Result<usize> {
        if self.len + data.len() > BUF {
            self.flush_buf();
            if data.len() > BUF {
                self.hasher.update(data);
                return Ok(data.len());
            }
        }
        self.buf[self.len..self.len + data.len()].copy_from_slice(data);
        self.len += data.len();
        Ok(data.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloy_primitives::keccak256;

    #[test]
    fn streamed_hash_equals_hash_of_concatenation() {
        let long = "x".repeat(3 * BUF + 7);
        let values = [
            serde_json::json!({"a": 1, "b": [1, 2, 3]}),
            serde_json::json!({"s": long}),
        ];
        for value in values {
            let mut bytes = POLICY_DOMAIN.to_vec();
            bytes.extend(canonical_json(&value));
            assert_eq!(content_hash(POLICY_DOMAIN, &value), keccak256(&bytes));
        }
    }
}
