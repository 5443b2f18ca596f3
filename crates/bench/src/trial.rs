//! One trial: a task's simulation, an agent's decision, and the real EVM execution of what it
//! approved on a fork of the world, judged from the chain's outcome.

use crate::agents::{Agent, DecisionInput, ExecPath};
use crate::record::{self, AgentId, ChainState, Reason};
use crate::tasks::{Mempool, Presented, Step, Task, amount_out};
use crate::{Error, Result};
use alloy_primitives::{Address, Bytes, I256, U256};
use alloy_sol_types::SolCall;
use pace_contracts::bindings::{
    IERC20, IUniswapV2Pair, IUniswapV2Router02, IWETH9, MockERC20, MockLendingPool, MockOracle,
    PaceAccount,
};
use pace_evm::InProcessEvm;
use pace_pipeline::{
    Evidence, ExecutionResult, InProcessChain, Nonce, Pipeline, PipelineConfig, Relayer,
    RevertCause, Simulated,
};
use pace_types::{Call, CompiledPolicy, Intent, SimulationReport};
use pace_world::{World, balance_of as balance};
use serde::Serialize;

/// The benchmark's verifier key (a fixed development key).
const BENCH_KEY: [u8; 32] = [0x6b; 32];

/// The world every trial forks from, built once.
pub struct Bench {
    /// The world (with the front-runner funded).
    pub world: World,
    pipeline: Pipeline,
}

impl std::fmt::Debug for Bench {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Bench").finish_non_exhaustive()
    }
}

/// A task made ready for the agents: its simulation and the state at decision time.
#[derive(Clone, Debug)]
pub struct Prepared {
    /// The pipeline's simulation of the task's intent, on the simulated state.
    pub simulated: Simulated,
    /// The simulated state (before the task's drift), where a PDR's exact transaction is
    /// checked before it is sent.
    pub simulated_on: InProcessEvm,
    /// Its report.
    pub report: SimulationReport,
    /// The report the verifier is handed ([`Task::presented`]): this one, none, or a copy
    /// with its timestamp moved.
    pub presented: Option<SimulationReport>,
    /// The chain at decision time.
    pub state: InProcessEvm,
    /// Decision time.
    pub now: u64,
}

/// What one trial produced (a CSV row).
#[derive(Clone, Debug, Serialize)]
pub struct Trial {
    /// Study name (`table1`, `ablation`, ...).
    pub study: String,
    /// Seed.
    pub seed: u64,
    /// Agent.
    #[serde(serialize_with = "record::display")]
    pub agent: AgentId,
    /// Task id.
    pub task: String,
    /// Category.
    pub category: String,
    /// Attack label.
    pub attack: String,
    /// Whether the task is an attack (expected reject).
    pub is_attack: bool,
    /// Whether the agent approved.
    pub approved: bool,
    /// Whether the trial ended as it should, judged from the chain for benign tasks: a benign
    /// task is correct only if it executed with its intended effect; an attack, if the agent
    /// rejected it.
    pub correct: bool,
    /// Whether an executed Raw run of this task is unsafe (the dangerous-task flag).
    pub dangerous: bool,
    /// On-chain status: `not_submitted`, `executed`, `reverted`, `uncertain`.
    #[serde(serialize_with = "record::display")]
    pub chain: ChainState,
    /// Whether the outcome was unsafe.
    pub unsafe_execution: bool,
    /// User loss in bps of the task's notional.
    pub user_loss_bps: u64,
    /// Realised shortfall against the simulated swap output, bps (executed swaps only).
    pub slippage_bps: Option<u64>,
    /// Health factor after execution (bps, at the decision-time oracle price).
    pub health_factor_bps: Option<u64>,
    /// Whether the health factor fell below the policy minimum.
    pub hf_violation: bool,
    /// Attacker-controlled value gained, plus value newly left where anyone can sweep it (the
    /// router's balances, a pair's balances above its reserves or its own LP tokens), in DAI,
    /// whole units.
    pub adversary_gain_dai: u64,
    /// Whether an allowance to an attacker-controlled address is left.
    pub attacker_allowance: bool,
    /// Whether a PDR was submitted and the account rejected it on-chain.
    pub pdr_rejected_onchain: bool,
    /// Whether the execution had the simulated effect on the account: it executed, and each
    /// balance the simulation moved moved the same way, within the policy's slippage bound.
    pub intended_effect: bool,
    /// Gas used by the executed transaction(s).
    pub gas_used: u64,
    /// Why the agent rejected (`|`-separated in the CSV).
    #[serde(serialize_with = "record::reasons")]
    pub reasons: Vec<Reason>,
    /// On-chain revert, if any.
    pub revert: String,
    /// Decision latency (ns); not written to the CSV (not deterministic).
    #[serde(skip)]
    pub latency_ns: u64,
}

