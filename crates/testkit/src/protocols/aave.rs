//! A full Aave V3 market from the npm bytecode: the logic libraries linked into Pool and
//! PoolConfigurator, PoolAddressesProvider, ACLManager, the Pool and PoolConfigurator proxies,
//! AaveOracle over the bed's feeds (USD, 8 decimals), AaveProtocolDataProvider, the interest
//! rate strategies, the AToken / VariableDebtToken / StableDebtToken implementations, and WETH,
//! DAI and USDC reserves initialised, usable as collateral, borrowable and supplied by the
//! world's trader.

use super::{
    actions::{approve, call, fund_token},
    bindings::{
        ACLManager, AaveOracle, AavePool, AaveProtocolDataProvider, AaveTokenImplementation,
        DefaultReserveInterestRateStrategy, IAaveVariableDebtToken, PoolAddressesProvider,
        PoolConfigurator,
    },
    chain::{Chain, Context as _, Result},
    feeds::Feeds,
    npm::aave::{LIBRARIES, artifact},
};
use alloy_primitives::{Address, Bytes, U256};
use alloy_sol_types::{SolCall as _, SolConstructor};
use pace_types::{Call, units::ether};
use pace_world::Addresses;
use std::collections::BTreeMap;

/// `interestRateMode` of a variable-rate borrow or repay.
pub const VARIABLE_RATE: u64 = 2;
/// A health factor of 1.0 (`getUserAccountData`'s sixth word).
pub const HEALTH_FACTOR_ONE: u128 = 1_000_000_000_000_000_000;
/// One ray (1e27), the unit of Aave's rates.
const RAY: u128 = 1_000_000_000_000_000_000_000_000_000;

/// One reserve and its tokens.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AaveReserve {
    /// The underlying asset.
    pub asset: Address,
    /// Its aToken (the supplier's claim).
    pub a_token: Address,
    /// Its variable debt token (minted on a variable-rate borrow).
    pub variable_debt_token: Address,
    /// Its stable debt token (stable borrowing is off).
    pub stable_debt_token: Address,
}

/// `getUserAccountData`, in the oracle's base currency (USD, 8 decimals) and bps.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AccountData {
    /// Collateral value.
    pub total_collateral_base: U256,
    /// Debt value.
    pub total_debt_base: U256,
    /// What may still be borrowed.
    pub available_borrows_base: U256,
    /// Weighted liquidation threshold, bps.
    pub current_liquidation_threshold: U256,
    /// Weighted LTV, bps.
    pub ltv: U256,
    /// Health factor, 1e18 = 1.0 (`U256::MAX` without debt).
    pub health_factor: U256,
}

/// The deployment.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AaveV3 {
    /// PoolAddressesProvider (the market's registry; owner and ACL admin: the bed's deployer).
    pub addresses_provider: Address,
    /// ACLManager (pool admin: the bed's deployer).
    pub acl_manager: Address,
    /// The Pool proxy: `supply`, `borrow`, `repay`, `withdraw`, `getUserAccountData`.
    pub pool: Address,
    /// The PoolConfigurator proxy.
    pub pool_configurator: Address,
    /// AaveOracle over the bed's feeds.
    pub oracle: Address,
    /// AaveProtocolDataProvider.
    pub data_provider: Address,
    /// The Pool implementation behind the proxy.
    pub pool_implementation: Address,
    /// The PoolConfigurator implementation behind the proxy.
    pub configurator_implementation: Address,
    /// The logic libraries by name.
    pub libraries: BTreeMap<String, Address>,
    /// Receives the reserve factor's share of interest.
    pub treasury: Address,
    /// WETH: LTV 80 %, liquidation threshold 82.5 %, bonus 5 %; the trader supplies 1,000.
    pub weth: AaveReserve,
    /// DAI: LTV 75 %, threshold 80 %, bonus 5 %; the trader supplies 1,000,000.
    pub dai: AaveReserve,
    /// USDC: LTV 77 %, threshold 80 %, bonus 4.5 %; the trader supplies 1,000,000.
    pub usdc: AaveReserve,
}

/// One reserve's listing: symbol, decimals, LTV, threshold, bonus (bps), what the trader
/// supplies.
struct Listing {
    asset: Address,
    symbol: &'static str,
    decimals: u8,
    risk: [u64; 3],
    stable: bool,
    supply: U256,
}

