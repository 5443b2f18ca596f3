//! The key that signs the transactions of `pace deploy` and `pace admin`: an encrypted keystore
//! file (`--keystore FILE`, its password in [`KEYSTORE_PASSWORD_ENV`]) or a hex key in an
//! environment variable. Never a command-line value, which would end up in shell histories,
//! process lists and logs; errors name where the key came from, never the key.

use alloy::signers::local::PrivateKeySigner;
use alloy_primitives::B256;
use std::path::Path;

/// The environment variable holding the password of `--keystore`.
pub const KEYSTORE_PASSWORD_ENV: &str = "PACE_KEYSTORE_PASSWORD";

/// The signing key: decrypted from `keystore` when given, otherwise read from the environment
/// variable `env_var`.
pub(crate) fn signer(keystore: Option<&Path>, env_var: &str) -> Result<PrivateKeySigner, String> {
    if let Some(path) = keystore {
        let password = std::env::var(KEYSTORE_PASSWORD_ENV)
            .map_err(|_| format!("--keystore needs its password in {KEYSTORE_PASSWORD_ENV}"))?;
        return PrivateKeySigner::decrypt_keystore(path, password)
            .map_err(|e| format!("keystore {}: {e}", path.display()));
    }
    let secret = std::env::var(env_var).map_err(|_| {
        format!("no signing key: set {env_var} (hex) or give --keystore FILE ({KEYSTORE_PASSWORD_ENV} holds its password)")
    })?;
    from_hex(&secret, env_var)
}

/// Parses the hex secret key `secret` taken from `source`.
fn from_hex(secret: &str, source: &str) -> Result<PrivateKeySigner, String> {
    secret
        .trim()
        .parse::<B256>()
        .ok()
        .and_then(|key| PrivateKeySigner::from_bytes(&key).ok())
        .ok_or_else(|| format!("{source}: not a 32-byte hex secret key"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_bad_key_is_refused_without_being_echoed() {
        let err = from_hex("0xnot-a-key-SECRET", "PACE_OWNER_KEY").unwrap_err();
        assert!(
            err.contains("PACE_OWNER_KEY") && !err.contains("SECRET"),
            "{err}"
        );
        assert!(
            from_hex(&format!("0x{}", "00".repeat(32)), "k").is_err(),
            "zero is no key"
        );
        let key = B256::repeat_byte(0x42);
        assert_eq!(
            from_hex(&format!(" {key}\n"), "k").unwrap().address(),
            PrivateKeySigner::from_bytes(&key).unwrap().address()
        );
    }
}