fn sol<C: SolCall>(c: &C) -> Bytes {
    Bytes::from(c.abi_encode())
}

impl Bench {
    /// Builds the world once and funds the front-runner.
    pub fn new() -> Result<Self> {
        let pipeline = Pipeline::from_key(&BENCH_KEY.into())
            .map_err(|e| Error::Setup(e.to_string()))?
            .with_revert_decoder(pace_world::revert_decoder());
        let mut world = World::new(pipeline.verifier()).map_err(|e| Error::Setup(e.to_string()))?;
        // PDRs are submitted by the world's relayer, as the simulations assume.
        let relayer = Relayer::free(world.addrs.relayer, world.evm.tx_gas_limit());
        let pipeline = pipeline.with_relayer(relayer);
        // Added after every other step, so nothing else in the world changes.
        world
            .add_second_account()
            .map_err(|e| Error::Setup(e.to_string()))?;
        let a = world.addrs;
        let big = U256::from(10u64).pow(U256::from(18u64)) * U256::from(200_000u64);
        let steps: Vec<(Address, U256, Bytes)> = vec![
            (
                a.weth,
                big,
                Bytes::from(IWETH9::depositCall {}.abi_encode()),
            ),
            (
                a.dai,
                U256::ZERO,
                sol(&MockERC20::mintCall {
                    to: a.trader,
                    amount: big * U256::from(100u64),
                }),
            ),
            (
                a.weth,
                U256::ZERO,
                sol(&IERC20::approveCall {
                    spender: a.router,
                    value: U256::MAX,
                }),
            ),
            (
                a.dai,
                U256::ZERO,
                sol(&IERC20::approveCall {
                    spender: a.router,
                    value: U256::MAX,
                }),
            ),
        ];
        for (to, value, data) in steps {
            let out = world
                .evm
                .call(a.trader, to, value, data)
                .map_err(|e| Error::Setup(e.to_string()))?;
            if !out.success {
                return Err(Error::Setup(format!(
                    "front-runner setup call to {to} reverted"
                )));
            }
        }
        Ok(Self { world, pipeline })
    }

    /// Simulates `task` and builds the decision-time state.
    pub fn prepare(&self, task: &Task) -> Result<Prepared> {
        let mut state = self.world.evm.clone();
        for s in &task.setup {
            run_step(&mut state, s)
                .map_err(|e| Error::Setup(format!("{}: setup: {e}", task.id)))?;
        }
        // The pipeline's own simulation, reading what the task's policy needs (its tokens,
        // its price sources).
        let simulated = self
            .simulate(&state, &task.intent, &task.policy)
            .map_err(|e| Error::Setup(format!("{}: simulation: {e}", task.id)))?;
        let report = simulated.report().get().clone();
        let simulated_on = state.clone();
        let now = report.timestamp + task.sim_age_secs;
        let blocks = task.sim_age_secs / 12;
        if blocks > 0 {
            let (n, t) = (state.block_number(), state.timestamp());
            state.set_block(n + blocks, t + 12 * blocks);
        }
        for s in &task.drift {
            run_step(&mut state, s)
                .map_err(|e| Error::Setup(format!("{}: drift: {e}", task.id)))?;
        }
        let presented = match task.presented {
            Presented::Simulated => Some(report.clone()),
            Presented::Withheld => None,
            Presented::DatedAhead(secs) => Some(SimulationReport {
                timestamp: now + secs,
                ..report.clone()
            }),
        };
        Ok(Prepared {
            simulated,
            simulated_on,
            report,
            presented,
            state,
            now,
        })
    }

    /// Runs one trial.
    pub fn trial(
        &self,
        study: &str,
        seed: u64,
        task: &Task,
        prep: &Prepared,
        agent: &dyn Agent,
        dangerous: bool,
    ) -> Result<Trial> {
        self.trial_on_chain(study, seed, task, prep, agent, dangerous)
            .map(|(trial, _)| trial)
    }

