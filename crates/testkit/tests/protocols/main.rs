//! The protocols test bed: real npm bytecode (Uniswap V3, the Universal Router, Aave V3) and
//! the project's Permit2-compatible, feed and Compound-style contracts, each everyday action
//! executed through the world's account's owner path and read back; and the same bed on anvil.

mod aave;
mod anvil;
mod bindings;
mod common;
mod compound;
mod deploy;
mod feeds;
mod router;
mod safe;
mod uniswap;
