//! `pace policy check`: a policy loaded against a state once, before any intent meets it.
//!
//! Each contract the policy names is read as what the policy takes it for: a target, a touched
//! contract or a token has code (a token answers `decimals` and `totalSupply`, or says it is
//! an ERC-721 or ERC-1155 collection); a feed answers
//! `decimals` and a positive `latestRoundData` no older than its bound; a vault answers
//! `asset`; a pair answers `getReserves`; a V3 pool answers `slot0`, and its TWAP window
//! (`observe`) unless the policy takes its spot price; a trusted descriptor's roots have code
//! and run the code it pins, and each check it declares answers its word; the policy's chain
//! and account are the state's. What fails is one line each, instead of a refusal on every
//! intent later.

use super::identify::identify;
use crate::{EXIT_APPROVE, EXIT_BAD_INPUT, EXIT_REJECT, input, print_stdout, simulate};
use alloy_primitives::{Address, Bytes, U256, keccak256};
use alloy_sol_types::SolCall;
use clap::Parser;
use pace_abi::{
    bindings::{IERC20, IERC4626, IPriceOracle, IUniswapV2Pair},
    protocols::IUniswapV3PoolView,
};
use pace_evm::InProcessEvm;
use serde_json::{Value, json};
use std::path::PathBuf;

/// The TWAP window a V3 pool priced at its TWAP must cover, in seconds (the simulator's).
const TWAP_SECS: u32 = 1_800;
/// ERC-165 ids of ERC-721 and ERC-1155: a token list may name collections.
const ERC721_ID: [u8; 4] = [0x80, 0xac, 0x58, 0xcd];
const ERC1155_ID: [u8; 4] = [0xd9, 0xb6, 0x7a, 0x26];

alloy_sol_types::sol! {
    /// ERC-165.
    interface IERC165 {
        function supportsInterface(bytes4 interfaceId) external view returns (bool);
    }
}

/// Read every contract and price source a policy names on the embedded world, or on a node
/// with `--rpc`, and print `{"checked": N, "problems": [{"field", "address", "problem"}]}`.
/// Exit 0 when everything answers as the policy expects, 1 when something does not, 2 on bad
/// input (the policy file, the node).
#[derive(Debug, Parser)]
pub struct CheckArgs {
    /// The policy (JSON).
    #[arg(long)]
    pub policy: PathBuf,
    /// Read from this node's JSON-RPC endpoint instead of the embedded world.
    #[arg(long)]
    pub rpc: Option<String>,
    /// With `--rpc`: the block to read at (default: latest).
    #[arg(long, requires = "rpc")]
    pub block: Option<u64>,
}

impl CheckArgs {
    /// Checks and prints; see the type's docs for the exit codes.
    pub fn run(self) -> u8 {
        let policy = match input::policy(&self.policy) {
            Ok(p) => p,
            Err(e) => {
                eprintln!("pace policy check: {e}");
                return EXIT_BAD_INPUT;
            }
        };
        let evm = match simulate::state(self.rpc.as_deref(), self.block) {
            Ok(evm) => evm,
            Err(e) => {
                eprintln!("pace policy check: {e}");
                return EXIT_BAD_INPUT;
            }
        };
        match check(&evm, policy.policy()) {
            Ok((checked, problems)) => {
                let failed = !problems.is_empty();
                let doc = json!({ "checked": checked, "problems": problems });
                print_stdout(&serde_json::to_string_pretty(&doc).expect("JSON serialises"));
                if failed { EXIT_REJECT } else { EXIT_APPROVE }
            }
            Err(e) => {
                eprintln!("pace policy check: {e}");
                EXIT_BAD_INPUT
            }
        }
    }
}

