//! [`InProcessEvm`]: revm over an in-memory state, one transaction at a time.

use crate::{
    backend::{Backend, ForkError},
    error::Result,
    outcome::Outcome,
};
use alloy_primitives::{Address, B256, Bytes, TxKind, U256};
use revm::{
    Context, DatabaseCommit, DatabaseRef, ExecuteEvm, InspectEvm, Inspector, MainBuilder,
    MainContext,
    bytecode::Bytecode,
    context::{
        BlockEnv, CfgEnv, TxEnv,
        result::{EVMError, ExecResultAndState, ExecutionResult},
    },
    database::CacheDB,
    database_interface::WrapDatabaseRef,
    primitives::hardfork::SpecId,
    state::{AccountInfo, EvmState},
};

/// The state behind [`InProcessEvm`]: revm's in-memory cache over a [`Backend`], empty (the
/// in-memory world) or a node's state at a pinned block (a fork, [`InProcessEvm::fork`]).
///
/// Its `DatabaseRef::Error` is [`ForkError`]: a fork's node that cannot answer (see [`Backend`]);
/// the in-memory world never fails.
pub type EvmDb = CacheDB<Backend>;

/// The revm context type inspectors passed to [`InProcessEvm::call_with_inspector`] and
/// [`InProcessEvm::simulate_with_inspector`] see. Implement `Inspector<EvmContext>` (or, more
/// reusable, `impl<CTX: ContextTr> Inspector<CTX>`).
pub type EvmContext = Context<BlockEnv, TxEnv, CfgEnv, EvmDb>;

/// Hard fork the EVM runs by default: Prague, the `evm_version` contracts/ are compiled for.
pub const DEFAULT_SPEC: SpecId = SpecId::PRAGUE;
/// Gas limit of every transaction by default: 2^24, the EIP-7825 (Osaka) per-transaction cap,
/// so the same default is valid from Prague on.
pub const DEFAULT_TX_GAS_LIMIT: u64 = 1 << 24;
/// Block gas limit of the simulated blocks.
pub const BLOCK_GAS_LIMIT: u64 = 36_000_000;

/// An EVM with its own in-memory world state, empty or forked from a node
/// ([`InProcessEvm::fork`]).
///
/// Every transaction is real: intrinsic gas, EIP-7623 calldata floor, the sender's nonce (taken
/// from the state, so `CREATE` addresses follow the usual `sender + nonce` rule), warm/cold
/// access and refunds. Gas is free (base fee and gas price are zero), so senders need no ether
/// except for the value they send. Senders may be contracts (EIP-3607 is off), so a call can
/// impersonate any account.
///
/// `Clone` forks the whole world (contract code is shared, state is copied); [`Self::snapshot`]
/// and [`Self::restore`] do the same under names that say what they are for.
#[derive(Clone, Debug)]
pub struct InProcessEvm {
    db: EvmDb,
    cfg: CfgEnv,
    block: BlockEnv,
    tx_gas_limit: u64,
}

/// A saved copy of an [`InProcessEvm`]'s world, block and configuration.
#[derive(Clone, Debug)]
pub struct Snapshot(InProcessEvm);

impl InProcessEvm {
    /// An empty world on `chain_id` at [`DEFAULT_SPEC`], block 1, timestamp 1.
    pub fn new(chain_id: u64) -> Self {
        Self::with_spec(chain_id, DEFAULT_SPEC)
    }

    /// An empty world on `chain_id` running hard fork `spec`.
    pub fn with_spec(chain_id: u64, spec: SpecId) -> Self {
        crate::recover::install();
        let mut cfg = CfgEnv::new_with_spec(spec);
        cfg.chain_id = chain_id;
        cfg.disable_eip3607 = true;
        let block = BlockEnv {
            number: U256::from(1),
            timestamp: U256::from(1),
            gas_limit: BLOCK_GAS_LIMIT,
            basefee: 0,
            prevrandao: Some(B256::ZERO),
            ..BlockEnv::default()
        };
        Self {
            db: EvmDb::default(),
            cfg,
            block,
            tx_gas_limit: DEFAULT_TX_GAS_LIMIT,
        }
    }

