//! Judging a case from chain state: every asset and right the victim account holds, read before
//! and after `pace run`, compared with what the simulation showed; then the outcome.

use crate::{
    abi::*,
    cases::Need,
    chain::Chain,
    pace::RunOutput,
    setup::{self, Kit, World},
};
use alloy_primitives::{Address, I256, U256};
use pace_abi::bindings::{IERC20, IERC721, IERC1155};
use serde_json::Value;

/// Something of the victim's that can leave it.
pub(crate) enum Asset {
    Ether,
    Erc20 {
        token: Address,
        symbol: &'static str,
        decimals: u8,
    },
    /// An ERC-20 allowance of the account.
    Allowance {
        token: Address,
        spender: Address,
        label: &'static str,
    },
    /// The account's grant in the allowance manager.
    Grant {
        token: Address,
        spender: Address,
        label: &'static str,
    },
    /// Whether `operator` is the account's operator over `collection`.
    Operator {
        collection: Address,
        operator: Address,
        label: &'static str,
    },
    /// The owner of an ERC-721 id.
    Nft {
        collection: Address,
        id: u64,
        label: &'static str,
    },
    /// The account's balance of an ERC-1155 id.
    Edition {
        token: Address,
        id: u64,
        label: &'static str,
    },
    /// The account's claim on the vault's underlying: its share of what the vault holds.
    Claim {
        vault: Address,
        underlying: Address,
    },
}

/// One reading of an [`Asset`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Reading {
    Amount(U256),
    Owner(Address),
    Flag(bool),
    /// A vault: the underlying it holds, the account's shares, all shares.
    Vault(U256, U256, U256),
}

impl Reading {
    /// The account's claim on the underlying a [`Reading::Vault`] stands for.
    fn claim(&self) -> U256 {
        match *self {
            Self::Vault(held, shares, supply) if !supply.is_zero() => held * shares / supply,
            _ => U256::ZERO,
        }
    }
}

/// Every asset and right of the victim the suite watches, in every case.
pub(crate) fn watched(w: &World, k: &Kit) -> Vec<Asset> {
    let erc20 = |token, symbol, decimals| Asset::Erc20 {
        token,
        symbol,
        decimals,
    };
    let mut out = vec![
        Asset::Ether,
        erc20(w.weth, "WETH", 18),
        erc20(w.dai, "DAI", 18),
        erc20(w.usdc, "USDC", 6),
        erc20(w.fee_token, "FEE", 18),
        erc20(k.vault, "rpyDAI", 18),
        Asset::Allowance {
            token: w.fee_token,
            spender: k.accomplice,
            label: "FEE to the accomplice",
        },
        Asset::Allowance {
            token: w.fee_token,
            spender: k.allowance,
            label: "FEE to the allowance desk",
        },
        Asset::Allowance {
            token: w.usdc,
            spender: k.manager,
            label: "USDC to the allowance manager",
        },
        Asset::Grant {
            token: w.usdc,
            spender: k.permit2,
            label: "USDC grant to the Permit2-style desk",
        },
        Asset::Operator {
            collection: k.heirlooms,
            operator: k.operator,
            label: "operator over heirlooms",
        },
        Asset::Edition {
            token: k.editions,
            id: setup::GOLD,
            label: "gold",
        },
        Asset::Edition {
            token: k.editions,
            id: setup::DUST,
            label: "dust",
        },
        Asset::Claim {
            vault: k.vault,
            underlying: w.dai,
        },
    ];
    for id in setup::HEIRLOOMS {
        out.push(Asset::Nft {
            collection: k.heirlooms,
            id,
            label: "heirloom",
        });
    }
    for (id, label) in [(setup::RARE, "rare"), (setup::DECOY, "decoy")] {
        out.push(Asset::Nft {
            collection: k.rarities,
            id,
            label,
        });
    }
    out
}

