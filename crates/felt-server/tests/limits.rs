//! Player protection through the HTTP API (issue 26 items 1, 2 and the audit log):
//! limits a player sets and their cooling-off, breaks and exclusions, and the audit
//! log of operator actions. Times move with `POST /api/test/clock` (test mode).

mod common;

use common::{connect, get_json, operator, register, Client};
use felt_core::Money;
use felt_server::app::Settings;
use felt_server::topup::TopUp;
use serde_json::{json, Value};
use std::time::Duration;

const TABLES: &str = "[[table]]\nname = \"classic\"\ngame = \"classic\"\nbetting_secs = 600\ndecision_secs = 600\npause_ms = 0\n";

/// A server on new books in test mode (its clock can be moved).
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

/// `PUT /api/limits` with these limits: the status and the answer.
async fn put_limits(url: &str, cookie: &str, limits: Value) -> (u16, Value) {
    let r = reqwest::Client::new()
        .put(format!("{url}/api/limits"))
        .header("cookie", cookie)
        .json(&json!({ "limits": limits }))
        .send()
        .await
        .unwrap();
    let status = r.status().as_u16();
    (status, r.json().await.unwrap())
}

/// Sets a 24-hour session-time limit of 30 minutes.
async fn session_limit_of_30_minutes(url: &str, cookie: &str) {
    let limit = json!([{"kind": "session", "period": "day", "minutes": 30}]);
    let (status, page) = put_limits(url, cookie, limit).await;
    assert_eq!(status, 200, "{page}");
}

/// The limit of `kind` over `period` in a limits page.
fn limit<'a>(page: &'a Value, kind: &str, period: &str) -> &'a Value {
    page["limits"]
        .as_array()
        .unwrap()
        .iter()
        .find(|l| l["kind"] == kind && l["period"] == period)
        .unwrap_or(&Value::Null)
}

/// Moves the server's clock forward (the operator's session `op`).
async fn advance(url: &str, op: &str, secs: i64) {
    let (status, v) = post(
        &format!("{url}/api/test/clock"),
        op,
        json!({"advance_secs": secs}),
    )
    .await;
    assert_eq!(status, 200, "{v}");
}

