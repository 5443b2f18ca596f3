//! Integration tests of pace-evm against the project's compiled contracts.

mod account;
mod basics;
mod ecrecover;
mod erc20;
mod fork;
mod inspector;
mod uniswap;

use alloy_primitives::{Address, Bytes, U256};
use alloy_sol_types::SolConstructor;
use pace_contracts::bindings::MockERC20;
use pace_evm::InProcessEvm;
pub(crate) use pace_testkit::ether;

pub(crate) const CHAIN_ID: u64 = 31337;
pub(crate) const DEPLOYER: Address = Address::repeat_byte(0xde);
pub(crate) const ALICE: Address = Address::repeat_byte(0xa1);
pub(crate) const BOB: Address = Address::repeat_byte(0xb0);

pub(crate) fn init_code(name: &str, ctor_args: &[u8]) -> Bytes {
    pace_contracts::artifacts()
        .expect("compile contracts/")
        .get(name)
        .expect(name)
        .deploy_code(ctor_args)
}

/// Deploys a MockERC20 (18 decimals) from [`DEPLOYER`].
pub(crate) fn deploy_token(evm: &mut InProcessEvm, symbol: &str) -> Address {
    let ctor = MockERC20::constructorCall {
        name_: format!("Token {symbol}"),
        symbol_: symbol.into(),
        decimals_: 18,
    };
    evm.deploy(DEPLOYER, init_code("MockERC20", &ctor.abi_encode()))
        .expect("deploy MockERC20")
}
