//! Integration tests of the verifier.

mod boundaries;
mod case;
mod checks;
mod claims;
mod dedupe;
mod descriptors;
mod examples;
mod invisibles;
mod liquidity;
mod plans;
mod props;
mod protocols;
mod signatures;
// Rights and lending health (adapters).
mod rights;
