//! Which books a command opens: an SQLite file, or a PostgreSQL database shared by
//! several servers, told apart by the `--db` value (`postgres://...` or a path).

use crate::error::{Result, StoreError};
use crate::path::resolve_with;
use crate::{SqliteStore, Store, DB_ENV};
use std::path::PathBuf;

/// Where the books are.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BooksAt {
    /// An SQLite file (created on first use).
    Sqlite(PathBuf),
    /// A PostgreSQL database, by its URL (`postgres://user:password@host:port/db`).
    Postgres(String),
}

impl BooksAt {
    /// A `--db` value: a `postgres://` (or `postgresql://`) URL, else a file path.
    pub fn parse(value: &str) -> BooksAt {
        if value.starts_with("postgres://") || value.starts_with("postgresql://") {
            BooksAt::Postgres(value.to_string())
        } else {
            BooksAt::Sqlite(PathBuf::from(value))
        }
    }
}

impl BooksAt {
    /// The `--db` value that names these books (with the password: for a child
    /// process, never for a log).
    pub fn db_value(&self) -> String {
        match self {
            BooksAt::Sqlite(p) => p.display().to_string(),
            BooksAt::Postgres(url) => url.clone(),
        }
    }
}

impl std::fmt::Display for BooksAt {
    /// The path, or the URL without its password.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            BooksAt::Sqlite(p) => write!(f, "{}", p.display()),
            BooksAt::Postgres(url) => f.write_str(&hide_password(url)),
        }
    }
}

/// `postgres://user:secret@host/db` as `postgres://user:***@host/db`.
fn hide_password(url: &str) -> String {
    let Some((scheme, rest)) = url.split_once("://") else {
        return url.to_string();
    };
    let Some((auth, host)) = rest.rsplit_once('@') else {
        return url.to_string();
    };
    match auth.split_once(':') {
        Some((user, _)) => format!("{scheme}://{user}:***@{host}"),
        None => url.to_string(),
    }
}

/// The books for a command: `cli` (its `--db` value) if given, else `FELT_DB` if it is
/// set and not empty, else the data directory's `felt.db`.
pub fn resolve_books(cli: Option<&str>) -> Result<BooksAt> {
    if let Some(v) = cli {
        return Ok(BooksAt::parse(v));
    }
    let env = std::env::var(DB_ENV).ok().filter(|v| !v.is_empty());
    if let Some(v) = env {
        return Ok(BooksAt::parse(&v));
    }
    let data = directories::ProjectDirs::from("", "", "felt").map(|d| d.data_dir().to_path_buf());
    resolve_with(None, None, data.as_deref()).map(BooksAt::Sqlite)
}

/// Opens the books for reading and writing (creating SQLite books on first use).
pub fn open_books(at: &BooksAt) -> Result<Box<dyn Store + Send>> {
    match at {
        BooksAt::Sqlite(p) => Ok(Box::new(SqliteStore::open(p)?)),
        BooksAt::Postgres(_) => Err(no_postgres(at)),
    }
}

/// Opens the books for reading only.
pub fn open_books_read_only(at: &BooksAt) -> Result<Box<dyn Store + Send>> {
    match at {
        BooksAt::Sqlite(p) => Ok(Box::new(SqliteStore::open_read_only(p)?)),
        BooksAt::Postgres(_) => Err(no_postgres(at)),
    }
}

fn no_postgres(at: &BooksAt) -> StoreError {
    StoreError::InvalidInput(format!(
        "the books at {at} are a PostgreSQL database, which this build of felt cannot open yet"
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_url_is_postgres_and_anything_else_a_file() {
        assert_eq!(
            BooksAt::parse("postgres://felt@db/felt"),
            BooksAt::Postgres("postgres://felt@db/felt".into())
        );
        assert!(matches!(
            BooksAt::parse("postgresql://h/d"),
            BooksAt::Postgres(_)
        ));
        assert_eq!(
            BooksAt::parse("books/felt.db"),
            BooksAt::Sqlite("books/felt.db".into())
        );
    }

    #[test]
    fn the_password_is_never_shown() {
        let at = BooksAt::parse("postgres://felt:s3cret@db:5432/felt");
        assert_eq!(at.to_string(), "postgres://felt:***@db:5432/felt");
        assert!(!format!("{at:?}").is_empty());
        assert_eq!(
            BooksAt::parse("postgres://db/felt").to_string(),
            "postgres://db/felt"
        );
    }
}
