//! Control handed over in storage, derived from the execution's state diff: the fork's changed
//! slots against the state before the calls, over every contract but the account.
//!
//! An address in a slot is any 20 bytes at a byte offset from 0 to 12 of the word, so one
//! packed with other fields counts as much as one stored alone. Three rules:
//!
//! 1. **The account displaced** ([`RightKind::DisplacedAccount`]): a slot held the account's
//!    address at some offset before the calls and holds another non-zero address there after
//!    them. However the new address got there (an argument, a constant in the code, a
//!    computation), what the slot controls passed from the account to it.
//! 2. **An address recorded** ([`RightKind::RecordedAddress`]): an address the calls wrote
//!    into a slot of an existing contract, that a call the decoder does not know names in its
//!    calldata (at any byte offset, so an address packed in a `bytes` argument counts), or an
//!    event names in an indexed argument, or a touched contract has as a constant in its code.
//!    Or the address is the key under which the calls wrote a fresh mapping slot (a slot that
//!    was zero, whose `keccak256` preimage starts with the address: `hasRole[role][holder]`,
//!    a beneficiary or signer set), named in the same ways: a role handed over by recording
//!    the holder as a key rather than a value. A token's own balances and allowances are
//!    keyed the same way; a key that a `Transfer`, `Approval`, `ApprovalForAll`,
//!    `TransferSingle` or `TransferBatch` of that contract names is a movement or an approval,
//!    judged as such, not a role (a transfer event of nothing names no balance). A fresh
//!    slot whose key holds the account and the address as a whole address word counts
//!    however the address got there, named or not (read from the contract's own storage): a
//!    right the contract records for it over the account (`allowance[account][holder]`).
//! 3. **A contract created for someone** ([`RightKind::CreatedContract`]): a contract created
//!    during the execution that has an address among its code's constants (`PUSH20`, or a
//!    `PUSH32` of a left-padded address, as immutables are) or holds in its storage an
//!    address named as in rule 2.
//!
//! Rules 2 and 3 skip what cannot be a stranger: the account, the contracts the execution
//! touched (the touched-contract allowlist judges those), precompiles, and values under 2^96
//! or all ones (amounts, rates and masks, not addresses; no one mines an address with eight
//! leading zero bytes). The verifier decides which of the rest are known parties.

use alloy_primitives::{Address, B256, U256};
use pace_abi::DecodedCall;
use pace_evm::revm::DatabaseRef;
use pace_types::{RightFact, RightKind};
use std::collections::BTreeSet;

use super::{
    RightsInputs,
    diff::{Changed, StateDiff},
};
use crate::{error::Result, fork::ForkDb};

/// Byte offsets at which an address may sit in a 32-byte word.
const OFFSETS: std::ops::RangeInclusive<usize> = 0..=12;

/// The address at byte offset `k` of `word`.
fn window(word: &[u8; 32], k: usize) -> Address {
    Address::from_slice(&word[k..k + 20])
}

