//! What an agent can read before it proposes (scope `read`): the active policy, what is left
//! of each on-chain budget, and the account's balances of the policy's tokens.
//!
//! - **Policy.** The tenant's policy and its hash (the hash every preview and PDR binds to),
//!   with `metadata_patterns` redacted to their count: a prompt injector must not learn which
//!   words to avoid. The hash was already in every preview; it commits to the patterns
//!   without showing them.
//! - **Budgets.** Read from the account itself (`budgetTokens()`, `budget(token)`) on the
//!   latest block, never from the policy's copy: the contract meters what PDRs move. A view
//!   that cannot be read is refused (`NOT_A_PACE_ACCOUNT`), never shown as zero.
//! - **Balances.** Of ether and every `allowed_tokens` entry, read on the latest block; a
//!   token whose `balanceOf` cannot be read is listed with `balance: null` and the reason.

use crate::{
    Error, Result, Service,
    auth::{Caller, Scope},
    preview::human,
    tenant::Tenant,
};
use alloy_primitives::{Address, I256, U256};
use pace_abi::bindings::{IERC20, PaceAccount};
use pace_evm::InProcessEvm;
use pace_types::ETH;
use serde::Serialize;

/// One on-chain budget of the account.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct BudgetLeft {
    /// The token (zero address: ether).
    pub token: Address,
    /// Its symbol.
    pub symbol: String,
    /// Its decimals.
    pub decimals: u8,
    /// The most PDRs may move out per period, smallest unit.
    pub limit: String,
    /// The period, in seconds.
    pub period_secs: u64,
    /// When the current period started (unix time).
    pub window_start: u64,
    /// Moved out in the current period.
    pub spent: String,
    /// What PDRs may still move out in this period (all of `limit` once it has passed).
    pub left: String,
    /// `left` in whole tokens.
    pub left_human: String,
    /// When the period ends and `left` is `limit` again (unix time).
    pub resets_at: u64,
}

/// One balance of the account.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Balance {
    /// The token (zero address: ether).
    pub token: Address,
    /// Its symbol.
    pub symbol: String,
    /// Its decimals.
    pub decimals: u8,
    /// The balance, smallest unit (`None` when it cannot be read).
    pub balance: Option<String>,
    /// In whole tokens.
    pub human: Option<String>,
    /// Why it cannot be read.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

impl Service {
    /// The tenant and account `caller` reads: the one of `account`, or with none named the
    /// caller's only tenant (else the default one) and its account.
    pub(crate) fn read_target(
        &self,
        caller: &Caller,
        account: Option<Address>,
    ) -> Result<(&Tenant, Address)> {
        let tenant = match account {
            Some(a) => self.tenant_for(caller, a)?,
            None => {
                let served = self.tenants.served(|id| caller.serves(id));
                match served.as_slice() {
                    [one] => *one,
                    _ => served
                        .iter()
                        .find(|t| t.id == crate::store::DEFAULT_TENANT)
                        .copied()
                        .ok_or_else(|| {
                            Error::BadRequest(
                                "this token acts for several accounts: name the account".into(),
                            )
                        })?,
                }
            }
        };
        let account = account
            .or(tenant.account)
            .or(tenant.policy.account)
            .ok_or_else(|| {
                Error::BadRequest("the policy names no account: name the account".into())
            })?;
        Ok((tenant, account))
    }

    /// The latest state, read with the service's lock released on a node.
    pub(crate) fn latest_state(&self) -> Result<InProcessEvm> {
        let source = self.state().chain.source();
        source.latest()
    }

