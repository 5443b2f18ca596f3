//! Nonce lanes: a live signed PDR holds its sequence; the next PDR moves to another lane until
//! the chain shows the first one dead.

use crate::common::Setup;
use pace_service::{
    Error, lanes,
    store::{ReservationState, Store},
};

#[test]
fn a_live_pdr_moves_the_next_one_to_another_lane_until_it_is_dead() {
    let s = Setup::default();
    let account = s.addrs.account;
    let mut st = s.service.state();
    let st = &mut *st;
    let store: &mut dyn Store = st.store.as_mut();
    let mut first = lanes::reserve(store, &st.world, account, &[0, 1], "p-1").unwrap();
    assert_eq!((first.lane, first.sequence), (0, 0));
    first.state = ReservationState::Signed;
    first.valid_until = Some(st.world.evm.timestamp() + 60);
    store.update_reservation(&first).unwrap();

    let second = lanes::reserve(store, &st.world, account, &[0, 1], "p-2").unwrap();
    assert_eq!((second.lane, second.sequence), (1, 0));
    let mut signed = second;
    signed.state = ReservationState::Signed;
    signed.valid_until = Some(st.world.evm.timestamp() + 60);
    store.update_reservation(&signed).unwrap();
    assert!(matches!(
        lanes::reserve(store, &st.world, account, &[0, 1], "p-3"),
        Err(Error::NoFreeLane)
    ));

    // Past validUntil, with the lane still at sequence 0, the first PDR is dead.
    st.world.advance(10);
    let third = lanes::reserve(store, &st.world, account, &[0, 1], "p-3").unwrap();
    assert_eq!(
        (third.lane, third.sequence, third.proposal_id.as_str()),
        (0, 0, "p-3")
    );
}
