//! The rights over the account's value that the execution read, as [`FactRead`]s of kind
//! [`ReadKind::Right`]: each view the intent's frames called with the account as the owner
//! ([`crate::tracer::RightKeys`]), read again on the states before and after the calls. The
//! verifier relies on those of holders the policy does not name; the signer keeps them from
//! growing at execution. And the control the account holds over the contracts the execution
//! touched ([`ReadKind::Control`]): each whose `owner()` answered the account before the calls,
//! read again after them; the signer keeps the owner at execution to the simulated one.

use alloy_primitives::{Address, U256};
use alloy_sol_types::SolCall;
use pace_abi::bindings::IOwnable;
use pace_evm::{ForkError, revm::DatabaseRef};
use pace_types::{FactRead, ReadKind};

use crate::{error::Result, fork::Viewer, tracer::RightKeys};

/// The [`ReadKind::Right`] reads of `keys`, before and after the calls (see the module docs).
pub(crate) fn right_reads<B, A>(
    keys: &RightKeys,
    before: &mut Viewer<'_, '_, B>,
    after: &mut Viewer<'_, '_, A>,
) -> Result<Vec<FactRead>>
where
    B: DatabaseRef<Error = ForkError>,
    A: DatabaseRef<Error = ForkError>,
{
    let mut out = Vec::with_capacity(keys.list().len());
    for (target, holder, data) in keys.list() {
        out.push(FactRead {
            kind: ReadKind::Right,
            subject: *holder,
            target: *target,
            data: data.clone(),
            word: 0,
            before: before.word(*target, data.to_vec())?,
            after: after.word(*target, data.to_vec())?,
        });
    }
    Ok(out)
}

/// The [`ReadKind::Control`] reads of the `contracts` the account owns before the calls (see
/// the module docs): `owner()` answered the account, as an address word.
pub(crate) fn control_reads<B, A>(
    account: Address,
    contracts: &[Address],
    before: &mut Viewer<'_, '_, B>,
    after: &mut Viewer<'_, '_, A>,
) -> Result<Vec<FactRead>>
where
    B: DatabaseRef<Error = ForkError>,
    A: DatabaseRef<Error = ForkError>,
{
    let data = IOwnable::ownerCall {}.abi_encode();
    let owned = U256::from_be_slice(account.as_slice());
    let mut out: Vec<FactRead> = Vec::new();
    for &contract in contracts.iter().filter(|&&c| c != account) {
        if out.iter().any(|r| r.subject == contract) {
            continue;
        }
        let was = before.word(contract, data.clone())?;
        if was != Some(owned) {
            continue;
        }
        out.push(FactRead {
            kind: ReadKind::Control,
            subject: contract,
            target: contract,
            data: data.clone().into(),
            word: 0,
            before: was,
            after: after.word(contract, data.clone())?,
        });
    }
    Ok(out)
}
