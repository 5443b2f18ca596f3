//! Rights a call grants outside ERC-20 allowances, as its calldata says: Permit2 allowances
//! (`approve`, the signed `permit`s, `lockdown`) and credit delegation (`approveDelegation`,
//! `delegationWithSig`).
//!
//! A selector says nothing about the target's code: any contract answering Permit2's
//! `approve(address,address,uint160,uint48)` is taken at its word, since a right that is
//! recorded somewhere else than the caller expects is still a right someone may use. The
//! simulation reads what the contract actually recorded; these are what the calldata asks for.

use super::{DecodeError, strict};
use crate::rights::{ICreditDelegation, IPermit2};
use alloy_primitives::{Address, U256};
use alloy_sol_types::SolCall;

/// Which kind of contract records a [`RightGrant`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum RightKind {
    /// A Permit2 allowance of `(owner, token, spender)`.
    Permit2,
    /// Credit delegation on a debt token: the holder may borrow against the owner's collateral.
    CreditDelegation,
}

/// A right over the owner's value that a call sets (a revocation is a grant of 0).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct RightGrant {
    /// What records it.
    pub kind: RightKind,
    /// The contract that records it (the call's target).
    pub recorder: Address,
    /// Whose right it is; `None` for the caller.
    pub owner: Option<Address>,
    /// The token it is over (Permit2); `None` where the recorder's state says (a debt token's
    /// underlying).
    pub token: Option<Address>,
    /// Who may use it.
    pub holder: Address,
    /// How much it allows (decimal, in the token's smallest unit).
    pub amount: U256,
}

/// The rights a call to `target` with calldata `data` grants; empty for any other function.
/// Arguments are decoded strictly: a known selector with arguments that do not decode is an
/// error.
pub fn decode_rights(target: Address, data: &[u8]) -> Result<Vec<RightGrant>, DecodeError> {
    let Some(selector) = data.get(..4) else {
        return Ok(Vec::new());
    };
    let selector = [selector[0], selector[1], selector[2], selector[3]];
    let permit2 =
        |owner: Option<Address>, token: Address, holder: Address, amount: U256| RightGrant {
            kind: RightKind::Permit2,
            recorder: target,
            owner,
            token: Some(token),
            holder,
            amount,
        };
    let delegation = |owner: Option<Address>, holder: Address, amount: U256| RightGrant {
        kind: RightKind::CreditDelegation,
        recorder: target,
        owner,
        token: None,
        holder,
        amount,
    };
    let grants = match selector {
        IPermit2::approveCall::SELECTOR => {
            let c = strict::<IPermit2::approveCall>(data)?;
            vec![permit2(None, c.token, c.spender, U256::from(c.amount))]
        }
        IPermit2::permit_0Call::SELECTOR => {
            let c = strict::<IPermit2::permit_0Call>(data)?;
            let d = &c.permitSingle.details;
            vec![permit2(
                Some(c.owner),
                d.token,
                c.permitSingle.spender,
                U256::from(d.amount),
            )]
        }
        IPermit2::permit_1Call::SELECTOR => {
            let c = strict::<IPermit2::permit_1Call>(data)?;
            let spender = c.permitBatch.spender;
            c.permitBatch
                .details
                .iter()
                .map(|d| permit2(Some(c.owner), d.token, spender, U256::from(d.amount)))
                .collect()
        }
        IPermit2::lockdownCall::SELECTOR => {
            let c = strict::<IPermit2::lockdownCall>(data)?;
            c.approvals
                .iter()
                .map(|p| permit2(None, p.token, p.spender, U256::ZERO))
                .collect()
        }
        ICreditDelegation::approveDelegationCall::SELECTOR => {
            let c = strict::<ICreditDelegation::approveDelegationCall>(data)?;
            vec![delegation(None, c.delegatee, c.amount)]
        }
        ICreditDelegation::delegationWithSigCall::SELECTOR => {
            let c = strict::<ICreditDelegation::delegationWithSigCall>(data)?;
            vec![delegation(Some(c.delegator), c.delegatee, c.value)]
        }
        _ => Vec::new(),
    };
    Ok(grants)
}

