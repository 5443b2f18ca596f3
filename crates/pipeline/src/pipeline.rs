//! [`Pipeline`]: simulate, decide, sign, submit. The one door every caller goes through.

use crate::{
    AccountState, Chain, Error, ExecutionResult, Result,
    account::calldata::pdr_transaction,
    submission::{Checked, Relayer, first_pass, pass_two, same_balances, same_rights, submission},
};
use alloy_primitives::{Address, B256};
use pace_abi::revert::RevertDecoder;
use pace_evm::InProcessEvm;
use pace_signer::{
    Bounds, PdrRecord, PdrSigner, SignedPdr, attest_on, bounds_from_report, tightest,
};
use pace_types::{
    AccountKind, CompiledPolicy, Decision, Entry, Hashed, Intent, SimulationReport,
    account::Route,
    pdr::{Bound, BoundKind, PdrTerms, grant_bit, grant_bits_of_call},
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
    /// Whether to sign on-chain outcome bounds on what the simulation moved (PACE-rs "full"
    /// mode); off reproduces the paper, which binds bytes but not outcomes.
    pub outcome_bounds: bool,
    /// Whether to sign, besides, that every asset the simulation read and did not move, and
    /// ether, may not fall (the held set: what a contract that behaves differently for real
    /// could take). On by default, with or without `outcome_bounds`; off only to reproduce
    /// the paper's PDR.
    pub hold_unmoved: bool,
    /// Whether to sign, besides, the facts the approval relied on that the execution can change
    /// (what a received share is worth, ...) as post-conditions the account re-reads after the
    /// calls ([`pace_signer::post_conditions`]). On by default; off only to reproduce the
    /// paper's PDR.
    pub post_conditions: bool,
    /// Whether to sign the simulated gas (with a margin) as the floor the submission must
    /// leave the calls (PACE-rs); off reproduces the paper's PDR, which has none.
    pub gas_floor: bool,
    /// Who submits, and how: the simulation runs the transaction this relayer will send.
    pub relayer: Relayer,
    /// The kind of account PDRs go to (its state's layout and its domain).
    pub account: AccountKind,
    /// How PDRs reach it: a call to the account, or a user operation through the EntryPoint.
    pub entry: Entry,
}

