//! The verifier's checks, by name, and the per-check switches a policy carries.
//!
//! Every check can be switched off in [`CheckSwitches`] (all default to on), which is how an
//! ablation study measures what each check contributes. The order of [`Check::ALL`] is the
//! order in which the verifier runs the checks and reports their violations.

use serde::{Deserialize, Serialize};

macro_rules! checks {
    ($( $(#[$doc:meta])* $variant:ident => $field:ident, )*) => {
        /// One switchable verifier check. Serialized as its `snake_case` switch name.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
        #[serde(rename_all = "snake_case")]
        pub enum Check {
            $( $(#[$doc])* $variant, )*
        }

        impl Check {
            /// Every check, in the order the verifier runs them.
            pub const ALL: &'static [Check] = &[$(Check::$variant,)*];

            /// The check's switch name in [`CheckSwitches`] (and its serde name).
            pub const fn name(self) -> &'static str {
                match self { $(Check::$variant => stringify!($field),)* }
            }
        }

        /// One switch per [`Check`]; each defaults to `true` (on) when omitted.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
        #[serde(deny_unknown_fields)]
        pub struct CheckSwitches {
            $(
                #[doc = concat!("Runs [`Check::", stringify!($variant), "`].")]
                #[serde(default = "on")]
                pub $field: bool,
            )*
        }

        impl CheckSwitches {
            /// Every check on.
            pub const fn all_on() -> Self {
                Self { $($field: true,)* }
            }

            /// Every check off (a baseline for ablations).
            pub const fn all_off() -> Self {
                Self { $($field: false,)* }
            }

            /// Whether `check` runs.
            pub const fn is_on(&self, check: Check) -> bool {
                match check { $(Check::$variant => self.$field,)* }
            }

            /// Turns `check` on or off.
            pub fn set(&mut self, check: Check, on: bool) {
                match check { $(Check::$variant => self.$field = on,)* }
            }

            /// A copy with `check` turned on or off.
            #[must_use]
            pub fn with(mut self, check: Check, on: bool) -> Self {
                self.set(check, on);
                self
            }
        }
    };
}

checks! {
    /// 0. The intent is for the policy's chain and account (when the policy names them).
    Scope => scope,
    /// 1. Every call's target is in `allowed_targets`.
    TargetAllowlist => target_allowlist,
    /// 2. Every call with a selector uses one in `allowed_selectors`.
    SelectorAllowlist => selector_allowlist,
    /// 3. No call uses a selector in `blocked_selectors`.
    BlockedSelectors => blocked_selectors,
    /// 4. Every token the intent touches (decoded, traced or claimed) is in `allowed_tokens`.
    TokenAllowlist => token_allowlist,
    /// 5. Each token's derived outflow is within its `spend_caps` entry.
    SpendCaps => spend_caps,
    /// 6. Ether sent (call values and traced ether outflow) is within `max_value_wei`.
    MaxValue => max_value,
    /// 7. No unlimited approval, and no approval above the token's spend cap.
    UnlimitedApproval => unlimited_approval,
    /// 8. Slippage tolerance (max of claimed and derived) is within `max_slippage_bps`.
    Slippage => slippage,
    /// 9. No metadata key or value matches a `metadata_patterns` regex.
    MetadataPatterns => metadata_patterns,
    /// 10. A simulation report is present when `require_simulation` is set.
    SimulationRequired => simulation_required,
    /// 11. The simulation succeeded.
    SimulationSuccess => simulation_success,
    /// 12. The simulation is at most `max_simulation_age_secs` old.
    Freshness => freshness,
    /// 13. The simulation's timestamp is not in the future.
    FutureTimestamp => future_timestamp,
    /// 14. The report's `intent_hash` is the intent's hash.
    IntentHash => intent_hash,
    /// 15. Every touched contract is allowed.
    TouchedAllowlist => touched_allowlist,
    /// 16. The health factor after execution is at least `min_health_factor_bps`.
    HealthFactor => health_factor,
    /// 17. Value conservation: the account's valued delta loses at most `max_loss_bps`.
    MaxLoss => max_loss,
    /// 18. The swap's price impact is within `max_price_impact_bps`.
    PriceImpact => price_impact,
    /// 19. The agent's claims agree with the facts derived from calldata and the trace.
    Claims => claims,
    /// 20. Swap output goes to the account itself.
    SwapRecipient => swap_recipient,
    /// 21. Approval spenders, and the receivers of every asset movement, are allowed.
    Counterparties => counterparties,
    /// 22. Every policy budget is enforced on-chain, and the intent fits what is left of it.
    Budgets => budgets,
}

const fn on() -> bool {
    true
}

impl Default for CheckSwitches {
    fn default() -> Self {
        Self::all_on()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn omitted_switches_default_on() {
        let s: CheckSwitches = serde_json::from_str(r#"{"slippage": false}"#).unwrap();
        assert!(!s.slippage);
        assert_eq!(s.with(Check::Slippage, true), CheckSwitches::all_on());
        assert!(serde_json::from_str::<CheckSwitches>(r#"{"nope": false}"#).is_err());
    }

    #[test]
    fn names_match_serde() {
        for &check in Check::ALL {
            assert_eq!(
                serde_json::to_string(&check).unwrap(),
                format!("\"{}\"", check.name())
            );
            let mut s = CheckSwitches::all_on();
            s.set(check, false);
            assert!(!s.is_on(check));
            let json = serde_json::to_value(s).unwrap();
            assert_eq!(json[check.name()], false);
        }
        assert_eq!(Check::ALL.len(), 23);
    }
}
