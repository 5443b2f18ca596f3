//! The Policy Decision Record (PDR): the EIP-712 typed data the verifier signs and
//! `contracts/PaceAccount.sol` re-checks on-chain.
//!
//! This is the one Rust definition of the struct. `contracts/libraries/PdrHash.sol` hashes the
//! same types; a committed golden vector (`tests/vectors/pdr_golden.json`) and a differential
//! test on revm hold the two to the same digest.
//!
//! ```text
//! Pdr(Attestation attestation,Call[] calls,Bound[] bounds,address[] held,Check[] checks,
//!     uint256 nonce,uint40 validAfter,uint40 validUntil,uint48 simulationBlock,
//!     uint16 maxSimulationAge,uint16 callGasKib)
//! Attestation(bytes32 policyHash,bytes32 intentHash,bytes32 simulationHash)
//! Bound(address token,uint8 kind,uint256 id,uint256 maxOut,uint256 minIn,uint256 maxIn)
//! Call(address target,uint256 value,bytes data)
//! Check(address target,bytes data,uint16 word,uint8 relation,uint256 lo,uint256 hi)
//! ```
//!
//! Domain: `name = "PaceAccount"`, `version = "3"`, the chain id, and the account as
//! `verifyingContract`: a PDR signed for one account or chain is worthless on another. That is
//! the standalone account's direct path ([`domain`]); every entry path has its own domain
//! ([`EntryPath`]: through the ERC-4337 EntryPoint the domain is salted with the user
//! operation's hash, and the EIP-7702 delegate `PaceDelegate` signs under its own name with the
//! EOA as `verifyingContract`), so a PDR signed for one path verifies on no other.
//!
//! On-chain the scalar fields travel packed into one word ([`PdrTerms::pack`]) and the
//! attestation as its `hashStruct`, which keeps the account's calldata (and gas) small.

use alloy_primitives::{
    Address, B256, Bytes, U256, address,
    aliases::{U40, U48},
};
use alloy_sol_types::{Eip712Domain, eip712_domain};

mod account_abi;
mod digest;
mod domain;

pub use domain::{
    EntryPath, delegate_domain, delegate_entry_point_domain, delegate_entry_point_salt,
    entry_point_domain,
};

alloy_sol_types::sol! {
    /// What the decision was about: content hashes of the policy, the intent and the
    /// simulation report (see `pace_types::hash`).
    #[derive(Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
    struct Attestation {
        bytes32 policyHash;
        bytes32 intentHash;
        bytes32 simulationHash;
    }

    /// One call the account makes: target, ETH value and calldata.
    #[derive(Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
    struct Call {
        address target;
        uint256 value;
        bytes data;
    }

    /// A bound on a quantity `q` the account reads before the calls and after them (its
    /// `kind`, [`BoundKind`]: the account's balance of an ERC-20 or of ether, whether it owns
    /// an ERC-721 id, its balance of an ERC-1155 id, or a third party's holdings of an
    /// asset): when `q` rose, by at least `minIn` and at most `maxIn` (`U256::MAX`: no cap);
    /// when it fell, by at most `maxOut`, and only with a zero `minIn`.
    #[derive(Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
    struct Bound {
        address token;
        uint8 kind;
        uint256 id;
        uint256 maxOut;
        uint256 minIn;
        uint256 maxIn;
    }

    /// A post-condition ([`CheckRelation`]): after the calls the account static-calls `target`
    /// with `data` and reads word `word` of the answer, `q`. WITHIN (0): `lo <= q <= hi`; KEPT
    /// (1): with `b` the same read before the calls, `b - lo <= q <= b + hi` (saturating). A
    /// read that reverts, runs out of gas or answers fewer than `word + 1` words reverts the
    /// PDR, and so does any other `relation`, before any call.
    #[derive(Debug, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize, serde::Deserialize)]
    struct Check {
        address target;
        bytes data;
        uint16 word;
        uint8 relation;
        uint256 lo;
        uint256 hi;
    }

    /// The signed record.
    #[derive(Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
    struct Pdr {
        Attestation attestation;
        Call[] calls;
        Bound[] bounds;
        address[] held;
        Check[] checks;
        uint256 nonce;
        uint40 validAfter;
        uint40 validUntil;
        uint48 simulationBlock;
        uint16 maxSimulationAge;
        uint16 callGasKib;
    }
}

