//! The accounts a PDR goes to and how it reaches them, in one place.
//!
//! - [`AccountKind`]: the standalone `PaceAccount` (its state from slot 0) or an EOA delegated
//!   to `PaceDelegate` with EIP-7702 (its state in the ERC-7201 namespace
//!   [`DELEGATE_NAMESPACE`], its PDR domain salted with its set-up salt);
//! - [`Entry`]: a call to the account, or an ERC-4337 user operation through the EntryPoint
//!   v0.8;
//! - [`Route`]: what a PDR is signed for besides its account and chain (the delegate's salt,
//!   the EntryPoint and the operation's gas), and [`EntryPointRoute`], what a signed PDR
//!   records of its user operation. With the account they give the PDR's
//!   [`EntryPath`] and so its EIP-712 domain;
//! - [`setup`]: the delegate's EIP-712 `Setup` digest and the signed delegation document.
//!
//! `docs/accounts.md` describes each account and path; `tests/layouts/*.json` the storage
//! layouts the slots below are read at.

pub mod setup;

use crate::{
    pdr::{DOMAIN_NAME, DOMAIN_VERSION, EntryPath},
    user_op::UserOpGas,
};
use alloy_primitives::{Address, B256, U256, b256, keccak256};

/// The EIP-712 domain name of the EIP-7702 delegate `PaceDelegate`.
pub const DELEGATE_DOMAIN_NAME: &str = "PaceDelegate";
/// The EIP-712 domain version of `PaceDelegate`, shared by its PDRs and its set-ups.
pub const DELEGATE_DOMAIN_VERSION: &str = "2";

/// The EIP-712 domain name of the Safe module `PaceModule`.
pub const MODULE_DOMAIN_NAME: &str = "PaceModule";
/// The EIP-712 domain version of `PaceModule`.
pub const MODULE_DOMAIN_VERSION: &str = "1";

/// `PaceDelegate`'s ERC-7201 namespace (`pace.delegate.v1`): the core's state starts there,
/// as `contracts/PaceDelegate.sol` declares it.
pub const DELEGATE_NAMESPACE: B256 =
    b256!("0a77491a114767f413aad0dc67297bb622aec1da0ef7bade1cd1421e1010f800");

/// The kind of account a PDR goes to: which contract checks it, where its state lives and the
/// name of its domain. On the command line and in JSON, `pace-account` or `pace-delegate`.
#[derive(
    Clone,
    Copy,
    Debug,
    Default,
    PartialEq,
    Eq,
    PartialOrd,
    Ord,
    Hash,
    serde::Serialize,
    serde::Deserialize,
)]
#[serde(rename_all = "kebab-case")]
pub enum AccountKind {
    /// A `PaceAccount` of its own (`contracts/PaceAccount.sol`), a contract holding the funds.
    #[default]
    PaceAccount,
    /// An EOA delegated to `PaceDelegate` with EIP-7702 (`contracts/PaceDelegate.sol`): the EOA
    /// keeps its address.
    PaceDelegate,
    /// A Safe 1.4.1 guarded by its `PaceModule` (`contracts/PaceModule.sol`): the account is
    /// the Safe, which holds the funds and makes the calls; PDRs go to the module (its state
    /// from slot 0), and the domain is the module's, salted with the Safe
    /// ([`EntryPath::Module`]). Direct path only.
    PaceModule,
}

impl AccountKind {
    /// Every kind, as the command line lists them.
    pub const ALL: [Self; 3] = [Self::PaceAccount, Self::PaceDelegate, Self::PaceModule];

