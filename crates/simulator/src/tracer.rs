//! [`Tracer`]: the revm inspector that watches the intent's calls.
//!
//! It runs in one of two modes:
//! - **per call** ([`Tracer::new`]): each call of the intent is a transaction of its own from
//!   the account, and every frame belongs to the call running;
//! - **in the account's frame** ([`Tracer::in_frame`]): the whole transaction that will execute
//!   (a relayer's `executeBatchPDR` to the account) runs at once. A frame whose code runs at the
//!   account's address is the account's own (its checks, signature recovery, balance and
//!   budget reads); a `CALL` the account makes from its own frame whose target, value and data
//!   are the intent's next call is that call, and everything inside it belongs to it. The
//!   account's own frames, and anything the account does outside the intent's calls, are not
//!   facts of the intent: nothing of them is recorded. The account's signing calls
//!   (`approveHash` to itself) make no frame: the account records their hash instead.
//!
//! It records, over the whole execution:
//! - every address a call frame of the intent targets or runs the code of, and every created
//!   contract, in first-touch order (the account excluded, precompiles apart), reverted frames
//!   included: a contract that ran is touched even if its effects were rolled back;
//! - the gas each of the intent's calls used;
//!
//! and only what survives (frames that revert drop theirs):
//! - ether moved by value transfers (calls, creations, self-destructs), with its call;
//! - for every log of the execution, in log order, the call it belongs to (none for the
//!   account's own logs) and the `msg.sender` of the frame that emitted it, so that an
//!   `Approval` log can be told apart from a spender's `transferFrom` bookkeeping.
//!
//! It also keeps, for the intent's frames, the calls to views of rights over the account's
//! value (an allowance, an operator approval, a Permit2 allowance, a credit delegation, keyed
//! by the account; [`RightKeys`]), and the preimage of every `KECCAK256` of up to
//! [`MAX_PREIMAGE`] bytes ([`Preimages`]): the keys of mapping slots (`keccak256(key . slot)`,
//! nested and packed ones alike), so that what a slot is keyed by (a role recorded under an
//! address, a position keyed by the account, an order digest) can be told from the slot.
//!
//! In the account's frame it also copies the journal's state when the call [`Tracer::watch`]
//! names starts and when it ends, so that facts measured around one call (a swap's price
//! impact) are measured inside the one transaction.

mod env;
mod keys;

pub(crate) use keys::RightKeys;

use alloy_primitives::{Address, B256, Bytes, Log, U256, keccak256};
use pace_evm::revm::{
    Inspector,
    bytecode::opcode::KECCAK256,
    context::{ContextTr, JournalTr},
    context_interface::{Block, Transaction},
    interpreter::{
        CallInputs, CallOutcome, CallScheme, CreateInputs, CreateOutcome, Interpreter,
        interpreter::EthInterpreter,
        interpreter_types::{Jumps, MemoryTr},
    },
    state::EvmState,
};
use std::collections::HashMap;

use crate::precompile::is_precompile;
use pace_abi::decode::typed_data::is_signing_call;

/// The shortest preimage kept: one address.
pub(crate) const MIN_PREIMAGE: usize = 20;
/// The longest preimage kept: eight words, a mapping key packed of several values and its
/// slot (an order's struct hash is kept through its own parts).
pub(crate) const MAX_PREIMAGE: usize = 256;
/// How many preimages one execution keeps; past it, the oldest stay and the rest are dropped
/// (a slot whose key is not known is judged as unkeyed).
const MAX_PREIMAGES: usize = 1 << 16;

/// `keccak256(preimage)` → `preimage`, for the hashes an execution took.
#[derive(Debug, Default, Clone)]
pub(crate) struct Preimages(HashMap<B256, Bytes>);

impl Preimages {
    fn insert(&mut self, preimage: &[u8]) {
        if self.0.len() < MAX_PREIMAGES {
            self.0
                .entry(keccak256(preimage))
                .or_insert_with(|| Bytes::copy_from_slice(preimage));
        }
    }

    /// What `slot` is keyed by: the preimage of the hash it is (or of the hash it is a
    /// struct member of: `hash + i`, `i` below 256), with every whole word of it that is itself
    /// a known hash expanded in place after it (a nested mapping's inner slot), up to four
    /// levels. `None` when the slot is no hash the execution took.
    pub(crate) fn key_of(&self, slot: U256) -> Option<Vec<u8>> {
        let base = (0u64..256).find_map(|i| {
            let h = B256::from(slot.wrapping_sub(U256::from(i)));
            self.0.get(&h)
        })?;
        let mut out = base.to_vec();
        self.expand(base, &mut out, 1);
        Some(out)
    }

