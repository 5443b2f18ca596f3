//! A deterministic world: a PaceAccount holding tokens and ether, MockERC20 tokens A and B, the
//! npm Uniswap V2 (factory, WETH9, Router02) with A/B, B/WETH and A/DEFL pairs, a
//! MockAmmRouter A/B pair, a MaliciousRouter + HiddenSink, a MockLendingPool with a MockOracle
//! where the account has a position, and the fee-on-transfer DeflatingERC20.
//!
//! Built with [`pace_world::Builder`], the steps the default world is built from.

use alloy_primitives::{Address, B256, Bytes, U256};
use alloy_sol_types::{SolCall, SolConstructor};
use pace_contracts::bindings::{
    IUniswapV2Factory, IUniswapV2Pair, IUniswapV2Router02, MaliciousRouter, MockAmmRouter,
    MockLendingPool, MockOracle, PaceAccount,
};
use pace_evm::InProcessEvm;
use pace_types::{Call, Claims, Intent};
use pace_world::{Builder, Error};
use std::{collections::BTreeMap, sync::OnceLock};

pub use crate::{balance_of, ether};

/// Chain id of the fixture world.
pub const CHAIN_ID: u64 = 31337;
/// Its block number.
pub const BLOCK: u64 = 100;
/// Its timestamp.
pub const TIMESTAMP: u64 = 1_700_000_000;
/// A swap deadline ten minutes after [`TIMESTAMP`].
pub const DEADLINE: u64 = TIMESTAMP + 600;
/// Deploys every contract and provides every pool's liquidity.
pub const DEPLOYER: Address = Address::repeat_byte(0xde);
/// Owner of the PaceAccount.
pub const OWNER: Address = Address::repeat_byte(0x0e);
/// The PaceAccount's verifier key address.
pub const VERIFIER: Address = Address::repeat_byte(0x5e);
/// A bystander: the recipient of transfers.
pub const BOB: Address = Address::repeat_byte(0xb0);
/// The malicious router's skim, in bps of the input.
pub const SKIM_BPS: u64 = 100;

/// Every address of the fixture world.
#[derive(Clone, Debug)]
pub struct Fixture {
    /// The chain.
    pub evm: InProcessEvm,
    /// A deployed PaceAccount: 1,000 A, 1,000 B, 100 ether, 100 A deposited in the lending
    /// pool and 50 B borrowed.
    pub account: Address,
    /// MockERC20 token A (18 decimals).
    pub a: Address,
    /// MockERC20 token B (18 decimals).
    pub b: Address,
    /// WETH9.
    pub weth: Address,
    /// DeflatingERC20 (1 % burnt on every transfer).
    pub defl: Address,
    /// Uniswap V2 factory, with the pairs A/B, A/DEFL and B/WETH.
    pub factory: Address,
    /// Uniswap V2 Router02.
    pub router: Address,
    /// Uniswap A/B: 10,000 A / 20,000 B.
    pub pair_ab: Address,
    /// The project's mock AMM router.
    pub mock_router: Address,
    /// MockAmmPair A/B: 10,000 A / 10,000 B.
    pub mock_pair: Address,
    /// Where the malicious router sends its skim.
    pub sink: Address,
    /// A MaliciousRouter in front of the mock AMM, skimming [`SKIM_BPS`].
    pub malicious: Address,
    /// MockLendingPool: collateral A, debt B, priced by a MockOracle at 2 B per A.
    pub lending: Address,
}

/// A fresh copy of the fixture world (built once per test process).
pub fn world() -> Fixture {
    static WORLD: OnceLock<Fixture> = OnceLock::new();
    WORLD
        .get_or_init(|| build().expect("build the fixture world"))
        .clone()
}

/// The fixture's Uniswap V2: factory, WETH9, Router02 and the fee-on-transfer token.
struct Uniswap {
    factory: Address,
    weth: Address,
    router: Address,
    defl: Address,
}

