//! The betting window: it waits for the round's players still in their seats and
//! connected, and a seat's newcomer never bets in the round set up for the seat's
//! previous player.

mod common;

use common::{connect, register, start, Client};
use felt_core::Money;
use felt_store::{Account, MovementKind, SqliteStore, Store};
use serde_json::Value;

/// Windows long enough that only the players' own moves can close them.
const ONE_TABLE: &str = "[[table]]\nname = \"t\"\ngame = \"classic\"\nbetting_secs = 600\ndecision_secs = 600\npause_ms = 0\n";

async fn seated(url: &str, name: &str, seat: u8) -> Client {
    let cookie = register(url, name).await;
    let mut c = connect(url, Some(&cookie), None).await.unwrap();
    c.send(r#"{"type":"hello","version":1,"table":"t"}"#).await;
    c.until(5, |v| v["type"] == "welcome").await;
    c.send(&format!(r#"{{"type":"sit","seat":{seat}}}"#)).await;
    c.until(5, |v| v["you"]["seat"] == seat).await;
    c
}

fn bet(round: i64, id: &str) -> String {
    format!(r#"{{"type":"bet","round":{round},"id":"{id}","spots":[{{"spot":1,"main":"10.00"}}]}}"#)
}

fn in_round(v: &Value) -> usize {
    v["seats"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|s| s["in_round"] == true)
        .count()
}

/// The view shows round `round` dealt: in play past betting, or already over (a
/// natural can end it with the deal).
fn dealt(v: &Value, round: i64) -> bool {
    v["type"] == "view"
        && v["round_id"] == round
        && v["round"]["phase"].is_string()
        && v["round"]["phase"] != "betting"
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_window_deals_once_every_player_still_seated_and_connected_has_bet() {
    let server = start(ONE_TABLE).await;
    let url = server.url.clone();
    let mut alice = seated(&url, "alice", 1).await;
    let mut bob = seated(&url, "bob", 2).await;
    let carol = seated(&url, "carol", 3).await;
    let v = alice
        .until(5, |v| v["you"]["may_bet"] == true && in_round(v) == 3)
        .await;
    let round = v["round_id"].as_i64().unwrap();
    alice.send(&bet(round, "a-1")).await;
    let v = alice
        .until(5, |v| {
            v["seats"][0]["has_bet"] == true || v["type"] == "error"
        })
        .await;
    assert_eq!(v["type"], "view", "{v}");
    let round = v["round_id"].as_i64().unwrap();
    // Bob leaves before betting: the window stops waiting for him, not for carol.
    bob.send(r#"{"type":"leave"}"#).await;
    let v = alice.until(5, |v| v["seats"][1]["player"].is_null()).await;
    assert!(!dealt(&v, round), "dealt while carol may still bet: {v}");
    // Dave sits in bob's seat: he plays from the next round, never in bob's place.
    let mut dave = seated(&url, "dave", 2).await;
    dave.send(&bet(round, "d-1")).await;
    let e = dave.until(5, |v| v["type"] == "error").await;
    assert_eq!(e["code"], "not-seated", "{e}");
    assert!(e["message"].as_str().unwrap().contains("next one"), "{e}");
    // Carol's connection drops: nobody else is awaited, and the cards come out.
    drop(carol.tx);
    drop(carol.rx);
    alice.until(5, |v| dealt(v, round)).await;
    drop(dave);
    drop(bob);
    let (_dir, db) = server.stop().await;
    let books = SqliteStore::open(&db).unwrap();
    let rec = books.round(felt_store::RoundId(round)).unwrap().unwrap();
    let wagered: Vec<&str> = rec
        .movements
        .iter()
        .filter(|m| m.movement.kind == MovementKind::Wager)
        .map(|m| m.movement.from.name())
        .collect();
    assert_eq!(wagered, ["alice"], "{:?}", rec.movements);
    for (who, start) in [("bob", 100_000), ("carol", 100_000), ("dave", 100_000)] {
        assert_eq!(
            books.balance(&Account::player(who)).unwrap(),
            Money::cents(start),
            "{who}"
        );
    }
    assert!(books.check_books().unwrap().is_sound());
}
