//! [`simulate`]: run the intent on a fork of the world, derive the report.

use alloy_primitives::{Address, B256, Log};
use pace_abi::{DecodedCall, decode_call_from};
use pace_evm::InProcessEvm;
use pace_types::{
    ETH, Hashed, Intent, OraclePrice, Policy, SimulationReport, units::shortfall_bps,
};

use crate::{
    balances::{BalanceInputs, approvals, balance_changes, debt_like, payee_receipts},
    budgets::read_budgets,
    discrepancy::Discrepancy,
    error::{Error, Result},
    execute::{Execution, in_frame, per_call},
    fork::{Env, Viewer, eth_balance, has_code},
    health::health_factors,
    positions::position_changes,
    prices::{PriceInputs, price_facts},
    submission::Submission,
};
use pace_abi::revert::RevertDecoder;

/// Options of [`simulate_with`] / [`simulate_detailed`].
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SimulateOptions {
    /// ERC-20 tokens whose balance change to measure besides those the logs and the decoded
    /// calldata name (e.g. every token of the policy, to catch a token that moves without
    /// logging it).
    pub extra_tokens: Vec<Address>,
    /// Pools and vaults to read exchange rates from, besides the touched contracts and the
    /// assets that move (the simulator reads every one it can; the verifier trusts only those
    /// the policy names).
    pub price_sources: Vec<Address>,
    /// Price feeds to read (a feed's answer means nothing without its entry).
    pub price_oracles: Vec<OraclePrice>,
    /// Decoders of the custom errors the simulator does not know by itself (those of other
    /// contracts than the account and the standards), for the report's `revert_reason`. Empty
    /// by default: such a revert reads `custom error 0x<selector>`.
    pub revert_decoder: RevertDecoder,
    /// Payees whose balance gains to measure (the report's `payee_receipts`): what a
    /// payment to them is credited with.
    pub payees: Vec<Address>,
    /// Where the account's spending budgets live, when not at the account itself: the
    /// `PaceModule` of a Safe.
    pub budgets_at: Option<Address>,
    /// The protocols the policy trusts by descriptor: their members among the touched
    /// contracts and the code at their roots are reported.
    pub descriptors: Vec<pace_types::descriptor::Descriptor>,
}

impl SimulateOptions {
    /// What a policy asks the simulator to measure: its tokens' balances and its valuation
    /// sources.
    pub fn for_policy(policy: &Policy) -> Self {
        Self {
            extra_tokens: policy_tokens(policy),
            price_sources: policy.price_sources().collect(),
            price_oracles: policy.price_oracles.clone(),
            revert_decoder: RevertDecoder::default(),
            payees: policy.allowed_recipients.clone(),
            budgets_at: None,
            descriptors: policy.descriptors().cloned().collect(),
        }
    }

    /// These options with `decoder` as the revert decoder registry.
    #[must_use]
    pub fn with_revert_decoder(self, decoder: RevertDecoder) -> Self {
        Self {
            revert_decoder: decoder,
            ..self
        }
    }

    /// The same options, reading the budgets at `at` (a Safe's module) when `Some`.
    pub fn with_budgets_at(self, at: Option<Address>) -> Self {
        Self {
            budgets_at: at,
            ..self
        }
    }
}

/// The ERC-20 tokens a policy names: its allowed tokens, the tokens of its spend caps and
/// budgets and those its price table prices (ether and duplicates left out), in that order.
pub fn policy_tokens(policy: &Policy) -> Vec<Address> {
    let mut out: Vec<Address> = Vec::new();
    let named = policy
        .allowed_tokens
        .iter()
        .chain(policy.spend_caps.iter().map(|c| &c.token))
        .chain(policy.budgets.iter().map(|b| &b.token))
        .chain(policy.prices.iter().map(|p| &p.token));
    for &token in named {
        if token != ETH && !out.contains(&token) {
            out.push(token);
        }
    }
    out
}

/// A simulation with what the report has no field for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Simulation {
    /// The report.
    pub report: SimulationReport,
    /// Where the logs and the state disagree (empty for honest tokens).
    pub discrepancies: Vec<Discrepancy>,
    /// The index of the call that reverted, halted or was refused, when the batch failed.
    pub failed_call: Option<usize>,
    /// The logs the intent's calls emitted, in order (the account's own excluded).
    pub logs: Vec<Log>,
}

/// Simulates `intent` on a fork of `world` (which is not modified) and reports what happened.
/// See [`simulate_detailed`].
pub fn simulate(world: &InProcessEvm, intent: &Intent) -> Result<SimulationReport> {
    Ok(simulate_detailed(world, intent, &SimulateOptions::default())?.report)
}

