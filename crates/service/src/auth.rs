//! Scoped delegation (I5): API tokens, stored hashed, each with a scope set, the tokens it may
//! move, per-token outflow caps and a request rate.
//!
//! The token file is JSON: a list of grants
//! `{"id", "caller_type": "human"|"agent", "token_hashes": ["0x…"], "scopes": ["propose",
//! "confirm", "unattended", "read"], "tokens": ["0x…"] (optional: any when absent),
//! "max_outflow": {"0x…token": "amount"}, "rate_per_minute": 60}`. A grant lists several hashes
//! while a token is rotated. `pace serve token` makes a secret and its hash.

use crate::{Error, Result, audit::CallerType, preview::Preview};
use alloy_primitives::{Address, B256, U256, keccak256};
use serde::{Deserialize, Serialize};
use std::{
    collections::{BTreeMap, BTreeSet, HashMap},
    sync::Mutex,
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
    /// Read status, history and the audit log.
    Read,
}

impl Scope {
    /// The scope's name.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Propose => "propose",
            Self::Confirm => "confirm",
            Self::Unattended => "unattended",
            Self::Read => "read",
        }
    }
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
}

impl Caller {
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

/// The known API tokens and their request counters.
#[derive(Debug, Default)]
pub struct ApiTokens {
    callers: HashMap<B256, Caller>,
    windows: Mutex<HashMap<String, (u64, u32)>>,
}

impl ApiTokens {
    /// The grants of a token file.
    pub fn from_json(bytes: &[u8]) -> Result<Self> {
        let grants: Vec<Grant> = serde_json::from_slice(bytes)
            .map_err(|e| Error::Config(format!("API token file: {e}")))?;
        Self::from_grants(grants)
    }

    /// These grants.
    pub fn from_grants(grants: Vec<Grant>) -> Result<Self> {
        let mut callers = HashMap::new();
        for g in grants {
            let mut max_outflow = BTreeMap::new();
            for (token, amount) in &g.max_outflow {
                let v = U256::from_str_radix(amount, 10).map_err(|e| {
                    Error::Config(format!("grant {}: max_outflow {token}: {e}", g.id))
                })?;
                max_outflow.insert(*token, v);
            }
            let caller = Caller {
                id: g.id.clone(),
                caller_type: g.caller_type,
                scopes: g.scopes.clone(),
                tokens: g.tokens.clone(),
                max_outflow,
                rate_per_minute: g.rate_per_minute,
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
        Ok(Self {
            callers,
            windows: Mutex::default(),
        })
    }

    /// Whether no token is configured.
    pub fn is_empty(&self) -> bool {
        self.callers.is_empty()
    }

    /// The caller holding `secret`, counted against its rate at unix time `now`.
    pub fn authenticate(&self, secret: Option<&str>, now: u64) -> Result<Caller> {
        let secret = secret.ok_or(Error::Unauthorized)?;
        let caller = self
            .callers
            .get(&token_hash(secret))
            .ok_or(Error::Unauthorized)?;
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
        Ok(caller.clone())
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
}
