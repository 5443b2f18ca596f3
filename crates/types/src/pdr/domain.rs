//! The EIP-712 domains a PDR is signed under, one per entry path: which account checks it
//! (the standalone `PaceAccount` or the EIP-7702 delegate `PaceDelegate` at an EOA) and how it
//! arrives (called directly, or in an ERC-4337 user operation through the EntryPoint).
//!
//! | path                              | name             | version | verifyingContract | salt                                      |
//! |-----------------------------------|------------------|---------|-------------------|-------------------------------------------|
//! | [`EntryPath::Direct`]             | `"PaceAccount"`  | `"3"`   | the account       | none                                      |
//! | [`EntryPath::EntryPoint`]         | `"PaceAccount"`  | `"3"`   | the account       | `userOpHash`                              |
//! | [`EntryPath::Delegate`]           | `"PaceDelegate"` | `"2"`   | the EOA           | `setupSalt`                               |
//! | [`EntryPath::DelegateEntryPoint`] | `"PaceDelegate"` | `"2"`   | the EOA           | `keccak256(abi.encode(setupSalt, userOpHash))` |
//! | [`EntryPath::Module`]             | `"PaceModule"`   | `"1"`   | the module        | the Safe, as a word                       |
//! | [`EntryPath::ModuleEntryPoint`]   | `"PaceModule"`   | `"1"`   | the module        | `keccak256(abi.encode(safeWord, userOpHash))` |
//!
//! A salted domain's type is `EIP712Domain(string name,string version,uint256 chainId,address
//! verifyingContract,bytes32 salt)`. Salting with the user operation's hash binds the PDR to
//! that one operation, so to its EntryPoint, gas limits, fees and paymaster: a PDR signed for
//! one path verifies on no other. The delegate's `setupSalt` is written at set-up, so a PDR
//! signed before a re-delegation does not verify after a new set-up.

use crate::account::AccountKind;
use alloy_primitives::{Address, B256, keccak256};
use alloy_sol_types::{Eip712Domain, SolValue};
use std::borrow::Cow;

/// The entry path a PDR is signed for, with what its domain binds (module docs).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum EntryPath {
    /// The standalone account's `executePDR`, called by anyone.
    Direct {
        /// The account (`verifyingContract`).
        account: Address,
    },
    /// The standalone account's `validateUserOp` / `executeUserOp`, through the EntryPoint.
    EntryPoint {
        /// The account (`verifyingContract`, the user operation's `sender`).
        account: Address,
        /// The user operation's hash (`getUserOpHash`, see [`crate::user_op::user_op_hash`]).
        user_op_hash: B256,
    },
    /// The delegate's own PDR entry, called on the EOA by anyone.
    Delegate {
        /// The delegated EOA (`verifyingContract`).
        eoa: Address,
        /// The salt the EOA's set-up wrote (the delegate's `domainSalt()`).
        setup_salt: B256,
    },
    /// The delegate's `validateUserOp` / `executeUserOp`, through the EntryPoint.
    DelegateEntryPoint {
        /// The delegated EOA (`verifyingContract`, the user operation's `sender`).
        eoa: Address,
        /// The salt the EOA's set-up wrote (the delegate's `domainSalt()`).
        setup_salt: B256,
        /// The user operation's hash.
        user_op_hash: B256,
    },
    /// A Safe's `PaceModule`, called directly by anyone; the calls execute from the Safe.
    Module {
        /// The module (`verifyingContract`).
        module: Address,
        /// The Safe it guards (the domain's salt).
        safe: Address,
    },
    /// A Safe's `PaceModule` as the sender of a user operation through the EntryPoint.
    ModuleEntryPoint {
        /// The module (`verifyingContract`, the user operation's `sender`).
        module: Address,
        /// The Safe it guards.
        safe: Address,
        /// The user operation's hash.
        user_op_hash: B256,
    },
}

impl EntryPath {
    /// Which contract checks the PDR.
    pub fn account_kind(&self) -> AccountKind {
        match self {
            Self::Direct { .. } | Self::EntryPoint { .. } => AccountKind::PaceAccount,
            Self::Delegate { .. } | Self::DelegateEntryPoint { .. } => AccountKind::PaceDelegate,
            Self::Module { .. } | Self::ModuleEntryPoint { .. } => AccountKind::PaceModule,
        }
    }

    /// The domain's `verifyingContract`: the account, the delegated EOA or the module.
    pub fn verifying_contract(&self) -> Address {
        match *self {
            Self::Direct { account } | Self::EntryPoint { account, .. } => account,
            Self::Delegate { eoa, .. } | Self::DelegateEntryPoint { eoa, .. } => eoa,
            Self::Module { module, .. } | Self::ModuleEntryPoint { module, .. } => module,
        }
    }

    /// The user operation the PDR is bound to, on an EntryPoint path.
    pub fn user_op_hash(&self) -> Option<B256> {
        match *self {
            Self::EntryPoint { user_op_hash, .. }
            | Self::DelegateEntryPoint { user_op_hash, .. }
            | Self::ModuleEntryPoint { user_op_hash, .. } => Some(user_op_hash),
            Self::Direct { .. } | Self::Delegate { .. } | Self::Module { .. } => None,
        }
    }

