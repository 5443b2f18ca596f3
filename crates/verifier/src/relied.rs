//! The reads an approval rests on that the execution can change: what the signer re-checks
//! on-chain after the calls ([`ApprovedIntent::relied`](crate::ApprovedIntent::relied)).
//!
//! A read is relied on when the decision used its answer: the issuer's own rate that valued a
//! share or claim the account receives, from a source the policy trusts (a Compound-style
//! market's exchange rate, of a market the policy targets), and what the
//! stateless helper reads of that issuer's accounting (a pool's geometric mean of reserves per
//! share, a vault's assets per share) or, for a pool without reserves (Balancer's), the pool's
//! own invariant per share (`getRate`); a lending market's
//! health factor of the account, under a policy with `min_health_factor_bps`, when the market
//! could answer it after the calls (the signer keeps it at or above the minimum, or where the
//! simulation left it when that was lower: a repayment that still leaves the position under the
//! minimum is approved, and must stay approvable); a lending market's debt of the account, read
//! by the market's own view, whenever it could be read after the calls (the loss the decision
//! measured counts no more debt than the simulation booked); every amount a protocol
//! descriptor's position view reads that the account holds (the loss counted it as value, as
//! a balance; kept from falling, which also holds the collateral of a descriptor's health
//! model); under a minimum, the price a descriptor's health model computed a health factor
//! from (kept from falling, so the health factor judged holds); and every right over the account's
//! value the execution read (an allowance, an operator approval, a Permit2 allowance, a credit
//! delegation) held by a party the policy does not name (kept from growing: the signer cannot
//! know a stranger the simulation never saw, but it can hold the ones it did); and the facts the
//! descriptors the policy pins declare for the account to re-check (`checks`). The verifier names
//! them, so the signer needs no knowledge of any protocol: it bounds each read's answer after
//! the calls by what the simulation saw, within the policy's tolerance.

use alloy_primitives::Address;
use alloy_sol_types::SolCall;
use pace_abi::bindings::IPaceShareValue;
use pace_types::{FactRead, Policy, PriceSource, ReadKind, SimulationReport};

/// The pool a `PaceShareValue.productShare(pool, shares)` call data asks about.
fn product_share_of(data: &[u8]) -> Option<Address> {
    IPaceShareValue::productShareCall::abi_decode(data)
        .ok()
        .map(|c| c.pool)
}

/// Whether `data` is a pool's `getRate()` (a Balancer pool's invariant per share).
fn is_get_rate(data: &[u8]) -> bool {
    use pace_abi::balancer::IBalancerPoolView::getRateCall;
    data == getRateCall::SELECTOR
}

/// The vault a `PaceShareValue.vaultShare(vault, shares)` call data asks about.
fn vault_share_of(data: &[u8]) -> Option<Address> {
    IPaceShareValue::vaultShareCall::abi_decode(data)
        .ok()
        .map(|c| c.vault)
}

/// Whether the policy names `holder` as a party the account deals with (a target, a touched
/// contract, a payee, a token, a member of a protocol it pins), or it is the contract `target`
/// that records the right itself.
fn policy_party(
    policy: &Policy,
    report: &SimulationReport,
    holder: Address,
    target: Address,
) -> bool {
    holder == target
        || policy.allowed_targets.contains(&holder)
        || policy.allowed_touched.contains(&holder)
        || policy.allowed_recipients.contains(&holder)
        || policy.allowed_tokens.contains(&holder)
        || report
            .protocols
            .members
            .iter()
            .any(|m| m.contract == holder)
}

