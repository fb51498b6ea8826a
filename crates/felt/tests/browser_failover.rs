//! A browser follows its table to another server when its server is killed, in a real
//! browser: two `felt serve` processes share one PostgreSQL behind a load balancer of
//! the simplest kind (each connection goes to the first server that accepts it, no
//! stickiness, no health checks). The player's page, served through it, sits at the
//! table the first server deals; mid-decision `e2e/failover.mjs` kills that server with
//! SIGKILL. The page must say it reconnects, come back to the same round with the same
//! cards, dealt by the second server from the books, settle it with the amounts the
//! books hold, and play the next round. Afterwards the books are sound, the survivor
//! stops cleanly and `felt replay --all` finds every round identical to its log.
//!
//! `scripts/browser-setup` installs Chromium and `e2e/node_modules` when missing, and
//! `scripts/postgres-test` the database: nothing is skipped.

mod common;

use std::io::{Read, Write};
use std::net::{Shutdown, TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// A load balancer: listens on a loopback port (returned) and passes each connection,
/// both ways, to the first of `ports` that accepts it.
fn balancer(ports: Vec<u16>) -> u16 {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    std::thread::spawn(move || {
        for client in listener.incoming().flatten() {
            let ports = ports.clone();
            std::thread::spawn(move || {
                let server = ports
                    .iter()
                    .find_map(|p| TcpStream::connect(("127.0.0.1", *p)).ok());
                if let Some(server) = server {
                    pass(client, server);
                }
            });
        }
    });
    port
}

/// Copies `a` to `b` and `b` to `a` until either ends, then closes both.
fn pass(a: TcpStream, b: TcpStream) {
    let (Ok(a2), Ok(b2)) = (a.try_clone(), b.try_clone()) else {
        return;
    };
    let copy = |mut from: TcpStream, mut to: TcpStream| {
        let mut buf = [0u8; 16 * 1024];
        while let Ok(n) = from.read(&mut buf) {
            if n == 0 || to.write_all(&buf[..n]).is_err() {
                break;
            }
        }
        let _ = from.shutdown(Shutdown::Both);
        let _ = to.shutdown(Shutdown::Both);
    };
    let up = std::thread::spawn(move || copy(a2, b2));
    copy(b, a);
    let _ = up.join();
}

/// The server holding `table`'s lease in `books`, once it is live.
fn holder(books: &felt_store::BooksAt, table: &str) -> Option<String> {
    felt_store::open_books_read_only(books)
        .and_then(|b| b.table_leases())
        .ok()?
        .into_iter()
        .find(|l| l.table == table && l.live)
        .map(|l| l.server)
}

#[test]
fn a_browser_follows_its_table_to_another_server_when_its_server_is_killed() {
    let root = root();
    let setup = Command::new(root.join("scripts/browser-setup"))
        .current_dir(&root)
        .status()
        .expect("scripts/browser-setup runs");
    assert!(setup.success(), "scripts/browser-setup failed: {setup}");
    let url = felt_store::testing::TestPostgres::shared().fresh_database();
    let books = felt_store::BooksAt::parse(&url);
    // The operator whose session stacks the shoes (the test mode asks for one).
    let operator_password = "operator-secret-e2e";
    let made = common::run(
        ["operator", "olga", "--db", url.as_str()],
        common::NO_DB,
        &format!("{operator_password}\n"),
    );
    assert!(made.status.success(), "{}", common::stderr(&made));
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("serve.log");
    let tables = dir.path().join("tables.toml");
    std::fs::write(
        &tables,
        "[[table]]\nname = \"fo\"\ngame = \"classic\"\nbetting_secs = 120\n\
         decision_secs = 120\npause_ms = 500\n",
    )
    .unwrap();
    let shoes = ["--test-shoes"];
    // The first server alone takes the table; the second, started after, has none
    // (one table is each server's fair share).
    let (first, second) = (common::free_port(), common::free_port());
    let victim = common::serve(&url, &tables, first, &log, &shoes);
    let began = Instant::now();
    while holder(&books, "online/fo").as_deref() != Some(&format!("server-{first}")) {
        assert!(
            began.elapsed() < Duration::from_secs(10),
            "no server took the table"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
    let survivor = common::serve(&url, &tables, second, &log, &shoes);
    let lb = balancer(vec![first, second]);

    let out = root.join("target/e2e");
    let run = Command::new("node")
        .arg("e2e/failover.mjs")
        .current_dir(&root)
        .env("FELT_URL", format!("http://127.0.0.1:{lb}"))
        .env("FELT_OUT", &out)
        .env("FELT_TABLE", "fo")
        .env("FELT_OPERATOR", "olga")
        .env("FELT_OPERATOR_PASSWORD", operator_password)
        .env("FELT_KILL_PID", victim.id().to_string())
        .env("FELT_VICTIM", format!("server-{first}"))
        .env("FELT_SURVIVOR", format!("server-{second}"))
        .output()
        .expect("node runs");
    let said = format!(
        "{}{}",
        String::from_utf8_lossy(&run.stdout),
        String::from_utf8_lossy(&run.stderr)
    );
    eprintln!("{said}");
    let mut victim = victim;
    let ended = victim.wait().unwrap();
    assert!(
        run.status.success(),
        "e2e/failover.mjs failed (screenshots in {}):\n{said}\nthe servers' log:\n{}",
        out.display(),
        std::fs::read_to_string(&log).unwrap_or_default()
    );
    assert!(!ended.success(), "the first server was killed: {ended}");
    assert_eq!(
        holder(&books, "online/fo"),
        Some(format!("server-{second}"))
    );

    common::stop_cleanly(survivor, &log);
    let store = felt_store::open_books_read_only(&books).unwrap();
    let report = store.check_books().unwrap();
    assert!(report.is_sound(), "{report}");
    let rounds = store.history(usize::MAX).unwrap();
    assert_eq!(
        rounds.len(),
        2,
        "the resumed round and the next: {rounds:?}"
    );
    assert!(rounds
        .iter()
        .all(|r| r.status == felt_store::RoundStatus::Finished));
    let replay = common::run(["replay", "--all"], &url, "");
    let text = common::stdout(&replay);
    assert!(replay.status.success(), "{text}{}", common::stderr(&replay));
    assert!(text.contains(" 0 differ"), "{text}");
}
