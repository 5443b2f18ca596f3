//! The service's chain, behind one small abstraction: the embedded in-process [`World`]
//! (`pace serve --world`) or a node over JSON-RPC ([`NodeChain`], `pace serve --rpc`).
//!
//! Both give the service the same four things: a state to simulate on (the world itself, or a
//! fork of the node's latest block), balances on the latest block (I2), the account's lane
//! positions, and one submission path (`pace_pipeline::Pipeline::submit`).

mod node;

pub use node::{NodeChain, NodeConfig};

use crate::Result;
use alloy_primitives::{Address, U256};
use pace_evm::InProcessEvm;
#[cfg(feature = "world")]
use pace_pipeline::InProcessChain;
use pace_pipeline::{Checked, ExecutionResult, Relayer};
#[cfg(feature = "world")]
use pace_world::World;
use std::{ops::Deref, sync::Arc};

/// Where the service's transactions go.
#[derive(Debug)]
pub enum ServiceChain {
    /// The embedded in-process world: transactions land at once, in the next block.
    #[cfg(feature = "world")]
    World(Box<World>),
    /// A node: forks of its latest block for simulation, receipts for outcomes. Shared, so
    /// simulations run outside the service's lock.
    Node(Arc<NodeChain>),
}

#[cfg(feature = "world")]
impl From<World> for ServiceChain {
    fn from(world: World) -> Self {
        Self::World(Box::new(world))
    }
}

impl From<NodeChain> for ServiceChain {
    fn from(node: NodeChain) -> Self {
        Self::Node(Arc::new(node))
    }
}

/// A state to simulate on: the world itself, or a fork of the node's latest block.
#[derive(Debug)]
pub enum StateView<'a> {
    /// The embedded world's state.
    World(&'a InProcessEvm),
    /// A fork of a node's block (its state fetched on demand, shared per block).
    Fork(Box<InProcessEvm>),
}

impl Deref for StateView<'_> {
    type Target = InProcessEvm;

    fn deref(&self) -> &InProcessEvm {
        match self {
            Self::World(evm) => evm,
            Self::Fork(evm) => evm,
        }
    }
}

/// Where the latest state comes from, taken under the service's lock and read with it
/// released on a node: a snapshot of the embedded world, or the node.
#[derive(Debug)]
pub enum Source {
    /// A copy of the embedded world's state as it was, and the world's relayer.
    World(Box<InProcessEvm>, Address),
    /// The node (its latest block when read).
    Node(Arc<NodeChain>),
}

impl Source {
    /// The latest state: the world's snapshot, or a fresh fork of the node's latest block.
    pub fn latest(&self) -> Result<InProcessEvm> {
        match self {
            Self::World(evm, _) => Ok((**evm).clone()),
            Self::Node(n) => n.fork_latest(),
        }
    }

    /// `who`'s balance of `token` (ether for the zero address) on the latest block, read from
    /// the chain itself (on a node: `eth_call` / `eth_getBalance` at `latest`, never a fork).
    pub fn balance_of(&self, token: Address, who: Address) -> Result<U256> {
        match self {
            Self::World(evm, _) => Ok(balance_in(evm, token, who)),
            Self::Node(n) => n.balance_of(token, who),
        }
    }

    /// How the relayer submits now (what a simulation must assume): on the embedded world
    /// its relayer with the world's gas limit and no fees; on a node, the node's quote.
    pub fn relayer(&self) -> Result<Relayer> {
        match self {
            Self::World(evm, relayer) => Ok(Relayer::free(*relayer, evm.tx_gas_limit())),
            Self::Node(n) => n.relayer(),
        }
    }
}

impl ServiceChain {
    /// Where the latest state comes from (see [`Source`]): on the embedded world a snapshot
    /// of its state, taken now.
    pub fn source(&self) -> Source {
        match self {
            #[cfg(feature = "world")]
            Self::World(w) => Source::World(Box::new(w.evm.clone()), w.addrs.relayer),
            Self::Node(n) => Source::Node(n.clone()),
        }
    }

    /// The embedded world, in `--world` mode.
    #[cfg(feature = "world")]
    pub fn world(&self) -> Option<&World> {
        match self {
            Self::World(w) => Some(w),
            Self::Node(_) => None,
        }
    }

    /// The embedded world, mutably, in `--world` mode.
    #[cfg(feature = "world")]
    pub fn world_mut(&mut self) -> Option<&mut World> {
        match self {
            Self::World(w) => Some(w),
            Self::Node(_) => None,
        }
    }

    /// The node, in `--rpc` mode.
    pub fn node(&self) -> Option<&NodeChain> {
        match self {
            #[cfg(feature = "world")]
            Self::World(_) => None,
            Self::Node(n) => Some(n),
        }
    }

    /// The node, shared, in `--rpc` mode: what simulates outside the service's lock.
    pub fn node_arc(&self) -> Option<Arc<NodeChain>> {
        match self {
            #[cfg(feature = "world")]
            Self::World(_) => None,
            Self::Node(n) => Some(n.clone()),
        }
    }

    /// The latest state: the world, or a fresh fork of the node's latest block.
    pub fn latest(&self) -> Result<StateView<'_>> {
        match self {
            #[cfg(feature = "world")]
            Self::World(w) => Ok(StateView::World(&w.evm)),
            Self::Node(n) => Ok(StateView::Fork(Box::new(n.fork_latest()?))),
        }
    }

    /// `who`'s balance of `token` (ether for the zero address) on the latest block, read from
    /// the chain itself (on a node: `eth_call` / `eth_getBalance` at `latest`, never a fork).
    pub fn balance_of(&self, token: Address, who: Address) -> Result<U256> {
        match self {
            #[cfg(feature = "world")]
            Self::World(w) => Ok(w.balance_of(token, who)),
            Self::Node(n) => n.balance_of(token, who),
        }
    }

    /// The latest block number.
    pub fn block_number(&self) -> Result<u64> {
        match self {
            #[cfg(feature = "world")]
            Self::World(w) => Ok(w.evm.block_number()),
            Self::Node(n) => Ok(n.latest_block()?.number),
        }
    }

    /// Submits `signed` on the embedded world through `pace_pipeline::Pipeline::submit` and
    /// reports the outcome, with the account's realised changes in `tokens`: it lands in the
    /// next block. (On a node the service submits with its lock released, each transaction
    /// recorded first: see `NodeChain::submit`.) An `Err` means nothing was sent.
    pub fn submit(&mut self, checked: &Checked, tokens: &[Address]) -> Result<ExecutionResult> {
        match self {
            #[cfg(feature = "world")]
            Self::World(w) => {
                // The transaction lands in the next block.
                w.advance(1);
                let relayer = w.addrs.relayer;
                Ok(InProcessChain::new(&mut w.evm, relayer).submit(checked, tokens)?)
            }
            Self::Node(_) => {
                let _ = (checked, tokens);
                Err(crate::Error::Config(
                    "a node's submissions go through NodeChain::submit".into(),
                ))
            }
        }
    }
}

/// `who`'s balance of `token` on `evm` (ether for the zero address): zero if the call fails.
fn balance_in(evm: &InProcessEvm, token: Address, who: Address) -> U256 {
    if token == pace_types::ETH {
        return evm.balance(who).unwrap_or_default();
    }
    evm.view_sol(
        token,
        &pace_abi::bindings::IERC20::balanceOfCall { account: who },
    )
    .unwrap_or_default()
}
