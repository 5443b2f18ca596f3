//! The project's Compound-style money market (`contracts/mocks/protocols/`: MockComptroller and
//! MockCToken, written from Compound V2's interface; no Compound bytecode ships in a registry
//! package): cWETH, cDAI and cUSDC priced by the bed's feeds, supplied by the world's trader.

use super::{
    actions::{approve, call, fund_token},
    bindings::{MockCToken, MockComptroller},
    chain::{Chain, Context as _, Result},
    feeds::Feeds,
};
use alloy_primitives::{Address, U256};
use alloy_sol_types::SolConstructor;
use pace_types::{Call, units::ether};
use pace_world::Addresses;

/// Blocks per year at 12 s per block (Compound's rates are per block).
pub const BLOCKS_PER_YEAR: u64 = 2_628_000;

/// One market.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CompoundMarket {
    /// The cToken (8 decimals).
    pub c_token: Address,
    /// Its underlying.
    pub underlying: Address,
}

/// `getAccountLiquidity`: Compound's error code and USD values with 18 decimals.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Liquidity {
    /// 0, or Compound's error code (13: a price is missing).
    pub error: U256,
    /// What may still be borrowed.
    pub liquidity: U256,
    /// How far debt exceeds collateral.
    pub shortfall: U256,
}

/// The deployment.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Compound {
    /// The comptroller (admin: the bed's deployer).
    pub comptroller: Address,
    /// cWETH: collateral factor 75 %, 2 % a year; the trader supplies 1,000 WETH.
    pub c_weth: CompoundMarket,
    /// cDAI: collateral factor 80 %, 5 % a year; the trader supplies 1,000,000 DAI.
    pub c_dai: CompoundMarket,
    /// cUSDC: collateral factor 80 %, 4 % a year; the trader supplies 1,000,000 USDC.
    pub c_usdc: CompoundMarket,
}

impl Compound {
    /// Deploys the comptroller and the three markets from `deployer`.
    pub fn deploy<C: Chain>(
        chain: &mut C,
        world: &Addresses,
        feeds: &Feeds,
        deployer: Address,
    ) -> Result<Self> {
        let comptroller = chain
            .deploy(
                deployer,
                super::embedded("MockComptroller")?
                    .deploy_code(&MockComptroller::constructorCall {}.abi_encode()),
            )
            .step("deploy MockComptroller")?;
        let usdc = |n: u64| U256::from(n) * U256::from(1_000_000u64);
        // (underlying, decimals, symbol, feed, collateral factor %, borrow rate % a year, supply)
        let specs = [
            (world.weth, 18, "cWETH", feeds.eth_usd, 75, 2, ether(1_000)),
            (
                world.dai,
                18,
                "cDAI",
                feeds.dai_usd,
                80,
                5,
                ether(1_000_000),
            ),
            (
                world.usdc,
                6,
                "cUSDC",
                feeds.usdc_usd,
                80,
                4,
                usdc(1_000_000),
            ),
        ];
        let mut markets = Vec::new();
        for (underlying, decimals, symbol, feed, factor, apr, supply) in specs {
            // 0.02 underlying per cToken, Compound's starting rate.
            let initial_rate = U256::from(2) * U256::from(10).pow(U256::from(16 + decimals - 8));
            let per_block =
                U256::from(apr) * U256::from(10u64.pow(16)) / U256::from(BLOCKS_PER_YEAR);
            let ctor = MockCToken::constructorCall {
                underlying_: underlying,
                comptroller_: comptroller,
                initialExchangeRateMantissa_: initial_rate,
                borrowRatePerBlock_: per_block,
                name_: format!("Compound-style {symbol}"),
                symbol_: symbol.into(),
            };
            let c_token = chain
                .deploy(
                    deployer,
                    super::embedded("MockCToken")?.deploy_code(&ctor.abi_encode()),
                )
                .step(format!("deploy {symbol}"))?;
            let list = MockComptroller::supportMarketCall {
                cToken: c_token,
                feed,
            };
            chain
                .send_sol(deployer, comptroller, &list)
                .step("list a market")?;
            let cf = MockComptroller::setCollateralFactorCall {
                cToken: c_token,
                newCollateralFactorMantissa: U256::from(factor) * U256::from(10u64.pow(16)),
            };
            chain
                .send_sol(deployer, comptroller, &cf)
                .step("set a collateral factor")?;
            markets.push((
                CompoundMarket {
                    c_token,
                    underlying,
                },
                supply,
            ));
        }
        let compound = Self {
            comptroller,
            c_weth: markets[0].0,
            c_dai: markets[1].0,
            c_usdc: markets[2].0,
        };
        let lp = world.trader;
        for (market, supply) in &markets {
            fund_token(chain, world, market.underlying, lp, *supply)
                .step("fund the Compound liquidity")?;
            for c in compound.mint(market, *supply) {
                chain
                    .send(lp, c.target, c.value, c.data)
                    .step("supply the Compound liquidity")?;
            }
        }
        Ok(compound)
    }

