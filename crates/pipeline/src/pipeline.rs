//! [`Pipeline`]: simulate, decide, sign, submit. The one door every caller goes through.

use crate::{Chain, Error, ExecutionResult, Result, calldata::submission_calldata};
use alloy_primitives::{Address, B256};
use alloy_sol_types::SolCall;
use pace_abi::{bindings::PaceAccount, revert::RevertDecoder};
use pace_evm::InProcessEvm;
use pace_signer::{PdrRecord, PdrSigner, SignedPdr, attest, bounds_from_report, tightest};
use pace_types::{
    CompiledPolicy, Decision, Hashed, Intent, SimulationReport,
    pdr::{Bound, PdrTerms},
};
use pace_verifier::Verdict;

/// How PDRs are issued.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PipelineConfig {
    /// How long a PDR stays valid after the decision, in seconds.
    pub validity_secs: u64,
    /// How many blocks past the simulated one a PDR may execute. The default, 6, covers the
    /// default policy's 60 s freshness window at 12 s blocks (5 blocks: a decision the verifier
    /// makes at exactly the limit) plus the block that includes the submission.
    pub max_simulation_age_blocks: u16,
    /// Whether to sign on-chain outcome bounds derived from the simulation (PACE-rs "full"
    /// mode); off reproduces the paper, which binds bytes but not outcomes.
    pub outcome_bounds: bool,
    /// Whether to sign the simulated gas (with a margin) as the floor the submission must
    /// leave the calls (PACE-rs); off reproduces the paper's PDR, which has none.
    pub gas_floor: bool,
}

impl Default for PipelineConfig {
    fn default() -> Self {
        Self {
            validity_secs: 300,
            max_simulation_age_blocks: 6,
            outcome_bounds: true,
            gas_floor: true,
        }
    }
}

/// The nonce a PDR consumes: sequence `sequence` of lane `key` (`key << 64 | sequence`). The
/// caller reads it ([`crate::next_sequence`]) or reserves it (the service), so signing itself
/// reads no chain.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Nonce {
    /// The lane.
    pub key: u32,
    /// Its next unused sequence.
    pub sequence: u64,
}

/// The pipeline's simulation of an intent: the intent and its report, each hashed once. Only
/// [`Pipeline::simulate`] makes one, so its report is always the trusted simulator's account
/// of exactly this intent.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Simulated {
    intent: Hashed<Intent>,
    report: Hashed<SimulationReport>,
}

impl Simulated {
    /// The simulated intent.
    pub fn intent(&self) -> &Hashed<Intent> {
        &self.intent
    }

    /// Its simulation report.
    pub fn report(&self) -> &Hashed<SimulationReport> {
        &self.report
    }

    /// The report, unwrapped.
    pub fn into_report(self) -> SimulationReport {
        self.report.into_inner()
    }
}

/// What the verifier judges an intent on, for [`Pipeline::decide`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Evidence {
    /// The pipeline's own simulation: the normal case.
    Simulated(Simulated),
    /// The simulation, withheld from the verifier (a verifier without simulation: the checks
    /// that need a report see none). A PDR still names the simulated block and, with outcome
    /// bounds, the simulation's bounds.
    Withheld(Simulated),
    /// A report presented from elsewhere (a file, a third party, an attacker), judged as it is;
    /// a PDR signed on it names it and takes its block, gas and bounds from it. `None`: no
    /// report at all, so nothing can be signed.
    Presented {
        /// The intent judged.
        intent: Intent,
        /// The report shown with it.
        report: Option<SimulationReport>,
    },
}

/// A decision of [`Pipeline::decide`], with the simulation a PDR for it is built from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Assessed {
    verdict: Verdict,
    basis: Option<Hashed<SimulationReport>>,
}

impl Assessed {
    /// The verifier's decision.
    pub fn decision(&self) -> &Decision {
        self.verdict.decision()
    }

    /// Whether the verifier approved.
    pub fn approved(&self) -> bool {
        self.verdict.approval().is_some()
    }

    /// The report a PDR for this decision is built from (the simulation, or the report that
    /// was presented), if there is one.
    pub fn report(&self) -> Option<&Hashed<SimulationReport>> {
        self.basis.as_ref()
    }

    /// The decision, for the audit record of what was not signed.
    pub fn into_decision(self) -> Decision {
        self.verdict.into_decision()
    }
}

