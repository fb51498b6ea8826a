//! Helpers shared by the `felt` end-to-end tests: running the binary with piped
//! standard input, and reading what it printed. Every run sets `FELT_DB`, so a test
//! never reads or writes the user's books.

// Each test file uses the part it needs.
#![allow(dead_code)]

use std::ffi::OsStr;
use std::io::{Read, Write};
use std::net::TcpStream;
use std::path::Path;
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

/// A `FELT_DB` for runs that must not use any books: the path cannot be created.
pub const NO_DB: &str = "/nonexistent/felt-tests-must-pass---db.db";

/// The `felt` binary with `args`, `FELT_DB` set to `felt_db`, and standard input,
/// output and error piped.
pub fn command<I, S>(args: I, felt_db: impl AsRef<Path>) -> Command
where
    I: IntoIterator<Item = S>,
    S: AsRef<OsStr>,
{
    let mut c = Command::new(env!("CARGO_BIN_EXE_felt"));
    c.args(args)
        .env("FELT_DB", felt_db.as_ref())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    c
}

/// Starts `felt` and feeds it `input` from a thread (so a long input and a long output
/// cannot block each other). The child may stop reading early (an error at start-up,
/// a kill): the broken pipe is ignored.
pub fn spawn<I, S>(args: I, felt_db: impl AsRef<Path>, input: &str) -> Child
where
    I: IntoIterator<Item = S>,
    S: AsRef<OsStr>,
{
    let mut child = command(args, felt_db).spawn().expect("felt runs");
    let mut stdin = child.stdin.take().expect("stdin");
    let input = input.to_string();
    std::thread::spawn(move || {
        let _ = stdin.write_all(input.as_bytes());
    });
    child
}

/// Runs `felt` on `input` to its end.
pub fn run<I, S>(args: I, felt_db: impl AsRef<Path>, input: &str) -> Output
where
    I: IntoIterator<Item = S>,
    S: AsRef<OsStr>,
{
    spawn(args, felt_db, input)
        .wait_with_output()
        .expect("felt ends")
}

/// What the run printed on standard output.
pub fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

/// What the run printed on standard error.
pub fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// `felt play GAME --seed 1 --shoe FILE EXTRA... --db DB`, dealing `cards` (written to
/// a file beside `db`) first: the standard output of a run that must succeed.
pub fn play_stacked(db: &Path, game: &str, cards: &str, extra: &[&str], input: &str) -> String {
    let shoe = db.with_extension("shoe");
    std::fs::write(&shoe, cards).expect("the shoe file is written");
    let mut args = vec!["play", game, "--seed", "1", "--shoe"];
    args.push(shoe.to_str().expect("utf-8 temp path"));
    args.extend(extra);
    args.extend(["--db", db.to_str().expect("utf-8 temp path")]);
    let o = run(&args, NO_DB, input);
    assert!(
        o.status.success(),
        "felt {args:?}\nstdout:\n{}\nstderr:\n{}",
        stdout(&o),
        stderr(&o)
    );
    stdout(&o)
}

/// A loopback port free at the moment.
pub fn free_port() -> u16 {
    let l = std::net::TcpListener::bind("127.0.0.1:0").expect("a free port");
    l.local_addr().expect("its address").port()
}

/// Starts `felt serve` on 127.0.0.1:`port` with the books `books` (a file or a
/// `postgres://` URL), the tables file `tables`, 2 s leases, the server id
/// `server-PORT` and `extra` options, appending its output to `log`; returns once
/// `/healthz` answers (at most a minute).
pub fn serve(books: &str, tables: &Path, port: u16, log: &Path, extra: &[&str]) -> Child {
    let log = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(log)
        .expect("the server log opens");
    let child = Command::new(env!("CARGO_BIN_EXE_felt"))
        .args(["serve", "--addr", &format!("127.0.0.1:{port}"), "--tables"])
        .arg(tables)
        .args(["--db", books])
        .args(["--grace-secs", "10", "--lease-secs", "2"])
        .args(["--server-id", &format!("server-{port}")])
        // The bots all register from this machine.
        .args(["--registrations-per-hour", "100000"])
        .args(["--sockets-per-address", "100000"])
        .args(extra)
        .stdin(Stdio::null())
        .stdout(log.try_clone().expect("the log again"))
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

/// Whether the server on `port` answers `/healthz` with 200.
pub fn healthy(port: u16) -> bool {
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

/// Stops a `felt serve` with SIGTERM and checks it ends with exit 0 (`log` is shown
/// if not).
pub fn stop_cleanly(mut child: Child, log: &Path) {
    let term = Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status()
        .expect("kill runs");
    assert!(term.success());
    let status = child.wait().expect("felt serve ends");
    let logged = std::fs::read_to_string(log).unwrap_or_default();
    assert!(status.success(), "felt serve ended {status}: {logged}");
}

/// A one-deck classic game whose cut card comes out after half the deck: a shoe is
/// retired every few rounds.
pub fn short_shoe_rules(dir: &Path) -> std::path::PathBuf {
    let text = include_str!("../../../../games/classic.toml")
        .replace("decks = 6 ", "decks = 1 ")
        .replace("penetration = 0.75", "penetration = 0.5")
        .replace("seats = 7", "seats = 1");
    let p = dir.join("short-shoe.toml");
    std::fs::write(&p, text).unwrap();
    p
}
