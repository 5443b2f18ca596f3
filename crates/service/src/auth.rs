//! Scoped delegation (I5): API tokens, stored hashed, each with a scope set, the tokens it may
//! move, per-token outflow caps and a request rate.
//!
//! The token file is JSON: a list of grants
//! `{"id", "caller_type": "human"|"agent", "token_hashes": ["0x…"], "scopes": ["propose",
//! "confirm", "unattended", "read", "read_all", "approve", "halt"], "tokens": ["0x…"]
//! (optional: any when absent), "max_outflow": {"0x…token": "amount"}, "rate_per_minute": 60,
//! "tenants": ["acme"] (optional: the configured account when absent),
//! "approval_threshold_wei": "amount" (optional: none when absent)}`. A grant lists several
//! hashes while a token is rotated. `pace token` makes a secret and its hash.
//!
//! The grants can be replaced while the service runs ([`ApiTokens::replace`]): `pace serve`
//! re-reads its grants file when the file changes and on `SIGHUP`, so a token removed from the
//! file is refused from the next request on.

use crate::{Error, Result, audit::CallerType, preview::Preview, store::DEFAULT_TENANT};
use alloy_primitives::{Address, B256, U256, keccak256};
use serde::{Deserialize, Serialize};
use std::{
    collections::{BTreeMap, BTreeSet, HashMap},
    sync::{Mutex, RwLock},
};

/// What a caller may do.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Scope {
    /// Ask for previews.
    Propose,
    /// Confirm previews (signs and submits).
    Confirm,
    /// Execute without a per-preview confirmation (the confirmation is recorded as unattended).
    Unattended,
    /// Read status, history and the audit log of the caller's own proposals.
    Read,
    /// Read every proposal, history and audit entry of the caller's tenants, not only its own.
    ReadAll,
    /// Approve or decline, as a human, a proposal waiting for a human (the approval page).
    Approve,
    /// Set or lift the kill switch.
    Halt,
}

impl Scope {
    /// The scope's name.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Propose => "propose",
            Self::Confirm => "confirm",
            Self::Unattended => "unattended",
            Self::Read => "read",
            Self::ReadAll => "read_all",
            Self::Approve => "approve",
            Self::Halt => "halt",
        }
    }

    /// Every scope.
    pub const ALL: [Scope; 7] = [
        Self::Propose,
        Self::Confirm,
        Self::Unattended,
        Self::Read,
        Self::ReadAll,
        Self::Approve,
        Self::Halt,
    ];
}

/// The hash an API token is stored as.
pub fn token_hash(secret: &str) -> B256 {
    let mut bytes = b"PACE-RS/api-token/v1\n".to_vec();
    bytes.extend_from_slice(secret.as_bytes());
    keccak256(bytes)
}

/// One grant of the token file.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Grant {
    /// The actor id recorded in the audit log.
    pub id: String,
    /// Human or agent (recorded only: both traverse the same checks).
    pub caller_type: CallerType,
    /// Hashes of the valid secrets ([`token_hash`]); several during a rotation.
    pub token_hashes: Vec<B256>,
    /// The scope set.
    pub scopes: BTreeSet<Scope>,
    /// Tokens the caller may move out of the account; any when absent.
    #[serde(default)]
    pub tokens: Option<BTreeSet<Address>>,
    /// Per-token cap on the gross outflow of one transition, decimal, in the smallest unit.
    #[serde(default)]
    pub max_outflow: BTreeMap<Address, String>,
    /// Requests per minute.
    #[serde(default = "default_rate")]
    pub rate_per_minute: u32,
    /// The tenants (accounts) the token may act for; the configured account when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tenants: Option<BTreeSet<String>>,
    /// Value (wei, at pre-execution prices, the policy's unit of account) the caller may move
    /// out of its tenants' accounts per 24 h on its own confirmations; above it, and for an
    /// outflow that cannot be priced, a human approves. No threshold when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub approval_threshold_wei: Option<String>,
}

fn default_rate() -> u32 {
    120
}

/// An authenticated caller.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Caller {
    /// The actor id.
    pub id: String,
    /// Its type.
    pub caller_type: CallerType,
    /// Its scopes.
    pub scopes: BTreeSet<Scope>,
    /// Tokens it may move; any when `None`.
    pub tokens: Option<BTreeSet<Address>>,
    /// Per-token outflow caps.
    pub max_outflow: BTreeMap<Address, U256>,
    /// Requests per minute.
    pub rate_per_minute: u32,
    /// The tenants it may act for.
    pub tenants: BTreeSet<String>,
    /// Its approval threshold (wei per 24 h), if it has one.
    pub approval_threshold_wei: Option<U256>,
}

impl Caller {
    /// Whether the caller holds `scope`.
    pub fn has(&self, scope: Scope) -> bool {
        self.scopes.contains(&scope)
    }

