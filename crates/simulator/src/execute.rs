//! Running the intent's calls: as the one transaction that will execute (a relayer's
//! submission to the account, [`in_frame`]), or one transaction per call from the account
//! ([`per_call`], for an account that cannot take a PDR), and turning what the trace and the
//! logs showed into flows.

use alloy_primitives::{Address, Log, U256};
use alloy_sol_types::SolInterface;
use pace_abi::{
    DecodedCall,
    bindings::PaceAccount::PaceAccountErrors,
    revert::{RevertDecoder, decode_revert_reason_with},
};
use pace_evm::{
    InProcessEvm,
    revm::{
        DatabaseCommit, InspectEvm, MainBuilder,
        context::result::{EVMError, ExecResultAndState, ExecutionResult},
    },
};
use pace_types::{Burner, ETH, ExecutionEnv, Intent, Minter, NftFlow, SwapFacts, TokenFlow};
use std::collections::BTreeSet;

use crate::{
    balances::ApprovalLog,
    discrepancy::Discrepancy,
    error::Result,
    fork::{Env, ForkDb, Journaled},
    logs::{APPROVAL_TOPIC, TRANSFER_TOPIC, erc20, nft_approval, nft_flows, wrapper_flow},
    submission::Submission,
    swap::swap_facts,
    tracer::{Around, LogOrigin, Tracer},
};

/// What executing the calls left: the fork's state and what the trace and logs showed.
pub(crate) struct Execution<'w> {
    pub(crate) fork: ForkDb<'w>,
    pub(crate) tracer: Tracer,
    /// Gas the intent's calls used.
    pub(crate) gas_used: u64,
    /// The one transaction's environment, when the calls ran as one.
    pub(crate) env: Option<ExecutionEnv>,
    /// The failing call and its reason; the fields below are then incomplete.
    pub(crate) failure: Option<(usize, String)>,
    /// Every surviving log of the intent's calls, in order.
    pub(crate) logs: Vec<Log>,
    pub(crate) flows: Vec<TokenFlow>,
    pub(crate) nft_flows: Vec<NftFlow>,
    pub(crate) minters: Vec<Minter>,
    pub(crate) burners: Vec<Burner>,
    pub(crate) approval_logs: Vec<ApprovalLog>,
    /// Emitters of ERC-20 `Transfer` / `Approval` and wrapped-ether logs.
    pub(crate) log_tokens: BTreeSet<Address>,
    pub(crate) swap: Option<SwapFacts>,
    /// The facts of the swap calls after the first.
    pub(crate) later_swaps: Vec<pace_types::LaterSwap>,
    /// How many swap calls were measured (or tried).
    swaps_seen: usize,
    pub(crate) discrepancies: Vec<Discrepancy>,
}

impl<'w> Execution<'w> {
    fn new(world: &'w InProcessEvm, tracer: Tracer) -> Self {
        Self {
            fork: ForkDb::new(world.db()),
            tracer,
            gas_used: 0,
            env: None,
            failure: None,
            logs: Vec::new(),
            flows: Vec::new(),
            nft_flows: Vec::new(),
            minters: Vec::new(),
            burners: Vec::new(),
            approval_logs: Vec::new(),
            log_tokens: BTreeSet::new(),
            swap: None,
            later_swaps: Vec::new(),
            swaps_seen: 0,
            discrepancies: Vec::new(),
        }
    }
}

/// The indices of the calls that decode as swaps: each is measured around its execution.
fn swap_calls(decoded: &[Option<DecodedCall>]) -> Vec<usize> {
    decoded
        .iter()
        .enumerate()
        .filter(|(_, d)| matches!(d, Some(DecodedCall::Swap(_))))
        .map(|(i, _)| i)
        .collect()
}

impl Execution<'_> {
    /// Records the facts measured around swap call `call` (`None`: its pools could not be
    /// read): the first swap's are the report's `swap`, later ones its `later_swaps`.
    fn measured(&mut self, call: usize, s: &pace_abi::Swap, facts: Option<SwapFacts>) {
        let first = self.swaps_seen == 0;
        self.swaps_seen += 1;
        match facts {
            Some(facts) if first => self.swap = Some(facts),
            Some(facts) => self.later_swaps.push(pace_types::LaterSwap { call, facts }),
            None => self.discrepancies.push(Discrepancy::SwapUnpriced {
                call,
                token_a: s.path[0],
                token_b: s.path[1],
            }),
        }
    }
}