/// The rights the state diff shows handed over; see the module docs. Sorted by contract and
/// slot, one per (kind, contract, holder).
pub(crate) fn storage_rights(
    input: &RightsInputs<'_>,
    diff: &StateDiff,
    post: &ForkDb<'_>,
) -> Result<Vec<RightFact>> {
    let account = input.account;
    let (changed, created) = (&diff.changed, &diff.created);
    let mut out: Vec<RightFact> = Vec::new();
    let mut push = |kind, contract, holder, slot: Option<U256>| {
        if !out
            .iter()
            .any(|r| r.kind == kind && r.contract == contract && r.holder == holder)
        {
            out.push(RightFact {
                kind,
                contract,
                holder,
                token: None,
                amount: None,
                slot: slot.map(|s| B256::from(s.to_be_bytes::<32>())),
            });
        }
    };
    // Rule 1.
    for c in changed.iter().filter(|c| !created.contains(&c.contract)) {
        for k in OFFSETS {
            let (was, is) = (window(&c.old, k), window(&c.new, k));
            if was == account && is != account && is != Address::ZERO {
                push(RightKind::DisplacedAccount, c.contract, is, Some(c.slot));
            }
        }
    }
    // Rules 2 and 3: candidates first, mentions only if there are any.
    let stranger = |a: &Address| {
        *a != account
            && !input.touched.contains(a)
            && !input.precompiles.contains(a)
            && looks_like_an_address(a)
    };
    // Per changed slot, the windows that may hold a stranger: changed, address-like, and not
    // overlapping an address the simulator knows (the account, a touched contract, a party the
    // policy names), whose zero padding would otherwise make shifted windows that look like
    // addresses.
    let known =
        |a: &Address| *a == account || input.touched.contains(a) || input.parties.contains(a);
    let mut slots: Vec<(&Changed, Vec<Address>)> = Vec::new();
    for c in changed {
        let taken: Vec<usize> = OFFSETS.filter(|&k| known(&window(&c.new, k))).collect();
        let windows: Vec<Address> = OFFSETS
            .filter(|k| taken.iter().all(|j| k.abs_diff(*j) >= 20))
            .filter_map(|k| {
                let (was, is) = (window(&c.old, k), window(&c.new, k));
                (is != was && was != account && stranger(&is)).then_some(is)
            })
            .collect();
        if !windows.is_empty() {
            slots.push((c, windows));
        }
    }
    // Rule 2, keys: fresh slots keyed by a stranger that is no token movement, wherever the
    // stranger sits in the slot's hashed key (any byte offset of any preimage of the chain).
    // A whole word the calls pass that is no address (a role's hash, a salt, an id) is a
    // value of the key, not a container of addresses: its windows are masked. A number the
    // calls pass (an amount, a negative tick sign-extended) is neither.
    let values: BTreeSet<[u8; 32]> = input
        .calls
        .iter()
        .flat_map(|c| c.data.get(4..).unwrap_or_default().chunks_exact(32))
        .filter(|w| w[..12] != [0u8; 12] && w[..12] != [0xff; 12])
        .map(|w| <[u8; 32]>::try_from(w).expect("a 32-byte chunk"))
        .collect();
    // Rule 4, opaque keys: a fresh slot keyed by a value the calls passed whole that is no
    // address, no constant of the contract's code (a role's hash is one) and does not start
    // with a known address (a pool id that names its pool): a record under an order's digest
    // or a pre-signature, whose meaning nothing here reads.
    let mut opaque: Vec<(Address, U256)> = Vec::new();
    for c in changed
        .iter()
        .filter(|c| c.old == [0u8; 32] && c.new != [0u8; 32])
    {
        let Some(key) = input.preimages.key_of(c.slot) else {
            continue;
        };
        let passed: Vec<&[u8; 32]> = values
            .iter()
            .filter(|v| key.windows(32).any(|w| w == v.as_slice()))
            .filter(|v| !known(&Address::from_slice(&v[..20])))
            .collect();
        if passed.is_empty() {
            continue;
        }
        let constants = word_constants(post, c.contract)?;
        if passed.iter().any(|v| !constants.contains(*v)) {
            opaque.push((c.contract, c.slot));
        }
    }
    for (contract, slot) in opaque {
        push(RightKind::OpaqueKey, contract, Address::ZERO, Some(slot));
    }
    // Per fresh keyed slot: the strangers its key holds, and those of them it holds as a
    // whole address word beside the account (see `beside_the_account`).
    let keyed: Vec<(&Changed, Vec<Address>, Vec<Address>)> = changed
        .iter()
        .filter(|c| c.old == [0u8; 32] && c.new != [0u8; 32])
        .filter_map(|c| {
            let key = input.preimages.key_of(c.slot)?;
            let holders: Vec<Address> = key_addresses(&key, &known, &values)
                .into_iter()
                .filter(|a| stranger(a) && !moved_or_approved(input, c.contract, *a))
                .collect();
            let hashes: Vec<usize> = (0..key.len().saturating_sub(31))
                .filter(|&i| input.preimages.is_hash(&key[i..i + 32]))
                .collect();
            let beside: Vec<Address> = holders
                .iter()
                .copied()
                .filter(|a| beside_the_account(&key, &hashes, account, a))
                .collect();
            (!holders.is_empty()).then_some((c, holders, beside))
        })
        .collect();
    let mut code_holders: Vec<(Address, Address)> = Vec::new();
    for &contract in created {
        if let Some(code) = &post.cache.accounts[&contract].info.code {
            for holder in constants(code.original_byte_slice()) {
                if stranger(&holder) {
                    code_holders.push((contract, holder));
                }
            }
        }
    }
    for &(contract, holder) in &code_holders {
        push(RightKind::CreatedContract, contract, holder, None);
    }
    let split_candidates = changed.iter().any(|c| c.new != [0u8; 32]);
    if slots.is_empty() && keyed.is_empty() && !split_candidates {
        return Ok(out);
    }
    let mentions = Mentions::new(input, post)?;
    // Every party a key names counts (a balance keyed by the recipient and the token names
    // both): whole in the calldata or an event, or else packed in the calldata.
    for (c, keys, beside) in keyed {
        let named: Vec<Address> = keys
            .iter()
            .copied()
            .filter(|k| mentions.exact.contains(k) || beside.contains(k))
            .collect();
        let named = if named.is_empty() {
            keys.iter()
                .copied()
                .filter(|k| mentions.packed(k))
                .take(1)
                .collect()
        } else {
            named
        };
        for key in named {
            push(RightKind::RecordedAddress, c.contract, key, Some(c.slot));
        }
    }
    // Rule 2, fragments: a named stranger written in pieces across the new values of one
    // contract's slots, none of which holds it whole.
    for holder in mentions.exact.iter().filter(|a| stranger(a)) {
        let mut contracts: Vec<Address> = changed.iter().map(|c| c.contract).collect();
        contracts.dedup();
        for contract in contracts {
            let words: Vec<&[u8; 32]> = changed
                .iter()
                .filter(|c| c.contract == contract && c.new != c.old)
                .map(|c| &c.new)
                .collect();
            if words
                .iter()
                .any(|w| w.windows(20).any(|x| x == holder.as_slice()))
            {
                continue;
            }
            if in_fragments(holder.as_slice(), &words)
                && !moved_or_approved(input, contract, *holder)
            {
                push(RightKind::RecordedAddress, contract, *holder, None);
            }
        }
    }
    for (c, windows) in slots {
        // An address named whole (an event argument, a calldata word, a code constant) is the
        // one the slot holds; only without one, an address found anywhere in the calldata
        // (packed in `bytes`). One per slot: the windows of a slot overlap.
        let holder = windows
            .iter()
            .find(|w| mentions.exact.contains(*w))
            .or_else(|| windows.iter().find(|w| mentions.packed(w)));
        let Some(&holder) = holder else { continue };
        let kind = if created.contains(&c.contract) {
            RightKind::CreatedContract
        } else {
            RightKind::RecordedAddress
        };
        push(kind, c.contract, holder, Some(c.slot));
    }
    Ok(out)
}

