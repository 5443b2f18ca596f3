//! The PDR's EIP-712 digest with the type hashes and the domain's constant words computed once.
//!
//! alloy's `eip712_signing_hash` rebuilds and re-hashes every type string (and the domain's
//! name and version) on each call: about half the keccak work of a digest. This is the same
//! EIP-712 encoding with those constants cached; the tests below hold it to alloy's result,
//! and the golden vector (`tests/vectors/pdr_golden.json`) to the Solidity library's.

use super::{Attestation, Bound, Call, Check, DOMAIN_NAME, DOMAIN_VERSION, EntryPath, Pdr};
use alloy_primitives::{Address, B256, Keccak256, U256, keccak256};
use alloy_sol_types::SolStruct;
use std::sync::LazyLock;

/// The hashes that do not depend on the PDR or its domain.
struct Constants {
    domain_type: B256,
    salted_domain_type: B256,
    name: B256,
    version: B256,
    delegate_name: B256,
    delegate_version: B256,
    module_name: B256,
    module_version: B256,
    pdr_type: B256,
    attestation_type: B256,
    call_type: B256,
    bound_type: B256,
    check_type: B256,
}

static CONSTANTS: LazyLock<Constants> = LazyLock::new(|| Constants {
    domain_type: super::domain(0, Address::ZERO).type_hash(),
    salted_domain_type: super::delegate_domain(0, Address::ZERO, B256::ZERO).type_hash(),
    name: keccak256(DOMAIN_NAME),
    version: keccak256(DOMAIN_VERSION),
    delegate_name: keccak256(crate::account::DELEGATE_DOMAIN_NAME),
    delegate_version: keccak256(crate::account::DELEGATE_DOMAIN_VERSION),
    module_name: keccak256(crate::account::MODULE_DOMAIN_NAME),
    module_version: keccak256(crate::account::MODULE_DOMAIN_VERSION),
    pdr_type: keccak256(Pdr::eip712_encode_type().as_bytes()),
    attestation_type: keccak256(Attestation::eip712_encode_type().as_bytes()),
    call_type: keccak256(Call::eip712_encode_type().as_bytes()),
    bound_type: keccak256(Bound::eip712_encode_type().as_bytes()),
    check_type: keccak256(Check::eip712_encode_type().as_bytes()),
});

fn word(value: U256) -> [u8; 32] {
    value.to_be_bytes()
}

fn address_word(address: Address) -> B256 {
    address.into_word()
}

/// `hashStruct(Attestation)`.
pub(super) fn attestation_hash(a: &Attestation) -> B256 {
    let mut h = Keccak256::new();
    h.update(CONSTANTS.attestation_type);
    h.update(a.policyHash);
    h.update(a.intentHash);
    h.update(a.simulationHash);
    h.finalize()
}

fn call_hash(c: &Call) -> B256 {
    let mut h = Keccak256::new();
    h.update(CONSTANTS.call_type);
    h.update(address_word(c.target));
    h.update(word(c.value));
    h.update(keccak256(&c.data));
    h.finalize()
}

fn bound_hash(b: &Bound) -> B256 {
    let mut h = Keccak256::new();
    h.update(CONSTANTS.bound_type);
    h.update(address_word(b.token));
    h.update(word(U256::from(b.kind)));
    h.update(word(b.id));
    h.update(word(b.maxOut));
    h.update(word(b.minIn));
    h.update(word(b.maxIn));
    h.finalize()
}

fn check_hash(c: &Check) -> B256 {
    let mut h = Keccak256::new();
    h.update(CONSTANTS.check_type);
    h.update(address_word(c.target));
    h.update(keccak256(&c.data));
    h.update(word(U256::from(c.word)));
    h.update(word(U256::from(c.relation)));
    h.update(word(c.lo));
    h.update(word(c.hi));
    h.finalize()
}

/// `keccak256` of the concatenated `hashStruct`s: how EIP-712 encodes an array of structs.
fn array_hash<T>(items: &[T], item_hash: impl Fn(&T) -> B256) -> B256 {
    let mut h = Keccak256::new();
    for item in items {
        h.update(item_hash(item));
    }
    h.finalize()
}

/// `hashStruct(Pdr)`.
fn pdr_hash(p: &Pdr) -> B256 {
    let mut h = Keccak256::new();
    h.update(CONSTANTS.pdr_type);
    h.update(attestation_hash(&p.attestation));
    h.update(array_hash(&p.calls, call_hash));
    h.update(array_hash(&p.bounds, bound_hash));
    h.update(array_hash(&p.held, |a| address_word(*a)));
    h.update(array_hash(&p.checks, check_hash));
    h.update(word(p.nonce));
    h.update(word(U256::from(p.validAfter)));
    h.update(word(U256::from(p.validUntil)));
    h.update(word(U256::from(p.simulationBlock)));
    h.update(word(U256::from(p.maxSimulationAge)));
    h.update(word(U256::from(p.callGasKib)));
    h.finalize()
}

/// The domain separator of `account` on `chain_id`.
fn separator(chain_id: u64, account: Address) -> B256 {
    let c = &*CONSTANTS;
    let mut h = Keccak256::new();
    h.update(c.domain_type);
    h.update(c.name);
    h.update(c.version);
    h.update(word(U256::from(chain_id)));
    h.update(address_word(account));
    h.finalize()
}

