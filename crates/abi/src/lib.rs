//! The one copy of the ABIs the trusted path uses: the simulator and the verifier both read
//! calldata, return data and logs through this crate.
//!
//! - [`balancer`]: the Balancer V2 Vault's swaps, pool views and `Swap` event, and a weighted
//!   pool's weights.
//! - [`bindings`]: `sol!` interfaces of the project's own `PaceAccount` and of the standards and
//!   protocols PACE understands (ERC-20 with EIP-2612 permit, WETH9, ERC-721, ERC-1155,
//!   ERC-4626, Uniswap V2 pair, factory and the complete Router02, a price oracle and a generic
//!   lending position). No mock contracts: those stay with the compiled sources in
//!   `pace-contracts`, which re-exports these.
//! - [`decode`]: strict calldata decoding into [`DecodedCall`], the facts trusted code derives
//!   from the exact bytes that will execute, with every recipient and every minimum a call names.
//! - [`protocols`]: the read-only views of Uniswap V3, AggregatorV3 feeds, Aave V3 and
//!   Compound-style markets that the simulator's valuation adapters read.
//! - [`rights`]: the contracts that record rights outside ERC-20 allowances (Permit2, credit
//!   delegation) and the Aave V3 and Compound-style views of an account's health factor.
//! - [`revert`]: revert data as text, the one formatter for simulation reports and submitted
//!   transactions, with a registry ([`revert::RevertDecoder`]) for other contracts' errors.
//!
//! Pure: no I/O, no clock, no compiler. It must never depend on `pace-types` or
//! `foundry-compilers`, so anything can use it without pulling in the toolchain.

pub mod balancer;
pub mod bindings;
pub mod decode;
pub mod protocols;
pub mod revert;
pub mod rights;

pub use decode::{
    AllowanceChange, AllowanceDelta, DecodeError, DecodedCall, Minimum, MinimumRole, PermitArgs,
    Recipient, RecipientRole, Route, RoutePool, Swap, SwapKind, Unread, decode_call,
    decode_call_from, unread, unread_batch_calls, unread_plan_commands,
};
