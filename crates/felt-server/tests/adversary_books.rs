//! The server against its own players, through the books: recall shows no card a
//! player has not seen while its shoe is in play; a player sits at one table across
//! every server sharing the books; a table started again seats its players where
//! they sat (and the operator's report of incomplete games lists the round it holds);
//! a round whose first bet was refused never stays open.

mod common;

use common::{connect, register, start_at, Client, Running};
use felt_server::app::Settings;
use felt_server::bots::{self, BotsConfig};
use felt_store::{BooksAt, RoundId};
use serde_json::{json, Value};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

/// The games: the presets, and `tiny`: classic dealt from one deck cut at 30%, so a
/// shoe lasts a round or two and retires within the test.
fn games(name: &str) -> Result<felt_core::Rules, String> {
    let text = |n: &str| {
        felt_core::presets::PRESETS
            .iter()
            .find(|(p, _)| *p == n)
            .map(|(_, t)| t.to_string())
            .ok_or_else(|| format!("no game `{n}`"))
    };
    let toml = match name {
        "tiny" => text("classic")?
            .replace("decks = 6 ", "decks = 1 ")
            .replace("penetration = 0.75", "penetration = 0.3"),
        other => text(other)?,
    };
    felt_core::Rules::from_toml(&toml, &format!("games/{name}.toml")).map_err(|e| e.to_string())
}

fn settings() -> Settings {
    Settings {
        rate_per_s: 200.0,
        burst: 400.0,
        ..Settings::default()
    }
}

async fn server(dir: tempfile::TempDir, at: &BooksAt, tables: &str) -> Running {
    let db = match at {
        BooksAt::Sqlite(p) => p.clone(),
        BooksAt::Postgres(_) => dir.path().join("unused.db"),
    };
    let hosting = |mut h: felt_server::hosting::Hosting| {
        h.renew = Duration::from_millis(200);
        h.lease = Duration::from_secs(2);
        h
    };
    start_at(dir, db, at, tables, &games, settings(), hosting, None).await
}

/// Registers (or logs in) `name` with `password`; its session cookie.
async fn session(url: &str, name: &str, password: &str) -> String {
    let http = reqwest::Client::new();
    let body = json!({"name": name, "password": password});
    for path in ["register", "login"] {
        let r = http
            .post(format!("{url}/api/{path}"))
            .json(&body)
            .send()
            .await
            .unwrap();
        if r.status().is_success() {
            return common::session_cookie(&r);
        }
    }
    panic!("{name} can neither register nor log in at {url}");
}

async fn get(url: &str, cookie: &str) -> Value {
    let r = reqwest::Client::new()
        .get(url)
        .header("cookie", cookie)
        .send()
        .await
        .unwrap();
    assert!(r.status().is_success(), "{url}: {}", r.status());
    r.json().await.unwrap()
}

/// The face-down events of a recalled round that carry their card.
fn face_down_cards(game: &Value) -> Vec<Value> {
    game["events"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|e| e["face_up"] == false && e.get("card").is_some())
        .cloned()
        .collect()
}

/// `players` bots (`rb-0-0`, ...) play `rounds` rounds each at the server's table,
/// pausing 20 ms before each bet and decision as a person would (so a reader of the
/// recall sees the session's rounds while it plays, however fast the machine).
async fn play(url: &str, players: usize, rounds: u64) {
    let cfg = BotsConfig {
        servers: vec![url.to_string()],
        tables: 1,
        players,
        rounds,
        prefix: "rb".to_string(),
        stall: Duration::from_secs(60),
        keep_frames: false,
        think: Duration::from_millis(20),
        pace_per_s: bots::DEFAULT_PACE_PER_S,
        launch: None,
    };
    let report = bots::run(cfg).await.unwrap();
    assert_eq!(report.errors, 0, "{:?}", report.error_messages);
}