    /// Whether the caller may act for tenant `tenant`.
    pub fn serves(&self, tenant: &str) -> bool {
        self.tenants.contains(tenant)
    }

    /// The caller's tenants, in order.
    pub fn tenant_list(&self) -> Vec<String> {
        self.tenants.iter().cloned().collect()
    }

    /// Admits the operation iff the caller holds `scope` (Definition 6 for the operation).
    pub fn require(&self, scope: Scope) -> Result<()> {
        if self.scopes.contains(&scope) {
            Ok(())
        } else {
            Err(Error::Forbidden(format!(
                "{} lacks the {} scope",
                self.id,
                scope.as_str()
            )))
        }
    }

    /// Admits the transition iff every token it moves out is one the caller may move, within
    /// its cap (Definition 6 for the transition).
    pub fn admits(&self, preview: &Preview) -> Result<()> {
        for out in &preview.outflows {
            if let Some(allowed) = &self.tokens
                && !allowed.contains(&out.token)
            {
                return Err(Error::Forbidden(format!(
                    "{} may not move token {}",
                    self.id, out.token
                )));
            }
            if let Some(cap) = self.max_outflow.get(&out.token)
                && out.amount > *cap
            {
                return Err(Error::Forbidden(format!(
                    "{} may move at most {cap} of token {} per transition; this one moves {}",
                    self.id, out.token, out.amount
                )));
            }
        }
        Ok(())
    }
}

/// The known API tokens and their request counters. The grants can be replaced at any time
/// ([`Self::replace`]); request counters survive a replacement.
#[derive(Debug, Default)]
pub struct ApiTokens {
    callers: RwLock<HashMap<B256, Caller>>,
    grants: RwLock<Vec<Grant>>,
    windows: Mutex<HashMap<String, (u64, u32)>>,
}

/// The callers of `grants`, by token hash.
fn callers_of(grants: Vec<Grant>) -> Result<HashMap<B256, Caller>> {
    let mut callers = HashMap::new();
    for g in grants {
        let mut max_outflow = BTreeMap::new();
        for (token, amount) in &g.max_outflow {
            let v = U256::from_str_radix(amount, 10)
                .map_err(|e| Error::Config(format!("grant {}: max_outflow {token}: {e}", g.id)))?;
            max_outflow.insert(*token, v);
        }
        let approval_threshold_wei = g
            .approval_threshold_wei
            .as_deref()
            .map(|t| {
                U256::from_str_radix(t, 10).map_err(|e| {
                    Error::Config(format!("grant {}: approval_threshold_wei {t:?}: {e}", g.id))
                })
            })
            .transpose()?;
        let tenants = match &g.tenants {
            Some(t) if t.is_empty() => {
                return Err(Error::Config(format!(
                    "grant {}: an empty tenants list serves nobody; omit it for the configured \
                     account",
                    g.id
                )));
            }
            Some(t) => t.clone(),
            None => [DEFAULT_TENANT.to_owned()].into(),
        };
        let caller = Caller {
            id: g.id.clone(),
            caller_type: g.caller_type,
            scopes: g.scopes.clone(),
            tokens: g.tokens.clone(),
            max_outflow,
            rate_per_minute: g.rate_per_minute,
            tenants,
            approval_threshold_wei,
        };
        for h in &g.token_hashes {
            if callers.insert(*h, caller.clone()).is_some() {
                return Err(Error::Config(format!(
                    "grant {}: token hash {h} is listed twice",
                    g.id
                )));
            }
        }
    }
    Ok(callers)
}

impl ApiTokens {
    /// The grants of a token file.
    pub fn from_json(bytes: &[u8]) -> Result<Self> {
        Self::from_grants(Self::parse(bytes)?)
    }

    /// The grants of a token file, parsed.
    pub fn parse(bytes: &[u8]) -> Result<Vec<Grant>> {
        serde_json::from_slice(bytes).map_err(|e| Error::Config(format!("API token file: {e}")))
    }

    /// These grants.
    pub fn from_grants(grants: Vec<Grant>) -> Result<Self> {
        Ok(Self {
            callers: RwLock::new(callers_of(grants.clone())?),
            grants: RwLock::new(grants),
            windows: Mutex::default(),
        })
    }

    /// Replaces every grant with `grants` at once: a token no longer listed is refused from
    /// the next request on (in-flight requests finish). On an invalid list nothing changes.
    pub fn replace(&self, grants: Vec<Grant>) -> Result<()> {
        let callers = callers_of(grants.clone())?;
        *self.callers.write().unwrap_or_else(|p| p.into_inner()) = callers;
        *self.grants.write().unwrap_or_else(|p| p.into_inner()) = grants;
        Ok(())
    }

    /// The grants, as given (token hashes only), in JSON: what is published in the store.
    pub fn to_json(&self) -> String {
        let grants = self.grants.read().unwrap_or_else(|p| p.into_inner());
        serde_json::to_string(&*grants).unwrap_or_else(|_| "[]".to_owned())
    }

