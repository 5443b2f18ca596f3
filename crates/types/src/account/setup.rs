//! The delegate's set-up: the EIP-712 `Setup` the EOA key signs, as
//! `PaceDelegate.setupDigest` hashes it ([`setup_digest`]), and the signed delegation document
//! `pace delegate sign` writes and `pace delegate send` reads ([`DelegationDocument`]).
//!
//! The set-up's domain is the delegate's unsalted one: name `"PaceDelegate"`, version `"2"`,
//! the chain, the EOA as `verifyingContract`; the struct names the delegate's code, so a set-up
//! is worthless at another EOA, chain or delegate.

use super::{AccountKind, DELEGATE_DOMAIN_NAME, DELEGATE_DOMAIN_VERSION};
use crate::{Result, amount::u256_dec, load};
use alloy_primitives::{Address, B256, Bytes, U256};
use alloy_sol_types::{Eip712Domain, SolStruct};
use pace_abi::bindings::PaceDelegate;
use std::borrow::Cow;

/// The EIP-712 types the EOA key signs, as `PaceDelegate`'s `_SETUP_TYPEHASH` spells them
/// (the interface's `Setup` with the delegate's address in front).
mod typed {
    alloy_sol_types::sol! {
        struct BudgetLimit { address token; uint128 limit; uint64 period; }
        struct LaneFloor { uint32 key; uint64 sequence; }
        struct Setup {
            address delegate;
            address verifier;
            BudgetLimit[] budgets;
            LaneFloor[] lanes;
            uint256 nonce;
            uint256 deadline;
        }
    }
}

/// The domain a set-up of the EOA `eoa` on `chain_id` is signed in.
pub fn setup_domain(chain_id: u64, eoa: Address) -> Eip712Domain {
    debug_assert_eq!(
        AccountKind::PaceDelegate.domain_name(),
        DELEGATE_DOMAIN_NAME
    );
    Eip712Domain::new(
        Some(Cow::Borrowed(DELEGATE_DOMAIN_NAME)),
        Some(Cow::Borrowed(DELEGATE_DOMAIN_VERSION)),
        Some(U256::from(chain_id)),
        Some(eoa),
        None,
    )
}

/// The digest the EOA key signs for `setup` of the delegate at `delegate`, at `eoa` on
/// `chain_id`: what `PaceDelegate.setupDigest(setup)` returns at the delegated EOA.
pub fn setup_digest(
    chain_id: u64,
    eoa: Address,
    delegate: Address,
    setup: &PaceDelegate::Setup,
) -> B256 {
    typed::Setup {
        delegate,
        verifier: setup.verifier,
        budgets: setup
            .budgets
            .iter()
            .map(|b| typed::BudgetLimit {
                token: b.token,
                limit: b.limit,
                period: b.period,
            })
            .collect(),
        lanes: setup
            .lanes
            .iter()
            .map(|l| typed::LaneFloor {
                key: l.key,
                sequence: l.sequence,
            })
            .collect(),
        nonce: setup.nonce,
        deadline: setup.deadline,
    }
    .eip712_signing_hash(&setup_domain(chain_id, eoa))
}

/// The `format` of a delegation document: only `"pace-delegation/1"`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum DelegationFormat {
    /// The first and only format.
    #[default]
    #[serde(rename = "pace-delegation/1")]
    V1,
}

/// A signed delegation of an EOA to `PaceDelegate`: the EIP-7702 authorization and the
/// set-up, both signed by the EOA key. Loaded strictly (unknown fields, missing fields and
/// other spellings of numbers are refused); its `setup_digest` must be the set-up's
/// ([`Self::from_json_str`]). Whether the signatures are the EOA's is for the caller to check
/// (recovering the authorization needs its RLP encoding).
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DelegationDocument {
    /// The EIP-7702 authorization, signed.
    pub authorization: SignedAuthorizationDoc,
    /// The chain id both parts bind.
    pub chain_id: u64,
    /// The delegate's code address.
    #[serde(with = "crate::strict::one")]
    pub delegate: Address,
    /// The EOA (the key that signed both parts).
    #[serde(with = "crate::strict::one")]
    pub eoa: Address,
    /// The document's format.
    pub format: DelegationFormat,
    /// The set-up.
    pub setup: SetupDoc,
    /// [`setup_digest`] of the set-up.
    #[serde(with = "crate::strict::one")]
    pub setup_digest: B256,
    /// The EOA key's 65-byte `(r, s, v)` signature of `setup_digest`.
    #[serde(with = "crate::strict::one")]
    pub setup_signature: Bytes,
}

