//! The `ecrecover` precompile with two exact shortcuts, installed as revm's crypto provider.
//!
//! Every PDR the pipeline simulates is checked by the account's `ecrecover` twice per intent:
//! pass 1 with a signature by the private key 1 under the public nonce ±1, pass 2 with the
//! verifier's own signature. A recovery is about half a million instructions; both answers are
//! known without curve arithmetic:
//! - **Key one under nonce ±1.** `r` is the generator's `x`, and `s = e + r` (nonce 1, `R = G`,
//!   even `y`, recovery id 0) or `s = n - (e + r)` (nonce -1, `R = -G`, recovery id 1), with `e`
//!   the digest reduced mod `n`. Recovery gives `r⁻¹(sR - eG) = r⁻¹(rG) = G`: key one's address.
//!   Any other `(r, s, id)` is recovered in full.
//! - **Signatures this process made.** [`remember`] records a signature the signer just made
//!   with its key over a digest (`(digest, r, s, id)` and the signer's address): by ECDSA's
//!   correctness that is what the precompile recovers from exactly those inputs. A recovery of
//!   anything else is recovered in full. At most [`REMEMBERED`] are kept (oldest dropped).
//!
//! Both answer exactly what the precompile computes (the tests compare them with a reference
//! recovery), so no run can tell them apart: they change the cost, never an answer.
//! [`install`] must run before any precompile does (revm keeps the first provider it sees);
//! every [`crate::InProcessEvm`] constructor calls it. Where it comes too late, nothing but the
//! speed is lost.

use alloy_primitives::{Address, B256, U256, address, uint};
use revm::precompile::{Crypto, DefaultCrypto, PrecompileHalt};
use std::{
    collections::{HashMap, VecDeque},
    sync::{Mutex, Once},
};

/// The secp256k1 group order `n`.
const N: U256 = uint!(0xFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFEBAAEDCE6AF48A03BBFD25E8CD0364141_U256);
/// The generator's `x`: `r` of every signature made with the nonce ±1.
const GX: U256 = uint!(0x79BE667EF9DCBBAC55A06295CE870B07029BFCDB2DCE28D959F2815B16F81798_U256);
/// The address of the private key 1.
pub const KEY_ONE: Address = address!("0x7E5F4552091A69125d5DfCb7b8C2659029395Bdf");
/// How many signatures [`remember`] keeps.
pub const REMEMBERED: usize = 4096;

/// The precompile's inputs: the digest, `r ‖ s`, the recovery id (`v - 27`).
type Input = ([u8; 32], [u8; 64], u8);

/// The signatures [`remember`] recorded, by input, and their order of arrival.
#[derive(Default)]
struct Known {
    answers: HashMap<Input, [u8; 32]>,
    order: VecDeque<Input>,
}

static KNOWN: Mutex<Option<Known>> = Mutex::new(None);
static INSTALL: Once = Once::new();

/// Installs the provider (once per process; see the module docs).
pub fn install() {
    INSTALL.call_once(|| {
        revm::install_crypto(Shortcuts);
    });
}

/// Records that `signer` signed `digest` with `rsv`, the 65-byte `r ‖ s ‖ v` form (`v` 27 or
/// 28, as the account passes it to the precompile). Call it only with a signature just made by
/// `signer`'s key.
pub fn remember(digest: B256, rsv: &[u8; 65], signer: Address) {
    let mut sig = [0u8; 64];
    sig.copy_from_slice(&rsv[..64]);
    let input = (digest.0, sig, rsv[64].wrapping_sub(27));
    let mut known = KNOWN.lock().unwrap_or_else(|p| p.into_inner());
    let known = known.get_or_insert_with(Known::default);
    if known.answers.insert(input, padded(signer)).is_none() {
        known.order.push_back(input);
        while known.order.len() > REMEMBERED {
            if let Some(old) = known.order.pop_front() {
                known.answers.remove(&old);
            }
        }
    }
}

/// `address` left-padded to the precompile's 32-byte output.
fn padded(address: Address) -> [u8; 32] {
    let mut out = [0u8; 32];
    out[12..].copy_from_slice(address.as_slice());
    out
}

/// Key one's address when `(sig, recid)` is its signature of `msg` under the nonce ±1.
fn key_one(sig: &[u8; 64], recid: u8, msg: &[u8; 32]) -> Option<[u8; 32]> {
    let r = U256::from_be_slice(&sig[..32]);
    if r != GX {
        return None;
    }
    let s = U256::from_be_slice(&sig[32..]);
    let e = U256::from_be_bytes(*msg).reduce_mod(N);
    let sum = e.add_mod(r, N);
    if sum.is_zero() {
        return None;
    }
    let expected = match recid {
        0 => sum,
        1 => N - sum,
        _ => return None,
    };
    (s == expected).then(|| padded(KEY_ONE))
}

/// A signature [`remember`] recorded.
fn remembered(sig: &[u8; 64], recid: u8, msg: &[u8; 32]) -> Option<[u8; 32]> {
    let known = KNOWN.lock().unwrap_or_else(|p| p.into_inner());
    known.as_ref()?.answers.get(&(*msg, *sig, recid)).copied()
}

/// revm's default crypto with the two shortcuts in `ecrecover`.
#[derive(Debug)]
struct Shortcuts;

impl Crypto for Shortcuts {
    fn secp256k1_ecrecover(
        &self,
        sig: &[u8; 64],
        recid: u8,
        msg: &[u8; 32],
    ) -> Result<[u8; 32], PrecompileHalt> {
        if let Some(out) = key_one(sig, recid, msg).or_else(|| remembered(sig, recid, msg)) {
            return Ok(out);
        }
        DefaultCrypto.secp256k1_ecrecover(sig, recid, msg)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_key_ones_own_signatures_take_the_shortcut() {
        let msg = [7u8; 32];
        let e = U256::from_be_bytes(msg).reduce_mod(N);
        let s = e.add_mod(GX, N);
        let sig = |s: U256| {
            let mut out = [0u8; 64];
            out[..32].copy_from_slice(&GX.to_be_bytes::<32>());
            out[32..].copy_from_slice(&s.to_be_bytes::<32>());
            out
        };
        assert_eq!(key_one(&sig(s), 0, &msg), Some(padded(KEY_ONE)));
        assert_eq!(key_one(&sig(N - s), 1, &msg), Some(padded(KEY_ONE)));
        // The other parity, another s, another r: recovered in full.
        assert_eq!(key_one(&sig(s), 1, &msg), None);
        assert_eq!(key_one(&sig(N - s), 0, &msg), None);
        assert_eq!(key_one(&sig(s + U256::from(1u8)), 0, &msg), None);
        let mut other = sig(s);
        other[31] ^= 1;
        assert_eq!(key_one(&other, 0, &msg), None);
    }

    #[test]
    fn the_remembered_are_bounded_and_the_oldest_go_first() {
        let signer = Address::repeat_byte(0x51);
        let digest = |i: usize| B256::from((U256::from(i) + U256::from(1u8)) << 200);
        for i in 0..=REMEMBERED {
            let mut rsv = [1u8; 65];
            rsv[32..64].fill(2);
            rsv[64] = 27;
            remember(digest(i), &rsv, signer);
        }
        let sig = {
            let mut out = [1u8; 64];
            out[32..].fill(2);
            out
        };
        assert_eq!(remembered(&sig, 0, &digest(0).0), None, "the oldest went");
        assert_eq!(
            remembered(&sig, 0, &digest(REMEMBERED).0),
            Some(padded(signer))
        );
        assert_eq!(remembered(&sig, 1, &digest(REMEMBERED).0), None);
    }
}
