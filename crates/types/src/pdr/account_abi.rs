//! The PDR's calls, bounds and checks as the account's ABI types (`pace_abi::bindings::PaceAccount`),
//! and an intent's calls as the PDR's: the one mapping between them.

use super::{Bound, Call, Check};
use pace_abi::bindings::PaceAccount;

impl From<&Call> for PaceAccount::Call {
    fn from(c: &Call) -> Self {
        Self {
            target: c.target,
            value: c.value,
            data: c.data.clone(),
        }
    }
}

impl From<&Bound> for PaceAccount::Bound {
    fn from(b: &Bound) -> Self {
        Self {
            token: b.token,
            kind: b.kind,
            id: b.id,
            maxOut: b.maxOut,
            minIn: b.minIn,
            maxIn: b.maxIn,
        }
    }
}

impl From<&crate::Call> for Call {
    fn from(c: &crate::Call) -> Self {
        Self {
            target: c.target,
            value: c.value,
            data: c.data.clone(),
        }
    }
}

impl From<&crate::Call> for PaceAccount::Call {
    fn from(c: &crate::Call) -> Self {
        Self {
            target: c.target,
            value: c.value,
            data: c.data.clone(),
        }
    }
}

impl From<&Check> for PaceAccount::Check {
    fn from(c: &Check) -> Self {
        Self {
            target: c.target,
            data: c.data.clone(),
            word: c.word,
            relation: c.relation,
            lo: c.lo,
            hi: c.hi,
        }
    }
}
