//! Player protection through the HTTP API (issue 26 items 1, 2 and the audit log):
//! limits a player sets and their cooling-off, breaks and exclusions, and the audit
//! log of operator actions. Times move with `POST /api/test/clock` (test mode).

mod common;

use common::{operator, register};
use felt_server::app::Settings;
use serde_json::{json, Value};

const TABLES: &str = "[[table]]\nname = \"classic\"\ngame = \"classic\"\nbetting_secs = 60\ndecision_secs = 60\npause_ms = 0\n";

/// A server on new books in test mode (its clock can be moved).
async fn start() -> common::Running {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("felt.db");
    let settings = Settings {
        test_shoes: true,
        rate_per_s: 50.0,
        burst: 60.0,
        ..Settings::default()
    };
    common::start_with(dir, db, TABLES, settings).await
}

/// `POST url` with a cookie and a JSON body: the status and the answer.
async fn post(url: &str, cookie: &str, body: Value) -> (u16, Value) {
    let r = reqwest::Client::new()
        .post(url)
        .header("cookie", cookie)
        .json(&body)
        .send()
        .await
        .unwrap();
    let status = r.status().as_u16();
    (status, r.json().await.unwrap_or(Value::Null))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn closing_a_table_is_in_the_audit_log_with_who_and_when_and_only_operators_read_it() {
    let server = start().await;
    let url = server.url.clone();
    let op = operator(&server, "olga").await;
    let player = register(&url, "pat").await;
    let before = server.state.now_ms();
    let (status, _) = post(
        &format!("{url}/api/operator/tables/classic/close"),
        &op,
        json!({}),
    )
    .await;
    assert_eq!(status, 202);
    let log = common::get_json(&format!("{url}/api/operator/audit?subject=classic"), &op).await;
    let entries = log["entries"].as_array().unwrap();
    assert_eq!(entries.len(), 1, "{log}");
    assert_eq!(entries[0]["actor"], "olga");
    assert_eq!(entries[0]["action"], "close-table");
    assert_eq!(entries[0]["subject"], "classic");
    let at = entries[0]["at_ms"].as_i64().unwrap();
    assert!(at >= before && at <= server.state.now_ms(), "{at}");
    let later = common::get_json(&format!("{url}/api/operator/audit?since={}", at + 1), &op).await;
    assert_eq!(later["entries"].as_array().unwrap().len(), 0, "{later}");
    let refused = common::get_json(&format!("{url}/api/operator/audit"), &player).await;
    assert_eq!(refused["error"], "forbidden", "{refused}");
    server.stop().await;
}