/// Whether a log of `contract` names `key` in a token event that the flows and approvals judge
/// (a movement, or an approval by the account), so that its balance or allowance slot keyed by
/// `key` is no role. An approval by anyone else (a pool approving a stranger over its reserve)
/// is judged by nothing else: its key stays a recorded address.
fn moved_or_approved(input: &RightsInputs<'_>, contract: Address, key: Address) -> bool {
    use alloy_sol_types::SolEvent;
    use pace_abi::bindings::{IERC20, IERC721, IERC1155};
    let movements = [
        IERC20::Transfer::SIGNATURE_HASH,
        IERC1155::TransferSingle::SIGNATURE_HASH,
        IERC1155::TransferBatch::SIGNATURE_HASH,
    ];
    let approvals = [
        IERC20::Approval::SIGNATURE_HASH,
        IERC721::ApprovalForAll::SIGNATURE_HASH,
    ];
    input.logs.iter().any(|l| {
        let Some(topic) = l.topics().first() else {
            return false;
        };
        let judged = movements.contains(topic)
            || (approvals.contains(topic)
                && l.topics().get(1).map(|t| Address::from_word(*t)) == Some(input.account));
        l.address == contract
            && judged
            && l.topics()[1..]
                .iter()
                .any(|t| Address::from_word(*t) == key)
            && moves_something(l)
    })
}

