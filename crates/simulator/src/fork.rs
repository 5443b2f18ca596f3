//! The fork the intent runs on, and read-only calls against any state.
//!
//! The fork is revm's `CacheDB` over a *reference* to the world's state: writes land in the
//! overlay, reads fall through to the world, which is never written. Creating one costs an
//! empty hash map, not a copy of the world.

use alloy_primitives::{Address, B256, Bytes, TxKind, U256};
use pace_evm::{
    EvmDb, ForkError, InProcessEvm,
    revm::{
        Context, Database, DatabaseRef, ExecuteEvm, MainBuilder, MainContext, MainnetEvm,
        bytecode::Bytecode,
        context::{
            BlockEnv, CfgEnv, TxEnv,
            result::{EVMError, ExecutionResult},
        },
        database::CacheDB,
        database_interface::WrapDatabaseRef,
        handler::MainnetContext,
        state::{AccountInfo, EvmState},
    },
};

use crate::{error::Result, submission::Submission};

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

    /// This environment in block `number` at `timestamp`: for read-only calls against the
    /// state a submission left, in the block it ran in (a view of interest-bearing state in an
    /// earlier block than its last update reverts).
    pub(crate) fn in_block(&self, number: u64, timestamp: u64) -> Self {
        let mut block = self.block.clone();
        block.number = U256::from(number);
        block.timestamp = U256::from(timestamp);
        Self {
            block,
            ..self.clone()
        }
    }

    pub(crate) fn context<DB: Database>(&self, db: DB) -> MainnetContext<DB> {
        Context::mainnet()
            .with_db(db)
            .with_cfg(self.cfg.clone())
            .with_block(self.block.clone())
    }

    /// A context for `submission`'s transaction: this world's configuration (nonce check off:
    /// the relayer's nonce is the node's business) in the submission's block.
    pub(crate) fn submission_context<DB: Database>(
        &self,
        db: DB,
        submission: &Submission,
    ) -> MainnetContext<DB> {
        let b = &submission.block;
        let block = BlockEnv {
            number: U256::from(b.number),
            timestamp: U256::from(b.timestamp),
            basefee: b.base_fee,
            beneficiary: b.coinbase,
            prevrandao: Some(b.prevrandao),
            gas_limit: b.gas_limit,
            ..self.block.clone()
        };
        Context::mainnet()
            .with_db(db)
            .with_cfg(self.cfg.clone())
            .with_block(block)
    }

    /// `submission`'s transaction to `account`: an EIP-1559 transaction with its fees, or a
    /// legacy one at gas price 0 when it pays none.
    pub(crate) fn submission_tx(&self, submission: &Submission, account: Address) -> TxEnv {
        let builder = TxEnv::builder()
            .caller(submission.origin)
            .kind(TxKind::Call(account))
            .value(U256::ZERO)
            .data(submission.data.clone())
            .gas_limit(submission.gas_limit)
            .chain_id(Some(self.cfg.chain_id));
        let builder = if submission.max_fee_per_gas == 0 {
            builder.gas_price(0)
        } else {
            builder
                .tx_type(Some(2))
                .gas_price(submission.max_fee_per_gas)
                .gas_priority_fee(Some(submission.priority_fee_per_gas))
        };
        builder.build_fill()
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
    /// Every answer given, by callee and call data: one state, one environment and no
    /// committed effects make each call answer the same every time it is made.
    answered: Vec<(Address, Vec<u8>, Option<Bytes>)>,
}

impl<'e, 'd, D: DatabaseRef<Error = ForkError>> Viewer<'e, 'd, D> {
    pub(crate) fn new(env: &'e Env, db: &'d D) -> Self {
        Self {
            env,
            evm: env.context(WrapDatabaseRef(db)).build_mainnet(),
            answered: Vec::new(),
        }
    }

    /// The return data of a successful call, `None` if it reverted, halted or was refused.
    /// A call made before is answered from memory.
    pub(crate) fn call(&mut self, to: Address, data: Vec<u8>) -> Result<Option<Bytes>> {
        if let Some((.., out)) = self
            .answered
            .iter()
            .find(|(callee, input, _)| *callee == to && *input == data)
        {
            return Ok(out.clone());
        }
        let out = self
            .run(Address::ZERO, to, data.clone())?
            .and_then(|(result, _)| match result {
                ExecutionResult::Success { output, .. } => Some(output.into_data()),
                _ => None,
            });
        self.answered.push((to, data, out.clone()));
        Ok(out)
    }

