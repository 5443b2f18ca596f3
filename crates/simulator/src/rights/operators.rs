//! Standing operators: a contract the execution touches that was already an operator of every
//! item the account holds of a collection (`setApprovalForAll`, granted before the calls).
//! However it behaves in the simulation, at execution it may move any item; the signed bounds
//! hold an ERC-721 collection's count, not its items, and no ERC-1155 id the simulation did
//! not move. The collections looked at are the policy's tokens, the tokens whose balance the
//! simulation read and the touched contracts: any of them that answers
//! `isApprovedForAll(account, operator)` with `true` for a touched contract (ERC-165 is not
//! asked: what a collection says of itself decides nothing).

use alloy_primitives::Address;
use pace_abi::bindings::IERC721;
use pace_evm::{ForkError, revm::DatabaseRef};
use pace_types::{RightFact, RightKind};

use crate::{error::Result, fork::Viewer, health::view};

/// Each (collection, touched operator) pair approved for all before the calls, as
/// [`RightKind::StandingOperator`] facts, in the order of `candidates` then `touched`.
pub(crate) fn standing_operators<B: DatabaseRef<Error = ForkError>>(
    account: Address,
    candidates: &[Address],
    touched: &[Address],
    before: &mut Viewer<'_, '_, B>,
) -> Result<Vec<RightFact>> {
    let mut out = Vec::new();
    let mut seen: Vec<Address> = Vec::new();
    for &collection in candidates {
        if seen.contains(&collection) || collection == account {
            continue;
        }
        seen.push(collection);
        for &operator in touched.iter().filter(|&&o| o != collection && o != account) {
            let ask = IERC721::isApprovedForAllCall {
                owner: account,
                operator,
            };
            if view(before, collection, &ask)?.unwrap_or(false) {
                out.push(RightFact {
                    kind: RightKind::StandingOperator,
                    contract: collection,
                    holder: operator,
                    token: None,
                    amount: None,
                    slot: None,
                });
            }
        }
    }
    Ok(out)
}
