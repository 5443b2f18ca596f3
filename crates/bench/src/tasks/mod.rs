//! The task suite: 40 tasks in five categories of eight, generated from a seed, and the
//! generality suite (Table G): 16 tasks over functions outside the paper's suite.
//!
//! Task ids, categories and expected decisions are fixed; the seed varies wording, amounts,
//! attacker budgets and addresses, slippage, injection strings and the simulation's age.

mod adaptive;
mod attacks;
mod benign;
mod boundary;
mod defi;
mod general;
mod limits;
mod mev;
mod per_check;

pub use adaptive::{adaptive_suite, conservative_policy};
pub use general::{GENERAL_CLASSES, general_class, general_suite};

use alloy_primitives::{Address, B256, Bytes, U256, keccak256};
use alloy_sol_types::SolCall;
use pace_contracts::bindings::{IERC20, IUniswapV2Router02, MockLendingPool};
use pace_types::{Approval, Call, Claims, Intent, Policy, TokenAmount};
use pace_world::{Addresses, World, default_policy};
use serde::Serialize;

/// The five task categories of section 6.2.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Category {
    /// Benign utility tasks, expected to be approved.
    Benign,
    /// Prompt injection landing as a harmful intent.
    PromptInjection,
    /// Malicious or unsafe contracts.
    UnsafeContract,
    /// DeFi exploit patterns, including post-simulation attacks.
    DefiExploit,
    /// MEV and slippage attacks.
    Mev,
    /// Section 7.7: evasion attacks (adaptive adversary).
    Evasion,
    /// Section 7.7: policy-valid but harmful transactions.
    PolicyValidHarm,
    /// Harmful transactions the paper's checks admit and PACE-rs's additions (counterparties,
    /// swap recipient) block: where full mode goes past the paper.
    PaperGap,
    /// Table G (generality): value leaving through functions beyond the paper's suite (payouts
    /// in the trace, burns, unpriced assets, LP tokens, value left at a counterparty), with
    /// benign controls at their boundary.
    General,
    /// Table C: each numeric check exactly at its limit (benign) and one unit past it.
    Boundary,
    /// Table D: a task for each check no other task has as its barrier (scope, token
    /// allowlist, simulation required, future timestamp, budgets, simulation success) and one
    /// where only the PDR's on-chain outcome bounds stand.
    PerCheck,
}

impl Category {
    /// The snake-case name.
    pub const fn name(self) -> &'static str {
        match self {
            Self::Benign => "benign",
            Self::PromptInjection => "prompt_injection",
            Self::UnsafeContract => "unsafe_contract",
            Self::DefiExploit => "defi_exploit",
            Self::Mev => "mev_slippage",
            Self::Evasion => "evasion",
            Self::PolicyValidHarm => "policy_valid_harm",
            Self::PaperGap => "paper_gap",
            Self::General => "general",
            Self::Boundary => "boundary",
            Self::PerCheck => "per_check",
        }
    }
}

/// What a safe agent does with the task.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Expected {
    /// Approve and execute.
    Approve,
    /// Reject.
    Reject,
}

/// How bad the attack is if it lands.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Severity {
    /// Benign.
    None,
    /// Small loss.
    Low,
    /// Bounded loss.
    Medium,
    /// Large loss.
    High,
    /// Loss of the account's funds or position.
    Critical,
}

/// A state change by someone other than the user (the attacker, the front-runner, the market).
/// It must succeed: a reverting step is a setup error.
#[derive(Clone, Debug, Serialize)]
pub struct Step {
    /// Sender.
    pub from: Address,
    /// Target; the zero address makes the step a contract creation with `data` as init code
    /// (at `from.create(nonce)`).
    pub to: Address,
    /// Ether sent.
    pub value: U256,
    /// Calldata.
    pub data: Bytes,
}

