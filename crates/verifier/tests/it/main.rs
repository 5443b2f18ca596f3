//! Integration tests of the verifier.

mod case;
mod checks;
mod examples;
mod fixture;
mod invisibles;
mod props;
