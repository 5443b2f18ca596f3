//! Pre-flight: before anything is signed, the account as the decision's simulation read it is
//! checked, and a PDR it would refuse is never signed or sent (a certain revert costs the
//! relayer gas and tells the chain nothing). One function, [`Service::preflight`], so that
//! every check before signing lives in one place.

use crate::{Error, Result, Service};
use alloy_primitives::Address;
use pace_pipeline::AccountState;

impl Service {
    /// The checks of `account` (as read on the state the decision was made on, `None` when it
    /// has no code) before its PDR is signed: code present, not paused, and trusting this
    /// pipeline's verifier.
    pub(crate) fn preflight(&self, address: Address, account: Option<&AccountState>) -> Result<()> {
        let Some(account) = account else {
            return Err(Error::NoAccountCode(address));
        };
        if account.paused() {
            return Err(Error::AccountPaused(address));
        }
        let trusted = account.verifier();
        let ours = self.pipeline.verifier();
        if trusted != ours {
            return Err(Error::VerifierNotTrusted {
                account: address,
                trusted,
                ours,
            });
        }
        Ok(())
    }
}
