//! The verifier key (and, on a node, the relayer's), from an encrypted keystore file (alloy's
//! local signer keystore, the Ethereum v3 format) or the environment. Keys are never logged or
//! returned: errors name the source, never the secret.

use crate::{Error, Result};
use alloy::signers::local::PrivateKeySigner;
use alloy_primitives::B256;
use pace_pipeline::PdrSigner;
use std::path::Path;

/// Decrypts the keystore at `path` with `password`.
pub fn from_keystore(path: &Path, password: &str) -> Result<PdrSigner> {
    let signer = PrivateKeySigner::decrypt_keystore(path, password)
        .map_err(|e| Error::Config(format!("keystore {}: {e}", path.display())))?;
    PdrSigner::from_bytes(&signer.to_bytes())
        .map_err(|e| Error::Config(format!("keystore {}: {e}", path.display())))
}

/// Parses a hex secret key taken from `source` (an environment variable or option name).
pub fn from_hex(secret: &str, source: &str) -> Result<PdrSigner> {
    let key: B256 = secret
        .trim()
        .parse()
        .map_err(|_| Error::Config(format!("{source}: not a 32-byte hex key")))?;
    PdrSigner::from_bytes(&key).map_err(|e| Error::Config(format!("{source}: {e}")))
}

/// The relayer's key (it pays for submissions on a node), decrypted from the keystore at
/// `path` with `password`.
pub fn relayer_from_keystore(path: &Path, password: &str) -> Result<PrivateKeySigner> {
    PrivateKeySigner::decrypt_keystore(path, password)
        .map_err(|e| Error::Config(format!("keystore {}: {e}", path.display())))
}

/// The relayer's key from a hex secret taken from `source`.
pub fn relayer_from_hex(secret: &str, source: &str) -> Result<PrivateKeySigner> {
    secret
        .trim()
        .parse::<B256>()
        .ok()
        .and_then(|key| PrivateKeySigner::from_bytes(&key).ok())
        .ok_or_else(|| Error::Config(format!("{source}: not a 32-byte hex secret key")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bad_keys_are_refused_without_echoing_them() {
        let err = from_hex("0xnot-a-key-SECRET", "PACE_VERIFIER_KEY").unwrap_err();
        assert!(!err.to_string().contains("SECRET"), "{err}");
        let dev = format!("{}", pace_pipeline::DEV_VERIFIER_KEY);
        assert!(from_hex(&dev, "x").is_ok());
        let err = relayer_from_hex("0xnot-a-key-SECRET", "PACE_RELAYER_KEY").unwrap_err();
        assert!(!err.to_string().contains("SECRET"), "{err}");
        assert_eq!(
            relayer_from_hex(&dev, "x").unwrap().address(),
            PdrSigner::from_bytes(&pace_pipeline::DEV_VERIFIER_KEY)
                .unwrap()
                .address()
        );
        let missing = from_keystore(Path::new("/nonexistent/keystore.json"), "pw").unwrap_err();
        assert!(
            missing.to_string().contains("/nonexistent/keystore.json"),
            "{missing}"
        );
    }

    #[test]
    fn an_encrypted_keystore_yields_its_key_and_only_with_its_password() {
        use rand08::SeedableRng;
        let dir = std::env::temp_dir().join(format!("pace-keystore-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let secret = B256::repeat_byte(0x42);
        let mut rng = rand08::rngs::StdRng::seed_from_u64(7);
        PrivateKeySigner::encrypt_keystore(&dir, &mut rng, secret, "hunter2", Some("k.json"))
            .unwrap();
        let path = dir.join("k.json");
        let signer = from_keystore(&path, "hunter2").unwrap();
        assert_eq!(
            signer.address(),
            PdrSigner::from_bytes(&secret).unwrap().address()
        );
        let err = from_keystore(&path, "wrong").unwrap_err();
        assert!(!err.to_string().contains("hunter2"), "{err}");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
