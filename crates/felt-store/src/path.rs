//! Where the books live: `--db PATH`, else `FELT_DB`, else the user's data directory.

use crate::error::{Result, StoreError};
use std::path::{Path, PathBuf};

/// The environment variable that overrides the database path.
pub const DB_ENV: &str = "FELT_DB";

/// The database's file name inside the data directory.
pub const DB_FILE_NAME: &str = "felt.db";

/// The default database path: `FELT_DB` if it is set and not empty, else `felt.db` in
/// the user's data directory (`$XDG_DATA_HOME/felt` or `~/.local/share/felt` on Linux,
/// `~/Library/Application Support/felt` on macOS, `%APPDATA%\felt\data` on Windows).
pub fn default_db_path() -> Result<PathBuf> {
    resolve_db_path(None)
}

/// The database path for a caller: `cli` (`--db PATH`) if given, else `FELT_DB` if it is
/// set and not empty, else the data directory's `felt.db`.
pub fn resolve_db_path(cli: Option<&Path>) -> Result<PathBuf> {
    let env = std::env::var_os(DB_ENV);
    resolve_with(cli, env.as_deref().map(Path::new), data_dir().as_deref())
}

pub(crate) fn data_dir() -> Option<PathBuf> {
    directories::ProjectDirs::from("", "", "felt").map(|d| d.data_dir().to_path_buf())
}

/// The rule itself, without the process environment (tested on its own).
pub(crate) fn resolve_with(
    cli: Option<&Path>,
    env: Option<&Path>,
    data_dir: Option<&Path>,
) -> Result<PathBuf> {
    if let Some(p) = cli {
        return Ok(p.to_path_buf());
    }
    if let Some(p) = env.filter(|p| !p.as_os_str().is_empty()) {
        return Ok(p.to_path_buf());
    }
    data_dir
        .map(|d| d.join(DB_FILE_NAME))
        .ok_or(StoreError::NoDataDir)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cli_beats_env_beats_data_dir() {
        let cli = Path::new("/a/cli.db");
        let env = Path::new("/b/env.db");
        let dir = Path::new("/c");
        assert_eq!(resolve_with(Some(cli), Some(env), Some(dir)).unwrap(), cli);
        assert_eq!(resolve_with(None, Some(env), Some(dir)).unwrap(), env);
        assert_eq!(
            resolve_with(None, Some(Path::new("")), Some(dir)).unwrap(),
            dir.join(DB_FILE_NAME)
        );
        assert_eq!(
            resolve_with(None, None, Some(dir)).unwrap(),
            dir.join(DB_FILE_NAME)
        );
        assert!(matches!(
            resolve_with(None, None, None),
            Err(StoreError::NoDataDir)
        ));
    }

    #[test]
    fn default_path_is_absolute_or_from_env() {
        // Whatever the environment, the function answers without panicking.
        if let Ok(p) = default_db_path() {
            assert!(!p.as_os_str().is_empty());
        }
    }
}