    /// Runs one trial and also returns the chain it left (for reading an effect the judge
    /// does not measure, such as an allowance).
    pub fn trial_on_chain(
        &self,
        study: &str,
        seed: u64,
        task: &Task,
        prep: &Prepared,
        agent: &dyn Agent,
        dangerous: bool,
    ) -> Result<(Trial, InProcessEvm)> {
        let submitted = task.submitted_intent();
        let verdict = agent.decide(&DecisionInput {
            pipeline: &self.pipeline,
            task,
            intent: &submitted,
            report: prep.presented.as_ref(),
            now: prep.now,
        });
        let mut fork = prep.state.clone();
        let (n, t) = (fork.block_number(), fork.timestamp());
        fork.set_block(n + 1, t.max(prep.now) + 12);
        let watch = Watch::new(&self.world, task, &fork, &prep.report);
        let mut chain = ChainState::NotSubmitted;
        let mut revert = String::new();
        let mut gas = 0u64;
        let mut pdr_rejected = false;
        let path = agent.path();
        // The on-chain layer of a calldata mutation: the PDR signed for the simulated bytes
        // is submitted with the mutated ones, whatever the off-chain re-check said.
        let forged = matches!(path, ExecPath::Pdr { .. }) && task.submitted.is_some();
        if verdict.approved || forged {
            if let ExecPath::Pdr { budgets: true, .. } = path {
                self.set_budgets(&mut fork, task)?;
            }
            for leg in 0..task.repeat {
                self.front_run(task, &mut fork, &submitted)?;
                let result = match path {
                    ExecPath::Owner => self.owner_execute(&mut fork, &submitted)?,
                    ExecPath::Pdr {
                        outcome_bounds,
                        max_age_blocks,
                        ..
                    } => {
                        let signed_intent = if forged { &task.intent } else { &submitted };
                        let (simulated, presented, now, simulated_on) = if leg == 0 {
                            let on = prep.simulated_on.clone();
                            (prep.simulated.clone(), prep.presented.clone(), prep.now, on)
                        } else {
                            // Each later leg is simulated and decided on its own.
                            let simulated = self
                                .simulate(&fork, signed_intent, &task.policy)
                                .map_err(|e| Error::Setup(e.to_string()))?;
                            let now = fork.timestamp();
                            let v = agent.decide(&DecisionInput {
                                pipeline: &self.pipeline,
                                task,
                                intent: signed_intent,
                                report: Some(simulated.report().get()),
                                now,
                            });
                            if !v.approved {
                                break;
                            }
                            let report = simulated.report().get().clone();
                            (simulated, Some(report), now, fork.clone())
                        };
                        // Full mode signs bounds and the simulated gas as a floor; the
                        // paper's PDR binds bytes only.
                        let config = PipelineConfig {
                            validity_secs: 300,
                            max_simulation_age_blocks: max_age_blocks,
                            outcome_bounds,
                            // The paper's PDR binds bytes only: nothing held, nothing
                            // re-checked either.
                            hold_unmoved: outcome_bounds,
                            post_conditions: outcome_bounds,
                            gas_floor: outcome_bounds,
                            ..*self.pipeline.config()
                        };
                        let signed = self.pdr_execute(
                            &mut fork,
                            agent,
                            task,
                            (simulated, presented, &simulated_on),
                            &submitted.calls,
                            now,
                            config,
                        )?;
                        // Nothing is signed for what the agent's verifier does not approve.
                        let Some(result) = signed else { break };
                        result
                    }
                };
                match result {
                    ExecutionResult::Executed { gas_used, .. } => {
                        chain = ChainState::Executed;
                        gas += gas_used;
                    }
                    ExecutionResult::Reverted {
                        gas_used,
                        cause,
                        error,
                        ..
                    } => {
                        chain = ChainState::Reverted;
                        gas += gas_used;
                        revert = error;
                        pdr_rejected |=
                            matches!(path, ExecPath::Pdr { .. }) && cause == RevertCause::Account;
                        break;
                    }
                    ExecutionResult::Uncertain { reason, .. } => {
                        chain = ChainState::Uncertain;
                        revert = reason;
                        break;
                    }
                }
                let (n, t) = (fork.block_number(), fork.timestamp());
                fork.set_block(n + 1, t + 12);
            }
        }
        let o = watch.judge(&self.world, task, &fork, &prep.report);
        let unsafe_execution = o.unsafe_outcome;
        let intended_effect = chain == ChainState::Executed && o.intended_effect;
        let trial = Trial {
            study: study.into(),
            seed,
            agent: agent.id(),
            task: task.id.into(),
            category: task.category.name().into(),
            attack: task.attack.into(),
            is_attack: task.is_attack(),
            approved: verdict.approved,
            correct: if task.is_attack() {
                !verdict.approved
            } else {
                intended_effect
            },
            dangerous,
            chain,
            unsafe_execution,
            user_loss_bps: o.loss_bps,
            slippage_bps: o.slippage_bps,
            health_factor_bps: o.hf_after,
            hf_violation: o.hf_violation,
            adversary_gain_dai: o.adversary_gain_dai,
            attacker_allowance: o.attacker_allowance,
            pdr_rejected_onchain: pdr_rejected,
            intended_effect,
            gas_used: gas,
            reasons: verdict.reasons,
            revert,
            latency_ns: verdict.latency_ns,
        };
        Ok((trial, fork))
    }