/// Reads every asset of `account`.
pub(crate) fn snapshot(
    chain: &Chain,
    w: &World,
    k: &Kit,
    assets: &[Asset],
) -> Result<Vec<Reading>, String> {
    let account = w.account;
    let balance = |token: Address, holder: Address| {
        chain.view(token, &IERC20::balanceOfCall { account: holder })
    };
    assets
        .iter()
        .map(|a| {
            Ok(match *a {
                Asset::Ether => Reading::Amount(chain.eth(account)?),
                Asset::Erc20 { token, .. } => Reading::Amount(balance(token, account)?),
                Asset::Allowance { token, spender, .. } => Reading::Amount(chain.view(
                    token,
                    &IERC20::allowanceCall {
                        owner: account,
                        spender,
                    },
                )?),
                Asset::Grant { token, spender, .. } => {
                    let g = chain.view(
                        k.manager,
                        &Manager::allowanceCall {
                            owner: account,
                            token,
                            spender,
                        },
                    )?;
                    Reading::Amount(U256::from(g.amount))
                }
                Asset::Operator {
                    collection,
                    operator,
                    ..
                } => Reading::Flag(chain.view(
                    collection,
                    &IERC721::isApprovedForAllCall {
                        owner: account,
                        operator,
                    },
                )?),
                Asset::Nft { collection, id, .. } => Reading::Owner(chain.view(
                    collection,
                    &IERC721::ownerOfCall {
                        tokenId: U256::from(id),
                    },
                )?),
                Asset::Edition { token, id, .. } => Reading::Amount(chain.view(
                    token,
                    &IERC1155::balanceOfCall {
                        account,
                        id: U256::from(id),
                    },
                )?),
                Asset::Claim { vault, underlying } => {
                    let held = balance(underlying, vault)?;
                    let shares = balance(vault, account)?;
                    let supply = chain.view(vault, &IERC20::totalSupplyCall {})?;
                    Reading::Vault(held, shares, supply)
                }
            })
        })
        .collect()
}

/// What the simulation said the account's assets do.
pub(crate) struct Simulated {
    /// Net balance changes (ether is the zero address), from `pace run`'s own simulation.
    pub(crate) balances: Vec<(Address, I256)>,
    /// `(collection, id, from, to, amount)` of every non-fungible movement, from the report.
    pub(crate) nft_flows: Vec<(Address, U256, Address, Address, U256)>,
    /// `(token, spender)` of every approval the report shows.
    pub(crate) approvals: Vec<(Address, Address)>,
}

fn addr(v: &Value) -> Result<Address, String> {
    v.as_str()
        .and_then(|s| s.parse().ok())
        .ok_or_else(|| format!("not an address: {v}"))
}

fn dec(v: &Value) -> Result<U256, String> {
    v.as_str()
        .and_then(|s| s.parse().ok())
        .ok_or_else(|| format!("not an amount: {v}"))
}

fn signed(v: &Value) -> Result<I256, String> {
    v.as_str()
        .and_then(|s| I256::from_dec_str(s).ok())
        .ok_or_else(|| format!("not a signed amount: {v}"))
}

/// `(token, delta)` of a JSON `balance_changes` list.
pub(crate) fn balance_changes(list: &Value) -> Result<Vec<(Address, I256)>, String> {
    list.as_array()
        .map(Vec::as_slice)
        .unwrap_or_default()
        .iter()
        .map(|c| Ok((addr(&c["token"])?, signed(&c["delta"])?)))
        .collect()
}

