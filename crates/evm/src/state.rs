//! [`BlockState`]: what was fetched of one pinned block, and [`StateKeys`], what to fetch.
//! [`fetch`] asks for any set of keys (and the access lists of calls) in one JSON-RPC batch.

use alloy::{
    eips::{BlockId, BlockNumberOrTag},
    rpc::{
        client::RpcClient,
        types::{AccessListResult, Block, TransactionRequest},
    },
    transports::TransportResult,
};
use alloy_primitives::{Address, B256, Bytes, U64, U256};
use revm::{bytecode::Bytecode, state::AccountInfo};
use std::{
    collections::{BTreeMap, BTreeSet, HashMap},
    hash::Hash,
    sync::{
        Mutex, PoisonError,
        atomic::{AtomicUsize, Ordering},
    },
};

/// State of a pinned block to fetch: accounts (balance, nonce and code), storage slots and
/// block hashes.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct StateKeys {
    /// Accounts.
    pub accounts: BTreeSet<Address>,
    /// Storage slots.
    pub slots: BTreeSet<(Address, U256)>,
    /// Block hashes by number.
    pub block_hashes: BTreeSet<u64>,
}

impl StateKeys {
    /// Whether there is nothing to fetch.
    pub fn is_empty(&self) -> bool {
        self.accounts.is_empty() && self.slots.is_empty() && self.block_hashes.is_empty()
    }

    /// How many keys: accounts, slots and block hashes.
    pub fn len(&self) -> usize {
        self.accounts.len() + self.slots.len() + self.block_hashes.len()
    }

    /// Adds `other`'s keys.
    pub fn extend(&mut self, other: Self) {
        self.accounts.extend(other.accounts);
        self.slots.extend(other.slots);
        self.block_hashes.extend(other.block_hashes);
    }

    /// The JSON-RPC requests fetching these keys takes (three per account).
    pub(crate) fn requests(&self) -> u64 {
        (3 * self.accounts.len() + self.slots.len() + self.block_hashes.len()) as u64
    }
}

/// Approximate heap bytes per remembered entry, for [`BlockState::memory_bytes`]: the key, the
/// value and a hash map slot's overhead (code is counted by its length on top).
const ACCOUNT_BYTES: usize = 160;
const SLOT_BYTES: usize = 112;
const CODE_BYTES: usize = 96;
const HASH_BYTES: usize = 64;

/// Everything fetched of one pinned block. Values never change (the block is in the past), so
/// everything is kept; clones of a backend, and the forks a [`crate::ForkCache`] hands out
/// for the block, share it.
#[derive(Default)]
pub(crate) struct BlockState {
    pub(crate) accounts: Memo<Address, Option<AccountInfo>>,
    pub(crate) storage: Memo<(Address, U256), U256>,
    pub(crate) code: Memo<B256, Bytecode>,
    pub(crate) block_hashes: Memo<u64, B256>,
    bytes: AtomicUsize,
}

impl BlockState {
    /// The keys of `keys` not fetched yet.
    pub(crate) fn unknown(&self, keys: &StateKeys) -> StateKeys {
        StateKeys {
            accounts: (keys.accounts.iter().copied())
                .filter(|a| !self.accounts.contains(a))
                .collect(),
            slots: (keys.slots.iter().copied())
                .filter(|s| !self.storage.contains(s))
                .collect(),
            block_hashes: (keys.block_hashes.iter().copied())
                .filter(|n| !self.block_hashes.contains(n))
                .collect(),
        }
    }

    /// Remembers what the node answered.
    pub(crate) fn store(&self, fetched: Fetched) {
        for (address, balance, nonce, code) in fetched.accounts {
            let info = if balance.is_zero() && nonce == 0 && code.is_empty() {
                None
            } else {
                let code = Bytecode::new_raw(code);
                let hash = code.hash_slow();
                let len = code.len();
                if self.code.put(hash, code.clone()) {
                    self.bytes.fetch_add(CODE_BYTES + len, Ordering::Relaxed);
                }
                Some(AccountInfo::new(balance, nonce, hash, code))
            };
            if self.accounts.put(address, info) {
                self.bytes.fetch_add(ACCOUNT_BYTES, Ordering::Relaxed);
            }
        }
        for (key, value) in fetched.slots {
            if self.storage.put(key, value) {
                self.bytes.fetch_add(SLOT_BYTES, Ordering::Relaxed);
            }
        }
        for (number, hash) in fetched.block_hashes {
            if self.block_hashes.put(number, hash) {
                self.bytes.fetch_add(HASH_BYTES, Ordering::Relaxed);
            }
        }
    }

