//! Differential test between the Rust PDR (types + signer) and `PaceAccount` on revm:
//! for 1,000 random PDRs the Rust EIP-712 digest equals the one the account computes, a
//! Rust-signed PDR executes, and a copy with any single signed field changed does not. The
//! executed PDRs carry post-conditions on the identity precompile (`0x04` answers its input),
//! whose answer the test knows.

use alloy_primitives::{Address, B256, Bytes, U256};
use alloy_sol_types::{SolCall, SolConstructor};
use pace_contracts::bindings::PaceAccount as Account;
use pace_evm::InProcessEvm;
use pace_signer::PdrSigner;
use pace_types::pdr::{Attestation, Bound, Call, Check, Pdr, PdrTerms};

const CHAIN_ID: u64 = 31337;
const OWNER: Address = Address::repeat_byte(0x0a);
const RELAYER: Address = Address::repeat_byte(0x0b);
const CASES: u64 = 1_000;
/// The identity precompile: its answer is its input.
const IDENTITY: Address =
    Address::new([0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 4]);

/// splitmix64: a tiny deterministic generator, so failures replay exactly.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
    fn b256(&mut self) -> B256 {
        let mut out = [0u8; 32];
        for chunk in out.chunks_mut(8) {
            chunk.copy_from_slice(&self.next().to_be_bytes());
        }
        B256::from(out)
    }
    /// An address with no code and outside the precompile range.
    fn address(&mut self) -> Address {
        let mut a = Address::from_word(self.b256());
        a.0[0] |= 0x80;
        a
    }
    fn bytes(&mut self, max: u64) -> Bytes {
        (0..self.below(max + 1))
            .map(|_| self.next() as u8)
            .collect::<Vec<u8>>()
            .into()
    }
}

fn setup() -> (InProcessEvm, Address, PdrSigner) {
    let signer = PdrSigner::from_bytes(&B256::repeat_byte(0x77)).unwrap();
    let mut evm = InProcessEvm::new(CHAIN_ID);
    evm.set_block(1_000, 1_700_000_000);
    let artifact = pace_contracts::artifacts()
        .unwrap()
        .get("PaceAccount")
        .unwrap();
    let ctor = Account::constructorCall {
        owner_: OWNER,
        verifier_: signer.address(),
    };
    let account = evm
        .deploy(OWNER, artifact.deploy_code(&ctor.abi_encode()))
        .unwrap();
    evm.fund(account, U256::from(10u64).pow(U256::from(24u64)))
        .unwrap();
    (evm, account, signer)
}

fn sol_calls(calls: &[Call]) -> Vec<Account::Call> {
    calls
        .iter()
        .map(|c| Account::Call {
            target: c.target,
            value: c.value,
            data: c.data.clone(),
        })
        .collect()
}

fn sol_bounds(bounds: &[Bound]) -> Vec<Account::Bound> {
    bounds.iter().map(Account::Bound::from).collect()
}