fn build() -> Result<Fixture, Error> {
    let mut evm = InProcessEvm::new(CHAIN_ID);
    evm.set_block(BLOCK, TIMESTAMP);
    evm.fund(DEPLOYER, ether(10_000)).unwrap();
    let mut b = Builder::new(&mut evm, DEPLOYER, U256::from(DEADLINE))?;
    let ctor = PaceAccount::constructorCall {
        owner_: OWNER,
        verifier_: VERIFIER,
    };
    let account = b.project("PaceAccount", &ctor.abi_encode(), "deploy PaceAccount")?;
    b.evm().fund(account, ether(100)).unwrap();
    let (ta, tb) = tokens(&mut b, account)?;
    let uni = uniswap(&mut b, ta, tb)?;
    let get_pair = IUniswapV2Factory::getPairCall {
        tokenA: ta,
        tokenB: tb,
    };
    let pair_ab = b.call(DEPLOYER, uni.factory, U256::ZERO, &get_pair, "getPair")?;
    let (mock_router, mock_pair, sink, malicious) = mock_amm(&mut b, ta, tb)?;
    let lending = lending(&mut b, account, ta, tb)?;
    Ok(Fixture {
        evm,
        account,
        a: ta,
        b: tb,
        weth: uni.weth,
        defl: uni.defl,
        factory: uni.factory,
        router: uni.router,
        pair_ab,
        mock_router,
        mock_pair,
        sink,
        malicious,
        lending,
    })
}

/// Tokens A and B: 1,000,000 of each to the deployer, 1,000 to the account.
fn tokens(b: &mut Builder<'_>, account: Address) -> Result<(Address, Address), Error> {
    let ta = b.token("Token A", "A", 18, "deploy token A")?;
    let tb = b.token("Token B", "B", 18, "deploy token B")?;
    for t in [ta, tb] {
        b.mint(DEPLOYER, t, DEPLOYER, ether(1_000_000), "mint")?;
        b.mint(DEPLOYER, t, account, ether(1_000), "fund account")?;
    }
    Ok((ta, tb))
}

/// Uniswap V2 from npm with pools A/B (10,000 / 20,000), A/DEFL (10,000 / 10,000) and B/WETH
/// (5,000 / 100).
fn uniswap(b: &mut Builder<'_>, ta: Address, tb: Address) -> Result<Uniswap, Error> {
    let factory = b.uniswap_factory()?;
    let weth = b.weth9()?;
    let router = b.uniswap_router(factory, weth)?;
    let defl = b.deflating_token(ether(1_000_000))?;
    for t in [ta, tb, defl] {
        b.approve(DEPLOYER, t, router, U256::MAX, "approve Router02")?;
    }
    let ab = [(ta, ether(10_000)), (tb, ether(20_000))];
    b.add_liquidity(DEPLOYER, router, ab, "add A/B liquidity")?;
    let a_defl = [(ta, ether(10_000)), (defl, ether(10_000))];
    b.add_liquidity(DEPLOYER, router, a_defl, "add A/DEFL liquidity")?;
    let b_weth = (tb, ether(5_000));
    b.add_liquidity_eth(DEPLOYER, router, b_weth, ether(100), "add B/WETH liquidity")?;
    Ok(Uniswap {
        factory,
        weth,
        router,
        defl,
    })
}

/// The mock AMM with an A/B pool (10,000 / 10,000) and the malicious router in front of it:
/// `(mock router, mock pair, hidden sink, malicious router)`.
fn mock_amm(
    b: &mut Builder<'_>,
    ta: Address,
    tb: Address,
) -> Result<(Address, Address, Address, Address), Error> {
    let mock_router = b.project("MockAmmRouter", &[], "deploy MockAmmRouter")?;
    for t in [ta, tb] {
        b.approve(DEPLOYER, t, mock_router, U256::MAX, "approve MockAmmRouter")?;
    }
    let ab = [(ta, ether(10_000)), (tb, ether(10_000))];
    b.add_mock_liquidity(DEPLOYER, mock_router, ab, "add mock A/B liquidity")?;
    let get_pair = MockAmmRouter::getPairCall {
        tokenA: ta,
        tokenB: tb,
    };
    let mock_pair = b.call(DEPLOYER, mock_router, U256::ZERO, &get_pair, "getPair")?;
    let sink = b.project("HiddenSink", &[], "deploy HiddenSink")?;
    let ctor = MaliciousRouter::constructorCall {
        router_: mock_router,
        sink_: sink,
        skimBps_: U256::from(SKIM_BPS),
    };
    let malicious = b.project(
        "MaliciousRouter",
        &ctor.abi_encode(),
        "deploy MaliciousRouter",
    )?;
    Ok((mock_router, mock_pair, sink, malicious))
}

