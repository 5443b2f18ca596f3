//! Rights over the account's value that the execution grants outside ERC-20 allowances, for
//! the verifier to judge like approvals, whatever contract records them:
//!
//! - allowances of a size ([`allowances`]): Permit2 (`Approval`, `Permit`, `Lockdown` events
//!   and decoded `approve` / `permit` / `lockdown` calls, read back with
//!   `allowance(owner, token, spender)`) and credit delegation (`BorrowAllowanceDelegated`
//!   and decoded `approveDelegation` / `delegationWithSig`, read back with
//!   `borrowAllowance(from, to)`);
//! - control handed over in storage ([`storage`]): a slot that held the account's address and
//!   holds another after, an address a call or event names that a contract recorded, a
//!   contract created in the execution that names someone;
//! - and which `approve(address,uint256)` calls approved one item of a collection
//!   ([`items`]);
//! - positions keyed by the account that nothing reads, in contracts that paid value out
//!   ([`unread`]);
//! - and the rights the execution read by their views, before and after ([`reads`]).

mod diff;
mod items;
mod operators;
mod reads;
mod storage;
mod unread;

pub(crate) use diff::state_diff;
pub(crate) use items::item_approvals;
pub(crate) use operators::standing_operators;
pub(crate) use reads::{control_reads, right_reads};
pub(crate) use storage::storage_rights;
pub(crate) use unread::{RecordViews, unread_positions};

use alloy_primitives::{Address, Log, U256};
use alloy_sol_types::SolEvent;
use pace_abi::{
    DecodedCall,
    decode::rights::{RightKind as Decoded, decode_rights},
    rights::{ICreditDelegation, IPermit2},
};
use pace_evm::{ForkError, revm::DatabaseRef};
use pace_types::{Call, RightFact, RightKind};

use crate::{error::Result, fork::Viewer, health::view};

/// What the rights derivations look at: the intent's calls and what the execution left.
pub(crate) struct RightsInputs<'a> {
    /// The account.
    pub(crate) account: Address,
    /// The intent's calls.
    pub(crate) calls: &'a [Call],
    /// Each call decoded (`None`: its arguments do not decode).
    pub(crate) decoded: &'a [Option<DecodedCall>],
    /// The logs of the intent's calls, in order.
    pub(crate) logs: &'a [Log],
    /// The contracts the execution touched (created ones included).
    pub(crate) touched: &'a [Address],
    /// The precompiles it called.
    pub(crate) precompiles: &'a [Address],
    /// The parties the policy names that the simulator was told of (its payees and tokens):
    /// known addresses, whose bytes make no stranger when shifted.
    pub(crate) parties: &'a [Address],
    /// The preimages of the hashes the calls took (the tracer's): what mapping slots are keyed
    /// by.
    pub(crate) preimages: &'a crate::tracer::Preimages,
}

/// One allowance-like right being gathered.
struct Grant {
    kind: RightKind,
    contract: Address,
    token: Option<Address>,
    holder: Address,
    /// The largest amount an event logged.
    logged: Option<U256>,
    /// The largest amount a decoded call set.
    decoded: Option<U256>,
}

/// `log`'s indexed address `i` (1-based), if the log has that many topics.
fn topic_address(log: &Log, i: usize) -> Option<Address> {
    log.topics().get(i).map(|t| Address::from_word(*t))
}