    /// A read-only call from `from`, its result and the state it loaded; `None` if revm
    /// refused it. Nothing it does persists, and nothing is kept.
    fn run(
        &mut self,
        from: Address,
        to: Address,
        data: Vec<u8>,
    ) -> Result<Option<(ExecutionResult, EvmState)>> {
        let tx = self
            .env
            .tx_with_gas(from, to, U256::ZERO, data.into(), VIEW_GAS_LIMIT);
        match self.evm.transact(tx) {
            Ok(done) => Ok(Some((done.result, done.state))),
            Err(EVMError::Database(e)) => Err(e.into()),
            Err(_) => Ok(None),
        }
    }

    /// The contracts (accounts with code) a successful call ran or read, each with whether it
    /// read their storage, `None` if it reverted, halted or was refused. Never answered from
    /// memory: its answer is the state it loaded, not its return data.
    pub(crate) fn contracts_run(
        &mut self,
        to: Address,
        data: Vec<u8>,
    ) -> Result<Option<Vec<(Address, bool)>>> {
        Ok(self
            .run(Address::ZERO, to, data)?
            .filter(|(result, _)| result.is_success())
            .map(|(_, state)| {
                state
                    .iter()
                    .filter(|(_, account)| !account.info.is_empty_code_hash())
                    .map(|(address, account)| (*address, !account.storage.is_empty()))
                    .collect()
            }))
    }

    /// Whether a call from `from` succeeds and answers no `false` (nothing, or a first word
    /// that is not 0): what an ERC-20 `transferFrom` does when the caller may move the tokens.
    /// Never answered from memory.
    pub(crate) fn succeeds_from(
        &mut self,
        from: Address,
        to: Address,
        data: Vec<u8>,
    ) -> Result<bool> {
        Ok(match self.run(from, to, data)? {
            Some((ExecutionResult::Success { output, .. }, _)) => {
                let out = output.into_data();
                out.len() < 32 || out[..32].iter().any(|b| *b != 0)
            }
            _ => false,
        })
    }

    /// The first return word of a successful call that returned at least one word.
    pub(crate) fn word(&mut self, to: Address, data: Vec<u8>) -> Result<Option<U256>> {
        self.word_at(to, data, 0)
    }

    /// Return word `word` (0-based) of a successful call whose answer reaches it.
    pub(crate) fn word_at(
        &mut self,
        to: Address,
        data: Vec<u8>,
        word: usize,
    ) -> Result<Option<U256>> {
        let out = self.call(to, data)?;
        Ok(out
            .filter(|out| out.len() >= 32 * (word + 1))
            .map(|out| U256::from_be_slice(&out[32 * word..32 * (word + 1)])))
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

/// A state in the middle of a transaction: the journal's accounts and slots (`state`) over the
/// state the transaction started from (`base`). What a call inside the transaction saw when it
/// started, or left when it ended, for read-only calls ([`Viewer`]) against that moment.
pub(crate) struct Journaled<'a, D> {
    pub(crate) base: &'a D,
    pub(crate) state: &'a EvmState,
}

impl<D: DatabaseRef<Error = ForkError>> DatabaseRef for Journaled<'_, D> {
    type Error = ForkError;

    fn basic_ref(&self, address: Address) -> Result<Option<AccountInfo>, ForkError> {
        match self.state.get(&address) {
            Some(account) if account.is_selfdestructed() => Ok(None),
            Some(account) => Ok(Some(account.info.clone())),
            None => self.base.basic_ref(address),
        }
    }

    fn code_by_hash_ref(&self, code_hash: B256) -> Result<Bytecode, ForkError> {
        let created = self.state.values().find_map(|account| {
            (account.info.code_hash == code_hash)
                .then(|| account.info.code.clone())
                .flatten()
        });
        match created {
            Some(code) => Ok(code),
            None => self.base.code_by_hash_ref(code_hash),
        }
    }

    fn storage_ref(&self, address: Address, index: U256) -> Result<U256, ForkError> {
        if let Some(account) = self.state.get(&address) {
            if let Some(slot) = account.storage.get(&index) {
                return Ok(slot.present_value);
            }
            // A contract created in the transaction has no slot the journal does not hold.
            if account.is_created() {
                return Ok(U256::ZERO);
            }
        }
        self.base.storage_ref(address, index)
    }

    fn block_hash_ref(&self, number: u64) -> Result<B256, ForkError> {
        self.base.block_hash_ref(number)
    }
}