    /// Its name on the command line and in JSON.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::PaceAccount => "pace-account",
            Self::PaceDelegate => "pace-delegate",
            Self::PaceModule => "pace-module",
        }
    }

    /// The domain name its PDRs are signed under.
    pub fn domain_name(self) -> &'static str {
        match self {
            Self::PaceAccount => DOMAIN_NAME,
            Self::PaceDelegate => DELEGATE_DOMAIN_NAME,
            Self::PaceModule => MODULE_DOMAIN_NAME,
        }
    }

    /// The domain version its PDRs are signed under.
    pub fn domain_version(self) -> &'static str {
        match self {
            Self::PaceAccount => DOMAIN_VERSION,
            Self::PaceDelegate => DELEGATE_DOMAIN_VERSION,
            Self::PaceModule => MODULE_DOMAIN_VERSION,
        }
    }

    /// The slot of the packed config word (verifier | paused | lane-0 sequence | budgets on).
    pub fn config_slot(self) -> U256 {
        match self {
            Self::PaceAccount | Self::PaceModule => U256::ZERO,
            Self::PaceDelegate => DELEGATE_NAMESPACE.into(),
        }
    }

    /// The slot of the lane-sequence mapping (lanes other than 0).
    pub fn lanes_slot(self) -> U256 {
        self.config_slot() + U256::from(1u8)
    }

    /// The slot of lane `key`'s sequence when `key` is not 0:
    /// `keccak256(abi.encode(uint32 key, uint256 lanes_slot))`.
    pub fn lane_slot(self, key: u32) -> U256 {
        let mut preimage = [0u8; 64];
        preimage[28..32].copy_from_slice(&key.to_be_bytes());
        preimage[32..].copy_from_slice(&self.lanes_slot().to_be_bytes::<32>());
        keccak256(preimage).into()
    }
}

/// How signed PDRs reach the account. On the command line and in JSON, `direct` or
/// `entry-point`.
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize,
)]
#[serde(rename_all = "kebab-case")]
pub enum Entry {
    /// A transaction to the account (`executePDR` / `executeBatchPDR`), sent by anyone.
    #[default]
    Direct,
    /// A user operation through the EntryPoint v0.8 (`handleOps`).
    EntryPoint,
}

impl Entry {
    /// Every entry, as the command line lists them.
    pub const ALL: [Self; 2] = [Self::Direct, Self::EntryPoint];

    /// Its name on the command line and in JSON.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Direct => "direct",
            Self::EntryPoint => "entry-point",
        }
    }
}

/// Parses the names [`AccountKind::as_str`] and [`Entry::as_str`] give.
macro_rules! named {
    ($($ty:ty),*) => {$(
        impl core::str::FromStr for $ty {
            type Err = String;

            fn from_str(s: &str) -> Result<Self, String> {
                Self::ALL.into_iter().find(|v| v.as_str() == s).ok_or_else(|| {
                    let names: Vec<&str> = Self::ALL.iter().map(|v| v.as_str()).collect();
                    format!("`{s}`: expected one of {}", names.join(", "))
                })
            }
        }

        impl core::fmt::Display for $ty {
            fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
                f.write_str(self.as_str())
            }
        }
    )*};
}

named!(AccountKind, Entry);

/// Where a PDR is signed for, besides its account and chain: the delegate's domain salt or the
/// Safe's module, and the EntryPoint route, if any.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Route {
    /// The set-up salt of an EOA delegated to `PaceDelegate` (`domainSalt()`); `None` for a
    /// `PaceAccount`.
    pub delegate_salt: Option<B256>,
    /// The `PaceModule` of a Safe account, where its PDRs go; `None` otherwise.
    pub module: Option<Address>,
    /// The EntryPoint and the user operation's gas; `None` for the direct path.
    pub entry_point: Option<(Address, UserOpGas)>,
}

impl Route {
    /// The kind of account the route goes to.
    pub fn kind(&self) -> AccountKind {
        kind_of(self.delegate_salt, self.module)
    }

    /// How the route reaches it.
    pub fn entry(&self) -> Entry {
        if self.entry_point.is_some() {
            Entry::EntryPoint
        } else {
            Entry::Direct
        }
    }
}

/// The EntryPoint and the gas terms of a PDR's user operation: with the PDR they give the
/// whole operation, and its hash salts the PDR's domain.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EntryPointRoute {
    /// The EntryPoint (v0.8).
    pub entry_point: Address,
    /// The operation's gas limits and fees.
    pub gas: UserOpGas,
    /// `getUserOpHash` of the operation.
    pub user_op_hash: B256,
}

