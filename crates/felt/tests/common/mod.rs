//! Helpers shared by the `felt` end-to-end tests: running the binary with piped
//! standard input, and reading what it printed. Every run sets `FELT_DB`, so a test
//! never reads or writes the user's books.

// Each test file uses the part it needs.
#![allow(dead_code)]

use std::ffi::OsStr;
use std::io::Write;
use std::path::Path;
use std::process::{Child, Command, Output, Stdio};

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
