//! Uniswap V3 from the npm bytecode: the factory, SwapRouter, NonfungiblePositionManager and
//! QuoterV2, with pools for the world's tokens at the world's prices, full-range liquidity from
//! the world's trader and a few observations written over time, so `observe` gives a TWAP over
//! [`TWAP_WINDOW`] seconds.

use super::{
    actions::{approve, call, fund_token},
    bindings::{
        IUniswapV3Factory, IUniswapV3Pool, NonfungiblePositionManager, QuoterV2, SwapRouter,
    },
    chain::{Chain, Context as _, Error, Result},
    npm::{self, POOL_INIT_CODE_HASH},
};
use alloy_primitives::{
    Address, B256, U256, U512,
    aliases::{I24, U24, U160},
};
use alloy_sol_types::SolConstructor;
use pace_types::{Call, units::ether};
use pace_world::Addresses;

/// The 0.05 % fee tier (tick spacing 10).
pub const FEE_LOW: u32 = 500;
/// The 0.3 % fee tier (tick spacing 60).
pub const FEE_MEDIUM: u32 = 3_000;
/// Observation slots every pool is given (`increaseObservationCardinalityNext`).
pub const OBSERVATION_CARDINALITY: u16 = 32;
/// The bed writes an observation per pool every this many blocks...
pub const OBSERVATION_INTERVAL_BLOCKS: u64 = 50;
/// ...this many times after the pools open, so their history spans 2,400 s.
pub const OBSERVATION_ROUNDS: u64 = 4;
/// A TWAP window every pool's history covers once deployed, in seconds.
pub const TWAP_WINDOW: u32 = 1_800;
/// The lowest tick (Uniswap's `TickMath.MIN_TICK`).
pub const MIN_TICK: i32 = -887_272;
/// The highest tick (`TickMath.MAX_TICK`).
pub const MAX_TICK: i32 = 887_272;

/// One Uniswap V3 pool.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct V3Pool {
    /// The pool.
    pub address: Address,
    /// Its lower-addressed token.
    pub token0: Address,
    /// Its other token.
    pub token1: Address,
    /// Its fee in hundredths of a bip ([`FEE_LOW`], [`FEE_MEDIUM`]).
    pub fee: u32,
    /// Its tick spacing.
    pub tick_spacing: i32,
}

/// The pool's current state from `slot0`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Slot0 {
    /// √(token1/token0) in Q64.96.
    pub sqrt_price_x96: U256,
    /// The current tick.
    pub tick: i32,
    /// Observations stored.
    pub observation_cardinality: u16,
}

impl V3Pool {
    /// The widest range its tick spacing allows.
    pub fn full_range(&self) -> (i32, i32) {
        let s = self.tick_spacing;
        (MIN_TICK / s * s, MAX_TICK / s * s)
    }

    /// A range of `spacings` tick spacings on each side of `tick` (rounded to the spacing).
    pub fn range_around(&self, tick: i32, spacings: i32) -> (i32, i32) {
        let s = self.tick_spacing;
        let base = tick.div_euclid(s) * s;
        (base - spacings * s, base + (spacings + 1) * s)
    }

    /// `slot0`.
    pub fn slot0<C: Chain>(&self, chain: &C) -> Result<Slot0> {
        let s = chain.view_sol(self.address, &IUniswapV3Pool::slot0Call {})?;
        Ok(Slot0 {
            sqrt_price_x96: U256::from(s.sqrtPriceX96),
            tick: s.tick.as_i32(),
            observation_cardinality: s.observationCardinality,
        })
    }

    /// The time-weighted average tick over the last `seconds` (from `observe`).
    pub fn twap_tick<C: Chain>(&self, chain: &C, seconds: u32) -> Result<i32> {
        let observed = chain.view_sol(
            self.address,
            &IUniswapV3Pool::observeCall {
                secondsAgos: vec![seconds, 0],
            },
        )?;
        let [then, now] = observed.tickCumulatives[..] else {
            return Err(Error::msg("observe returned other than two cumulatives"));
        };
        let delta = now.as_i64() - then.as_i64();
        Ok(i32::try_from(delta.div_euclid(i64::from(seconds))).unwrap_or(i32::MAX))
    }
}

