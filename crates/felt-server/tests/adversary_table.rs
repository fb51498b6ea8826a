//! The adversarial suite, at the table: what a cheating or abusive player tries with
//! the table's socket. No player can stop a table, see another's balance, outlive
//! their log-out, or grow the server's memory without bound.

mod common;

use common::{connect, register, start, Client};
use felt_core::Money;

use serde_json::Value;
use std::time::Duration;

/// Windows long enough that only the players' own moves close them.
const CLASSIC: &str = "[[table]]\nname = \"t\"\ngame = \"classic\"\nbetting_secs = 600\ndecision_secs = 600\npause_ms = 0\nreconnect_secs = 1\n";

async fn joined(url: &str, cookie: &str) -> Client {
    let mut c = connect(url, Some(cookie), None).await.unwrap();
    c.send(r#"{"type":"hello","version":1,"table":"t"}"#).await;
    c.until(5, |v| v["type"] == "welcome").await;
    c
}

async fn seated(url: &str, name: &str, seat: u8) -> (String, Client) {
    let cookie = register(url, name).await;
    let mut c = joined(url, &cookie).await;
    c.send(&format!(r#"{{"type":"sit","seat":{seat}}}"#)).await;
    c.until(5, |v| v["you"]["seat"] == seat).await;
    (cookie, c)
}

/// Waits for a betting window with `players` in the round; its round id.
async fn window(c: &mut Client, players: usize) -> i64 {
    let v = c
        .until(5, |v| {
            v["you"]["may_bet"] == true
                && v["seats"]
                    .as_array()
                    .is_some_and(|s| s.iter().filter(|s| s["in_round"] == true).count() == players)
        })
        .await;
    v["round_id"].as_i64().unwrap()
}

/// The first bet of round `round`, from the player at seat 1, taken: the round's id
/// in the books.
async fn first_bet(c: &mut Client, round: i64) -> i64 {
    c.send(&bet(round, "first", "10.00")).await;
    let v = c
        .until(5, |v| {
            v["seats"][0]["has_bet"] == true || v["type"] == "error"
        })
        .await;
    assert_eq!(v["type"], "view", "{v}");
    v["round_id"].as_i64().unwrap()
}

fn bet(round: i64, id: &str, amount: &str) -> String {
    format!(
        r#"{{"type":"bet","round":{round},"id":"{id}","spots":[{{"spot":1,"main":"{amount}"}}]}}"#
    )
}

/// Takes `cents` out of `player`'s wallet behind the table's back (as a loss at a
/// table of another server would).
async fn drain(server: &common::Running, player: &'static str, cents: i64) {
    let books = server.state.books().clone();
    tokio::task::spawn_blocking(move || books.with(|s| s.withdraw(player, Money::cents(cents))))
        .await
        .unwrap()
        .unwrap();
}

/// Every frame a client has received so far, and any still arriving within `ms`.
async fn drain_frames(c: &mut Client, ms: u64) -> Vec<Value> {
    while let Ok(Some(Ok(m))) = tokio::time::timeout(
        Duration::from_millis(ms),
        futures_util::StreamExt::next(&mut c.rx),
    )
    .await
    {
        if let tokio_tungstenite::tungstenite::Message::Text(t) = m {
            c.frames.push(serde_json::from_str(&t).unwrap());
        }
    }
    c.frames.clone()
}

fn no_balance_or_stop(frames: &[Value], who: &str) {
    for f in frames {
        assert_ne!(f["type"], "away", "{who} saw the table stop: {f}");
        let text = f.to_string();
        assert!(
            !text.contains("cannot pay") && !text.contains(" holds "),
            "{who} was told someone's money: {f}"
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_player_who_leaves_loses_elsewhere_and_comes_back_cannot_stop_the_table() {
    let server = start(CLASSIC).await;
    let url = server.url.clone();
    let (_, mut alice) = seated(&url, "alice", 1).await;
    let (_, mut carol) = seated(&url, "carol", 3).await;
    let (_, mut mallory) = seated(&url, "mallory", 5).await;
    let round = window(&mut alice, 3).await;
    let round = first_bet(&mut alice, round).await;
    // Mallory leaves before betting (unseated at once), loses 950.00 elsewhere, sits
    // back in the same round and bets the 500.00 the round was set up with.
    mallory.send(r#"{"type":"leave"}"#).await;
    mallory.until(5, |v| v["you"]["seat"].is_null()).await;
    drain(&server, "mallory", 95_000).await;
    mallory.send(r#"{"type":"sit","seat":5}"#).await;
    mallory.until(5, |v| v["you"]["seat"] == 5).await;
    mallory.send(&bet(round, "m-1", "500.00")).await;
    let e = mallory.until(5, |v| v["type"] == "error").await;
    assert_eq!(e["code"], "not-seated", "{e}");
    // The table goes on: carol bets and the round deals for alice and carol.
    carol.send(&bet(round, "c-1", "10.00")).await;
    let v = alice
        .until(5, |v| {
            v["round_id"] == round && v["round"]["phase"] != "betting"
        })
        .await;
    assert_eq!(v["type"], "view");
    for (who, c) in [("alice", &mut alice), ("carol", &mut carol)] {
        let frames = drain_frames(c, 300).await;
        no_balance_or_stop(&frames, who);
    }
    assert!(
        !server
            .state
            .table("t")
            .unwrap()
            .1
            .unwrap()
            .info
            .read()
            .unwrap()
            .failed
    );
    let books = server.state.books().clone();
    let sound = tokio::task::spawn_blocking(move || books.read(|s| s.check_books()))
        .await
        .unwrap()
        .unwrap();
    assert!(sound.is_sound());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_bet_against_a_balance_that_moved_is_refused_and_the_table_goes_on() {
    let server = start(CLASSIC).await;
    let url = server.url.clone();
    let (_, mut alice) = seated(&url, "alice", 1).await;
    let (_, mut mallory) = seated(&url, "mallory", 2).await;
    let round = window(&mut alice, 2).await;
    let round = first_bet(&mut alice, round).await;
    // Mallory's money moves while she sits (another server's table before the books
    // kept one seat a player): her bet is refused, the round deals without her.
    drain(&server, "mallory", 95_000).await;
    mallory.send(&bet(round, "m-1", "500.00")).await;
    let e = mallory.until(5, |v| v["type"] == "error").await;
    assert_eq!(e["code"], "balance-changed", "{e}");
    assert!(e["message"].as_str().unwrap().contains("next one"), "{e}");
    // Nobody else is awaited once mallory's connection goes: the round deals.
    drop(mallory);
    let v = alice
        .until(5, |v| {
            v["round_id"] == round && v["round"]["phase"] != "betting"
        })
        .await;
    assert_eq!(v["type"], "view");
    no_balance_or_stop(&drain_frames(&mut alice, 300).await, "alice");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_balance_that_moved_before_anyone_bet_opens_the_window_again_with_it() {
    let server = start(CLASSIC).await;
    let url = server.url.clone();
    let (_, mut mallory) = seated(&url, "mallory", 2).await;
    let v = mallory.until(5, |v| v["you"]["may_bet"] == true).await;
    let round = v["round_id"].as_i64().unwrap();
    assert_eq!(v["you"]["balance"], "1000.00");
    drain(&server, "mallory", 95_000).await;
    mallory.send(&bet(round, "m-1", "500.00")).await;
    let e = mallory.until(5, |v| v["type"] == "error").await;
    assert_eq!(e["code"], "balance-changed", "{e}");
    // The window opens again with the books' 50.00: a bet of it is taken.
    let v = mallory
        .until(5, |v| {
            v["you"]["may_bet"] == true && v["you"]["balance"] == "50.00"
        })
        .await;
    let round = v["round_id"].as_i64().unwrap();
    mallory.send(&bet(round, "m-2", "50.00")).await;
    mallory
        .until(5, |v| {
            v["seats"][1]["has_bet"] == true || v["round"]["phase"] != "betting"
        })
        .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn log_out_closes_every_socket_of_the_session_and_no_other() {
    let server = start(CLASSIC).await;
    let url = server.url.clone();
    let (cookie, mut tab1) = seated(&url, "ana", 1).await;
    let mut tab2 = joined(&url, &cookie).await;
    // Ana on another device: another session, another socket.
    let other_cookie = common::login(&url, "ana", "ana-secret").await.unwrap();
    let mut phone = joined(&url, &other_cookie).await;
    let out = reqwest::Client::new()
        .post(format!("{url}/api/logout"))
        .header("cookie", &cookie)
        .header("content-type", "application/json")
        .body("{}")
        .send()
        .await
        .unwrap();
    assert_eq!(out.status(), 204);
    for tab in [&mut tab1, &mut tab2] {
        let e = tab.until(5, |v| v["type"] == "error").await;
        assert_eq!(e["code"], "session-ended", "{e}");
        // Then the socket closes: nothing more, and a message sent is never acted on.
        assert!(tab.next(5).await.is_none(), "the socket stays open");
    }
    // The other session's socket still plays.
    phone.send(r#"{"type":"ping"}"#).await;
    phone.until(5, |v| v["type"] == "pong").await;
    // And a socket opened with the ended session is refused.
    assert!(connect(&url, Some(&cookie), None).await.is_err());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_account_holds_a_bounded_number_of_sockets_sharing_one_rate() {
    let server = start(CLASSIC).await;
    let url = server.url.clone();
    let cookie = register(&url, "flood").await;
    let per_account = server.state.settings().sockets.per_account;
    let mut socks = Vec::new();
    for _ in 0..per_account {
        socks.push(joined(&url, &cookie).await);
    }
    let e = connect(&url, Some(&cookie), None)
        .await
        .err()
        .expect("refused");
    assert!(e.contains("429"), "{e}");
    // Each socket alone is under its own limit, but together they share the
    // account's burst: far fewer answers than messages.
    let burst = server.state.settings().sockets.account_burst as usize;
    let sent_each = 2 * burst / per_account + 2;
    for c in socks.iter_mut() {
        for _ in 0..sent_each {
            c.send(r#"{"type":"ping"}"#).await;
        }
    }
    let mut pongs = 0;
    let mut limited = 0;
    for c in socks.iter_mut() {
        for f in drain_frames(c, 300).await {
            match (f["type"].as_str(), f["code"].as_str()) {
                (Some("pong"), _) => pongs += 1,
                (Some("error"), Some("rate-limited")) => limited += 1,
                _ => {}
            }
        }
    }
    let sent = sent_each * per_account;
    // The refill during the test adds a few at 20 a second.
    assert!(pongs < sent, "{pongs} answers to {sent} messages");
    assert!(
        pongs <= burst + 20,
        "{pongs} answers past a burst of {burst}"
    );
    assert!(limited > 0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_sync_or_a_ping_is_answered_to_its_socket_alone() {
    let server = start(CLASSIC).await;
    let url = server.url.clone();
    let cookie = register(&url, "ana").await;
    let mut a = joined(&url, &cookie).await;
    let mut b = joined(&url, &cookie).await;
    drain_frames(&mut b, 300).await;
    let before = b.frames.len();
    for _ in 0..5 {
        a.send(r#"{"type":"sync"}"#).await;
        a.send(r#"{"type":"ping"}"#).await;
    }
    let got = drain_frames(&mut a, 300).await;
    assert!(got.iter().filter(|f| f["type"] == "view").count() >= 5);
    let seen_by_b = drain_frames(&mut b, 300).await;
    assert_eq!(seen_by_b.len(), before, "{:?}", &seen_by_b[before..]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_streams_of_players_gone_are_dropped_after_the_grace() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("felt.db");
    let mut settings = felt_server::app::Settings::default();
    settings.guard.registrations = 100;
    let server = common::start_with(dir, db, CLASSIC, settings).await;
    let url = server.url.clone();
    for i in 0..30 {
        let cookie = register(&url, &format!("visitor{i}")).await;
        let mut c = joined(&url, &cookie).await;
        c.send(r#"{"type":"sync"}"#).await;
        c.until(5, |v| v["type"] == "view").await;
    }
    let info = || server.state.table("t").unwrap().1.unwrap().info.clone();
    // Gone for longer than reconnect_secs (1 s): every stream is dropped.
    let mut streams = usize::MAX;
    for _ in 0..50 {
        tokio::time::sleep(Duration::from_millis(200)).await;
        streams = info().read().unwrap().streams;
        if streams == 0 {
            break;
        }
    }
    assert_eq!(streams, 0, "streams kept for players long gone");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn refusals_number_seats_as_the_table_does_and_unknown_fields_are_refused() {
    // Short timers: an insurance offer nobody answers times out (declined).
    let server = start(&CLASSIC.replace("decision_secs = 600", "decision_secs = 3")).await;
    let url = server.url.clone();
    let (_, mut ana) = seated(&url, "ana", 4).await;
    let (_, mut bo) = seated(&url, "bo", 6).await;
    let round = window(&mut ana, 2).await;
    // A negative amount is not a message of this protocol.
    ana.send(&bet(round, "neg", "-5.00")).await;
    let e = ana.until(5, |v| v["type"] == "error").await;
    assert_eq!(e["code"], "bad-message", "{e}");
    for msg in [
        r#"{"type":"ping","pad":1}"#,
        r#"{"type":"sync","x":true}"#,
        r#"{"type":"leave","seat":3}"#,
    ] {
        ana.send(msg).await;
        let e = ana.until(5, |v| v["type"] == "error").await;
        assert_eq!(e["code"], "bad-message", "{msg}: {e}");
    }
    // Rounds until one reaches the players' turns (a dealer blackjack ends one at once).
    for attempt in 0..6 {
        let v = bo
            .until(10, |v| v["type"] == "view" && v["you"]["may_bet"] == true)
            .await;
        let round = v["round_id"].as_i64().unwrap();
        ana.send(&bet(round, &format!("a-{attempt}"), "10.00"))
            .await;
        bo.send(&bet(round, &format!("b-{attempt}"), "10.00")).await;
        let v = bo
            .until(10, |v| {
                v["type"] == "view"
                    && v["round_id"] == round
                    && (v["round"]["phase"] == "player-turns" || v["round"]["phase"] == "done")
            })
            .await;
        if v["round"]["phase"] == "done" {
            continue;
        }
        // Ana (seat 4) decides first; whoever acts out of turn is told whose turn
        // it is in the table's numbering, never the engine's.
        let waiting = v["round"]["turn"]["seat"].as_u64().unwrap();
        let actor = if waiting == 4 { &mut bo } else { &mut ana };
        actor
            .send(&format!(
                r#"{{"type":"act","round":{round},"spot":1,"hand":1,"decision":"stand","id":"x{attempt}"}}"#
            ))
            .await;
        let e = actor.until(5, |v| v["type"] == "error").await;
        assert_eq!(e["code"], "not-your-turn", "{e}");
        let m = e["message"].as_str().unwrap();
        assert!(m.contains(&format!("seat {waiting}")), "{m}");
        assert!(!m.contains("seat 0") && !m.contains("seat 1"), "{m}");
        return;
    }
    panic!("six rounds without a player's turn");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_socket_ends_with_its_session_and_keeps_it_alive_while_used() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("felt.db");
    let settings = felt_server::app::Settings {
        idle_ms: 2_000,
        ..Default::default()
    };
    let server = common::start_with(dir, db, CLASSIC, settings).await;
    let url = server.url.clone();
    let quiet = register(&url, "quiet").await;
    let busy = register(&url, "busy").await;
    let mut q = joined(&url, &quiet).await;
    let mut b = joined(&url, &busy).await;
    // Busy pings twice a second for 5 s (past the 2 s idle time); quiet sends nothing.
    for _ in 0..10 {
        b.send(r#"{"type":"ping"}"#).await;
        tokio::time::sleep(Duration::from_millis(500)).await;
    }
    let e = q.until(10, |v| v["type"] == "error").await;
    assert_eq!(e["code"], "session-ended", "{e}");
    assert!(q.next(5).await.is_none(), "the quiet socket stays open");
    let me = |cookie: String| {
        let url = url.clone();
        async move {
            reqwest::Client::new()
                .get(format!("{url}/api/me"))
                .header("cookie", cookie)
                .send()
                .await
                .unwrap()
                .status()
        }
    };
    assert_eq!(me(quiet).await, 401);
    assert_eq!(
        me(busy).await,
        200,
        "playing on the socket kept the session"
    );
    assert!(drain_frames(&mut b, 200)
        .await
        .iter()
        .all(|f| f["code"] != "session-ended"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_silent_socket_is_closed_and_frees_its_place() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("felt.db");
    let settings = felt_server::app::Settings {
        silent_socket: Duration::from_secs(1),
        ..Default::default()
    };
    let server = common::start_with(dir, db, CLASSIC, settings).await;
    let url = server.url.clone();
    let cookie = register(&url, "ghost").await;
    let (_cookie, mut alice) = seated(&url, "alice", 1).await;
    let ghost = joined(&url, &cookie).await;
    // The ghost sends nothing more (a half-open connection): within the deadline it is
    // gone from the table and from the server's count of sockets.
    let mut gone = false;
    for _ in 0..50 {
        tokio::time::sleep(Duration::from_millis(100)).await;
        alice.send(r#"{"type":"ping"}"#).await;
        if server.state.sockets().len() == 1 {
            gone = true;
            break;
        }
    }
    assert!(gone, "the silent socket is still open");
    drop(ghost);
}
