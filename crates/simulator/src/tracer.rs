//! [`Tracer`]: the revm inspector that watches the intent's calls.
//!
//! It records, over the whole batch:
//! - every address a call frame targets or runs the code of, and every created contract, in
//!   first-touch order (the account excluded, precompiles apart), reverted frames included:
//!   a contract that ran is touched even if its effects were rolled back;
//!
//! and, per call, only what survives (frames that revert drop theirs):
//! - ether moved by value transfers (calls, creations, self-destructs);
//! - the `msg.sender` of the frame that emitted each log, in log order, so that an `Approval`
//!   log can be told apart from a spender's `transferFrom` bookkeeping.

use alloy_primitives::{Address, Log, U256};
use pace_evm::revm::{
    Inspector,
    context::ContextTr,
    interpreter::{CallInputs, CallOutcome, CreateInputs, CreateOutcome},
};

use crate::precompile::is_precompile;

/// Ether moved by one value transfer that survived.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct EthFlow {
    pub(crate) from: Address,
    pub(crate) to: Address,
    pub(crate) amount: U256,
    /// How many surviving logs of the same call precede it (to interleave flows with logs).
    pub(crate) logs_before: usize,
}

/// What a frame started with, to roll back to if it fails.
#[derive(Debug, Clone, Copy)]
struct Frame {
    /// `msg.sender` inside the frame.
    caller: Address,
    eth_flows: usize,
    logs: usize,
    /// For creations: where the created address goes in `touched` (its first touch).
    touched: usize,
}

/// The inspector. See the module docs.
#[derive(Debug)]
pub(crate) struct Tracer {
    account: Address,
    pub(crate) touched: Vec<Address>,
    pub(crate) precompiles: Vec<Address>,
    pub(crate) eth_flows: Vec<EthFlow>,
    pub(crate) log_callers: Vec<Address>,
    frames: Vec<Frame>,
}

impl Tracer {
    pub(crate) fn new(account: Address) -> Self {
        Self {
            account,
            touched: Vec::new(),
            precompiles: Vec::new(),
            eth_flows: Vec::new(),
            log_callers: Vec::new(),
            frames: Vec::new(),
        }
    }

    /// Clears the per-call records before the next call.
    pub(crate) fn next_call(&mut self) {
        self.eth_flows.clear();
        self.log_callers.clear();
        self.frames.clear();
    }

    fn touch(&mut self, address: Address) {
        if address == self.account {
            return;
        }
        let list = if is_precompile(address) {
            &mut self.precompiles
        } else {
            &mut self.touched
        };
        if !list.contains(&address) {
            list.push(address);
        }
    }

    fn push_frame(&mut self, caller: Address) {
        self.frames.push(Frame {
            caller,
            eth_flows: self.eth_flows.len(),
            logs: self.log_callers.len(),
            touched: self.touched.len(),
        });
    }

    /// Pops the frame; drops its records if it failed. Returns it.
    fn pop_frame(&mut self, ok: bool) -> Option<Frame> {
        let frame = self.frames.pop()?;
        if !ok {
            self.eth_flows.truncate(frame.eth_flows);
            self.log_callers.truncate(frame.logs);
        }
        Some(frame)
    }

    fn eth_flow(&mut self, from: Address, to: Address, amount: U256) {
        if !amount.is_zero() && from != to {
            let logs_before = self.log_callers.len();
            self.eth_flows.push(EthFlow {
                from,
                to,
                amount,
                logs_before,
            });
        }
    }
}

impl<CTX: ContextTr> Inspector<CTX> for Tracer {
    fn call(&mut self, _context: &mut CTX, inputs: &mut CallInputs) -> Option<CallOutcome> {
        self.touch(inputs.target_address);
        self.touch(inputs.bytecode_address);
        self.push_frame(inputs.caller);
        if let Some(amount) = inputs.transfer_value() {
            self.eth_flow(inputs.transfer_from(), inputs.transfer_to(), amount);
        }
        None
    }

    fn call_end(&mut self, _context: &mut CTX, _inputs: &CallInputs, outcome: &mut CallOutcome) {
        self.pop_frame(outcome.instruction_result().is_ok());
    }

    fn create(&mut self, _context: &mut CTX, inputs: &mut CreateInputs) -> Option<CreateOutcome> {
        self.push_frame(inputs.caller());
        None
    }

    fn create_end(
        &mut self,
        _context: &mut CTX,
        inputs: &CreateInputs,
        outcome: &mut CreateOutcome,
    ) {
        let ok = outcome.instruction_result().is_ok();
        let Some(frame) = self.pop_frame(ok) else {
            return;
        };
        let Some(created) = outcome.address else {
            return;
        };
        if created != self.account && !self.touched.contains(&created) {
            self.touched
                .insert(frame.touched.min(self.touched.len()), created);
        }
        if ok && !inputs.value().is_zero() {
            let flow = EthFlow {
                from: inputs.caller(),
                to: created,
                amount: inputs.value(),
                logs_before: frame.logs,
            };
            self.eth_flows
                .insert(frame.eth_flows.min(self.eth_flows.len()), flow);
        }
    }

    fn log(&mut self, _context: &mut CTX, _log: Log) {
        let caller = self
            .frames
            .last()
            .map_or(Address::ZERO, |frame| frame.caller);
        self.log_callers.push(caller);
    }

    fn selfdestruct(&mut self, contract: Address, target: Address, value: U256) {
        self.eth_flow(contract, target, value);
    }
}
