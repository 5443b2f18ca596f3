//! What the simulator's rights and lending-health adapters read: the account's lending
//! positions with their health factor before and after ([`LendingFact`]), the rights over the
//! account's value the execution granted outside ERC-20 allowances ([`RightFact`]), and the
//! `approve(address,uint256)` calls the state shows approving one item of a collection
//! ([`ItemApproval`]).
//!
//! The simulator reads and records; the verifier judges: a right by who holds it and how
//! much it allows, a lending position by its health factor. Carried by
//! [`crate::SimulationReport`]'s `lending`, `rights` and `item_approvals`; a report without
//! them parses with the lists empty.

use crate::{amount::u256_dec, units::Bps};
use alloy_primitives::{Address, B256, U256};
use serde::{Deserialize, Serialize};

/// Which adapter read a [`LendingFact`], and so what its units are.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum LendingProtocol {
    /// An Aave V3 Pool's `getUserAccountData`: collateral and debt in the market oracle's base
    /// currency (USD with 8 decimals on most markets); the health factor as the pool computes
    /// it (liquidation threshold-weighted collateral over debt).
    AaveV3,
    /// A Compound V2-style comptroller's `getAccountLiquidity` over the markets the account
    /// entered: collateral (weighted by each market's collateral factor) and debt in USD with
    /// 18 decimals; the health factor is `(liquidity + debt) / debt`, i.e. collateral over
    /// debt.
    Compound,
    /// A market answering the generic `healthFactor(address)` view that the report's own
    /// `health_factor_*_bps` fields do not cover: only the health factor is read.
    Generic,
    /// A market a protocol descriptor's health model reads: collateral and debt in their
    /// tokens' units from the descriptor's position views, the health factor computed from
    /// them, a price read and the liquidation threshold.
    Descriptor,
}

/// The account's position in one lending market at one moment. A read that failed is `None`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LendingState {
    /// The health factor in bps (1.0 = 10 000; `u32::MAX` without debt).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub health_factor_bps: Option<Bps>,
    /// The collateral, in the protocol's unit (see [`LendingProtocol`]; decimal string).
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        with = "opt_u256_dec"
    )]
    pub collateral: Option<U256>,
    /// The debt, in the protocol's unit (decimal string).
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        with = "opt_u256_dec"
    )]
    pub debt: Option<U256>,
}

/// A slot of a contract keyed by the account (its hashed key holds the account's address)
/// that the calls changed while that contract paid value out, and that none of the
/// contract's own balance or allowance views (`balanceOf(account)`, `allowance(account, k)`,
/// `balanceOf(account, id)` for the key's words) explains: a position (a debt, collateral, a
/// claim) whose meaning nothing the simulator reads gives. The verifier treats a grown one as
/// debt and a fallen one as collateral out, unless an adapter reads the contract.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct UnreadPosition {
    /// The contract that keeps the slot.
    #[serde(with = "crate::strict::one")]
    pub contract: Address,
    /// The slot.
    pub slot: B256,
    /// Its value before the calls (decimal string).
    #[serde(with = "u256_dec")]
    pub before: U256,
    /// Its value after them (decimal string).
    #[serde(with = "u256_dec")]
    pub after: U256,
    /// The account gave up, in the same calls, a claim on the contract that its views read
    /// (its `balanceOf` there fell): a redemption, of which this slot may be the bookkeeping.
    /// Never for a slot that grew where the contract can still spend the account's tokens
    /// after the calls (an allowance left on a token the execution moved or a known party).
    pub redeemed: bool,
    /// The contract paid no value out in the execution (it may have received or issued
    /// value, or moved none): the slot is a record kept under the account, naming no party
    /// the simulator knows (a mask of agents named by index, a commitment to a hash, a keeper
    /// packed or XORed), not a debt.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub silent: bool,
}

impl UnreadPosition {
    /// Whether the slot's value, or either 128-bit half of it, rose: two fields packed in one
    /// word (a debt beside collateral, as Morpho Blue packs them) may move opposite ways, and a
    /// debt that grows beside collateral that falls more still grew.
    pub fn grew(&self) -> bool {
        rose(self.before, self.after)
    }

