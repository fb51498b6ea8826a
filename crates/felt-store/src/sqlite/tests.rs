//! Unit tests that reach into the connection: a full disk, tampered books, the file's
//! marks.
// Amounts are written as dollars_cents (100_00 is 100.00).
#![allow(clippy::inconsistent_digit_grouping)]

use super::schema;
use super::SqliteStore;
use crate::books::Discrepancy;
use crate::model::{Account, Movement, MovementKind, NewRound, Step};
use crate::{Store, StoreError};
use felt_core::money::Money;

fn fresh() -> (tempfile::TempDir, SqliteStore) {
    let dir = tempfile::tempdir().expect("temp dir");
    let store = SqliteStore::open(dir.path().join("felt.db")).expect("open");
    (dir, store)
}

#[test]
fn the_file_carries_felts_marks() {
    let (_d, s) = fresh();
    let c = s.conn();
    let app: i32 = c
        .pragma_query_value(None, "application_id", |r| r.get(0))
        .unwrap();
    assert_eq!(app, schema::APP_ID);
    let mode: String = c
        .pragma_query_value(None, "journal_mode", |r| r.get(0))
        .unwrap();
    assert_eq!(mode, "wal");
    let sync: i64 = c
        .pragma_query_value(None, "synchronous", |r| r.get(0))
        .unwrap();
    assert_eq!(sync, 2, "synchronous=FULL");
    let fk: i64 = c
        .pragma_query_value(None, "foreign_keys", |r| r.get(0))
        .unwrap();
    assert_eq!(fk, 1);
    assert_eq!(s.schema_version().unwrap(), schema::LATEST);
    assert_eq!(
        schema::MIGRATIONS.last().map(|m| m.version),
        Some(schema::LATEST)
    );
}

#[test]
fn a_full_disk_fails_the_step_and_loses_nothing() {
    let (_d, mut s) = fresh();
    s.deposit("alice", Money::cents(1_000_00)).unwrap();
    let r = s
        .begin_round(&NewRound {
            game_id: "classic".into(),
            table_id: "t".into(),
            seed: [3; 32],
            shoe: None,
            ..Default::default()
        })
        .unwrap();
    let pages: i64 = s
        .conn()
        .pragma_query_value(None, "page_count", |r| r.get(0))
        .unwrap();
    // No more room than the file has now (plus a page or two).
    let _: i64 = s
        .conn()
        .pragma_update_and_check(None, "max_page_count", pages + 2, |r| r.get(0))
        .unwrap();
    let big = format!("{{\"pad\":\"{}\"}}", "x".repeat(3000));
    let mut written = 0u32;
    let err = loop {
        let step = Step {
            action: Some("{}".into()),
            events: vec![big.clone(); 4],
            movements: vec![Movement::new(
                Account::player("alice"),
                Account::house("t"),
                Money::cents(1),
                MovementKind::Wager,
            )],
            wallet: Vec::new(),
        };
        match s.record_step(r, &step) {
            Ok(_) => written += 1,
            Err(e) => break e,
        }
        assert!(written < 1000, "the page limit never bit");
    };
    assert!(matches!(err, StoreError::DiskFull { .. }), "{err}");
    assert!(err.to_string().contains("full"), "{err}");
    // Everything committed before is there, the failed step is not.
    let rec = s.round(r).unwrap().unwrap();
    assert_eq!(rec.steps.len(), written as usize);
    assert_eq!(rec.movements.len(), written as usize);
    assert_eq!(
        s.balance(&Account::player("alice")).unwrap(),
        Money::cents(1_000_00 - i64::from(written))
    );
    assert!(s.check_books().unwrap().is_sound());
    // Room again: the books go on.
    let _: i64 = s
        .conn()
        .pragma_update_and_check(None, "max_page_count", 1_000_000_000, |r| r.get(0))
        .unwrap();
    s.finish_round(r, &Step::default(), "{}", None).unwrap();
    assert!(s.check_books().unwrap().is_sound());
}