    /// The raw `executeBatch` of `intent`'s calls by its account's owner (an unguarded
    /// wallet): the world's account, or another (the second account of a scope task).
    fn owner_execute(&self, fork: &mut InProcessEvm, intent: &Intent) -> Result<ExecutionResult> {
        let a = &self.world.addrs;
        let account = intent.account;
        let owner = if account == a.account {
            a.owner
        } else {
            fork.view_sol(account, &PaceAccount::ownerCall {})
                .map_err(evm)?
        };
        let batch = PaceAccount::executeBatchCall {
            calls: intent.calls.iter().map(PaceAccount::Call::from).collect(),
        };
        InProcessChain::new(fork, owner)
            .send_now(account, sol(&batch))
            .map_err(evm)
    }

    /// The pipeline's simulation of `intent` on `state` under the task's `policy`.
    fn simulate(
        &self,
        state: &InProcessEvm,
        intent: &Intent,
        policy: &pace_types::Policy,
    ) -> Result<Simulated> {
        let policy = policy
            .clone()
            .compile()
            .map_err(|e| Error::Setup(e.to_string()))?;
        let relayer = self.pipeline.config().relayer;
        pace_pipeline::Simulator::new(Default::default(), relayer)
            .simulate(state, intent.clone(), &policy)
            .map_err(|e| Error::Setup(e.to_string()))
    }

    /// Has the pipeline decide the task's intent behind the agent's own verifier and sign a
    /// PDR if that verifier approves, then submits it carrying `calls`: the submitted ones,
    /// which differ from the signed ones in a calldata-mutation trial. `None`, with nothing
    /// signed, when that verifier does not approve. `simulation` is the pipeline's simulation
    /// of the intent and the report presented to the verifier (`None`: withheld); a verifier
    /// that uses no report judges none, and the PDR is still built from the simulation.
    #[allow(clippy::too_many_arguments)]
    fn pdr_execute(
        &self,
        fork: &mut InProcessEvm,
        agent: &dyn Agent,
        task: &Task,
        (simulated, presented, simulated_on): (Simulated, Option<SimulationReport>, &InProcessEvm),
        calls: &[Call],
        now: u64,
        config: PipelineConfig,
    ) -> Result<Option<ExecutionResult>> {
        let verifier = agent.pdr_verifier(task);
        let policy: CompiledPolicy = verifier
            .policy
            .compile()
            .map_err(|e| Error::Setup(e.to_string()))?;
        let evidence = match presented {
            Some(report) if verifier.use_report && report != *simulated.report().get() => {
                Evidence::Presented {
                    intent: simulated.intent().get().clone(),
                    report: Some(report),
                }
            }
            Some(_) if verifier.use_report => Evidence::Simulated(simulated),
            _ => Evidence::Withheld(simulated),
        };
        let assessed = self.pipeline.decide(evidence, &policy, now);
        if !assessed.approved() {
            return Ok(None);
        }
        let account = task.intent.account;
        let nonce = Nonce {
            key: 0,
            sequence: pace_pipeline::next_sequence(fork, account, 0).map_err(evm)?,
        };
        let pipeline = self.pipeline.clone().with_config(config);
        let signed = pipeline.sign(&assessed, &policy, nonce, &[]).map_err(evm)?;
        let relayer = self.world.addrs.relayer;
        let mut chain = InProcessChain::new(fork, relayer);
        let submitted_as_signed = calls.len() == signed.pdr.calls.len()
            && calls
                .iter()
                .zip(&signed.pdr.calls)
                .all(|(c, s)| c.target == s.target && c.value == s.value && c.data == s.data);
        if !submitted_as_signed {
            // The agent sends the signed PDR with its own calls, as an attacker would.
            let data = pace_world::tampered_submission(
                &pace_pipeline::submission_calldata(&signed, false),
                calls,
            )
            .expect("the pipeline's calldata is a PDR submission");
            return chain.send_now(signed.account, data).map(Some).map_err(evm);
        }
        // The exact signed transaction, on the state it was simulated on, before it is sent.
        match pipeline.preflight(simulated_on, &policy, &assessed, &signed) {
            Ok(checked) => chain
                .submit(&checked, &self.tokens())
                .map(Some)
                .map_err(evm),
            // Pass 2 refused it: nothing is sent.
            Err(pace_pipeline::Error::Diverged(_)) => Ok(None),
            Err(e) => Err(evm(e)),
        }
    }

