//! Integration tests of pace-simulator against a fixture world of real and mock contracts.

mod basics;
mod deps;
mod discrepancies;
mod lending;
mod remote;
mod reverts;
mod swaps;
