//! Balancer V2 from its npm bytecode (`@balancer-labs/v2-deployments`, GPL-3.0-only): the
//! Authorizer, the Vault over the world's WETH, the weighted pool factory, and weighted pools
//! of the world's tokens seeded by their first join; the swaps an account makes through the
//! Vault, encoded.
//!
//! Deployed by tests only, read from `node_modules/` at run time (docs/third-party.md).

use super::{
    actions::{approve, call, fund_and_approve},
    chain::{Chain, Context as _, Result},
    npm,
};
use alloy_primitives::{Address, B256, Bytes, I256, U256};
use alloy_sol_types::{SolConstructor, SolValue, sol};
use pace_abi::balancer::IBalancerVault as Vault;
use pace_types::Call;
use pace_world::Addresses;

sol! {
    /// The constructors and the calls the bed makes (`IVault`, `WeightedPoolFactory`,
    /// `BasePool`).
    interface IBalancerBed {
        struct JoinPoolRequest {
            address[] assets;
            uint256[] maxAmountsIn;
            bytes userData;
            bool fromInternalBalance;
        }
        struct ExitPoolRequest {
            address[] assets;
            uint256[] minAmountsOut;
            bytes userData;
            bool toInternalBalance;
        }
        function joinPool(bytes32 poolId, address sender, address recipient, JoinPoolRequest request)
            external payable;
        function exitPool(bytes32 poolId, address sender, address recipient, ExitPoolRequest request)
            external;
        function create(
            string name,
            string symbol,
            address[] tokens,
            uint256[] weights,
            uint256 swapFeePercentage,
            address owner
        ) external returns (address);
        function getPoolId() external view returns (bytes32);
        function getProtocolFeesCollector() external view returns (address);
    }
    contract BalancerAuthorizer {
        constructor(address admin);
    }
    contract BalancerVault {
        constructor(address authorizer, address weth, uint256 pauseWindowDuration, uint256 bufferPeriodDuration);
    }
    contract BalancerWeightedPoolFactory {
        constructor(address vault);
    }
}

/// `IVault.SwapKind.GIVEN_IN`.
pub const GIVEN_IN: u8 = 0;
/// `IVault.SwapKind.GIVEN_OUT`.
pub const GIVEN_OUT: u8 = 1;
/// `WeightedPool.JoinKind.INIT`.
const JOIN_INIT: u8 = 0;
/// `WeightedPool.JoinKind.EXACT_TOKENS_IN_FOR_BPT_OUT`.
const JOIN_EXACT_TOKENS_IN: u8 = 1;
/// `WeightedPool.ExitKind.EXACT_BPT_IN_FOR_TOKENS_OUT`.
const EXIT_EXACT_BPT_IN: u8 = 1;

/// The deployment.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Balancer {
    /// The Vault: every pool's tokens, every swap's entry point.
    pub vault: Address,
    /// The Vault's authorizer (its admin is the deployer).
    pub authorizer: Address,
    /// The weighted pool factory.
    pub weighted_factory: Address,
    /// The Vault's protocol fee collector (a join or an exit reads its fee).
    pub fees_collector: Address,
}

/// A weighted pool.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WeightedPool {
    /// The pool (its BPT is the pool's own ERC-20).
    pub pool: Address,
    /// Its id in the Vault.
    pub id: B256,
    /// Its tokens, sorted as the Vault keeps them.
    pub tokens: Vec<Address>,
}

impl Balancer {
    /// Deploys the Authorizer, the Vault over the world's WETH (no pause window) and the
    /// weighted pool factory from `deployer`.
    pub fn deploy<C: Chain>(chain: &mut C, world: &Addresses, deployer: Address) -> Result<Self> {
        let args = BalancerAuthorizer::constructorCall { admin: deployer }.abi_encode();
        let authorizer = chain
            .deploy(deployer, npm::balancer::authorizer()?.deploy_code(&args)?)
            .step("deploy the Balancer Authorizer")?;
        let args = BalancerVault::constructorCall {
            authorizer,
            weth: world.weth,
            pauseWindowDuration: U256::ZERO,
            bufferPeriodDuration: U256::ZERO,
        }
        .abi_encode();
        let vault = chain
            .deploy(deployer, npm::balancer::vault()?.deploy_code(&args)?)
            .step("deploy the Balancer Vault")?;
        let args = BalancerWeightedPoolFactory::constructorCall { vault }.abi_encode();
        let weighted_factory = chain
            .deploy(
                deployer,
                npm::balancer::weighted_pool_factory()?.deploy_code(&args)?,
            )
            .step("deploy the weighted pool factory")?;
        let fees_collector = chain
            .view_sol(vault, &IBalancerBed::getProtocolFeesCollectorCall {})
            .step("the Vault's fee collector")?;
        Ok(Self {
            vault,
            authorizer,
            weighted_factory,
            fees_collector,
        })
    }

