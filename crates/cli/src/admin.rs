//! `pace admin`: the owner's functions of a PaceAccount, signed with the owner's key, or of a
//! Safe's PaceModule, as a transaction of the Safe signed by one of its owners.
//!
//! Each subcommand is one owner-only function of `contracts/PaceAccount.sol`: `pause` /
//! `unpause` (`setPaused`), `set-verifier` (`setVerifier`), `cancel-nonces` (`cancelNonces`),
//! `set-budget` (`setBudget`), `revoke` (`revokeAllowances`) and `set-grant-filter`
//! (`setGrantFilter`). The key must be the account's
//! owner: that is checked on the chain before anything is signed. The outcome comes from the
//! receipt only (executed, reverted with the account's decoded error, or uncertain with the
//! hash); the account's state after an executed transaction is read back and printed.
//!
//! A PaceModule's owner is its Safe, and only the Safe's own transaction administers it: with
//! the key of one of the Safe's owners, a 1-threshold Safe's transaction is signed and sent
//! (`execTransaction`); a Safe that needs more signatures gets the transaction printed, with
//! this owner's signature, for its owners' own Safe tooling, and nothing is sent (exit 2).

use crate::{
    EXIT_BAD_INPUT,
    deploy::{connect, exit_code, owner_and_verifier, runtime},
    print_stdout, sender,
};
use alloy_primitives::{Address, Bytes, U256};
use alloy_sol_types::{SolCall, SolInterface};
use clap::{Args, Parser, Subcommand};
use pace_contracts::bindings::{IERC20, PaceAccount};
use pace_node::{NodeClient, Tx};
use pace_pipeline::ExecutionResult;
use pace_types::pdr::grant_bit;
use serde_json::{Value, json};
use std::path::PathBuf;

/// The environment variable holding the owner's hex key (without `--keystore`).
pub const OWNER_KEY_ENV: &str = "PACE_OWNER_KEY";

/// Administer a PaceAccount as its owner: pause, unpause, rotate the verifier, cancel nonces,
/// set budgets, revoke allowances, declare its standing grants. Exit 0 executed, 1 reverted, 2
/// bad input or refused before sending (e.g. the key is not the owner), 3 uncertain (the
/// transaction may still land).
#[derive(Debug, Parser)]
pub struct AdminArgs {
    /// What to do.
    #[command(subcommand)]
    pub action: AdminAction,
}

/// Where the account is and who signs.
#[derive(Debug, Args)]
pub struct Target {
    /// The node's JSON-RPC endpoint (http:// or https://).
    #[arg(long)]
    pub rpc: String,
    /// The PaceAccount, or a Safe's PaceModule.
    #[arg(long)]
    pub account: Address,
    /// Encrypted keystore of the owner, or of one of the Safe's owners for a PaceModule
    /// (password in PACE_KEYSTORE_PASSWORD); default: the hex key in PACE_OWNER_KEY.
    #[arg(long)]
    pub keystore: Option<PathBuf>,
}