/// Lending: collateral A at 2 B each, the pool holds 100,000 B; the account deposits 100 A and
/// borrows 50 B (health factor 3.2).
fn lending(
    b: &mut Builder<'_>,
    account: Address,
    ta: Address,
    tb: Address,
) -> Result<Address, Error> {
    let price = MockOracle::constructorCall {
        initialPrice: ether(2),
    };
    let oracle = b.project("MockOracle", &price.abi_encode(), "deploy MockOracle")?;
    let ctor = MockLendingPool::constructorCall {
        collateralToken_: ta,
        debtToken_: tb,
        oracle_: oracle,
    };
    let pool = b.project(
        "MockLendingPool",
        &ctor.abi_encode(),
        "deploy MockLendingPool",
    )?;
    b.mint(DEPLOYER, tb, pool, ether(100_000), "fund pool")?;
    b.approve(account, ta, pool, ether(100), "approve pool")?;
    let deposit = MockLendingPool::depositCall { amount: ether(100) };
    b.call(account, pool, U256::ZERO, &deposit, "deposit")?;
    let borrow = MockLendingPool::borrowCall { amount: ether(50) };
    b.call(account, pool, U256::ZERO, &borrow, "borrow")?;
    Ok(pool)
}

/// A call with ABI-encoded `call` and no value.
pub fn call<C: SolCall>(target: Address, call: &C) -> Call {
    Call {
        target,
        value: U256::ZERO,
        data: call.abi_encode().into(),
    }
}

/// A plain ether transfer.
pub fn pay(target: Address, value: U256) -> Call {
    Call {
        target,
        value,
        data: Bytes::new(),
    }
}

/// An intent of `account` with no claims.
pub fn intent(account: Address, calls: Vec<Call>) -> Intent {
    Intent {
        chain_id: CHAIN_ID,
        account,
        calls,
        claimed: Claims::default(),
        metadata: BTreeMap::new(),
    }
}

impl Fixture {
    /// `who`'s balance of `token` (ether for the zero address).
    pub fn balance(&self, token: Address, who: Address) -> U256 {
        balance_of(&self.evm, token, who)
    }

    /// `(reserveIn, reserveOut)` of a pair for a trade selling `token_in`.
    pub fn reserves(&self, pair: Address, token_in: Address) -> (U256, U256) {
        let r = self
            .evm
            .view_sol(pair, &IUniswapV2Pair::getReservesCall {})
            .unwrap();
        let token0 = self
            .evm
            .view_sol(pair, &IUniswapV2Pair::token0Call {})
            .unwrap();
        let (r0, r1) = (U256::from(r.reserve0), U256::from(r.reserve1));
        if token_in == token0 {
            (r0, r1)
        } else {
            (r1, r0)
        }
    }

    /// Router02 `getAmountsOut` of `router`.
    pub fn amounts_out(&self, router: Address, amount_in: U256, path: Vec<Address>) -> Vec<U256> {
        self.evm
            .view_sol(
                router,
                &IUniswapV2Router02::getAmountsOutCall {
                    amountIn: amount_in,
                    path,
                },
            )
            .unwrap()
    }

    /// The Uniswap V2 pair of `x` and `y`.
    pub fn pair(&self, x: Address, y: Address) -> Address {
        self.evm
            .view_sol(
                self.factory,
                &IUniswapV2Factory::getPairCall {
                    tokenA: x,
                    tokenB: y,
                },
            )
            .unwrap()
    }

    /// A digest of the state simulate must not change: balances, reserves, nonces, block.
    pub fn fingerprint(&self) -> Vec<B256> {
        let mut words = Vec::new();
        for token in [self.a, self.b, self.weth, self.defl] {
            for who in [
                self.account,
                BOB,
                self.pair_ab,
                self.mock_pair,
                self.lending,
                self.sink,
            ] {
                words.push(B256::from(self.balance(token, who)));
            }
        }
        for who in [self.account, BOB, DEPLOYER] {
            words.push(B256::from(self.evm.balance(who).unwrap()));
            words.push(B256::from(U256::from(self.evm.nonce(who).unwrap())));
        }
        words.push(B256::from(U256::from(self.evm.db().cache.accounts.len())));
        words.push(B256::from(U256::from(self.evm.block_number())));
        words
    }
}
