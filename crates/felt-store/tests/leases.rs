//! Table leases and the fence, on SQLite (the conformance suite runs the same on
//! PostgreSQL).

use felt_store::{NewRound, SqliteStore, Step, Store, StoreError};

fn round(table: &str) -> NewRound {
    NewRound {
        game_id: "classic".into(),
        table_id: table.into(),
        seed: [3; 32],
        ..Default::default()
    }
}

#[test]
fn a_table_is_held_by_one_server_until_its_lease_expires_then_changes_hands() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("felt.db");
    let mut a = SqliteStore::open(&path).unwrap();
    let mut b = SqliteStore::open(&path).unwrap();
    let held = a
        .claim_tables("a", "http://a", &["t1", "t2"], 60_000)
        .unwrap();
    assert_eq!(held.len(), 2);
    assert!(held
        .iter()
        .all(|l| l.server == "a" && l.epoch == 1 && l.live));
    // B cannot take a live lease; A renews its own without a new epoch.
    assert!(b
        .claim_tables("b", "http://b", &["t1", "t2"], 60_000)
        .unwrap()
        .is_empty());
    let renewed = a.claim_tables("a", "http://a", &["t1"], 60_000).unwrap();
    assert_eq!(renewed[0].epoch, 1);
    // A's leases lapse (a 1 ms lease): B takes the tables, and the epoch rises.
    a.claim_tables("a", "http://a", &["t1", "t2"], 1).unwrap();
    std::thread::sleep(std::time::Duration::from_millis(5));
    let taken = b
        .claim_tables("b", "http://b", &["t1", "t2"], 60_000)
        .unwrap();
    assert_eq!(taken.len(), 2);
    assert!(taken.iter().all(|l| l.server == "b" && l.epoch == 2));
    let all = a.table_leases().unwrap();
    assert_eq!(all.len(), 2);
    assert!(all
        .iter()
        .all(|l| l.server == "b" && l.url == "http://b" && l.live));
    // A release lets the other take the table at once.
    b.release_tables("b", &["t2"]).unwrap();
    let back = a.claim_tables("a", "http://a", &["t2"], 60_000).unwrap();
    assert_eq!((back[0].server.as_str(), back[0].epoch), ("a", 3));
}

#[test]
fn a_server_that_lost_a_table_cannot_write_its_rounds() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("felt.db");
    let mut a = SqliteStore::open(&path).unwrap();
    let mut b = SqliteStore::open(&path).unwrap();
    a.fence(Some("a"));
    b.fence(Some("b"));
    a.claim_tables("a", "http://a", &["t1"], 1).unwrap();
    let r = a.begin_round(&round("t1")).unwrap();
    let step = Step {
        action: Some(r#"{"deal":1}"#.into()),
        events: vec![r#"{"dealt":1}"#.into()],
        movements: vec![],
        wallet: Vec::new(),
    };
    assert_eq!(a.record_step(r, &step).unwrap(), 1);
    // B may not write A's table while A holds it.
    assert!(matches!(
        b.record_step(r, &step),
        Err(StoreError::LeaseLost { ref holder, .. }) if holder == "a"
    ));
    std::thread::sleep(std::time::Duration::from_millis(5));
    b.claim_tables("b", "http://b", &["t1"], 60_000).unwrap();
    // Now A is fenced out of every write on the table, and B goes on with the round.
    let e = a.record_step(r, &step).unwrap_err();
    assert!(
        matches!(e, StoreError::LeaseLost { ref table, ref holder } if table == "t1" && holder == "b"),
        "{e}"
    );
    assert!(matches!(
        a.begin_round(&round("t1")),
        Err(StoreError::LeaseLost { .. })
    ));
    assert!(matches!(
        a.save_shoe("t1", b"shoe"),
        Err(StoreError::LeaseLost { .. })
    ));
    assert!(matches!(
        a.finish_round(r, &step, "{}", None),
        Err(StoreError::LeaseLost { .. })
    ));
    assert!(matches!(
        a.void_round(r, "x", &[]),
        Err(StoreError::LeaseLost { .. })
    ));
    assert_eq!(b.record_step(r, &step).unwrap(), 2);
    b.finish_round(r, &Step::default(), "{}", None).unwrap();
    // Nothing of A's refused writes is in the books; a table without a lease is free.
    let rec = b.round(r).unwrap().unwrap();
    assert_eq!(rec.steps.len(), 2);
    a.begin_round(&round("elsewhere")).unwrap();
    assert!(b.check_books().unwrap().is_sound());
}