/// An EIP-7702 authorization with its signature, as the document writes it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SignedAuthorizationDoc {
    /// The delegate the EOA's code designates.
    #[serde(with = "crate::strict::one")]
    pub address: Address,
    /// The chain it is valid on, as a decimal string.
    #[serde(with = "u256_dec")]
    pub chain_id: U256,
    /// The EOA's account nonce it is valid at.
    pub nonce: u64,
    /// The signature's `r`.
    #[serde(with = "crate::strict::one")]
    pub r: B256,
    /// The signature's `s`.
    #[serde(with = "crate::strict::one")]
    pub s: B256,
    /// The signature's parity (0 or 1).
    pub y_parity: u8,
}

/// The set-up as the document writes it (`PaceDelegate`'s `Setup`).
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SetupDoc {
    /// Spending budgets to set.
    pub budgets: Vec<BudgetDoc>,
    /// The last timestamp the set-up may land at, as a decimal string.
    #[serde(with = "u256_dec")]
    pub deadline: U256,
    /// Nonce lanes to move forward.
    pub lanes: Vec<LaneDoc>,
    /// The set-up's nonce, as a decimal string.
    #[serde(with = "u256_dec")]
    pub nonce: U256,
    /// The verifier key's address.
    #[serde(with = "crate::strict::one")]
    pub verifier: Address,
}

/// A spending budget: `limit` of `token` (the zero address: ether) per `period` seconds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BudgetDoc {
    /// The limit per period, in base units, as a decimal string.
    #[serde(with = "u128_dec")]
    pub limit: u128,
    /// The period in seconds.
    pub period: u64,
    /// The token.
    #[serde(with = "crate::strict::one")]
    pub token: Address,
}

/// A nonce lane `key` moved forward to `sequence`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LaneDoc {
    /// The lane.
    pub key: u32,
    /// Its floor.
    pub sequence: u64,
}

impl From<&PaceDelegate::Setup> for SetupDoc {
    fn from(s: &PaceDelegate::Setup) -> Self {
        Self {
            budgets: s
                .budgets
                .iter()
                .map(|b| BudgetDoc {
                    limit: b.limit,
                    period: b.period,
                    token: b.token,
                })
                .collect(),
            deadline: s.deadline,
            lanes: s
                .lanes
                .iter()
                .map(|l| LaneDoc {
                    key: l.key,
                    sequence: l.sequence,
                })
                .collect(),
            nonce: s.nonce,
            verifier: s.verifier,
        }
    }
}

impl From<&SetupDoc> for PaceDelegate::Setup {
    fn from(s: &SetupDoc) -> Self {
        Self {
            verifier: s.verifier,
            budgets: s
                .budgets
                .iter()
                .map(|b| PaceDelegate::BudgetLimit {
                    token: b.token,
                    limit: b.limit,
                    period: b.period,
                })
                .collect(),
            lanes: s
                .lanes
                .iter()
                .map(|l| PaceDelegate::LaneFloor {
                    key: l.key,
                    sequence: l.sequence,
                })
                .collect(),
            nonce: s.nonce,
            deadline: s.deadline,
        }
    }
}

impl DelegationDocument {
    /// The document for `setup` of `delegate` at `eoa` on `chain_id`, with its digest.
    pub fn new(
        eoa: Address,
        chain_id: u64,
        delegate: Address,
        authorization: SignedAuthorizationDoc,
        setup: &PaceDelegate::Setup,
        setup_signature: Bytes,
    ) -> Self {
        Self {
            authorization,
            chain_id,
            delegate,
            eoa,
            format: DelegationFormat::V1,
            setup: setup.into(),
            setup_digest: setup_digest(chain_id, eoa, delegate, setup),
            setup_signature,
        }
    }

