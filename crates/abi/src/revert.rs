//! Revert data as text: the one formatter of revert reasons, for simulation reports and for
//! the outcomes of submitted transactions alike.
//!
//! [`decode_revert_reason_with`] knows the standard reasons (`Error(string)`, `Panic(uint256)`),
//! the ERC-20 (EIP-6093) and `SafeERC20` custom errors and the account's own errors, all from
//! [`crate::bindings`]. The custom errors of any other contract come through a [`RevertDecoder`]
//! the caller builds: this crate knows no mock contract. [`describe_account_revert`] is the
//! account-first rendering of a submitted PDR's revert (argument names for the account's
//! errors).

use crate::bindings::{
    IERC20Errors::IERC20ErrorsErrors, ISafeERC20::ISafeERC20Errors, PaceAccount::PaceAccountErrors,
};
use alloy_primitives::{Address, U256, hex, keccak256};
use alloy_sol_types::{Panic, Revert, SolError, SolInterface};
use std::{fmt, sync::Arc};

/// One decoder: revert data in, a reason out when it recognises the data.
type DecodeFn = dyn Fn(&[u8]) -> Option<String> + Send + Sync;

/// A registry of revert decoders for the custom errors the simulator does not know by itself
/// (those of mock, test or protocol contracts), consulted in the order they were added after
/// the built-in ones. Empty by default.
///
/// Two registries are equal when they hold decoders of the same names in the same order; the
/// name of [`with_errors`](Self::with_errors) is the error enum's type name.
///
/// ```
/// use alloy_sol_types::{SolError, sol};
/// use pace_abi::revert::{RevertDecoder, decode_revert_reason_with};
///
/// sol! {
///     interface Vault {
///         error VaultLocked(uint256 until);
///     }
/// }
/// let decoder = RevertDecoder::new().with_errors::<Vault::VaultErrors>(Vault::VaultErrors::SIGNATURES);
/// let data = Vault::VaultLocked { until: alloy_primitives::U256::from(7) }.abi_encode();
/// assert_eq!(decode_revert_reason_with(&data, &decoder), "VaultLocked(7)");
/// ```
#[derive(Clone, Default)]
pub struct RevertDecoder {
    entries: Vec<(String, Arc<DecodeFn>)>,
}

impl RevertDecoder {
    /// An empty registry: only the built-in reasons are decoded.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds the custom errors of a `sol!` error enum `E`, given its `E::SIGNATURES`, shown as
    /// `Name(arg, ...)` like the built-in ones. Data with one of their selectors decodes only if
    /// its arguments are well-formed.
    ///
    /// Panics if `signatures` are not the signatures of `E`'s selectors (a programming error).
    #[must_use]
    pub fn with_errors<E: SolInterface + 'static>(
        self,
        signatures: &'static [&'static str],
    ) -> Self {
        let table: Vec<([u8; 4], &'static str)> =
            signatures.iter().map(|s| (selector_of(s), *s)).collect();
        assert!(
            table.len() == E::COUNT && table.iter().all(|(sel, _)| E::valid_selector(*sel)),
            "the signatures given for {} are not its errors",
            std::any::type_name::<E>()
        );
        self.with(std::any::type_name::<E>(), move |data: &[u8]| {
            let selector = data.get(..4)?;
            let (_, signature) = table.iter().find(|(sel, _)| sel[..] == *selector)?;
            known::<E>(signature, data)
        })
    }

    /// Adds a decoder of one's own under `name` (what `Debug` shows and equality compares). It
    /// returns `None` for data it does not recognise.
    #[must_use]
    pub fn with(
        mut self,
        name: impl Into<String>,
        decode: impl Fn(&[u8]) -> Option<String> + Send + Sync + 'static,
    ) -> Self {
        self.entries.push((name.into(), Arc::new(decode)));
        self
    }

    /// Adds every decoder of `other` after those of `self`.
    #[must_use]
    pub fn extend(mut self, other: &Self) -> Self {
        self.entries.extend(other.entries.iter().cloned());
        self
    }

    /// Whether the registry holds no decoder.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The names of the decoders, in order.
    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.entries.iter().map(|(name, _)| name.as_str())
    }

    /// The reason of the first decoder that recognises `data`.
    pub fn decode(&self, data: &[u8]) -> Option<String> {
        self.entries.iter().find_map(|(_, decode)| decode(data))
    }
}

impl fmt::Debug for RevertDecoder {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("RevertDecoder")
            .field(&self.names().collect::<Vec<_>>())
            .finish()
    }
}