/// The adversary's mempool move between the decision and the execution.
#[derive(Clone, Debug, Serialize)]
pub enum Mempool {
    /// Nothing happens.
    Quiet,
    /// A front-runner buys ahead of the victim's swap, as far as the victim's minimum output
    /// and its budget allow (the sandwich's first leg), with `budget` of the swap's input token.
    FrontRun {
        /// The front-runner's budget in the victim's input token.
        budget: U256,
    },
}

/// The simulation report the verifier is handed: the simulator's own, none, or one whose
/// timestamp was moved (a report that comes from the agent, not from the pipeline).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Presented {
    /// The report of the simulation.
    Simulated,
    /// No report: the verifier decides without one (signing still uses the simulation).
    Withheld,
    /// The report with its timestamp moved to this many seconds after the decision time.
    DatedAhead(u64),
}

/// One benchmark task.
#[derive(Clone, Debug, Serialize)]
pub struct Task {
    /// Fixed id, e.g. `bn_01`.
    pub id: &'static str,
    /// Category.
    pub category: Category,
    /// Expected decision.
    pub expected: Expected,
    /// Attack label (`none` for benign tasks).
    pub attack: &'static str,
    /// Severity.
    pub severity: Severity,
    /// The text the agent was given (user request plus whatever content it read).
    pub prompt: String,
    /// The intent the agent proposes (what is simulated and judged).
    pub intent: Intent,
    /// The user's policy.
    pub policy: Policy,
    /// State changes before the simulation (the scenario's market).
    pub setup: Vec<Step>,
    /// Seconds between the simulation and the decision.
    pub sim_age_secs: u64,
    /// State changes between the simulation and the decision (only for stale simulations).
    pub drift: Vec<Step>,
    /// What the adversary does between the decision and the execution.
    pub mempool: Mempool,
    /// The calls actually submitted, when they differ from the simulated intent.
    pub submitted: Option<Vec<Call>>,
    /// Attacker-controlled addresses whose gains make an execution unsafe.
    pub adversaries: Vec<Address>,
    /// Uniswap V2 pairs, besides the world's, whose LP tokens the judge values (by their WETH,
    /// DAI and USDC reserves) and whose skimmable balances it watches.
    pub pools: Vec<Address>,
    /// DAI value (18 decimals) the user means to pay away (transfers to payees).
    pub intended_outflow: U256,
    /// DAI value (18 decimals) put at stake, the denominator of the user-loss bps.
    pub notional: U256,
    /// How many times the (identical) transaction is submitted in a row (the multi-leg drain).
    pub repeat: u32,
    /// The report the verifier is handed.
    pub presented: Presented,
}

impl Task {
    /// Whether the task is an attack (expected to be rejected).
    pub fn is_attack(&self) -> bool {
        self.expected == Expected::Reject
    }

    /// The intent whose bytes are submitted for execution.
    pub fn submitted_intent(&self) -> Intent {
        let mut i = self.intent.clone();
        if let Some(calls) = &self.submitted {
            i.calls.clone_from(calls);
        }
        i
    }
}

/// A deterministic pseudo-random stream (splitmix64) per (seed, task).
#[derive(Clone, Debug)]
pub(crate) struct Rng(u64);

impl Rng {
    pub(crate) fn new(seed: u64, id: &str) -> Self {
        let h = keccak256(format!("pace-bench/{seed}/{id}"));
        Self(u64::from_be_bytes(h[..8].try_into().unwrap_or([0; 8])))
    }

    pub(crate) fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// Uniform in `lo..=hi`.
    pub(crate) fn range(&mut self, lo: u64, hi: u64) -> u64 {
        lo + self.next() % (hi - lo + 1)
    }

    pub(crate) fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[(self.next() % items.len() as u64) as usize]
    }

    /// A fresh address (a new attacker wallet per seed).
    pub(crate) fn address(&mut self, label: &str) -> Address {
        Address::from_word(keccak256(format!("pace-bench/{label}/{}", self.next())))
    }
}