fn random_pdr(rng: &mut Rng, terms: PdrTerms, executable_bounds: bool) -> Pdr {
    // A quarter of the PDRs send no ether, so that ether can be held.
    let pays = rng.below(4) != 0;
    let calls: Vec<Call> = (0..1 + rng.below(3))
        .map(|_| Call {
            target: rng.address(),
            value: U256::from(if pays { rng.below(1_000_000) } else { 0 }),
            data: rng.bytes(100),
        })
        .collect();
    let bounds = if executable_bounds {
        // Only ETH can be bounded on targets without code; allow exactly what is sent.
        let total: U256 = calls.iter().map(|c| c.value).sum();
        match rng.below(4) {
            0 => vec![],
            1 => vec![Bound {
                maxOut: total,
                ..Bound::balance(Address::ZERO)
            }],
            // An inflow cap on what only leaves.
            2 => vec![Bound {
                maxOut: total,
                maxIn: U256::from(rng.below(10)),
                ..Bound::balance(Address::ZERO)
            }],
            _ => vec![Bound {
                maxOut: total + U256::from(rng.below(10)),
                ..Bound::balance(Address::ZERO)
            }],
        }
    } else {
        // Every kind, ERC-1155 ids and holders included, with any limits.
        (0..rng.below(5))
            .map(|_| Bound {
                token: rng.address(),
                kind: rng.below(4) as u8,
                id: U256::from_be_bytes(rng.b256().0),
                maxOut: U256::from_be_bytes(rng.b256().0),
                minIn: U256::from_be_bytes(rng.b256().0),
                maxIn: U256::from_be_bytes(rng.b256().0),
            })
            .collect()
    };
    // Ether held, when executed (nothing else exists on targets without code); any addresses
    // otherwise.
    let held = if executable_bounds {
        // Held ether only when the calls send none (its balance may not fall).
        let sends: U256 = calls.iter().map(|c| c.value).sum();
        if sends.is_zero() && rng.below(2) == 0 {
            vec![Address::ZERO]
        } else {
            vec![]
        }
    } else {
        (0..rng.below(4)).map(|_| rng.address()).collect()
    };
    let checks = (0..rng.below(4))
        .map(|_| {
            if executable_bounds {
                identity_check(rng)
            } else {
                Check {
                    target: rng.address(),
                    data: rng.bytes(100),
                    word: rng.next() as u16,
                    relation: rng.next() as u8,
                    lo: U256::from_be_bytes(rng.b256().0),
                    hi: U256::from_be_bytes(rng.b256().0),
                }
            }
        })
        .collect();
    let attestation = Attestation {
        policyHash: rng.b256(),
        intentHash: rng.b256(),
        simulationHash: rng.b256(),
    };
    Pdr::new(attestation, calls, bounds, held, checks, &terms)
}

/// A check the account passes: a word of the identity precompile's answer (its input), WITHIN
/// a range around it or KEPT (the answer does not change) by any margins.
fn identity_check(rng: &mut Rng) -> Check {
    let words = 1 + rng.below(4) as usize;
    let mut data: Vec<u8> = (0..words).flat_map(|_| rng.b256().0).collect();
    data.extend((0..rng.below(31)).map(|_| rng.next() as u8));
    let word = rng.below(words as u64) as u16;
    let at = usize::from(word) * 32;
    let q = U256::from_be_slice(&data[at..at + 32]);
    let margin = |rng: &mut Rng| U256::from(rng.next()) << (rng.below(4) * 64);
    if rng.below(2) == 0 {
        let (down, up) = (margin(rng), margin(rng));
        Check::within(
            IDENTITY,
            data.into(),
            word,
            q.saturating_sub(down),
            q.saturating_add(up),
        )
    } else {
        Check::kept(IDENTITY, data.into(), word, margin(rng), margin(rng))
    }
}

fn random_terms(rng: &mut Rng) -> PdrTerms {
    PdrTerms {
        key: rng.next() as u32,
        sequence: rng.next(),
        valid_after: rng.below(1 << 40),
        valid_until: rng.below(1 << 40),
        simulation_block: rng.below(1 << 48),
        max_simulation_age: rng.next() as u16,
        call_gas_kib: rng.next() as u16,
    }
}

