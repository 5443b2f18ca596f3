//! The accounts a PDR can go to and how it reaches them: a `PaceAccount` or an EOA delegated to
//! `PaceDelegate` (EIP-7702), directly or through the ERC-4337 EntryPoint v0.8
//! (`docs/accounts.md`).
//!
//! What differs between them, and nothing else does: where the account keeps its state (the
//! standalone account from slot 0, the delegate in its ERC-7201 namespace), the EIP-712 domain
//! the PDR is signed in (the delegate's carries its set-up salt, the EntryPoint path's the user
//! operation's hash), where the nonce's sequence is read (the account's lane, or the
//! EntryPoint's nonce), and the transaction that carries the PDR (a call to the account, or
//! `handleOps` to the EntryPoint).

use crate::{Error, Relayer, Result};
use alloy_primitives::{Address, B256, U256, b256, keccak256};
use alloy_sol_types::SolCall;
use pace_abi::bindings::PaceDelegate::domainSaltCall;
use pace_evm::InProcessEvm;
use pace_signer::Route;
use pace_types::{Intent, SimulationReport, user_op::UserOpGas};

/// The kind of account the intent's `account` is.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum AccountKind {
    /// A `PaceAccount` of its own (`contracts/PaceAccount.sol`).
    #[default]
    PaceAccount,
    /// An EOA delegated to `PaceDelegate` with EIP-7702 (`contracts/PaceDelegate.sol`).
    PaceDelegate,
}

/// How signed PDRs reach the account.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Entry {
    /// A transaction from the relayer to the account (`executePDR` / `executeBatchPDR`).
    #[default]
    Direct,
    /// A user operation the relayer bundles itself through the EntryPoint v0.8 (`handleOps`).
    EntryPoint,
}

/// The EntryPoint v0.8 both accounts trust.
pub const ENTRY_POINT: Address = pace_types::user_op::ENTRY_POINT_V08;

/// Gas a PDR user operation's validation may use: the batch's hashing, one signature recovery,
/// two storage reads and the prefund (measured under 40,000 for small batches; the rest is
/// headroom for large ones).
pub const VERIFICATION_GAS_LIMIT: u128 = 150_000;

/// `PaceDelegate`'s ERC-7201 namespace (`pace.delegate.v1`): the core's state starts there,
/// as `contracts/PaceDelegate.sol` declares it.
pub const DELEGATE_NAMESPACE: B256 =
    b256!("0a77491a114767f413aad0dc67297bb622aec1da0ef7bade1cd1421e1010f800");

impl AccountKind {
    /// The kind of account `signed` was signed for (a delegate's PDR carries its set-up salt).
    pub fn of(signed: &pace_signer::SignedPdr) -> Self {
        if signed.delegate_salt.is_some() {
            Self::PaceDelegate
        } else {
            Self::PaceAccount
        }
    }

    /// The slot of the packed config word (verifier | paused | lane-0 sequence | budgets on).
    pub fn config_slot(self) -> U256 {
        match self {
            Self::PaceAccount => U256::ZERO,
            Self::PaceDelegate => DELEGATE_NAMESPACE.into(),
        }
    }

    /// The slot of the lane-sequence mapping (lanes other than 0).
    pub fn lanes_slot(self) -> U256 {
        self.config_slot() + U256::from(1u8)
    }

    /// The slot of lane `key`'s sequence when `key` is not 0.
    pub fn lane_slot(self, key: u32) -> U256 {
        // keccak256(abi.encode(uint32 key, uint256 slot)).
        let mut preimage = [0u8; 64];
        preimage[28..32].copy_from_slice(&key.to_be_bytes());
        preimage[32..].copy_from_slice(&self.lanes_slot().to_be_bytes::<32>());
        keccak256(preimage).into()
    }
}

alloy_sol_types::sol! {
    /// The EntryPoint's nonces (`NonceManager`).
    interface IEntryPointNonces {
        function getNonce(address sender, uint192 key) external view returns (uint256 nonce);
    }
}

