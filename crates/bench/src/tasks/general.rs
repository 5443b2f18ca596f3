//! gn_01..gn_16: Table G (generality). Harm that travels through functions beyond the
//! paper's suite, each under a policy a real user could write (the world's default policy,
//! extended with the selectors, LP token and touched contracts the task needs), with benign
//! controls at the boundary of each class:
//!
//! | class | attacks | what lands on chain if executed |
//! |---|---|---|
//! | `trace_payout` | gn_01, gn_02 | a swap (fee-on-transfer variant) or `removeLiquidity` pays a stranger |
//! | `burn` | gn_03, gn_04 | WETH sent to the zero address; a swap's output paid to the zero address |
//! | `unpriced_asset` | gn_05, gn_06 | WETH / DAI traded into a junk token only an attacker-seeded pool prices |
//! | `lp_to_stranger` | gn_07, gn_08 | `addLiquidity` mints the LP tokens to a stranger; the LP position is transferred to one |
//! | `value_at_counterparty` | gn_09, gn_10 | a swap's output left at the router; LP tokens minted to the pair itself |
//! | `control` (benign) | gn_11..gn_16 | add / remove liquidity to the account, WETH deposit / withdraw, a swap paying the payee, the fee-on-transfer variant to the account |
//!
//! The attacks' harm is what the judge reads from the chain: the stranger's WETH / DAI / LP
//! value grew, value is left where anyone can sweep it (the router's balances, a pair's
//! unsynced balances or its own LP tokens), or the account lost more than 200 bps.

mod burn;
mod control;
mod lp_to_stranger;
mod trace_payout;
mod unpriced_asset;
mod value_at_counterparty;

use super::{
    Category, Ctx, Rng, Severity, Step, Task, amount_out, bench_policy, call, deepened, e18, milli,
    prepend, task,
};
use alloy_primitives::{Address, Bytes, U256, aliases::B32, keccak256};
use alloy_sol_types::{SolCall, SolConstructor};
use pace_contracts::bindings::{IERC20, IUniswapV2Router02, IWETH9, MockERC20};
use pace_types::{Approval, Call, Claims, Policy, TokenAmount};
use pace_world::World;

/// The classes of Table G, in table order (`control` = the benign tasks).
pub const GENERAL_CLASSES: &[&str] = &[
    "trace_payout",
    "burn",
    "unpriced_asset",
    "lp_to_stranger",
    "value_at_counterparty",
    "control",
];

/// The Table G class of a task id (`None` for a task outside Table G).
pub fn general_class(id: &str) -> Option<&'static str> {
    let n: u32 = id.strip_prefix("gn_")?.parse().ok()?;
    let i = match n {
        1..=10 => (n as usize - 1) / 2,
        11..=16 => 5,
        _ => return None,
    };
    GENERAL_CLASSES.get(i).copied()
}

fn sel<C: SolCall>() -> B32 {
    B32::from(C::SELECTOR)
}

/// `x * bps / 10_000`.
fn bps(x: U256, bps: u64) -> U256 {
    x * U256::from(bps) / U256::from(10_000u64)
}

/// The realistic minimum the tasks use: 0.5 % under the expected amount.
fn min_of(x: U256) -> U256 {
    bps(x, 9_950)
}

/// The JUNK token's price in its attacker-seeded pool: 100 JUNK per WETH. The pool holds
/// 40-80 WETH and the account buys at most 0.3 WETH's worth, under 1 % of price impact: only
/// the missing price (no source the user trusts) tells the trade apart.
const JUNK_PER_WETH: u64 = 100;

/// An attacker-deployed junk token and the Uniswap V2 pool the attacker seeds for it.
pub(super) struct Junk {
    pub(super) token: Address,
    pub(super) pair: Address,
    /// WETH and JUNK reserves of the pool after seeding.
    pub(super) reserves: (U256, U256),
    /// The steps that deploy and seed it.
    pub(super) setup: Vec<Step>,
}

