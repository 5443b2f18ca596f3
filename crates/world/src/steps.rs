//! The default world, step by step: actors, tokens, Uniswap, the mock protocols, the account,
//! liquidity, balances and the lending position. [`crate::World::new`] runs them in this order;
//! the order fixes every address, so a new step goes last.

use crate::builder::Step as _;
use crate::{Addresses, Builder, Error};
use alloy_primitives::{Address, U256};
use alloy_sol_types::{SolCall, SolConstructor};
use pace_contracts::bindings::{
    ApprovalDrainer, IUniswapV2Factory, IWETH9, MaliciousRouter, MockLendingPool, MockOracle,
    PaceAccount,
};
use pace_types::{pdr::grant_bit, units::ether};

/// The world's externally owned accounts.
#[derive(Clone, Copy)]
pub(crate) struct Actors {
    pub(crate) deployer: Address,
    pub(crate) owner: Address,
    pub(crate) verifier: Address,
    pub(crate) relayer: Address,
    pub(crate) attacker: Address,
    pub(crate) trader: Address,
    pub(crate) payee: Address,
}

impl Actors {
    pub(crate) fn new(verifier: Address) -> Self {
        Self {
            deployer: Addresses::actor("deployer"),
            owner: Addresses::actor("owner"),
            verifier,
            relayer: Addresses::actor("relayer"),
            attacker: Addresses::actor("attacker"),
            trader: Addresses::actor("trader"),
            payee: Addresses::actor("payee"),
        }
    }

    /// The actors that start with 1,000,000 ETH (the payee starts with none).
    pub(crate) fn funded(&self) -> [Address; 5] {
        [
            self.deployer,
            self.owner,
            self.relayer,
            self.attacker,
            self.trader,
        ]
    }
}

/// WETH9, DAI (18 decimals), USDC (6 decimals) and the 1 % fee-on-transfer token.
#[derive(Clone, Copy)]
pub(crate) struct Tokens {
    pub(crate) weth: Address,
    pub(crate) dai: Address,
    pub(crate) usdc: Address,
    pub(crate) fee_token: Address,
}

impl Tokens {
    /// The deployer holds the fee token's whole supply, 10,000,000.
    pub(crate) fn deploy(b: &mut Builder<'_>) -> Result<Self, Error> {
        Ok(Self {
            weth: b.weth9()?,
            dai: b.token("Dai Stablecoin", "DAI", 18, "deploy DAI")?,
            usdc: b.token("USD Coin", "USDC", 6, "deploy USDC")?,
            fee_token: b.deflating_token(ether(10_000_000))?,
        })
    }
}

/// Uniswap V2 (npm bytecode).
#[derive(Clone, Copy)]
pub(crate) struct Uniswap {
    pub(crate) factory: Address,
    pub(crate) router: Address,
}

impl Uniswap {
    pub(crate) fn deploy(b: &mut Builder<'_>, weth: Address) -> Result<Self, Error> {
        let factory = b.uniswap_factory()?;
        let router = b.uniswap_router(factory, weth)?;
        Ok(Self { factory, router })
    }
}

/// The project's mock protocols: an AMM, a malicious router skimming 5 % of every swap into a
/// hidden sink, the attacker's approval drainer, and a WETH/DAI lending pool priced by an
/// oracle at 1,000 DAI per WETH.
#[derive(Clone, Copy)]
pub(crate) struct Mocks {
    pub(crate) mock_router: Address,
    pub(crate) hidden_sink: Address,
    pub(crate) malicious_router: Address,
    pub(crate) drainer: Address,
    pub(crate) oracle: Address,
    pub(crate) lending_pool: Address,
}

impl Mocks {
    pub(crate) fn deploy(
        b: &mut Builder<'_>,
        actors: &Actors,
        tokens: &Tokens,
    ) -> Result<Self, Error> {
        let mock_router = b.project("MockAmmRouter", &[], "deploy MockAmmRouter")?;
        let hidden_sink = b.project("HiddenSink", &[], "deploy HiddenSink")?; // needs no setup
        let malicious = MaliciousRouter::constructorCall {
            router_: mock_router,
            sink_: hidden_sink,
            skimBps_: U256::from(500),
        };
        let malicious_router = b.project(
            "MaliciousRouter",
            &malicious.abi_encode(),
            "deploy MaliciousRouter",
        )?;
        let drainer = b.project_from(
            actors.attacker,
            "ApprovalDrainer",
            &ApprovalDrainer::constructorCall {}.abi_encode(),
            "deploy ApprovalDrainer",
        )?;
        let price = MockOracle::constructorCall {
            initialPrice: ether(1_000),
        };
        let oracle = b.project("MockOracle", &price.abi_encode(), "deploy MockOracle")?;
        let pool = MockLendingPool::constructorCall {
            collateralToken_: tokens.weth,
            debtToken_: tokens.dai,
            oracle_: oracle,
        };
        let lending_pool = b.project(
            "MockLendingPool",
            &pool.abi_encode(),
            "deploy MockLendingPool",
        )?;
        Ok(Self {
            mock_router,
            hidden_sink,
            malicious_router,
            drainer,
            oracle,
            lending_pool,
        })
    }
}

