//! A shared table that plays like one (issue 24, items 8, 9 and 11): play money
//! topped up when a balance cannot cover the minimum bet, a player who leaves on their
//! own turn stood at once, absent players not counted in the lobby and their seats
//! freed, and the basic-strategy hint computed from what the player sees.

mod common;

use common::{connect, get_json, operator, register, Client};
use felt_core::Money;
use felt_server::app::Settings;
use felt_server::topup::TopUp;
use felt_store::{SqliteStore, Store};
use serde_json::{json, Value};
use std::time::Duration;

const TABLES: &str = "[[table]]\nname = \"classic\"\ngame = \"classic\"\nbetting_secs = 600\ndecision_secs = 600\npause_ms = 0\n\
[[table]]\nname = \"quiet\"\ngame = \"classic\"\nhints = false\nbetting_secs = 1\nabsent_rounds = 2\npause_ms = 0\n";

/// A server on new books (test mode on), new accounts starting with nothing.
async fn start() -> common::Running {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("felt.db");
    let settings = Settings {
        test_shoes: true,
        starting_balance: Money::ZERO,
        top_up: TopUp {
            amount: Money::cents(25_000),
            every: Duration::from_secs(3_600),
        },
        rate_per_s: 50.0,
        burst: 60.0,
        ..Settings::default()
    };
    common::start_with(dir, db, TABLES, settings).await
}

async fn joined(url: &str, cookie: &str, table: &str) -> Client {
    let mut c = connect(url, Some(cookie), None).await.unwrap();
    c.send(&format!(
        r#"{{"type":"hello","version":1,"table":"{table}"}}"#
    ))
    .await;
    c.until(5, |v| v["type"] == "welcome").await;
    c
}

