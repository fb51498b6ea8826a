//! A crash loses nothing (`felt serve`): bots play at three tables (one with a
//! progressive meter, one under `on_crash = "void"`) while the server is killed with
//! SIGKILL at random moments and started again on the same books. After each kill:
//! the ledger sums to zero and matches every balance, each meter is reset +
//! contributions - awards (`check_books`), no round is lost, rewritten or has a client
//! action applied twice, and every round the kill interrupted is resumed where it
//! stopped (its steps kept, then finished) or, under `on_crash = "void"`, voided. The
//! bots reconnect and carry on (no errors); at the end the server stops cleanly on
//! SIGTERM and `felt replay --all` finds every round identical to its log.
//!
//! `FELT_CRASH_KILLS` sets the number of kills (default 6, CI's size; the figure in
//! docs/server.md is from 50) and `FELT_CRASH_SEED` the seed of the kill moments.

mod common;

use felt_server::bots::{self, BotsConfig};
use felt_store::{RoundId, RoundRecord, RoundStatus, SqliteStore, Store};
use rand::{Rng, SeedableRng};
use std::collections::{BTreeMap, BTreeSet};
use std::io::{Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// A round as the books had it at a kill.
#[derive(Clone, PartialEq, Debug)]
struct Seen {
    table: String,
    status: RoundStatus,
    actions: Vec<String>,
    movements: usize,
}

fn env_or(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

fn free_port() -> u16 {
    let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    l.local_addr().unwrap().port()
}

fn tables_file(dir: &Path) -> PathBuf {
    let classic = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../games/classic.toml"
    ))
    .unwrap();
    let voiding = classic.replace("[table]\n", "[table]\non_crash = \"void\"\n");
    assert!(voiding.contains("on_crash = \"void\""));
    std::fs::write(dir.join("classic-void.toml"), voiding).unwrap();
    let timers = "betting_secs = 30\ndecision_secs = 3\npause_ms = 0\n";
    let text = format!(
        "[[table]]\nname = \"b7\"\ngame = \"blazing-7s\"\n{timers}\n\
         [[table]]\nname = \"ladies\"\ngame = \"lucky-ladies\"\n{timers}\n\
         [[table]]\nname = \"void\"\ngame = \"{}\"\n{timers}",
        dir.join("classic-void.toml").display()
    );
    let path = dir.join("tables.toml");
    std::fs::write(&path, text).unwrap();
    path
}