#[test]
fn check_books_finds_tampering() {
    let (_d, mut s) = fresh();
    s.deposit("alice", Money::cents(50_00)).unwrap();
    s.create_meter("m", Money::cents(100_00), &Account::house("ops"))
        .unwrap();
    let r = s
        .begin_round(&NewRound {
            game_id: "g".into(),
            table_id: "t".into(),
            seed: [1; 32],
            shoe: None,
            ..Default::default()
        })
        .unwrap();
    s.finish_round(r, &Step::default(), "{}", None).unwrap();
    assert!(s.check_books().unwrap().is_sound());
    let c = s.conn();

    // A balance changed without its ledger rows.
    c.execute(
        "UPDATE accounts SET balance_cents = balance_cents + 1 WHERE kind = 'player'",
        [],
    )
    .unwrap();
    // Half an entry: money created from nothing.
    c.execute_batch(
        "INSERT INTO entries (kind, memo) VALUES ('adjustment', 'forged');
         INSERT INTO postings (entry_id, account_id, amount_cents)
           SELECT (SELECT MAX(id) FROM entries), id, 999 FROM accounts WHERE kind = 'house' LIMIT 1;",
    )
    .unwrap();
    // A meter counter out of line, and a wrong kind on a meter.
    c.execute("UPDATE meters SET contributions_cents = 5", [])
        .unwrap();
    c.execute_batch(
        "INSERT INTO entries (kind) VALUES ('payout');
         INSERT INTO postings (entry_id, account_id, amount_cents)
           SELECT (SELECT MAX(id) FROM entries), account_id, 1 FROM meters;
         INSERT INTO postings (entry_id, account_id, amount_cents)
           SELECT (SELECT MAX(id) FROM entries), id, -1 FROM accounts WHERE kind = 'cashier';",
    )
    .unwrap();
    // Money booked to a round after it finished, and a seed that no longer matches.
    c.execute(
        "INSERT INTO entries (round_id, kind) VALUES (?1, 'refund')",
        [r.0],
    )
    .unwrap();
    // A seed is fixed by a trigger: an attacker with the file drops it first.
    c.execute_batch("DROP TRIGGER rounds_shoe_fixed; UPDATE rounds SET seed = zeroblob(32)")
        .unwrap();
    // The append-only triggers refuse edits of the ledger and journal.
    assert!(c.execute("DELETE FROM postings", []).is_err());
    assert!(c.execute("UPDATE entries SET memo = 'x'", []).is_err());
    assert!(c
        .execute(
            "INSERT INTO round_steps (round_id, seq) VALUES (?1, 99)",
            [r.0]
        )
        .is_err());
    assert!(c.execute("UPDATE rounds SET status = 'open'", []).is_err());

    let report = s.check_books().unwrap();
    assert!(!report.is_sound());
    let d = &report.discrepancies;
    let has = |f: &dyn Fn(&Discrepancy) -> bool| d.iter().any(f);
    assert!(
        has(&|x| matches!(x, Discrepancy::LedgerNotZero { .. })),
        "{report}"
    );
    assert!(
        has(&|x| matches!(x, Discrepancy::EntryIncomplete { postings: 1, .. })),
        "{report}"
    );
    assert!(
        has(&|x| matches!(x, Discrepancy::EntryIncomplete { postings: 0, .. })),
        "{report}"
    );
    assert!(
        has(&|x| matches!(
            x,
            Discrepancy::BalanceMismatch {
                account: Account::Player(_),
                ..
            }
        )),
        "{report}"
    );
    assert!(
        has(&|x| matches!(x, Discrepancy::MeterMismatch { .. })),
        "{report}"
    );
    assert!(
        has(&|x| matches!(x, Discrepancy::MeterWrongKind { .. })),
        "{report}"
    );
    assert!(
        has(&|x| matches!(x, Discrepancy::AfterEnd { .. })),
        "{report}"
    );
    assert!(
        has(&|x| matches!(x, Discrepancy::SeedHashMismatch { .. })),
        "{report}"
    );
    let text = report.to_string();
    assert!(text.contains("discrepancies"), "{text}");
    assert!(
        text.contains("player alice: balance 50.01 but its ledger rows sum to 50.00"),
        "{text}"
    );
    // Reading a round whose movement is half an entry is an error, not a panic.
    let e = s.history(10);
    assert!(e.is_ok(), "the forged entries are not in a round");
}

