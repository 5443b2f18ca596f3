//! The PACE MEV sandwich simulator (paper section 5.3).
//!
//! Given a constant-product pool, a victim's exact-input swap with its minimum output, the pool
//! fee and an attacker's budget, [`optimise`] finds the profit-maximising front-run, replays the
//! back-run and reports the victim's loss, the attacker's profit and whether the victim's
//! slippage protection blocks the attack.
//!
//! Pure integer math over [`U256`](alloy_primitives::U256) with Uniswap V2's exact rounding
//! ([`get_amount_out`]): no floats, no I/O, no clock, no randomness. The same inputs give the
//! same report, and the numbers match a replay on real Uniswap V2 bytecode to the wei.
//! Gas is not modelled: profits are before transaction costs.

mod amm;
mod error;
mod optimise;

pub use amm::{BPS, Pool, Victim, get_amount_out};
pub use error::{Error, Result};
pub use optimise::{AttackOutcome, MevReport, Sandwich, optimise, simulate};