impl AaveV3 {
    /// Deploys the market from `deployer` with `feeds` as the oracle's sources.
    pub fn deploy<C: Chain>(
        chain: &mut C,
        world: &Addresses,
        feeds: &Feeds,
        deployer: Address,
    ) -> Result<Self> {
        let libraries = deploy_libraries(chain, deployer)?;
        let args = PoolAddressesProvider::constructorCall {
            marketId: "PACE test market".into(),
            owner: deployer,
        }
        .abi_encode();
        let provider = deploy(chain, deployer, "PoolAddressesProvider", &libraries, &args)?;
        let send = |chain: &mut C, to: Address, data: Vec<u8>, step: &str| {
            chain
                .send(deployer, to, U256::ZERO, data.into())
                .step(step.to_owned())
        };
        let call_provider =
            |chain: &mut C, data: Vec<u8>, step: &str| send(chain, provider, data, step);
        call_provider(
            chain,
            PoolAddressesProvider::setACLAdminCall {
                newAclAdmin: deployer,
            }
            .abi_encode(),
            "set the ACL admin",
        )?;
        let args = ACLManager::constructorCall { provider }.abi_encode();
        let acl_manager = deploy(chain, deployer, "ACLManager", &libraries, &args)?;
        call_provider(
            chain,
            PoolAddressesProvider::setACLManagerCall {
                newAclManager: acl_manager,
            }
            .abi_encode(),
            "set the ACL manager",
        )?;
        send(
            chain,
            acl_manager,
            ACLManager::addPoolAdminCall { admin: deployer }.abi_encode(),
            "add the pool admin",
        )?;
        let args = AavePool::constructorCall { provider }.abi_encode();
        let pool_implementation = deploy(chain, deployer, "Pool", &libraries, &args)?;
        call_provider(
            chain,
            PoolAddressesProvider::setPoolImplCall {
                newPoolImpl: pool_implementation,
            }
            .abi_encode(),
            "set the pool implementation",
        )?;
        let configurator_implementation =
            deploy(chain, deployer, "PoolConfigurator", &libraries, &[])?;
        call_provider(
            chain,
            PoolAddressesProvider::setPoolConfiguratorImplCall {
                newPoolConfiguratorImpl: configurator_implementation,
            }
            .abi_encode(),
            "set the configurator implementation",
        )?;
        let pool = chain.view_sol(provider, &PoolAddressesProvider::getPoolCall {})?;
        let pool_configurator =
            chain.view_sol(provider, &PoolAddressesProvider::getPoolConfiguratorCall {})?;

        let args = AaveOracle::constructorCall {
            provider,
            assets: vec![world.weth, world.dai, world.usdc],
            sources: vec![feeds.eth_usd, feeds.dai_usd, feeds.usdc_usd],
            fallbackOracle: Address::ZERO,
            baseCurrency: Address::ZERO,
            baseCurrencyUnit: U256::from(100_000_000u64),
        }
        .abi_encode();
        let oracle = deploy(chain, deployer, "AaveOracle", &libraries, &args)?;
        call_provider(
            chain,
            PoolAddressesProvider::setPriceOracleCall {
                newPriceOracle: oracle,
            }
            .abi_encode(),
            "set the price oracle",
        )?;
        let args = AaveProtocolDataProvider::constructorCall {
            addressesProvider: provider,
        }
        .abi_encode();
        let data_provider = deploy(
            chain,
            deployer,
            "AaveProtocolDataProvider",
            &libraries,
            &args,
        )?;
        call_provider(
            chain,
            PoolAddressesProvider::setPoolDataProviderCall {
                newDataProvider: data_provider,
            }
            .abi_encode(),
            "set the data provider",
        )?;

        let implementation = AaveTokenImplementation::constructorCall { pool }.abi_encode();
        let a_token = deploy(chain, deployer, "AToken", &libraries, &implementation)?;
        let variable = deploy(
            chain,
            deployer,
            "VariableDebtToken",
            &libraries,
            &implementation,
        )?;
        let stable = deploy(
            chain,
            deployer,
            "StableDebtToken",
            &libraries,
            &implementation,
        )?;
        let volatile_rates = strategy(chain, deployer, provider, &libraries, false)?;
        let stable_rates = strategy(chain, deployer, provider, &libraries, true)?;

        let treasury = super::actor("aave-treasury");
        let usdc = |n: u64| U256::from(n) * U256::from(1_000_000u64);
        let listings = [
            Listing {
                asset: world.weth,
                symbol: "WETH",
                decimals: 18,
                risk: [8_000, 8_250, 10_500],
                stable: false,
                supply: ether(1_000),
            },
            Listing {
                asset: world.dai,
                symbol: "DAI",
                decimals: 18,
                risk: [7_500, 8_000, 10_500],
                stable: true,
                supply: ether(1_000_000),
            },
            Listing {
                asset: world.usdc,
                symbol: "USDC",
                decimals: 6,
                risk: [7_700, 8_000, 10_450],
                stable: true,
                supply: usdc(1_000_000),
            },
        ];
        let inputs = listings
            .iter()
            .map(|l| PoolConfigurator::InitReserveInput {
                aTokenImpl: a_token,
                stableDebtTokenImpl: stable,
                variableDebtTokenImpl: variable,
                underlyingAssetDecimals: l.decimals,
                interestRateStrategyAddress: if l.stable {
                    stable_rates
                } else {
                    volatile_rates
                },
                underlyingAsset: l.asset,
                treasury,
                incentivesController: Address::ZERO,
                aTokenName: format!("Aave {}", l.symbol),
                aTokenSymbol: format!("a{}", l.symbol),
                variableDebtTokenName: format!("Aave Variable Debt {}", l.symbol),
                variableDebtTokenSymbol: format!("variableDebt{}", l.symbol),
                stableDebtTokenName: format!("Aave Stable Debt {}", l.symbol),
                stableDebtTokenSymbol: format!("stableDebt{}", l.symbol),
                params: Bytes::new(),
            })
            .collect();
        send(
            chain,
            pool_configurator,
            PoolConfigurator::initReservesCall { input: inputs }.abi_encode(),
            "initialise the reserves",
        )?;
        for l in &listings {
            let [ltv, threshold, bonus] = l.risk.map(U256::from);
            let collateral = PoolConfigurator::configureReserveAsCollateralCall {
                asset: l.asset,
                ltv,
                liquidationThreshold: threshold,
                liquidationBonus: bonus,
            };
            send(
                chain,
                pool_configurator,
                collateral.abi_encode(),
                "configure collateral",
            )?;
            let borrowing = PoolConfigurator::setReserveBorrowingCall {
                asset: l.asset,
                enabled: true,
            };
            send(
                chain,
                pool_configurator,
                borrowing.abi_encode(),
                "enable borrowing",
            )?;
            let factor = PoolConfigurator::setReserveFactorCall {
                asset: l.asset,
                newReserveFactor: U256::from(1_000),
            };
            send(
                chain,
                pool_configurator,
                factor.abi_encode(),
                "set the reserve factor",
            )?;
        }
        let reserve = |chain: &C, asset: Address| -> Result<AaveReserve> {
            let t = chain.view_sol(
                data_provider,
                &AaveProtocolDataProvider::getReserveTokensAddressesCall { asset },
            )?;
            Ok(AaveReserve {
                asset,
                a_token: t.aTokenAddress,
                variable_debt_token: t.variableDebtTokenAddress,
                stable_debt_token: t.stableDebtTokenAddress,
            })
        };
        let aave = Self {
            addresses_provider: provider,
            acl_manager,
            pool,
            pool_configurator,
            oracle,
            data_provider,
            pool_implementation,
            configurator_implementation,
            libraries,
            treasury,
            weth: reserve(chain, world.weth)?,
            dai: reserve(chain, world.dai)?,
            usdc: reserve(chain, world.usdc)?,
        };
        let lp = world.trader;
        for l in &listings {
            fund_token(chain, world, l.asset, lp, l.supply).step("fund the Aave liquidity")?;
            for c in aave.supply(l.asset, l.supply, lp) {
                chain
                    .send(lp, c.target, c.value, c.data)
                    .step("supply the Aave liquidity")?;
            }
        }
        Ok(aave)
    }

