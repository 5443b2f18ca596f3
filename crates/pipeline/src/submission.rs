//! What executes is what was simulated: the relayer, the two simulation passes and the
//! checked submission.
//!
//! - **Pass 1** ([`first_pass`]) runs the intent's calls inside the account's frame, as
//!   `executeBatchPDR` will run them, in one transaction from the relayer in the next block,
//!   with the relayer's gas limit and fees. The PDR it carries is signed by a simulation key
//!   ([`simulation_key`]) that the simulation's copy of the account trusts instead of its
//!   verifier (the verifier's slot is set on that copy only); its bounds read the policy's
//!   tokens and ether before and after, as the signed PDR's will, and allow anything. It
//!   yields the report and, from it, the signed bounds.
//! - **Pass 2** ([`crate::Pipeline::preflight`]) runs the exact signed transaction (same
//!   calldata, sender, gas limit and fees) on the same state, overriding nothing the account
//!   reads, and must succeed with pass 1's balance changes and approvals. Only a submission
//!   that passed it ([`Checked`]) is sent.

use crate::{
    Error, Result,
    account::{AccountState, calldata::pdr_transaction},
};
use alloy_primitives::{Address, B256, Bytes, U256};
use alloy_sol_types::SolCall;
use pace_abi::revert::RevertDecoder;
use pace_evm::InProcessEvm;
use pace_signer::{PdrSigner, SignedPdr};
use pace_simulator::{Submission, SubmissionBlock};
use pace_types::{
    BalanceChange, CompiledPolicy, ETH, Hashed, Intent, SimulationReport,
    pdr::{Attestation, Bound, Call, MAX_TIMESTAMP, Pdr, PdrTerms},
};
use std::sync::OnceLock;

/// Who submits PDRs and how: the relayer's address (`tx.origin`), the transaction's gas limit
/// and its EIP-1559 fees. Both passes run with it, and the chain sends with it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Relayer {
    /// The relayer's address.
    pub address: Address,
    /// The submission's gas limit.
    pub gas_limit: u64,
    /// `maxFeePerGas`, in wei (0: no fees, on a chain without a base fee).
    pub max_fee_per_gas: u128,
    /// `maxPriorityFeePerGas`, in wei.
    pub priority_fee_per_gas: u128,
}

impl Relayer {
    /// `address` submitting with `gas_limit` and paying no fees (the embedded world, a
    /// development chain without a base fee).
    pub fn free(address: Address, gas_limit: u64) -> Self {
        Self {
            address,
            gas_limit,
            max_fee_per_gas: 0,
            priority_fee_per_gas: 0,
        }
    }
}

impl Default for Relayer {
    /// The zero address with [`crate::SUBMISSION_GAS_LIMIT`], paying no fees: what `pace
    /// simulate` assumes without `--relayer`.
    fn default() -> Self {
        Self::free(Address::ZERO, crate::SUBMISSION_GAS_LIMIT)
    }
}

/// The well-known key pass 1 signs with: the private key 1 ([`pace_signer::KEY_ONE`]), with
/// the public nonce ±1, so a signature costs one addition ([`pace_signer::key_one_signature`])
/// instead of a scalar multiplication. Public on purpose: no account trusts it (pass 1 makes the
/// simulation's copy of the account trust it), so nothing it signs can execute.
pub fn simulation_key() -> &'static PdrSigner {
    static KEY: OnceLock<PdrSigner> = OnceLock::new();
    KEY.get_or_init(|| {
        PdrSigner::from_bytes(&B256::with_last_byte(1))
            .expect("the simulation key is a valid secp256k1 key")
    })
}

/// Whether `token` answers `balanceOf(account)` with at least one word, as the account's
/// balance bound reads it.
fn balance_readable(state: &InProcessEvm, token: Address, account: Address) -> bool {
    let data = pace_abi::bindings::IERC20::balanceOfCall { account }.abi_encode();
    state
        .view(token, data.into())
        .is_ok_and(|out| out.len() >= 32)
}

