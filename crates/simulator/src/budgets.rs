//! The account's on-chain spending budgets, read from the account itself.

use alloy_primitives::{Address, U256};
use pace_abi::bindings::PaceAccount;
use pace_evm::InProcessEvm;
use pace_types::BudgetState;

/// The spending budgets `account` enforces in `world`'s current state
/// (`PaceAccount.budgetTokens`, then `budget(token)` for each), in the account's order.
///
/// An account that answers neither (an EOA, another wallet) has none. A budget whose read
/// fails is left out: the verifier then finds the policy's budget unenforced and rejects, so
/// a failed read can only cost an approval, never grant one.
pub(crate) fn read_budgets(world: &InProcessEvm, account: Address) -> Vec<BudgetState> {
    let Ok(tokens) = world.view_sol(account, &PaceAccount::budgetTokensCall {}) else {
        return Vec::new();
    };
    tokens
        .into_iter()
        .filter_map(|token| {
            let b = world
                .view_sol(account, &PaceAccount::budgetCall { token })
                .ok()?;
            Some(BudgetState {
                token,
                limit: U256::from(b.limit),
                period_secs: b.period,
                window_start: b.windowStart,
                spent: U256::from(b.spent),
            })
        })
        .collect()
}