async fn top_up(url: &str, cookie: &str, body: Value) -> reqwest::Response {
    reqwest::Client::new()
        .post(format!("{url}/api/top-up"))
        .header("cookie", cookie)
        .json(&body)
        .send()
        .await
        .unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_short_balance_is_topped_up_once_per_period_as_a_deposit_and_the_table_shows_it() {
    let server = start().await;
    let url = server.url.clone();
    let cookie = register(&url, "ana").await;
    let mut c = joined(&url, &cookie, "classic").await;
    c.send(r#"{"type":"sit"}"#).await;
    let v = c.until(5, |v| v["you"]["may_bet"] == true).await;
    assert_eq!(v["you"]["balance"], "0.00");
    let me = get_json(&format!("{url}/api/me"), &cookie).await;
    assert_eq!(
        me["top_up"],
        json!({"amount": "250.00", "every_secs": 3600, "next_in_secs": 0})
    );

    // Refused, changing nothing: no session, another site's page, no such table.
    let r = reqwest::Client::new()
        .post(format!("{url}/api/top-up"))
        .json(&json!({}))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 401);
    let r = reqwest::Client::new()
        .post(format!("{url}/api/top-up"))
        .header("cookie", &cookie)
        .header("origin", "http://evil.example")
        .json(&json!({}))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 403);
    let r = top_up(&url, &cookie, json!({"table": "nope"})).await;
    assert_eq!(r.status(), 404);
    let r = top_up(&url, &cookie, json!({"amount": "1000000.00"})).await;
    assert_eq!(r.status(), 400, "the amount is the operator's");

    let r = top_up(&url, &cookie, json!({"table": "classic"})).await;
    assert_eq!(r.status(), 200);
    let body: Value = r.json().await.unwrap();
    assert_eq!(body["balance"], "250.00");
    // The seated player sees it at once: the window opens again with the new balance.
    let v = c
        .until(5, |v| {
            v["you"]["balance"] == "250.00" && v["you"]["may_bet"] == true
        })
        .await;
    let round = v["round_id"].as_i64().unwrap();
    c.send(&format!(
        r#"{{"type":"bet","round":{round},"id":"b1","spots":[{{"spot":1,"main":"5.00"}}]}}"#
    ))
    .await;
    let v = c
        .until(5, |v| {
            v["type"] == "error" || v["seats"][0]["has_bet"] == true
        })
        .await;
    assert_eq!(v["type"], "view", "the topped-up balance bets: {v}");

    // Above the table's minimum: not needed.
    let r = top_up(&url, &cookie, json!({"table": "classic"})).await;
    assert_eq!(r.status(), 409);
    let e: Value = r.json().await.unwrap();
    assert_eq!(e["error"], "top-up-not-needed");
    // Short again within the period: too soon, with when.
    let books = server.state.books().clone();
    tokio::task::spawn_blocking(move || {
        let b = books.with(|s| s.balance(&felt_store::Account::player("ana")))?;
        books.with(|s| s.withdraw("ana", b))
    })
    .await
    .unwrap()
    .unwrap();
    let r = top_up(&url, &cookie, json!({})).await;
    assert_eq!(r.status(), 429);
    assert!(r.headers().contains_key("retry-after"));
    let e: Value = r.json().await.unwrap();
    assert_eq!(e["error"], "top-up-too-soon");
    assert!(e["message"].as_str().unwrap().contains("minutes"), "{e}");
    drop(c);
    let (_dir, db) = server.stop().await;
    let store = SqliteStore::open(&db).unwrap();
    let last = store
        .last_deposit("ana", felt_server::topup::MEMO)
        .unwrap()
        .expect("the top-up is a deposit in the books");
    assert_eq!(last.movement.amount, Money::cents(25_000));
    assert_eq!(last.movement.from, felt_store::Account::Cashier);
    assert!(store.check_books().unwrap().is_sound());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_player_who_leaves_on_their_turn_is_stood_at_once_by_a_timeout_in_the_log() {
    let server = start().await;
    let url = server.url.clone();
    let op = operator(&server, "olga").await;
    let cookie = register(&url, "ana").await;
    assert_eq!(top_up(&url, &cookie, json!({})).await.status(), 200);
    let mut c = joined(&url, &cookie, "classic").await;
    c.send(r#"{"type":"sit"}"#).await;
    c.until(5, |v| v["you"]["may_bet"] == true).await;
    let r = reqwest::Client::new()
        .post(format!("{url}/api/test/tables/classic/shoe"))
        .header("cookie", &op)
        .json(&json!({"cards": ["Tc", "7d", "6h", "8s", "Ts"]}))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 202);
    let v = c.bet_until_dealt("10.00").await;
    assert!(!v["you"]["decisions"].as_array().unwrap().is_empty());
    let round = v["round_id"].as_i64().unwrap();
    // Leaving on the turn, with 600 s on the decision timer: the hand stands now and
    // the dealer plays.
    c.send(r#"{"type":"leave"}"#).await;
    let end = c.until(10, |v| v["in_play"] == false).await;
    assert_eq!(end["round"]["dealer"]["cards"], json!(["7d", "8s", "Ts"]));
    let (_dir, db) = server.stop().await;
    let store = SqliteStore::open(&db).unwrap();
    let r = store.round(felt_store::RoundId(round)).unwrap().unwrap();
    let actions: Vec<String> = r.steps.iter().filter_map(|s| s.action.clone()).collect();
    assert!(
        actions.iter().any(|a| a.contains("timeout")),
        "the stand is a timeout in the log: {actions:?}"
    );
    assert!(
        !actions.iter().any(|a| a.contains("\"stand\"")),
        "{actions:?}"
    );
    assert_eq!(store.table_seats("online/classic").unwrap(), vec![]);
    assert!(store.check_books().unwrap().is_sound());
}

/// The lobby's line of a table.
async fn lobby_line(url: &str, cookie: &str, table: &str) -> Value {
    let v = get_json(&format!("{url}/api/tables"), cookie).await;
    v["tables"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["name"] == table)
        .unwrap()
        .clone()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_absent_player_is_not_counted_present_and_their_seat_frees_after_the_rule() {
    let server = start().await;
    let url = server.url.clone();
    let ana = register(&url, "ana").await;
    let bob = register(&url, "bob").await;
    let mut c = joined(&url, &ana, "quiet").await;
    c.send(r#"{"type":"sit"}"#).await;
    c.until(5, |v| v["you"]["seat"] == 1).await;
    let line = lobby_line(&url, &bob, "quiet").await;
    assert_eq!(
        (line["taken"].clone(), line["present"].clone()),
        (json!(1), json!(1))
    );
    assert_eq!(line["players"], json!([{"seat": 1, "player": "ana"}]));
    drop(c);
    // Gone: the seat is held, nobody is present; a visitor sees no name.
    let mut line = lobby_line(&url, &bob, "quiet").await;
    for _ in 0..100 {
        if line["present"] == 0 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
        line = lobby_line(&url, &bob, "quiet").await;
    }
    assert_eq!(line["present"], 0, "{line}");
    let visitor = lobby_line(&url, "", "quiet").await;
    assert_eq!(visitor["players"], json!([{"seat": 1, "away": true}]));
    // The table's absence rule (2 rounds) frees the seat after a window with no bet.
    for _ in 0..200 {
        if line["taken"] == 0 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
        line = lobby_line(&url, &bob, "quiet").await;
    }
    assert_eq!(line["taken"], 0, "{line}");
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_hint_is_felt_maths_for_the_table_rules_and_what_the_player_sees() {
    let server = start().await;
    let url = server.url.clone();
    let cookie = register(&url, "ana").await;
    let http = reqwest::Client::new();
    let ask = |table: &str, q: &str, cookie: &str| {
        http.get(format!("{url}/api/tables/{table}/hint?{q}"))
            .header("cookie", cookie)
            .send()
    };
    let r = ask(
        "classic",
        "hand=Tc,6d&up=Ts&choices=hit,stand,double",
        &cookie,
    )
    .await
    .unwrap();
    assert_eq!(r.status(), 200);
    let got: Value = r.json().await.unwrap();
    // The same hint computed here, from the table's rules.
    let rules = server.state.table("classic").unwrap().0.rules.clone();
    let strategy = server.state.strategies().of(&rules).unwrap();
    let cards = felt_core::card::parse_cards("Tc 6d").unwrap();
    let up = "Ts".parse().unwrap();
    let offered = felt_core::round::Decisions(
        felt_core::round::Decisions::HIT.0
            | felt_core::round::Decisions::STAND.0
            | felt_core::round::Decisions::DOUBLE.0,
    );
    let want = felt_math::hint::hint(&strategy, rules.dealer().peek, &cards, up, offered);
    assert_eq!(got, felt_server::hint::hint_json(want));
    assert_eq!(got["kind"], "hard");
    assert_eq!(got["total"], 16);
    assert_eq!(got["given_no_blackjack"], true);
    let values = got["values"].as_array().unwrap();
    assert_eq!(values.len(), 3, "only the choices offered: {got}");
    assert_eq!(
        got["advice"], values[0]["decision"],
        "the best first: {got}"
    );
    let r = ask(
        "classic",
        "hand=Ah,Kd&up=Ac&choices=even-money,decline",
        &cookie,
    )
    .await
    .unwrap();
    assert_eq!(r.json::<Value>().await.unwrap()["advice"], "decline");

    // Refusals.
    let status = |r: reqwest::Response| r.status().as_u16();
    assert_eq!(
        status(
            ask("classic", "hand=Tc&up=Ts&choices=hit", "")
                .await
                .unwrap()
        ),
        401
    );
    assert_eq!(
        status(
            ask("quiet", "hand=Tc&up=Ts&choices=hit", &cookie)
                .await
                .unwrap()
        ),
        403
    );
    assert_eq!(
        status(
            ask("nope", "hand=Tc&up=Ts&choices=hit", &cookie)
                .await
                .unwrap()
        ),
        404
    );
    for bad in [
        "hand=Zz&up=Ts&choices=hit",
        "hand=Tc&up=Ts,9c&choices=hit",
        "hand=Tc&up=Ts&choices=fold",
        "hand=Tc&up=Ts",
        "hand=Tc&up=Ts&choices=hit&hole=7d",
    ] {
        assert_eq!(
            status(ask("classic", bad, &cookie).await.unwrap()),
            400,
            "{bad}"
        );
    }
    server.stop().await;
}