/// The PaceAccount of `actors.owner`, with `actors.verifier` as its verifier key.
pub(crate) fn deploy_account(b: &mut Builder<'_>, actors: &Actors) -> Result<Address, Error> {
    let ctor = PaceAccount::constructorCall {
        owner_: actors.owner,
        verifier_: actors.verifier,
    };
    b.project("PaceAccount", &ctor.abi_encode(), "deploy PaceAccount")
}

/// The Uniswap V2 pairs the liquidity step creates.
#[derive(Clone, Copy)]
pub(crate) struct Pairs {
    pub(crate) weth_dai: Address,
    pub(crate) weth_fee: Address,
}

/// The trader provides liquidity: 10,000 WETH / 10,000,000 DAI on both AMMs and 1,000 WETH /
/// 1,000,000 fee tokens on Uniswap.
pub(crate) fn provide_liquidity(
    b: &mut Builder<'_>,
    trader: Address,
    tokens: &Tokens,
    uniswap: &Uniswap,
    mocks: &Mocks,
) -> Result<Pairs, Error> {
    let Tokens {
        weth,
        dai,
        fee_token,
        ..
    } = *tokens;
    let wrap = IWETH9::depositCall {};
    b.call(trader, weth, ether(40_000), &wrap, "wrap WETH")?;
    b.mint(trader, dai, trader, ether(40_000_000), "mint DAI")?;
    let deployer = b.deployer();
    b.transfer(
        deployer,
        fee_token,
        trader,
        ether(5_000_000),
        "fund fee token",
    )?;
    for spender in [uniswap.router, mocks.mock_router] {
        for t in [weth, dai, fee_token] {
            b.approve(trader, t, spender, U256::MAX, "approve router")?;
        }
    }
    let (router, mock_router) = (uniswap.router, mocks.mock_router);
    let weth_dai = [(weth, ether(10_000)), (dai, ether(10_000_000))];
    b.add_liquidity(trader, router, weth_dai, "add WETH/DAI liquidity")?;
    let weth_fee = [(weth, ether(1_000)), (fee_token, ether(1_000_000))];
    b.add_liquidity(trader, router, weth_fee, "add WETH/fee-token liquidity")?;
    b.add_mock_liquidity(trader, mock_router, weth_dai, "add mock AMM liquidity")?;
    let pair = |b: &Builder<'_>, token: Address| {
        let get = IUniswapV2Factory::getPairCall {
            tokenA: weth,
            tokenB: token,
        };
        b.view(uniswap.factory, &get, "getPair")
    };
    Ok(Pairs {
        weth_dai: pair(b, dai)?,
        weth_fee: pair(b, fee_token)?,
    })
}

/// The lending pool gets 5,000,000 DAI to lend.
pub(crate) fn fund_pool(
    b: &mut Builder<'_>,
    trader: Address,
    dai: Address,
    pool: Address,
) -> Result<(), Error> {
    b.mint(trader, dai, pool, ether(5_000_000), "fund pool")
}

/// The account's balances: 110 WETH (10 go into the lending position), 100,000 DAI, 50,000
/// USDC, 10,000 fee tokens and 10 ETH.
pub(crate) fn fund_account(
    b: &mut Builder<'_>,
    trader: Address,
    account: Address,
    tokens: &Tokens,
) -> Result<(), Error> {
    b.transfer(trader, tokens.weth, account, ether(110), "fund WETH")?;
    b.mint(trader, tokens.dai, account, ether(100_000), "fund DAI")?;
    let usdc = U256::from(50_000_000_000u64);
    b.mint(trader, tokens.usdc, account, usdc, "fund USDC")?;
    b.transfer(
        trader,
        tokens.fee_token,
        account,
        ether(10_000),
        "fund fee token",
    )?;
    b.evm()
        .fund(account, ether(10))
        .map_err(pace_evm::Error::Fork)
        .step("fund account")
}

