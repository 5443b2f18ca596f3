//! ERC-721 `approve(spender, id)` against ERC-20 `approve(spender, amount)`: one selector. The
//! state after the calls tells them apart: an item approval leaves `getApproved(id)` naming
//! the spender, a fungible one leaves `allowance(account, spender)` at the amount. Only an
//! approval the state shows as an item's and not as a fungible one is reported; anything
//! ambiguous stays a fungible approval of `id` units, which the verifier judges too. ERC-165
//! is not asked: a crafted token answers it either way.

use alloy_primitives::{Address, U256};
use pace_abi::{
    DecodedCall,
    bindings::{IERC20, IERC721},
};
use pace_evm::{ForkError, revm::DatabaseRef};
use pace_types::ItemApproval;

use super::RightsInputs;
use crate::{error::Result, fork::Viewer, health::view};

/// The decoded `approve` calls that approved one item, as the state after them shows.
pub(crate) fn item_approvals<A: DatabaseRef<Error = ForkError>>(
    input: &RightsInputs<'_>,
    after: &mut Viewer<'_, '_, A>,
) -> Result<Vec<ItemApproval>> {
    let mut out = Vec::new();
    for d in input.decoded.iter().flatten() {
        let DecodedCall::Approve {
            token,
            spender,
            amount: id,
        } = *d
        else {
            continue;
        };
        if spender == Address::ZERO
            || out
                .iter()
                .any(|a: &ItemApproval| a.token == token && a.id == id)
        {
            continue;
        }
        let approved = view(after, token, &IERC721::getApprovedCall { tokenId: id })?;
        if approved != Some(spender) {
            continue;
        }
        let allowance = view(
            after,
            token,
            &IERC20::allowanceCall {
                owner: input.account,
                spender,
            },
        )?;
        if allowance == Some(id) {
            continue;
        }
        out.push(ItemApproval {
            token,
            spender,
            id: U256::from(id),
        });
    }
    Ok(out)
}