    /// The active policy of `account`'s tenant and its hash, `metadata_patterns` redacted.
    pub fn policy_view(
        &self,
        caller: &Caller,
        account: Option<Address>,
    ) -> Result<serde_json::Value> {
        self.require_audited(caller, Scope::Read)?;
        let (tenant, account) = self.read_target(caller, account)?;
        let mut policy = serde_json::to_value(tenant.policy.policy())
            .map_err(|e| Error::Store(format!("policy: {e}")))?;
        let patterns = tenant.policy.policy().metadata_patterns.len();
        if let Some(p) = policy.as_object_mut() {
            p.remove("metadata_patterns");
        }
        Ok(serde_json::json!({
            "tenant": tenant.id,
            "account": account,
            "policy_hash": tenant.policy.policy_hash(),
            "policy": policy,
            "metadata_patterns_redacted": patterns,
        }))
    }

    /// What is left of each budget the account meters, read from the account on the latest
    /// block.
    pub fn budgets(&self, caller: &Caller, account: Option<Address>) -> Result<serde_json::Value> {
        self.require_audited(caller, Scope::Read)?;
        let (_, account) = self.read_target(caller, account)?;
        let evm = self.latest_state()?;
        let not_pace = |reason: String| Error::NotPaceAccount { account, reason };
        // The budgets live where its PDRs go: the account, or a Safe's module.
        let at = match self.config.pipeline.account {
            pace_pipeline::AccountKind::PaceModule => {
                pace_pipeline::AccountState::read_pace(&evm, account, self.config.pipeline.account)
                    .map_err(|e| not_pace(e.to_string()))?
                    .entry()
            }
            _ => account,
        };
        let tokens = evm
            .view_sol(at, &PaceAccount::budgetTokensCall {})
            .map_err(|e| not_pace(format!("budgetTokens(): {e}")))?;
        let now = evm.timestamp();
        let mut out = Vec::new();
        for token in tokens {
            let b = evm
                .view_sol(at, &PaceAccount::budgetCall { token })
                .map_err(|e| not_pace(format!("budget({token}): {e}")))?;
            let (limit, spent) = (U256::from(b.limit), U256::from(b.spent));
            let resets_at = b.windowStart.saturating_add(b.period);
            let left = if now >= resets_at {
                limit
            } else {
                limit.saturating_sub(spent)
            };
            let meta = crate::service::token_meta(&evm, token);
            out.push(BudgetLeft {
                token,
                left_human: human(I256::from_raw(left), meta.decimals),
                symbol: meta.symbol,
                decimals: meta.decimals,
                limit: limit.to_string(),
                period_secs: b.period,
                window_start: b.windowStart,
                spent: spent.to_string(),
                left: left.to_string(),
                resets_at,
            });
        }
        Ok(serde_json::json!({
            "account": account,
            "block_number": evm.block_number(),
            "timestamp": now,
            "budgets": out,
        }))
    }

    /// The account's balances of ether and the policy's tokens on the latest block.
    pub fn balances(&self, caller: &Caller, account: Option<Address>) -> Result<serde_json::Value> {
        self.require_audited(caller, Scope::Read)?;
        let (tenant, account) = self.read_target(caller, account)?;
        let evm = self.latest_state()?;
        let mut tokens = vec![ETH];
        for t in &tenant.policy.policy().allowed_tokens {
            if !tokens.contains(t) {
                tokens.push(*t);
            }
        }
        let out: Vec<Balance> = tokens
            .into_iter()
            .map(|token| {
                let meta = crate::service::token_meta(&evm, token);
                let read = if token == ETH {
                    evm.balance(account).map_err(|e| e.to_string())
                } else {
                    evm.view_sol(token, &IERC20::balanceOfCall { account })
                        .map_err(|e| e.to_string())
                };
                let (balance, error) = match read {
                    Ok(b) => (Some(b), None),
                    Err(e) => (None, Some(format!("balanceOf cannot be read: {e}"))),
                };
                Balance {
                    token,
                    human: balance.map(|b| human(I256::from_raw(b), meta.decimals)),
                    balance: balance.map(|b| b.to_string()),
                    symbol: meta.symbol,
                    decimals: meta.decimals,
                    error,
                }
            })
            .collect();
        Ok(serde_json::json!({
            "account": account,
            "block_number": evm.block_number(),
            "balances": out,
        }))
    }
}