/// [`simulate`] with options.
pub fn simulate_with(
    world: &InProcessEvm,
    intent: &Intent,
    options: &SimulateOptions,
) -> Result<SimulationReport> {
    Ok(simulate_detailed(world, intent, options)?.report)
}

/// [`simulate_with`] for an intent hashed once up front: the report's `intent_hash` is the
/// hash `intent` holds, so a caller that also judges and signs the intent (the pipeline)
/// hashes it once, not twice. The report is the one [`simulate_with`] gives.
pub fn simulate_hashed(
    world: &InProcessEvm,
    intent: &Hashed<Intent>,
    options: &SimulateOptions,
) -> Result<SimulationReport> {
    Ok(simulate_inner(
        world,
        intent.get(),
        || intent.hash(),
        options,
        None,
        Scope::Full,
    )?
    .report)
}

/// Simulates `intent` as `submission`, the one transaction that will carry it: the relayer's
/// call to the account, in the block it will run in, with the account's own frames around the
/// intent's calls (see [`Submission`]). The report is derived as [`simulate_detailed`]'s, from
/// the intent's calls only (the account's own frames, its signature recovery and balance
/// reads, are not facts of the intent); its `block_number` and `timestamp` stay `world`'s
/// (what a PDR names and freshness measures) and `execution` records the transaction's
/// environment. A swap's facts are measured on the transaction's state as the swap call saw
/// it and left it.
///
/// Errors as [`simulate_detailed`]; a transaction revm refuses (a relayer that cannot pay the
/// fees), that reverts, or that does not make every call of the intent is a failed
/// simulation.
pub fn simulate_submission(
    world: &InProcessEvm,
    intent: &Hashed<Intent>,
    submission: &Submission,
    options: &SimulateOptions,
) -> Result<Simulation> {
    simulate_inner(
        world,
        intent.get(),
        || intent.hash(),
        options,
        Some(submission),
        Scope::Full,
    )
}

/// [`simulate_submission`] reporting only what the execution itself did: success and the
/// revert reason, gas, the touched contracts and precompiles, the environment it read, the
/// movements, the balance changes (and the balances read) and the approvals. Nothing is read
/// around it: no prices, protocol facts, health, rights or relied reads, nor the account's
/// budgets and grant filter before the calls (their fields stay empty). For a run whose report is compared with another's on those effects alone (the
/// pipeline's pass 2 when no other run is compared with it).
pub fn simulate_submission_effects(
    world: &InProcessEvm,
    intent: &Hashed<Intent>,
    submission: &Submission,
    options: &SimulateOptions,
) -> Result<Simulation> {
    simulate_inner(
        world,
        intent.get(),
        || intent.hash(),
        options,
        Some(submission),
        Scope::Effects,
    )
}

/// How much of a report [`simulate_inner`] derives.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Scope {
    /// Everything.
    Full,
    /// What the execution did ([`simulate_submission_effects`]).
    Effects,
}

/// Simulates `intent` on a fork of `world` at its current block and derives the report from
/// the execution, plus the [`Discrepancy`]s between logs and state.
///
/// The calls run in order as transactions from `intent.account` (contract accounts included)
/// on one copy-on-write fork, each seeing the state the previous ones left. The batch is
/// all-or-nothing: at the first call that reverts, halts or that the EVM refuses, the report
/// has `success: false`, the decoded `revert_reason`, the gas used so far and the contracts
/// touched so far (reverted frames included), and no flows, approvals, balance changes, swap,
/// loss or health factor.
///
/// Errors: an intent without calls, an intent for another chain, an EVM failure that is not
/// about the transaction. On a world forked from a node ([`InProcessEvm::fork`]) state is read
/// from the node on first use; a node that cannot answer is [`Error::Fork`], never a report.
pub fn simulate_detailed(
    world: &InProcessEvm,
    intent: &Intent,
    options: &SimulateOptions,
) -> Result<Simulation> {
    simulate_inner(
        world,
        intent,
        || intent.intent_hash(),
        options,
        None,
        Scope::Full,
    )
}