    /// The chain id (`block.chainid`).
    pub fn chain_id(&self) -> u64 {
        self.cfg.chain_id
    }

    /// The hard fork.
    pub fn spec(&self) -> SpecId {
        self.cfg.spec
    }

    /// Sets the block the next transactions run in (`block.number`, `block.timestamp`).
    pub fn set_block(&mut self, number: u64, timestamp: u64) {
        self.block.number = U256::from(number);
        self.block.timestamp = U256::from(timestamp);
    }

    /// The current block number.
    pub fn block_number(&self) -> u64 {
        self.block.number.saturating_to()
    }

    /// The current block timestamp.
    pub fn timestamp(&self) -> u64 {
        self.block.timestamp.saturating_to()
    }

    /// Sets the gas limit of the following transactions (default [`DEFAULT_TX_GAS_LIMIT`]).
    pub fn set_tx_gas_limit(&mut self, gas_limit: u64) {
        self.tx_gas_limit = gas_limit;
    }

    /// The gas limit every transaction gets.
    pub fn tx_gas_limit(&self) -> u64 {
        self.tx_gas_limit
    }

    /// The block environment transactions run in (number, timestamp, gas limit, coinbase,
    /// prevrandao, ...), for code that runs its own revm over [`Self::db`] and must see the
    /// same block (on a fork these are the forked block's).
    pub fn block_env(&self) -> &BlockEnv {
        &self.block
    }

    /// The configuration transactions run with (chain id, hard fork, EIP-3607 off, ...).
    pub fn cfg_env(&self) -> &CfgEnv {
        &self.cfg
    }

    /// The block environment, for the fork to fill from the node's header.
    pub(crate) fn block_env_mut(&mut self) -> &mut BlockEnv {
        &mut self.block
    }

    /// The world state, for reading with revm's `DatabaseRef`.
    pub fn db(&self) -> &EvmDb {
        &self.db
    }

    /// The world state, for direct edits (they bypass the EVM).
    pub fn db_mut(&mut self) -> &mut EvmDb {
        &mut self.db
    }

    // ---------------------------------------------------------------- state, read and write
    //
    // The readers cannot fail on the in-memory world. On a fork they read the node on a cache
    // miss and return its failure; the setters read the account first, so they can fail too.

    /// The account's info (balance, nonce, code hash), or `None` if it was never touched.
    pub fn account(&self, address: Address) -> Result<Option<AccountInfo>, ForkError> {
        self.db.basic_ref(address)
    }

    /// The ether balance in wei.
    pub fn balance(&self, address: Address) -> Result<U256, ForkError> {
        Ok(self
            .account(address)?
            .map_or(U256::ZERO, |info| info.balance))
    }

    /// The account nonce.
    pub fn nonce(&self, address: Address) -> Result<u64, ForkError> {
        Ok(self.account(address)?.map_or(0, |info| info.nonce))
    }

    /// The runtime code (empty for an externally owned account).
    pub fn code(&self, address: Address) -> Result<Bytes, ForkError> {
        let Some(info) = self.account(address)? else {
            return Ok(Bytes::new());
        };
        Ok(match info.code {
            Some(code) => code.original_bytes(),
            None => self.db.code_by_hash_ref(info.code_hash)?.original_bytes(),
        })
    }

    /// A storage slot.
    pub fn storage(&self, address: Address, slot: U256) -> Result<U256, ForkError> {
        self.db.storage_ref(address, slot)
    }

