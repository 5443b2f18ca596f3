//! Helpers that encode the common actions into an intent: an ERC-20 transfer or approval, an
//! exact-input Uniswap V2 swap (approve the router, then swap to the account), wrapping and
//! unwrapping ether.
//!
//! A helper only writes calldata and the claims that calldata makes (the amounts it moves and
//! approves); it simulates nothing, signs nothing and stores nothing. What it returns is an
//! intent the agent proposes like any other, and the guard judges it like any other: from the
//! simulation of the calls, with the claims only compared against what the trace shows. The
//! guard trusts nothing the helper encoded.
//!
//! What a helper answers, `{"intent": …}`, is a `propose` request as it is: the body of
//! `POST /v1/propose`, and over MCP propose's arguments (the intent's metadata written as
//! `{key, value}` pairs, the form propose's strict schema describes).

use crate::{
    Error, Result, Service,
    auth::{Caller, Scope},
};
use alloy_primitives::{Address, Bytes, U256};
use alloy_sol_types::SolCall;
use pace_abi::bindings::{IERC20, IUniswapV2Router02, IWETH9};
use pace_types::{Approval, Call, Claims, ETH, Intent, TokenAmount};
use serde::Deserialize;
use std::collections::BTreeMap;

/// The encoding tools, by name.
pub const TOOLS: [&str; 5] = [
    "encode_erc20_transfer",
    "encode_erc20_approve",
    "encode_swap",
    "encode_wrap",
    "encode_unwrap",
];

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Transfer {
    #[serde(default)]
    account: Option<Address>,
    token: Address,
    to: Address,
    amount: String,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Approve {
    #[serde(default)]
    account: Option<Address>,
    token: Address,
    spender: Address,
    amount: String,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Wrap {
    #[serde(default)]
    account: Option<Address>,
    weth: Address,
    amount: String,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Swap {
    #[serde(default)]
    account: Option<Address>,
    router: Address,
    path: Vec<Address>,
    amount_in: String,
    min_amount_out: String,
    #[serde(default)]
    deadline: Option<u64>,
}

fn parse<T: serde::de::DeserializeOwned>(args: serde_json::Value) -> Result<T> {
    serde_json::from_value(args).map_err(|e| Error::BadRequest(e.to_string()))
}

fn amount(field: &str, s: &str) -> Result<U256> {
    pace_types::amount::parse_u256(s).map_err(|e| Error::BadRequest(format!("{field}: {e}")))
}

fn call(target: Address, value: U256, data: Vec<u8>) -> Call {
    Call {
        target,
        value,
        data: Bytes::from(data),
    }
}

impl Service {
    /// Runs encoding tool `tool` on its `args` (as [`crate::args::read`] gives them) for
    /// `caller` (scope `propose`): `{"intent": …}`, a `propose` request as it is.
    pub fn encode(
        &self,
        caller: &Caller,
        tool: &str,
        args: serde_json::Value,
    ) -> Result<serde_json::Value> {
        self.require_audited(caller, Scope::Propose)?;
        let chosen = args
            .get("account")
            .and_then(|a| a.as_str())
            .map(|a| {
                a.parse::<Address>()
                    .map_err(|e| Error::BadRequest(format!("account: {e}")))
            })
            .transpose()?;
        let (_, account) = self.read_target(caller, chosen)?;
        // The latest state is read with the service's lock released (a fork on a node).
        let source = self.state().chain.source();
        let (chain_id, timestamp) = {
            let evm = source.latest()?;
            (evm.chain_id(), evm.timestamp())
        };
        let mut claimed = Claims::default();
        let calls = match tool {
            "encode_erc20_transfer" => {
                let t: Transfer = parse(args)?;
                let value = amount("amount", &t.amount)?;
                let _ = t.account;
                claimed.outflows.push(TokenAmount {
                    token: t.token,
                    amount: value,
                });
                let data = IERC20::transferCall { to: t.to, value }.abi_encode();
                vec![call(t.token, U256::ZERO, data)]
            }
            "encode_erc20_approve" => {
                let a: Approve = parse(args)?;
                let value = amount("amount", &a.amount)?;
                let _ = a.account;
                claimed.approvals.push(Approval {
                    token: a.token,
                    spender: a.spender,
                    amount: value,
                });
                let data = IERC20::approveCall {
                    spender: a.spender,
                    value,
                }
                .abi_encode();
                vec![call(a.token, U256::ZERO, data)]
            }
            "encode_wrap" => {
                let w: Wrap = parse(args)?;
                let value = amount("amount", &w.amount)?;
                let _ = w.account;
                claimed.outflows.push(TokenAmount {
                    token: ETH,
                    amount: value,
                });
                vec![call(w.weth, value, IWETH9::depositCall {}.abi_encode())]
            }
            "encode_unwrap" => {
                let w: Wrap = parse(args)?;
                let wad = amount("amount", &w.amount)?;
                let _ = w.account;
                claimed.outflows.push(TokenAmount {
                    token: w.weth,
                    amount: wad,
                });
                vec![call(
                    w.weth,
                    U256::ZERO,
                    IWETH9::withdrawCall { wad }.abi_encode(),
                )]
            }
            "encode_swap" => {
                let s: Swap = parse(args)?;
                let _ = s.account;
                let (Some(&token_in), Some(_)) = (s.path.first(), s.path.get(1)) else {
                    return Err(Error::BadRequest(
                        "path: at least two tokens, token in first".into(),
                    ));
                };
                let amount_in = amount("amount_in", &s.amount_in)?;
                let min_out = amount("min_amount_out", &s.min_amount_out)?;
                let deadline = s.deadline.unwrap_or(timestamp.saturating_add(1_800));
                claimed.approvals.push(Approval {
                    token: token_in,
                    spender: s.router,
                    amount: amount_in,
                });
                claimed.outflows.push(TokenAmount {
                    token: token_in,
                    amount: amount_in,
                });
                let approve = IERC20::approveCall {
                    spender: s.router,
                    value: amount_in,
                }
                .abi_encode();
                let swap = IUniswapV2Router02::swapExactTokensForTokensCall {
                    amountIn: amount_in,
                    amountOutMin: min_out,
                    path: s.path.clone(),
                    to: account,
                    deadline: U256::from(deadline),
                }
                .abi_encode();
                vec![
                    call(token_in, U256::ZERO, approve),
                    call(s.router, U256::ZERO, swap),
                ]
            }
            other => return Err(Error::BadRequest(format!("no encoding tool {other}"))),
        };
        let intent = Intent {
            chain_id,
            account,
            calls,
            claimed,
            metadata: BTreeMap::from([("encoded_by".to_owned(), tool.to_owned())]),
        };
        intent
            .validate()
            .map_err(|e| Error::BadRequest(format!("intent: {e}")))?;
        Ok(serde_json::json!({ "intent": intent }))
    }
}
