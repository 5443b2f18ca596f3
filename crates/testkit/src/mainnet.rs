//! Realistic fixtures without an EVM: a PACE smart account on mainnet swapping USDC for WETH
//! through the Uniswap V2 Router02 and the USDC/WETH pair, with a consistent simulation report
//! computed from the constant-product formula, and the demo policy.
#![allow(missing_docs)]

use alloy_primitives::{Address, B256, Bytes, I256, U256, address};
use alloy_sol_types::SolCall;
use pace_abi::{bindings as abi, decode::selectors};
use pace_types::{
    Approval, ApprovalFact, BalanceChange, Call, Claims, CompiledPolicy, Intent, Policy, PriceFact,
    PriceSource, Selector, SimulationReport, SwapFacts, TablePrice, TokenAmount, TokenFlow,
    units::{min_out_tolerance_bps, shortfall_bps},
};
use std::collections::BTreeMap;

pub const CHAIN_ID: u64 = 1;
/// The user's PACE smart account.
pub const ACCOUNT: Address = address!("9f9bdd8a96fb9aa78f72e4f491a61fae724b5a45");
/// An attacker-controlled EOA.
pub const ATTACKER: Address = address!("8b8410386e1c9a9cb3da24cc0c24950ccee3c05c");
pub const USDC: Address = address!("a0b86991c6218b36c1d19d4a2e9eb0ce3606eb48");
pub const WETH: Address = address!("c02aaa39b223fe8d0a0e5c4f27ead9083c756cc2");
pub const DAI: Address = address!("6b175474e89094c44da98b954eedeac495271d0f");
/// Uniswap V2 Router02.
pub const ROUTER: Address = address!("7a250d5630b4cf539739df2c5dacb4c659f2488d");
/// The Uniswap V2 USDC/WETH pair.
pub const PAIR: Address = address!("b4e16d0168e52d35cacd2c6185b44281ec28c9dc");

pub const BLOCK: u64 = 23_900_000;
pub const TIMESTAMP: u64 = 1_764_460_800;
/// Decision time: one block after the simulated one.
pub const NOW: u64 = TIMESTAMP + 12;
pub const DEADLINE: u64 = TIMESTAMP + 900;

pub fn usdc(whole: u64) -> U256 {
    U256::from(whole) * U256::from(1_000_000u64)
}

pub use crate::ether;

/// Uniswap V2 `getAmountOut` (0.3 % fee).
pub fn amount_out(amount_in: U256, reserve_in: U256, reserve_out: U256) -> U256 {
    let with_fee = amount_in * U256::from(997u64);
    with_fee * reserve_out / (reserve_in * U256::from(1000u64) + with_fee)
}

/// Uniswap V2 `getAmountIn` (0.3 % fee).
pub fn amount_in(amount_out: U256, reserve_in: U256, reserve_out: U256) -> U256 {
    reserve_in * amount_out * U256::from(1000u64)
        / ((reserve_out - amount_out) * U256::from(997u64))
        + U256::from(1u64)
}

/// Output at the pre-trade mid price, no fee.
pub fn quoted_out(amount_in: U256, reserve_in: U256, reserve_out: U256) -> U256 {
    amount_in * reserve_out / reserve_in
}

pub fn swap_data(amount_in: U256, min_out: U256, path: Vec<Address>, to: Address) -> Bytes {
    abi::IUniswapV2Router02::swapExactTokensForTokensCall {
        amountIn: amount_in,
        amountOutMin: min_out,
        path,
        to,
        deadline: U256::from(DEADLINE),
    }
    .abi_encode()
    .into()
}

pub fn approve_data(spender: Address, amount: U256) -> Bytes {
    abi::IERC20::approveCall {
        spender,
        value: amount,
    }
    .abi_encode()
    .into()
}

pub fn transfer_data(to: Address, amount: U256) -> Bytes {
    abi::IERC20::transferCall { to, value: amount }
        .abi_encode()
        .into()
}

pub fn call(target: Address, data: Bytes) -> Call {
    Call {
        target,
        value: U256::ZERO,
        data,
    }
}

