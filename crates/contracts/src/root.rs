//! Finding the workspace root: the directory holding `foundry.toml` and `contracts/`.

use crate::error::{Error, Result};
use std::path::{Path, PathBuf};

/// Environment variable that overrides the workspace root search.
pub const ROOT_ENV: &str = "PACE_ROOT";

/// The workspace root: the directory that holds `foundry.toml` and `contracts/`.
///
/// Search order: `$PACE_ROOT` (taken as is, but it must hold `foundry.toml`); then the first
/// ancestor holding both of `$CARGO_MANIFEST_DIR` (set by cargo when it runs tests and binaries),
/// of the current directory, and of this crate's own source directory as it was at build time.
pub fn workspace_root() -> Result<PathBuf> {
    if let Some(root) = std::env::var_os(ROOT_ENV) {
        let root = PathBuf::from(root);
        return if root.join("foundry.toml").is_file() {
            Ok(root)
        } else {
            Err(Error::RootNotFound {
                searched: format!("{ROOT_ENV}={}", root.display()),
            })
        };
    }
    let mut starts: Vec<PathBuf> = Vec::new();
    if let Some(dir) = std::env::var_os("CARGO_MANIFEST_DIR") {
        starts.push(dir.into());
    }
    if let Ok(dir) = std::env::current_dir() {
        starts.push(dir);
    }
    starts.push(PathBuf::from(env!("CARGO_MANIFEST_DIR")));
    starts
        .iter()
        .find_map(|start| find_up(start))
        .ok_or_else(|| Error::RootNotFound {
            searched: starts
                .iter()
                .map(|p| p.display().to_string())
                .collect::<Vec<_>>()
                .join("; "),
        })
}

fn find_up(start: &Path) -> Option<PathBuf> {
    start
        .ancestors()
        .find(|dir| dir.join("foundry.toml").is_file() && dir.join("contracts").is_dir())
        .map(Path::to_path_buf)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_the_workspace_from_this_crate() {
        let root = find_up(Path::new(env!("CARGO_MANIFEST_DIR"))).unwrap();
        assert!(root.join("contracts/PaceAccount.sol").is_file());
        assert!(find_up(Path::new("/")).is_none());
    }
}
