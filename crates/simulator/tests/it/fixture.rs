//! A deterministic world: a PaceAccount holding tokens and ether, MockERC20 tokens A and B, the
//! npm Uniswap V2 (factory, WETH9, Router02) with A/B, B/WETH and A/DEFL pairs, a
//! MockAmmRouter A/B pair, a MaliciousRouter + HiddenSink, a MockLendingPool with a MockOracle
//! where the account has a position, and the fee-on-transfer DeflatingERC20.

use alloy_primitives::{Address, B256, Bytes, U256};
use alloy_sol_types::{SolCall, SolConstructor};
use pace_contracts::{
    artifacts,
    bindings::{
        IERC20, IUniswapV2Factory, IUniswapV2Router02, MaliciousRouter, MockAmmRouter, MockERC20,
        MockLendingPool, MockOracle, PaceAccount,
    },
    uniswap_v2,
};
use pace_evm::InProcessEvm;
use pace_types::{Call, Claims, Intent};
use std::{collections::BTreeMap, sync::OnceLock};

pub(crate) const CHAIN_ID: u64 = 31337;
pub(crate) const BLOCK: u64 = 100;
pub(crate) const TIMESTAMP: u64 = 1_700_000_000;
pub(crate) const DEADLINE: u64 = TIMESTAMP + 600;
pub(crate) const DEPLOYER: Address = Address::repeat_byte(0xde);
pub(crate) const OWNER: Address = Address::repeat_byte(0x0e);
pub(crate) const VERIFIER: Address = Address::repeat_byte(0x5e);
pub(crate) const BOB: Address = Address::repeat_byte(0xb0);
/// The malicious router's skim, in bps of the input.
pub(crate) const SKIM_BPS: u64 = 100;

pub(crate) fn ether(n: u64) -> U256 {
    U256::from(n) * U256::from(10u64).pow(U256::from(18))
}

/// Every address of the fixture world.
#[derive(Clone, Debug)]
pub(crate) struct World {
    pub(crate) evm: InProcessEvm,
    /// A deployed PaceAccount: 1,000 A, 1,000 B, 100 ether, 100 A deposited in the lending
    /// pool and 50 B borrowed.
    pub(crate) account: Address,
    pub(crate) a: Address,
    pub(crate) b: Address,
    pub(crate) weth: Address,
    pub(crate) defl: Address,
    pub(crate) factory: Address,
    pub(crate) router: Address,
    /// Uniswap A/B: 10,000 A / 20,000 B.
    pub(crate) pair_ab: Address,
    pub(crate) mock_router: Address,
    /// MockAmmPair A/B: 10,000 A / 10,000 B.
    pub(crate) mock_pair: Address,
    pub(crate) sink: Address,
    pub(crate) malicious: Address,
    pub(crate) lending: Address,
}

/// A fresh copy of the fixture world (built once per test process).
pub(crate) fn world() -> World {
    static WORLD: OnceLock<World> = OnceLock::new();
    WORLD.get_or_init(build).clone()
}

fn deploy_project(evm: &mut InProcessEvm, name: &str, args: &[u8]) -> Address {
    let code = artifacts()
        .expect("compile contracts/")
        .get(name)
        .expect(name)
        .deploy_code(args);
    evm.deploy(DEPLOYER, code).expect(name)
}

fn deploy_uniswap(evm: &mut InProcessEvm, name: &str, args: &[u8]) -> Address {
    evm.deploy(DEPLOYER, uniswap_v2(name).expect(name).deploy_code(args))
        .expect(name)
}

fn send<C: SolCall>(
    evm: &mut InProcessEvm,
    from: Address,
    to: Address,
    value: U256,
    call: &C,
) -> C::Return {
    evm.call_sol(from, to, value, call)
        .unwrap_or_else(|e| panic!("{}: {e}", C::SIGNATURE))
}

