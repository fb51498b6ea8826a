//! The run: the reference operator with faults switched at random, `felt serve
//! --wallet` (one on SQLite, or several over one PostgreSQL database), players at
//! every table launched by the operator's links, and servers killed with SIGKILL at
//! random moments and started again over the same books; then the players stop, the
//! faults clear, the outbox settles, the servers stop cleanly, and [`super::checks`]
//! and `felt books` and `felt replay --all` judge the books.

use super::checks::{self, Counts, OperatorBooks};
use super::demo::{Operator, SECRET};
use super::operator::Injector;
use super::player::{host_of, Bot, Tally};
use crate::common;
use felt_store::{BooksAt, RoundStatus, WalletQuery, WalletState};
use rand::{Rng, SeedableRng};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Child;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// How long the outbox may take to settle once the faults are cleared: a credit
/// whose answer was lost four times in a row waits 16 s (±20%) for its next send.
pub const SETTLE: Duration = Duration::from_secs(90);

/// Players per table.
const PLAYERS: usize = 2;

/// A player's balance at the operator at the start (cents); the last player of all
/// has only a few bets' worth, and is refused `insufficient-funds` in the end.
const BALANCE: i64 = 5_000_00;
const SHORT_BALANCE: i64 = 40_00;

/// A number from the environment, or `default`.
pub fn env_or(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// What a run is given.
pub struct Harness {
    /// felt's books.
    pub books: BooksAt,
    /// `felt serve` processes over them.
    pub servers: usize,
    /// Tables (Blazing 7s, Lucky Ladies and Classic in turn).
    pub tables: usize,
    /// SIGKILLs.
    pub kills: u64,
    /// The seed of the kill moments, the faults and the players' choices.
    pub seed: u64,
}

/// What a run did.
#[derive(Debug)]
pub struct Figures {
    /// Kills.
    pub kills: u64,
    /// Spells of each fault.
    pub spells: BTreeMap<&'static str, u32>,
    /// The books' rounds and calls.
    pub counts: Counts,
    /// The players' bets, decisions, refusals and launches again, summed.
    pub tally: Tally,
    /// At each kill: the rounds open and the wallet calls pending in the books.
    pub caught: Vec<(usize, usize)>,
    /// How long the outbox took to settle.
    pub settle: Duration,
    /// The whole run.
    pub took: Duration,
}

/// Prints the seed, and the servers' warnings and errors, if the run fails.
struct SeedOnFailure {
    seed: u64,
    log: PathBuf,
}

impl Drop for SeedOnFailure {
    fn drop(&mut self) {
        if std::thread::panicking() {
            let log = std::fs::read_to_string(&self.log).unwrap_or_default();
            for line in log
                .lines()
                .filter(|l| l.contains("WARN") || l.contains("ERROR"))
            {
                eprintln!("{line}");
            }
            let seed = self.seed;
            eprintln!("the fault harness failed: run it again with FELT_FAULT_SEED={seed}");
        }
    }
}

/// The tables file: `n` tables, short timers.
fn tables_file(dir: &Path, n: usize) -> (PathBuf, Vec<String>) {
    let games = ["blazing-7s", "lucky-ladies", "classic"];
    let timers = "betting_secs = 5\ndecision_secs = 3\npause_ms = 0\n";
    let mut names = Vec::new();
    let mut text = String::new();
    for i in 0..n {
        let game = games[i % games.len()];
        let name = format!("{game}-{i}");
        text += &format!("[[table]]\nname = \"{name}\"\ngame = \"{game}\"\n{timers}\n");
        names.push(name);
    }
    let path = dir.join("tables.toml");
    std::fs::write(&path, text).expect("the tables file is written");
    (path, names)
}

/// Waits (at most a minute) until the lobby of `servers` shows every table dealt by
/// a live server.
fn wait_dealt(rt: &tokio::runtime::Runtime, servers: &[String], tables: &[String]) {
    let began = Instant::now();
    for t in tables {
        while rt.block_on(host_of(servers, t)).is_none() {
            assert!(
                began.elapsed() < Duration::from_secs(60),
                "no live server deals {t}"
            );
            std::thread::sleep(Duration::from_millis(100));
        }
    }
}

/// The rounds open and the calls pending in the books now.
fn in_flight(at: &BooksAt) -> (usize, usize) {
    let books = felt_store::open_books_read_only(at).expect("felt's books open");
    let open = books
        .history(usize::MAX)
        .expect("the rounds")
        .iter()
        .filter(|r| r.status == RoundStatus::Open)
        .count();
    let pending = books
        .wallet_calls(&WalletQuery {
            state: Some(WalletState::Pending),
            ..WalletQuery::default()
        })
        .expect("the outbox")
        .len();
    (open, pending)
}

/// What is not settled yet: pending calls, or open rounds.
fn unsettled(at: &BooksAt) -> Option<String> {
    let books = felt_store::open_books_read_only(at).ok()?;
    let pending = books
        .wallet_calls(&WalletQuery {
            state: Some(WalletState::Pending),
            ..WalletQuery::default()
        })
        .ok()?;
    if !pending.is_empty() {
        let ids: Vec<&str> = pending.iter().map(|c| c.transaction_id.as_str()).collect();
        return Some(format!("pending calls {ids:?}"));
    }
    let open: Vec<i64> = books
        .history(usize::MAX)
        .ok()?
        .iter()
        .filter(|r| r.status == RoundStatus::Open)
        .map(|r| r.id.0)
        .collect();
    (!open.is_empty()).then(|| format!("open rounds {open:?}"))
}

/// Waits until the books have no pending call and no open round; how long it took.
fn settle(at: &BooksAt) -> Duration {
    let began = Instant::now();
    while let Some(what) = unsettled(at) {
        assert!(
            began.elapsed() < SETTLE,
            "not settled after {} s: {what}",
            SETTLE.as_secs()
        );
        std::thread::sleep(Duration::from_millis(250));
    }
    began.elapsed()
}

/// Runs `felt ARGS --db BOOKS`; its standard output, the run having succeeded.
fn felt_cli(args: &[&str], books: &str) -> String {
    let mut all = args.to_vec();
    all.extend(["--db", books]);
    let o = common::run(&all, common::NO_DB, "");
    let out = common::stdout(&o);
    assert!(
        o.status.success(),
        "felt {all:?}:\n{out}{}",
        common::stderr(&o)
    );
    out
}

/// The operator's books as the run left them.
fn operator_books(
    rt: &tokio::runtime::Runtime,
    op: &Operator,
    starts: &BTreeMap<String, i64>,
) -> OperatorBooks {
    let mut balances = BTreeMap::new();
    for (p, start) in starts {
        balances.insert(p.clone(), (*start, rt.block_on(op.balance(p)).as_cents()));
    }
    OperatorBooks {
        ledger: rt.block_on(op.ledger()),
        transactions: rt
            .block_on(op.wallet.with_books(|b| b.transactions()))
            .expect("the operator's transactions"),
        balances,
    }
}

/// `felt serve --wallet` on `port`.
fn serve(books: &str, tables: &Path, port: u16, log: &Path, wallet: &[&str]) -> Child {
    common::serve(books, tables, port, log, wallet)
}

/// Runs the harness; panics (printing the seed) on anything that does not hold.
pub fn run(h: Harness) -> Figures {
    let began = Instant::now();
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(h.seed);
    let dir = tempfile::tempdir().expect("a temporary directory");
    let log = dir.path().join("serve.log");
    let _say = SeedOnFailure {
        seed: h.seed,
        log: log.clone(),
    };
    let (tables, names) = tables_file(dir.path(), h.tables);
    let rt = super::runtime();
    let mut seats: Vec<(String, String, i64)> = Vec::new();
    for (t, table) in names.iter().enumerate() {
        for i in 0..PLAYERS {
            seats.push((format!("p-{t}-{i}"), table.clone(), BALANCE));
        }
    }
    if let Some(last) = seats.last_mut() {
        last.2 = SHORT_BALANCE;
    }
    let named: Vec<(&str, &str, i64)> =
        seats.iter().map(|(p, _, c)| (&p[..], &p[..], *c)).collect();
    let op = Arc::new(rt.block_on(Operator::start(&named)));
    let starts: BTreeMap<String, i64> = seats.iter().map(|(p, _, c)| (p.clone(), *c)).collect();
    let secret = dir.path().join("wallet.secret");
    std::fs::write(&secret, SECRET).expect("the secret file is written");
    let secret = secret.to_str().expect("a UTF-8 path").to_string();
    let wallet = ["--wallet", &op.url, "--wallet-secret-file", &secret];
    let books = h.books.db_value();
    let ports: Vec<u16> = (0..h.servers).map(|_| common::free_port()).collect();
    let mut children: Vec<Option<Child>> = ports
        .iter()
        .map(|p| Some(serve(&books, &tables, *p, &log, &wallet)))
        .collect();
    let urls: Vec<String> = ports
        .iter()
        .map(|p| format!("http://127.0.0.1:{p}"))
        .collect();
    wait_dealt(&rt, &urls, &names);

    let injector = Injector::start(op.wallet.clone(), h.seed.wrapping_add(1));
    let stop = Arc::new(AtomicBool::new(false));
    let bots: Vec<_> = seats
        .iter()
        .enumerate()
        .map(|(i, (p, t, _))| {
            let bot = Bot::new(p, t, &urls, h.seed.wrapping_add(2 + i as u64));
            rt.spawn(bot.play(op.clone(), stop.clone()))
        })
        .collect();
    let mut caught = Vec::new();
    for _ in 0..h.kills {
        std::thread::sleep(Duration::from_millis(rng.gen_range(1_500..4_000)));
        let victim = rng.gen_range(0..children.len());
        let mut child = children[victim].take().expect("a live server");
        child.kill().expect("SIGKILL");
        child.wait().expect("the killed server is reaped");
        let (open, pending) = in_flight(&h.books);
        caught.push((open, pending));
        if h.servers > 1 {
            // The others take its tables over before it comes back.
            let live: Vec<String> = (0..urls.len())
                .filter(|i| *i != victim)
                .map(|i| urls[i].clone())
                .collect();
            wait_dealt(&rt, &live, &names);
        }
        children[victim] = Some(serve(&books, &tables, ports[victim], &log, &wallet));
    }
    std::thread::sleep(Duration::from_millis(rng.gen_range(1_000..3_000)));
    stop.store(true, Ordering::Relaxed);
    let mut tally = Tally::default();
    for b in bots {
        let t = rt.block_on(b).expect("a player ends");
        tally.bets += t.bets;
        tally.decisions += t.decisions;
        tally.relaunches += t.relaunches;
        for (code, n) in t.refusals {
            *tally.refusals.entry(code).or_insert(0) += n;
        }
        for (why, n) in t.drops {
            *tally.drops.entry(why).or_insert(0) += n;
        }
        for (why, n) in t.launch_failures {
            *tally.launch_failures.entry(why).or_insert(0) += n;
        }
    }
    let spells = injector.stop();
    let settled_in = settle(&h.books);
    for c in children.iter_mut() {
        common::stop_cleanly(c.take().expect("a live server"), &log);
    }
    let counts = checks::settled(&h.books, &operator_books(&rt, &op, &starts));
    felt_cli(&["books"], &books);
    let replay = felt_cli(&["replay", "--all"], &books);
    assert!(replay.contains(" 0 differ"), "{replay}");
    let figures = Figures {
        kills: h.kills,
        caught,
        spells,
        counts,
        tally,
        settle: settled_in,
        took: began.elapsed(),
    };
    eprintln!(
        "{} server(s), {} tables, seed {}: {figures:#?}",
        h.servers, h.tables, h.seed
    );
    figures
}
