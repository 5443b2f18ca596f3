//! Integration tests of the pipeline on the embedded world.

mod accounts;
mod budget;
mod demo;
mod freshness;
mod junk;
mod props_exec;
mod remote;
mod sequence;
mod uniswap;
mod whole_delta;
