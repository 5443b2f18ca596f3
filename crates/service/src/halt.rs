//! The kill switch: one scoped operation (`halt`, scope `halt`) that refuses every confirm at
//! once, human approvals included, until it is lifted. It is stored (it holds across
//! restarts), audited, and says whether transactions already sent keep getting fee bumps and
//! rebroadcasts: a halt stops new signatures, while an in-flight transaction left without its
//! fee bumps may sit in the pool until its PDR's window closes.

use crate::{
    Result, Service, State,
    audit::AuditKind,
    auth::{Caller, Scope},
    store::Halt,
};

/// The setting the kill switch is stored under.
const HALT_KEY: &str = "halt";

impl Service {
    /// The kill switch as stored (off when never set).
    pub(crate) fn halt_state(&self, st: &State) -> Result<Halt> {
        match st.store.setting(HALT_KEY)? {
            Some(json) => Ok(serde_json::from_str(&json)?),
            None => Ok(Halt::default()),
        }
    }

    /// The kill switch, for anyone who may read.
    pub fn halt_status(&self) -> Result<Halt> {
        self.halt_state(&self.state())
    }

    /// Sets (`halted`) or lifts the kill switch as `caller` (scope `halt`), with whether fee
    /// bumps of sent transactions continue while halted and why. Audited.
    pub fn halt(
        &self,
        caller: &Caller,
        halted: bool,
        fee_bumps: bool,
        reason: &str,
    ) -> Result<Halt> {
        let mut st = self.state();
        self.authorize(&mut st, caller, Scope::Halt)?;
        let halt = Halt {
            halted,
            fee_bumps,
            reason: reason.to_owned(),
            by: caller.id.clone(),
            at: self.now(),
        };
        self.metrics.inc("halts", if halted { "on" } else { "off" });
        let mut entry = Self::entry(caller, AuditKind::Halt, &[Scope::Halt], None);
        entry.codes = vec![if halted { "HALTED" } else { "RESUMED" }.to_owned()];
        entry.detail = serde_json::json!({
            "halted": halted,
            "fee_bumps": fee_bumps,
            "reason": reason,
        });
        // The switch and its record in one step; every instance's next signature reads it in
        // the step that would record that signature.
        let step = crate::store::Step {
            setting: Some((HALT_KEY.to_owned(), serde_json::to_string(&halt)?)),
            ..crate::store::Step::new(self.now()).audit(entry)
        };
        st.store.apply(&step)?;
        Ok(halt)
    }

    /// Whether fee bumps and rebroadcasts of sent transactions may run now.
    pub(crate) fn fee_bumps_allowed(&self, st: &State) -> Result<bool> {
        let h = self.halt_state(st)?;
        Ok(!h.halted || h.fee_bumps)
    }
}