/// The deployment.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct UniswapV3 {
    /// UniswapV3Factory.
    pub factory: Address,
    /// SwapRouter (`exactInputSingle`, `exactInput`, ...).
    pub swap_router: Address,
    /// NonfungiblePositionManager (position NFTs; no token descriptor: `tokenURI` reverts).
    pub position_manager: Address,
    /// QuoterV2 (quote with a read-only call).
    pub quoter: Address,
    /// keccak256 of the pool creation code (equals [`POOL_INIT_CODE_HASH`]).
    pub pool_init_code_hash: B256,
    /// WETH/DAI, 0.3 %, 1,000 DAI per WETH, 1,000 WETH + 1,000,000 DAI full range.
    pub weth_dai: V3Pool,
    /// WETH/USDC, 0.05 %, 1,000 USDC per WETH, 1,000 WETH + 1,000,000 USDC full range.
    pub weth_usdc: V3Pool,
    /// DAI/USDC, 0.05 %, 1:1, 1,000,000 of each full range.
    pub dai_usdc: V3Pool,
}

/// √(amount1 / amount0) in Q64.96: the `sqrtPriceX96` at which `amount0` of token0 is worth
/// `amount1` of token1 (smallest units).
pub fn sqrt_price_x96(amount0: U256, amount1: U256) -> U256 {
    let ratio: U512 = (U512::from(amount1) << 192) / U512::from(amount0);
    ratio.root(2).to::<U256>()
}

/// One pool the bed opens: `amount_a` of `a` is worth `amount_b` of `b`, both deposited.
struct PoolSpec {
    a: Address,
    amount_a: U256,
    b: Address,
    amount_b: U256,
    fee: u32,
}

impl UniswapV3 {
    /// Deploys Uniswap V3 from `deployer` and opens the pools with the world's trader as the
    /// liquidity provider, then writes [`OBSERVATION_ROUNDS`] observations per pool, one every
    /// [`OBSERVATION_INTERVAL_BLOCKS`] blocks (the chain moves 2,400 s forward).
    pub fn deploy<C: Chain>(chain: &mut C, world: &Addresses, deployer: Address) -> Result<Self> {
        let pool_init_code_hash = npm::uniswap::pool()?.init_code_hash()?;
        if pool_init_code_hash != POOL_INIT_CODE_HASH {
            return Err(Error::msg(format!(
                "the npm pool's init-code hash {pool_init_code_hash} is not the periphery's \
                 {POOL_INIT_CODE_HASH}"
            )));
        }
        let factory = chain
            .deploy(deployer, npm::uniswap::factory()?.deploy_code(&[])?)
            .step("deploy UniswapV3Factory")?;
        let weth = world.weth;
        let args = SwapRouter::constructorCall {
            _factory: factory,
            _WETH9: weth,
        }
        .abi_encode();
        let swap_router = chain
            .deploy(deployer, npm::uniswap::swap_router()?.deploy_code(&args)?)
            .step("deploy SwapRouter")?;
        let args = NonfungiblePositionManager::constructorCall {
            _factory: factory,
            _WETH9: weth,
            _tokenDescriptor_: Address::ZERO,
        }
        .abi_encode();
        let position_manager = chain
            .deploy(
                deployer,
                npm::uniswap::position_manager()?.deploy_code(&args)?,
            )
            .step("deploy NonfungiblePositionManager")?;
        let args = QuoterV2::constructorCall {
            _factory: factory,
            _WETH9: weth,
        }
        .abi_encode();
        let quoter = chain
            .deploy(deployer, npm::uniswap::quoter_v2()?.deploy_code(&args)?)
            .step("deploy QuoterV2")?;
        let mut v3 = Self {
            factory,
            swap_router,
            position_manager,
            quoter,
            pool_init_code_hash,
            weth_dai: V3Pool::placeholder(),
            weth_usdc: V3Pool::placeholder(),
            dai_usdc: V3Pool::placeholder(),
        };
        let usdc = |n: u64| U256::from(n) * U256::from(1_000_000u64);
        let specs = [
            (
                world.weth,
                ether(1_000),
                world.dai,
                ether(1_000_000),
                FEE_MEDIUM,
            ),
            (
                world.weth,
                ether(1_000),
                world.usdc,
                usdc(1_000_000),
                FEE_LOW,
            ),
            (
                world.dai,
                ether(1_000_000),
                world.usdc,
                usdc(1_000_000),
                FEE_LOW,
            ),
        ]
        .map(|(a, amount_a, b, amount_b, fee)| PoolSpec {
            a,
            amount_a,
            b,
            amount_b,
            fee,
        });
        let mut pools = Vec::new();
        for spec in &specs {
            pools.push(v3.open_pool(chain, world, deployer, spec)?);
        }
        (v3.weth_dai, v3.weth_usdc, v3.dai_usdc) = (pools[0], pools[1], pools[2]);
        v3.write_observations(chain, world, &specs)?;
        Ok(v3)
    }

