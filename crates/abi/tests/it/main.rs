//! Integration tests of `pace-abi`: the bindings against the reference artifacts, the decoder's
//! round trips and strictness, and properties over arbitrary calldata. The project's own
//! account is checked against its Solidity sources.

mod artifacts;
mod balancer;
mod bindings;
mod decode;
mod props;
mod protocols;
mod rights;
mod solidity;
mod strict;
mod typed_data;
