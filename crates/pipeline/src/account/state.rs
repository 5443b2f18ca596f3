//! [`AccountState`]: what a PDR's account is on one state, read once.
//!
//! Four facts share the account's packed config word (`contracts/core/PaceCore.sol`,
//! `PaceStore.config`): the verifier (bits 0-159), the pause flag (160-167), lane 0's sequence
//! (168-231) and whether budgets are on (232-239). The word sits at slot 0 of a `PaceAccount`
//! and of a Safe's `PaceModule`, and at the ERC-7201 namespace of a `PaceDelegate` EOA
//! ([`AccountKind::config_slot`]); a delegate also has the set-up salt its domains carry, a
//! Safe the module that guards it (`account/module.rs`). [`AccountState::read`] reads the code,
//! the word and the salt once; the passes, the route, the service's pre-flight and its lanes
//! take them from it. Other lanes' sequences are one slot each, read when asked for.

use crate::{Error, Result};
use alloy_primitives::{Address, B256, U256};
use alloy_sol_types::SolCall;
use pace_abi::bindings::PaceDelegate::domainSaltCall;
use pace_evm::InProcessEvm;
use pace_types::{AccountKind, pdr::EntryPath};
use std::sync::atomic::{AtomicU64, Ordering};

const PAUSED_SHIFT: usize = 160;
const SEQUENCE_SHIFT: usize = 168;
const BUDGETED_SHIFT: usize = 232;

/// How many times this process read an account's state ([`AccountState::read`]).
static READS: AtomicU64 = AtomicU64::new(0);

/// How many times this process has read an account's state: a counter for metrics, and for
/// the tests that hold a confirm to one read.
pub fn account_state_reads() -> u64 {
    READS.load(Ordering::Relaxed)
}

/// A PACE account's state on one EVM state: its kind, its config word, for a delegate its
/// set-up salt, and for a Safe the `PaceModule` that guards it (where the config word lives
/// and PDRs go).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AccountState {
    account: Address,
    kind: AccountKind,
    config: U256,
    salt: Option<B256>,
    module: Option<Address>,
}

impl AccountState {
    /// Reads the account `account` of `kind` on `state`: `None` when it has no code (an EOA
    /// without a delegation, which takes no PDR). Errors with [`Error::NotPaceAccount`] when
    /// its state cannot be read or, for a delegate, when no `PaceDelegate` answers
    /// `domainSalt()`.
    pub fn read(state: &InProcessEvm, account: Address, kind: AccountKind) -> Result<Option<Self>> {
        READS.fetch_add(1, Ordering::Relaxed);
        let not_pace = |reason: String| Error::NotPaceAccount { account, reason };
        let code = state.code(account).map_err(|e| not_pace(e.to_string()))?;
        if code.is_empty() {
            return Ok(None);
        }
        let module = match kind {
            AccountKind::PaceModule => Some(super::module::guarding(state, account)?),
            AccountKind::PaceAccount | AccountKind::PaceDelegate => None,
        };
        let config = state
            .storage(module.unwrap_or(account), kind.config_slot())
            .map_err(|e| not_pace(e.to_string()))?;
        let salt = match kind {
            AccountKind::PaceAccount | AccountKind::PaceModule => None,
            AccountKind::PaceDelegate => {
                let out = state
                    .view(account, domainSaltCall {}.abi_encode().into())
                    .map_err(|e| not_pace(format!("no PaceDelegate answers domainSalt(): {e}")))?;
                Some(
                    domainSaltCall::abi_decode_returns(&out)
                        .map_err(|e| not_pace(e.to_string()))?,
                )
            }
        };
        Ok(Some(Self {
            account,
            kind,
            config,
            salt,
            module,
        }))
    }

    /// [`Self::read`], with an account without code an [`Error::NotPaceAccount`].
    pub fn read_pace(state: &InProcessEvm, account: Address, kind: AccountKind) -> Result<Self> {
        Self::read(state, account, kind)?.ok_or_else(|| Error::NotPaceAccount {
            account,
            reason: "it has no code".into(),
        })
    }

    /// The account.
    pub fn account(&self) -> Address {
        self.account
    }

    /// Its kind.
    pub fn kind(&self) -> AccountKind {
        self.kind
    }

    /// The verifier it trusts (the zero address: none, a delegate never set up).
    pub fn verifier(&self) -> Address {
        Address::from_word(B256::from(self.config))
    }

    /// Whether PDR execution is paused.
    pub fn paused(&self) -> bool {
        (self.config >> PAUSED_SHIFT).as_limbs()[0] & 0xff != 0
    }

    /// Whether it has spending budgets (then every PDR takes the batch entry point).
    pub fn budgeted(&self) -> bool {
        (self.config >> BUDGETED_SHIFT).as_limbs()[0] & 0xff != 0
    }

    /// The set-up salt of a delegate's domains (`None` for the other accounts).
    pub fn salt(&self) -> Option<B256> {
        self.salt
    }

    /// The `PaceModule` of a Safe account (`None` for the other accounts).
    pub fn module(&self) -> Option<Address> {
        self.module
    }

    /// Where its PDRs go and its PACE state lives: the Safe's module, or the account itself.
    pub fn entry(&self) -> Address {
        self.module.unwrap_or(self.account)
    }

    /// The config word with its verifier replaced by `verifier`: what pass 1 writes into the
    /// simulation's copy so that its simulation key is trusted.
    pub(crate) fn config_trusting(&self, verifier: Address) -> U256 {
        let mask: U256 = (U256::from(1u8) << 160usize) - U256::from(1u8);
        (self.config & !mask) | U256::from_be_slice(verifier.as_slice())
    }

    /// The next sequence of lane `key` on the direct path (`nextSequence(key)`): lane 0's from
    /// the config word, another lane's read from `state`.
    pub fn sequence(&self, state: &InProcessEvm, key: u32) -> Result<u64> {
        let word = if key == 0 {
            self.config >> SEQUENCE_SHIFT
        } else {
            state
                .storage(self.entry(), self.kind.lane_slot(key))
                .map_err(|e| Error::NotPaceAccount {
                    account: self.account,
                    reason: e.to_string(),
                })?
        };
        // The low 64 bits: a uint64 (the bits above it in the config word are the budgets flag).
        Ok(word.as_limbs()[0])
    }

    /// The direct entry path of its PDRs (with the delegate's salt), or the EntryPoint's for
    /// the user operation `user_op_hash`.
    pub fn path(&self, user_op_hash: Option<B256>) -> EntryPath {
        EntryPath::new(self.account, self.salt, self.module, user_op_hash)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_config_word_unpacks_as_the_core_packs_it() {
        let verifier = Address::repeat_byte(0xab);
        let config = U256::from_be_slice(verifier.as_slice())
            | (U256::from(1u8) << PAUSED_SHIFT)
            | (U256::from(41u8) << SEQUENCE_SHIFT)
            | (U256::from(1u8) << BUDGETED_SHIFT);
        let state = AccountState {
            account: Address::repeat_byte(1),
            kind: AccountKind::PaceAccount,
            config,
            salt: None,
            module: None,
        };
        assert_eq!(state.verifier(), verifier);
        assert!(state.paused() && state.budgeted());
        assert_eq!(
            state.sequence(&InProcessEvm::new(1), 0).unwrap(),
            41,
            "lane 0 needs no read"
        );
        let other = Address::repeat_byte(0xcd);
        let trusting = AccountState {
            config: state.config_trusting(other),
            ..state
        };
        assert_eq!(trusting.verifier(), other);
        assert!(trusting.paused() && trusting.budgeted());
    }
}