/// The account's lending position, opened by its owner in one batch: 10 WETH in, 5,000 DAI out;
/// then the owner declares the account's grant filter (WETH's and the pool's bits).
pub(crate) fn open_lending_position(
    b: &mut Builder<'_>,
    owner: Address,
    account: Address,
    weth: Address,
    pool: Address,
) -> Result<(), Error> {
    let call = |target: Address, data: Vec<u8>| PaceAccount::Call {
        target,
        value: U256::ZERO,
        data: data.into(),
    };
    let approve = pace_contracts::bindings::IERC20::approveCall {
        spender: pool,
        value: ether(10),
    };
    let open = vec![
        call(weth, approve.abi_encode()),
        call(
            pool,
            MockLendingPool::depositCall { amount: ether(10) }.abi_encode(),
        ),
        call(
            pool,
            MockLendingPool::borrowCall {
                amount: ether(5_000),
            }
            .abi_encode(),
        ),
    ];
    let batch = PaceAccount::executeBatchCall { calls: open };
    b.call(owner, account, U256::ZERO, &batch, "open lending position")?;
    // The raw batch set every bit of the account's grant filter (nothing simulated it); the
    // owner declares what it granted: WETH to the pool, and its position at the pool.
    let filter = PaceAccount::setGrantFilterCall {
        filter: grant_bit(weth) | grant_bit(pool),
    };
    b.call(
        owner,
        account,
        U256::ZERO,
        &filter,
        "declare the grant filter",
    )?;
    Ok(())
}

/// Who is who, once every step has run.
/// The entry points beside the standalone account: `PaceDelegate` (the code an EOA delegates
/// to with EIP-7702) and the ERC-4337 EntryPoint v0.8 at its canonical address, with a deposit
/// of [`ENTRY_POINT_DEPOSIT`] for `account` (a PDR user operation pays its gas from the
/// account's deposit, never from its ether). Deployed last, from a deployer of their own, so
/// no other address or balance of the world moves; the EntryPoint's runtime is copied to its
/// canonical address from a deployment elsewhere (what it reads of its own address is
/// recomputed; its `SenderCreator` stays the deployment's, which only account creation through
/// `initCode` uses).
#[derive(Clone, Copy)]
pub(crate) struct EntryPoints {
    pub(crate) delegate: Address,
    pub(crate) entry_point: Address,
}

/// What the world deposits at the EntryPoint for its account: 1 ether.
pub const ENTRY_POINT_DEPOSIT: u128 = 1_000_000_000_000_000_000;

alloy_sol_types::sol! {
    /// The EntryPoint's deposits (`StakeManager`).
    interface IEntryPointDeposits {
        function depositTo(address account) external payable;
    }
}

impl EntryPoints {
    pub(crate) fn deploy(b: &mut Builder<'_>, account: Address) -> Result<Self, Error> {
        let deployer = Addresses::actor("entry-points-deployer");
        let delegate = b.project_from(deployer, "PaceDelegate", &[], "deploy PaceDelegate")?;
        let code = pace_contracts::entry_point_v08()?.deploy_code(&[]);
        let deployed = b.deploy(deployer, code, "deploy the EntryPoint v0.8")?;
        let entry_point = pace_types::user_op::ENTRY_POINT_V08;
        let evm = b.evm();
        let runtime = evm
            .code(deployed)
            .map_err(pace_evm::Error::Fork)
            .step("place the EntryPoint v0.8")?;
        evm.set_code(entry_point, runtime)
            .map_err(pace_evm::Error::Fork)
            .step("place the EntryPoint v0.8")?;
        let deposit = U256::from(ENTRY_POINT_DEPOSIT);
        evm.fund(deployer, deposit)
            .map_err(pace_evm::Error::Fork)
            .step("fund the account's EntryPoint deposit")?;
        let call = IEntryPointDeposits::depositToCall { account }.abi_encode();
        evm.call(deployer, entry_point, deposit, call.into())
            .and_then(pace_evm::Outcome::into_result)
            .step("deposit for the account at the EntryPoint")?;
        Ok(Self {
            delegate,
            entry_point,
        })
    }
}

pub(crate) fn addresses(
    actors: Actors,
    account: Address,
    tokens: Tokens,
    uniswap: Uniswap,
    pairs: Pairs,
    mocks: Mocks,
    entry_points: EntryPoints,
) -> Addresses {
    Addresses {
        deployer: actors.deployer,
        owner: actors.owner,
        verifier: actors.verifier,
        relayer: actors.relayer,
        attacker: actors.attacker,
        trader: actors.trader,
        payee: actors.payee,
        account,
        weth: tokens.weth,
        dai: tokens.dai,
        usdc: tokens.usdc,
        fee_token: tokens.fee_token,
        factory: uniswap.factory,
        router: uniswap.router,
        pair_weth_dai: pairs.weth_dai,
        pair_weth_fee: pairs.weth_fee,
        mock_router: mocks.mock_router,
        malicious_router: mocks.malicious_router,
        hidden_sink: mocks.hidden_sink,
        drainer: mocks.drainer,
        oracle: mocks.oracle,
        lending_pool: mocks.lending_pool,
        delegate: entry_points.delegate,
        entry_point: entry_points.entry_point,
    }
}
