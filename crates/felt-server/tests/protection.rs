//! Player protection over HTTP and the table socket (issue 26, items 3, 4 and 5's
//! player side): the reality check holding the next bet until answered, the lock-out
//! after failed log-ins, the sessions' idle time and longest life, the help line, and
//! the player's unfinished round at log-in. Every time rule runs on the server's clock,
//! moved by `POST /api/test/clock`.

mod common;

use common::{connect, operator, register, Client};
use felt_server::app::Settings;
use serde_json::{json, Value};

const TABLES: &str = "[[table]]\nname = \"classic\"\ngame = \"classic\"\nbetting_secs = 60\ndecision_secs = 60\npause_ms = 0\n";

/// A server in test mode on new books with `settings`.
async fn start(settings: Settings) -> common::Running {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("felt.db");
    let settings = Settings {
        test_shoes: true,
        ..settings
    };
    common::start_with(dir, db, TABLES, settings).await
}

struct Http {
    url: String,
    http: reqwest::Client,
}

impl Http {
    fn new(url: &str) -> Http {
        Http {
            url: url.to_string(),
            http: reqwest::Client::new(),
        }
    }

    async fn send(
        &self,
        method: &str,
        path: &str,
        cookie: &str,
        body: Option<Value>,
    ) -> (u16, Value) {
        let m = reqwest::Method::from_bytes(method.as_bytes()).unwrap();
        let mut r = self
            .http
            .request(m, format!("{}{path}", self.url))
            .header("cookie", cookie);
        // A state-changing request is JSON (crate::origin), even without a body.
        if let Some(b) = body.or_else(|| (method != "GET").then(|| json!({}))) {
            r = r.json(&b);
        }
        let r = r.send().await.unwrap();
        let status = r.status().as_u16();
        (status, r.json().await.unwrap_or(Value::Null))
    }

    /// `PUT /api/session/reality-check`: the player's interval.
    async fn interval(&self, cookie: &str, mins: u32) -> (u16, Value) {
        let body = json!({ "interval_mins": mins });
        self.send("PUT", "/api/session/reality-check", cookie, Some(body))
            .await
    }

    /// `POST /api/session/reality-check`: the player's answer.
    async fn answer(&self, cookie: &str, answer: &str) -> (u16, Value) {
        let body = json!({ "answer": answer });
        self.send("POST", "/api/session/reality-check", cookie, Some(body))
            .await
    }

    /// Moves the server's clock forward (an operator's session).
    async fn advance(&self, op: &str, secs: i64) {
        let (status, v) = self
            .send(
                "POST",
                "/api/test/clock",
                op,
                Some(json!({"advance_secs": secs})),
            )
            .await;
        assert_eq!(status, 200, "{v}");
    }

    async fn login(&self, name: &str, password: &str) -> (u16, Value, Option<String>) {
        let r = self
            .http
            .post(format!("{}/api/login", self.url))
            .json(&json!({"name": name, "password": password}))
            .send()
            .await
            .unwrap();
        let status = r.status().as_u16();
        let cookie = (status == 200).then(|| common::session_cookie(&r));
        (status, r.json().await.unwrap_or(Value::Null), cookie)
    }
}

