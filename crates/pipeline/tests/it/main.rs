//! Integration tests of the pipeline on the embedded world.

mod accounts;
mod budget;
mod deps;
mod freshness;
mod junk;
mod props_exec;
mod remote;
mod sequence;
mod uniswap;
mod whole_delta;

/// The door's steps as the tests use them: one evaluation on a world's state with a signer and
/// a configuration, and a submission from a relayer on the in-process chain.
mod door {
    use alloy_primitives::Address;
    use pace_evm::InProcessEvm;
    use pace_pipeline::{
        Evaluation, ExecutionResult, InProcessChain, Pipeline, PipelineConfig, Result,
    };
    use pace_signer::{PdrSigner, SignedPdr};
    use pace_types::{CompiledPolicy, Intent};

    /// [`Pipeline::evaluate`] of a pipeline signing with `signer` under `config`, on lane 0.
    pub(crate) fn evaluate(
        state: &InProcessEvm,
        intent: &Intent,
        policy: &CompiledPolicy,
        signer: &PdrSigner,
        config: &PipelineConfig,
    ) -> Result<Evaluation> {
        Pipeline::new(signer.clone())
            .with_config(*config)
            .evaluate(state, intent, policy, 0)
    }

    /// [`Pipeline::submit`] of `signed` from `relayer` on `evm`, watching `tokens`.
    pub(crate) fn execute(
        evm: &mut InProcessEvm,
        relayer: Address,
        signed: &SignedPdr,
        tokens: &[Address],
    ) -> Result<ExecutionResult> {
        InProcessChain::new(evm, relayer).submit(signed, tokens)
    }
}
