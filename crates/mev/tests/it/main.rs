//! Integration tests: properties of the optimiser and a replay on real Uniswap V2 bytecode.

mod evm;
mod props;