/// [`simulate_detailed`] with the intent's hash from `intent_hash`, asked for once the intent
/// is known to be valid and for this chain.
fn simulate_inner(
    world: &InProcessEvm,
    intent: &Intent,
    intent_hash: impl FnOnce() -> B256,
    options: &SimulateOptions,
    submission: Option<&Submission>,
    scope: Scope,
) -> Result<Simulation> {
    intent.validate()?;
    if intent.chain_id != world.chain_id() {
        return Err(Error::ChainMismatch {
            intent: intent.chain_id,
            world: world.chain_id(),
        });
    }
    let env = Env::of(world);
    // What the account's own state allows before the calls (budgets, the grant filter) is
    // not an effect of the execution: read for a full report only.
    let holder = options.budgets_at.unwrap_or(intent.account);
    let (budgets, grant_filter) = match scope {
        Scope::Full => (
            read_budgets(world, holder)?,
            crate::grants::read_filter(world, holder)?,
        ),
        Scope::Effects => Default::default(),
    };
    let decoded: Vec<Option<DecodedCall>> = intent
        .calls
        .iter()
        .map(|c| decode_call_from(intent.account, c.target, c.value, &c.data).ok())
        .collect();
    let mut report = SimulationReport {
        intent_hash: intent_hash(),
        block_number: world.block_number(),
        timestamp: world.timestamp(),
        success: true,
        revert_reason: None,
        gas_used: 0,
        touched_contracts: Vec::new(),
        precompiles: Vec::new(),
        token_flows: Vec::new(),
        nft_flows: Vec::new(),
        approvals: Vec::new(),
        balance_changes: Vec::new(),
        swap: None,
        later_swaps: Vec::new(),
        loss_bps: None,
        health_factor_before_bps: None,
        health_factor_after_bps: None,
        budgets,
        prices: Vec::new(),
        positions: Vec::new(),
        minters: Vec::new(),
        burners: Vec::new(),
        execution: None,
        balances_read: Vec::new(),
        payee_receipts: Vec::new(),
        reads: Vec::new(),
        debt_like: Vec::new(),
        grant_filter,
        ungranted: Vec::new(),
        debt_tokens: Vec::new(),
        protocols: Default::default(),
        // Rights and lending health (adapters).
        lending: Vec::new(),
        rights: Vec::new(),
        item_approvals: Vec::new(),
        unread_positions: Vec::new(),
        environment: Vec::new(),
    };

    let mut run = match submission {
        Some(s) => in_frame(&env, world, intent, &decoded, s, &options.revert_decoder)?,
        None => per_call(&env, world, intent, &decoded, &options.revert_decoder)?,
    };
    report.gas_used = run.gas_used;
    report.execution = run.env.take();
    report.touched_contracts = std::mem::take(&mut run.tracer.touched);
    report.precompiles = std::mem::take(&mut run.tracer.precompiles);
    report.environment = run.tracer.environment();
    if let Some((call, reason)) = run.failure {
        report.success = false;
        report.revert_reason = Some(reason);
        return Ok(Simulation {
            report,
            discrepancies: Vec::new(),
            failed_call: Some(call),
            logs: Vec::new(),
        });
    }

    let mut discrepancies = std::mem::take(&mut run.discrepancies);
    let account = intent.account;
    let (tokens, allowance_keys) =
        tokens_and_allowances(&run, &decoded, options, account, &report.touched_contracts);
    // Both states are read in the block the calls ran in (a submission's next block): a view
    // of interest-bearing state in an earlier block than its last update reverts, and reading
    // the two states in different blocks would count interest as a change.
    let view_env = report.execution.as_ref().map_or_else(
        || env.clone(),
        |e| env.in_block(e.block_number, e.timestamp),
    );
    let mut before = Viewer::new(&view_env, world.db());
    let mut after = Viewer::new(&view_env, &run.fork);
    let inputs = BalanceInputs {
        account,
        tokens: &tokens,
        flows: &run.flows,
        eth: (
            eth_balance(world.db(), account)?,
            eth_balance(&run.fork, account)?,
        ),
    };
    report.balance_changes = balance_changes(
        &inputs,
        &mut before,
        &mut after,
        |t| has_code(world.db(), t),
        &mut discrepancies,
        &mut report.balances_read,
    )?;
    if scope == Scope::Full {
        report.payee_receipts = payee_receipts(
            &options.payees,
            account,
            &tokens,
            (world.db(), &run.fork),
            &mut before,
            &mut after,
        )?;
        report.debt_like = debt_like(&report.balances_read, &mut before)?;
    }
    report.approvals = approvals(
        account,
        &run.approval_logs,
        &allowance_keys,
        &run.flows,
        &mut before,
        &mut after,
        &mut discrepancies,
    )?;
    if scope == Scope::Effects {
        report.token_flows = run.flows;
        report.nft_flows = run.nft_flows;
        return Ok(Simulation {
            report,
            discrepancies,
            failed_call: None,
            logs: run.logs,
        });
    }
    let mut targets: Vec<Address> = Vec::with_capacity(intent.calls.len());
    for call in &intent.calls {
        if !targets.contains(&call.target) {
            targets.push(call.target);
        }
    }
    let health_source;
    (
        health_source,
        report.health_factor_before_bps,
        report.health_factor_after_bps,
    ) = health_factors(&targets, account, &mut before, &mut after)?;
    report.positions =
        position_changes(&report.touched_contracts, account, &mut before, &mut after)?;
    report.prices = price_facts(
        &PriceInputs {
            flows: &run.flows,
            nft_flows: &run.nft_flows,
            changes: &report.balance_changes,
            positions: &report.positions,
            touched: &report.touched_contracts,
            options,
        },
        &mut before,
    )?;
    // Protocol valuation (adapters).
    let adapted = crate::adapters::read(
        &crate::adapters::Inputs {
            account,
            targets: &targets,
            oracles: &options.price_oracles,
        },
        &mut before,
        &mut after,
    )?;
    report.prices.extend(adapted.prices);
    report.reads = crate::prices::valuation_reads(
        &report.prices,
        &report.balance_changes,
        &mut before,
        &mut after,
    )?;
    let moved: Vec<Address> = run
        .flows
        .iter()
        .map(|f| f.token)
        .chain(report.balance_changes.iter().map(|c| c.token))
        .collect();
    let (rates, rate_reads) = crate::prices::descriptor_rates(
        &options.descriptors,
        (&moved, &report.balance_changes),
        &mut before,
        &mut after,
    )?;
    report.prices.extend(rates);
    report.reads.extend(rate_reads);
    report.debt_tokens = adapted.debt_tokens;
    report.protocols = adapted.protocols;
    (report.protocols.members, report.protocols.root_code) = crate::members::protocol_members(
        &options.descriptors,
        &report.touched_contracts,
        &run.fork,
        &mut after,
    )?;
    let reached: Vec<Address> = targets
        .iter()
        .chain(&report.touched_contracts)
        .copied()
        .collect();
    let read = crate::members::position_reads(
        &options.descriptors,
        &reached,
        account,
        &mut before,
        &mut after,
    )?;
    report.reads.extend(crate::members::declared_reads(
        &options.descriptors,
        (&reached, &report.protocols.members),
        account,
        &mut before,
        &mut after,
    )?);
    let (positions, gaps) = crate::members::protocol_positions(&read);
    report.positions.extend(positions);
    report.protocols.gaps.extend(gaps);
    let modelled = crate::health::model_health(&read, account, &mut before, &mut after)?;
    report.protocols.gaps.extend(modelled.gaps);
    let markets: Vec<Address> = modelled.facts.iter().map(|f| f.market).collect();
    // Rights and lending health (adapters, then the descriptors' models).
    report.lending = crate::health::lending_facts(
        &crate::health::LendingInputs {
            account,
            targets: &targets,
            changes: &report.balance_changes,
            positions: &report.positions,
            flows: &run.flows,
            modelled: &markets,
        },
        &mut before,
        &mut after,
    )?;
    report.lending.extend(modelled.facts);
    report.reads.extend(crate::health::health_reads(
        &report.lending,
        health_source,
        account,
        &mut before,
        &mut after,
    )?);
    report.reads.extend(modelled.reads);
    let parties: Vec<Address> = options
        .payees
        .iter()
        .chain(&options.extra_tokens)
        .copied()
        .collect();
    let rights = crate::rights::RightsInputs {
        account,
        calls: &intent.calls,
        decoded: &decoded,
        logs: &run.logs,
        touched: &report.touched_contracts,
        precompiles: &report.precompiles,
        parties: &parties,
        preimages: &run.tracer.preimages,
    };
    report.rights = crate::rights::allowances(&rights, &mut before, &mut after)?;
    report.reads.extend(crate::rights::right_reads(
        &run.tracer.right_keys,
        &mut before,
        &mut after,
    )?);
    report.reads.extend(crate::rights::control_reads(
        account,
        &reached,
        &mut before,
        &mut after,
    )?);
    let diff = crate::rights::state_diff(account, world.db(), &run.fork)?;
    report
        .rights
        .extend(crate::rights::storage_rights(&rights, &diff, &run.fork)?);
    let now = report
        .execution
        .as_ref()
        .map_or(report.timestamp, |e| e.timestamp);
    let records =
        crate::rights::RecordViews::new(&options.descriptors, &report.protocols.members, account);
    report.unread_positions = crate::rights::unread_positions(
        (account, now),
        (&diff, &run.fork),
        &run.tracer.preimages,
        (&run.flows, &run.nft_flows, &report.approvals),
        (&[rights.touched, rights.parties].concat(), &records),
        &mut before,
        &mut after,
    )?;
    report.item_approvals = crate::rights::item_approvals(&rights, &mut after)?;
    let candidates: Vec<Address> = options
        .extra_tokens
        .iter()
        .copied()
        .chain(report.balances_read.iter().map(|r| r.token))
        .chain(report.touched_contracts.iter().copied())
        .collect();
    report.rights.extend(crate::rights::standing_operators(
        account,
        &candidates,
        &report.touched_contracts,
        &mut before,
    )?);
    report.token_flows = std::mem::take(&mut run.flows);
    report.nft_flows = std::mem::take(&mut run.nft_flows);
    // Last, with every right the report names: what no right the account granted reaches.
    let unmoved: Vec<Address> = report
        .balances_read
        .iter()
        .map(|r| r.token)
        .filter(|t| {
            !report.balance_changes.iter().any(|c| c.token == *t) && !report.names_right_over(*t)
        })
        .collect();
    report.ungranted = crate::grants::ungranted(
        &crate::grants::GrantInputs {
            account,
            filter: report.grant_filter,
            calls: &intent.calls,
            touched: &report.touched_contracts,
        },
        &unmoved,
        &mut before,
    )?;
    report.loss_bps = run
        .swap
        .as_ref()
        .map(|s| shortfall_bps(s.quoted_out, s.amount_out));
    report.swap = run.swap;
    report.later_swaps = run.later_swaps;
    report.minters = run.minters;
    report.burners = run.burners;
    Ok(Simulation {
        report,
        discrepancies,
        failed_call: None,
        logs: run.logs,
    })
}

