//! The keys by which the intent's frames read rights over the account's value: calls to the
//! views that answer them with the account as the owner ([`RightKeys`]). The holder each key
//! names is a party the simulation saw; what the execution may not change without the
//! verifier seeing it (see [`pace_types::ReadKind::Right`]).

use alloy_primitives::{Address, Bytes};
use alloy_sol_types::SolCall;
use pace_abi::{
    bindings::{IERC20, IERC721},
    rights::{ICreditDelegation, IPermit2},
};

/// How many keys one execution keeps; past it, the first stay.
const MAX_KEYS: usize = 64;

/// One view of a right: its selector, its call data's length, and the argument (0-based) that
/// names the holder. The owner is always argument 0.
struct View {
    selector: [u8; 4],
    len: usize,
    holder: usize,
}

const VIEWS: [View; 4] = [
    View {
        selector: IERC20::allowanceCall::SELECTOR,
        len: 4 + 2 * 32,
        holder: 1,
    },
    View {
        selector: IERC721::isApprovedForAllCall::SELECTOR,
        len: 4 + 2 * 32,
        holder: 1,
    },
    View {
        selector: ICreditDelegation::borrowAllowanceCall::SELECTOR,
        len: 4 + 2 * 32,
        holder: 1,
    },
    View {
        selector: IPermit2::allowanceCall::SELECTOR,
        len: 4 + 3 * 32,
        holder: 2,
    },
];

/// Whether a call data of `len` bytes may be one of [`VIEWS`]: the only test made of every
/// call before its data is copied.
pub(crate) fn may_be_right_view(len: usize) -> bool {
    VIEWS.iter().any(|v| v.len == len)
}

/// The holder named by `input` when it asks a view of a right over `owner`'s value (see
/// [`VIEWS`]): every address argument a whole, clean word.
pub(crate) fn right_holder(owner: Address, input: &[u8]) -> Option<Address> {
    let view = VIEWS
        .iter()
        .find(|v| v.len == input.len() && input[..4] == v.selector)?;
    let word = |i: usize| {
        let w = &input[4 + 32 * i..4 + 32 * (i + 1)];
        w[..12]
            .iter()
            .all(|b| *b == 0)
            .then(|| Address::from_slice(&w[12..]))
    };
    (word(0)? == owner).then_some(())?;
    (1..=view.holder).try_for_each(|i| word(i).map(drop))?;
    word(view.holder)
}

/// The right views the intent's frames called with the account as the owner: each contract
/// and call data once, in first-read order.
#[derive(Debug, Default, Clone)]
pub(crate) struct RightKeys(Vec<(Address, Address, Bytes)>);

impl RightKeys {
    /// Records a call of `target` with `input` if it reads a right over `owner`'s value.
    pub(crate) fn record(&mut self, owner: Address, target: Address, input: Bytes) {
        let Some(holder) = right_holder(owner, &input) else {
            return;
        };
        if self.0.len() < MAX_KEYS && !self.0.iter().any(|(t, _, d)| *t == target && *d == input) {
            self.0.push((target, holder, input));
        }
    }

    /// The keys: (the contract read, the holder named, the call data).
    pub(crate) fn list(&self) -> &[(Address, Address, Bytes)] {
        &self.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_view_names_its_holder_only_for_the_owner() {
        let (owner, holder, token) = (
            Address::repeat_byte(0xac),
            Address::repeat_byte(0x57),
            Address::repeat_byte(0x70),
        );
        let allowance = IERC20::allowanceCall {
            owner,
            spender: holder,
        }
        .abi_encode();
        assert_eq!(right_holder(owner, &allowance), Some(holder));
        assert_eq!(right_holder(holder, &allowance), None, "another owner");
        let operator = IERC721::isApprovedForAllCall {
            owner,
            operator: holder,
        }
        .abi_encode();
        assert_eq!(right_holder(owner, &operator), Some(holder));
        let credit = ICreditDelegation::borrowAllowanceCall {
            fromUser: owner,
            toUser: holder,
        }
        .abi_encode();
        assert_eq!(right_holder(owner, &credit), Some(holder));
        let permit2 = IPermit2::allowanceCall {
            user: owner,
            token,
            spender: holder,
        }
        .abi_encode();
        assert_eq!(right_holder(owner, &permit2), Some(holder));
        assert!(may_be_right_view(permit2.len()) && may_be_right_view(allowance.len()));

        // A dirty high byte is no address; another length or selector is no view.
        let mut dirty = allowance.clone();
        dirty[4 + 32 + 3] = 1;
        assert_eq!(right_holder(owner, &dirty), None);
        assert_eq!(right_holder(owner, &allowance[..67]), None);
        let mut other = allowance;
        other[0] ^= 1;
        assert_eq!(right_holder(owner, &other), None);
    }

    #[test]
    fn a_key_is_kept_once() {
        let (owner, holder, token) = (
            Address::repeat_byte(0xac),
            Address::repeat_byte(0x57),
            Address::repeat_byte(0x70),
        );
        let data: Bytes = IERC20::allowanceCall {
            owner,
            spender: holder,
        }
        .abi_encode()
        .into();
        let mut keys = RightKeys::default();
        keys.record(owner, token, data.clone());
        keys.record(owner, token, data.clone());
        keys.record(owner, Address::ZERO, Bytes::from(vec![1, 2, 3]));
        assert_eq!(keys.list(), &[(token, holder, data)]);
    }
}
