//! An ERC-6909 ledger (OpenZeppelin's, `MockERC6909`): the account's claims are value like an
//! ERC-1155 balance. A transfer of them is a movement read from the ledger's `Transfer` event
//! and judged by the same rules: to a stranger it is refused, and to a payee it is a payment
//! the policy must be able to price.

use crate::protocols_bed::{bed, deploy};
use alloy_primitives::{Address, U256};
use alloy_sol_types::{SolCall, sol};
use pace_testkit::protocols::{actions::call, ether};
use pace_types::{Policy, TablePrice, ViolationCode as Code};

sol! {
    /// ERC-6909's transfer and the mock's mint.
    interface IMockERC6909 {
        function transfer(address receiver, uint256 id, uint256 amount) external returns (bool);
        function mint(address to, uint256 id, uint256 amount) external;
        function balanceOf(address owner, uint256 id) external view returns (uint256);
    }
}

#[test]
fn claims_sent_from_the_account_are_movements_judged_as_such() {
    let mut b = bed();
    let a = b.a();
    let ledger = deploy(&mut b, "MockERC6909", &[]);
    let id = U256::from(7u8);
    b.send(
        b.bed.deployer,
        ledger,
        &IMockERC6909::mintCall {
            to: a.account,
            id,
            amount: U256::from(100u8),
        },
    );
    let payee = Address::repeat_byte(0x9a);
    let mut policy = b.policy(
        &[ledger],
        &[IMockERC6909::transferCall::SELECTOR],
        &[ledger],
        &[ledger],
    );
    policy.allowed_recipients.push(payee);
    let send = |to: Address, amount: u64| {
        vec![call(
            ledger,
            &IMockERC6909::transferCall {
                receiver: to,
                id,
                amount: U256::from(amount),
            },
        )]
    };
    let stranger = Address::repeat_byte(0x5e);
    let codes = |b: &crate::protocols_bed::Bed, policy: &Policy, to: Address| -> Vec<Code> {
        let evaluation = b.evaluate_claimed(b.intent(send(to, 60)), policy);
        evaluation.decision.codes().collect()
    };
    // Nothing prices the claims: the payment cannot be weighed.
    assert_eq!(codes(&b, &policy, payee), vec![Code::UnpricedAsset]);
    let to_stranger = codes(&b, &policy, stranger);
    assert!(
        to_stranger.contains(&Code::RecipientNotAllowed),
        "{to_stranger:?}"
    );
    // Priced at 0.01 ether a claim, 60 of them given away are a loss beyond the policy's.
    policy.prices.push(TablePrice {
        token: ledger,
        amount: U256::from(1u8),
        value: ether(1) / U256::from(100u8),
    });
    assert_eq!(codes(&b, &policy, payee), vec![Code::LossExceeded]);
}