/// `name` seated at the classic table.
async fn seated(url: &str, cookie: &str) -> Client {
    let mut c = connect(url, Some(cookie), None).await.unwrap();
    c.send(r#"{"type":"hello","version":1,"table":"classic"}"#)
        .await;
    c.send(r#"{"type":"sit","seat":1}"#).await;
    c.until(5, |v| v["you"]["may_bet"] == true).await;
    c
}

/// Stacks the table's next shoe: the player's T 9 (19) against the dealer's 8 (with a
/// 7 in the hole, and a T to draw: 25, bust).
async fn stack(api: &Http, op: &str) {
    let cards = json!({"cards": ["Tc", "7d", "9h", "8s", "Ts"]});
    let (status, v) = api
        .send("POST", "/api/test/tables/classic/shoe", op, Some(cards))
        .await;
    assert_eq!(status, 202, "{v}");
}

/// Bets 10.00 in the next betting window; the table's answer (a refusal other than
/// "no window open yet", or the dealt view).
async fn bet(c: &mut Client, id: &str) -> Value {
    for _ in 0..50 {
        c.send(r#"{"type":"sync"}"#).await;
        let v = c.until(5, |v| v["type"] == "view").await;
        let round = v["round_id"].as_i64().unwrap_or(0);
        c.send(&format!(
            r#"{{"type":"bet","round":{round},"id":"{id}","spots":[{{"spot":1,"main":"10.00"}}]}}"#
        ))
        .await;
        let v = c
            .until(5, |v| {
                v["type"] == "error" || v["round"]["phase"] == "player-turns"
            })
            .await;
        if !(v["code"] == "not-betting" || v["code"] == "other-round") {
            return v;
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    panic!("no betting window opened");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_reality_check_holds_the_next_bet_until_answered_and_never_stops_a_hand() {
    // Sessions outlive the moved clock here (a player at play keeps theirs alive).
    let server = start(Settings {
        idle_ms: 24 * 3600 * 1000,
        ..Settings::default()
    })
    .await;
    let api = Http::new(&server.url);
    let op = operator(&server, "olga").await;
    let ria = register(&server.url, "ria").await;
    let (status, s) = api.send("GET", "/api/session", &ria, None).await;
    assert_eq!(status, 200, "{s}");
    assert_eq!(s["reality_check"]["interval_mins"], 60);
    assert_eq!(s["reality_check"]["due"], false);
    assert_eq!(
        (s["staked"].as_str(), s["net"].as_str()),
        (Some("0.00"), Some("0.00"))
    );
    // A choice outside the operator's range (15 to 60 minutes) changes nothing.
    let (status, e) = api.interval(&ria, 90).await;
    assert_eq!((status, e["error"].as_str()), (400, Some("bad-interval")));
    let (status, s) = api.interval(&ria, 30).await;
    assert_eq!(
        (status, s["reality_check"]["interval_mins"].as_u64()),
        (200, Some(30))
    );

    let mut c = seated(&server.url, &ria).await;
    stack(&api, &op).await;
    let dealt = c.bet_until_dealt("10.00").await;
    let round = dealt["round_id"].as_i64().unwrap();
    // The interval passes mid-hand: the hand plays on to its end.
    api.advance(&op, 31 * 60).await;
    c.send(&format!(
        r#"{{"type":"act","round":{round},"spot":1,"hand":1,"decision":"stand","id":"a1"}}"#
    ))
    .await;
    let end = c
        .until(5, |v| v["type"] == "error" || v["in_play"] == false)
        .await;
    assert_eq!(end["type"], "view", "the stand was taken: {end}");
    // At the boundary the check is due, with the session's figures from the books.
    let (_, s) = api.send("GET", "/api/session", &ria, None).await;
    assert_eq!(s["reality_check"]["due"], true, "{s}");
    assert_eq!(s["staked"], "10.00");
    assert_eq!(s["returned"], "20.00");
    assert_eq!(s["net"], "10.00");
    assert_eq!(s["rounds"], 1);
    assert!(s["elapsed_ms"].as_i64().unwrap() >= 31 * 60 * 1000, "{s}");
    // The next bet is refused until the answer, and so is a new interval.
    let refused = bet(&mut c, "b2").await;
    assert_eq!(refused["code"], "reality-check", "{refused}");
    let (status, e) = api.interval(&ria, 60).await;
    assert_eq!((status, e["error"].as_str()), (409, Some("reality-check")));
    let (status, e) = api.answer(&ria, "later").await;
    assert_eq!(status, 400, "{e}");
    // "Continue": play resumes, the next check an interval away.
    let (status, s) = api.answer(&ria, "continue").await;
    assert_eq!(
        (status, s["reality_check"]["due"].as_bool()),
        (200, Some(false)),
        "{s}"
    );
    let (status, e) = api.answer(&ria, "continue").await;
    assert_eq!(
        (status, e["error"].as_str()),
        (409, Some("no-reality-check"))
    );
    stack(&api, &op).await;
    let dealt = bet(&mut c, "b3").await;
    assert_eq!(dealt["round"]["phase"], "player-turns", "{dealt}");
    // "Log out" at the next check ends the session and closes the table socket.
    api.advance(&op, 31 * 60).await;
    let (status, _) = api.answer(&ria, "log-out").await;
    assert_eq!(status, 204);
    let closed = c
        .until(5, |v| v["type"] == "error" && v["code"] == "session-ended")
        .await;
    assert_eq!(closed["code"], "session-ended");
    let (status, _) = api.send("GET", "/api/session", &ria, None).await;
    assert_eq!(status, 401);
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_help_line_is_the_operators_at_the_log_in_page_and_in_the_answers() {
    let mut settings = Settings::default();
    settings.protection.help_line = "Worried about your play? Call 0808 8020 133.".to_string();
    let server = start(settings).await;
    let api = Http::new(&server.url);
    let (status, v) = api.send("GET", "/api/help-line", "", None).await;
    assert_eq!(
        (status, v["help_line"].as_str()),
        (200, Some("Worried about your play? Call 0808 8020 133."))
    );
    register(&server.url, "hal").await;
    let (status, v, cookie) = api.login("hal", "hal-secret").await;
    assert_eq!(status, 200);
    assert_eq!(
        v["help_line"],
        "Worried about your play? Call 0808 8020 133."
    );
    assert!(v["previous_login"].is_string(), "{v}");
    let (_, s) = api
        .send("GET", "/api/session", &cookie.unwrap(), None)
        .await;
    assert_eq!(
        s["help_line"],
        "Worried about your play? Call 0808 8020 133."
    );
    server.stop().await;
}

/// The operator `by` (session `op`) lifts `name`'s lock: it was locked, and the audit
/// log's one entry on `name` says who lifted it; that entry.
async fn unlocked_by(api: &Http, op: &str, name: &str, by: &str) -> Value {
    let (status, v) = api
        .send(
            "POST",
            &format!("/api/operator/players/{name}/unlock"),
            op,
            None,
        )
        .await;
    assert_eq!(
        (status, v["was_locked"].as_bool()),
        (200, Some(true)),
        "{v}"
    );
    let (_, log) = api
        .send(
            "GET",
            &format!("/api/operator/audit?subject={name}"),
            op,
            None,
        )
        .await;
    let entries = log["entries"].as_array().unwrap();
    assert_eq!(entries.len(), 1, "{log}");
    assert_eq!(
        (&entries[0]["action"], &entries[0]["actor"]),
        (&json!("unlock-player"), &json!(by)),
        "{log}"
    );
    entries[0].clone()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn failed_log_ins_lock_the_account_until_an_operator_lifts_it_or_the_lock_ends() {
    let mut settings = Settings::default();
    // Shorter than the idle time, so the operator's session outlives the lock.
    settings.lock.for_ms = 10 * 60 * 1000;
    let server = start(settings).await;
    let api = Http::new(&server.url);
    let op = operator(&server, "olga").await;
    let lou = register(&server.url, "lou").await;
    let after = server.state.settings().lock.after;
    assert_eq!(after, 3, "New Jersey's count is the default");
    let lock_out = || async {
        for i in 0..after {
            let (status, _, _) = api.login("lou", &format!("wrong-{i}")).await;
            assert_eq!(status, 401, "failure {i}");
        }
    };
    lock_out().await;
    // Locked: the right password is refused too.
    let (status, e, _) = api.login("lou", "lou-secret").await;
    assert_eq!(
        (status, e["error"].as_str()),
        (403, Some("account-locked")),
        "{e}"
    );
    // Only an operator lifts it.
    let (status, _) = api
        .send("POST", "/api/operator/players/lou/unlock", &lou, None)
        .await;
    assert_eq!(status, 403);
    let (status, e) = api
        .send("POST", "/api/operator/players/nobody/unlock", &op, None)
        .await;
    assert_eq!((status, e["error"].as_str()), (404, Some("no-player")));
    // Written to the audit log: who lifted which lock.
    let entry = unlocked_by(&api, &op, "lou", "olga").await;
    let detail = entry["detail"].as_str().unwrap();
    assert!(detail.contains("locked until"), "{entry}");
    let (status, _, _) = api.login("lou", "lou-secret").await;
    assert_eq!(status, 200);
    // Locked again, it ends by itself after its length on the server's clock.
    lock_out().await;
    let (status, _, _) = api.login("lou", "lou-secret").await;
    assert_eq!(status, 403);
    let mins = server.state.settings().lock.for_ms / 60_000;
    api.advance(&op, mins * 60 - 60).await;
    let (status, _, _) = api.login("lou", "lou-secret").await;
    assert_eq!(status, 403, "a minute before its end");
    api.advance(&op, 61).await;
    let (status, _, _) = api.login("lou", "lou-secret").await;
    assert_eq!(status, 200, "after its end");
    server.stop().await;
}

/// A setting changes by starting the server with new flags: each start writes the
/// settings it runs with to the audit log (`server-settings`, by the system, on the
/// server's name), so a lab reads which settings held from when.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn each_start_writes_its_protection_settings_to_the_audit_log() {
    let mut settings = Settings::default();
    settings.lock.after = 5;
    settings.lock.for_ms = felt_server::lockout::UNTIL_LIFTED;
    let server = start(settings).await;
    let api = Http::new(&server.url);
    let op = operator(&server, "olga").await;
    let name = server.state.hosting().server.clone();
    let (status, log) = api
        .send(
            "GET",
            &format!("/api/operator/audit?subject={name}"),
            &op,
            None,
        )
        .await;
    assert_eq!(status, 200, "{log}");
    let entries = log["entries"].as_array().unwrap();
    assert_eq!(entries.len(), 1, "{log}");
    assert_eq!(
        (&entries[0]["action"], &entries[0]["actor"]),
        (&json!("server-settings"), &json!("system")),
        "{log}"
    );
    let detail = entries[0]["detail"].as_str().unwrap();
    assert!(
        detail.contains("5 failed log-ins lock an account until an operator lifts it")
            && detail.contains("after 15 min unused")
            && detail.contains("1-800-GAMBLER"),
        "{detail}"
    );
    server.stop().await;
}

/// Staff log in through the same door and the same lock (GLI-19 B.2.3(g), (h)): an
/// operator's account is locked after the failures, refused with the right password,
/// and lifted by another operator, written to the audit log.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_operators_own_account_is_locked_after_failed_log_ins_and_lifted_by_another() {
    let server = start(Settings::default()).await;
    let api = Http::new(&server.url);
    let olga = operator(&server, "olga").await;
    operator(&server, "stan").await;
    let after = server.state.settings().lock.after;
    for i in 0..after {
        let (status, _, _) = api.login("stan", &format!("wrong-{i}")).await;
        assert_eq!(status, 401, "failure {i}");
    }
    let (status, e, _) = api.login("stan", "stan-secret").await;
    assert_eq!(
        (status, e["error"].as_str()),
        (403, Some("account-locked")),
        "{e}"
    );
    unlocked_by(&api, &olga, "stan", "olga").await;
    let (status, me, _) = api.login("stan", "stan-secret").await;
    assert_eq!(
        (status, me["role"].as_str()),
        (200, Some("operator")),
        "{me}"
    );
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_lock_until_lifted_outlasts_any_time_and_goes_only_by_an_operator() {
    let mut settings = Settings::default();
    settings.lock.for_ms = felt_server::lockout::UNTIL_LIFTED;
    let server = start(settings).await;
    let api = Http::new(&server.url);
    register(&server.url, "may").await;
    for i in 0..3 {
        assert_eq!(api.login("may", &format!("wrong-{i}")).await.0, 401);
    }
    let op = operator(&server, "olga").await;
    api.advance(&op, 366 * 24 * 3600).await;
    let (status, e, _) = api.login("may", "may-secret").await;
    assert_eq!(status, 403);
    assert!(
        e["message"]
            .as_str()
            .unwrap()
            .contains("until an operator lifts"),
        "{e}"
    );
    // The operator's own session aged past its idle time: log in again.
    let (_, _, op) = api.login("olga", "olga-secret").await;
    let (status, _) = api
        .send(
            "POST",
            "/api/operator/players/may/unlock",
            &op.unwrap(),
            None,
        )
        .await;
    assert_eq!(status, 200);
    assert_eq!(api.login("may", "may-secret").await.0, 200);
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_session_ends_when_unused_past_its_idle_time_and_when_used_past_its_longest_life() {
    let mut settings = Settings::default();
    settings.protection.session_max_ms = 2 * 3600 * 1000;
    let server = start(settings).await;
    let api = Http::new(&server.url);
    let op = operator(&server, "olga").await;
    let idle = register(&server.url, "ida").await;
    let busy = register(&server.url, "bea").await;
    let idle_mins = server.state.settings().idle_ms / 60_000;
    assert_eq!(idle_mins, 15, "Pennsylvania's idle time is the default");
    // Used every 10 minutes, bea's session stands; unused, ida's ends.
    for step in 1..=11 {
        api.advance(&op, 10 * 60).await;
        let (status, _) = api.send("GET", "/api/session", &busy, None).await;
        assert_eq!(status, 200, "bea after {} minutes", step * 10);
        if step == 2 {
            let (status, _) = api.send("GET", "/api/me", &idle, None).await;
            assert_eq!(status, 401, "ida, unused for 20 minutes");
        }
    }
    // Past its longest life (2 hours), used 14 minutes ago, bea's session has ended.
    let (_, _, op) = api.login("olga", "olga-secret").await;
    api.advance(&op.unwrap(), 14 * 60).await;
    let (status, _) = api.send("GET", "/api/session", &busy, None).await;
    assert_eq!(status, 401, "bea after 124 minutes");
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_player_with_an_unfinished_round_is_told_at_log_in_and_given_its_table() {
    let server = start(Settings::default()).await;
    let api = Http::new(&server.url);
    let una = register(&server.url, "una").await;
    register(&server.url, "vic").await;
    let op = operator(&server, "olga").await;
    let mut c = seated(&server.url, &una).await;
    // A hand to decide (no blackjack ends the round at the deal).
    stack(&api, &op).await;
    let dealt = c.bet_until_dealt("10.00").await;
    let round = dealt["round_id"].as_i64().unwrap();
    // The browser closes mid-hand; the player logs in again.
    drop(c);
    let (status, v, _) = api.login("una", "una-secret").await;
    assert_eq!(status, 200);
    let open = v["unfinished"].as_array().unwrap();
    assert_eq!(open.len(), 1, "{v}");
    assert_eq!(open[0]["round"], round);
    assert_eq!(open[0]["table"], "classic");
    assert_eq!(open[0]["stake"], "10.00");
    assert_eq!(open[0]["in_play"], true);
    assert!(
        open[0]["next"].as_str().unwrap().contains("being played"),
        "{v}"
    );
    // Another player has none.
    let (_, v, _) = api.login("vic", "vic-secret").await;
    assert_eq!(v["unfinished"], json!([]));
    server.stop().await;
}

/// Reads `c`'s frames until the server ends the session (`session-ended`).
async fn session_ended(c: &mut Client) -> Value {
    c.until(5, |v| v["code"] == "session-ended").await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_operators_logout_is_audited_and_ends_every_session_and_the_seat_after_the_round() {
    let server = start(Settings::default()).await;
    let api = Http::new(&server.url);
    let op = operator(&server, "olga").await;
    let first = register(&server.url, "pat").await;
    let (_, _, second) = api.login("pat", "pat-secret").await;
    let second = second.unwrap();
    let mut c = seated(&server.url, &first).await;
    stack(&api, &op).await;
    let v = bet(&mut c, "b1").await;
    let round = v["round_id"].as_i64().unwrap();
    let path = "/api/operator/players/pat/logout";
    let (status, _) = api
        .send("POST", path, &second, Some(json!({"reason": "me"})))
        .await;
    assert_eq!(status, 403, "a player is no operator");
    let (status, e) = api
        .send("POST", path, &op, Some(json!({"reason": " "})))
        .await;
    assert_eq!(status, 400, "a reason is required: {e}");
    let (status, v) = api
        .send(
            "POST",
            path,
            &op,
            Some(json!({"reason": "a call from the player"})),
        )
        .await;
    assert_eq!((status, &v["sessions_ended"]), (200, &json!(2)), "{v}");
    let ended = session_ended(&mut c).await;
    assert!(
        ended["message"].as_str().unwrap().contains("operator"),
        "{ended}"
    );
    for cookie in [&first, &second] {
        let (status, _) = api.send("GET", "/api/me", cookie, None).await;
        assert_eq!(status, 401, "every session of the player has ended");
    }
    let (_, log) = api
        .send("GET", "/api/operator/audit?subject=pat", &op, None)
        .await;
    let entries = log["entries"].as_array().unwrap();
    assert_eq!(entries.len(), 1, "{log}");
    assert_eq!(
        (entries[0]["actor"].as_str(), entries[0]["action"].as_str()),
        (Some("olga"), Some("end-sessions"))
    );
    // The player logs in again: the hand in play is still theirs, and the seat is
    // left when the round ends.
    let (status, _, cookie) = api.login("pat", "pat-secret").await;
    assert_eq!(status, 200);
    let mut c = connect(&server.url, cookie.as_deref(), None).await.unwrap();
    c.send(r#"{"type":"hello","version":1,"table":"classic"}"#)
        .await;
    c.send(r#"{"type":"sync"}"#).await;
    let v = c.until(5, |v| v["type"] == "view").await;
    assert_eq!(v["you"]["seat"], 1, "{v}");
    c.send(&format!(
        r#"{{"type":"act","round":{round},"id":"s1","spot":1,"hand":1,"decision":"stand"}}"#
    ))
    .await;
    c.until(5, |v| v["type"] == "view" && v["you"]["seat"].is_null())
        .await;
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_password_change_ends_the_players_other_sessions_and_keeps_this_one() {
    let server = start(Settings::default()).await;
    let api = Http::new(&server.url);
    let here = register(&server.url, "pat").await;
    let (_, _, other) = api.login("pat", "pat-secret").await;
    let other = other.unwrap();
    let mut c = connect(&server.url, Some(&other), None).await.unwrap();
    c.send(r#"{"type":"hello","version":1,"table":"classic"}"#)
        .await;
    c.until(5, |v| v["type"] == "welcome").await;
    let change = |current: &str, new: &str| json!({"current": current, "new": new});
    let (status, e) = api
        .send(
            "POST",
            "/api/password",
            &here,
            Some(change("wrong-one", "a-new-secret")),
        )
        .await;
    assert_eq!(
        (status, e["error"].as_str()),
        (403, Some("bad-login")),
        "{e}"
    );
    let (status, e) = api
        .send(
            "POST",
            "/api/password",
            &here,
            Some(change("pat-secret", "short")),
        )
        .await;
    assert_eq!(status, 400, "{e}");
    let (status, _) = api.send("GET", "/api/me", &other, None).await;
    assert_eq!(status, 200, "a refused change ends nothing");
    let (status, v) = api
        .send(
            "POST",
            "/api/password",
            &here,
            Some(change("pat-secret", "a-new-secret")),
        )
        .await;
    assert_eq!((status, &v["sessions_ended"]), (200, &json!(1)), "{v}");
    session_ended(&mut c).await;
    let (status, _) = api.send("GET", "/api/me", &other, None).await;
    assert_eq!(status, 401, "the other session has ended");
    let (status, _) = api.send("GET", "/api/me", &here, None).await;
    assert_eq!(status, 200, "this one stands");
    assert_eq!(api.login("pat", "pat-secret").await.0, 401);
    assert_eq!(api.login("pat", "a-new-secret").await.0, 200);
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_reality_check_schedule_is_in_the_books_and_survives_a_restart() {
    let settings = || Settings {
        test_shoes: true,
        ..Settings::default()
    };
    let server = start(settings()).await;
    let api = Http::new(&server.url);
    let cookie = register(&server.url, "pat").await;
    let (status, before) = api.interval(&cookie, 15).await;
    assert_eq!(status, 200, "{before}");
    let (dir, db) = server.stop().await;
    // The same books, a new server (its memory empty): the same schedule.
    let server = common::start_with(dir, db, TABLES, settings()).await;
    let api = Http::new(&server.url);
    let (status, after) = api.send("GET", "/api/session", &cookie, None).await;
    assert_eq!(status, 200, "{after}");
    assert_eq!(after["reality_check"]["interval_mins"], 15, "{after}");
    assert_eq!(
        after["reality_check"]["due_at_ms"], before["reality_check"]["due_at_ms"],
        "{before} {after}"
    );
    assert_eq!(after["login_ms"], before["login_ms"]);
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_password_change_checks_the_current_password_as_a_log_in_does_and_honours_the_lock() {
    let server = start(Settings::default()).await;
    let api = Http::new(&server.url);
    let here = register(&server.url, "guessed").await;
    let change = |current: &str| json!({"current": current, "new": "a-new-secret"});
    // Three wrong guesses through a session (the lock's default count) lock the account.
    for _ in 0..3 {
        let (status, e) = api
            .send("POST", "/api/password", &here, Some(change("a-guess-1")))
            .await;
        assert_eq!(
            (status, e["error"].as_str()),
            (403, Some("bad-login")),
            "{e}"
        );
    }
    // Locked: the right current password changes nothing either, as at the log-in.
    let (status, e) = api
        .send(
            "POST",
            "/api/password",
            &here,
            Some(change("guessed-secret")),
        )
        .await;
    assert_eq!(
        (status, e["error"].as_str()),
        (403, Some("account-locked")),
        "{e}"
    );
    assert_eq!(
        api.login("guessed", "a-new-secret").await.0,
        403,
        "not changed"
    );
    server.stop().await;
}
