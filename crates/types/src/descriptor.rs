//! Protocol descriptors: what a protocol is on one chain, as data a user adds.
//!
//! A descriptor names a protocol's fixed contracts (`roots`: a factory, a router, a pool
//! behind its proxy, a registry, linked libraries), the functions an intent may call on them
//! (`entry_points`), and the rules by which any other contract belongs to it (`members`): its
//! code hash, being the EIP-1967 implementation behind a root or member, being what a root's
//! registry returns for the contract's own views (a Uniswap pool is the factory's
//! `getPool(token0(), token1(), fee())`), or being listed by a root's view of it (a Balancer
//! pool is one its factory's `isPoolFromFactory(pool)` answers true for). A root may pin its code and its implementation's
//! code by hash: when what runs there changes (an upgraded proxy), intents that reach the
//! protocol are refused until the descriptor is reviewed again.
//!
//! A policy pins each descriptor by its content hash ([`Descriptor::hash`],
//! `keccak256("PACE-RS/descriptor/v1\n" || canonical JSON)`, `pace hash --descriptor`). The
//! simulator reports which touched contracts belong to which pinned protocol and what code
//! runs at its roots; the verifier allows a protocol's members as counterparties and its entry
//! points as targets. Membership is a reading of code and views, so a descriptor is only as
//! good as its review: who reviewed it is part of it (`reviewed_by`).

mod health;

pub use health::{HealthModel, ViewRead};

use crate::hash::{ContentHash, content_hash};
use alloy_primitives::{Address, B256};
use serde::{Deserialize, Serialize};

/// The descriptor file format this build reads.
pub const DESCRIPTOR_SCHEMA: u32 = 1;
/// The domain tag of a descriptor's content hash.
pub const DESCRIPTOR_DOMAIN: &[u8] = b"PACE-RS/descriptor/v1\n";
/// EIP-1967's implementation slot, `bytes32(uint256(keccak256("eip1967.proxy.implementation"))
/// - 1)`: where a proxy keeps the address of the code it runs.
pub const IMPLEMENTATION_SLOT: B256 =
    alloy_primitives::b256!("360894a13ba1a3210667c828492db98dca3e2076cc3735a920a3ca505d382bbc");

/// One protocol on one chain.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Descriptor {
    /// The format ([`DESCRIPTOR_SCHEMA`]).
    pub schema: u32,
    /// A short stable name (`uniswap-v3`), what policies and reports call the protocol.
    pub id: String,
    /// The chain its addresses are on.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub chain_id: Option<u64>,
    /// Who read the code this descriptor vouches for, and when.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reviewed_by: Option<String>,
    /// The protocol's licence (SPDX), for the record.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub license: Option<String>,
    /// Its fixed contracts, by name.
    #[serde(default)]
    pub roots: Vec<Root>,
    /// What an intent may call: functions of roots.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub entry_points: Vec<EntryPoint>,
    /// How other contracts belong to it.
    #[serde(default)]
    pub members: Members,
    /// The views that read the account's positions in it (what it holds there and owes), each
    /// counted in the account's value like a token balance.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub positions: Vec<PositionView>,
    /// How the account's health factor follows from its positions where no view answers one
    /// ([`HealthModel`]).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub health: Vec<HealthModel>,
    /// Which of its own price reads value what it issues ([`PriceRule`]).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub prices: Vec<PriceRule>,
    /// The views that value a token one of its roots issues in another asset, where it is no
    /// ERC-4626 vault (a wrapper of a rebasing token: [`RateView`]).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub rates: Vec<RateView>,
    /// The views that read what its roots and members keep under the account besides its
    /// positions (a reward checkpoint, earned rewards, a nonce), so that a change to such a
    /// record is explained rather than refused as one nothing reads ([`RecordView`]).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub records: Vec<RecordView>,
    /// Facts of the protocol that a PDR reaching it re-checks after its calls ([`CheckView`]):
    /// what the decision took for granted about the protocol (a fee, a pause flag, an
    /// administrator, a supply), kept at execution as the simulation left it.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub checks: Vec<CheckView>,
}