/// The kind of account whose PDR carries `delegate_salt` (a delegate's always does) or goes
/// to `module` (a Safe's always does).
pub fn kind_of(delegate_salt: Option<B256>, module: Option<Address>) -> AccountKind {
    match (delegate_salt, module) {
        (_, Some(_)) => AccountKind::PaceModule,
        (Some(_), None) => AccountKind::PaceDelegate,
        (None, None) => AccountKind::PaceAccount,
    }
}

impl EntryPath {
    /// The entry path of a PDR for `account`: the module's when the account is a Safe guarded
    /// by `module`, the delegate's when it has a set-up salt, and on each the EntryPoint's when
    /// the PDR travels in the user operation `user_op_hash`.
    pub fn new(
        account: Address,
        delegate_salt: Option<B256>,
        module: Option<Address>,
        user_op_hash: Option<B256>,
    ) -> Self {
        if let Some(module) = module {
            return match user_op_hash {
                None => Self::Module {
                    module,
                    safe: account,
                },
                Some(user_op_hash) => Self::ModuleEntryPoint {
                    module,
                    safe: account,
                    user_op_hash,
                },
            };
        }
        match (delegate_salt, user_op_hash) {
            (None, None) => Self::Direct { account },
            (Some(setup_salt), None) => Self::Delegate {
                eoa: account,
                setup_salt,
            },
            (None, Some(user_op_hash)) => Self::EntryPoint {
                account,
                user_op_hash,
            },
            (Some(setup_salt), Some(user_op_hash)) => Self::DelegateEntryPoint {
                eoa: account,
                setup_salt,
                user_op_hash,
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// ERC-7201: `keccak256(abi.encode(uint256(keccak256(id)) - 1)) & ~bytes32(uint256(0xff))`.
    #[test]
    fn the_delegate_namespace_is_erc7201_of_its_id() {
        let id = U256::from_be_bytes(keccak256("pace.delegate.v1").0) - U256::from(1u8);
        let slot = U256::from_be_bytes(keccak256(id.to_be_bytes::<32>()).0) & !U256::from(0xffu8);
        assert_eq!(B256::from(slot), DELEGATE_NAMESPACE);
        assert_eq!(
            AccountKind::PaceDelegate.lanes_slot(),
            slot + U256::from(1u8)
        );
        assert_eq!(AccountKind::PaceAccount.config_slot(), U256::ZERO);
    }

    #[test]
    fn kinds_and_entries_read_as_the_command_line_spells_them() {
        for (kind, text) in [
            (AccountKind::PaceAccount, "\"pace-account\""),
            (AccountKind::PaceDelegate, "\"pace-delegate\""),
            (AccountKind::PaceModule, "\"pace-module\""),
        ] {
            assert_eq!(serde_json::to_string(&kind).unwrap(), text);
            assert_eq!(serde_json::from_str::<AccountKind>(text).unwrap(), kind);
        }
        for (entry, text) in [
            (Entry::Direct, "\"direct\""),
            (Entry::EntryPoint, "\"entry-point\""),
        ] {
            assert_eq!(serde_json::to_string(&entry).unwrap(), text);
        }
    }

    #[test]
    fn a_route_names_its_path() {
        let (a, s, h) = (
            Address::repeat_byte(1),
            B256::repeat_byte(2),
            B256::repeat_byte(3),
        );
        assert_eq!(
            EntryPath::new(a, None, None, None),
            EntryPath::Direct { account: a }
        );
        assert_eq!(
            EntryPath::new(a, Some(s), None, Some(h)).account_kind(),
            AccountKind::PaceDelegate
        );
        let route = Route {
            delegate_salt: Some(s),
            module: None,
            entry_point: None,
        };
        assert_eq!(
            (route.kind(), route.entry()),
            (AccountKind::PaceDelegate, Entry::Direct)
        );
    }
}
