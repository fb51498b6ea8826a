//! The browser table's server side without a browser: the page and its assets (content
//! types, the Content-Security-Policy, revalidation), and the test mode that deals a
//! given shoe (off by default; its rounds deal the cards given and are marked in the
//! books as a stacked shoe's).

mod common;

use common::{connect, operator, register};
use felt_server::app::Settings;
use felt_store::{SqliteStore, Store};
use serde_json::{json, Value};

const TABLES: &str = "[[table]]\nname = \"classic\"\ngame = \"classic\"\nbetting_secs = 60\ndecision_secs = 60\npause_ms = 0\n";

/// A server on new books, in test mode or not.
async fn start(test_shoes: bool) -> common::Running {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("felt.db");
    let settings = Settings {
        test_shoes,
        ..Settings::default()
    };
    common::start_with(dir, db, TABLES, settings).await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_page_and_its_assets_carry_their_types_a_strict_policy_and_are_revalidated() {
    let server = start(false).await;
    let url = server.url.clone();
    let http = reqwest::Client::new();
    let page = http.get(format!("{url}/")).send().await.unwrap();
    assert_eq!(page.status(), 200);
    let h = page.headers().clone();
    assert_eq!(h["content-type"], "text/html; charset=utf-8");
    let csp = h["content-security-policy"].to_str().unwrap();
    assert!(
        csp.contains("script-src 'self'") && csp.contains("default-src 'none'"),
        "{csp}"
    );
    assert!(!csp.contains("unsafe"), "{csp}");
    assert_eq!(h["x-content-type-options"], "nosniff");
    assert_eq!(h["cache-control"], "no-cache");
    let html = page.text().await.unwrap();
    assert!(
        html.contains("<script type=\"module\" src=\"/assets/app.js\">"),
        "{html}"
    );
    // The browser's copy is current: 304, no body.
    let tag = h["etag"].to_str().unwrap().to_string();
    let again = http
        .get(format!("{url}/"))
        .header("if-none-match", &tag)
        .send()
        .await
        .unwrap();
    assert_eq!(again.status(), 304);
    for (file, mime) in [
        ("app.js", "text/javascript; charset=utf-8"),
        ("table.js", "text/javascript; charset=utf-8"),
        ("style.css", "text/css; charset=utf-8"),
        ("favicon.svg", "image/svg+xml"),
    ] {
        let r = http
            .get(format!("{url}/assets/{file}"))
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), 200, "{file}");
        assert_eq!(r.headers()["content-type"], mime, "{file}");
        assert!(r.headers().contains_key("etag"), "{file}");
    }
    for bad in ["nope.js", "index.html", "..%2FCargo.toml", "app.js%00"] {
        let r = http
            .get(format!("{url}/assets/{bad}"))
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), 404, "{bad}");
    }
    // Off by default: the test mode's endpoint does not exist.
    let r = http
        .post(format!("{url}/api/test/tables/classic/shoe"))
        .json(&json!({"cards": ["Ah"]}))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 404);
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stacked_shoe_deals_its_cards_and_its_round_is_marked_in_the_books() {
    let server = start(true).await;
    let url = server.url.clone();
    let http = reqwest::Client::new();
    // Only an operator's session stacks a shoe (tests/adversary_http.rs).
    let op = operator(&server, "olga").await;
    let post = |table: &str, body: Value| {
        http.post(format!("{url}/api/test/tables/{table}/shoe"))
            .header("cookie", &op)
            .json(&body)
            .send()
    };
    // Refusals: a bad card, more of a card than the shoe holds, no such table, a bad body.
    let r = post("classic", json!({"cards": ["Zz"]})).await.unwrap();
    assert_eq!(r.status(), 400);
    assert_eq!(r.json::<Value>().await.unwrap()["error"], "bad-card");
    let r = post("classic", json!({"cards": vec!["Ah"; 7]}))
        .await
        .unwrap();
    assert_eq!(r.status(), 400);
    assert_eq!(r.json::<Value>().await.unwrap()["error"], "bad-shoe");
    // A body past 64 KiB is refused before it is read, and the server closes that
    // connection: send it on a connection of its own, so the next request does not
    // race the close on a pooled one.
    let r = reqwest::Client::new()
        .post(format!("{url}/api/test/tables/classic/shoe"))
        .header("cookie", &op)
        .header("connection", "close")
        .json(&json!({"cards": vec!["2c"; 100_000]}))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 400, "a body past 64 KiB");
    let r = post("classic", json!({"cards": vec!["2c"; 1000]}))
        .await
        .unwrap();
    assert_eq!(r.status(), 400);
    let e = r.json::<Value>().await.unwrap();
    assert!(e["message"].as_str().unwrap().contains("holds 312"), "{e}");
    let r = post("nope", json!({"cards": ["Ah"]})).await.unwrap();
    assert_eq!(r.status(), 404);
    let r = post("classic", json!({"shoe": "Ah"})).await.unwrap();
    assert_eq!(r.status(), 400);

    let cookie = register(&url, "stacker").await;
    let mut c = connect(&url, Some(&cookie), None).await.unwrap();
    c.send(r#"{"type":"hello","version":1,"table":"classic"}"#)
        .await;
    c.send(r#"{"type":"sit"}"#).await;
    c.until(5, |v| v["you"]["may_bet"] == true).await;
    // Stacked while a window is open with no bet: the window is set up again.
    let r = post("classic", json!({"cards": ["Tc", "7d", "9h", "8s", "Ts"]}))
        .await
        .unwrap();
    assert_eq!(r.status(), 202);
    let v = c.bet_until_dealt("10.00").await;
    let round = v["round_id"].as_i64().unwrap();
    assert_eq!(
        v["round"]["spots"][0]["hands"][0]["cards"],
        json!(["Tc", "9h"])
    );
    assert_eq!(v["round"]["dealer"]["cards"], json!(["8s"]));
    c.send(&format!(
        r#"{{"type":"act","round":{round},"spot":1,"hand":1,"decision":"stand","id":"a1"}}"#
    ))
    .await;
    let end = c.until(5, |v| v["in_play"] == false).await;
    assert_eq!(end["round"]["dealer"]["cards"], json!(["7d", "8s", "Ts"]));
    let (_dir, db) = server.stop().await;
    let store = SqliteStore::open(&db).unwrap();
    let rounds = store.history(10).unwrap();
    assert_eq!(rounds.len(), 1);
    assert_eq!(
        rounds[0].lab.as_deref(),
        Some(felt_server::test_shoes::MARK)
    );
    assert!(felt_server::test_shoes::MARK.contains("--shoe"));
    assert!(store.check_books().unwrap().is_sound());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_test_clock_moves_only_in_test_mode_for_an_operator_and_ages_a_session() {
    let http = reqwest::Client::new();
    // Off by default: the endpoint does not exist.
    let off = start(false).await;
    let r = http
        .post(format!("{}/api/test/clock", off.url))
        .json(&json!({"advance_secs": 60}))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 404);
    off.stop().await;

    let server = start(true).await;
    let url = server.url.clone();
    let op = operator(&server, "olga").await;
    let player = register(&url, "pia").await;
    let advance = |cookie: &str, body: Value| {
        http.post(format!("{url}/api/test/clock"))
            .header("cookie", cookie)
            .json(&body)
            .send()
    };
    // Only an operator moves it, only forward, only by a well-formed amount.
    let r = advance(&player, json!({"advance_secs": 60})).await.unwrap();
    assert_eq!(r.status(), 403);
    for bad in [
        json!({"advance_secs": 0}),
        json!({"advance_secs": -60}),
        json!({"advance_secs": 400 * 24 * 3600}),
        json!({"secs": 60}),
    ] {
        let r = advance(&op, bad.clone()).await.unwrap();
        assert_eq!(r.status(), 400, "{bad}");
        assert_eq!(r.json::<Value>().await.unwrap()["error"], "bad-request");
    }
    assert_eq!(server.state.clock().offset_ms(), 0, "refusals move nothing");
    let me = |cookie: String| {
        http.get(format!("{url}/api/me"))
            .header("cookie", cookie)
            .send()
    };
    assert_eq!(me(player.clone()).await.unwrap().status(), 200);
    // Past the idle time on the server's clock, the player's session has ended.
    let idle_secs = server.state.settings().idle_ms / 1000;
    let r = advance(&op, json!({"advance_secs": idle_secs + 60}))
        .await
        .unwrap();
    assert_eq!(r.status(), 200);
    let moved: Value = r.json().await.unwrap();
    assert_eq!(moved["offset_ms"], (idle_secs + 60) * 1000);
    let r = me(player).await.unwrap();
    assert_eq!(r.status(), 401);
    assert_eq!(r.json::<Value>().await.unwrap()["error"], "no-session");
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn version_2_sends_the_tables_fixed_part_once_in_the_welcome_and_version_1_in_every_view() {
    let server = start(false).await;
    let url = server.url.clone();
    let (ana, ben) = (register(&url, "ana").await, register(&url, "ben").await);
    let mut two = connect(&url, Some(&ana), None).await.unwrap();
    two.send(r#"{"type":"hello","version":2,"table":"classic"}"#)
        .await;
    let welcome = two.until(5, |v| v["type"] == "welcome").await;
    assert_eq!(welcome["version"], 2, "{welcome}");
    assert_eq!(welcome["game"], "classic", "{welcome}");
    assert_eq!(welcome["limits"]["main"]["min"], "5.00", "{welcome}");
    assert!(welcome["limits"]["side_bets"].is_array(), "{welcome}");
    assert!(welcome["hints"].is_boolean(), "{welcome}");
    two.send(r#"{"type":"sit"}"#).await;
    let view = two.until(5, |v| v["you"]["may_bet"] == true).await;
    for fixed in ["game", "limits", "hints"] {
        assert!(
            view.get(fixed).is_none(),
            "version 2 views leave out {fixed}: {view}"
        );
    }
    assert_eq!(view["table"], "classic", "{view}");
    assert!(
        view["seats"].is_array() && view["round"].is_object(),
        "{view}"
    );

    let mut one = connect(&url, Some(&ben), None).await.unwrap();
    one.send(r#"{"type":"hello","version":1,"table":"classic"}"#)
        .await;
    let welcome1 = one.until(5, |v| v["type"] == "welcome").await;
    assert_eq!(welcome1["version"], 1, "{welcome1}");
    let view1 = one.until(5, |v| v["type"] == "view").await;
    for fixed in ["game", "limits", "hints"] {
        assert_eq!(
            view1[fixed], welcome[fixed],
            "version 1 views carry {fixed}"
        );
    }
    // The next step reaches both, each in its own form.
    one.send(r#"{"type":"sit"}"#).await;
    let seen2 = two.until(5, |v| v["seats"][1]["player"] == "ben").await;
    let seen1 = one.until(5, |v| v["seats"][1]["player"] == "ben").await;
    assert!(seen2.get("limits").is_none() && seen1["limits"] == welcome["limits"]);
    // Ana opens a version 1 tab beside her version 2 one: her frames (one stream for
    // both) carry the fixed part while a version 1 connection of hers is open.
    let mut old_tab = connect(&url, Some(&ana), None).await.unwrap();
    old_tab
        .send(r#"{"type":"hello","version":1,"table":"classic"}"#)
        .await;
    old_tab.until(5, |v| v["type"] == "view").await;
    // And then one more version 2 tab: the last hello does not decide for the others.
    let mut newest = connect(&url, Some(&ana), None).await.unwrap();
    newest
        .send(r#"{"type":"hello","version":2,"table":"classic"}"#)
        .await;
    newest.until(5, |v| v["type"] == "view").await;
    one.send(r#"{"type":"leave"}"#).await;
    let step = |v: &Value| v["type"] == "view" && v["seats"][1]["player"].is_null();
    let in_old = old_tab.until(5, step).await;
    let in_new = two.until(5, step).await;
    assert_eq!(
        in_old["limits"], welcome["limits"],
        "the version 1 tab keeps its limits"
    );
    assert_eq!(
        in_new["limits"], welcome["limits"],
        "the same frame reaches the version 2 tab"
    );
    assert_eq!(
        (seen1["seats"].clone(), seen1["round"].clone()),
        (seen2["seats"].clone(), seen2["round"].clone())
    );

    for bad in [0, 3] {
        let mut c = connect(&url, Some(&ana), None).await.unwrap();
        c.send(&format!(
            r#"{{"type":"hello","version":{bad},"table":"classic"}}"#
        ))
        .await;
        let e = c.until(5, |v| v["type"] == "error").await;
        assert_eq!(e["code"], "version", "{e}");
        assert!(
            e["message"].as_str().unwrap().contains("versions 1 to 2"),
            "{e}"
        );
    }
    server.stop().await;
}
