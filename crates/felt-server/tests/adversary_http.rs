//! The server holds against its own players, over HTTP (issue 23): log-ins that cannot
//! be guessed in parallel (an account takes its lock-out's count of wrong passwords,
//! then is locked for its owner too, as the standards ask, until an operator lifts it
//! or the lock ends), common passwords refused,
//! registrations throttled per address, password hashing and connections bounded
//! under load, state-changing requests from the server's own page only, a `Secure`
//! cookie behind TLS, `/metrics` and the test mode an operator's only.
//!
//! Client addresses: Linux routes all of 127.0.0.0/8 to the loopback, so a client bound
//! to 127.0.0.N is another address to the server.

mod common;

use common::{login, operator, register, Running};
use felt_server::app::Settings;
use reqwest::StatusCode;
use serde_json::{json, Value};
use std::net::{IpAddr, Ipv4Addr};
use std::time::Duration;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

const TABLES: &str = "[[table]]\nname = \"lucky-lucky\"\ngame = \"lucky-lucky\"\nbetting_secs = 60\ndecision_secs = 60\npause_ms = 0\n";

/// One test of this file at a time (the memory test reads the process's peak).
static SERIAL: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());

async fn start(settings: Settings) -> Running {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("felt.db");
    common::start_with(dir, db, TABLES, settings).await
}

/// A client whose connections come from 127.0.0.`n`.
fn from(n: u8) -> reqwest::Client {
    reqwest::Client::builder()
        .local_address(IpAddr::V4(Ipv4Addr::new(127, 0, 0, n)))
        .timeout(Duration::from_secs(60))
        .build()
        .unwrap()
}

async fn post(http: &reqwest::Client, url: &str, path: &str, body: Value) -> reqwest::Response {
    http.post(format!("{url}{path}"))
        .json(&body)
        .send()
        .await
        .unwrap()
}

/// An operator (session `op`) lifts the lock of `name`; the answer's status.
async fn unlock(http: &reqwest::Client, url: &str, op: &str, name: &str) -> u16 {
    http.post(format!("{url}/api/operator/players/{name}/unlock"))
        .header("cookie", op)
        .json(&json!({}))
        .send()
        .await
        .unwrap()
        .status()
        .as_u16()
}