fn build() -> World {
    let mut evm = InProcessEvm::new(CHAIN_ID);
    evm.set_block(BLOCK, TIMESTAMP);
    evm.fund(DEPLOYER, ether(10_000)).unwrap();
    let deadline = U256::from(DEADLINE);
    let ctor = PaceAccount::constructorCall {
        owner_: OWNER,
        verifier_: VERIFIER,
    };
    let account = deploy_project(&mut evm, "PaceAccount", &ctor.abi_encode());
    evm.fund(account, ether(100)).unwrap();

    let token = |evm: &mut InProcessEvm, symbol: &str| {
        let ctor = MockERC20::constructorCall {
            name_: format!("Token {symbol}"),
            symbol_: symbol.into(),
            decimals_: 18,
        };
        deploy_project(evm, "MockERC20", &ctor.abi_encode())
    };
    let a = token(&mut evm, "A");
    let b = token(&mut evm, "B");
    for t in [a, b] {
        send(
            &mut evm,
            DEPLOYER,
            t,
            U256::ZERO,
            &MockERC20::mintCall {
                to: DEPLOYER,
                amount: ether(1_000_000),
            },
        );
        send(
            &mut evm,
            DEPLOYER,
            t,
            U256::ZERO,
            &MockERC20::mintCall {
                to: account,
                amount: ether(1_000),
            },
        );
    }

    // Uniswap V2 from npm.
    let factory = deploy_uniswap(
        &mut evm,
        "UniswapV2Factory",
        &IUniswapV2Factory::constructorCall {
            _feeToSetter: DEPLOYER,
        }
        .abi_encode(),
    );
    let weth = deploy_uniswap(&mut evm, "WETH9", &[]);
    let router = deploy_uniswap(
        &mut evm,
        "UniswapV2Router02",
        &IUniswapV2Router02::constructorCall {
            _factory: factory,
            _WETH: weth,
        }
        .abi_encode(),
    );
    let defl = deploy_uniswap(
        &mut evm,
        "DeflatingERC20",
        &ether(1_000_000).to_be_bytes::<32>(),
    );
    for t in [a, b, defl] {
        send(
            &mut evm,
            DEPLOYER,
            t,
            U256::ZERO,
            &IERC20::approveCall {
                spender: router,
                value: U256::MAX,
            },
        );
    }
    let add = |evm: &mut InProcessEvm, x: Address, y: Address, ax: u64, ay: u64| {
        let call = IUniswapV2Router02::addLiquidityCall {
            tokenA: x,
            tokenB: y,
            amountADesired: ether(ax),
            amountBDesired: ether(ay),
            amountAMin: U256::ZERO,
            amountBMin: U256::ZERO,
            to: DEPLOYER,
            deadline,
        };
        send(evm, DEPLOYER, router, U256::ZERO, &call);
    };
    add(&mut evm, a, b, 10_000, 20_000);
    add(&mut evm, a, defl, 10_000, 10_000);
    let eth_liquidity = IUniswapV2Router02::addLiquidityETHCall {
        token: b,
        amountTokenDesired: ether(5_000),
        amountTokenMin: U256::ZERO,
        amountETHMin: U256::ZERO,
        to: DEPLOYER,
        deadline,
    };
    send(&mut evm, DEPLOYER, router, ether(100), &eth_liquidity);
    let pair_ab = send(
        &mut evm,
        DEPLOYER,
        factory,
        U256::ZERO,
        &IUniswapV2Factory::getPairCall {
            tokenA: a,
            tokenB: b,
        },
    );

    // The mock AMM and the malicious router in front of it.
    let mock_router = deploy_project(&mut evm, "MockAmmRouter", &[]);
    for t in [a, b] {
        send(
            &mut evm,
            DEPLOYER,
            t,
            U256::ZERO,
            &IERC20::approveCall {
                spender: mock_router,
                value: U256::MAX,
            },
        );
    }
    let add_mock = MockAmmRouter::addLiquidityCall {
        tokenA: a,
        tokenB: b,
        amountADesired: ether(10_000),
        amountBDesired: ether(10_000),
        amountAMin: U256::ZERO,
        amountBMin: U256::ZERO,
        to: DEPLOYER,
        deadline,
    };
    send(&mut evm, DEPLOYER, mock_router, U256::ZERO, &add_mock);
    let mock_pair = send(
        &mut evm,
        DEPLOYER,
        mock_router,
        U256::ZERO,
        &MockAmmRouter::getPairCall {
            tokenA: a,
            tokenB: b,
        },
    );
    let sink = deploy_project(&mut evm, "HiddenSink", &[]);
    let ctor = MaliciousRouter::constructorCall {
        router_: mock_router,
        sink_: sink,
        skimBps_: U256::from(SKIM_BPS),
    };
    let malicious = deploy_project(&mut evm, "MaliciousRouter", &ctor.abi_encode());

    // Lending: collateral A at 2 B each, the pool holds 100,000 B; the account deposits 100 A
    // and borrows 50 B (health factor 3.2).
    let oracle = deploy_project(
        &mut evm,
        "MockOracle",
        &MockOracle::constructorCall {
            initialPrice: ether(2),
        }
        .abi_encode(),
    );
    let ctor = MockLendingPool::constructorCall {
        collateralToken_: a,
        debtToken_: b,
        oracle_: oracle,
    };
    let lending = deploy_project(&mut evm, "MockLendingPool", &ctor.abi_encode());
    send(
        &mut evm,
        DEPLOYER,
        b,
        U256::ZERO,
        &MockERC20::mintCall {
            to: lending,
            amount: ether(100_000),
        },
    );
    send(
        &mut evm,
        account,
        a,
        U256::ZERO,
        &IERC20::approveCall {
            spender: lending,
            value: ether(100),
        },
    );
    send(
        &mut evm,
        account,
        lending,
        U256::ZERO,
        &MockLendingPool::depositCall { amount: ether(100) },
    );
    send(
        &mut evm,
        account,
        lending,
        U256::ZERO,
        &MockLendingPool::borrowCall { amount: ether(50) },
    );

    World {
        evm,
        account,
        a,
        b,
        weth,
        defl,
        factory,
        router,
        pair_ab,
        mock_router,
        mock_pair,
        sink,
        malicious,
        lending,
    }
}

