//! `Policy::from_json_slice` and `CompiledPolicy::from_json_str` on arbitrary bytes: never
//! panic; the loaders agree; a loaded policy re-serialises, re-loads to the same value and
//! hash, and compiles (or fails to) the same way after the round trip.
#![no_main]

use libfuzzer_sys::fuzz_target;
use pace_types::{CompiledPolicy, Policy};

fuzz_target!(|data: &[u8]| {
    let loaded = Policy::from_json_slice(data);
    if let Ok(text) = std::str::from_utf8(data) {
        assert_eq!(
            loaded.as_ref().ok(),
            Policy::from_json_str(text).as_ref().ok(),
            "text and byte loaders disagree"
        );
        let compiled = CompiledPolicy::from_json_str(text);
        if let Ok(c) = &compiled {
            assert_eq!(
                Some(c.policy()),
                loaded.as_ref().ok(),
                "compiled policy differs"
            );
            assert_eq!(
                c.policy_hash(),
                c.policy().policy_hash(),
                "cached hash is stale"
            );
        }
    }
    let Ok(policy) = loaded else { return };
    let hash = policy.policy_hash();
    let json = serde_json::to_vec(&policy).expect("a loaded policy serialises");
    let again = Policy::from_json_slice(&json).unwrap_or_else(|e| {
        panic!(
            "a re-serialised policy does not load: {e}\n{}",
            String::from_utf8_lossy(&json)
        )
    });
    assert_eq!(policy, again, "round trip changed the policy");
    assert_eq!(hash, again.policy_hash(), "round trip changed the hash");
    match (policy.compile(), again.compile()) {
        (Ok(a), Ok(b)) => assert_eq!(a.policy_hash(), b.policy_hash()),
        (Err(_), Err(_)) => {}
        (a, b) => panic!("compile differs after the round trip: {a:?} vs {b:?}"),
    }
});