    /// Whether no token is configured.
    pub fn is_empty(&self) -> bool {
        self.callers
            .read()
            .unwrap_or_else(|p| p.into_inner())
            .is_empty()
    }

    /// The tenants of the grant `id`, if it is known.
    pub fn tenants_of(&self, id: &str) -> Option<BTreeSet<String>> {
        let callers = self.callers.read().unwrap_or_else(|p| p.into_inner());
        callers
            .values()
            .find(|c| c.id == id)
            .map(|c| c.tenants.clone())
    }

    /// The caller holding `secret`, without counting a request.
    pub fn lookup(&self, secret: Option<&str>) -> Result<Caller> {
        let secret = secret.ok_or(Error::Unauthorized)?;
        let callers = self.callers.read().unwrap_or_else(|p| p.into_inner());
        callers
            .get(&token_hash(secret))
            .cloned()
            .ok_or(Error::Unauthorized)
    }

    /// The caller holding `secret`, counted against its rate at unix time `now`.
    pub fn authenticate(&self, secret: Option<&str>, now: u64) -> Result<Caller> {
        let caller = self.lookup(secret)?;
        let mut windows = self.windows.lock().unwrap_or_else(|p| p.into_inner());
        let (start, count) = windows.entry(caller.id.clone()).or_insert((now, 0));
        if now >= *start + 60 {
            (*start, *count) = (now, 0);
        }
        if *count >= caller.rate_per_minute {
            return Err(Error::RateLimited {
                per_minute: caller.rate_per_minute,
            });
        }
        *count += 1;
        Ok(caller)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn grant(rate: u32) -> Grant {
        Grant {
            id: "bot".to_owned(),
            caller_type: CallerType::Agent,
            token_hashes: vec![token_hash("old"), token_hash("new")],
            scopes: [Scope::Propose].into(),
            tokens: None,
            max_outflow: BTreeMap::new(),
            rate_per_minute: rate,
            tenants: None,
            approval_threshold_wei: None,
        }
    }

    #[test]
    fn tokens_are_checked_by_hash_and_rate_limited() {
        let tokens = ApiTokens::from_grants(vec![grant(2)]).unwrap();
        assert!(matches!(
            tokens.authenticate(Some("wrong"), 0),
            Err(Error::Unauthorized)
        ));
        assert!(matches!(
            tokens.authenticate(None, 0),
            Err(Error::Unauthorized)
        ));
        // Both secrets of a rotation work, and count against one rate.
        assert_eq!(tokens.authenticate(Some("old"), 0).unwrap().id, "bot");
        assert_eq!(tokens.authenticate(Some("new"), 1).unwrap().id, "bot");
        assert!(matches!(
            tokens.authenticate(Some("new"), 2),
            Err(Error::RateLimited { per_minute: 2 })
        ));
        assert!(tokens.authenticate(Some("new"), 61).is_ok());
    }

    #[test]
    fn scopes_are_required() {
        let tokens = ApiTokens::from_grants(vec![grant(10)]).unwrap();
        let c = tokens.authenticate(Some("old"), 0).unwrap();
        assert!(c.require(Scope::Propose).is_ok());
        assert!(matches!(
            c.require(Scope::Confirm),
            Err(Error::Forbidden(_))
        ));
    }

    #[test]
    fn a_replaced_grant_list_refuses_removed_tokens_at_once() {
        let tokens = ApiTokens::from_grants(vec![grant(10)]).unwrap();
        assert!(tokens.authenticate(Some("old"), 0).is_ok());
        let mut rotated = grant(10);
        rotated.token_hashes = vec![token_hash("new")];
        tokens.replace(vec![rotated]).unwrap();
        assert!(matches!(
            tokens.authenticate(Some("old"), 1),
            Err(Error::Unauthorized)
        ));
        assert!(tokens.authenticate(Some("new"), 1).is_ok());
        // An invalid list changes nothing.
        let mut bad = grant(10);
        bad.approval_threshold_wei = Some("lots".into());
        assert!(tokens.replace(vec![bad]).is_err());
        assert!(tokens.authenticate(Some("new"), 2).is_ok());
    }

    #[test]
    fn a_grant_without_tenants_serves_the_configured_account() {
        let tokens = ApiTokens::from_grants(vec![grant(10)]).unwrap();
        let c = tokens.authenticate(Some("old"), 0).unwrap();
        assert!(c.serves(DEFAULT_TENANT));
        let mut acme = grant(10);
        acme.tenants = Some(["acme".to_owned()].into());
        let tokens = ApiTokens::from_grants(vec![acme]).unwrap();
        let c = tokens.authenticate(Some("old"), 0).unwrap();
        assert!(c.serves("acme") && !c.serves(DEFAULT_TENANT));
    }
}