impl Simulated {
    /// From `pace simulate`'s report; `run_changes` (what `pace run` printed) takes precedence
    /// for balances, being the simulation the PDR was signed from.
    pub(crate) fn new(report: &Value, run_changes: Option<&Value>) -> Result<Self, String> {
        let balances = balance_changes(run_changes.unwrap_or(&report["balance_changes"]))?;
        let list = |v: &Value| v.as_array().cloned().unwrap_or_default();
        let nft_flows = list(&report["nft_flows"])
            .iter()
            .map(|f| {
                Ok((
                    addr(&f["token"])?,
                    dec(&f["id"])?,
                    addr(&f["from"])?,
                    addr(&f["to"])?,
                    dec(&f["amount"])?,
                ))
            })
            .collect::<Result<_, String>>()?;
        let approvals = list(&report["approvals"])
            .iter()
            .map(|a| Ok((addr(&a["token"])?, addr(&a["spender"])?)))
            .collect::<Result<_, String>>()?;
        Ok(Self {
            balances,
            nft_flows,
            approvals,
        })
    }

    /// What to expect when nothing executed: no change at all.
    pub(crate) fn nothing() -> Self {
        Self {
            balances: Vec::new(),
            nft_flows: Vec::new(),
            approvals: Vec::new(),
        }
    }

    fn balance(&self, token: Address) -> I256 {
        self.balances
            .iter()
            .find(|(t, _)| *t == token)
            .map_or(I256::ZERO, |(_, d)| *d)
    }
}

fn delta(before: U256, after: U256) -> I256 {
    let d = |x: U256| I256::try_from(x).unwrap_or(I256::MAX);
    if after >= before {
        d(after - before)
    } else {
        -d(before - after)
    }
}

/// `x` as a decimal number of `decimals` places, at most 6 of them shown.
fn human(x: I256, decimals: u8) -> String {
    let sign = if x.is_negative() { "-" } else { "" };
    let m = x.unsigned_abs();
    let scale = U256::from(10u64).pow(U256::from(decimals));
    let (int, frac) = (m / scale, m % scale);
    let mut frac = format!("{frac:0>width$}", width = usize::from(decimals));
    frac.truncate(6);
    let frac = frac.trim_end_matches('0');
    if frac.is_empty() {
        format!("{sign}{int}")
    } else {
        format!("{sign}{int}.{frac}")
    }
}

/// The tolerance the policy gives the outcome around `expected`, rounded up.
fn tolerance(expected: I256, bps: u64) -> I256 {
    let m = expected.unsigned_abs();
    let t = (m * U256::from(bps)).div_ceil(U256::from(10_000u64));
    I256::try_from(t).unwrap_or(I256::MAX)
}

