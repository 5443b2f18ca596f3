//! Signatures that cost one addition to make and are worth nothing: by the private key 1 (the
//! generator `G` is its public key) with the nonce 1 or −1.
//!
//! With nonce 1, `R = G`, so `r = Gx` and `s = e + r` (`e` the digest, mod the group order):
//! `ecrecover` computes `r⁻¹ (s·R − e·G) = r⁻¹ (e + r − e)·G = G`, the key-1 address, with no
//! curve arithmetic on the signer's side. When that `s` is high, nonce −1 (`R = −G`, odd `y`)
//! with `s' = −s` recovers the same, so the signature is always low-s and fits EIP-2098's
//! compact form. It is an ordinary ECDSA signature (a valid one for key 1), and the key is
//! public: nothing that trusts [`KEY_ONE`] is safe, which is why a simulation may sign with it.

use crate::CompactSignature;
use alloy_primitives::{Address, B256, U256, address};
use k256::{
    FieldBytes, Scalar,
    elliptic_curve::{PrimeField, ops::Reduce, scalar::IsHigh},
};

/// The address of the private key 1.
pub const KEY_ONE: Address = address!("0x7E5F4552091A69125d5DfCb7b8C2659029395Bdf");

/// The generator's `x`, `r` of every signature made with nonce ±1.
const GX: [u8; 32] =
    alloy_primitives::hex!("79be667ef9dcbbac55a06295ce870b07029bfcdb2dce28d959f2815b16f81798");

/// Key 1's signature of `digest` with the public nonce ±1 (see the module docs); `None` in the
/// one case in 2^256 where `s` would be 0.
pub fn key_one_signature(digest: B256) -> Option<CompactSignature> {
    let e = <Scalar as Reduce<k256::U256>>::reduce_bytes(&FieldBytes::from(digest.0));
    let r = Option::<Scalar>::from(Scalar::from_repr(FieldBytes::from(GX)))?;
    let s = e + r;
    if bool::from(s.is_zero()) {
        return None;
    }
    let (s, odd) = if bool::from(s.is_high()) {
        (-s, true)
    } else {
        (s, false)
    };
    let mut vs = U256::from_be_slice(&s.to_bytes());
    if odd {
        vs |= U256::from(1u8) << 255usize;
    }
    Some(CompactSignature {
        r: B256::from(GX),
        vs: B256::from(vs.to_be_bytes::<32>()),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::PdrSigner;
    use alloy_primitives::keccak256;

    #[test]
    fn key_one_signatures_recover_to_key_one_and_are_low_s() {
        let one = PdrSigner::from_bytes(&B256::with_last_byte(1)).unwrap();
        assert_eq!(one.address(), KEY_ONE);
        let mut odd = 0;
        for i in 0u32..256 {
            let digest = keccak256(i.to_be_bytes());
            let sig = key_one_signature(digest).unwrap();
            assert_eq!(sig.recover(digest), Some(KEY_ONE), "{i}");
            assert_ne!(sig.recover(keccak256(digest)), Some(KEY_ONE));
            // `s` at most half the group order: the top bit is only the parity.
            let vs = U256::from_be_slice(sig.vs.as_slice());
            odd += usize::from(vs.bit(255));
            let half: U256 = "0x7fffffffffffffffffffffffffffffff5d576e7357a4501ddfe92f46681b20a0"
                .parse()
                .unwrap();
            assert!(vs & (U256::MAX >> 1usize) <= half);
        }
        // Both nonces occur.
        assert!(odd > 64 && odd < 192, "{odd}");
    }
}
