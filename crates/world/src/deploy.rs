//! Deploys the world.

use crate::Addresses;
use alloy_primitives::{Address, Bytes, U256};
use alloy_sol_types::{SolCall, SolConstructor};
use pace_contracts::bindings::{
    ApprovalDrainer, HiddenSink, IERC20, IUniswapV2Factory, IUniswapV2Router02, IWETH9,
    MaliciousRouter, MockAmmRouter, MockERC20, MockLendingPool, MockOracle, PaceAccount,
};
use pace_evm::InProcessEvm;

/// Chain id of the world.
pub const CHAIN_ID: u64 = 31337;
/// Block number the world starts at.
pub const GENESIS_BLOCK: u64 = 19_000_000;
/// Timestamp the world starts at.
pub const GENESIS_TIME: u64 = 1_700_000_000;

const fn ether(n: u64) -> U256 {
    U256::from_limbs([n, 0, 0, 0]).saturating_mul(U256::from_limbs([
        1_000_000_000_000_000_000,
        0,
        0,
        0,
    ]))
}

/// Why the world could not be built.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// Compiling or loading a contract failed.
    #[error(transparent)]
    Contracts(#[from] Box<pace_contracts::Error>),
    /// A deployment or setup transaction failed.
    #[error("world setup: {step}: {source}")]
    Setup {
        /// What was being done.
        step: &'static str,
        /// The EVM's error.
        source: Box<pace_evm::Error>,
    },
}

