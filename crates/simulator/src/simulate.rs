//! [`simulate`]: run the intent on a fork of the world, derive the report.

use alloy_primitives::{Address, B256, Log};
use pace_abi::{
    DecodedCall, decode_call,
    revert::{RevertDecoder, decode_revert_reason_with},
};
use pace_evm::{
    InProcessEvm,
    revm::{
        DatabaseCommit, InspectEvm, MainBuilder,
        context::result::{EVMError, ExecResultAndState, ExecutionResult},
    },
};
use pace_types::{
    ETH, Hashed, Intent, Minter, NftFlow, OraclePrice, Policy, SimulationReport, SwapFacts,
    TokenFlow, units::shortfall_bps,
};
use std::collections::BTreeSet;

use crate::{
    balances::{ApprovalLog, BalanceInputs, approvals, balance_changes},
    budgets::read_budgets,
    discrepancy::Discrepancy,
    error::{Error, Result},
    fork::{Env, ForkDb, Viewer, eth_balance, has_code},
    health::health_factors,
    logs::{APPROVAL_TOPIC, TRANSFER_TOPIC, erc20, nft_approval, nft_flows, wrapper_flow},
    positions::position_changes,
    prices::{PriceInputs, price_facts},
    swap::swap_facts,
    tracer::Tracer,
};

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
}

impl SimulateOptions {
    /// What a policy asks the simulator to measure: its tokens' balances and its valuation
    /// sources.
    pub fn for_policy(policy: &Policy) -> Self {
        Self {
            extra_tokens: policy.allowed_tokens.clone(),
            price_sources: policy.price_sources().collect(),
            price_oracles: policy.price_oracles.clone(),
            revert_decoder: RevertDecoder::default(),
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
    Ok(simulate_inner(world, intent.get(), || intent.hash(), options)?.report)
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
    simulate_inner(world, intent, || intent.intent_hash(), options)
}

/// [`simulate_detailed`] with the intent's hash from `intent_hash`, asked for once the intent
/// is known to be valid and for this chain.
fn simulate_inner(
    world: &InProcessEvm,
    intent: &Intent,
    intent_hash: impl FnOnce() -> B256,
    options: &SimulateOptions,
) -> Result<Simulation> {
    intent.validate()?;
    if intent.chain_id != world.chain_id() {
        return Err(Error::ChainMismatch {
            intent: intent.chain_id,
            world: world.chain_id(),
        });
    }
    let env = Env::of(world);
    let decoded: Vec<Option<DecodedCall>> = intent
        .calls
        .iter()
        .map(|c| decode_call(c.target, c.value, &c.data).ok())
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
        loss_bps: None,
        health_factor_before_bps: None,
        health_factor_after_bps: None,
        budgets: read_budgets(world, intent.account)?,
        prices: Vec::new(),
        positions: Vec::new(),
        minters: Vec::new(),
    };

    let mut run = execute(&env, world, intent, &decoded, &options.revert_decoder)?;
    report.gas_used = run.gas_used;
    report.touched_contracts = std::mem::take(&mut run.tracer.touched);
    report.precompiles = std::mem::take(&mut run.tracer.precompiles);
    if let Some((call, reason)) = run.failure {
        report.success = false;
        report.revert_reason = Some(reason);
        return Ok(Simulation {
            report,
            discrepancies: Vec::new(),
            failed_call: Some(call),
        });
    }

    let mut discrepancies = std::mem::take(&mut run.discrepancies);
    let account = intent.account;
    let (tokens, allowance_keys) =
        tokens_and_allowances(&run, &decoded, options, account, &report.touched_contracts);
    let mut before = Viewer::new(&env, world.db());
    let mut after = Viewer::new(&env, &run.fork);
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
    )?;
    report.approvals = approvals(
        account,
        &run.approval_logs,
        &allowance_keys,
        &run.flows,
        &mut before,
        &mut after,
        &mut discrepancies,
    )?;
    let mut targets: Vec<Address> = Vec::with_capacity(intent.calls.len());
    for call in &intent.calls {
        if !targets.contains(&call.target) {
            targets.push(call.target);
        }
    }
    (
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
    report.loss_bps = run
        .swap
        .as_ref()
        .map(|s| shortfall_bps(s.quoted_out, s.amount_out));
    report.swap = run.swap;
    report.token_flows = run.flows;
    report.nft_flows = run.nft_flows;
    report.minters = run.minters;
    Ok(Simulation {
        report,
        discrepancies,
        failed_call: None,
    })
}

/// What executing the calls left: the fork's state and what the trace and logs showed.
struct Execution<'w> {
    fork: ForkDb<'w>,
    tracer: Tracer,
    gas_used: u64,
    /// The failing call and its reason; the fields below are then incomplete.
    failure: Option<(usize, String)>,
    flows: Vec<TokenFlow>,
    nft_flows: Vec<NftFlow>,
    minters: Vec<Minter>,
    approval_logs: Vec<ApprovalLog>,
    /// Emitters of ERC-20 `Transfer` / `Approval` and wrapped-ether logs.
    log_tokens: BTreeSet<Address>,
    swap: Option<SwapFacts>,
    discrepancies: Vec<Discrepancy>,
}

