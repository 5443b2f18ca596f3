//! The steps every world is built from: deploy a contract, send a setup transaction, seed a
//! pool. [`crate::World::new`] composes them into the default world; test fixtures compose
//! them into smaller ones.

use crate::Error;
use alloy_primitives::{Address, Bytes, U256};
use alloy_sol_types::{SolCall, SolConstructor};
use pace_contracts::{
    Artifacts,
    bindings::{IERC20, IUniswapV2Factory, IUniswapV2Router02, MockAmmRouter, MockERC20},
};
use pace_evm::InProcessEvm;

/// Attaches the name of the failed setup step to an EVM error.
pub(crate) trait Step<T> {
    fn step(self, step: &'static str) -> Result<T, Error>;
}

impl<T> Step<T> for pace_evm::Result<T> {
    fn step(self, step: &'static str) -> Result<T, Error> {
        self.map_err(|source| Error::Setup {
            step,
            source: Box::new(source),
        })
    }
}

/// Deploys contracts and sends setup transactions on an [`InProcessEvm`], one named step at a
/// time: a failure says which step failed.
///
/// Every transaction is committed, so the order of the steps fixes the addresses (a
/// contract's address follows from its creator's nonce).
#[derive(Debug)]
pub struct Builder<'a> {
    evm: &'a mut InProcessEvm,
    artifacts: &'static Artifacts,
    deployer: Address,
    deadline: U256,
}

impl<'a> Builder<'a> {
    /// A builder deploying from `deployer`, with `deadline` for every liquidity deposit.
    /// Compiles the project's contracts (cached) on first use.
    pub fn new(
        evm: &'a mut InProcessEvm,
        deployer: Address,
        deadline: U256,
    ) -> Result<Self, Error> {
        Ok(Self {
            evm,
            artifacts: pace_contracts::artifacts()?,
            deployer,
            deadline,
        })
    }

    /// The chain being built.
    pub fn evm(&mut self) -> &mut InProcessEvm {
        self.evm
    }

    /// The account that deploys every contract unless a step says otherwise.
    pub fn deployer(&self) -> Address {
        self.deployer
    }

    /// Deploys the project contract `name` from `from` with ABI-encoded constructor arguments.
    pub fn project_from(
        &mut self,
        from: Address,
        name: &str,
        ctor_args: &[u8],
        step: &'static str,
    ) -> Result<Address, Error> {
        let code = self.artifacts.get(name)?.deploy_code(ctor_args);
        self.deploy(from, code, step)
    }

    /// Deploys the project contract `name` from the deployer.
    pub fn project(
        &mut self,
        name: &str,
        ctor_args: &[u8],
        step: &'static str,
    ) -> Result<Address, Error> {
        self.project_from(self.deployer, name, ctor_args, step)
    }

    /// Deploys the Uniswap V2 contract `name` (npm bytecode) from the deployer.
    pub fn uniswap(
        &mut self,
        name: &str,
        ctor_args: &[u8],
        step: &'static str,
    ) -> Result<Address, Error> {
        let code = pace_contracts::uniswap_v2(name)?.deploy_code(ctor_args);
        self.deploy(self.deployer, code, step)
    }

    /// Deploys a `MockERC20` with no supply (anyone may mint).
    pub fn token(
        &mut self,
        name: &str,
        symbol: &str,
        decimals: u8,
        step: &'static str,
    ) -> Result<Address, Error> {
        let ctor = MockERC20::constructorCall {
            name_: name.into(),
            symbol_: symbol.into(),
            decimals_: decimals,
        };
        self.project("MockERC20", &ctor.abi_encode(), step)
    }

    /// Deploys WETH9.
    pub fn weth9(&mut self) -> Result<Address, Error> {
        self.uniswap("WETH9", &[], "deploy WETH9")
    }

    /// Deploys Uniswap's `DeflatingERC20` (1 % burnt on every transfer) with its whole
    /// `supply` held by the deployer.
    pub fn deflating_token(&mut self, supply: U256) -> Result<Address, Error> {
        self.uniswap(
            "DeflatingERC20",
            &supply.to_be_bytes::<32>(),
            "deploy DeflatingERC20",
        )
    }

    /// Deploys the Uniswap V2 factory with the deployer as `feeToSetter`.
    pub fn uniswap_factory(&mut self) -> Result<Address, Error> {
        let ctor = IUniswapV2Factory::constructorCall {
            _feeToSetter: self.deployer,
        };
        self.uniswap(
            "UniswapV2Factory",
            &ctor.abi_encode(),
            "deploy UniswapV2Factory",
        )
    }