    /// The keys of the Solidity mapping chain `slot` is in, outermost first
    /// (`m[a][b]`: `[b, a]`): each preimage of the chain is a key and the next slot of the
    /// chain, down to the mapping's own slot. `None` when the slot is no hash the execution
    /// took or a preimage of its chain is not two words (a packed key).
    pub(crate) fn mapping_keys(&self, slot: U256) -> Option<Vec<[u8; 32]>> {
        let mut preimage = (0u64..256).find_map(|i| {
            let h = B256::from(slot.wrapping_sub(U256::from(i)));
            self.0.get(&h)
        })?;
        let mut keys = Vec::new();
        for _ in 0..8 {
            let [key, next] = <&[u8; 64]>::try_from(preimage.as_ref()).ok().map(|p| {
                let (k, n) = p.split_at(32);
                [
                    <[u8; 32]>::try_from(k).expect("32"),
                    <[u8; 32]>::try_from(n).expect("32"),
                ]
            })?;
            keys.push(key);
            match self.0.get(&B256::from(next)) {
                Some(inner) => preimage = inner,
                None => break,
            }
        }
        Some(keys)
    }

    /// Whether the 32 bytes `word` are a hash the execution took (a nested mapping's inner
    /// slot, within a key chain).
    pub(crate) fn is_hash(&self, word: &[u8]) -> bool {
        word.len() == 32 && self.0.contains_key(&B256::from_slice(word))
    }

    /// The hashes the execution took of a preimage that holds `account` as a whole word (a
    /// mapping slot keyed by the account: `keccak256(account . slot)`), in no fixed order.
    pub(crate) fn keyed_by(&self, account: Address) -> impl Iterator<Item = U256> + '_ {
        let mut word = [0u8; 32];
        word[12..].copy_from_slice(account.as_slice());
        self.0
            .iter()
            .filter(move |(_, preimage)| preimage.chunks_exact(32).any(|w| w == word))
            .map(|(hash, _)| U256::from_be_bytes(hash.0))
    }

    fn expand(&self, preimage: &[u8], out: &mut Vec<u8>, depth: usize) {
        if depth > 4 {
            return;
        }
        for word in preimage.chunks_exact(32) {
            if let Some(inner) = self.0.get(&B256::from_slice(word)) {
                out.extend_from_slice(inner);
                self.expand(inner, out, depth + 1);
            }
        }
    }
}

/// Ether moved by one value transfer that survived.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct EthFlow {
    /// The intent's call it belongs to.
    pub(crate) call: usize,
    pub(crate) from: Address,
    pub(crate) to: Address,
    pub(crate) amount: U256,
    /// How many surviving logs of the execution precede it (to interleave flows with logs).
    pub(crate) logs_before: usize,
}

/// Whose a frame is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Role {
    /// The account's own code, or what it does outside the intent's calls.
    Account,
    /// The intent's call with this index (and everything it calls).
    Call(usize),
    /// Outside the account altogether (what calls the account, in the account's frame mode).
    Other,
}

/// What a frame started with, to roll back to if it fails.
#[derive(Debug, Clone, Copy)]
struct Frame {
    /// `msg.sender` inside the frame.
    caller: Address,
    role: Role,
    /// Whether this frame is one of the intent's calls itself (not a frame inside one).
    root: bool,
    /// Whether its code is trusted not to depend on its environment: the account's own code
    /// at the account's address, or what calls the account (its environment reads are not
    /// recorded).
    trusted: bool,
    eth_flows: usize,
    logs: usize,
    /// For creations: where the created address goes in `touched` (its first touch).
    touched: usize,
}

/// The log of a surviving frame: its call (`None`: the account's own) and its frame's caller.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct LogOrigin {
    pub(crate) call: Option<usize>,
    /// `None` when the trace could not tell.
    pub(crate) caller: Option<Address>,
}

/// How the intent's calls are found.
#[derive(Debug)]
enum Mode {
    /// One transaction per call; the call running is `current`.
    PerCall { current: usize },
    /// One transaction in the account's frame; the intent's calls in order, `next` the one
    /// expected next.
    InFrame {
        calls: Vec<(Address, U256, Bytes)>,
        next: usize,
    },
}