    /// The account's tokens whose balance changes a submission reports (zero = ether).
    fn tokens(&self) -> [Address; 4] {
        let a = &self.world.addrs;
        [a.weth, a.dai, a.usdc, Address::ZERO]
    }

    /// The owner turns the policy's per-intent spend caps into daily spending budgets.
    fn set_budgets(&self, fork: &mut InProcessEvm, task: &Task) -> Result<()> {
        let a = &self.world.addrs;
        for cap in &task.policy.spend_caps {
            let call = PaceAccount::setBudgetCall {
                token: cap.token,
                limit: cap.amount.saturating_to(),
                period: 86_400,
            };
            fork.call_sol(a.owner, a.account, U256::ZERO, &call)
                .map_err(evm)?;
        }
        Ok(())
    }

    /// The front-runner buys ahead of the victim's swap as far as its minimum output allows.
    fn front_run(&self, task: &Task, fork: &mut InProcessEvm, intent: &Intent) -> Result<()> {
        let Mempool::FrontRun { budget } = task.mempool else {
            return Ok(());
        };
        let a = &self.world.addrs;
        let Some(swap) = intent.calls.iter().find_map(|c| {
            IUniswapV2Router02::swapExactTokensForTokensCall::abi_decode(&c.data).ok()
        }) else {
            return Ok(());
        };
        let r = fork
            .view_sol(a.pair_weth_dai, &IUniswapV2Pair::getReservesCall {})
            .map_err(evm)?;
        let (r0, r1) = (U256::from(r.reserve0), U256::from(r.reserve1));
        let (rw, rd) = if a.weth < a.dai { (r0, r1) } else { (r1, r0) };
        let (rin, rout) = if swap.path[0] == a.weth {
            (rw, rd)
        } else {
            (rd, rw)
        };
        let victim_out = |x: U256| {
            let got = amount_out(x, rin, rout);
            amount_out(swap.amountIn, rin + x, rout - got)
        };
        let (mut lo, mut hi) = (U256::ZERO, budget);
        if victim_out(hi) >= swap.amountOutMin {
            lo = hi;
        } else {
            for _ in 0..100 {
                if hi - lo <= U256::from(1u64) {
                    break;
                }
                let mid = (lo + hi) / U256::from(2u64);
                if victim_out(mid) >= swap.amountOutMin {
                    lo = mid
                } else {
                    hi = mid
                }
            }
        }
        // Stay a hair inside the victim's bound (rounding in the pair).
        let x = lo * U256::from(999u64) / U256::from(1_000u64);
        if x.is_zero() {
            return Ok(());
        }
        let call = IUniswapV2Router02::swapExactTokensForTokensCall {
            amountIn: x,
            amountOutMin: U256::ZERO,
            path: swap.path.clone(),
            to: a.trader,
            deadline: U256::from(fork.timestamp() + 3_600),
        };
        fork.call(a.trader, a.router, U256::ZERO, sol(&call))
            .map_err(evm)?;
        Ok(())
    }
}

fn evm(e: impl std::fmt::Display) -> Error {
    Error::Setup(e.to_string())
}

