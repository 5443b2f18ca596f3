//! What the traced code outside the account read of its transaction and block
//! ([`pace_types::EnvRead`]): one opcode at a time, in the frames the tracer does not trust
//! (anything but the account's own code and what calls it).

use alloy_primitives::{Address, U256};
use pace_evm::revm::{
    bytecode::opcode::{
        BALANCE, BASEFEE, BLOBBASEFEE, BLOBHASH, BLOCKHASH, CALL, CALLCODE, COINBASE, DELEGATECALL,
        DIFFICULTY, EXTCODECOPY, EXTCODEHASH, EXTCODESIZE, GAS, GASLIMIT, GASPRICE, NUMBER, ORIGIN,
        SELFBALANCE, STATICCALL, TIMESTAMP,
    },
    interpreter::{
        InstructionResult, Interpreter,
        interpreter::EthInterpreter,
        interpreter_types::{InputsTr, Jumps, LegacyBytecode},
    },
};
use pace_types::EnvRead;

/// The kinds read, as a set.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub(crate) struct EnvReads(u16);

impl EnvReads {
    fn add(&mut self, read: EnvRead) {
        self.0 |= 1 << read as u16;
    }

    /// The opcode `interp` is about to run, in a frame of a transaction sent by `origin` in a
    /// block produced by `coinbase` (each asked for only when an opcode names an address).
    pub(crate) fn step(
        &mut self,
        interp: &Interpreter<EthInterpreter>,
        origin: impl FnOnce() -> Address,
        coinbase: impl FnOnce() -> Address,
    ) {
        let read = match interp.bytecode.opcode() {
            ORIGIN => EnvRead::Origin,
            GASPRICE => EnvRead::GasPrice,
            COINBASE => EnvRead::Coinbase,
            DIFFICULTY => EnvRead::Prevrandao,
            GASLIMIT => EnvRead::GasLimit,
            BASEFEE => EnvRead::BaseFee,
            BLOBHASH | BLOBBASEFEE => EnvRead::Blob,
            TIMESTAMP => EnvRead::Timestamp,
            NUMBER => EnvRead::Number,
            BLOCKHASH => EnvRead::BlockHash,
            // The gas left, unless it is the gas argument of the call that follows: the callee
            // then sees it only through reads of its own.
            GAS => {
                let next = interp
                    .bytecode
                    .bytecode_slice()
                    .get(interp.bytecode.pc() + 1)
                    .copied();
                if matches!(next, Some(CALL | CALLCODE | DELEGATECALL | STATICCALL)) {
                    return;
                }
                EnvRead::Gas
            }
            BALANCE | EXTCODESIZE | EXTCODECOPY | EXTCODEHASH => {
                let Some(word) = interp.stack.data().last() else {
                    return;
                };
                let named = Address::from_word((*word).into());
                if (*word >> 160usize) != U256::ZERO {
                    return;
                }
                match party(named, origin, coinbase) {
                    Some(read) => read,
                    None => return,
                }
            }
            SELFBALANCE => match party(interp.input.target_address(), origin, coinbase) {
                Some(read) => read,
                None => return,
            },
            _ => return,
        };
        self.add(read);
    }

    /// A frame ended with `result`: running out of gas is a read of the gas it had.
    pub(crate) fn ended(&mut self, result: InstructionResult) {
        if matches!(
            result,
            InstructionResult::OutOfGas
                | InstructionResult::MemoryOOG
                | InstructionResult::MemoryLimitOOG
                | InstructionResult::PrecompileOOG
                | InstructionResult::InvalidOperandOOG
                | InstructionResult::ReentrancySentryOOG
        ) {
            self.add(EnvRead::OutOfGas);
        }
    }

    /// The kinds read, in order.
    pub(crate) fn list(self) -> Vec<EnvRead> {
        EnvRead::ALL
            .into_iter()
            .filter(|r| self.0 & (1 << *r as u16) != 0)
            .collect()
    }
}

/// Which of the transaction's parties `address` is, as a read of it.
fn party(
    address: Address,
    origin: impl FnOnce() -> Address,
    coinbase: impl FnOnce() -> Address,
) -> Option<EnvRead> {
    if address == origin() {
        Some(EnvRead::SenderBalance)
    } else if address == coinbase() {
        Some(EnvRead::Coinbase)
    } else {
        None
    }
}
