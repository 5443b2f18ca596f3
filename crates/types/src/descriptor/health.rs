//! Health as data: how a descriptor computes the account's health factor in a market whose
//! views answer no health factor (an isolated market priced by an oracle and a liquidation
//! loan-to-value, as Morpho Blue keeps them).
//!
//! A [`HealthModel`] names two of the descriptor's positions, the collateral and the debt, a
//! price read and the liquidation threshold:
//!
//! ```text
//! health = collateral × price / price_scale × threshold_bps / 10 000 / debt
//! ```
//!
//! The simulator computes it before and after the calls from the answers of those reads, and
//! the decision rests on all three: the signer keeps the collateral and the price at or above
//! what the simulation read less the policy's tolerance, and the debt at or below it plus the
//! tolerance, so the health factor the account can land is never below what the verifier
//! judged, discounted by those three tolerances (the verifier judges the discounted one).

use super::{Descriptor, PositionKind, signature_types};
use alloy_primitives::{Address, B256, U256};
use serde::{Deserialize, Serialize};

/// A view of a root whose answer is one word: word `word` of `root.view(args...)`.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ViewRead {
    /// The root asked.
    pub root: String,
    /// The view's signature, static arguments only: `price()`.
    pub view: String,
    /// Its arguments: `"account"` (the intent's account) or a 32-byte word in 0x-hex.
    #[serde(default)]
    pub args: Vec<String>,
    /// Which word of the answer is read (0-based).
    #[serde(default)]
    pub word: usize,
}

impl ViewRead {
    /// The call data for `account`, or `None` when an argument is malformed.
    pub fn call_data(&self, account: Address) -> Option<Vec<u8>> {
        view_call_data(&self.view, &self.args, account)
    }
}

/// How the account's health factor in one market follows from two of the descriptor's
/// positions and a price (see the module docs).
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HealthModel {
    /// The index in `positions` of the collateral (an `asset` position).
    pub collateral: usize,
    /// The index in `positions` of the debt (a `debt` position).
    pub debt: usize,
    /// The price of `price_scale` units of collateral, in units of the debt.
    pub price: ViewRead,
    /// The collateral units `price` is quoted for (decimal string; `1e36` for Morpho Blue's
    /// oracles, `1e18` for a price per whole 18-decimal token).
    #[serde(with = "crate::amount::u256_dec")]
    pub price_scale: U256,
    /// The share of the collateral's value the debt may reach before the position can be
    /// liquidated, in bps (Morpho Blue's LLTV, Aave's liquidation threshold).
    pub threshold_bps: u32,
}

impl HealthModel {
    /// The health factor in bps (10 000 = 1.0; `u32::MAX` without debt or past it), rounded
    /// down, from a collateral, a price and a debt as the model reads them.
    pub fn health_bps(&self, collateral: U256, price: U256, debt: U256) -> u32 {
        use alloy_primitives::U512;
        if debt.is_zero() {
            return u32::MAX;
        }
        let weighted = U512::from(collateral)
            .saturating_mul(U512::from(price))
            .saturating_mul(U512::from(self.threshold_bps));
        let owed = U512::from(debt).saturating_mul(U512::from(self.price_scale));
        u32::try_from(weighted / owed).unwrap_or(u32::MAX)
    }
}

/// The call data of `view(args...)` for `account`, or `None` when an argument is malformed.
/// An argument is `"account"` or a 32-byte word in 0x-hex, or, for an argument of an array
/// type (`address[]`), a list of those in brackets with no spaces (`"[account,0x…]"`, `"[]"`),
/// ABI-encoded as the dynamic array it is.
pub(super) fn view_call_data(view: &str, args: &[String], account: Address) -> Option<Vec<u8>> {
    let word = |arg: &str| -> Option<B256> {
        if arg == "account" {
            Some(account.into_word())
        } else {
            arg.parse().ok()
        }
    };
    let hash = alloy_primitives::keccak256(view.as_bytes());
    let mut data = hash[..4].to_vec();
    let mut tail = Vec::new();
    for arg in args {
        match arg.strip_prefix('[').and_then(|a| a.strip_suffix(']')) {
            Some(list) => {
                let items = if list.is_empty() {
                    Vec::new()
                } else {
                    list.split(',').map(word).collect::<Option<Vec<_>>>()?
                };
                let offset = 32 * args.len() + tail.len();
                data.extend_from_slice(&U256::from(offset).to_be_bytes::<32>());
                tail.extend_from_slice(&U256::from(items.len()).to_be_bytes::<32>());
                items
                    .iter()
                    .for_each(|w| tail.extend_from_slice(w.as_slice()));
            }
            None => data.extend_from_slice(word(arg)?.as_slice()),
        }
    }
    data.extend_from_slice(&tail);
    Some(data)
}