    /// Approximate heap bytes held: entries at a fixed size each, code by its length.
    pub(crate) fn memory_bytes(&self) -> usize {
        self.bytes.load(Ordering::Relaxed)
    }
}

/// A call to trace on the pinned state with some storage overridden (what earlier calls of a
/// batch wrote), so that it runs as it will after them: `(call, {address: {slot: value}})`.
pub(crate) type Overridden = (TransactionRequest, BTreeMap<Address, BTreeMap<U256, U256>>);

/// The answers of one batch.
#[derive(Default)]
pub(crate) struct Fetched {
    accounts: Vec<(Address, U256, u64, Bytes)>,
    slots: Vec<((Address, U256), U256)>,
    block_hashes: Vec<(u64, B256)>,
    /// What the calls' access lists and prestate traces name: accounts, with a slot or not.
    pub(crate) touched: Vec<(Address, Option<U256>)>,
}

/// Fetches `keys` at block `at`, and the access lists of `calls` there, in one JSON-RPC batch.
///
/// A node that fails any state read fails the batch. An access list the node cannot make (a
/// call it refuses, a node without `eth_createAccessList`) is `None`: access lists only guide
/// what to fetch, so missing one costs round trips later, never correctness.
pub(crate) async fn fetch(
    client: RpcClient,
    at: u64,
    keys: StateKeys,
    calls: Vec<TransactionRequest>,
    overridden: Vec<Overridden>,
) -> TransportResult<Fetched> {
    let block = BlockId::number(at);
    let mut batch = client.new_batch();
    let mut accounts = Vec::with_capacity(keys.accounts.len());
    for &a in &keys.accounts {
        accounts.push((
            a,
            batch.add_call::<_, U256>("eth_getBalance", &(a, block))?,
            batch.add_call::<_, U64>("eth_getTransactionCount", &(a, block))?,
            batch.add_call::<_, Bytes>("eth_getCode", &(a, block))?,
        ));
    }
    let mut slots = Vec::with_capacity(keys.slots.len());
    for &(a, slot) in &keys.slots {
        let waiter = batch.add_call::<_, U256>("eth_getStorageAt", &(a, slot, block))?;
        slots.push(((a, slot), waiter));
    }
    let mut hashes = Vec::with_capacity(keys.block_hashes.len());
    for &n in &keys.block_hashes {
        let waiter = batch.add_call::<_, Option<Block>>(
            "eth_getBlockByNumber",
            &(BlockNumberOrTag::Number(n), false),
        )?;
        hashes.push((n, waiter));
    }
    let mut lists = Vec::with_capacity(calls.len());
    let prestate = serde_json::json!({ "tracer": "prestateTracer" });
    for call in &calls {
        lists.push((
            batch.add_call::<_, AccessListResult>("eth_createAccessList", &(call, block))?,
            batch.add_call::<_, serde_json::Value>("debug_traceCall", &(call, block, &prestate))?,
        ));
    }
    let mut traces = Vec::with_capacity(overridden.len());
    for (call, diff) in &overridden {
        let overrides: serde_json::Map<String, serde_json::Value> = (diff.iter())
            .map(|(a, slots)| {
                let slots: serde_json::Map<String, serde_json::Value> = (slots.iter())
                    .map(|(s, v)| {
                        (
                            B256::from(*s).to_string(),
                            B256::from(*v).to_string().into(),
                        )
                    })
                    .collect();
                (a.to_string(), serde_json::json!({ "stateDiff": slots }))
            })
            .collect();
        let options =
            serde_json::json!({ "tracer": "prestateTracer", "stateOverrides": overrides });
        let waiter =
            batch.add_call::<_, serde_json::Value>("debug_traceCall", &(call, block, &options))?;
        traces.push((waiter, diff));
    }
    batch.send().await?;
    let mut out = Fetched::default();
    for (a, balance, nonce, code) in accounts {
        out.accounts
            .push((a, balance.await?, nonce.await?.to::<u64>(), code.await?));
    }
    for (key, value) in slots {
        out.slots.push((key, value.await?));
    }
    for (n, block) in hashes {
        // A block the node does not have hashes to zero, as blocks after the fork do.
        let hash = block.await?.map_or(B256::ZERO, |b| b.header.hash);
        out.block_hashes.push((n, hash));
    }
    for (list, trace) in lists {
        // A node refuses an access list for a call that reverts (anvil does), but its prestate
        // trace still names what ran before the revert; either may be missing.
        if let Ok(list) = list.await {
            out.touched.extend(list.access_list.iter().flat_map(|item| {
                let slots = item.storage_keys.iter();
                std::iter::once((item.address, None))
                    .chain(slots.map(|s| (item.address, Some(U256::from_be_bytes(s.0)))))
            }));
        }
        if let Ok(serde_json::Value::Object(trace)) = trace.await {
            prestate_values(&trace, &Default::default(), &mut out);
            out.touched.extend(prestate_keys(&trace));
        }
    }
    for (trace, diff) in traces {
        // The slots overridden show their override, not the node's value: left out.
        if let Ok(serde_json::Value::Object(trace)) = trace.await {
            prestate_values(&trace, diff, &mut out);
            out.touched.extend(prestate_keys(&trace));
        }
    }
    Ok(out)
}

