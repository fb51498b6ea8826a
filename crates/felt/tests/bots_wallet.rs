//! `felt bots` against `felt serve --wallet`: the bots are the reference operator's
//! players and arrive by its launch links (`--operator-demo-db`); after a few rounds
//! at two tables, every round is closed at the operator and its ledger equals what
//! felt's outbox says the operator took, player by player.

mod common;

use felt_server::operator_demo::books::DemoBooks;
use felt_store::{SqliteStore, Store, WalletCallKind, WalletQuery, WalletState};
use std::collections::BTreeMap;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// Waits until something listens on `port`.
fn listening(port: u16) {
    let began = Instant::now();
    while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
        assert!(
            began.elapsed() < Duration::from_secs(30),
            "nothing on {port}"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

#[test]
fn bots_play_through_the_operators_launch_links_and_both_ledgers_agree() {
    let dir = tempfile::tempdir().unwrap();
    let (op_db, secret) = (
        dir.path().join("operator.db"),
        dir.path().join("wallet.secret"),
    );
    let op_port = common::free_port();
    let mut operator = Command::new(env!("CARGO_BIN_EXE_felt"))
        .args([
            "operator-demo",
            "serve",
            "--addr",
            &format!("127.0.0.1:{op_port}"),
        ])
        .arg("--db")
        .arg(&op_db)
        .arg("--secret-file")
        .arg(&secret)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .spawn()
        .unwrap();
    listening(op_port);

    let tables = dir.path().join("tables.toml");
    let timers = "betting_secs = 30\ndecision_secs = 30\npause_ms = 0";
    std::fs::write(
        &tables,
        format!(
            "[[table]]\nname = \"w-1\"\ngame = \"classic\"\n{timers}\n\
             [[table]]\nname = \"w-2\"\ngame = \"blazing-7s\"\n{timers}\n"
        ),
    )
    .unwrap();
    let felt_db = dir.path().join("felt.db");
    let (port, log) = (common::free_port(), dir.path().join("serve.log"));
    let wallet = format!("http://127.0.0.1:{op_port}/wallet");
    let server = common::serve(
        felt_db.to_str().unwrap(),
        &tables,
        port,
        &log,
        &[
            "--wallet",
            &wallet,
            "--wallet-secret-file",
            secret.to_str().unwrap(),
        ],
    );

    let o = Command::new(env!("CARGO_BIN_EXE_felt"))
        .args(["bots", "--server", &format!("http://127.0.0.1:{port}")])
        .args(["--tables", "2", "--players", "2", "--rounds", "3", "--json"])
        .arg("--operator-demo-db")
        .arg(&op_db)
        .output()
        .unwrap();
    let report: serde_json::Value = serde_json::from_slice(&o.stdout)
        .unwrap_or_else(|_| panic!("{}", String::from_utf8_lossy(&o.stderr)));
    assert!(o.status.success(), "{report}");
    assert_eq!(report["errors"], 0, "{report}");
    assert_eq!(report["rounds"], 12, "{report}");

    // The closing credits of the last rounds are sent after them.
    let store = SqliteStore::open(&felt_db).unwrap();
    let began = Instant::now();
    let calls = loop {
        let calls = store.wallet_calls(&WalletQuery::default()).unwrap();
        if calls.iter().all(|c| c.state != WalletState::Pending) {
            break calls;
        }
        assert!(began.elapsed() < Duration::from_secs(30), "{calls:#?}");
        std::thread::sleep(Duration::from_millis(100));
    };
    common::stop_cleanly(server, &log);
    let _ = operator.kill();
    let _ = operator.wait();

    // What felt says the operator took, and what the operator's ledger says, by player.
    // Acknowledged credits pay, acknowledged debits (not rolled back) take.
    let sign = |kind| match kind {
        WalletCallKind::Debit => -1,
        WalletCallKind::Credit => 1,
        WalletCallKind::Rollback => 0,
    };
    let mut felt: BTreeMap<String, i64> = BTreeMap::new();
    for c in calls
        .iter()
        .filter(|c| c.state == WalletState::Acknowledged)
    {
        *felt.entry(c.player.clone()).or_default() += sign(c.kind) * c.amount.as_cents();
    }
    let mut operator_ledger: BTreeMap<String, i64> = BTreeMap::new();
    for r in DemoBooks::open(&op_db).unwrap().ledger().unwrap() {
        *operator_ledger.entry(r.player).or_default() += r.delta.as_cents();
    }
    assert_eq!(felt.len(), 4, "{felt:?}");
    assert_eq!(operator_ledger, felt);
    // Each player's rounds closed at the operator: one closing credit per round bet.
    let debited: std::collections::BTreeSet<_> = calls
        .iter()
        .filter(|c| c.kind == WalletCallKind::Debit && c.state == WalletState::Acknowledged)
        .map(|c| (c.round, c.player.clone()))
        .collect();
    let credits = calls
        .iter()
        .filter(|c| c.kind == WalletCallKind::Credit && c.state == WalletState::Acknowledged)
        .count();
    assert_eq!(credits, debited.len());
    assert!(store.check_books().unwrap().is_sound());
}
