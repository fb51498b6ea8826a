//! Two servers on one books: the tables spread over them, a player who reaches the
//! server that does not deal their table is relayed to the one that does, and a meter
//! linked across the tables is pushed to every table's players and to the lobbies
//! when any table moves it.

mod common;

use common::{connect, register, start_hosted, Client, Running};
use felt_server::app::Settings;
use serde_json::Value;
use std::time::Duration;

const TWO_LINKED: &str = "[[table]]\nname = \"b1\"\ngame = \"blazing-7s\"\nbetting_secs = 600\ndecision_secs = 600\npause_ms = 0\n\
[[table]]\nname = \"b2\"\ngame = \"blazing-7s\"\nbetting_secs = 600\ndecision_secs = 600\npause_ms = 0\n";

async fn server(dir: tempfile::TempDir, db: std::path::PathBuf) -> Running {
    let settings = Settings {
        rate_per_s: 50.0,
        burst: 60.0,
        ..Settings::default()
    };
    start_hosted(dir, db, TWO_LINKED, settings, |mut h| {
        h.renew = Duration::from_millis(200);
        h.lease = Duration::from_secs(2);
        h
    })
    .await
}

async fn lobby(url: &str) -> Value {
    seen_by(url, None).await
}

/// The lobby as a request with this session cookie sees it (names shown to a session).
async fn seen_by(url: &str, cookie: Option<&str>) -> Value {
    let mut r = reqwest::Client::new().get(format!("{url}/api/tables"));
    if let Some(c) = cookie {
        r = r.header("cookie", c);
    }
    r.send().await.unwrap().json().await.unwrap()
}

/// The server (`test-PORT`) dealing `table`, as `url`'s lobby says.
async fn host_of(url: &str, table: &str) -> Option<String> {
    let l = lobby(url).await;
    l["tables"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["name"] == table)
        .and_then(|t| {
            t["host"]["live"]
                .as_bool()
                .filter(|l| *l)
                .and(t["host"]["server"].as_str())
        })
        .map(str::to_string)
}