    /// The domain's salt; `None` on the standalone direct path, whose domain has none.
    pub fn salt(&self) -> Option<B256> {
        match *self {
            Self::Direct { .. } => None,
            Self::EntryPoint { user_op_hash, .. } => Some(user_op_hash),
            Self::Delegate { setup_salt, .. } => Some(setup_salt),
            Self::DelegateEntryPoint {
                setup_salt,
                user_op_hash,
                ..
            } => Some(delegate_entry_point_salt(setup_salt, user_op_hash)),
            Self::Module { safe, .. } => Some(safe.into_word()),
            Self::ModuleEntryPoint {
                safe, user_op_hash, ..
            } => Some(delegate_entry_point_salt(safe.into_word(), user_op_hash)),
        }
    }

    /// The EIP-712 domain on chain `chain_id`.
    pub fn domain(&self, chain_id: u64) -> Eip712Domain {
        let kind = self.account_kind();
        Eip712Domain::new(
            Some(Cow::Borrowed(kind.domain_name())),
            Some(Cow::Borrowed(kind.domain_version())),
            Some(alloy_primitives::U256::from(chain_id)),
            Some(self.verifying_contract()),
            self.salt(),
        )
    }
}

/// The salt of a salted domain's EntryPoint path, `keccak256(abi.encode(salt, userOpHash))`:
/// the delegate's (its set-up salt) and the module's (the Safe as a word).
pub fn delegate_entry_point_salt(setup_salt: B256, user_op_hash: B256) -> B256 {
    keccak256((setup_salt, user_op_hash).abi_encode())
}

/// The domain of the standalone account `account` on chain `chain_id` through the EntryPoint,
/// for the user operation whose hash is `user_op_hash`.
pub fn entry_point_domain(chain_id: u64, account: Address, user_op_hash: B256) -> Eip712Domain {
    EntryPath::EntryPoint {
        account,
        user_op_hash,
    }
    .domain(chain_id)
}

/// The domain of the delegate at `eoa` on chain `chain_id`, called directly, after the set-up
/// that wrote `setup_salt`.
pub fn delegate_domain(chain_id: u64, eoa: Address, setup_salt: B256) -> Eip712Domain {
    EntryPath::Delegate { eoa, setup_salt }.domain(chain_id)
}

/// The domain of the delegate at `eoa` on chain `chain_id` through the EntryPoint, after the
/// set-up that wrote `setup_salt`, for the user operation whose hash is `user_op_hash`.
pub fn delegate_entry_point_domain(
    chain_id: u64,
    eoa: Address,
    setup_salt: B256,
    user_op_hash: B256,
) -> Eip712Domain {
    EntryPath::DelegateEntryPoint {
        eoa,
        setup_salt,
        user_op_hash,
    }
    .domain(chain_id)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pdr::domain as direct_domain;

    #[test]
    fn direct_path_is_the_unsalted_domain() {
        let account = Address::repeat_byte(0x11);
        assert_eq!(
            EntryPath::Direct { account }.domain(5),
            direct_domain(5, account)
        );
    }

    #[test]
    fn salted_domains_have_the_salted_type() {
        let d = delegate_domain(1, Address::repeat_byte(1), B256::repeat_byte(2));
        assert_eq!(
            d.encode_type(),
            "EIP712Domain(string name,string version,uint256 chainId,address verifyingContract,bytes32 salt)"
        );
        assert_eq!(d.name.as_deref(), Some("PaceDelegate"));
        assert_eq!(d.version.as_deref(), Some("2"));
    }

    #[test]
    fn delegate_entry_point_salt_is_keccak_of_both_words() {
        let (s, h) = (B256::repeat_byte(0xaa), B256::repeat_byte(0xbb));
        let mut preimage = [0u8; 64];
        preimage[..32].copy_from_slice(s.as_slice());
        preimage[32..].copy_from_slice(h.as_slice());
        assert_eq!(delegate_entry_point_salt(s, h), keccak256(preimage));
        let path = EntryPath::DelegateEntryPoint {
            eoa: Address::ZERO,
            setup_salt: s,
            user_op_hash: h,
        };
        assert_eq!(path.salt(), Some(keccak256(preimage)));
    }

    #[test]
    fn every_path_has_its_own_separator() {
        let (a, s, h) = (
            Address::repeat_byte(7),
            B256::repeat_byte(8),
            B256::repeat_byte(9),
        );
        let separators = [
            EntryPath::Direct { account: a },
            EntryPath::EntryPoint {
                account: a,
                user_op_hash: h,
            },
            EntryPath::Delegate {
                eoa: a,
                setup_salt: s,
            },
            EntryPath::DelegateEntryPoint {
                eoa: a,
                setup_salt: s,
                user_op_hash: h,
            },
            EntryPath::Module {
                module: a,
                safe: Address::repeat_byte(8),
            },
            EntryPath::ModuleEntryPoint {
                module: a,
                safe: Address::repeat_byte(8),
                user_op_hash: h,
            },
        ]
        .map(|p| p.domain(1).separator());
        for i in 0..separators.len() {
            for j in 0..i {
                assert_ne!(separators[i], separators[j], "paths {i} and {j}");
            }
        }
    }
}