/// One owner function.
#[derive(Debug, Subcommand)]
pub enum AdminAction {
    /// Stop every PDR execution (`setPaused(true)`); the owner's own path stays open.
    Pause(Target),
    /// Resume PDR execution (`setPaused(false)`).
    Unpause(Target),
    /// Rotate the verifier key (`setVerifier`): PDRs signed by the previous key stop being
    /// accepted. After a leak, also `cancel-nonces`, so rotating back never revives them.
    SetVerifier {
        /// Node, account and key.
        #[command(flatten)]
        target: Target,
        /// The address of the new verifier key.
        #[arg(long)]
        verifier: Address,
    },
    /// Move nonce lane `--key` forward to `--sequence` (`cancelNonces`), cancelling every
    /// signed PDR below it; 18446744073709551615 retires the lane.
    CancelNonces {
        /// Node, account and key.
        #[command(flatten)]
        target: Target,
        /// The nonce lane.
        #[arg(long, default_value_t = 0)]
        key: u32,
        /// The lane's new next sequence (above the current one).
        #[arg(long)]
        sequence: u64,
    },
    /// Set the spending budget of a token (`setBudget`): PDRs may move at most `--limit` of
    /// it (base units) out per `--period` seconds; a period of 0 removes the budget.
    SetBudget {
        /// Node, account and key.
        #[command(flatten)]
        target: Target,
        /// The token (0x0000000000000000000000000000000000000000 for ETH).
        #[arg(long)]
        token: Address,
        /// Most that may leave per period, in the token's base units.
        #[arg(long)]
        limit: u128,
        /// The period in seconds (0 removes the budget).
        #[arg(long)]
        period: u64,
    },
    /// Set allowances of the account to 0 (`revokeAllowances`), each on its own: a pair that
    /// fails is reported in a `RevocationFailed` event and the others are revoked anyway.
    Revoke {
        /// Node, account and key.
        #[command(flatten)]
        target: Target,
        /// An allowance to revoke, as TOKEN:SPENDER (repeat the flag for more).
        #[arg(long = "allowance", value_name = "TOKEN:SPENDER", required = true, value_parser = parse_allowance)]
        allowances: Vec<(Address, Address)>,
    },
    /// Declare which tokens a right the account granted may still reach (`setGrantFilter`):
    /// after reviewing its `RightGranted` records and its own raw calls (each of which marks
    /// every token), so that a PDR may leave the other tokens unread. Marks the bit of each
    /// `--granted` token; `--none` declares that no right reaches any token.
    SetGrantFilter {
        /// Node, account and key.
        #[command(flatten)]
        target: Target,
        /// A token some standing right of the account may reach (repeat the flag for more).
        #[arg(
            long = "granted",
            value_name = "TOKEN",
            required_unless_present = "none"
        )]
        granted: Vec<Address>,
        /// No standing right reaches any token (the filter cleared).
        #[arg(long, conflicts_with = "granted")]
        none: bool,
    },
}

fn parse_allowance(text: &str) -> Result<(Address, Address), String> {
    let (token, spender) = text
        .split_once(':')
        .ok_or_else(|| format!("`{text}`: expected TOKEN:SPENDER"))?;
    let parse = |what: &str, s: &str| {
        s.trim()
            .parse::<Address>()
            .map_err(|e| format!("{what} `{s}`: {e}"))
    };
    Ok((parse("token", token)?, parse("spender", spender)?))
}

impl AdminAction {
    fn target(&self) -> &Target {
        match self {
            Self::Pause(t) | Self::Unpause(t) => t,
            Self::SetVerifier { target, .. }
            | Self::CancelNonces { target, .. }
            | Self::SetBudget { target, .. }
            | Self::Revoke { target, .. }
            | Self::SetGrantFilter { target, .. } => target,
        }
    }

    /// The subcommand's name, as typed.
    fn name(&self) -> &'static str {
        match self {
            Self::Pause(_) => "pause",
            Self::Unpause(_) => "unpause",
            Self::SetVerifier { .. } => "set-verifier",
            Self::CancelNonces { .. } => "cancel-nonces",
            Self::SetBudget { .. } => "set-budget",
            Self::Revoke { .. } => "revoke",
            Self::SetGrantFilter { .. } => "set-grant-filter",
        }
    }

    /// The account's calldata.
    fn calldata(&self) -> Bytes {
        match self {
            Self::Pause(_) => PaceAccount::setPausedCall { paused_: true }.abi_encode(),
            Self::Unpause(_) => PaceAccount::setPausedCall { paused_: false }.abi_encode(),
            Self::SetVerifier { verifier, .. } => PaceAccount::setVerifierCall {
                verifier_: *verifier,
            }
            .abi_encode(),
            Self::CancelNonces { key, sequence, .. } => PaceAccount::cancelNoncesCall {
                key: *key,
                sequence: *sequence,
            }
            .abi_encode(),
            Self::SetBudget {
                token,
                limit,
                period,
                ..
            } => PaceAccount::setBudgetCall {
                token: *token,
                limit: *limit,
                period: *period,
            }
            .abi_encode(),
            Self::Revoke { allowances, .. } => PaceAccount::revokeAllowancesCall {
                allowances: allowances
                    .iter()
                    .map(|&(token, spender)| PaceAccount::Allowance { token, spender })
                    .collect(),
            }
            .abi_encode(),
            Self::SetGrantFilter { granted, .. } => PaceAccount::setGrantFilterCall {
                filter: granted.iter().fold(0, |bits, &t| bits | grant_bit(t)),
            }
            .abi_encode(),
        }
        .into()
    }

    /// What the account now says about what this action changed.
    async fn state(&self, client: &NodeClient, account: Address) -> Result<Value, String> {
        let read = |e: pace_node::Error| format!("reading {account} back: {e}");
        Ok(match self {
            Self::Pause(_) | Self::Unpause(_) => json!({
                "paused": client.call_sol(account, &PaceAccount::pausedCall {}).await.map_err(read)?,
            }),
            Self::SetVerifier { .. } => json!({
                "verifier": client.call_sol(account, &PaceAccount::verifierCall {}).await.map_err(read)?,
            }),
            Self::CancelNonces { key, .. } => json!({
                "key": key,
                "next_sequence": client
                    .call_sol(account, &PaceAccount::nextSequenceCall { key: *key })
                    .await
                    .map_err(read)?,
            }),
            Self::SetBudget { token, .. } => {
                let b = client
                    .call_sol(account, &PaceAccount::budgetCall { token: *token })
                    .await
                    .map_err(read)?;
                json!({
                    "token": token,
                    "limit": b.limit.to_string(),
                    "period": b.period,
                    "window_start": b.windowStart,
                    "spent": b.spent.to_string(),
                })
            }
            Self::Revoke { allowances, .. } => {
                let mut left = Vec::new();
                for &(token, spender) in allowances {
                    let call = IERC20::allowanceCall {
                        owner: account,
                        spender,
                    };
                    let amount: U256 = client.call_sol(token, &call).await.map_err(read)?;
                    left.push(json!({"token": token, "spender": spender, "allowance": amount.to_string()}));
                }
                json!({ "allowances": left })
            }
            Self::SetGrantFilter { .. } => {
                let filter = client
                    .call_sol(account, &PaceAccount::grantFilterCall {})
                    .await
                    .map_err(read)?;
                json!({ "grant_filter": format!("{filter:#06x}") })
            }
        })
    }
}