/// The domain separator of `path` on `chain_id`.
fn path_separator(chain_id: u64, path: &EntryPath) -> B256 {
    let c = &*CONSTANTS;
    let Some(salt) = path.salt() else {
        return separator(chain_id, path.verifying_contract());
    };
    let (name, version) = match path.account_kind() {
        crate::account::AccountKind::PaceAccount => (c.name, c.version),
        crate::account::AccountKind::PaceDelegate => (c.delegate_name, c.delegate_version),
        crate::account::AccountKind::PaceModule => (c.module_name, c.module_version),
    };
    let mut h = Keccak256::new();
    h.update(c.salted_domain_type);
    h.update(name);
    h.update(version);
    h.update(word(U256::from(chain_id)));
    h.update(address_word(path.verifying_contract()));
    h.update(salt);
    h.finalize()
}

/// `keccak256(0x1901 || separator || hashStruct(pdr))`.
pub(super) fn digest_with_separator(pdr: &Pdr, separator: B256) -> B256 {
    let mut h = Keccak256::new();
    h.update([0x19, 0x01]);
    h.update(separator);
    h.update(pdr_hash(pdr));
    h.finalize()
}

/// The digest under the standalone account's direct-path domain.
pub(super) fn digest(pdr: &Pdr, chain_id: u64, account: Address) -> B256 {
    digest_with_separator(pdr, separator(chain_id, account))
}

/// The digest under `path`'s domain.
pub(super) fn digest_on(pdr: &Pdr, chain_id: u64, path: &EntryPath) -> B256 {
    digest_with_separator(pdr, path_separator(chain_id, path))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pdr::{PdrTerms, domain};

    fn pdr(calls: usize, bounds: usize, salt: u8) -> Pdr {
        let attestation = Attestation {
            policyHash: B256::repeat_byte(salt),
            intentHash: B256::repeat_byte(salt ^ 0x5a),
            simulationHash: B256::repeat_byte(salt.wrapping_add(1)),
        };
        let calls = (0..calls)
            .map(|i| Call {
                target: Address::repeat_byte(salt.wrapping_add(i as u8)),
                value: U256::from(i) << 200,
                data: vec![salt; i * 37].into(),
            })
            .collect();
        let bounds = (0..bounds)
            .map(|i| Bound {
                token: Address::repeat_byte(i as u8),
                kind: (i % 4) as u8,
                id: U256::from(i) << 100,
                maxOut: U256::MAX >> i,
                minIn: U256::from(i * 1000 + usize::from(salt)),
                maxIn: U256::MAX - U256::from(i),
            })
            .collect();
        let held = (0..bounds_len_held(salt))
            .map(|i| Address::repeat_byte(salt.wrapping_add(i)))
            .collect();
        let checks = (0..usize::from(salt % 4))
            .map(|i| Check {
                target: Address::repeat_byte(salt ^ i as u8),
                data: vec![salt; i * 29].into(),
                word: u16::from(salt) << i,
                relation: (i % 3) as u8,
                lo: U256::from(i) << 150,
                hi: U256::MAX >> i,
            })
            .collect();
        let terms = PdrTerms {
            key: u32::from(salt) << 20,
            sequence: u64::MAX - u64::from(salt),
            valid_after: 1_700_000_000 + u64::from(salt),
            valid_until: u64::MAX,
            simulation_block: 19_000_000,
            max_simulation_age: u16::from(salt),
            call_gas_kib: u16::MAX - u16::from(salt),
        };
        Pdr::new(attestation, calls, bounds, held, checks, &terms)
    }

    /// How many held assets the test PDR of `salt` carries (0 to 2).
    fn bounds_len_held(salt: u8) -> u8 {
        salt % 3
    }

    #[test]
    fn equals_alloys_eip712_signing_hash() {
        let accounts = [Address::ZERO, Address::repeat_byte(0xab)];
        for (calls, bounds, salt) in [(0, 0, 0), (1, 0, 7), (1, 2, 0xff), (3, 5, 42)] {
            let p = pdr(calls, bounds, salt);
            for chain_id in [1, 31337, u64::MAX] {
                for account in accounts {
                    let expected = p.eip712_signing_hash(&domain(chain_id, account));
                    assert_eq!(digest(&p, chain_id, account), expected);
                }
            }
            assert_eq!(
                attestation_hash(&p.attestation),
                p.attestation.eip712_hash_struct()
            );
        }
    }

    #[test]
    fn every_entry_path_equals_alloys_eip712_signing_hash() {
        let (a, s, h) = (
            Address::repeat_byte(0xab),
            B256::repeat_byte(0x5a),
            B256::repeat_byte(0xc3),
        );
        let paths = [
            EntryPath::Direct { account: a },
            EntryPath::EntryPoint {
                account: a,
                user_op_hash: h,
            },
            EntryPath::Delegate {
                eoa: a,
                setup_salt: s,
            },
            EntryPath::DelegateEntryPoint {
                eoa: a,
                setup_salt: s,
                user_op_hash: h,
            },
            EntryPath::Module {
                module: a,
                safe: Address::repeat_byte(0x5f),
            },
            EntryPath::ModuleEntryPoint {
                module: a,
                safe: Address::repeat_byte(0x5f),
                user_op_hash: h,
            },
        ];
        for (calls, bounds, salt) in [(0, 0, 0), (1, 2, 0xff), (3, 5, 42)] {
            let p = pdr(calls, bounds, salt);
            for chain_id in [1, u64::MAX] {
                for path in &paths {
                    let domain = path.domain(chain_id);
                    let expected = p.eip712_signing_hash(&domain);
                    assert_eq!(digest_on(&p, chain_id, path), expected, "{path:?}");
                    assert_eq!(p.digest_in(&domain), expected, "{path:?}");
                }
            }
        }
    }
}
