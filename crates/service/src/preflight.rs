//! Pre-flight: before anything is signed, the account is read on the state the decision was
//! made on, and a PDR it would refuse is never signed or sent (a certain revert costs the
//! relayer gas and tells the chain nothing). One function, [`Service::preflight`], so that
//! every check before signing lives in one place.

use crate::{Error, Result, Service, store::Proposal};
use pace_abi::bindings::PaceAccount;
use pace_evm::InProcessEvm;

impl Service {
    /// The checks of `p`'s account on `latest` before its PDR is signed: code present, not
    /// paused, and trusting this pipeline's verifier. Unknown means refuse: a view that cannot
    /// be read is `NOT_A_PACE_ACCOUNT`.
    pub(crate) fn preflight(&self, latest: &InProcessEvm, p: &Proposal) -> Result<()> {
        let account = p.intent.account;
        let not_pace = |reason: String| Error::NotPaceAccount { account, reason };
        let code = latest
            .code(account)
            .map_err(|e| not_pace(format!("its code cannot be read: {e}")))?;
        if code.is_empty() {
            return Err(Error::NoAccountCode(account));
        }
        let paused = latest
            .view_sol(account, &PaceAccount::pausedCall {})
            .map_err(|e| not_pace(format!("paused(): {e}")))?;
        if paused {
            return Err(Error::AccountPaused(account));
        }
        let trusted = latest
            .view_sol(account, &PaceAccount::verifierCall {})
            .map_err(|e| not_pace(format!("verifier(): {e}")))?;
        let ours = self.pipeline.verifier();
        if trusted != ours {
            return Err(Error::VerifierNotTrusted {
                account,
                trusted,
                ours,
            });
        }
        Ok(())
    }
}
