//! The verifier's signing key and compact signatures.

use crate::{Error, Result};
use alloy_primitives::{Address, B256, U256};
use k256::ecdsa::{RecoveryId, Signature, SigningKey, VerifyingKey};

/// An EIP-2098 compact signature: `r` and `vs = s | (yParity << 255)`, as
/// `PaceAccount.executePDR` takes it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CompactSignature {
    /// The `r` value.
    pub r: B256,
    /// `s` with the recovery parity in the top bit.
    pub vs: B256,
}

impl CompactSignature {
    /// Recovers the signer of `digest`, or `None` for a malformed signature.
    pub fn recover(&self, digest: B256) -> Option<Address> {
        let vs = U256::from_be_slice(self.vs.as_slice());
        let parity = vs.bit(255);
        let s = vs & (U256::MAX >> 1usize);
        let mut bytes = [0u8; 64];
        bytes[..32].copy_from_slice(self.r.as_slice());
        bytes[32..].copy_from_slice(&s.to_be_bytes::<32>());
        let sig = Signature::from_slice(&bytes).ok()?;
        let id = RecoveryId::new(parity, false);
        let key = VerifyingKey::recover_from_prehash(digest.as_slice(), &sig, id).ok()?;
        Some(Address::from_public_key(&key))
    }

    /// The 65-byte `r || s || v` form (v = 27 + parity), for tools that want it.
    pub fn to_rsv(&self) -> [u8; 65] {
        let vs = U256::from_be_slice(self.vs.as_slice());
        let mut out = [0u8; 65];
        out[..32].copy_from_slice(self.r.as_slice());
        out[32..64].copy_from_slice(&(vs & (U256::MAX >> 1usize)).to_be_bytes::<32>());
        out[64] = 27 + u8::from(vs.bit(255));
        out
    }
}

/// A well-known development key for the verifier: `0x5a5a…5a`. The embedded world's account
/// trusts it in `pace demo`, `pace world` and `pace simulate`.
///
/// It is public: never configure its address as the verifier of an account that holds real
/// funds.
pub const DEV_VERIFIER_KEY: B256 = B256::repeat_byte(0x5a);

/// The verifier's key. Its `Debug` form never shows the secret. It signs on libsecp256k1
/// (constant time; RFC 6979 nonces, so its signatures are k256's, which the tests check).
#[derive(Clone)]
pub struct PdrSigner {
    key: secp256k1::SecretKey,
    address: Address,
}

impl Drop for PdrSigner {
    /// Overwrites the secret (a volatile write; copies the compiler made may remain), as k256's
    /// key did on drop.
    fn drop(&mut self) {
        self.key.non_secure_erase();
    }
}

impl core::fmt::Debug for PdrSigner {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("PdrSigner")
            .field("address", &self.address)
            .finish_non_exhaustive()
    }
}

impl PdrSigner {
    /// A signer from a 32-byte secret key.
    pub fn from_bytes(secret: &B256) -> Result<Self> {
        let checked = SigningKey::from_slice(secret.as_slice())
            .map_err(|e| Error::InvalidKey(e.to_string()))?;
        let address = Address::from_private_key(&checked);
        let key = secp256k1::SecretKey::from_byte_array(secret.0)
            .map_err(|e| Error::InvalidKey(e.to_string()))?;
        Ok(Self { key, address })
    }

    /// A signer from a `0x`-prefixed (or bare) 64-digit hex secret key.
    pub fn from_hex(secret: &str) -> Result<Self> {
        let secret: B256 = secret
            .trim()
            .parse()
            .map_err(|e: alloy_primitives::hex::FromHexError| Error::InvalidKey(e.to_string()))?;
        Self::from_bytes(&secret)
    }

    /// The address the account must have configured as its verifier.
    pub fn address(&self) -> Address {
        self.address
    }

