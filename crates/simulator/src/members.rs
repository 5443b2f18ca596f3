//! Which touched contracts belong to the protocols the policy trusts by descriptor, what code
//! runs at their pinned roots, and the account's positions their views read
//! ([`pace_types::descriptor`]), and the facts they declare for the account to re-check.
//!
//! Read on the state after the calls (a contract the calls created is judged as it ended up):
//! a contract belongs when its code hashes to one the descriptor lists, when it is the
//! EIP-1967 implementation behind a root or another member, when a root's registry, asked
//! with the contract's own views, names it, or when a root's listing view answers true for it. The simulator reports; the verifier judges.

use alloy_primitives::I256;
use alloy_primitives::{Address, B256, U256, keccak256};
use pace_evm::{ForkError, revm::DatabaseRef};
use pace_types::{
    AdapterGap, FactRead, PositionChange, ProtocolMember, ReadKind, RootCode,
    descriptor::{Descriptor, Listing, PositionKind, Registry, signature_types},
};

use crate::{error::Result, fork::Viewer};

/// The members among `touched` of each of `descriptors`, and the code at their roots.
pub(crate) fn protocol_members<D: DatabaseRef<Error = ForkError>>(
    descriptors: &[Descriptor],
    touched: &[Address],
    db: &D,
    after: &mut Viewer<'_, '_, D>,
) -> Result<(Vec<ProtocolMember>, Vec<RootCode>)> {
    let mut members = Vec::new();
    let mut roots = Vec::new();
    for d in descriptors {
        for r in &d.roots {
            let implementation_code_hash = match implementation(db, r.address)? {
                Some(i) => code_hash(db, i)?,
                None => None,
            };
            roots.push(RootCode {
                protocol: d.id.clone(),
                root: r.name.clone(),
                address: r.address,
                code_hash: code_hash(db, r.address)?,
                implementation_code_hash,
            });
        }
        // Implementations behind roots and members, found as members are.
        let mut behind: Vec<Address> = Vec::new();
        for r in &d.roots {
            behind.extend(implementation(db, r.address)?);
        }
        let admitted = |contract: Address, rule: &str, members: &mut Vec<ProtocolMember>| {
            members.push(ProtocolMember {
                contract,
                protocol: d.id.clone(),
                rule: rule.to_owned(),
            });
        };
        let mut pending: Vec<Address> =
            touched.iter().copied().filter(|a| !d.is_root(*a)).collect();
        // Each pass admits by code hash or registry; implementations of what is admitted
        // join the next pass's set of known implementations.
        let mut changed = true;
        while changed {
            changed = false;
            let mut rest = Vec::new();
            for c in pending {
                let rule = if d.members.implementations && behind.contains(&c) {
                    Some("implementation")
                } else if code_hash(db, c)?.is_some_and(|h| d.members.code_hashes.contains(&h)) {
                    Some("code_hash")
                } else if registered(d, &d.members.registries, c, after)? {
                    Some("registry")
                } else if listed(d, &d.members.listings, c, after)? {
                    Some("listing")
                } else {
                    None
                };
                match rule {
                    Some(rule) => {
                        admitted(c, rule, &mut members);
                        behind.extend(implementation(db, c)?);
                        changed = true;
                    }
                    None => rest.push(c),
                }
            }
            pending = rest;
        }
    }
    Ok((members, roots))
}

/// A reached protocol's descriptor and each of its position views read for the account, in
/// the order it declares them (`None`: a view whose call cannot be built). Each view is a
/// [`FactRead`] of the root it asks: held amounts are [`ReadKind::Holding`]s, owed ones
/// [`ReadKind::Debt`]s.
pub(crate) struct PositionReads<'d> {
    pub(crate) descriptor: &'d Descriptor,
    pub(crate) reads: Vec<Option<FactRead>>,
}

