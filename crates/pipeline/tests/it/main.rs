//! Integration tests of the pipeline on the embedded world.

mod budget;
mod demo;
mod uniswap;