impl AdminArgs {
    /// Sends the owner's transaction and prints its outcome.
    pub fn run(self) -> u8 {
        match self.go() {
            Ok(code) => code,
            Err(e) => {
                eprintln!("pace admin {}: {e}", self.action.name());
                EXIT_BAD_INPUT
            }
        }
    }

    fn go(&self) -> Result<u8, String> {
        let action = &self.action;
        let target = action.target();
        let signer = sender::signer(target.keystore.as_deref(), OWNER_KEY_ENV)?;
        let key = signer.clone();
        let account = target.account;
        runtime()?.block_on(async {
            let client = connect(&target.rpc, signer).await?;
            let (owner, _) = owner_and_verifier(&client, account).await?;
            let safe = (owner != client.address()
                && crate::safe::module_safe(&client, account).await == Some(owner))
            .then_some(owner);
            let tx = match safe {
                None if owner != client.address() => {
                    return Err(format!(
                        "the key's address {} is not the owner {owner} of {account}; nothing \
                         was sent",
                        client.address()
                    ));
                }
                None => Tx::call(account, U256::ZERO, action.calldata()),
                Some(safe) => match safe_transaction(&client, &key, safe, account, action).await? {
                    Ok(tx) => tx,
                    Err(doc) => {
                        print_stdout(&serde_json::to_string_pretty(&doc).expect("serialises"));
                        return Err(format!(
                            "the Safe {safe} needs more owners' signatures than this key's: \
                             the transaction above is for its owners' own Safe tooling; nothing \
                             was sent"
                        ));
                    }
                },
            };
            // Gas is estimated: a call the account (or the Safe) would refuse is not sent.
            let outcome = client.execute(tx).await.map_err(|e| refused(&e))?;
            let result = ExecutionResult::from(outcome);
            let mut doc = json!({
                "action": action.name(),
                "account": account,
                "tx_hash": result_hash(&result),
                "execution": result,
            });
            if let Some(safe) = safe {
                doc["safe"] = json!(safe);
            }
            if matches!(result, ExecutionResult::Executed { .. }) {
                // The receipt decides the outcome; the state read back only shows it.
                match action.state(&client, account).await {
                    Ok(state) => doc["state"] = state,
                    Err(e) => eprintln!("pace admin {}: warning: {e}", action.name()),
                }
            }
            print_stdout(&serde_json::to_string_pretty(&doc).expect("serialises"));
            Ok(exit_code(&result))
        })
    }
}

