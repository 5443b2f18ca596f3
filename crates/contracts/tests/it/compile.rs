use pace_contracts::{artifacts, compile};
use std::{path::Path, time::Instant};

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
    collect_sol(&all.root().join("contracts"), &mut files);
    for file in &files {
        let rel = file
            .strip_prefix(all.root())
            .unwrap()
            .to_string_lossy()
            .replace('\\', "/");
        assert!(
            project.iter().any(|a| a.source == rel),
            "no artifact from {rel}"
        );
    }
    for artifact in &project {
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
fn a_second_compilation_is_a_cache_hit() {
    let first = artifacts().expect("compile contracts/");
    let start = Instant::now();
    // `compile` bypasses the per-process memo: this is what a fresh process does.
    let second = compile().expect("recompile");
    let elapsed = start.elapsed();
    eprintln!(
        "cached compile took {elapsed:?} (first was a cache hit: {})",
        first.cache_hit()
    );
    assert!(second.cache_hit(), "sources unchanged, yet solc ran again");
    assert!(elapsed.as_secs() < 5, "cache hit took {elapsed:?}");
    assert_eq!(
        first.ids().collect::<Vec<_>>(),
        second.ids().collect::<Vec<_>>()
    );
    for (a, b) in first.iter().zip(second.iter()) {
        assert_eq!(a, b);
    }
}

#[test]
fn concurrent_compilations_agree() {
    let handles: Vec<_> = (0..3).map(|_| std::thread::spawn(compile)).collect();
    let results: Vec<_> = handles
        .into_iter()
        .map(|h| h.join().unwrap().unwrap())
        .collect();
    for r in &results[1..] {
        assert_eq!(
            r.get("PaceAccount").unwrap(),
            results[0].get("PaceAccount").unwrap()
        );
    }
}

/// Bytecode equals forge's, for every contract under `contracts/` whose forge artifact (in
/// `$PACE_FORGE_OUT`, default `<root>/out`) has bytecode and is at least as new as the sources.
#[test]
fn bytecode_matches_forge() {
    let all = artifacts().expect("compile contracts/");
    let root = all.root();
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
