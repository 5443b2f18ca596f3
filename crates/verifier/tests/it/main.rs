//! Integration tests of the verifier.

mod case;
mod checks;
mod examples;
mod invisibles;
mod props;
