//! The verifier key, from an encrypted keystore file (alloy's local signer keystore, the
//! Ethereum v3 format) or the environment. Keys are never logged or returned: errors name the
//! source, never the secret.

use crate::{Error, Result};
use alloy::signers::local::PrivateKeySigner;
use alloy_primitives::B256;
use pace_signer::PdrSigner;
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bad_keys_are_refused_without_echoing_them() {
        let err = from_hex("0xnot-a-key-SECRET", "PACE_VERIFIER_KEY").unwrap_err();
        assert!(!err.to_string().contains("SECRET"), "{err}");
        let dev = format!("{}", pace_signer::DEV_VERIFIER_KEY);
        assert!(from_hex(&dev, "x").is_ok());
        let missing = from_keystore(Path::new("/nonexistent/keystore.json"), "pw").unwrap_err();
        assert!(
            missing.to_string().contains("/nonexistent/keystore.json"),
            "{missing}"
        );
    }
}