    /// Whether the slot's value, or either 128-bit half of it, fell (see [`Self::grew`]).
    pub fn fell(&self) -> bool {
        rose(self.after, self.before)
    }
}

/// Whether `after` exceeds `before`, as a whole word or in either 128-bit half: the direction
/// of a record that may pack two fields in one word.
pub fn rose(before: U256, after: U256) -> bool {
    let half = |v: U256| (v >> 128usize, v & U256::from(u128::MAX));
    let ((bh, bl), (ah, al)) = (half(before), half(after));
    after > before || ah > bh || al > bl
}

/// One lending market's view of the account before and after the calls.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LendingFact {
    /// The adapter that read it.
    pub protocol: LendingProtocol,
    /// The contract whose views give the health factor (an Aave Pool, a comptroller, a
    /// generic market).
    #[serde(with = "crate::strict::one")]
    pub market: Address,
    /// Before the calls.
    pub before: LendingState,
    /// After the calls.
    pub after: LendingState,
    /// The calls moved the position in a way that can lower its health factor (collateral out,
    /// collateral switched off or a market left, debt in), or the simulator could not tell
    /// that they did not. A supply or a repay alone does not.
    pub lowers: bool,
}

/// The kind of a [`RightFact`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RightKind {
    /// A Permit2 allowance: `holder` may `transferFrom` up to `amount` of `token` from the
    /// account through `contract` (its `Approval` / `Permit` events, `allowance(owner,
    /// token, spender)` read back).
    Permit2Allowance,
    /// Credit delegation on a debt token (`contract`): `holder` may borrow up to `amount` of
    /// `token` against the account's collateral, the debt being the account's
    /// (`BorrowAllowanceDelegated`, `borrowAllowance(from, to)` read back).
    CreditDelegation,
    /// A storage slot of `contract` that held the account's address before the calls holds
    /// `holder` after them: whatever the slot controls (an owner, a beneficiary, an admin, a
    /// recipient) passed from the account to `holder`.
    DisplacedAccount,
    /// `holder`, named by a call the decoder does not know or by an indexed event argument of
    /// the execution, was written into a storage slot of `contract` by the calls: the contract
    /// now remembers it, as an owner, a beneficiary, a delegate or any other role.
    RecordedAddress,
    /// `contract` was created during the execution and names `holder` in its storage or its
    /// code: a wallet or vault deployed in the account's transaction that `holder` controls.
    CreatedContract,
    /// `holder`, a contract the execution touches, was already an operator of every item the
    /// account holds of the collection `contract` (`isApprovedForAll`, granted before): it can
    /// move any item at execution, and the outcome bounds hold counts, not the items.
    StandingOperator,
    /// `contract` recorded something new under a key built from a value the calls passed whole
    /// that is no address and no constant of its code (an order's digest, a pre-signature): a
    /// signature by another name, whose meaning the simulator cannot read. `holder` is the zero
    /// address.
    OpaqueKey,
}

/// A right over the account's value that the execution granted (or that it reads as granted)
/// outside ERC-20 allowances.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RightFact {
    /// What the right is.
    pub kind: RightKind,
    /// The contract that records it.
    #[serde(with = "crate::strict::one")]
    pub contract: Address,
    /// Who holds it.
    #[serde(with = "crate::strict::one")]
    pub holder: Address,
    /// The token it is over (allowance-like rights).
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        with = "crate::strict::opt"
    )]
    pub token: Option<Address>,
    /// How much it allows (allowance-like rights; decimal string): the largest of what the
    /// events logged and what the contract reports after the calls.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        with = "opt_u256_dec"
    )]
    pub amount: Option<U256>,
    /// The storage slot that records it (the storage-derived kinds).
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        with = "crate::strict::opt"
    )]
    pub slot: Option<B256>,
}

impl RightFact {
    /// Whether the right is an allowance of a size ([`RightKind::Permit2Allowance`],
    /// [`RightKind::CreditDelegation`]), judged like an ERC-20 approval; the other kinds hand
    /// over control and are judged by who holds them.
    pub fn is_allowance(&self) -> bool {
        matches!(
            self.kind,
            RightKind::Permit2Allowance | RightKind::CreditDelegation
        )
    }
}