#[test]
fn unreadable_rows_are_errors_not_panics() {
    let (_d, mut s) = fresh();
    let r = s
        .begin_round(&NewRound {
            game_id: "g".into(),
            table_id: "t".into(),
            seed: [1; 32],
            shoe: None,
            ..Default::default()
        })
        .unwrap();
    // Drop the guards a hostile file would not have, then write nonsense.
    s.conn()
        .execute_batch(
            "PRAGMA ignore_check_constraints = ON;
             UPDATE rounds SET status = 'weird';
             INSERT INTO accounts (kind, name, balance_cents) VALUES ('alien', 'x', 0);",
        )
        .unwrap();
    let e = s.round(r).unwrap_err();
    assert!(matches!(e, StoreError::Damaged { .. }), "{e}");
    assert!(e.to_string().contains("weird"), "{e}");
    let e = s.balances().unwrap_err();
    assert!(matches!(e, StoreError::Damaged { .. }), "{e}");
    let report = s.check_books().unwrap();
    assert!(report
        .discrepancies
        .iter()
        .any(|d| matches!(d, Discrepancy::Unreadable { .. })));
    s.conn()
        .execute_batch("DROP TRIGGER rounds_shoe_fixed; UPDATE rounds SET seed = x'00'")
        .unwrap();
    let e = s.history(1).unwrap_err();
    assert!(matches!(e, StoreError::Damaged { .. }), "{e}");
}

#[test]
fn a_group_commits_its_calls_together_and_a_failed_call_leaves_no_trace() {
    let (d, mut s) = fresh();
    let path = d.path().join("felt.db");
    s.deposit("alice", Money::cents(10_00)).unwrap();
    s.begin_group().unwrap();
    assert!(s.begin_group().is_err(), "a group inside a group");
    s.deposit("alice", Money::cents(5_00)).unwrap();
    // A call that fails inside the group is undone alone.
    let e = s.withdraw("alice", Money::cents(1_000_00)).unwrap_err();
    assert!(matches!(e, StoreError::InsufficientFunds { .. }), "{e}");
    s.deposit("bob", Money::cents(7_00)).unwrap();
    // The writer sees the group; another connection sees nothing of it yet.
    assert_eq!(
        s.balance(&Account::player("alice")).unwrap(),
        Money::cents(15_00)
    );
    let other = SqliteStore::open_read_only(&path).unwrap();
    assert_eq!(
        other.balance(&Account::player("alice")).unwrap(),
        Money::cents(10_00)
    );
    assert_eq!(other.balance(&Account::player("bob")).unwrap(), Money::ZERO);
    s.end_group().unwrap();
    assert_eq!(
        other.balance(&Account::player("alice")).unwrap(),
        Money::cents(15_00)
    );
    assert_eq!(
        other.balance(&Account::player("bob")).unwrap(),
        Money::cents(7_00)
    );
    assert!(s.check_books().unwrap().is_sound());
}

#[test]
fn a_group_whose_commit_fails_leaves_nothing_and_the_store_goes_on() {
    let (_d, mut s) = fresh();
    s.deposit("alice", Money::cents(10_00)).unwrap();
    s.begin_group().unwrap();
    s.deposit("alice", Money::cents(5_00)).unwrap();
    // A foreign key checked at commit (deferred) is broken: COMMIT fails.
    s.conn()
        .execute_batch(
            "PRAGMA defer_foreign_keys = ON;
             INSERT INTO web_sessions (token_sha256, name, created_ms, last_seen_ms)
             VALUES (printf('%064d', 1), 'nobody', 0, 0);",
        )
        .unwrap();
    let e = s.end_group().unwrap_err();
    assert!(!e.to_string().is_empty());
    assert!(s.conn().is_autocommit(), "the failed group is rolled back");
    assert_eq!(
        s.balance(&Account::player("alice")).unwrap(),
        Money::cents(10_00)
    );
    // The store takes calls again, each committed by itself.
    s.deposit("alice", Money::cents(1_00)).unwrap();
    assert_eq!(
        s.balance(&Account::player("alice")).unwrap(),
        Money::cents(11_00)
    );
    assert!(s.check_books().unwrap().is_sound());
}

