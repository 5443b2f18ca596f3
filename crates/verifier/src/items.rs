//! ERC-721 `approve(spender, id)` and ERC-20 `approve(spender, amount)` share a selector, so
//! the decoder reads both as an ERC-20 approval of `id` units. An approval is one item's when
//! the policy declares the target a collection (`nft_collections`), or else when the
//! simulation shows it as one (the report's `item_approvals`: `getApproved(id)` names the
//! spender and `allowance` is not `id`). An item approval counts as 1 of the collection (0 to
//! clear it), like the `Approval` log an ERC-721 emits; anything still ambiguous keeps its
//! fungible reading, the stricter one for the amount, while the spender is judged either way.

use crate::{decode::DecodedCall, facts::Facts};
use alloy_primitives::{Address, U256};
use pace_types::{Intent, Policy, SimulationReport};

/// Whether an `approve(spender, id)` on `token` approved one item.
pub(crate) fn is_item_approval(
    policy: &Policy,
    report: Option<&SimulationReport>,
    token: Address,
    spender: Address,
    id: U256,
) -> bool {
    policy.nft_collections.contains(&token)
        || report.is_some_and(|r| {
            r.item_approvals
                .iter()
                .any(|a| a.token == token && a.spender == spender && a.id == id)
        })
}

impl Facts {
    /// Re-reads the decoded amounts of the approvals that are one item's; see the module
    /// docs.
    pub(crate) fn classify_item_approvals(
        &mut self,
        intent: &Intent,
        policy: &Policy,
        report: Option<&SimulationReport>,
    ) {
        let account = intent.account;
        let items: Vec<(Address, Address)> = self
            .decoded
            .iter()
            .filter_map(|d| match d {
                Ok(DecodedCall::Approve {
                    token,
                    spender,
                    amount,
                }) if is_item_approval(policy, report, *token, *spender, *amount) => {
                    Some((*token, *spender))
                }
                _ => None,
            })
            .collect();
        if items.is_empty() {
            return;
        }
        for a in self
            .allowances
            .iter_mut()
            .filter(|a| items.contains(&(a.token, a.spender)))
        {
            let mut decoded: Option<U256> = None;
            for d in self.decoded.iter().flatten() {
                let amount = match d {
                    DecodedCall::Approve {
                        token,
                        spender,
                        amount,
                    } if (*token, *spender) == (a.token, a.spender) => {
                        if is_item_approval(policy, report, *token, *spender, *amount) {
                            U256::from(u8::from(*spender != Address::ZERO))
                        } else {
                            *amount
                        }
                    }
                    DecodedCall::Permit {
                        token,
                        owner,
                        spender,
                        value,
                        ..
                    } if (*token, *spender) == (a.token, a.spender) && *owner == account => *value,
                    _ => continue,
                };
                decoded = Some(decoded.map_or(amount, |d| d.max(amount)));
            }
            a.decoded = decoded;
        }
    }
}