/// The EIP-712 domain name of `PaceAccount`.
pub const DOMAIN_NAME: &str = "PaceAccount";
/// The EIP-712 domain version of `PaceAccount`.
pub const DOMAIN_VERSION: &str = "3";

/// What a [`Bound`] measures (its `kind`), as `contracts/libraries/OutcomeBounds.sol` reads it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[repr(u8)]
pub enum BoundKind {
    /// The account's balance of the ERC-20 `token`, or of ether for the zero address; `id` 0.
    Balance = 0,
    /// 1 if the ERC-721 `token`'s `ownerOf(id)` is the account, else 0.
    Erc721 = 1,
    /// The account's balance of id `id` of the ERC-1155 `token`.
    Erc1155 = 2,
    /// The balance of `token` (ether for the zero address) held by the third party whose
    /// address is `id`: the issuer of an asset the account receives still holds its
    /// underlying.
    Holding = 3,
    /// No quantity: when the PDR starts, the bits `id` of the account's grant filter
    /// ([`grant_bit`]) must be clear, so no right the account granted reaches the assets the
    /// PDR leaves unread.
    Ungranted = 4,
    /// No quantity: after the calls the account records `token`'s bit in its grant filter (the
    /// calls granted a right over it through another contract).
    Granted = 5,
}

/// The bit of the account's 16-bit grant filter that a call to `address` sets (its low four
/// bits), as `PdrCalls.grantBits` computes it on-chain.
pub fn grant_bit(address: Address) -> u16 {
    1 << (address.as_slice()[19] & 15)
}

/// The grant-filter bits that a call of `account` to `target` with `data` records, as
/// `PdrCalls.grantBits` computes them: none for an ERC-20 `transfer` of exactly 68 bytes, every
/// bit for a call to the account itself, else `target`'s bit and, for Permit2's
/// `approve(token, spender, amount, expiration)`, the token's.
pub fn grant_bits_of_call(account: Address, target: Address, data: &[u8]) -> u16 {
    const TRANSFER: [u8; 4] = [0xa9, 0x05, 0x9c, 0xbb];
    const PERMIT2_APPROVE: [u8; 4] = [0x87, 0x51, 0x7c, 0x45];
    let selector = data.get(..4);
    if selector == Some(&TRANSFER[..]) && data.len() == 68 {
        return 0;
    }
    if target == account {
        return u16::MAX;
    }
    let mut bits = grant_bit(target);
    if selector == Some(&PERMIT2_APPROVE[..]) && data.len() > 35 {
        bits |= grant_bit(Address::from_slice(&data[16..36]));
    }
    bits
}

impl Bound {
    /// A bound of `kind` on `token` (and `id`) with no limit yet: nothing may leave, nothing
    /// need arrive, any rise is allowed.
    pub fn new(kind: BoundKind, token: Address, id: U256) -> Self {
        Self {
            token,
            kind: kind as u8,
            id,
            maxOut: U256::ZERO,
            minIn: U256::ZERO,
            maxIn: U256::MAX,
        }
    }

    /// A bound on the account's balance of `token` (ether for the zero address).
    pub fn balance(token: Address) -> Self {
        Self::new(BoundKind::Balance, token, U256::ZERO)
    }

    /// A bound on `holder`'s balance of `token`.
    pub fn holding(token: Address, holder: Address) -> Self {
        Self::new(
            BoundKind::Holding,
            token,
            U256::from_be_slice(holder.as_slice()),
        )
    }

    /// The bound that the grant filter's bits `bits` are clear when the PDR starts.
    pub fn ungranted(bits: u16) -> Self {
        Self {
            maxIn: U256::ZERO,
            ..Self::new(BoundKind::Ungranted, Address::ZERO, U256::from(bits))
        }
    }

    /// The bound that records `token` in the grant filter after the calls.
    pub fn granted(token: Address) -> Self {
        Self {
            maxIn: U256::ZERO,
            ..Self::new(BoundKind::Granted, token, U256::ZERO)
        }
    }

