//! Integration tests of the PDR signer.

mod attest;
mod golden;
