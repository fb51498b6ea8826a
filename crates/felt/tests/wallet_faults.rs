//! Proof under faults (`docs/operators.md`): `felt serve --wallet` killed with SIGKILL
//! at random moments while players launched by the reference operator play at every
//! table and the operator's wallet delays, drops answers after committing, fails
//! before committing, delivers twice and answers slowly, at random. After it every
//! round is closed at the operator, both ledgers agree round by round for every
//! player, no transaction moved money twice, no call is left pending, and `felt books`
//! and `felt replay --all` are clean (`faults/`). On SQLite with one server, and on
//! PostgreSQL with two sharing the tables by lease.
//!
//! `FELT_FAULT_KILLS` sets the kills (default 3 on each), `FELT_FAULT_SEED` the seed of
//! the kill moments, the faults and the players' choices (printed on failure).
//!
//! Two moments are also tested directly: a debit sent and never answered when its
//! server dies, rolled back at start-up; and a round resumed after a restart, closed
//! by its credit as usual.
// Amounts are written as units_cents (250_00 is 250.00).
#![allow(clippy::inconsistent_digit_grouping)]
#![cfg(unix)]

mod common;
mod faults;

use faults::checks::{self, OperatorBooks};
use faults::demo::{Operator, SECRET};
use faults::harness::{env_or, run, Harness};
use faults::player::Conn;
use felt_store::{BooksAt, RoundStatus, WalletCall, WalletCallKind, WalletQuery, WalletState};
use serde_json::{json, Value};
use std::path::PathBuf;
use std::process::Child;
use std::time::{Duration, Instant};

const SEED: u64 = 25;

#[test]
fn one_server_on_sqlite_killed_at_random_under_wallet_faults_moves_money_exactly_once() {
    let dir = tempfile::tempdir().unwrap();
    let f = run(Harness {
        books: BooksAt::Sqlite(dir.path().join("felt.db")),
        servers: 1,
        tables: 3,
        kills: env_or("FELT_FAULT_KILLS", 3),
        seed: env_or("FELT_FAULT_SEED", SEED),
    });
    assert!(f.counts.finished > 0, "{f:#?}");
}

#[test]
fn two_servers_on_postgres_one_killed_at_random_under_wallet_faults_move_money_exactly_once() {
    let pg = felt_store::testing::TestPostgres::start();
    let f = run(Harness {
        books: BooksAt::Postgres(pg.fresh_database()),
        servers: 2,
        tables: 4,
        kills: env_or("FELT_FAULT_KILLS", 3),
        seed: env_or("FELT_FAULT_SEED", SEED),
    });
    assert!(f.counts.finished > 0, "{f:#?}");
}

/// One `felt serve --wallet` on SQLite books, at one table `t` whose timers wait ten
/// minutes, and the reference operator with player `p-1` (250.00).
struct Single {
    rt: tokio::runtime::Runtime,
    op: Operator,
    dir: tempfile::TempDir,
    port: u16,
    server: Option<Child>,
}