/// The user's regular payee (allowed counterparty in the bench policy).
pub fn payee() -> Address {
    Address::from_word(keccak256("pace-bench/payee"))
}

/// The bench's base policy: the world's default policy plus the user's payee.
pub fn bench_policy(a: &Addresses) -> Policy {
    let mut p = default_policy(a);
    p.name = Some("pace-bench default".into());
    p.allowed_recipients.push(payee());
    p
}

/// Everything a task builder needs.
pub(crate) struct Ctx<'a> {
    pub(crate) a: &'a Addresses,
    pub(crate) chain_id: u64,
    pub(crate) deadline: U256,
    /// WETH and DAI reserves of the WETH/DAI pair.
    pub(crate) reserves: (U256, U256),
    /// Total supply of the WETH/DAI pair's LP token.
    pub(crate) lp_supply: U256,
    /// The account's position in the lending pool.
    pub(crate) lending: Lending,
}

/// The account's lending position and what its health factor is computed from, read from the
/// chain.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Lending {
    /// WETH deposited as collateral.
    pub(crate) collateral: U256,
    /// DAI owed.
    pub(crate) debt: U256,
    /// The oracle's WAD price of one WETH in DAI.
    pub(crate) price: U256,
    /// The pool's liquidation threshold, bps.
    pub(crate) threshold_bps: U256,
}

/// Claims of a single outflow of `amount` of `token`, nothing else.
pub(crate) fn outflow_claim(token: Address, amount: U256) -> Claims {
    Claims {
        outflows: vec![TokenAmount { token, amount }],
        ..Claims::default()
    }
}

pub(crate) use pace_types::units::ether as e18;

/// `n / 1000` tokens of 18 decimals.
pub(crate) fn milli(n: u64) -> U256 {
    U256::from(n) * U256::from(10u64).pow(U256::from(15u64))
}

pub(crate) fn call<C: SolCall>(target: Address, c: &C) -> Call {
    Call {
        target,
        value: U256::ZERO,
        data: Bytes::from(c.abi_encode()),
    }
}

impl Ctx<'_> {
    pub(crate) fn intent(&self, calls: Vec<Call>, claimed: Claims, memo: &str) -> Intent {
        Intent {
            chain_id: self.chain_id,
            account: self.a.account,
            calls,
            claimed,
            metadata: [("task".to_owned(), memo.to_owned())].into_iter().collect(),
        }
    }

    /// Uniswap V2 quote for `amount_in` of `token_in` against the WETH/DAI pair.
    pub(crate) fn quote(&self, token_in: Address, amount_in: U256) -> U256 {
        let (rw, rd) = self.reserves;
        let (rin, rout) = if token_in == self.a.weth {
            (rw, rd)
        } else {
            (rd, rw)
        };
        amount_out(amount_in, rin, rout)
    }

    pub(crate) fn approve(&self, token: Address, spender: Address, amount: U256) -> Call {
        call(
            token,
            &IERC20::approveCall {
                spender,
                value: amount,
            },
        )
    }

    pub(crate) fn transfer(&self, token: Address, to: Address, amount: U256) -> Call {
        call(token, &IERC20::transferCall { to, value: amount })
    }

    pub(crate) fn swap(
        &self,
        router: Address,
        token_in: Address,
        amount_in: U256,
        min_out: U256,
        to: Address,
    ) -> Call {
        let path = if token_in == self.a.weth {
            vec![self.a.weth, self.a.dai]
        } else {
            vec![self.a.dai, self.a.weth]
        };
        call(
            router,
            &IUniswapV2Router02::swapExactTokensForTokensCall {
                amountIn: amount_in,
                amountOutMin: min_out,
                path,
                to,
                deadline: self.deadline,
            },
        )
    }

    /// approve(router, amount_in) + swap with `tolerance_bps` below the quote, claimed as
    /// `claimed_bps`.
    pub(crate) fn swap_intent(
        &self,
        token_in: Address,
        amount_in: U256,
        tolerance_bps: u64,
        claimed_bps: u32,
        to: Address,
        memo: &str,
    ) -> Intent {
        let quote = self.quote(token_in, amount_in);
        let min_out = quote * U256::from(10_000 - tolerance_bps.min(10_000)) / U256::from(10_000);
        self.swap_via(
            self.a.router,
            token_in,
            amount_in,
            min_out,
            claimed_bps,
            to,
            memo,
        )
    }

    /// approve(`router`, amount_in) + swap through `router` with an explicit minimum output,
    /// the approval and outflow claimed truthfully and the slippage claimed as `claimed_bps`.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn swap_via(
        &self,
        router: Address,
        token_in: Address,
        amount_in: U256,
        min_out: U256,
        claimed_bps: u32,
        to: Address,
        memo: &str,
    ) -> Intent {
        let calls = vec![
            self.approve(token_in, router, amount_in),
            self.swap(router, token_in, amount_in, min_out, to),
        ];
        let claims = Claims {
            approvals: vec![Approval {
                token: token_in,
                spender: router,
                amount: amount_in,
            }],
            outflows: vec![TokenAmount {
                token: token_in,
                amount: amount_in,
            }],
            slippage_bps: Some(claimed_bps),
            touched: vec![],
        };
        self.intent(calls, claims, memo)
    }

    pub(crate) fn pool<C: SolCall>(&self, c: &C) -> Call {
        call(self.a.lending_pool, c)
    }

    pub(crate) fn borrow(&self, amount: U256) -> Call {
        self.pool(&MockLendingPool::borrowCall { amount })
    }

    /// DAI value of `amount` of `token` at the reference price (1,000 DAI per WETH).
    pub(crate) fn value(&self, token: Address, amount: U256) -> U256 {
        if token == self.a.weth || token == Address::ZERO {
            amount * U256::from(1_000u64)
        } else if token == self.a.usdc {
            amount * U256::from(10u64).pow(U256::from(12u64))
        } else {
            amount
        }
    }
}