/// The ERC-20 tokens whose balance to read (named by the logs, the decoded calls and the
/// options; sorted, without ether) and the `(token, spender)` allowances of the account to
/// read (its `Approval` logs, decoded `approve`s, the router of a decoded token-input swap).
fn tokens_and_allowances(
    run: &Execution<'_>,
    decoded: &[Option<DecodedCall>],
    options: &SimulateOptions,
    account: Address,
    touched: &[Address],
) -> (Vec<Address>, Vec<(Address, Address)>) {
    let mut tokens = run.log_tokens.clone();
    // Every touched contract that answers `balanceOf`: a token that moves the account's
    // balance without a `Transfer` log still shows in its balance.
    tokens.extend(touched.iter().copied());
    let mut keys: Vec<(Address, Address)> = Vec::new();
    let mut add_key = |key: (Address, Address)| {
        if !keys.contains(&key) {
            keys.push(key);
        }
    };
    for l in run.approval_logs.iter().filter(|l| l.log.first == account) {
        add_key((l.log.token, l.log.second));
    }
    for d in decoded.iter().flatten() {
        match d {
            DecodedCall::Transfer { token, .. }
            | DecodedCall::TransferFrom { token, .. }
            | DecodedCall::DecreaseAllowance { token, .. }
            | DecodedCall::WethDeposit { token, .. }
            | DecodedCall::WethWithdraw { token, .. } => {
                tokens.insert(*token);
            }
            DecodedCall::Approve { token, spender, .. }
            | DecodedCall::IncreaseAllowance { token, spender, .. } => {
                tokens.insert(*token);
                add_key((*token, *spender));
            }
            DecodedCall::Permit {
                token,
                owner,
                spender,
                ..
            } => {
                tokens.insert(*token);
                if *owner == account {
                    add_key((*token, *spender));
                }
            }
            DecodedCall::Swap(s) => {
                tokens.extend(s.tokens());
                if !s.eth_in {
                    add_key((s.token_in(), s.router));
                }
            }
            DecodedCall::AddLiquidity {
                router,
                token_a,
                token_b,
                eth,
                ..
            } => {
                tokens.insert(*token_a);
                add_key((*token_a, *router));
                if !eth {
                    tokens.insert(*token_b);
                    add_key((*token_b, *router));
                }
            }
            DecodedCall::RemoveLiquidity {
                token_a, token_b, ..
            } => {
                tokens.insert(*token_a);
                tokens.insert(*token_b);
            }
            DecodedCall::PlainTransfer | DecodedCall::Unknown => {}
        }
    }
    tokens.extend(options.extra_tokens.iter().copied());
    tokens.remove(&ETH);
    (tokens.into_iter().collect(), keys)
}
