//! Loading input files, with errors that name the file.

use pace_types::{CompiledPolicy, Intent, Policy, SimulationReport, descriptor::Descriptor};
use std::{fmt, path::Path};

/// Why an input file could not be used: the file and a one-line reason.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InputError {
    /// The file, as given on the command line.
    pub file: String,
    /// What is wrong (field path and position when the JSON is at fault).
    pub message: String,
}

impl fmt::Display for InputError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", one_line(&self.file), one_line(&self.message))
    }
}

impl std::error::Error for InputError {}

fn one_line(text: &str) -> String {
    text.chars()
        .flat_map(|c| {
            if c.is_control() {
                c.escape_default().collect()
            } else {
                vec![c]
            }
        })
        .collect()
}

fn read(path: &Path) -> Result<Vec<u8>, InputError> {
    std::fs::read(path).map_err(|e| error(path, format!("cannot read: {e}")))
}

fn error(path: &Path, message: impl Into<String>) -> InputError {
    InputError {
        file: path.display().to_string(),
        message: message.into(),
    }
}

fn parse<T>(
    path: &Path,
    parse: impl FnOnce(&[u8]) -> pace_types::Result<T>,
) -> Result<T, InputError> {
    let bytes = read(path)?;
    parse(&bytes).map_err(|e| error(path, e.to_string()))
}

/// Loads and validates an intent.
pub(crate) fn intent(path: &Path) -> Result<Intent, InputError> {
    parse(path, Intent::from_json_slice)
}

/// Loads a policy, reads the descriptor files it pins (relative to its own directory) and
/// compiles it.
pub(crate) fn policy(path: &Path) -> Result<CompiledPolicy, InputError> {
    let dir = path.parent().unwrap_or(Path::new("."));
    parse(path, |bytes| {
        let mut policy = Policy::from_json_slice(bytes)?;
        policy.read_protocol_files(dir)?;
        policy.compile()
    })
}

/// Loads and validates a protocol descriptor.
pub(crate) fn descriptor(path: &Path) -> Result<Descriptor, InputError> {
    parse(path, Descriptor::from_json_slice)
}

/// Loads a simulation report.
pub(crate) fn report(path: &Path) -> Result<SimulationReport, InputError> {
    parse(path, SimulationReport::from_json_slice)
}
