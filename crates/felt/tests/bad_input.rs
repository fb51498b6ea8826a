//! Bad input is bounded: an over-long answer line, invalid UTF-8 on standard input, a
//! rules or shoe file that is too big or never ends, a file-size limit, and player
//! names that look alike. Each is a clear message, in bounded memory, and changes
//! nothing in the books it should not.
#![cfg(unix)]

mod common;

use common::{stderr, stdout};
use std::io::Write;
use std::path::Path;
use std::process::{Command, Output, Stdio};

/// Runs `felt ARGS` under `sh` with an address-space limit of `limit_kib` (so a run
/// that tries to hold a huge input fails fast instead of filling the machine's memory),
/// feeding `input` (a list of chunks, written in turn) from a thread.
fn limited(limit_kib: u64, args: &[&str], input: Vec<Vec<u8>>) -> Output {
    let quoted: Vec<String> = args
        .iter()
        .map(|a| format!("'{}'", a.replace('\'', "'\\''")))
        .collect();
    let script = format!(
        "ulimit -v {limit_kib} || exit 99; exec '{}' {}",
        env!("CARGO_BIN_EXE_felt"),
        quoted.join(" ")
    );
    let mut child = Command::new("sh")
        .args(["-c", &script])
        .env("FELT_DB", common::NO_DB)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("sh runs");
    let mut stdin = child.stdin.take().unwrap();
    std::thread::spawn(move || {
        for chunk in input {
            if stdin.write_all(&chunk).is_err() {
                break;
            }
        }
    });
    let o = child.wait_with_output().unwrap();
    assert_ne!(o.status.code(), Some(99), "ulimit -v is not available");
    o
}

/// 256 MiB of address space: a table session needs a few MiB.
const LIMIT_KIB: u64 = 256 * 1024;

fn db_arg(db: &Path) -> &str {
    db.to_str().expect("utf-8 temp path")
}

fn books_json(db: &Path) -> serde_json::Value {
    let o = common::run(["books", "--json", "--db", db_arg(db)], common::NO_DB, "");
    assert!(o.status.success(), "{}", stderr(&o));
    serde_json::from_str(&stdout(&o)).unwrap()
}

