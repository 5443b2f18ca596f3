//! Revert reasons as text, and which addresses are precompiles.

use alloy_primitives::{Address, U256, hex};
use alloy_sol_types::{Panic, Revert, SolError, SolInterface};
use pace_contracts::bindings::{
    IERC20Errors::IERC20ErrorsErrors, ISafeERC20::ISafeERC20Errors,
    MaliciousRouter::MaliciousRouterErrors, MockAmmPair::MockAmmPairErrors,
    MockAmmRouter::MockAmmRouterErrors, MockLendingPool::MockLendingPoolErrors,
    PaceAccount::PaceAccountErrors, ReferenceAccount::ReferenceAccountErrors,
};

/// Whether `address` is a precompile of the supported forks: `0x01..=0x11` (ecrecover through
/// the BLS12-381 set of Prague) or `0x100` (P256VERIFY, Osaka).
pub fn is_precompile(address: Address) -> bool {
    let bytes = address.as_slice();
    if bytes[..18].iter().any(|b| *b != 0) {
        return false;
    }
    let low = u16::from_be_bytes([bytes[18], bytes[19]]);
    (0x01..=0x11).contains(&low) || low == 0x100
}

/// Turns revert data into a readable reason:
/// - `Error(string)`: the string itself (`UniswapV2Router: INSUFFICIENT_OUTPUT_AMOUNT`);
/// - `Panic(uint256)`: `panic: <kind> (0x<code>)`;
/// - a custom error of one of the project's contracts or the ERC-20 / SafeERC20 errors:
///   `Name(arg, ...)` with integers in decimal, addresses checksummed, bytes in hex
///   (`MockAmmRouterInsufficientOutput(993, 1000)`);
/// - other data: `custom error 0x<selector>`; under four bytes: `revert data 0x<hex>`; empty:
///   `reverted without data`.
pub fn decode_revert_reason(data: &[u8]) -> String {
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
    custom_error(selector, data)
        .unwrap_or_else(|| format!("custom error 0x{}", hex::encode(selector)))
}

/// `Name(args)` if `data` is a custom error of a known binding.
fn custom_error(selector: [u8; 4], data: &[u8]) -> Option<String> {
    known::<PaceAccountErrors>(selector, data, PaceAccountErrors::signature_by_selector)
        .or_else(|| {
            known::<IERC20ErrorsErrors>(selector, data, IERC20ErrorsErrors::signature_by_selector)
        })
        .or_else(|| {
            known::<ISafeERC20Errors>(selector, data, ISafeERC20Errors::signature_by_selector)
        })
        .or_else(|| {
            known::<MockAmmPairErrors>(selector, data, MockAmmPairErrors::signature_by_selector)
        })
        .or_else(|| {
            known::<MockAmmRouterErrors>(selector, data, MockAmmRouterErrors::signature_by_selector)
        })
        .or_else(|| {
            known::<MaliciousRouterErrors>(
                selector,
                data,
                MaliciousRouterErrors::signature_by_selector,
            )
        })
        .or_else(|| {
            known::<MockLendingPoolErrors>(
                selector,
                data,
                MockLendingPoolErrors::signature_by_selector,
            )
        })
        .or_else(|| {
            known::<ReferenceAccountErrors>(
                selector,
                data,
                ReferenceAccountErrors::signature_by_selector,
            )
        })
}

fn known<E: SolInterface>(
    selector: [u8; 4],
    data: &[u8],
    signature: fn([u8; 4]) -> Option<&'static str>,
) -> Option<String> {
    let signature = signature(selector)?;
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
mod tests {
    use super::*;
    use alloy_primitives::address;
    use pace_contracts::bindings::{MockAmmRouter, PaceAccount};

    #[test]
    fn precompiles() {
        assert!(is_precompile(address!(
            "0000000000000000000000000000000000000001"
        )));
        assert!(is_precompile(address!(
            "0000000000000000000000000000000000000011"
        )));
        assert!(is_precompile(address!(
            "0000000000000000000000000000000000000100"
        )));
        assert!(!is_precompile(Address::ZERO));
        assert!(!is_precompile(address!(
            "0000000000000000000000000000000000000012"
        )));
        assert!(!is_precompile(address!(
            "0000000000000000000000000000000000000101"
        )));
        assert!(!is_precompile(address!(
            "1000000000000000000000000000000000000001"
        )));
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
        let custom = MockAmmRouter::MockAmmRouterInsufficientOutput {
            amountOut: U256::from(993),
            amountOutMin: U256::from(1000),
        }
        .abi_encode();
        assert_eq!(
            decode_revert_reason(&custom),
            "MockAmmRouterInsufficientOutput(993, 1000)"
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
        let who = address!("00000000000000000000000000000000000000aa");
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
        let mut short = custom;
        short.truncate(40);
        assert!(decode_revert_reason(&short).starts_with("custom error 0x"));
    }
}