fn start_server(db: &Path, tables: &Path, port: u16, log: &Path) -> Child {
    let log = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(log)
        .unwrap();
    let child = Command::new(env!("CARGO_BIN_EXE_felt"))
        .args(["serve", "--addr", &format!("127.0.0.1:{port}"), "--tables"])
        .arg(tables)
        .arg("--db")
        .arg(db)
        .args(["--grace-secs", "10"])
        .stdin(Stdio::null())
        .stdout(log.try_clone().unwrap())
        .stderr(log)
        .spawn()
        .expect("felt serve starts");
    let began = Instant::now();
    while !healthy(port) {
        assert!(
            began.elapsed() < Duration::from_secs(60),
            "felt serve did not come up"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    child
}

fn healthy(port: u16) -> bool {
    let Ok(mut s) = TcpStream::connect(("127.0.0.1", port)) else {
        return false;
    };
    let _ = s.set_read_timeout(Some(Duration::from_secs(5)));
    if s.write_all(b"GET /healthz HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n")
        .is_err()
    {
        return false;
    }
    let mut answer = String::new();
    let _ = s.read_to_string(&mut answer);
    answer.starts_with("HTTP/1.1 200")
}

/// Every round in the books, checked for client actions applied twice.
fn rounds(books: &SqliteStore) -> BTreeMap<RoundId, Seen> {
    let all: Vec<RoundRecord> = books.history(usize::MAX).unwrap();
    let mut out = BTreeMap::new();
    for r in all {
        let actions: Vec<String> = r.actions().iter().map(|a| a.to_string()).collect();
        let mut ids = BTreeSet::new();
        for a in &actions {
            let v: serde_json::Value = serde_json::from_str(a).unwrap();
            let id = v["client"]["id"].as_str().or(v["batch"]["id"].as_str());
            if let Some(id) = id {
                assert!(
                    ids.insert(id.to_string()),
                    "round {}: {id} applied twice",
                    r.id.0
                );
            }
        }
        out.insert(
            r.id,
            Seen {
                table: r.table_id.clone(),
                status: r.status,
                actions,
                movements: r.movements.len(),
            },
        );
    }
    out
}

/// The books after a kill: sound, and every round seen before still there, unchanged
/// if it had ended, grown only at its end if it had not.
fn check_after_kill(db: &Path, before: &BTreeMap<RoundId, Seen>) -> BTreeMap<RoundId, Seen> {
    let books = SqliteStore::open(db).unwrap();
    let report = books.check_books().unwrap();
    assert!(report.is_sound(), "after a kill: {report}");
    let now = rounds(&books);
    for (id, was) in before {
        let is = now
            .get(id)
            .unwrap_or_else(|| panic!("round {} is lost", id.0));
        assert_eq!(is.table, was.table);
        match was.status {
            RoundStatus::Finished | RoundStatus::Voided => {
                assert_eq!(is, was, "round {} changed after it ended", id.0)
            }
            RoundStatus::Open => assert!(
                is.actions.starts_with(&was.actions),
                "round {}: the steps written before the kill are not kept: {:?} then {:?}",
                id.0,
                was.actions,
                is.actions
            ),
        }
    }
    now
}

fn start_bots(
    rt: &tokio::runtime::Runtime,
    port: u16,
    batch: u32,
) -> tokio::task::JoinHandle<Result<bots::Report, String>> {
    let cfg = BotsConfig {
        servers: vec![format!("http://127.0.0.1:{port}")],
        tables: 3,
        players: 3,
        rounds: 4,
        prefix: format!("crash{batch}"),
        stall: Duration::from_secs(90),
        keep_frames: false,
        think: Duration::ZERO,
    };
    rt.spawn(bots::run(cfg))
}

fn finished_batch(
    rt: &tokio::runtime::Runtime,
    task: tokio::task::JoinHandle<Result<bots::Report, String>>,
) -> u64 {
    let report = rt.block_on(task).unwrap().unwrap();
    assert_eq!(report.errors, 0, "{report:?}");
    report.rounds
}

#[test]
fn a_killed_server_loses_nothing_and_its_bots_play_on() {
    let kills = env_or("FELT_CRASH_KILLS", 6);
    let seed = env_or("FELT_CRASH_SEED", 7);
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("casino.db");
    let log = dir.path().join("serve.log");
    let tables = tables_file(dir.path());
    let port = free_port();
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let mut server = start_server(&db, &tables, port, &log);
    let mut batch = 0;
    let mut bots = start_bots(&rt, port, batch);
    let mut played = 0;
    let mut seen = BTreeMap::new();
    // Rounds a kill interrupted, by the table's crash rule.
    let mut interrupted: BTreeMap<RoundId, String> = BTreeMap::new();
    for _ in 0..kills {
        std::thread::sleep(Duration::from_millis(rng.gen_range(150..900)));
        if bots.is_finished() {
            played += finished_batch(&rt, bots);
            batch += 1;
            bots = start_bots(&rt, port, batch);
            std::thread::sleep(Duration::from_millis(rng.gen_range(300..900)));
        }
        server.kill().unwrap();
        server.wait().unwrap();
        seen = check_after_kill(&db, &seen);
        for (id, s) in &seen {
            if s.status == RoundStatus::Open {
                interrupted.insert(*id, s.table.clone());
            }
        }
        server = start_server(&db, &tables, port, &log);
    }
    played += finished_batch(&rt, bots);
    assert!(played > 0);
    // A clean stop: SIGTERM, exit 0.
    let term = Command::new("kill")
        .args(["-TERM", &server.id().to_string()])
        .status()
        .unwrap();
    assert!(term.success());
    let status = server.wait().unwrap();
    let logged = std::fs::read_to_string(&log).unwrap_or_default();
    assert!(status.success(), "felt serve ended {status}: {logged}");
    let end = check_after_kill(&db, &seen);
    assert!(
        !interrupted.is_empty() || kills < 3,
        "no kill caught a round in play"
    );
    for (id, table) in &interrupted {
        let status = end[id].status;
        if table.ends_with("/void") {
            assert_eq!(status, RoundStatus::Voided, "round {} at {table}", id.0);
        } else {
            assert_eq!(status, RoundStatus::Finished, "round {} at {table}", id.0);
        }
    }
    let replay = common::run(["replay", "--all"], &db, "");
    let out = common::stdout(&replay);
    assert!(replay.status.success(), "{out}{}", common::stderr(&replay));
    assert!(out.contains(" 0 differ"), "{out}");
    eprintln!(
        "{kills} kills, {} rounds interrupted, {played} bot rounds, {} rounds in the books; felt replay --all: {}",
        interrupted.len(),
        end.len(),
        out.lines().last().unwrap_or("")
    );
}
