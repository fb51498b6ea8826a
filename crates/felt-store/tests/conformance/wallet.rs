//! The outbox of calls to an operator's wallet: written with the step that causes it,
//! answered once, rolled back by the books, kept across restarts and servers.

use crate::{c, new_round, step, wager, Books};
use felt_core::Money;
use felt_store::{
    funding_memo, rollback_id, Account, Movement, MovementKind, NewWalletCall, RoundId, StoreError,
    WalletAnswer, WalletCall, WalletCallKind, WalletQuery, WalletState,
};

fn debit(id: &str, cents: i64) -> NewWalletCall {
    NewWalletCall {
        transaction_id: id.into(),
        kind: WalletCallKind::Debit,
        player: "op-player-1".into(),
        amount: c(cents),
        detail_json: r#"{"wagers":[{"spot":0,"bet":"main","amount":"10.00"}],"jackpot":[]}"#.into(),
    }
}

fn credit(id: &str, cents: i64) -> NewWalletCall {
    NewWalletCall {
        transaction_id: id.into(),
        kind: WalletCallKind::Credit,
        player: "op-player-1".into(),
        amount: c(cents),
        detail_json: r#"{"round_closed":true,"wins":[],"jackpot_award":null}"#.into(),
    }
}

/// The deposit by which a step brings debit `id`'s money into the player's mirror.
fn funded(id: &str, cents: i64) -> Movement {
    Movement::new(
        Account::Cashier,
        Account::player("op-player-1"),
        c(cents),
        MovementKind::Deposit,
    )
    .with_memo(funding_memo(id))
}

fn calls_of(s: &Books, round: RoundId) -> Vec<WalletCall> {
    s.wallet_calls(&WalletQuery {
        round: Some(round),
        ..WalletQuery::default()
    })
    .unwrap()
}

fn one(s: &Books, id: &str) -> WalletCall {
    let all = s.wallet_calls(&WalletQuery::default()).unwrap();
    all.into_iter()
        .find(|w| w.transaction_id == id)
        .unwrap_or_else(|| panic!("no wallet call {id}"))
}

fn ack(cents: i64) -> WalletAnswer {
    WalletAnswer::Acknowledged { balance: c(cents) }
}

fn lost() -> WalletAnswer {
    WalletAnswer::Lost {
        detail: "timed out after 2 s".into(),
    }
}