    /// The reserves.
    pub fn reserves(&self) -> [AaveReserve; 3] {
        [self.weth, self.dai, self.usdc]
    }

    /// Supply `amount` of `asset` for `on_behalf_of`: the approval and `supply`.
    pub fn supply(&self, asset: Address, amount: U256, on_behalf_of: Address) -> Vec<Call> {
        let supply = AavePool::supplyCall {
            asset,
            amount,
            onBehalfOf: on_behalf_of,
            referralCode: 0,
        };
        vec![approve(asset, self.pool, amount), call(self.pool, &supply)]
    }

    /// Borrow `amount` of `asset` at the variable rate against `on_behalf_of`'s collateral (the
    /// caller itself, or a delegator who granted it credit).
    pub fn borrow(&self, asset: Address, amount: U256, on_behalf_of: Address) -> Call {
        let borrow = AavePool::borrowCall {
            asset,
            amount,
            interestRateMode: U256::from(VARIABLE_RATE),
            referralCode: 0,
            onBehalfOf: on_behalf_of,
        };
        call(self.pool, &borrow)
    }

    /// Repay up to `amount` of `on_behalf_of`'s variable debt in `asset` (`U256::MAX`: all of
    /// it, capped at what the caller approved): the approval and `repay`.
    pub fn repay(&self, asset: Address, amount: U256, on_behalf_of: Address) -> Vec<Call> {
        let repay = AavePool::repayCall {
            asset,
            amount,
            interestRateMode: U256::from(VARIABLE_RATE),
            onBehalfOf: on_behalf_of,
        };
        vec![approve(asset, self.pool, amount), call(self.pool, &repay)]
    }

