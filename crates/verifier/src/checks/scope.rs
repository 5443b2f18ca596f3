//! Check 0: the intent is for the chain and the account the policy governs.

use super::{Ctx, Out, push};
use pace_types::ViolationCode as Code;

/// `CHAIN_MISMATCH` / `ACCOUNT_MISMATCH`: the intent's `chain_id` and `account` against the
/// policy's, when the policy names them. The PDR is signed for the intent's chain and account
/// (its EIP-712 domain), so this is what keeps a policy from approving for anyone else.
pub(crate) fn scope(ctx: &Ctx<'_>, out: &mut Out) {
    let (intent, policy) = (ctx.intent, ctx.policy);
    if let Some(chain_id) = policy.chain_id
        && intent.chain_id != chain_id
    {
        push(
            out,
            Code::ChainMismatch,
            format!(
                "the intent is for chain {}, the policy governs chain {chain_id}",
                intent.chain_id
            ),
        );
    }
    if let Some(account) = policy.account
        && intent.account != account
    {
        push(
            out,
            Code::AccountMismatch,
            format!(
                "the intent is for account {}, the policy governs account {account}",
                intent.account
            ),
        );
    }
}
