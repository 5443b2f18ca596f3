//! The `ecrecover` precompile (address 1) as the simulator runs it, against a reference built
//! on `k256` from the precompile's specification (Yellow Paper appendix E): `v` a 32-byte word
//! equal to 27 or 28, `r` and `s` in `[1, n)`, any `s` (no EIP-2 low-s rule), the output the
//! signer's address left-padded to 32 bytes, or empty when nothing is recovered. Every PDR the
//! accounts accept goes through this precompile, so the build's backend (libsecp256k1 through
//! revm's `secp256k1` feature) must agree with the reference on valid, high-s, malformed and
//! off-curve inputs alike.

use super::*;
use alloy_primitives::{B256, keccak256};
use k256::ecdsa::{RecoveryId, Signature, SigningKey, VerifyingKey};

const ECRECOVER: Address = Address::with_last_byte(1);
/// The secp256k1 group order n.
const N: U256 = alloy_primitives::uint!(
    0xFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFEBAAEDCE6AF48A03BBFD25E8CD0364141_U256
);
/// The secp256k1 field prime p.
const P: U256 =
    alloy_primitives::uint!(0xFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFEFFFFFC2F_U256);

/// The precompile's output for `hash, v, r, s` by the specification, computed with k256.
fn reference(hash: B256, v: U256, r: U256, s: U256) -> Vec<u8> {
    let Some(mut recid) = [27u8, 28].into_iter().position(|x| v == U256::from(x)) else {
        return Vec::new();
    };
    let Ok(mut sig) = Signature::from_scalars(r.to_be_bytes::<32>(), s.to_be_bytes::<32>()) else {
        return Vec::new();
    };
    // k256 recovers low-s signatures only; a high s is the same point with the parity flipped.
    if let Some(low) = sig.normalize_s() {
        sig = low;
        recid ^= 1;
    }
    let recid = RecoveryId::from_byte(recid as u8).expect("0 or 1");
    match VerifyingKey::recover_from_prehash(hash.as_slice(), &sig, recid) {
        Ok(key) => {
            let point = key.to_encoded_point(false);
            let mut out = keccak256(&point.as_bytes()[1..]).to_vec();
            out[..12].fill(0);
            out
        }
        Err(_) => Vec::new(),
    }
}

fn input(hash: B256, v: U256, r: U256, s: U256) -> Bytes {
    let mut data = hash.to_vec();
    for word in [v, r, s] {
        data.extend_from_slice(&word.to_be_bytes::<32>());
    }
    data.into()
}

/// A deterministic stream of 32-byte words.
fn word(seed: &str, i: u64) -> U256 {
    U256::from_be_bytes(keccak256(format!("{seed}/{i}")).0)
}

fn check(evm: &InProcessEvm, hash: B256, v: U256, r: U256, s: U256, what: &str) -> bool {
    let got = evm
        .view(ECRECOVER, input(hash, v, r, s))
        .expect("ecrecover never reverts");
    let want = reference(hash, v, r, s);
    assert_eq!(
        got.to_vec(),
        want,
        "{what}: hash {hash} v {v} r {r:#x} s {s:#x}"
    );
    !want.is_empty()
}

#[test]
fn ecrecover_matches_the_specification_on_valid_high_s_and_malformed_signatures() {
    let evm = InProcessEvm::new(CHAIN_ID);
    let mut recovered = 0;
    for i in 0..64 {
        let key = SigningKey::from_slice(&word("key", i).to_be_bytes::<32>()).expect("key");
        let hash = B256::from(word("hash", i));
        let (sig, recid) = key.sign_prehash_recoverable(hash.as_slice()).expect("sign");
        let (r, s) = (
            U256::from_be_slice(&sig.r().to_bytes()),
            U256::from_be_slice(&sig.s().to_bytes()),
        );
        let v = U256::from(27 + u64::from(recid.to_byte()));
        let flipped = U256::from(27 + u64::from(recid.to_byte() ^ 1));
        let signer = Address::from_public_key(key.verifying_key());
        let got = evm.view(ECRECOVER, input(hash, v, r, s)).unwrap();
        assert_eq!(
            &got[12..],
            signer.as_slice(),
            "a valid signature recovers its signer"
        );
        recovered += usize::from(check(&evm, hash, v, r, s, "valid"));
        // The same signature with s' = n - s and the parity flipped: the same signer.
        recovered += usize::from(check(&evm, hash, flipped, r, N - s, "high s"));
        // The wrong parity recovers another key, or none.
        check(&evm, hash, flipped, r, s, "wrong parity");
        check(&evm, hash, v, r, s ^ U256::from(1), "tampered s");
        check(
            &evm,
            hash ^ B256::with_last_byte(1),
            v,
            r,
            s,
            "another hash",
        );
        let high_bit = U256::from(1) << 255;
        for bad_v in [0u64, 1, 26, 29, 27 + (1 << 8)]
            .map(U256::from)
            .into_iter()
            .chain([high_bit + U256::from(27), high_bit + U256::from(28)])
        {
            assert!(!check(&evm, hash, bad_v, r, s, "v not 27 or 28"));
        }
        for (bad_r, bad_s) in [(U256::ZERO, s), (r, U256::ZERO), (N, s), (r, N), (P, s)] {
            assert!(!check(&evm, hash, v, bad_r, bad_s, "r or s out of range"));
        }
        // An r in range with no point above it (or with one): whatever the reference says.
        check(&evm, hash, v, word("r", i) % N, s, "random r");
    }
    assert_eq!(recovered, 128, "every valid and high-s signature recovered");
}