/// Pass 1's transaction for `intent` on `state`, to `account` as read on it (see the module
/// docs). An account keeps its config word where its kind says (a delegated EOA in its
/// namespace), and its direct path's domain carries the kind's salt. On the EntryPoint path
/// too, pass 1 runs the calls in the account's direct frame: the calls see the same account,
/// origin and block; pass 2 runs the exact `handleOps`.
pub(crate) fn first_pass(
    state: &InProcessEvm,
    intent: &Hashed<Intent>,
    policy: &CompiledPolicy,
    relayer: &Relayer,
    account: &AccountState,
) -> Result<Submission> {
    let key = simulation_key();
    let terms = PdrTerms {
        key: 0,
        sequence: account.sequence(state, 0)?,
        valid_after: 0,
        valid_until: MAX_TIMESTAMP,
        simulation_block: state.block_number(),
        max_simulation_age: u16::MAX,
        call_gas_kib: 0,
    };
    let calls: Vec<Call> = intent.calls.iter().map(Call::from).collect();
    // What the signed PDR's bounds will read (the policy's tokens and ether), read the same
    // way, allowing anything. A policy token without `balanceOf(address)` (an ERC-1155
    // collection the policy prices) gets no balance bound here, nor in the signed PDR, whose
    // bounds come from the balances the simulation could read.
    let holder = account.account();
    let mut tokens: Vec<Address> = pace_simulator::policy_tokens(policy)
        .into_iter()
        .filter(|&token| balance_readable(state, token, holder))
        .collect();
    tokens.push(ETH);
    tokens.sort();
    let bounds: Vec<Bound> = tokens
        .into_iter()
        .map(|token| Bound {
            maxOut: U256::MAX,
            ..Bound::balance(token)
        })
        .collect();
    let attestation = Attestation {
        policyHash: B256::ZERO,
        intentHash: B256::ZERO,
        simulationHash: B256::ZERO,
    };
    // No post-conditions: they are read off the report this pass yields.
    let pdr = Pdr::new(attestation, calls, bounds, Vec::new(), Vec::new(), &terms);
    let digest = pdr.digest_on(intent.chain_id, &account.path(None));
    let signed = SignedPdr {
        chain_id: intent.chain_id,
        account: holder,
        pdr,
        digest,
        signature: match pace_signer::key_one_signature(digest) {
            Some(signature) => signature,
            None => key.sign_digest(digest)?,
        },
        delegate_salt: account.salt(),
        module: account.module(),
        entry_point: None,
    };
    // The batch entry point always: its bounds read what the signed PDR's will.
    let (to, data) = pdr_transaction(&signed, true, relayer.address);
    debug_assert_eq!(to, account.entry());
    let mut submission = submission(state, relayer, data)?;
    if to != holder {
        // A Safe's module: the transaction goes to it, the calls run from the Safe.
        submission.to = Some(to);
    }
    let trusted = account.config_trusting(key.address());
    submission.overrides = vec![(to, account.kind().config_slot(), trusted)];
    Ok(submission)
}

/// `data` to the account from `relayer` in the block after `state`'s, overriding nothing.
pub(crate) fn submission(
    state: &InProcessEvm,
    relayer: &Relayer,
    data: Bytes,
) -> Result<Submission> {
    let mut block = SubmissionBlock::after(state);
    if relayer.max_fee_per_gas == 0 {
        // A relayer that pays no fees can only submit where gas is free: its simulation's
        // block has no base fee (the embedded world, a development chain; `pace simulate`
        // without a relayer's fees).
        block.base_fee = 0;
    }
    let submission = Submission {
        origin: relayer.address,
        to: None,
        data,
        gas_limit: relayer.gas_limit,
        max_fee_per_gas: relayer.max_fee_per_gas,
        priority_fee_per_gas: relayer.priority_fee_per_gas,
        block,
        overrides: Vec::new(),
    };
    // A relayer that cannot pay for the submission is the machinery's failure, not the
    // intent's: nothing can be sent.
    let needed = U256::from(relayer.gas_limit) * U256::from(relayer.max_fee_per_gas);
    let balance = state
        .balance(relayer.address)
        .map_err(pace_evm::Error::Fork)?;
    if balance < needed {
        return Err(Error::RelayerUnfunded {
            relayer: relayer.address,
            balance,
            needed,
        });
    }
    Ok(submission)
}