/// The next sequence of lane `key` where `entry` consumes it: the account's lane (at its
/// kind's layout) on the direct path, the EntryPoint's nonce on the EntryPoint path, where the
/// account's lane is a floor ([`Error::LaneCancelled`] when the floor is above it). One lane
/// serves one path: a direct PDR on a lane raises the floor the EntryPoint path meets there.
pub fn sequence_for(
    world: &InProcessEvm,
    account: Address,
    key: u32,
    kind: AccountKind,
    entry: Entry,
) -> Result<u64> {
    match entry {
        Entry::Direct => crate::sequence::lane_sequence(world, account, key, kind),
        Entry::EntryPoint => {
            let data = IEntryPointNonces::getNonceCall {
                sender: account,
                key: alloy_primitives::aliases::U192::from(key),
            }
            .abi_encode();
            let out = world
                .view(ENTRY_POINT, data.into())
                .map_err(|e| Error::NotPaceAccount {
                    account,
                    reason: format!("the EntryPoint v0.8 does not answer getNonce: {e}"),
                })?;
            let nonce = IEntryPointNonces::getNonceCall::abi_decode_returns(&out).map_err(|e| {
                Error::NotPaceAccount {
                    account,
                    reason: e.to_string(),
                }
            })?;
            let sequence = nonce.as_limbs()[0];
            let floor = crate::sequence::lane_sequence(world, account, key, kind)?;
            if floor > sequence {
                return Err(Error::LaneCancelled {
                    key,
                    floor,
                    sequence,
                });
            }
            Ok(sequence)
        }
    }
}

/// The set-up salt of the EOA `account` delegated to `PaceDelegate` (its `domainSalt()`).
pub fn delegate_salt(world: &InProcessEvm, account: Address) -> Result<B256> {
    let out = world
        .view(account, domainSaltCall {}.abi_encode().into())
        .map_err(|e| Error::NotPaceAccount {
            account,
            reason: format!("no PaceDelegate answers domainSalt(): {e}"),
        })?;
    domainSaltCall::abi_decode_returns(&out).map_err(|e| Error::NotPaceAccount {
        account,
        reason: e.to_string(),
    })
}

/// The route a PDR for `intent` is signed for: its account kind's salt, read from `world`, and
/// on the EntryPoint path the user operation's gas: validation [`VERIFICATION_GAS_LIMIT`],
/// execution 1.5x the simulated calls' gas plus room for the account's own work (10,000 per
/// bound and held asset, `bounded`, and 60,000 besides), the operation's calldata priced at 16
/// gas a byte on top of the bundle's fixed 50,000 for `preVerificationGas`, and the relayer's
/// fees.
pub fn route_for(
    world: &InProcessEvm,
    intent: &Intent,
    kind: AccountKind,
    entry: Entry,
    relayer: &Relayer,
    report: &SimulationReport,
    bounded: usize,
) -> Result<Route> {
    let account = intent.account;
    let delegate_salt = match kind {
        AccountKind::PaceAccount => None,
        AccountKind::PaceDelegate => Some(delegate_salt(world, account)?),
    };
    let entry_point = match entry {
        Entry::Direct => None,
        Entry::EntryPoint => {
            let call_gas = u128::from(report.gas_used).saturating_mul(3) / 2
                + 60_000
                + 10_000 * bounded as u128;
            let gas = UserOpGas {
                verification_gas_limit: VERIFICATION_GAS_LIMIT,
                call_gas_limit: call_gas,
                pre_verification_gas: 50_000 + 16 * op_bytes(intent, bounded),
                max_priority_fee_per_gas: relayer.priority_fee_per_gas,
                max_fee_per_gas: relayer.max_fee_per_gas,
            };
            Some((ENTRY_POINT, gas))
        }
    };
    Ok(Route {
        delegate_salt,
        entry_point,
    })
}

/// At most the bytes a PDR user operation for `intent` with `bounded` bounds and held assets
/// takes in `handleOps`: each call's data and its head (5 words), each bound (6 words), the
/// signature (4 words), the operation's fixed fields and offsets (20 words).
fn op_bytes(intent: &Intent, bounded: usize) -> u128 {
    let calls: usize = intent.calls.iter().map(|c| c.data.len() + 160).sum();
    (calls + 192 * bounded + 128 + 640) as u128
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
}