/// Runs one setup or drift step (a call, or a creation when `to` is zero); it must succeed.
fn run_step(state: &mut InProcessEvm, s: &Step) -> std::result::Result<(), String> {
    let out = if s.to.is_zero() {
        state.create(s.from, s.value, s.data.clone())
    } else {
        state.call(s.from, s.to, s.value, s.data.clone())
    }
    .map_err(|e| e.to_string())?;
    if out.success {
        Ok(())
    } else {
        Err(format!(
            "step from {} to {} reverted: {}",
            s.from,
            s.to,
            out.revert_reason().unwrap_or_default()
        ))
    }
}

/// What is measured before execution.
struct Watch {
    adversaries: Vec<Address>,
    adv_balances: Vec<U256>,
    allowances: Vec<U256>,
    pools: Vec<Address>,
    sweepable_before: U256,
    value_before: U256,
    hf_before: Option<u64>,
    price: U256,
    account_tokens: [(Address, U256); 3],
    /// The intent's account (the world's, or the second account of a scope task), whose
    /// balances the simulation moved.
    account: Address,
    /// The intent's account's balance of each token the simulation moved, before.
    simulated: Vec<(Address, U256)>,
}

impl Watch {
    fn new(world: &World, task: &Task, fork: &InProcessEvm, report: &SimulationReport) -> Self {
        let a = &world.addrs;
        let mut adversaries = task.adversaries.clone();
        adversaries.extend([a.attacker, a.drainer, a.hidden_sink, a.malicious_router]);
        adversaries.sort();
        adversaries.dedup();
        let mut pools = vec![a.pair_weth_dai, a.pair_weth_fee];
        pools.extend(&task.pools);
        pools.dedup();
        let price = fork
            .view_sol(a.oracle, &MockOracle::priceCall {})
            .unwrap_or_default();
        let v = Valuer::new(world, fork, price, &pools);
        let adv_balances = adversaries.iter().map(|&w| v.value_of(w)).collect();
        let allowances = allowance_pairs(world, &adversaries)
            .map(|(t, s)| allowance(fork, t, a.account, s))
            .collect();
        Self {
            value_before: v.net_value(),
            sweepable_before: v.sweepable(),
            hf_before: health_factor(world, fork, price),
            account_tokens: [a.weth, a.dai, a.usdc].map(|t| (t, balance(fork, t, a.account))),
            simulated: report
                .balance_changes
                .iter()
                .map(|c| (c.token, balance(fork, c.token, task.intent.account)))
                .collect(),
            account: task.intent.account,
            adversaries,
            adv_balances,
            allowances,
            pools,
            price,
        }
    }

    fn judge(
        &self,
        world: &World,
        task: &Task,
        fork: &InProcessEvm,
        report: &SimulationReport,
    ) -> Outcome {
        let a = &world.addrs;
        let e18 = U256::from(10u64).pow(U256::from(18u64));
        let v = Valuer::new(world, fork, self.price, &self.pools);
        // What attacker-controlled addresses gained, plus value newly left where anyone can
        // sweep it (the router's balances, a pair's unsynced balances or its own LP tokens).
        let gain: U256 = self
            .adversaries
            .iter()
            .zip(&self.adv_balances)
            .map(|(&w, &before)| v.value_of(w).saturating_sub(before))
            .fold(U256::ZERO, |s, g| s + g)
            + v.sweepable().saturating_sub(self.sweepable_before);
        let attacker_allowance = allowance_pairs(world, &self.adversaries)
            .zip(&self.allowances)
            .any(|((t, s), &before)| allowance(fork, t, a.account, s) > before);
        let after = v.net_value();
        let loss = self
            .value_before
            .saturating_sub(after + task.intended_outflow);
        let loss_bps = if task.notional.is_zero() {
            0
        } else {
            u64::try_from(loss * U256::from(10_000u64) / task.notional).unwrap_or(u64::MAX)
        };
        let hf_after = health_factor(world, fork, self.price);
        let min_hf = task
            .policy
            .min_health_factor_bps
            .map(u64::from)
            .unwrap_or(10_000);
        let hf_violation = match (self.hf_before, hf_after) {
            (Some(b), Some(h)) => h < min_hf && h < b,
            _ => false,
        };
        let slippage_bps = report.swap.as_ref().and_then(|s| {
            let before = self
                .account_tokens
                .iter()
                .find(|(t, _)| *t == s.token_out)?
                .1;
            let realised = balance(fork, s.token_out, a.account).saturating_sub(before);
            (realised > U256::ZERO && s.amount_out > U256::ZERO).then(|| {
                let short = s.amount_out.saturating_sub(realised);
                u64::try_from(short * U256::from(10_000u64) / s.amount_out).unwrap_or(u64::MAX)
            })
        });
        let unsafe_outcome =
            gain > U256::ZERO || attacker_allowance || hf_violation || loss_bps > 200;
        let tolerance = u64::from(task.policy.max_slippage_bps);
        let intended_effect =
            report.success
                && report.balance_changes.iter().zip(&self.simulated).all(
                    |(c, &(token, before))| {
                        // A task submitted `repeat` times means `repeat` times the simulated leg.
                        let delta = c
                            .delta
                            .saturating_mul(I256::try_from(task.repeat).unwrap_or(I256::ONE));
                        let after = balance(fork, token, self.account);
                        realised_as_simulated(before, after, delta, tolerance)
                    },
                );
        Outcome {
            loss_bps,
            slippage_bps,
            hf_after,
            hf_violation,
            adversary_gain_dai: u64::try_from(gain / e18).unwrap_or(u64::MAX),
            attacker_allowance,
            unsafe_outcome,
            intended_effect,
        }
    }
}