#[test]
fn the_audit_log_and_the_protection_tables_are_append_only() {
    let (_d, mut s) = fresh();
    s.append_audit(&crate::NewAuditEntry {
        at_ms: 1,
        actor: "olga",
        action: "close-table",
        subject: "t",
        detail: "",
    })
    .unwrap();
    s.record_usage("ann", 1, &[(crate::UsageKind::Stake, 5)])
        .unwrap();
    s.append_limit_change(&crate::LimitChange {
        seq: 0,
        player: "ann".into(),
        kind: crate::LimitKind::Loss,
        period: crate::LimitPeriod::Day,
        amount: Some(5),
        requested_ms: 1,
        effective_ms: 1,
    })
    .unwrap();
    s.append_exclusion(&crate::Exclusion {
        seq: 0,
        player: "ann".into(),
        kind: crate::ExclusionKind::Break,
        start_ms: 1,
        until_ms: Some(2),
        set_by: "ann".into(),
        reason: String::new(),
    })
    .unwrap();
    let c = s.conn();
    for sql in [
        "UPDATE audit_log SET actor = 'someone else'",
        "DELETE FROM audit_log",
        "UPDATE limit_usage SET amount = 0",
        "DELETE FROM player_limits",
        "DELETE FROM exclusions",
    ] {
        let e = c.execute(sql, []);
        assert!(
            matches!(&e, Err(rusqlite::Error::SqliteFailure(_, Some(m))) if m.starts_with("felt: ")),
            "{sql}: {e:?}"
        );
    }
}

/// Migration 10 rebuilds `player_limits` (a CHECK cannot change in SQLite): a file at
/// schema 9 keeps its limit changes, their numbers and the table's append-only
/// triggers, and takes a single-wager limit (period `bet`) for wagers only.
#[test]
fn migration_10_keeps_the_limit_history_and_its_triggers_and_takes_single_wager_limits() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("felt.db");
    {
        let mut c = rusqlite::Connection::open(&path).unwrap();
        let tx = c.transaction().unwrap();
        for m in schema::MIGRATIONS.iter().filter(|m| m.version <= 9) {
            tx.execute_batch(m.sql).unwrap();
            tx.execute(
                "INSERT INTO schema_migrations (version, name) VALUES (?1, ?2)",
                rusqlite::params![m.version, m.name],
            )
            .unwrap();
            tx.pragma_update(None, "user_version", m.version).unwrap();
        }
        tx.pragma_update(None, "application_id", schema::APP_ID)
            .unwrap();
        tx.execute(
            "INSERT INTO player_limits (player, kind, period, amount, requested_ms, \
             effective_ms) VALUES ('ann', 'loss', 'week', 500, 1, 1), \
             ('ann', 'loss', 'week', NULL, 2, 86400002)",
            [],
        )
        .unwrap();
        let refused = tx.execute(
            "INSERT INTO player_limits (player, kind, period, amount, requested_ms, \
             effective_ms) VALUES ('ann', 'wager', 'bet', 500, 3, 3)",
            [],
        );
        assert!(refused.is_err(), "schema 9 has no single-wager limit");
        tx.commit().unwrap();
    }
    let mut s = SqliteStore::open(&path).unwrap();
    assert_eq!(s.schema_version().unwrap(), 10);
    let kept = s.limit_changes("ann").unwrap();
    let rows: Vec<_> = kept
        .iter()
        .map(|c| (c.seq, c.amount, c.effective_ms))
        .collect();
    assert_eq!(rows, [(1, Some(500), 1), (2, None, 86_400_002)]);
    let single = crate::LimitChange {
        seq: 0,
        player: "ann".into(),
        kind: crate::LimitKind::Wager,
        period: crate::LimitPeriod::Bet,
        amount: Some(25_00),
        requested_ms: 3,
        effective_ms: 3,
    };
    assert_eq!(s.append_limit_change(&single).unwrap(), 3);
    let loss_per_bet = crate::LimitChange {
        kind: crate::LimitKind::Loss,
        ..single.clone()
    };
    let e = s.append_limit_change(&loss_per_bet).unwrap_err();
    assert!(matches!(e, StoreError::InvalidInput(_)), "{e}");
    let c = s.conn();
    for sql in [
        "UPDATE player_limits SET amount = 0",
        "DELETE FROM player_limits",
    ] {
        let e = c.execute(sql, []);
        assert!(
            matches!(&e, Err(rusqlite::Error::SqliteFailure(_, Some(m))) if m.starts_with("felt: ")),
            "{sql}: {e:?}"
        );
    }
}
