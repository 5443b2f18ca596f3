//! A protocol named by its descriptor, the commands a user types with real documents: the
//! example descriptor of the world's Uniswap V2 (with its declared check, the factory's
//! `feeTo()` kept exactly) hashed by `pace hash --descriptor` and pinned in the world's policy
//! in place of the router; `pace policy check` reads the declared check; `pace simulate` reports
//! it for the world's swap and `pace verify` approves on that report; the same report with the
//! declared read removed is refused, and a declared view the factory does not have is named by
//! `pace policy check`. A position view with an array argument (Balancer V2's
//! `getInternalBalance(address,address[])`) hashes; a list written with a space is refused,
//! exit 2, naming the field.

use crate::{example, pace, scratch, stderr, stdout};
use serde_json::{Value, json};
use std::path::Path;

/// The world's policy with the router out of its lists and `descriptor` pinned (written beside
/// it as `v2.descriptor.json`).
fn pinned_policy(dir: &Path, descriptor: &Value) -> std::path::PathBuf {
    let file = dir.join("v2.descriptor.json");
    std::fs::write(&file, serde_json::to_string_pretty(descriptor).unwrap()).unwrap();
    let out = pace(["hash".as_ref(), "--descriptor".as_ref(), file.as_os_str()]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let hash: Value = serde_json::from_str(&stdout(&out)).unwrap();
    let out = pace(["world"]);
    let world: Value = serde_json::from_str(&stdout(&out)).unwrap();
    let router = world["addresses"]["router"]
        .as_str()
        .unwrap()
        .to_lowercase();
    let mut policy = world["policy"].clone();
    let targets: Vec<Value> = (policy["allowed_targets"].as_array().unwrap().iter())
        .filter(|t| t.as_str().unwrap().to_lowercase() != router)
        .cloned()
        .collect();
    policy["allowed_targets"] = json!(targets);
    policy["allowed_touched"] = json!([]);
    policy["protocols"] = json!([{"file": "v2.descriptor.json", "hash": hash["descriptor_hash"]}]);
    let path = dir.join("policy.json");
    std::fs::write(&path, policy.to_string()).unwrap();
    path
}

/// `pace policy check --policy P`: exit code and JSON.
fn check(policy: &Path) -> (Option<i32>, Value) {
    let out = pace([
        "policy".as_ref(),
        "check".as_ref(),
        "--policy".as_ref(),
        policy.as_os_str(),
    ]);
    let doc = serde_json::from_str(&stdout(&out))
        .unwrap_or_else(|e| panic!("policy check printed no JSON ({e}): {}", stderr(&out)));
    (out.status.code(), doc)
}

#[test]
fn a_declared_check_travels_from_the_descriptor_to_the_decision() {
    let dir = scratch("descriptor_checks");
    let descriptor: Value = serde_json::from_str(
        &std::fs::read_to_string(example("world-uniswap-v2.descriptor.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(descriptor["checks"][0]["read"]["view"], "feeTo()");
    let policy = pinned_policy(&dir, &descriptor);
    let (code, doc) = check(&policy);
    assert_eq!(code, Some(0), "{doc:#}");

    let propose: Value =
        serde_json::from_str(&std::fs::read_to_string(example("world-swap.propose.json")).unwrap())
            .unwrap();
    let intent = dir.join("swap.json");
    std::fs::write(&intent, propose["intent"].to_string()).unwrap();
    let documents = ["--intent".as_ref(), intent.as_os_str()]
        .into_iter()
        .chain(["--policy".as_ref(), policy.as_os_str()]);
    let out = pace(["simulate".as_ref()].into_iter().chain(documents.clone()));
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    let factory = descriptor["roots"][0]["address"].as_str().unwrap();
    let declared: Vec<&Value> = (report["reads"].as_array().unwrap().iter())
        .filter(|r| r["kind"] == "declared_exact")
        .collect();
    assert_eq!(declared.len(), 1, "{report:#}");
    assert_eq!(
        declared[0]["target"].as_str().unwrap().to_lowercase(),
        factory
    );
    assert_eq!(
        declared[0]["after"], "0",
        "the world's factory takes no protocol fee"
    );

    let now = (report["timestamp"].as_u64().unwrap() + 12).to_string();
    let verify = |report: &Value, name: &str| {
        let path = dir.join(name);
        std::fs::write(&path, report.to_string()).unwrap();
        let out = pace(
            ["verify".as_ref()]
                .into_iter()
                .chain(documents.clone())
                .chain(["--simulation".as_ref(), path.as_os_str()])
                .chain(["--now".as_ref(), now.as_ref()]),
        );
        let decision: Value = serde_json::from_str(&stdout(&out))
            .unwrap_or_else(|e| panic!("verify printed no decision ({e}): {}", stderr(&out)));
        (out.status.code(), decision)
    };
    let (code, decision) = verify(&report, "report.json");
    assert_eq!(code, Some(0), "{decision:#}");
    let mut stripped = report.clone();
    stripped["reads"]
        .as_array_mut()
        .unwrap()
        .retain(|r| r["kind"] != "declared_exact");
    let (code, decision) = verify(&stripped, "stripped.json");
    assert_eq!(code, Some(1), "{decision:#}");
    assert!(
        decision.to_string().contains("POSITION_UNREADABLE"),
        "{decision:#}"
    );

    // A declared view the factory does not have: named before any intent meets it.
    let mut broken = descriptor.clone();
    broken["checks"][0]["read"]["view"] = json!("feeBps()");
    let dir = scratch("descriptor_checks_broken");
    let (code, doc) = check(&pinned_policy(&dir, &broken));
    assert_eq!(code, Some(1), "{doc:#}");
    assert_eq!(
        doc["problems"][0]["field"], "protocols.uniswap-v2-world.checks[0]",
        "{doc:#}"
    );
}

#[test]
fn a_view_with_an_array_argument_is_hashed_and_a_list_with_spaces_named() {
    let dir = scratch("descriptor_arrays");
    let token = format!("0x{}{}", "00".repeat(12), "11".repeat(20));
    let mut descriptor = json!({
        "schema": 1,
        "id": "balancer-v2",
        "roots": [{"name": "vault", "address": "0xBA12222222228d8Ba445958a75a0704d566BF2C8"}],
        "positions": [{
            "root": "vault",
            "view": "getInternalBalance(address,address[])",
            "args": ["account", format!("[{token}]")],
            "word": 2,
            "token": format!("0x{}", "11".repeat(20)),
            "kind": "asset"
        }]
    });
    let file = dir.join("balancer.descriptor.json");
    let hash = |descriptor: &Value| {
        std::fs::write(&file, descriptor.to_string()).unwrap();
        pace(["hash".as_ref(), "--descriptor".as_ref(), file.as_os_str()])
    };
    let out = hash(&descriptor);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    descriptor["positions"][0]["args"][1] = json!(format!("[{token}, account]"));
    let out = hash(&descriptor);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("positions[0].args"),
        "{}",
        stderr(&out)
    );
}
