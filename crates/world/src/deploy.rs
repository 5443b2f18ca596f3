//! The world and how it is built (the steps are in [`crate::steps`]).

use crate::builder::Step as _;
use crate::{
    Addresses, Builder,
    steps::{
        Actors, EntryPoints, Mocks, Tokens, Uniswap, addresses, deploy_account, fund_account,
        fund_pool, open_lending_position, provide_liquidity,
    },
};
use alloy_primitives::{Address, U256};
use pace_contracts::bindings::IERC20;
use pace_evm::InProcessEvm;
use pace_types::{ETH, units::ether};

/// Chain id of the world.
pub const CHAIN_ID: u64 = 31337;
/// Block number the world starts at.
pub const GENESIS_BLOCK: u64 = 19_000_000;
/// Timestamp the world starts at.
pub const GENESIS_TIME: u64 = 1_700_000_000;

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

impl From<pace_contracts::Error> for Error {
    fn from(e: pace_contracts::Error) -> Self {
        Self::Contracts(Box::new(e))
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

/// The helper contracts post-conditions read ([`pace_contracts::helpers`]), at their
/// addresses on every chain.
fn place_helpers(evm: &mut InProcessEvm) -> Result<(), Error> {
    let helper = pace_contracts::helpers::share_value()?;
    evm.set_code(helper.address, helper.runtime.clone())
        .map_err(pace_evm::Error::Fork)
        .step("place PaceShareValue")
}

impl World {
    /// Builds the world with a PaceAccount whose verifier key has address `verifier`.
    pub fn new(verifier: Address) -> Result<Self, Error> {
        let mut evm = InProcessEvm::new(CHAIN_ID);
        evm.set_block(GENESIS_BLOCK, GENESIS_TIME);
        let actors = Actors::new(verifier);
        for who in actors.funded() {
            evm.fund(who, ether(1_000_000))
                .map_err(pace_evm::Error::Fork)
                .step("fund actors")?;
        }
        let deadline = U256::from(GENESIS_TIME + 365 * 86_400);
        let mut b = Builder::new(&mut evm, actors.deployer, deadline)?;
        let tokens = Tokens::deploy(&mut b)?;
        let uniswap = Uniswap::deploy(&mut b, tokens.weth)?;
        let mocks = Mocks::deploy(&mut b, &actors, &tokens)?;
        let account = deploy_account(&mut b, &actors)?;
        let pairs = provide_liquidity(&mut b, actors.trader, &tokens, &uniswap, &mocks)?;
        fund_pool(&mut b, actors.trader, tokens.dai, mocks.lending_pool)?;
        fund_account(&mut b, actors.trader, account, &tokens)?;
        open_lending_position(
            &mut b,
            actors.owner,
            account,
            tokens.weth,
            mocks.lending_pool,
        )?;
        let entry_points = EntryPoints::deploy(&mut b, account)?;
        place_helpers(&mut evm)?;
        let addrs = addresses(actors, account, tokens, uniswap, pairs, mocks, entry_points);
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

    /// `who`'s balance of `token` (ETH for the zero address); see [`balance_of`].
    pub fn balance_of(&self, token: Address, who: Address) -> U256 {
        balance_of(&self.evm, token, who)
    }
}

/// `who`'s balance of `token` on `evm`: ether for the zero address ([`pace_types::ETH`]),
/// otherwise the token's `balanceOf` (zero if the call fails).
pub fn balance_of(evm: &InProcessEvm, token: Address, who: Address) -> U256 {
    if token == ETH {
        return evm.balance(who).unwrap_or_default();
    }
    evm.view_sol(token, &IERC20::balanceOfCall { account: who })
        .unwrap_or_default()
}
