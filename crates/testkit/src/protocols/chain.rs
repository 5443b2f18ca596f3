//! [`Chain`]: what deploying and using the protocols needs from a chain, implemented by the
//! in-process EVM here and by an anvil node in [`super::node`], so one deployment and one set
//! of actions run on both.

use alloy_primitives::{Address, Bytes, U256};
use alloy_sol_types::SolCall;
use pace_contracts::bindings::PaceAccount;
use pace_evm::InProcessEvm;
use std::fmt;

/// Seconds per block when a [`Chain`] advances (as [`pace_world::World::advance`]).
pub const SECONDS_PER_BLOCK: u64 = 12;

/// Why a deployment step or an action failed: what was being done and what the chain said.
#[derive(Debug)]
pub struct Error {
    context: Vec<String>,
    message: String,
}

impl Error {
    /// An error with `message` and no context yet.
    pub fn msg(message: impl Into<String>) -> Self {
        Self {
            context: Vec::new(),
            message: message.into(),
        }
    }

    /// The same error inside `step` (outermost last).
    pub fn context(mut self, step: impl Into<String>) -> Self {
        self.context.push(step.into());
        self
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for step in self.context.iter().rev() {
            write!(f, "{step}: ")?;
        }
        f.write_str(&self.message)
    }
}

impl std::error::Error for Error {}

impl From<pace_evm::Error> for Error {
    /// A revert is described by [`describe_revert`]; anything else as the EVM says it.
    fn from(e: pace_evm::Error) -> Self {
        match e.revert() {
            Some(revert) => Self::msg(format!(
                "reverted: {} ({} gas)",
                describe_revert(&revert.output),
                revert.gas_used
            )),
            None => Self::msg(e.to_string()),
        }
    }
}

/// Revert data in words: a failed call of a PaceAccount batch (`PaceAccountCallFailed`) names
/// the call and describes its own revert; `Error(string)` and `Panic(uint256)` are decoded;
/// anything else is shown as hex.
pub fn describe_revert(output: &[u8]) -> String {
    use alloy_sol_types::SolError as _;
    if let Ok(failed) = PaceAccount::PaceAccountCallFailed::abi_decode(output) {
        return format!(
            "PaceAccountCallFailed: call {} reverted: {}",
            failed.index,
            describe_revert(&failed.reason)
        );
    }
    match alloy_sol_types::decode_revert_reason(output) {
        Some(reason) => reason,
        None if output.is_empty() => "without data".to_owned(),
        None => format!("data {}", alloy_primitives::hex::encode_prefixed(output)),
    }
}

impl From<pace_contracts::Error> for Error {
    fn from(e: pace_contracts::Error) -> Self {
        Self::msg(e.to_string())
    }
}

/// A result of this module.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// Adds the step being done to an error.
pub trait Context<T> {
    /// On error, says it happened while doing `step`.
    fn step(self, step: impl Into<String>) -> Result<T>;
}

impl<T, E: Into<Error>> Context<T> for std::result::Result<T, E> {
    fn step(self, step: impl Into<String>) -> Result<T> {
        self.map_err(|e| e.into().context(step))
    }
}

/// A chain the protocols are deployed on and used through: committed transactions from any
/// sender (the in-process EVM needs no keys; a development node impersonates), read-only calls,
/// ether out of thin air and the clock.
///
/// A transaction that reverts is an [`Error`] carrying the revert reason where the chain gives
/// one: deployment and test steps are all expected to succeed.
pub trait Chain {
    /// Deploys `init_code` from `from` (its next nonce fixes the address).
    fn deploy(&mut self, from: Address, init_code: Bytes) -> Result<Address>;

    /// Sends a committed call transaction.
    fn send(&mut self, from: Address, to: Address, value: U256, data: Bytes) -> Result<()>;

    /// A read-only call from the zero address at the latest state.
    fn view(&self, to: Address, data: Bytes) -> Result<Bytes>;

    /// Credits `wei` to `who`.
    fn fund(&mut self, who: Address, wei: U256) -> Result<()>;

    /// Moves the chain `blocks` blocks of [`SECONDS_PER_BLOCK`] forward.
    fn advance(&mut self, blocks: u64) -> Result<()>;

    /// The latest block's timestamp (the in-process EVM: the block the next transaction runs
    /// in).
    fn timestamp(&self) -> Result<u64>;

    /// Sends `call` from `from` to `to`.
    fn send_sol<C: SolCall>(&mut self, from: Address, to: Address, call: &C) -> Result<()>
    where
        Self: Sized,
    {
        self.send(from, to, U256::ZERO, call.abi_encode().into())
    }

    /// Reads `call` from `to` and decodes the return value.
    fn view_sol<C: SolCall>(&self, to: Address, call: &C) -> Result<C::Return>
    where
        Self: Sized,
    {
        let out = self.view(to, call.abi_encode().into())?;
        C::abi_decode_returns(&out)
            .map_err(|e| Error::msg(format!("decoding `{}`: {e}", C::SIGNATURE)))
    }
}

impl Chain for InProcessEvm {
    fn deploy(&mut self, from: Address, init_code: Bytes) -> Result<Address> {
        Ok(InProcessEvm::deploy(self, from, init_code)?)
    }

    fn send(&mut self, from: Address, to: Address, value: U256, data: Bytes) -> Result<()> {
        self.call(from, to, value, data)?.into_result()?;
        Ok(())
    }

    fn view(&self, to: Address, data: Bytes) -> Result<Bytes> {
        Ok(InProcessEvm::view(self, to, data)?)
    }

    fn fund(&mut self, who: Address, wei: U256) -> Result<()> {
        InProcessEvm::fund(self, who, wei).map_err(|e| Error::msg(e.to_string()))
    }

    fn advance(&mut self, blocks: u64) -> Result<()> {
        let (n, t) = (self.block_number(), InProcessEvm::timestamp(self));
        self.set_block(n + blocks, t + SECONDS_PER_BLOCK * blocks);
        Ok(())
    }

    fn timestamp(&self) -> Result<u64> {
        Ok(InProcessEvm::timestamp(self))
    }
}