impl Single {
    fn start() -> Single {
        let rt = faults::runtime();
        let op = rt.block_on(Operator::start(&[("p-1", "p-1", 250_00)]));
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("wallet.secret"), SECRET).unwrap();
        std::fs::write(
            dir.path().join("tables.toml"),
            "[[table]]\nname = \"t\"\ngame = \"blazing-7s\"\nbetting_secs = 600\n\
             decision_secs = 600\npause_ms = 0\n",
        )
        .unwrap();
        let mut s = Single {
            rt,
            op,
            dir,
            port: common::free_port(),
            server: None,
        };
        s.serve();
        s
    }

    fn db(&self) -> PathBuf {
        self.dir.path().join("felt.db")
    }

    fn url(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    fn serve(&mut self) {
        let p = |f: &str| self.dir.path().join(f).to_str().unwrap().to_string();
        let wallet = [
            "--wallet",
            &self.op.url,
            "--wallet-secret-file",
            &p("wallet.secret"),
        ];
        let log = self.dir.path().join("serve.log");
        let tables = self.dir.path().join("tables.toml");
        self.server = Some(common::serve(
            &p("felt.db"),
            &tables,
            self.port,
            &log,
            &wallet,
        ));
    }

    fn kill(&mut self) {
        let mut c = self.server.take().unwrap();
        c.kill().unwrap();
        c.wait().unwrap();
    }

    /// `p-1` launched at `t`, seated; the view that shows the seat.
    fn seated(&self) -> (Conn, Value) {
        let mut c = self
            .rt
            .block_on(Conn::launch(&self.op, &self.url(), "p-1", "t"))
            .unwrap();
        let view = self.rt.block_on(async {
            let w = c.until(10, |v| v["type"] == "welcome").await;
            if !w["seat"].is_u64() {
                c.send(json!({"type": "sit"})).await.unwrap();
            }
            c.until(10, |v| v["type"] == "view" && v["you"]["seat"].is_number())
                .await
        });
        (c, view)
    }

    fn calls(&self) -> Vec<WalletCall> {
        let books = felt_store::SqliteStore::open_read_only(self.db()).unwrap();
        felt_store::Store::wallet_calls(&books, &WalletQuery::default()).unwrap()
    }

    /// Waits until `pred` holds of the outbox (at most 30 s).
    fn calls_until(&self, what: &str, pred: impl Fn(&[WalletCall]) -> bool) -> Vec<WalletCall> {
        let began = Instant::now();
        loop {
            let calls = self.calls();
            if pred(&calls) {
                return calls;
            }
            assert!(
                began.elapsed() < Duration::from_secs(30),
                "{what}: {calls:#?}"
            );
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    /// Stops the server cleanly and runs every check of the harness.
    fn stop_and_check(mut self) {
        self.calls_until("every call answered", |calls| {
            calls.iter().all(|c| c.state != WalletState::Pending)
        });
        let log = self.dir.path().join("serve.log");
        common::stop_cleanly(self.server.take().unwrap(), &log);
        let rt = &self.rt;
        let op = OperatorBooks {
            ledger: rt.block_on(self.op.ledger()),
            transactions: rt
                .block_on(self.op.wallet.with_books(|b| b.transactions()))
                .unwrap(),
            balances: [(
                "p-1".to_string(),
                (250_00, rt.block_on(self.op.balance("p-1")).as_cents()),
            )]
            .into(),
        };
        checks::settled(&BooksAt::Sqlite(self.db()), &op);
    }
}

impl Drop for Single {
    /// A test that ends without stopping its server (or fails first) leaves no
    /// `felt serve` running behind it.
    fn drop(&mut self) {
        if let Some(mut c) = self.server.take() {
            let _ = c.kill();
            let _ = c.wait();
        }
    }
}

/// A bet of 10.00 on the main bet in the round the view shows.
fn bet(v: &Value, id: &str) -> Value {
    json!({"type": "bet", "round": v["round_id"], "id": id,
           "spots": [{"spot": 1, "main": "10.00", "side": {}}]})
}

/// `p-1` seated and betting 10.00 while the operator's books wait: the debit is sent
/// and its answer does not come until the sender is used.
fn a_debit_held_at_the_operator(s: &Single) -> std::sync::mpsc::Sender<()> {
    let (mut c, _) = s.seated();
    let release = s.rt.block_on(s.op.hold());
    bet_sent(s, &mut c);
    release
}

/// Bets 10.00 once betting is open; returns once felt has sent the debit.
fn bet_sent(s: &Single, c: &mut Conn) {
    s.rt.block_on(async {
        let v = c
            .until(10, |v| v["type"] == "view" && v["you"]["may_bet"] == true)
            .await;
        c.send(bet(&v, "b1")).await.unwrap();
        c.until(10, |v| v["type"] == "pending").await;
    });
}

#[test]
fn a_debit_sent_and_never_answered_before_a_kill_is_rolled_back_after_the_restart() {
    let mut s = Single::start();
    // The operator takes the debit, then answers a byte at a time for a minute.
    let (mut c, _) = s.seated();
    s.op.faults(&["slow=60000"]);
    bet_sent(&s, &mut c);
    let began = Instant::now();
    while s.rt.block_on(s.op.balance("p-1")).as_cents() != 240_00 {
        assert!(
            began.elapsed() < Duration::from_secs(20),
            "the operator never took the debit"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    // felt dies before the answer has come.
    s.kill();
    s.op.faults(&["none"]);
    let at_start = s.calls();
    assert_eq!(at_start.len(), 1, "{at_start:#?}");
    let debit = &at_start[0];
    assert_eq!(
        (
            debit.kind,
            debit.state,
            debit.attempts,
            debit.rollback.as_deref()
        ),
        (WalletCallKind::Debit, WalletState::Pending, 1, None),
        "sent once, no answer in the books at start-up"
    );
    s.serve();
    let id = debit.transaction_id.clone();
    let calls = s.calls_until("the debit rolled back", |calls| {
        calls
            .iter()
            .any(|c| c.transaction_id == id && c.state == WalletState::RolledBack)
    });
    let rollback = calls
        .iter()
        .find(|c| c.rolls_back.as_deref() == Some(&id))
        .unwrap();
    assert_eq!(rollback.state, WalletState::Acknowledged, "{calls:#?}");
    assert_eq!(s.rt.block_on(s.op.balance("p-1")).as_cents(), 250_00);
    s.stop_and_check();
}

/// Plays rounds until one waits on the player's decision (not an offer): that view.
fn a_round_at_a_decision(s: &Single, c: &mut Conn) -> Value {
    for n in 0..12 {
        let v = s.rt.block_on(async {
            let v = c
                .until(10, |v| v["type"] == "view" && v["you"]["may_bet"] == true)
                .await;
            c.send(bet(&v, &format!("b{n}"))).await.unwrap();
            loop {
                let v = c
                    .until(15, |v| {
                        let phase = &v["round"]["phase"];
                        v["type"] == "view"
                            && phase != "betting"
                            && (phase == "done" || !v["you"]["decisions"][0].is_null())
                    })
                    .await;
                let d = &v["you"]["decisions"][0];
                if d.is_null() || d["offer"] != true {
                    return v;
                }
                let decline = json!({"type": "act", "round": v["round_id"], "spot": 1,
                    "hand": 1, "decision": "decline", "id": format!("n{n}")});
                c.send(decline).await.unwrap();
            }
        });
        if !v["you"]["decisions"][0].is_null() {
            return v;
        }
    }
    panic!("no round in 12 waited on a decision");
}

#[test]
fn a_round_resumed_after_a_kill_is_closed_by_its_credit_as_usual() {
    let mut s = Single::start();
    let (mut c, _) = s.seated();
    let v = a_round_at_a_decision(&s, &mut c);
    let round = v["round_id"].as_i64().unwrap();
    s.kill();
    let open = |s: &Single| {
        let books = felt_store::SqliteStore::open_read_only(s.db()).unwrap();
        felt_store::Store::round(&books, felt_store::RoundId(round))
            .unwrap()
            .unwrap()
            .status
    };
    assert_eq!(open(&s), RoundStatus::Open);
    s.serve();
    let (mut c, seen) = s.seated();
    s.rt.block_on(async {
        let at_decision = |v: &Value| v["round_id"] == round && !v["you"]["decisions"][0].is_null();
        let v = match at_decision(&seen) {
            true => seen,
            false => c.until(10, |v| v["type"] == "view" && at_decision(v)).await,
        };
        let d = &v["you"]["decisions"][0];
        let stand = json!({"type": "act", "round": round, "spot": d["spot"],
            "hand": d["hand"], "decision": "stand", "id": "after-the-restart"});
        c.send(stand).await.unwrap();
        c.until(15, |v| v["type"] == "view" && v["in_play"] == false)
            .await;
    });
    assert_eq!(open(&s), RoundStatus::Finished);
    let calls = s.calls_until("the round's credit acknowledged", |calls| {
        calls.iter().any(|c| {
            c.round.0 == round
                && c.kind == WalletCallKind::Credit
                && c.state == WalletState::Acknowledged
        })
    });
    let credit = calls
        .iter()
        .find(|c| c.round.0 == round && c.kind == WalletCallKind::Credit)
        .unwrap();
    assert!(
        credit.detail_json.contains(r#""round_closed":true"#),
        "{credit:#?}"
    );
    s.stop_and_check();
}

/// Waits for the server's next renewal of table `t`'s lease, then gives the lease to
/// another server (as a takeover does when this one seems dead).
fn take_the_table_over(s: &Single) {
    let c = rusqlite::Connection::open(s.db()).unwrap();
    c.busy_timeout(Duration::from_secs(10)).unwrap();
    let expires = || -> i64 {
        c.query_row(
            "SELECT expires_ms FROM table_leases WHERE table_id = 'online/t'",
            [],
            |r| r.get(0),
        )
        .unwrap()
    };
    let was = expires();
    let began = Instant::now();
    while expires() == was {
        assert!(began.elapsed() < Duration::from_secs(10), "no renewal");
        std::thread::sleep(Duration::from_millis(5));
    }
    let stolen = c
        .execute(
            "UPDATE table_leases SET server = 'another', url = 'http://127.0.0.1:9', \
             epoch = epoch + 1, expires_ms = expires_ms + 3600000 WHERE table_id = 'online/t'",
            [],
        )
        .unwrap();
    assert_eq!(stolen, 1);
}

#[test]
fn a_debit_taken_after_its_table_moved_to_another_server_is_rolled_back() {
    let s = Single::start();
    let release = a_debit_held_at_the_operator(&s);
    // The table moves while the operator takes the debit: its answer reaches a
    // server that may no longer step the bet into the round.
    take_the_table_over(&s);
    release.send(()).unwrap();
    let calls = s.calls_until("the debit rolled back", |calls| {
        calls
            .iter()
            .any(|c| c.kind == WalletCallKind::Rollback && c.state == WalletState::Acknowledged)
    });
    assert_eq!(calls[0].kind, WalletCallKind::Debit, "{calls:#?}");
    assert_eq!(calls[0].state, WalletState::RolledBack, "{calls:#?}");
    assert_eq!(s.rt.block_on(s.op.balance("p-1")).as_cents(), 250_00);
}

/// New SQLite books in `dir` with an open round at table `t`.
fn books_with_a_round(dir: &tempfile::TempDir) -> (felt_store::SqliteStore, felt_store::RoundId) {
    use felt_store::Store;
    let mut books = felt_store::SqliteStore::open(dir.path().join("felt.db")).unwrap();
    let table = felt_store::NewRound {
        game_id: "blazing-7s".into(),
        table_id: "online/t".into(),
        ..felt_store::NewRound::default()
    };
    let round = books.begin_round(&table).unwrap();
    (books, round)
}

#[test]
fn a_closing_credit_waits_for_a_debit_of_its_round_whose_fate_is_unknown() {
    use felt_server::wallet::outbox::{now_ms, OutboxWorker, RetryPolicy, SharedStore};
    use felt_server::wallet::Outcome;
    use felt_store::{debit_id, NewWalletCall, Step, Store, WalletAnswer};
    let rt = faults::runtime();
    let op = rt.block_on(Operator::start(&[("p-1", "p-1", 250_00)]));
    let client = op.client(SECRET, &Default::default());
    let dir = tempfile::tempdir().unwrap();
    let (mut books, round) = books_with_a_round(&dir);
    let debit = |n: u32, bet: &str| NewWalletCall {
        transaction_id: debit_id(round, 0, n),
        kind: WalletCallKind::Debit,
        player: "p-1".into(),
        amount: felt_core::Money::cents(10_00),
        detail_json: format!(
            r#"{{"wagers":[{{"spot":1,"bet":"{bet}","amount":"10.00"}}],"jackpot":[]}}"#
        ),
    };
    // The bet, taken; then a double, sent, taken by the operator, and its answer lost
    // with the server that sent it (its due time is when that server's wait ends).
    for (n, bet) in [(1, "main"), (2, "double")] {
        let call = debit(n, bet);
        books
            .record_wallet_calls(round, std::slice::from_ref(&call))
            .unwrap();
        books
            .wallet_attempt(&call.transaction_id, now_ms() + 60_000)
            .unwrap();
        let sent = felt_server::wallet::outbox::outbound(
            &books
                .wallet_calls(&WalletQuery {
                    round: Some(round),
                    ..WalletQuery::default()
                })
                .unwrap()[usize::try_from(n).unwrap() - 1],
        )
        .unwrap();
        let felt_server::wallet::outbox::Outbound::Debit(d) = sent else {
            panic!("a debit")
        };
        let Outcome::Answered(a) = rt.block_on(client.send(&d)) else {
            panic!("the operator took the debit")
        };
        if n == 1 {
            let answer = WalletAnswer::Acknowledged {
                balance: a.balance.0,
            };
            books.wallet_answer(&call.transaction_id, &answer).unwrap();
            // The bet's step brings the debit's money into the player's mirror (a debit
            // no step used is rolled back when the round finishes).
            let funded = felt_store::Movement::new(
                felt_store::Account::Cashier,
                felt_store::Account::player("p-1"),
                felt_core::Money::cents(10_00),
                felt_store::MovementKind::Deposit,
            )
            .with_memo(felt_store::funding_memo(&call.transaction_id));
            let bet = Step {
                action: Some(r#"{"bet":1}"#.into()),
                movements: vec![funded],
                ..Step::default()
            };
            books.record_step(round, &bet).unwrap();
        }
    }
    // The round, resumed without the double, ends: its closing credit pays nothing.
    let credit = NewWalletCall {
        transaction_id: felt_store::credit_id(round, 0),
        kind: WalletCallKind::Credit,
        player: "p-1".into(),
        amount: felt_core::Money::ZERO,
        detail_json: r#"{"round_closed":true,"wins":[],"jackpot_award":null}"#.into(),
    };
    let last = Step {
        wallet: vec![credit],
        ..Step::default()
    };
    books.finish_round(round, &last, "{}", None).unwrap();
    let shared: SharedStore = std::sync::Arc::new(std::sync::Mutex::new(Box::new(books)));
    let worker = OutboxWorker::new(shared, client, RetryPolicy::default());
    let first = rt.block_on(worker.pass(now_ms())).unwrap();
    assert_eq!(
        first.held, 1,
        "the credit waits for the double's fate: {first:?}"
    );
    // Once the double's wait is over it is lost, rolled back, and then the round closes.
    for _ in 0..4 {
        rt.block_on(worker.pass(now_ms() + 61_000)).unwrap();
    }
    let at_operator: Vec<String> = rt
        .block_on(op.wallet.with_books(|b| b.transactions()))
        .unwrap()
        .into_iter()
        .map(|t| t.id)
        .collect();
    let id = |s: &str| format!("felt-{}-s1-{s}", round.0);
    assert_eq!(
        at_operator,
        [id("d1"), id("d2"), id("d2-rollback"), id("c")],
        "the closing credit is the round's last call"
    );
    assert_eq!(rt.block_on(op.balance("p-1")).as_cents(), 240_00);
}

#[test]
fn a_player_whose_debits_were_all_rolled_back_still_gets_the_rounds_closing_credit() {
    use felt_store::{debit_id, NewWalletCall, Step, Store, WalletAnswer};
    let dir = tempfile::tempdir().unwrap();
    let (mut books, round) = books_with_a_round(&dir);
    let bet = NewWalletCall {
        transaction_id: debit_id(round, 0, 1),
        kind: WalletCallKind::Debit,
        player: "p-1".into(),
        amount: felt_core::Money::cents(10_00),
        detail_json: r#"{"wagers":[],"jackpot":[]}"#.into(),
    };
    books.record_wallet_calls(round, &[bet]).unwrap();
    let lost = WalletAnswer::Lost {
        detail: "timeout".into(),
    };
    books.wallet_answer(&debit_id(round, 0, 1), &lost).unwrap();
    // The round plays on without the bet (others' bets) and finishes: nothing paid p-1.
    books
        .finish_round(round, &Step::default(), "{}", None)
        .unwrap();
    let credits: Vec<WalletCall> = books
        .wallet_calls(&WalletQuery::default())
        .unwrap()
        .into_iter()
        .filter(|c| c.kind == WalletCallKind::Credit)
        .collect();
    assert_eq!(
        credits.len(),
        1,
        "the round ends at the operator for p-1 too"
    );
    assert_eq!(credits[0].player, "p-1");
    assert_eq!(credits[0].amount, felt_core::Money::ZERO);
    assert!(credits[0].detail_json.contains(r#""round_closed":true"#));
}