/// A step with wallet calls writes them in its transaction: a step that fails leaves no
/// call, and a transaction id is used once.
pub fn a_call_is_written_with_its_step_or_not_at_all(s: &mut Books) {
    s.deposit("alice", c(5_00)).unwrap();
    let r = s.begin_round(&new_round("t1", 1)).unwrap();
    let mut bet = step(Some(r#"{"bet":1}"#), &[], vec![]);
    bet.wallet = vec![debit("felt-1-d1", 10_00)];
    s.record_step(r, &bet).unwrap();
    let calls = calls_of(s, r);
    assert_eq!(calls.len(), 1);
    let d = &calls[0];
    assert_eq!(
        (d.transaction_id.as_str(), d.kind, d.state, d.attempts),
        ("felt-1-d1", WalletCallKind::Debit, WalletState::Pending, 0)
    );
    assert_eq!((d.round, d.table.as_str(), d.amount), (r, "t1", c(10_00)));
    assert_eq!(d.detail_json, debit("x", 1).detail_json);
    assert_eq!((d.rolls_back.as_ref(), d.rollback.as_ref()), (None, None));

    // The step's money fails (alice has 5.00): its wallet call is not written either.
    let mut overdraft = step(Some(r#"{"bet":2}"#), &[], vec![wager("alice", "t1", 6_00)]);
    overdraft.wallet = vec![debit("felt-1-d2", 6_00)];
    let e = s.record_step(r, &overdraft).unwrap_err();
    assert!(matches!(e, StoreError::InsufficientFunds { .. }), "{e}");
    // The same id again: refused, and the step with it.
    let mut again = step(Some(r#"{"bet":3}"#), &[], vec![]);
    again.wallet = vec![debit("felt-1-d1", 10_00)];
    let e = s.record_step(r, &again).unwrap_err();
    assert!(
        matches!(e, StoreError::WalletCallExists { ref id } if id == "felt-1-d1"),
        "{e}"
    );
    // A call that is not well formed: refused before anything is written.
    let mut bad = step(Some(r#"{"bet":4}"#), &[], vec![]);
    bad.wallet = vec![debit("felt 1", 1_00)];
    assert!(matches!(
        s.record_step(r, &bad).unwrap_err(),
        StoreError::InvalidInput(_)
    ));
    assert_eq!(calls_of(s, r).len(), 1);
    assert_eq!(s.round(r).unwrap().unwrap().steps.len(), 1);
    assert!(s.check_books().unwrap().is_sound());
}

/// Attempts are counted; the first definitive answer stands; a lost credit stays
/// pending; a lost debit gets its rollback, whose acknowledgement rolls the debit back;
/// a refusal fails the call with the operator's reason.
pub fn answers_settle_a_call_once_and_a_lost_debit_is_rolled_back(s: &mut Books) {
    let r = s.begin_round(&new_round("t1", 2)).unwrap();
    let mut bet = step(Some(r#"{"bet":1}"#), &[], vec![]);
    bet.wallet = vec![
        debit("r-d1", 10_00),
        debit("r-d2", 5_00),
        debit("r-d3", 1_00),
    ];
    s.record_step(r, &bet).unwrap();

    let a = s.wallet_attempt("r-d1", 5_000).unwrap();
    assert_eq!((a.attempts, a.next_attempt_ms), (1, 5_000));
    let d1 = s.wallet_answer("r-d1", &ack(90_00)).unwrap();
    assert_eq!(
        (d1.state, d1.balance, d1.reason.as_ref()),
        (WalletState::Acknowledged, Some(c(90_00)), None)
    );
    assert!(d1.settled_ms.is_some());
    // A second answer (a duplicate delivery, another server) changes nothing.
    let refused = WalletAnswer::Refused {
        code: "insufficient-funds".into(),
        message: "Not enough money".into(),
    };
    assert_eq!(s.wallet_answer("r-d1", &refused).unwrap(), d1);
    // An attempt at a call no longer pending changes nothing: it is not to be sent.
    assert_eq!(s.wallet_attempt("r-d1", 9_000).unwrap(), d1);

    let d2 = s.wallet_answer("r-d2", &refused).unwrap();
    assert_eq!(d2.state, WalletState::Failed);
    assert_eq!(
        d2.reason.as_deref(),
        Some("refused: insufficient-funds: Not enough money")
    );
    assert_eq!(d2.balance, None);

    // d3's answer is lost: it stays pending and gets its rollback.
    let d3 = s.wallet_answer("r-d3", &lost()).unwrap();
    let rb = rollback_id("r-d3");
    assert_eq!(d3.state, WalletState::Pending);
    assert_eq!(d3.last_error.as_deref(), Some("timed out after 2 s"));
    assert_eq!(d3.rollback.as_deref(), Some(rb.as_str()));
    let roll = one(s, &rb);
    assert_eq!(
        (roll.kind, roll.state, roll.amount, roll.round),
        (WalletCallKind::Rollback, WalletState::Pending, c(1_00), r)
    );
    assert_eq!(roll.rolls_back.as_deref(), Some("r-d3"));
    assert_eq!(roll.player, "op-player-1");
    // A late answer to the debit does not count any more, nor a second loss.
    assert_eq!(s.wallet_answer("r-d3", &ack(1)).unwrap(), d3);
    assert_eq!(s.wallet_answer("r-d3", &lost()).unwrap(), d3);
    // The rollback's answer is lost too: it stays pending, nothing else is written.
    let still = s.wallet_answer(&rb, &lost()).unwrap();
    assert_eq!(still.state, WalletState::Pending);
    assert_eq!(calls_of(s, r).len(), 4);
    let acked = s.wallet_answer(&rb, &ack(91_00)).unwrap();
    assert_eq!(acked.state, WalletState::Acknowledged);
    assert_eq!(one(s, "r-d3").state, WalletState::RolledBack);

    // Bad answers and unknown ids are typed errors that change nothing.
    let e = s.wallet_answer("nope", &ack(1)).unwrap_err();
    assert!(matches!(e, StoreError::UnknownWalletCall { .. }), "{e}");
    let e = s.wallet_attempt("nope", 1).unwrap_err();
    assert!(matches!(e, StoreError::UnknownWalletCall { .. }), "{e}");
    s.record_step(r, &{
        let mut st = step(None, &[], vec![]);
        st.wallet = vec![credit("r-c", 0)];
        st
    })
    .unwrap();
    let e = s.wallet_answer("r-c", &ack(-1)).unwrap_err();
    assert!(matches!(e, StoreError::InvalidInput(_)), "{e}");
    assert_eq!(one(s, "r-c").state, WalletState::Pending);
    let gave_up = s
        .wallet_answer(
            "r-c",
            &WalletAnswer::GaveUp {
                reason: "no answer in 24 h".into(),
            },
        )
        .unwrap();
    assert_eq!(gave_up.state, WalletState::Failed);
    assert_eq!(
        gave_up.reason.as_deref(),
        Some("gave up: no answer in 24 h")
    );
}

/// Voiding a round (by the books' caller, or by the game in its last step) rolls back
/// every debit that was not refused, once, and closes the round at the operator with
/// a credit of nothing for each player it debited.
pub fn a_voided_round_rolls_back_its_debits(s: &mut Books) {
    let r = s.begin_round(&new_round("t1", 3)).unwrap();
    let mut bet = step(Some(r#"{"bet":1}"#), &[], vec![]);
    bet.wallet = vec![
        debit("v-d1", 10_00),
        debit("v-d2", 5_00),
        debit("v-d3", 2_00),
    ];
    s.record_step(r, &bet).unwrap();
    s.wallet_answer("v-d1", &ack(90_00)).unwrap();
    s.wallet_answer(
        "v-d2",
        &WalletAnswer::Refused {
            code: "limit-reached".into(),
            message: "daily limit".into(),
        },
    )
    .unwrap();
    // v-d3 is still in flight when the round is voided.
    s.void_round(r, "dealer's shoe damaged", &[]).unwrap();
    let calls = calls_of(s, r);
    let rollbacks: Vec<_> = calls
        .iter()
        .filter(|w| w.kind == WalletCallKind::Rollback)
        .map(|w| (w.rolls_back.clone().unwrap(), w.amount, w.state))
        .collect();
    assert_eq!(
        rollbacks,
        vec![
            ("v-d1".to_string(), c(10_00), WalletState::Pending),
            ("v-d3".to_string(), c(2_00), WalletState::Pending),
        ]
    );
    // The round is closed at the operator by a credit of nothing, after the rollbacks.
    let closing: Vec<_> = calls
        .iter()
        .filter(|w| w.kind == WalletCallKind::Credit)
        .map(|w| (w.transaction_id.as_str(), w.amount, w.detail_json.as_str()))
        .collect();
    assert_eq!(
        closing,
        [(
            "v-c",
            c(0),
            r#"{"round_closed":true,"wins":[],"jackpot_award":null}"#
        )]
    );
    // v-d3's answer, lost now, does not write a second rollback.
    s.wallet_answer("v-d3", &lost()).unwrap();
    assert_eq!(calls_of(s, r).len(), 6);

    // The game voids a round itself (the shoe ran out): the same.
    let g = s.begin_round(&new_round("t2", 4)).unwrap();
    let mut bet = step(Some(r#"{"bet":1}"#), &[], vec![]);
    bet.wallet = vec![debit("g-d1", 3_00)];
    s.record_step(g, &bet).unwrap();
    s.record_step_with(g, &[], &mut |_| felt_store::StepWrite::Finish {
        last: step(None, &[], vec![]),
        result_json: "{}".into(),
        shoe_after: None,
        ended: felt_store::Ended::Voided("the shoe ran out".into()),
        retire_shoe: true,
        counted_at_ms: None,
    })
    .unwrap();
    let g_calls = calls_of(s, g);
    assert_eq!(g_calls.len(), 3);
    assert_eq!(g_calls[1].transaction_id, rollback_id("g-d1"));
    assert_eq!(g_calls[2].transaction_id, "g-c");
    assert!(s.check_books().unwrap().is_sound());
}

/// The staff's and the retry worker's questions: by round, table, state, time, due.
pub fn calls_are_listed_by_round_table_state_time_and_due(s: &mut Books) {
    let r1 = s.begin_round(&new_round("t1", 5)).unwrap();
    let r2 = s.begin_round(&new_round("t2", 6)).unwrap();
    for (r, id) in [(r1, "q-1"), (r2, "q-2")] {
        let mut st = step(
            Some(r#"{"bet":1}"#),
            &[],
            vec![funded(&format!("{id}-d"), 1_00)],
        );
        st.wallet = vec![debit(&format!("{id}-d"), 1_00)];
        s.record_step(r, &st).unwrap();
        let mut end = step(None, &[], vec![]);
        end.wallet = vec![credit(&format!("{id}-c"), 2_00)];
        s.finish_round(r, &end, "{}", None).unwrap();
    }
    let ids = |s: &Books, q: WalletQuery| -> Vec<String> {
        s.wallet_calls(&q)
            .unwrap()
            .into_iter()
            .map(|w| w.transaction_id)
            .collect()
    };
    assert_eq!(
        ids(s, WalletQuery::default()),
        ["q-1-d", "q-1-c", "q-2-d", "q-2-c"]
    );
    assert_eq!(
        ids(
            s,
            WalletQuery {
                round: Some(r2),
                ..WalletQuery::default()
            }
        ),
        ["q-2-d", "q-2-c"]
    );
    assert_eq!(
        ids(
            s,
            WalletQuery {
                table: Some("t1".into()),
                ..WalletQuery::default()
            }
        ),
        ["q-1-d", "q-1-c"]
    );
    s.wallet_answer("q-1-d", &ack(1)).unwrap();
    assert_eq!(
        ids(
            s,
            WalletQuery {
                state: Some(WalletState::Pending),
                limit: Some(2),
                ..WalletQuery::default()
            }
        ),
        ["q-1-c", "q-2-d"]
    );
    // Not due before the time an attempt set.
    let all = s.wallet_calls(&WalletQuery::default()).unwrap();
    let written = all.iter().map(|w| w.created_ms).max().unwrap();
    s.wallet_attempt("q-2-c", written + 60_000).unwrap();
    assert_eq!(
        ids(
            s,
            WalletQuery {
                state: Some(WalletState::Pending),
                due_at_ms: Some(written + 1),
                ..WalletQuery::default()
            }
        ),
        ["q-1-c", "q-2-d"]
    );
    assert!(ids(
        s,
        WalletQuery {
            since_ms: Some(written + 1),
            ..WalletQuery::default()
        }
    )
    .is_empty());
    assert_eq!(
        ids(
            s,
            WalletQuery {
                since_ms: Some(all[0].created_ms),
                ..WalletQuery::default()
            }
        )
        .len(),
        4
    );
}

/// A server killed after writing a call finds it after the restart with the same id and
/// content; another server (or process) on the same books sees it too, and answers from
/// both count once.
pub fn pending_calls_survive_a_restart_and_are_shared_by_servers(s: &mut Books) {
    let r = s.begin_round(&new_round("t1", 7)).unwrap();
    let mut end = step(None, &[], vec![]);
    end.wallet = vec![credit("k-c", 25_50)];
    s.finish_round(r, &end, "{}", None).unwrap();
    s.wallet_attempt("k-c", 1).unwrap();
    let before = one(s, "k-c");
    s.reopen();
    assert_eq!(one(s, "k-c"), before);
    let mut other = s.another();
    let theirs = other.wallet_answer("k-c", &ack(125_50)).unwrap();
    let mine = s.wallet_answer("k-c", &lost()).unwrap();
    assert_eq!(mine, theirs);
    assert_eq!(mine.state, WalletState::Acknowledged);
    assert_eq!(mine.balance, Some(Money::cents(125_50)));
    let reader = s.reader();
    assert_eq!(
        reader.wallet_calls(&WalletQuery::default()).unwrap(),
        vec![mine]
    );
}

/// Books of schema 6 (before the outbox), holding an open round, as `seed` made them.
const SEED: [u8; 32] = [9; 32];

/// What books of schema 6 are after they were opened by this felt: migrated, the
/// round still there, and the outbox works for it.
fn migrated_from_6(s: &mut dyn felt_store::Store) {
    let open = s.unfinished_rounds().unwrap();
    assert_eq!(open.len(), 1);
    let r = open[0].id;
    let mut bet = step(Some(r#"{"bet":1}"#), &[], vec![]);
    bet.wallet = vec![debit("m-d1", 4_00)];
    s.record_step(r, &bet).unwrap();
    s.void_round(r, "migrated", &[]).unwrap();
    let calls = s.wallet_calls(&WalletQuery::default()).unwrap();
    let ids: Vec<_> = calls.iter().map(|w| w.transaction_id.as_str()).collect();
    assert_eq!(ids, ["m-d1", "m-d1-rollback", "m-c"]);
    assert!(s.check_books().unwrap().is_sound());
}

#[test]
fn sqlite_books_of_schema_6_migrate_to_7() {
    use felt_store::sqlite::schema::{APP_ID, MIGRATIONS};
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("felt.db");
    {
        let conn = rusqlite::Connection::open(&path).unwrap();
        for m in MIGRATIONS.iter().take_while(|m| m.version <= 6) {
            conn.execute_batch(m.sql).unwrap();
            conn.execute(
                "INSERT INTO schema_migrations (version, name) VALUES (?1, ?2)",
                rusqlite::params![m.version, m.name],
            )
            .unwrap();
        }
        conn.pragma_update(None, "user_version", 6).unwrap();
        conn.pragma_update(None, "application_id", APP_ID).unwrap();
        conn.execute(
            "INSERT INTO rounds (game_id, table_id, seed, seed_sha256) VALUES ('g', 't', ?1, ?2)",
            rusqlite::params![&SEED[..], felt_store::seed_hash(&SEED)],
        )
        .unwrap();
    }
    let mut s = felt_store::SqliteStore::open(&path).unwrap();
    // Through 7 to the newest schema.
    assert_eq!(
        s.schema_version().unwrap(),
        felt_store::sqlite::schema::LATEST
    );
    migrated_from_6(&mut s);
}

#[test]
fn postgres_books_of_schema_6_migrate_to_7() {
    use felt_store::postgres::schema::{MARK, MIGRATIONS};
    let url = felt_store::testing::TestPostgres::shared().fresh_database();
    {
        let mut conn = postgres::Client::connect(&url, postgres::NoTls).unwrap();
        for m in MIGRATIONS.iter().take_while(|m| m.version <= 6) {
            conn.batch_execute(m.sql).unwrap();
            conn.execute(
                "INSERT INTO schema_migrations (version, name) VALUES ($1, $2)",
                &[&m.version, &m.name],
            )
            .unwrap();
        }
        conn.batch_execute(&format!("COMMENT ON TABLE schema_migrations IS '{MARK}'"))
            .unwrap();
        conn.execute(
            "INSERT INTO rounds (game_id, table_id, seed, seed_sha256) VALUES ('g', 't', $1, $2)",
            &[&&SEED[..], &felt_store::seed_hash(&SEED)],
        )
        .unwrap();
    }
    let mut s = felt_store::PgStore::open(&url).unwrap();
    // Through 7 to the newest schema.
    assert_eq!(
        s.schema_version().unwrap(),
        felt_store::postgres::schema::LATEST
    );
    migrated_from_6(&mut s);
}

/// A finished round rolls back each debit that no step brought the money of (the
/// operator took it while felt stopped before the step), and closes at the operator
/// for its player with a credit of 0.00; a debit a step used stands.
pub fn a_finished_round_rolls_back_the_debits_no_step_used(s: &mut Books) {
    let r = s.begin_round(&new_round("t1", 7)).unwrap();
    let mut bet = step(Some(r#"{"bet":1}"#), &[], vec![funded("u-s1-d1", 1_00)]);
    bet.wallet = vec![debit("u-s1-d1", 1_00)];
    s.record_step(r, &bet).unwrap();
    let other = NewWalletCall {
        player: "op-player-2".into(),
        ..debit("u-s2-d1", 2_00)
    };
    s.record_wallet_calls(r, &[other]).unwrap();
    s.wallet_answer("u-s2-d1", &WalletAnswer::Acknowledged { balance: c(8_00) })
        .unwrap();
    let mut end = step(None, &[], vec![]);
    end.wallet = vec![credit("u-s1-c", 0)];
    s.finish_round(r, &end, "{}", None).unwrap();
    let calls: Vec<(String, WalletCallKind, String)> = calls_of(s, r)
        .into_iter()
        .map(|w| (w.transaction_id, w.kind, w.player))
        .collect();
    let p = |n: u8| format!("op-player-{n}");
    assert_eq!(
        calls,
        [
            ("u-s1-d1".to_string(), WalletCallKind::Debit, p(1)),
            ("u-s2-d1".to_string(), WalletCallKind::Debit, p(2)),
            ("u-s1-c".to_string(), WalletCallKind::Credit, p(1)),
            (rollback_id("u-s2-d1"), WalletCallKind::Rollback, p(2)),
            ("u-s2-c".to_string(), WalletCallKind::Credit, p(2)),
        ]
    );
    assert!(s.check_books().unwrap().is_sound());
}