    /// Withdraw `amount` of `asset` (`U256::MAX`: everything) to `to`.
    pub fn withdraw(&self, asset: Address, amount: U256, to: Address) -> Call {
        call(self.pool, &AavePool::withdrawCall { asset, amount, to })
    }

    /// Let `delegatee` borrow `amount` of the reserve's asset against the caller's collateral
    /// (`approveDelegation` on its variable debt token).
    pub fn approve_delegation(
        &self,
        reserve: &AaveReserve,
        delegatee: Address,
        amount: U256,
    ) -> Call {
        let approve = IAaveVariableDebtToken::approveDelegationCall { delegatee, amount };
        call(reserve.variable_debt_token, &approve)
    }

    /// `getUserAccountData(user)`.
    pub fn account_data<C: Chain>(&self, chain: &C, user: Address) -> Result<AccountData> {
        let d = chain.view_sol(self.pool, &AavePool::getUserAccountDataCall { user })?;
        Ok(AccountData {
            total_collateral_base: d.totalCollateralBase,
            total_debt_base: d.totalDebtBase,
            available_borrows_base: d.availableBorrowsBase,
            current_liquidation_threshold: d.currentLiquidationThreshold,
            ltv: d.ltv,
            health_factor: d.healthFactor,
        })
    }
}

/// Deploys the logic libraries, each linked against the ones before it.
fn deploy_libraries<C: Chain>(
    chain: &mut C,
    deployer: Address,
) -> Result<BTreeMap<String, Address>> {
    let mut libraries = BTreeMap::new();
    for name in LIBRARIES {
        let address = deploy(chain, deployer, name, &libraries, &[])?;
        libraries.insert(name.to_owned(), address);
    }
    Ok(libraries)
}

/// Deploys the Aave contract `name`, its libraries linked, with `args`.
fn deploy<C: Chain>(
    chain: &mut C,
    deployer: Address,
    name: &str,
    libraries: &BTreeMap<String, Address>,
    args: &[u8],
) -> Result<Address> {
    let code = artifact(name)?.deploy_code_linked(libraries, args)?;
    chain
        .deploy(deployer, code)
        .step(format!("deploy Aave {name}"))
}

/// An interest rate strategy: stablecoin-like (optimal usage 90 %) or volatile (80 %).
fn strategy<C: Chain>(
    chain: &mut C,
    deployer: Address,
    provider: Address,
    libraries: &BTreeMap<String, Address>,
    stable: bool,
) -> Result<Address> {
    let pct = |tenths_of_bp: u128| U256::from(RAY / 100_000 * tenths_of_bp);
    let args = if stable {
        DefaultReserveInterestRateStrategy::constructorCall {
            provider,
            optimalUsageRatio: pct(90_000),
            baseVariableBorrowRate: U256::ZERO,
            variableRateSlope1: pct(4_000),
            variableRateSlope2: pct(60_000),
            stableRateSlope1: pct(500),
            stableRateSlope2: pct(60_000),
            baseStableRateOffset: pct(1_000),
            stableRateExcessOffset: pct(8_000),
            optimalStableToTotalDebtRatio: pct(20_000),
        }
    } else {
        DefaultReserveInterestRateStrategy::constructorCall {
            provider,
            optimalUsageRatio: pct(80_000),
            baseVariableBorrowRate: U256::ZERO,
            variableRateSlope1: pct(3_800),
            variableRateSlope2: pct(80_000),
            stableRateSlope1: pct(4_000),
            stableRateSlope2: pct(80_000),
            baseStableRateOffset: pct(2_000),
            stableRateExcessOffset: pct(5_000),
            optimalStableToTotalDebtRatio: pct(20_000),
        }
    };
    deploy(
        chain,
        deployer,
        "DefaultReserveInterestRateStrategy",
        libraries,
        &args.abi_encode(),
    )
}