impl PartialEq for RevertDecoder {
    fn eq(&self, other: &Self) -> bool {
        self.names().eq(other.names())
    }
}

impl Eq for RevertDecoder {}

/// Turns revert data into a readable reason with the built-in decoders only; see
/// [`decode_revert_reason_with`].
pub fn decode_revert_reason(data: &[u8]) -> String {
    decode_revert_reason_with(data, &RevertDecoder::default())
}

/// Turns revert data into a readable reason:
/// - `Error(string)`: the string itself (`UniswapV2Router: INSUFFICIENT_OUTPUT_AMOUNT`);
/// - `Panic(uint256)`: `panic: <kind> (0x<code>)`;
/// - a custom error of the account (`PaceAccount*`), the ERC-20 (EIP-6093) or `SafeERC20`
///   errors: `Name(arg, ...)` with integers in decimal, addresses checksummed, bytes in hex
///   (`ERC20InsufficientBalance(0x…, 5, 10)`);
/// - anything `extra` recognises (the custom errors of other contracts, in the same format when
///   added with [`RevertDecoder::with_errors`]);
/// - other data: `custom error 0x<selector>`; under four bytes: `revert data 0x<hex>`; empty:
///   `reverted without data`.
pub fn decode_revert_reason_with(data: &[u8], extra: &RevertDecoder) -> String {
    if data.is_empty() {
        return "reverted without data".to_owned();
    }
    let Some(selector) = data.get(..4).map(|s| [s[0], s[1], s[2], s[3]]) else {
        return format!("revert data 0x{}", hex::encode(data));
    };
    if selector == Revert::SELECTOR
        && let Ok(revert) = Revert::abi_decode(data)
    {
        return revert.reason;
    }
    if selector == Panic::SELECTOR
        && let Ok(panic) = Panic::abi_decode(data)
    {
        return panic.to_string();
    }
    built_in(selector, data)
        .or_else(|| extra.decode(data))
        .unwrap_or_else(|| format!("custom error 0x{}", hex::encode(selector)))
}

/// The revert of a submitted PDR, account first: the account's errors that a person acts on
/// (signature, nonce, window, freshness, bounds, a failed call with its own reason decoded)
/// with their argument names, any other account error by name, and anything else as
/// [`decode_revert_reason`] gives it.
pub fn describe_account_revert(data: &[u8]) -> String {
    use PaceAccountErrors as E;
    match E::abi_decode(data) {
        Ok(E::PaceAccountInvalidSigner(e)) => {
            format!("PaceAccountInvalidSigner(recovered: {})", e.recovered)
        }
        Ok(E::PaceAccountInvalidNonce(e)) => format!(
            "PaceAccountInvalidNonce(key: {}, expected: {}, got: {})",
            e.key, e.expected, e.got
        ),
        Ok(E::PaceAccountExpired(e)) => format!(
            "PaceAccountExpired(validUntil: {}, now: {})",
            e.validUntil, e.timestamp
        ),
        Ok(E::PaceAccountNotYetValid(e)) => format!(
            "PaceAccountNotYetValid(validAfter: {}, now: {})",
            e.validAfter, e.timestamp
        ),
        Ok(E::PaceAccountStaleSimulation(e)) => format!(
            "PaceAccountStaleSimulation(simulationBlock: {}, maxAge: {}, block: {})",
            e.simulationBlock, e.maxSimulationAge, e.blockNumber
        ),
        Ok(E::PaceAccountOutcomeOutOfBounds(e)) => format!(
            "PaceAccountOutcomeOutOfBounds(index: {}, token: {}, before: {}, after: {})",
            e.index, e.token, e.quantityBefore, e.quantityAfter
        ),
        Ok(E::PaceAccountHeldBalanceFell(e)) => format!(
            "PaceAccountHeldBalanceFell(index: {}, token: {}, before: {}, after: {})",
            e.index, e.token, e.balanceBefore, e.balanceAfter
        ),
        Ok(E::PaceAccountCallFailed(e)) => format!(
            "PaceAccountCallFailed(index: {}, reason: {})",
            e.index,
            decode_revert_reason(&e.reason)
        ),
        Ok(other) => format!("{other:?}"),
        Err(_) => decode_revert_reason(data),
    }
}

