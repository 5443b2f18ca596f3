//! Calldata decoding for the verifier: [`pace_abi::decode`] applied to an intent's calls.
//!
//! Decoded calls are *derived facts*: trusted code reading the exact bytes that will execute.
//! The decoder (in `pace-abi`, shared with the simulator) knows ERC-20 `transfer`, `approve`,
//! `transferFrom`, `increaseAllowance`, `decreaseAllowance`, EIP-2612 `permit`, WETH
//! `deposit` / `withdraw`, the whole Uniswap V2 Router02 ABI (every swap, add and remove
//! liquidity, ether, permit and fee-on-transfer variants), Uniswap V3 SwapRouter's swaps and
//! the Universal Router's single-trade plans. Arguments are decoded strictly.
//! Any other selector decodes to [`DecodedCall::Unknown`]: it is judged by the policy's
//! allowlists and by the general rules over the simulation (every movement's receiver, value
//! conservation, outcome bounds), but contributes no decoded facts.

use alloy_primitives::Address;
pub use pace_abi::bindings as abi;
pub use pace_abi::decode::{
    AllowanceChange, AllowanceDelta, DecodeError, DecodedCall, Minimum, MinimumRole, PermitArgs,
    Recipient, RecipientRole, Swap, SwapKind, selectors,
};
use pace_types::Call;

/// Decodes one call (strictly). Pure. Without its caller a Universal Router plan stays
/// `Unknown`: the verifier decodes with [`decode_call_from`].
pub fn decode_call(call: &Call) -> Result<DecodedCall, DecodeError> {
    pace_abi::decode_call(call.target, call.value, &call.data)
}

/// Decodes one call `caller` makes (strictly), Universal Router plans included. Pure.
pub fn decode_call_from(caller: Address, call: &Call) -> Result<DecodedCall, DecodeError> {
    pace_abi::decode_call_from(caller, call.target, call.value, &call.data)
}
