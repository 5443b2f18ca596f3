//! Integration tests of pace-contracts: compilation, caching, parity with forge, bindings.

mod bindings;
mod compile;
mod uniswap;
