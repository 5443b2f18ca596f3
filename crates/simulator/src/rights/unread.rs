//! Positions and records nothing reads: slots keyed by the account in a contract the calls changed,
//! whose change none of the contract's own balance, allowance, operator or item views explains
//! ([`UnreadPosition`]).
//!
//! A lending market lends by paying the account and recording what the account owes under a key
//! that names the account, whatever its storage layout or views. Value conservation sees the
//! payment, not the debt: a borrow looks like a gift, and a borrow repaid on a stranger's behalf
//! looks like nothing at all. So every contract that paid value out (ERC-20 tokens or ether, to
//! anyone) has its changed slots searched for the account's address in their hashed key (any byte
//! offset of any preimage of the key chain the tracer kept, twelve bytes of it sufficing) or in the
//! slot's own number (a slot numbered by the account in assembly, no hash taken), or for a word the
//! contract keeps under the account (a position's id in `posOf[account]`, the debt booked under
//! `owedById[id]`: the account's by indirection). A slot is explained when one of the contract's
//! views answers its old and new values exactly, before and after the calls: `balanceOf(account)`
//! (a token's balance: a share burned or minted), `allowance(account, k)`, `balanceOf(account, k)`
//! (ERC-1155, ERC-6909) and `isApprovedForAll(account, k)` for each word `k` of the key, or, in an
//! enumerable ERC-721, the list of the account's items `tokenOfOwnerByIndex(account, j)` reads, or
//! a view a pinned protocol descriptor names as reading the records of its roots and members
//! ([`RecordViews`]). A view explains no right that grew for a party the trace does not know with
//! no log the rights checks judge (an allowance raised silently), and a multi-token balance only
//! where the ledger logged a movement of that id for the account (a debt booked under an id, a
//! pass, are records the view merely answers). In a contract that paid nothing out, one slot that
//! fell in proportion to the account's balance there, its fall reaching the recipient the
//! token's log names, is that balance's ledger too (a rebasing token's shares:
//! [`backs_balance`]). A contract that paid nothing out (a vault taking a deposit or issuing
//! shares, a token moving the account's balance, a registry that moved nothing) is searched the
//! same way: a record it keeps under the account (a mask of agents named by index, a commitment
//! to a hash, a keeper packed or XORed, an expiry under an agent's index) that no view explains
//! may authorise anyone, and no address of the trace names who (`silent`). Only a value that
//! names a known party, a flag under a key that names one (the contract's own address names no
//! one), or a time under the account alone are left to the rights rules. A vault the policy
//! trusts to price its shares is no exception: trust in a price is no trust in what else the
//! vault records. The rest are reported; the verifier decides, knowing which contracts an adapter
//! reads.

use alloy_primitives::{Address, B256, U256};
use alloy_sol_types::SolCall;
use pace_abi::bindings::{IERC20, IERC721Enumerable, IERC1155};
use pace_evm::{ForkError, revm::DatabaseRef};
use pace_types::{ApprovalFact, NftFlow, TokenFlow, UnreadPosition};

use super::diff::{Changed, StateDiff};
use crate::{
    error::Result,
    fork::{ForkDb, Viewer},
    tracer::Preimages,
};

/// The non-zero words `contract` holds, after the calls, in the slots `keyed` (hashes keyed
/// by the account): what it keeps under the account, a position's id among them.
fn account_records(post: &ForkDb<'_>, contract: Address, keyed: &[U256]) -> Result<Vec<[u8; 32]>> {
    let mut out = Vec::new();
    for &slot in keyed {
        let value = post.storage_ref(contract, slot)?;
        if !value.is_zero() {
            out.push(value.to_be_bytes::<32>());
        }
    }
    Ok(out)
}

/// A piece of the account's address this long names it wherever it sits (a coincidence of 12
/// bytes is 2^-96): in a slot's hashed key, or in the slot's own number.
const NAMING_PIECE: usize = 12;

/// Whether `bytes` hold a piece of [`NAMING_PIECE`] bytes of `account`'s address: the address
/// whole at any offset, or with the rest of it shifted out or masked (`account ^ c` for a `c`
/// of up to eight bytes).
fn names_account(bytes: &[u8], account: Address) -> bool {
    let a = account.as_slice();
    bytes
        .windows(NAMING_PIECE)
        .any(|w| a.windows(NAMING_PIECE).any(|piece| piece == w))
}

/// How far after the block's timestamp a value still reads as a time: four years of seconds.
const TIME_AHEAD: u64 = 4 * 365 * 24 * 60 * 60;