/// Whether a token event moves something: a transfer event of nothing (a zero-value ERC-20
/// `Transfer`, an ERC-1155 transfer of zero units, which anyone can emit) names no balance.
/// Approvals count whatever their amount (the approvals check judges them).
fn moves_something(l: &alloy_primitives::Log) -> bool {
    use alloy_sol_types::SolEvent;
    use pace_abi::bindings::{IERC20, IERC1155};
    let topic = l.topics()[0];
    let word = |i: usize| {
        l.data
            .data
            .get(i * 32..i * 32 + 32)
            .map(U256::from_be_slice)
    };
    if topic == IERC20::Transfer::SIGNATURE_HASH {
        // ERC-721's id is its fourth topic: an item moves.
        return l.topics().len() == 4 || word(0).is_some_and(|v| !v.is_zero());
    }
    if topic == IERC1155::TransferSingle::SIGNATURE_HASH {
        return word(1).is_some_and(|v| !v.is_zero());
    }
    if topic == IERC1155::TransferBatch::SIGNATURE_HASH {
        return IERC1155::TransferBatch::decode_log_data(&l.data)
            .is_ok_and(|e| e.values.iter().any(|v| !v.is_zero()));
    }
    true
}

/// The addresses a slot's hashed key holds at any byte offset, once every address `known`
/// names (the account, a touched contract, a party of the policy) and every whole value word
/// of `values` (a hash the calls passed) is masked out of it: a window overlapping either is
/// no candidate, so padding, pieces of known addresses and slices of hashes make none.
fn key_addresses(
    key: &[u8],
    known: &impl Fn(&Address) -> bool,
    values: &BTreeSet<[u8; 32]>,
) -> Vec<Address> {
    let mut masked = vec![false; key.len()];
    for i in 0..key.len().saturating_sub(19) {
        if known(&Address::from_slice(&key[i..i + 20])) {
            masked[i..i + 20].iter_mut().for_each(|m| *m = true);
        }
    }
    for i in 0..key.len().saturating_sub(31) {
        if values.contains(&<[u8; 32]>::try_from(&key[i..i + 32]).expect("32 bytes")) {
            masked[i..i + 32].iter_mut().for_each(|m| *m = true);
        }
    }
    let mut out: Vec<Address> = Vec::new();
    for i in 0..key.len().saturating_sub(19) {
        if masked[i..i + 20].iter().any(|m| *m) {
            continue;
        }
        let a = Address::from_slice(&key[i..i + 20]);
        if looks_like_an_address(&a) && !out.contains(&a) {
            out.push(a);
        }
    }
    out
}

/// Whether `key` (a slot's hashed key chain) holds the account's address and `holder` as a
/// whole address word (twelve zero bytes, then the address): a record the contract keeps about
/// the account and `holder` together (`allowance[account][holder]`, `operators[account]
/// [holder]`), whoever named `holder`, the contract's own storage included. Twelve zero bytes
/// before twenty that look like an address are no slice of a hash (2^-96), unless the twenty
/// reach into a hash of the chain (`hashes`: where the key holds one, as a nested mapping's
/// inner slot follows its small outer key: `m[account][1]`).
fn beside_the_account(key: &[u8], hashes: &[usize], account: Address, holder: &Address) -> bool {
    let into_a_hash = |at: usize| hashes.iter().any(|&h| at < h + 32 && h < at + 20);
    key.windows(20).any(|w| w == account.as_slice())
        && key
            .windows(32)
            .enumerate()
            .any(|(o, w)| w[..12] == [0u8; 12] && w[12..] == holder[..] && !into_a_hash(o + 12))
}

/// The shortest piece of an address that counts as a fragment of it.
const MIN_FRAGMENT: usize = 4;

/// A piece of an address this long, written anywhere, names it by itself (whatever holds the
/// rest: a coincidence of 12 bytes is 2^-96).
const NAMING_PIECE: usize = 12;