/// The position views of the descriptors among `descriptors` that one of `reached` (the calls'
/// targets and the touched contracts) belongs to as a root, each read once before and after the
/// calls.
pub(crate) fn position_reads<'d, B, A>(
    descriptors: &'d [Descriptor],
    reached: &[Address],
    account: Address,
    before: &mut Viewer<'_, '_, B>,
    after: &mut Viewer<'_, '_, A>,
) -> Result<Vec<PositionReads<'d>>>
where
    B: DatabaseRef<Error = ForkError>,
    A: DatabaseRef<Error = ForkError>,
{
    let mut out = Vec::new();
    for d in descriptors {
        if !reached.iter().any(|a| d.is_root(*a)) {
            continue;
        }
        let mut reads = Vec::with_capacity(d.positions.len());
        for v in &d.positions {
            let (Some(root), Some(data)) = (d.root(&v.root), v.call_data(account)) else {
                reads.push(None);
                continue;
            };
            let kind = match v.kind {
                PositionKind::Asset => ReadKind::Holding,
                PositionKind::Debt => ReadKind::Debt,
            };
            reads.push(Some(word_read(
                (kind, root.address),
                root.address,
                data,
                v.word,
                before,
                after,
            )?));
        }
        out.push(PositionReads {
            descriptor: d,
            reads,
        });
    }
    Ok(out)
}

/// The reads of the checks (`Descriptor::checks`) of each of `descriptors` that the execution
/// reached (one of its roots among `reached`, the calls' targets and the touched contracts, or
/// one of its `members`), each before and after the calls, as a read of its `keep`'s kind about
/// the root it asks. A check whose call cannot be built is left out, and one whose view answers
/// no whole word after the calls is reported without an answer: the verifier refuses the intent
/// either way.
pub(crate) fn declared_reads<B, A>(
    descriptors: &[Descriptor],
    (reached, members): (&[Address], &[ProtocolMember]),
    account: Address,
    before: &mut Viewer<'_, '_, B>,
    after: &mut Viewer<'_, '_, A>,
) -> Result<Vec<FactRead>>
where
    B: DatabaseRef<Error = ForkError>,
    A: DatabaseRef<Error = ForkError>,
{
    let mut out = Vec::new();
    for d in descriptors {
        if !d.is_reached(reached.iter().copied(), members) {
            continue;
        }
        for c in &d.checks {
            let (Some(root), Some(data)) = (d.root(&c.read.root), c.read.call_data(account)) else {
                continue;
            };
            let subject = (c.keep.read_kind(), root.address);
            out.push(word_read(
                subject,
                root.address,
                data,
                c.read.word,
                before,
                after,
            )?);
        }
    }
    Ok(out)
}

/// Word `word` of `target`'s answer to `data`, before and after the calls, as a `kind` read
/// about `subject` (an answer shorter than the word is no answer).
pub(crate) fn word_read<B, A>(
    (kind, subject): (ReadKind, Address),
    target: Address,
    data: Vec<u8>,
    word: usize,
    before: &mut Viewer<'_, '_, B>,
    after: &mut Viewer<'_, '_, A>,
) -> Result<FactRead>
where
    B: DatabaseRef<Error = ForkError>,
    A: DatabaseRef<Error = ForkError>,
{
    Ok(FactRead {
        kind,
        subject,
        target,
        before: before.word_at(target, data.clone(), word)?,
        after: after.word_at(target, data.clone(), word)?,
        data: data.into(),
        word: u16::try_from(word).unwrap_or(u16::MAX),
    })
}