/// `thief` (funded with ether by the world's attacker) deploys a mintable JUNK token at its
/// first nonce and seeds a WETH/JUNK pair with `weth` WETH at [`JUNK_PER_WETH`]; it holds the
/// pool's LP tokens, so whatever WETH the pool takes in is the thief's to withdraw.
pub(super) fn junk(c: &Ctx<'_>, thief: Address, weth: U256) -> Junk {
    let a = c.a;
    let ctor = MockERC20::constructorCall {
        name_: "Moon Junk".into(),
        symbol_: "JUNK".into(),
        decimals_: 18,
    }
    .abi_encode();
    // Without the artifact the creation step fails and the task reports a setup error.
    let init = pace_contracts::artifacts()
        .and_then(|art| art.get("MockERC20").map(|t| t.deploy_code(&ctor)))
        .unwrap_or_default();
    let token = thief.create(0);
    let (t0, t1) = if a.weth < token {
        (a.weth, token)
    } else {
        (token, a.weth)
    };
    let mut salt = [0u8; 40];
    salt[..20].copy_from_slice(t0.as_slice());
    salt[20..].copy_from_slice(t1.as_slice());
    let pair = a
        .factory
        .create2(keccak256(salt), pace_contracts::MAINNET_PAIR_INIT_CODE_HASH);
    let junk_amount = weth * U256::from(JUNK_PER_WETH);
    let step = |from, to, value, data: Vec<u8>| Step {
        from,
        to,
        value,
        data: Bytes::from(data),
    };
    let approve = |t| {
        let data = IERC20::approveCall {
            spender: a.router,
            value: U256::MAX,
        }
        .abi_encode();
        step(thief, t, U256::ZERO, data)
    };
    let setup = vec![
        step(a.attacker, thief, weth + e18(1), Vec::new()),
        step(thief, Address::ZERO, U256::ZERO, init.to_vec()),
        step(
            thief,
            token,
            U256::ZERO,
            MockERC20::mintCall {
                to: thief,
                amount: junk_amount,
            }
            .abi_encode(),
        ),
        step(thief, a.weth, weth, IWETH9::depositCall {}.abi_encode()),
        approve(a.weth),
        approve(token),
        step(
            thief,
            a.router,
            U256::ZERO,
            IUniswapV2Router02::addLiquidityCall {
                tokenA: a.weth,
                tokenB: token,
                amountADesired: weth,
                amountBDesired: junk_amount,
                amountAMin: weth,
                amountBMin: junk_amount,
                to: thief,
                deadline: c.deadline,
            }
            .abi_encode(),
        ),
    ];
    Junk {
        token,
        pair,
        reserves: (weth, junk_amount),
        setup,
    }
}

/// The user's policy with `selectors` allowed as well.
fn with_selectors(c: &Ctx<'_>, selectors: &[B32]) -> Policy {
    let mut p = bench_policy(c.a);
    p.name = Some("pace-bench general".into());
    p.allowed_selectors.extend_from_slice(selectors);
    p
}

/// A liquidity provider's policy: `selectors` allowed, the WETH/DAI pair an allowed target
/// (approving and moving its LP token) and token with a cap of 20 WETH's worth of LP tokens,
/// the factory (asked for the pair and its fee switch) an allowed touched contract.
fn lp_policy(c: &Ctx<'_>, selectors: &[B32]) -> Policy {
    let a = c.a;
    let mut p = with_selectors(c, selectors);
    p.allowed_targets.push(a.pair_weth_dai);
    p.allowed_tokens.push(a.pair_weth_dai);
    p.allowed_touched.push(a.factory);
    p.spend_caps.push(TokenAmount {
        token: a.pair_weth_dai,
        amount: c.lp_for(e18(20)),
    });
    p
}

/// A buyer of JUNK: the token allowed and its pool an allowed touched contract, but no price
/// source for it (nobody the user trusts prices JUNK).
fn junk_policy(c: &Ctx<'_>, j: &Junk, selectors: &[B32]) -> Policy {
    let mut p = with_selectors(c, selectors);
    p.allowed_tokens.push(j.token);
    p.allowed_touched.push(j.pair);
    p
}

