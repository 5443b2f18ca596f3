//! Integration tests of the PDR signer.

mod attest;
mod differential;
mod golden;
