//! Compiles `contracts/` at build time with foundry-compilers through the solcjs shim
//! `script/solc` (offline: no svm, no download), with the compiler settings of `foundry.toml`,
//! and reads the prebuilt Uniswap V2 artifacts from `node_modules/`. Both go into `OUT_DIR` as
//! compact JSON that the library embeds, so the binaries need neither node, solc nor the
//! checkout at run time.
//!
//! Needs `node_modules/` (`npm ci`, i.e. `make setup`) and `node` on the PATH; without them
//! the build fails with the fix in the message.

#[path = "../src/settings.rs"]
mod settings;
mod solidity;
mod uniswap;

use std::path::{Path, PathBuf};

/// A build failure, shown by cargo with the build script's stderr.
type Result<T> = std::result::Result<T, String>;

fn main() {
    if let Err(e) = run() {
        eprintln!("error: pace-contracts build script: {e}");
        std::process::exit(1);
    }
}

fn run() -> Result<()> {
    let manifest = PathBuf::from(env("CARGO_MANIFEST_DIR")?);
    let out = PathBuf::from(env("OUT_DIR")?);
    let root = std::fs::canonicalize(manifest.join("../..")).map_err(|e| {
        format!(
            "resolving the workspace root from {}: {e}",
            manifest.display()
        )
    })?;
    for watched in [
        "contracts",
        "foundry.toml",
        "script/solc",
        "package-lock.json",
        "node_modules/solc/package.json",
        "node_modules/@openzeppelin/contracts/package.json",
    ] {
        println!("cargo::rerun-if-changed={}", root.join(watched).display());
    }
    for (_, file) in settings::PREBUILT_FILES {
        println!("cargo::rerun-if-changed={}", root.join(file).display());
    }
    check_toolchain(&root)?;

    let contracts = solidity::compile(&root, &work_dir(&root, &out)?)?;
    write(&out.join("pace-contracts.json"), &contracts)?;
    let uniswap = uniswap::read(&root)?;
    write(&out.join("uniswap-v2.json"), &uniswap)
}

/// foundry-compilers' work directory in `out`, emptied when it was last used for another
/// checkout: a target directory shared by two clones would otherwise keep the artifacts of
/// contracts the other clone has and this one does not.
fn work_dir(root: &Path, out: &Path) -> Result<PathBuf> {
    let work = out.join("solc");
    let marker = work.join("root");
    let this = root.to_string_lossy();
    if std::fs::read_to_string(&marker).is_ok_and(|last| last != this) {
        std::fs::remove_dir_all(&work).map_err(|e| format!("emptying {}: {e}", work.display()))?;
    }
    std::fs::create_dir_all(&work).map_err(|e| format!("creating {}: {e}", work.display()))?;
    std::fs::write(&marker, this.as_bytes())
        .map_err(|e| format!("writing {}: {e}", marker.display()))?;
    Ok(work)
}

fn env(name: &str) -> Result<String> {
    std::env::var(name).map_err(|_| format!("${name} is not set (run through cargo)"))
}

/// Fails early, with the fix in the message, when the npm toolchain is not installed.
fn check_toolchain(root: &Path) -> Result<()> {
    for needed in [
        "node_modules/solc/solc.js",
        "node_modules/@openzeppelin/contracts",
        "node_modules/@uniswap/v2-core/build",
        "node_modules/@uniswap/v2-periphery/build",
        "script/solc",
    ] {
        let path = root.join(needed);
        if !path.exists() {
            return Err(format!(
                "{} does not exist: the contracts are compiled at build time with the npm \
                 toolchain; run `npm ci` (or `make setup`) in {} first",
                path.display(),
                root.display()
            ));
        }
    }
    Ok(())
}

/// One artifact as embedded: the library deserialises exactly these fields.
#[derive(serde::Serialize)]
struct Embedded {
    name: String,
    source: String,
    abi: serde_json::Value,
    bytecode: String,
    deployed_bytecode: String,
}

fn write(path: &Path, artifacts: &[Embedded]) -> Result<()> {
    let json = serde_json::to_string(artifacts).map_err(|e| format!("serialising: {e}"))?;
    std::fs::write(path, json).map_err(|e| format!("writing {}: {e}", path.display()))
}