/// How many contracts were read, and what did not answer as `policy` expects.
fn check(evm: &InProcessEvm, policy: &pace_types::Policy) -> Result<(usize, Vec<Value>), String> {
    let mut problems = Vec::new();
    let mut checked = 0;
    let mut problem = |field: &str, address: Address, what: String| {
        problems.push(json!({ "field": field, "address": address, "problem": what }));
    };
    if let Some(chain) = policy.chain_id
        && chain != evm.chain_id()
    {
        problem(
            "chain_id",
            Address::ZERO,
            format!(
                "the policy is for chain {chain}; the state is chain {}",
                evm.chain_id()
            ),
        );
    }
    let answers = |to: Address, call: &dyn Fn() -> Vec<u8>| -> Option<Bytes> {
        evm.view(to, Bytes::from(call())).ok()
    };
    let code = |a: Address| -> Result<bool, String> {
        Ok(!evm
            .code(a)
            .map_err(|e| format!("cannot read the code of {a}: {e}"))?
            .is_empty())
    };
    for (field, list) in [
        ("account", policy.account.as_slice()),
        ("allowed_targets", &policy.allowed_targets[..]),
        ("allowed_touched", &policy.allowed_touched[..]),
    ] {
        for &a in list {
            checked += 1;
            if !code(a)? {
                problem(field, a, "has no code".to_owned());
            }
        }
    }
    for &token in &policy.allowed_tokens {
        checked += 1;
        let decimals = answers(token, &|| IERC20::decimalsCall {}.abi_encode())
            .and_then(|o| IERC20::decimalsCall::abi_decode_returns_validate(&o).ok());
        let supply = answers(token, &|| IERC20::totalSupplyCall {}.abi_encode());
        let says = |id: [u8; 4]| {
            answers(token, &|| {
                IERC165::supportsInterfaceCall {
                    interfaceId: id.into(),
                }
                .abi_encode()
            })
            .and_then(|o| IERC165::supportsInterfaceCall::abi_decode_returns_validate(&o).ok())
            .unwrap_or(false)
        };
        let fungible = decimals.is_some() && supply.is_some();
        if !fungible && !says(ERC721_ID) && !says(ERC1155_ID) {
            let kind = identify(evm, token)?["kind"].clone();
            problem(
                "allowed_tokens",
                token,
                format!(
                    "answers neither an ERC-20's decimals() and totalSupply() nor ERC-165 for \
                     ERC-721 or ERC-1155 (it reads as {kind})"
                ),
            );
        }
    }
    for o in &policy.price_oracles {
        checked += 1;
        let decimals = answers(o.oracle, &|| IPriceOracle::decimalsCall {}.abi_encode())
            .and_then(|out| IPriceOracle::decimalsCall::abi_decode_returns_validate(&out).ok());
        let round = answers(o.oracle, &|| {
            IPriceOracle::latestRoundDataCall {}.abi_encode()
        })
        .and_then(|out| IPriceOracle::latestRoundDataCall::abi_decode_returns_validate(&out).ok());
        let (Some(_), Some(round)) = (decimals, round) else {
            problem(
                "price_oracles",
                o.oracle,
                "does not answer decimals() and latestRoundData(): it prices nothing".to_owned(),
            );
            continue;
        };
        if !round.answer.is_positive() {
            problem(
                "price_oracles",
                o.oracle,
                format!("answers {}: no price", round.answer),
            );
        }
        let bound = o.max_age_secs.or(policy.max_feed_age_secs);
        let age = evm.timestamp().saturating_sub(round.updatedAt.to::<u64>());
        if let Some(bound) = bound
            && age > bound
        {
            problem(
                "price_oracles",
                o.oracle,
                format!("answered {age} s ago, more than its bound of {bound} s"),
            );
        }
    }
    for &vault in &policy.price_vaults {
        checked += 1;
        let asset = answers(vault, &|| IERC4626::assetCall {}.abi_encode())
            .and_then(|o| IERC4626::assetCall::abi_decode_returns_validate(&o).ok());
        let rate = answers(vault, &|| {
            IERC4626::convertToAssetsCall {
                shares: U256::from(1u8),
            }
            .abi_encode()
        });
        if asset.is_none() || rate.is_none() {
            problem(
                "price_vaults",
                vault,
                "does not answer an ERC-4626 vault's asset() and convertToAssets()".to_owned(),
            );
        }
    }
    for &pair in &policy.price_pools {
        checked += 1;
        let reserves = answers(pair, &|| IUniswapV2Pair::getReservesCall {}.abi_encode())
            .and_then(|o| IUniswapV2Pair::getReservesCall::abi_decode_returns_validate(&o).ok());
        match reserves {
            None => problem(
                "price_pools",
                pair,
                "does not answer a pair's getReserves()".to_owned(),
            ),
            Some(r) if r.reserve0 == 0 || r.reserve1 == 0 => {
                problem("price_pools", pair, "has an empty side".to_owned());
            }
            Some(_) => {}
        }
    }
    for p in &policy.price_v3_pools {
        checked += 1;
        if answers(p.pool, &|| IUniswapV3PoolView::slot0Call {}.abi_encode()).is_none() {
            problem(
                "price_v3_pools",
                p.pool,
                "does not answer a V3 pool's slot0()".to_owned(),
            );
            continue;
        }
        let observe = || {
            IUniswapV3PoolView::observeCall {
                secondsAgos: vec![TWAP_SECS, 0],
            }
            .abi_encode()
        };
        if !p.spot && answers(p.pool, &observe).is_none() {
            problem(
                "price_v3_pools",
                p.pool,
                format!(
                    "its observations do not reach back {TWAP_SECS} s: no TWAP (raise its \
                     observation cardinality, or set spot and accept a price anyone can move)"
                ),
            );
        }
    }
    for d in policy.descriptors() {
        for root in &d.roots {
            checked += 1;
            let field = format!("protocols.{}.{}", d.id, root.name);
            let code = evm
                .code(root.address)
                .map_err(|e| format!("cannot read the code of {}: {e}", root.address))?;
            if code.is_empty() {
                problem(&field, root.address, "has no code".to_owned());
                continue;
            }
            if let Some(pinned) = root.code_hash
                && keccak256(&code) != pinned
            {
                problem(
                    &field,
                    root.address,
                    format!(
                        "its code hashes to {}, not the pinned {pinned}",
                        keccak256(&code)
                    ),
                );
            }
            let Some(pinned) = root.implementation_code_hash else {
                continue;
            };
            let slot = evm
                .storage(
                    root.address,
                    pace_types::descriptor::IMPLEMENTATION_SLOT.into(),
                )
                .map_err(|e| format!("cannot read the storage of {}: {e}", root.address))?;
            let implementation = Address::from_word(slot.into());
            let found = evm
                .code(implementation)
                .map_err(|e| format!("cannot read the code of {implementation}: {e}"))?;
            if slot.is_zero() || keccak256(&found) != pinned {
                problem(
                    &field,
                    root.address,
                    format!(
                        "its implementation {implementation} does not run the pinned code {pinned}"
                    ),
                );
            }
        }
        // Each declared check answers its word (for the policy's account, when it takes one).
        for (i, c) in d.checks.iter().enumerate() {
            if policy.account.is_none() && c.read.args.iter().any(|a| a == "account") {
                continue;
            }
            let (Some(root), Some(data)) = (
                d.root(&c.read.root),
                c.read.call_data(policy.account.unwrap_or_default()),
            ) else {
                continue;
            };
            checked += 1;
            let words = answers(root.address, &|| data.clone()).map_or(0, |a| a.len() / 32);
            if words <= c.read.word {
                problem(
                    &format!("protocols.{}.checks[{i}]", d.id),
                    root.address,
                    format!(
                        "{} answers no word {}: every intent that reaches {} would be refused",
                        c.read.view, c.read.word, d.id
                    ),
                );
            }
        }
    }
    Ok((checked, problems))
}