/// Runs `submission`, the one transaction that carries the intent to its account, on a fork
/// of `world`: the intent's calls are the ones the account makes from its own frame (see the
/// tracer). The batch is all-or-nothing: when the transaction does not succeed, or does not
/// make every call of the intent, the execution fails at the call the account names
/// (`PaceAccountCallFailed`) or, for a refusal of the account itself, at the first call.
pub(crate) fn in_frame<'w>(
    env: &Env,
    world: &'w InProcessEvm,
    intent: &Intent,
    decoded: &[Option<DecodedCall>],
    submission: &Submission,
    revert_decoder: &RevertDecoder,
) -> Result<Execution<'w>> {
    let account = intent.account;
    let calls = intent
        .calls
        .iter()
        .map(|c| (c.target, c.value, c.data.clone()))
        .collect();
    let mut tracer = Tracer::in_frame(account, calls);
    let swap_calls = swap_calls(decoded);
    tracer.watch(swap_calls.clone());
    let mut run = Execution::new(world, tracer);
    for &(address, slot, value) in &submission.overrides {
        run.fork.insert_account_storage(address, slot, value)?;
    }
    let tx = env.submission_tx(submission, submission.to.unwrap_or(account));
    let result = env
        .submission_context(&mut run.fork, submission)
        .build_mainnet_with_inspector(&mut run.tracer)
        .inspect_tx(tx);
    let (result, state) = match result {
        Ok(ExecResultAndState { result, state }) => (result, state),
        Err(EVMError::Transaction(invalid)) => {
            run.failure = Some((0, format!("transaction rejected: {invalid}")));
            return Ok(run);
        }
        Err(other) => return Err(other.into()),
    };
    run.gas_used = run.tracer.call_gas.iter().sum();
    run.env = Some(ExecutionEnv {
        origin: submission.origin,
        block_number: submission.block.number,
        timestamp: submission.block.timestamp,
        base_fee: U256::from(submission.block.base_fee),
        gas_price: U256::from(submission.gas_price()),
        gas_limit: submission.gas_limit,
        gas_used: result.tx_gas_used(),
        // The pipeline, which knows where the PDR goes, records it.
        account_kind: Default::default(),
        entry: Default::default(),
        max_gas_cost: None,
    });
    let logs = match result {
        ExecutionResult::Success { logs, .. } => logs,
        ExecutionResult::Revert { output, .. } => {
            run.failure = Some(match PaceAccountErrors::abi_decode(&output) {
                Ok(PaceAccountErrors::PaceAccountCallFailed(e)) => (
                    usize::try_from(e.index).unwrap_or(usize::MAX),
                    decode_revert_reason_with(&e.reason, revert_decoder),
                ),
                _ => (0, decode_revert_reason_with(&output, revert_decoder)),
            });
            return Ok(run);
        }
        ExecutionResult::Halt { reason, .. } => {
            run.failure = Some((0, format!("halted: {reason:?}")));
            return Ok(run);
        }
    };
    if run.tracer.calls_started() != intent.calls.len() {
        run.failure = Some((
            run.tracer.calls_started(),
            format!(
                "the account's transaction made {} of the intent's {} calls",
                run.tracer.calls_started(),
                intent.calls.len()
            ),
        ));
        return Ok(run);
    }
    if run.tracer.logs.len() != logs.len() {
        // The account's own logs cannot be told apart from the intent's: nothing is judged on
        // a trace that does not match the execution.
        run.failure = Some((
            0,
            format!(
                "the trace saw {} logs, the transaction emitted {}",
                run.tracer.logs.len(),
                logs.len()
            ),
        ));
        return Ok(run);
    }
    let origins = run.tracer.logs.clone();
    // Each swap is measured on the journal's state as the call saw it and left it, inside the
    // one transaction, before the transaction's state is committed.
    let around = std::mem::take(&mut run.tracer.around);
    for i in swap_calls {
        let Some(Some(DecodedCall::Swap(s))) = decoded.get(i) else {
            continue;
        };
        let call_logs: Vec<Log> = logs
            .iter()
            .zip(&origins)
            .filter(|(_, o)| o.call == Some(i))
            .map(|(l, _)| l.clone())
            .collect();
        let mut facts = None;
        if let Some((
            _,
            Around {
                before: Some(before),
                after: Some(after),
            },
        )) = around.iter().find(|(c, _)| *c == i)
        {
            let pre = Journaled {
                base: &run.fork,
                state: before,
            };
            let post = Journaled {
                base: &run.fork,
                state: after,
            };
            facts = swap_facts(env, s, account, &call_logs, &pre, &post)?;
        }
        run.measured(i, s, facts);
    }
    run.fork.commit(state);
    record_logs(&mut run, &logs, &origins);
    Ok(run)
}