/// Uniswap V2 `getAmountOut` (0.3 % fee).
pub(crate) fn amount_out(amount_in: U256, reserve_in: U256, reserve_out: U256) -> U256 {
    if amount_in.is_zero() {
        return U256::ZERO;
    }
    let with_fee = amount_in * U256::from(997u64);
    with_fee * reserve_out / (reserve_in * U256::from(1_000u64) + with_fee)
}

/// A task with the common defaults filled in.
pub(crate) fn task(
    id: &'static str,
    category: Category,
    attack: &'static str,
    severity: Severity,
    prompt: String,
    intent: Intent,
    policy: Policy,
) -> Task {
    let expected = if category == Category::Benign || category == Category::PolicyValidHarm {
        Expected::Approve
    } else {
        Expected::Reject
    };
    Task {
        id,
        category,
        expected,
        attack,
        severity,
        prompt,
        intent,
        policy,
        setup: Vec::new(),
        sim_age_secs: 1,
        drift: Vec::new(),
        mempool: Mempool::Quiet,
        submitted: None,
        adversaries: Vec::new(),
        pools: Vec::new(),
        intended_outflow: U256::ZERO,
        notional: e18(1_000),
        repeat: 1,
        presented: Presented::Simulated,
    }
}

/// The 40 tasks of `seed`, on `world`'s current state.
pub fn suite(world: &World, seed: u64) -> Vec<Task> {
    let (ctx, deepen) = deepened(world, seed);
    let mut tasks = benign::tasks(&ctx, seed);
    tasks.extend(attacks::injection(&ctx, seed));
    tasks.extend(attacks::contracts(&ctx, seed));
    tasks.extend(defi::tasks(&ctx, seed));
    tasks.extend(mev::tasks(&ctx, seed));
    prepend(&mut tasks, deepen);
    tasks
}

/// Table C: the boundary tasks (the same for every seed), on `world`'s current state.
pub fn boundary_suite(world: &World) -> Vec<Task> {
    boundary::tasks(&context(world))
}

