//! A writer killed with SIGKILL at arbitrary moments: whatever was committed is there,
//! the books balance, and at most the round in flight is open (and is recovered).
// Amounts are written as dollars_cents (100_00 is 100.00).
#![allow(clippy::inconsistent_digit_grouping)]

use felt_core::Money;
use felt_store::{
    Account, Movement, MovementKind as K, NewRound, RoundStatus, SqliteStore, Step, Store,
};
use std::path::Path;
use std::time::{Duration, Instant};

const CHILD_ENV: &str = "FELT_STORE_CRASH_CHILD";

fn play_forever(path: &Path) {
    let mut s = SqliteStore::open(path).expect("child open");
    // Recovery at start-up: void what a previous life left open.
    for r in s.unfinished_rounds().expect("unfinished") {
        s.void_round(r.id, "recovered after a crash", &r.reversal())
            .expect("void");
    }
    s.deposit("alice", Money::cents(1_000_000_00))
        .expect("deposit");
    let alice = Account::player("alice");
    let house = Account::house("t1");
    let started = Instant::now();
    let mut i: u32 = 0;
    while started.elapsed() < Duration::from_secs(20) {
        i = i.wrapping_add(1);
        let r = s
            .begin_round(&NewRound {
                game_id: "classic".into(),
                table_id: "t1".into(),
                seed: [u8::try_from(i % 251).unwrap_or(0); 32],
                shoe: s.shoe("t1").expect("shoe"),
                ..Default::default()
            })
            .expect("begin");
        s.record_step(
            r,
            &Step {
                action: Some(r#"{"bet":"1.00"}"#.into()),
                events: vec![r#"{"bet":1}"#.into()],
                movements: vec![Movement::new(
                    alice.clone(),
                    house.clone(),
                    Money::cents(1_00),
                    K::Wager,
                )],
                wallet: Vec::new(),
            },
        )
        .expect("bet");
        s.record_step(
            r,
            &Step {
                action: None,
                events: vec![r#"{"card":"Ah"}"#.into(), r#"{"card":"Kd"}"#.into()],
                movements: vec![],
                wallet: Vec::new(),
            },
        )
        .expect("deal");
        let last = Step {
            action: None,
            events: vec![r#"{"win":1}"#.into()],
            movements: if i.is_multiple_of(2) {
                vec![Movement::new(
                    house.clone(),
                    alice.clone(),
                    Money::cents(2_00),
                    K::Payout,
                )]
            } else {
                vec![]
            },
            wallet: Vec::new(),
        };
        s.finish_round(r, &last, "{}", Some(i.to_string().as_bytes()))
            .expect("finish");
    }
}

/// The child's body: does nothing unless the parent test started it.
#[test]
fn crash_child() {
    if let Some(path) = std::env::var_os(CHILD_ENV) {
        play_forever(Path::new(&path));
    }
}

#[cfg(unix)]
#[test]
fn sigkill_at_any_moment_loses_nothing_committed() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("felt.db");
    let exe = std::env::current_exe().unwrap();
    let mut finished_before = 0usize;
    for life in 0..4u64 {
        let mut child = std::process::Command::new(&exe)
            .args(["--exact", "crash_child", "--test-threads", "1"])
            .env(CHILD_ENV, &path)
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap();
        // Wait until this life has played a little, then kill it mid-stride.
        let t = Instant::now();
        loop {
            std::thread::sleep(Duration::from_millis(10));
            let played: usize = rusqlite::Connection::open_with_flags(
                &path,
                rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY,
            )
            .and_then(|c| c.query_row("SELECT COUNT(*) FROM rounds", [], |r| r.get(0)))
            .unwrap_or(0);
            if played > finished_before + 20 || t.elapsed() > Duration::from_secs(15) {
                break;
            }
        }
        std::thread::sleep(Duration::from_millis(3 + 7 * life));
        child.kill().unwrap(); // SIGKILL
        child.wait().unwrap();

        let s = SqliteStore::open(&path).unwrap();
        let report = s.check_books().unwrap();
        assert!(report.is_sound(), "life {life}: {report}");
        assert!(report.open_rounds.len() <= 1, "life {life}: {report}");
        let all = s.history(1_000_000).unwrap();
        assert!(all.len() > finished_before, "life {life} played");
        for r in &all {
            match r.status {
                RoundStatus::Finished => {
                    assert_eq!(r.steps.len(), 3, "round {}", r.id);
                    assert_eq!(r.events.len(), 4, "round {}", r.id);
                }
                RoundStatus::Voided => {
                    assert_eq!(r.net_for(&Account::player("alice")), Money::ZERO);
                }
                RoundStatus::Open => assert!(r.steps.len() <= 2),
            }
        }
        finished_before = all.len();
    }
}