/// A post-condition template: for an intent that reaches one of the protocol's roots (a call's
/// target or a touched contract), the simulator reads word `read.word` of
/// `root.view(args...)` before and after the calls, and the signer has the account check after
/// the calls that the answer is kept as `keep` says against the simulated answer after them.
/// A check whose view does not answer a whole word after the calls is a fact the account
/// cannot re-read: the intent is refused (`POSITION_UNREADABLE`), not signed blind.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CheckView {
    /// The view read.
    pub read: ViewRead,
    /// What the account requires of its answer at execution.
    pub keep: Keep,
}

/// How a [`CheckView`]'s answer at execution relates to the simulated one after the calls.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Keep {
    /// At least the simulated answer, less the policy's `outcome_tolerance_bps` (a price, a
    /// reserve, an exchange rate that must not fall).
    AtLeast,
    /// At most the simulated answer, plus the policy's `outcome_tolerance_bps` (a fee, a
    /// supply, a debt that must not rise).
    AtMost,
    /// Exactly the simulated answer (an administrator, a pause flag, a configuration word).
    Exactly,
}

impl Keep {
    /// The kind of the [`crate::FactRead`] that carries a check of this keep.
    pub fn read_kind(self) -> crate::ReadKind {
        match self {
            Self::AtLeast => crate::ReadKind::DeclaredFloor,
            Self::AtMost => crate::ReadKind::DeclaredCeiling,
            Self::Exactly => crate::ReadKind::DeclaredExact,
        }
    }
}

/// A view that reads one word a protocol keeps under the account: the word `word` of
/// `contract.view(args...)`, asked of the root or member whose slot keyed by the account the
/// calls changed. The slot is explained when the view answers its value before the calls and
/// after them exactly, so a view that reads another word explains nothing.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RecordView {
    /// The view's signature, static arguments only: `userRewardPerTokenPaid(address)`.
    pub view: String,
    /// Its arguments: `"account"` (the intent's account) or a 32-byte word in 0x-hex.
    pub args: Vec<String>,
    /// Which word of the answer is the record (0-based).
    #[serde(default)]
    pub word: usize,
}

impl RecordView {
    /// The call data of the view for `account`, or `None` when an argument is malformed.
    pub fn call_data(&self, account: Address) -> Option<Vec<u8>> {
        health::view_call_data(&self.view, &self.args, account)
    }
}

/// A price read of a protocol that values what it issues, trusted for the protocol's roots and
/// members as the policy's own price sources are.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PriceRule {
    /// A root or member that is an ERC-4626 vault values its own shares at its
    /// `convertToAssets` rate, read before the calls (as `price_vaults` does for one vault);
    /// the account re-checks the rate after the calls.
    VaultRate,
    /// A root or member that is a pool values its own shares by their part of what it holds
    /// (a two-reserve pool's reserves, a Balancer pool's balances in its Vault), read before the
    /// calls (as `price_pools` does for one pool); for shares the account receives the account
    /// re-checks what each share is worth after the calls (the helper's geometric mean of the
    /// reserves per share, or the pool's own invariant per share, `getRate`).
    PoolShare,
}

/// A rate a root gives for the token it issues (the root is the token): `per` units of it are
/// worth the answer of `read` in `asset` (a wrapper of a rebasing token: `stEthPerToken()` per
/// `1e18`, or `getStETHByWstETH(uint256)` of `1e18`). Read before the calls, it values the token
/// as `price_vaults` values a vault's shares, for the policies that pin the descriptor; for a
/// token the account receives, the account re-checks it after the calls (at least the simulated
/// answer less the policy's `outcome_tolerance_bps`), so a rate that falls at execution reverts
/// the PDR.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RateView {
    /// The view of the issuing root that answers the rate.
    pub read: ViewRead,
    /// How many units of the root's token the answer is for (decimal string, not zero).
    #[serde(with = "crate::amount::u256_dec")]
    pub per: alloy_primitives::U256,
    /// The asset the answer is in.
    #[serde(with = "crate::strict::one")]
    pub asset: Address,
}