    /// Creates and initialises one pool, raises its observation cardinality and deposits the
    /// trader's full-range liquidity.
    fn open_pool<C: Chain>(
        &self,
        chain: &mut C,
        world: &Addresses,
        deployer: Address,
        spec: &PoolSpec,
    ) -> Result<V3Pool> {
        let (token0, amount0, token1, amount1) = if spec.a < spec.b {
            (spec.a, spec.amount_a, spec.b, spec.amount_b)
        } else {
            (spec.b, spec.amount_b, spec.a, spec.amount_a)
        };
        let fee = U24::from(spec.fee);
        let create = NonfungiblePositionManager::createAndInitializePoolIfNecessaryCall {
            token0,
            token1,
            fee,
            sqrtPriceX96: U160::from(sqrt_price_x96(amount0, amount1)),
        };
        chain
            .send_sol(deployer, self.position_manager, &create)
            .step("create and initialise a V3 pool")?;
        let get = IUniswapV3Factory::getPoolCall {
            tokenA: token0,
            tokenB: token1,
            fee,
        };
        let address = chain.view_sol(self.factory, &get)?;
        let spacing = chain.view_sol(
            self.factory,
            &IUniswapV3Factory::feeAmountTickSpacingCall { fee },
        )?;
        let pool = V3Pool {
            address,
            token0,
            token1,
            fee: spec.fee,
            tick_spacing: spacing.as_i32(),
        };
        let grow = IUniswapV3Pool::increaseObservationCardinalityNextCall {
            observationCardinalityNext: OBSERVATION_CARDINALITY,
        };
        chain
            .send_sol(deployer, address, &grow)
            .step("raise the observation cardinality")?;
        let lp = world.trader;
        for (token, amount) in [(token0, amount0), (token1, amount1)] {
            fund_token(chain, world, token, lp, amount).step("fund the V3 liquidity")?;
        }
        let deadline = deadline(chain)?;
        let calls = self.mint_position(&pool, pool.full_range(), (amount0, amount1), lp, deadline);
        for c in calls {
            chain
                .send(lp, c.target, c.value, c.data)
                .step("mint the V3 liquidity")?;
        }
        Ok(pool)
    }

    /// Every [`OBSERVATION_INTERVAL_BLOCKS`] blocks the trader swaps a thousandth of each
    /// pool's deposit, alternating direction, so each pool writes an observation.
    fn write_observations<C: Chain>(
        &self,
        chain: &mut C,
        world: &Addresses,
        specs: &[PoolSpec],
    ) -> Result<()> {
        let lp = world.trader;
        let pools = [self.weth_dai, self.weth_usdc, self.dai_usdc];
        for round in 0..OBSERVATION_ROUNDS {
            chain.advance(OBSERVATION_INTERVAL_BLOCKS)?;
            let deadline = deadline(chain)?;
            for (pool, spec) in pools.iter().zip(specs) {
                let (token_in, amount) = if round % 2 == 0 {
                    (spec.a, spec.amount_a / U256::from(1_000))
                } else {
                    (spec.b, spec.amount_b / U256::from(1_000))
                };
                fund_token(chain, world, token_in, lp, amount)?;
                let swap =
                    self.exact_input_single(pool, token_in, amount, U256::ZERO, lp, deadline);
                for c in swap {
                    chain
                        .send(lp, c.target, c.value, c.data)
                        .step("write an observation")?;
                }
            }
        }
        Ok(())
    }

