//! The wallet client against the reference operator (`felt operator-demo`), with each
//! fault injected: what felt sees, and that the operator applies every transaction once.
// Amounts are written as units_cents (250_00 is 250.00).
#![allow(clippy::inconsistent_digit_grouping)]

mod common;

use common::demo::{Operator, SECRET};

use felt_core::Money;
use felt_server::metrics::Metrics;
use felt_server::wallet::outbox::{
    answer_of, now_ms, outbound, CreditDetail, DebitDetail, Outbound, OutboxWorker, Pass,
    RetryPolicy, SharedStore,
};
use felt_server::wallet::wire::{
    request_id, Authenticate, Balance, BalanceAnswer, Credit, Debit, MeterAmount, RefusalCode,
    Rollback, Wager, Win, WireMoney,
};
use felt_server::wallet::{LostReason, Outcome, WalletClient};
use felt_store::{
    funding_memo, Account, Movement, MovementKind, NewRound, NewWalletCall, RoundId, SqliteStore,
    Step, Store, WalletAnswer, WalletCallKind, WalletQuery, WalletState,
};
use std::sync::{Arc, Mutex};

const PLAYER: &str = "p-1001";

async fn operator() -> Operator {
    Operator::start(&[(PLAYER, "Alice", 250_00)]).await
}

fn m(cents: i64) -> WireMoney {
    WireMoney(Money::cents(cents))
}

fn debit(id: &str, cents: i64) -> Debit {
    Debit {
        request_id: request_id(),
        transaction_id: id.into(),
        player: PLAYER.into(),
        round: "7".into(),
        amount: m(cents),
        wagers: vec![Wager {
            spot: 1,
            bet: "main".into(),
            amount: m(cents),
        }],
        jackpot: vec![],
    }
}

fn rollback(debit: &str) -> Rollback {
    Rollback {
        request_id: request_id(),
        transaction_id: format!("{debit}-rollback"),
        player: PLAYER.into(),
        round: "7".into(),
        rolls_back: debit.into(),
    }
}

fn balance_of(o: Outcome<BalanceAnswer>) -> i64 {
    match o {
        Outcome::Answered(a) => a.balance.0.as_cents(),
        other => panic!("not answered: {other:?}"),
    }
}

fn refused<A: std::fmt::Debug>(o: Outcome<A>) -> RefusalCode {
    match o {
        Outcome::Refused(r) => r.error,
        other => panic!("not refused: {other:?}"),
    }
}