trait Step<T> {
    fn step(self, step: &'static str) -> Result<T, Error>;
}

impl From<pace_contracts::Error> for Error {
    fn from(e: pace_contracts::Error) -> Self {
        Self::Contracts(Box::new(e))
    }
}

impl<T> Step<T> for pace_evm::Result<T> {
    fn step(self, step: &'static str) -> Result<T, Error> {
        self.map_err(|source| Error::Setup {
            step,
            source: Box::new(source),
        })
    }
}

/// The embedded world: an [`InProcessEvm`] and the addresses of everything in it.
///
/// Starting balances of the account: 100 WETH, 100,000 DAI, 50,000 USDC, 10,000 of the
/// fee-on-transfer token and 10 ETH, plus a lending position of 10 WETH collateral against
/// 5,000 DAI debt (health factor 1.6 at the oracle's 1,000 DAI/WETH). The Uniswap V2 WETH/DAI
/// pair and the mock AMM pair each hold 10,000 WETH / 10,000,000 DAI (the paper's reserves).
#[derive(Clone, Debug)]
pub struct World {
    /// The chain.
    pub evm: InProcessEvm,
    /// Who is who.
    pub addrs: Addresses,
}

impl World {
    /// Builds the world with a PaceAccount whose verifier key has address `verifier`.
    pub fn new(verifier: Address) -> Result<Self, Error> {
        let mut evm = InProcessEvm::new(CHAIN_ID);
        evm.set_block(GENESIS_BLOCK, GENESIS_TIME);
        let deployer = Addresses::actor("deployer");
        let owner = Addresses::actor("owner");
        let relayer = Addresses::actor("relayer");
        let attacker = Addresses::actor("attacker");
        let trader = Addresses::actor("trader");
        let payee = Addresses::actor("payee");
        for who in [deployer, owner, relayer, attacker, trader] {
            evm.fund(who, ether(1_000_000))
                .map_err(pace_evm::Error::Fork)
                .step("fund actors")?;
        }
        let artifacts = pace_contracts::artifacts()?;
        let deploy = |evm: &mut InProcessEvm, from: Address, code: Bytes, step| {
            evm.deploy(from, code).step(step)
        };
        let project = |name: &str, args: Vec<u8>| -> Result<Bytes, Error> {
            Ok(artifacts.get(name)?.deploy_code(&args))
        };
        let uniswap = |name: &str, args: Vec<u8>| -> Result<Bytes, Error> {
            Ok(pace_contracts::uniswap_v2(name)?.deploy_code(&args))
        };
        let token = |name: &str, symbol: &str, decimals: u8| {
            MockERC20::constructorCall {
                name_: name.into(),
                symbol_: symbol.into(),
                decimals_: decimals,
            }
            .abi_encode()
        };

        let weth = deploy(
            &mut evm,
            deployer,
            uniswap("WETH9", vec![])?,
            "deploy WETH9",
        )?;
        let dai = deploy(
            &mut evm,
            deployer,
            project("MockERC20", token("Dai Stablecoin", "DAI", 18))?,
            "deploy DAI",
        )?;
        let usdc = deploy(
            &mut evm,
            deployer,
            project("MockERC20", token("USD Coin", "USDC", 6))?,
            "deploy USDC",
        )?;
        let fee_token = deploy(
            &mut evm,
            deployer,
            uniswap(
                "DeflatingERC20",
                ether(10_000_000).to_be_bytes::<32>().to_vec(),
            )?,
            "deploy DeflatingERC20",
        )?;
        let factory = deploy(
            &mut evm,
            deployer,
            uniswap(
                "UniswapV2Factory",
                IUniswapV2Factory::constructorCall {
                    _feeToSetter: deployer,
                }
                .abi_encode(),
            )?,
            "deploy UniswapV2Factory",
        )?;
        let router = deploy(
            &mut evm,
            deployer,
            uniswap(
                "UniswapV2Router02",
                IUniswapV2Router02::constructorCall {
                    _factory: factory,
                    _WETH: weth,
                }
                .abi_encode(),
            )?,
            "deploy UniswapV2Router02",
        )?;
        let mock_router = deploy(
            &mut evm,
            deployer,
            project("MockAmmRouter", vec![])?,
            "deploy MockAmmRouter",
        )?;
        let hidden_sink = deploy(
            &mut evm,
            deployer,
            project("HiddenSink", vec![])?,
            "deploy HiddenSink",
        )?;
        let malicious_router = deploy(
            &mut evm,
            deployer,
            project(
                "MaliciousRouter",
                MaliciousRouter::constructorCall {
                    router_: mock_router,
                    sink_: hidden_sink,
                    skimBps_: U256::from(500),
                }
                .abi_encode(),
            )?,
            "deploy MaliciousRouter",
        )?;
        let drainer = deploy(
            &mut evm,
            attacker,
            project(
                "ApprovalDrainer",
                ApprovalDrainer::constructorCall {}.abi_encode(),
            )?,
            "deploy ApprovalDrainer",
        )?;
        let oracle = deploy(
            &mut evm,
            deployer,
            project(
                "MockOracle",
                MockOracle::constructorCall {
                    initialPrice: ether(1_000),
                }
                .abi_encode(),
            )?,
            "deploy MockOracle",
        )?;
        let lending_pool = deploy(
            &mut evm,
            deployer,
            project(
                "MockLendingPool",
                MockLendingPool::constructorCall {
                    collateralToken_: weth,
                    debtToken_: dai,
                    oracle_: oracle,
                }
                .abi_encode(),
            )?,
            "deploy MockLendingPool",
        )?;
        let account = deploy(
            &mut evm,
            deployer,
            project(
                "PaceAccount",
                PaceAccount::constructorCall {
                    owner_: owner,
                    verifier_: verifier,
                }
                .abi_encode(),
            )?,
            "deploy PaceAccount",
        )?;
        let _ = HiddenSink::collectCall::SELECTOR; // the sink needs no setup

        let mut setup = Setup {
            evm: &mut evm,
            deadline: U256::from(GENESIS_TIME + 365 * 86_400),
        };
        // The trader provides liquidity: 10,000 WETH / 10,000,000 DAI on both AMMs.
        setup.call(
            trader,
            weth,
            ether(40_000),
            IWETH9::depositCall {},
            "wrap WETH",
        )?;
        setup.call(
            trader,
            dai,
            U256::ZERO,
            MockERC20::mintCall {
                to: trader,
                amount: ether(40_000_000),
            },
            "mint DAI",
        )?;
        setup.call(
            deployer,
            fee_token,
            U256::ZERO,
            IERC20::transferCall {
                to: trader,
                value: ether(5_000_000),
            },
            "fund fee token",
        )?;
        for spender in [router, mock_router] {
            for t in [weth, dai, fee_token] {
                setup.call(
                    trader,
                    t,
                    U256::ZERO,
                    IERC20::approveCall {
                        spender,
                        value: U256::MAX,
                    },
                    "approve router",
                )?;
            }
        }
        setup.call(
            trader,
            router,
            U256::ZERO,
            IUniswapV2Router02::addLiquidityCall {
                tokenA: weth,
                tokenB: dai,
                amountADesired: ether(10_000),
                amountBDesired: ether(10_000_000),
                amountAMin: U256::ZERO,
                amountBMin: U256::ZERO,
                to: trader,
                deadline: setup.deadline,
            },
            "add WETH/DAI liquidity",
        )?;
        setup.call(
            trader,
            router,
            U256::ZERO,
            IUniswapV2Router02::addLiquidityCall {
                tokenA: weth,
                tokenB: fee_token,
                amountADesired: ether(1_000),
                amountBDesired: ether(1_000_000),
                amountAMin: U256::ZERO,
                amountBMin: U256::ZERO,
                to: trader,
                deadline: setup.deadline,
            },
            "add WETH/fee-token liquidity",
        )?;
        setup.call(
            trader,
            mock_router,
            U256::ZERO,
            MockAmmRouter::addLiquidityCall {
                tokenA: weth,
                tokenB: dai,
                amountADesired: ether(10_000),
                amountBDesired: ether(10_000_000),
                amountAMin: U256::ZERO,
                amountBMin: U256::ZERO,
                to: trader,
                deadline: setup.deadline,
            },
            "add mock AMM liquidity",
        )?;
        let pair_weth_dai = setup
            .evm
            .view_sol(
                factory,
                &IUniswapV2Factory::getPairCall {
                    tokenA: weth,
                    tokenB: dai,
                },
            )
            .step("getPair")?;
        let pair_weth_fee = setup
            .evm
            .view_sol(
                factory,
                &IUniswapV2Factory::getPairCall {
                    tokenA: weth,
                    tokenB: fee_token,
                },
            )
            .step("getPair")?;

        // The lending pool has DAI to lend.
        setup.call(
            trader,
            dai,
            U256::ZERO,
            MockERC20::mintCall {
                to: lending_pool,
                amount: ether(5_000_000),
            },
            "fund pool",
        )?;

        // The account's balances.
        setup.call(
            trader,
            weth,
            U256::ZERO,
            IERC20::transferCall {
                to: account,
                value: ether(110),
            },
            "fund WETH",
        )?;
        setup.call(
            trader,
            dai,
            U256::ZERO,
            MockERC20::mintCall {
                to: account,
                amount: ether(100_000),
            },
            "fund DAI",
        )?;
        setup.call(
            trader,
            usdc,
            U256::ZERO,
            MockERC20::mintCall {
                to: account,
                amount: U256::from(50_000_000_000u64),
            },
            "fund USDC",
        )?;
        setup.call(
            trader,
            fee_token,
            U256::ZERO,
            IERC20::transferCall {
                to: account,
                value: ether(10_000),
            },
            "fund fee token",
        )?;
        setup
            .evm
            .fund(account, ether(10))
            .map_err(pace_evm::Error::Fork)
            .step("fund account")?;

        // The account's lending position, opened by its owner: 10 WETH in, 5,000 DAI out.
        let open = vec![
            PaceAccount::Call {
                target: weth,
                value: U256::ZERO,
                data: IERC20::approveCall {
                    spender: lending_pool,
                    value: ether(10),
                }
                .abi_encode()
                .into(),
            },
            PaceAccount::Call {
                target: lending_pool,
                value: U256::ZERO,
                data: MockLendingPool::depositCall { amount: ether(10) }
                    .abi_encode()
                    .into(),
            },
            PaceAccount::Call {
                target: lending_pool,
                value: U256::ZERO,
                data: MockLendingPool::borrowCall {
                    amount: ether(5_000),
                }
                .abi_encode()
                .into(),
            },
        ];
        setup.call(
            owner,
            account,
            U256::ZERO,
            PaceAccount::executeBatchCall { calls: open },
            "open lending position",
        )?;

        let addrs = Addresses {
            deployer,
            owner,
            verifier,
            relayer,
            attacker,
            trader,
            payee,
            account,
            weth,
            dai,
            usdc,
            fee_token,
            factory,
            router,
            pair_weth_dai,
            pair_weth_fee,
            mock_router,
            malicious_router,
            hidden_sink,
            drainer,
            oracle,
            lending_pool,
        };
        Ok(Self { evm, addrs })
    }

