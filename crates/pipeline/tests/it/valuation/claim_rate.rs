//! A claim on a Compound-style market, valued at the market's exchange rate, is worth what the
//! rate says only while nobody is minted claims for nothing. The signer re-checks the rate the
//! decision valued the received cTokens at (`exchangeRateStored`, a view computed from the
//! market's cash, debt and supply): a market whose supply is inflated between the decision and
//! the landing reverts the PDR; the same PDR lands on the untouched market.

use super::support::compound_policy;
use crate::protocols_bed::{bed, codes};
use alloy_primitives::{Address, U256};
use alloy_sol_types::SolCall;
use pace_abi::{
    bindings::{IERC20, PaceAccount},
    protocols::ICTokenView,
};
use pace_testkit::protocols::ether;
use pace_types::pdr::CheckRelation;

#[test]
fn a_compound_supply_signs_the_exchange_rate_and_claims_minted_for_nothing_revert_it() {
    let mut b = bed();
    let (a, c) = (b.a(), b.bed.compound);
    let market = c.c_dai.c_token;
    let policy = compound_policy(&b);
    let supply = b.evaluate_claimed(b.intent(c.mint(&c.c_dai, ether(1_000))), &policy);
    assert!(supply.decision.approved(), "{:?}", codes(&supply));
    let checked = supply.checked.as_ref().expect("pass 2 agrees");
    let rate = ICTokenView::exchangeRateStoredCall {}.abi_encode();
    let check = checked
        .signed()
        .pdr
        .checks
        .iter()
        .find(|k| k.target == market && k.data.as_ref() == rate.as_slice())
        .unwrap_or_else(|| panic!("no rate check: {:?}", checked.signed().pdr.checks));
    assert_eq!(check.relation(), Some(CheckRelation::Within));
    assert!(!check.lo.is_zero() && check.hi == U256::MAX, "{check:?}");

    // The market's supply, multiplied by ten in its own slot: claims minted for nothing.
    let evm = &mut b.world.evm;
    let total = evm
        .view_sol(market, &IERC20::totalSupplyCall {})
        .expect("totalSupply");
    assert!(!total.is_zero());
    let slot = (0u64..16)
        .map(U256::from)
        .find(|s| evm.storage(market, *s).ok() == Some(total))
        .expect("the supply's slot");
    let mut untouched = evm.clone();
    evm.set_storage(market, slot, total * U256::from(10u8))
        .unwrap();
    let stranger = Address::repeat_byte(0x57);
    let landed = evm
        .call(stranger, a.account, U256::ZERO, checked.calldata().clone())
        .unwrap();
    assert!(!landed.success, "the supply landed on a diluted market");
    let error = landed.decode_revert::<PaceAccount::PaceAccountErrors>();
    assert!(
        matches!(
            error,
            Some(PaceAccount::PaceAccountErrors::PaceAccountCheckFailed(ref e))
                if e.target == market && e.quantityAfter < check.lo
        ),
        "{error:?}"
    );
    let landed = untouched
        .call(stranger, a.account, U256::ZERO, checked.calldata().clone())
        .unwrap();
    assert!(landed.success, "{landed:?}");
}
