//! What only PostgreSQL books do: several servers writing one database at once, table
//! takeovers, notifications, lost connections, concurrent migrations, and databases
//! that are not felt's.
// Amounts are written as dollars_cents (100_00 is 100.00).
#![allow(clippy::inconsistent_digit_grouping)]

use felt_core::Money;
use felt_store::postgres::schema::LATEST;
use felt_store::testing::TestPostgres;
use felt_store::{
    Account, Discrepancy, Movement, MovementKind as K, NewRound, Notice, OpenOptions, PgListener,
    PgSeatLocks, PgStore, Step, StepWrite, Store, StoreError,
};
use std::sync::{Arc, Barrier, Mutex};
use std::time::{Duration, Instant};

fn c(cents: i64) -> Money {
    Money::cents(cents)
}

fn fresh() -> String {
    TestPostgres::shared().fresh_database()
}

fn round(table: &str, seed: u8) -> NewRound {
    NewRound {
        game_id: "blazing-7s".into(),
        table_id: table.into(),
        seed: [seed; 32],
        ..Default::default()
    }
}

fn raw(url: &str) -> postgres::Client {
    postgres::Client::connect(url, postgres::NoTls).expect("connect")
}

/// Two servers hit one progressive meter at the same instants: each hit pays what is
/// above the reset, read under the meter's row lock, so the second of two simultaneous
/// hits sees the meter after the first's award. Every hit is paid once, the meter never
/// goes below its reset, and the books balance.
#[test]
fn two_servers_racing_awards_on_one_meter_pay_each_hit_once() {
    let url = fresh();
    const RESET: i64 = 1_000_00;
    const ROUNDS: usize = 30;
    let mut setup = PgStore::open(&url).unwrap();
    setup
        .create_meter("m", c(RESET), &Account::house("ops"))
        .unwrap();
    let seen = Arc::new(Mutex::new(Vec::<(i64, i64)>::new()));
    let start = Arc::new(Barrier::new(2));
    let servers: Vec<_> = ["a", "b"]
        .into_iter()
        .map(|server| {
            let (url, seen, start) = (url.clone(), seen.clone(), start.clone());
            std::thread::spawn(move || {
                let mut s = PgStore::open(&url).unwrap();
                let table = format!("t-{server}");
                let player = format!("p-{server}");
                start.wait();
                let mut paid = 0;
                for i in 0..ROUNDS {
                    let r = s.begin_round(&round(&table, i as u8)).unwrap();
                    s.record_step(
                        r,
                        &Step {
                            action: None,
                            events: vec![],
                            movements: vec![Movement::new(
                                Account::house(&table),
                                Account::meter("m"),
                                c(1_00 + i as i64),
                                K::Contribution,
                            )],
                            wallet: Vec::new(),
                        },
                    )
                    .unwrap();
                    let wrote = s
                        .record_step_with(r, &["m"], &mut |values| {
                            let value = values[0].as_cents();
                            // Widen the window: the other server hits meanwhile.
                            std::thread::sleep(Duration::from_millis(2));
                            let award = value - RESET;
                            seen.lock().unwrap().push((value, award));
                            if award <= 0 {
                                return StepWrite::Nothing;
                            }
                            StepWrite::Step(Step {
                                action: Some(r#"{"hit":1}"#.into()),
                                events: vec![format!(r#"{{"award":{award}}}"#)],
                                movements: vec![Movement::new(
                                    Account::meter("m"),
                                    Account::player(&player),
                                    c(award),
                                    K::Award,
                                )],
                                wallet: Vec::new(),
                            })
                        })
                        .unwrap();
                    if wrote.is_some() {
                        paid += 1;
                    }
                    s.finish_round(r, &Step::default(), "{}", None).unwrap();
                }
                paid
            })
        })
        .collect();
    let paid: usize = servers.into_iter().map(|t| t.join().unwrap()).sum();
    let seen = seen.lock().unwrap().clone();
    assert_eq!(seen.len(), 2 * ROUNDS, "compute ran once per hit");
    assert!(seen.iter().all(|(v, _)| *v >= RESET), "{seen:?}");
    let m = setup.meter("m").unwrap().unwrap();
    let contributions: i64 = (0..ROUNDS as i64).map(|i| 2 * (1_00 + i)).sum();
    let awards: i64 = seen.iter().map(|(_, a)| (*a).max(0)).sum();
    assert_eq!(m.contributions, c(contributions));
    assert_eq!(m.awards, c(awards));
    assert_eq!(m.amount, m.seeded + m.contributions - m.awards);
    assert!(m.amount >= c(RESET), "{m:?}");
    // Every contribution was paid out exactly once: what is above the reset now is
    // what came in after the last award.
    assert_eq!(m.amount - c(RESET), c(contributions - awards));
    let award_entries: usize = setup
        .history(1_000)
        .unwrap()
        .iter()
        .flat_map(|r| &r.movements)
        .filter(|m| m.movement.kind == K::Award)
        .count();
    assert_eq!(award_entries, paid);
    let players = setup.balance(&Account::player("p-a")).unwrap()
        + setup.balance(&Account::player("p-b")).unwrap();
    assert_eq!(players, c(awards));
    let report = setup.check_books().unwrap();
    assert!(report.is_sound(), "{report}");
}

/// A takeover while the old host is writing: each of its writes is either committed
/// before the takeover (and the new host finds it in the books) or refused.
#[test]
fn a_takeover_fences_the_old_holders_writes() {
    let url = fresh();
    let mut a = PgStore::open(&url).unwrap();
    let mut b = PgStore::open(&url).unwrap();
    a.claim_tables("srv-a", "http://a", &["t"], 300).unwrap();
    a.fence(Some("srv-a"));
    let r = a.begin_round(&round("t", 1)).unwrap();
    let writer = std::thread::spawn(move || {
        let mut written = 0u32;
        let started = Instant::now();
        loop {
            match a.record_step(
                r,
                &Step {
                    action: Some("{}".into()),
                    ..Step::default()
                },
            ) {
                Ok(seq) => {
                    written += 1;
                    assert_eq!(seq, written);
                }
                Err(StoreError::LeaseLost { table, holder }) => {
                    assert_eq!((table.as_str(), holder.as_str()), ("t", "srv-b"));
                    return written;
                }
                Err(e) => panic!("{e}"),
            }
            assert!(started.elapsed() < Duration::from_secs(20), "never fenced");
        }
    });
    // srv-a's lease runs out (it does not renew); srv-b takes the table.
    let taken = loop {
        std::thread::sleep(Duration::from_millis(50));
        let got = b.claim_tables("srv-b", "http://b", &["t"], 60_000).unwrap();
        if let Some(l) = got.into_iter().next() {
            break l;
        }
    };
    assert_eq!((taken.epoch, taken.server.as_str()), (2, "srv-b"));
    let written = writer.join().unwrap();
    assert!(written > 0);
    let rec = b.round(r).unwrap().unwrap();
    assert_eq!(
        rec.steps.len() as u32,
        written,
        "every write the old host was told it made is in the books"
    );
    b.fence(Some("srv-b"));
    b.finish_round(r, &Step::default(), "{}", None).unwrap();
    assert!(b.check_books().unwrap().is_sound());
}

/// Notices come at commit: a meter that moved, a table that changed hands.
#[test]
fn meter_and_table_changes_are_notified_at_commit() {
    let url = fresh();
    let mut s = PgStore::open(&url).unwrap();
    let mut l = PgListener::connect(&url).unwrap();
    assert!(l.wait(Duration::from_millis(50)).unwrap().is_empty());
    s.create_meter("m", c(10_00), &Account::house("ops"))
        .unwrap();
    assert_eq!(
        l.wait(Duration::from_secs(5)).unwrap(),
        [Notice::Meter("m".into())]
    );
    s.begin_group().unwrap();
    s.post(&[Movement::new(
        Account::house("ops"),
        Account::meter("m"),
        c(1_00),
        K::Contribution,
    )])
    .unwrap();
    assert!(
        l.wait(Duration::from_millis(200)).unwrap().is_empty(),
        "nothing before the commit"
    );
    s.end_group().unwrap();
    assert_eq!(
        l.wait(Duration::from_secs(5)).unwrap(),
        [Notice::Meter("m".into())]
    );
    s.claim_tables("srv", "http://x", &["t1"], 60_000).unwrap();
    assert_eq!(
        l.wait(Duration::from_secs(5)).unwrap(),
        [Notice::Table("t1".into())]
    );
    // A renewal only extends a live lease: no notice.
    s.claim_tables("srv", "http://x", &["t1"], 60_000).unwrap();
    assert!(l.wait(Duration::from_millis(200)).unwrap().is_empty());
    s.release_tables("srv", &["t1"]).unwrap();
    assert_eq!(
        l.wait(Duration::from_secs(5)).unwrap(),
        [Notice::Table("t1".into())]
    );
}

/// Several servers starting at once on one empty database: each migration is applied
/// once, and every one of them opens the books.
#[test]
fn migrations_apply_once_when_servers_open_an_empty_database_together() {
    let url = fresh();
    let start = Arc::new(Barrier::new(6));
    let openers: Vec<_> = (0..6)
        .map(|_| {
            let (url, start) = (url.clone(), start.clone());
            std::thread::spawn(move || {
                start.wait();
                PgStore::open(&url).map(|s| s.schema_version())
            })
        })
        .collect();
    for o in openers {
        assert_eq!(o.join().unwrap().unwrap().unwrap(), LATEST);
    }
    let s = PgStore::open(&url).unwrap();
    let m = s.migrations().unwrap();
    assert_eq!(
        m.iter().map(|m| m.version).collect::<Vec<_>>(),
        (1..=LATEST).collect::<Vec<_>>()
    );
    assert!(m.iter().all(|m| m.applied_at.ends_with('Z')));
    // A reader of the same books.
    let ro = PgStore::open_read_only(&url).unwrap();
    assert!(ro.check_books().unwrap().is_sound());
}

/// A database that holds other tables is not felt's; one written by a newer felt is
/// refused; neither is touched.
#[test]
fn a_foreign_or_newer_database_is_refused_untouched() {
    let url = fresh();
    raw(&url)
        .batch_execute("CREATE TABLE users (id INT PRIMARY KEY); INSERT INTO users VALUES (1);")
        .unwrap();
    let e = PgStore::open(&url).unwrap_err();
    assert!(matches!(e, StoreError::ForeignDatabase { .. }), "{e}");
    let said = e.to_string();
    assert!(
        said.contains("users") && said.contains("point felt at another database"),
        "{said}"
    );
    assert!(!said.contains(&password(&url)), "{said}");
    let tables: i64 = raw(&url)
        .query_one(
            "SELECT COUNT(*) FROM pg_tables WHERE schemaname = current_schema()",
            &[],
        )
        .unwrap()
        .get(0);
    assert_eq!(tables, 1, "felt created nothing");

    let url = fresh();
    PgStore::open(&url)
        .unwrap()
        .deposit("ann", c(1_00))
        .unwrap();
    raw(&url)
        .batch_execute("INSERT INTO schema_migrations (version, name) VALUES (99, 'future')")
        .unwrap();
    for e in [
        PgStore::open(&url).unwrap_err(),
        PgStore::open_read_only(&url).unwrap_err(),
    ] {
        assert!(
            matches!(
                e,
                StoreError::NewerSchema {
                    found: 99,
                    known: LATEST,
                    ..
                }
            ),
            "{e}"
        );
    }
}

fn password(url: &str) -> String {
    let user = url.split("://").nth(1).unwrap().split('@').next().unwrap();
    user.split(':').nth(1).unwrap().to_string()
}

/// Each of `sqls` is refused by one of felt's guards in the database.
fn refused_by_felt(db: &mut postgres::Client, sqls: &[&str]) {
    for sql in sqls {
        let e = db.batch_execute(sql).unwrap_err();
        let said = e
            .as_db_error()
            .map(|d| d.message().to_string())
            .unwrap_or_default();
        assert!(said.starts_with("felt: "), "{sql}: {e}");
    }
}

/// The ledger and the journal are append-only in the database itself.
#[test]
fn the_database_refuses_to_rewrite_the_ledger() {
    let url = fresh();
    let mut s = PgStore::open(&url).unwrap();
    s.deposit("ann", c(5_00)).unwrap();
    let r = s.begin_round(&round("t", 1)).unwrap();
    s.finish_round(r, &Step::default(), "{}", None).unwrap();
    refused_by_felt(
        &mut raw(&url),
        &[
            "UPDATE postings SET amount_cents = 1",
            "DELETE FROM entries",
            "TRUNCATE postings",
            "UPDATE rounds SET status = 'open'",
            "DELETE FROM rounds",
            "INSERT INTO round_steps (round_id, seq) VALUES (1, 9)",
        ],
    );
    assert!(s.check_books().unwrap().is_sound());
}

/// Someone with the database's owner role drops the guards and forges the books
/// behind felt's back: `check_books` (what `felt books` and `felt verify` run) finds
/// every forgery, as it does on SQLite.
#[test]
fn check_books_finds_tampering_by_the_databases_owner() {
    let url = fresh();
    let mut s = PgStore::open(&url).unwrap();
    s.deposit("alice", c(50_00)).unwrap();
    s.create_meter("m", c(100_00), &Account::house("ops"))
        .unwrap();
    let r = s.begin_round(&round("t", 1)).unwrap();
    s.finish_round(r, &Step::default(), "{}", None).unwrap();
    assert!(s.check_books().unwrap().is_sound());
    let mut db = raw(&url);
    db.batch_execute(
        // A balance changed without its ledger rows.
        "UPDATE accounts SET balance_cents = balance_cents + 1 WHERE kind = 'player';
         -- Half an entry: money created from nothing.
         INSERT INTO entries (kind, memo) VALUES ('adjustment', 'forged');
         INSERT INTO postings (entry_id, account_id, amount_cents)
           SELECT (SELECT MAX(id) FROM entries), id, 999 FROM accounts
           WHERE kind = 'house' LIMIT 1;
         -- A meter counter out of line, and money moved onto the meter as a payout.
         UPDATE meters SET contributions_cents = 5;
         INSERT INTO entries (kind) VALUES ('payout');
         INSERT INTO postings (entry_id, account_id, amount_cents)
           SELECT (SELECT MAX(id) FROM entries), account_id, 1 FROM meters;
         INSERT INTO postings (entry_id, account_id, amount_cents)
           SELECT (SELECT MAX(id) FROM entries), id, -1 FROM accounts
           WHERE kind = 'cashier';",
    )
    .unwrap();
    // Money booked to a round after it ended, and its seed changed (the trigger that
    // fixes it dropped first).
    db.execute(
        "INSERT INTO entries (round_id, kind) VALUES ($1, 'refund')",
        &[&r.0],
    )
    .unwrap();
    db.batch_execute(
        "DROP TRIGGER rounds_shoe_fixed ON rounds;
         UPDATE rounds SET seed = decode(repeat('00', 32), 'hex');",
    )
    .unwrap();

    let report = s.check_books().unwrap();
    assert!(!report.is_sound());
    let d = &report.discrepancies;
    let has = |f: &dyn Fn(&Discrepancy) -> bool| d.iter().any(f);
    for (what, found) in [
        (
            "the ledger does not sum to zero",
            has(&|x| matches!(x, Discrepancy::LedgerNotZero { .. })),
        ),
        (
            "an entry of one posting",
            has(&|x| matches!(x, Discrepancy::EntryIncomplete { postings: 1, .. })),
        ),
        (
            "an entry of no posting",
            has(&|x| matches!(x, Discrepancy::EntryIncomplete { postings: 0, .. })),
        ),
        (
            "a player's balance off its postings",
            has(&|x| {
                matches!(
                    x,
                    Discrepancy::BalanceMismatch {
                        account: Account::Player(_),
                        ..
                    }
                )
            }),
        ),
        (
            "the meter off its postings",
            has(&|x| matches!(x, Discrepancy::MeterMismatch { .. })),
        ),
    ] {
        assert!(found, "check_books misses {what}: {report}");
    }
    for (what, found) in [
        (
            "a payout onto the meter",
            has(&|x| matches!(x, Discrepancy::MeterWrongKind { .. })),
        ),
        (
            "money booked to the round after its end",
            has(&|x| matches!(x, Discrepancy::AfterEnd { .. })),
        ),
        (
            "the round's seed off its hash",
            has(&|x| matches!(x, Discrepancy::SeedHashMismatch { .. })),
        ),
    ] {
        assert!(found, "check_books misses {what}: {report}");
    }
    // Said as on SQLite.
    let text = report.to_string();
    assert!(
        text.contains("player alice: balance 50.01 but its ledger rows sum to 50.00"),
        "{text}"
    );
}

/// A read-only open of an empty database waits a moment for the books, then says
/// there are none; a store open read-only refuses writes.
#[test]
fn an_empty_database_holds_no_books_yet() {
    let url = fresh();
    let e = PgStore::open_with(
        &url,
        &OpenOptions {
            read_only: true,
            busy_timeout: Duration::from_millis(100),
        },
    )
    .unwrap_err();
    assert!(matches!(e, StoreError::NoBooksYet { .. }), "{e}");
    assert!(e.to_string().contains("holds no books yet"), "{e}");
}

/// Wrong credentials and an unreachable server are clear errors that never show the
/// password.
#[test]
fn bad_credentials_and_no_server_are_clear_errors() {
    let url = fresh();
    let secret = password(&url);
    let wrong = url.replace(&secret, "not-the-password");
    let e = PgStore::open(&wrong).unwrap_err();
    assert!(matches!(e, StoreError::CannotOpen { .. }), "{e}");
    assert!(!e.to_string().contains("not-the-password"), "{e}");
    assert!(e.to_string().contains("felt:***@"), "{e}");
    let nowhere = "postgres://felt:hunter2@127.0.0.1:1/felt";
    let e = PgStore::open(nowhere).unwrap_err();
    assert!(matches!(e, StoreError::Unavailable { .. }), "{e}");
    assert!(
        e.to_string()
            .contains("the database server at postgres://felt:***@127.0.0.1:1/felt is unreachable"),
        "{e}"
    );
    assert!(!e.to_string().contains("hunter2"));
    let e = PgSeatLocks::acquire(nowhere, &["ann".to_string()]).unwrap_err();
    assert!(matches!(e, StoreError::Unavailable { .. }), "{e}");
    let e = PgListener::connect(nowhere).unwrap_err();
    assert!(matches!(e, StoreError::Unavailable { .. }), "{e}");
}

/// The server's way: the store made, used and dropped on tokio's blocking pool and on
/// its async threads, never panicking.
#[test]
fn a_store_works_from_an_async_runtime() {
    let url = fresh();
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(async move {
        let store = tokio::task::spawn_blocking(move || {
            let mut s = PgStore::open(&url).unwrap();
            s.deposit("ann", c(3_00)).unwrap();
            s
        })
        .await
        .unwrap();
        let store = tokio::task::spawn_blocking(move || {
            assert_eq!(store.balance(&Account::player("ann")).unwrap(), c(3_00));
            store
        })
        .await
        .unwrap();
        // Dropped on an async worker thread: closing runs off it.
        drop(store);
    });
}

/// A restart of the server: a connection found dead before a call is replaced at
/// once; one lost during a group fails its calls clearly, nothing of the group is in
/// the books, and the next call works. Listeners and seats learn it too.
#[test]
fn a_lost_connection_is_a_clear_error_and_the_next_call_works() {
    let pg = TestPostgres::start();
    let url = pg.fresh_database();
    let mut s = PgStore::open(&url).unwrap();
    s.deposit("ann", c(10_00)).unwrap();
    let mut seats = PgSeatLocks::acquire(&url, &["ann".to_string()]).unwrap();
    let mut listener = PgListener::connect(&url).unwrap();

    pg.restart();
    s.deposit("ann", c(1)).unwrap();
    assert_eq!(s.balance(&Account::player("ann")).unwrap(), c(10_01));

    s.begin_group().unwrap();
    s.deposit("ann", c(5_00)).unwrap();
    pg.restart();
    let e = s.deposit("ann", c(1)).unwrap_err();
    assert!(matches!(e, StoreError::Unavailable { .. }), "{e}");
    let said = e.to_string();
    assert!(said.contains("is unreachable"), "{said}");
    assert!(!said.contains(&password(&url)), "{said}");
    let e = s.end_group().unwrap_err();
    assert!(matches!(e, StoreError::Unavailable { .. }), "{e}");
    assert_eq!(
        s.balance(&Account::player("ann")).unwrap(),
        c(10_01),
        "nothing of the lost group"
    );
    s.deposit("ann", c(1)).unwrap();
    assert_eq!(s.balance(&Account::player("ann")).unwrap(), c(10_02));
    assert!(s.check_books().unwrap().is_sound());

    // The seats' connection is gone, and so are the seats; the listener says so.
    assert!(matches!(seats.check(), Err(StoreError::Unavailable { .. })));
    let _again = PgSeatLocks::acquire(&url, &["ann".to_string()]).unwrap();
    assert!(matches!(
        listener.wait(Duration::from_secs(2)),
        Err(StoreError::Unavailable { .. })
    ));
    let mut listener = PgListener::connect(&url).unwrap();
    s.create_meter("m", c(1_00), &Account::house("ops"))
        .unwrap();
    assert_eq!(
        listener.wait(Duration::from_secs(5)).unwrap(),
        [Notice::Meter("m".into())]
    );
}

/// Two servers' group commits that each hold a meter the other needs: the database
/// picks one to give way; its group commits what it has so far and the call is tried
/// again in a new group transaction, so both go through and nothing is lost.
#[test]
fn groups_that_deadlock_on_meters_both_go_through() {
    let url = fresh();
    let mut setup = PgStore::open(&url).unwrap();
    for m in ["m1", "m2"] {
        setup
            .create_meter(m, c(1_00), &Account::house("ops"))
            .unwrap();
    }
    // Each server's table pays from its own house: the meters are all they share.
    let contribute = |from: &str, to: &str| {
        [Movement::new(
            Account::house(from),
            Account::meter(to),
            c(1),
            K::Contribution,
        )]
    };
    let both_hold = Arc::new(Barrier::new(2));
    let servers: Vec<_> = [("a", "m1", "m2"), ("b", "m2", "m1")]
        .into_iter()
        .map(|(house, first, second)| {
            let (url, both_hold) = (url.clone(), both_hold.clone());
            std::thread::spawn(move || {
                let mut s = PgStore::open(&url).unwrap();
                s.begin_group().unwrap();
                s.post(&contribute(house, first)).unwrap();
                both_hold.wait();
                s.post(&contribute(house, second)).unwrap();
                s.end_group().unwrap();
            })
        })
        .collect();
    for s in servers {
        s.join().unwrap();
    }
    for m in ["m1", "m2"] {
        assert_eq!(setup.meter(m).unwrap().unwrap().contributions, c(2), "{m}");
    }
    assert!(setup.check_books().unwrap().is_sound());
}

/// The audit log, limit changes, their usage and exclusions are append-only in the
/// database itself.
#[test]
fn the_database_refuses_to_rewrite_the_audit_log_and_the_protection_tables() {
    let url = fresh();
    let mut s = PgStore::open(&url).unwrap();
    s.append_audit(&felt_store::NewAuditEntry {
        at_ms: 1,
        actor: "olga",
        action: "close-table",
        subject: "t",
        detail: "",
    })
    .unwrap();
    s.append_limit_change(&felt_store::LimitChange {
        seq: 0,
        player: "ann".into(),
        kind: felt_store::LimitKind::Loss,
        period: felt_store::LimitPeriod::Day,
        amount: Some(5),
        requested_ms: 1,
        effective_ms: 1,
    })
    .unwrap();
    s.record_usage("ann", 1, &[(felt_store::UsageKind::Stake, 5)])
        .unwrap();
    s.append_exclusion(&felt_store::Exclusion {
        seq: 0,
        player: "ann".into(),
        kind: felt_store::ExclusionKind::Break,
        start_ms: 1,
        until_ms: Some(2),
        set_by: "ann".into(),
        reason: String::new(),
    })
    .unwrap();
    refused_by_felt(
        &mut raw(&url),
        &[
            "UPDATE audit_log SET actor = 'someone else'",
            "DELETE FROM audit_log",
            "TRUNCATE audit_log",
            "DELETE FROM player_limits",
            "TRUNCATE limit_usage",
            "DELETE FROM exclusions",
        ],
    );
    assert_eq!(
        s.audit_entries(&felt_store::AuditQuery {
            limit: 5,
            ..Default::default()
        })
        .unwrap()[0]
            .actor,
        "olga"
    );
}
