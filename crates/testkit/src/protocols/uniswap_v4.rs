//! Uniswap V4 from its npm bytecode (`@uniswap/v4-core` 1.0.2, BUSL-1.1): the `PoolManager`,
//! v4-core's liquidity test router, pools of the world's tokens opened and filled full range,
//! and a Universal Router 2.1 built with the manager, so that its `V4_SWAP` command reaches
//! them. The V4 trade an account makes through that router, encoded.
//!
//! Deployed by tests only, read from `node_modules/` at run time (docs/third-party.md).

use super::{
    actions::fund_and_approve,
    chain::{Chain, Context as _, Result},
    npm,
    uniswap_v3::{UniswapV3, sqrt_price_x96},
};
use alloy_primitives::{
    Address, B256, Bytes, I256, U256,
    aliases::{I24, U24, U160},
    keccak256,
};
use alloy_sol_types::{SolCall, SolConstructor, SolValue, sol};
use pace_types::Call;
use pace_world::Addresses;

sol! {
    #![sol(all_derives)]
    /// `PoolKey`.
    struct V4PoolKey {
        address currency0;
        address currency1;
        uint24 fee;
        int24 tickSpacing;
        address hooks;
    }
    /// `ModifyLiquidityParams`.
    struct V4ModifyLiquidityParams {
        int24 tickLower;
        int24 tickUpper;
        int256 liquidityDelta;
        bytes32 salt;
    }
    /// `IV4Router.ExactInputSingleParams`.
    struct V4ExactInputSingleParams {
        V4PoolKey poolKey;
        bool zeroForOne;
        uint128 amountIn;
        uint128 amountOutMinimum;
        bytes hookData;
    }
    /// The manager and the liquidity router, as the bed calls them.
    interface IV4Bed {
        function initialize(V4PoolKey key, uint160 sqrtPriceX96) external returns (int24 tick);
        function modifyLiquidity(V4PoolKey key, V4ModifyLiquidityParams params, bytes hookData)
            external payable returns (int256 delta);
    }
    contract V4PoolManager {
        constructor(address initialOwner);
    }
    contract V4LiquidityRouter {
        constructor(address manager);
    }
}

/// The Universal Router's `V4_SWAP` command.
pub const V4_SWAP: u8 = 0x10;
/// `Actions.SWAP_EXACT_IN_SINGLE`, `SETTLE_ALL`, `TAKE`, `TAKE_ALL`.
pub mod actions {
    /// `(ExactInputSingleParams)`.
    pub const SWAP_EXACT_IN_SINGLE: u8 = 0x06;
    /// `(currency, maxAmount)`: pay what the swap owes, from the caller.
    pub const SETTLE_ALL: u8 = 0x0c;
    /// `(currency, recipient, amount)`: pay `recipient`.
    pub const TAKE: u8 = 0x0e;
    /// `(currency, minAmount)`: pay the caller what the swap is owed.
    pub const TAKE_ALL: u8 = 0x0f;
}

/// A full-range position's ticks at tick spacing 60 (`TickMath.MIN_TICK` rounded in).
const FULL_RANGE: i32 = 887_220;

/// The deployment.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UniswapV4 {
    /// The `PoolManager`: every pool's state and tokens.
    pub pool_manager: Address,
    /// v4-core's `PoolModifyLiquidityTest`.
    pub liquidity_router: Address,
    /// A Universal Router built with the manager (and the bed's Permit2, V2 and V3).
    pub router: Address,
    /// The router's Permit2-compatible contract (the bed's).
    pub permit2: Address,
    /// WETH/DAI, 0.3 %, tick spacing 60, no hooks, 1,000 DAI per WETH, 100 WETH + 100,000 DAI
    /// full range.
    pub weth_dai: V4PoolKey,
    /// Native ether/DAI (`Address::ZERO` is currency0), as `weth_dai`: 100 ether + 100,000 DAI.
    pub eth_dai: V4PoolKey,
}

/// Opens a pool of the two `(currency, amount)` (`Address::ZERO`: native ether) in the manager
/// at the ratio of the amounts, 0.3 %, tick spacing 60, no hooks, and fills it with them over
/// the full range through the liquidity router, paid by `deployer`.
fn open_pool<C: Chain>(
    chain: &mut C,
    world: &Addresses,
    (pool_manager, liquidity_router): (Address, Address),
    deployer: Address,
    mut deposit: [(Address, U256); 2],
) -> Result<V4PoolKey> {
    deposit.sort_by_key(|(currency, _)| *currency);
    let [(currency0, amount0), (currency1, amount1)] = deposit;
    let key = V4PoolKey {
        currency0,
        currency1,
        fee: U24::from(3_000u32),
        tickSpacing: I24::try_from(60).expect("fits"),
        hooks: Address::ZERO,
    };
    chain
        .send_sol(
            deployer,
            pool_manager,
            &IV4Bed::initializeCall {
                key: key.clone(),
                sqrtPriceX96: U160::from(sqrt_price_x96(amount0, amount1)),
            },
        )
        .step("initialize the V4 pool")?;
    let mut value = U256::ZERO;
    for (currency, amount) in deposit {
        // A little over the deposit: the full range's ends take a sliver more.
        let funded = amount + amount / U256::from(100u8);
        if currency.is_zero() {
            chain
                .fund(deployer, funded)
                .step("fund the V4 pool's ether")?;
            value = funded;
        } else {
            fund_and_approve(chain, world, currency, (deployer, liquidity_router), funded)?;
        }
    }
    // Full-range liquidity L = √(amount0 · amount1).
    let liquidity = (amount0 * amount1).root(2);
    let fill = IV4Bed::modifyLiquidityCall {
        key: key.clone(),
        params: V4ModifyLiquidityParams {
            tickLower: I24::try_from(-FULL_RANGE).expect("fits"),
            tickUpper: I24::try_from(FULL_RANGE).expect("fits"),
            liquidityDelta: I256::try_from(liquidity).expect("fits"),
            salt: B256::ZERO,
        },
        hookData: Bytes::new(),
    };
    chain
        .send(
            deployer,
            liquidity_router,
            value,
            SolCall::abi_encode(&fill).into(),
        )
        .step("fill the V4 pool")?;
    Ok(key)
}

