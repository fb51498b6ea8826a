//! `felt play` killed with SIGKILL at random moments, over and over, on every preset,
//! against one database: after each kill the books balance, the meters add up, no round
//! is lost or applied twice, and the next `felt play` completes what was left open.
//! Then every stored round is replayed through the engine (`felt replay --all`).
//!
//! Reproduce a run with `FELT_CRASH_SEED=<n>` (the seed is printed on failure).

#![cfg(unix)]

mod common;

use felt_core::Money;
use felt_store::{Account, RoundStatus, SqliteStore, Store};
use std::collections::BTreeMap;
use std::ffi::OsStr;
use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::Child;
use std::time::{Duration, Instant};

const PRESETS: [&str; 6] = [
    "classic",
    "lucky-7",
    "lucky-lucky",
    "blazing-7s",
    "blackjack-bonus",
    "lucky-ladies",
];
const KILLS_PER_PRESET: usize = 36;

/// A small deterministic generator (xorshift64*), so a failing run can be repeated.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

/// Answers that fit every prompt sooner or later: bets, side bets (yes/no or an
/// amount), decisions, insurance, even money, surrender. A refused answer is asked
/// again, so any stream of these plays on.
fn answers(rng: &mut Rng, n: usize) -> String {
    const WORDS: [&str; 16] = [
        "10", "5", "", "y", "n", "1", "2", "h", "s", "s", "d", "p", "r", "i", "e", "h",
    ];
    let mut s = String::new();
    for _ in 0..n {
        s.push_str(WORDS[rng.below(WORDS.len() as u64) as usize]);
        s.push('\n');
    }
    s
}

fn spawn_play(db: &Path, game: &str, player: &str, seats: u8, seed: u64, input: String) -> Child {
    let (seats, seed) = (seats.to_string(), seed.to_string());
    let args = [
        OsStr::new("play"),
        OsStr::new(game),
        OsStr::new("--db"),
        db.as_os_str(),
        OsStr::new("--player"),
        OsStr::new(player),
        OsStr::new("--bankroll"),
        OsStr::new("100000"),
        OsStr::new("--seats"),
        OsStr::new(&seats),
        OsStr::new("--seed"),
        OsStr::new(&seed),
    ];
    // The child may die before reading all its input: the helper ignores the broken pipe.
    common::spawn(args, db.with_extension("unused"), &input)
}

/// Everything that must hold after any crash.
fn audit(db: &Path, ctx: &str) -> BTreeMap<String, Vec<i64>> {
    let s = SqliteStore::open(db).unwrap_or_else(|e| panic!("{ctx}: open: {e}"));
    let report = s.check_books().unwrap();
    assert!(report.is_sound(), "{ctx}: {report}");
    assert_eq!(report.ledger_sum, Money::ZERO, "{ctx}");
    for m in s.meters().unwrap() {
        assert_eq!(
            m.amount,
            m.seeded + m.contributions - m.awards,
            "{ctx}: meter {}",
            m.id
        );
        assert!(m.amount >= Money::ZERO, "{ctx}: meter {}", m.id);
    }
    let total: Money = s.balances().unwrap().iter().map(|b| b.balance).sum();
    assert_eq!(total, Money::ZERO, "{ctx}: balances sum to zero");
    let rounds = s.history(usize::MAX).unwrap();
    // Round ids contiguous from 1: none lost.
    let mut ids: Vec<i64> = rounds.iter().map(|r| r.id.0).collect();
    ids.sort_unstable();
    assert!(
        ids.iter().enumerate().all(|(i, id)| *id == i as i64 + 1),
        "{ctx}: round ids not contiguous: {ids:?}"
    );
    let mut open: BTreeMap<String, Vec<i64>> = BTreeMap::new();
    for r in &rounds {
        let c = format!("{ctx}: round {} ({})", r.id, r.status);
        // Steps and events numbered 1, 2, ... without a gap or a repeat.
        assert!(
            r.steps
                .iter()
                .enumerate()
                .all(|(i, st)| st.seq as usize == i + 1),
            "{c}: steps {:?}",
            r.steps.iter().map(|s| s.seq).collect::<Vec<_>>()
        );
        assert!(
            r.events
                .iter()
                .enumerate()
                .all(|(i, e)| e.seq as usize == i + 1),
            "{c}: events"
        );
        let ended = r
            .events
            .iter()
            .filter(|e| e.json.contains("\"event\":\"round-ended\""))
            .count();
        match r.status {
            RoundStatus::Finished => {
                assert_eq!(ended, 1, "{c}: finished exactly once");
                assert!(
                    r.events
                        .last()
                        .is_some_and(|e| e.json.contains("round-ended")),
                    "{c}: nothing after the end"
                );
                assert!(r.result.is_some() && r.shoe_after.is_some(), "{c}");
            }
            RoundStatus::Voided => {
                assert_eq!(ended, 0, "{c}: a voided round never ended in the engine");
                assert!(r.void_reason.is_some(), "{c}");
            }
            RoundStatus::Open => {
                assert_eq!(ended, 0, "{c}");
                open.entry(r.table_id.clone()).or_default().push(r.id.0);
            }
        }
        if r.status != RoundStatus::Open {
            // Whatever a round put on the felt came off it.
            assert_eq!(
                r.net_for(&Account::felt(r.table_id.clone())),
                Money::ZERO,
                "{c}: felt not cleared"
            );
        }
        assert_eq!(
            r.seed_sha256,
            felt_store::seed_hash(&r.seed),
            "{c}: seed hash"
        );
    }
    for (table, ids) in &open {
        assert!(
            ids.len() <= 1,
            "{ctx}: table {table} has open rounds {ids:?}"
        );
        let newest = rounds
            .iter()
            .filter(|r| &r.table_id == table)
            .map(|r| r.id.0)
            .max();
        assert_eq!(
            Some(ids[0]),
            newest,
            "{ctx}: an open round is the table's newest"
        );
    }
    open
}