    /// The markets.
    pub fn markets(&self) -> [CompoundMarket; 3] {
        [self.c_weth, self.c_dai, self.c_usdc]
    }

    /// `enterMarkets(markets)`: the caller's supply there becomes collateral.
    pub fn enter_markets(&self, markets: &[CompoundMarket]) -> Call {
        let enter = MockComptroller::enterMarketsCall {
            cTokens: markets.iter().map(|m| m.c_token).collect(),
        };
        call(self.comptroller, &enter)
    }

    /// Supply `amount` of the underlying: the approval and `mint`.
    pub fn mint(&self, market: &CompoundMarket, amount: U256) -> Vec<Call> {
        vec![
            approve(market.underlying, market.c_token, amount),
            call(market.c_token, &MockCToken::mintCall { mintAmount: amount }),
        ]
    }

    /// Borrow `amount` of the underlying.
    pub fn borrow(&self, market: &CompoundMarket, amount: U256) -> Call {
        call(
            market.c_token,
            &MockCToken::borrowCall {
                borrowAmount: amount,
            },
        )
    }

    /// Repay `amount` of the caller's debt (`U256::MAX`: all of it; then approve enough): the
    /// approval of `approval` and `repayBorrow`.
    pub fn repay(&self, market: &CompoundMarket, amount: U256, approval: U256) -> Vec<Call> {
        vec![
            approve(market.underlying, market.c_token, approval),
            call(
                market.c_token,
                &MockCToken::repayBorrowCall {
                    repayAmount: amount,
                },
            ),
        ]
    }

    /// Redeem cTokens worth `amount` of the underlying.
    pub fn redeem_underlying(&self, market: &CompoundMarket, amount: U256) -> Call {
        call(
            market.c_token,
            &MockCToken::redeemUnderlyingCall {
                redeemAmount: amount,
            },
        )
    }

    /// `getAccountLiquidity(account)` on the comptroller.
    pub fn liquidity<C: Chain>(&self, chain: &C, account: Address) -> Result<Liquidity> {
        let l = chain.view_sol(
            self.comptroller,
            &MockComptroller::getAccountLiquidityCall { account },
        )?;
        Ok(Liquidity {
            error: l.error,
            liquidity: l.liquidity,
            shortfall: l.shortfall,
        })
    }

    /// `account`'s debt in `market` as of the market's last accrual (`borrowBalanceStored`).
    pub fn borrow_balance<C: Chain>(
        &self,
        chain: &C,
        market: &CompoundMarket,
        account: Address,
    ) -> Result<U256> {
        chain.view_sol(
            market.c_token,
            &MockCToken::borrowBalanceStoredCall { account },
        )
    }

    /// `account`'s debt in `market` with interest up to now (`borrowBalanceCurrent`, read-only).
    pub fn borrow_balance_current<C: Chain>(
        &self,
        chain: &C,
        market: &CompoundMarket,
        account: Address,
    ) -> Result<U256> {
        chain.view_sol(
            market.c_token,
            &MockCToken::borrowBalanceCurrentCall { account },
        )
    }
}