/// The kind of right a call's selector grants, whether or not its arguments decode; `None`
/// for any other function.
pub fn right_kind(data: &[u8]) -> Option<RightKind> {
    let selector: [u8; 4] = data.get(..4)?.try_into().ok()?;
    match selector {
        IPermit2::approveCall::SELECTOR
        | IPermit2::permit_0Call::SELECTOR
        | IPermit2::permit_1Call::SELECTOR
        | IPermit2::lockdownCall::SELECTOR => Some(RightKind::Permit2),
        ICreditDelegation::approveDelegationCall::SELECTOR
        | ICreditDelegation::delegationWithSigCall::SELECTOR => Some(RightKind::CreditDelegation),
        _ => None,
    }
}

impl RightGrant {
    /// Whose right it is when `caller` sends the call.
    pub fn owner_for(&self, caller: Address) -> Address {
        self.owner.unwrap_or(caller)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloy_primitives::aliases::{U48, U160};

    #[test]
    fn permit2_approve_and_lockdown() {
        let (token, spender, p2) = (
            Address::repeat_byte(1),
            Address::repeat_byte(2),
            Address::repeat_byte(9),
        );
        let data = IPermit2::approveCall {
            token,
            spender,
            amount: U160::from(500u64),
            expiration: U48::from(7u64),
        }
        .abi_encode();
        let g = decode_rights(p2, &data).unwrap();
        assert_eq!(g.len(), 1);
        assert_eq!(
            (g[0].kind, g[0].recorder, g[0].token, g[0].holder),
            (RightKind::Permit2, p2, Some(token), spender)
        );
        assert_eq!((g[0].amount, g[0].owner), (U256::from(500u64), None));
        let lock = IPermit2::lockdownCall {
            approvals: vec![IPermit2::TokenSpenderPair { token, spender }],
        }
        .abi_encode();
        assert_eq!(decode_rights(p2, &lock).unwrap()[0].amount, U256::ZERO);
        // Truncated arguments are an error, another selector nothing.
        assert!(decode_rights(p2, &data[..40]).is_err());
        assert_eq!(right_kind(&data[..40]), Some(RightKind::Permit2));
        assert_eq!(right_kind(&[1, 2, 3, 4]), None);
        assert!(
            decode_rights(p2, &[0xde, 0xad, 0xbe, 0xef])
                .unwrap()
                .is_empty()
        );
        assert!(decode_rights(p2, &[]).unwrap().is_empty());
    }

    #[test]
    fn signed_permits_name_their_owner() {
        let owner = Address::repeat_byte(3);
        let details = |token: u8, amount: u64| IPermit2::PermitDetails {
            token: Address::repeat_byte(token),
            amount: U160::from(amount),
            expiration: U48::ZERO,
            nonce: U48::ZERO,
        };
        let batch = IPermit2::permit_1Call {
            owner,
            permitBatch: IPermit2::PermitBatch {
                details: vec![details(1, 10), details(2, 20)],
                spender: Address::repeat_byte(4),
                sigDeadline: U256::ZERO,
            },
            signature: vec![0u8; 65].into(),
        }
        .abi_encode();
        let g = decode_rights(Address::ZERO, &batch).unwrap();
        assert_eq!(g.len(), 2);
        assert_eq!(g[1].owner_for(Address::repeat_byte(8)), owner);
        assert_eq!(g[1].amount, U256::from(20u8));
        let single = IPermit2::permit_0Call {
            owner,
            permitSingle: IPermit2::PermitSingle {
                details: details(5, 1),
                spender: Address::repeat_byte(6),
                sigDeadline: U256::ZERO,
            },
            signature: vec![0u8; 65].into(),
        }
        .abi_encode();
        let g = decode_rights(Address::ZERO, &single).unwrap();
        assert_eq!(g[0].holder, Address::repeat_byte(6));
    }

    #[test]
    fn credit_delegation() {
        let data = ICreditDelegation::approveDelegationCall {
            delegatee: Address::repeat_byte(7),
            amount: U256::MAX,
        }
        .abi_encode();
        let g = decode_rights(Address::repeat_byte(5), &data).unwrap();
        assert_eq!(g[0].kind, RightKind::CreditDelegation);
        assert_eq!((g[0].token, g[0].amount), (None, U256::MAX));
        assert_eq!(
            g[0].owner_for(Address::repeat_byte(1)),
            Address::repeat_byte(1)
        );
    }
}