async fn seated(url: &str, cookie: &str, table: &str) -> Client {
    let mut c = connect(url, Some(cookie), None).await.unwrap();
    c.send(&format!(
        r#"{{"type":"hello","version":1,"table":"{table}"}}"#
    ))
    .await;
    c.until(5, |v| v["type"] == "welcome").await;
    c.send(r#"{"type":"sit"}"#).await;
    c.until(5, |v| v["you"]["seat"].is_u64()).await;
    c
}

fn meter_of(v: &Value) -> Option<String> {
    v["meters"][0]["amount"].as_str().map(str::to_string)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_servers_share_the_tables_relay_players_and_push_the_linked_meter() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("felt.db");
    let a = server(dir, db.clone()).await;
    let b = server(tempfile::tempdir().unwrap(), db.clone()).await;
    let (a_id, b_id) = (
        a.state.hosting().server.clone(),
        b.state.hosting().server.clone(),
    );
    // A took both tables alone; once B is up, A gives one up and B takes it.
    let mut spread = false;
    for _ in 0..100 {
        let (h1, h2) = (host_of(&a.url, "b1").await, host_of(&a.url, "b2").await);
        if h1.is_some() && h2.is_some() && h1 != h2 {
            spread = true;
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert!(spread, "the tables did not spread: {}", lobby(&a.url).await);
    let on_b = if host_of(&a.url, "b1").await.as_deref() == Some(b_id.as_str()) {
        "b1"
    } else {
        "b2"
    };
    let on_a = if on_b == "b1" { "b2" } else { "b1" };
    assert_eq!(host_of(&b.url, on_a).await.as_deref(), Some(a_id.as_str()));
    assert_eq!(a.state.dealt_here(), [on_a]);
    assert_eq!(b.state.dealt_here(), [on_b]);

    // Alice watches A's table on A; a lobby follows A's events.
    let alice_cookie = register(&a.url, "alice").await;
    let mut alice = seated(&a.url, &alice_cookie, on_a).await;
    let before = alice.frames.iter().rev().find_map(meter_of).unwrap();
    let mut events = reqwest::get(format!("{}/api/events", a.url)).await.unwrap();
    assert_eq!(
        events.headers()["content-type"].to_str().unwrap(),
        "text/event-stream"
    );
    // Bob reaches A for B's table: he is relayed to B and plays there.
    let bob_cookie = register(&a.url, "bob").await;
    let mut bob = seated(&a.url, &bob_cookie, on_b).await;
    let v = bob
        .until(5, |v| v["type"] == "view" && v["you"]["may_bet"] == true)
        .await;
    let round = v["round_id"].as_i64().unwrap();
    bob.send(&format!(
        r#"{{"type":"bet","round":{round},"id":"b-1","spots":[{{"spot":1,"main":"10.00","side":{{"blazing-7s":"1.00"}}}}]}}"#
    ))
    .await;
    let v = bob
        .until(5, |v| {
            v["type"] == "error" || v["seats"][0]["has_bet"] == true
        })
        .await;
    assert_eq!(v["type"], "view", "{v}");
    // Each lobby shows who sits at both tables: its own as it stands, the other
    // server's as that server last said (within a renewal).
    let players = |l: &Value, table: &str| {
        l["tables"]
            .as_array()
            .unwrap()
            .iter()
            .find(|t| t["name"] == table)
            .map(|t| (t["taken"].clone(), t["players"].clone()))
            .unwrap()
    };
    let want_a = (
        serde_json::json!(1),
        serde_json::json!([{"seat": 1, "player": "alice"}]),
    );
    let want_b = (
        serde_json::json!(1),
        serde_json::json!([{"seat": 1, "player": "bob"}]),
    );
    let mut same = false;
    for _ in 0..50 {
        let (la, lb) = (
            seen_by(&a.url, Some(&alice_cookie)).await,
            seen_by(&b.url, Some(&alice_cookie)).await,
        );
        same = [players(&la, on_a), players(&lb, on_a)] == [want_a.clone(), want_a.clone()]
            && [players(&la, on_b), players(&lb, on_b)] == [want_b.clone(), want_b.clone()];
        if same {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert!(
        same,
        "the lobbies differ on who sits where:\nA: {}\nB: {}",
        seen_by(&a.url, Some(&alice_cookie)).await,
        seen_by(&b.url, Some(&alice_cookie)).await
    );
    // B's books hold Bob's round: he played at B through A.
    let rounds = b.state.books().read(|st| st.history(10)).unwrap();
    assert!(
        rounds
            .iter()
            .any(|r| r.table_id == format!("online/{on_b}")),
        "{rounds:?}"
    );
    // The bet at B's table fed the linked meter: Alice, at A's table, is told.
    let pushed = alice
        .until(5, |v| {
            v["type"] == "meters" && meter_of(v).is_some_and(|m| m != before)
        })
        .await;
    let after = meter_of(&pushed).unwrap();
    let books_meter = a
        .state
        .books()
        .read(|st| st.meters())
        .unwrap()
        .into_iter()
        .next()
        .unwrap();
    assert_eq!(after, books_meter.amount.to_string());
    // So is the lobby.
    let mut seen = String::new();
    let found = tokio::time::timeout(Duration::from_secs(5), async {
        while let Ok(Some(chunk)) = events.chunk().await {
            seen.push_str(&String::from_utf8_lossy(&chunk));
            // A table event too: Bob sat at B's table.
            if seen.contains("\"meters\"") && seen.contains(&after) && seen.contains("\"tables\"") {
                return true;
            }
        }
        false
    })
    .await;
    assert_eq!(found, Ok(true), "the lobby's events: {seen}");
    drop(alice);
    drop(bob);
    a.stop().await;
    b.stop().await;
    let store = felt_store::SqliteStore::open(&db).unwrap();
    common::books_replay(&store);
}

/// Two servers, tables spread over them: the table dealt by the second server.
async fn spread(a: &Running, b: &Running) -> &'static str {
    let b_id = b.state.hosting().server.clone();
    for _ in 0..100 {
        let (h1, h2) = (host_of(&a.url, "b1").await, host_of(&a.url, "b2").await);
        if h1.is_some() && h2.is_some() && h1 != h2 {
            return if h1.as_deref() == Some(b_id.as_str()) {
                "b1"
            } else {
                "b2"
            };
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    panic!("the tables did not spread: {}", lobby(&a.url).await);
}

/// An operator ends a player's sessions on one server: the player's socket on the
/// other server closes within its next check (seconds, not a minute), with
/// `session-ended`, and their seat there is left.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_operators_log_out_on_one_server_closes_the_players_socket_and_seat_on_the_other() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("felt.db");
    let a = server(dir, db.clone()).await;
    let b = server(tempfile::tempdir().unwrap(), db.clone()).await;
    let on_b = spread(&a, &b).await;
    let op = common::operator(&a, "olga").await;
    let cookie = register(&b.url, "carl").await;
    let mut carl = seated(&b.url, &cookie, on_b).await;
    let r = reqwest::Client::new()
        .post(format!("{}/api/operator/players/carl/logout", a.url))
        .header("cookie", &op)
        .json(&serde_json::json!({"reason": "asked by the player's bank"}))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200, "{}", r.text().await.unwrap());
    let ended = carl.until(10, |v| v["code"] == "session-ended").await;
    assert!(
        ended["message"].as_str().unwrap().contains("session ended"),
        "{ended}"
    );
    // The seat at B's table is left (no round is in play).
    let mut left = false;
    for _ in 0..100 {
        let l = lobby(&b.url).await;
        let t = l["tables"]
            .as_array()
            .unwrap()
            .iter()
            .find(|t| t["name"] == on_b)
            .cloned()
            .unwrap_or_default();
        if t["taken"] == 0 {
            left = true;
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert!(
        left,
        "carl's seat at {on_b} is left: {}",
        lobby(&b.url).await
    );
    a.stop().await;
    b.stop().await;
}