    /// Credits `wei` to `address` (out of thin air), keeping its code, nonce and storage.
    ///
    /// On a fork this and the other setters read the account first, and fail if the node
    /// cannot answer.
    pub fn fund(&mut self, address: Address, wei: U256) -> Result<(), ForkError> {
        let balance = self.balance(address)?.saturating_add(wei);
        self.set_balance(address, balance)
    }

    /// Sets the ether balance of `address`.
    pub fn set_balance(&mut self, address: Address, wei: U256) -> Result<(), ForkError> {
        let mut info = self.account(address)?.unwrap_or_default();
        info.balance = wei;
        self.db.insert_account_info(address, info);
        Ok(())
    }

    /// Replaces the runtime code at `address` (like `vm.etch`), keeping balance, nonce, storage.
    pub fn set_code(&mut self, address: Address, code: Bytes) -> Result<(), ForkError> {
        let mut info = self.account(address)?.unwrap_or_default();
        let code = Bytecode::new_raw(code);
        info.code_hash = code.hash_slow();
        info.code = Some(code);
        self.db.insert_account_info(address, info);
        Ok(())
    }

    /// Writes a storage slot directly (like `vm.store`).
    pub fn set_storage(
        &mut self,
        address: Address,
        slot: U256,
        value: U256,
    ) -> Result<(), ForkError> {
        if self.account(address)?.is_none() {
            self.db.insert_account_info(address, AccountInfo::default());
        }
        self.db.insert_account_storage(address, slot, value)
    }

    // ---------------------------------------------------------------- transactions

    /// Deploys `init_code` (creation code plus constructor arguments) from `from`, committing
    /// the state, and returns the new contract's address. A reverting or halting constructor is
    /// an error ([`crate::Error::Reverted`] / [`crate::Error::Halted`]).
    pub fn deploy(&mut self, from: Address, init_code: Bytes) -> Result<Address> {
        let outcome = self.create(from, U256::ZERO, init_code)?.into_result()?;
        Ok(outcome
            .created
            .expect("a successful create transaction returns the created address"))
    }

    /// A contract-creation transaction sending `value`, committed; the outcome's `created` is
    /// the new address on success.
    pub fn create(&mut self, from: Address, value: U256, init_code: Bytes) -> Result<Outcome> {
        let tx = self.tx(from, TxKind::Create, value, init_code)?;
        self.transact_commit(tx)
    }

    /// A call transaction from `from` to `to` with `value` and `data`, committed: state changes
    /// persist, the sender's nonce increments. Reverts and halts are outcomes (state rolled back
    /// except the nonce), not errors.
    pub fn call(
        &mut self,
        from: Address,
        to: Address,
        value: U256,
        data: Bytes,
    ) -> Result<Outcome> {
        let tx = self.tx(from, TxKind::Call(to), value, data)?;
        self.transact_commit(tx)
    }

    /// Runs the call as a transaction against the current state and discards its effects (like
    /// `eth_call` with a sender): a what-if.
    pub fn simulate(
        &self,
        from: Address,
        to: Address,
        value: U256,
        data: Bytes,
    ) -> Result<Outcome> {
        let tx = self.tx(from, TxKind::Call(to), value, data)?;
        let result = self
            .context(WrapDatabaseRef(&self.db))
            .build_mainnet()
            .transact(tx)?;
        Ok(Outcome::from_result(result.result))
    }

    /// A read-only call from the zero address (nothing is committed); the return data, or
    /// [`crate::Error::Reverted`] / [`crate::Error::Halted`].
    pub fn view(&self, to: Address, data: Bytes) -> Result<Bytes> {
        Ok(self
            .simulate(Address::ZERO, to, U256::ZERO, data)?
            .into_result()?
            .output)
    }

    /// [`Self::call`] with `inspector` observing execution (call frames, logs, steps); returns
    /// the inspector with the outcome.
    pub fn call_with_inspector<I: Inspector<EvmContext>>(
        &mut self,
        from: Address,
        to: Address,
        value: U256,
        data: Bytes,
        inspector: I,
    ) -> Result<(Outcome, I)> {
        let tx = self.tx(from, TxKind::Call(to), value, data)?;
        self.inspect(tx, inspector, true)
    }