/// A view of a root that reads one amount of the account's position: the word `word` of
/// `root.view(args...)`, an amount of `token`, held (`asset`) or owed (`debt`).
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PositionView {
    /// The root asked (a market).
    pub root: String,
    /// The view's signature, static arguments only: `position(bytes32,address)`.
    pub view: String,
    /// Its arguments: `"account"` (the intent's account) or a 32-byte word in 0x-hex.
    pub args: Vec<String>,
    /// Which word of the answer is the amount (0-based).
    pub word: usize,
    /// The token the amount is of.
    #[serde(with = "crate::strict::one")]
    pub token: Address,
    /// Whether the account holds it or owes it.
    pub kind: PositionKind,
    /// For a held amount, whether it may secure a debt (a collateral): a fall of one that may
    /// is judged against the policy's minimum health factor, and refused where no health
    /// factor can be read. The descriptor declares `false` for a holding the protocol lends
    /// nothing against (an internal balance, a stake), whose fall lowers no health factor: the
    /// user who pins it trusts that. Absent: `true`.
    #[serde(default = "secures", skip_serializing_if = "is_secured")]
    pub secures_debt: bool,
}

/// A position's `secures_debt` when the descriptor does not say.
fn secures() -> bool {
    true
}

/// Whether `secures_debt` is its default, which a descriptor's content omits (so descriptors
/// that do not say hash as they did).
fn is_secured(secures_debt: &bool) -> bool {
    *secures_debt
}

/// What a position amount is to the account.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PositionKind {
    /// Held: a rise is value gained.
    Asset,
    /// Owed: a rise is value lost.
    Debt,
}

impl PositionView {
    /// The call data of the view for `account`, or `None` when an argument is malformed.
    pub fn call_data(&self, account: Address) -> Option<Vec<u8>> {
        health::view_call_data(&self.view, &self.args, account)
    }
}

/// A fixed contract of a protocol.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Root {
    /// Its name within the descriptor (`factory`, `pool`).
    pub name: String,
    /// Where it is.
    #[serde(with = "crate::strict::one")]
    pub address: Address,
    /// `keccak256` of the code at `address`, when pinned.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub code_hash: Option<B256>,
    /// `keccak256` of the code of its EIP-1967 implementation, when pinned (a proxy's logic).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub implementation_code_hash: Option<B256>,
}

/// Functions of one root an intent may call.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EntryPoint {
    /// The root's name.
    pub root: String,
    /// The selectors allowed on it.
    #[serde(with = "crate::strict::list")]
    pub selectors: Vec<crate::Selector>,
}

/// The rules by which a contract that is no root belongs to the protocol; any one suffices.
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Members {
    /// Its runtime code hashes to one of these (a token implementation, a rate strategy).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub code_hashes: Vec<B256>,
    /// It is the EIP-1967 implementation behind a root or another member.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub implementations: bool,
    /// A root's registry names it.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub registries: Vec<Registry>,
    /// A root's view of it answers true.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub listings: Vec<Listing>,
}

/// A root's record of the contracts it vouches for: the contract `c` belongs when
/// `root.view(c)` answers `1` in its first word (a factory's `isPoolFromFactory(address)`, a
/// comptroller's `markets(address)`, whose first word is whether the market is listed).
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Listing {
    /// The root asked.
    pub root: String,
    /// The view's signature: one `address` argument, the candidate.
    pub view: String,
}

/// A lookup on a root that names a member from the member's own views: the contract `c`
/// belongs when `root.lookup(c.args[0](), c.args[1](), ...)` returns `c`.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Registry {
    /// The root asked.
    pub root: String,
    /// The lookup's signature, `getPool(address,address,uint24)`: static arguments only.
    pub lookup: String,
    /// The candidate's views that give the arguments, in order: each a signature without
    /// arguments returning one word (`token0()`).
    pub args: Vec<String>,
}

impl Descriptor {
    /// Parses a descriptor from JSON bytes (strict: unknown fields are errors) and validates
    /// it.
    pub fn from_json_slice(json: &[u8]) -> crate::Result<Self> {
        let d: Self = crate::load::from_slice(json)?;
        d.validate()?;
        Ok(d)
    }

    /// The content hash a policy pins.
    pub fn hash(&self) -> B256 {
        content_hash(DESCRIPTOR_DOMAIN, self)
    }

