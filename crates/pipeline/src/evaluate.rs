//! intent -> simulate -> verify -> sign.

use crate::{Error, Result};
use pace_contracts::bindings::PaceAccount;
use pace_evm::InProcessEvm;
use pace_signer::{PdrRecord, PdrSigner, attest, bounds_from_report};
use pace_types::{CompiledPolicy, Decision, Hashed, Intent, SimulationReport, pdr::PdrTerms};

/// How PDRs are issued.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PipelineConfig {
    /// How long a PDR stays valid after the decision, in seconds.
    pub validity_secs: u64,
    /// How many blocks past the simulated one a PDR may execute.
    pub max_simulation_age_blocks: u16,
    /// The nonce lane PDRs are issued on.
    pub nonce_key: u32,
    /// Whether to sign on-chain outcome bounds derived from the simulation (PACE-rs "full"
    /// mode); off reproduces the paper, which binds bytes but not outcomes.
    pub outcome_bounds: bool,
}

impl Default for PipelineConfig {
    fn default() -> Self {
        Self {
            validity_secs: 300,
            max_simulation_age_blocks: 5,
            nonce_key: 0,
            outcome_bounds: true,
        }
    }
}

/// What the trusted half of the pipeline produced for one intent.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Evaluation {
    /// The simulation of the intent on the world's current state.
    pub report: SimulationReport,
    /// The verifier's decision.
    pub decision: Decision,
    /// The audit record: a signed PDR for an approval, an unsigned record for a rejection.
    pub record: PdrRecord,
}

/// Simulates `intent` on `world`, verifies it against `policy` at the world's current time,
/// and signs a PDR when (and only when) the decision approves.
///
/// The PDR consumes the next sequence of the configured nonce lane, is valid from now for
/// `validity_secs`, names the simulated block, requires the simulated gas for the calls, and,
/// with `outcome_bounds`, carries the account's simulated balance changes widened by the
/// policy's `outcome_tolerance_bps`.
pub fn evaluate(
    world: &InProcessEvm,
    intent: &Intent,
    policy: &CompiledPolicy,
    signer: &PdrSigner,
    config: &PipelineConfig,
) -> Result<Evaluation> {
    let report = pace_simulator::simulate(world, intent)?;
    let now = world.timestamp();
    let hashed_intent = Hashed::new(intent.clone());
    let hashed_report = Hashed::new(report);
    let decision = pace_verifier::verify_hashed(&hashed_intent, policy, Some(&hashed_report), now);
    let report = hashed_report.into_inner();

    // A rejection is recorded unsigned: its terms are never used, and the account need not
    // be a PACE account for the verifier to say no.
    let sequence = if decision.approved {
        world
            .view_sol(
                intent.account,
                &PaceAccount::nextSequenceCall {
                    key: config.nonce_key,
                },
            )
            .map_err(|e| Error::NotPaceAccount {
                account: intent.account,
                reason: e.to_string(),
            })?
    } else {
        0
    };
    let terms = PdrTerms {
        key: config.nonce_key,
        sequence,
        valid_after: now,
        valid_until: now.saturating_add(config.validity_secs),
        simulation_block: report.block_number,
        max_simulation_age: config.max_simulation_age_blocks,
        // The floor the submission must leave the calls: the simulated gas with a margin.
        call_gas_kib: PdrTerms::call_gas_floor(report.gas_used),
    };
    let bounds = if config.outcome_bounds {
        bounds_from_report(&report, policy.outcome_tolerance_bps)
    } else {
        Vec::new()
    };
    let record = attest(signer, intent, &decision, terms, bounds)?;
    Ok(Evaluation {
        report,
        decision,
        record,
    })
}