/// Checks `d`'s health models: positions that exist and are of the right kind, a price view
/// that resolves, a threshold within 100 % and a non-zero scale.
pub(super) fn validate(d: &Descriptor) -> crate::Result<()> {
    for (i, h) in d.health.iter().enumerate() {
        let path = |f: &str| format!("health[{i}].{f}");
        let invalid = |f: &str, why: String| Err(crate::Error::invalid(path(f), why));
        for (field, index, kind) in [
            ("collateral", h.collateral, PositionKind::Asset),
            ("debt", h.debt, PositionKind::Debt),
        ] {
            match d.positions.get(index) {
                Some(p) if p.kind == kind && p.secures_debt => {}
                Some(p) if p.kind == kind => {
                    return invalid(
                        field,
                        format!("positions[{index}] secures no debt, so it is no collateral"),
                    );
                }
                Some(_) => {
                    return invalid(field, format!("positions[{index}] is not of that kind"));
                }
                None => return invalid(field, format!("no positions[{index}]")),
            }
        }
        let p = &h.price;
        if d.root(&p.root).is_none() {
            return invalid("price.root", format!("no root {}", p.root));
        }
        if signature_types(&p.view).map(|t| t.len()) != Some(p.args.len()) {
            return invalid(
                "price.view",
                format!(
                    "{} is no signature of {} static arguments",
                    p.view,
                    p.args.len()
                ),
            );
        }
        if p.call_data(Address::ZERO).is_none() {
            return invalid(
                "price.args",
                "each argument is \"account\" or a 32-byte word in 0x-hex".into(),
            );
        }
        if !(1..=10_000).contains(&h.threshold_bps) {
            return invalid(
                "threshold_bps",
                format!("{} is not within 1..=10000", h.threshold_bps),
            );
        }
        if h.price_scale.is_zero() {
            return invalid(
                "price_scale",
                "a price is quoted for some collateral".into(),
            );
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn model(threshold_bps: u32) -> HealthModel {
        HealthModel {
            collateral: 0,
            debt: 1,
            price: ViewRead {
                root: "market".into(),
                view: "price()".into(),
                args: vec![],
                word: 0,
            },
            price_scale: U256::from(10u8).pow(U256::from(18u8)),
            threshold_bps,
        }
    }

    #[test]
    fn health_is_weighted_collateral_over_debt() {
        let e = |n: u64| U256::from(n) * U256::from(10u8).pow(U256::from(18u8));
        // 2 WETH at 1,000 DAI, 80 %: 1,600 DAI may be owed; 500 owed is 3.2.
        assert_eq!(model(8_000).health_bps(e(2), e(1_000), e(500)), 32_000);
        assert_eq!(model(8_000).health_bps(e(2), e(1_000), e(1_600)), 10_000);
        assert_eq!(model(8_000).health_bps(e(2), e(1_000), e(1_601)), 9_993);
        assert_eq!(
            model(8_000).health_bps(e(2), e(1_000), U256::ZERO),
            u32::MAX
        );
        assert_eq!(
            model(8_000).health_bps(U256::MAX, U256::MAX, U256::from(1u8)),
            u32::MAX
        );
        assert_eq!(model(8_000).health_bps(U256::ZERO, e(1_000), e(1)), 0);
    }

    #[test]
    fn a_model_names_positions_of_the_right_kind_and_a_sane_threshold() {
        let d: Descriptor = serde_json::from_str(
            r#"{"schema":1,"id":"m","roots":[{"name":"market","address":"0x0000000000000000000000000000000000000001"}],
                "positions":[
                  {"root":"market","view":"position(address)","args":["account"],"word":2,"token":"0x0000000000000000000000000000000000000002","kind":"asset"},
                  {"root":"market","view":"position(address)","args":["account"],"word":1,"token":"0x0000000000000000000000000000000000000003","kind":"debt"}],
                "health":[{"collateral":0,"debt":1,"price":{"root":"market","view":"price()"},"price_scale":"1000000000000000000","threshold_bps":8000}]}"#,
        )
        .unwrap();
        d.validate().unwrap();
        let broken = |f: fn(&mut HealthModel)| {
            let mut b = d.clone();
            f(&mut b.health[0]);
            b.validate().unwrap_err().to_string()
        };
        assert!(broken(|h| h.collateral = 1).contains("health[0].collateral"));
        assert!(broken(|h| h.debt = 2).contains("health[0].debt"));
        assert!(broken(|h| h.threshold_bps = 10_001).contains("health[0].threshold_bps"));
        assert!(broken(|h| h.price_scale = U256::ZERO).contains("health[0].price_scale"));
        assert!(broken(|h| h.price.root = "oracle".into()).contains("health[0].price.root"));
        assert!(broken(|h| h.price.args = vec!["account".into()]).contains("health[0].price.view"));
        // A model is part of what the policy pins.
        let mut other = d.clone();
        other.health[0].threshold_bps = 8_600;
        assert_ne!(other.hash(), d.hash());
    }
}