    /// What it measures, when its `kind` is one the account knows.
    pub fn kind(&self) -> Option<BoundKind> {
        [
            BoundKind::Balance,
            BoundKind::Erc721,
            BoundKind::Erc1155,
            BoundKind::Holding,
            BoundKind::Ungranted,
            BoundKind::Granted,
        ]
        .into_iter()
        .find(|k| *k as u8 == self.kind)
    }

    /// The asset and id it measures: what two bounds of one PDR must not share.
    pub fn key(&self) -> (u8, Address, U256) {
        (self.kind, self.token, self.id)
    }
}

/// Where the stateless helper `PaceShareValue` (`contracts/helpers/PaceShareValue.sol`) lives
/// on every chain: CREATE2 of its code through the deterministic deployer
/// (`0x4e59b44847b379578588920ca78fbf26c0b4956c`) with salt 0 (`pace_contracts::helpers`
/// checks it). A [`Check`] that reads it bounds what shares of a two-reserve pool are worth,
/// a ratio of two reads, in one read.
pub const SHARE_VALUE_HELPER: Address = address!("0xd35b9f24965edbc2177a7900a6463e81f1d5af2b");

/// What a [`Check`]'s answer must satisfy (its `relation`), as
/// `contracts/libraries/PostConditions.sol` reads it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[repr(u8)]
pub enum CheckRelation {
    /// `lo <= q <= hi`.
    Within = 0,
    /// `b - lo <= q <= b + hi`, `b` the same read before the calls (saturating).
    Kept = 1,
}

impl Check {
    /// A WITHIN check: word `word` of `target`'s answer to `data` lies in `lo..=hi` after the
    /// calls.
    pub fn within(target: Address, data: Bytes, word: u16, lo: U256, hi: U256) -> Self {
        Self {
            target,
            data,
            word,
            relation: CheckRelation::Within as u8,
            lo,
            hi,
        }
    }

    /// A KEPT check: word `word` of `target`'s answer to `data` falls by at most `down` and
    /// rises by at most `up` across the calls.
    pub fn kept(target: Address, data: Bytes, word: u16, down: U256, up: U256) -> Self {
        Self {
            target,
            data,
            word,
            relation: CheckRelation::Kept as u8,
            lo: down,
            hi: up,
        }
    }

    /// Its relation, when it is one the account knows.
    pub fn relation(&self) -> Option<CheckRelation> {
        [CheckRelation::Within, CheckRelation::Kept]
            .into_iter()
            .find(|r| *r as u8 == self.relation)
    }

    /// The read it makes: what two checks of one PDR may share only once.
    pub fn key(&self) -> (Address, &Bytes, u16, u8) {
        (self.target, &self.data, self.word, self.relation)
    }

    /// Whether `answer` (and `before`, the read before the calls, for a KEPT check) satisfies
    /// it, as the account decides; `None` for an unknown relation.
    pub fn holds(&self, before: U256, answer: U256) -> Option<bool> {
        Some(match self.relation()? {
            CheckRelation::Within => self.lo <= answer && answer <= self.hi,
            CheckRelation::Kept => {
                before.saturating_sub(self.lo) <= answer && answer <= before.saturating_add(self.hi)
            }
        })
    }
}

/// The EIP-712 domain of the standalone account `account` on chain `chain_id`, called directly
/// (`executePDR`): [`EntryPath::Direct`].
pub fn domain(chain_id: u64, account: Address) -> Eip712Domain {
    eip712_domain! {
        name: DOMAIN_NAME,
        version: DOMAIN_VERSION,
        chain_id: chain_id,
        verifying_contract: account,
    }
}

/// The scalar fields of a PDR, unpacked.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PdrTerms {
    /// Nonce lane; lanes run independently, each in strict sequence.
    pub key: u32,
    /// The lane's sequence number this PDR consumes.
    pub sequence: u64,
    /// First valid timestamp (inclusive). Only the low 40 bits are representable.
    pub valid_after: u64,
    /// Last valid timestamp (inclusive). Only the low 40 bits are representable.
    pub valid_until: u64,
    /// Block number of the simulated state. Only the low 48 bits are representable.
    pub simulation_block: u64,
    /// Blocks past `simulation_block` during which the PDR stays executable.
    pub max_simulation_age: u16,
    /// The gas the calls must be able to use, in units of 1,024 (0: no floor); see
    /// [`PdrTerms::call_gas_kib_for`]. The account refuses to start the calls with less, so a
    /// submitter cannot starve a sub-call the target would catch onto an unsimulated path.
    #[serde(default)]
    pub call_gas_kib: u16,
}

