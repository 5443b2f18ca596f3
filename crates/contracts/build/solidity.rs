//! `contracts/` through foundry-compilers and the solcjs shim, with foundry.toml's settings.

use crate::{Embedded, Result, settings};
use foundry_compilers::{
    ConfigurableArtifacts, Project, ProjectBuilder, ProjectPathsConfig,
    artifacts::{
        BytecodeHash, BytecodeObject, ConfigurableContractArtifact, EvmVersion, Optimizer,
        Settings, SettingsMetadata, output_selection::OutputSelection, remappings::Remapping,
    },
    solc::{CliSettings, Solc, SolcCompiler, SolcSettings},
};
use std::path::Path;

/// Remappings of foundry.toml that `contracts/` needs, relative to the workspace root.
const REMAPPINGS: &[(&str, &str)] = &[(
    "@openzeppelin/contracts/",
    "node_modules/@openzeppelin/contracts/",
)];

/// Compiler outputs requested from solc: everything an artifact needs and no AST.
const OUTPUTS: &[&str] = &[
    "abi",
    "evm.bytecode.object",
    "evm.bytecode.linkReferences",
    "evm.deployedBytecode.object",
    "evm.deployedBytecode.linkReferences",
    "evm.deployedBytecode.immutableReferences",
    "evm.methodIdentifiers",
];

/// Every contract of `contracts/` and of the library sources it imports, with its source path
/// relative to `root`. `work` holds foundry-compilers' cache and artifacts.
pub(crate) fn compile(root: &Path, work: &Path) -> Result<Vec<Embedded>> {
    let project = project(root, work)?;
    let output = project
        .compile()
        .map_err(|e| format!("foundry-compilers: {e}"))?;
    if output.has_compiler_errors() {
        return Err(format!(
            "Solidity compilation failed:\n{}",
            strip_ansi(&output.to_string())
        ));
    }
    output
        .into_artifacts()
        .map(|(id, artifact)| convert(root, &id.source, id.name, artifact))
        .collect()
}

/// The foundry-compilers project: foundry.toml's compiler settings, sources `contracts/`, and
/// tests/scripts pointed at directories that do not exist (the real `tests/` import forge-std).
fn project(root: &Path, work: &Path) -> Result<Project<SolcCompiler, ConfigurableArtifacts>> {
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
        .tests(work.join("no-tests"))
        .scripts(work.join("no-scripts"))
        .artifacts(work.join("out"))
        .build_infos(work.join("out/build-info"))
        .cache(work.join("cache/solidity-files-cache.json"))
        .libs([root.join("node_modules")])
        .remappings(remappings.clone())
        .build_with_root(root);
    let settings = Settings {
        optimizer: Optimizer {
            enabled: Some(true),
            runs: Some(settings::OPTIMIZER_RUNS),
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
    let solc = Solc::new_with_version(root.join("script/solc"), settings::SOLC_VERSION);
    ProjectBuilder::<SolcCompiler, ConfigurableArtifacts>::new(Default::default())
        .paths(paths)
        .settings(SolcSettings {
            settings,
            cli_settings: CliSettings::default(),
        })
        .offline()
        .set_build_info(false)
        .build(SolcCompiler::Specific(solc))
        .map_err(|e| format!("foundry-compilers project: {e}"))
}

fn convert(
    root: &Path,
    source: &Path,
    name: String,
    artifact: ConfigurableContractArtifact,
) -> Result<Embedded> {
    let hex = |object: Option<BytecodeObject>| match object {
        None => Ok(String::from("0x")),
        Some(BytecodeObject::Bytecode(bytes)) => Ok(bytes.to_string()),
        Some(BytecodeObject::Unlinked(_)) => Err(format!(
            "contract `{name}` needs library linking, which pace-contracts does not do; make \
             the library functions internal"
        )),
    };
    let bytecode = hex(artifact.bytecode.map(|b| b.object))?;
    let deployed_bytecode = hex(artifact
        .deployed_bytecode
        .and_then(|d| d.bytecode)
        .map(|b| b.object))?;
    let abi = serde_json::to_value(artifact.abi.unwrap_or_default())
        .map_err(|e| format!("{name}: ABI: {e}"))?;
    let rel = source.strip_prefix(root).unwrap_or(source);
    Ok(Embedded {
        source: rel.to_string_lossy().replace('\\', "/"),
        abi,
        bytecode,
        deployed_bytecode,
        name,
    })
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
