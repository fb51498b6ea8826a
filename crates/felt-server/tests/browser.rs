//! The browser table end to end, in a real browser: `scripts/browser-setup` installs
//! Debian's Chromium (when missing) and `e2e/node_modules` (`npm ci`), a server in test
//! mode (stacked shoes) runs here on 127.0.0.1, and `node e2e/run.mjs` drives the
//! pages with playwright-core. Any failure fails this test: setup included, never a
//! silent skip. Afterwards the books must balance, every round must replay identical
//! to its log, and every round dealt must carry the test lab's mark.
//!
//! Screenshots go to `target/e2e/`. `FELT_E2E_FILTER=NAME` runs only the browser tests
//! whose name contains NAME.

mod common;

use felt_server::app::{self, Server, Settings};
use felt_server::config;
use felt_store::{SqliteStore, Store};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn preset(name: &str) -> Result<felt_core::Rules, String> {
    match felt_core::presets::load(name) {
        Some(r) => r.map_err(|e| e.to_string()),
        None => Err(format!("no game `{name}`")),
    }
}

/// The tables the browser tests play at: one per preset (named as the preset) and one
/// per scenario.
fn tables() -> String {
    let mut t: Vec<(String, &str)> = felt_core::presets::names()
        .map(|n| (n.to_string(), n))
        .collect();
    for (name, game) in [
        ("ll-split", "lucky-ladies"),
        ("ll-surrender", "lucky-ladies"),
        ("ll-queens", "lucky-ladies"),
        ("c-insurance", "classic"),
        ("c-even", "classic"),
        ("c-offers", "classic"),
        ("l7-sevens", "lucky-7"),
        ("b7-jackpot", "blazing-7s"),
        ("two", "classic"),
        ("reload", "classic"),
        ("drop", "classic"),
        ("keys", "classic"),
        ("keys-other", "classic"),
        ("spots", "classic"),
        ("closing", "classic"),
        ("axe-desktop", "lucky-ladies"),
        ("axe-phone", "lucky-ladies"),
        ("pace", "classic"),
        ("words-a", "classic"),
        ("words-b", "classic"),
        ("sound", "classic"),
        ("old-server", "classic"),
        ("pic-desktop", "lucky-ladies"),
        ("pic-phone", "lucky-ladies"),
        ("fit-phone-s", "classic"),
        ("fit-phone", "classic"),
        ("fit-laptop", "classic"),
        ("fit-desktop", "classic"),
        ("chips", "lucky-lucky"),
        ("speech", "classic"),
        ("broke-d", "classic"),
        ("broke-p", "classic"),
        ("social", "classic"),
        ("leaver", "classic"),
        ("hint-d", "classic"),
        ("hint-p", "classic"),
        ("rc-desk", "classic"),
        ("rc-desk2", "classic"),
        ("rc-d", "classic"),
        ("rc-p", "classic"),
        ("rc-u", "classic"),
        ("limits-p", "classic"),
        ("limits-d", "classic"),
    ] {
        t.push((name.to_string(), game));
    }
    t.iter()
        .map(|(name, game)| (name.as_str(), *game, 1500, 120))
        // A newcomer sits during the pause after a round: a longer one.
        .chain([("stay", "classic", 6000, 120)])
        // Chips left on the layout when a short betting window closes.
        .chain([
            ("bets-close", "classic", 1500, 8),
            ("bets-void", "lucky-ladies", 1500, 8),
        ])
        .map(|(name, game, pause, betting)| {
            format!(
                "[[table]]\nname = \"{name}\"\ngame = \"{game}\"\nbetting_secs = {betting}\n\
                 decision_secs = 120\npause_ms = {pause}\n"
            )
        })
        .collect()
}

/// The expected value of each choice of hard 16 (Tc 6d) against a ten at Classic, as
/// felt-math computes it: what the page's hint must show (e2e `the hint on request`).
fn hint_expected() -> String {
    use felt_core::round::Decisions;
    let rules = preset("classic").unwrap();
    let mapped = felt_math::mapping::main_game_rules(&rules, rules.shoe().decks);
    let strategy = felt_math::main_game::analyse(&mapped.main)
        .unwrap()
        .basic_strategy;
    let all = Decisions(
        Decisions::HIT.0
            | Decisions::STAND.0
            | Decisions::DOUBLE.0
            | Decisions::SPLIT.0
            | Decisions::SURRENDER.0,
    );
    let cards = felt_core::card::parse_cards("Tc 6d").unwrap();
    let up = "Ts".parse().unwrap();
    let Some(felt_math::hint::Hint::Hand(h)) =
        felt_math::hint::hint(&strategy, rules.dealer().peek, &cards, up, all)
    else {
        panic!("no hint for hard 16 against a ten");
    };
    let values: serde_json::Map<String, serde_json::Value> = h
        .values
        .iter()
        .map(|(a, v)| (a.word().to_string(), serde_json::json!(v)))
        .collect();
    serde_json::Value::Object(values).to_string()
}

