//! Records under the account that name no one: a custody whose depositors grant their
//! balances to agents by registry index (a bit mask) or to whoever reveals a hash's preimage.
//! No address of the trace names who gains, and no view of the custody explains the record:
//! refused as an opaque authorisation, unless the policy names the custody in
//! `opaque_key_targets`. Executed through the owner's path, the agent takes the balance.

use crate::protocols_bed::{bed, codes, deploy, selector};
use alloy_primitives::{Address, B256, U256, aliases::U96, keccak256};
use alloy_sol_types::{SolConstructor, sol};
use pace_abi::bindings::IERC20;
use pace_testkit::protocols::actions::call;
use pace_types::{ViolationCode as Code, units::ether};

sol! {
    contract IndexedGrants {
        constructor(address[] agents_);
        function deposit(address token, uint256 amount) external;
        function setAgents(uint256 mask) external;
        function commitRecovery(uint96 tag) external;
        function take(address user, address token, uint256 index, bytes32 secret) external;
    }
}

#[test]
fn a_record_under_the_account_that_names_no_one_is_refused() {
    let mut b = bed();
    let a = b.a();
    let agent = Address::from_word(keccak256("pace-records/agent"));
    let args = IndexedGrants::constructorCall {
        agents_: vec![a.payee, a.trader, agent],
    }
    .abi_encode();
    let custody = deploy(&mut b, "IndexedGrants", &args);
    let deposit = [
        call(
            a.dai,
            &IERC20::approveCall {
                spender: custody,
                value: ether(5_000),
            },
        ),
        call(
            custody,
            &IndexedGrants::depositCall {
                token: a.dai,
                amount: ether(5_000),
            },
        ),
    ];
    b.owner(&deposit);
    let policy = b.policy(
        &[custody],
        &[
            selector::<IndexedGrants::setAgentsCall>(),
            selector::<IndexedGrants::commitRecoveryCall>(),
        ],
        &[],
        &[],
    );
    let secret = B256::repeat_byte(0x5e);
    let tag = U96::from_be_slice(&keccak256(secret.as_slice())[20..]);
    let grants = [
        call(
            custody,
            &IndexedGrants::setAgentsCall {
                mask: U256::from(1u8 << 2),
            },
        ),
        call(custody, &IndexedGrants::commitRecoveryCall { tag }),
    ];
    for grant in &grants {
        let e = b.evaluate_claimed(b.intent(vec![grant.clone()]), &policy);
        assert_eq!(
            codes(&e),
            vec![Code::OpaqueAuthorization],
            "{:?}",
            e.decision
        );
        let mut trusting = policy.clone();
        trusting.opaque_key_targets = vec![custody];
        let e = b.evaluate_claimed(b.intent(vec![grant.clone()]), &trusting);
        assert!(e.decision.approved(), "{:?}", e.decision.violations);
    }
    // Through the owner's path, agent #2 takes the deposit.
    b.owner(&grants[..1]);
    b.send(
        agent,
        custody,
        &IndexedGrants::takeCall {
            user: a.account,
            token: a.dai,
            index: U256::from(2u8),
            secret: B256::ZERO,
        },
    );
    assert_eq!(b.balance(a.dai, agent), ether(5_000));
}
