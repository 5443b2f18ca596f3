//! Value of what real protocols hold, judged by executing: Uniswap V3 swaps priced by V3 pools
//! and V3 positions, Aave V3 and Compound-style borrows and repays conserving value as the
//! exchanges they are, and the attacks that used to pass (a debt-masked loss, a stale feed
//! pricing a bad trade, a stranger recipient on a V3 swap) refused and shown, through the
//! owner's raw path, to lose real value. On the npm bytecode of the protocols test bed,
//! in-process.

mod attacks;
mod claim_rate;
mod lending;
mod props;
pub(crate) mod routes;
mod split;
pub(crate) mod support;
mod swap_router02;
mod ur_plans;
mod v3;
