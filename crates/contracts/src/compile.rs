//! Run-time compilation of `contracts/` with foundry-compilers through the solcjs shim, cached
//! under `target/pace-contracts/` and serialised between processes with a file lock.

use crate::{
    artifact::{Artifacts, ContractArtifact},
    error::{Error, Result},
    root::workspace_root,
};
use foundry_compilers::{
    ConfigurableArtifacts, Project, ProjectBuilder, ProjectPathsConfig,
    artifacts::{
        BytecodeHash, BytecodeObject, ConfigurableContractArtifact, EvmVersion, Optimizer,
        Settings, SettingsMetadata, output_selection::OutputSelection, remappings::Remapping,
    },
    solc::{CliSettings, Solc, SolcCompiler, SolcSettings},
};
use std::{
    fs::File,
    path::{Path, PathBuf},
    sync::{Mutex, OnceLock, PoisonError},
};

/// The solc version `script/solc` wraps (pinned in package.json and foundry.toml).
pub const SOLC_VERSION: semver::Version = semver::Version::new(0, 8, 30);
/// Optimizer runs, as in foundry.toml.
pub const OPTIMIZER_RUNS: usize = 10_000;
/// Directory under the workspace root that holds the artifacts, the cache file and the lock.
pub const OUT_DIR: &str = "target/pace-contracts";

/// Remappings of foundry.toml that `contracts/` needs, relative to the workspace root.
const REMAPPINGS: &[(&str, &str)] = &[(
    "@openzeppelin/contracts/",
    "node_modules/@openzeppelin/contracts/",
)];

/// Compiler outputs requested from solc: everything [`ContractArtifact`] needs and no AST.
const OUTPUTS: &[&str] = &[
    "abi",
    "evm.bytecode.object",
    "evm.bytecode.linkReferences",
    "evm.deployedBytecode.object",
    "evm.deployedBytecode.linkReferences",
    "evm.deployedBytecode.immutableReferences",
    "evm.methodIdentifiers",
];

/// The compiled contracts of this workspace, compiled (or loaded from the cache) once per
/// process. Later calls return the same value without touching the disk.
///
/// A failed attempt is not memoised: the next call tries again.
pub fn artifacts() -> Result<&'static Artifacts> {
    static CELL: OnceLock<Artifacts> = OnceLock::new();
    static INIT: Mutex<()> = Mutex::new(());
    if let Some(artifacts) = CELL.get() {
        return Ok(artifacts);
    }
    let _guard = INIT.lock().unwrap_or_else(PoisonError::into_inner);
    if let Some(artifacts) = CELL.get() {
        return Ok(artifacts);
    }
    let artifacts = compile()?;
    Ok(CELL.get_or_init(|| artifacts))
}

/// Compiles `contracts/` now, without the per-process memo of [`artifacts`]: a cache hit when
/// neither the sources nor the settings changed since the last compilation by any process.
pub fn compile() -> Result<Artifacts> {
    compile_at(&workspace_root()?)
}

/// [`compile`] for the workspace at `root`.
pub fn compile_at(root: &Path) -> Result<Artifacts> {
    // foundry-compilers reports canonical source paths; strip the same prefix from them.
    let root = &std::fs::canonicalize(root).map_err(|e| Error::io("resolving", root, e))?;
    check_toolchain(root)?;
    let out = root.join(OUT_DIR);
    std::fs::create_dir_all(&out).map_err(|e| Error::io("creating", &out, e))?;

    // One compilation at a time per workspace, across processes: foundry-compilers rewrites the
    // cache file and artifacts in place. The lock is released when `lock` is dropped.
    let lock_path = out.join(".lock");
    let lock = File::options()
        .create(true)
        .truncate(false)
        .write(true)
        .open(&lock_path)
        .map_err(|e| Error::io("opening", &lock_path, e))?;
    lock.lock()
        .map_err(|e| Error::io("locking", &lock_path, e))?;

    let project = project(root, &out)?;
    let output = project.compile()?;
    if output.has_compiler_errors() {
        return Err(Error::Compilation(strip_ansi(&output.to_string())));
    }
    let cache_hit = output.is_unchanged();
    let artifacts = output
        .into_artifacts()
        .map(|(id, artifact)| convert(root, &id.source, id.name, artifact))
        .collect::<Result<Vec<_>>>()?;
    drop(lock);
    Ok(Artifacts::new(root.to_path_buf(), artifacts, cache_hit))
}

