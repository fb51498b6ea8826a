//! A server in the test's process on a free port, and a raw WebSocket client.

#![allow(dead_code)]

pub mod demo;

use felt_server::app::{self, Server, Settings, Shared};
use felt_server::config;
use felt_server::hosting::Hosting;
use futures_util::{SinkExt, StreamExt};
use serde_json::{json, Value};
use std::path::PathBuf;
use std::time::Duration;
use tokio_tungstenite::tungstenite::client::IntoClientRequest;
use tokio_tungstenite::tungstenite::Message;

/// A running server.
pub struct Running {
    pub dir: tempfile::TempDir,
    pub db: PathBuf,
    pub url: String,
    pub state: Shared,
    pub stop: Option<tokio::sync::oneshot::Sender<()>>,
    pub task: tokio::task::JoinHandle<std::io::Result<()>>,
}

pub fn preset(name: &str) -> Result<felt_core::Rules, String> {
    match felt_core::presets::load(name) {
        Some(r) => r.map_err(|e| e.to_string()),
        None => Err(format!("no game `{name}`")),
    }
}

/// The tables file of one table per preset, short timers, no pause.
pub fn every_game(decision_secs: u32) -> String {
    felt_core::presets::names()
        .map(|n| {
            format!(
                "[[table]]\nname = \"{n}\"\ngame = \"{n}\"\nbetting_secs = 30\ndecision_secs = {decision_secs}\npause_ms = 0\n"
            )
        })
        .collect()
}

/// Starts a server with this tables file on new books.
pub async fn start(tables: &str) -> Running {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("felt.db");
    start_on(dir, db, tables).await
}

/// Starts a server on these books.
pub async fn start_on(dir: tempfile::TempDir, db: PathBuf, tables: &str) -> Running {
    let settings = Settings {
        rate_per_s: 50.0,
        burst: 60.0,
        ..Settings::default()
    };
    start_with(dir, db, tables, settings).await
}

/// Starts a server on these books with these settings.
pub async fn start_with(
    dir: tempfile::TempDir,
    db: PathBuf,
    tables: &str,
    settings: Settings,
) -> Running {
    start_hosted(dir, db, tables, settings, |h| h).await
}

/// Starts a server on these books with these settings, its hosting (named
/// `test-PORT`, 5 s leases renewed each second) changed by `hosting`.
pub async fn start_hosted(
    dir: tempfile::TempDir,
    db: PathBuf,
    tables: &str,
    settings: Settings,
    hosting: impl FnOnce(Hosting) -> Hosting,
) -> Running {
    let at = felt_store::BooksAt::Sqlite(db.clone());
    start_at(dir, db, &at, tables, &preset, settings, hosting, None).await
}

/// Starts a server on the SQLite books `db` whose tables' money goes through an
/// operator's wallet.
pub async fn start_wallet(
    dir: tempfile::TempDir,
    db: PathBuf,
    tables: &str,
    settings: Settings,
    wallet: felt_server::wallet::table::WalletMode,
) -> Running {
    let at = felt_store::BooksAt::Sqlite(db.clone());
    start_at(dir, db, &at, tables, &preset, settings, |h| h, Some(wallet)).await
}

/// Starts a server on the books at `at` (`db` is kept in [`Running`] as given), its
/// tables' games loaded by `load`, with these settings and hosting, the tables' money
/// going through an operator's `wallet` when given.
#[allow(clippy::too_many_arguments)]
pub async fn start_at(
    dir: tempfile::TempDir,
    db: PathBuf,
    at: &felt_store::BooksAt,
    tables: &str,
    load: &dyn Fn(&str) -> Result<felt_core::Rules, String>,
    settings: Settings,
    hosting: impl FnOnce(Hosting) -> Hosting,
    wallet: Option<felt_server::wallet::table::WalletMode>,
) -> Running {
    let cfg = config::parse(tables, std::path::Path::new("tables.toml"), load).unwrap();
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    let hosting = hosting(Hosting::new(
        format!("test-{}", listener.local_addr().unwrap().port()),
        url.clone(),
    ));
    // PostgreSQL's client runs a runtime of its own: the start runs on a thread of its
    // own, outside the test's runtime.
    let state = std::thread::scope(|s| {
        s.spawn(|| {
            Server::start_with_wallet(
                felt_server::books::setup(at).unwrap(),
                cfg,
                settings,
                hosting,
                wallet,
            )
        })
        .join()
        .unwrap()
    })
    .unwrap();
    let (tx, rx) = tokio::sync::oneshot::channel::<()>();
    let task = tokio::spawn(app::serve(
        listener,
        state.clone(),
        async move {
            let _ = rx.await;
        },
        Duration::from_secs(5),
    ));
    Running {
        dir,
        db,
        url,
        state,
        stop: Some(tx),
        task,
    }
}

impl Running {
    /// Stops the server (SIGTERM's path) and waits for it.
    pub async fn stop(mut self) -> (tempfile::TempDir, PathBuf) {
        if let Some(s) = self.stop.take() {
            let _ = s.send(());
        }
        let _ = self.task.await;
        (self.dir, self.db)
    }
}

/// Registers `name`; returns its session cookie (`felt_session=...`).
pub async fn register(url: &str, name: &str) -> String {
    let r = reqwest::Client::new()
        .post(format!("{url}/api/register"))
        .json(&json!({"name": name, "password": format!("{name}-secret")}))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 201, "{}", r.text().await.unwrap());
    session_cookie(&r)
}

/// The session cookie (`felt_session=...`) an answer sets.
pub fn session_cookie(r: &reqwest::Response) -> String {
    r.headers()["set-cookie"]
        .to_str()
        .unwrap()
        .split(';')
        .next()
        .unwrap()
        .to_string()
}

