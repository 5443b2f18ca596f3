//! The world deploys deterministically and holds what its documentation says.

use alloy_primitives::{Address, U256, hex};
use alloy_sol_types::{SolCall, SolError};
use pace_contracts::bindings::{IUniswapV2Pair, MockLendingPool, PaceAccount};
use pace_simulator::SimulateOptions;
use pace_types::{Call, Claims, Intent};
use pace_world::{World, default_policy};

#[test]
fn world_is_deterministic_and_funded() {
    let verifier = Address::repeat_byte(0x5e);
    let a = World::new(verifier).unwrap();
    let b = World::new(verifier).unwrap();
    assert_eq!(a.addrs, b.addrs);

    let w = &a;
    let e18 = U256::from(10u64).pow(U256::from(18u64));
    assert_eq!(
        w.balance_of(w.addrs.weth, w.addrs.account),
        U256::from(100u64) * e18
    );
    assert_eq!(
        w.balance_of(w.addrs.dai, w.addrs.account),
        U256::from(105_000u64) * e18
    );
    assert_eq!(
        w.balance_of(Address::ZERO, w.addrs.account),
        U256::from(10u64) * e18
    );
    assert_eq!(
        w.evm
            .view_sol(w.addrs.account, &PaceAccount::verifierCall {})
            .unwrap(),
        verifier
    );

    let (r0, r1, _) = w
        .evm
        .view_sol(w.addrs.pair_weth_dai, &IUniswapV2Pair::getReservesCall {})
        .unwrap()
        .into();
    let mut reserves = [U256::from(r0), U256::from(r1)];
    reserves.sort();
    assert_eq!(
        reserves,
        [U256::from(10_000u64) * e18, U256::from(10_000_000u64) * e18]
    );

    let hf = w
        .evm
        .view_sol(
            w.addrs.lending_pool,
            &MockLendingPool::healthFactorCall {
                user: w.addrs.account,
            },
        )
        .unwrap();
    assert_eq!(hf, e18 * U256::from(16u64) / U256::from(10u64));

    let policy = default_policy(&w.addrs);
    assert!(policy.compile().is_ok());
}

/// The simulator names the account's and the standard errors by itself, the mocks' through
/// [`pace_world::revert_decoder`].
#[test]
fn mock_reverts_are_named_through_the_world_decoder() {
    let w = World::new(Address::repeat_byte(0x5e)).unwrap();
    let borrow = MockLendingPool::borrowCall {
        amount: U256::from(10u64).pow(U256::from(30u64)),
    };
    let intent = Intent {
        chain_id: w.evm.chain_id(),
        account: w.addrs.account,
        calls: vec![Call {
            target: w.addrs.lending_pool,
            value: U256::ZERO,
            data: borrow.abi_encode().into(),
        }],
        claimed: Claims::default(),
        metadata: Default::default(),
    };
    let plain = pace_simulator::simulate(&w.evm, &intent).unwrap();
    let selector = hex::encode(MockLendingPool::MockLendingPoolBorrowExceedsLtv::SELECTOR);
    assert_eq!(
        plain.revert_reason,
        Some(format!("custom error 0x{selector}"))
    );
    let options = SimulateOptions::for_policy(&default_policy(&w.addrs))
        .with_revert_decoder(pace_world::revert_decoder());
    let named = pace_simulator::simulate_with(&w.evm, &intent, &options).unwrap();
    let reason = named.revert_reason.unwrap();
    assert!(
        reason.starts_with("MockLendingPoolBorrowExceedsLtv("),
        "{reason}"
    );
}