/// Fails early, with the fix in the message, when the npm toolchain is not installed.
fn check_toolchain(root: &Path) -> Result<()> {
    for needed in [
        "node_modules/solc/solc.js",
        "node_modules/@openzeppelin/contracts",
    ] {
        let path = root.join(needed);
        if !path.exists() {
            return Err(Error::NodeModulesMissing(path));
        }
    }
    let shim = root.join("script/solc");
    if !shim.is_file() {
        return Err(Error::io(
            "finding the solc shim",
            shim,
            std::io::Error::from(std::io::ErrorKind::NotFound),
        ));
    }
    Ok(())
}

/// The foundry-compilers project: foundry.toml's compiler settings, sources `contracts/`, and
/// tests/scripts pointed at directories that do not exist (the real `tests/` import forge-std).
fn project(root: &Path, out: &Path) -> Result<Project<SolcCompiler, ConfigurableArtifacts>> {
    let remappings: Vec<Remapping> = REMAPPINGS
        .iter()
        .map(|(name, path)| Remapping {
            context: None,
            name: (*name).to_owned(),
            path: root.join(path).to_string_lossy().into_owned(),
        })
        .collect();
    let paths = ProjectPathsConfig::builder()
        .sources(root.join("contracts"))
        .tests(out.join("no-tests"))
        .scripts(out.join("no-scripts"))
        .artifacts(out.join("out"))
        .build_infos(out.join("out/build-info"))
        .cache(out.join("cache/solidity-files-cache.json"))
        .libs([root.join("node_modules")])
        .remappings(remappings.clone())
        .build_with_root(root);

    let settings = Settings {
        optimizer: Optimizer {
            enabled: Some(true),
            runs: Some(OPTIMIZER_RUNS),
            details: None,
        },
        evm_version: Some(EvmVersion::Prague),
        metadata: Some(SettingsMetadata::new(BytecodeHash::None, false)),
        remappings,
        output_selection: OutputSelection::common_output_selection(
            OUTPUTS.iter().map(|s| (*s).to_owned()),
        ),
        ..Settings::default()
    };
    let solc = Solc::new_with_version(root.join("script/solc"), SOLC_VERSION);
    Ok(
        ProjectBuilder::<SolcCompiler, ConfigurableArtifacts>::new(Default::default())
            .paths(paths)
            .settings(SolcSettings {
                settings,
                cli_settings: CliSettings::default(),
            })
            .offline()
            .set_build_info(false)
            .build(SolcCompiler::Specific(solc))?,
    )
}

fn convert(
    root: &Path,
    source: &Path,
    name: String,
    artifact: ConfigurableContractArtifact,
) -> Result<ContractArtifact> {
    let bytes = |object: Option<BytecodeObject>| match object {
        None => Ok(Default::default()),
        Some(BytecodeObject::Bytecode(bytes)) => Ok(bytes),
        Some(BytecodeObject::Unlinked(_)) => Err(Error::Unlinked(name.clone())),
    };
    let bytecode = bytes(artifact.bytecode.map(|b| b.object))?;
    let deployed_bytecode = bytes(
        artifact
            .deployed_bytecode
            .and_then(|d| d.bytecode)
            .map(|b| b.object),
    )?;
    Ok(ContractArtifact {
        source: relative(root, source),
        abi: artifact.abi.unwrap_or_default(),
        bytecode,
        deployed_bytecode,
        name,
    })
}

/// `path` relative to `root` with `/` separators when it is inside it, else as given.
fn relative(root: &Path, path: &Path) -> String {
    let rel: PathBuf = path
        .strip_prefix(root)
        .map(Path::to_path_buf)
        .unwrap_or_else(|_| path.into());
    rel.to_string_lossy().replace('\\', "/")
}

/// `text` without ANSI colour sequences (`ESC [ ... m`), which foundry-compilers puts in its
/// diagnostics even when nobody is looking at a terminal.
fn strip_ansi(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        if c == '\u{1b}' {
            for c in chars.by_ref() {
                if c.is_ascii_alphabetic() {
                    break;
                }
            }
        } else {
            out.push(c);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strips_colours() {
        let coloured =
            "Compiler run \u{1b}[31mfailed\u{1b}[0m:\n \u{1b}[34m-->\u{1b}[0m a.sol:4:38";
        assert_eq!(
            strip_ansi(coloured),
            "Compiler run failed:\n --> a.sol:4:38"
        );
    }
}