/// Logs `name` in with `password`; returns its session cookie, or the refusal's status.
pub async fn login(url: &str, name: &str, password: &str) -> Result<String, u16> {
    let r = reqwest::Client::new()
        .post(format!("{url}/api/login"))
        .json(&json!({"name": name, "password": password}))
        .send()
        .await
        .unwrap();
    if r.status() != 200 {
        return Err(r.status().as_u16());
    }
    Ok(session_cookie(&r))
}

/// Makes the operator `name` (password `NAME-secret`) in the server's books and logs
/// it in; returns its session cookie.
pub async fn operator(server: &Running, name: &str) -> String {
    let password = format!("{name}-secret");
    let hash = felt_server::auth::hash_password(&password).unwrap();
    let n = name.to_string();
    server
        .state
        .books()
        .run(move |st| {
            st.create_login(&felt_store::NewLogin {
                name: &n,
                password_hash: &hash,
                role: felt_store::Role::Operator,
                starting_balance: felt_core::Money::ZERO,
                now_ms: 0,
            })
        })
        .await
        .unwrap();
    login(&server.url, name, &password).await.unwrap()
}

/// Now, in milliseconds since the epoch.
pub fn now_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as i64)
}

/// A raw WebSocket client.
pub struct Client {
    pub tx: futures_util::stream::SplitSink<
        tokio_tungstenite::WebSocketStream<
            tokio_tungstenite::MaybeTlsStream<tokio::net::TcpStream>,
        >,
        Message,
    >,
    pub rx: futures_util::stream::SplitStream<
        tokio_tungstenite::WebSocketStream<
            tokio_tungstenite::MaybeTlsStream<tokio::net::TcpStream>,
        >,
    >,
    /// Every frame received, in order.
    pub frames: Vec<Value>,
}

/// Connects with this cookie (and `Origin`, if given).
pub async fn connect(
    url: &str,
    cookie: Option<&str>,
    origin: Option<&str>,
) -> Result<Client, String> {
    let mut req = format!("{}/ws", url.replacen("http", "ws", 1))
        .into_client_request()
        .unwrap();
    if let Some(c) = cookie {
        req.headers_mut().insert("cookie", c.parse().unwrap());
    }
    if let Some(o) = origin {
        req.headers_mut().insert("origin", o.parse().unwrap());
    }
    let (ws, _) = tokio_tungstenite::connect_async(req)
        .await
        .map_err(|e| e.to_string())?;
    let (tx, rx) = ws.split();
    Ok(Client {
        tx,
        rx,
        frames: Vec::new(),
    })
}

impl Client {
    /// Sends a text message.
    pub async fn send(&mut self, v: &str) {
        self.tx.send(Message::text(v.to_string())).await.unwrap();
    }

    /// Sends a text message; `false` once the server has closed the connection.
    pub async fn try_send(&mut self, v: &str) -> bool {
        self.tx.send(Message::text(v.to_string())).await.is_ok()
    }

    /// The next frame (within `secs`), kept in `frames`.
    pub async fn next(&mut self, secs: u64) -> Option<Value> {
        loop {
            let m = tokio::time::timeout(Duration::from_secs(secs), self.rx.next())
                .await
                .ok()??
                .ok()?;
            if let Message::Text(t) = m {
                let v: Value = serde_json::from_str(&t).unwrap();
                self.frames.push(v.clone());
                return Some(v);
            }
        }
    }

    /// Frames until one matches `f` (within `secs` each).
    pub async fn until(&mut self, secs: u64, f: impl Fn(&Value) -> bool) -> Value {
        loop {
            let v = self
                .next(secs)
                .await
                .expect("the server sent nothing in time");
            if f(&v) {
                return v;
            }
        }
    }
}

impl Client {
    /// Bets `main` on spot 1 in each betting window until a round is dealt (a stacked
    /// shoe sets a window up again, so an early bet may be refused): the first view
    /// with the player's turn, or at least the player turns.
    pub async fn bet_until_dealt(&mut self, main: &str) -> Value {
        for _ in 0..20 {
            self.send(r#"{"type":"sync"}"#).await;
            let v = self.until(5, |v| v["type"] == "view").await;
            let round = v["round_id"].as_i64().unwrap();
            self.send(&format!(
                r#"{{"type":"bet","round":{round},"id":"b1","spots":[{{"spot":1,"main":"{main}"}}]}}"#
            ))
            .await;
            let v = self
                .until(5, |v| {
                    v["type"] == "error" || v["round"]["phase"] == "player-turns"
                })
                .await;
            if v["type"] == "view" {
                return v;
            }
        }
        panic!("no round was dealt in 20 betting windows");
    }
}

/// `GET url` with a session cookie (none: `""`), as JSON.
pub async fn get_json(url: &str, cookie: &str) -> Value {
    reqwest::Client::new()
        .get(url)
        .header("cookie", cookie)
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap()
}

/// The books are sound and every round replays identical to its log; the rounds.
pub fn books_replay(store: &felt_store::SqliteStore) -> Vec<felt_store::RoundRecord> {
    use felt_store::Store;
    assert!(store.check_books().unwrap().is_sound());
    let rounds = store.history(1_000).unwrap();
    for r in &rounds {
        let ctx = felt_session::journal::ctx_for(store, r).unwrap();
        let replayed = felt_session::journal::replay(&ctx, r).unwrap();
        assert!(
            replayed.differences.is_empty(),
            "round {}: {:?}",
            r.id,
            replayed.differences
        );
    }
    rounds
}