/// Whether `value` is a time: seconds from the block's timestamp `now` to [`TIME_AHEAD`] after
/// it (a lock's end, a cooldown, the time of a deposit). No address, hash or packed word is so
/// small, and no mask or index so large.
fn is_time(value: &[u8; 32], now: u64) -> bool {
    let v = U256::from_be_bytes(*value);
    v >= U256::from(now) && v <= U256::from(now.saturating_add(TIME_AHEAD))
}

/// How many words of one key are tried as a view's second argument.
const MAX_KEY_WORDS: usize = 8;

/// The unread positions of `account` (see the module docs), sorted by contract and slot. `now`
/// is the block's timestamp: a record that holds a time after it ([`is_time`]) is none.
/// `flows` are the execution's token flows, `known` the touched contracts and the policy's
/// parties, `views` the descriptors' record views.
pub(crate) fn unread_positions<B, A>(
    (account, now): (Address, u64),
    (diff, post): (&StateDiff, &ForkDb<'_>),
    preimages: &Preimages,
    (flows, nft_flows, approvals): (&[TokenFlow], &[NftFlow], &[ApprovalFact]),
    (known, views): (&[Address], &RecordViews),
    before: &mut Viewer<'_, '_, B>,
    after: &mut Viewer<'_, '_, A>,
) -> Result<Vec<UnreadPosition>>
where
    B: DatabaseRef<Error = ForkError>,
    A: DatabaseRef<Error = ForkError>,
{
    // A transfer of nothing (which anyone can make or emit) moves no value.
    let paid = |c: Address| flows.iter().any(|f| f.from == c && !f.amount.is_zero());
    let silent = |c: Address| !paid(c);
    // Shares that left the account moved to whom the token's log says it paid: a slot of the
    // same contract, keyed by that recipient, rose by exactly as much.
    let shares_moved = |contract: Address, moved: U256| {
        flows
            .iter()
            .filter(|f| f.token == contract && f.from == account && f.to != account)
            .filter(|f| !f.amount.is_zero())
            .any(|f| {
                diff.changed.iter().any(|c| {
                    c.contract == contract
                        && U256::from_be_bytes(c.new).checked_sub(U256::from_be_bytes(c.old))
                            == Some(moved)
                        && preimages
                            .key_of(c.slot)
                            .is_some_and(|k| k.windows(20).any(|w| w == f.to.as_slice()))
                })
            })
    };
    let ledger = Ledger {
        account,
        known,
        approvals,
        nft_flows,
        shares_moved: &shares_moved,
    };
    let mut out = Vec::new();
    // Per contract searched, the words it keeps under the account after the calls (a position
    // id in `posOf[account]`): a slot keyed by one of them is the account's by indirection.
    // Read only for a changed keyed slot that does not name the account.
    let mut keyed: Option<Vec<U256>> = None;
    let mut records: Vec<(Address, Vec<[u8; 32]>)> = Vec::new();
    let mut contract_slots: Vec<(&Changed, Vec<u8>)> = Vec::new();
    for c in diff
        .changed
        .iter()
        .filter(|c| !diff.created.contains(&c.contract))
    {
        let number = c.slot.to_be_bytes::<32>();
        let key = match preimages.key_of(c.slot) {
            Some(key) => key,
            // A slot numbered by the account itself, whole or shifted, offset or masked
            // (`sstore(account, v)` in assembly): keyed by it with no hash to trace.
            None if names_account(&number, account) => number.to_vec(),
            None => continue,
        };
        if !names_account(&key, account) {
            let kept = match records.iter().position(|(c0, _)| *c0 == c.contract) {
                Some(i) => &records[i].1,
                None => {
                    let keyed = keyed.get_or_insert_with(|| preimages.keyed_by(account).collect());
                    let words = account_records(post, c.contract, keyed)?;
                    records.push((c.contract, words));
                    &records.last().expect("just pushed").1
                }
            };
            if !key.chunks_exact(32).any(|w| kept.iter().any(|k| k == w)) {
                continue;
            }
        }
        // A record of a silent contract whose value names a known party, or that keeps a flag
        // under a key naming one, is judged by the rights rules; the rest is reported. Nor is
        // a time it keeps under the account alone (a lock's end, a cooldown, a deposit's
        // time): in a contract that paid something out, the same number may be a debt, and is
        // reported.
        // The contract's own address names no counterparty: any contract can key its
        // records by it.
        let names_known = |bytes: &[u8]| {
            bytes.windows(20).any(|w| {
                w != account.as_slice()
                    && w != c.contract.as_slice()
                    && known.iter().any(|k| k.as_slice() == w)
            })
        };
        // A flag set or cleared under the account and a known party (a role, an operator):
        // the rights rules judge the party. Any other value there (a mask, an amount no
        // allowance view answers) may say more than who, and is judged as a record.
        let flag = || {
            U256::from_be_bytes(c.new) <= U256::ONE && plain_keys(c.slot, account, known, preimages)
        };
        // A time under the account alone (`m[account]`, or a member of a struct there); under
        // the account and another word (an agent's index, a keeper packed in the key) it may
        // be a grant's expiry, and is judged as any record.
        let own_time =
            || key.len() == 64 && key[..32] == account.into_word()[..] && is_time(&c.new, now);
        // A record that fell is not a right granted: the account's claim in a ledger that is
        // no ERC-20 or ERC-1155 balance (a vault's internal balance under the account and a
        // token) left, to whoever, unseen by every movement. It is judged, known party or not.
        let fell = pace_types::rights::rose(U256::from_be_bytes(c.new), U256::from_be_bytes(c.old));
        if silent(c.contract)
            && !fell
            && (names_known(&c.new) || (names_known(&key) && flag()) || own_time())
        {
            continue;
        }
        contract_slots.push((c, key));
    }
    let mut i = 0;
    while i < contract_slots.len() {
        let contract = contract_slots[i].0.contract;
        let end = contract_slots[i..]
            .iter()
            .position(|(c, _)| c.contract != contract)
            .map_or(contract_slots.len(), |n| i + n);
        let mut unexplained: Vec<&Changed> = Vec::new();
        let (mut redeemed, mut balance) = (false, false);
        let mut shares: Vec<&Changed> = Vec::new();
        for (c, key) in &contract_slots[i..end] {
            match explains(
                (&ledger, silent(contract)),
                (contract, views.of(contract)),
                c,
                key,
                before,
                after,
            )? {
                Some(Explained::View { fell }) => redeemed |= fell,
                Some(Explained::Balance { fell }) => (redeemed, balance) = (redeemed | fell, true),
                Some(Explained::Shares) => shares.push(c),
                None => unexplained.push(c),
            }
        }
        // A balance has one ledger: shares explain one slot, and none where a slot is the
        // balance itself (a second record scaled with it is no share of it).
        if balance || shares.len() > 1 {
            unexplained.append(&mut shares);
            unexplained.sort_by_key(|c| c.slot);
        }
        redeemed |= !shares.is_empty();
        // A contract that can still pull the account's tokens after the calls (an allowance
        // left standing) acts on what it records there at will: a record that grew beside a
        // redemption is no redemption's bookkeeping there (a debt booked for nothing, a mask of
        // agents), and is judged as one.
        let grew = |c: &Changed| {
            pace_types::rights::rose(U256::from_be_bytes(c.old), U256::from_be_bytes(c.new))
        };
        let pulls = redeemed
            && !silent(contract)
            && unexplained.iter().any(|c| grew(c))
            && standing_allowance((account, contract), (flows, known), after)?;
        for c in unexplained {
            out.push(UnreadPosition {
                contract,
                slot: B256::from(c.slot.to_be_bytes::<32>()),
                before: U256::from_be_bytes(c.old),
                after: U256::from_be_bytes(c.new),
                redeemed: redeemed && !(pulls && grew(c)),
                silent: silent(contract),
            });
        }
        i = end;
    }
    Ok(out)
}

/// Whether `value` is a known party's address as a whole word, and nothing else beside it.
fn is_known_word(value: &[u8; 32], known: &[Address]) -> bool {
    value[..12] == [0u8; 12] && known.iter().any(|k| k.as_slice() == &value[12..])
}

/// Whether every key of the mapping chain of `slot` is the account, a known party as a whole
/// word, or a hash (an id derived from data): `m[account][party]`, not
/// `m[account][party][index]` (whose index may name whom the record lets act). A chain with a
/// packed key (`keccak256(abi.encodePacked(...))`) has no words to tell apart.
fn plain_keys(slot: U256, account: Address, known: &[Address], preimages: &Preimages) -> bool {
    preimages.mapping_keys(slot).is_none_or(|keys| {
        keys.iter()
            .all(|w| *w == account.into_word().0 || is_known_word(w, known) || preimages.is_hash(w))
    })
}

/// Whether `contract` may still spend the account's tokens after the calls: a non-zero
/// `allowance(account, contract)` on a token the execution moved or a known party.
fn standing_allowance<A>(
    (account, contract): (Address, Address),
    (flows, known): (&[TokenFlow], &[Address]),
    after: &mut Viewer<'_, '_, A>,
) -> Result<bool>
where
    A: DatabaseRef<Error = ForkError>,
{
    let mut tokens: Vec<Address> = Vec::new();
    for t in flows
        .iter()
        .map(|f| f.token)
        .chain(known.iter().copied())
        .filter(|t| *t != pace_types::ETH && *t != contract && *t != account)
    {
        if !tokens.contains(&t) {
            tokens.push(t);
        }
    }
    for token in tokens {
        let data = IERC20::allowanceCall {
            owner: account,
            spender: contract,
        }
        .abi_encode();
        if after
            .words(token, data, 1)?
            .is_some_and(|w| !w[0].is_zero())
        {
            return Ok(true);
        }
    }
    Ok(false)
}

/// What the search knows of the execution beyond one slot.
struct Ledger<'a> {
    account: Address,
    /// The touched contracts and the policy's parties.
    known: &'a [Address],
    /// The approvals the execution logged, which the rights checks judge.
    approvals: &'a [ApprovalFact],
    /// The execution's ERC-1155 and ERC-6909 movements.
    nft_flows: &'a [NftFlow],
    /// Whether shares of `contract` that left the account, this many, reached the recipient of
    /// one of its logged payments from the account.
    shares_moved: &'a dyn Fn(Address, U256) -> bool,
}

