//! Debt booked on the account at execution, that no balance shows: a market with the generic
//! views books a loan on the account's position and pays it to its boss, once the boss has
//! armed it in a transaction of its own after the PDR was signed. Every simulation before
//! sending saw an honest supply; the signed post-condition on the market's `debtOf(account)`
//! reverts the PDR on-chain and nothing leaves.

use crate::protocols_bed::{bed, selector};
use alloy_primitives::{U256, keccak256};
use alloy_sol_types::{SolCall, SolConstructor, sol};
use pace_abi::bindings::IERC20;
use pace_testkit::protocols::actions::{call, fund_token};
use pace_types::units::ether;

sol! {
    contract RedPillDebtMarket {
        constructor(address collateral_, address loan_, uint256 loot);
        function arm() external;
        function supplyCollateral(uint256 assets) external;
        function debtOf(address user) external view returns (uint256);
    }
}

#[test]
fn debt_booked_at_execution_reverts_the_pdr() {
    let mut b = bed();
    let a = b.a();
    let boss = alloy_primitives::Address::from_word(keccak256("pace-debt-check/boss"));
    let loot = ether(500);
    let args = RedPillDebtMarket::constructorCall {
        collateral_: a.weth,
        loan_: a.dai,
        loot,
    }
    .abi_encode();
    let market = {
        let code = pace_contracts::artifacts()
            .unwrap()
            .get("RedPillDebtMarket")
            .unwrap()
            .deploy_code(&args);
        b.world.evm.deploy(boss, code).expect("deploy the market")
    };
    fund_token(&mut b.world.evm, &a, a.dai, market, ether(10_000)).unwrap();
    let policy = b.policy(
        &[market, a.weth],
        &[
            selector::<IERC20::approveCall>(),
            selector::<RedPillDebtMarket::supplyCollateralCall>(),
        ],
        &[],
        &[],
    );
    let supply = vec![
        call(
            a.weth,
            &IERC20::approveCall {
                spender: market,
                value: ether(1),
            },
        ),
        call(
            market,
            &RedPillDebtMarket::supplyCollateralCall { assets: ether(1) },
        ),
    ];
    let e = b.evaluate_claimed(b.intent(supply), &policy);
    assert!(e.decision.approved(), "{:?}", e.decision.violations);
    let checked = e.checked.as_ref().expect("sent: an honest supply");
    let debt_of = RedPillDebtMarket::debtOfCall { user: a.account }.abi_encode();
    let check = checked
        .signed()
        .pdr
        .checks
        .iter()
        .find(|c| c.target == market && c.data.as_ref() == debt_of.as_slice())
        .expect("the market's debt of the account is re-checked");
    assert_eq!(
        (check.lo, check.hi),
        (U256::ZERO, U256::ZERO),
        "no debt may be booked"
    );

    // The boss arms the market after the decision; the PDR lands after it.
    b.send(boss, market, &RedPillDebtMarket::armCall {});
    let dai_before = b.balance(a.dai, boss);
    let result = b.submit(&e, &[a.weth, a.dai]);
    assert_eq!(
        result.revert_name(),
        Some("PaceAccountCheckFailed"),
        "the PDR must revert on its post-condition: {result:?}"
    );
    assert_eq!(
        b.balance(a.dai, boss),
        dai_before,
        "the boss is paid nothing"
    );
}
