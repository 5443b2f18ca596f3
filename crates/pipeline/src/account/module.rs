//! A Safe account's `PaceModule`: which module guards the Safe, read from the Safe itself.
//!
//! Only the Safe's owners can enable a module, so the Safe's own module list says which
//! `PaceModule` its PDRs go to: the one enabled module that answers `safe()` with this Safe and
//! whose EIP-712 domain separator is exactly `PaceModule`'s for (module, Safe) on this chain
//! ([`EntryPath::Module`]). None, or more than one, is refused: the pipeline never guesses
//! where a Safe's PDRs go.

use crate::{Error, Result};
use alloy_primitives::Address;
use pace_abi::bindings::{ISafe, PaceAccount, PaceModule};
use pace_evm::InProcessEvm;
use pace_types::pdr::EntryPath;

/// The modules' linked list starts and ends at address(1).
const SENTINEL: Address = Address::with_last_byte(1);
/// Modules read per page.
const PAGE: u64 = 16;
/// At most this many modules are looked at (a Safe with more is refused).
const MAX_MODULES: usize = 256;

/// The one `PaceModule` enabled on `safe` that guards it (see the module docs).
pub(crate) fn guarding(state: &InProcessEvm, safe: Address) -> Result<Address> {
    let refuse = |reason: String| Error::NotPaceAccount {
        account: safe,
        reason,
    };
    let mut modules = Vec::new();
    let mut start = SENTINEL;
    loop {
        let page = state
            .view_sol(
                safe,
                &ISafe::getModulesPaginatedCall {
                    start,
                    pageSize: alloy_primitives::U256::from(PAGE),
                },
            )
            .map_err(|e| refuse(format!("no Safe answers getModulesPaginated: {e}")))?;
        modules.extend(page.array);
        if page.next == SENTINEL || page.next == Address::ZERO || modules.len() > MAX_MODULES {
            break;
        }
        start = page.next;
    }
    if modules.len() > MAX_MODULES {
        return Err(refuse(format!(
            "more than {MAX_MODULES} modules are enabled"
        )));
    }
    let chain_id = state.chain_id();
    let guards: Vec<Address> = modules
        .into_iter()
        .filter(|&module| {
            let guards_this = state
                .view_sol(module, &PaceModule::safeCall {})
                .is_ok_and(|s| s == safe);
            let domain = EntryPath::Module { module, safe }
                .domain(chain_id)
                .separator();
            guards_this
                && state
                    .view_sol(module, &PaceAccount::domainSeparatorCall {})
                    .is_ok_and(|d| d == domain)
        })
        .collect();
    match guards.as_slice() {
        [module] => Ok(*module),
        [] => Err(refuse(
            "no PaceModule guarding this Safe is enabled on it".into(),
        )),
        several => Err(refuse(format!(
            "{} PaceModules guarding this Safe are enabled ({several:?}): which one takes its \
             PDRs is ambiguous",
            several.len()
        ))),
    }
}
