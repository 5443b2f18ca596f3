//! A bound is inclusive: a figure exactly at it passes, one unit more does not (mutation
//! testing found the price impact's edge untested).

use crate::case::Case;
use pace_types::ViolationCode as Code;

#[test]
fn price_impact_exactly_at_the_bound_passes() {
    let at = |bps: u32| {
        Case::benign().with(|c| {
            let max = c.policy.max_price_impact_bps;
            let swap = c.report_mut().swap.as_mut().unwrap();
            swap.price_impact_bps = max + bps;
            // The fee-inclusive shortfall stays under it.
            swap.quoted_out = swap.amount_out;
        })
    };
    assert!(
        !at(0).codes().contains(&Code::PriceImpactExceeded),
        "{:?}",
        at(0).codes()
    );
    assert!(
        at(1).codes().contains(&Code::PriceImpactExceeded),
        "{:?}",
        at(1).codes()
    );
}