/// What a submitted PDR's revert `data` means for the person who sent it, when it is one of the
/// account's errors: who stopped it and why. The three a relayer must tell apart come first:
/// the account's bounds held, someone else landed the PDR (its nonce was already used), or the
/// target's own revert. `None` for anything else.
pub fn account_revert_meaning(data: &[u8]) -> Option<String> {
    use PaceAccountErrors as E;
    let meaning = match E::abi_decode(data).ok()? {
        E::PaceAccountOutcomeOutOfBounds(_) | E::PaceAccountHeldBalanceFell(_) => {
            "the account's signed bounds held: executed here, the calls would have moved its \
             assets beyond what was approved, so nothing moved"
                .to_owned()
        }
        E::PaceAccountBudgetExceeded(_) => {
            "the account's spending budget held: nothing moved".to_owned()
        }
        E::PaceAccountInvalidNonce(e) if e.expected > e.got => format!(
            "the PDR's nonce was already used: it, or a later PDR of lane {}, landed before \
             this transaction (anyone may send a signed PDR)",
            e.key
        ),
        E::PaceAccountInvalidNonce(e) => format!(
            "lane {} is at sequence {}: the PDRs before this one on that lane have not landed",
            e.key, e.expected
        ),
        E::PaceAccountLaneRetired(e) => format!("the owner retired lane {}", e.key),
        E::PaceAccountCallFailed(e) => format!(
            "call {} of the PDR reverted in its target: {}",
            e.index,
            decode_revert_reason(&e.reason)
        ),
        E::PaceAccountCallReturnedFalse(e) => {
            format!("call {} of the PDR returned false in its target", e.index)
        }
        E::PaceAccountInvalidSigner(_) => "the signature does not recover to the account's \
             verifier: a changed PDR, one signed for another account, path or chain, or a \
             verifier the owner rotated away"
            .to_owned(),
        E::PaceAccountExpired(_) => "the PDR's validity window had closed when it landed".into(),
        E::PaceAccountNotYetValid(_) => "the PDR's validity window had not opened yet".into(),
        E::PaceAccountStaleSimulation(_) | E::PaceAccountSimulationInFuture(_) => {
            "the PDR landed too many blocks after the simulation it was signed on".into()
        }
        E::PaceAccountPaused(_) => "the owner paused PDR execution".into(),
        E::PaceAccountInsufficientGas(_) => {
            "the transaction left the calls less gas than the PDR's signed floor".into()
        }
        E::PaceAccountCheckFailed(e) => format!(
            "post-condition {} held: a fact the decision rested on (read from {}) would have \
             answered {} after the calls, outside its signed range, so nothing moved",
            e.index, e.target, e.quantityAfter
        ),
        E::PaceAccountUnreadableCheck(e) => format!(
            "post-condition {} could not be read from {} after the calls (it reverted, answered \
             too little or ran out of gas): unknown is refused, so nothing moved",
            e.index, e.target
        ),
        _ => return None,
    };
    Some(meaning)
}

/// `Name(args)` if `data` is a custom error of a binding the simulator knows by itself.
fn built_in(selector: [u8; 4], data: &[u8]) -> Option<String> {
    PaceAccountErrors::signature_by_selector(selector)
        .and_then(|s| known::<PaceAccountErrors>(s, data))
        .or_else(|| {
            IERC20ErrorsErrors::signature_by_selector(selector)
                .and_then(|s| known::<IERC20ErrorsErrors>(s, data))
        })
        .or_else(|| {
            ISafeERC20Errors::signature_by_selector(selector)
                .and_then(|s| known::<ISafeERC20Errors>(s, data))
        })
}

fn selector_of(signature: &str) -> [u8; 4] {
    let hash = keccak256(signature);
    [hash[0], hash[1], hash[2], hash[3]]
}

/// `data` (with the selector of `signature`) formatted, if it decodes strictly as `E`.
fn known<E: SolInterface>(signature: &str, data: &[u8]) -> Option<String> {
    // Strict decoding first: the arguments are well-formed for the formatter below.
    E::abi_decode_validate(data).ok()?;
    Some(format_call(signature, &data[4..]))
}

/// Formats `Name(type,...)` with the ABI-encoded `args` as `Name(value, ...)`. Elementary types
/// and `bytes`/`string` only; anything else shows the raw arguments in hex.
fn format_call(signature: &str, args: &[u8]) -> String {
    let (name, params) = signature.split_once('(').unwrap_or((signature, ")"));
    let params = params.strip_suffix(')').unwrap_or(params);
    let types: Vec<&str> = if params.is_empty() {
        Vec::new()
    } else {
        params.split(',').collect()
    };
    let values: Option<Vec<String>> = types
        .iter()
        .enumerate()
        .map(|(i, ty)| format_param(ty, args, i))
        .collect();
    match values {
        Some(values) => format!("{name}({})", values.join(", ")),
        None => format!("{name}(0x{})", hex::encode(args)),
    }
}

