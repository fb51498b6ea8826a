//! Bad input and bad states: each is a typed error that says what is wrong and what to
// Amounts are written as dollars_cents (100_00 is 100.00).
#![allow(clippy::inconsistent_digit_grouping)]
//! do, never a panic, and nothing already committed is lost.

use felt_core::Money;
use felt_store::{Account, OpenOptions, SqliteStore, Store, StoreError};
use std::path::Path;
use std::time::{Duration, Instant};

fn c(cents: i64) -> Money {
    Money::cents(cents)
}

fn says(e: &StoreError, path: &Path, words: &[&str]) {
    let msg = e.to_string();
    assert!(
        msg.contains(&path.display().to_string()),
        "no path in: {msg}"
    );
    for w in words {
        assert!(msg.contains(w), "`{w}` missing in: {msg}");
    }
}

#[test]
fn a_garbage_file_is_not_a_database_and_is_left_alone() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("felt.db");
    let garbage: Vec<u8> = (0..8192u32)
        .map(|i| (i.wrapping_mul(2_654_435_761) >> 7) as u8)
        .collect();
    std::fs::write(&path, &garbage).unwrap();
    let e = SqliteStore::open(&path).unwrap_err();
    assert!(matches!(e, StoreError::NotADatabase { .. }), "{e}");
    says(
        &e,
        &path,
        &["not a felt database", "point felt at another database"],
    );
    assert_eq!(
        std::fs::read(&path).unwrap(),
        garbage,
        "the file is untouched"
    );
    let e = SqliteStore::open_read_only(&path).unwrap_err();
    assert!(matches!(e, StoreError::NotADatabase { .. }), "{e}");
    // A text file too.
    std::fs::write(
        &path,
        "these are not the books you are looking for\n".repeat(50),
    )
    .unwrap();
    let e = SqliteStore::open(&path).unwrap_err();
    assert!(matches!(e, StoreError::NotADatabase { .. }), "{e}");
}

#[test]
fn a_foreign_sqlite_database_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    // Unknown tables, no application id.
    let path = dir.path().join("other.db");
    {
        let conn = rusqlite::Connection::open(&path).unwrap();
        conn.execute_batch("CREATE TABLE users (id INTEGER PRIMARY KEY, name TEXT); INSERT INTO users (name) VALUES ('x');")
            .unwrap();
    }
    let e = SqliteStore::open(&path).unwrap_err();
    assert!(matches!(e, StoreError::ForeignDatabase { .. }), "{e}");
    says(
        &e,
        &path,
        &["another program", "users", "point felt at another database"],
    );
    let conn = rusqlite::Connection::open(&path).unwrap();
    let n: i64 = conn
        .query_row("SELECT COUNT(*) FROM users", [], |r| r.get(0))
        .unwrap();
    assert_eq!(n, 1, "the foreign data is untouched");
    let tables: i64 = conn
        .query_row(
            "SELECT COUNT(*) FROM sqlite_master WHERE type = 'table'",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(tables, 1, "felt created no table in it");

    // Another application id, even with no table.
    let path = dir.path().join("appid.db");
    {
        let conn = rusqlite::Connection::open(&path).unwrap();
        conn.pragma_update(None, "application_id", 0x1234_5678)
            .unwrap();
    }
    let e = SqliteStore::open(&path).unwrap_err();
    assert!(matches!(e, StoreError::ForeignDatabase { .. }), "{e}");
    says(&e, &path, &["0x12345678"]);
}

#[test]
fn a_database_from_a_newer_felt_is_refused_untouched() {
    const NEWER: i64 = felt_store::sqlite::schema::LATEST + 1;
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("felt.db");
    {
        let mut s = SqliteStore::open(&path).unwrap();
        s.deposit("alice", c(12_34)).unwrap();
    }
    {
        let conn = rusqlite::Connection::open(&path).unwrap();
        conn.pragma_update(None, "user_version", NEWER).unwrap();
    }
    let e = SqliteStore::open(&path).unwrap_err();
    match &e {
        StoreError::NewerSchema { found, known, .. } => {
            assert_eq!(
                (*found, *known),
                (NEWER, felt_store::sqlite::schema::LATEST)
            )
        }
        other => panic!("expected NewerSchema, got {other}"),
    }
    says(
        &e,
        &path,
        &[
            "newer felt",
            &format!(
                "schema {NEWER}, this felt knows {}",
                felt_store::sqlite::schema::LATEST
            ),
            "upgrade felt",
            "point felt at another database",
        ],
    );
    let e = SqliteStore::open_read_only(&path).unwrap_err();
    assert!(matches!(e, StoreError::NewerSchema { .. }), "{e}");
    // Back to the known version: everything is there.
    {
        let conn = rusqlite::Connection::open(&path).unwrap();
        conn.pragma_update(None, "user_version", felt_store::sqlite::schema::LATEST)
            .unwrap();
    }
    let s = SqliteStore::open(&path).unwrap();
    assert_eq!(s.balance(&Account::player("alice")).unwrap(), c(12_34));
}

