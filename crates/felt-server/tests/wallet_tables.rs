//! The tables' money through the operator's wallet (`docs/operators.md`): a server in
//! wallet mode and the reference operator, both in this process; players bet and play
//! over the WebSocket, and felt's books and the operator's ledger are compared.
// Amounts are written as units_cents (250_00 is 250.00).
#![allow(clippy::inconsistent_digit_grouping)]

mod common;

use common::demo::{Operator, SECRET};

use common::{connect, start_wallet, Client, Running};
use felt_core::Money;
use felt_server::app::Settings;
use felt_server::metrics::Metrics;
use felt_server::operator_demo::books::LedgerRow;
use felt_server::wallet::outbox::{OutboxWorker, RetryPolicy};
use felt_server::wallet::table::WalletMode;
use felt_server::wallet::wire::{request_id, Debit, Wager, WireMoney};
use felt_server::wallet::{Outcome, WalletClient};
use felt_store::{
    Account, NewRound, RoundId, SqliteStore, Store, WalletAnswer, WalletCall, WalletCallKind,
    WalletQuery, WalletState,
};
use serde_json::Value;
use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// The operator's players: `(id, balance in cents)`.
async fn operator(players: &[(&str, i64)]) -> Operator {
    let named: Vec<(&str, &str, i64)> = players.iter().map(|(id, c)| (*id, *id, *c)).collect();
    Operator::start(&named).await
}

/// Holds the operator's books (every call waits) until the sender is used.
async fn hold(op: &Operator) -> std::sync::mpsc::Sender<()> {
    op.hold().await
}

/// Blocks or unblocks a player at the operator.
async fn block(op: &Operator, player: &str, blocked: bool) {
    let p = player.to_string();
    op.wallet
        .with_books(move |b| b.set_blocked(&p, blocked))
        .await
        .unwrap();
}

/// A wallet-mode server on new books, its outbox worker retrying at once.
async fn wallet_server(op: &Operator, tables: &str) -> Running {
    wallet_server_waiting(op, tables, Duration::from_millis(700)).await
}

/// [`wallet_server`], its calls timing out after `timeout`.
async fn wallet_server_waiting(op: &Operator, tables: &str, timeout: Duration) -> Running {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("felt.db");
    wallet_server_on(op, dir, db, tables, timeout).await
}

/// A wallet-mode server on the books `db` (new or a stopped server's).
async fn wallet_server_on(
    op: &Operator,
    dir: tempfile::TempDir,
    db: std::path::PathBuf,
    tables: &str,
    timeout: Duration,
) -> Running {
    let mode = WalletMode {
        settings: op.settings(SECRET, timeout),
        runtime: tokio::runtime::Handle::current(),
        outbox: Box::new(SqliteStore::open(&db).unwrap()),
        policy: RetryPolicy {
            first_ms: 50,
            max_ms: 200,
            ..RetryPolicy::default()
        },
        every: Duration::from_millis(100),
    };
    let settings = Settings {
        rate_per_s: 50.0,
        burst: 60.0,
        starting_balance: Money::ZERO,
        // The test mode: an operator's session may stack a table's shoe.
        test_shoes: true,
        ..Settings::default()
    };
    start_wallet(dir, db, tables, settings, mode).await
}

fn table(name: &str, decision_secs: u32) -> String {
    format!(
        "[[table]]\nname = \"{name}\"\ngame = \"blazing-7s\"\nbetting_secs = 600\ndecision_secs = {decision_secs}\npause_ms = 0\n"
    )
}

/// A launch link of the operator for `player` at `table`.
async fn launch_link(op: &Operator, server: &Running, player: &str, table: &str) -> String {
    op.launch_link(&server.url, player, table).await
}

/// Follows a launch link: the answer (not followed further).
async fn follow(link: &str) -> reqwest::Response {
    reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .unwrap()
        .get(link)
        .send()
        .await
        .unwrap()
}

/// `player` launched by the operator and seated at `table`, once the view shows the
/// operator's balance.
async fn seated(
    op: &Operator,
    server: &Running,
    player: &str,
    table: &str,
    balance: &str,
) -> Client {
    seated_with_cookie(op, server, player, table, balance)
        .await
        .0
}

