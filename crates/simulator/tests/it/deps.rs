//! The trusted path links no compiler and no mock: `pace-simulator` and `pace-verifier` have no
//! normal dependency, direct or transitive, on `pace-contracts` or any `foundry-*` crate, and
//! the simulator does not depend on the verifier. Read from Cargo's resolved graph (`cargo
//! metadata`), every platform included; dev-dependencies (test fixtures) are not followed.

use serde_json::Value;
use std::collections::{BTreeMap, VecDeque};

/// Package id -> (name, the ids of its normal dependencies).
fn normal_graph() -> BTreeMap<String, (String, Vec<String>)> {
    let manifest = concat!(env!("CARGO_MANIFEST_DIR"), "/../../Cargo.toml");
    let output = std::process::Command::new(env!("CARGO"))
        .args([
            "metadata",
            "--format-version",
            "1",
            "--locked",
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
    let names: BTreeMap<&str, &str> = metadata["packages"]
        .as_array()
        .expect("packages")
        .iter()
        .map(|p| (p["id"].as_str().unwrap(), p["name"].as_str().unwrap()))
        .collect();
    metadata["resolve"]["nodes"]
        .as_array()
        .expect("a resolved graph")
        .iter()
        .map(|node| {
            let id = node["id"].as_str().unwrap();
            let deps = node["deps"]
                .as_array()
                .unwrap()
                .iter()
                .filter(|d| {
                    // `kind` is null for a normal dependency ("dev" / "build" otherwise).
                    d["dep_kinds"]
                        .as_array()
                        .unwrap()
                        .iter()
                        .any(|k| k["kind"].is_null())
                })
                .map(|d| d["pkg"].as_str().unwrap().to_owned())
                .collect();
            (id.to_owned(), (names[id].to_owned(), deps))
        })
        .collect()
}

/// Every package `root` links, each with the chain of packages that pulls it in.
fn linked(graph: &BTreeMap<String, (String, Vec<String>)>, root: &str) -> BTreeMap<String, String> {
    let start = graph
        .iter()
        .find(|(_, (name, _))| name == root)
        .unwrap_or_else(|| panic!("{root} is not in the workspace"))
        .0;
    let mut seen = BTreeMap::from([(graph[start].0.clone(), root.to_owned())]);
    let mut queue = VecDeque::from([start.clone()]);
    while let Some(id) = queue.pop_front() {
        let (name, deps) = &graph[&id];
        let chain = seen[name].clone();
        for dep in deps {
            let dep_name = &graph[dep].0;
            if !seen.contains_key(dep_name) {
                seen.insert(dep_name.clone(), format!("{chain} -> {dep_name}"));
                queue.push_back(dep.clone());
            }
        }
    }
    seen
}

#[track_caller]
fn assert_free_of(linked: &BTreeMap<String, String>, forbidden: impl Fn(&str) -> bool) {
    let found: Vec<&String> = linked
        .iter()
        .filter(|(name, _)| forbidden(name))
        .map(|(_, chain)| chain)
        .collect();
    assert!(
        found.is_empty(),
        "forbidden normal dependencies: {found:#?}"
    );
}

#[test]
fn the_trusted_path_links_no_compiler_and_no_mocks() {
    let graph = normal_graph();
    let compiler = |name: &str| name == "pace-contracts" || name.starts_with("foundry-");
    for root in ["pace-simulator", "pace-verifier"] {
        let linked = linked(&graph, root);
        // The walk sees the graph: the ABI crate is linked.
        assert!(linked.contains_key("pace-abi"), "{root}: {linked:?}");
        assert_free_of(&linked, compiler);
    }
    let simulator = linked(&graph, "pace-simulator");
    assert!(simulator.contains_key("revm"));
    assert_free_of(&simulator, |name| name == "pace-verifier");
    // The check would see a violation: the fixture crates link the compiled contracts (the
    // compiler itself only runs in pace-contracts' build script, a build dependency).
    let world = linked(&graph, "pace-world");
    assert!(world.contains_key("pace-contracts"));
    assert!(!world.contains_key("foundry-compilers"));
}