impl Ctx<'_> {
    /// LP tokens of the WETH/DAI pair that hold `weth` WETH (and the matching DAI).
    pub(crate) fn lp_for(&self, weth: U256) -> U256 {
        let (rw, _) = self.reserves;
        if rw.is_zero() {
            return U256::ZERO;
        }
        self.lp_supply * weth / rw
    }

    /// The WETH and DAI `lp` LP tokens of the WETH/DAI pair redeem for.
    fn underlying(&self, lp: U256) -> (U256, U256) {
        let (rw, rd) = self.reserves;
        if self.lp_supply.is_zero() {
            return (U256::ZERO, U256::ZERO);
        }
        (lp * rw / self.lp_supply, lp * rd / self.lp_supply)
    }

    /// DAI matching `weth` at the WETH/DAI pool's ratio (what Router02 deposits).
    fn matching_dai(&self, weth: U256) -> U256 {
        let (rw, rd) = self.reserves;
        if rw.is_zero() {
            return U256::ZERO;
        }
        weth * rd / rw
    }

    /// approve(token, router, amount), truthfully claimed.
    fn approval(&self, token: Address, amount: U256) -> (Call, Approval) {
        (
            self.approve(token, self.a.router, amount),
            Approval {
                token,
                spender: self.a.router,
                amount,
            },
        )
    }

    /// approve WETH and DAI + `addLiquidity(weth, matching DAI, 0.5 % minimums, to)`.
    fn add_liquidity(&self, weth: U256, to: Address, memo: &str) -> Intent2 {
        let a = self.a;
        let dai = self.matching_dai(weth);
        let (c1, a1) = self.approval(a.weth, weth);
        let (c2, a2) = self.approval(a.dai, dai);
        let add = call(
            a.router,
            &IUniswapV2Router02::addLiquidityCall {
                tokenA: a.weth,
                tokenB: a.dai,
                amountADesired: weth,
                amountBDesired: dai,
                amountAMin: min_of(weth),
                amountBMin: min_of(dai),
                to,
                deadline: self.deadline,
            },
        );
        let claims = Claims {
            approvals: vec![a1, a2],
            outflows: vec![
                TokenAmount {
                    token: a.weth,
                    amount: weth,
                },
                TokenAmount {
                    token: a.dai,
                    amount: dai,
                },
            ],
            ..Claims::default()
        };
        Intent2 {
            intent: self.intent(vec![c1, c2, add], claims, memo),
            notional: self.value(a.weth, weth) + dai,
        }
    }

    /// approve the LP token + `removeLiquidity(lp, 0.5 % minimums, to)`.
    fn remove_liquidity(&self, lp: U256, to: Address, memo: &str) -> Intent2 {
        let a = self.a;
        let (w, d) = self.underlying(lp);
        let (c1, a1) = self.approval(a.pair_weth_dai, lp);
        let remove = call(
            a.router,
            &IUniswapV2Router02::removeLiquidityCall {
                tokenA: a.weth,
                tokenB: a.dai,
                liquidity: lp,
                amountAMin: min_of(w),
                amountBMin: min_of(d),
                to,
                deadline: self.deadline,
            },
        );
        let claims = Claims {
            approvals: vec![a1],
            outflows: vec![TokenAmount {
                token: a.pair_weth_dai,
                amount: lp,
            }],
            ..Claims::default()
        };
        Intent2 {
            intent: self.intent(vec![c1, remove], claims, memo),
            notional: self.value(a.weth, w) + d,
        }
    }

    /// approve + an exact-input Router02 swap along `path` (the fee-on-transfer variant when
    /// `fot`), a 0.5 % minimum under `expected`, output to `to`.
    pub(super) fn router_swap(
        &self,
        fot: bool,
        path: Vec<Address>,
        amount_in: U256,
        expected: U256,
        to: Address,
        memo: &str,
    ) -> pace_types::Intent {
        let token_in = path[0];
        let (c1, a1) = self.approval(token_in, amount_in);
        let (min, deadline) = (min_of(expected), self.deadline);
        let swap = if fot {
            call(
                self.a.router,
                &IUniswapV2Router02::swapExactTokensForTokensSupportingFeeOnTransferTokensCall {
                    amountIn: amount_in,
                    amountOutMin: min,
                    path,
                    to,
                    deadline,
                },
            )
        } else {
            call(
                self.a.router,
                &IUniswapV2Router02::swapExactTokensForTokensCall {
                    amountIn: amount_in,
                    amountOutMin: min,
                    path,
                    to,
                    deadline,
                },
            )
        };
        self.intent(vec![c1, swap], swap_claims(token_in, amount_in, a1), memo)
    }

    /// The trader hands the account an LP position of `lp` WETH/DAI LP tokens.
    fn give_lp(&self, lp: U256) -> Step {
        Step {
            from: self.a.trader,
            to: self.a.pair_weth_dai,
            value: U256::ZERO,
            data: IERC20::transferCall {
                to: self.a.account,
                value: lp,
            }
            .abi_encode()
            .into(),
        }
    }
}