/// A new player with a 250.00 top-up, at the table `classic`, seated.
async fn seated(url: &str, name: &str) -> (String, Client) {
    let cookie = register(url, name).await;
    let (status, v) = post(&format!("{url}/api/top-up"), &cookie, json!({})).await;
    assert_eq!(status, 200, "{v}");
    let mut c = at_table(url, &cookie).await;
    c.send(r#"{"type":"sit"}"#).await;
    c.until(5, |v| v["you"]["may_bet"] == true).await;
    (cookie, c)
}

/// Logs `name` in again (a session ends after 30 minutes unused: moving the clock
/// ends it).
async fn relogin(url: &str, name: &str) -> String {
    common::login(url, name, &format!("{name}-secret"))
        .await
        .unwrap()
}

/// Reads `c`'s frames until the server ends the session (`session-ended`, then the
/// socket closes); that frame.
async fn session_ended(c: &mut Client) -> Value {
    c.until(5, |v| v["code"] == "session-ended").await
}

/// `GET /api/me`'s status with `cookie`: 401 once its session has ended.
async fn me_status(url: &str, cookie: &str) -> u16 {
    reqwest::Client::new()
        .get(format!("{url}/api/me"))
        .header("cookie", cookie)
        .send()
        .await
        .unwrap()
        .status()
        .as_u16()
}

/// A connection at the table `classic`.
async fn at_table(url: &str, cookie: &str) -> Client {
    let mut c = connect(url, Some(cookie), None).await.unwrap();
    c.send(r#"{"type":"hello","version":1,"table":"classic"}"#)
        .await;
    c.until(5, |v| v["type"] == "welcome").await;
    c
}

/// The next round at `classic` deals these cards first.
async fn stack(url: &str, op: &str, cards: &[&str]) {
    let (status, v) = post(
        &format!("{url}/api/test/tables/classic/shoe"),
        op,
        json!({ "cards": cards }),
    )
    .await;
    assert_eq!(status, 202, "{v}");
}

/// Bets `main` on spot 1 in the betting window open now (again if a stacked shoe set
/// the window up again): the view once the round is dealt, or the limit's or the
/// block's refusal.
async fn bet(c: &mut Client, main: &str) -> Result<Value, Value> {
    for i in 0..10 {
        c.send(r#"{"type":"sync"}"#).await;
        let v = c
            .until(5, |v| v["type"] == "view" && v["you"]["may_bet"] == true)
            .await;
        let round = v["round_id"].as_i64().unwrap();
        c.send(&format!(
            r#"{{"type":"bet","round":{round},"id":"b{i}","spots":[{{"spot":1,"main":"{main}"}}]}}"#
        ))
        .await;
        let v = c
            .until(5, |v| {
                v["type"] == "error"
                    || (v["round_id"] == round
                        && v["round"]["phase"].is_string()
                        && v["round"]["phase"] != "betting")
            })
            .await;
        if v["type"] == "view" {
            return Ok(v);
        }
        if v["code"] == "limit-reached" || v["code"] == "player-blocked" {
            return Err(v);
        }
    }
    panic!("no bet was taken in 10 betting windows");
}

/// The next error frame `c` receives: its code is `code` and its message holds `text`.
async fn refusal(c: &mut Client, code: &str, text: &str) -> Value {
    let e = c.until(5, |v| v["type"] == "error").await;
    assert_eq!(e["code"], code, "{e}");
    assert!(
        e["message"].as_str().unwrap_or_default().contains(text),
        "{e}"
    );
    e
}

/// Sends a decision on spot 1, hand 1 of the round in play.
async fn act(c: &mut Client, round: i64, decision: &str, id: &str) {
    c.send(&format!(
        r#"{{"type":"act","round":{round},"spot":1,"hand":1,"decision":"{decision}","id":"{id}"}}"#
    ))
    .await;
}

/// An answer `(status, body)` is the refusal `code` with `status`.
fn refused((status, body): (u16, &Value), want: u16, code: &str) {
    assert_eq!(
        (status, body["error"].as_str()),
        (want, Some(code)),
        "{body}"
    );
}

/// `POST url` with a cookie and a JSON body: the status and the answer.
async fn post(url: &str, cookie: &str, body: Value) -> (u16, Value) {
    let r = reqwest::Client::new()
        .post(url)
        .header("cookie", cookie)
        .json(&body)
        .send()
        .await
        .unwrap();
    let status = r.status().as_u16();
    (status, r.json().await.unwrap_or(Value::Null))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn closing_a_table_is_in_the_audit_log_with_who_and_when_and_only_operators_read_it() {
    let server = start().await;
    let url = server.url.clone();
    let op = operator(&server, "olga").await;
    let player = register(&url, "pat").await;
    let before = server.state.now_ms();
    let (status, _) = post(
        &format!("{url}/api/operator/tables/classic/close"),
        &op,
        json!({}),
    )
    .await;
    assert_eq!(status, 202);
    let log = common::get_json(&format!("{url}/api/operator/audit?subject=classic"), &op).await;
    let entries = log["entries"].as_array().unwrap();
    assert_eq!(entries.len(), 1, "{log}");
    assert_eq!(entries[0]["actor"], "olga");
    assert_eq!(entries[0]["action"], "close-table");
    assert_eq!(entries[0]["subject"], "classic");
    let at = entries[0]["at_ms"].as_i64().unwrap();
    assert!(at >= before && at <= server.state.now_ms(), "{at}");
    let later = common::get_json(&format!("{url}/api/operator/audit?since={}", at + 1), &op).await;
    assert_eq!(later["entries"].as_array().unwrap().len(), 0, "{later}");
    let refused = common::get_json(&format!("{url}/api/operator/audit"), &player).await;
    assert_eq!(refused["error"], "forbidden", "{refused}");
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_wager_limit_refuses_a_bet_and_a_double_naming_the_limit_and_when_it_resets() {
    let server = start().await;
    let url = server.url.clone();
    let op = operator(&server, "olga").await;
    let (cookie, mut c) = seated(&url, "pat").await;
    let (status, page) = put_limits(
        &url,
        &cookie,
        json!([
            {"kind": "wager", "period": "day", "amount": "30.00"}
        ]),
    )
    .await;
    assert_eq!(status, 200, "{page}");
    let resets = limit(&page, "wager", "day")["resets_at"]
        .as_str()
        .unwrap()
        .to_string();
    let refused = bet(&mut c, "40.00").await.unwrap_err();
    assert_eq!(refused["code"], "limit-reached", "{refused}");
    let m = refused["message"].as_str().unwrap();
    assert!(
        m.contains("24-hour wager limit of 30.00") && m.contains("30.00 left"),
        "{m}"
    );
    assert!(m.contains(&format!("resets at {resets}")), "{m}");
    // Eleven against a seven: a double of 20.00 would stake 40.00 in all.
    stack(&url, &op, &["5c", "7d", "6h", "8s", "Ts", "9c", "9d"]).await;
    let v = bet(&mut c, "20.00").await.unwrap();
    let round = v["round_id"].as_i64().unwrap();
    act(&mut c, round, "double", "d1").await;
    refusal(&mut c, "limit-reached", "10.00 left").await;
    // The hand is still the player's to play: nothing was staked.
    act(&mut c, round, "stand", "s1").await;
    c.until(5, |v| v["in_play"] == false).await;
    let page = get_json(&format!("{url}/api/limits"), &cookie).await;
    assert_eq!(limit(&page, "wager", "day")["used"], "20.00", "{page}");
    server.stop().await;
}

/// A single-wager limit (58 Pa. Code 814a.2(3)) caps each wager on its own: a bet
/// above it is refused with a sentence naming it, two spots below it are two wagers
/// (not added up), and a decrease applies at once to a double in the round in play.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_single_wager_limit_caps_each_wager_on_its_own_and_a_decrease_stops_a_double() {
    let server = start().await;
    let url = server.url.clone();
    let op = operator(&server, "olga").await;
    let (cookie, mut c) = seated(&url, "pat").await;
    let single = |amount: &str| json!([{"kind": "wager", "period": "bet", "amount": amount}]);
    let (status, page) = put_limits(&url, &cookie, single("25.00")).await;
    assert_eq!(status, 200, "{page}");
    let l = limit(&page, "wager", "bet");
    assert_eq!(l["amount"], "25.00", "{page}");
    assert_eq!(
        (&l["used"], &l["resets_at"]),
        (&Value::Null, &Value::Null),
        "a single-wager limit sums nothing and never resets: {page}"
    );
    // Only the wager limit has a single-wager form.
    let (status, page) = put_limits(
        &url,
        &cookie,
        json!([{"kind": "loss", "period": "bet", "amount": "5.00"}]),
    )
    .await;
    refused((status, &page), 400, "bad-request");
    assert!(
        page["message"]
            .as_str()
            .unwrap()
            .contains("wager limit only"),
        "{page}"
    );

    let refused_bet = bet(&mut c, "30.00").await.unwrap_err();
    assert_eq!(refused_bet["code"], "limit-reached", "{refused_bet}");
    let m = refused_bet["message"].as_str().unwrap();
    assert!(m.contains("single-wager limit of 25.00"), "{m}");
    // Two spots of 20.00 each: two wagers, each within the limit. The cards are set
    // (19 and 18; the dealer's 7 in the hole, 9 up): with an ace up (one deal in 13
    // unset) insurance is offered, the stands below do not answer it, and the round
    // waited for it until the test gave up.
    stack(&url, &op, &["Tc", "Td", "7h", "9s", "8d", "9c", "2c", "3d"]).await;
    c.send(r#"{"type":"sync"}"#).await;
    let v = c
        .until(5, |v| v["type"] == "view" && v["you"]["may_bet"] == true)
        .await;
    let round = v["round_id"].as_i64().unwrap();
    c.send(&format!(
        r#"{{"type":"bet","round":{round},"id":"two","spots":[{{"spot":1,"main":"20.00"}},{{"spot":2,"main":"20.00"}}]}}"#
    ))
    .await;
    let v = c
        .until(5, |v| {
            v["type"] == "error"
                || (v["type"] == "view"
                    && v["round_id"] == round
                    && v["round"]["phase"] != "betting")
        })
        .await;
    assert_eq!(v["type"], "view", "two wagers of 20.00 are taken: {v}");
    // Both hands stand (a stand out of turn is refused and changes nothing).
    let mut over = false;
    for i in 0..40 {
        for spot in [1, 2] {
            c.send(&format!(
                r#"{{"type":"act","round":{round},"spot":{spot},"hand":1,"decision":"stand","id":"st{i}-{spot}"}}"#
            ))
            .await;
        }
        while let Some(v) = c.next(1).await {
            if v["type"] == "view" && v["round_id"] == round && v["in_play"] == false {
                over = true;
            }
        }
        if over {
            break;
        }
    }
    assert!(over, "the two-spot round ends");

    // Eleven against a seven; the limit lowered to 10.00 in the round: no double.
    stack(&url, &op, &["5c", "7d", "6h", "8s", "Ts", "9c", "9d"]).await;
    let v = bet(&mut c, "20.00").await.unwrap();
    let round = v["round_id"].as_i64().unwrap();
    let (status, page) = put_limits(&url, &cookie, single("10.00")).await;
    assert_eq!(
        (status, &limit(&page, "wager", "bet")["amount"]),
        (200, &json!("10.00")),
        "a decrease applies at once: {page}"
    );
    act(&mut c, round, "double", "d1").await;
    refusal(&mut c, "limit-reached", "single-wager limit of 10.00").await;
    act(&mut c, round, "stand", "s1").await;
    c.until(5, |v| v["in_play"] == false).await;
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_lowest_limit_wins_across_periods_and_a_loss_limit_counts_what_is_at_risk() {
    let server = start().await;
    let url = server.url.clone();
    let (cookie, mut c) = seated(&url, "pat").await;
    let (status, _) = put_limits(
        &url,
        &cookie,
        json!([
            {"kind": "loss", "period": "day", "amount": "100.00"},
            {"kind": "loss", "period": "week", "amount": "25.00"},
            {"kind": "wager", "period": "month", "amount": "1000.00"}
        ]),
    )
    .await;
    assert_eq!(status, 200);
    let refused = bet(&mut c, "30.00").await.unwrap_err();
    let m = refused["message"].as_str().unwrap();
    assert!(m.contains("7-day loss limit of 25.00"), "{m}");
    assert!(bet(&mut c, "25.00").await.is_ok());
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_increase_waits_24_hours_then_takes_effect_once_confirmed_and_a_decrease_at_once() {
    let server = start().await;
    let url = server.url.clone();
    let op = operator(&server, "olga").await;
    let cookie = register(&url, "pat").await;
    let set = |amount: &str| json!([{"kind": "loss", "period": "day", "amount": amount}]);
    let (_, page) = put_limits(&url, &cookie, set("50.00")).await;
    assert_eq!(limit(&page, "loss", "day")["amount"], "50.00", "{page}");
    let asked = server.state.now_ms();
    let (_, page) = put_limits(&url, &cookie, set("100.00")).await;
    let l = limit(&page, "loss", "day");
    assert_eq!(
        l["amount"], "50.00",
        "an increase is not in effect at once: {page}"
    );
    assert_eq!(l["pending"]["amount"], "100.00");
    assert_eq!(l["pending"]["confirmable"], false);
    let at = time::OffsetDateTime::parse(
        l["pending"]["effective_at"].as_str().unwrap(),
        &time::format_description::well_known::Rfc3339,
    )
    .unwrap()
    .unix_timestamp();
    assert!((at * 1000 - (asked + 86_400_000)).abs() < 5_000, "{l}");
    // Asked again before the 24 hours are over: still pending.
    let (_, page) = put_limits(&url, &cookie, set("100.00")).await;
    assert_eq!(limit(&page, "loss", "day")["amount"], "50.00");
    advance(&url, &op, 86_400 + 5).await;
    let cookie = relogin(&url, "pat").await;
    let page = get_json(&format!("{url}/api/limits"), &cookie).await;
    let l = limit(&page, "loss", "day");
    assert_eq!(
        l["amount"], "50.00",
        "it waits for the confirmation: {page}"
    );
    assert_eq!(l["pending"]["confirmable"], true);
    let (_, page) = put_limits(&url, &cookie, set("100.00")).await;
    let l = limit(&page, "loss", "day");
    assert_eq!(
        (&l["amount"], &l["pending"]),
        (&json!("100.00"), &Value::Null),
        "{page}"
    );
    let (_, page) = put_limits(&url, &cookie, set("20.00")).await;
    assert_eq!(limit(&page, "loss", "day")["amount"], "20.00", "{page}");
    let (_, page) = put_limits(
        &url,
        &cookie,
        json!([{"kind": "loss", "period": "day", "remove": true}]),
    )
    .await;
    assert_eq!(
        limit(&page, "loss", "day")["amount"],
        "20.00",
        "a removal waits too"
    );
    assert_eq!(limit(&page, "loss", "day")["pending"]["remove"], true);
    assert_eq!(page["history"].as_array().unwrap().len(), 5, "{page}");
    // A weekly limit's raise waits for its week to end (PA 814a.2), not 24 hours.
    let week = |amount: &str| json!([{"kind": "wager", "period": "week", "amount": amount}]);
    put_limits(&url, &cookie, week("70.00")).await;
    let (_, page) = put_limits(&url, &cookie, week("140.00")).await;
    let l = limit(&page, "wager", "week");
    assert_eq!(l["pending"]["effective_at"], l["resets_at"], "{page}");
    let op = relogin(&url, "olga").await;
    advance(&url, &op, 86_400 + 5).await;
    let cookie = relogin(&url, "pat").await;
    let page = get_json(&format!("{url}/api/limits"), &cookie).await;
    let l = limit(&page, "wager", "week");
    assert_eq!(l["pending"]["confirmable"], false, "{page}");
    let (status, e) = put_limits(
        &url,
        &cookie,
        json!([{"kind": "loss", "period": "day", "amount": "-1.00"}]),
    )
    .await;
    refused((status, &e), 400, "bad-request");
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_deposit_limit_refuses_a_top_up_and_counts_the_one_it_lets_through() {
    let server = start().await;
    let url = server.url.clone();
    let pat = register(&url, "pat").await;
    let lee = register(&url, "lee").await;
    put_limits(
        &url,
        &pat,
        json!([{"kind": "deposit", "period": "week", "amount": "200.00"}]),
    )
    .await;
    let (status, e) = post(&format!("{url}/api/top-up"), &pat, json!({})).await;
    refused((status, &e), 403, "limit-reached");
    assert!(
        e["message"]
            .as_str()
            .unwrap()
            .contains("7-day deposit limit of 200.00"),
        "{e}"
    );
    let me = get_json(&format!("{url}/api/me"), &pat).await;
    assert_eq!(me["balance"], "0.00", "nothing was deposited: {me}");
    put_limits(
        &url,
        &lee,
        json!([{"kind": "deposit", "period": "week", "amount": "250.00"}]),
    )
    .await;
    let (status, _) = post(&format!("{url}/api/top-up"), &lee, json!({})).await;
    assert_eq!(status, 200);
    let page = get_json(&format!("{url}/api/limits"), &lee).await;
    assert_eq!(limit(&page, "deposit", "week")["used"], "250.00", "{page}");
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_break_leaves_the_seat_after_the_round_and_refuses_bets_until_it_ends() {
    let server = start().await;
    let url = server.url.clone();
    let op = operator(&server, "olga").await;
    let (cookie, mut c) = seated(&url, "pat").await;
    stack(&url, &op, &["Tc", "7d", "6h", "8s", "Ts"]).await;
    let v = bet(&mut c, "10.00").await.unwrap();
    let round = v["round_id"].as_i64().unwrap();
    let (status, page) = post(
        &format!("{url}/api/limits/break"),
        &cookie,
        json!({"kind": "break", "hours": 72}),
    )
    .await;
    assert_eq!(status, 201, "{page}");
    assert_eq!(page["blocked"]["kind"], "break");
    // The session ends at once (N.J.A.C. 13:69O-1.4(g)): its socket closes, saying why.
    let told = c.until(5, |v| v["type"] == "error").await;
    assert_eq!(told["code"], "player-blocked", "{told}");
    let ended = session_ended(&mut c).await;
    let why = ended["message"].as_str().unwrap();
    assert!(why.starts_with("you are taking a break until "), "{ended}");
    assert_eq!(me_status(&url, &cookie).await, 401, "the session has ended");
    // The player may log in again (balance, history) and finish the hand: mid-hand
    // the seat is kept.
    let cookie = relogin(&url, "pat").await;
    let mut c = at_table(&url, &cookie).await;
    c.send(r#"{"type":"sync"}"#).await;
    let v = c.until(5, |v| v["type"] == "view").await;
    assert_eq!(v["you"]["seat"], 1, "{v}");
    assert!(!v["you"]["decisions"].as_array().unwrap().is_empty(), "{v}");
    act(&mut c, round, "stand", "s1").await;
    let end = c
        .until(5, |v| v["type"] == "view" && v["you"]["seat"].is_null())
        .await;
    assert_eq!(end["in_play"], false, "{end}");
    c.send(r#"{"type":"sit"}"#).await;
    refusal(&mut c, "player-blocked", "").await;
    // Not shortened: a shorter break is refused.
    let (status, e) = post(
        &format!("{url}/api/limits/break"),
        &cookie,
        json!({"kind": "break", "hours": 24}),
    )
    .await;
    refused((status, &e), 409, "player-blocked");
    drop(c);
    advance(&url, &op, 72 * 3_600 + 5).await;
    let cookie = relogin(&url, "pat").await;
    let mut c = at_table(&url, &cookie).await;
    c.send(r#"{"type":"sit"}"#).await;
    c.until(5, |v| v["you"]["may_bet"] == true).await;
    assert!(bet(&mut c, "10.00").await.is_ok());
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_self_exclusion_cannot_be_shortened_or_lifted_and_freezes_the_limits() {
    let server = start().await;
    let url = server.url.clone();
    let op = operator(&server, "olga").await;
    let cookie = register(&url, "pat").await;
    let (status, e) = post(
        &format!("{url}/api/limits/break"),
        &cookie,
        json!({"kind": "self-excluded", "hours": 24}),
    )
    .await;
    assert_eq!(status, 400, "a self-exclusion lasts 6 months at least: {e}");
    let (status, _) = post(
        &format!("{url}/api/limits/break"),
        &cookie,
        json!({"kind": "self-excluded", "hours": 183 * 24}),
    )
    .await;
    assert_eq!(status, 201);
    assert_eq!(me_status(&url, &cookie).await, 401, "the session has ended");
    let cookie = relogin(&url, "pat").await;
    let (status, e) = post(
        &format!("{url}/api/limits/break"),
        &cookie,
        json!({"kind": "break", "hours": 24}),
    )
    .await;
    refused((status, &e), 409, "player-blocked");
    let (status, e) = put_limits(
        &url,
        &cookie,
        json!([{"kind": "loss", "period": "day", "amount": "5.00"}]),
    )
    .await;
    refused((status, &e), 403, "player-blocked");
    advance(&url, &op, 90 * 86_400).await;
    let r = reqwest::Client::new()
        .post(format!("{url}/api/login"))
        .json(&json!({"name": "pat", "password": "pat-secret"}))
        .send()
        .await
        .unwrap();
    assert_eq!(
        r.status(),
        200,
        "a self-excluded player still sees their account"
    );
    let cookie = common::session_cookie(&r);
    let login: Value = r.json().await.unwrap();
    let said = login["blocked"].as_str().unwrap();
    assert!(
        said.starts_with("you have excluded yourself until "),
        "{login}"
    );
    let page = get_json(&format!("{url}/api/limits"), &cookie).await;
    assert_eq!(page["blocked"]["kind"], "self-excluded", "{page}");
    let (status, e) = post(&format!("{url}/api/top-up"), &cookie, json!({})).await;
    refused((status, &e), 403, "player-blocked");
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_operator_exclusion_is_audited_with_who_and_when_and_ends_play() {
    let server = start().await;
    let url = server.url.clone();
    let op = operator(&server, "olga").await;
    let (cookie, mut c) = seated(&url, "pat").await;
    let exclude = format!("{url}/api/operator/players/pat/exclude");
    let (status, _) = post(
        &exclude,
        &cookie,
        json!({"for_good": true, "reason": "asked"}),
    )
    .await;
    assert_eq!(status, 403, "a player is no operator");
    let (status, e) = post(&exclude, &op, json!({"for_good": true})).await;
    assert_eq!(status, 400, "a reason is required: {e}");
    let (status, page) = post(
        &exclude,
        &op,
        json!({"for_good": true, "reason": "a court order"}),
    )
    .await;
    assert_eq!(status, 201, "{page}");
    let log = get_json(&format!("{url}/api/operator/audit?subject=pat"), &op).await;
    let entries = log["entries"].as_array().unwrap();
    assert_eq!(entries.len(), 1, "{log}");
    assert_eq!(
        (entries[0]["actor"].as_str(), entries[0]["action"].as_str()),
        (Some("olga"), Some("exclude-player"))
    );
    assert!(
        entries[0]["detail"]
            .as_str()
            .unwrap()
            .contains("a court order"),
        "{log}"
    );
    // Every session of the player ends; not in a round, the seat is left at once.
    session_ended(&mut c).await;
    assert_eq!(me_status(&url, &cookie).await, 401, "the session has ended");
    let cookie = relogin(&url, "pat").await;
    let mut c = at_table(&url, &cookie).await;
    c.send(r#"{"type":"sync"}"#).await;
    let v = c.until(5, |v| v["type"] == "view").await;
    assert!(v["you"]["seat"].is_null(), "{v}");
    let page = get_json(&format!("{url}/api/limits"), &cookie).await;
    assert_eq!(page["blocked"]["kind"], "operator", "{page}");
    assert!(page["blocked"]["until"].is_null());
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_session_time_limit_ends_play_at_the_round_boundary_not_mid_hand() {
    let server = start().await;
    let url = server.url.clone();
    let op = operator(&server, "olga").await;
    let (cookie, mut c) = seated(&url, "pat").await;
    session_limit_of_30_minutes(&url, &cookie).await;
    stack(&url, &op, &["Tc", "7d", "6h", "8s", "Ts"]).await;
    let v = bet(&mut c, "10.00").await.unwrap();
    let round = v["round_id"].as_i64().unwrap();
    // Forty minutes logged in pass mid-hand, past the limit (ten at a time, the
    // session used within its idle time-out of 15 minutes): the hand is still the
    // player's to finish.
    for _ in 0..4 {
        advance(&url, &op, 10 * 60).await;
        assert_eq!(me_status(&url, &cookie).await, 200);
        c.send(r#"{"type":"sync"}"#).await;
        let v = c.until(5, |v| v["type"] == "view").await;
        assert_eq!(v["you"]["seat"], 1, "{v}");
        assert!(!v["you"]["decisions"].as_array().unwrap().is_empty(), "{v}");
    }
    act(&mut c, round, "stand", "s1").await;
    let told = c.until(5, |v| v["type"] == "error").await;
    assert_eq!(told["code"], "limit-reached", "{told}");
    let m = told["message"].as_str().unwrap();
    assert!(
        m.contains("24-hour session-time limit of 30 minutes"),
        "{m}"
    );
    let end = c
        .until(5, |v| v["type"] == "view" && v["you"]["seat"].is_null())
        .await;
    assert_eq!(end["in_play"], false, "{end}");
    c.send(r#"{"type":"sit"}"#).await;
    refusal(&mut c, "limit-reached", "").await;
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_session_time_limit_counts_logged_in_time_in_the_lobby_and_across_a_log_out() {
    let server = start().await;
    let url = server.url.clone();
    let op = operator(&server, "olga").await;
    let cookie = register(&url, "pat").await;
    let (status, v) = post(&format!("{url}/api/top-up"), &cookie, json!({})).await;
    assert_eq!(status, 200, "{v}");
    session_limit_of_30_minutes(&url, &cookie).await;
    // Twenty minutes logged in, in the lobby (used within the idle time), then a
    // log-out: counted.
    for _ in 0..2 {
        advance(&url, &op, 10 * 60).await;
        assert_eq!(me_status(&url, &cookie).await, 200);
    }
    let page = get_json(&format!("{url}/api/limits"), &cookie).await;
    assert_eq!(limit(&page, "session", "day")["used"], "20", "{page}");
    let r = reqwest::Client::new()
        .post(format!("{url}/api/logout"))
        .header("cookie", &cookie)
        .json(&json!({}))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 204);
    // Logged out an hour: not counted (the operator's session used every ten
    // minutes, within its idle time).
    for _ in 0..6 {
        advance(&url, &op, 10 * 60).await;
    }
    let cookie = relogin(&url, "pat").await;
    let page = get_json(&format!("{url}/api/limits"), &cookie).await;
    assert_eq!(limit(&page, "session", "day")["used"], "20", "{page}");
    // Five minutes more: 25, a seat is taken.
    advance(&url, &op, 5 * 60).await;
    let mut c = at_table(&url, &cookie).await;
    c.send(r#"{"type":"sit"}"#).await;
    c.until(5, |v| v["you"]["may_bet"] == true).await;
    c.send(r#"{"type":"leave"}"#).await;
    c.until(5, |v| v["type"] == "view" && v["you"]["seat"].is_null())
        .await;
    // Ten more in the lobby, never seated: 35, past the limit; no seat is given.
    advance(&url, &op, 10 * 60).await;
    c.send(r#"{"type":"sit"}"#).await;
    refusal(&mut c, "limit-reached", "").await;
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn limits_set_at_registration_take_effect_at_once_and_bad_ones_refuse_it() {
    let server = start().await;
    let url = server.url.clone();
    let register = |name: &str, limits: Value| {
        reqwest::Client::new()
            .post(format!("{url}/api/register"))
            .json(&json!({"name": name, "password": format!("{name}-secret"), "limits": limits}))
            .send()
    };
    let r = register(
        "pat",
        json!([{"kind": "wager", "period": "week", "amount": "-5"}]),
    )
    .await
    .unwrap();
    assert_eq!(r.status(), 400);
    assert!(
        common::login(&url, "pat", "pat-secret").await.is_err(),
        "no login was made"
    );
    let r = register(
        "pat",
        json!([{"kind": "wager", "period": "week", "amount": "75.00"}]),
    )
    .await
    .unwrap();
    assert_eq!(r.status(), 201);
    let cookie = common::session_cookie(&r);
    let page = get_json(&format!("{url}/api/limits"), &cookie).await;
    assert_eq!(limit(&page, "wager", "week")["amount"], "75.00", "{page}");
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn insurance_past_a_loss_limit_is_refused_and_the_offer_stays_open() {
    let server = start().await;
    let url = server.url.clone();
    let op = operator(&server, "olga").await;
    let (cookie, mut c) = seated(&url, "pat").await;
    let (status, _) = put_limits(
        &url,
        &cookie,
        json!([{"kind": "loss", "period": "day", "amount": "12.00"}]),
    )
    .await;
    assert_eq!(status, 200);
    // Nineteen against an ace: insurance (5.00 on a 10.00 bet) is offered.
    stack(&url, &op, &["Tc", "7s", "9h", "Ad", "Ts"]).await;
    let v = bet(&mut c, "10.00").await.unwrap();
    let offered = v["you"]["decisions"]
        .as_array()
        .is_some_and(|d| d.iter().any(|x| x["offer"] == true));
    assert!(offered, "{v}");
    let round = v["round_id"].as_i64().unwrap();
    act(&mut c, round, "insurance", "i1").await;
    refusal(&mut c, "limit-reached", "loss limit of 12.00 (2.00 left)").await;
    act(&mut c, round, "decline", "n1").await;
    c.until(5, |v| v["round"]["phase"] == "player-turns").await;
    act(&mut c, round, "stand", "s1").await;
    c.until(5, |v| v["in_play"] == false).await;
    server.stop().await;
}

/// Logs `name` in: the answer's body (and its session cookie).
async fn login_answer(url: &str, name: &str) -> (Value, String) {
    let r = reqwest::Client::new()
        .post(format!("{url}/api/login"))
        .json(&json!({"name": name, "password": format!("{name}-secret")}))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200);
    let cookie = common::session_cookie(&r);
    (r.json().await.unwrap(), cookie)
}

/// Every six months without a change or a review the log-in asks the player to review
/// their limits (UKGC RTS 12); "keep them" is written to the audit log with who and
/// when and stops the prompt, and so does a change of a limit.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_log_in_six_months_after_the_last_review_asks_for_one_and_keeping_or_changing_answers_it()
{
    let server = start().await;
    let url = server.url.clone();
    register(&url, "pat").await;
    let (me, _) = login_answer(&url, "pat").await;
    assert_eq!(me["limits_review"], Value::Null, "a new account: {me}");
    let six_months = 182 * 86_400;
    let op = operator(&server, "olga").await;
    advance(&url, &op, six_months - 60).await;
    let (me, _) = login_answer(&url, "pat").await;
    assert_eq!(me["limits_review"], Value::Null, "a minute early: {me}");
    let op = common::login(&url, "olga", "olga-secret").await.unwrap();
    advance(&url, &op, 120).await;
    let (me, cookie) = login_answer(&url, "pat").await;
    let last = me["limits_review"]["last_reviewed"]
        .as_str()
        .unwrap_or_default();
    assert!(last.starts_with("20"), "due: {me}");
    let (status, page) = post(&format!("{url}/api/limits/review"), &cookie, json!({})).await;
    assert_eq!(status, 200, "{page}");
    assert!(page["limits"].is_array(), "{page}");
    // Sent again (a double click, a script): the same answer, nothing more written.
    let (status, _) = post(&format!("{url}/api/limits/review"), &cookie, json!({})).await;
    assert_eq!(status, 200);
    let op = common::login(&url, "olga", "olga-secret").await.unwrap();
    let log = get_json(&format!("{url}/api/operator/audit?subject=pat"), &op).await;
    let kept: Vec<_> = log["entries"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["action"] == "review-limits" && e["actor"] == "pat")
        .collect();
    assert_eq!(kept.len(), 1, "{log}");
    let (me, _) = login_answer(&url, "pat").await;
    assert_eq!(me["limits_review"], Value::Null, "just reviewed: {me}");

    // Six months on, a change of a limit is a review too.
    advance(&url, &op, six_months + 60).await;
    let (me, cookie) = login_answer(&url, "pat").await;
    assert!(me["limits_review"].is_object(), "due again: {me}");
    let (status, _) = put_limits(
        &url,
        &cookie,
        json!([{"kind": "loss", "period": "week", "amount": "100.00"}]),
    )
    .await;
    assert_eq!(status, 200);
    let (me, _) = login_answer(&url, "pat").await;
    assert_eq!(
        me["limits_review"],
        Value::Null,
        "a change reviews them: {me}"
    );
    // Without a session the review is refused and nothing is written.
    let (status, _) = post(
        &format!("{url}/api/limits/review"),
        "felt_session=none",
        json!({}),
    )
    .await;
    assert_eq!(status, 401);
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_session_changing_its_limits_past_its_rate_is_refused_before_anything_is_written() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("felt.db");
    let settings = Settings {
        session_rate: felt_server::session_rate::SessionRate {
            requests_per_min: 100,
            writes_per_min: 3,
            max_sessions: 100,
        },
        ..Settings::default()
    };
    let server = common::start_with(dir, db, TABLES, settings).await;
    let url = &server.url;
    let (ann, bob) = (register(url, "ann").await, register(url, "bob").await);
    let wager = |amount: &str| json!([{"kind": "wager", "period": "day", "amount": amount}]);
    // Decreases apply at once: each is written.
    for amount in ["50.00", "40.00", "30.00"] {
        let (status, page) = put_limits(url, &ann, wager(amount)).await;
        assert_eq!(status, 200, "{page}");
    }
    let r = reqwest::Client::new()
        .put(format!("{url}/api/limits"))
        .header("cookie", &ann)
        .json(&json!({ "limits": wager("20.00") }))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 429);
    let wait: u64 = r.headers()["retry-after"]
        .to_str()
        .unwrap()
        .parse()
        .unwrap();
    assert!((1..=60).contains(&wait), "{wait}");
    let v: Value = r.json().await.unwrap();
    assert_eq!(v["error"], "rate-limited", "{v}");
    // Nothing was written, reading still goes, another player is not slowed.
    let page = get_json(&format!("{url}/api/limits"), &ann).await;
    assert_eq!(limit(&page, "wager", "day")["amount"], "30.00", "{page}");
    let (status, page) = put_limits(url, &bob, wager("20.00")).await;
    assert_eq!(status, 200, "{page}");
    // A log-out is never refused.
    let r = reqwest::Client::new()
        .post(format!("{url}/api/logout"))
        .header("cookie", &ann)
        .json(&json!({}))
        .send()
        .await
        .unwrap();
    assert!(r.status().is_success(), "{}", r.status());
    server.stop().await;
}