/// Runs the calls in order as transactions from `intent.account` (contract accounts included)
/// on one copy-on-write fork, each seeing the state the previous ones left, stopping at the
/// first failure. Each call that decodes as a swap is measured around its execution.
pub(crate) fn per_call<'w>(
    env: &Env,
    world: &'w InProcessEvm,
    intent: &Intent,
    decoded: &[Option<DecodedCall>],
    revert_decoder: &RevertDecoder,
) -> Result<Execution<'w>> {
    let account = intent.account;
    let swap_calls = swap_calls(decoded);
    let mut run = Execution::new(world, Tracer::new(account));
    let mut logs: Vec<Log> = Vec::new();
    let mut origins: Vec<LogOrigin> = Vec::new();
    for (i, call) in intent.calls.iter().enumerate() {
        run.tracer.next_call(i);
        let traced_before = run.tracer.logs.len();
        let pre = swap_calls.contains(&i).then(|| run.fork.clone());
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
        let call_logs = match result {
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
        let traced = &run.tracer.logs[traced_before..];
        if traced.len() == call_logs.len() {
            origins.extend_from_slice(traced);
        } else {
            run.discrepancies.push(Discrepancy::TraceLogMismatch {
                call: i,
                traced: traced.len(),
                logged: call_logs.len(),
            });
            // The logs still count for the call; who emitted them is unknown.
            origins.extend(call_logs.iter().map(|_| LogOrigin {
                call: Some(i),
                caller: None,
            }));
        }
        if let (Some(pre), Some(Some(DecodedCall::Swap(s)))) = (&pre, decoded.get(i)) {
            let facts = swap_facts(env, s, account, &call_logs, pre, &run.fork)?;
            run.measured(i, s, facts);
        }
        logs.extend(call_logs);
    }
    // Ether flows were counted against the traced logs; re-align them to the logs kept.
    run.tracer.logs = origins.clone();
    record_logs(&mut run, &logs, &origins);
    Ok(run)
}

/// Turns the logs of the intent's calls (and their traced ether transfers) into token flows in
/// execution order, and keeps their `Approval` logs with the frame caller that emitted them.
/// `origins` holds each log's call and emitting frame's caller, in log order; the account's
/// own logs (no call) are skipped.
fn record_logs(run: &mut Execution<'_>, logs: &[Log], origins: &[LogOrigin]) {
    let Execution {
        tracer,
        logs: kept,
        flows,
        nft_flows: nfts,
        minters,
        burners,
        approval_logs,
        log_tokens: tokens,
        ..
    } = run;
    let mut eth = tracer.eth_flows.iter().peekable();
    let eth_flow = |f: &crate::tracer::EthFlow| TokenFlow {
        token: ETH,
        from: f.from,
        to: f.to,
        amount: f.amount,
    };
    for (i, (log, origin)) in logs.iter().zip(origins).enumerate() {
        while let Some(f) = eth.next_if(|f| f.logs_before <= i) {
            flows.push(eth_flow(f));
        }
        if origin.call.is_none() {
            continue;
        }
        kept.push(log.clone());
        let (mut minted, mut burned) = (None, None);
        if let Some(t) = erc20(log, TRANSFER_TOPIC) {
            tokens.insert(t.token);
            minted = (t.first == Address::ZERO).then_some(t.second);
            burned = (t.second == Address::ZERO).then_some(t.first);
            flows.push(TokenFlow {
                token: t.token,
                from: t.first,
                to: t.second,
                amount: t.amount,
            });
        } else if let Some(f) = wrapper_flow(log) {
            tokens.insert(f.token);
            minted = (f.from == Address::ZERO).then_some(f.to);
            burned = (f.to == Address::ZERO).then_some(f.from);
            flows.push(f);
        } else if let Some(a) = erc20(log, APPROVAL_TOPIC) {
            tokens.insert(a.token);
            approval_logs.push(ApprovalLog {
                log: a,
                caller: origin.caller,
            });
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
        if let (Some(to), Some(by)) = (minted, origin.caller) {
            let minter = Minter {
                token: log.address,
                to,
                by,
            };
            if !minters.contains(&minter) {
                minters.push(minter);
            }
        }
        // Who made a burn happen: what the burn took went to the contract that asked for it.
        if let (Some(from), Some(by)) = (burned, origin.caller) {
            let burner = Burner {
                token: log.address,
                from,
                by,
            };
            if !burners.contains(&burner) {
                burners.push(burner);
            }
        }
    }
    flows.extend(eth.map(eth_flow));
}
