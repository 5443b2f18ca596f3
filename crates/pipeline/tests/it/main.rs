//! Integration tests of the pipeline on the embedded world.

mod demo;
mod uniswap;
