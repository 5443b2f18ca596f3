//! `make idempotency-bench`: what a new idempotency key costs a grant on PostgreSQL as the
//! grant's live records grow (its capacity is its rate per minute times the retention in
//! minutes: 86,400 for 60 a minute kept a day). On a server of its own (temporary directory,
//! free loopback port, stopped when it ends): at each size, the grant's records are written,
//! then 200 new keys are claimed one after another through the store (`idempotency_begin`,
//! the path every keyed request takes), and the count of the grant's live records the capacity
//! check once ran per new key is timed beside it. One line per size:
//!
//! `idempotency: held=<n> claim_p50_ms=<x> claim_p99_ms=<y> count_p50_ms=<z>`

use alloy_primitives::B256;
use pace_service::store::{IdemBegin, IdemClaim, PgStore, Store as _};
use pace_testkit::postgres::TempPostgres;
use std::time::{Duration, Instant};

/// New keys claimed at each size.
const CLAIMS: usize = 200;
/// Times the count query runs at each size.
const COUNTS: usize = 20;

fn main() -> Result<(), String> {
    let pg = TempPostgres::start()?;
    let url = pg.fresh_database("claims")?;
    let store = PgStore::connect(&url).map_err(|e| e.to_string())?;
    let (now, keep) = (1_000u64, 86_400u64);
    let mut written = 0u64;
    let mut next_key = 0u64;
    for held in [1_000u64, 10_000, 100_000] {
        store
            .execute(&format!(
                "INSERT INTO idempotency (key, at, status, body, grant_id, request_hash,
                     expires_at)
                 SELECT 'held-' || g, {now}, 200, repeat('x', 300), 'bench', 'h', {}
                 FROM generate_series({}, {held}) g",
                now + keep,
                written + 1
            ))
            .map_err(|e| e.to_string())?;
        written = held;
        store
            .execute("VACUUM ANALYZE idempotency")
            .map_err(|e| e.to_string())?;
        let mut claims = Vec::with_capacity(CLAIMS);
        for _ in 0..CLAIMS {
            next_key += 1;
            let claim = IdemClaim {
                key: B256::left_padding_from(&next_key.to_be_bytes()),
                grant: "bench".to_owned(),
                request_hash: B256::repeat_byte(1),
                now,
                expires_at: now + keep,
                capacity: u64::MAX,
            };
            let t = Instant::now();
            let begin = store
                .idempotency_begin(&claim, "bench")
                .map_err(|e| e.to_string())?;
            claims.push(t.elapsed());
            if begin != IdemBegin::Fresh {
                return Err(format!("claim {next_key}: {begin:?}"));
            }
            // Given back, so that every size is measured at its own count.
            store
                .idempotency_abandon(claim.key, "bench")
                .map_err(|e| e.to_string())?;
        }
        let mut counts = Vec::with_capacity(COUNTS);
        for _ in 0..COUNTS {
            let t = Instant::now();
            let n = store
                .scalar(&format!(
                    "SELECT count(*) FROM idempotency WHERE grant_id = 'bench' AND expires_at > {now}"
                ))
                .map_err(|e| e.to_string())?;
            counts.push(t.elapsed());
            if u64::try_from(n).ok() != Some(held) {
                return Err(format!("{n} records counted, {held} written"));
            }
        }
        println!(
            "idempotency: held={held} claim_p50_ms={:.2} claim_p99_ms={:.2} count_p50_ms={:.2}",
            ms(quantile(&mut claims, 50)),
            ms(quantile(&mut claims, 99)),
            ms(quantile(&mut counts, 50)),
        );
    }
    Ok(())
}

/// The `q`th percentile of `samples` (nearest rank).
fn quantile(samples: &mut [Duration], q: usize) -> Duration {
    samples.sort();
    let rank = (samples.len() * q).div_ceil(100).max(1);
    samples[rank - 1]
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1_000.0
}