    /// Loads a document strictly and checks that its `setup_digest` is its set-up's.
    pub fn from_json_str(json: &str) -> Result<Self> {
        let doc: Self = load::from_str(json)?;
        let expected = setup_digest(doc.chain_id, doc.eoa, doc.delegate, &doc.setup());
        if doc.setup_digest != expected {
            return Err(crate::Error::invalid(
                "setup_digest",
                format!("{} is not the set-up's digest {expected}", doc.setup_digest),
            ));
        }
        Ok(doc)
    }

    /// The set-up as `PaceDelegate.setUp` takes it.
    pub fn setup(&self) -> PaceDelegate::Setup {
        (&self.setup).into()
    }
}

/// A `u128` as a decimal string.
mod u128_dec {
    use serde::{Deserialize, Deserializer, Serializer, de};

    pub(super) fn serialize<S: Serializer>(value: &u128, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(value)
    }

    pub(super) fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<u128, D::Error> {
        let text = String::deserialize(d)?;
        if text.is_empty() || !text.bytes().all(|b| b.is_ascii_digit()) {
            return Err(de::Error::custom(format!(
                "expected a decimal string, found {}",
                crate::strict::shown(&text)
            )));
        }
        text.parse().map_err(de::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn setup() -> PaceDelegate::Setup {
        PaceDelegate::Setup {
            verifier: Address::repeat_byte(0x11),
            budgets: vec![PaceDelegate::BudgetLimit {
                token: Address::ZERO,
                limit: 10u128.pow(18),
                period: 86_400,
            }],
            lanes: vec![PaceDelegate::LaneFloor {
                key: 3,
                sequence: 9,
            }],
            nonce: U256::from(7u8),
            deadline: U256::from(1_900_000_000u64),
        }
    }

    fn document() -> DelegationDocument {
        let authorization = SignedAuthorizationDoc {
            address: Address::repeat_byte(0xde),
            chain_id: U256::from(31_337u64),
            nonce: 4,
            r: B256::repeat_byte(1),
            s: B256::repeat_byte(2),
            y_parity: 1,
        };
        DelegationDocument::new(
            Address::repeat_byte(0xee),
            31_337,
            Address::repeat_byte(0xde),
            authorization,
            &setup(),
            Bytes::from(vec![7u8; 65]),
        )
    }

    #[test]
    fn the_document_loads_back_and_keeps_its_set_up() {
        let doc = document();
        let text = serde_json::to_string_pretty(&doc).unwrap();
        let back = DelegationDocument::from_json_str(&text).unwrap();
        assert_eq!(back, doc);
        assert_eq!(back.setup(), setup());
        // Numbers the EVM holds wider than a JSON number stay strings.
        let v: serde_json::Value = serde_json::from_str(&text).unwrap();
        assert_eq!(v["format"], "pace-delegation/1");
        assert_eq!(v["setup"]["nonce"], "7");
        assert_eq!(v["setup"]["budgets"][0]["limit"], "1000000000000000000");
        assert_eq!(v["authorization"]["chain_id"], "31337");
    }

    #[test]
    fn a_changed_document_is_refused_by_field() {
        let text = serde_json::to_string(&document()).unwrap();
        let mut v: serde_json::Value = serde_json::from_str(&text).unwrap();
        v["setup"]["nonce"] = "8".into();
        let err = DelegationDocument::from_json_str(&v.to_string()).unwrap_err();
        assert!(err.to_string().starts_with("setup_digest: "), "{err}");
        for (path, value) in [
            (&["format"][..], serde_json::json!("pace-delegation/2")),
            (&["setup", "nonce"][..], serde_json::json!(8)),
            (&["authorization", "extra"][..], serde_json::json!(1)),
            (&["setup", "budgets"][..], serde_json::json!([[1, 2, 3]])),
        ] {
            let mut v: serde_json::Value = serde_json::from_str(&text).unwrap();
            let (last, parents) = path.split_last().unwrap();
            let mut at = &mut v;
            for p in parents {
                at = &mut at[*p];
            }
            at[*last] = value;
            let err = DelegationDocument::from_json_str(&v.to_string()).unwrap_err();
            assert!(err.to_string().starts_with(path[0]), "{path:?}: {err}");
        }
    }
}