/// Runs the calls in order on one fork of the world, stopping at the first failure. The first
/// call that decodes as a swap is measured around its execution.
fn execute<'w>(
    env: &Env,
    world: &'w InProcessEvm,
    intent: &Intent,
    decoded: &[Option<DecodedCall>],
    revert_decoder: &RevertDecoder,
) -> Result<Execution<'w>> {
    let account = intent.account;
    let swap_call = decoded
        .iter()
        .position(|d| matches!(d, Some(DecodedCall::Swap(_))));
    let mut run = Execution {
        fork: ForkDb::new(world.db()),
        tracer: Tracer::new(account),
        gas_used: 0,
        failure: None,
        flows: Vec::new(),
        nft_flows: Vec::new(),
        minters: Vec::new(),
        approval_logs: Vec::new(),
        log_tokens: BTreeSet::new(),
        swap: None,
        discrepancies: Vec::new(),
    };
    for (i, call) in intent.calls.iter().enumerate() {
        run.tracer.next_call();
        let pre = (swap_call == Some(i)).then(|| run.fork.clone());
        let tx = env.tx(account, call.target, call.value, call.data.clone());
        let result = env
            .context(&mut run.fork)
            .build_mainnet_with_inspector(&mut run.tracer)
            .inspect_tx(tx);
        let (result, state) = match result {
            Ok(ExecResultAndState { result, state }) => (result, state),
            Err(EVMError::Transaction(invalid)) => {
                run.failure = Some((i, format!("transaction rejected: {invalid}")));
                return Ok(run);
            }
            Err(other) => return Err(other.into()),
        };
        run.gas_used = run.gas_used.saturating_add(result.tx_gas_used());
        let logs = match result {
            ExecutionResult::Success { logs, .. } => logs,
            ExecutionResult::Revert { output, .. } => {
                run.failure = Some((i, decode_revert_reason_with(&output, revert_decoder)));
                return Ok(run);
            }
            ExecutionResult::Halt { reason, .. } => {
                run.failure = Some((i, format!("halted: {reason:?}")));
                return Ok(run);
            }
        };
        run.fork.commit(state);
        record_logs(&mut run, i, &logs);
        if let (Some(pre), Some(Some(DecodedCall::Swap(s)))) = (&pre, decoded.get(i)) {
            run.swap = swap_facts(env, s, account, &logs, pre, &run.fork)?;
            if run.swap.is_none() {
                run.discrepancies.push(Discrepancy::SwapUnpriced {
                    call: i,
                    token_a: s.path[0],
                    token_b: s.path[1],
                });
            }
        }
    }
    Ok(run)
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
                tokens.extend(s.path.iter().copied());
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

/// Turns one successful call's logs (and its traced ether transfers) into token flows in
/// execution order, and keeps its `Approval` logs with the frame caller that emitted them.
fn record_logs(run: &mut Execution<'_>, call: usize, logs: &[Log]) {
    let Execution {
        tracer,
        flows,
        nft_flows: nfts,
        minters,
        approval_logs,
        log_tokens: tokens,
        discrepancies,
        ..
    } = run;
    let aligned = tracer.log_callers.len() == logs.len();
    if !aligned {
        discrepancies.push(Discrepancy::TraceLogMismatch {
            call,
            traced: tracer.log_callers.len(),
            logged: logs.len(),
        });
    }
    let mut eth = tracer.eth_flows.iter().peekable();
    let eth_flow = |f: &crate::tracer::EthFlow| TokenFlow {
        token: ETH,
        from: f.from,
        to: f.to,
        amount: f.amount,
    };
    for (i, log) in logs.iter().enumerate() {
        while let Some(f) = eth.next_if(|f| aligned && f.logs_before <= i) {
            flows.push(eth_flow(f));
        }
        let mut minted = None;
        if let Some(t) = erc20(log, TRANSFER_TOPIC) {
            tokens.insert(t.token);
            minted = (t.first == Address::ZERO).then_some(t.second);
            flows.push(TokenFlow {
                token: t.token,
                from: t.first,
                to: t.second,
                amount: t.amount,
            });
        } else if let Some(f) = wrapper_flow(log) {
            tokens.insert(f.token);
            minted = (f.from == Address::ZERO).then_some(f.to);
            flows.push(f);
        } else if let Some(a) = erc20(log, APPROVAL_TOPIC) {
            tokens.insert(a.token);
            let caller = aligned.then(|| tracer.log_callers[i]);
            approval_logs.push(ApprovalLog { log: a, caller });
        } else if let Some(a) = nft_approval(log) {
            // An operator (or a single id) of a collection: an approval like any other,
            // `type(uint256).max` for an operator over everything.
            approval_logs.push(ApprovalLog {
                log: a,
                caller: None,
            });
        } else {
            let seen = nfts.len();
            nft_flows(log, nfts);
            minted = nfts[seen..]
                .iter()
                .find(|f| f.from == Address::ZERO)
                .map(|f| f.to);
        }
        // Who made a mint happen: the contract that asked the token to mint pays with it.
        if let (Some(to), true) = (minted, aligned) {
            let minter = Minter {
                token: log.address,
                to,
                by: tracer.log_callers[i],
            };
            if !minters.contains(&minter) {
                minters.push(minter);
            }
        }
    }
    flows.extend(eth.map(eth_flow));
}