    /// Deploys Uniswap V2 Router02 over `factory` and `weth`.
    pub fn uniswap_router(&mut self, factory: Address, weth: Address) -> Result<Address, Error> {
        let ctor = IUniswapV2Router02::constructorCall {
            _factory: factory,
            _WETH: weth,
        };
        self.uniswap(
            "UniswapV2Router02",
            &ctor.abi_encode(),
            "deploy UniswapV2Router02",
        )
    }

    /// Sends `call` from `from` to `to` with `value` wei, committed; its decoded return.
    pub fn call<C: SolCall>(
        &mut self,
        from: Address,
        to: Address,
        value: U256,
        call: &C,
        step: &'static str,
    ) -> Result<C::Return, Error> {
        self.evm.call_sol(from, to, value, call).step(step)
    }

    /// Reads `call` from `to` without a transaction.
    pub fn view<C: SolCall>(
        &self,
        to: Address,
        call: &C,
        step: &'static str,
    ) -> Result<C::Return, Error> {
        self.evm.view_sol(to, call).step(step)
    }

    /// `from` mints `amount` of the `MockERC20` `token` to `to`.
    pub fn mint(
        &mut self,
        from: Address,
        token: Address,
        to: Address,
        amount: U256,
        step: &'static str,
    ) -> Result<(), Error> {
        let mint = MockERC20::mintCall { to, amount };
        self.call(from, token, U256::ZERO, &mint, step).map(drop)
    }

    /// `from` transfers `value` of `token` to `to`.
    pub fn transfer(
        &mut self,
        from: Address,
        token: Address,
        to: Address,
        value: U256,
        step: &'static str,
    ) -> Result<(), Error> {
        let transfer = IERC20::transferCall { to, value };
        self.call(from, token, U256::ZERO, &transfer, step)
            .map(drop)
    }

    /// `owner` lets `spender` take `value` of `token`.
    pub fn approve(
        &mut self,
        owner: Address,
        token: Address,
        spender: Address,
        value: U256,
        step: &'static str,
    ) -> Result<(), Error> {
        let approve = IERC20::approveCall { spender, value };
        self.call(owner, token, U256::ZERO, &approve, step)
            .map(drop)
    }

    /// `provider` deposits `[(token, amount); 2]` into a Uniswap V2 pool through Router02
    /// `router` (creating the pair if need be) and keeps the LP tokens.
    pub fn add_liquidity(
        &mut self,
        provider: Address,
        router: Address,
        [(a, amount_a), (b, amount_b)]: [(Address, U256); 2],
        step: &'static str,
    ) -> Result<(), Error> {
        let add = IUniswapV2Router02::addLiquidityCall {
            tokenA: a,
            tokenB: b,
            amountADesired: amount_a,
            amountBDesired: amount_b,
            amountAMin: U256::ZERO,
            amountBMin: U256::ZERO,
            to: provider,
            deadline: self.deadline,
        };
        self.call(provider, router, U256::ZERO, &add, step)
            .map(drop)
    }

    /// Like [`Self::add_liquidity`] through the project's `MockAmmRouter`.
    pub fn add_mock_liquidity(
        &mut self,
        provider: Address,
        router: Address,
        [(a, amount_a), (b, amount_b)]: [(Address, U256); 2],
        step: &'static str,
    ) -> Result<(), Error> {
        let add = MockAmmRouter::addLiquidityCall {
            tokenA: a,
            tokenB: b,
            amountADesired: amount_a,
            amountBDesired: amount_b,
            amountAMin: U256::ZERO,
            amountBMin: U256::ZERO,
            to: provider,
            deadline: self.deadline,
        };
        self.call(provider, router, U256::ZERO, &add, step)
            .map(drop)
    }

    /// `provider` deposits `amount` of `token` and `wei` of ether into the token/WETH pool
    /// through Router02 `router` and keeps the LP tokens.
    pub fn add_liquidity_eth(
        &mut self,
        provider: Address,
        router: Address,
        (token, amount): (Address, U256),
        wei: U256,
        step: &'static str,
    ) -> Result<(), Error> {
        let add = IUniswapV2Router02::addLiquidityETHCall {
            token,
            amountTokenDesired: amount,
            amountTokenMin: U256::ZERO,
            amountETHMin: U256::ZERO,
            to: provider,
            deadline: self.deadline,
        };
        self.call(provider, router, wei, &add, step).map(drop)
    }

    pub(crate) fn deploy(
        &mut self,
        from: Address,
        code: Bytes,
        step: &'static str,
    ) -> Result<Address, Error> {
        self.evm.deploy(from, code).step(step)
    }
}