/// A USDC -> WETH swap, optionally preceded by an approval in the same batch.
#[derive(Debug, Clone)]
pub struct SwapSpec {
    pub amount_in: U256,
    /// The tolerance used to set `amountOutMin` from the simulated output.
    pub slippage_bps: u32,
    /// What the agent claims; `None` for no claim.
    pub claimed_slippage_bps: Option<u32>,
    pub reserve_in: U256,
    pub reserve_out: U256,
    pub to: Address,
    pub approve: Option<U256>,
}

impl Default for SwapSpec {
    fn default() -> Self {
        Self {
            amount_in: usdc(2_500),
            slippage_bps: 50,
            claimed_slippage_bps: Some(50),
            reserve_in: usdc(1_000_000),
            reserve_out: ether(320),
            to: ACCOUNT,
            approve: None,
        }
    }
}

impl SwapSpec {
    pub fn amount_out(&self) -> U256 {
        amount_out(self.amount_in, self.reserve_in, self.reserve_out)
    }

    pub fn quoted_out(&self) -> U256 {
        quoted_out(self.amount_in, self.reserve_in, self.reserve_out)
    }

    pub fn min_out(&self) -> U256 {
        self.amount_out() * U256::from(10_000 - self.slippage_bps.min(10_000))
            / U256::from(10_000u64)
    }

    pub fn price_impact_bps(&self) -> u32 {
        shortfall_bps(self.quoted_out(), self.amount_out())
    }

    pub fn intent(&self) -> Intent {
        let mut calls = Vec::new();
        let mut approvals = Vec::new();
        if let Some(amount) = self.approve {
            calls.push(call(USDC, approve_data(ROUTER, amount)));
            approvals.push(Approval {
                token: USDC,
                spender: ROUTER,
                amount,
            });
        }
        calls.push(call(
            ROUTER,
            swap_data(self.amount_in, self.min_out(), vec![USDC, WETH], self.to),
        ));
        Intent {
            chain_id: CHAIN_ID,
            account: ACCOUNT,
            calls,
            claimed: Claims {
                approvals,
                outflows: vec![TokenAmount {
                    token: USDC,
                    amount: self.amount_in,
                }],
                slippage_bps: self.claimed_slippage_bps,
                touched: vec![ROUTER, PAIR, USDC, WETH],
            },
            metadata: BTreeMap::from([
                ("agent".to_owned(), "pace-demo-agent/0.3".to_owned()),
                (
                    "task".to_owned(),
                    "Rebalance: swap USDC to WETH, at most 0.5% slippage".to_owned(),
                ),
            ]),
        }
    }

    /// The report a faithful simulator produces for `intent` (which should be `self.intent()`,
    /// possibly edited).
    pub fn report(&self, intent: &Intent) -> SimulationReport {
        let out = self.amount_out();
        let impact = self.price_impact_bps();
        let mut touched = vec![ROUTER, PAIR, USDC, WETH];
        let mut approvals = Vec::new();
        if let Some(amount) = self.approve {
            touched = vec![USDC, ROUTER, PAIR, WETH];
            approvals.push(ApprovalFact {
                token: USDC,
                owner: ACCOUNT,
                spender: ROUTER,
                amount,
            });
        }
        SimulationReport {
            intent_hash: intent.intent_hash(),
            block_number: BLOCK,
            timestamp: TIMESTAMP,
            success: true,
            revert_reason: None,
            gas_used: if self.approve.is_some() {
                158_114
            } else {
                111_726
            },
            touched_contracts: touched,
            precompiles: vec![],
            token_flows: vec![
                TokenFlow {
                    token: USDC,
                    from: ACCOUNT,
                    to: PAIR,
                    amount: self.amount_in,
                },
                TokenFlow {
                    token: WETH,
                    from: PAIR,
                    to: self.to,
                    amount: out,
                },
            ],
            approvals,
            balance_changes: if self.to == ACCOUNT {
                vec![
                    BalanceChange {
                        token: USDC,
                        delta: -I256::from_raw(self.amount_in),
                    },
                    BalanceChange {
                        token: WETH,
                        delta: I256::from_raw(out),
                    },
                ]
            } else {
                vec![BalanceChange {
                    token: USDC,
                    delta: -I256::from_raw(self.amount_in),
                }]
            },
            swap: Some(SwapFacts {
                pool: PAIR,
                token_in: USDC,
                token_out: WETH,
                amount_in: self.amount_in,
                amount_out: out,
                quoted_out: self.quoted_out(),
                min_out: self.min_out(),
                price_impact_bps: impact,
                slippage_bps: min_out_tolerance_bps(out, self.min_out()),
            }),
            later_swaps: Vec::new(),
            loss_bps: Some(impact),
            health_factor_before_bps: None,
            health_factor_after_bps: None,
            budgets: vec![],
            nft_flows: vec![],
            // The pool's pre-trade mid price: what the trade would buy with no fee or impact.
            prices: vec![PriceFact {
                token: USDC,
                source: PriceSource::Pool,
                via: PAIR,
                amount: self.amount_in,
                worth: vec![TokenAmount {
                    token: WETH,
                    amount: self.quoted_out(),
                }],
            }],
            positions: vec![],
            minters: vec![],
            burners: vec![],
            execution: None,
            balances_read: vec![],
            payee_receipts: vec![],
            reads: vec![],
            debt_like: vec![],
            grant_filter: None,
            ungranted: vec![],
            debt_tokens: vec![],
            protocols: Default::default(),
            // Rights and lending health (adapters).
            lending: vec![],
            rights: vec![],
            item_approvals: vec![],
            unread_positions: vec![],
            environment: Vec::new(),
        }
    }
}

