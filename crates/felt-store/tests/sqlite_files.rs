//! SQLite books in their file: migrations from an empty file and re-opens that migrate
//! nothing.

use felt_core::Money;
use felt_store::{Account, SqliteStore, Store};

fn c(cents: i64) -> Money {
    Money::cents(cents)
}

fn assert_sound(store: &SqliteStore) {
    let report = store.check_books().expect("check_books");
    assert!(report.is_sound(), "{report}");
}

#[test]
fn migrations_from_an_empty_file_and_idempotent_reopen() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("empty.db");
    std::fs::write(&path, b"").unwrap(); // a zero-byte file is an empty database
    {
        let store = SqliteStore::open(&path).unwrap();
        let latest = felt_store::sqlite::schema::LATEST;
        assert_eq!(store.schema_version().unwrap(), latest);
        let m = store.migrations().unwrap();
        let versions: Vec<i64> = m.iter().map(|m| m.version).collect();
        assert_eq!(versions, (1..=latest).collect::<Vec<_>>());
        assert!(!m[0].applied_at.is_empty());
    }
    let before = {
        let mut store = SqliteStore::open(&path).unwrap();
        store.deposit("alice", c(500)).unwrap();
        store.migrations().unwrap()
    };
    for _ in 0..3 {
        let store = SqliteStore::open(&path).unwrap();
        assert_eq!(
            store.migrations().unwrap(),
            before,
            "re-open migrates nothing"
        );
        assert_eq!(store.balance(&Account::player("alice")).unwrap(), c(500));
        assert_sound(&store);
    }
    let ro = SqliteStore::open_read_only(&path).unwrap();
    assert_eq!(ro.balance(&Account::player("alice")).unwrap(), c(500));
}