/// What explains a changed slot.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Explained {
    /// `balanceOf(account)` answers its old and new values (`fell`: it fell).
    Balance { fell: bool },
    /// It is the shares behind the account's balance, which fell with them ([`backs_balance`]).
    Shares,
    /// Another view answers its old and new values (`fell`: a balance of the account's that
    /// fell, under a key such as an ERC-1155 id).
    View { fell: bool },
}

/// What explains `c`'s change, `None` when nothing does. `silent`: the contract paid nothing
/// out.
fn explains<B, A>(
    (ledger, silent): (&Ledger<'_>, bool),
    (contract, records): (Address, &[RecordCall]),
    c: &Changed,
    key: &[u8],
    before: &mut Viewer<'_, '_, B>,
    after: &mut Viewer<'_, '_, A>,
) -> Result<Option<Explained>>
where
    B: DatabaseRef<Error = ForkError>,
    A: DatabaseRef<Error = ForkError>,
{
    let account = ledger.account;
    let (old, new) = (U256::from_be_bytes(c.old), U256::from_be_bytes(c.new));
    if let Some(backing) = backs_balance((ledger, contract, silent), (old, new), before, after)? {
        return Ok(Some(backing));
    }
    // A right that grew for a party the trace does not know, with no log the rights checks
    // judge, is granted, not explained, whatever view answers it (an allowance raised with no
    // `Approval` log).
    let granted = |holder: Address| {
        new > old
            && !ledger.known.contains(&holder)
            && !ledger
                .approvals
                .iter()
                .any(|a| a.token == contract && a.owner == account && a.spender == holder)
    };
    // The state after the calls is asked only when the one before answered.
    let mut answers = |data: Vec<u8>| -> Result<bool> {
        if before.words(contract, data.clone(), 1)? != Some(vec![old]) {
            return Ok(false);
        }
        Ok(after.words(contract, data, 1)? == Some(vec![new]))
    };
    let own = account.into_word();
    for word in key
        .chunks_exact(32)
        .filter(|w| *w != own.as_slice())
        .take(MAX_KEY_WORDS)
    {
        // An address word is asked first as what it most often keys: an allowance.
        if word[..12] == [0u8; 12] {
            let spender = Address::from_slice(&word[12..]);
            if granted(spender) {
                continue;
            }
            if answers(
                IERC20::allowanceCall {
                    owner: account,
                    spender,
                }
                .abi_encode(),
            )? {
                return Ok(Some(Explained::View { fell: false }));
            }
            if answers(
                IERC1155::isApprovedForAllCall {
                    account,
                    operator: spender,
                }
                .abi_encode(),
            )? {
                return Ok(Some(Explained::View { fell: false }));
            }
        }
        // A multi-token balance is one only where the ledger logged a movement of that id to
        // or from the account: with no log it is a record the view merely answers (a debt
        // booked under an id, a pass).
        let id = U256::from_be_slice(word);
        let logged = ledger
            .nft_flows
            .iter()
            .any(|f| f.token == contract && f.id == id && (f.from == account || f.to == account));
        if logged && answers(IERC1155::balanceOfCall { account, id }.abi_encode())? {
            return Ok(Some(Explained::View { fell: new < old }));
        }
    }
    if enumerates(account, contract, new, key, after)? {
        return Ok(Some(Explained::View { fell: false }));
    }
    for (data, word) in records {
        if before.word_at(contract, data.clone(), *word)? == Some(old)
            && after.word_at(contract, data.clone(), *word)? == Some(new)
        {
            return Ok(Some(Explained::View { fell: false }));
        }
    }
    Ok(None)
}

/// Whether a slot of `contract` moving from `old` to `new` keeps the account's balance there,
/// as `balanceOf(account)` answers it before and after the calls: the balance itself, or, in a
/// contract that paid nothing out (`silent`), the shares behind a balance that fell with them
/// ([`scales`]). A balance that moves is measured as one, whatever its ledger; shares that rose
/// are not read so (a scaled debt grows the same way), nor shares that fell where the contract
/// paid value out (a withdrawal of collateral, whose health factor is judged as a position's).
fn backs_balance<B, A>(
    (ledger, contract, silent): (&Ledger<'_>, Address, bool),
    (old, new): (U256, U256),
    before: &mut Viewer<'_, '_, B>,
    after: &mut Viewer<'_, '_, A>,
) -> Result<Option<Explained>>
where
    B: DatabaseRef<Error = ForkError>,
    A: DatabaseRef<Error = ForkError>,
{
    let data = IERC20::balanceOfCall {
        account: ledger.account,
    }
    .abi_encode();
    let Some(was) = before.words(contract, data.clone(), 1)?.map(|w| w[0]) else {
        return Ok(None);
    };
    let shares =
        silent && new < old && !was.is_zero() && (ledger.shares_moved)(contract, old - new);
    // The state after the calls is asked only when the one before can match.
    if was != old && !shares {
        return Ok(None);
    }
    let Some(is) = after.words(contract, data, 1)?.map(|w| w[0]) else {
        return Ok(None);
    };
    Ok(if was == old && is == new {
        Some(Explained::Balance { fell: new < old })
    } else {
        (shares && scales((old, new), (was, is))).then_some(Explained::Shares)
    })
}

/// Whether shares that fell from `old` to `new` are those behind a balance that fell from `was`
/// to `is` at one rate `r`, each balance rounded to within a unit of `shares × r` (stETH's
/// shares, Ampleforth's gons, a scaled aToken balance). With `was = old·r − e₀` and
/// `is = new·r − e₁`, `old·is − new·was = new·e₀ − old·e₁`, less than `old` in size: a rate that
/// moved between the two reads, or a record that is no share of the balance, misses it.
fn scales((old, new): (U256, U256), (was, is): (U256, U256)) -> bool {
    if old.is_zero() || new >= old || is >= was {
        return false;
    }
    match (old.checked_mul(is), new.checked_mul(was)) {
        (Some(a), Some(b)) => a.abs_diff(b) < old,
        _ => false,
    }
}

/// The views protocol descriptors name as reading what their roots and members keep under the
/// account ([`pace_types::descriptor::RecordView`]), as call data for the account and the word
/// of the answer, by contract.
#[derive(Debug, Default)]
pub(crate) struct RecordViews(Vec<(Address, Vec<RecordCall>)>);

/// A record view's call data for the account, and which word of its answer is the record.
type RecordCall = (Vec<u8>, usize);

impl RecordViews {
    /// The record views of each descriptor with any, for its roots and for the touched
    /// contracts `members` admits to it.
    pub(crate) fn new(
        descriptors: &[pace_types::descriptor::Descriptor],
        members: &[pace_types::ProtocolMember],
        account: Address,
    ) -> Self {
        let mut out: Vec<(Address, Vec<RecordCall>)> = Vec::new();
        for d in descriptors.iter().filter(|d| !d.records.is_empty()) {
            let views: Vec<RecordCall> = d
                .records
                .iter()
                .filter_map(|r| Some((r.call_data(account)?, r.word)))
                .collect();
            let contracts = d.roots.iter().map(|r| r.address).chain(
                members
                    .iter()
                    .filter(|m| m.protocol == d.id)
                    .map(|m| m.contract),
            );
            for contract in contracts {
                match out.iter_mut().find(|(c, _)| *c == contract) {
                    Some((_, v)) => v.extend(views.iter().cloned()),
                    None => out.push((contract, views.clone())),
                }
            }
        }
        Self(out)
    }

    /// The views that read `contract`'s records under the account.
    fn of(&self, contract: Address) -> &[RecordCall] {
        self.0
            .iter()
            .find(|(c, _)| *c == contract)
            .map_or(&[], |(_, v)| v.as_slice())
    }
}

/// How many of the account's items [`enumerates`] reads.
const MAX_ITEMS: u64 = 64;

/// Whether `new`, the value of a slot under `key`, is the bookkeeping of the account's items
/// in an enumerable ERC-721 after the calls, as `tokenOfOwnerByIndex(account, j)` answers it:
/// one of the ids it lists, or, under a key that holds such an id, the id's index `j` (or
/// `j + 1`, as OpenZeppelin's sets keep it).
fn enumerates<A>(
    account: Address,
    contract: Address,
    new: U256,
    key: &[u8],
    after: &mut Viewer<'_, '_, A>,
) -> Result<bool>
where
    A: DatabaseRef<Error = ForkError>,
{
    let Some(count) = after.words(contract, IERC20::balanceOfCall { account }.abi_encode(), 1)?
    else {
        return Ok(false);
    };
    let words: Vec<U256> = key.chunks_exact(32).map(U256::from_be_slice).collect();
    for j in 0..count[0].saturating_to::<u64>().min(MAX_ITEMS) {
        let index = U256::from(j);
        let call = IERC721Enumerable::tokenOfOwnerByIndexCall {
            owner: account,
            index,
        };
        let Some(id) = after.words(contract, call.abi_encode(), 1)? else {
            return Ok(false);
        };
        if new == id[0] || (words.contains(&id[0]) && (new == index || new == index + U256::ONE)) {
            return Ok(true);
        }
    }
    Ok(false)
}

#[cfg(test)]
mod tests {
    use super::{TIME_AHEAD, is_time, names_account, scales};
    use alloy_primitives::{Address, U256};

    fn word(v: U256) -> [u8; 32] {
        v.to_be_bytes()
    }

    #[test]
    fn shares_scale_a_balance_at_one_rate() {
        let u = U256::from::<u64>;
        // stETH at 1.1 ether per share, rounded down: 10 shares paying 3 of 11 ether.
        let (old, was) = (u(10_000_000_007), u(11_000_000_007));
        let moved = u(3_000_000_000) * u(10) / u(11);
        let new = old - moved;
        let is = new * u(11) / u(10);
        assert!(scales((old, new), (was, is)));
        // All of it, and one unit of rounding either way.
        assert!(scales((old, U256::ZERO), (was, U256::ZERO)));
        assert!(scales((u(10), u(5)), (u(1), U256::ZERO)));
        // A rate that moved, a record that rose or fell alone, a balance that rose.
        assert!(!scales((old, new), (was, is + u(2))));
        assert!(!scales((old, new), (was, was)));
        assert!(!scales((new, old), (is, was)));
        assert!(!scales((old, new), (is, was)));
        assert!(!scales((U256::ZERO, U256::ZERO), (was, is)));
        assert!(!scales((U256::MAX, u(1)), (U256::MAX, u(2))));
    }

    #[test]
    fn a_time_is_from_the_block_to_four_years_after_it() {
        let now = 1_796_000_000u64;
        for (v, time) in [
            (U256::from(now), true),
            (U256::from(now + 7 * 86_400), true),
            (U256::from(now + TIME_AHEAD), true),
            (U256::from(now - 1), false),
            (U256::from(now + TIME_AHEAD + 1), false),
            (U256::from(8u8), false),
            (U256::from(1u64 << 40), false),
            (Address::repeat_byte(0x5a).into_word().into(), false),
        ] {
            assert_eq!(is_time(&word(v), now), time, "{v}");
        }
    }

    #[test]
    fn twelve_bytes_of_the_account_name_it_in_a_slot_number() {
        let account = Address::repeat_byte(0x3c);
        let whole = U256::from_be_slice(account.as_slice());
        assert!(names_account(&word(whole), account));
        assert!(names_account(
            &word((whole << 40) ^ U256::from(0x5ea1)),
            account
        ));
        assert!(names_account(
            &word(whole ^ U256::from(0xabcdefu32)),
            account
        ));
        // Eleven bytes of it are no name; an unrelated hash none.
        assert!(!names_account(&word(whole >> 72), account));
        assert!(!names_account(&[0x11; 32], account));
    }
}
