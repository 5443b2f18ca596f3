//! Facts derived by trusted code: the decoded calldata and the simulation trace, merged per
//! token and per approval, with the agent's claims kept alongside for comparison.
//!
//! The bound of a fact (what the caps judge) is the largest of everything that speaks about
//! it: decoded calldata, trace, and claims. Claims can only make a bound stricter, never
//! looser, so nothing is approved on the agent's word.

use crate::{
    Few,
    decode::{DecodeError, DecodedCall, Swap, SwapKind, decode_call_from},
};
use alloy_primitives::{Address, U256};
use pace_types::{ETH, Intent, SimulationReport};

/// Gross outflow of one token from the account, as each source sees it.
#[derive(Debug, Clone)]
pub(crate) struct Outflow {
    pub(crate) token: Address,
    /// `(least, most)` the calldata lets leave; `None` if nothing decoded speaks about it.
    pub(crate) decoded: Option<(U256, U256)>,
    /// Sum of traced flows from the account (`None` if the trace has none of this token).
    pub(crate) traced: Option<U256>,
    /// The fall of the account's balance, from the trace's balance changes.
    pub(crate) net_loss: U256,
    /// The agent's claimed amount (sum of its entries).
    pub(crate) claimed: Option<U256>,
}

impl Outflow {
    fn new(token: Address) -> Self {
        Self {
            token,
            decoded: None,
            traced: None,
            net_loss: U256::ZERO,
            claimed: None,
        }
    }

    /// The amount the caps judge: the largest of every source.
    pub(crate) fn bound(&self) -> U256 {
        let decoded = self.decoded.map_or(U256::ZERO, |(_, hi)| hi);
        decoded
            .max(self.traced.unwrap_or_default())
            .max(self.net_loss)
            .max(self.claimed.unwrap_or_default())
    }
}

/// One allowance the account grants, as each source sees it.
#[derive(Debug, Clone)]
pub(crate) struct Allowance {
    pub(crate) token: Address,
    pub(crate) spender: Address,
    pub(crate) decoded: Option<U256>,
    pub(crate) traced: Option<U256>,
    pub(crate) claimed: Option<U256>,
    /// The least the calldata grants where it does not fix the result (`increaseAllowance`).
    pub(crate) floor: U256,
    /// The claims list this key twice with different amounts.
    pub(crate) claim_conflict: bool,
}

impl Allowance {
    /// The amount the approval checks judge: the largest of every source.
    pub(crate) fn bound(&self) -> U256 {
        self.decoded
            .unwrap_or_default()
            .max(self.traced.unwrap_or_default())
            .max(self.claimed.unwrap_or_default())
            .max(self.floor)
    }
}

/// Where a recipient of the account's tokens was seen.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Recipient {
    pub(crate) to: Address,
    pub(crate) token: Address,
    pub(crate) amount: U256,
    /// Paid by a decoded `transfer` / `transferFrom` of the account (not only seen in the trace).
    pub(crate) direct: bool,
}

/// Everything derived from one (intent, report) pair.
#[derive(Debug)]
pub(crate) struct Facts {
    /// Per call, in order.
    pub(crate) decoded: Few<Result<DecodedCall, DecodeError>, 2>,
    /// Every call decoded to a known shape, so the calldata fully describes token movements
    /// the account starts.
    pub(crate) fully_decoded: bool,
    /// Sum of call values (saturating).
    pub(crate) value_sum: U256,
    pub(crate) outflows: Few<Outflow, 4>,
    pub(crate) allowances: Few<Allowance, 2>,
    /// Every ERC-20 token involved, in discovery order, without ether.
    pub(crate) tokens: Few<Address, 4>,
    pub(crate) recipients: Few<Recipient, 2>,
    /// The report lists token flows (so its silence about a token means "none moved").
    pub(crate) report_has_flows: bool,
    /// The report lists approvals of the account.
    pub(crate) report_has_approvals: bool,
}