#[test]
fn ecrecover_reads_a_short_input_as_zero_padded_and_ignores_bytes_past_128() {
    let evm = InProcessEvm::new(CHAIN_ID);
    let key = SigningKey::from_slice(&[7u8; 32]).unwrap();
    let hash = B256::repeat_byte(0x11);
    let (sig, recid) = key.sign_prehash_recoverable(hash.as_slice()).unwrap();
    let mut full = input(
        hash,
        U256::from(27 + u64::from(recid.to_byte())),
        U256::from_be_slice(&sig.r().to_bytes()),
        U256::from_be_slice(&sig.s().to_bytes()),
    )
    .to_vec();
    let signer = Address::from_public_key(key.verifying_key());
    let mut longer = full.clone();
    longer.extend_from_slice(&[0xff; 40]);
    assert_eq!(
        &evm.view(ECRECOVER, longer.into()).unwrap()[12..],
        signer.as_slice()
    );
    // s cut to 31 bytes reads as s with its last byte zero: another signature, or none.
    full.pop();
    let mut padded = full.clone();
    padded.push(0);
    let short = evm.view(ECRECOVER, full.into()).unwrap();
    assert_eq!(short, evm.view(ECRECOVER, padded.into()).unwrap());
    assert_ne!(short.get(12..), Some(signer.as_slice()));
}

/// The generator's `x`.
const GX: U256 = alloy_primitives::uint!(
    0x79BE667EF9DCBBAC55A06295CE870B07029BFCDB2DCE28D959F2815B16F81798_U256
);

#[test]
fn the_shortcuts_answer_what_a_full_recovery_does() {
    // Key one's signatures under the nonce ±1 (the simulation's pass 1), their near misses,
    // and signatures the process remembered, each against the reference recovery.
    let evm = InProcessEvm::new(CHAIN_ID);
    let key_one = Address::from_public_key(
        SigningKey::from_slice(&U256::from(1u8).to_be_bytes::<32>())
            .unwrap()
            .verifying_key(),
    );
    assert_eq!(key_one, pace_evm::recover::KEY_ONE);
    let (v0, v1) = (U256::from(27u8), U256::from(28u8));
    for i in 0..64 {
        // Digests above n included: e is the digest reduced mod n.
        let hash = if i == 0 {
            B256::from(U256::MAX)
        } else {
            B256::from(word("key-one", i))
        };
        let e = U256::from_be_bytes(hash.0).reduce_mod(N);
        let s = e.add_mod(GX, N);
        assert!(check(&evm, hash, v0, GX, s, "key one, nonce 1"));
        assert!(check(&evm, hash, v1, GX, N - s, "key one, nonce -1"));
        let got = evm.view(ECRECOVER, input(hash, v0, GX, s)).unwrap();
        assert_eq!(&got[12..], key_one.as_slice());
        check(&evm, hash, v1, GX, s, "key one, wrong parity");
        check(&evm, hash, v0, GX, N - s, "key one, wrong parity");
        check(
            &evm,
            hash,
            v0,
            GX,
            s.add_mod(U256::from(1u8), N),
            "key one, another s",
        );
    }
    for i in 0..16 {
        let key = SigningKey::from_slice(&word("remembered", i).to_be_bytes::<32>()).unwrap();
        let hash = B256::from(word("remembered-hash", i));
        let (sig, recid) = key.sign_prehash_recoverable(hash.as_slice()).unwrap();
        let (r, s) = (
            U256::from_be_slice(&sig.r().to_bytes()),
            U256::from_be_slice(&sig.s().to_bytes()),
        );
        let signer = Address::from_public_key(key.verifying_key());
        let v = U256::from(27 + u64::from(recid.to_byte()));
        let mut rsv = [0u8; 65];
        rsv[..32].copy_from_slice(&r.to_be_bytes::<32>());
        rsv[32..64].copy_from_slice(&s.to_be_bytes::<32>());
        rsv[64] = 27 + recid.to_byte();
        pace_evm::recover::remember(hash, &rsv, signer);
        let flipped = U256::from(27 + u64::from(recid.to_byte() ^ 1));
        assert!(check(&evm, hash, v, r, s, "remembered"));
        check(&evm, hash, flipped, r, s, "remembered, wrong parity");
        check(
            &evm,
            hash,
            v,
            r,
            s ^ U256::from(1),
            "remembered, tampered s",
        );
    }
}
