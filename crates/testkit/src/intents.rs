//! Intents on the embedded world that several crates' tests and benches build.

use alloy_primitives::{Bytes, U256};
use alloy_sol_types::SolCall;
use pace_contracts::bindings::IERC20;
use pace_types::{Call, Claims, Intent, TokenAmount};
use pace_world::World;

/// The world's account paying `amount` DAI to its allow-listed payee with one `transfer`,
/// claimed as such.
pub fn dai_to_payee(world: &World, amount: U256) -> Intent {
    let a = world.addrs;
    Intent {
        chain_id: world.evm.chain_id(),
        account: a.account,
        calls: vec![Call {
            target: a.dai,
            value: U256::ZERO,
            data: Bytes::from(
                IERC20::transferCall {
                    to: a.payee,
                    value: amount,
                }
                .abi_encode(),
            ),
        }],
        claimed: Claims {
            outflows: vec![TokenAmount {
                token: a.dai,
                amount,
            }],
            ..Claims::default()
        },
        metadata: Default::default(),
    }
}
