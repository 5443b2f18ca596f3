//! [`Route`]: one route of a trade split across several, as a Universal Router plan writes it
//! (legs from the same input to the same output, side by side).

use alloy_primitives::{Address, U256};

/// One route of a split trade: its share of the input and the pools it goes through.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Route {
    /// What the route sells: the amount its first leg's calldata names (after `WRAP_ETH`, the
    /// router's share of the wrapped value; a last route paid with everything the router holds
    /// takes the rest of it).
    pub amount_in: U256,
    /// Its tokens, input to output; at least two.
    pub path: Vec<Address>,
    /// Each hop's pool, one per hop: which protocol's leg wrote it.
    pub pools: Vec<RoutePool>,
}

/// The pool a route's hop goes through, as its leg names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RoutePool {
    /// A Uniswap V2 pair (`V2_SWAP_*`).
    V2,
    /// A Uniswap V3 pool of fee tier `fee` (`V3_SWAP_*`'s packed path).
    V3 {
        /// The pool's fee in hundredths of a bip.
        fee: u32,
    },
}