/// What [`Pipeline::evaluate`] produced for one intent.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Evaluation {
    /// The simulation of the intent.
    pub report: SimulationReport,
    /// The verifier's decision.
    pub decision: Decision,
    /// The audit record: a signed PDR for an approval, an unsigned record for a rejection.
    pub record: PdrRecord,
}

/// The trusted half of PACE with its verifier key, and the one way through it:
///
/// 1. [`simulate`](Self::simulate) the intent on a state (with the policy's reads, the revert
///    decoder and, on a fork, the prefetch: a [`Simulator`]);
/// 2. [`decide`](Self::decide) on that simulation (or on a presented report, or none);
/// 3. [`sign`](Self::sign) a PDR for an approval, on a nonce the caller supplies;
/// 4. [`submit`](Self::submit) it through the account on a [`Chain`].
///
/// [`evaluate`](Self::evaluate) composes the first three on one state. The CLI, the demo, the
/// benchmark and the service all use this type; nothing else holds the key.
#[derive(Clone)]
pub struct Pipeline {
    signer: PdrSigner,
    simulator: Simulator,
    config: PipelineConfig,
}

/// The pipeline's simulation without its key, for tools that simulate but never sign
/// (`pace simulate`): [`Pipeline::simulate`] is this.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Simulator {
    revert_decoder: RevertDecoder,
}

impl Simulator {
    /// A simulator decoding the custom errors `revert_decoder` knows, besides the built-in
    /// ones, in a failed simulation's revert reason.
    pub fn new(revert_decoder: RevertDecoder) -> Self {
        Self { revert_decoder }
    }

    /// Simulates `intent` on `state` with what `policy` asks the simulator to read (its
    /// tokens, its price sources) and this simulator's revert decoder; on a fork of a node,
    /// what the simulation will read is fetched first in a few batched round trips (never
    /// changing the result: see `pace_simulator::prefetch`; a no-op in memory). The one
    /// simulation of the pipeline.
    pub fn simulate(
        &self,
        state: &InProcessEvm,
        intent: impl Into<Hashed<Intent>>,
        policy: &CompiledPolicy,
    ) -> Result<Simulated> {
        let options = pace_simulator::SimulateOptions::for_policy(policy)
            .with_revert_decoder(self.revert_decoder.clone());
        let intent = intent.into();
        pace_simulator::prefetch(state, intent.get(), &options)?;
        let report = pace_simulator::simulate_hashed(state, &intent, &options)?;
        Ok(Simulated {
            intent,
            report: Hashed::new(report),
        })
    }
}

impl std::fmt::Debug for Pipeline {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Pipeline")
            .field("verifier", &self.signer.address())
            .field("config", &self.config)
            .finish_non_exhaustive()
    }
}

impl Pipeline {
    /// A pipeline signing with `signer`, with the default [`PipelineConfig`].
    pub fn new(signer: PdrSigner) -> Self {
        Self {
            signer,
            simulator: Simulator::default(),
            config: PipelineConfig::default(),
        }
    }

    /// A pipeline signing with the secret key `key`.
    pub fn from_key(key: &B256) -> Result<Self> {
        Ok(Self::new(PdrSigner::from_bytes(key)?))
    }

    /// The same pipeline naming, in a failed simulation's revert reason, the custom errors of
    /// contracts the simulator does not know (the embedded world's mocks, say).
    #[must_use]
    pub fn with_revert_decoder(mut self, revert_decoder: RevertDecoder) -> Self {
        self.simulator = Simulator::new(revert_decoder);
        self
    }

    /// The same pipeline issuing PDRs as `config` says.
    #[must_use]
    pub fn with_config(mut self, config: PipelineConfig) -> Self {
        self.config = config;
        self
    }

    /// How PDRs are issued.
    pub fn config(&self) -> &PipelineConfig {
        &self.config
    }

    /// The verifier address PDRs are signed by (what the account must trust).
    pub fn verifier(&self) -> Address {
        self.signer.address()
    }

    /// Simulates `intent` (hashed once: the simulation, the decision and the PDR all use this
    /// hash) on `state`: [`Simulator::simulate`] with this pipeline's revert decoder.
    pub fn simulate(
        &self,
        state: &InProcessEvm,
        intent: impl Into<Hashed<Intent>>,
        policy: &CompiledPolicy,
    ) -> Result<Simulated> {
        self.simulator.simulate(state, intent, policy)
    }