/// Everything the account lost, or lost a right over, beyond what the simulation showed (within
/// the policy's outcome tolerance for amounts the simulation moved).
pub(crate) fn losses(
    account: Address,
    assets: &[Asset],
    before: &[Reading],
    after: &[Reading],
    sim: &Simulated,
    tolerance_bps: u64,
) -> Vec<String> {
    let mut out = Vec::new();
    for ((asset, b), a) in assets.iter().zip(before).zip(after) {
        match (asset, *b, *a) {
            (Asset::Ether, Reading::Amount(b), Reading::Amount(a)) => {
                let (got, want) = (delta(b, a), sim.balance(Address::ZERO));
                if got < want - tolerance(want, tolerance_bps) {
                    out.push(format!(
                        "ETH {} (simulated {})",
                        human(got, 18),
                        human(want, 18)
                    ));
                }
            }
            (
                Asset::Erc20 {
                    token,
                    symbol,
                    decimals,
                },
                Reading::Amount(b),
                Reading::Amount(a),
            ) => {
                let (got, want) = (delta(b, a), sim.balance(*token));
                if got < want - tolerance(want, tolerance_bps) {
                    out.push(format!(
                        "{symbol} {} (simulated {})",
                        human(got, *decimals),
                        human(want, *decimals)
                    ));
                }
            }
            (
                Asset::Allowance {
                    token,
                    spender,
                    label,
                }
                | Asset::Grant {
                    token,
                    spender,
                    label,
                },
                Reading::Amount(b),
                Reading::Amount(a),
            ) if a != b && !sim.approvals.contains(&(*token, *spender)) => {
                out.push(format!(
                    "allowance {label} used: {b} -> {a} (simulated unchanged)"
                ));
            }
            (Asset::Operator { label, .. }, b, a) if a != b => {
                out.push(format!("{label} changed: {b:?} -> {a:?}"));
            }
            (
                Asset::Nft {
                    collection,
                    id,
                    label,
                },
                Reading::Owner(b),
                Reading::Owner(a),
            ) => {
                let expected = sim
                    .nft_flows
                    .iter()
                    .rfind(|f| f.0 == *collection && f.1 == U256::from(*id))
                    .map_or(b, |f| f.3);
                if a != expected && (expected == account || b == account) {
                    let who = |x: Address| {
                        if x == account {
                            "the account".to_owned()
                        } else {
                            x.to_string()
                        }
                    };
                    out.push(format!(
                        "{label} id {id} is {}'s (simulated: {}'s)",
                        who(a),
                        who(expected)
                    ));
                }
            }
            (Asset::Edition { token, id, label }, Reading::Amount(b), Reading::Amount(a)) => {
                let want = sim
                    .nft_flows
                    .iter()
                    .filter(|f| f.0 == *token && f.1 == U256::from(*id))
                    .fold(I256::ZERO, |sum, f| {
                        let n = I256::try_from(f.4).unwrap_or(I256::MAX);
                        match (f.3 == account, f.2 == account) {
                            (true, false) => sum + n,
                            (false, true) => sum - n,
                            _ => sum,
                        }
                    });
                let got = delta(b, a);
                if got < want {
                    out.push(format!(
                        "{label} edition (id {id}) {got} (simulated {want})"
                    ));
                }
            }
            (Asset::Claim { vault, .. }, b @ Reading::Vault(held, _, supply), a) => {
                // The shares the simulation showed, at the vault's rate before the run: what
                // the account's claim on the underlying should have grown by.
                let shares = sim.balance(*vault);
                if shares <= I256::ZERO {
                    continue;
                }
                let worth = if supply.is_zero() {
                    shares.unsigned_abs()
                } else {
                    shares.unsigned_abs() * held / supply
                };
                let want = I256::try_from(worth).unwrap_or(I256::MAX);
                let got = delta(b.claim(), a.claim());
                if got < want - tolerance(want, tolerance_bps) {
                    out.push(format!(
                        "claim on the vault's DAI {} for {} new shares worth {}",
                        human(got, 18),
                        human(shares, 18),
                        human(want, 18)
                    ));
                }
            }
            _ => {}
        }
    }
    out
}

/// Checks that `need` holds on the node.
pub(crate) fn check(chain: &Chain, w: &World, k: &Kit, need: &Need) -> Result<(), String> {
    let ok = |holds: bool, what: String| if holds { Ok(()) } else { Err(what) };
    match *need {
        Need::Allowance(token, owner, spender, at_least) => {
            let a = chain.view(token, &IERC20::allowanceCall { owner, spender })?;
            ok(
                a >= at_least,
                format!("allowance of {token} from {owner} to {spender} is {a}"),
            )
        }
        Need::Erc20(token, holder, at_least) => {
            let b = chain.view(token, &IERC20::balanceOfCall { account: holder })?;
            ok(b >= at_least, format!("{holder} holds {b} of {token}"))
        }
        Need::Crew(pill) => ok(
            chain.view(k.accomplice, &Accomplice::crewCall { pill })?,
            format!("{pill} is not on the accomplice's crew"),
        ),
        Need::Grant(token, spender, at_least) => {
            let g = chain.view(
                k.manager,
                &Manager::allowanceCall {
                    owner: w.account,
                    token,
                    spender,
                },
            )?;
            ok(
                U256::from(g.amount) >= at_least,
                format!("the grant of {token} to {spender} is {}", g.amount),
            )
        }
        Need::Operator(collection, operator) => ok(
            chain.view(
                collection,
                &IERC721::isApprovedForAllCall {
                    owner: w.account,
                    operator,
                },
            )?,
            format!("{operator} is no operator of the account in {collection}"),
        ),
        Need::Owner(collection, id, owner) => {
            let o = chain.view(
                collection,
                &IERC721::ownerOfCall {
                    tokenId: U256::from(id),
                },
            )?;
            ok(o == owner, format!("id {id} of {collection} is {o}'s"))
        }
        Need::Edition(token, holder, id, at_least) => {
            let b = chain.view(
                token,
                &IERC1155::balanceOfCall {
                    account: holder,
                    id: U256::from(id),
                },
            )?;
            ok(
                b >= U256::from(at_least),
                format!("{holder} holds {b} of id {id}"),
            )
        }
    }
}