/// Serves `state` on `listener` until the sender is used.
fn serve(
    rt: &tokio::runtime::Runtime,
    listener: tokio::net::TcpListener,
    state: felt_server::app::Shared,
) -> (
    tokio::sync::oneshot::Sender<()>,
    tokio::task::JoinHandle<std::io::Result<()>>,
) {
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let server = rt.spawn(app::serve(
        listener,
        state,
        async move {
            let _ = stopped.await;
        },
        Duration::from_secs(5),
    ));
    (stop, server)
}

/// A second server, its tables' money through the reference operator's wallet (in
/// this process): the scenarios of `e2e/wallet.mjs`, its players arriving by the
/// operator's launch links.
struct WalletSide {
    op: common::demo::Operator,
    db: PathBuf,
    stop: tokio::sync::oneshot::Sender<()>,
    server: tokio::task::JoinHandle<std::io::Result<()>>,
    /// The variables `e2e/wallet.mjs` reads.
    env: Vec<(&'static str, String)>,
}

fn wallet_side(rt: &tokio::runtime::Runtime, dir: &Path) -> WalletSide {
    use common::demo::{Operator, SECRET};
    use felt_core::Money;
    // Each scenario's player may wager 15.00 in all: one 10.00 bet, not two (the
    // reality-check scenario's player has no limit).
    let scenarios = [
        ("phone", "p-phone", "w-phone"),
        ("desktop", "p-desk", "w-desk"),
        ("protection", "p-rc", "w-rc"),
    ];
    let players: Vec<(&str, &str, i64)> = scenarios.iter().map(|s| (s.1, s.1, 25_000)).collect();
    let op = rt.block_on(Operator::start(&players));
    for (_, player, _) in &scenarios[..2] {
        let p = player.to_string();
        rt.block_on(
            op.wallet
                .with_books(move |b| b.set_wager_limit(&p, Some(Money::cents(1_500)))),
        )
        .unwrap();
    }
    let db = dir.join("felt-wallet.db");
    let tables: String = scenarios
        .iter()
        .map(|(_, _, t)| {
            format!("[[table]]\nname = \"{t}\"\ngame = \"classic\"\nbetting_secs = 120\ndecision_secs = 120\npause_ms = 1500\n")
        })
        .collect();
    let cfg = config::parse(&tables, Path::new("wallet-tables.toml"), &preset).unwrap();
    // The staff login that moves this server's clock (test mode), for a reality check
    // a minute after the launch.
    let staff_password = "wallet-staff-secret-e2e";
    SqliteStore::open(&db)
        .unwrap()
        .create_login(&felt_store::NewLogin {
            name: "wanda",
            password_hash: &felt_server::auth::hash_password(staff_password).unwrap(),
            role: felt_store::Role::Operator,
            starting_balance: Money::ZERO,
            now_ms: 0,
        })
        .unwrap();
    let mut settings = Settings {
        test_shoes: true,
        ..Settings::default()
    };
    settings.protection.reality = felt_server::reality::RealityPolicy::new(60, 1, 60).unwrap();
    let mode = felt_server::wallet::table::WalletMode {
        settings: op.settings(SECRET, Duration::from_secs(5)),
        runtime: rt.handle().clone(),
        outbox: Box::new(SqliteStore::open(&db).unwrap()),
        policy: felt_server::wallet::outbox::RetryPolicy::default(),
        every: Duration::from_millis(200),
    };
    let listener = rt
        .block_on(tokio::net::TcpListener::bind("127.0.0.1:0"))
        .unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    let books = felt_server::app::BooksSetup {
        store: Box::new(SqliteStore::open(&db).unwrap()),
        readers: Some(felt_server::books::sqlite_readers(db.clone())),
        changes: None,
    };
    let hosting = felt_server::hosting::Hosting::new("browser-wallet", url.clone());
    let state = rt
        .block_on(async { Server::start_with_wallet(books, cfg, settings, hosting, Some(mode)) })
        .unwrap();
    let (stop, server) = serve(rt, listener, state);
    // The browser tests may take a while to reach these: links valid for an hour.
    let expires = felt_server::wallet::signature::unix_now() + 3600;
    let mut links = serde_json::Map::new();
    for (label, player, table) in scenarios {
        let p = player.to_string();
        let token = rt
            .block_on(op.wallet.with_books(move |b| b.launch_token(&p, expires)))
            .unwrap();
        let link = felt_server::operator_demo::launch_link(&url, &token, table).unwrap();
        links.insert(
            label.to_string(),
            serde_json::json!({"player": player, "table": table, "link": link}),
        );
    }
    let env = vec![
        ("FELT_WALLET_URL", url),
        ("FELT_WALLET_OPERATOR", op.url.clone()),
        (
            "FELT_WALLET_SECRET",
            String::from_utf8(SECRET.to_vec()).unwrap(),
        ),
        (
            "FELT_WALLET_LINKS",
            serde_json::Value::Object(links).to_string(),
        ),
        ("FELT_WALLET_STAFF", "wanda".to_string()),
        ("FELT_WALLET_STAFF_PASSWORD", staff_password.to_string()),
    ];
    WalletSide {
        op,
        db,
        stop,
        server,
        env,
    }
}

fn run(cmd: &mut Command, what: &str) {
    let status = cmd
        .status()
        .unwrap_or_else(|e| panic!("{what}: cannot start: {e}"));
    assert!(status.success(), "{what} failed: {status}");
}

#[test]
fn the_browser_table_plays_every_game_and_every_scenario_in_chromium() {
    let root = root();
    run(
        Command::new(root.join("scripts/browser-setup")).current_dir(&root),
        "scripts/browser-setup (Chromium and e2e/node_modules)",
    );
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("felt.db");
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let cfg = config::parse(&tables(), Path::new("browser-tables.toml"), &preset).unwrap();
    let mut store = SqliteStore::open(&db).unwrap();
    // The operator who closes a table in one of the tests (FELT_OPERATOR_PASSWORD).
    let operator_password = "operator-secret-e2e";
    store
        .create_login(&felt_store::NewLogin {
            name: "olga",
            password_hash: &felt_server::auth::hash_password(operator_password).unwrap(),
            role: felt_store::Role::Operator,
            starting_balance: felt_core::Money::ZERO,
            now_ms: 0,
        })
        .unwrap();
    let mut settings = Settings {
        test_shoes: true,
        ..Settings::default()
    };
    // Every player of the browser tests registers from this machine.
    settings.guard.registrations = 1000;
    // A reality check a minute after log-in may be chosen: the test moves the clock a
    // minute, within the sessions' idle time (e2e/protection.mjs).
    settings.protection.reality = felt_server::reality::RealityPolicy::new(60, 1, 60).unwrap();
    let listener = rt
        .block_on(tokio::net::TcpListener::bind("127.0.0.1:0"))
        .unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    let books = felt_server::app::BooksSetup {
        store: Box::new(store),
        readers: Some(felt_server::books::sqlite_readers(db.clone())),
        changes: None,
    };
    let hosting = felt_server::hosting::Hosting::new("browser-test", url.clone());
    let state = Server::start(books, cfg, settings, hosting).unwrap();
    let (stop, server) = serve(&rt, listener, state);
    let wallet = wallet_side(&rt, dir.path());
    let out = root.join("target/e2e");
    let mut node = Command::new("node");
    node.arg("e2e/run.mjs")
        .current_dir(&root)
        .env("FELT_URL", &url)
        .env("FELT_OUT", &out)
        .env("FELT_OPERATOR", "olga")
        .env("FELT_OPERATOR_PASSWORD", operator_password)
        .env("FELT_HINT_EXPECT", hint_expected());
    node.envs(wallet.env.iter().map(|(k, v)| (*k, v)));
    if let Ok(f) = std::env::var("FELT_E2E_FILTER") {
        node.arg(f);
    }
    let status = node.status();
    let _ = stop.send(());
    let _ = rt.block_on(server);
    let _ = wallet.stop.send(());
    let _ = rt.block_on(wallet.server);
    let status = status.expect("node cannot be started (node 20 is needed for the browser tests)");
    assert!(
        status.success(),
        "the browser tests failed: {status} (pictures in {})",
        out.display()
    );

    // The wallet server's books: sound, every round replays, and the operator took
    // exactly what felt's outbox says it took.
    let wstore = SqliteStore::open(&wallet.db).unwrap();
    common::books_replay(&wstore);
    let pending = felt_store::WalletQuery {
        state: Some(felt_store::WalletState::Pending),
        ..Default::default()
    };
    for _ in 0..100 {
        if wstore.wallet_calls(&pending).unwrap().is_empty() {
            break;
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    let calls = wstore
        .wallet_calls(&felt_store::WalletQuery::default())
        .unwrap();
    let taken: i64 = calls
        .iter()
        .filter(|c| c.state == felt_store::WalletState::Acknowledged)
        .map(|c| match c.kind {
            felt_store::WalletCallKind::Debit => -c.amount.as_cents(),
            felt_store::WalletCallKind::Credit => c.amount.as_cents(),
            felt_store::WalletCallKind::Rollback => 0,
        })
        .sum();
    let ledger: i64 = rt
        .block_on(wallet.op.ledger())
        .iter()
        .map(|r| r.delta.as_cents())
        .sum();
    assert_eq!(ledger, taken, "the operator's ledger against felt's outbox");

    // The books after the browser played: sound, every round replays, each stacked.
    let store = SqliteStore::open(&db).unwrap();
    let rounds = common::books_replay(&store);
    assert!(rounds.len() >= 6, "{} rounds", rounds.len());
    for r in &rounds {
        assert_eq!(
            r.lab.as_deref(),
            Some(felt_server::test_shoes::MARK),
            "round {} at {} is marked as a stacked shoe's",
            r.id,
            r.table_id
        );
    }
}