/// The journal's state around one call.
#[derive(Debug, Default)]
pub(crate) struct Around {
    pub(crate) before: Option<EvmState>,
    pub(crate) after: Option<EvmState>,
}

impl Around {
    /// What a watched call's copies are: `(call, around)` pairs in call order.
    fn of(all: &mut Vec<(usize, Self)>, call: usize) -> &mut Self {
        if let Some(at) = all.iter().position(|(c, _)| *c == call) {
            return &mut all[at].1;
        }
        all.push((call, Self::default()));
        &mut all.last_mut().expect("just pushed").1
    }
}

/// The inspector. See the module docs.
#[derive(Debug)]
pub(crate) struct Tracer {
    account: Address,
    mode: Mode,
    pub(crate) touched: Vec<Address>,
    pub(crate) precompiles: Vec<Address>,
    pub(crate) eth_flows: Vec<EthFlow>,
    pub(crate) logs: Vec<LogOrigin>,
    /// Gas used by each of the intent's calls that started, in order.
    pub(crate) call_gas: Vec<u64>,
    /// The calls whose surroundings to copy, and the copies.
    watch: Vec<usize>,
    pub(crate) around: Vec<(usize, Around)>,
    /// The preimages of the hashes the intent's frames took.
    pub(crate) preimages: Preimages,
    /// What the untrusted frames read of the transaction and block.
    env: env::EnvReads,
    /// The views of rights over the account's value that the intent's frames called.
    pub(crate) right_keys: RightKeys,
    frames: Vec<Frame>,
}

impl Tracer {
    /// A tracer for calls run one transaction each.
    pub(crate) fn new(account: Address) -> Self {
        Self::with_mode(account, Mode::PerCall { current: 0 })
    }

    /// A tracer for the one transaction that runs `calls` inside the account's frame.
    pub(crate) fn in_frame(account: Address, calls: Vec<(Address, U256, Bytes)>) -> Self {
        Self::with_mode(account, Mode::InFrame { calls, next: 0 })
    }

    fn with_mode(account: Address, mode: Mode) -> Self {
        Self {
            account,
            mode,
            touched: Vec::new(),
            precompiles: Vec::new(),
            eth_flows: Vec::new(),
            logs: Vec::new(),
            preimages: Preimages::default(),
            call_gas: Vec::new(),
            watch: Vec::new(),
            around: Vec::new(),
            env: env::EnvReads::default(),
            right_keys: RightKeys::default(),
            frames: Vec::new(),
        }
    }

    /// What code other than the account's own read of the transaction and block it ran in,
    /// failed frames included ([`pace_types::EnvRead`], in order).
    pub(crate) fn environment(&self) -> Vec<pace_types::EnvRead> {
        self.env.list()
    }

    /// Copies the journal's state when each of `calls` starts and when it ends.
    pub(crate) fn watch(&mut self, calls: Vec<usize>) {
        self.watch = calls;
    }

    /// Per call: the next transaction is call `call`; the previous one's logs and flows stay.
    pub(crate) fn next_call(&mut self, call: usize) {
        if let Mode::PerCall { current } = &mut self.mode {
            *current = call;
        }
        self.frames.clear();
    }

    /// How many of the intent's calls started, in the account's frame.
    pub(crate) fn calls_started(&self) -> usize {
        match self.mode {
            Mode::PerCall { current } => current + 1,
            Mode::InFrame { ref calls, next } => skip_signing(self.account, calls, next),
        }
    }

    fn touch(&mut self, address: Address) {
        if address == self.account {
            return;
        }
        let list = if is_precompile(address) {
            &mut self.precompiles
        } else {
            &mut self.touched
        };
        if !list.contains(&address) {
            list.push(address);
        }
    }

    /// The role of a new call frame made by `inputs` (whose calldata `input` gives), and
    /// whether it is an intent call's root.
    fn role_of(&mut self, inputs: &CallInputs, input: impl FnOnce() -> Bytes) -> (Role, bool) {
        let parent = self.frames.last().map(|f| f.role);
        let account = self.account;
        match &mut self.mode {
            Mode::PerCall { current } => (Role::Call(*current), parent.is_none()),
            Mode::InFrame { calls, next } => match parent {
                // Code running at the account's address outside the intent's calls is the
                // account's own; inside a call it belongs to that call (a callback).
                None | Some(Role::Account | Role::Other)
                    if inputs.target_address == self.account =>
                {
                    (Role::Account, false)
                }
                Some(Role::Account) => {
                    // The account's signing calls make no call frame: the next call is the
                    // next one after them.
                    *next = skip_signing(account, calls, *next);
                    let expected = calls.get(*next).is_some_and(|(to, value, data)| {
                        inputs.scheme == CallScheme::Call
                            && inputs.caller == self.account
                            && inputs.target_address == *to
                            && inputs.call_value() == *value
                            && input() == *data
                    });
                    if expected {
                        *next += 1;
                        (Role::Call(*next - 1), true)
                    } else {
                        (Role::Account, false)
                    }
                }
                Some(role) => (role, false),
                None => (Role::Other, false),
            },
        }
    }

