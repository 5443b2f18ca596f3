//! Balance changes, approvals and their cross-checks against the logs.

use alloy_primitives::{Address, I256, U256};
use alloy_sol_types::SolCall;
use pace_abi::bindings::IERC20;
use pace_evm::{ForkError, revm::DatabaseRef};
use pace_types::{ApprovalFact, BalanceChange, ETH, TokenAmount, TokenFlow};

use crate::{
    discrepancy::Discrepancy,
    error::Result,
    fork::{Viewer, eth_balance},
    logs::Erc20Log,
};

/// `after - before` as a signed amount, saturating at the `I256` bounds.
pub(crate) fn signed_delta(before: U256, after: U256) -> I256 {
    if after >= before {
        I256::try_from(after - before).unwrap_or(I256::MAX)
    } else {
        I256::try_from(before - after).map_or(I256::MIN, |d| -d)
    }
}

/// The account's `(inflow, outflow)` of `token` in `flows`.
fn gross_flows(flows: &[TokenFlow], account: Address, token: Address) -> (U256, U256) {
    let (mut inflow, mut outflow) = (U256::ZERO, U256::ZERO);
    for f in flows.iter().filter(|f| f.token == token && f.from != f.to) {
        if f.to == account {
            inflow = inflow.saturating_add(f.amount);
        }
        if f.from == account {
            outflow = outflow.saturating_add(f.amount);
        }
    }
    (inflow, outflow)
}

/// `balanceOf(account)`, if the token answers with at least one word.
pub(crate) fn balance_of<D: DatabaseRef<Error = ForkError>>(
    viewer: &mut Viewer<'_, '_, D>,
    token: Address,
    account: Address,
) -> Result<Option<U256>> {
    viewer.word(token, IERC20::balanceOfCall { account }.abi_encode())
}

/// What [`balance_changes`] measures.
pub(crate) struct BalanceInputs<'a> {
    pub(crate) account: Address,
    /// ERC-20 tokens to read, sorted, without ether.
    pub(crate) tokens: &'a [Address],
    /// Every token flow of the execution (ether included).
    pub(crate) flows: &'a [TokenFlow],
    /// The account's ether balance `(before, after)`.
    pub(crate) eth: (U256, U256),
}

/// Reads the account's balances before and after, gives its non-zero changes sorted by token
/// (ether, the zero address, first) and checks each against the logged net flow. A token
/// without code in the world (created by the intent) had a zero balance before.
pub(crate) fn balance_changes<B, A>(
    input: &BalanceInputs<'_>,
    before: &mut Viewer<'_, '_, B>,
    after: &mut Viewer<'_, '_, A>,
    token_existed: impl Fn(Address) -> Result<bool>,
    discrepancies: &mut Vec<Discrepancy>,
    read: &mut Vec<TokenAmount>,
) -> Result<Vec<BalanceChange>>
where
    B: DatabaseRef<Error = ForkError>,
    A: DatabaseRef<Error = ForkError>,
{
    let mut changes = Vec::new();
    let mut check = |token: Address, delta: I256, discrepancies: &mut Vec<Discrepancy>| {
        let (inflow, outflow) = gross_flows(input.flows, input.account, token);
        let logged_net = signed_delta(outflow, inflow);
        if logged_net != delta {
            discrepancies.push(Discrepancy::FlowBalanceMismatch {
                token,
                logged_net,
                balance_delta: delta,
            });
        }
        if !delta.is_zero() {
            changes.push(BalanceChange { token, delta });
        }
    };
    check(ETH, signed_delta(input.eth.0, input.eth.1), discrepancies);
    for &token in input.tokens {
        // A token created by the intent had no balance before.
        let was = match balance_of(before, token, input.account)? {
            Some(was) => Some(was),
            None => (!token_existed(token)?).then_some(U256::ZERO),
        };
        let is = balance_of(after, token, input.account)?;
        match (was, is) {
            (Some(was), Some(is)) => {
                read.push(TokenAmount { token, amount: was });
                check(token, signed_delta(was, is), discrepancies)
            }
            _ => {
                let (inflow, outflow) = gross_flows(input.flows, input.account, token);
                if !inflow.is_zero() || !outflow.is_zero() {
                    discrepancies.push(Discrepancy::BalanceUnreadable { token });
                }
            }
        }
    }
    changes.sort_by_key(|c| c.token);
    Ok(changes)
}

/// What `payees` (the account apart) together gained of ether and of each of `tokens`, for
/// those whose gain is positive, in that order. A balance that cannot be read gained nothing.
pub(crate) fn payee_receipts<B, A, W, F>(
    payees: &[Address],
    account: Address,
    tokens: &[Address],
    (world, fork): (&W, &F),
    before: &mut Viewer<'_, '_, B>,
    after: &mut Viewer<'_, '_, A>,
) -> Result<Vec<TokenAmount>>
where
    B: DatabaseRef<Error = ForkError>,
    A: DatabaseRef<Error = ForkError>,
    W: DatabaseRef<Error = ForkError>,
    F: DatabaseRef<Error = ForkError>,
{
    let mut out = Vec::new();
    let payees: Vec<Address> = payees.iter().copied().filter(|&p| p != account).collect();
    if payees.is_empty() {
        return Ok(out);
    }
    let mut gained = U256::ZERO;
    for &payee in &payees {
        let (was, is) = (eth_balance(world, payee)?, eth_balance(fork, payee)?);
        gained = gained.saturating_add(is.saturating_sub(was));
    }
    if !gained.is_zero() {
        out.push(TokenAmount {
            token: ETH,
            amount: gained,
        });
    }
    for &token in tokens {
        let mut gained = U256::ZERO;
        for &payee in &payees {
            let was = balance_of(before, token, payee)?;
            let is = balance_of(after, token, payee)?;
            if let (Some(was), Some(is)) = (was, is) {
                gained = gained.saturating_add(is.saturating_sub(was));
            }
        }
        if !gained.is_zero() {
            out.push(TokenAmount {
                token,
                amount: gained,
            });
        }
    }
    Ok(out)
}

