//! intent -> simulate -> verify -> sign.

use crate::{Error, Result};
use alloy_primitives::{Address, B256};
use pace_evm::InProcessEvm;
use pace_signer::{PdrRecord, PdrSigner, SignedPdr, attest, bounds_from_report, tightest};
use pace_types::{
    CompiledPolicy, Decision, Hashed, Intent, SimulationReport,
    pdr::{Bound, PdrTerms},
};
use pace_verifier::{ApprovedIntent, Verdict};

/// How PDRs are issued.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PipelineConfig {
    /// How long a PDR stays valid after the decision, in seconds.
    pub validity_secs: u64,
    /// How many blocks past the simulated one a PDR may execute. The default, 6, covers the
    /// default policy's 60 s freshness window at 12 s blocks (5 blocks: a decision the verifier
    /// makes at exactly the limit) plus the block that includes the submission.
    pub max_simulation_age_blocks: u16,
    /// The nonce lane PDRs are issued on.
    pub nonce_key: u32,
    /// Whether to sign on-chain outcome bounds derived from the simulation (PACE-rs "full"
    /// mode); off reproduces the paper, which binds bytes but not outcomes.
    pub outcome_bounds: bool,
    /// Whether to sign the simulated gas (with a margin) as the floor the submission must
    /// leave the calls (PACE-rs); off reproduces the paper's PDR, which has none.
    pub gas_floor: bool,
    /// Whether the verifier judges the simulation report. Off is a verifier without a
    /// simulation (the checks that need one see none; the PDR still names the simulated
    /// block and, with `outcome_bounds`, its bounds).
    pub judge_simulation: bool,
}