/// The values of a `prestateTracer` answer (`{address: {balance, nonce, code, storage}}`), taken
/// as they are: they are the node's own values at the pinned block (the state before the call),
/// so the second round trip asking for them again is saved. An account is taken only with its
/// balance (a nonce left out is 0 and code left out is none, as the tracer omits them); an
/// entry that does not parse is left out, to be fetched like any other key.
fn prestate_values(
    trace: &serde_json::Map<String, serde_json::Value>,
    overridden: &BTreeMap<Address, BTreeMap<U256, U256>>,
    out: &mut Fetched,
) {
    for (address, account) in trace {
        let Ok(address) = address.parse::<Address>() else {
            continue;
        };
        let balance = account.get("balance").and_then(|b| b.as_str());
        let Some(Ok(balance)) = balance.map(str::parse::<U256>) else {
            continue;
        };
        let nonce = match account.get("nonce") {
            None => Some(0),
            Some(serde_json::Value::Number(n)) => n.as_u64(),
            Some(serde_json::Value::String(n)) => n.parse::<U64>().ok().map(|n| n.to::<u64>()),
            Some(_) => None,
        };
        let code = match account.get("code") {
            None => Some(Bytes::new()),
            Some(serde_json::Value::String(c)) => c.parse::<Bytes>().ok(),
            Some(_) => None,
        };
        let (Some(nonce), Some(code)) = (nonce, code) else {
            continue;
        };
        out.accounts.push((address, balance, nonce, code));
        if let Some(storage) = account.get("storage").and_then(|s| s.as_object()) {
            for (slot, value) in storage {
                let slot = slot.parse::<B256>();
                let value = value.as_str().map(str::parse::<B256>);
                if let (Ok(slot), Some(Ok(value))) = (slot, value) {
                    let slot = U256::from_be_bytes(slot.0);
                    if overridden
                        .get(&address)
                        .is_some_and(|o| o.contains_key(&slot))
                    {
                        continue;
                    }
                    out.slots
                        .push(((address, slot), U256::from_be_bytes(value.0)));
                }
            }
        }
    }
}

/// The accounts and slots of a `prestateTracer` answer (`{address: {storage: {slot: _}}}`).
fn prestate_keys(
    trace: &serde_json::Map<String, serde_json::Value>,
) -> Vec<(Address, Option<U256>)> {
    let mut keys = Vec::new();
    for (address, account) in trace {
        let Ok(address) = address.parse::<Address>() else {
            continue;
        };
        keys.push((address, None));
        if let Some(storage) = account.get("storage").and_then(|s| s.as_object()) {
            keys.extend(
                (storage.keys())
                    .filter_map(|slot| slot.parse::<B256>().ok())
                    .map(|slot| (address, Some(U256::from_be_bytes(slot.0)))),
            );
        }
    }
    keys
}

/// A thread-safe map of answers that never change.
pub(crate) struct Memo<K, V>(Mutex<HashMap<K, V>>);

impl<K, V> Default for Memo<K, V> {
    fn default() -> Self {
        Self(Mutex::new(HashMap::new()))
    }
}

impl<K: Eq + Hash, V: Clone> Memo<K, V> {
    pub(crate) fn get(&self, key: &K) -> Option<V> {
        self.0
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .get(key)
            .cloned()
    }

    fn contains(&self, key: &K) -> bool {
        self.0
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .contains_key(key)
    }

    /// Inserts `value` unless `key` is known; whether it was new.
    pub(crate) fn put(&self, key: K, value: V) -> bool {
        let mut map = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        if map.contains_key(&key) {
            return false;
        }
        map.insert(key, value);
        true
    }
}