/// The tokens of `read` that answer `UNDERLYING_ASSET_ADDRESS()` with a non-zero address
/// (Aave's debt tokens and aTokens): see `SimulationReport::debt_like`.
pub(crate) fn debt_like<B: DatabaseRef<Error = ForkError>>(
    read: &[TokenAmount],
    before: &mut Viewer<'_, '_, B>,
) -> Result<Vec<Address>> {
    let data = pace_abi::rights::ICreditDelegation::UNDERLYING_ASSET_ADDRESSCall {}.abi_encode();
    let mut out = Vec::new();
    for r in read {
        let Some(word) = before.word(r.token, data.clone())? else {
            continue;
        };
        if word >> 160usize == U256::ZERO && !word.is_zero() {
            out.push(r.token);
        }
    }
    Ok(out)
}

/// One `Approval` log with the `msg.sender` of the frame that emitted it (when known).
#[derive(Debug, Clone, Copy)]
pub(crate) struct ApprovalLog {
    pub(crate) log: Erc20Log,
    pub(crate) caller: Option<Address>,
}

/// One allowance of the account, read before and after.
#[derive(Debug, Clone, Copy)]
struct Allowance {
    token: Address,
    spender: Address,
    before: U256,
    after: U256,
    /// The allowance as the logs have it so far.
    current: U256,
    /// The last logged amount.
    logged: Option<U256>,
}

/// The approvals the account granted and the allowance cross-check.
///
/// - Every `Approval` log with the account as owner is an approval, except a spender's own
///   bookkeeping: a log emitted in a frame called by the spender that lowers the allowance
///   (OpenZeppelin 4 style `transferFrom`).
/// - `keys` (from the logs and the decoded calls) are read before and after. An allowance
///   that ends above the last logged amount (or above its start, without a log) is an
///   approval too (amount = the final allowance) and a [`Discrepancy::AllowanceMismatch`];
///   so is one that fell by more than the account's logged outflow of the token.
pub(crate) fn approvals<B, A>(
    account: Address,
    logs: &[ApprovalLog],
    keys: &[(Address, Address)],
    flows: &[TokenFlow],
    before: &mut Viewer<'_, '_, B>,
    after: &mut Viewer<'_, '_, A>,
    discrepancies: &mut Vec<Discrepancy>,
) -> Result<Vec<ApprovalFact>>
where
    B: DatabaseRef<Error = ForkError>,
    A: DatabaseRef<Error = ForkError>,
{
    let mut allowances: Vec<Allowance> = Vec::with_capacity(keys.len());
    for &(token, spender) in keys {
        let data = IERC20::allowanceCall {
            owner: account,
            spender,
        }
        .abi_encode();
        let was = before.word(token, data.clone())?;
        let is = after.word(token, data)?;
        if let (Some(was), Some(is)) = (was, is) {
            allowances.push(Allowance {
                token,
                spender,
                before: was,
                after: is,
                current: was,
                logged: None,
            });
        }
    }

    let mut facts = Vec::new();
    for l in logs.iter().filter(|l| l.log.first == account) {
        let (token, spender, amount) = (l.log.token, l.log.second, l.log.amount);
        let entry = allowances
            .iter_mut()
            .find(|a| a.token == token && a.spender == spender);
        let spend = match entry {
            Some(a) => {
                let spend = l.caller == Some(spender) && amount < a.current;
                a.current = amount;
                a.logged = Some(amount);
                spend
            }
            None => false,
        };
        if !spend {
            facts.push(ApprovalFact {
                token,
                owner: account,
                spender,
                amount,
            });
        }
    }

    for a in &allowances {
        let reference = a.logged.unwrap_or(a.before);
        let (_, outflow) = gross_flows(flows, account, a.token);
        let raised = a.after > reference;
        if raised || reference - a.after > outflow {
            discrepancies.push(Discrepancy::AllowanceMismatch {
                token: a.token,
                spender: a.spender,
                before: a.before,
                after: a.after,
                logged: a.logged,
            });
        }
        if raised {
            facts.push(ApprovalFact {
                token: a.token,
                owner: account,
                spender: a.spender,
                amount: a.after,
            });
        }
    }
    Ok(facts)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn deltas_are_signed_and_saturate() {
        let u = U256::from;
        assert_eq!(signed_delta(u(5u8), u(8u8)), I256::try_from(3).unwrap());
        assert_eq!(signed_delta(u(8u8), u(5u8)), I256::try_from(-3).unwrap());
        assert_eq!(signed_delta(U256::ZERO, U256::MAX), I256::MAX);
        assert_eq!(signed_delta(U256::MAX, U256::ZERO), I256::MIN);
    }
}
