//! Two (or more) sessions opening books that do not exist yet: creation and its
//! inspection are one transaction, so every opener either creates the books or waits
//! and opens the books another one created; a read-only inspector that finds the file
//! being created waits for it. None of them sees a half-made file ("locked",
//! "belongs to another program", "damaged").

use felt_store::sqlite::schema::LATEST;
use felt_store::{SqliteStore, Store};
use std::path::Path;
use std::sync::{Arc, Barrier};

/// How many fresh books each test creates: the race is narrow, so it is run many times.
const TRIES: usize = 30;

/// Opens `path` for writing from `creators` threads and for reading from `inspectors`
/// threads, all released at once; returns every failure.
fn race(path: &Path, creators: usize, inspectors: usize) -> Vec<String> {
    let barrier = Arc::new(Barrier::new(creators + inspectors));
    let mut handles = Vec::new();
    for i in 0..creators + inspectors {
        let (barrier, path) = (barrier.clone(), path.to_path_buf());
        handles.push(std::thread::spawn(move || -> Result<(), String> {
            barrier.wait();
            if i < creators {
                let mut s = SqliteStore::open(&path).map_err(|e| format!("creator: {e}"))?;
                s.deposit(&format!("p{i}"), felt_core::Money::cents(100))
                    .map_err(|e| format!("creator's deposit: {e}"))?;
            } else {
                // An inspector looks once the file is there (before, "no such file" is
                // the right answer): a file being created is waited for.
                while !path.exists() {
                    std::thread::yield_now();
                }
                let s =
                    SqliteStore::open_read_only(&path).map_err(|e| format!("inspector: {e}"))?;
                let v = s.schema_version().map_err(|e| format!("inspector: {e}"))?;
                if v != LATEST {
                    return Err(format!("inspector: schema {v}"));
                }
                s.check_books().map_err(|e| format!("inspector: {e}"))?;
            }
            Ok(())
        }));
    }
    handles
        .into_iter()
        .filter_map(|h| h.join().expect("no panic").err())
        .collect()
}

#[test]
fn concurrent_creators_of_new_books_all_open_them() {
    let dir = tempfile::tempdir().unwrap();
    for t in 0..TRIES {
        let path = dir.path().join(format!("q{t}.db"));
        let failures = race(&path, 4, 0);
        assert!(failures.is_empty(), "try {t}: {failures:#?}");
        let s = SqliteStore::open_read_only(&path).unwrap();
        assert_eq!(
            s.migrations().unwrap().len() as i64,
            LATEST,
            "each migration applied once"
        );
        assert_eq!(s.balances().unwrap().len(), 5, "4 players and the cashier");
        assert!(s.check_books().unwrap().is_sound());
    }
}

#[test]
fn an_inspector_of_books_being_created_waits_for_them() {
    let dir = tempfile::tempdir().unwrap();
    for t in 0..TRIES {
        let path = dir.path().join(format!("q{t}.db"));
        let failures = race(&path, 2, 3);
        assert!(failures.is_empty(), "try {t}: {failures:#?}");
    }
}

#[test]
fn an_empty_file_is_books_not_yet_made_not_damaged_books() {
    use felt_store::{OpenOptions, StoreError};
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("empty.db");
    std::fs::write(&path, b"").unwrap();
    let e = SqliteStore::open_with(
        &path,
        &OpenOptions {
            read_only: true,
            busy_timeout: std::time::Duration::from_millis(200),
        },
    )
    .unwrap_err();
    assert!(matches!(e, StoreError::NoBooksYet { .. }), "{e}");
    let msg = e.to_string();
    assert!(
        msg.contains("holds no books yet") && msg.contains("felt play"),
        "{msg}"
    );
    assert!(!msg.contains("damaged"), "{msg}");
    assert_eq!(std::fs::metadata(&path).unwrap().len(), 0, "left as it was");
    // A writer makes books of it.
    SqliteStore::open(&path).unwrap();
    SqliteStore::open_read_only(&path).unwrap();
}