/// A call with ABI-encoded `call` and no value.
pub(crate) fn call<C: SolCall>(target: Address, call: &C) -> Call {
    Call {
        target,
        value: U256::ZERO,
        data: call.abi_encode().into(),
    }
}

/// A plain ether transfer.
pub(crate) fn pay(target: Address, value: U256) -> Call {
    Call {
        target,
        value,
        data: Bytes::new(),
    }
}

/// An intent of `account` with no claims.
pub(crate) fn intent(account: Address, calls: Vec<Call>) -> Intent {
    Intent {
        chain_id: CHAIN_ID,
        account,
        calls,
        claimed: Claims::default(),
        metadata: BTreeMap::new(),
    }
}

impl World {
    pub(crate) fn balance(&self, token: Address, who: Address) -> U256 {
        self.evm
            .view_sol(token, &IERC20::balanceOfCall { account: who })
            .unwrap()
    }

    /// `(reserveIn, reserveOut)` of a pair for a trade selling `token_in`.
    pub(crate) fn reserves(&self, pair: Address, token_in: Address) -> (U256, U256) {
        use pace_contracts::bindings::IUniswapV2Pair;
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

    pub(crate) fn amounts_out(
        &self,
        router: Address,
        amount_in: U256,
        path: Vec<Address>,
    ) -> Vec<U256> {
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

    pub(crate) fn pair(&self, x: Address, y: Address) -> Address {
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
    pub(crate) fn fingerprint(&self) -> Vec<B256> {
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