    fn push_frame(&mut self, caller: Address, role: Role, root: bool, trusted: bool) {
        self.frames.push(Frame {
            caller,
            role,
            root,
            trusted,
            eth_flows: self.eth_flows.len(),
            logs: self.logs.len(),
            touched: self.touched.len(),
        });
    }

    /// Pops the frame; drops its records if it failed. Returns it.
    fn pop_frame(&mut self, ok: bool) -> Option<Frame> {
        let frame = self.frames.pop()?;
        if !ok {
            self.eth_flows.truncate(frame.eth_flows);
            self.logs.truncate(frame.logs);
        }
        Some(frame)
    }

    fn eth_flow(&mut self, call: usize, from: Address, to: Address, amount: U256) {
        if !amount.is_zero() && from != to {
            let logs_before = self.logs.len();
            self.eth_flows.push(EthFlow {
                call,
                from,
                to,
                amount,
                logs_before,
            });
        }
    }

    fn current_call(&self) -> Option<usize> {
        match self.frames.last()?.role {
            Role::Call(i) => Some(i),
            Role::Account | Role::Other => None,
        }
    }
}

/// The index of the first call from `next` on that is not one of the account's signing calls
/// (`approveHash` to itself without value, which the account records instead of calling).
fn skip_signing(account: Address, calls: &[(Address, U256, Bytes)], mut next: usize) -> usize {
    while calls
        .get(next)
        .is_some_and(|(to, value, data)| value.is_zero() && is_signing_call(account, *to, data))
    {
        next += 1;
    }
    next
}