impl Facts {
    pub(crate) fn derive(intent: &Intent, report: Option<&SimulationReport>) -> Self {
        let account = intent.account;
        let decoded: Few<_, 2> = intent
            .calls
            .iter()
            .map(|c| decode_call_from(account, c))
            .collect();
        let mut facts = Self {
            // A liquidity withdrawal moves LP tokens of a pair its calldata cannot name, an
            // allowance increase ends where the state says, and `deposit()` / `withdraw()`
            // may be anyone's: none describes its effects completely.
            fully_decoded: decoded.iter().all(|d| {
                matches!(d, Ok(c) if !matches!(
                    c,
                    DecodedCall::Unknown
                        | DecodedCall::RemoveLiquidity { .. }
                        | DecodedCall::IncreaseAllowance { .. }
                        | DecodedCall::WethDeposit { .. }
                        | DecodedCall::WethWithdraw { .. }
                ))
            }),
            decoded: Few::new(),
            value_sum: U256::ZERO,
            outflows: Few::new(),
            allowances: Few::new(),
            tokens: Few::new(),
            recipients: Few::new(),
            report_has_flows: false,
            report_has_approvals: false,
        };

        // Calldata.
        for call in &intent.calls {
            facts.value_sum = facts.value_sum.saturating_add(call.value);
            // Ether sent without calldata is a payment to the target, judged like a transfer
            // (a contract that accepts it keeps it for whoever can take it next).
            if call.data.is_empty() {
                facts.add_recipient(account, call.target, ETH, call.value, true);
            }
        }
        if !facts.value_sum.is_zero() {
            facts.outflow(ETH);
        }
        for d in &decoded {
            match d {
                // A transfer to the account itself moves nothing out (the trace agrees).
                Ok(DecodedCall::Transfer { token, to, amount }) => {
                    facts.add_token(*token);
                    if *to != account {
                        facts.add_decoded_outflow(*token, *amount, *amount);
                        facts.add_recipient(account, *to, *token, *amount, true);
                    }
                }
                Ok(DecodedCall::TransferFrom {
                    token,
                    from,
                    to,
                    amount,
                }) => {
                    facts.add_token(*token);
                    if *from == account && *to != account {
                        facts.add_decoded_outflow(*token, *amount, *amount);
                        facts.add_recipient(account, *to, *token, *amount, true);
                    }
                }
                Ok(DecodedCall::Approve {
                    token,
                    spender,
                    amount,
                }) => {
                    facts.add_token(*token);
                    let a = facts.allowance(*token, *spender);
                    a.decoded = Some(a.decoded.map_or(*amount, |d| d.max(*amount)));
                }
                Ok(DecodedCall::Swap(swap)) => {
                    for token in swap.tokens() {
                        facts.add_token(token);
                    }
                    if !swap.eth_in {
                        let (lo, hi) = match swap.kind {
                            SwapKind::ExactIn { amount_in, .. } => (amount_in, amount_in),
                            SwapKind::ExactOut { max_in, .. } => (U256::ZERO, max_in),
                        };
                        facts.add_decoded_outflow(swap.token_in(), lo, hi);
                    }
                }
                Ok(DecodedCall::IncreaseAllowance {
                    token,
                    spender,
                    added,
                }) => {
                    // The final allowance is on-chain state (the trace reads it); at least
                    // `added` is granted.
                    facts.add_token(*token);
                    let a = facts.allowance(*token, *spender);
                    a.floor = a.floor.max(*added);
                }
                Ok(DecodedCall::Permit {
                    token,
                    owner,
                    spender,
                    value,
                    ..
                }) => {
                    facts.add_token(*token);
                    if *owner == account {
                        let a = facts.allowance(*token, *spender);
                        a.decoded = Some(a.decoded.map_or(*value, |d| d.max(*value)));
                    }
                }
                Ok(DecodedCall::DecreaseAllowance { token, .. }) => facts.add_token(*token),
                // `deposit()` and `withdraw(uint256)` are WETH's, but also any vault's or
                // lending pool's: the selector alone does not make the target a token, so
                // these speak through the trace only (a real unwrap logs a `Withdrawal`).
                Ok(DecodedCall::WethDeposit { .. } | DecodedCall::WethWithdraw { .. }) => {}
                Ok(DecodedCall::AddLiquidity {
                    token_a,
                    token_b,
                    amount_a_desired,
                    amount_b_desired,
                    amount_a_min,
                    amount_b_min,
                    eth,
                    ..
                }) => {
                    facts.add_token(*token_a);
                    facts.add_decoded_outflow(*token_a, *amount_a_min, *amount_a_desired);
                    if !eth {
                        facts.add_token(*token_b);
                        facts.add_decoded_outflow(*token_b, *amount_b_min, *amount_b_desired);
                    }
                }
                Ok(DecodedCall::RemoveLiquidity {
                    token_a, token_b, ..
                }) => {
                    facts.add_token(*token_a);
                    facts.add_token(*token_b);
                }
                Ok(DecodedCall::PlainTransfer | DecodedCall::Unknown) | Err(_) => {}
            }
        }
        // Trace.
        if let Some(report) = report {
            facts.report_has_flows = !report.token_flows.is_empty();
            for flow in &report.token_flows {
                if flow.from == account || flow.to == account {
                    facts.add_token(flow.token);
                }
                if flow.from == account && flow.to != account {
                    let o = facts.outflow(flow.token);
                    o.traced = Some(o.traced.unwrap_or_default().saturating_add(flow.amount));
                    facts.add_recipient(account, flow.to, flow.token, flow.amount, false);
                }
            }
            for change in &report.balance_changes {
                if change.delta.is_negative() {
                    facts.add_token(change.token);
                    let o = facts.outflow(change.token);
                    o.net_loss = o.net_loss.max(change.delta.unsigned_abs());
                } else if !change.delta.is_zero() {
                    facts.add_token(change.token);
                }
            }
            for fact in report.approvals.iter().filter(|f| f.owner == account) {
                facts.report_has_approvals = true;
                facts.add_token(fact.token);
                let a = facts.allowance(fact.token, fact.spender);
                a.traced = Some(a.traced.map_or(fact.amount, |t| t.max(fact.amount)));
            }
            if let Some(swap) = &report.swap {
                facts.add_token(swap.token_in);
                facts.add_token(swap.token_out);
            }
        }

        // Claims.
        for claim in &intent.claimed.outflows {
            facts.add_token(claim.token);
            let o = facts.outflow(claim.token);
            o.claimed = Some(o.claimed.unwrap_or_default().saturating_add(claim.amount));
        }
        for claim in &intent.claimed.approvals {
            facts.add_token(claim.token);
            let a = facts.allowance(claim.token, claim.spender);
            match a.claimed {
                Some(previous) if previous != claim.amount => {
                    a.claim_conflict = true;
                    a.claimed = Some(previous.max(claim.amount));
                }
                _ => a.claimed = Some(claim.amount),
            }
        }
        // Ether leaves the account only as call value, so the calldata always knows it exactly;
        // once every call is decoded, silence about a token means "no outflow" too.
        let (value_sum, fully_decoded) = (facts.value_sum, facts.fully_decoded);
        for o in &mut facts.outflows {
            if o.token == ETH {
                o.decoded = Some((value_sum, value_sum));
            } else if fully_decoded {
                o.decoded.get_or_insert((U256::ZERO, U256::ZERO));
            }
        }

        facts.decoded = decoded;
        facts
    }