impl Default for PipelineConfig {
    fn default() -> Self {
        Self {
            validity_secs: 300,
            max_simulation_age_blocks: 6,
            outcome_bounds: true,
            hold_unmoved: true,
            post_conditions: true,
            gas_floor: true,
            relayer: Relayer::default(),
            account: AccountKind::PaceAccount,
            entry: Entry::Direct,
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
    logs: Vec<alloy_primitives::Log>,
    account: Option<AccountState>,
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

    /// The logs the intent's calls emitted in the simulation, in order (the account's own
    /// left out; empty for an account that takes no PDR, whose calls ran one by one).
    pub fn logs(&self) -> &[alloy_primitives::Log] {
        &self.logs
    }

    /// The account as pass 1 read it on the simulated state (`None`: it has no code, and its
    /// calls ran one by one).
    pub fn account(&self) -> Option<&AccountState> {
        self.account.as_ref()
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
    account: Option<AccountState>,
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

    /// The account as the simulation read it (`None` for a presented report, or an account
    /// without code).
    pub fn account(&self) -> Option<&AccountState> {
        self.account.as_ref()
    }

    /// The worth in wei of `outflows` together, rounded up, at the prices of this decision's
    /// report that `policy` trusts, valued as the verifier values them
    /// ([`pace_verifier::outflow_value`]); `None` without a report or when one of them cannot
    /// be priced.
    pub fn outflow_value(
        &self,
        policy: &CompiledPolicy,
        outflows: &[pace_types::TokenAmount],
    ) -> Option<alloy_primitives::U256> {
        let report = self.basis.as_ref()?;
        pace_verifier::outflow_value(policy.policy(), report.get(), outflows)
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
    /// For an approval, the signed PDR checked by pass 2, ready for [`Pipeline::submit`].
    pub checked: Option<Checked>,
    /// For an approval whose exact signed transaction did not do what the simulation showed
    /// (pass 2, [`Pipeline::preflight`]): why. Nothing may be sent.
    pub refused: Option<String>,
}

/// The trusted half of PACE with its verifier key, and the one way through it:
///
/// 1. [`simulate`](Self::simulate) the intent on a state (with the policy's reads, the revert
///    decoder and, on a fork, the prefetch: a [`Simulator`]);
/// 2. [`decide`](Self::decide) on that simulation (or on a presented report, or none);
/// 3. [`sign`](Self::sign) a PDR for an approval, on a nonce the caller supplies;
/// 4. [`preflight`](Self::preflight) it: run the exact signed transaction on the simulated
///    state, which must do what the simulation showed;
/// 5. [`submit`](Self::submit) it through the account on a [`Chain`].
///
/// [`evaluate`](Self::evaluate) composes the first four on one state. The CLI, the demo, the
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
    relayer: Relayer,
    account: AccountKind,
    entry: Entry,
}

impl Simulator {
    /// A simulator decoding the custom errors `revert_decoder` knows, besides the built-in
    /// ones, in a failed simulation's revert reason, for submissions by `relayer`.
    pub fn new(revert_decoder: RevertDecoder, relayer: Relayer) -> Self {
        Self {
            revert_decoder,
            relayer,
            account: AccountKind::PaceAccount,
            entry: Entry::Direct,
        }
    }

    /// The same simulator for an account of `kind` (where its state lives, its domain).
    #[must_use]
    pub fn with_account_kind(mut self, kind: AccountKind) -> Self {
        self.account = kind;
        self
    }

    /// The same simulator for PDRs that reach the account by `entry` (recorded in the
    /// report's `execution`; pass 1 runs the account's own frame either way).
    #[must_use]
    pub fn with_entry(mut self, entry: Entry) -> Self {
        self.entry = entry;
        self
    }

    /// Simulates `intent` on `state` as the transaction that will carry it (pass 1, see
    /// `submission.rs`): inside the account's frame, from the relayer, in the next block,
    /// with the relayer's gas limit and fees; an account without code (an EOA, which cannot
    /// take a PDR) has its calls run one transaction each. The simulator reads what `policy`
    /// asks it to (its tokens, its price sources) and decodes reverts with this simulator's
    /// decoder; on a fork of a node, what the simulation will read is fetched first in a few
    /// batched round trips (never changing the result: see `pace_simulator::prefetch`; a
    /// no-op in memory). The one simulation of the pipeline.
    pub fn simulate(
        &self,
        state: &InProcessEvm,
        intent: impl Into<Hashed<Intent>>,
        policy: &CompiledPolicy,
    ) -> Result<Simulated> {
        let options = pace_simulator::SimulateOptions::for_policy(policy)
            .with_revert_decoder(self.revert_decoder.clone());
        let intent = intent.into();
        // First, so that pass 1 below is answered from what it fetched: the discovery runs
        // pass 1 itself on the fetched state.
        pace_simulator::prefetch_with(state, intent.get(), &options, |w| {
            let _ = self.pass_one(w, &intent, policy, &options);
        })?;
        let (account, report, logs) = self.pass_one(state, &intent, policy, &options)?;
        crate::documents::report_loads_back(&report);
        Ok(Simulated {
            intent,
            report: Hashed::new(report),
            logs,
            account,
        })
    }

    /// Pass 1 of `intent` on `state` (see [`Self::simulate`]): the account's state, the
    /// report and the logs.
    fn pass_one(
        &self,
        state: &InProcessEvm,
        intent: &Hashed<Intent>,
        policy: &CompiledPolicy,
        options: &pace_simulator::SimulateOptions,
    ) -> Result<(
        Option<AccountState>,
        SimulationReport,
        Vec<alloy_primitives::Log>,
    )> {
        let account = AccountState::read(state, intent.account, self.account)?;
        let module = account.as_ref().and_then(AccountState::module);
        if let Some(module) = module
            && self.entry == Entry::EntryPoint
        {
            return Err(Error::NotPaceAccount {
                account: intent.account,
                reason: format!(
                    "its PaceModule {module} takes PDRs on the direct path only here \
                     (--entry direct)"
                ),
            });
        }
        let options = options.clone().with_budgets_at(module);
        let Some(found) = &account else {
            let report = pace_simulator::simulate_hashed(state, intent, &options)?;
            return Ok((account, report, Vec::new()));
        };
        let tx = first_pass(state, intent, policy, &self.relayer, found)?;
        let mut s = pace_simulator::simulate_submission(state, intent, &tx, &options)?;
        let gas = (self.entry == Entry::EntryPoint).then(|| {
            let bounded = crate::account::bounded(&s.report);
            crate::account::user_op_gas(intent, &self.relayer, &s.report, bounded)
        });
        if let Some(env) = s.report.execution.as_mut() {
            env.account_kind = self.account;
            env.entry = self.entry;
            env.max_gas_cost = gas.as_ref().map(crate::account::max_gas_cost);
        }
        Ok((account, s.report, s.logs))
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
        self.simulator.revert_decoder = revert_decoder;
        self
    }

    /// The same pipeline issuing PDRs as `config` says (and simulating for its relayer).
    #[must_use]
    pub fn with_config(mut self, config: PipelineConfig) -> Self {
        self.simulator.relayer = config.relayer;
        self.simulator.account = config.account;
        self.simulator.entry = config.entry;
        self.config = config;
        self
    }

    /// The same pipeline with `relayer` submitting.
    #[must_use]
    pub fn with_relayer(self, relayer: Relayer) -> Self {
        let config = PipelineConfig {
            relayer,
            ..self.config
        };
        self.with_config(config)
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
        let (intent, judged, basis, account) = match evidence {
            Evidence::Simulated(s) => (s.intent, true, Some(s.report), s.account),
            Evidence::Withheld(s) => (s.intent, false, Some(s.report), s.account),
            Evidence::Presented { intent, report } => {
                (Hashed::new(intent), true, report.map(Hashed::new), None)
            }
        };
        let shown = basis.as_ref().filter(|_| judged);
        let verdict = pace_verifier::approve_hashed(intent, policy, shown, now);
        crate::documents::decision_loads_back(verdict.decision());
        Assessed {
            verdict,
            basis,
            account,
        }
    }

    /// Signs the PDR for an approved `assessed` under `policy` (the policy that approved), on
    /// `nonce`: the one place PDR terms and bounds are built.
    ///
    /// The PDR is valid from the decision's time for `validity_secs`, names the report's block,
    /// with `gas_floor` requires the simulated gas for the calls, with `outcome_bounds`
    /// carries bounds on what the simulation moved, widened by the policy's
    /// `outcome_tolerance_bps` and tightened by `extra_bounds` (what a person confirmed, say;
    /// [`pace_signer::tightest`]), with `hold_unmoved` holds everything else the simulation
    /// read, and ether ([`pace_signer::bounds_from_report`]), and with `post_conditions`
    /// re-checks after the calls the reads the approval relied on (they come with it).
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
        self.sign_on(assessed, policy, nonce, extra_bounds, &Route::default())
    }

    /// [`Self::sign`] for the entry path `route` names (a `PaceDelegate` EOA's salt, the
    /// EntryPoint and the user operation's gas: [`crate::route_for`] reads them). On the
    /// EntryPoint path the window also ends no later than the simulation's freshness allows
    /// (`maxSimulationAge` blocks of 12 s after the report's block), so a late user operation
    /// fails validation instead of paying for an execution that reverts.
    pub fn sign_on(
        &self,
        assessed: &Assessed,
        policy: &CompiledPolicy,
        nonce: Nonce,
        extra_bounds: &[Bound],
        route: &Route,
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
        let mut valid_until = now.saturating_add(config.validity_secs);
        if route.entry_point.is_some() {
            let fresh_for =
                u64::from(config.max_simulation_age_blocks) * pace_simulator::BLOCK_TIME_SECS;
            valid_until = valid_until.min(report.timestamp.saturating_add(fresh_for));
        }
        let terms = PdrTerms {
            key: nonce.key,
            sequence: nonce.sequence,
            valid_after: now,
            valid_until,
            simulation_block: report.block_number,
            max_simulation_age: config.max_simulation_age_blocks,
            // The floor the submission must leave the calls: the simulated gas with a margin.
            call_gas_kib: if config.gas_floor {
                PdrTerms::call_gas_floor(report.gas_used)
            } else {
                0
            },
        };
        let account = approval.intent().account;
        // A presented report's word on the account's grants is not taken: only the pipeline's
        // own simulation may leave an asset (ether included) unread, or record a right.
        let all = if assessed.account.is_some() {
            bounds_from_report(report, account, policy.outcome_tolerance_bps)
        } else {
            let shown = SimulationReport {
                grant_filter: None,
                ungranted: Vec::new(),
                ..report.get().clone()
            };
            bounds_from_report(&shown, account, policy.outcome_tolerance_bps)
        };
        // A right over a contract the calls themselves record needs no `GRANTED` bound. What
        // is left unread rests on the `UNGRANTED` bound, which goes with the held set; a
        // `GRANTED` one records a right for later PDRs whatever this PDR bounds.
        let recorded = approval.intent().calls.iter().fold(0u16, |bits, c| {
            bits | grant_bits_of_call(account, c.target, &c.data)
        });
        let kind = |b: &Bound, k: BoundKind| b.kind == k as u8;
        let (marks, rest): (Vec<Bound>, Vec<Bound>) = all
            .bounds
            .into_iter()
            .filter(|b| !kind(b, BoundKind::Granted) || grant_bit(b.token) & recorded == 0)
            .partition(|b| kind(b, BoundKind::Granted));
        let (unread, outcome): (Vec<Bound>, Vec<Bound>) = rest
            .into_iter()
            .partition(|b| kind(b, BoundKind::Ungranted));
        let held = all.held;
        let bounds = match (config.outcome_bounds, config.hold_unmoved) {
            (true, true) => tightest(
                &Bounds {
                    bounds: [outcome, unread, marks].concat(),
                    held,
                    ..Bounds::default()
                },
                extra_bounds,
            ),
            (true, false) => tightest(
                &Bounds {
                    bounds: [outcome, marks].concat(),
                    ..Bounds::default()
                },
                extra_bounds,
            ),
            (false, true) => Bounds {
                bounds: [unread, marks].concat(),
                held,
                ..Bounds::default()
            },
            (false, false) => Bounds {
                bounds: marks,
                ..Bounds::default()
            },
        };
        let bounds = Bounds {
            post_conditions: config.post_conditions,
            ..bounds
        };
        let signed = attest_on(&self.signer, approval, terms, bounds, route)?;
        crate::documents::pdr_loads_back(&signed, self.signer.address());
        // The account's recovery of it in pass 2 (and in any later simulation of it) is known.
        pace_evm::recover::remember(
            signed.digest,
            &signed.signature.to_rsv(),
            self.signer.address(),
        );
        Ok(signed)
    }

    /// Simulates `intent` on `state`, decides on that simulation at the state's time, and for
    /// an approval signs a PDR on the next sequence of lane `lane` read from the same state
    /// and checks it there ([`Self::preflight`]: a divergence is `refused`, not an error). A
    /// rejection is recorded unsigned, and the account need not be a PACE account for the
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
        let (record, checked, refused) = if assessed.approved() {
            let account = self.account_of(state, &assessed)?;
            let sequence = account.next_sequence(state, lane, self.config.entry)?;
            let nonce = Nonce {
                key: lane,
                sequence,
            };
            let route = self.route(state, intent, &assessed)?;
            let pdr = self.sign_on(&assessed, policy, nonce, &[], &route)?;
            let (checked, refused) = match self.preflight(state, policy, &assessed, &pdr) {
                Ok(checked) => (Some(checked), None),
                Err(Error::Diverged(why)) => (None, Some(why)),
                Err(e) => return Err(e),
            };
            let record = PdrRecord::Signed {
                decision: assessed.decision().clone(),
                pdr: Box::new(pdr),
            };
            (record, checked, refused)
        } else {
            let record = PdrRecord::Unsigned {
                decision: assessed.decision().clone(),
            };
            (record, None, None)
        };
        let report = assessed
            .basis
            .map(Hashed::into_inner)
            .expect("a simulation is the basis of its own decision");
        Ok(Evaluation {
            report,
            decision: record.decision().clone(),
            record,
            checked,
            refused,
        })
    }

    /// The route this pipeline signs `assessed`'s PDR for on `state` ([`crate::route_for`] with
    /// its account kind, entry and relayer; the bounds counted as the PDR will carry them).
    pub fn route(
        &self,
        state: &InProcessEvm,
        intent: &Intent,
        assessed: &Assessed,
    ) -> Result<Route> {
        let config = &self.config;
        if config.account == AccountKind::PaceAccount && config.entry == Entry::Direct {
            return Ok(Route::default());
        }
        let report = assessed.report().ok_or(Error::NoReport)?;
        let bounded = crate::account::bounded(report.get());
        let route = crate::route_for(
            &self.account_of(state, assessed)?,
            intent,
            config.entry,
            &config.relayer,
            report.get(),
            bounded,
        );
        // The gas terms signed are the ones whose cost the verifier judged.
        if let Some((_, gas)) = &route.entry_point {
            let judged = report.get().execution.as_ref().and_then(|e| e.max_gas_cost);
            if judged != Some(crate::max_gas_cost(gas)) {
                return Err(Error::NotApproved("the user operation's gas"));
            }
        }
        Ok(route)
    }

    /// The account `assessed` is about, as its simulation read it on `state`; read here only
    /// for a presented report, which carries none.
    fn account_of(&self, state: &InProcessEvm, assessed: &Assessed) -> Result<AccountState> {
        match assessed.account() {
            Some(account) => Ok(*account),
            None => {
                let approval = assessed.verdict.approval().ok_or(Error::Rejected)?;
                AccountState::read_pace(state, approval.intent().account, self.config.account)
            }
        }
    }

    /// Pass 2: runs `signed`'s exact transaction (its calldata from the configured relayer,
    /// with its gas limit and fees, in the block after `state`'s, no earlier than the PDR's
    /// `validAfter`, nothing overridden) on
    /// `state`, the state `assessed` was simulated on, and hands it out for [`Self::submit`]
    /// only when it succeeds with the simulation's balance changes and approvals. Uses the
    /// lean `executePDR` path when the PDR and the account (no spending budgets, read from the
    /// state) allow it.
    pub fn preflight(
        &self,
        state: &InProcessEvm,
        policy: &CompiledPolicy,
        assessed: &Assessed,
        signed: &SignedPdr,
    ) -> Result<Checked> {
        let (Some(expected), Some(approval)) = (assessed.report(), assessed.verdict.approval())
        else {
            return Err(Error::Rejected);
        };
        let budgeted = self.account_of(state, assessed)?.budgeted();
        let relayer = self.config.relayer;
        let valid_after = signed.pdr.terms().valid_after;
        let (to, calldata) = pdr_transaction(signed, budgeted, relayer.address);
        let user_op_hash = signed.entry_point.map(|route| route.user_op_hash);
        // The relayer must afford it, and it cannot land before the PDR's window opens (the
        // decision may come after the simulated block).
        let mut tx = submission(state, &relayer, calldata.clone())?;
        tx.block.timestamp = tx.block.timestamp.max(valid_after);
        tx.to = Some(to);
        // The EntryPoint path: the exact bundle on a copy of the state, its balance changes
        // with the gas the operation pays counted back.
        if let Some(user_op_hash) = user_op_hash {
            let changes = crate::account::bundle::run_bundle(
                state,
                &relayer,
                signed.account,
                calldata.clone(),
                user_op_hash,
                valid_after,
                expected,
            )?;
            same_balances(&changes, expected)?;
        }
        // An execution that read nothing the other world changes runs the same in it
        // (`perturb::reads_lander`); so does one that read nothing a later block changes. When
        // no other run is compared with pass 2, it need report only what the execution did;
        // one that read its environment after all is run again in full.
        let direct = user_op_hash.is_none();
        let last = crate::perturb::last_landing(&tx, &signed.pdr.terms());
        let compared = |r: &SimulationReport| {
            !direct
                || crate::perturb::reads_lander(r)
                || (last > 0 && crate::perturb::reads_time(r))
        };
        let run = |tx: &pace_simulator::Submission, full: bool| {
            pass_two(
                state,
                policy,
                approval.intent(),
                tx,
                &self.simulator.revert_decoder,
                full,
            )
        };
        let full = compared(expected);
        let mut second = run(&tx, full)?;
        if !full && compared(&second) {
            second = run(&tx, true)?;
        }
        if user_op_hash.is_none() {
            same_balances(&second.balance_changes, expected)?;
        }
        same_rights(&second, expected, signed.account)?;
        if !direct || crate::perturb::reads_lander(&second) {
            let other = run(&crate::perturb::perturbed(state, &tx)?, true)?;
            crate::perturb::same_effects(&other, &second)?;
        }
        // Later: in the last block the PDR can land in, or in the next one when it reverts
        // there (and so cannot land there either). A PDR that can land in pass 2's block only
        // has no later.
        if last > 0 && (!direct || crate::perturb::reads_time(&second)) {
            let run_later = |blocks| run(&crate::perturb::later(&tx, blocks), true);
            let later = match run_later(last) {
                Err(Error::Diverged(_)) if last > 1 => run_later(1),
                other => other,
            }
            .map_err(|e| match e {
                Error::Diverged(why) => Error::Diverged(format!("landing later {why}")),
                e => e,
            })?;
            crate::perturb::no_later_rights(&later, &second, signed.account)?;
        }
        Ok(Checked {
            digest: signed.digest,
            signed: signed.clone(),
            to,
            calldata,
            relayer,
        })
    }

    /// Submits `checked` to its account on `chain` and reports what the chain did, with the
    /// account's realised balance changes in `watch` (zero address = ether), read just before
    /// and after. The chain must send as the relayer pass 2 ran as. An error means nothing was
    /// sent.
    pub async fn submit<C: Chain>(
        chain: &mut C,
        checked: &Checked,
        watch: &[Address],
    ) -> Result<ExecutionResult> {
        let sending = chain.sender();
        if sending != checked.relayer.address {
            return Err(Error::WrongRelayer {
                checked: checked.relayer.address,
                sending,
            });
        }
        crate::chain::send_measured(
            chain,
            (checked.to, checked.signed.account),
            checked.calldata.clone(),
            &checked.relayer,
            watch,
            checked.signed.entry_point.map(|r| r.user_op_hash),
        )
        .await
    }
}
