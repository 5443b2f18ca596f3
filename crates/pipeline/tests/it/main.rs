//! Integration tests of the pipeline on the embedded world.

mod accounts;
mod budget;
mod demo;
mod uniswap;