fn format_param(ty: &str, args: &[u8], index: usize) -> Option<String> {
    let word = |at: usize| args.get(at..at + 32);
    let head = word(32 * index)?;
    let value = U256::from_be_slice(head);
    let text = match ty {
        "address" => Address::from_slice(&head[12..]).to_checksum(None),
        "bool" => (!value.is_zero()).to_string(),
        "bytes" | "string" => {
            let offset = usize::try_from(value).ok()?;
            let len = usize::try_from(U256::from_be_slice(word(offset)?)).ok()?;
            let bytes = args.get(offset + 32..offset + 32 + len)?;
            if ty == "string" {
                format!("{:?}", String::from_utf8_lossy(bytes))
            } else {
                format!("0x{}", hex::encode(bytes))
            }
        }
        t if t.starts_with("uint") => value.to_string(),
        t if t.starts_with("int") => alloy_primitives::I256::from_raw(value).to_string(),
        t if t.starts_with("bytes") => {
            let n: usize = t[5..].parse().ok()?;
            format!("0x{}", hex::encode(head.get(..n)?))
        }
        _ => return None,
    };
    Some(text)
}

#[cfg(test)]
mod meaning_tests {
    use super::*;
    use alloy_primitives::{Address, Bytes, U256};
    use alloy_sol_types::SolError;

