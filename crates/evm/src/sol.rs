//! Typed calls with `sol!` bindings.

use crate::{error::Result, evm::InProcessEvm};
use alloy_primitives::{Address, U256};
use alloy_sol_types::SolCall;

impl InProcessEvm {
    /// Sends `call` from `from` to `to` with `value` as a committed transaction and decodes its
    /// return value. A revert is [`crate::Error::Reverted`]; decode its custom error with
    /// [`crate::Error::decode_revert`].
    pub fn call_sol<C: SolCall>(
        &mut self,
        from: Address,
        to: Address,
        value: U256,
        call: &C,
    ) -> Result<C::Return> {
        self.call(from, to, value, call.abi_encode().into())?
            .decode_return::<C>()
    }

    /// Evaluates `call` on `to` without committing anything and decodes its return value.
    pub fn view_sol<C: SolCall>(&self, to: Address, call: &C) -> Result<C::Return> {
        self.simulate(Address::ZERO, to, U256::ZERO, call.abi_encode().into())?
            .decode_return::<C>()
    }

    /// Like [`Self::view_sol`] with an explicit sender (`msg.sender`).
    pub fn simulate_sol<C: SolCall>(
        &self,
        from: Address,
        to: Address,
        value: U256,
        call: &C,
    ) -> Result<C::Return> {
        self.simulate(from, to, value, call.abi_encode().into())?
            .decode_return::<C>()
    }
}