    /// Signs a 32-byte digest (RFC 6979, low-s).
    pub fn sign_digest(&self, digest: B256) -> Result<CompactSignature> {
        let message = secp256k1::Message::from_digest(digest.0);
        let sig = secp256k1::SECP256K1.sign_ecdsa_recoverable(message, &self.key);
        let (id, bytes) = sig.serialize_compact();
        // libsecp256k1 signs low-s, so `vs` always has a free top bit.
        let r = B256::from_slice(&bytes[..32]);
        let mut vs = U256::from_be_slice(&bytes[32..]);
        if i32::from(id) & 1 == 1 {
            vs |= U256::from(1u8) << 255usize;
        }
        Ok(CompactSignature {
            r,
            vs: B256::from(vs.to_be_bytes::<32>()),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloy_primitives::keccak256;

    #[test]
    fn signature_recovers_to_the_signer() {
        let signer = PdrSigner::from_bytes(&B256::repeat_byte(7)).unwrap();
        for i in 0u32..64 {
            let digest = keccak256(i.to_be_bytes());
            let sig = signer.sign_digest(digest).unwrap();
            assert_eq!(sig.recover(digest), Some(signer.address()));
            assert_ne!(sig.recover(keccak256(digest)), Some(signer.address()));
            let rsv = sig.to_rsv();
            assert!(rsv[64] == 27 || rsv[64] == 28);
        }
    }

    /// k256's RFC 6979 signature of `digest` by `secret`, low-s, in the compact form.
    fn k256_signature(secret: B256, digest: B256) -> CompactSignature {
        let key = SigningKey::from_slice(secret.as_slice()).unwrap();
        let (sig, id) = key.sign_prehash_recoverable(digest.as_slice()).unwrap();
        let (sig, id) = match sig.normalize_s() {
            Some(low) => (low, RecoveryId::new(!id.is_y_odd(), id.is_x_reduced())),
            None => (sig, id),
        };
        let bytes = sig.to_bytes();
        let mut vs = U256::from_be_slice(&bytes[32..]);
        if id.is_y_odd() {
            vs |= U256::from(1u8) << 255usize;
        }
        CompactSignature {
            r: B256::from_slice(&bytes[..32]),
            vs: B256::from(vs.to_be_bytes::<32>()),
        }
    }

    /// Differential: libsecp256k1's signatures are k256's, byte for byte (both RFC 6979 and
    /// low-s), for keys across the range and every digest below the group order. A digest at
    /// or above it (a keccak output is, with probability about 2^-128) reaches their nonce
    /// derivations reduced in one and not in the other: each signature is then a valid one of
    /// its own, which recovers to the signer.
    #[test]
    fn signatures_are_k256_signatures() {
        let order_less_one = B256::from(
            U256::from_str_radix(
                "fffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364140",
                16,
            )
            .unwrap()
            .to_be_bytes::<32>(),
        );
        let keys = [
            B256::with_last_byte(1),
            B256::repeat_byte(0x5a),
            keccak256("a verifier"),
            order_less_one,
        ];
        for secret in keys {
            let signer = PdrSigner::from_bytes(&secret).unwrap();
            for i in 0u32..256 {
                let digest = match i {
                    0 => B256::ZERO,
                    1 => B256::repeat_byte(0xff),
                    2 => order_less_one,
                    _ => keccak256(i.to_be_bytes()),
                };
                let sig = signer.sign_digest(digest).unwrap();
                assert_eq!(sig.recover(digest), Some(signer.address()));
                if U256::from_be_bytes(digest.0) < U256::from_be_bytes(order_less_one.0) {
                    assert_eq!(
                        sig,
                        k256_signature(secret, digest),
                        "key {secret}, digest {digest}"
                    );
                }
            }
        }
    }

    #[test]
    fn known_key_has_known_address() {
        // The well-known first anvil / hardhat development key.
        let signer = PdrSigner::from_hex(
            "0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80",
        )
        .unwrap();
        assert_eq!(
            signer.address(),
            "0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266"
                .parse::<Address>()
                .unwrap()
        );
        assert!(!format!("{signer:?}").contains("ac0974"));
    }

    #[test]
    fn rejects_bad_keys() {
        assert!(PdrSigner::from_bytes(&B256::ZERO).is_err());
        assert!(PdrSigner::from_hex("0x1234").is_err());
        assert!(PdrSigner::from_hex("not hex").is_err());
    }
}