/// The largest timestamp a `uint40` holds.
pub const MAX_TIMESTAMP: u64 = (1 << 40) - 1;
/// The largest block number a `uint48` holds.
pub const MAX_BLOCK: u64 = (1 << 48) - 1;

impl PdrTerms {
    /// The EIP-712 `nonce`: `key << 64 | sequence`.
    pub fn nonce(&self) -> U256 {
        (U256::from(self.key) << 64) | U256::from(self.sequence)
    }

    /// The `call_gas_kib` that covers `gas`: rounded up to whole KiB, at most `u16::MAX`
    /// (67 million gas, above any block's limit).
    pub fn call_gas_kib_for(gas: u64) -> u16 {
        u16::try_from(gas.div_ceil(1024)).unwrap_or(u16::MAX)
    }

    /// The floor a signer sets for calls whose simulation used `simulated_gas` (after
    /// refunds): 1.5x, in KiB. Gas used is not the gas limit that reproduces the run: refunds
    /// (up to a fifth) come back only at the end, and each nested call keeps back 1/64 of what
    /// it could forward; the margin covers both to a nesting depth of about fifteen.
    pub fn call_gas_floor(simulated_gas: u64) -> u16 {
        Self::call_gas_kib_for(simulated_gas.saturating_mul(3) / 2)
    }

    /// Packs the fields into the one word `PaceAccount` takes (layout in `PdrTerms.sol`):
    /// key (32 bits) | sequence (64) | validAfter (40) | validUntil (40) |
    /// simulationBlock (48) | callGasKib (16) | maxSimulationAge (16), most significant first.
    ///
    /// Timestamps above [`MAX_TIMESTAMP`] and blocks above [`MAX_BLOCK`] are clamped, as the
    /// typed data does.
    pub fn pack(&self) -> U256 {
        (U256::from(self.key) << 224)
            | (U256::from(self.sequence) << 160)
            | (U256::from(self.valid_after.min(MAX_TIMESTAMP)) << 120)
            | (U256::from(self.valid_until.min(MAX_TIMESTAMP)) << 80)
            | (U256::from(self.simulation_block.min(MAX_BLOCK)) << 32)
            | (U256::from(self.call_gas_kib) << 16)
            | U256::from(self.max_simulation_age)
    }

    /// Unpacks a word produced by [`PdrTerms::pack`].
    pub fn unpack(word: U256) -> Self {
        let field = |shift: usize, bits: usize| -> u64 {
            let mask = (U256::from(1u8) << bits) - U256::from(1u8);
            ((word >> shift) & mask).to::<u64>()
        };
        Self {
            key: field(224, 32) as u32,
            sequence: field(160, 64),
            valid_after: field(120, 40),
            valid_until: field(80, 40),
            simulation_block: field(32, 48),
            max_simulation_age: field(0, 16) as u16,
            call_gas_kib: field(16, 16) as u16,
        }
    }
}

impl Pdr {
    /// Assembles a PDR from its parts.
    pub fn new(
        attestation: Attestation,
        calls: Vec<Call>,
        bounds: Vec<Bound>,
        held: Vec<Address>,
        checks: Vec<Check>,
        terms: &PdrTerms,
    ) -> Self {
        Self {
            attestation,
            calls,
            bounds,
            held,
            checks,
            nonce: terms.nonce(),
            validAfter: U40::from(terms.valid_after.min(MAX_TIMESTAMP)),
            validUntil: U40::from(terms.valid_until.min(MAX_TIMESTAMP)),
            simulationBlock: U48::from(terms.simulation_block.min(MAX_BLOCK)),
            maxSimulationAge: terms.max_simulation_age,
            callGasKib: terms.call_gas_kib,
        }
    }

    /// The scalar fields, unpacked. Lane keys above `u32::MAX` do not exist on-chain; the
    /// key is taken from bits 64..96 of the nonce.
    pub fn terms(&self) -> PdrTerms {
        PdrTerms {
            key: ((self.nonce >> 64usize) & U256::from(u32::MAX)).to::<u32>(),
            sequence: (self.nonce & U256::from(u64::MAX)).to::<u64>(),
            valid_after: self.validAfter.to::<u64>(),
            valid_until: self.validUntil.to::<u64>(),
            simulation_block: self.simulationBlock.to::<u64>(),
            max_simulation_age: self.maxSimulationAge,
            call_gas_kib: self.callGasKib,
        }
    }