    /// The decoded swaps with the index of their call.
    pub(crate) fn swaps(&self) -> impl Iterator<Item = (usize, &Swap)> {
        self.decoded
            .iter()
            .enumerate()
            .filter_map(|(i, d)| match d {
                Ok(DecodedCall::Swap(s)) => Some((i, s)),
                _ => None,
            })
    }

    fn add_token(&mut self, token: Address) {
        if token != ETH && !self.tokens.contains(&token) {
            self.tokens.push(token);
        }
    }

    fn outflow(&mut self, token: Address) -> &mut Outflow {
        let i = match self.outflows.iter().position(|o| o.token == token) {
            Some(i) => i,
            None => {
                self.outflows.push(Outflow::new(token));
                self.outflows.len() - 1
            }
        };
        &mut self.outflows[i]
    }

    fn add_decoded_outflow(&mut self, token: Address, lo: U256, hi: U256) {
        let o = self.outflow(token);
        let (l, h) = o.decoded.unwrap_or_default();
        o.decoded = Some((l.saturating_add(lo), h.saturating_add(hi)));
    }

    fn allowance(&mut self, token: Address, spender: Address) -> &mut Allowance {
        let i = match self
            .allowances
            .iter()
            .position(|a| a.token == token && a.spender == spender)
        {
            Some(i) => i,
            None => {
                self.allowances.push(Allowance {
                    token,
                    spender,
                    decoded: None,
                    traced: None,
                    claimed: None,
                    floor: U256::ZERO,
                    claim_conflict: false,
                });
                self.allowances.len() - 1
            }
        };
        &mut self.allowances[i]
    }

    /// Records a recipient of the account's tokens. Burns seen in the trace (to the zero
    /// address, as fee-on-transfer tokens and unwrapping do) still count as outflows but have
    /// no recipient to judge (value conservation does); a decoded transfer to the zero
    /// address is a direct payment to a non-payee like any other. One entry per recipient
    /// (the first token and amount seen), marked `direct` if any of its payments is a
    /// decoded transfer.
    fn add_recipient(
        &mut self,
        account: Address,
        to: Address,
        token: Address,
        amount: U256,
        direct: bool,
    ) {
        if to == account || (to == Address::ZERO && !direct) || amount.is_zero() {
            return;
        }
        match self.recipients.iter_mut().find(|r| r.to == to) {
            Some(r) if direct && !r.direct => {
                *r = Recipient {
                    to,
                    token,
                    amount,
                    direct,
                }
            }
            Some(_) => {}
            None => self.recipients.push(Recipient {
                to,
                token,
                amount,
                direct,
            }),
        }
    }
}