    /// Creates a weighted pool of `seed`'s world tokens at their `weights` (18-decimal
    /// fractions summing to one, in `seed`'s order) with a `fee` (18 decimals) and seeds it
    /// with `seed`'s amounts from `deployer` (funded here), who keeps the pool's first shares.
    pub fn weighted_pool<C: Chain>(
        &self,
        chain: &mut C,
        world: &Addresses,
        deployer: Address,
        seed: &[(Address, U256, U256)],
        fee: U256,
    ) -> Result<WeightedPool> {
        let mut seed = seed.to_vec();
        seed.sort_by_key(|(token, ..)| *token);
        let tokens: Vec<Address> = seed.iter().map(|(t, ..)| *t).collect();
        let create = IBalancerBed::createCall {
            name: "PACE weighted pool".into(),
            symbol: "PACE-BPT".into(),
            tokens: tokens.clone(),
            weights: seed.iter().map(|(_, w, _)| *w).collect(),
            swapFeePercentage: fee,
            owner: Address::ZERO,
        };
        let pool = chain
            .view_sol(self.weighted_factory, &create)
            .step("predict the weighted pool")?;
        chain
            .send_sol(deployer, self.weighted_factory, &create)
            .step("create the weighted pool")?;
        let id = chain
            .view_sol(pool, &IBalancerBed::getPoolIdCall {})
            .step("the pool id")?;
        let amounts: Vec<U256> = seed.iter().map(|(.., a)| *a).collect();
        for &(token, _, amount) in &seed {
            fund_and_approve(chain, world, token, (deployer, self.vault), amount)?;
        }
        let join = IBalancerBed::joinPoolCall {
            poolId: id,
            sender: deployer,
            recipient: deployer,
            request: IBalancerBed::JoinPoolRequest {
                assets: tokens.clone(),
                maxAmountsIn: amounts.clone(),
                userData: (U256::from(JOIN_INIT), amounts).abi_encode_params().into(),
                fromInternalBalance: false,
            },
        };
        chain
            .send_sol(deployer, self.vault, &join)
            .step("seed the weighted pool")?;
        Ok(WeightedPool { pool, id, tokens })
    }

    /// `account`'s Vault `swap` of `amount` through `pool` from `asset_in` to `asset_out`
    /// (`address(0)`: ether), `kind` [`GIVEN_IN`] or [`GIVEN_OUT`] with its `limit`, paid from
    /// and to token balances, the output to `recipient`.
    #[allow(clippy::too_many_arguments)]
    pub fn swap(
        &self,
        pool: &WeightedPool,
        kind: u8,
        asset_in: Address,
        asset_out: Address,
        amount: U256,
        limit: U256,
        account: Address,
        recipient: Address,
        deadline: U256,
    ) -> Call {
        call(
            self.vault,
            &Vault::swapCall {
                singleSwap: Vault::SingleSwap {
                    poolId: pool.id,
                    kind,
                    assetIn: asset_in,
                    assetOut: asset_out,
                    amount,
                    userData: Bytes::new(),
                },
                funds: funds(account, recipient),
                limit,
                deadline,
            },
        )
    }

    /// `account`'s exact-input `batchSwap` of `amount_in` along `route` (each hop `(pool,
    /// token out)` from `token_in`), receiving at least `min_out` of the last token at
    /// `recipient`.
    #[allow(clippy::too_many_arguments)]
    pub fn batch_swap(
        &self,
        token_in: Address,
        route: &[(&WeightedPool, Address)],
        amount_in: U256,
        min_out: U256,
        account: Address,
        recipient: Address,
        deadline: U256,
    ) -> Call {
        let mut assets = vec![token_in];
        assets.extend(route.iter().map(|(_, t)| *t));
        let swaps = route
            .iter()
            .enumerate()
            .map(|(i, (pool, _))| Vault::BatchSwapStep {
                poolId: pool.id,
                assetInIndex: U256::from(i),
                assetOutIndex: U256::from(i + 1),
                amount: if i == 0 { amount_in } else { U256::ZERO },
                userData: Bytes::new(),
            })
            .collect();
        let mut limits = vec![I256::ZERO; assets.len()];
        limits[0] = I256::try_from(amount_in).unwrap_or(I256::MAX);
        let last = assets.len() - 1;
        limits[last] = -I256::try_from(min_out).unwrap_or(I256::MAX);
        call(
            self.vault,
            &Vault::batchSwapCall {
                kind: GIVEN_IN,
                swaps,
                assets,
                funds: funds(account, recipient),
                limits,
                deadline,
            },
        )
    }

    /// `account`'s `joinPool` of `pool` paying exactly `amounts` (in the pool's token order)
    /// for at least `min_shares` of its BPT, sent to `recipient`.
    pub fn join(
        &self,
        pool: &WeightedPool,
        amounts: &[U256],
        min_shares: U256,
        account: Address,
        recipient: Address,
    ) -> Call {
        call(
            self.vault,
            &IBalancerBed::joinPoolCall {
                poolId: pool.id,
                sender: account,
                recipient,
                request: IBalancerBed::JoinPoolRequest {
                    assets: pool.tokens.clone(),
                    maxAmountsIn: amounts.to_vec(),
                    userData: (
                        U256::from(JOIN_EXACT_TOKENS_IN),
                        amounts.to_vec(),
                        min_shares,
                    )
                        .abi_encode_params()
                        .into(),
                    fromInternalBalance: false,
                },
            },
        )
    }

    /// `account`'s proportional `exitPool` of `shares` of `pool`'s BPT for at least `min_out`
    /// of each token (in the pool's order), sent to `recipient`.
    pub fn exit(
        &self,
        pool: &WeightedPool,
        shares: U256,
        min_out: &[U256],
        account: Address,
        recipient: Address,
    ) -> Call {
        call(
            self.vault,
            &IBalancerBed::exitPoolCall {
                poolId: pool.id,
                sender: account,
                recipient,
                request: IBalancerBed::ExitPoolRequest {
                    assets: pool.tokens.clone(),
                    minAmountsOut: min_out.to_vec(),
                    userData: (U256::from(EXIT_EXACT_BPT_IN), shares)
                        .abi_encode_params()
                        .into(),
                    toInternalBalance: false,
                },
            },
        )
    }

    /// `token.approve(vault, amount)`.
    pub fn approve(&self, token: Address, amount: U256) -> Call {
        approve(token, self.vault, amount)
    }
}

fn funds(sender: Address, recipient: Address) -> Vault::FundManagement {
    Vault::FundManagement {
        sender,
        fromInternalBalance: false,
        recipient,
        toInternalBalance: false,
    }
}