#[test]
fn a_lock_held_past_the_busy_timeout_is_reported_and_nothing_is_lost() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("felt.db");
    let opts = OpenOptions {
        busy_timeout: Duration::from_millis(150),
        ..OpenOptions::default()
    };
    let mut s = SqliteStore::open_with(&path, &opts).unwrap();
    s.deposit("alice", c(10_00)).unwrap();

    let other = rusqlite::Connection::open(&path).unwrap();
    other.execute_batch("BEGIN IMMEDIATE").unwrap();
    let t = Instant::now();
    let e = s.deposit("alice", c(5_00)).unwrap_err();
    assert!(
        t.elapsed() >= Duration::from_millis(100),
        "it waited for the lock"
    );
    assert!(
        matches!(e, StoreError::Locked { waited_ms: 150, .. }),
        "{e}"
    );
    says(&e, &path, &["locked by another process", "try again"]);
    // Reads still work while another process writes (WAL).
    assert_eq!(s.balance(&Account::player("alice")).unwrap(), c(10_00));
    // Opening a second store on the locked file works too (no migration needed).
    let s2 = SqliteStore::open_with(&path, &opts).unwrap();
    assert_eq!(s2.balance(&Account::player("alice")).unwrap(), c(10_00));
    other.execute_batch("ROLLBACK").unwrap();

    s.deposit("alice", c(5_00)).unwrap();
    assert_eq!(s.balance(&Account::player("alice")).unwrap(), c(15_00));
    assert!(s.check_books().unwrap().is_sound());
}

#[test]
fn a_read_only_store_refuses_writes() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("felt.db");
    {
        let mut s = SqliteStore::open(&path).unwrap();
        s.deposit("alice", c(7_00)).unwrap();
    }
    let mut ro = SqliteStore::open_read_only(&path).unwrap();
    let e = ro.deposit("alice", c(1)).unwrap_err();
    assert!(matches!(e, StoreError::ReadOnly { .. }), "{e}");
    says(
        &e,
        &path,
        &[
            "cannot be written",
            "permissions",
            "point felt at a writable database",
        ],
    );
    assert_eq!(ro.balance(&Account::player("alice")).unwrap(), c(7_00));
    assert!(ro.check_books().unwrap().is_sound());
    // A missing file cannot be opened read-only.
    let e = SqliteStore::open_read_only(dir.path().join("missing.db")).unwrap_err();
    assert!(matches!(e, StoreError::CannotOpen { .. }), "{e}");
}

#[cfg(unix)]
#[test]
fn a_read_only_file_refuses_writes_where_permissions_bite() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("felt.db");
    {
        let mut s = SqliteStore::open(&path).unwrap();
        s.deposit("alice", c(7_00)).unwrap();
    }
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o444)).unwrap();
    // Root ignores file permissions: then only check that nothing breaks.
    let bites = std::fs::OpenOptions::new().write(true).open(&path).is_err();
    match SqliteStore::open(&path) {
        Ok(mut s) => {
            let r = s.deposit("alice", c(1));
            if bites {
                let e = r.unwrap_err();
                assert!(matches!(e, StoreError::ReadOnly { .. }), "{e}");
                says(&e, &path, &["cannot be written"]);
            }
            let expect = if bites { c(7_00) } else { c(7_01) };
            assert_eq!(s.balance(&Account::player("alice")).unwrap(), expect);
        }
        Err(e) => {
            assert!(bites, "opened as root must work: {e}");
            assert!(
                matches!(
                    e,
                    StoreError::ReadOnly { .. } | StoreError::CannotOpen { .. }
                ),
                "{e}"
            );
        }
    }
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o644)).unwrap();
}

#[test]
fn a_directory_is_not_a_database_file() {
    let dir = tempfile::tempdir().unwrap();
    let e = SqliteStore::open(dir.path()).unwrap_err();
    assert!(matches!(e, StoreError::CannotOpen { .. }), "{e}");
    says(
        &e,
        dir.path(),
        &["cannot open", "point felt at another database"],
    );
}
