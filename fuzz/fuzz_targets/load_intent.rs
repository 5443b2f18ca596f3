//! `Intent::from_json_slice` on arbitrary bytes: never panics; the text and byte loaders agree;
//! a loaded intent re-serialises, re-loads to the same value and keeps its hash.
#![no_main]

use libfuzzer_sys::fuzz_target;
use pace_types::Intent;

fuzz_target!(|data: &[u8]| {
    let loaded = Intent::from_json_slice(data);
    if let Ok(text) = std::str::from_utf8(data) {
        let from_text = Intent::from_json_str(text);
        assert_eq!(
            loaded.as_ref().ok(),
            from_text.as_ref().ok(),
            "text and byte loaders disagree"
        );
    }
    let Ok(intent) = loaded else { return };
    let hash = intent.intent_hash();
    assert_eq!(hash, intent.intent_hash(), "hash is not deterministic");
    let json = serde_json::to_vec(&intent).expect("a loaded intent serialises");
    let again = Intent::from_json_slice(&json).unwrap_or_else(|e| {
        panic!(
            "a re-serialised intent does not load: {e}\n{}",
            String::from_utf8_lossy(&json)
        )
    });
    assert_eq!(intent, again, "round trip changed the intent");
    assert_eq!(hash, again.intent_hash(), "round trip changed the hash");
    let pretty = serde_json::to_vec_pretty(&intent).expect("serialises");
    assert_eq!(
        Intent::from_json_slice(&pretty).ok().as_ref(),
        Some(&intent)
    );
});