/// Whether round `id`'s shoe is retired, as the books say now.
fn retired(s: &Running, id: i64) -> bool {
    let r = s.state.books().read(|st| st.round(RoundId(id))).unwrap();
    r.and_then(|r| r.shoe).is_some_and(|sh| sh.is_retired())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn no_recall_answer_carries_a_face_down_card_of_a_shoe_in_play() {
    let dir = tempfile::tempdir().unwrap();
    let at = BooksAt::Sqlite(dir.path().join("felt.db"));
    let tables = "[[table]]\nname = \"tiny\"\ngame = \"tiny\"\nbetting_secs = 30\ndecision_secs = 30\npause_ms = 0\n";
    let s = server(dir, &at, tables).await;
    // The bot whose recall is read: its account made here, so the test can log in.
    let cookie = session(&s.url, "rb-0-0", "rb-0-0-password").await;
    let stop = Arc::new(AtomicBool::new(false));
    let reader = {
        let (url, cookie, stop) = (s.url.clone(), cookie.clone(), stop.clone());
        tokio::spawn(async move {
            let mut answers = Vec::new();
            while !stop.load(Ordering::SeqCst) {
                answers.push(get(&format!("{url}/api/history?n=100"), &cookie).await);
                tokio::time::sleep(Duration::from_millis(50)).await;
            }
            answers
        })
    };
    play(&s.url, 2, 16).await;
    stop.store(true, Ordering::SeqCst);
    let mut answers = reader.await.unwrap();
    answers.push(get(&format!("{}/api/history?n=100", s.url), &cookie).await);
    assert!(answers.len() > 5, "{} answers", answers.len());
    // Every face-down card in any answer is of a shoe retired by now (a shoe retires
    // once: one in play now was in play when the answer was given).
    let mut leaks = Vec::new();
    for a in &answers {
        for g in a["games"].as_array().unwrap() {
            let id = g["round"].as_i64().unwrap();
            for e in face_down_cards(g) {
                if !retired(&s, id) {
                    leaks.push(format!("round {id}: {e}"));
                }
            }
        }
    }
    assert!(
        leaks.is_empty(),
        "{} leaks: {:?}",
        leaks.len(),
        &leaks[..leaks.len().min(5)]
    );
    // The answers span shoes: a round whose shoe was in play hid its face-down cards,
    // one whose shoe was retired showed them.
    let games: Vec<&Value> = answers
        .iter()
        .flat_map(|a| a["games"].as_array().unwrap())
        .collect();
    let hid = |g: &Value| {
        g["events"]
            .as_array()
            .unwrap()
            .iter()
            .any(|e| e["face_up"] == false && e.get("card").is_none())
    };
    assert!(games.iter().any(|g| g["revealed"] == false && hid(g)));
    assert!(games
        .iter()
        .any(|g| g["revealed"] == true && !face_down_cards(g).is_empty()));
    for g in &games {
        if g["revealed"] == true {
            assert!(retired(&s, g["round"].as_i64().unwrap()), "{g}");
        }
    }
    // More rounds, one bot, until the last one's shoe is in play (a round can end
    // its shoe) for the operator to read.
    let mut last = Vec::new();
    for _ in 0..8 {
        play(&s.url, 1, 1).await;
        last = get(&format!("{}/api/history?n=100", s.url), &cookie).await["games"]
            .as_array()
            .unwrap()
            .clone();
        if !retired(&s, last[0]["round"].as_i64().unwrap()) {
            break;
        }
    }
    let (old, live): (Vec<&Value>, Vec<&Value>) = last
        .iter()
        .partition(|g| retired(&s, g["round"].as_i64().unwrap()));
    assert!(
        !old.is_empty() && !live.is_empty(),
        "{} and {}",
        old.len(),
        live.len()
    );

    // An operator recalls by the same rule: a face-down card of a shoe in play stays
    // hidden (a stolen operator session must not tell what is left in the shoe); the
    // host's `felt replay` shows everything.
    let olga = session(&s.url, "olga", "olga-password-1").await;
    s.state
        .books()
        .with(|st| -> felt_store::Result<()> {
            let l = st.login("olga")?.unwrap();
            st.set_login("olga", &l.password_hash, felt_store::Role::Operator)
        })
        .unwrap();
    for g in [old[0], live[0]] {
        let id = g["round"].as_i64().unwrap();
        let o = get(&format!("{}/api/operator/rounds/{id}", s.url), &olga).await;
        assert_eq!(o["events"], g["events"], "round {id}");
        assert_eq!(o["revealed"], g["revealed"], "round {id}");
    }
    let live_id = live[0]["round"].as_i64().unwrap();
    let hidden = s
        .state
        .books()
        .read(|st| st.round(RoundId(live_id)))
        .unwrap()
        .unwrap()
        .events
        .iter()
        .filter(|e| e.json.contains("\"face_up\":false"))
        .count();
    let o = get(&format!("{}/api/operator/rounds/{live_id}", s.url), &olga).await;
    assert!(hidden > 0 && face_down_cards(&o).is_empty(), "{o}");
    s.stop().await;
}

const TWO_TABLES: &str = "[[table]]\nname = \"lucky-ladies\"\ngame = \"lucky-ladies\"\nbetting_secs = 600\ndecision_secs = 600\npause_ms = 0\n\
[[table]]\nname = \"classic\"\ngame = \"classic\"\nbetting_secs = 600\ndecision_secs = 600\npause_ms = 0\n";

/// Runs `f` on a thread outside the test's runtime (PostgreSQL's client runs its own).
fn off_runtime<T: Send>(f: impl FnOnce() -> T + Send) -> T {
    std::thread::scope(|s| s.spawn(f).join().unwrap())
}

fn postgres() -> BooksAt {
    off_runtime(|| BooksAt::Postgres(felt_store::testing::TestPostgres::shared().fresh_database()))
}

/// Joins `table` at `url` as the player of `cookie`; asks for `seat` (any if `None`)
/// and returns the client with the answer (a view with a seat, or an error).
async fn sit(url: &str, cookie: &str, table: &str, seat: Option<u8>) -> (Client, Value) {
    let mut c = connect(url, Some(cookie), None).await.unwrap();
    c.send(&format!(
        r#"{{"type":"hello","version":1,"table":"{table}"}}"#
    ))
    .await;
    c.until(15, |v| v["type"] == "welcome").await;
    match seat {
        Some(n) => c.send(&format!(r#"{{"type":"sit","seat":{n}}}"#)).await,
        None => c.send(r#"{"type":"sit"}"#).await,
    }
    let v = c
        .until(15, |v| v["type"] == "error" || v["you"]["seat"].is_u64())
        .await;
    (c, v)
}

/// Waits until each server deals one of the two tables; (A's table, B's table).
async fn spread(a: &Running, b: &Running) -> (String, String) {
    for _ in 0..100 {
        let (da, db) = (a.state.dealt_here(), b.state.dealt_here());
        if da.len() == 1 && db.len() == 1 && da != db {
            return (da[0].clone(), db[0].clone());
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    panic!("the tables did not spread over the servers");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_player_sits_at_one_table_across_two_servers() {
    let at = postgres();
    let a = server(tempfile::tempdir().unwrap(), &at, TWO_TABLES).await;
    let b = server(tempfile::tempdir().unwrap(), &at, TWO_TABLES).await;
    let (on_a, on_b) = spread(&a, &b).await;
    let cookie = common::register(&a.url, "alice").await;
    // Alice sits at A's table, then at B's table on B: refused, naming where she sits,
    // never a balance.
    let (mut first, v) = sit(&a.url, &cookie, &on_a, Some(3)).await;
    assert_eq!(v["you"]["seat"], 3, "{v}");
    let (_, e) = sit(&b.url, &cookie, &on_b, None).await;
    assert_eq!(e["code"], "seated-elsewhere", "{e}");
    let m = e["message"].as_str().unwrap();
    assert!(
        m.contains(&format!("`{on_a}`")) && !m.contains("1000"),
        "{m}"
    );
    // Bob cannot take her seat from the other server's side either.
    let bob = common::register(&b.url, "bob").await;
    let (_, e) = sit(&b.url, &bob, &on_a, Some(3)).await;
    assert_eq!(e["code"], "seat-taken", "{e}");
    // She leaves A's table: B's is hers to sit at.
    first.send(r#"{"type":"leave"}"#).await;
    first.until(15, |v| v["you"]["seat"].is_null()).await;
    let (_, v) = sit(&b.url, &cookie, &on_b, None).await;
    assert_eq!(v["you"]["seat"], 1, "{v}");
    let books = a.state.books().clone();
    let seats = off_runtime(move || books.read(|st| st.table_seats(&format!("online/{on_b}"))));
    assert_eq!(seats.unwrap(), [(1, "alice".to_string())]);
    a.stop().await;
    b.stop().await;
}

fn bet(round: i64, id: &str) -> String {
    format!(r#"{{"type":"bet","round":{round},"id":"{id}","spots":[{{"spot":1,"main":"10.00"}}]}}"#)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_table_started_again_after_a_crash_seats_its_players_where_they_sat() {
    let at = postgres();
    let one = "[[table]]\nname = \"t\"\ngame = \"classic\"\nbetting_secs = 600\ndecision_secs = 600\npause_ms = 0\n";
    let a = server(tempfile::tempdir().unwrap(), &at, one).await;
    let alice = common::register(&a.url, "alice").await;
    let bob = common::register(&a.url, "bob").await;
    let (mut ca, v) = sit(&a.url, &alice, "t", Some(4)).await;
    assert_eq!(v["you"]["seat"], 4, "{v}");
    let (mut cb, v) = sit(&a.url, &bob, "t", Some(6)).await;
    assert_eq!(v["you"]["seat"], 6, "{v}");
    // Both bet: the round is dealt and waits for a decision (a round the dealer's
    // natural ends at the peek is bet again: the shoe is random).
    let mut round = None;
    for attempt in 0..8 {
        let v = ca
            .until(15, |v| {
                v["you"]["may_bet"] == true && v["seats"][5]["in_round"] == true
            })
            .await;
        let r = v["round_id"].as_i64().unwrap();
        ca.send(&bet(r, &format!("a-{attempt}"))).await;
        cb.until(15, |v| v["seats"][3]["has_bet"] == true).await;
        cb.send(&bet(r, &format!("b-{attempt}"))).await;
        let v = ca
            .until(5, |v| {
                let deciding = ["insurance", "early-surrender", "player-turns"]
                    .contains(&v["round"]["phase"].as_str().unwrap_or(""));
                (v["in_play"] == true && deciding) || (v["in_play"] == false && v["round_id"] == r)
            })
            .await;
        if v["in_play"] == true {
            round = Some(r);
            break;
        }
    }
    let round = round.expect("a round dealt that waits for a decision within 8 rounds");
    // The operator's report of incomplete games lists the round in play, the stakes
    // it holds, and that it would resume (classic's rules) if its server stopped.
    let olga = session(&a.url, "olga", "olga-password-1").await;
    let books = a.state.books().clone();
    off_runtime(move || {
        books.with(|st| -> felt_store::Result<()> {
            let l = st.login("olga")?.unwrap();
            st.set_login("olga", &l.password_hash, felt_store::Role::Operator)
        })
    })
    .unwrap();
    let report = get(&format!("{}/api/operator/incomplete", a.url), &olga).await;
    let rounds = report["rounds"].as_array().unwrap();
    assert_eq!(rounds.len(), 1, "{report}");
    assert_eq!(rounds[0]["round"], round);
    assert_eq!(rounds[0]["state"]["state"], "in-play", "{report}");
    assert_eq!(rounds[0]["ending"]["ending"], "resumes", "{report}");
    assert_eq!(
        rounds[0]["stakes"],
        json!([{"player": "alice", "amount": "10.00"}, {"player": "bob", "amount": "10.00"}])
    );
    let refused = reqwest::Client::new()
        .get(format!("{}/api/operator/incomplete", a.url))
        .header("cookie", &alice)
        .send()
        .await
        .unwrap();
    assert_eq!(refused.status(), 403);
    // The server dies: nothing of it runs on (no clean stop, no seat freed).
    drop((ca, cb));
    a.task.abort();
    drop(a.state);
    drop(a.stop);
    // Another server takes the table over once the lease runs out.
    let b = server(tempfile::tempdir().unwrap(), &at, one).await;
    for _ in 0..100 {
        if b.state.dealt_here() == ["t"] {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert_eq!(b.state.dealt_here(), ["t"]);
    let mut back = Vec::new();
    for (cookie, seat) in [(&alice, 4), (&bob, 6)] {
        let mut c = connect(&b.url, Some(cookie), None).await.unwrap();
        c.send(r#"{"type":"hello","version":1,"table":"t"}"#).await;
        let v = c.until(15, |v| v["you"]["seat"].is_u64()).await;
        assert_eq!(v["you"]["seat"], seat, "{v}");
        assert_eq!(v["round_id"], round, "{v}");
        back.push(c);
    }
    let books = b.state.books().clone();
    let seats = off_runtime(move || books.read(|st| st.table_seats("online/t"))).unwrap();
    assert_eq!(seats, [(4, "alice".to_string()), (6, "bob".to_string())]);
    // The resumed round is played out on B (every answer a stand or a decline, each
    // refused out of turn), and its stakes count against the limits like any round's,
    // in the transaction that ends it.
    let mut over = false;
    for i in 0..40 {
        for c in back.iter_mut() {
            for word in ["decline", "stand"] {
                c.send(&format!(
                    r#"{{"type":"act","round":{round},"spot":1,"hand":1,"decision":"{word}","id":"{word}-{i}"}}"#
                ))
                .await;
            }
        }
        while let Some(v) = back[0].next(1).await {
            if v["type"] == "view" && v["round_id"] == round && v["in_play"] == false {
                over = true;
            }
        }
        if over {
            break;
        }
    }
    assert!(over, "the resumed round ends on B");
    // What the limits count is what the books' rounds say, every round once: those
    // dealt on A before it died, and the one it left, finished on B.
    let books = b.state.books().clone();
    let (counted, in_rounds, resumed) = off_runtime(move || {
        books.read(|st| -> felt_store::Result<_> {
            let mut in_rounds = std::collections::BTreeMap::new();
            let mut resumed = None;
            for id in 1..=round {
                let Some(rec) = st.round(felt_store::RoundId(id))? else {
                    continue;
                };
                for (player, u) in felt_store::round_usage(&rec) {
                    if id == round {
                        resumed = Some(u.staked);
                    }
                    let t: &mut (i64, i64) = in_rounds.entry(player).or_default();
                    t.0 += u.staked;
                    t.1 += u.returned;
                }
            }
            let counted: Vec<(i64, i64)> = ["alice", "bob"]
                .iter()
                .map(|p| st.usage_since(p, 0).map(|u| (u.staked, u.returned)))
                .collect::<Result<_, _>>()?;
            Ok((counted, in_rounds, resumed))
        })
    })
    .unwrap();
    assert_eq!(resumed, Some(1_000), "the resumed round holds its stake");
    assert_eq!(
        counted,
        [in_rounds["alice"], in_rounds["bob"]],
        "the usage counted against the limits, against the rounds' movements"
    );
    b.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_seat_the_books_gave_back_is_freed_when_its_player_never_returns() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("felt.db");
    let at = BooksAt::Sqlite(db.clone());
    // The books seat carol at seat 5 (her server died); she never comes back.
    {
        let mut books = felt_store::open_books(&at).unwrap();
        books
            .deposit("carol", felt_core::Money::cents(100_000))
            .unwrap();
        books.take_seat("online/t", 5, "carol").unwrap();
    }
    let one = "[[table]]\nname = \"t\"\ngame = \"classic\"\nbetting_secs = 1\ndecision_secs = 600\npause_ms = 0\nabsent_rounds = 1\n";
    let s = server(dir, &at, one).await;
    // The lobby names players to a logged-in request only.
    let watcher = register(&s.url, "watcher").await;
    let lobby = || async {
        reqwest::Client::new()
            .get(format!("{}/api/tables", s.url))
            .header("cookie", &watcher)
            .send()
            .await
            .unwrap()
            .json::<Value>()
            .await
            .unwrap()["tables"][0]["players"]
            .clone()
    };
    // Seated by the books, not at the table: the lobby says she is away.
    assert_eq!(
        lobby().await,
        json!([{"seat": 5, "player": "carol", "away": true}])
    );
    // Two betting windows close with no bet: she is unseated, here and in the books.
    let mut freed = false;
    for _ in 0..60 {
        if lobby().await == json!([]) {
            freed = true;
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert!(freed, "{}", lobby().await);
    let seats = s
        .state
        .books()
        .read(|st| st.table_seats("online/t"))
        .unwrap();
    assert!(seats.is_empty(), "{seats:?}");
    s.stop().await;
}