/// Table D: the per-check tasks (the same for every seed), on `world`'s current state. The
/// scope tasks need the world's second account ([`World::add_second_account`]).
pub fn per_check_suite(world: &World) -> Vec<Task> {
    per_check::tasks(&context(world))
}

/// Puts the seed's pool deepening before every task's own setup.
pub(crate) fn prepend(tasks: &mut [Task], deepen: Option<Step>) {
    if let Some(deepen) = deepen {
        for task in tasks {
            task.setup.insert(0, deepen.clone());
        }
    }
}

/// The context of `seed`: the seed deepens the WETH/DAI pool by 0-90 % at the same price (the
/// trader adds liquidity before each task's simulation), so quotes, price impact and
/// front-run sizes vary with it. Router02 adds exactly `depth` tenths of each reserve (the
/// ratio is exact). Returns the deepened context and the step that deepens (none for depth 0).
pub(crate) fn deepened(world: &World, seed: u64) -> (Ctx<'_>, Option<Step>) {
    let base = context(world);
    let depth = U256::from(seed % 10);
    let (rw, rd) = base.reserves;
    let (add_w, add_d) = (
        rw * depth / U256::from(10u64),
        rd * depth / U256::from(10u64),
    );
    let minted = if rw.is_zero() {
        U256::ZERO
    } else {
        base.lp_supply * add_w / rw
    };
    let ctx = Ctx {
        reserves: (rw + add_w, rd + add_d),
        lp_supply: base.lp_supply + minted,
        ..base
    };
    let a = ctx.a;
    let deepen = (!depth.is_zero()).then(|| Step {
        from: a.trader,
        to: a.router,
        value: U256::ZERO,
        data: IUniswapV2Router02::addLiquidityCall {
            tokenA: a.weth,
            tokenB: a.dai,
            amountADesired: add_w,
            amountBDesired: add_d,
            amountAMin: add_w,
            amountBMin: add_d,
            to: a.trader,
            deadline: ctx.deadline,
        }
        .abi_encode()
        .into(),
    });
    (ctx, deepen)
}

pub(crate) fn context(world: &World) -> Ctx<'_> {
    use pace_contracts::bindings::IUniswapV2Pair;
    let a = &world.addrs;
    let reserves = world
        .evm
        .view_sol(a.pair_weth_dai, &IUniswapV2Pair::getReservesCall {})
        .map(|r| {
            let (r0, r1) = (U256::from(r.reserve0), U256::from(r.reserve1));
            if a.weth < a.dai { (r0, r1) } else { (r1, r0) }
        })
        .unwrap_or_default();
    let lp_supply = world
        .evm
        .view_sol(a.pair_weth_dai, &IUniswapV2Pair::totalSupplyCall {})
        .unwrap_or_default();
    Ctx {
        a,
        chain_id: world.evm.chain_id(),
        deadline: world.deadline(),
        reserves,
        lp_supply,
        lending: lending(world),
    }
}

/// The account's lending position on `world`'s current state.
fn lending(world: &World) -> Lending {
    let (a, evm) = (&world.addrs, &world.evm);
    let pool = a.lending_pool;
    Lending {
        collateral: evm
            .view_sol(pool, &MockLendingPool::collateralOfCall { user: a.account })
            .unwrap_or_default(),
        debt: evm
            .view_sol(pool, &MockLendingPool::debtOfCall { user: a.account })
            .unwrap_or_default(),
        price: evm
            .view_sol(
                a.oracle,
                &pace_contracts::bindings::MockOracle::priceCall {},
            )
            .unwrap_or_default(),
        threshold_bps: evm
            .view_sol(pool, &MockLendingPool::LIQUIDATION_THRESHOLD_BPSCall {})
            .unwrap_or_default(),
    }
}

/// A fixed 32-byte label hash (used to name things in exported files).
pub fn label(s: &str) -> B256 {
    keccak256(s)
}
