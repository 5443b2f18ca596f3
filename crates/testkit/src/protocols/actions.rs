//! What every protocol's actions share: a call, an ERC-20 approval, funding an account with
//! the world's tokens, and executing calls through the account's owner path.

use super::chain::{Chain, Context as _, Error, Result};
use alloy_primitives::{Address, Bytes, U256};
use alloy_sol_types::SolCall;
use pace_contracts::bindings::{IERC20, IWETH9, MockERC20, PaceAccount};
use pace_types::Call;
use pace_world::Addresses;

/// A call of `target` with ABI-encoded `call` and no value.
pub fn call<C: SolCall>(target: Address, call: &C) -> Call {
    Call {
        target,
        value: U256::ZERO,
        data: Bytes::from(call.abi_encode()),
    }
}

/// `token.approve(spender, value)`.
pub fn approve(token: Address, spender: Address, value: U256) -> Call {
    call(token, &IERC20::approveCall { spender, value })
}

/// Gives `to` `amount` of one of the world's tokens, from the world's trader: WETH is wrapped
/// from ether credited to the trader, DAI and USDC are minted (anyone may mint the world's
/// mock tokens). Any other token is an error.
pub fn fund_token<C: Chain>(
    chain: &mut C,
    world: &Addresses,
    token: Address,
    to: Address,
    amount: U256,
) -> Result<()> {
    let trader = world.trader;
    if token == world.weth {
        chain.fund(trader, amount)?;
        chain
            .send(
                trader,
                token,
                amount,
                IWETH9::depositCall {}.abi_encode().into(),
            )
            .step("wrap WETH")?;
        if to != trader {
            chain
                .send_sol(trader, token, &IERC20::transferCall { to, value: amount })
                .step("transfer WETH")?;
        }
        Ok(())
    } else if token == world.dai || token == world.usdc {
        chain
            .send_sol(trader, token, &MockERC20::mintCall { to, amount })
            .step("mint")
    } else {
        Err(Error::msg(format!(
            "{token} is not a token the world can fund"
        )))
    }
}

/// [`fund_token`] `amount` to `holder`, who then approves `spender` for it.
pub fn fund_and_approve<C: Chain>(
    chain: &mut C,
    world: &Addresses,
    token: Address,
    (holder, spender): (Address, Address),
    amount: U256,
) -> Result<()> {
    fund_token(chain, world, token, holder, amount)?;
    chain
        .send_sol(
            holder,
            token,
            &IERC20::approveCall {
                spender,
                value: amount,
            },
        )
        .step("approve")
}

/// The world's account executes `calls` as one batch through its owner path
/// (`executeBatch`, sent by the owner; no PDR), as the benchmark does for its owner trials.
pub fn owner_execute<C: Chain>(chain: &mut C, world: &Addresses, calls: &[Call]) -> Result<()> {
    let batch = PaceAccount::executeBatchCall {
        calls: calls
            .iter()
            .map(|c| PaceAccount::Call {
                target: c.target,
                value: c.value,
                data: c.data.clone(),
            })
            .collect(),
    };
    chain.send_sol(world.owner, world.account, &batch)
}

/// `who`'s balance of `token` on `chain`.
pub fn balance<C: Chain>(chain: &C, token: Address, who: Address) -> Result<U256> {
    chain.view_sol(token, &IERC20::balanceOfCall { account: who })
}