    /// A swap deadline comfortably in the world's future.
    pub fn deadline(&self) -> U256 {
        U256::from(self.evm.timestamp() + 3_600)
    }

    /// Moves the chain forward by `blocks` blocks of 12 seconds.
    pub fn advance(&mut self, blocks: u64) {
        let (n, t) = (self.evm.block_number(), self.evm.timestamp());
        self.evm.set_block(n + blocks, t + 12 * blocks);
    }

    /// The account's balance of `token` (ETH for the zero address).
    pub fn balance_of(&self, token: Address, who: Address) -> U256 {
        if token == Address::ZERO {
            return self.evm.balance(who).unwrap_or_default();
        }
        self.evm
            .view_sol(token, &IERC20::balanceOfCall { account: who })
            .unwrap_or_default()
    }
}

struct Setup<'a> {
    evm: &'a mut InProcessEvm,
    deadline: U256,
}

impl Setup<'_> {
    #[allow(clippy::needless_pass_by_value)] // calls read best built inline at the call site
    fn call<C: SolCall>(
        &mut self,
        from: Address,
        to: Address,
        value: U256,
        call: C,
        step: &'static str,
    ) -> Result<(), Error> {
        self.evm
            .call_sol(from, to, value, &call)
            .step(step)
            .map(drop)
    }
}
