//! The custom errors of the world's mock and reference contracts, in words.

use pace_abi::revert::RevertDecoder;
use pace_contracts::bindings::{
    MaliciousRouter::MaliciousRouterErrors, MockAmmPair::MockAmmPairErrors,
    MockAmmRouter::MockAmmRouterErrors, MockLendingPool::MockLendingPoolErrors,
    ReferenceAccount::ReferenceAccountErrors,
};

/// Decoders of the custom errors of the project's mock and reference contracts
/// (`contracts/mocks`, `contracts/reference`: the mock AMM pair and router, the malicious
/// router, the lending pool, the reference account), shown as `Name(arg, ...)`.
///
/// The simulator decodes the account's and the standard errors by itself and knows no mock:
/// give this to the pipeline (`Pipeline::with_revert_decoder`) wherever these contracts run
/// and a person reads the revert reason (this world, the benchmark's).
pub fn revert_decoder() -> RevertDecoder {
    RevertDecoder::new()
        .with_errors::<MockAmmPairErrors>(MockAmmPairErrors::SIGNATURES)
        .with_errors::<MockAmmRouterErrors>(MockAmmRouterErrors::SIGNATURES)
        .with_errors::<MaliciousRouterErrors>(MaliciousRouterErrors::SIGNATURES)
        .with_errors::<MockLendingPoolErrors>(MockLendingPoolErrors::SIGNATURES)
        .with_errors::<ReferenceAccountErrors>(ReferenceAccountErrors::SIGNATURES)
}