/// As [`seated`], with the launched session's cookie.
async fn seated_with_cookie(
    op: &Operator,
    server: &Running,
    player: &str,
    table: &str,
    balance: &str,
) -> (Client, String) {
    let r = follow(&launch_link(op, server, player, table).await).await;
    assert_eq!(r.status(), 303);
    assert_eq!(r.headers()["location"], format!("/#/table/{table}"));
    let cookie = common::session_cookie(&r);
    let mut c = connect(&server.url, Some(&cookie), None).await.unwrap();
    c.send(&format!(
        r#"{{"type":"hello","version":1,"table":"{table}"}}"#
    ))
    .await;
    c.until(5, |v| v["type"] == "welcome").await;
    c.send(r#"{"type":"sit"}"#).await;
    c.until(5, |v| {
        v["type"] == "view" && v["you"]["seat"].is_number() && v["you"]["balance"] == balance
    })
    .await;
    (c, cookie)
}

/// The round the player's view shows.
async fn round_of(c: &mut Client) -> i64 {
    c.send(r#"{"type":"sync"}"#).await;
    let v = c
        .until(5, |v| v["type"] == "view" && v["you"]["may_bet"] == true)
        .await;
    v["round_id"].as_i64().unwrap()
}

fn bet(round: i64, id: &str, main: &str, side: &str) -> String {
    format!(
        r#"{{"type":"bet","round":{round},"id":"{id}","spots":[{{"spot":1,"main":"{main}","side":{{"blazing-7s":"{side}"}}}}]}}"#
    )
}

/// Bets and lets the round play out (the decision timer stands every hand); the view
/// of its end.
async fn play_round(c: &mut Client, id: &str, main: &str, side: &str) -> i64 {
    let round = round_of(c).await;
    c.send(&bet(round, id, main, side)).await;
    let v = c
        .until(5, |v| v["type"] == "pending" || v["type"] == "error")
        .await;
    assert_eq!(v["type"], "pending", "{v}");
    c.until(15, |v| v["type"] == "view" && v["in_play"] == false)
        .await["round_id"]
        .as_i64()
        .unwrap()
}

fn calls(server: &Running) -> Vec<WalletCall> {
    let store = SqliteStore::open(&server.db).unwrap();
    store.wallet_calls(&WalletQuery::default()).unwrap()
}

/// Waits until the outbox has no pending call.
async fn settled(server: &Running) -> Vec<WalletCall> {
    for _ in 0..200 {
        let all = calls(server);
        if all.iter().all(|c| c.state != WalletState::Pending) {
            return all;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    panic!("calls still pending: {:#?}", calls(server));
}

/// What each round moved for each player, as felt's outbox says the operator took it:
/// the acknowledged debits (not rolled back) out, the acknowledged credits in.
fn felt_rounds(calls: &[WalletCall]) -> BTreeMap<(String, String), i64> {
    let mut out = BTreeMap::new();
    for c in calls
        .iter()
        .filter(|c| c.state == WalletState::Acknowledged)
    {
        let change = match c.kind {
            WalletCallKind::Debit => -c.amount.as_cents(),
            WalletCallKind::Credit => c.amount.as_cents(),
            WalletCallKind::Rollback => continue,
        };
        *out.entry((c.round.0.to_string(), c.player.clone()))
            .or_insert(0) += change;
    }
    out.retain(|_, v| *v != 0);
    out
}

/// What each round moved for each player in the operator's ledger; no transaction
/// in it twice.
fn operator_rounds(rows: &[LedgerRow]) -> BTreeMap<(String, String), i64> {
    let mut seen = std::collections::BTreeSet::new();
    let mut out = BTreeMap::new();
    for r in rows {
        assert!(
            seen.insert(&r.transaction_id),
            "{} applied twice",
            r.transaction_id
        );
        *out.entry((r.round.clone(), r.player.clone())).or_insert(0) += r.delta.as_cents();
    }
    out.retain(|_, v| *v != 0);
    out
}

/// Every round that took money closed with exactly one credit per player, `round_closed`.
fn every_round_closed(calls: &[WalletCall]) {
    let mut rounds: Vec<(RoundId, String)> = calls
        .iter()
        .filter(|c| c.kind == WalletCallKind::Debit && c.state != WalletState::Failed)
        .map(|c| (c.round, c.player.clone()))
        .collect();
    rounds.dedup();
    for (round, player) in rounds {
        let credits: Vec<&WalletCall> = calls
            .iter()
            .filter(|c| c.kind == WalletCallKind::Credit && c.round == round && c.player == player)
            .collect();
        assert_eq!(credits.len(), 1, "round {round} of {player}: {credits:#?}");
        assert!(credits[0].detail_json.contains(r#""round_closed":true"#));
        assert_eq!(credits[0].state, WalletState::Acknowledged);
    }
}

/// felt's books are sound, every round replays as logged, and the mirror accounts are
/// empty between rounds.
fn books_clean(server: &Running, players: &[&str]) {
    let store = SqliteStore::open(&server.db).unwrap();
    assert!(store.check_books().unwrap().is_sound());
    common::books_replay(&store);
    for p in players {
        assert_eq!(store.balance(&Account::player(*p)).unwrap(), Money::ZERO);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn stakes_and_wins_go_through_the_wallet_and_both_ledgers_agree_round_by_round() {
    let op = operator(&[("p-1", 250_00)]).await;
    let server = wallet_server(&op, &table("t", 1)).await;
    let mut c = seated(&op, &server, "p-1", "t", "250.00").await;
    let mut balance = Money::cents(250_00);
    for n in 1..=2 {
        let round = play_round(&mut c, &format!("b{n}"), "10.00", "1.00").await;
        let all = settled(&server).await;
        let of_round: Vec<&WalletCall> = all.iter().filter(|c| c.round.0 == round).collect();
        let debit = of_round
            .iter()
            .find(|c| c.kind == WalletCallKind::Debit)
            .unwrap();
        // One debit for every wager: the main bet and the side bet, its progressive
        // contribution reported with it.
        assert_eq!(debit.amount, Money::cents(11_00));
        assert_eq!(debit.state, WalletState::Acknowledged);
        let detail: Value = serde_json::from_str(&debit.detail_json).unwrap();
        assert_eq!(detail["wagers"].as_array().unwrap().len(), 2);
        assert_eq!(detail["jackpot"][0]["meter"], "blazing-7s");
        let credit = of_round
            .iter()
            .find(|c| c.kind == WalletCallKind::Credit)
            .unwrap();
        balance = balance - debit.amount + credit.amount;
        assert_eq!(op.balance("p-1").await, balance, "after round {round}");
        every_round_closed(&all);
        assert_eq!(operator_rounds(&op.ledger().await), felt_rounds(&all));
    }
    books_clean(&server, &["p-1"]);
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_refused_or_lost_debit_refuses_the_bet_and_a_lost_one_is_rolled_back() {
    let op = operator(&[("p-1", 250_00)]).await;
    let server = wallet_server(&op, &table("t", 1)).await;
    let mut c = seated(&op, &server, "p-1", "t", "250.00").await;
    let round = round_of(&mut c).await;

    block(&op, "p-1", true).await;
    c.send(&bet(round, "blocked", "10.00", "0.00")).await;
    let e = c.until(5, |v| v["type"] == "error").await;
    assert_eq!(e["code"], "player-blocked", "{e}");
    assert!(e["message"].as_str().unwrap().contains("operator refused"));
    // The operator's block ends the seat (issue 26 item 7).
    c.until(5, |v| v["type"] == "view" && v["you"]["seat"].is_null())
        .await;
    block(&op, "p-1", false).await;
    c.send(r#"{"type":"sit"}"#).await;
    c.until(5, |v| v["type"] == "view" && v["you"]["seat"].is_number())
        .await;
    let round = round_of(&mut c).await;

    for (n, fault) in ["fail-before-commit", "drop-after-commit", "delay=1500"]
        .iter()
        .enumerate()
    {
        op.faults(&[fault]);
        c.send(&bet(round, &format!("lost{n}"), "10.00", "0.00"))
            .await;
        let e = c.until(5, |v| v["type"] == "error").await;
        assert_eq!(e["code"], "wallet-unavailable", "{fault}: {e}");
        op.faults(&["none"]);
        let all = settled(&server).await;
        let debit = all
            .iter()
            .rfind(|c| c.kind == WalletCallKind::Debit)
            .unwrap();
        assert_eq!(debit.state, WalletState::RolledBack, "{fault}: {debit:#?}");
        assert_eq!(op.balance("p-1").await, Money::cents(250_00), "{fault}");
    }

    // Delivered twice: applied once.
    op.faults(&["duplicate"]);
    c.send(&bet(round, "twice", "10.00", "0.00")).await;
    c.until(15, |v| {
        v["type"] == "view" && v["in_play"] == false && v["round_id"] == round
    })
    .await;
    op.faults(&["none"]);
    let all = settled(&server).await;
    every_round_closed(&all);
    assert_eq!(operator_rounds(&op.ledger().await), felt_rounds(&all));
    books_clean(&server, &["p-1"]);
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_slow_wallet_holds_up_neither_its_own_table_nor_another() {
    let op = operator(&[("p-1", 250_00), ("p-2", 250_00)]).await;
    let tables = format!("{}{}", table("slow", 600), table("other", 1));
    let server = wallet_server_waiting(&op, &tables, Duration::from_secs(30)).await;
    let mut a = seated(&op, &server, "p-1", "slow", "250.00").await;
    let mut b = seated(&op, &server, "p-2", "other", "250.00").await;
    let round_b = round_of(&mut b).await;
    b.send(&bet(round_b, "b", "10.00", "0.00")).await;
    b.until(5, |v| {
        v["type"] == "view" && v["seats"][0]["has_bet"] == true
    })
    .await;

    // The wallet answers nothing until released.
    let release = hold(&op).await;
    let round_a = round_of(&mut a).await;
    a.send(&bet(round_a, "a", "10.00", "0.00")).await;
    a.until(5, |v| v["type"] == "pending").await;
    // The other table plays its round out meanwhile (its decision timer stands the
    // hand)...
    b.until(10, |v| v["type"] == "view" && v["in_play"] == false)
        .await;
    // ...and the slow table still answers, showing the bet pending.
    a.send(r#"{"type":"sync"}"#).await;
    let view = a.until(5, |v| v["type"] == "view").await;
    assert_eq!(view["seats"][0]["bet_pending"], true, "{view}");
    assert_eq!(view["seats"][0]["has_bet"], false, "{view}");
    release.send(()).unwrap();
    let bet_in = a
        .until(5, |v| {
            v["type"] == "view" && v["seats"][0]["bet_pending"] == false
        })
        .await;
    assert_eq!(bet_in["seats"][0]["has_bet"], true, "{bet_in}");
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_voided_round_rolls_its_debits_back_then_closes_at_the_operator() {
    let op = operator(&[("p-1", 250_00)]).await;
    let dir = tempfile::tempdir().unwrap();
    let mut store = SqliteStore::open(dir.path().join("felt.db")).unwrap();
    let round = store
        .begin_round(&NewRound {
            game_id: "g".into(),
            table_id: "t".into(),
            seed: [1; 32],
            ..Default::default()
        })
        .unwrap();
    let id = felt_store::debit_id(round, 0, 1);
    let detail = r#"{"wagers":[{"spot":1,"bet":"main","amount":"10.00"}],"jackpot":[]}"#;
    store
        .record_wallet_calls(
            round,
            &[felt_store::NewWalletCall {
                transaction_id: id.clone(),
                kind: WalletCallKind::Debit,
                player: "p-1".into(),
                amount: Money::cents(10_00),
                detail_json: detail.into(),
            }],
        )
        .unwrap();
    let settings = op.settings(SECRET, Duration::from_millis(700));
    let client = WalletClient::new(settings, Arc::new(Metrics::new())).unwrap();
    let debit = Debit {
        request_id: request_id(),
        transaction_id: id.clone(),
        player: "p-1".into(),
        round: round.0.to_string(),
        amount: WireMoney(Money::cents(10_00)),
        wagers: vec![Wager {
            spot: 1,
            bet: "main".into(),
            amount: WireMoney(Money::cents(10_00)),
        }],
        jackpot: vec![],
    };
    let Outcome::Answered(a) = client.send(&debit).await else {
        panic!("the debit was not taken")
    };
    store
        .wallet_answer(
            &id,
            &WalletAnswer::Acknowledged {
                balance: a.balance.0,
            },
        )
        .unwrap();
    assert_eq!(op.balance("p-1").await, Money::cents(240_00));

    store.void_round(round, "a test", &[]).unwrap();
    let shared: felt_server::wallet::outbox::SharedStore = Arc::new(Mutex::new(Box::new(store)));
    let worker = OutboxWorker::new(shared.clone(), client, RetryPolicy::default());
    // The closing credit waits for the rollback; the next pass sends it.
    for _ in 0..3 {
        worker
            .pass(felt_server::wallet::outbox::now_ms())
            .await
            .unwrap();
    }
    let all = shared
        .lock()
        .unwrap()
        .wallet_calls(&WalletQuery::default())
        .unwrap();
    let kinds: Vec<(WalletCallKind, WalletState)> = all.iter().map(|c| (c.kind, c.state)).collect();
    assert_eq!(
        kinds,
        [
            (WalletCallKind::Debit, WalletState::RolledBack),
            (WalletCallKind::Rollback, WalletState::Acknowledged),
            (WalletCallKind::Credit, WalletState::Acknowledged),
        ]
    );
    assert!(all[2].settled_ms >= all[1].settled_ms);
    assert_eq!(all[2].amount, Money::ZERO);
    assert_eq!(op.balance("p-1").await, Money::cents(250_00));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn players_come_by_the_operators_launch_link_only() {
    let op = operator(&[("p-1", 250_00)]).await;
    let server = wallet_server(&op, &table("t", 600)).await;
    let post = |path: &str, cookie: &str, body: &str| {
        reqwest::Client::new()
            .post(format!("{}{path}", server.url))
            .header("cookie", cookie)
            .header("content-type", "application/json")
            .body(body.to_string())
            .send()
    };
    let r = post(
        "/api/register",
        "",
        r#"{"name":"p-1","password":"p-1-secret-long"}"#,
    )
    .await
    .unwrap();
    assert_eq!(r.status(), 403);
    let v: Value = r.json().await.unwrap();
    assert_eq!(v["error"], "wallet-mode", "{v}");

    let r = follow(&format!("{}/?token=lt-forged&table=t", server.url)).await;
    assert_eq!(r.status(), 401);
    assert!(r.headers().get("set-cookie").is_none());
    let v: Value = r.json().await.unwrap();
    assert_eq!(v["error"], "session-expired", "{v}");

    let link = launch_link(&op, &server, "p-1", "t").await;
    let r = follow(&link).await;
    assert_eq!(r.status(), 303);
    let cookie = common::session_cookie(&r);
    let me = common::get_json(&format!("{}/api/me", server.url), &cookie).await;
    assert_eq!(me["player"], "p-1", "{me}");
    assert_eq!(me["balance"], "250.00", "{me}");
    assert!(me["top_up"].is_null(), "{me}");
    // No play money here, and no password opens an operator's player.
    let r = post("/api/top-up", &cookie, "{}").await.unwrap();
    assert_eq!(r.status(), 403);
    let r = post(
        "/api/login",
        "",
        r#"{"name":"p-1","password":"anything at all"}"#,
    )
    .await
    .unwrap();
    assert_eq!(r.status(), 401);
    server.stop().await;
}

/// The next round to take a bet at `table` deals `cards` first (the test mode's
/// stacked shoe, no burn).
async fn stack(server: &Running, table: &str, cards: &[&str]) {
    let staff = common::operator(server, "olga").await;
    let r = reqwest::Client::new()
        .post(format!("{}/api/test/tables/{table}/shoe", server.url))
        .header("cookie", &staff)
        .json(&serde_json::json!({ "cards": cards }))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 202);
}

/// Whether the player's first decision offers `word`.
fn offers(v: &Value, word: &str) -> bool {
    v["you"]["decisions"][0]["choices"]
        .as_array()
        .is_some_and(|c| c.iter().any(|c| c["decision"] == word))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_double_is_a_further_debit_of_the_round_before_its_card() {
    let op = operator(&[("p-1", 250_00)]).await;
    let server = wallet_server(&op, &table("t", 600)).await;
    let mut c = seated(&op, &server, "p-1", "t", "250.00").await;
    // Rounds until one offers a double (a natural or an insurance offer may come first).
    for n in 0..12 {
        let round = round_of(&mut c).await;
        c.send(&bet(round, &format!("b{n}"), "10.00", "0.00")).await;
        let doubled = loop {
            let v = c
                .until(5, |v| {
                    v["type"] == "view"
                        && (v["in_play"] == false || !v["you"]["decisions"][0].is_null())
                })
                .await;
            if v["in_play"] == false {
                break None;
            }
            let d = &v["you"]["decisions"][0];
            let word = match (d["offer"] == true, offers(&v, "double")) {
                (true, _) => "decline",
                (false, true) => "double",
                (false, false) => "stand",
            };
            let id = format!("{word}{n}-{}", c.frames.len());
            c.send(&format!(
                r#"{{"type":"act","round":{},"spot":1,"hand":1,"decision":"{word}","id":"{id}"}}"#,
                v["round_id"]
            ))
            .await;
            if word == "double" {
                let p = c
                    .until(5, |v| v["type"] == "pending" || v["type"] == "error")
                    .await;
                assert_eq!(p["type"], "pending", "{p}");
                assert_eq!(p["amount"], "10.00", "{p}");
                c.until(10, |v| v["type"] == "view" && v["in_play"] == false)
                    .await;
                break Some(v["round_id"].as_i64().unwrap());
            }
        };
        let Some(round) = doubled else { continue };
        let all = settled(&server).await;
        let debits: Vec<&WalletCall> = all
            .iter()
            .filter(|c| c.round.0 == round && c.kind == WalletCallKind::Debit)
            .collect();
        assert_eq!(debits.len(), 2, "{debits:#?}");
        assert!(
            debits[1].detail_json.contains(r#""bet":"double""#),
            "{debits:#?}"
        );
        assert!(debits.iter().all(|d| d.state == WalletState::Acknowledged));
        every_round_closed(&all);
        assert_eq!(operator_rounds(&op.ledger().await), felt_rounds(&all));
        books_clean(&server, &["p-1"]);
        server.stop().await;
        return;
    }
    panic!("no round offered a double in 12");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_split_is_a_further_debit_of_the_round_before_its_cards() {
    let op = operator(&[("p-1", 250_00)]).await;
    let server = wallet_server(&op, &table("t", 1)).await;
    let mut c = seated(&op, &server, "p-1", "t", "250.00").await;
    // A pair of eights against a six, in this game's order of the deal: the player's
    // 8, the dealer's hole card, the player's 8, the up card, then one card for each
    // split hand.
    stack(&server, "t", &["8h", "Td", "8s", "6d", "3c", "2d"]).await;
    let round = round_of(&mut c).await;
    c.send(&bet(round, "b", "10.00", "0.00")).await;
    let v = c
        .until(5, |v| v["type"] == "view" && offers(v, "split"))
        .await;
    let round = v["round_id"].as_i64().unwrap();
    c.send(&format!(
        r#"{{"type":"act","round":{round},"spot":1,"hand":1,"decision":"split","id":"split"}}"#
    ))
    .await;
    let p = c
        .until(5, |v| v["type"] == "pending" || v["type"] == "error")
        .await;
    assert_eq!(p["type"], "pending", "{p}");
    assert_eq!(p["amount"], "10.00", "{p}");
    // The split hands are dealt after the debit is taken; the decision timer stands
    // each, and the round ends.
    c.until(15, |v| v["type"] == "view" && v["in_play"] == false)
        .await;
    let all = settled(&server).await;
    let debits: Vec<&WalletCall> = all
        .iter()
        .filter(|c| c.round.0 == round && c.kind == WalletCallKind::Debit)
        .collect();
    assert_eq!(debits.len(), 2, "{debits:#?}");
    assert!(
        debits[1].detail_json.contains(r#""bet":"split""#),
        "{debits:#?}"
    );
    assert!(debits.iter().all(|d| d.state == WalletState::Acknowledged));
    // 11 and 10 stood against the dealer's 16, who draws: the books and the
    // operator agree whatever the dealer makes.
    every_round_closed(&all);
    assert_eq!(operator_rounds(&op.ledger().await), felt_rounds(&all));
    books_clean(&server, &["p-1"]);
    server.stop().await;
}

/// Answers the offer on the player's first hand with `word`, once the view shows it.
async fn answer_offer(c: &mut Client, word: &str, id: &str) {
    let v = c
        .until(10, |v| {
            v["type"] == "view" && v["you"]["decisions"][0]["offer"] == true
        })
        .await;
    c.send(&format!(
        r#"{{"type":"act","round":{},"spot":1,"hand":1,"decision":"{word}","id":"{id}"}}"#,
        v["round_id"]
    ))
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn insurance_is_a_further_debit_before_the_peek_and_a_refused_one_leaves_the_player_uninsured(
) {
    let players = ["p-1", "p-2", "p-3", "p-4"];
    let op = operator(&players.map(|p| (p, 250_00))).await;
    // p-3 may wager 12.00 in all at the operator: the bet, not its insurance.
    op.wallet
        .with_books(|b| b.set_wager_limit("p-3", Some(Money::cents(12_00))))
        .await
        .unwrap();
    let server = wallet_server(&op, &table("t", 600)).await;
    let mut c = Vec::new();
    for p in players {
        c.push(seated(&op, &server, p, "t", "250.00").await);
    }
    // One card to each spot, the hole card, a second to each spot, the ace up: p-1
    // 19, p-2 18, p-3 17, p-4 a natural; the dealer has blackjack.
    let cards = ["Th", "Tc", "Ts", "Ah", "Kd", "9h", "8c", "7s", "Kc", "As"];
    stack(&server, "t", &cards).await;
    for (n, p) in c.iter_mut().enumerate() {
        let round = round_of(p).await;
        p.send(&bet(round, &format!("b{n}"), "10.00", "0.00")).await;
    }
    // p-1 insures and is insured.
    answer_offer(&mut c[0], "insurance", "insure-1").await;
    let p = c[0]
        .until(5, |v| v["type"] == "pending" || v["type"] == "error")
        .await;
    assert_eq!(p["type"], "pending", "{p}");
    assert_eq!(p["amount"], "5.00", "{p}");
    // p-2 declines.
    answer_offer(&mut c[1], "decline", "decline-2").await;
    // p-3's insurance is refused by the operator: not insured, told why.
    answer_offer(&mut c[2], "insurance", "insure-3").await;
    let e = c[2].until(5, |v| v["type"] == "error").await;
    assert_eq!(e["code"], "limit-reached", "{e}");
    let m = e["message"].as_str().unwrap();
    assert!(
        m.contains("not insured") && m.contains("wager limit"),
        "{e}"
    );
    // p-4 takes even money: a payout, not a debit.
    answer_offer(&mut c[3], "even-money", "even-4").await;
    let end = c[0]
        .until(10, |v| v["type"] == "view" && v["in_play"] == false)
        .await;
    let round = end["round_id"].as_i64().unwrap();

    let all = settled(&server).await;
    let of = |player: &str, kind: WalletCallKind| -> Vec<WalletCall> {
        all.iter()
            .filter(|c| c.round.0 == round && c.player == player && c.kind == kind)
            .cloned()
            .collect()
    };
    let d1 = of("p-1", WalletCallKind::Debit);
    assert_eq!(d1.len(), 2, "{d1:#?}");
    assert!(
        d1[1].detail_json.contains(r#""bet":"insurance""#),
        "{d1:#?}"
    );
    assert_eq!(d1[1].amount, Money::cents(5_00));
    assert!(d1.iter().all(|d| d.state == WalletState::Acknowledged));
    // The insurance pays 2 to 1 on the dealer's blackjack, in the closing credit.
    let credit = &of("p-1", WalletCallKind::Credit)[0];
    assert!(
        credit
            .detail_json
            .contains(r#""bet":"insurance","amount":"15.00""#),
        "{credit:#?}"
    );
    let d3 = of("p-3", WalletCallKind::Debit);
    assert_eq!(d3.len(), 2, "{d3:#?}");
    assert_eq!(d3[1].state, WalletState::Failed, "{d3:#?}");
    assert_eq!(of("p-2", WalletCallKind::Debit).len(), 1);
    assert_eq!(of("p-4", WalletCallKind::Debit).len(), 1);
    // Insured: -10 -5 +15; not insured: -10; even money: +10.
    let expected = [250_00, 240_00, 240_00, 260_00];
    for (p, cents) in players.iter().zip(expected) {
        assert_eq!(op.balance(p).await, Money::cents(cents), "{p}");
    }
    every_round_closed(&all);
    assert_eq!(operator_rounds(&op.ledger().await), felt_rounds(&all));
    books_clean(&server, &players);
    server.stop().await;
}

/// Asks `done` every 25 ms for up to 20 s (the round must play on and the worker send
/// its calls, on cores other tests share); whether it said yes.
async fn waited<F: std::future::Future<Output = bool>>(mut done: impl FnMut() -> F) -> bool {
    for _ in 0..800 {
        if done().await {
            return true;
        }
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
    false
}

/// Waits until the operator's ledger holds the transaction `id`.
async fn operator_took(op: &Operator, id: &str) {
    let took = || async { op.ledger().await.iter().any(|r| r.transaction_id == id) };
    if !waited(took).await {
        panic!("the operator never took {id}: {:?}", op.ledger().await);
    }
}

/// Waits until the operator's balance of `player` is `cents`.
async fn operator_balance_is(op: &Operator, player: &str, cents: i64) {
    let there = || async { op.balance(player).await == Money::cents(cents) };
    if !waited(there).await {
        panic!(
            "{player} has {} at the operator; its ledger: {:?}",
            op.balance(player).await,
            op.ledger().await
        );
    }
}

/// p-1 and p-2 seated at table `t` (decision timer 1 s, calls waiting 30 s), p-1's bet
/// in, and p-2's bet in the same round waiting on its debit at the operator's held
/// books.
struct DebitAtOperator {
    server: Running,
    a: Client,
    b: Client,
    round: i64,
    /// Lets the operator's books answer.
    release: std::sync::mpsc::Sender<()>,
}

async fn p2_debit_at_operator(op: &Operator) -> DebitAtOperator {
    let server = wallet_server_waiting(op, &table("t", 1), Duration::from_secs(30)).await;
    let mut a = seated(op, &server, "p-1", "t", "250.00").await;
    let mut b = seated(op, &server, "p-2", "t", "250.00").await;
    let round = round_of(&mut a).await;
    a.send(&bet(round, "a", "10.00", "0.00")).await;
    a.until(5, |v| {
        v["type"] == "view" && v["seats"][0]["has_bet"] == true
    })
    .await;
    let release = hold(op).await;
    assert_eq!(round_of(&mut b).await, round);
    b.send(&bet(round, "b", "10.00", "0.00")).await;
    b.until(5, |v| v["type"] == "pending").await;
    assert!(
        waited(|| async { op.wallet.calls_at_books() == 1 }).await,
        "the debit never reached the operator"
    );
    DebitAtOperator {
        server,
        a,
        b,
        round,
        release,
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_round_restarted_after_a_debit_taken_and_never_stepped_gives_it_back_and_plays_on() {
    let op = operator(&[("p-1", 250_00), ("p-2", 250_00)]).await;
    // p-2's debit reaches the operator (felt stopping then cannot stop it), but felt
    // stops before it steps the bet.
    let DebitAtOperator {
        server,
        a,
        b,
        round,
        release,
    } = p2_debit_at_operator(&op).await;
    drop((a, b));
    // The table waits for the debit (p-2's dropped connection does not deal the
    // round without it), so the stopping server parks the round in its betting.
    let (dir, db) = server.stop().await;
    let open = SqliteStore::open(&db).unwrap().unfinished_rounds().unwrap();
    assert!(open.iter().any(|r| r.id == RoundId(round)), "{open:?}");
    release.send(()).unwrap();
    // The operator takes the debit once its books are free.
    let debit = felt_store::debit_id(RoundId(round), 1, 1);
    operator_took(&op, &debit).await;
    operator_balance_is(&op, "p-2", 240_00).await;
    // felt had written the operator's answer, and no more.
    SqliteStore::open(&db)
        .unwrap()
        .wallet_answer(
            &debit,
            &WalletAnswer::Acknowledged {
                balance: Money::cents(240_00),
            },
        )
        .unwrap();

    // The next start resumes the round's betting window (two seconds now).
    let tables = "[[table]]\nname = \"t\"\ngame = \"blazing-7s\"\nbetting_secs = 2\ndecision_secs = 1\npause_ms = 0\n";
    let server = wallet_server_on(&op, dir, db, tables, Duration::from_millis(700)).await;
    // The round goes on with p-1's bet, and ends; p-2 has the stake back.
    operator_balance_is(&op, "p-2", 250_00).await;
    let mut b = seated(&op, &server, "p-2", "t", "250.00").await;
    let next = play_round(&mut b, "b2", "10.00", "0.00").await;
    assert!(next > round);
    let all = settled(&server).await;
    every_round_closed(&all);
    assert_eq!(operator_rounds(&op.ledger().await), felt_rounds(&all));
    books_clean(&server, &["p-1", "p-2"]);
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_bet_whose_debit_is_at_the_operator_when_its_player_drops_is_dealt_once_taken() {
    let op = operator(&[("p-1", 250_00), ("p-2", 250_00)]).await;
    let DebitAtOperator {
        server,
        mut a,
        b,
        release,
        ..
    } = p2_debit_at_operator(&op).await;
    // p-2's connection drops.
    drop(b);
    // The table waits for the operator, not for p-2: once the money is taken the
    // round is dealt with both bets.
    tokio::time::sleep(Duration::from_millis(500)).await;
    release.send(()).unwrap();
    let dealt = a
        .until(10, |v| v["type"] == "view" && v["in_play"] == true)
        .await;
    let seats = dealt["seats"].as_array().unwrap();
    let p2 = seats.iter().find(|s| s["player"] == "p-2").unwrap();
    assert_eq!(p2["has_bet"], true, "{dealt}");
    assert_eq!(p2["in_round"], true, "{dealt}");
    a.until(15, |v| v["type"] == "view" && v["in_play"] == false)
        .await;
    let all = settled(&server).await;
    every_round_closed(&all);
    assert_eq!(operator_rounds(&op.ledger().await), felt_rounds(&all));
    let of_p2 = |kind| {
        all.iter()
            .filter(|c| c.kind == kind && c.player == "p-2")
            .count()
    };
    let taken = all.iter().any(|c| {
        c.kind == WalletCallKind::Debit && c.player == "p-2" && c.state == WalletState::Acknowledged
    });
    assert!(taken, "p-2's debit was not taken: {all:#?}");
    assert_eq!(of_p2(WalletCallKind::Rollback), 0, "{all:#?}");
    books_clean(&server, &["p-1", "p-2"]);
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_bet_whose_debit_is_at_the_operator_when_its_player_leaves_is_given_back() {
    let op = operator(&[("p-1", 250_00), ("p-2", 250_00)]).await;
    let DebitAtOperator {
        server,
        mut a,
        mut b,
        release,
        ..
    } = p2_debit_at_operator(&op).await;
    // p-2 leaves the seat: once the operator takes the money it is given back, and
    // the round is dealt with p-1's bet alone.
    b.send(r#"{"type":"leave"}"#).await;
    a.until(5, |v| {
        v["type"] == "view"
            && v["seats"]
                .as_array()
                .is_some_and(|s| s.iter().all(|s| s["player"] != "p-2"))
    })
    .await;
    release.send(()).unwrap();
    let dealt = a
        .until(10, |v| v["type"] == "view" && v["in_play"] == true)
        .await;
    let seats = dealt["seats"].as_array().unwrap();
    assert!(seats.iter().all(|s| s["player"] != "p-2"), "{dealt}");
    a.until(15, |v| v["type"] == "view" && v["in_play"] == false)
        .await;
    operator_balance_is(&op, "p-2", 250_00).await;
    let all = settled(&server).await;
    every_round_closed(&all);
    assert_eq!(operator_rounds(&op.ledger().await), felt_rounds(&all));
    let rolled_back = all
        .iter()
        .any(|c| c.kind == WalletCallKind::Rollback && c.player == "p-2");
    assert!(rolled_back, "{all:#?}");
    books_clean(&server, &["p-1", "p-2"]);
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_session_figures_count_stakes_and_returns_not_the_wallets_mirror() {
    let op = operator(&[("p-1", 250_00)]).await;
    let server = wallet_server(&op, &table("t", 1)).await;
    let (mut c, cookie) = seated_with_cookie(&op, &server, "p-1", "t", "250.00").await;
    // The player's 20 against the dealer's 17 (a 7 in the hole, a T up): the decision
    // timer stands, and 10.00 wins 10.00.
    stack(&server, "t", &["Th", "7d", "Tc", "Td"]).await;
    play_round(&mut c, "b", "10.00", "0.00").await;
    settled(&server).await;
    let s = common::get_json(&format!("{}/api/session", server.url), &cookie).await;
    assert_eq!(
        (&s["staked"], &s["returned"], &s["net"], &s["rounds"]),
        (
            &Value::from("10.00"),
            &Value::from("20.00"),
            &Value::from("10.00"),
            &Value::from(1)
        ),
        "{s}"
    );
    server.stop().await;
}
