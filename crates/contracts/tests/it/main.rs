//! Integration tests of pace-contracts: the embedded build-time compilation, parity with forge,
//! the npm artifacts, bindings.

mod bindings;
mod compile;
mod uniswap;
