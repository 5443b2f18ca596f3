//! The trust boundary in the dependency graph (`cargo metadata`): the pipeline, the one door
//! to the trusted core, and the service above it link neither the fixture world, nor the
//! compiled contracts, nor the compiler; the service reaches the simulator, the signer and the
//! verifier through the pipeline only. Declared dependencies are read from the manifests and
//! followed through the workspace: only normal, non-optional edges count (dev-dependencies
//! are test fixtures; an optional edge is a feature the caller turns on, such as the embedded
//! world that `pace serve` runs on by default).

use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet, VecDeque};

/// A workspace package's normal dependencies: (name, optional).
type Edges = BTreeMap<String, Vec<(String, bool)>>;

fn manifests() -> Edges {
    let manifest = concat!(env!("CARGO_MANIFEST_DIR"), "/../../Cargo.toml");
    let output = std::process::Command::new(env!("CARGO"))
        .args([
            "metadata",
            "--format-version",
            "1",
            "--no-deps",
            "--locked",
            "--offline",
            "--manifest-path",
        ])
        .arg(manifest)
        .output()
        .expect("run cargo metadata");
    assert!(
        output.status.success(),
        "cargo metadata failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    let metadata: Value = serde_json::from_slice(&output.stdout).expect("cargo metadata JSON");
    metadata["packages"]
        .as_array()
        .expect("packages")
        .iter()
        .map(|p| {
            let deps = p["dependencies"]
                .as_array()
                .expect("dependencies")
                .iter()
                // `kind` is null for a normal dependency ("dev" / "build" otherwise).
                .filter(|d| d["kind"].is_null())
                .map(|d| {
                    let name = d["name"].as_str().unwrap().to_owned();
                    (name, d["optional"].as_bool().unwrap_or(false))
                })
                .collect();
            (p["name"].as_str().unwrap().to_owned(), deps)
        })
        .collect()
}

/// Every crate `root` links without turning on an optional dependency, each with the chain
/// of workspace crates that pulls it in (external crates are leaves: the workspace's own
/// crates are what can pull in the world or the compiler).
fn required(edges: &Edges, root: &str) -> BTreeMap<String, String> {
    assert!(edges.contains_key(root), "{root} is not in the workspace");
    let mut seen = BTreeMap::from([(root.to_owned(), root.to_owned())]);
    let mut queue = VecDeque::from([root.to_owned()]);
    while let Some(name) = queue.pop_front() {
        let chain = seen[&name].clone();
        for (dep, optional) in edges.get(&name).into_iter().flatten() {
            if *optional || seen.contains_key(dep) {
                continue;
            }
            seen.insert(dep.clone(), format!("{chain} -> {dep}"));
            if edges.contains_key(dep) {
                queue.push_back(dep.clone());
            }
        }
    }
    seen
}

#[track_caller]
fn assert_free_of(linked: &BTreeMap<String, String>, forbidden: &[&str]) {
    let found: Vec<&String> = linked
        .iter()
        .filter(|(name, _)| forbidden.contains(&name.as_str()))
        .map(|(_, chain)| chain)
        .collect();
    assert!(found.is_empty(), "forbidden dependencies: {found:#?}");
}

const FIXTURES: [&str; 3] = ["pace-world", "pace-contracts", "foundry-compilers"];

#[test]
fn the_pipeline_and_the_service_link_no_fixture_world_and_no_compiler() {
    let edges = manifests();
    for root in ["pace-pipeline", "pace-service"] {
        let linked = required(&edges, root);
        // The walk sees the graph: both reach the simulator (through the pipeline).
        assert!(linked.contains_key("pace-simulator"), "{root}: {linked:?}");
        assert!(linked.contains_key("revm"), "{root}: {linked:?}");
        assert_free_of(&linked, &FIXTURES);
    }
    // The check would see a violation: the world links the compiled contracts, and the
    // service can take the world, as an optional edge the CLI turns on.
    assert!(required(&edges, "pace-world").contains_key("pace-contracts"));
    assert!(edges["pace-service"].contains(&("pace-world".to_owned(), true)));
}

#[test]
fn the_service_reaches_the_trusted_core_through_the_pipeline_only() {
    let edges = manifests();
    let direct: BTreeSet<&str> = edges["pace-service"]
        .iter()
        .map(|(name, _)| name.as_str())
        .collect();
    assert!(direct.contains("pace-pipeline"), "{direct:?}");
    for core in ["pace-simulator", "pace-signer", "pace-verifier"] {
        assert!(
            !direct.contains(core),
            "pace-service depends on {core} directly: {direct:?}"
        );
    }
}