/// The account's positions `reads` hold, as position changes counted in its value, and a gap
/// for each view that does not answer a whole word before and after the calls.
pub(crate) fn protocol_positions(
    reads: &[PositionReads<'_>],
) -> (Vec<PositionChange>, Vec<AdapterGap>) {
    let (mut changes, mut gaps) = (Vec::new(), Vec::new());
    for PositionReads {
        descriptor: d,
        reads,
    } in reads
    {
        for (v, r) in d.positions.iter().zip(reads) {
            let Some(r) = r else {
                continue;
            };
            let (Some(was), Some(is)) = (r.before, r.after) else {
                gaps.push(AdapterGap {
                    via: r.target,
                    what: format!("{} {} of the account ({})", d.id, v.view, v.root),
                });
                continue;
            };
            let gained = I256::try_from(is)
                .unwrap_or(I256::MAX)
                .saturating_sub(I256::try_from(was).unwrap_or(I256::MAX));
            let delta = match v.kind {
                PositionKind::Asset => gained,
                PositionKind::Debt => gained.saturating_neg(),
            };
            if !delta.is_zero() {
                changes.push(PositionChange {
                    market: r.target,
                    token: v.token,
                    delta,
                });
            }
        }
    }
    (changes, gaps)
}

/// `keccak256` of the code at `address` (`None`: no code).
fn code_hash<D: DatabaseRef<Error = ForkError>>(db: &D, address: Address) -> Result<Option<B256>> {
    Ok(db
        .basic_ref(address)?
        .filter(|info| !info.is_empty_code_hash())
        .map(|info| info.code_hash))
}

/// The EIP-1967 implementation behind `address`, if its slot names one.
fn implementation<D: DatabaseRef<Error = ForkError>>(
    db: &D,
    address: Address,
) -> Result<Option<Address>> {
    let word = db.storage_ref(address, pace_types::descriptor::IMPLEMENTATION_SLOT.into())?;
    Ok((!word.is_zero()).then(|| Address::from_word(word.into())))
}

/// Whether one of `registries` names `c` when asked with `c`'s own views.
fn registered<D: DatabaseRef<Error = ForkError>>(
    d: &Descriptor,
    registries: &[Registry],
    c: Address,
    after: &mut Viewer<'_, '_, D>,
) -> Result<bool> {
    for g in registries {
        let Some(root) = d.root(&g.root) else {
            continue;
        };
        let Some(types) = signature_types(&g.lookup) else {
            continue;
        };
        let mut data = selector(&g.lookup).to_vec();
        let mut complete = true;
        for (arg, ty) in g.args.iter().zip(&types) {
            match after.word(c, selector(arg).to_vec())? {
                Some(word) if fits(word, ty) => data.extend_from_slice(&word.to_be_bytes::<32>()),
                _ => {
                    complete = false;
                    break;
                }
            }
        }
        if !complete {
            continue;
        }
        if after.word(root.address, data)? == Some(U256::from_be_slice(c.into_word().as_slice())) {
            return Ok(true);
        }
    }
    Ok(false)
}

/// Whether one of `listings` answers `1` when asked of `c`.
fn listed<D: DatabaseRef<Error = ForkError>>(
    d: &Descriptor,
    listings: &[Listing],
    c: Address,
    after: &mut Viewer<'_, '_, D>,
) -> Result<bool> {
    for l in listings {
        let Some(root) = d.root(&l.root) else {
            continue;
        };
        let mut data = selector(&l.view).to_vec();
        data.extend_from_slice(c.into_word().as_slice());
        if after.word(root.address, data)? == Some(U256::from(1u8)) {
            return Ok(true);
        }
    }
    Ok(false)
}

/// The 4-byte selector of `signature`.
fn selector(signature: &str) -> [u8; 4] {
    let hash = keccak256(signature.as_bytes());
    [hash[0], hash[1], hash[2], hash[3]]
}

/// Whether `word` is a valid encoding of the static type `ty` (no dirty high bits): what the
/// lookup would decode, so a view answering more than its type passes nothing through.
fn fits(word: U256, ty: &str) -> bool {
    let bits = |n: &str| n.parse::<usize>().unwrap_or(256);
    match ty {
        "address" => word < (U256::from(1u8) << 160),
        "bool" => word <= U256::from(1u8),
        t if t.starts_with("uint") => {
            let b = bits(&t[4..]);
            b == 256 || word < (U256::from(1u8) << b)
        }
        // Signed and fixed-size byte words: passed as they are; the lookup decodes them.
        _ => true,
    }
}