impl UniswapV4 {
    /// Deploys the manager, the liquidity router and a Universal Router over them from
    /// `deployer`, and opens and fills the WETH/DAI pool.
    pub fn deploy<C: Chain>(
        chain: &mut C,
        world: &Addresses,
        v3: &UniswapV3,
        permit2: Address,
        deployer: Address,
    ) -> Result<Self> {
        let args = V4PoolManager::constructorCall {
            initialOwner: deployer,
        }
        .abi_encode();
        let pool_manager = chain
            .deploy(
                deployer,
                npm::uniswap_v4::pool_manager()?.deploy_code(&args)?,
            )
            .step("deploy the V4 PoolManager")?;
        let args = V4LiquidityRouter::constructorCall {
            manager: pool_manager,
        }
        .abi_encode();
        let liquidity_router = chain
            .deploy(
                deployer,
                npm::uniswap_v4::modify_liquidity_router()?.deploy_code(&args)?,
            )
            .step("deploy the V4 liquidity router")?;
        let router = super::universal_router::UniversalRouter::deploy_router(
            chain,
            world,
            v3,
            (permit2, pool_manager),
            deployer,
        )?;
        let managers = (pool_manager, liquidity_router);
        let weth_dai = open_pool(
            chain,
            world,
            managers,
            deployer,
            [
                (world.weth, super::ether(100)),
                (world.dai, super::ether(100_000)),
            ],
        )?;
        let eth_dai = open_pool(
            chain,
            world,
            managers,
            deployer,
            [
                (Address::ZERO, super::ether(100)),
                (world.dai, super::ether(100_000)),
            ],
        )?;
        Ok(Self {
            pool_manager,
            liquidity_router,
            router,
            permit2,
            weth_dai,
            eth_dai,
        })
    }

    /// The pool's id: `keccak256(abi.encode(key))`.
    pub fn id(key: &V4PoolKey) -> B256 {
        keccak256(key.abi_encode())
    }

    /// `V4_SWAP`'s input selling `amount_in` of `token_in` in `key`'s pool with the swap's
    /// `min_out`, settled by the caller, and the output taken by the caller (`TAKE_ALL` with
    /// `take_min`) or by `recipient` (`TAKE`).
    pub fn exact_in_single(
        key: &V4PoolKey,
        token_in: Address,
        amount_in: u128,
        min_out: u128,
        take: Option<Address>,
    ) -> Bytes {
        let zero_for_one = token_in == key.currency0;
        let token_out = if zero_for_one {
            key.currency1
        } else {
            key.currency0
        };
        let swap = V4ExactInputSingleParams {
            poolKey: key.clone(),
            zeroForOne: zero_for_one,
            amountIn: amount_in,
            amountOutMinimum: min_out,
            hookData: Bytes::new(),
        };
        let settle: Bytes = (token_in, U256::from(amount_in)).abi_encode_params().into();
        let (last, taken): (u8, Bytes) = match take {
            None => (
                actions::TAKE_ALL,
                (token_out, U256::ZERO).abi_encode_params().into(),
            ),
            Some(recipient) => (
                actions::TAKE,
                (token_out, recipient, U256::ZERO)
                    .abi_encode_params()
                    .into(),
            ),
        };
        let list = Bytes::from(vec![
            actions::SWAP_EXACT_IN_SINGLE,
            actions::SETTLE_ALL,
            last,
        ]);
        let params: Vec<Bytes> = vec![swap.abi_encode().into(), settle, taken];
        (list, params).abi_encode_params().into()
    }

    /// The Universal Router built with the manager, with the calls it is sent through.
    pub fn universal_router(&self) -> super::universal_router::UniversalRouter {
        super::universal_router::UniversalRouter {
            router: self.router,
            permit2: self.permit2,
        }
    }

    /// The everyday V4 trade through the router: approve `token_in` to Permit2, let the router
    /// take `amount` through Permit2 until `expiration`, and `execute` one `V4_SWAP` (`input`).
    pub fn via_permit2(
        &self,
        token_in: Address,
        amount: U256,
        input: Bytes,
        expiration: u64,
        deadline: U256,
    ) -> Vec<Call> {
        let router = self.universal_router();
        vec![
            router.approve_permit2(token_in, amount),
            router.permit2_approve(
                token_in,
                self.router,
                U160::saturating_from(amount),
                expiration,
            ),
            router.execute(&[(V4_SWAP, input)], deadline),
        ]
    }
}