fn felt(db: &Path, args: &[&str]) -> std::process::Output {
    let mut all: Vec<&OsStr> = args.iter().map(|a| OsStr::new(*a)).collect();
    all.extend([OsStr::new("--db"), db.as_os_str()]);
    common::run(all, db.with_extension("unused"), "")
}

#[test]
fn sigkill_at_random_moments_on_every_preset_loses_nothing() {
    let seed: u64 = std::env::var("FELT_CRASH_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(0x5eed_f00d_d00d_2024);
    let mut rng = Rng(seed | 1);
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("felt.db");
    let started = Instant::now();
    let mut kills = 0usize;
    let mut resumed = 0usize;
    for game in PRESETS {
        let mut was_open: Option<i64> = None;
        for i in 0..KILLS_PER_PRESET {
            let ctx = format!("seed {seed}, {game}, life {i}");
            let seats = 1 + rng.below(2) as u8;
            let input = answers(&mut rng, 4000);
            let mut child = spawn_play(&db, game, "crash", seats, rng.next(), input);
            // Two lives in three die after a random number of output lines (each line
            // comes right after a commit), the third after a random time (during
            // start-up, recovery, or anywhere in a step).
            let lines = if rng.below(3) == 0 {
                0
            } else {
                1 + rng.below(160)
            };
            if lines == 0 {
                std::thread::sleep(Duration::from_millis(rng.below(60)));
            }
            let mut out = BufReader::new(child.stdout.take().unwrap());
            let mut seen = 0;
            let mut line = String::new();
            let mut transcript = String::new();
            while seen < lines {
                line.clear();
                match out.read_line(&mut line) {
                    Ok(0) | Err(_) => break,
                    Ok(_) => {
                        seen += 1;
                        if line.contains("resumes where it stopped") {
                            resumed += 1;
                        }
                        transcript.push_str(&line);
                    }
                }
            }
            let pause = rng.below(4);
            if pause > 0 {
                std::thread::sleep(Duration::from_micros(pause * 700));
            }
            child.kill().unwrap(); // SIGKILL
            let status = child.wait().unwrap();
            kills += 1;
            if status.code().is_some_and(|c| c != 0) {
                let mut err = String::new();
                let _ = std::io::Read::read_to_string(&mut child.stderr.take().unwrap(), &mut err);
                panic!("{ctx}: felt failed: {err}\n{transcript}");
            }
            let open = audit(&db, &ctx);
            let table = format!("{game}/crash");
            let now_open = open.get(&table).and_then(|v| v.first().copied());
            // A round left open by the previous life is completed (or voided) once the
            // next life gets past its start-up: never replaced by a second open round.
            if let (Some(prev), Some(now)) = (was_open, now_open) {
                assert!(
                    now >= prev,
                    "{ctx}: open round went back from {prev} to {now}"
                );
            }
            was_open = now_open;
            if i % 12 == 11 {
                let o = felt(&db, &["books", "--json"]);
                assert!(
                    o.status.success(),
                    "{ctx}: {}",
                    String::from_utf8_lossy(&o.stderr)
                );
                let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
                assert_eq!(v["sound"], true, "{ctx}");
            }
        }
        // A last life with plenty of input and a clean end completes what is open:
        // stand / decline until the table is back at a bet prompt, then leave.
        let tail = answers(&mut rng, 300) + &"s\nn\n".repeat(60) + "q\n";
        let mut child = spawn_play(&db, game, "crash", 1, rng.next(), tail);
        let _ = std::io::Read::read_to_end(&mut child.stdout.take().unwrap(), &mut Vec::new());
        assert!(child.wait().unwrap().success(), "{game}: the last life");
        let open = audit(&db, &format!("seed {seed}, {game}, after the last life"));
        assert!(
            !open.contains_key(&format!("{game}/crash")),
            "{game}: a round is still open after a clean session: {open:?}"
        );
    }
    // Every round, finished, voided or open, replays to its stored log.
    let o = felt(&db, &["replay", "--all"]);
    assert!(
        o.status.success(),
        "seed {seed}: {}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    );
    let s = SqliteStore::open(&db).unwrap();
    let rounds = s.history(usize::MAX).unwrap();
    let finished = rounds
        .iter()
        .filter(|r| r.status == RoundStatus::Finished)
        .count();
    assert!(kills >= 200, "{kills} kills");
    assert!(finished > 100, "only {finished} rounds finished");
    assert!(resumed > 10, "only {resumed} rounds resumed");
    eprintln!(
        "{kills} kills over {} presets in {:?}: {} rounds ({finished} finished), {resumed} resumed",
        PRESETS.len(),
        started.elapsed(),
        rounds.len()
    );
}

/// Two tables in two processes share the Blazing 7s meter: contributions and awards
/// interleave, and the meter stays exact (each step reads and moves the meter inside
/// its own transaction), and each table's rounds replay from the meter values they saw.
#[test]
fn two_processes_share_one_progressive_meter_exactly() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("felt.db");
    // Create the books first, so the two processes do not race to create the schema.
    let o = felt(&db, &["books"]);
    assert!(!o.status.success(), "no books yet");
    let mut rng = Rng(99);
    let mut warm = spawn_play(&db, "blazing-7s", "warm", 1, 1, "q\n".into());
    assert!(warm.wait().unwrap().success());
    let mut input = String::new();
    for _ in 0..60 {
        // Main bet, the Blazing 7s side bet, then stand or hit.
        input.push_str("5\ny\n");
        for _ in 0..6 {
            input.push_str(["s\n", "h\n", "n\n"][rng.below(3) as usize]);
        }
    }
    input.push_str("q\n");
    let kids: Vec<Child> = (0..2)
        .map(|i| {
            spawn_play(
                &db,
                "blazing-7s",
                &format!("p{i}"),
                2,
                10 + i,
                input.clone(),
            )
        })
        .collect();
    for mut k in kids {
        let _ = std::io::Read::read_to_end(&mut k.stdout.take().unwrap(), &mut Vec::new());
        let st = k.wait().unwrap();
        let mut err = String::new();
        let _ = std::io::Read::read_to_string(&mut k.stderr.take().unwrap(), &mut err);
        assert!(st.success(), "{err}");
    }
    audit(&db, "two processes");
    let s = SqliteStore::open(&db).unwrap();
    let m = s.meter("blazing-7s").unwrap().unwrap();
    let rounds = s.history(usize::MAX).unwrap();
    // Every contribution in the journal is in the meter, once.
    let contributed: Money = rounds
        .iter()
        .flat_map(|r| &r.movements)
        .filter(|m| m.movement.kind == felt_store::MovementKind::Contribution)
        .map(|m| m.movement.amount)
        .sum();
    assert_eq!(m.contributions, contributed);
    assert!(contributed > Money::ZERO);
    let tables: std::collections::BTreeSet<&str> =
        rounds.iter().map(|r| r.table_id.as_str()).collect();
    assert!(tables.contains("blazing-7s/p0") && tables.contains("blazing-7s/p1"));
    let o = felt(&db, &["replay", "--all"]);
    assert!(
        o.status.success(),
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    );
}