    /// [`Self::simulate`] with `inspector` observing execution; nothing is committed.
    pub fn simulate_with_inspector<I: Inspector<EvmContext>>(
        &mut self,
        from: Address,
        to: Address,
        value: U256,
        data: Bytes,
        inspector: I,
    ) -> Result<(Outcome, I)> {
        let tx = self.tx(from, TxKind::Call(to), value, data)?;
        self.inspect(tx, inspector, false)
    }

    /// [`Self::create`] with `inspector` observing execution, committed.
    pub fn create_with_inspector<I: Inspector<EvmContext>>(
        &mut self,
        from: Address,
        value: U256,
        init_code: Bytes,
        inspector: I,
    ) -> Result<(Outcome, I)> {
        let tx = self.tx(from, TxKind::Create, value, init_code)?;
        self.inspect(tx, inspector, true)
    }

    // ---------------------------------------------------------------- snapshots

    /// Saves the world, block and configuration.
    pub fn snapshot(&self) -> Snapshot {
        Snapshot(self.clone())
    }

    /// Puts back what [`Self::snapshot`] saved (the snapshot stays usable).
    pub fn restore(&mut self, snapshot: &Snapshot) {
        self.clone_from(&snapshot.0);
    }

    // ---------------------------------------------------------------- internals

    fn tx(&self, from: Address, kind: TxKind, value: U256, data: Bytes) -> Result<TxEnv> {
        Ok(TxEnv::builder()
            .caller(from)
            .kind(kind)
            .value(value)
            .data(data)
            .nonce(self.nonce(from)?)
            .gas_limit(self.tx_gas_limit)
            .gas_price(0)
            .chain_id(Some(self.cfg.chain_id))
            .build_fill())
    }

    fn context<DB: revm::Database>(&self, db: DB) -> Context<BlockEnv, TxEnv, CfgEnv, DB> {
        Context::mainnet()
            .with_db(db)
            .with_cfg(self.cfg.clone())
            .with_block(self.block.clone())
    }

    /// Runs `tx` as given (its own nonce, gas and fees), committing.
    pub(crate) fn transact_commit_env(&mut self, tx: TxEnv) -> Result<Outcome> {
        self.transact_commit(tx)
    }

    fn transact_commit(&mut self, tx: TxEnv) -> Result<Outcome> {
        let db = std::mem::take(&mut self.db);
        let mut evm = self.context(db).build_mainnet();
        // The world comes back even when a forked read fails half-way (revm drops the
        // journal's uncommitted changes with the error).
        let result = evm.transact(tx);
        self.db = evm.ctx.journaled_state.database;
        self.finish(result, true)
    }

    fn inspect<I: Inspector<EvmContext>>(
        &mut self,
        tx: TxEnv,
        inspector: I,
        commit: bool,
    ) -> Result<(Outcome, I)> {
        let db = std::mem::take(&mut self.db);
        let mut evm = self.context(db).build_mainnet_with_inspector(inspector);
        let result = evm.inspect_tx(tx);
        self.db = evm.ctx.journaled_state.database;
        let outcome = self.finish(result, commit)?;
        Ok((outcome, evm.inspector))
    }

    fn finish(&mut self, result: TransactResult, commit: bool) -> Result<Outcome> {
        let ExecResultAndState { result, state } = result?;
        if commit {
            self.db.commit(state);
            // CacheDB keeps every committed log; the outcome carries them instead.
            self.db.cache.logs.clear();
        }
        Ok(Outcome::from_result(result))
    }
}

/// What revm's `transact` / `inspect_tx` return over [`EvmDb`].
type TransactResult = Result<ExecResultAndState<ExecutionResult, EvmState>, EVMError<ForkError>>;
