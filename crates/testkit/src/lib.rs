//! Helpers the workspace's tests and benches share, so each exists once: [`ether`], the
//! token-or-ether `balance_of`, the small EVM `fixture` world the simulator is tested on
//! and the [`mainnet`]-shaped swap, report and policy the verifier is tested on, and the
//! [`llm_stub`] chat-completions server the language-model adapter is tested against, the
//! [`tls`] proxy that puts `https://` in front of either it or a node, and a [`postgres`]
//! server of a test's own.
//!
//! Test-only (`publish = false`): a dev-dependency, never a normal one. The `world` feature
//! adds what needs an EVM and the compiled contracts (`balance_of`, `fixture`); without it
//! the crate links neither, so the pure verifier's tests stay pure. With it, `intents` builds
//! intents on the embedded world. (Items behind a feature are not linked: `cargo doc
//! --workspace` builds this crate without its features.)

#[cfg(feature = "world")]
pub mod fixture;
#[cfg(feature = "world")]
pub mod intents;
pub mod llm_stub;
pub mod mainnet;
#[cfg(feature = "node")]
pub mod on_node;
pub mod postgres;
#[cfg(feature = "protocols")]
pub mod protocols;
pub mod tls;

pub use pace_types::units::ether;
#[cfg(feature = "world")]
pub use pace_world::balance_of;