    /// The root named `name`.
    pub fn root(&self, name: &str) -> Option<&Root> {
        self.roots.iter().find(|r| r.name == name)
    }

    /// Whether `address` is one of its roots.
    pub fn is_root(&self, address: Address) -> bool {
        self.roots.iter().any(|r| r.address == address)
    }

    /// Whether an execution that reached `reached` (the calls' targets and the touched
    /// contracts) reached the protocol: one of them is a root, or a member of it by `members`
    /// (a report's `protocols.members`).
    pub fn is_reached(
        &self,
        mut reached: impl Iterator<Item = Address>,
        members: &[crate::ProtocolMember],
    ) -> bool {
        reached.any(|a| {
            self.is_root(a) || (members.iter()).any(|m| m.protocol == self.id && m.contract == a)
        })
    }

    /// Whether it trusts `rule` for its roots and members.
    pub fn trusts(&self, rule: PriceRule) -> bool {
        self.prices.contains(&rule)
    }

    /// Whether an intent may call `selector` on `target` by this descriptor.
    pub fn allows_call(&self, target: Address, selector: Option<crate::Selector>) -> bool {
        self.entry_points.iter().any(|e| {
            self.root(&e.root).is_some_and(|r| r.address == target)
                && selector.is_some_and(|s| e.selectors.contains(&s))
        })
    }

    /// Checks what parsing cannot: the schema, names that resolve, well-formed signatures.
    pub fn validate(&self) -> crate::Result<()> {
        let invalid = |path: String, why: String| Err(crate::Error::invalid(path, why));
        if self.schema != DESCRIPTOR_SCHEMA {
            return invalid(
                "schema".into(),
                format!(
                    "descriptor schema {} is not the one this build reads ({DESCRIPTOR_SCHEMA})",
                    self.schema
                ),
            );
        }
        if self.id.is_empty() {
            return invalid("id".into(), "a descriptor needs an id".into());
        }
        for (i, r) in self.roots.iter().enumerate() {
            if self.roots[..i].iter().any(|o| o.name == r.name) {
                return invalid(
                    format!("roots[{i}].name"),
                    format!("duplicate root {}", r.name),
                );
            }
        }
        for (i, e) in self.entry_points.iter().enumerate() {
            if self.root(&e.root).is_none() {
                return invalid(
                    format!("entry_points[{i}].root"),
                    format!("no root {}", e.root),
                );
            }
        }
        for (i, v) in self.positions.iter().enumerate() {
            let path = |f: &str| format!("positions[{i}].{f}");
            if self.root(&v.root).is_none() {
                return invalid(path("root"), format!("no root {}", v.root));
            }
            check_view(path, &v.view, &v.args)?;
            if !v.secures_debt && v.kind == PositionKind::Debt {
                return invalid(
                    path("secures_debt"),
                    "only a held position says whether it secures a debt".into(),
                );
            }
        }
        for (i, v) in self.records.iter().enumerate() {
            check_view(|f: &str| format!("records[{i}].{f}"), &v.view, &v.args)?;
        }
        for (i, r) in self.rates.iter().enumerate() {
            let path = |f: &str| format!("rates[{i}].read.{f}");
            if self.root(&r.read.root).is_none() {
                return invalid(path("root"), format!("no root {}", r.read.root));
            }
            check_view(path, &r.read.view, &r.read.args)?;
            if r.read.args.iter().any(|a| a.contains("account")) {
                return invalid(
                    path("args"),
                    "a rate is the token's, not the account's: no argument names the account"
                        .into(),
                );
            }
            if r.per.is_zero() {
                return invalid(format!("rates[{i}].per"), "a rate is for some units".into());
            }
        }
        for (i, c) in self.checks.iter().enumerate() {
            let path = |f: &str| format!("checks[{i}].read.{f}");
            if self.root(&c.read.root).is_none() {
                return invalid(path("root"), format!("no root {}", c.read.root));
            }
            check_view(path, &c.read.view, &c.read.args)?;
        }
        health::validate(self)?;
        for (i, g) in self.members.registries.iter().enumerate() {
            if self.root(&g.root).is_none() {
                return invalid(
                    format!("members.registries[{i}].root"),
                    format!("no root {}", g.root),
                );
            }
            if signature_types(&g.lookup).map(|t| t.len()) != Some(g.args.len()) {
                return invalid(
                    format!("members.registries[{i}].lookup"),
                    format!(
                        "{} is no signature of {} static arguments",
                        g.lookup,
                        g.args.len()
                    ),
                );
            }
            for (j, a) in g.args.iter().enumerate() {
                if signature_types(a) != Some(Vec::new()) {
                    return invalid(
                        format!("members.registries[{i}].args[{j}]"),
                        format!("{a} is no signature without arguments"),
                    );
                }
            }
        }
        for (i, l) in self.members.listings.iter().enumerate() {
            if self.root(&l.root).is_none() {
                return invalid(
                    format!("members.listings[{i}].root"),
                    format!("no root {}", l.root),
                );
            }
            if signature_types(&l.view) != Some(vec!["address"]) {
                return invalid(
                    format!("members.listings[{i}].view"),
                    format!("{} is no signature of one address argument", l.view),
                );
            }
        }
        Ok(())
    }
}

