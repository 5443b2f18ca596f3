//! The account's on-chain spending budgets, read from the account itself.

use alloy_primitives::{Address, U256};
use pace_abi::bindings::PaceAccount;
use pace_evm::InProcessEvm;
use pace_types::BudgetState;

use crate::error::Result;

/// The spending budgets `account` enforces in `world`'s current state
/// (`PaceAccount.budgetTokens`, then `budget(token)` for each), in the account's order.
///
/// An account that answers neither (an EOA, another wallet) has none. A budget whose read
/// fails is left out: the verifier then finds the policy's budget unenforced and rejects, so
/// a failed read can only cost an approval, never grant one. A read of forked state the node
/// could not answer is [`crate::Error::Fork`], not a missing budget.
pub(crate) fn read_budgets(world: &InProcessEvm, account: Address) -> Result<Vec<BudgetState>> {
    let Some(tokens) = answer(world.view_sol(account, &PaceAccount::budgetTokensCall {}))? else {
        return Ok(Vec::new());
    };
    let mut budgets = Vec::with_capacity(tokens.len());
    for token in tokens {
        let Some(b) = answer(world.view_sol(account, &PaceAccount::budgetCall { token }))? else {
            continue;
        };
        budgets.push(BudgetState {
            token,
            limit: U256::from(b.limit),
            period_secs: b.period,
            window_start: b.windowStart,
            spent: U256::from(b.spent),
        });
    }
    Ok(budgets)
}

/// A view's value, `None` if it did not give one (reverted, halted, refused, undecodable); the
/// node's failure on a fork is an error.
pub(crate) fn answer<T>(view: pace_evm::Result<T>) -> Result<Option<T>> {
    match view {
        Ok(value) => Ok(Some(value)),
        Err(pace_evm::Error::Fork(e)) => Err(e.into()),
        Err(_) => Ok(None),
    }
}
