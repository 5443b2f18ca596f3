//! The rights over the account's value that the execution read, as [`FactRead`]s of kind
//! [`ReadKind::Right`]: each view the intent's frames called with the account as the owner
//! ([`crate::tracer::RightKeys`]), read again on the states before and after the calls. The
//! verifier relies on those of holders the policy does not name; the signer keeps them from
//! growing at execution.

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
