//! The build-time compilation: complete, embedded, and identical to forge's output.

use pace_contracts::artifacts;
use std::path::{Path, PathBuf};

/// The checkout the build script compiled (tests may read it; the library never does).
fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

#[test]
fn every_contract_under_contracts_compiles_to_bytecode() {
    let all = artifacts().expect("compile contracts/");
    let project: Vec<_> = all.project_contracts().collect();
    for name in [
        "PaceAccount",
        "IPaceAccount",
        "PdrHash",
        "PdrTerms",
        "MockERC20",
        "ReferenceAccount",
    ] {
        all.get(name).unwrap_or_else(|e| panic!("{name}: {e}"));
    }
    // Every .sol file under contracts/ produced at least one artifact.
    let mut files = Vec::new();
    let root = root();
    collect_sol(&root.join("contracts"), &mut files);
    for file in &files {
        let rel = file
            .strip_prefix(&root)
            .unwrap()
            .to_string_lossy()
            .replace('\\', "/");
        assert!(
            project.iter().any(|a| a.source == rel),
            "no artifact from {rel}"
        );
    }
    for artifact in &project {
        // An abstract contract (the enforcement core, the state the accounts and the
        // delegate's module share) has no bytecode of its own: the contracts that inherit it do.
        let source = std::fs::read_to_string(root.join(&artifact.source)).unwrap();
        if source.contains(&format!("abstract contract {} ", artifact.name)) {
            assert!(
                artifact.bytecode.is_empty(),
                "{} is abstract",
                artifact.id()
            );
            continue;
        }
        if artifact.source.starts_with("contracts/interfaces/") {
            assert!(
                artifact.bytecode.is_empty(),
                "{} is an interface",
                artifact.id()
            );
            continue;
        }
        assert!(
            !artifact.bytecode.is_empty(),
            "{} has no creation code",
            artifact.id()
        );
        assert!(
            !artifact.deployed_bytecode.is_empty(),
            "{} has no runtime code",
            artifact.id()
        );
    }
}

fn collect_sol(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            collect_sol(&path, out);
        } else if path.extension().is_some_and(|e| e == "sol") {
            out.push(path);
        }
    }
}

#[test]
fn artifacts_are_parsed_once_and_shared_between_threads() {
    let first: &'static _ = artifacts().unwrap();
    let handles: Vec<_> = (0..3).map(|_| std::thread::spawn(artifacts)).collect();
    for h in handles {
        let other = h.join().unwrap().unwrap();
        assert!(std::ptr::eq(first, other), "parsed again");
    }
    assert!(
        first.ids().count() >= 20,
        "{:?}",
        first.ids().collect::<Vec<_>>()
    );
}

/// Bytecode equals forge's, for every contract under `contracts/` whose forge artifact (in
/// `$PACE_FORGE_OUT`, default `<root>/out`) has bytecode and is at least as new as the sources.
#[test]
fn bytecode_matches_forge() {
    let all = artifacts().expect("compile contracts/");
    let root = &root();
    let forge_out = std::env::var_os("PACE_FORGE_OUT").map_or_else(|| root.join("out"), Into::into);
    let mut sources = Vec::new();
    collect_sol(&root.join("contracts"), &mut sources);
    let newest_source = sources
        .iter()
        .map(|s| std::fs::metadata(s).and_then(|m| m.modified()).unwrap())
        .max()
        .unwrap();
    let mut compared = Vec::new();
    for ours in all.project_contracts().filter(|a| a.is_deployable()) {
        let file = Path::new(&ours.source).file_name().unwrap();
        let json_path = forge_out.join(file).join(format!("{}.json", ours.name));
        let Ok(modified) = std::fs::metadata(&json_path).and_then(|m| m.modified()) else {
            continue;
        };
        if modified < newest_source {
            continue;
        }
        let json: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&json_path).unwrap()).unwrap();
        let (Some(creation), Some(runtime)) = (
            json["bytecode"]["object"].as_str(),
            json["deployedBytecode"]["object"].as_str(),
        ) else {
            continue; // forge wrote an ABI-only artifact (sparse output)
        };
        let hex = |s: &str| alloy_primitives::hex::decode(s).unwrap();
        assert_eq!(
            ours.bytecode.as_ref(),
            hex(creation).as_slice(),
            "{}: creation code differs from forge's",
            ours.id()
        );
        assert_eq!(
            ours.deployed_bytecode.as_ref(),
            hex(runtime).as_slice(),
            "{}: runtime code differs from forge's",
            ours.id()
        );
        compared.push(ours.name.clone());
    }
    if compared.is_empty() {
        eprintln!(
            "skipped: no fresh forge artifacts with bytecode in {} (run `forge build`)",
            forge_out.display()
        );
    } else {
        eprintln!("bytecode identical to forge's for {compared:?}");
    }
}

#[test]
fn no_cbor_metadata_is_appended() {
    let account = artifacts().unwrap().get("PaceAccount").unwrap();
    // With metadata the runtime code ends in `a2/a1 64 ... 00 33`-style CBOR and its length.
    let code = &account.deployed_bytecode;
    let tail = u16::from_be_bytes([code[code.len() - 2], code[code.len() - 1]]) as usize;
    assert!(tail + 2 > code.len() || !matches!(code[code.len() - 2 - tail], 0xa1 | 0xa2));
}