    /// Swap `amount_in` of `token_in` for the pool's other token through SwapRouter, paid to
    /// `recipient`, at least `min_out`: the approval and `exactInputSingle`.
    pub fn exact_input_single(
        &self,
        pool: &V3Pool,
        token_in: Address,
        amount_in: U256,
        min_out: U256,
        recipient: Address,
        deadline: U256,
    ) -> Vec<Call> {
        let token_out = if token_in == pool.token0 {
            pool.token1
        } else {
            pool.token0
        };
        let params = SwapRouter::ExactInputSingleParams {
            tokenIn: token_in,
            tokenOut: token_out,
            fee: U24::from(pool.fee),
            recipient,
            deadline,
            amountIn: amount_in,
            amountOutMinimum: min_out,
            sqrtPriceLimitX96: U160::ZERO,
        };
        vec![
            approve(token_in, self.swap_router, amount_in),
            call(
                self.swap_router,
                &SwapRouter::exactInputSingleCall { params },
            ),
        ]
    }

    /// Deposit up to `(amount0, amount1)` into `pool` between `ticks` through the
    /// NonfungiblePositionManager, the position NFT minted to `recipient`: both approvals and
    /// `mint` (no minimums).
    pub fn mint_position(
        &self,
        pool: &V3Pool,
        (tick_lower, tick_upper): (i32, i32),
        (amount0, amount1): (U256, U256),
        recipient: Address,
        deadline: U256,
    ) -> Vec<Call> {
        let params = NonfungiblePositionManager::MintParams {
            token0: pool.token0,
            token1: pool.token1,
            fee: U24::from(pool.fee),
            tickLower: I24::try_from(tick_lower).unwrap_or(I24::MIN),
            tickUpper: I24::try_from(tick_upper).unwrap_or(I24::MAX),
            amount0Desired: amount0,
            amount1Desired: amount1,
            amount0Min: U256::ZERO,
            amount1Min: U256::ZERO,
            recipient,
            deadline,
        };
        vec![
            approve(pool.token0, self.position_manager, amount0),
            approve(pool.token1, self.position_manager, amount1),
            call(
                self.position_manager,
                &NonfungiblePositionManager::mintCall { params },
            ),
        ]
    }

    /// What QuoterV2 says `amount_in` of `token_in` buys in `pool` now.
    pub fn quote<C: Chain>(
        &self,
        chain: &C,
        pool: &V3Pool,
        token_in: Address,
        amount_in: U256,
    ) -> Result<U256> {
        let token_out = if token_in == pool.token0 {
            pool.token1
        } else {
            pool.token0
        };
        let params = QuoterV2::QuoteExactInputSingleParams {
            tokenIn: token_in,
            tokenOut: token_out,
            amountIn: amount_in,
            fee: U24::from(pool.fee),
            sqrtPriceLimitX96: U160::ZERO,
        };
        Ok(chain
            .view_sol(self.quoter, &QuoterV2::quoteExactInputSingleCall { params })?
            .amountOut)
    }

    /// The three pools.
    pub fn pools(&self) -> [V3Pool; 3] {
        [self.weth_dai, self.weth_usdc, self.dai_usdc]
    }
}

impl V3Pool {
    fn placeholder() -> Self {
        Self {
            address: Address::ZERO,
            token0: Address::ZERO,
            token1: Address::ZERO,
            fee: 0,
            tick_spacing: 1,
        }
    }
}

/// A deadline an hour after `chain`'s latest timestamp.
pub fn deadline<C: Chain>(chain: &C) -> Result<U256> {
    Ok(U256::from(chain.timestamp()? + 3_600))
}

/// Deploys SwapRouter02 (`@uniswap/swap-router-contracts`) over the world's V2 factory and
/// `v3`'s factory and position manager. It finds V2 pairs and V3 pools by their mainnet
/// init-code hashes, which the world's pairs and the bed's pools have.
pub fn deploy_swap_router02<C: Chain>(
    chain: &mut C,
    world: &Addresses,
    v3: &UniswapV3,
    deployer: Address,
) -> Result<Address> {
    use alloy_sol_types::SolValue as _;
    let args = (world.factory, v3.factory, v3.position_manager, world.weth).abi_encode_params();
    chain
        .deploy(deployer, npm::uniswap::swap_router02()?.deploy_code(&args)?)
        .step("deploy SwapRouter02")
}