/// A signed PDR whose exact transaction ran on the simulated state with the simulated outcome
/// (pass 2): the only thing [`crate::Pipeline::submit`] sends. Only
/// [`crate::Pipeline::preflight`] makes one.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Checked {
    pub(crate) signed: SignedPdr,
    pub(crate) to: Address,
    pub(crate) calldata: Bytes,
    pub(crate) relayer: Relayer,
    pub(crate) digest: B256,
}

impl Checked {
    /// The signed PDR.
    pub fn signed(&self) -> &SignedPdr {
        &self.signed
    }

    /// Where the transaction goes: the account, or the EntryPoint (`handleOps`).
    pub fn to(&self) -> Address {
        self.to
    }

    /// The calldata sent to [`Self::to`].
    pub fn calldata(&self) -> &Bytes {
        &self.calldata
    }

    /// The relayer it was checked for, and must be sent by.
    pub fn relayer(&self) -> &Relayer {
        &self.relayer
    }

    /// The PDR's EIP-712 digest.
    pub fn digest(&self) -> B256 {
        self.digest
    }
}

/// Pass 2: `intent` traced in `tx`, the exact transaction that will be sent, on `state`. Errors
/// with [`Error::Diverged`] when it does not succeed. Unless `full`, the report holds only what
/// the execution did ([`pace_simulator::simulate_submission_effects`]): enough to compare its
/// movements, balance changes and approvals with the simulation's and to see what it read of
/// its environment, not to compare another run's relied reads or rights with it.
pub(crate) fn pass_two(
    state: &InProcessEvm,
    policy: &CompiledPolicy,
    intent: &Hashed<Intent>,
    tx: &Submission,
    revert_decoder: &RevertDecoder,
    full: bool,
) -> Result<SimulationReport> {
    let options = pace_simulator::SimulateOptions::for_policy(policy)
        .with_revert_decoder(revert_decoder.clone());
    let second = if full {
        pace_simulator::simulate_submission(state, intent, tx, &options)?.report
    } else {
        pace_simulator::simulate_submission_effects(state, intent, tx, &options)?.report
    };
    if !second.success {
        return Err(Error::Diverged(format!(
            "it reverts: {}",
            second.revert_reason.unwrap_or_default()
        )));
    }
    Ok(second)
}

/// Errors with [`Error::Diverged`] unless pass 2's balance changes (`changes`) are the
/// simulation's (`expected`).
pub(crate) fn same_balances(changes: &[BalanceChange], expected: &SimulationReport) -> Result<()> {
    if changes != expected.balance_changes.as_slice() {
        return Err(Error::Diverged(format!(
            "balance changes {changes:?}, simulated {:?}",
            expected.balance_changes
        )));
    }
    Ok(())
}

/// Errors with [`Error::Diverged`] unless pass 2 (`second`) moved the account's NFTs and set
/// approvals exactly as the simulation (`expected`) did.
pub(crate) fn same_rights(
    second: &SimulationReport,
    expected: &SimulationReport,
    account: Address,
) -> Result<()> {
    let theirs = |r: &SimulationReport| -> Vec<pace_types::NftFlow> {
        r.nft_flows
            .iter()
            .filter(|f| f.from == account || f.to == account)
            .cloned()
            .collect()
    };
    if theirs(second) != theirs(expected) {
        return Err(Error::Diverged(format!(
            "the account's NFT movements {:?}, simulated {:?}",
            theirs(second),
            theirs(expected)
        )));
    }
    if second.approvals != expected.approvals {
        return Err(Error::Diverged(format!(
            "approvals {:?}, simulated {:?}",
            second.approvals, expected.approvals
        )));
    }
    Ok(())
}
