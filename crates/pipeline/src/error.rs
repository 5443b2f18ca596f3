//! Pipeline errors: failures of the machinery, never of the intent (those are decisions).

/// What stopped the pipeline.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The simulator could not run the intent at all.
    #[error("simulation: {0}")]
    Simulation(#[from] pace_simulator::Error),
    /// The signer refused to build the record.
    #[error("signing: {0}")]
    Signing(#[from] pace_signer::Error),
    /// The EVM refused a transaction or a read.
    #[error("evm: {0}")]
    Evm(#[from] Box<pace_evm::Error>),
    /// A node refused a read or a transaction before anything was broadcast.
    #[error("node: {0}")]
    Node(#[from] Box<pace_node::Error>),
    /// An in-process submission did not complete in one step (a bug: in-process chains never
    /// wait).
    #[error("an in-process submission did not complete")]
    Pending,
    /// [`crate::Pipeline::sign`] was handed a rejection.
    #[error("the decision is a rejection; nothing was signed")]
    Rejected,
    /// [`crate::Pipeline::sign`] was handed a decision made without any report, so there is
    /// no simulated block, gas or outcome to build a PDR from.
    #[error("the decision has no simulation report to build a PDR from; nothing was signed")]
    NoReport,
    /// The policy handed to [`crate::Pipeline::sign`] is not the one the approval was made
    /// with.
    #[error("the {0} is not the one the approval was made with; nothing was signed")]
    NotApproved(&'static str),
    /// The relayer cannot pay for the submission (`gasLimit * maxFeePerGas`): nothing can be
    /// simulated as it will execute, nor sent.
    #[error(
        "the relayer {relayer} holds {balance} wei, the submission needs up to {needed}; nothing was sent"
    )]
    RelayerUnfunded {
        /// The relayer.
        relayer: alloy_primitives::Address,
        /// Its ether balance.
        balance: alloy_primitives::U256,
        /// What the submission may cost.
        needed: alloy_primitives::U256,
    },
    /// The exact signed transaction, run on the simulated state (pass 2), did not do what the
    /// simulation the decision was made on showed: nothing is sent.
    #[error("the signed transaction does not execute as simulated ({0}); nothing was sent")]
    Diverged(String),
    /// A submission checked for one relayer was handed to a chain that sends as another.
    #[error(
        "the submission was checked for relayer {checked}, the chain sends as {sending}; nothing was sent"
    )]
    WrongRelayer {
        /// The relayer pass 2 ran as.
        checked: alloy_primitives::Address,
        /// The chain's sender.
        sending: alloy_primitives::Address,
    },
    /// The intent's account cannot take a PDR: it does not answer `nextSequence` as a
    /// PaceAccount does (no code there, or another wallet).
    #[error(
        "account {account} is not a PaceAccount (nextSequence(uint32) failed: {reason}); nothing was signed"
    )]
    NotPaceAccount {
        /// The intent's account.
        account: alloy_primitives::Address,
        /// What the read returned.
        reason: String,
    },
    /// On the EntryPoint path, the account's floor of lane `key` (raised by `cancelNonces`, or
    /// by PDRs of the direct path on the same lane) is above the EntryPoint's next sequence:
    /// the account refuses every sequence the EntryPoint would accept. Sign on another lane.
    #[error(
        "lane {key} is cancelled on the EntryPoint path (the account's floor {floor} is above the EntryPoint's next sequence {sequence}); nothing was signed"
    )]
    LaneCancelled {
        /// The lane.
        key: u32,
        /// The account's floor.
        floor: u64,
        /// The EntryPoint's next sequence.
        sequence: u64,
    },
}

impl From<pace_evm::Error> for Error {
    fn from(e: pace_evm::Error) -> Self {
        Self::Evm(Box::new(e))
    }
}

impl From<pace_node::Error> for Error {
    fn from(e: pace_node::Error) -> Self {
        Self::Node(Box::new(e))
    }
}

/// `Result` with the pipeline's [`Error`].
pub type Result<T, E = Error> = core::result::Result<T, E>;