    /// `hashStruct(attestation)`: the first word `executePDR` takes.
    pub fn attestation_hash(&self) -> B256 {
        digest::attestation_hash(&self.attestation)
    }

    /// The EIP-712 digest signed for `account` on `chain_id`: `eip712_signing_hash` under
    /// [`domain`], with the type hashes computed once.
    pub fn digest(&self, chain_id: u64, account: Address) -> B256 {
        digest::digest(self, chain_id, account)
    }

    /// The EIP-712 digest signed for entry path `path` on `chain_id` (the same constants cached
    /// as [`Pdr::digest`]; for [`EntryPath::Direct`] it is [`Pdr::digest`]).
    pub fn digest_on(&self, chain_id: u64, path: &EntryPath) -> B256 {
        digest::digest_on(self, chain_id, path)
    }

    /// The EIP-712 digest under any `domain` (`keccak256(0x1901 || separator || hashStruct)`),
    /// for example one of [`entry_point_domain`], [`delegate_domain`] or
    /// [`delegate_entry_point_domain`].
    pub fn digest_in(&self, domain: &Eip712Domain) -> B256 {
        digest::digest_with_separator(self, domain.separator())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloy_primitives::{address, b256, keccak256};
    use alloy_sol_types::SolStruct;

    #[test]
    fn type_strings_match_the_solidity_library() {
        assert_eq!(
            Pdr::eip712_encode_type(),
            "Pdr(Attestation attestation,Call[] calls,Bound[] bounds,address[] held,Check[] checks,\
             uint256 nonce,uint40 validAfter,uint40 validUntil,uint48 simulationBlock,\
             uint16 maxSimulationAge,uint16 callGasKib)\
             Attestation(bytes32 policyHash,bytes32 intentHash,bytes32 simulationHash)\
             Bound(address token,uint8 kind,uint256 id,uint256 maxOut,uint256 minIn,uint256 maxIn)\
             Call(address target,uint256 value,bytes data)\
             Check(address target,bytes data,uint16 word,uint8 relation,uint256 lo,uint256 hi)"
        );
        assert_eq!(
            Call::eip712_type_hash(&Call {
                target: Address::ZERO,
                value: U256::ZERO,
                data: Default::default()
            }),
            keccak256("Call(address target,uint256 value,bytes data)")
        );
    }

    #[test]
    fn terms_pack_round_trips_and_puts_the_nonce_on_top() {
        let terms = PdrTerms {
            key: 7,
            sequence: 42,
            valid_after: 1_700_000_000,
            valid_until: 1_700_003_600,
            simulation_block: 19_000_000,
            max_simulation_age: 3,
            call_gas_kib: 150,
        };
        let word = terms.pack();
        assert_eq!(PdrTerms::unpack(word), terms);
        assert_eq!(word >> 160, terms.nonce());
        let pdr = Pdr::new(
            Attestation {
                policyHash: B256::ZERO,
                intentHash: B256::ZERO,
                simulationHash: B256::ZERO,
            },
            vec![],
            vec![],
            vec![],
            vec![],
            &terms,
        );
        assert_eq!(pdr.terms(), terms);
    }

    #[test]
    fn digest_depends_on_chain_and_account() {
        let pdr = Pdr::new(
            Attestation {
                policyHash: b256!(
                    "0x1111111111111111111111111111111111111111111111111111111111111111"
                ),
                intentHash: B256::ZERO,
                simulationHash: B256::ZERO,
            },
            vec![Call {
                target: address!("0x00000000000000000000000000000000000000aa"),
                value: U256::ZERO,
                data: vec![1, 2].into(),
            }],
            vec![],
            vec![],
            vec![],
            &PdrTerms::default(),
        );
        let a = address!("0x0000000000000000000000000000000000001234");
        let b = address!("0x0000000000000000000000000000000000005678");
        assert_ne!(pdr.digest(1, a), pdr.digest(2, a));
        assert_ne!(pdr.digest(1, a), pdr.digest(1, b));
    }
}