/// Whether `address` is written, in order, as pieces of at least [`MIN_FRAGMENT`] bytes each
/// found in `words` (split across slots, or within one slot around other fields), or a piece of
/// [`NAMING_PIECE`] bytes of it is. Callers check first that no word holds it whole.
fn in_fragments(address: &[u8], words: &[&[u8; 32]]) -> bool {
    let found = |piece: &[u8]| {
        words
            .iter()
            .any(|w| w.windows(piece.len()).any(|x| x == piece))
    };
    if address.windows(NAMING_PIECE).any(found) {
        return true;
    }
    // reached[p]: the first p bytes are written as pieces.
    let mut reached = vec![false; address.len() + 1];
    reached[0] = true;
    for start in 0..address.len() {
        if !reached[start] {
            continue;
        }
        for end in start + MIN_FRAGMENT..=address.len() {
            if !reached[end] && found(&address[start..end]) {
                reached[end] = true;
            }
        }
    }
    reached[address.len()]
}

/// Whether `a` can be someone's address: neither its first nor its last 8 bytes all zero
/// (a small number, or a number shifted into a packed word's high bytes, such as a Permit2
/// expiration beside its zero-padded neighbours; a real address is either with odds of
/// 2^-64), not zero-padded on both sides by 4 bytes or more (a number packed between other
/// fields: a vanity address has leading zero bytes, not trailing ones too), its first 8 bytes
/// not all ones (a small negative number, sign-extended: a tick), and not all ones.
fn looks_like_an_address(a: &Address) -> bool {
    let padded = a.0[..4] == [0u8; 4] && a.0[16..] == [0u8; 4];
    a.0[..8] != [0u8; 8]
        && a.0[..8] != [0xff; 8]
        && a.0[12..] != [0u8; 8]
        && !padded
        && a.0 != [0xff; 20]
}

/// The 32-byte words `contract`'s code pushes (`PUSH32` operands): its constants, a role's
/// hash among them.
fn word_constants(post: &ForkDb<'_>, contract: Address) -> Result<BTreeSet<[u8; 32]>> {
    let Some(info) = post.basic_ref(contract)? else {
        return Ok(BTreeSet::new());
    };
    let code = match info.code {
        Some(code) => code,
        None => post.code_by_hash_ref(info.code_hash)?,
    };
    let code = code.original_byte_slice();
    let mut out = BTreeSet::new();
    let mut i = 0;
    while i < code.len() {
        let op = code[i];
        if (0x60..=0x7f).contains(&op) {
            let n = usize::from(op - 0x5f);
            if n == 32
                && let Some(operand) = code.get(i + 1..i + 33)
            {
                out.insert(<[u8; 32]>::try_from(operand).expect("32 bytes"));
            }
            i += 1 + n;
        } else {
            i += 1;
        }
    }
    Ok(out)
}

/// The addresses a bytecode pushes as constants: every `PUSH20` operand, and every `PUSH32`
/// operand whose first 12 bytes are zero (an immutable address).
fn constants(code: &[u8]) -> Vec<Address> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < code.len() {
        let op = code[i];
        if (0x60..=0x7f).contains(&op) {
            let n = usize::from(op - 0x5f);
            if let Some(operand) = code.get(i + 1..i + 1 + n) {
                match n {
                    20 => out.push(Address::from_slice(operand)),
                    32 if operand[..12] == [0u8; 12] => {
                        out.push(Address::from_slice(&operand[12..]));
                    }
                    _ => {}
                }
            }
            i += 1 + n;
        } else {
            i += 1;
        }
    }
    out
}

/// Where an address can have been named: whole, in an indexed event argument, a word of the
/// calldata of a call the decoder does not know, or a constant of a touched contract's code;
/// or at any byte offset of that calldata (packed).
struct Mentions<'a> {
    exact: BTreeSet<Address>,
    undecoded: Vec<&'a [u8]>,
}

impl<'a> Mentions<'a> {
    fn new(input: &RightsInputs<'a>, post: &ForkDb<'_>) -> Result<Self> {
        let undecoded: Vec<&[u8]> = input
            .calls
            .iter()
            .zip(input.decoded)
            .filter(|(_, d)| matches!(d, None | Some(DecodedCall::Unknown)))
            .map(|(c, _)| c.data.as_ref())
            .collect();
        let padded =
            |word: &[u8]| (word[..12] == [0u8; 12]).then(|| Address::from_slice(&word[12..]));
        let mut exact: BTreeSet<Address> = input
            .logs
            .iter()
            .flat_map(|l| l.topics().iter().skip(1))
            .filter_map(|t| padded(t.as_slice()))
            .collect();
        for data in &undecoded {
            exact.extend(
                data.get(4..)
                    .unwrap_or_default()
                    .chunks_exact(32)
                    .filter_map(padded),
            );
        }
        for &contract in input.touched {
            let Some(info) = post.basic_ref(contract)? else {
                continue;
            };
            let code = match info.code {
                Some(code) => code,
                None => post.code_by_hash_ref(info.code_hash)?,
            };
            exact.extend(constants(code.original_byte_slice()));
        }
        Ok(Self { exact, undecoded })
    }