/// Submits `pdr` signed as `sig` (through the lean entry point when it can): `Ok` when the
/// account executed it, else the account's error.
fn submit(
    evm: &mut InProcessEvm,
    account: Address,
    pdr: &Pdr,
    r: B256,
    vs: B256,
) -> Result<(), Box<Account::PaceAccountErrors>> {
    let value: U256 = U256::ZERO;
    let data: Bytes = if pdr.calls.len() == 1
        && pdr.bounds.is_empty()
        && pdr.held.is_empty()
        && pdr.checks.is_empty()
    {
        let c = &pdr.calls[0];
        Account::executePDRCall {
            target: c.target,
            value: c.value,
            data: c.data.clone(),
            attestation: pdr.attestation_hash(),
            terms: pdr.terms().pack(),
            r,
            vs,
        }
        .abi_encode()
        .into()
    } else {
        Account::executeBatchPDRCall {
            calls: sol_calls(&pdr.calls),
            bounds: sol_bounds(&pdr.bounds),
            held: pdr.held.clone(),
            checks: pdr.checks.iter().map(Into::into).collect(),
            attestation: pdr.attestation_hash(),
            terms: pdr.terms().pack(),
            r,
            vs,
        }
        .abi_encode()
        .into()
    };
    let outcome = evm.call(RELAYER, account, value, data).unwrap();
    if outcome.success {
        return Ok(());
    }
    Err(Box::new(
        outcome
            .decode_revert::<Account::PaceAccountErrors>()
            .expect("reverts with an account error"),
    ))
}

/// `pdr` with its scalar terms changed by `change`.
fn retermed(pdr: &mut Pdr, change: impl FnOnce(&mut PdrTerms)) {
    let mut t = pdr.terms();
    change(&mut t);
    *pdr = Pdr::new(
        pdr.attestation.clone(),
        pdr.calls.clone(),
        pdr.bounds.clone(),
        pdr.held.clone(),
        pdr.checks.clone(),
        &t,
    );
}

fn mutate(rng: &mut Rng, pdr: &mut Pdr) -> &'static str {
    let i = rng.below(pdr.calls.len() as u64) as usize;
    loop {
        match rng.below(20) {
            0 => {
                pdr.calls[i].target = rng.address();
                return "call.target";
            }
            1 => {
                pdr.calls[i].value += U256::from(1 + rng.below(1_000));
                return "call.value";
            }
            2 if !pdr.calls[i].data.is_empty() => {
                let mut data = pdr.calls[i].data.to_vec();
                let at = rng.below(data.len() as u64) as usize;
                data[at] ^= 1 + rng.below(255) as u8;
                pdr.calls[i].data = data.into();
                return "call.data";
            }
            3 => {
                let mut data = pdr.calls[i].data.to_vec();
                data.push(rng.next() as u8);
                pdr.calls[i].data = data.into();
                return "call.data.length";
            }
            4 if !pdr.bounds.is_empty() => {
                pdr.bounds[0].maxOut -= U256::from(1);
                return "bound.maxOut";
            }
            5 => {
                pdr.attestation.intentHash = rng.b256();
                return "attestation.intentHash";
            }
            6 => {
                pdr.attestation.policyHash = rng.b256();
                return "attestation.policyHash";
            }
            7 => {
                pdr.attestation.simulationHash = rng.b256();
                return "attestation.simulationHash";
            }
            8 => {
                retermed(pdr, |t| t.valid_until += 1 + rng.below(100));
                return "validUntil";
            }
            9 => {
                retermed(pdr, |t| {
                    t.max_simulation_age = t.max_simulation_age.wrapping_add(1)
                });
                return "maxSimulationAge";
            }
            10 => {
                // Down: a lower floor is what a starving submitter would want signed.
                retermed(pdr, |t| t.call_gas_kib = t.call_gas_kib.wrapping_sub(1));
                return "callGasKib";
            }
            11 if !pdr.bounds.is_empty() => {
                pdr.bounds[0].maxIn ^= U256::from(1);
                return "bound.maxIn";
            }
            12 if !pdr.bounds.is_empty() => {
                pdr.bounds[0].id ^= U256::from(1);
                return "bound.id";
            }
            13 if !pdr.bounds.is_empty() => {
                pdr.bounds[0].kind ^= 1;
                return "bound.kind";
            }
            14 => {
                if pdr.held.pop().is_none() {
                    pdr.held.push(Address::ZERO);
                }
                return "held";
            }
            15 if !pdr.checks.is_empty() => {
                pdr.checks[0].lo ^= U256::from(1) << rng.below(256);
                return "check.lo";
            }
            16 if !pdr.checks.is_empty() => {
                pdr.checks[0].hi ^= U256::from(1) << rng.below(256);
                return "check.hi";
            }
            17 if !pdr.checks.is_empty() => {
                pdr.checks[0].relation ^= 1 << rng.below(8);
                return "check.relation";
            }
            18 if !pdr.checks.is_empty() => {
                let c = &mut pdr.checks[0];
                match rng.below(3) {
                    0 => c.word ^= 1 << rng.below(16),
                    1 => c.target = rng.address(),
                    _ => {
                        let mut data = c.data.to_vec();
                        let at = rng.below(data.len() as u64) as usize;
                        data[at] ^= 1 + rng.below(255) as u8;
                        c.data = data.into();
                    }
                }
                return "check.word/target/data";
            }
            19 => {
                if pdr.checks.pop().is_none() {
                    pdr.checks.push(identity_check(rng));
                }
                return "checks";
            }
            _ => {}
        }
    }
}

