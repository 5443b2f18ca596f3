//! Integration tests of the pipeline on the embedded world.

mod accounts;
mod balancer;
mod balancer_descriptor;
mod balancer_internal;
mod balancer_join;
mod budget;
mod control_checks;
mod cow;
mod debt_check;
mod deps;
mod descriptor_checks;
mod descriptor_health;
mod descriptor_records;
mod descriptor_vault;
mod descriptors;
mod dilution;
mod ens;
mod entry_pass_two;
mod entry_paths;
mod env_reads;
mod environment;
mod freshness;
mod grant_filter;
mod grant_records;
mod hostile;
mod junk;
// Rights and lending health (adapters).
mod lending_health;
mod multi_token;
mod payees;
mod perturbed;
mod pool_dilution;
mod props_exec;
mod protocols_bed;
mod rebasing;
mod records;
mod remote;
mod right_checks;
mod rights;
mod rights_benign;
mod safe_module;
mod sealed;
mod sequence;
mod signatures;
mod uniswap;
mod uniswap_v4;
mod uniswap_v4_ether;
mod unread_positions;
mod wrapped_rebasing;
// Protocol valuation (adapters).
mod valuation;
mod whole_delta;

/// The door's steps as the tests use them: one evaluation on a world's state with a signer and
/// a configuration, and a submission from a relayer on the in-process chain.
mod door {
    use alloy_primitives::{Address, keccak256};
    use pace_evm::InProcessEvm;
    use pace_pipeline::{
        Checked, Evaluation, ExecutionResult, InProcessChain, Pipeline, PipelineConfig, Relayer,
        Result,
    };
    use pace_signer::PdrSigner;
    use pace_types::{CompiledPolicy, Intent};

    /// The embedded world's relayer (`pace_world::Addresses::relayer`).
    pub(crate) fn world_relayer() -> Address {
        Address::from_word(keccak256("pace-world/relayer"))
    }

    /// [`Pipeline::evaluate`] of a pipeline signing with `signer` under `config`, on lane 0,
    /// for submissions by the world's relayer.
    pub(crate) fn evaluate(
        state: &InProcessEvm,
        intent: &Intent,
        policy: &CompiledPolicy,
        signer: &PdrSigner,
        config: &PipelineConfig,
    ) -> Result<Evaluation> {
        Pipeline::new(signer.clone())
            .with_config(*config)
            .with_relayer(Relayer::free(world_relayer(), state.tx_gas_limit()))
            .evaluate(state, intent, policy, 0)
    }

    /// [`Pipeline::submit`] of `checked` from `relayer` on `evm`, watching `tokens`.
    pub(crate) fn execute(
        evm: &mut InProcessEvm,
        relayer: Address,
        checked: &Checked,
        tokens: &[Address],
    ) -> Result<ExecutionResult> {
        InProcessChain::new(evm, relayer).submit(checked, tokens)
    }
}