    /// Whether `a` is somewhere in the undecoded calldata, at any byte offset.
    fn packed(&self, a: &Address) -> bool {
        self.undecoded
            .iter()
            .any(|data| data.windows(20).any(|w| w == a.as_slice()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn constants_are_push20_and_padded_push32_operands() {
        let a = [0x11u8; 20];
        let mut code = vec![0x73];
        code.extend_from_slice(&a);
        code.push(0x7f);
        code.extend_from_slice(&[0u8; 12]);
        code.extend_from_slice(&[0x22; 20]);
        // PUSH32 of a full word is no address; PUSH1 data that looks like PUSH20 is skipped.
        code.push(0x7f);
        code.extend_from_slice(&[0x33; 32]);
        code.extend_from_slice(&[0x60, 0x73, 0x00]);
        let found = constants(&code);
        assert_eq!(found, vec![Address::from(a), Address::repeat_byte(0x22)]);
        // A truncated push at the end is no constant.
        assert!(constants(&[0x73, 0x01, 0x02]).is_empty());
    }

    #[test]
    fn small_numbers_and_masks_are_no_addresses() {
        assert!(!looks_like_an_address(&Address::with_last_byte(7)));
        let mut amount = [0u8; 20];
        amount[8] = 1; // 2^88: an amount
        assert!(!looks_like_an_address(&Address::from(amount)));
        amount[7] = 1; // 2^96 and more
        amount[19] = 1;
        assert!(looks_like_an_address(&Address::from(amount)));
        // A number in the high bytes, zeros below: a shifted field of a packed word.
        let mut shifted = [0u8; 20];
        shifted[..12].copy_from_slice(&[0x65, 0x54, 0x08, 0x70, 1, 2, 3, 4, 5, 6, 7, 8]);
        assert!(!looks_like_an_address(&Address::from(shifted)));
        shifted[19] = 1;
        assert!(looks_like_an_address(&Address::from(shifted)));
        assert!(!looks_like_an_address(&Address::repeat_byte(0xff)));
        // An amount packed between zero-padded fields; a vanity address with zero bytes in
        // front only is an address.
        let mut amount = [0u8; 20];
        amount[7..15].copy_from_slice(&[0x0d, 0xe0, 0xb6, 0xb3, 0xa7, 0x64, 0, 0]);
        assert!(!looks_like_an_address(&Address::from(amount)));
        let mut vanity = [0u8; 20];
        vanity[7..].copy_from_slice(&[
            0xad, 0xc0, 0x4c, 0x56, 0xbf, 0x30, 0xac, 0x9d, 0x3c, 0x0a, 0xaf, 0x14, 0xdc,
        ]);
        assert!(looks_like_an_address(&Address::from(vanity)));
        // A negative tick, sign-extended, in a packed key.
        let mut tick = [0xffu8; 20];
        tick[19] = 0xc4;
        assert!(!looks_like_an_address(&Address::from(tick)));
        assert!(looks_like_an_address(&Address::repeat_byte(0x5a)));
    }

    #[test]
    fn an_address_split_across_words_is_found_and_a_stray_byte_run_is_not() {
        let a: [u8; 20] = core::array::from_fn(|i| 0x10 + i as u8);
        let mut w1 = [0u8; 32];
        let mut w2 = [0u8; 32];
        // 7 + 7 + 6 bytes over two words, around other fields.
        w1[3..10].copy_from_slice(&a[..7]);
        w1[20..27].copy_from_slice(&a[7..14]);
        w2[0..6].copy_from_slice(&a[14..]);
        assert!(in_fragments(&a, &[&w1, &w2]));
        // 17 + 3: the long piece names it.
        let mut w3 = [0u8; 32];
        w3[15..32].copy_from_slice(&a[..17]);
        assert!(in_fragments(&a, &[&w3]));
        // Only the first half, or pieces out of order: no.
        let mut half = [0u8; 32];
        half[..10].copy_from_slice(&a[..10]);
        assert!(!in_fragments(&a, &[&half]));
        assert!(!in_fragments(&a, &[&w2]));
    }

    #[test]
    fn a_key_holds_addresses_at_any_offset_but_not_across_known_ones() {
        let (known, stranger) = (Address::repeat_byte(0x11), Address::repeat_byte(0x5c));
        // abi.encodePacked(known, stranger, uint32 id): 44 bytes.
        let mut key = Vec::new();
        key.extend_from_slice(known.as_slice());
        key.extend_from_slice(stranger.as_slice());
        key.extend_from_slice(&[0, 0, 0, 7]);
        let none = BTreeSet::new();
        let found = key_addresses(&key, &|a| *a == known, &none);
        assert_eq!(found.first(), Some(&stranger));
        // No window reaches into the known address (its pieces make no candidate); the
        // shifted windows past the stranger are no one anything names.
        assert!(
            found.iter().all(|a| !a.as_slice().contains(&0x11)),
            "{found:?}"
        );
        // Nested: the stranger in the inner hash's preimage.
        assert!(key_addresses(&key[20..], &|_| false, &none).contains(&stranger));
        // A role's hash the calls passed whole is a value: none of its slices is anyone.
        let role = alloy_primitives::keccak256("SWEEPER_ROLE").0;
        let mut keyed = role.to_vec();
        keyed.extend_from_slice(&[0u8; 12]);
        keyed.extend_from_slice(stranger.as_slice());
        let values = BTreeSet::from([role]);
        let found = key_addresses(&keyed, &|_| false, &values);
        assert!(found.contains(&stranger));
        // Every candidate lies past the role's word (the zero padding's shifted windows are
        // left to the mentions, which name only the stranger).
        assert!(
            found
                .iter()
                .all(|a| keyed[32..].windows(20).any(|w| w == a.as_slice())),
            "{found:?}"
        );
        let masked = key_addresses(&keyed[..32], &|_| false, &values);
        assert!(masked.is_empty(), "{masked:?}");
    }

    #[test]
    fn a_holder_beside_the_account_is_a_whole_address_word_of_a_key_that_holds_the_account() {
        let (account, holder) = (Address::repeat_byte(0xac), Address::repeat_byte(0x5c));
        let word = |a: &Address| [[0u8; 12].as_slice(), a.as_slice()].concat();
        // allowance[account][holder]: keccak(holder . keccak(account . slot)), expanded.
        let key = [word(&holder), word(&account), vec![0u8; 32]].concat();
        assert!(beside_the_account(&key, &[], account, &holder));
        // Without the account, or with the holder packed (no zero padding): not by itself.
        let alone = [word(&holder), vec![0u8; 32]].concat();
        assert!(!beside_the_account(&alone, &[], account, &holder));
        let packed = [account.as_slice(), holder.as_slice(), &[0, 0, 0, 7]].concat();
        assert!(!beside_the_account(&packed, &[], account, &holder));
        // A window shifted into the padding is not the word.
        let shifted = Address::from_slice(&key[11..31]);
        assert!(!beside_the_account(&key, &[], account, &shifted));
        // m[account][1]: keccak(1 . h), h = keccak(account . slot), expanded. The twenty bytes
        // after the index's zeros reach into h: no holder.
        let mut one = [0u8; 32];
        one[31] = 1;
        let h = [0x5a; 32];
        let nested = [one.as_slice(), &h, &word(&account), &[0u8; 32]].concat();
        let slice = Address::from_slice(&nested[31..51]);
        assert!(beside_the_account(&nested, &[], account, &slice));
        assert!(!beside_the_account(&nested, &[32], account, &slice));
    }

    #[test]
    fn windows_find_packed_addresses() {
        let a = Address::repeat_byte(0xab);
        let mut word = [0u8; 32];
        word[5..25].copy_from_slice(a.as_slice());
        assert_eq!(window(&word, 5), a);
        assert_ne!(window(&word, 4), a);
    }
}