/// Checks a view against its arguments: each `"account"` or a 32-byte word, or for an
/// argument of an array type a bracketed list of those (`view_types`); `path` names a field of
/// the view's entry for the error.
fn check_view(path: impl Fn(&str) -> String, view: &str, args: &[String]) -> crate::Result<()> {
    let invalid = |path: String, why: String| Err(crate::Error::invalid(path, why));
    let Some(types) = view_types(view).filter(|t| t.len() == args.len()) else {
        return invalid(
            path("view"),
            format!(
                "{view} is no signature of {} word or word-array arguments",
                args.len()
            ),
        );
    };
    let shapes_agree = types
        .iter()
        .zip(args)
        .all(|(t, a)| t.ends_with("[]") == a.starts_with('['));
    if !shapes_agree || health::view_call_data(view, args, Address::ZERO).is_none() {
        return invalid(
            path("args"),
            "each argument is \"account\" or a 32-byte word in 0x-hex, and one of an array \
             type a bracketed list of those with no spaces"
                .into(),
        );
    }
    Ok(())
}

impl ContentHash for Descriptor {
    const DOMAIN: &'static [u8] = DESCRIPTOR_DOMAIN;
}

/// The argument types of `name(type,type,...)` when each is a static word type (`address`,
/// `bool`, `uintN`, `intN`, `bytesN`); `None` for anything else.
pub fn signature_types(signature: &str) -> Option<Vec<&str>> {
    arguments(signature).filter(|types| types.iter().all(|t| word_type(t)))
}

/// The argument types of a view that the descriptor reads (a position, a record, a check):
/// static word types as [`signature_types`], or dynamic arrays of them (`address[]`).
fn view_types(signature: &str) -> Option<Vec<&str>> {
    arguments(signature).filter(|types| {
        types
            .iter()
            .all(|t| word_type(t.strip_suffix("[]").unwrap_or(t)))
    })
}

/// The argument types of `name(type,type,...)`, unchecked; `None` when it is no signature.
fn arguments(signature: &str) -> Option<Vec<&str>> {
    let (name, rest) = signature.split_once('(')?;
    let args = rest.strip_suffix(')')?;
    if name.is_empty() || !name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
        return None;
    }
    if args.is_empty() {
        return Some(Vec::new());
    }
    Some(args.split(',').collect())
}