/// An `approve(spender, id)` call on `token` that approved one item: after the calls the
/// token's `getApproved(id)` names `spender` and its `allowance(account, spender)` is not `id`
/// (it reverts, or says something else).
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ItemApproval {
    /// The collection (the call's target).
    #[serde(with = "crate::strict::one")]
    pub token: Address,
    /// Who may move the item.
    #[serde(with = "crate::strict::one")]
    pub spender: Address,
    /// The item (decimal string).
    #[serde(with = "u256_dec")]
    pub id: U256,
}

/// `Option<U256>` as an optional decimal string.
mod opt_u256_dec {
    use alloy_primitives::U256;
    use serde::{Deserialize, Deserializer, Serializer};

    #[allow(clippy::ref_option)] // serde's `with` passes a reference
    pub(super) fn serialize<S: Serializer>(value: &Option<U256>, s: S) -> Result<S::Ok, S::Error> {
        match value {
            Some(v) => crate::amount::u256_dec::serialize(v, s),
            None => s.serialize_none(),
        }
    }

    pub(super) fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Option<U256>, D::Error> {
        #[derive(Deserialize)]
        struct Wrapped(#[serde(with = "crate::amount::u256_dec")] U256);
        Ok(Option::<Wrapped>::deserialize(d)?.map(|w| w.0))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_packed_half_that_rose_grew_whatever_the_word_did() {
        let slot = |before: U256, after: U256| UnreadPosition {
            contract: Address::ZERO,
            slot: B256::ZERO,
            before,
            after,
            redeemed: false,
            silent: false,
        };
        let pack = |hi: u64, lo: u64| (U256::from(hi) << 128usize) | U256::from(lo);
        assert!(slot(pack(10, 0), pack(10, 6)).grew(), "debt in");
        assert!(
            slot(pack(10, 0), pack(8, 6)).grew(),
            "debt in, collateral out: the word fell"
        );
        assert!(!slot(pack(10, 6), pack(8, 6)).grew(), "collateral out");
        assert!(
            !slot(pack(10, 6), pack(8, 2)).grew(),
            "collateral out, debt repaid"
        );
        assert!(!slot(pack(10, 6), pack(10, 6)).grew());
        assert!(slot(U256::from(5u8), U256::from(7u8)).grew());
        assert!(!slot(U256::from(7u8), U256::from(5u8)).grew());
    }

    #[test]
    fn facts_round_trip_and_omit_what_is_unknown() {
        let fact = LendingFact {
            protocol: LendingProtocol::AaveV3,
            market: Address::repeat_byte(1),
            before: LendingState::default(),
            after: LendingState {
                health_factor_bps: Some(11_000),
                collateral: Some(U256::from(5u8)),
                debt: None,
            },
            lowers: true,
        };
        let json = serde_json::to_string(&fact).unwrap();
        assert_eq!(
            json,
            r#"{"protocol":"aave_v3","market":"0x0101010101010101010101010101010101010101","before":{},"after":{"health_factor_bps":11000,"collateral":"5"},"lowers":true}"#
        );
        assert_eq!(serde_json::from_str::<LendingFact>(&json).unwrap(), fact);
        let right = RightFact {
            kind: RightKind::Permit2Allowance,
            contract: Address::repeat_byte(2),
            holder: Address::repeat_byte(3),
            token: Some(Address::repeat_byte(4)),
            amount: Some(U256::MAX),
            slot: None,
        };
        let json = serde_json::to_string(&right).unwrap();
        assert!(json.contains(r#""kind":"permit2_allowance""#), "{json}");
        assert!(!json.contains("slot"), "{json}");
        assert_eq!(serde_json::from_str::<RightFact>(&json).unwrap(), right);
        assert!(right.is_allowance());
        // Hex amounts are refused, as everywhere.
        let hex = json.replace(&U256::MAX.to_string(), "0xff");
        assert!(serde_json::from_str::<RightFact>(&hex).is_err());
    }
}
