//! The server end to end: bots play every game through the protocol, every frame a
//! spectator and each seated bot received is checked for hidden cards, the books balance and every round replays
//! identical to its log.

mod common;

use common::{connect, every_game, register, start};
use felt_server::bots::{self, BotsConfig};
use felt_store::SqliteStore;
use serde_json::Value;
use std::collections::BTreeMap;
use std::time::Duration;

/// Every card text anywhere in a frame.
fn card_texts(v: &Value, out: &mut Vec<String>) {
    match v {
        Value::String(s) if s.parse::<felt_core::Card>().is_ok() && s.len() <= 3 => {
            out.push(s.clone())
        }
        Value::Array(a) => a.iter().for_each(|x| card_texts(x, out)),
        Value::Object(m) => m.values().for_each(|x| card_texts(x, out)),
        _ => {}
    }
}

/// The cards a view shows face up: every hand's and the dealer's.
fn shown(v: &Value) -> Vec<String> {
    let mut out = Vec::new();
    card_texts(&v["round"]["spots"], &mut out);
    card_texts(&v["round"]["dealer"]["cards"], &mut out);
    out
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_game_plays_through_the_protocol_no_frame_holds_a_hidden_card_and_the_books_replay() {
    let server = start(&every_game(30)).await;
    // A spectator at every table records every frame.
    let mut spectators = Vec::new();
    let cookie = register(&server.url, "watcher").await;
    for g in felt_core::presets::names() {
        let mut c = connect(&server.url, Some(&cookie), None).await.unwrap();
        c.send(&format!(r#"{{"type":"hello","version":1,"table":"{g}"}}"#))
            .await;
        spectators.push(c);
    }
    let cfg = BotsConfig {
        servers: vec![server.url.clone()],
        tables: 6,
        players: 2,
        rounds: 6,
        prefix: "bot".to_string(),
        stall: Duration::from_secs(60),
        keep_frames: true,
        think: Duration::ZERO,
        pace_per_s: bots::DEFAULT_PACE_PER_S,
        launch: None,
    };
    let report = bots::run(cfg).await.unwrap();
    assert_eq!(report.errors, 0, "{:?}", report.error_messages);
    assert_eq!(report.rounds, 6 * 2 * 6);
    assert_eq!(report.refusals, 0, "{:?}", report.refusal_examples);
    for c in spectators.iter_mut() {
        while c.next(1).await.is_some() {}
    }
    let (_dir, db) = server.stop().await;
    let store = SqliteStore::open(&db).unwrap();
    // Each round's hole card, from the house's log.
    let mut holes: BTreeMap<i64, String> = BTreeMap::new();
    let rounds = common::books_replay(&store);
    assert!(rounds.len() >= 36, "{} rounds", rounds.len());
    for r in &rounds {
        for e in &r.events {
            let v: Value = serde_json::from_str(&e.json).unwrap();
            // The bots answer every decision and offer: no timer ran out.
            assert_ne!(v["event"], "timed-out", "round {}: {v}", r.id);
            if v["event"] == "dealt" && v["face_up"] == false {
                let c: felt_core::Card = serde_json::from_value(v["card"].clone()).unwrap();
                holes.insert(r.id.0, c.to_string());
            }
        }
    }
    // Every frame a spectator and every seated bot received.
    let mut streams: Vec<(String, &[Value])> = spectators
        .iter()
        .enumerate()
        .map(|(i, c)| (format!("spectator {i}"), c.frames.as_slice()))
        .collect();
    streams.extend(
        report
            .frames
            .iter()
            .map(|(bot, frames)| (bot.clone(), frames.as_slice())),
    );
    assert_eq!(streams.len(), 6 + 6 * 2);
    let mut checked = 0;
    let mut checked_seated = 0;
    for (who, frames) in &streams {
        assert!(frames.iter().any(|f| f["type"] == "view"), "{who}");
        for f in frames.iter() {
            if f["round"]["dealer"]["hole"] != "face-down" {
                continue;
            }
            let mut all = Vec::new();
            card_texts(f, &mut all);
            let visible = shown(f);
            // No card in the frame that the table does not show face up.
            for card in &all {
                assert!(
                    visible.contains(card),
                    "{who}: a frame holds {card}, not on the table: {f}"
                );
            }
            let id = f["round_id"].as_i64().unwrap();
            if let Some(h) = holes.get(&id) {
                assert!(
                    !all.contains(h) || visible.contains(h),
                    "{who}: round {id}'s hole card {h} in a frame before it is turned: {f}"
                );
                checked += 1;
                if f["you"]["seat"].is_u64() {
                    checked_seated += 1;
                }
            }
            // The view's events never carry a face-down card's value.
            for e in f["events"].as_array().into_iter().flatten() {
                if e["face_up"] == false {
                    assert!(e.get("card").is_none(), "{who}: {e}");
                }
            }
        }
        // Sequence numbers rise by one; a view may repeat the stream's current one (the
        // answer to a `sync`, to that connection alone).
        let seqs: Vec<(u64, bool)> = frames
            .iter()
            .filter(|f| f["type"] != "welcome")
            .filter_map(|f| Some((f["seq"].as_u64()?, f["type"] == "view")))
            .collect();
        assert!(
            seqs.windows(2)
                .all(|w| w[1].0 == w[0].0 + 1 || (w[1].0 == w[0].0 && w[1].1)),
            "{who}: {seqs:?}"
        );
    }
    assert!(
        checked_seated > 20,
        "only {checked_seated} seated players' frames with a hole card face down"
    );
    assert!(
        checked > 20,
        "only {checked} frames with a hole card face down"
    );
}

/// Bots as fast as they decide at a server that lets a connection send three
/// messages a second, on a table whose timers are a minute long.
fn rate_limited_bots(pace_per_s: f64) -> BotsConfig {
    BotsConfig {
        servers: Vec::new(),
        tables: 1,
        players: 2,
        rounds: 4,
        prefix: format!("paced{}", pace_per_s as u32),
        // Far below the table's timers: a bot waiting on a dropped message stalls.
        stall: Duration::from_secs(20),
        keep_frames: false,
        think: Duration::ZERO,
        pace_per_s,
        launch: None,
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_bot_whose_message_the_rate_limit_dropped_sends_again_what_the_table_still_asks_and_a_paced_bot_meets_no_limit(
) {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("felt.db");
    let tables = "[[table]]\nname = \"slow\"\ngame = \"classic\"\nbetting_secs = 60\ndecision_secs = 60\npause_ms = 0\n";
    let settings = felt_server::app::Settings {
        rate_per_s: 3.0,
        burst: 3.0,
        ..Default::default()
    };
    let server = common::start_with(dir, db, tables, settings).await;
    // Unpaced: messages are dropped, and every bot still plays its rounds.
    let mut cfg = rate_limited_bots(0.0);
    cfg.servers = vec![server.url.clone()];
    let report = bots::run(cfg).await.unwrap();
    assert_eq!(report.errors, 0, "{:?}", report.error_messages);
    // A bot left waiting on a dropped message stalls and connects again.
    assert_eq!(report.reconnects, 0, "{:?}", report.reconnect_reasons);
    assert_eq!(report.rounds, 2 * 4);
    assert!(
        report
            .refusal_codes
            .get("rate-limited")
            .is_some_and(|&n| n >= 1),
        "the limit was never met: {:?}",
        report.refusal_codes
    );
    // Paced below the limit: nothing is dropped.
    let mut cfg = rate_limited_bots(2.5);
    cfg.servers = vec![server.url.clone()];
    let report = bots::run(cfg).await.unwrap();
    assert_eq!(report.errors, 0, "{:?}", report.error_messages);
    assert_eq!(report.rounds, 2 * 4);
    assert_eq!(report.refusals, 0, "{:?}", report.refusal_examples);
    // Every bet was timed to the view that showed it, and nothing as refused; the
    // kinds add up to the whole.
    let kinds = &report.latency_by_kind_ms;
    assert!(
        kinds["bet"].actions >= 2 * 4 && kinds["bet"].p50 > 0.0,
        "{kinds:?}"
    );
    assert!(!kinds.contains_key("refused"), "{kinds:?}");
    let timed: usize = kinds.values().map(|l| l.actions).sum();
    assert_eq!(timed, report.latency_ms.actions);
    server.stop().await;
}