async fn error_of(r: reqwest::Response) -> (u16, String, String) {
    let status = r.status().as_u16();
    let v: Value = r.json().await.unwrap_or(Value::Null);
    let s = |k: &str| v[k].as_str().unwrap_or_default().to_string();
    (status, s("error"), s("message"))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sixty_parallel_guesses_from_one_address_check_at_most_its_limit() {
    let _one = SERIAL.lock().await;
    let server = start(Settings::default()).await;
    let url = server.url.clone();
    let limit = server.state.settings().guard.address_failures as usize;
    let lock = server.state.settings().lock.after as usize;
    register(&url, "victim").await;
    // The operator logs in before the attacker's address (127.0.0.1 too) is throttled.
    let op = operator(&server, "olga").await;
    let attacker = from(1);
    let (said, mut heard) = tokio::sync::mpsc::unbounded_channel::<u16>();
    let mut tries = Vec::new();
    for i in 0..59 {
        let (http, url, said) = (attacker.clone(), url.clone(), said.clone());
        tries.push(tokio::spawn(async move {
            let body = json!({"name": "victim", "password": format!("guess-{i:04}")});
            let r = post(&http, &url, "/api/login", body).await;
            let s = r.status().as_u16();
            let _ = said.send(s);
            (s, r.headers().contains_key("retry-after"))
        }));
    }
    // The right password, sent once the guesses have begun to be refused.
    while heard.recv().await != Some(429) {}
    let right = post(
        &attacker,
        &url,
        "/api/login",
        json!({"name": "victim", "password": "victim-secret"}),
    )
    .await;
    let mut counts = std::collections::BTreeMap::new();
    for t in tries {
        let (s, retry_after) = t.await.unwrap();
        *counts.entry(s).or_insert(0) += 1;
        assert!(s != 429 || retry_after, "a 429 says when to come back");
    }
    // At most the lock's count of guesses is checked against the account; then it is
    // locked (403), and past its own limit the address is throttled (429).
    let n = |s: u16| counts.get(&s).copied().unwrap_or(0);
    assert!(n(401) <= lock && lock <= limit, "{counts:?}");
    assert!(n(401) + n(403) <= limit, "{counts:?}");
    assert_eq!(n(401) + n(403) + n(429), 59, "{counts:?}");
    let (status, code, message) = error_of(right).await;
    assert_eq!((status, code.as_str()), (429, "throttled"), "{message}");
    // Its owner, from another address, finds it locked until an operator lifts it.
    let owner = from(2);
    let body = json!({"name": "victim", "password": "victim-secret"});
    let (status, code, _) = error_of(post(&owner, &url, "/api/login", body.clone()).await).await;
    assert_eq!((status, code.as_str()), (403, "account-locked"));
    assert_eq!(unlock(&owner, &url, &op, "victim").await, 200);
    let r = post(&owner, &url, "/api/login", body).await;
    assert_eq!(r.status(), 200, "{}", r.text().await.unwrap());
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_lock_out_holds_for_the_owner_until_lifted_and_visitors_cannot_read_the_names() {
    let _one = SERIAL.lock().await;
    let server = start(Settings::default()).await;
    let url = server.url.clone();
    let cookie = register(&url, "owner").await;
    // Seated: a visitor's lobby shows the seat taken, not by whom.
    let mut c = common::connect(&url, Some(&cookie), None).await.unwrap();
    c.send(r#"{"type":"hello","version":1,"table":"lucky-lucky"}"#)
        .await;
    c.send(r#"{"type":"sit","seat":1}"#).await;
    c.until(5, |v| v["you"]["may_bet"] == true).await;
    let visitor: Value = reqwest::get(format!("{url}/api/tables"))
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(visitor["tables"][0]["players"], json!([{"seat": 1}]));
    assert!(!visitor.to_string().contains("owner"), "{visitor}");
    let player: Value = reqwest::Client::new()
        .get(format!("{url}/api/tables"))
        .header("cookie", &cookie)
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(
        player["tables"][0]["players"],
        json!([{"seat": 1, "player": "owner"}])
    );
    // The lock's count of wrong passwords locks the account in the books (refused
    // then, 403), and more from that address are throttled.
    let attacker = from(3);
    let lock = server.state.settings().lock.after;
    let limit = server.state.settings().guard.address_failures;
    for i in 0..limit {
        let r = post(
            &attacker,
            &url,
            "/api/login",
            json!({"name": "owner", "password": format!("nope-{i}")}),
        )
        .await;
        let locked = i >= lock;
        assert_eq!(r.status(), if locked { 403 } else { 401 }, "try {i}");
    }
    let locked = server
        .state
        .books()
        .read(|st| st.login("owner"))
        .unwrap()
        .unwrap();
    assert!(
        locked.is_locked(common::now_ms()),
        "{lock} failures lock it"
    );
    let (status, code, _) = error_of(
        post(
            &attacker,
            &url,
            "/api/login",
            json!({"name": "owner", "password": "owner-secret"}),
        )
        .await,
    )
    .await;
    assert_eq!((status, code.as_str()), (429, "throttled"));
    // A header naming another client changes nothing without a trusted proxy.
    let spoofed = attacker
        .post(format!("{url}/api/login"))
        .header("x-forwarded-for", "203.0.113.7")
        .json(&json!({"name": "owner", "password": "owner-secret"}))
        .send()
        .await
        .unwrap();
    assert_eq!(spoofed.status(), 429);
    // The owner, from home, is refused until an operator lifts the lock.
    assert_eq!(login(&url, "owner", "owner-secret").await, Err(403));
    let op = operator(&server, "olga").await;
    assert_eq!(unlock(&from(4), &url, &op, "owner").await, 200);
    assert!(login(&url, "owner", "owner-secret").await.is_ok());
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn behind_a_trusted_proxy_the_forwarded_address_is_the_client() {
    let _one = SERIAL.lock().await;
    let mut settings = Settings::default();
    settings.guard.address_failures = 2;
    settings.trusted_proxies = vec![IpAddr::V4(Ipv4Addr::LOCALHOST)];
    let server = start(settings).await;
    let url = server.url.clone();
    let http = reqwest::Client::new();
    let as_client = |ip: &'static str| {
        http.post(format!("{url}/api/login"))
            .header("x-forwarded-for", format!("198.51.100.1, {ip}"))
            .json(&json!({"name": "nobody", "password": "whatever-it-is"}))
            .send()
    };
    for _ in 0..2 {
        assert_eq!(as_client("203.0.113.1").await.unwrap().status(), 401);
    }
    assert_eq!(as_client("203.0.113.1").await.unwrap().status(), 429);
    assert_eq!(
        as_client("203.0.113.2").await.unwrap().status(),
        401,
        "another client behind the proxy"
    );
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn common_passwords_are_refused_and_say_why() {
    let _one = SERIAL.lock().await;
    let server = start(Settings::default()).await;
    let url = server.url.clone();
    let http = reqwest::Client::new();
    for (password, why) in [
        ("password", "most common"),
        ("12345678", "most common"),
        ("        ", "one character repeated"),
        ("Sunshine", "most common"),
    ] {
        let r = post(
            &http,
            &url,
            "/api/register",
            json!({"name": "newcomer", "password": password}),
        )
        .await;
        let (status, code, message) = error_of(r).await;
        assert_eq!(
            (status, code.as_str()),
            (400, "bad-password"),
            "{password:?}"
        );
        assert!(message.contains(why), "{password:?}: {message}");
    }
    let r = post(
        &http,
        &url,
        "/api/register",
        json!({"name": "newcomer", "password": "newcomer-secret"}),
    )
    .await;
    assert_eq!(r.status(), 201);
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn registrations_are_throttled_per_address() {
    let _one = SERIAL.lock().await;
    let mut settings = Settings::default();
    settings.guard.registrations = 3;
    let server = start(settings).await;
    let url = server.url.clone();
    let farm = from(4);
    let reg = |http: reqwest::Client, name: String| {
        let url = url.clone();
        async move {
            let body = json!({"name": name, "password": format!("{name}-secret")});
            post(&http, &url, "/api/register", body).await
        }
    };
    for i in 0..3 {
        assert_eq!(reg(farm.clone(), format!("farm{i}")).await.status(), 201);
    }
    let r = reg(farm.clone(), "farm3".to_string()).await;
    assert!(r.headers().contains_key("retry-after"));
    let (status, code, _) = error_of(r).await;
    assert_eq!((status, code.as_str()), (429, "throttled"));
    assert_eq!(reg(from(5), "elsewhere".to_string()).await.status(), 201);
    server.stop().await;
}

/// Starts the process's peak resident memory again from what it is now (Linux 4.0+).
fn reset_peak() {
    let _ = std::fs::write("/proc/self/clear_refs", "5");
}

/// The process's resident memory now and at its peak (KiB), from /proc/self/status.
fn memory_kib() -> (u64, u64) {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    let field = |name: &str| {
        status
            .lines()
            .find(|l| l.starts_with(name))
            .and_then(|l| l.split_whitespace().nth(1))
            .and_then(|n| n.parse().ok())
            .unwrap_or(0)
    };
    (field("VmRSS:"), field("VmHWM:"))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn concurrent_logins_of_unknown_names_are_answered_within_bounded_memory() {
    let _one = SERIAL.lock().await;
    let mut settings = Settings::default();
    // The address limit would refuse most of them before any hashing: lifted, so the
    // hashing's own bound is what holds.
    settings.guard.address_failures = 100_000;
    let server = start(settings).await;
    let url = server.url.clone();
    let http = reqwest::Client::builder()
        .timeout(Duration::from_secs(120))
        .build()
        .unwrap();
    reset_peak();
    let (before, _) = memory_kib();
    let mut all = Vec::new();
    for i in 0..256 {
        let (http, url) = (http.clone(), url.clone());
        all.push(tokio::spawn(async move {
            let body = json!({"name": format!("ghost{i}"), "password": "x".repeat(256)});
            post(&http, &url, "/api/login", body).await.status()
        }));
    }
    let mut counts = std::collections::BTreeMap::new();
    for t in all {
        *counts.entry(t.await.unwrap().as_u16()).or_insert(0) += 1;
    }
    let (_, peak) = memory_kib();
    assert!(
        counts.keys().all(|s| [401, 429, 503].contains(s)),
        "{counts:?}"
    );
    assert!(counts.contains_key(&401), "some were checked: {counts:?}");
    let grew_mib = peak.saturating_sub(before) / 1024;
    eprintln!("256 log-ins of unknown names: {counts:?}; the peak grew {grew_mib} MiB");
    assert!(
        grew_mib < 300,
        "the peak grew {grew_mib} MiB over {} MiB ({counts:?})",
        before / 1024
    );
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn half_sent_headers_and_silent_sockets_are_closed_and_health_still_answers() {
    let _one = SERIAL.lock().await;
    let mut settings = Settings::default();
    settings.conn.max = 16;
    settings.conn.header_read = Duration::from_secs(1);
    settings.conn.idle = Duration::from_secs(2);
    let server = start(settings).await;
    let url = server.url.clone();
    let addr = url.trim_start_matches("http://").to_string();
    // More slow sockets than the cap: half a header each, or nothing at all.
    let mut slow = Vec::new();
    for i in 0..40 {
        let mut s = tokio::net::TcpStream::connect(&addr).await.unwrap();
        if i % 2 == 0 {
            s.write_all(b"GET /healthz HTTP/1.1\r\nHost: x\r\nX-Slow: ")
                .await
                .unwrap();
        }
        slow.push(s);
    }
    let health = reqwest::Client::builder()
        .timeout(Duration::from_secs(20))
        .build()
        .unwrap()
        .get(format!("{url}/healthz"))
        .send()
        .await
        .expect("/healthz answers while slow sockets are open");
    assert_eq!(health.status(), 200);
    for (i, s) in slow.iter_mut().enumerate() {
        let mut buf = [0u8; 512];
        let read = tokio::time::timeout(Duration::from_secs(20), s.read(&mut buf)).await;
        assert!(
            matches!(read, Ok(Ok(_) | Err(_))),
            "slow socket {i} is still open after 20 s"
        );
    }
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn state_changing_requests_only_from_the_own_page_and_as_json() {
    let _one = SERIAL.lock().await;
    let server = start(Settings::default()).await;
    let url = server.url.clone();
    let op = operator(&server, "olga").await;
    let http = reqwest::Client::new();
    let close = format!("{url}/api/operator/tables/lucky-lucky/close");
    let other_port = "http://127.0.0.1:1";
    // Another site's page, another port of this host, a text/plain body: refused.
    for (origin, site, ctype, want, code) in [
        (
            Some("http://evil.example"),
            Some("cross-site"),
            "text/plain",
            403,
            "cross-origin",
        ),
        (
            Some(other_port),
            Some("same-site"),
            "text/plain",
            403,
            "cross-origin",
        ),
        (
            None,
            Some("same-site"),
            "application/json",
            403,
            "cross-origin",
        ),
        (
            Some("http://evil.example"),
            None,
            "application/json",
            403,
            "cross-origin",
        ),
        (
            Some(url.as_str()),
            Some("same-origin"),
            "text/plain",
            415,
            "bad-content-type",
        ),
        (
            None,
            None,
            "application/x-www-form-urlencoded",
            415,
            "bad-content-type",
        ),
    ] {
        let mut r = http
            .post(&close)
            .header("cookie", &op)
            .header("content-type", ctype)
            .body("{}");
        if let Some(o) = origin {
            r = r.header("origin", o);
        }
        if let Some(s) = site {
            r = r.header("sec-fetch-site", s);
        }
        let (status, got, message) = error_of(r.send().await.unwrap()).await;
        assert_eq!(
            (status, got.as_str()),
            (want, code),
            "{origin:?} {site:?} {ctype}: {message}"
        );
    }
    let r = http
        .post(format!("{url}/api/logout"))
        .header("cookie", &op)
        .header("origin", "http://evil.example")
        .header("content-type", "text/plain")
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 403);
    // Still logged in; the page's own JSON request closes the table.
    let r = http
        .post(&close)
        .header("cookie", &op)
        .header("origin", &url)
        .header("sec-fetch-site", "same-origin")
        .json(&json!({}))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::ACCEPTED);
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_https_public_url_makes_the_session_cookie_secure() {
    let _one = SERIAL.lock().await;
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("felt.db");
    let server = common::start_hosted(dir, db, TABLES, Settings::default(), |mut h| {
        h.url = "https://casino.example".to_string();
        h
    })
    .await;
    let r = post(
        &reqwest::Client::new(),
        &server.url,
        "/api/register",
        json!({"name": "tls", "password": "tls-secret-1"}),
    )
    .await;
    assert_eq!(r.status(), 201);
    let cookie = r.headers()["set-cookie"].to_str().unwrap().to_string();
    assert!(cookie.contains("; Secure"), "{cookie}");
    // The public URL's origin is the page's own.
    let r = reqwest::Client::new()
        .post(format!("{}/api/logout", server.url))
        .header("origin", "https://casino.example")
        .json(&json!({}))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 204);
    assert!(r.headers()["set-cookie"]
        .to_str()
        .unwrap()
        .contains("Secure"));
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn metrics_health_detail_and_test_shoes_are_an_operators() {
    let _one = SERIAL.lock().await;
    let settings = Settings {
        test_shoes: true,
        ..Settings::default()
    };
    let server = start(settings).await;
    let url = server.url.clone();
    let player = register(&url, "punter").await;
    let op = operator(&server, "olga").await;
    let http = reqwest::Client::new();
    let get = |path: &str, cookie: Option<&str>| {
        let mut r = http.get(format!("{url}{path}"));
        if let Some(c) = cookie {
            r = r.header("cookie", c);
        }
        r.send()
    };
    assert_eq!(get("/metrics", None).await.unwrap().status(), 401);
    assert_eq!(get("/metrics", Some(&player)).await.unwrap().status(), 403);
    let m = get("/metrics", Some(&op)).await.unwrap();
    assert_eq!(m.status(), 200);
    assert!(m.text().await.unwrap().contains("# EOF"));
    let public: Value = get("/healthz", None).await.unwrap().json().await.unwrap();
    assert_eq!(public, json!({"status": "ok"}));
    let detail: Value = get("/healthz", Some(&op))
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(detail["tables"], 1, "{detail}");
    assert!(detail["version"].is_number(), "{detail}");
    // The test mode: no session or a player's is refused, even on loopback.
    for (cookie, want) in [("", 401), (player.as_str(), 403)] {
        let r = http
            .post(format!("{url}/api/test/tables/lucky-lucky/shoe"))
            .header("cookie", cookie)
            .json(&json!({"cards": ["Ah"]}))
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), want, "{cookie:?}");
    }
    // The operations address: both, no session asked.
    let ops = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let ops_url = format!("http://{}", ops.local_addr().unwrap());
    let app = felt_server::app::ops_router(server.state.clone());
    let limits = server.state.settings().conn.clone();
    tokio::spawn(felt_server::listen::serve(
        ops,
        app,
        limits,
        std::future::pending(),
    ));
    let m = reqwest::get(format!("{ops_url}/metrics")).await.unwrap();
    assert_eq!(m.status(), 200);
    let h: Value = reqwest::get(format!("{ops_url}/healthz"))
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(h["tables"], 1, "{h}");
    server.stop().await;
}