    #[test]
    fn the_three_causes_a_relayer_must_tell_apart_read_apart() {
        use crate::bindings::PaceAccount as A;
        let bounds = A::PaceAccountOutcomeOutOfBounds {
            index: U256::ZERO,
            token: Address::ZERO,
            quantityBefore: U256::from(2u8),
            quantityAfter: U256::from(1u8),
        }
        .abi_encode();
        let landed = A::PaceAccountInvalidNonce {
            key: 3,
            expected: 5,
            got: 4,
        }
        .abi_encode();
        let early = A::PaceAccountInvalidNonce {
            key: 3,
            expected: 4,
            got: 5,
        }
        .abi_encode();
        let target = A::PaceAccountCallFailed {
            index: U256::from(1u8),
            reason: Bytes::from(b"\x08\xc3\x79\xa0".to_vec()),
        }
        .abi_encode();
        let read = |d: &[u8]| account_revert_meaning(d).unwrap();
        assert!(read(&bounds).starts_with("the account's signed bounds held"));
        assert!(read(&landed).contains("already used"), "{}", read(&landed));
        assert!(read(&early).contains("have not landed"));
        assert!(read(&target).starts_with("call 1 of the PDR reverted in its target"));
        let check = A::PaceAccountCheckFailed {
            index: U256::ZERO,
            target: alloy_primitives::Address::repeat_byte(7),
            quantityBefore: U256::ZERO,
            quantityAfter: U256::from(3u8),
        }
        .abi_encode();
        assert!(
            read(&check).starts_with("post-condition 0 held"),
            "{}",
            read(&check)
        );
        let unreadable = A::PaceAccountUnreadableCheck {
            index: U256::from(2u8),
            target: alloy_primitives::Address::repeat_byte(7),
        }
        .abi_encode();
        assert!(read(&unreadable).contains("could not be read"));
        assert_eq!(account_revert_meaning(b"\x08\xc3\x79\xa0"), None);
        assert_eq!(account_revert_meaning(&[]), None);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bindings::{IERC20Errors, PaceAccount};
    use alloy_primitives::address;
    use alloy_sol_types::sol;

    sol! {
        /// A contract the simulator does not know.
        interface Vault {
            error VaultInsufficientOutput(uint256 amountOut, uint256 amountOutMin);
            error VaultPaused();
        }
    }

    #[test]
    fn names_account_errors() {
        let data = PaceAccount::PaceAccountInvalidSigner {
            recovered: Address::repeat_byte(1),
        }
        .abi_encode();
        assert!(
            describe_account_revert(&data)
                .starts_with("PaceAccountInvalidSigner(recovered: 0x0101")
        );
        let failed = PaceAccount::PaceAccountCallFailed {
            index: U256::from(1),
            reason: Revert::from("no").abi_encode().into(),
        }
        .abi_encode();
        assert_eq!(
            describe_account_revert(&failed),
            "PaceAccountCallFailed(index: 1, reason: no)"
        );
        assert_eq!(describe_account_revert(&[]), "reverted without data");
    }

    #[test]
    fn reasons() {
        let revert = Revert::from("UniswapV2Router: INSUFFICIENT_OUTPUT_AMOUNT").abi_encode();
        assert_eq!(
            decode_revert_reason(&revert),
            "UniswapV2Router: INSUFFICIENT_OUTPUT_AMOUNT"
        );
        let panic = Panic {
            code: U256::from(0x11),
        }
        .abi_encode();
        assert_eq!(
            decode_revert_reason(&panic),
            "panic: arithmetic underflow or overflow (0x11)"
        );
        let who = address!("00000000000000000000000000000000000000aa");
        let erc20 = IERC20Errors::ERC20InsufficientBalance {
            sender: who,
            balance: U256::from(5),
            needed: U256::from(10),
        }
        .abi_encode();
        assert_eq!(
            decode_revert_reason(&erc20),
            format!("ERC20InsufficientBalance({}, 5, 10)", who.to_checksum(None))
        );
        let nested = PaceAccount::PaceAccountCallFailed {
            index: U256::from(2),
            reason: vec![0xde, 0xad].into(),
        }
        .abi_encode();
        assert_eq!(
            decode_revert_reason(&nested),
            "PaceAccountCallFailed(2, 0xdead)"
        );
        let addr = PaceAccount::PaceAccountNotOwner { caller: who }.abi_encode();
        assert_eq!(
            decode_revert_reason(&addr),
            format!("PaceAccountNotOwner({})", who.to_checksum(None))
        );
        assert_eq!(
            decode_revert_reason(&[0x12, 0x34, 0x56, 0x78, 0x9a]),
            "custom error 0x12345678"
        );
        assert_eq!(decode_revert_reason(&[0x12]), "revert data 0x12");
        assert_eq!(decode_revert_reason(&[]), "reverted without data");
        // A known selector with malformed arguments is not decoded.
        let mut short = erc20;
        short.truncate(40);
        assert!(decode_revert_reason(&short).starts_with("custom error 0x"));
    }

    #[test]
    fn other_contracts_decode_through_the_registry() {
        let custom = Vault::VaultInsufficientOutput {
            amountOut: U256::from(993),
            amountOutMin: U256::from(1000),
        }
        .abi_encode();
        let paused = Vault::VaultPaused {}.abi_encode();
        // Unknown without a registry.
        assert!(decode_revert_reason(&custom).starts_with("custom error 0x"));
        let registry =
            RevertDecoder::new().with_errors::<Vault::VaultErrors>(Vault::VaultErrors::SIGNATURES);
        assert_eq!(
            decode_revert_reason_with(&custom, &registry),
            "VaultInsufficientOutput(993, 1000)"
        );
        assert_eq!(
            decode_revert_reason_with(&paused, &registry),
            "VaultPaused()"
        );
        // Malformed arguments are not decoded.
        assert!(decode_revert_reason_with(&custom[..40], &registry).starts_with("custom error 0x"));
        // The built-in reasons come first, then the entries in order.
        let own = registry.with("length", |d: &[u8]| Some(format!("{} bytes", d.len())));
        assert_eq!(
            decode_revert_reason_with(&custom, &own),
            "VaultInsufficientOutput(993, 1000)"
        );
        assert_eq!(decode_revert_reason_with(&[1, 2, 3, 4], &own), "4 bytes");
        let revert = Revert::from("no").abi_encode();
        assert_eq!(decode_revert_reason_with(&revert, &own), "no");
    }

    #[test]
    fn registries_compare_and_print_by_name() {
        let a =
            RevertDecoder::new().with_errors::<Vault::VaultErrors>(Vault::VaultErrors::SIGNATURES);
        let b =
            RevertDecoder::new().with_errors::<Vault::VaultErrors>(Vault::VaultErrors::SIGNATURES);
        assert_eq!(a, b);
        assert_ne!(a, RevertDecoder::new());
        assert!(RevertDecoder::default().is_empty());
        assert_eq!(
            format!("{:?}", a.clone().with("mine", |_: &[u8]| None)),
            format!(
                "RevertDecoder([{:?}, \"mine\"])",
                std::any::type_name::<Vault::VaultErrors>()
            )
        );
        assert_eq!(a.extend(&b).names().count(), 2);
    }

    #[test]
    #[should_panic(expected = "are not its errors")]
    fn registering_the_wrong_signatures_panics() {
        let _ = RevertDecoder::new()
            .with_errors::<Vault::VaultErrors>(PaceAccount::PaceAccountErrors::SIGNATURES);
    }
}
