//! The fork the intent runs on, and read-only calls against any state.
//!
//! The fork is revm's `CacheDB` over a *reference* to the world's state: writes land in the
//! overlay, reads fall through to the world, which is never written. Creating one costs an
//! empty hash map, not a copy of the world.

use alloy_primitives::{Address, Bytes, TxKind, U256};
use pace_evm::{
    EvmDb, ForkError, InProcessEvm,
    revm::{
        Context, Database, DatabaseRef, ExecuteEvm, MainBuilder, MainContext, MainnetEvm,
        context::{
            BlockEnv, CfgEnv, TxEnv,
            result::{EVMError, ExecutionResult},
        },
        database::CacheDB,
        database_interface::WrapDatabaseRef,
        handler::MainnetContext,
    },
};

use crate::error::Result;

/// The overlay the calls execute on: the world's state, copy-on-write.
pub(crate) type ForkDb<'w> = CacheDB<&'w EvmDb>;

/// Gas for one read-only call (`balanceOf`, `allowance`, `getReserves`, `healthFactor`, ...).
/// Bounds the time a hostile view can burn; honest ones use a few thousand.
const VIEW_GAS_LIMIT: u64 = 2_000_000;

/// The EVM environment of the world: its chain, hard fork and current block.
///
/// The world's own configuration and block ([`InProcessEvm::cfg_env`],
/// [`InProcessEvm::block_env`]: EIP-3607 off so a contract account can send, zero base fee;
/// on a forked world the forked block's coinbase, gas limit and prevrandao), plus
/// `disable_nonce_check`: the calls of a batch are sub-calls of one account transaction, not
/// transactions with their own nonces.
#[derive(Clone, Debug)]
pub(crate) struct Env {
    cfg: CfgEnv,
    block: BlockEnv,
    tx_gas_limit: u64,
}

impl Env {
    pub(crate) fn of(world: &InProcessEvm) -> Self {
        let mut cfg = world.cfg_env().clone();
        cfg.disable_nonce_check = true;
        Self {
            cfg,
            block: world.block_env().clone(),
            tx_gas_limit: world.tx_gas_limit(),
        }
    }

    pub(crate) fn context<DB: Database>(&self, db: DB) -> MainnetContext<DB> {
        Context::mainnet()
            .with_db(db)
            .with_cfg(self.cfg.clone())
            .with_block(self.block.clone())
    }

    /// A call transaction of the intent: `from` (the account) to `to`.
    pub(crate) fn tx(&self, from: Address, to: Address, value: U256, data: Bytes) -> TxEnv {
        self.tx_with_gas(from, to, value, data, self.tx_gas_limit)
    }

    fn tx_with_gas(&self, from: Address, to: Address, value: U256, data: Bytes, gas: u64) -> TxEnv {
        TxEnv::builder()
            .caller(from)
            .kind(TxKind::Call(to))
            .value(value)
            .data(data)
            .gas_limit(gas)
            .gas_price(0)
            .chain_id(Some(self.cfg.chain_id))
            .build_fill()
    }
}

/// Read-only calls (from the zero address, like `eth_call`) against one state; nothing they do
/// persists.
///
/// A call that reverts, halts or that revm refuses answers `None`; a read of forked state the
/// node could not answer is [`crate::Error::Fork`], never a `None`.
pub(crate) struct Viewer<'e, 'd, D: DatabaseRef<Error = ForkError>> {
    env: &'e Env,
    evm: MainnetEvm<MainnetContext<WrapDatabaseRef<&'d D>>>,
}

impl<'e, 'd, D: DatabaseRef<Error = ForkError>> Viewer<'e, 'd, D> {
    pub(crate) fn new(env: &'e Env, db: &'d D) -> Self {
        Self {
            env,
            evm: env.context(WrapDatabaseRef(db)).build_mainnet(),
        }
    }

    /// The return data of a successful call, `None` if it reverted, halted or was refused.
    pub(crate) fn call(&mut self, to: Address, data: Vec<u8>) -> Result<Option<Bytes>> {
        let tx = self
            .env
            .tx_with_gas(Address::ZERO, to, U256::ZERO, data.into(), VIEW_GAS_LIMIT);
        match self.evm.transact(tx) {
            Ok(done) => Ok(match done.result {
                ExecutionResult::Success { output, .. } => Some(output.into_data()),
                _ => None,
            }),
            Err(EVMError::Database(e)) => Err(e.into()),
            Err(_) => Ok(None),
        }
    }

    /// The first return word of a successful call that returned at least one word.
    pub(crate) fn word(&mut self, to: Address, data: Vec<u8>) -> Result<Option<U256>> {
        let out = self.call(to, data)?;
        Ok(out
            .filter(|out| out.len() >= 32)
            .map(|out| U256::from_be_slice(&out[..32])))
    }

    /// The return words of a successful call that returned exactly `words` words.
    pub(crate) fn words(
        &mut self,
        to: Address,
        data: Vec<u8>,
        words: usize,
    ) -> Result<Option<Vec<U256>>> {
        let out = self.call(to, data)?;
        Ok(out
            .filter(|out| out.len() == 32 * words)
            .map(|out| out.chunks_exact(32).map(U256::from_be_slice).collect()))
    }
}

/// The ether balance of `address` in `db`.
pub(crate) fn eth_balance<D: DatabaseRef<Error = ForkError>>(
    db: &D,
    address: Address,
) -> Result<U256> {
    Ok(db
        .basic_ref(address)?
        .map_or(U256::ZERO, |info| info.balance))
}

/// Whether `address` has code in `db`.
pub(crate) fn has_code<D: DatabaseRef<Error = ForkError>>(
    db: &D,
    address: Address,
) -> Result<bool> {
    Ok(db
        .basic_ref(address)?
        .is_some_and(|info| !info.is_empty_code_hash()))
}