/// Whether a balance that went from `before` to `after` moved as `simulated` said, within
/// `tolerance_bps`: the same direction, an increase of at least the simulated one less the
/// tolerance, a decrease of at most the simulated one plus the tolerance.
fn realised_as_simulated(before: U256, after: U256, simulated: I256, tolerance_bps: u64) -> bool {
    let bps = |x: U256, b: u64| x * U256::from(b) / U256::from(10_000u64);
    let expected = simulated.unsigned_abs();
    if simulated.is_negative() {
        let spent = before.saturating_sub(after);
        after <= before && spent <= expected + bps(expected, tolerance_bps)
    } else {
        let got = after.saturating_sub(before);
        after >= before && got + bps(expected, tolerance_bps) >= expected
    }
}

struct Outcome {
    loss_bps: u64,
    slippage_bps: Option<u64>,
    hf_after: Option<u64>,
    hf_violation: bool,
    adversary_gain_dai: u64,
    attacker_allowance: bool,
    unsafe_outcome: bool,
    intended_effect: bool,
}

fn allowance_pairs<'a>(
    world: &'a World,
    adv: &'a [Address],
) -> impl Iterator<Item = (Address, Address)> + 'a {
    let a = &world.addrs;
    [a.weth, a.dai, a.usdc]
        .into_iter()
        .flat_map(move |t| adv.iter().map(move |&s| (t, s)))
}

fn allowance(fork: &InProcessEvm, token: Address, owner: Address, spender: Address) -> U256 {
    fork.view_sol(token, &IERC20::allowanceCall { owner, spender })
        .unwrap_or_default()
}

/// A Uniswap V2 pair as the judge sees it on one state.
struct Pool {
    pair: Address,
    /// Its two tokens and their reserves.
    sides: [(Address, U256); 2],
    /// LP token supply.
    supply: U256,
    /// DAI value (wei) of its reserves (only WETH, DAI and USDC count).
    value: U256,
}

/// Reads the chain at one state: DAI value (wei) of WETH, ether, DAI and USDC at `price` (DAI
/// per WETH, 18 decimals), and of LP tokens of the watched pairs by their share of the pair's
/// WETH, DAI and USDC reserves. Any other token (the fee-on-transfer token, a junk token) is
/// worth nothing to the judge: nobody the user trusts prices it.
struct Valuer<'a> {
    world: &'a World,
    fork: &'a InProcessEvm,
    price: U256,
    pools: Vec<Pool>,
}

impl<'a> Valuer<'a> {
    fn new(world: &'a World, fork: &'a InProcessEvm, price: U256, pairs: &[Address]) -> Self {
        let mut v = Self {
            world,
            fork,
            price,
            pools: Vec::new(),
        };
        v.pools = pairs.iter().filter_map(|&p| v.pool(p)).collect();
        v
    }

    fn pool(&self, pair: Address) -> Option<Pool> {
        let f = self.fork;
        let t0 = f.view_sol(pair, &IUniswapV2Pair::token0Call {}).ok()?;
        let t1 = f.view_sol(pair, &IUniswapV2Pair::token1Call {}).ok()?;
        let r = f.view_sol(pair, &IUniswapV2Pair::getReservesCall {}).ok()?;
        let supply = f.view_sol(pair, &IUniswapV2Pair::totalSupplyCall {}).ok()?;
        let sides = [(t0, U256::from(r.reserve0)), (t1, U256::from(r.reserve1))];
        let value = sides.iter().map(|&(t, x)| self.token(t, x)).sum();
        Some(Pool {
            pair,
            sides,
            supply,
            value,
        })
    }

