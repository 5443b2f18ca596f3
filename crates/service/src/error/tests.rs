//! `docs/violation-codes.md` ("Service error codes") documents every error the service answers
//! with: its code, its status and its `Retry-After`; and every 429 and 503 has one.

use super::Error;
use alloy_primitives::{Address, U256};

const DOC: &str = include_str!("../../../../docs/violation-codes.md");

/// One error of every variant: the match below is exhaustive, so a new variant fails to
/// compile here until it is listed (and so documented).
fn every_error() -> Vec<Error> {
    let s = || "x".to_owned();
    let a = Address::ZERO;
    let all = vec![
        Error::BadRequest(s()),
        Error::Unauthorized,
        Error::Forbidden(s()),
        Error::RateLimited { per_minute: 1 },
        Error::NotFound(s()),
        Error::NotConfirmable {
            id: s(),
            state: s(),
        },
        Error::NotConfirmed(s()),
        Error::Expired(s()),
        Error::InsufficientBalance {
            token: a,
            balance: U256::ZERO,
            needed: U256::ZERO,
            shortfall: U256::ZERO,
        },
        Error::PreviewChanged(s()),
        Error::Rejected(vec![]),
        Error::RetryBlocked(s()),
        Error::InProgress,
        Error::IdempotencyKeyReused,
        Error::IdempotencyStoreFull { held: 1 },
        Error::DuplicateIntent(s()),
        Error::ApprovalRequired {
            id: s(),
            reason: s(),
            url: None,
        },
        Error::Declined(s()),
        Error::Halted(s()),
        Error::AccountPaused(a),
        Error::VerifierNotTrusted {
            account: a,
            trusted: a,
            ours: a,
        },
        Error::NoAccountCode(a),
        Error::NotPaceAccount {
            account: a,
            reason: s(),
        },
        Error::GasBudgetExceeded {
            tenant: s(),
            budget: U256::ZERO,
            spent: U256::ZERO,
            needed: U256::ZERO,
        },
        Error::QuoteUnavailable {
            router: a,
            reason: s(),
        },
        Error::WrongChain {
            intent: 1,
            chain: 2,
        },
        Error::ShuttingDown,
        Error::NoFreeLane,
        Error::Store(s()),
        Error::StoreUnavailable(s()),
        Error::LandsExpired {
            valid_until: 1,
            landing: 2,
        },
        Error::LandsStale {
            simulation_block: 1,
            max_age: 2,
            landing_block: 4,
        },
        Error::ConfigStale,
        Error::Fenced(s()),
        Error::SequenceTaken {
            lane: 0,
            sequence: 0,
        },
        Error::ChargeOverLimit {
            kind: s(),
            who: s(),
            spent: U256::ZERO,
        },
        Error::RelayerInUse {
            relayer: a,
            holder: s(),
            for_ms: 1,
        },
        Error::Pipeline(pace_pipeline::Error::Pending),
        Error::Chain(s()),
        Error::Config(s()),
    ];
    for e in &all {
        match e {
            Error::BadRequest(_)
            | Error::Unauthorized
            | Error::Forbidden(_)
            | Error::RateLimited { .. }
            | Error::NotFound(_)
            | Error::NotConfirmable { .. }
            | Error::NotConfirmed(_)
            | Error::Expired(_)
            | Error::InsufficientBalance { .. }
            | Error::PreviewChanged(_)
            | Error::Rejected(_)
            | Error::RetryBlocked(_)
            | Error::InProgress
            | Error::IdempotencyKeyReused
            | Error::IdempotencyStoreFull { .. }
            | Error::DuplicateIntent(_)
            | Error::ApprovalRequired { .. }
            | Error::Declined(_)
            | Error::Halted(_)
            | Error::AccountPaused(_)
            | Error::VerifierNotTrusted { .. }
            | Error::NoAccountCode(_)
            | Error::NotPaceAccount { .. }
            | Error::GasBudgetExceeded { .. }
            | Error::QuoteUnavailable { .. }
            | Error::WrongChain { .. }
            | Error::ShuttingDown
            | Error::NoFreeLane
            | Error::Store(_)
            | Error::StoreUnavailable(_)
            | Error::LandsExpired { .. }
            | Error::LandsStale { .. }
            | Error::ConfigStale
            | Error::Fenced(_)
            | Error::SequenceTaken { .. }
            | Error::ChargeOverLimit { .. }
            | Error::RelayerInUse { .. }
            | Error::Pipeline(_)
            | Error::Chain(_)
            | Error::Config(_) => {}
        }
    }
    all
}

/// The rows of the "Service error codes" table: (codes, statuses, Retry-After).
fn rows() -> Vec<(Vec<String>, String, String)> {
    let table = DOC
        .split("\n## Service error codes\n")
        .nth(1)
        .expect("docs/violation-codes.md has a \"Service error codes\" section");
    let table = table.split("\n## ").next().unwrap_or(table);
    table
        .lines()
        .filter(|l| l.starts_with("| `"))
        .map(|l| {
            let cells: Vec<&str> = l.split('|').skip(1).map(str::trim).collect();
            let codes = cells[0]
                .split(", ")
                .map(|c| c.trim_matches('`').to_owned())
                .collect();
            (codes, cells[1].to_owned(), cells[2].to_owned())
        })
        .collect()
}

#[test]
fn every_error_is_documented_with_its_status_and_retry_after() {
    let rows = rows();
    for e in every_error() {
        let code = e.code();
        let (_, statuses, retry) = rows
            .iter()
            .find(|(codes, _, _)| codes.iter().any(|c| c == code))
            .unwrap_or_else(|| panic!("{code} is not in docs/violation-codes.md"));
        let status = e.http_status();
        assert!(
            statuses.split(", ").any(|s| s == status.to_string()),
            "{code}: the service answers {status}, the table says {statuses}"
        );
        match e.retry_after() {
            // The rate window's end changes by the second.
            Some(_) if code == "RATE_LIMITED" => assert_eq!(retry.as_str(), "to the minute's end"),
            Some(secs) if matches!(status, 429 | 503) => {
                assert!(retry.starts_with(&format!("{secs} s")), "{code}: {retry}")
            }
            Some(secs) => assert_eq!(*retry, format!("{secs} s (body)"), "{code}"),
            None => assert!(retry.is_empty(), "{code}: {retry}"),
        }
        if matches!(status, 429 | 503) {
            assert!(
                e.retry_after().is_some(),
                "{code}: a {status} without Retry-After"
            );
        }
    }
}

/// The codes the HTTP layer answers with itself (edge, listener, MCP sessions) are in the
/// table too.
#[test]
fn the_edge_codes_are_documented() {
    let documented: Vec<String> = rows().into_iter().flat_map(|(c, _, _)| c).collect();
    let sources = [
        include_str!("../edge.rs"),
        include_str!("../listener.rs"),
        include_str!("../http.rs"),
    ];
    let mut seen = 0;
    for source in sources {
        for quoted in source.split('"').skip(1).step_by(2) {
            let is_code =
                quoted.len() > 3 && quoted.chars().all(|c| c.is_ascii_uppercase() || c == '_');
            if is_code {
                seen += 1;
                assert!(
                    documented.iter().any(|d| d == quoted),
                    "{quoted} is not in docs/violation-codes.md"
                );
            }
        }
    }
    assert!(seen >= 10, "only {seen} codes found in the HTTP layer");
}