impl<CTX> Inspector<CTX> for Tracer
where
    CTX: ContextTr<Journal: JournalTr<State = EvmState>>,
{
    fn call(&mut self, context: &mut CTX, inputs: &mut CallInputs) -> Option<CallOutcome> {
        let (role, root) = self.role_of(inputs, || inputs.input.bytes(context));
        if let Role::Call(i) = role {
            self.touch(inputs.target_address);
            self.touch(inputs.bytecode_address);
            if let Some(amount) = inputs.transfer_value() {
                self.eth_flow(i, inputs.transfer_from(), inputs.transfer_to(), amount);
            }
            if root && self.watch.contains(&i) {
                Around::of(&mut self.around, i).before =
                    Some(context.journal_ref().evm_state().clone());
            }
            if keys::may_be_right_view(inputs.input.len()) {
                let input = inputs.input.bytes(context);
                self.right_keys
                    .record(self.account, inputs.target_address, input);
            }
        }
        let trusted = match role {
            Role::Other => true,
            Role::Account => inputs.target_address == self.account,
            Role::Call(_) => false,
        };
        self.push_frame(inputs.caller, role, root, trusted);
        None
    }

    fn call_end(&mut self, context: &mut CTX, inputs: &CallInputs, outcome: &mut CallOutcome) {
        let ok = outcome.instruction_result().is_ok();
        let Some(frame) = self.pop_frame(ok) else {
            return;
        };
        if !frame.trusted {
            self.env.ended(*outcome.instruction_result());
        }
        if let (Role::Call(i), true) = (frame.role, frame.root) {
            let used = inputs.gas_limit.saturating_sub(outcome.gas().remaining());
            if self.call_gas.len() <= i {
                self.call_gas.resize(i + 1, 0);
            }
            self.call_gas[i] = self.call_gas[i].saturating_add(used);
            if ok && self.watch.contains(&i) {
                Around::of(&mut self.around, i).after =
                    Some(context.journal_ref().evm_state().clone());
            }
        }
    }

    fn create(&mut self, _context: &mut CTX, inputs: &mut CreateInputs) -> Option<CreateOutcome> {
        let role = self.frames.last().map_or(
            match self.mode {
                Mode::PerCall { current } => Role::Call(current),
                Mode::InFrame { .. } => Role::Other,
            },
            |f| f.role,
        );
        self.push_frame(inputs.caller(), role, false, role == Role::Other);
        None
    }

    fn create_end(
        &mut self,
        _context: &mut CTX,
        inputs: &CreateInputs,
        outcome: &mut CreateOutcome,
    ) {
        let ok = outcome.instruction_result().is_ok();
        let Some(frame) = self.pop_frame(ok) else {
            return;
        };
        if !frame.trusted {
            self.env.ended(*outcome.instruction_result());
        }
        let Role::Call(call) = frame.role else {
            return;
        };
        let Some(created) = outcome.address else {
            return;
        };
        if created != self.account && !self.touched.contains(&created) {
            self.touched
                .insert(frame.touched.min(self.touched.len()), created);
        }
        if ok && !inputs.value().is_zero() {
            let flow = EthFlow {
                call,
                from: inputs.caller(),
                to: created,
                amount: inputs.value(),
                logs_before: frame.logs,
            };
            self.eth_flows
                .insert(frame.eth_flows.min(self.eth_flows.len()), flow);
        }
    }

    fn step(&mut self, interp: &mut Interpreter<EthInterpreter>, context: &mut CTX) {
        if self.frames.last().is_some_and(|f| !f.trusted) {
            self.env.step(
                interp,
                || context.tx().caller(),
                || context.block().beneficiary(),
            );
        }
        if interp.bytecode.opcode() != KECCAK256
            || !matches!(self.frames.last(), Some(f) if matches!(f.role, Role::Call(_)))
        {
            return;
        }
        let stack = interp.stack.data();
        let [.., size, offset] = stack[..] else {
            return;
        };
        let Some(size) = usize::try_from(size)
            .ok()
            .filter(|s| (MIN_PREIMAGE..=MAX_PREIMAGE).contains(s))
        else {
            return;
        };
        let Some(offset) = usize::try_from(offset).ok().filter(|o| {
            o.checked_add(size)
                .is_some_and(|end| end <= interp.memory.size())
        }) else {
            return;
        };
        let preimage = interp.memory.slice_len(offset, size);
        self.preimages.insert(&preimage);
    }

    fn log(&mut self, _context: &mut CTX, _log: Log) {
        let frame = self.frames.last();
        self.logs.push(LogOrigin {
            call: self.current_call(),
            caller: Some(frame.map_or(Address::ZERO, |f| f.caller)),
        });
    }

    fn selfdestruct(&mut self, contract: Address, target: Address, value: U256) {
        if let Some(call) = self.current_call() {
            self.eth_flow(call, contract, target, value);
        }
    }
}

#[cfg(test)]
mod preimage_tests {
    use super::Preimages;
    use alloy_primitives::{U256, keccak256};

    fn word(v: u64) -> [u8; 32] {
        U256::from(v).to_be_bytes()
    }

    /// `keccak256(key . slot)` after recording its preimage.
    fn slot_of(p: &mut Preimages, key: [u8; 32], slot: [u8; 32]) -> [u8; 32] {
        let preimage = [key, slot].concat();
        p.insert(&preimage);
        keccak256(&preimage).0
    }

    #[test]
    fn a_mapping_chain_gives_its_keys_outermost_first() {
        let mut p = Preimages::default();
        // m[a][b][c] at slot 3, and a struct member two words into it.
        let inner = slot_of(&mut p, word(0xa), word(3));
        let middle = slot_of(&mut p, word(0xb), inner);
        let outer = slot_of(&mut p, word(0xc), middle);
        let keys = vec![word(0xc), word(0xb), word(0xa)];
        let slot = U256::from_be_bytes(outer);
        assert_eq!(p.mapping_keys(slot), Some(keys.clone()));
        assert_eq!(p.mapping_keys(slot + U256::from(2)), Some(keys));
        assert!(p.is_hash(&middle) && !p.is_hash(&word(0xb)));
        // A packed key (`keccak256(abi.encodePacked(a, b))`) has no words to give; a slot that
        // is no hash, nothing.
        let packed = [&word(0xa)[12..], &word(0xb)[12..]].concat();
        p.insert(&packed);
        let packed = U256::from_be_bytes(keccak256(&packed).0);
        assert_eq!(p.mapping_keys(packed), None);
        assert_eq!(p.mapping_keys(U256::from(7)), None);
    }
}