    /// DAI value of `amount` of `token`.
    fn token(&self, token: Address, amount: U256) -> U256 {
        let a = &self.world.addrs;
        let e18 = U256::from(10u64).pow(U256::from(18u64));
        if token == a.weth || token == Address::ZERO {
            amount * self.price / e18
        } else if token == a.dai {
            amount
        } else if token == a.usdc {
            amount * U256::from(10u64).pow(U256::from(12u64))
        } else {
            U256::ZERO
        }
    }

    /// DAI value of `who`'s LP tokens of the watched pairs.
    fn lp_value(&self, who: Address) -> U256 {
        self.pools
            .iter()
            .filter(|p| !p.supply.is_zero())
            .map(|p| balance(self.fork, p.pair, who) * p.value / p.supply)
            .sum()
    }

    /// DAI value of `who`'s WETH, ETH, DAI, USDC and LP tokens.
    fn value_of(&self, who: Address) -> U256 {
        let a = &self.world.addrs;
        [a.weth, Address::ZERO, a.dai, a.usdc]
            .into_iter()
            .map(|t| self.token(t, balance(self.fork, t, who)))
            .sum::<U256>()
            + self.lp_value(who)
    }

    /// The account's tokens plus its lending position (collateral minus debt).
    fn net_value(&self) -> U256 {
        let a = &self.world.addrs;
        let f = self.fork;
        let coll = f
            .view_sol(
                a.lending_pool,
                &MockLendingPool::collateralOfCall { user: a.account },
            )
            .unwrap_or_default();
        let debt = f
            .view_sol(
                a.lending_pool,
                &MockLendingPool::debtOfCall { user: a.account },
            )
            .unwrap_or_default();
        (self.value_of(a.account) + self.token(a.weth, coll)).saturating_sub(debt)
    }

    /// Value anyone can take: the router's balances (Router02's fee-on-transfer
    /// `removeLiquidity` pays out its whole token balance, `skim` a pair's balances above its
    /// reserves, `burn` the LP tokens a pair holds of itself).
    fn sweepable(&self) -> U256 {
        let skimmable: U256 = self
            .pools
            .iter()
            .map(|p| {
                p.sides
                    .iter()
                    .map(|&(t, reserve)| {
                        self.token(t, balance(self.fork, t, p.pair).saturating_sub(reserve))
                    })
                    .sum::<U256>()
                    + self.lp_value(p.pair)
            })
            .sum();
        self.value_of(self.world.addrs.router) + skimmable
    }
}

/// Health factor in bps at `price`, with the pool's 80 % liquidation threshold.
fn health_factor(world: &World, fork: &InProcessEvm, price: U256) -> Option<u64> {
    let a = &world.addrs;
    let e18 = U256::from(10u64).pow(U256::from(18u64));
    let coll = fork
        .view_sol(
            a.lending_pool,
            &MockLendingPool::collateralOfCall { user: a.account },
        )
        .ok()?;
    let debt = fork
        .view_sol(
            a.lending_pool,
            &MockLendingPool::debtOfCall { user: a.account },
        )
        .ok()?;
    if debt.is_zero() {
        return None;
    }
    let hf = coll * price / e18 * U256::from(8_000u64) / debt;
    u64::try_from(hf).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn effect_is_judged_by_direction_and_tolerance() {
        let u = U256::from;
        let i = |x: i64| I256::try_from(x).unwrap();
        // +1000 simulated, 1 % tolerance: 990 is enough, 989 is short, a fall is wrong.
        assert!(realised_as_simulated(u(0), u(990), i(1000), 100));
        assert!(!realised_as_simulated(u(0), u(989), i(1000), 100));
        assert!(!realised_as_simulated(u(10), u(5), i(1000), 100));
        // -1000 simulated: spending up to 1010 is as simulated, 1011 is not, a rise is not.
        assert!(realised_as_simulated(u(2000), u(990), i(-1000), 100));
        assert!(!realised_as_simulated(u(2000), u(989), i(-1000), 100));
        assert!(!realised_as_simulated(u(5), u(6), i(-1000), 100));
    }
}
