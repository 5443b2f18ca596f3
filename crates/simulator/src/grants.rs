//! The account's grant filter and the tokens no right it granted can reach.
//!
//! A `PaceAccount` records, in sixteen bits of its packed state, every address it ever called
//! in a way that may have left a right behind: any call but an ERC-20 `transfer`, on any path,
//! with every bit set by a signature (`IPaceAccount.grantFilter`). A token can lose the
//! account's balance to a contract that behaves differently at execution only through a right:
//! an allowance, an operator, a signature, or the account's own call. So a token that the
//! execution does not touch, that no touched contract holds an allowance of, and whose balance
//! lives only in contracts whose bits are clear, cannot fall while the calls run, and the PDR
//! need not read it: it signs those bits instead (an `UNGRANTED` bound), and the account
//! refuses the PDR if any of them is set by the time it runs.

use alloy_primitives::{Address, U256};
use alloy_sol_types::SolCall;
use pace_abi::bindings::{IERC20, PaceAccount};
use pace_evm::{ForkError, InProcessEvm, revm::DatabaseRef};
use pace_types::{Call, UngrantedAsset, pdr::grant_bit};

use crate::{budgets::answer, error::Result, fork::Viewer};

alloy_sol_types::sol! {
    /// ERC-777's default operators: parties that may move every holder's tokens unless the
    /// holder revokes them.
    interface IERC777 {
        function defaultOperators() external view returns (address[] memory);
    }
}

/// The grant filter of the PACE contract at `pace` (`grantFilter()`), `None` where nothing
/// answers it (an account that keeps none: every bit counts as set).
pub(crate) fn read_filter(world: &InProcessEvm, pace: Address) -> Result<Option<u16>> {
    answer(world.view_sol(pace, &PaceAccount::grantFilterCall {}))
}

/// What [`ungranted`] decides on.
pub(crate) struct GrantInputs<'a> {
    /// The account.
    pub(crate) account: Address,
    /// Its grant filter before the calls.
    pub(crate) filter: Option<u16>,
    /// The intent's calls.
    pub(crate) calls: &'a [Call],
    /// The contracts the execution touched.
    pub(crate) touched: &'a [Address],
}

/// The tokens among `candidates` (read, not moved) that no right the account granted can
/// reach, each with the grant-filter bits that say so, read on the state before the calls
/// (`before`). None when the account keeps no filter or the intent signs a hash (a signature
/// can grant a right over anything).
pub(crate) fn ungranted<D: DatabaseRef<Error = ForkError>>(
    inputs: &GrantInputs<'_>,
    candidates: &[Address],
    before: &mut Viewer<'_, '_, D>,
) -> Result<Vec<UngrantedAsset>> {
    let Some(filter) = inputs.filter else {
        return Ok(Vec::new());
    };
    let account = inputs.account;
    if filter == u16::MAX || inputs.calls.iter().any(|c| c.target == account) {
        return Ok(Vec::new());
    }
    let mut out = Vec::new();
    for &token in candidates {
        // A token whose own bit is set is in reach: no read needed to say so.
        if grant_bit(token) & filter != 0 {
            continue;
        }
        if let Some(bits) = out_of_reach(inputs, token, before)?
            && bits & filter == 0
        {
            out.push(UngrantedAsset { token, bits });
        }
    }
    Ok(out)
}

/// The grant-filter bits `token`'s being out of reach rests on, `None` if it may be in reach:
/// the execution touched it; its balance read failed, ran the account or a touched contract,
/// or read another contract's storage (a ledger kept elsewhere, which a second entry to it or
/// an index the calls move could change); a touched contract holds an allowance of it (or the
/// allowance did not read), or can already `transferFrom` a unit of the account's; or it names
/// default operators (ERC-777), who need no grant.
fn out_of_reach<D: DatabaseRef<Error = ForkError>>(
    inputs: &GrantInputs<'_>,
    token: Address,
    before: &mut Viewer<'_, '_, D>,
) -> Result<Option<u16>> {
    let GrantInputs {
        account, touched, ..
    } = *inputs;
    if touched.contains(&token) {
        return Ok(None);
    }
    let read = IERC20::balanceOfCall { account }.abi_encode();
    let Some(ran) = before.contracts_run(token, read)? else {
        return Ok(None);
    };
    let mut bits = grant_bit(token);
    for (contract, storage) in ran {
        if contract == token {
            continue;
        }
        if storage || contract == account || touched.contains(&contract) {
            return Ok(None);
        }
        // Code it ran in its own context (an implementation behind a proxy).
        bits |= grant_bit(contract);
    }
    let operators = IERC777::defaultOperatorsCall {}.abi_encode();
    if before
        .call(token, operators)?
        .is_some_and(|out| out.len() >= 64 && out[32..64].iter().any(|b| *b != 0))
    {
        return Ok(None);
    }
    // No touched contract may already take a unit: by an allowance, or by any other right the
    // token honours (an operator registry it consults, a party it trusts by default).
    for &spender in touched {
        let allowance = IERC20::allowanceCall {
            owner: account,
            spender,
        }
        .abi_encode();
        let take = IERC20::transferFromCall {
            from: account,
            to: spender,
            value: U256::from(1u8),
        }
        .abi_encode();
        if before.word(token, allowance)? != Some(U256::ZERO)
            || before.succeeds_from(spender, token, take)?
        {
            return Ok(None);
        }
    }
    Ok(Some(bits))
}