/// The reads of `report` an approval under `policy` rests on (see the module docs).
pub(crate) fn relied(
    report: &SimulationReport,
    policy: &Policy,
    account: alloy_primitives::Address,
) -> Vec<FactRead> {
    let received = |token| {
        report
            .balance_changes
            .iter()
            .any(|c| c.token == token && c.delta.is_positive())
    };
    report
        .reads
        .iter()
        .filter(|r| match r.kind {
            ReadKind::HealthFactor | ReadKind::HealthTerm => {
                policy.min_health_factor_bps.is_some() && r.after.is_some()
            }
            // What the account holds in a protocol, counted in its value like a balance (none
            // left: nothing to keep).
            ReadKind::Holding => r.after.is_some_and(|a| !a.is_zero()),
            // The loss the decision measured counts no debt beyond the simulated one.
            ReadKind::Debt => r.after.is_some(),
            // Control the account held: it passes at execution only as simulated.
            ReadKind::Control => r.after.is_some(),
            // A fact a descriptor the policy pins declares (a missing or unanswered one
            // refuses the intent: `checks::simulation::declared_checks`).
            ReadKind::DeclaredFloor | ReadKind::DeclaredCeiling | ReadKind::DeclaredExact => {
                r.after.is_some() && crate::declared::declared(policy, account, r)
            }
            // A right of a party the policy does not name: it must not grow at execution.
            ReadKind::Right => {
                r.after.is_some() && !policy_party(policy, report, r.subject, r.target)
            }
            ReadKind::Valuation => {
                received(r.subject)
                    && report.prices.iter().any(|f| {
                        let helper = r.target == pace_types::pdr::SHARE_VALUE_HELPER;
                        f.token == r.subject
                            && crate::value::trusted_source(policy, &report.protocols.members, f)
                            && match f.source {
                                // Its own rate, or the helper's read of its accounting.
                                PriceSource::Vault => {
                                    f.via == r.target
                                        || helper && vault_share_of(&r.data) == Some(f.via)
                                }
                                // A market's own claim token, or a token a descriptor
                                // rates: the issuer's rate.
                                PriceSource::Claim | PriceSource::Rate => {
                                    f.via == r.target && f.token == f.via
                                }
                                // Valued by its reserves per share: the helper's read of
                                // that pool, or a pool without reserves (a Balancer pool)
                                // its own invariant per share.
                                PriceSource::PoolShare => {
                                    helper && product_share_of(&r.data) == Some(f.via)
                                        || f.via == r.target && is_get_rate(&r.data)
                                }
                                _ => false,
                            }
                    })
            }
        })
        .cloned()
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloy_primitives::{Address, Bytes, I256, U256};
    use pace_types::{BalanceChange, FactRead, PriceFact, TokenAmount};

    /// A successful report with nothing in it.
    fn empty_report() -> SimulationReport {
        serde_json::from_str(
            r#"{"intent_hash":"0x0000000000000000000000000000000000000000000000000000000000000000",
                "block_number":1,"timestamp":1,"success":true}"#,
        )
        .unwrap()
    }

    #[test]
    fn a_received_shares_trusted_rate_is_relied_on_and_nothing_else() {
        let (vault, asset) = (Address::repeat_byte(0x4a), Address::repeat_byte(0xda));
        let mut report = empty_report();
        report.prices = vec![PriceFact {
            token: vault,
            source: PriceSource::Vault,
            via: vault,
            amount: U256::from(10u8),
            worth: vec![TokenAmount {
                token: asset,
                amount: U256::from(11u8),
            }],
        }];
        let read = FactRead {
            kind: ReadKind::Valuation,
            subject: vault,
            target: vault,
            data: Bytes::from(vec![1, 2, 3, 4]),
            word: 0,
            before: Some(U256::from(11u8)),
            after: Some(U256::from(11u8)),
        };
        report.reads = vec![read.clone()];
        report.balance_changes = vec![BalanceChange {
            token: vault,
            delta: I256::try_from(5).unwrap(),
        }];
        let trusting = Policy {
            price_vaults: vec![vault],
            ..Policy::default()
        };
        assert_eq!(relied(&report, &trusting, Address::ZERO), vec![read]);
        // A vault the policy does not trust priced nothing the decision used.
        assert!(relied(&report, &Policy::default(), Address::ZERO).is_empty());
        // Shares that leave are not received: nothing to re-check.
        report.balance_changes[0].delta = I256::try_from(-5).unwrap();
        assert!(relied(&report, &trusting, Address::ZERO).is_empty());
    }

    #[test]
    fn a_vaults_assets_per_share_are_relied_on_through_the_helper_for_that_vault_only() {
        let (vault, other, asset) = (
            Address::repeat_byte(0x4a),
            Address::repeat_byte(0x4b),
            Address::repeat_byte(0xda),
        );
        let mut report = empty_report();
        report.prices = vec![PriceFact {
            token: vault,
            source: PriceSource::Vault,
            via: vault,
            amount: U256::from(10u8),
            worth: vec![TokenAmount {
                token: asset,
                amount: U256::from(11u8),
            }],
        }];
        report.balance_changes = vec![BalanceChange {
            token: vault,
            delta: I256::try_from(5).unwrap(),
        }];
        let through = |target: Address, asked: Address| FactRead {
            kind: ReadKind::Valuation,
            subject: vault,
            target,
            data: IPaceShareValue::vaultShareCall {
                vault: asked,
                shares: U256::from(10u8),
            }
            .abi_encode()
            .into(),
            word: 0,
            before: Some(U256::from(11u8)),
            after: Some(U256::from(11u8)),
        };
        let helper = pace_types::pdr::SHARE_VALUE_HELPER;
        let good = through(helper, vault);
        report.reads = vec![
            good.clone(),
            // Another vault's accounting, or the call at another address: not this fact's.
            through(helper, other),
            through(Address::repeat_byte(0x66), vault),
        ];
        let trusting = Policy {
            price_vaults: vec![vault],
            ..Policy::default()
        };
        assert_eq!(relied(&report, &trusting, Address::ZERO), vec![good]);
        assert!(relied(&report, &Policy::default(), Address::ZERO).is_empty());
    }

    #[test]
    fn a_health_factor_is_relied_on_under_a_minimum_when_it_can_be_read_after() {
        let mut report = empty_report();
        let market = Address::repeat_byte(0x90);
        let read = FactRead {
            kind: ReadKind::HealthFactor,
            subject: market,
            target: market,
            data: Bytes::from(vec![9, 9, 9, 9]),
            word: 5,
            before: Some(U256::from(2u8)),
            after: Some(U256::from(1u8)),
        };
        report.reads = vec![read.clone()];
        let minimum = Policy {
            min_health_factor_bps: Some(12_000),
            ..Policy::default()
        };
        assert_eq!(relied(&report, &minimum, Address::ZERO), vec![read]);
        // No minimum: the decision did not judge it.
        let none = Policy {
            min_health_factor_bps: None,
            ..Policy::default()
        };
        assert!(relied(&report, &none, Address::ZERO).is_empty());
        // Unreadable after the calls: the verifier refused the move or did not need it.
        report.reads[0].after = None;
        assert!(relied(&report, &minimum, Address::ZERO).is_empty());
    }

    #[test]
    fn a_holding_is_relied_on_whatever_the_policy_unless_none_is_left() {
        let mut report = empty_report();
        let root = Address::repeat_byte(0xb0);
        let holding = |after: Option<u64>| FactRead {
            kind: ReadKind::Holding,
            subject: root,
            target: root,
            data: Bytes::from(vec![1, 2, 3, 4]),
            word: 2,
            before: Some(U256::from(5u8)),
            after: after.map(U256::from),
        };
        report.reads = vec![holding(Some(7)), holding(Some(0)), holding(None)];
        for min_health_factor_bps in [None, Some(12_000)] {
            let policy = Policy {
                min_health_factor_bps,
                ..Policy::default()
            };
            assert_eq!(
                relied(&report, &policy, Address::ZERO),
                vec![holding(Some(7))]
            );
        }
    }

    #[test]
    fn a_right_is_relied_on_only_for_a_holder_the_policy_does_not_name() {
        let mut report = empty_report();
        let (token, router, stranger) = (
            Address::repeat_byte(0x70),
            Address::repeat_byte(0x72),
            Address::repeat_byte(0x57),
        );
        let right = |holder| FactRead {
            kind: ReadKind::Right,
            subject: holder,
            target: token,
            data: Bytes::from(vec![7, 7, 7, 7]),
            word: 0,
            before: Some(U256::ZERO),
            after: Some(U256::ZERO),
        };
        report.reads = vec![right(router), right(stranger), right(token)];
        let policy = Policy {
            allowed_targets: vec![router],
            ..Policy::default()
        };
        assert_eq!(
            relied(&report, &policy, Address::ZERO),
            vec![right(stranger)]
        );
        // Named anywhere as a party, or unreadable after the calls: not relied on.
        for named in [
            Policy {
                allowed_touched: vec![stranger],
                ..policy.clone()
            },
            Policy {
                allowed_recipients: vec![stranger],
                ..policy.clone()
            },
        ] {
            assert!(relied(&report, &named, Address::ZERO).is_empty());
        }
        report.reads[1].after = None;
        assert!(relied(&report, &policy, Address::ZERO).is_empty());
    }

    #[test]
    fn a_readable_debt_is_relied_on_with_or_without_a_minimum() {
        let mut report = empty_report();
        let market = Address::repeat_byte(0x91);
        let read = FactRead {
            kind: ReadKind::Debt,
            subject: market,
            target: market,
            data: Bytes::from(vec![8, 8, 8, 8]),
            word: 0,
            before: Some(U256::ZERO),
            after: Some(U256::ZERO),
        };
        report.reads = vec![read.clone()];
        assert_eq!(
            relied(&report, &Policy::default(), Address::ZERO),
            vec![read]
        );
        report.reads[0].after = None;
        assert!(relied(&report, &Policy::default(), Address::ZERO).is_empty());
    }
}
