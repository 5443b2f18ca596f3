//! Tenants: one service, several accounts, each with its own policy, nonce lanes and relayer
//! gas budget. A token acts only for the tenants its grant names (the configured account,
//! [`DEFAULT_TENANT`], when it names none), and a caller sees only what its tenants own.
//!
//! The tenants file of `pace serve --tenants FILE` is JSON: a list of
//! `{"id", "account": "0x…", "policy": "policy.json" (relative to the file), "lanes": [0, 1],
//! "relayer_budget_wei": "amount" (optional: unlimited)}`.

use crate::{Error, Result, store::DEFAULT_TENANT};
use alloy_primitives::{Address, U256};
use pace_types::CompiledPolicy;
use serde::Deserialize;
use std::{collections::BTreeMap, path::Path};

/// One tenant.
#[derive(Clone, Debug)]
pub struct Tenant {
    /// Its id, as grants name it.
    pub id: String,
    /// The account it acts for. `None` only for the default tenant of a policy that names no
    /// account: it then serves whichever account the policy admits.
    pub account: Option<Address>,
    /// Its policy.
    pub policy: CompiledPolicy,
    /// The nonce lanes of its account this instance owns.
    pub lanes: Vec<u32>,
    /// The most the relayer may spend on its transactions per 24 h, in wei (unlimited when
    /// `None`).
    pub relayer_budget_wei: Option<U256>,
}

impl Tenant {
    /// The default tenant: `policy`'s account (any when it names none), on `lanes`.
    pub fn default_for(policy: CompiledPolicy, lanes: Vec<u32>, budget: Option<U256>) -> Self {
        Self {
            id: DEFAULT_TENANT.to_owned(),
            account: policy.policy().account,
            policy,
            lanes,
            relayer_budget_wei: budget,
        }
    }
}

/// A tenant as the tenants file describes it.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct TenantFile {
    id: String,
    account: Address,
    policy: std::path::PathBuf,
    lanes: Vec<u32>,
    #[serde(default)]
    relayer_budget_wei: Option<String>,
}

/// The tenants of the tenants file at `path` (policies relative to its directory), each
/// policy's own `account`, when set, required to be the tenant's.
pub fn load(path: &Path) -> Result<Vec<Tenant>> {
    let bytes = std::fs::read(path)
        .map_err(|e| Error::Config(format!("{}: cannot read: {e}", path.display())))?;
    let entries: Vec<TenantFile> = serde_json::from_slice(&bytes)
        .map_err(|e| Error::Config(format!("{}: {e}", path.display())))?;
    let dir = path.parent().unwrap_or(Path::new("."));
    entries
        .into_iter()
        .map(|t| {
            let policy_path = dir.join(&t.policy);
            let policy = std::fs::read(&policy_path)
                .map_err(|e| Error::Config(format!("{}: {e}", policy_path.display())))
                .and_then(|b| {
                    // Descriptor files are read relative to the policy's own directory.
                    let dir = policy_path.parent().unwrap_or(Path::new("."));
                    pace_types::Policy::from_json_slice(&b)
                        .and_then(|mut p| {
                            p.read_protocol_files(dir)?;
                            p.compile()
                        })
                        .map_err(|e| Error::Config(format!("{}: {e}", policy_path.display())))
                })?;
            if policy.policy().account.is_some_and(|a| a != t.account) {
                return Err(Error::Config(format!(
                    "tenant {}: its policy governs another account than {}",
                    t.id, t.account
                )));
            }
            let relayer_budget_wei = t
                .relayer_budget_wei
                .as_deref()
                .map(|b| {
                    U256::from_str_radix(b, 10).map_err(|e| {
                        Error::Config(format!("tenant {}: relayer_budget_wei {b:?}: {e}", t.id))
                    })
                })
                .transpose()?;
            Ok(Tenant {
                id: t.id,
                account: Some(t.account),
                policy,
                lanes: t.lanes,
                relayer_budget_wei,
            })
        })
        .collect()
}

/// The tenants of a service, by id.
#[derive(Clone, Debug)]
pub(crate) struct Tenants {
    by_id: BTreeMap<String, Tenant>,
}

impl Tenants {
    /// `tenants`, checked: ids unique, each with a lane, no two for one account.
    pub(crate) fn new(tenants: Vec<Tenant>) -> Result<Self> {
        let mut by_id = BTreeMap::new();
        let mut accounts = BTreeMap::new();
        for t in tenants {
            if t.lanes.is_empty() {
                return Err(Error::Config(format!(
                    "tenant {}: an instance needs at least one nonce lane",
                    t.id
                )));
            }
            if let Some(a) = t.account
                && let Some(other) = accounts.insert(a, t.id.clone())
            {
                return Err(Error::Config(format!(
                    "tenants {other} and {} both act for account {a}",
                    t.id
                )));
            }
            if let Some(dup) = by_id.insert(t.id.clone(), t) {
                return Err(Error::Config(format!("tenant {} is listed twice", dup.id)));
            }
        }
        if by_id.is_empty() {
            return Err(Error::Config("a service needs at least one tenant".into()));
        }
        Ok(Self { by_id })
    }

    /// The tenants with their policies in JSON: what is published in the store.
    pub(crate) fn to_json(&self) -> String {
        let doc: Vec<serde_json::Value> = self
            .by_id
            .values()
            .map(|t| {
                serde_json::json!({
                    "id": t.id,
                    "account": t.account,
                    "policy_hash": t.policy.policy_hash(),
                    "policy": t.policy.policy(),
                    "lanes": t.lanes,
                    "relayer_budget_wei": t.relayer_budget_wei.map(|b| b.to_string()),
                })
            })
            .collect();
        serde_json::Value::Array(doc).to_string()
    }

    /// The tenant `id`.
    pub(crate) fn get(&self, id: &str) -> Result<&Tenant> {
        self.by_id
            .get(id)
            .ok_or_else(|| Error::Store(format!("no tenant {id} is configured")))
    }

    /// The tenants among `allowed`, by id.
    pub(crate) fn served(&self, allowed: impl Fn(&str) -> bool) -> Vec<&Tenant> {
        self.by_id.values().filter(|t| allowed(&t.id)).collect()
    }

    /// The tenant among `allowed` that acts for `account`: the one configured for it, else a
    /// tenant serving any account.
    pub(crate) fn for_account(
        &self,
        account: Address,
        allowed: impl Fn(&str) -> bool,
    ) -> Option<&Tenant> {
        let exact = self.by_id.values().find(|t| t.account == Some(account));
        match exact {
            Some(t) => allowed(&t.id).then_some(t),
            None => self
                .by_id
                .values()
                .find(|t| t.account.is_none() && allowed(&t.id)),
        }
    }
}