#[test]
fn rust_digest_equals_the_accounts_for_random_pdrs() {
    let (evm, account, _) = setup();
    let mut rng = Rng(0x5eed_0001);
    for case in 0..CASES {
        let terms = random_terms(&mut rng);
        let pdr = random_pdr(&mut rng, terms, false);
        let onchain = evm
            .view_sol(
                account,
                &Account::pdrDigestCall {
                    calls: sol_calls(&pdr.calls),
                    bounds: sol_bounds(&pdr.bounds),
                    held: pdr.held.clone(),
                    checks: pdr.checks.iter().map(Into::into).collect(),
                    attestation: pdr.attestation_hash(),
                    terms: terms.pack(),
                },
            )
            .unwrap();
        assert_eq!(
            pdr.digest(CHAIN_ID, account),
            onchain,
            "case {case}: {pdr:?}"
        );
    }
}

#[test]
fn rust_signed_pdrs_execute_and_any_single_field_change_is_rejected() {
    let (mut evm, account, signer) = setup();
    let mut rng = Rng(0x5eed_0002);
    for case in 0..CASES {
        let key = rng.below(4) as u32;
        let sequence = evm
            .view_sol(account, &Account::nextSequenceCall { key })
            .unwrap();
        let now = evm.timestamp();
        let terms = PdrTerms {
            key,
            sequence,
            valid_after: now - rng.below(100),
            valid_until: now + 1 + rng.below(1_000),
            simulation_block: evm.block_number() - rng.below(3),
            max_simulation_age: 2 + rng.below(10) as u16,
            call_gas_kib: rng.below(200) as u16,
        };
        let pdr = random_pdr(&mut rng, terms, true);
        let sig = signer.sign_digest(pdr.digest(CHAIN_ID, account)).unwrap();

        let mut mutated = pdr.clone();
        let field = mutate(&mut rng, &mut mutated);
        match submit(&mut evm, account, &mutated, sig.r, sig.vs).map_err(|e| *e) {
            Err(Account::PaceAccountErrors::PaceAccountInvalidSigner(e)) => {
                assert_ne!(e.recovered, signer.address(), "case {case}")
            }
            other => panic!("case {case}: a PDR with {field} changed gave {other:?}"),
        }
        submit(&mut evm, account, &pdr, sig.r, sig.vs).unwrap_or_else(|e| {
            panic!("case {case}: a valid PDR was rejected with {e:?}: {pdr:?}")
        });
        assert!(
            matches!(
                submit(&mut evm, account, &pdr, sig.r, sig.vs).map_err(|e| *e),
                Err(Account::PaceAccountErrors::PaceAccountInvalidNonce(_))
            ),
            "case {case}: a PDR executed twice"
        );
        evm.set_block(evm.block_number() + 1, now + 12);
    }
}