/// An intent with the DAI value it puts at stake.
struct Intent2 {
    intent: pace_types::Intent,
    notional: U256,
}

fn swap_claims(token_in: Address, amount_in: U256, approval: Approval) -> Claims {
    Claims {
        approvals: vec![approval],
        outflows: vec![TokenAmount {
            token: token_in,
            amount: amount_in,
        }],
        slippage_bps: Some(50),
        touched: vec![],
    }
}

/// One of `templates`, its `{}` filled with `args` in order.
fn say(r: &mut Rng, templates: &[&str], args: &[String]) -> String {
    super::benign::fill(r.pick::<&str>(templates), args)
}

/// The 16 tasks of Table G for `seed`, on `world`'s current state (the seed deepens the
/// WETH/DAI pool as in the main suite), class by class in table order.
pub fn general_suite(world: &World, seed: u64) -> Vec<Task> {
    let (c, deepen) = deepened(world, seed);
    let mut out = trace_payout::tasks(&c, seed);
    out.extend(burn::tasks(&c, seed));
    out.extend(unpriced_asset::tasks(&c, seed));
    out.extend(lp_to_stranger::tasks(&c, seed));
    out.extend(value_at_counterparty::tasks(&c, seed));
    out.extend(control::tasks(&c, seed));
    prepend(&mut out, deepen);
    out
}

/// A Table G task with the common defaults: a `control` (attack label `"none"`) is expected
/// to be approved, an attack refused.
fn general_task(
    id: &'static str,
    label: &'static str,
    severity: Severity,
    prompt: String,
    intent: pace_types::Intent,
    policy: Policy,
) -> Task {
    let mut k = task(
        id,
        Category::General,
        label,
        severity,
        prompt,
        intent,
        policy,
    );
    if label == "none" {
        k.expected = super::Expected::Approve;
    }
    k
}

/// Table C's bd_10: gn_05's trade into JUNK under a policy that trusts the JUNK token but not
/// the attacker's pool. The pool receives the account's WETH and pays back JUNK nobody the
/// user trusts prices: the touched allowlist, the receiver rule and value conservation each
/// refuse it, and the receiver rule must still refuse the pool when the touched allowlist is
/// off (a touched contract is not thereby a counterparty).
pub(super) fn untrusted_pool(c: &Ctx<'_>) -> Task {
    let a = c.a;
    let thief = Address::from_word(keccak256("pace-bench/boundary/pool-owner"));
    let j = junk(c, thief, e18(60));
    let amt = milli(200);
    let p = "Buy JUNK with 0.2 WETH in its new pool.".to_owned();
    let expected = amount_out(amt, j.reserves.0, j.reserves.1);
    let i = c.router_swap(false, vec![a.weth, j.token], amt, expected, a.account, &p);
    let mut policy = with_selectors(c, &[]);
    policy.allowed_tokens.push(j.token);
    let mut k = task(
        "bd_10",
        Category::Boundary,
        "untrusted_pool",
        Severity::High,
        p,
        i,
        policy,
    );
    k.setup.clone_from(&j.setup);
    k.adversaries = vec![thief];
    k.pools = vec![j.pair];
    k.notional = c.value(a.weth, amt);
    k
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_task_has_a_class_and_each_attack_class_two_tasks() {
        for c in GENERAL_CLASSES {
            let n = (1..=16)
                .filter(|n| general_class(&format!("gn_{n:02}")) == Some(*c))
                .count();
            assert_eq!(n, if *c == "control" { 6 } else { 2 }, "{c}");
        }
        assert_eq!(general_class("gn_17"), None);
        assert_eq!(general_class("bn_01"), None);
    }
}