fn sel(s: [u8; 4]) -> Selector {
    Selector::from(s)
}

/// The demo policy: rebalance between USDC and WETH through Uniswap V2.
pub fn policy() -> Policy {
    Policy {
        schema: pace_types::POLICY_SCHEMA,
        name: Some("demo: USDC/WETH rebalancing through Uniswap V2".to_owned()),
        chain_id: Some(CHAIN_ID),
        account: Some(ACCOUNT),
        allowed_targets: vec![ROUTER, USDC, WETH],
        allowed_selectors: vec![
            sel(selectors::APPROVE),
            sel(selectors::SWAP_EXACT_TOKENS_FOR_TOKENS),
            sel(selectors::SWAP_TOKENS_FOR_EXACT_TOKENS),
            sel(selectors::SWAP_EXACT_ETH_FOR_TOKENS),
        ],
        allowed_tokens: vec![USDC, WETH],
        blocked_selectors: vec![
            sel(selectors::TRANSFER_FROM),
            sel([0xa2, 0x2c, 0xb4, 0x65]), // setApprovalForAll(address,bool)
            sel([0xd5, 0x05, 0xac, 0xcf]), // permit(address,address,uint256,uint256,uint8,bytes32,bytes32)
        ],
        spend_caps: vec![
            TokenAmount {
                token: USDC,
                amount: usdc(10_000),
            },
            TokenAmount {
                token: WETH,
                amount: ether(4),
            },
        ],
        budgets: Vec::new(),
        max_value_wei: ether(1),
        forbid_unlimited_approval: true,
        max_slippage_bps: 100,
        max_price_impact_bps: 100,
        require_simulation: true,
        max_simulation_age_secs: 120,
        allowed_touched: vec![PAIR],
        allowed_recipients: vec![],
        fee_recipients: vec![],
        prices: vec![TablePrice {
            token: WETH,
            amount: ether(1),
            value: ether(1),
        }],
        price_oracles: vec![],
        price_vaults: vec![],
        price_pools: vec![PAIR],
        min_health_factor_bps: Some(15_000),
        max_loss_bps: Some(200),
        metadata_patterns: vec![
            r"(?i)ignore (all |any )?(previous|prior|above) instructions".to_owned(),
            r"(?i)\b(seed phrase|private key|mnemonic)\b".to_owned(),
            r"(?i)send (all|everything|the (entire|whole) balance)".to_owned(),
        ],
        outcome_tolerance_bps: 50,
        checks: Default::default(),
        ..Policy::default()
    }
}

pub fn compiled() -> CompiledPolicy {
    policy().compile().expect("demo policy compiles")
}

/// The benign single-call swap and its faithful report.
pub fn benign() -> (Intent, SimulationReport) {
    let spec = SwapSpec::default();
    let intent = spec.intent();
    let report = spec.report(&intent);
    (intent, report)
}

pub fn zero_hash() -> B256 {
    B256::ZERO
}