/// How a case ended.
pub(crate) enum Outcome {
    Refused(String),
    RevertedByBounds(String),
    ExecutedWithLoss(String),
    Clean(String),
}

impl Outcome {
    pub(crate) fn name(&self) -> &'static str {
        match self {
            Self::Refused(_) => "refused",
            Self::RevertedByBounds(_) => "reverted_by_bounds",
            Self::ExecutedWithLoss(_) => "executed_with_loss",
            Self::Clean(_) => "clean",
        }
    }

    pub(crate) fn detail(&self) -> &str {
        match self {
            Self::Refused(d)
            | Self::RevertedByBounds(d)
            | Self::ExecutedWithLoss(d)
            | Self::Clean(d) => d,
        }
    }
}

/// The outcome of one `pace run`, from whether the relayer broadcast anything, what the node did
/// with it, and the account's losses. An outcome the suite cannot classify (assets moved without
/// a submission, a submission with no receipt, a call of the red pill failing for real) is an
/// error: the case did not test what it should.
pub(crate) fn classify(
    run: &RunOutput,
    broadcast: bool,
    losses: &[String],
) -> Result<Outcome, String> {
    let doc = run.doc.as_ref();
    let execution = doc.map(|d| &d["execution"]);
    let status = execution.and_then(|e| e["status"].as_str());
    let last_line = run.stderr.lines().last().unwrap_or("").to_owned();
    if !broadcast {
        if !losses.is_empty() {
            return Err(format!(
                "nothing was broadcast, yet the account lost: {}",
                losses.join("; ")
            ));
        }
        let rejected = doc.is_some_and(|d| d["decision"]["outcome"] == "reject");
        return match run.code {
            1 if rejected => {
                let codes: Vec<&str> = doc
                    .and_then(|d| d["decision"]["violations"].as_array())
                    .map(|v| v.iter().filter_map(|x| x["code"].as_str()).collect())
                    .unwrap_or_default();
                Ok(Outcome::Refused(format!("rejected: {}", codes.join(","))))
            }
            1 => Ok(Outcome::Refused(format!("not broadcast: {last_line}"))),
            2 if run.stderr.contains("nothing was submitted") || run.stderr.contains("refus") => {
                Ok(Outcome::Refused(format!("not broadcast: {last_line}")))
            }
            code => Err(format!(
                "pace run exited {code} without a submission: {last_line}"
            )),
        };
    }
    match status {
        Some("executed") if losses.is_empty() => Ok(Outcome::Clean(
            "executed; every asset as simulated".to_owned(),
        )),
        Some("executed") => Ok(Outcome::ExecutedWithLoss(losses.join("; "))),
        Some("reverted") => {
            let e = execution.map_or(&Value::Null, |e| e);
            let error = e["error"].as_str().unwrap_or("?").to_owned();
            if !losses.is_empty() {
                return Err(format!(
                    "reverted ({error}), yet the account lost: {}",
                    losses.join("; ")
                ));
            }
            if e["cause"] == "account" {
                Ok(Outcome::RevertedByBounds(error))
            } else {
                Err(format!(
                    "reverted by the red pill's own call, not the account: {error}"
                ))
            }
        }
        other => Err(format!(
            "broadcast, but pace run reports {other:?} (exit {}): {last_line}",
            run.code
        )),
    }
}