/// Whether `t` is a static word type (`address`, `bool`, `uintN`, `intN`, `bytesN`).
fn word_type(t: &str) -> bool {
    let bits = |prefix: &str| {
        t.strip_prefix(prefix).is_some_and(|n| {
            n.is_empty()
                || n.parse::<u16>()
                    .is_ok_and(|b| b % 8 == 0 && (8..=256).contains(&b))
        })
    };
    let bytes = t
        .strip_prefix("bytes")
        .is_some_and(|n| n.parse::<u8>().is_ok_and(|b| (1..=32).contains(&b)));
    t == "address" || t == "bool" || bits("uint") || bits("int") || bytes
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloy_sol_types::SolValue;

    #[test]
    fn signatures_of_static_words_only() {
        assert_eq!(
            signature_types("getPool(address,address,uint24)"),
            Some(vec!["address", "address", "uint24"])
        );
        assert_eq!(signature_types("token0()"), Some(vec![]));
        for bad in [
            "getPool",
            "f(bytes)",
            "f(uint7)",
            "f(address[])",
            "(address)",
            "f(string)",
        ] {
            assert_eq!(signature_types(bad), None, "{bad}");
        }
    }

    #[test]
    fn views_take_word_arrays_written_as_bracketed_lists() {
        assert_eq!(
            view_types("getInternalBalance(address,address[])"),
            Some(vec!["address", "address[]"])
        );
        for bad in ["f(bytes[])", "f(address[][])", "f(address[2])", "f(string)"] {
            assert_eq!(view_types(bad), None, "{bad}");
        }
        let account = Address::repeat_byte(0xac);
        let token = format!("0x{}", "00".repeat(12) + &"11".repeat(20));
        let args = ["account".to_string(), format!("[{token},account]")];
        let data = health::view_call_data("getInternalBalance(address,address[])", &args, account)
            .unwrap();
        // The ABI's own encoding of the same call.
        let expected =
            SolValue::abi_encode_params(&(account, vec![Address::repeat_byte(0x11), account]));
        assert_eq!(&data[4..], expected.as_slice());
        assert_eq!(
            &data[..4],
            &alloy_primitives::keccak256("getInternalBalance(address,address[])")[..4]
        );
        // An empty list, and lists that are no list of words.
        let empty = health::view_call_data("f(address[])", &["[]".into()], account).unwrap();
        assert_eq!(
            &empty[4..],
            (Vec::<Address>::new(),).abi_encode_params().as_slice()
        );
        for bad in ["[account, account]", "[0x01]", "[,]"] {
            assert_eq!(
                health::view_call_data("f(address[])", &[bad.into()], account),
                None
            );
        }
    }

    #[test]
    fn only_a_holding_outside_any_health_model_may_secure_no_debt() {
        let with = |kind: &str, health: bool| {
            let mut d = serde_json::json!({
                "schema": 1, "id": "market",
                "roots": [{"name": "market", "address": "0x0000000000000000000000000000000000000001"}],
                "positions": [
                    {"root": "market", "view": "stake(address)", "args": ["account"], "word": 0,
                     "token": "0x0000000000000000000000000000000000000002", "kind": kind,
                     "secures_debt": false},
                    {"root": "market", "view": "debt(address)", "args": ["account"], "word": 0,
                     "token": "0x0000000000000000000000000000000000000002", "kind": "debt"}
                ]
            });
            if health {
                d["health"] = serde_json::json!([{"collateral": 0, "debt": 1,
                    "price": {"root": "market", "view": "price()", "args": [], "word": 0},
                    "price_scale": "1", "threshold_bps": 8000}]);
            }
            serde_json::from_value::<Descriptor>(d).unwrap().validate()
        };
        with("asset", false).unwrap();
        assert!(with("debt", false).is_err(), "a debt that secures no debt");
        assert!(
            with("asset", true).is_err(),
            "a collateral that secures no debt"
        );
    }

    #[test]
    fn a_view_argument_is_a_list_exactly_where_its_type_is_an_array() {
        let with = |view: &str, arg: &str| {
            serde_json::from_value::<Descriptor>(serde_json::json!({
                "schema": 1, "id": "vault",
                "roots": [{"name": "vault", "address": "0x0000000000000000000000000000000000000001"}],
                "records": [{"view": view, "args": ["account", arg]}]
            }))
            .unwrap()
        };
        with("f(address,address[])", "[account]")
            .validate()
            .unwrap();
        for (view, arg) in [
            ("f(address,address[])", "account"),
            ("f(address,address)", "[account]"),
        ] {
            assert!(with(view, arg).validate().is_err(), "{view} {arg}");
        }
    }

    #[test]
    fn a_descriptor_names_only_roots_it_has() {
        let d: Descriptor = serde_json::from_str(
            r#"{"schema":1,"id":"v2","roots":[{"name":"factory","address":"0x0000000000000000000000000000000000000001"}],
                "members":{"registries":[{"root":"router","lookup":"getPair(address,address)","args":["token0()","token1()"]}]}}"#,
        )
        .unwrap();
        assert!(d.validate().is_err());
        let mut ok = d.clone();
        ok.members.registries[0].root = "factory".into();
        ok.validate().unwrap();
        assert_ne!(ok.hash(), d.hash());
        let mut arity = ok.clone();
        arity.members.registries[0].args.pop();
        assert!(arity.validate().is_err());
    }

    #[test]
    fn a_listing_asks_a_root_it_has_of_one_address() {
        let with = |root: &str, view: &str| {
            let json = format!(
                r#"{{"schema":1,"id":"pools","roots":[{{"name":"factory","address":"0x0000000000000000000000000000000000000001"}}],
                    "members":{{"listings":[{{"root":"{root}","view":"{view}"}}]}}}}"#
            );
            Descriptor::from_json_slice(json.as_bytes())
        };
        let d = with("factory", "isPoolFromFactory(address)").unwrap();
        assert_eq!(d.members.listings[0].view, "isPoolFromFactory(address)");
        assert!(with("vault", "isPoolFromFactory(address)").is_err());
        assert!(with("factory", "isPoolFromFactory(bytes32)").is_err());
        assert!(with("factory", "isPool(address,address)").is_err());
        assert!(with("factory", "isPool()").is_err());
        // Without listings, a descriptor hashes as it did before they existed.
        let mut none = d;
        none.members.listings.clear();
        let json = serde_json::to_string(&none).unwrap();
        assert!(!json.contains("listings"), "{json}");
    }

    #[test]
    fn a_rate_reads_its_own_root_for_some_units_and_never_the_account() {
        let with = |root: &str, args: &str, per: &str| {
            let json = format!(
                r#"{{"schema":1,"id":"wrapper","roots":[{{"name":"wrapper","address":"0x0000000000000000000000000000000000000001"}}],
                    "rates":[{{"read":{{"root":"{root}","view":"rateOf(uint256)","args":[{args}]}},"per":"{per}","asset":"0x0000000000000000000000000000000000000002"}}]}}"#
            );
            Descriptor::from_json_slice(json.as_bytes())
        };
        let one = r#""0x0000000000000000000000000000000000000000000000000de0b6b3a7640000""#;
        let d = with("wrapper", one, "1000000000000000000").unwrap();
        assert_eq!(d.rates[0].asset, Address::with_last_byte(2));
        assert!(with("vault", one, "1000000000000000000").is_err());
        assert!(with("wrapper", r#""account""#, "1000000000000000000").is_err());
        assert!(with("wrapper", one, "0").is_err());
        assert!(with("wrapper", "", "1000000000000000000").is_err());
        // A descriptor without rates hashes as it did before they existed.
        let mut none = d;
        none.rates.clear();
        let json = serde_json::to_string(&none).unwrap();
        assert!(!json.contains("rates"), "{json}");
    }

    #[test]
    fn a_check_reads_a_root_it_has_with_arguments_its_view_takes() {
        let with = |root: &str, view: &str, args: &str| {
            let json = format!(
                r#"{{"schema":1,"id":"fees","roots":[{{"name":"pool","address":"0x0000000000000000000000000000000000000001"}}],
                    "checks":[{{"read":{{"root":"{root}","view":"{view}","args":[{args}]}},"keep":"at_most"}}]}}"#
            );
            Descriptor::from_json_slice(json.as_bytes())
        };
        let d = with("pool", "feeOf(address)", r#""account""#).unwrap();
        assert_eq!(
            d.checks[0].keep.read_kind(),
            crate::ReadKind::DeclaredCeiling
        );
        assert!(with("router", "feeOf(address)", r#""account""#).is_err());
        assert!(with("pool", "feeOf(address)", "").is_err());
        assert!(with("pool", "feeOf(string)", r#""account""#).is_err());
        // A descriptor without checks hashes as it did before they existed.
        let mut none = d;
        none.checks.clear();
        assert!(!serde_json::to_string(&none).unwrap().contains("checks"));
    }
}