/// The Safe's own transaction running `action` on its module `module`, signed by `key`: a
/// transaction to send when the Safe needs one signature, or (`Err` inside `Ok`) the
/// transaction and this owner's signature as JSON when it needs more.
async fn safe_transaction(
    client: &NodeClient,
    key: &alloy::signers::local::PrivateKeySigner,
    safe: Address,
    module: Address,
    action: &AdminAction,
) -> Result<Result<Tx, Value>, String> {
    let (threshold, is_owner) =
        crate::safe::threshold_and_owner(client, safe, client.address()).await?;
    if !is_owner {
        return Err(format!(
            "the key's address {} is not an owner of the Safe {safe}, which administers the \
             module {module}; nothing was sent",
            client.address()
        ));
    }
    let safe_tx = crate::safe::SafeTx::next(client, safe, module, action.calldata()).await?;
    let signature = safe_tx.sign(key)?;
    if threshold != U256::from(1u8) {
        return Ok(Err(json!({
            "action": action.name(),
            "account": module,
            "safe": safe,
            "status": "needs_signatures",
            "threshold": threshold.to_string(),
            "safe_transaction": safe_tx.to_json(),
            "signatures": [{ "owner": client.address(), "signature": signature }],
        })));
    }
    Ok(Ok(Tx::call(
        safe,
        U256::ZERO,
        safe_tx.exec_calldata(signature),
    )))
}

fn result_hash(result: &ExecutionResult) -> Option<alloy_primitives::B256> {
    match result {
        ExecutionResult::Executed { tx_hash, .. }
        | ExecutionResult::Reverted { tx_hash, .. }
        | ExecutionResult::Uncertain { tx_hash, .. } => *tx_hash,
    }
}

/// Why nothing was sent: the account's error when gas estimation reverted.
fn refused(e: &pace_node::Error) -> String {
    let why = match e.revert_data() {
        Some(data) => match PaceAccount::PaceAccountErrors::abi_decode(&data) {
            Ok(error) => format!("the account would revert: {error:?}"),
            Err(_) => format!(
                "the account would revert: {}",
                pace_abi::revert::decode_revert_reason(&data)
            ),
        },
        None => crate::causes(e),
    };
    format!("{why}; nothing was sent")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn allowances_parse_as_token_colon_spender() {
        let (t, s) = (Address::repeat_byte(1), Address::repeat_byte(2));
        assert_eq!(parse_allowance(&format!("{t}:{s}")).unwrap(), (t, s));
        assert!(
            parse_allowance(&t.to_string())
                .unwrap_err()
                .contains("TOKEN:SPENDER")
        );
        assert!(
            parse_allowance(&format!("{t}:0x12"))
                .unwrap_err()
                .contains("spender")
        );
    }

    #[test]
    fn each_subcommand_calls_its_owner_function() {
        let target = || Target {
            rpc: String::new(),
            account: Address::ZERO,
            keystore: None,
        };
        let selector = |a: AdminAction| <[u8; 4]>::try_from(&a.calldata()[..4]).unwrap();
        assert_eq!(
            selector(AdminAction::Pause(target())),
            PaceAccount::setPausedCall::SELECTOR
        );
        let pause = AdminAction::Pause(target()).calldata();
        let decoded = PaceAccount::setPausedCall::abi_decode(&pause).unwrap();
        assert!(decoded.paused_);
        let unpause = AdminAction::Unpause(target()).calldata();
        assert!(
            !PaceAccount::setPausedCall::abi_decode(&unpause)
                .unwrap()
                .paused_
        );
        let revoke = AdminAction::Revoke {
            target: target(),
            allowances: vec![(Address::repeat_byte(1), Address::repeat_byte(2))],
        };
        let call = PaceAccount::revokeAllowancesCall::abi_decode(&revoke.calldata()).unwrap();
        assert_eq!(call.allowances[0].spender, Address::repeat_byte(2));
        let filter = |granted: Vec<Address>| {
            let action = AdminAction::SetGrantFilter {
                target: target(),
                granted,
                none: false,
            };
            PaceAccount::setGrantFilterCall::abi_decode(&action.calldata())
                .unwrap()
                .filter
        };
        let (a, b) = (Address::repeat_byte(0x13), Address::repeat_byte(0x2a));
        assert_eq!(
            filter(vec![a, b]),
            (1 << 3) | (1 << 10),
            "each token's low nibble"
        );
        assert_eq!(filter(vec![]), 0);
    }
}