/// Permit2 allowances and credit delegations of the account that the calls set, with their
/// size: the largest of every amount logged and what the recording contract reports after the
/// calls. A decoded grant that nothing logged and the contract cannot report is unknown, so
/// `U256::MAX`. Revocations (0 everywhere) are left out.
pub(crate) fn allowances<B, A>(
    input: &RightsInputs<'_>,
    before: &mut Viewer<'_, '_, B>,
    after: &mut Viewer<'_, '_, A>,
) -> Result<Vec<RightFact>>
where
    B: DatabaseRef<Error = ForkError>,
    A: DatabaseRef<Error = ForkError>,
{
    let account = input.account;
    let mut grants: Vec<Grant> = Vec::new();
    let mut add = |kind, contract, token, holder, logged: Option<U256>, decoded: Option<U256>| {
        let found = grants.iter_mut().find(|g| {
            g.kind == kind
                && g.contract == contract
                && g.holder == holder
                && (kind == RightKind::CreditDelegation || g.token == token)
        });
        let g = match found {
            Some(g) => g,
            None => {
                grants.push(Grant {
                    kind,
                    contract,
                    token,
                    holder,
                    logged: None,
                    decoded: None,
                });
                grants.last_mut().expect("just pushed")
            }
        };
        if g.token.is_none() {
            g.token = token;
        }
        g.logged = max(g.logged, logged);
        g.decoded = max(g.decoded, decoded);
    };
    for log in input.logs {
        let Some(&topic) = log.topics().first() else {
            continue;
        };
        let data = &log.data.data;
        let word = |i: usize| data.get(32 * i..32 * (i + 1)).map(U256::from_be_slice);
        let four = log.topics().len() == 4;
        if topic == IPermit2::Approval::SIGNATURE_HASH && four && data.len() == 64
            || topic == IPermit2::Permit::SIGNATURE_HASH && four && data.len() == 96
        {
            if topic_address(log, 1) == Some(account) {
                let (token, spender) = (topic_address(log, 2), topic_address(log, 3));
                if let (Some(token), Some(spender)) = (token, spender) {
                    add(
                        RightKind::Permit2Allowance,
                        log.address,
                        Some(token),
                        spender,
                        word(0),
                        None,
                    );
                }
            }
        } else if topic == IPermit2::Lockdown::SIGNATURE_HASH
            && log.topics().len() == 2
            && data.len() == 64
        {
            if topic_address(log, 1) == Some(account)
                && let (Some(t), Some(s)) = (word(0), word(1))
            {
                let (t, s) = (word_address(t), word_address(s));
                add(
                    RightKind::Permit2Allowance,
                    log.address,
                    Some(t),
                    s,
                    Some(U256::ZERO),
                    None,
                );
            }
        } else if topic == ICreditDelegation::BorrowAllowanceDelegated::SIGNATURE_HASH
            && four
            && data.len() == 32
            && topic_address(log, 1) == Some(account)
            && let Some(delegatee) = topic_address(log, 2)
        {
            add(
                RightKind::CreditDelegation,
                log.address,
                topic_address(log, 3),
                delegatee,
                word(0),
                None,
            );
        }
    }
    for call in input.calls {
        // A call whose rights do not decode strictly is refused by the verifier as
        // malformed; nothing to gather from it here.
        for g in decode_rights(call.target, &call.data).unwrap_or_default() {
            if g.owner_for(account) != account {
                continue;
            }
            let kind = match g.kind {
                Decoded::Permit2 => RightKind::Permit2Allowance,
                Decoded::CreditDelegation => RightKind::CreditDelegation,
            };
            add(kind, g.recorder, g.token, g.holder, None, Some(g.amount));
        }
    }
    let mut out = Vec::new();
    for g in grants {
        let (was, is) = match g.kind {
            RightKind::Permit2Allowance => {
                let Some(token) = g.token else { continue };
                let call = IPermit2::allowanceCall {
                    user: account,
                    token,
                    spender: g.holder,
                };
                (
                    view(before, g.contract, &call)?.map(|a| U256::from(a.amount)),
                    view(after, g.contract, &call)?.map(|a| U256::from(a.amount)),
                )
            }
            _ => {
                let call = ICreditDelegation::borrowAllowanceCall {
                    fromUser: account,
                    toUser: g.holder,
                };
                (
                    view(before, g.contract, &call)?,
                    view(after, g.contract, &call)?,
                )
            }
        };
        let amount = match (g.logged, is) {
            (Some(logged), Some(is)) => logged.max(is),
            (Some(logged), None) => logged.max(g.decoded.unwrap_or_default()),
            // Nothing logged: what the contract reports, if the calls raised it or set it.
            (None, Some(is)) => {
                if is > was.unwrap_or_default() || g.decoded.is_some() {
                    is.max(g.decoded.unwrap_or_default())
                } else {
                    U256::ZERO
                }
            }
            // Neither logged nor readable: unknown.
            (None, None) => {
                if g.decoded.is_some_and(|d| !d.is_zero()) {
                    U256::MAX
                } else {
                    U256::ZERO
                }
            }
        };
        if amount.is_zero() {
            continue;
        }
        let token = match (g.kind, g.token) {
            (RightKind::CreditDelegation, None) => view(
                before,
                g.contract,
                &ICreditDelegation::UNDERLYING_ASSET_ADDRESSCall {},
            )?,
            (_, token) => token,
        };
        out.push(RightFact {
            kind: g.kind,
            contract: g.contract,
            holder: g.holder,
            token,
            amount: Some(amount),
            slot: None,
        });
    }
    Ok(out)
}

/// The low 20 bytes of a word.
fn word_address(word: U256) -> Address {
    Address::from_word(word.to_be_bytes::<32>().into())
}

fn max(a: Option<U256>, b: Option<U256>) -> Option<U256> {
    match (a, b) {
        (Some(a), Some(b)) => Some(a.max(b)),
        (a, b) => a.or(b),
    }
}