impl Default for PipelineConfig {
    fn default() -> Self {
        Self {
            validity_secs: 300,
            max_simulation_age_blocks: 6,
            nonce_key: 0,
            outcome_bounds: true,
            gas_floor: true,
            judge_simulation: true,
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

/// The trusted half of the pipeline with its verifier key: simulate, verify, and sign a PDR
/// ([`sign_pdr`]) when, and only when, the verifier approves. The CLI, the demo and the
/// benchmark issue PDRs through one; nothing else holds the key.
pub struct Pipeline {
    signer: PdrSigner,
    revert_decoder: pace_simulator::RevertDecoder,
}

impl std::fmt::Debug for Pipeline {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Pipeline")
            .field("verifier", &self.signer.address())
            .finish_non_exhaustive()
    }
}

impl Pipeline {
    /// A pipeline signing with `signer`.
    pub fn new(signer: PdrSigner) -> Self {
        Self {
            signer,
            revert_decoder: pace_simulator::RevertDecoder::default(),
        }
    }

    /// A pipeline signing with the secret key `key`.
    pub fn from_key(key: &B256) -> Result<Self> {
        Ok(Self::new(PdrSigner::from_bytes(key)?))
    }

    /// The same pipeline naming, in a failed simulation's revert reason, the custom errors of
    /// contracts the simulator does not know (the embedded world's mocks:
    /// [`pace_world::revert_decoder`]).
    #[must_use]
    pub fn with_revert_decoder(mut self, revert_decoder: pace_simulator::RevertDecoder) -> Self {
        self.revert_decoder = revert_decoder;
        self
    }

    /// The verifier address PDRs are signed by (what the account must trust).
    pub fn verifier(&self) -> Address {
        self.signer.address()
    }

    /// Simulates `intent` on `world`, verifies it against `policy` at the world's current time
    /// and signs a PDR for an approval.
    pub fn evaluate(
        &self,
        world: &InProcessEvm,
        intent: &Intent,
        policy: &CompiledPolicy,
        config: &PipelineConfig,
    ) -> Result<Evaluation> {
        evaluate_with(
            world,
            intent,
            policy,
            &self.signer,
            config,
            &self.revert_decoder,
        )
    }

    /// Simulates `intent` on `world` as [`Self::evaluate`] does (the policy's options, this
    /// pipeline's revert decoder, a fork's state prefetched first), without verifying or
    /// signing: what a preview shows before anything is confirmed.
    pub fn simulate(
        &self,
        world: &InProcessEvm,
        intent: &Intent,
        policy: &CompiledPolicy,
    ) -> Result<SimulationReport> {
        simulate(
            world,
            &Hashed::new(intent.clone()),
            policy,
            &self.revert_decoder,
        )
    }

    /// Verifies `intent`, simulated as `report`, against `policy` at time `now` (the report
    /// judged only with `config.judge_simulation`), and signs a PDR for an approval with the
    /// next sequence of the account on `world`. A rejection is recorded unsigned: no terms
    /// are built, and the account need not be a PACE account for the verifier to say no.
    pub fn decide(
        &self,
        world: &InProcessEvm,
        intent: &Intent,
        policy: &CompiledPolicy,
        report: SimulationReport,
        now: u64,
        config: &PipelineConfig,
    ) -> Result<Evaluation> {
        decide(
            &self.signer,
            world,
            intent,
            policy,
            report,
            now,
            config,
            &[],
        )
    }

    /// [`Self::decide`] for an outcome a person confirmed: the PDR's outcome bounds are the
    /// tighter, token by token, of those from `report` (the policy's tolerance) and `confirmed`
    /// (e.g. [`pace_signer::bounds_from_changes`] of the confirmed preview with its tolerance),
    /// so the chain enforces both. An empty `confirmed` adds nothing.
    #[allow(clippy::too_many_arguments)]
    pub fn decide_confirmed(
        &self,
        world: &InProcessEvm,
        intent: &Intent,
        policy: &CompiledPolicy,
        report: SimulationReport,
        now: u64,
        config: &PipelineConfig,
        confirmed: &[Bound],
    ) -> Result<Evaluation> {
        decide(
            &self.signer,
            world,
            intent,
            policy,
            report,
            now,
            config,
            confirmed,
        )
    }
}

/// [`Pipeline::decide_confirmed`] with `signer`.
#[allow(clippy::too_many_arguments)]
fn decide(
    signer: &PdrSigner,
    world: &InProcessEvm,
    intent: &Intent,
    policy: &CompiledPolicy,
    report: SimulationReport,
    now: u64,
    config: &PipelineConfig,
    confirmed: &[Bound],
) -> Result<Evaluation> {
    let intent = Hashed::new(intent.clone());
    decide_hashed(
        signer, world, intent, policy, report, now, config, confirmed,
    )
}

/// The one simulation of the pipeline: the policy's options and `revert_decoder`, and on a fork
/// of a node, what the simulation will read fetched first in a few batched round trips (never
/// changing the result: see `pace_simulator::prefetch`; a no-op in memory).
fn simulate(
    world: &InProcessEvm,
    intent: &Hashed<Intent>,
    policy: &CompiledPolicy,
    revert_decoder: &pace_simulator::RevertDecoder,
) -> Result<SimulationReport> {
    let options = pace_simulator::SimulateOptions::for_policy(policy)
        .with_revert_decoder(revert_decoder.clone());
    pace_simulator::prefetch(world, intent.get(), &options)?;
    Ok(pace_simulator::simulate_hashed(world, intent, &options)?)
}

/// [`decide`] for an intent hashed once up front (the simulation used the same hash).
#[allow(clippy::too_many_arguments)]
fn decide_hashed(
    signer: &PdrSigner,
    world: &InProcessEvm,
    intent: Hashed<Intent>,
    policy: &CompiledPolicy,
    report: SimulationReport,
    now: u64,
    config: &PipelineConfig,
    confirmed: &[Bound],
) -> Result<Evaluation> {
    let report = Hashed::new(report);
    let judged = config.judge_simulation.then_some(&report);
    let verdict = pace_verifier::approve_hashed(intent, policy, judged, now);
    let record = match verdict {
        Verdict::Approved(approval) => {
            let pdr = sign(world, &approval, &report, policy, signer, config, confirmed)?;
            PdrRecord::Signed {
                decision: approval.into_decision(),
                pdr: Box::new(pdr),
            }
        }
        Verdict::Rejected(decision) => PdrRecord::Unsigned { decision },
    };
    Ok(Evaluation {
        report: report.into_inner(),
        decision: record.decision().clone(),
        record,
    })
}

/// [`Pipeline::evaluate`] with `signer`.
pub fn evaluate(
    world: &InProcessEvm,
    intent: &Intent,
    policy: &CompiledPolicy,
    signer: &PdrSigner,
    config: &PipelineConfig,
) -> Result<Evaluation> {
    let decoder = pace_simulator::RevertDecoder::default();
    evaluate_with(world, intent, policy, signer, config, &decoder)
}

/// [`Pipeline::evaluate`] with `signer` and `revert_decoder` (see
/// [`Pipeline::with_revert_decoder`]).
pub fn evaluate_with(
    world: &InProcessEvm,
    intent: &Intent,
    policy: &CompiledPolicy,
    signer: &PdrSigner,
    config: &PipelineConfig,
    revert_decoder: &pace_simulator::RevertDecoder,
) -> Result<Evaluation> {
    // Hashed once: the simulation, the verifier and the PDR all use this hash.
    let intent = Hashed::new(intent.clone());
    let report = simulate(world, &intent, policy, revert_decoder)?;
    decide_hashed(
        signer,
        world,
        intent,
        policy,
        report,
        world.timestamp(),
        config,
        &[],
    )
}

/// Signs the PDR for a verifier's `approval` of an intent simulated as `report` on `world`,
/// under `policy`: the one place PDR terms and bounds are built.
///
/// The PDR consumes the next sequence of the configured nonce lane (read from the account on
/// `world`), is valid from the approval's time for `validity_secs`, names the simulated block,
/// with `gas_floor` requires the simulated gas for the calls, and with `outcome_bounds` carries
/// the account's simulated balance changes widened by the policy's `outcome_tolerance_bps`.
///
/// `policy` must be the one that approved, and `report` the simulation it judged, if it
/// judged one (an approval made without a report names no simulation hash; the PDR's block
/// and bounds still come from `report`). Errors when they are not, or when the account is not
/// a PaceAccount.
pub fn sign_pdr(
    world: &InProcessEvm,
    approval: &ApprovedIntent,
    report: &Hashed<SimulationReport>,
    policy: &CompiledPolicy,
    signer: &PdrSigner,
    config: &PipelineConfig,
) -> Result<SignedPdr> {
    sign(world, approval, report, policy, signer, config, &[])
}

/// [`sign_pdr`], the outcome bounds tightened by `confirmed` (see
/// [`Pipeline::decide_confirmed`]).
fn sign(
    world: &InProcessEvm,
    approval: &ApprovedIntent,
    report: &Hashed<SimulationReport>,
    policy: &CompiledPolicy,
    signer: &PdrSigner,
    config: &PipelineConfig,
    confirmed: &[Bound],
) -> Result<SignedPdr> {
    let decision = approval.decision();
    if decision.policy_hash != policy.policy_hash() {
        return Err(Error::NotApproved("policy"));
    }
    if decision.simulation_hash.is_some_and(|h| h != report.hash()) {
        return Err(Error::NotApproved("simulation report"));
    }
    let account = approval.intent().account;
    let sequence = crate::next_sequence(world, account, config.nonce_key)?;
    let now = approval.now();
    let terms = PdrTerms {
        key: config.nonce_key,
        sequence,
        valid_after: now,
        valid_until: now.saturating_add(config.validity_secs),
        simulation_block: report.block_number,
        max_simulation_age: config.max_simulation_age_blocks,
        // The floor the submission must leave the calls: the simulated gas with a margin.
        call_gas_kib: if config.gas_floor {
            PdrTerms::call_gas_floor(report.gas_used)
        } else {
            0
        },
    };
    let bounds = if config.outcome_bounds {
        tightest(
            &bounds_from_report(report, policy.outcome_tolerance_bps),
            confirmed,
        )
    } else {
        Vec::new()
    };
    Ok(attest(signer, approval, terms, bounds)?)
}