fn players(db: &Path) -> Vec<(String, String)> {
    books_json(db)["balances"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|b| b["account"]["kind"] == "player")
        .map(|b| {
            (
                b["account"]["name"].as_str().unwrap().to_string(),
                b["balance"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

#[test]
fn an_over_long_answer_is_refused_and_asked_again_in_bounded_memory() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("felt.db");
    // A 300 MiB line (more than the whole address space the run may use), a line just
    // over the limit, then a bet of 10, a stand, and q.
    let mut input: Vec<Vec<u8>> = (0..300).map(|_| vec![b'7'; 1 << 20]).collect();
    input.push(b"\n".to_vec());
    input.push(format!("{}\n", "1".repeat(4097)).into_bytes());
    input.push(b"10\nn\ns\nq\n".to_vec());
    let o = limited(
        LIMIT_KIB,
        &["play", "classic", "--seed", "1", "--db", db_arg(&db)],
        input,
    );
    let (t, e) = (stdout(&o), stderr(&o));
    assert_eq!(o.status.code(), Some(0), "{e}");
    assert_eq!(
        t.matches("! an answer is at most 4096 bytes").count(),
        2,
        "both long lines refused:\n{}",
        &t[..t.len().min(4000)]
    );
    assert!(t.contains("main bet"), "{t}");
    assert!(
        t.contains("Seat 1 balance"),
        "the bet of 10 was taken and played:\n{t}"
    );
    assert!(t.contains("leaves the table with"), "{t}");
}

#[test]
fn invalid_utf8_on_standard_input_is_refused_naming_the_line() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("felt.db");
    let o = limited(
        LIMIT_KIB,
        &["play", "classic", "--seed", "1", "--db", db_arg(&db)],
        vec![b"1\xff0\n10\nn\ns\nq\n".to_vec()],
    );
    let (t, e) = (stdout(&o), stderr(&o));
    assert_eq!(o.status.code(), Some(0), "{e}");
    assert!(
        t.contains("! line 1 of the input is not UTF-8 text (byte 0xFF at position 2)"),
        "{t}"
    );
    assert!(
        t.contains("Seat 1 balance"),
        "asked again, then played:\n{t}"
    );
    // Input that ends after it still leaves the table (and says why it asked again).
    let o = limited(
        LIMIT_KIB,
        &["play", "classic", "--seed", "1", "--db", db_arg(&db)],
        vec![b"\xc3\x28\n".to_vec()],
    );
    let t = stdout(&o);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(t.contains("line 1 of the input is not UTF-8 text"), "{t}");
    assert!(t.contains("leaves the table with"), "{t}");
}

/// Runs `felt ARGS` (under the memory limit, with nothing on standard input) and
/// expects a refusal; returns the message.
fn refused(args: &[&str]) -> String {
    let o = limited(LIMIT_KIB, args, vec![]);
    let e = stderr(&o);
    assert_eq!(o.status.code(), Some(1), "{args:?}: {e}");
    assert!(!e.contains("panicked"), "{e}");
    e
}

#[test]
fn a_rules_file_too_big_or_endless_is_refused_naming_it_and_the_limit() {
    let dir = tempfile::tempdir().unwrap();
    let big = dir.path().join("big.toml");
    let classic = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../games/classic.toml"),
    )
    .unwrap();
    // A valid rules file padded with comments past 1 MiB.
    let mut text = classic.clone();
    while text.len() <= 1 << 20 {
        text.push_str("# padding padding padding padding padding padding padding\n");
    }
    std::fs::write(&big, &text).unwrap();
    let big_arg = big.to_str().unwrap();
    for args in [
        vec!["rules", big_arg],
        vec!["rules", "/dev/zero"],
        vec!["edge", "/dev/zero"],
    ] {
        let e = refused(&args);
        assert!(
            e.contains(&format!("the rules file {}", args[1])) && e.contains("1 MiB"),
            "{args:?}: {e}"
        );
    }
    // Just under the limit is fine.
    let ok = dir.path().join("ok.toml");
    std::fs::write(&ok, &text[..text.len() - 200]).unwrap();
    let o = limited(LIMIT_KIB, &["rules", ok.to_str().unwrap()], vec![]);
    assert!(o.status.success(), "{}", stderr(&o));
}

#[test]
fn a_shoe_file_too_big_or_endless_is_refused_and_the_books_are_untouched() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("felt.db");
    common::run(
        ["play", "classic", "--seed", "1", "--db", db_arg(&db)],
        common::NO_DB,
        "q\n",
    );
    let before = books_json(&db);
    let big = dir.path().join("shoe.txt");
    std::fs::write(&big, "7h ".repeat(400_000)).unwrap();
    for shoe in [big.to_str().unwrap(), "/dev/zero"] {
        let e = refused(&[
            "play",
            "classic",
            "--seed",
            "2",
            "--db",
            db_arg(&db),
            "--shoe",
            shoe,
        ]);
        assert!(
            e.contains(&format!("the shoe file {shoe}")) && e.contains("1 MiB"),
            "{shoe}: {e}"
        );
    }
    assert_eq!(books_json(&db), before);
}

#[test]
fn player_names_that_look_the_same_are_one_wallet_or_refused() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("felt.db");
    let play = |player: &str| {
        common::run(
            [
                "play",
                "classic",
                "--seed",
                "1",
                "--db",
                db_arg(&db),
                "--player",
                player,
                "--deposit",
                "1",
            ],
            common::NO_DB,
            "q\n",
        )
    };
    for name in ["alice", "alice ", "alice\u{a0}", "\u{ff41}lice", " alice\t"] {
        let o = play(name);
        assert!(o.status.success(), "{name:?}: {}", stderr(&o));
        assert!(
            stdout(&o).contains("Books: ") && stdout(&o).contains("(table classic/alice;"),
            "{name:?}: {}",
            stdout(&o)
        );
    }
    assert_eq!(
        players(&db),
        vec![("alice".to_string(), "1005.00".to_string())]
    );
    let before = books_json(&db);
    for (name, says) in [
        ("ali\u{200b}ce", "U+200B ZERO WIDTH SPACE at position 4"),
        (
            "\u{202e}ecila",
            "U+202E RIGHT-TO-LEFT OVERRIDE at position 1",
        ),
        (
            "alice\u{2069}",
            "U+2069 POP DIRECTIONAL ISOLATE at position 6",
        ),
        ("al\u{1b}ice", "U+001B ESCAPE at position 3"),
    ] {
        let o = play(name);
        let e = stderr(&o);
        assert_eq!(o.status.code(), Some(1), "{name:?}: {e}");
        assert!(e.contains("--player") && e.contains(says), "{name:?}: {e}");
    }
    assert_eq!(books_json(&db), before, "nothing was written");
}