    /// Judges `evidence` against `policy` at unix time `now`: pure and deterministic, the
    /// verifier's own decision (`pace_verifier::approve_hashed`).
    pub fn decide(&self, evidence: Evidence, policy: &CompiledPolicy, now: u64) -> Assessed {
        let (intent, judged, basis) = match evidence {
            Evidence::Simulated(s) => (s.intent, true, Some(s.report)),
            Evidence::Withheld(s) => (s.intent, false, Some(s.report)),
            Evidence::Presented { intent, report } => {
                (Hashed::new(intent), true, report.map(Hashed::new))
            }
        };
        let shown = basis.as_ref().filter(|_| judged);
        let verdict = pace_verifier::approve_hashed(intent, policy, shown, now);
        Assessed { verdict, basis }
    }

    /// Signs the PDR for an approved `assessed` under `policy` (the policy that approved), on
    /// `nonce`: the one place PDR terms and bounds are built.
    ///
    /// The PDR is valid from the decision's time for `validity_secs`, names the report's block,
    /// with `gas_floor` requires the simulated gas for the calls, and with `outcome_bounds`
    /// carries the account's simulated balance changes widened by the policy's
    /// `outcome_tolerance_bps`, tightened by `extra_bounds` token by token (what a person
    /// confirmed, say; [`pace_signer::tightest`]).
    ///
    /// Refuses, signing nothing, a rejection, a decision without a report to build from, and a
    /// `policy` that is not the one that approved.
    pub fn sign(
        &self,
        assessed: &Assessed,
        policy: &CompiledPolicy,
        nonce: Nonce,
        extra_bounds: &[Bound],
    ) -> Result<SignedPdr> {
        let Some(approval) = assessed.verdict.approval() else {
            return Err(Error::Rejected);
        };
        let Some(report) = &assessed.basis else {
            return Err(Error::NoReport);
        };
        if approval.decision().policy_hash != policy.policy_hash() {
            return Err(Error::NotApproved("policy"));
        }
        let config = &self.config;
        let now = approval.now();
        let terms = PdrTerms {
            key: nonce.key,
            sequence: nonce.sequence,
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
                extra_bounds,
            )
        } else {
            Vec::new()
        };
        Ok(attest(&self.signer, approval, terms, bounds)?)
    }

    /// Simulates `intent` on `state`, decides on that simulation at the state's time, and for
    /// an approval signs a PDR on the next sequence of lane `lane` read from the same state.
    /// A rejection is recorded unsigned, and the account need not be a PACE account for the
    /// verifier to say no.
    pub fn evaluate(
        &self,
        state: &InProcessEvm,
        intent: &Intent,
        policy: &CompiledPolicy,
        lane: u32,
    ) -> Result<Evaluation> {
        let simulated = self.simulate(state, intent.clone(), policy)?;
        let assessed = self.decide(Evidence::Simulated(simulated), policy, state.timestamp());
        let record = if assessed.approved() {
            let sequence = crate::next_sequence(state, intent.account, lane)?;
            let nonce = Nonce {
                key: lane,
                sequence,
            };
            let pdr = self.sign(&assessed, policy, nonce, &[])?;
            PdrRecord::Signed {
                decision: assessed.decision().clone(),
                pdr: Box::new(pdr),
            }
        } else {
            PdrRecord::Unsigned {
                decision: assessed.decision().clone(),
            }
        };
        let report = assessed
            .basis
            .map(Hashed::into_inner)
            .expect("a simulation is the basis of its own decision");
        Ok(Evaluation {
            report,
            decision: record.decision().clone(),
            record,
        })
    }

    /// Submits `signed` to its account on `chain` and reports what the chain did, with the
    /// account's realised balance changes in `watch` (zero address = ether), read just before
    /// and after. Uses the lean `executePDR` path when the PDR and the account (no spending
    /// budgets, read from the chain) allow it. An error means nothing was sent.
    pub async fn submit<C: Chain>(
        chain: &mut C,
        signed: &SignedPdr,
        watch: &[Address],
    ) -> Result<ExecutionResult> {
        let data = PaceAccount::budgetTokensCall {}.abi_encode();
        let out = chain.read(signed.account, data.into()).await?;
        let budgeted = !PaceAccount::budgetTokensCall::abi_decode_returns(&out)
            .map_err(|e| Error::NotPaceAccount {
                account: signed.account,
                reason: e.to_string(),
            })?
            .is_empty();
        let calldata = submission_calldata(signed, budgeted);
        crate::chain::send_measured(chain, signed.account, calldata, watch).await
    }
}
