//! Integration tests: run the built `pace` binary on the examples and on bad input.

mod admin;
mod delegate;
mod deploy;
mod descriptor_checks;
mod errors;
mod examples;
mod https;
mod portable;
mod position;
// The protocols test bed on anvil through `pace run --rpc`.
mod protocols;
mod run;
mod safe;
mod seams;
mod serve;
mod serve_rpc;
mod store;

use std::{
    path::{Path, PathBuf},
    process::{Command, Output},
};

/// The decision time of the examples (one block after the simulated one).
pub(crate) const NOW: &str = "1764460812";

pub(crate) fn examples_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../examples")
}

pub(crate) fn example(name: &str) -> PathBuf {
    examples_dir().join(name)
}

/// A fresh scratch directory for this test.
pub(crate) fn scratch(test: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join("pace-cli")
        .join(test);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

pub(crate) fn pace<I, S>(args: I) -> Output
where
    I: IntoIterator<Item = S>,
    S: AsRef<std::ffi::OsStr>,
{
    Command::new(env!("CARGO_BIN_EXE_pace"))
        .args(args)
        .output()
        .expect("the pace binary runs")
}

/// `pace verify` with the example policy.
pub(crate) fn verify(intent: &Path, simulation: Option<&Path>, now: Option<&str>) -> Output {
    let mut args = vec![
        "verify".into(),
        "--policy".into(),
        example("policy.json").into_os_string(),
    ];
    args.extend(["--intent".into(), intent.as_os_str().to_owned()]);
    if let Some(sim) = simulation {
        args.extend(["--simulation".into(), sim.as_os_str().to_owned()]);
    }
    if let Some(now) = now {
        args.extend(["--now".into(), now.into()]);
    }
    pace(args)
}

pub(crate) fn stdout(out: &Output) -> String {
    String::from_utf8(out.stdout.clone()).unwrap()
}

pub(crate) fn stderr(out: &Output) -> String {
    String::from_utf8(out.stderr.clone()).unwrap()
}