fn lost<A: std::fmt::Debug>(o: Outcome<A>) -> LostReason {
    match o {
        Outcome::Lost(l) => l.reason,
        other => panic!("not lost: {other:?}"),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_conforming_wallet_answers_each_transaction_once() {
    let op = operator().await;
    let metrics = Arc::new(Metrics::new());
    let client = op.client(SECRET, &metrics);

    let token = {
        let expires = felt_server::wallet::signature::unix_now() + 60;
        op.wallet
            .with_books(move |b| b.launch_token(PLAYER, expires))
            .await
            .unwrap()
    };
    let auth = client
        .send(&Authenticate {
            request_id: request_id(),
            token: token.clone(),
        })
        .await;
    match auth {
        Outcome::Answered(a) => {
            assert_eq!((a.player.as_str(), a.name.as_str()), (PLAYER, "Alice"));
            assert_eq!((a.currency.as_str(), a.balance), ("EUR", m(250_00)));
        }
        other => panic!("{other:?}"),
    }
    let stale = Authenticate {
        request_id: request_id(),
        token: "lt-unknown".into(),
    };
    assert_eq!(
        refused(client.send(&stale).await),
        RefusalCode::SessionExpired
    );

    let d1 = debit("felt-7-d1", 30_00);
    assert_eq!(balance_of(client.send(&d1).await), 220_00);
    // The same transaction again (a retry, with a new request id): the first answer.
    let again = Debit {
        request_id: request_id(),
        ..d1.clone()
    };
    assert_eq!(balance_of(client.send(&again).await), 220_00);
    assert_eq!(op.applied("felt-7-d1").await, 1);
    // The same id with other content: refused.
    assert_eq!(
        refused(client.send(&debit("felt-7-d1", 31_00)).await),
        RefusalCode::TransactionMismatch
    );
    assert_eq!(
        refused(client.send(&debit("felt-7-d2", 500_00)).await),
        RefusalCode::InsufficientFunds
    );
    // A rollback of a debit never seen: 200, remembered, the debit refused later.
    assert_eq!(
        balance_of(client.send(&rollback("felt-7-d3")).await),
        220_00
    );
    assert_eq!(
        refused(client.send(&debit("felt-7-d3", 10_00)).await),
        RefusalCode::TransactionMismatch
    );
    assert_eq!(op.applied("felt-7-d3").await, 0);
    // A rollback of d1 gives its money back, once.
    assert_eq!(
        balance_of(client.send(&rollback("felt-7-d1")).await),
        250_00
    );
    assert_eq!(
        balance_of(client.send(&rollback("felt-7-d1")).await),
        250_00
    );
    assert_eq!(op.balance(PLAYER).await, Money::cents(250_00));

    let credit = Credit {
        request_id: request_id(),
        transaction_id: "felt-7-c".into(),
        player: PLAYER.into(),
        round: "7".into(),
        amount: m(12_50),
        round_closed: true,
        wins: vec![Win {
            spot: 1,
            hand: 1,
            bet: "main".into(),
            amount: m(12_50),
        }],
        jackpot_award: Some(MeterAmount {
            meter: "blazing".into(),
            amount: m(0),
        }),
    };
    assert_eq!(balance_of(client.send(&credit).await), 262_50);
    let b = Balance {
        request_id: request_id(),
        player: PLAYER.into(),
    };
    assert_eq!(balance_of(client.send(&b).await), 262_50);

    // Another secret: every call is refused, nothing is done.
    let wrong = op.client(b"another secret, also thirty-two bytes long", &metrics);
    assert_eq!(
        refused(wrong.send(&debit("felt-7-d4", 1_00)).await),
        RefusalCode::BadSignature
    );
    assert_eq!(op.applied("felt-7-d4").await, 0);
    let text = metrics.text();
    assert!(
        text.contains(r#"felt_wallet_calls_total{call="debit",outcome="refused"} 4"#),
        "{text}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn each_fault_is_a_lost_answer_or_a_repeat_and_nothing_is_applied_twice() {
    let op = operator().await;
    let metrics = Arc::new(Metrics::new());
    let client = op.client(SECRET, &metrics);

    // 5xx before committing: lost, nothing done.
    op.faults(&["fail-before-commit"]);
    assert_eq!(
        lost(client.send(&debit("f-d1", 10_00)).await),
        LostReason::ServerError
    );
    assert_eq!(op.applied("f-d1").await, 0);

    // The answer dropped after committing: lost, but done; the retry gets the answer.
    op.faults(&["drop-after-commit"]);
    assert_eq!(
        lost(client.send(&debit("f-d2", 10_00)).await),
        LostReason::Connection
    );
    assert_eq!(op.applied("f-d2").await, 1);
    op.faults(&["none"]);
    assert_eq!(balance_of(client.send(&debit("f-d2", 10_00)).await), 240_00);
    assert_eq!(op.applied("f-d2").await, 1);

    // Slow answers past the timeout: lost; done once, whatever the retries.
    op.faults(&["slow=1500"]);
    assert_eq!(
        lost(client.send(&debit("f-d3", 5_00)).await),
        LostReason::Timeout
    );
    op.faults(&["none"]);
    assert_eq!(balance_of(client.send(&debit("f-d3", 5_00)).await), 235_00);
    assert_eq!(op.applied("f-d3").await, 1);

    // A delay past the timeout: lost. A delay within it: answered.
    op.faults(&["delay=1500"]);
    assert_eq!(
        lost(client.send(&debit("f-d4", 1_00)).await),
        LostReason::Timeout
    );
    op.faults(&["delay=50"]);
    let answered = balance_of(client.send(&debit("f-d4", 1_00)).await);
    assert_eq!(op.applied("f-d4").await, 1);
    assert_eq!(op.balance(PLAYER).await, Money::cents(answered));

    // Duplicate delivery: answered, applied once.
    op.faults(&["duplicate"]);
    let before = op.balance(PLAYER).await;
    let after = balance_of(client.send(&debit("f-d5", 2_00)).await);
    assert_eq!(before - Money::cents(2_00), Money::cents(after));
    assert_eq!(op.applied("f-d5").await, 1);

    let text = metrics.text();
    for (reason, n) in [("server-error", 1), ("connection", 1), ("timeout", 2)] {
        let line =
            format!(r#"felt_wallet_lost_answers_total{{call="debit",outcome="{reason}"}} {n}"#);
        assert!(text.contains(&line), "{line} in\n{text}");
    }
}

/// The outbox and the wallet together: a debit whose answer is dropped is rolled back
/// by the books, the rollback goes to the operator, and both ledgers agree.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_lost_debit_is_rolled_back_through_the_outbox() {
    let op = operator().await;
    let metrics = Arc::new(Metrics::new());
    let client = op.client(SECRET, &metrics);
    let dir = tempfile::tempdir().unwrap();
    let mut store = SqliteStore::open(dir.path().join("felt.db")).unwrap();
    let round = store
        .begin_round(&NewRound {
            game_id: "blazing-7s".into(),
            table_id: "t1".into(),
            seed: [1; 32],
            ..NewRound::default()
        })
        .unwrap();
    let wire = debit("felt-9-d1", 20_00);
    let detail = serde_json::json!({ "wagers": wire.wagers, "jackpot": wire.jackpot });
    store
        .record_step(
            round,
            &Step {
                action: Some(r#"{"bet":1}"#.into()),
                wallet: vec![NewWalletCall {
                    transaction_id: wire.transaction_id.clone(),
                    kind: WalletCallKind::Debit,
                    player: PLAYER.into(),
                    amount: wire.amount.0,
                    detail_json: detail.to_string(),
                }],
                ..Step::default()
            },
        )
        .unwrap();
    op.faults(&["drop-after-commit"]);
    store.wallet_attempt("felt-9-d1", 0).unwrap();
    let outcome = client.send(&wire).await;
    let Outcome::Lost(why) = outcome else {
        panic!("{outcome:?}")
    };
    store
        .wallet_answer(
            "felt-9-d1",
            &WalletAnswer::Lost {
                detail: why.to_string(),
            },
        )
        .unwrap();
    assert_eq!(op.balance(PLAYER).await, Money::cents(230_00));
    op.faults(&["none"]);
    let pending = store
        .wallet_calls(&WalletQuery {
            state: Some(WalletState::Pending),
            ..WalletQuery::default()
        })
        .unwrap();
    let rb = pending
        .iter()
        .find(|c| c.kind == WalletCallKind::Rollback)
        .expect("the books wrote the rollback");
    let sent = client
        .send(&Rollback {
            request_id: request_id(),
            transaction_id: rb.transaction_id.clone(),
            player: rb.player.clone(),
            round: "7".into(),
            rolls_back: rb.rolls_back.clone().unwrap(),
        })
        .await;
    let balance = match sent {
        Outcome::Answered(a) => a.balance.0,
        other => panic!("{other:?}"),
    };
    store
        .wallet_answer(&rb.transaction_id, &WalletAnswer::Acknowledged { balance })
        .unwrap();
    let calls = store.wallet_calls(&WalletQuery::default()).unwrap();
    let states: Vec<_> = calls.iter().map(|c| (c.kind, c.state)).collect();
    assert_eq!(
        states,
        [
            (WalletCallKind::Debit, WalletState::RolledBack),
            (WalletCallKind::Rollback, WalletState::Acknowledged)
        ]
    );
    assert_eq!(op.balance(PLAYER).await, Money::cents(250_00));
    assert_eq!(balance, Money::cents(250_00));
}

fn open_store(path: &std::path::Path) -> SharedStore {
    let store: Box<dyn Store + Send> = Box::new(SqliteStore::open(path).unwrap());
    Arc::new(Mutex::new(store))
}

fn new_call(kind: WalletCallKind, id: &str, cents: i64, detail: String) -> NewWalletCall {
    NewWalletCall {
        transaction_id: id.into(),
        kind,
        player: PLAYER.into(),
        amount: Money::cents(cents),
        detail_json: detail,
    }
}

fn begin(store: &SharedStore, seed: u8) -> RoundId {
    store
        .lock()
        .unwrap()
        .begin_round(&NewRound {
            game_id: "blazing-7s".into(),
            table_id: "t1".into(),
            seed: [seed; 32],
            ..NewRound::default()
        })
        .unwrap()
}

/// Ends `round` with its closing credit `id` of these wins.
fn close_round(store: &SharedStore, round: RoundId, id: &str, wins: Vec<Win>) {
    let cents = wins.iter().map(|w| w.amount.0.as_cents()).sum();
    let detail = CreditDetail {
        round_closed: true,
        wins,
        jackpot_award: None,
    };
    let close = new_call(
        WalletCallKind::Credit,
        id,
        cents,
        serde_json::to_string(&detail).unwrap(),
    );
    store
        .lock()
        .unwrap()
        .finish_round(
            round,
            &Step {
                wallet: vec![close],
                ..Step::default()
            },
            "{}",
            None,
        )
        .unwrap();
}

fn debit_detail(cents: i64) -> String {
    serde_json::to_string(&DebitDetail {
        wagers: vec![Wager {
            spot: 1,
            bet: "main".into(),
            amount: m(cents),
        }],
        jackpot: vec![],
    })
    .unwrap()
}

/// A table's debit: written with its step, sent, its answer recorded.
async fn table_debit(
    store: &SharedStore,
    client: &WalletClient,
    round: RoundId,
    id: &str,
    cents: i64,
) {
    let call = new_call(WalletCallKind::Debit, id, cents, debit_detail(cents));
    let row = {
        let mut s = store.lock().unwrap();
        s.record_step(
            round,
            &Step {
                action: Some(r#"{"bet":1}"#.into()),
                wallet: vec![call],
                ..Step::default()
            },
        )
        .unwrap();
        s.wallet_attempt(id, now_ms() + 10_000).unwrap()
    };
    let Ok(Outbound::Debit(d)) = outbound(&row) else {
        panic!("{row:?}")
    };
    let answer = answer_of(WalletCallKind::Debit, client.send(&d).await);
    let mut s = store.lock().unwrap();
    s.wallet_answer(id, &answer).unwrap();
    if let WalletAnswer::Acknowledged { .. } = answer {
        // The bet's step brings the debit's money into the player's mirror, as a
        // table's does (a debit no step used is rolled back when the round finishes).
        let funded = Movement::new(
            Account::Cashier,
            Account::player(PLAYER),
            Money::cents(cents),
            MovementKind::Deposit,
        )
        .with_memo(funding_memo(id));
        let step = Step {
            movements: vec![funded],
            ..Step::default()
        };
        s.record_step(round, &step).unwrap();
    }
}

fn states(store: &SharedStore) -> Vec<(String, WalletState)> {
    let calls = store
        .lock()
        .unwrap()
        .wallet_calls(&WalletQuery::default())
        .unwrap();
    calls
        .into_iter()
        .map(|c| (c.transaction_id, c.state))
        .collect()
}

/// The retry worker sends the rollback of a lost debit and the round's closing credit
/// until the operator answers, the credit after the rollback, across a restart.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_worker_retries_rollbacks_and_the_closing_credit_across_a_restart() {
    let op = operator().await;
    let metrics = Arc::new(Metrics::new());
    let client = op.client(SECRET, &metrics);
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("felt.db");
    let store = open_store(&path);
    let round = begin(&store, 2);
    table_debit(&store, &client, round, "w-d1", 20_00).await;
    // The double's debit: done by the operator, its answer dropped.
    op.faults(&["drop-after-commit"]);
    table_debit(&store, &client, round, "w-d2", 20_00).await;
    let win = Win {
        spot: 1,
        hand: 1,
        bet: "main".into(),
        amount: m(40_00),
    };
    close_round(&store, round, "w-c", vec![win]);

    // The wallet fails: the rollback is lost, the credit waits for it.
    op.faults(&["fail-before-commit"]);
    let worker = OutboxWorker::new(store.clone(), client.clone(), RetryPolicy::default());
    let now = now_ms();
    let first = worker.pass(now).await.unwrap();
    assert_eq!(
        (first.lost, first.held, first.acknowledged),
        (1, 1, 0),
        "{first:?}"
    );
    // The rollback is not due again before its pause; the credit still waits for it.
    assert_eq!(
        worker.pass(now).await.unwrap(),
        Pass {
            held: 1,
            ..Pass::default()
        }
    );

    // felt is killed and restarted; the wallet is back.
    drop(worker);
    drop(store);
    op.faults(&["none"]);
    let store = open_store(&path);
    let worker = OutboxWorker::new(store.clone(), client.clone(), RetryPolicy::default());
    let later = now + 600_000;
    let second = worker.pass(later).await.unwrap();
    assert_eq!(
        (second.acknowledged, second.lost, second.held),
        (2, 0, 0),
        "{second:?}"
    );
    assert_eq!(worker.pass(later + 600_000).await.unwrap(), Pass::default());

    let s = |id: &str, st| (id.to_string(), st);
    assert_eq!(
        states(&store),
        [
            s("w-d1", WalletState::Acknowledged),
            s("w-d2", WalletState::RolledBack),
            s("w-d2-rollback", WalletState::Acknowledged),
            s("w-c", WalletState::Acknowledged),
        ]
    );
    let ledger = op.wallet.with_books(|b| b.ledger()).await.unwrap();
    let moved: Vec<_> = ledger
        .iter()
        .map(|r| (r.transaction_id.as_str(), r.delta.as_cents()))
        .collect();
    assert_eq!(
        moved,
        [
            ("w-d1", -20_00),
            ("w-d2", -20_00),
            ("w-d2-rollback", 20_00),
            ("w-c", 40_00)
        ]
    );
    assert_eq!(op.balance(PLAYER).await, Money::cents(270_00));
}

/// A debit its table never answered is rolled back by the worker (the operator then
/// refuses it if it arrives); a call unanswered past the retry time is given up.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_worker_rolls_back_debits_of_unknown_fate_and_gives_up_in_time() {
    let op = operator().await;
    let metrics = Arc::new(Metrics::new());
    let client = op.client(SECRET, &metrics);
    let dir = tempfile::tempdir().unwrap();
    let store = open_store(&dir.path().join("felt.db"));
    let round = begin(&store, 3);
    let orphan = new_call(WalletCallKind::Debit, "u-d1", 5_00, debit_detail(5_00));
    store
        .lock()
        .unwrap()
        .record_step(
            round,
            &Step {
                wallet: vec![orphan],
                ..Step::default()
            },
        )
        .unwrap();
    let policy = RetryPolicy::default();
    let worker = OutboxWorker::new(store.clone(), client.clone(), policy.clone());
    let now = now_ms();
    // Within its grace the table may still send it: left alone.
    assert_eq!(worker.pass(now).await.unwrap(), Pass::default());
    let after_grace = now + policy.debit_grace_ms + 1_000;
    let found = worker.pass(after_grace).await.unwrap();
    assert_eq!(found.debits_rolled_back, 1, "{found:?}");
    let sent = worker.pass(after_grace + 1).await.unwrap();
    assert_eq!(sent.acknowledged, 1, "{sent:?}");
    // The debit arriving now is refused: the operator remembered the rollback.
    let late = store
        .lock()
        .unwrap()
        .wallet_calls(&WalletQuery::default())
        .unwrap();
    let Ok(Outbound::Debit(d)) = outbound(&late[0]) else {
        panic!("{late:?}")
    };
    assert_eq!(
        refused(client.send(&d).await),
        RefusalCode::TransactionMismatch
    );
    assert_eq!(op.balance(PLAYER).await, Money::cents(250_00));

    // A credit the wallet never answers is given up after the retry time.
    let r2 = begin(&store, 4);
    close_round(&store, r2, "u-c", vec![]);
    op.faults(&["fail-before-commit"]);
    let brief = RetryPolicy {
        retry_for_ms: 60_000,
        ..RetryPolicy::default()
    };
    let worker = OutboxWorker::new(store.clone(), client, brief);
    let t = now_ms();
    assert_eq!(worker.pass(t).await.unwrap().lost, 1);
    assert_eq!(worker.pass(t + 120_000).await.unwrap().gave_up, 1);
    let given_up = store
        .lock()
        .unwrap()
        .wallet_calls(&WalletQuery::default())
        .unwrap();
    let c = given_up.iter().find(|c| c.transaction_id == "u-c").unwrap();
    assert_eq!(c.state, WalletState::Failed);
    assert!(c.reason.as_deref().unwrap().starts_with("gave up"), "{c:?}");
}

const TABLES: &str = "[[table]]\nname = \"lucky-lucky\"\ngame = \"lucky-lucky\"\nbetting_secs = 60\ndecision_secs = 60\npause_ms = 0\n";

/// The operator's staff read the outbox by round or time; nobody else may.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_staff_read_the_wallet_calls_by_round_and_time() {
    let server = common::start(TABLES).await;
    let (r1, r2) = server
        .state
        .books()
        .run(|st| -> felt_store::Result<(RoundId, RoundId)> {
            let mut rounds = Vec::new();
            for (seed, id) in [(7u8, "api-1-d1"), (8, "api-2-d1")] {
                let r = st.begin_round(&NewRound {
                    game_id: "lucky-lucky".into(),
                    table_id: "offline".into(),
                    seed: [seed; 32],
                    ..NewRound::default()
                })?;
                st.record_step(
                    r,
                    &Step {
                        wallet: vec![new_call(
                            WalletCallKind::Debit,
                            id,
                            3_00,
                            debit_detail(3_00),
                        )],
                        ..Step::default()
                    },
                )?;
                rounds.push(r);
            }
            st.wallet_answer(
                "api-2-d1",
                &WalletAnswer::Acknowledged {
                    balance: Money::cents(1_00),
                },
            )?;
            Ok((rounds[0], rounds[1]))
        })
        .await
        .unwrap();
    let ask = |cookie: Option<String>, query: String| {
        let url = format!("{}/api/operator/wallet?{query}", server.url);
        async move {
            let mut req = reqwest::Client::new().get(url);
            if let Some(c) = cookie {
                req = req.header("cookie", c);
            }
            let r = req.send().await.unwrap();
            let status = r.status().as_u16();
            (
                status,
                r.json::<serde_json::Value>().await.unwrap_or_default(),
            )
        }
    };
    let ids = |v: &serde_json::Value| -> Vec<String> {
        v["calls"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| c["transaction_id"].as_str().unwrap().to_string())
            .collect()
    };
    let olga = common::operator(&server, "olga").await;
    let (status, v) = ask(Some(olga.clone()), format!("round={}", r2.0)).await;
    assert_eq!(status, 200, "{v}");
    assert_eq!(ids(&v), ["api-2-d1"]);
    assert_eq!(v["calls"][0]["state"], "acknowledged");
    assert_eq!(v["calls"][0]["balance"], "1.00");
    let (_, v) = ask(Some(olga.clone()), "since=0&pending=true".into()).await;
    assert_eq!(ids(&v), ["api-1-d1"]);
    assert_eq!(v["calls"][0]["round"], r1.0);
    let (_, v) = ask(Some(olga.clone()), format!("since={}", now_ms() + 60_000)).await;
    assert!(ids(&v).is_empty(), "{v}");
    let (status, _) = ask(Some(olga), "round=x".into()).await;
    assert_eq!(status, 400);
    // A player's session, or none: refused.
    let player = common::register(&server.url, "pat").await;
    assert_eq!(ask(Some(player), "since=0".into()).await.0, 403);
    assert_eq!(ask(None, "since=0".into()).await.0, 401);
    server.stop().await;
}
