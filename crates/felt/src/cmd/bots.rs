//! `felt bots`: load-testing players through the server's own protocol.

use anyhow::{Context, Result};
use felt_server::bots::{self, BotsConfig};
use felt_server::operator_demo::{self, books::DemoBooks};
use felt_server::wallet::signature::unix_now;
use std::time::Duration;

/// Arguments of `felt bots`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The server, e.g. http://127.0.0.1:8080; several (comma-separated, or the option
    /// repeated) when servers share the books: the bots spread over them and follow
    /// each table to the server that deals it.
    #[arg(long, required = true, value_delimiter = ',')]
    pub server: Vec<String>,
    /// Tables to play at (the lobby's first N open tables).
    #[arg(long, default_value_t = 1)]
    pub tables: usize,
    /// Bots per table.
    #[arg(long, default_value_t = 1)]
    pub players: usize,
    /// Rounds each bot plays.
    #[arg(long, default_value_t = 10)]
    pub rounds: u64,
    /// The bots' account names start with this (accounts are made, or logged in to).
    #[arg(long, default_value = "bot")]
    pub prefix: String,
    /// A bot that sees no progress for this many seconds is counted as an error.
    #[arg(long, default_value_t = 120)]
    pub stall_secs: u64,
    /// A pause before each bet and decision, in milliseconds (as a person takes;
    /// the latency measured starts when the action is sent).
    #[arg(long, default_value_t = 0)]
    pub think_ms: u64,
    /// The most messages a second each bot sends (0: as fast as it decides). The
    /// default keeps under the server's default rate limit (20 a second per
    /// connection and per account), which drops what passes it.
    #[arg(long, default_value_t = bots::DEFAULT_PACE_PER_S)]
    pub pace: f64,
    /// Print one JSON object: rounds, actions, refusals, errors, rounds_per_s, latency_ms,
    /// latency_by_kind_ms.
    #[arg(long)]
    pub json: bool,
    /// Against `felt serve --wallet` with the reference operator (`felt operator-demo
    /// serve --db FILE`): the bots are that operator's players (opened in its books
    /// if missing, each with --bot-balance) and arrive by its launch links, made in
    /// its books, instead of registering. One --server: the links point at it.
    #[arg(long, value_name = "FILE")]
    pub operator_demo_db: Option<std::path::PathBuf>,
    /// The balance each bot opens with at the reference operator.
    #[arg(long, default_value = "1000.00", requires = "operator_demo_db")]
    pub bot_balance: felt_core::Money,
}

/// The reference operator's launch links of the bots (see `--operator-demo-db`).
fn launch_links(db: &std::path::Path, felt: &str, balance: felt_core::Money) -> bots::Launch {
    let (db, felt) = (db.to_path_buf(), felt.to_string());
    bots::Launch(std::sync::Arc::new(move |name: &str, table: &str| {
        let mut books = DemoBooks::open(&db).map_err(|e| e.to_string())?;
        books
            .add_player(name, name, "EUR", balance)
            .map_err(|e| e.to_string())?;
        let expires = unix_now().saturating_add(3600);
        let token = books
            .launch_token(name, expires)
            .map_err(|e| e.to_string())?;
        operator_demo::launch_link(&felt, &token, table)
    }))
}

/// Runs the bots and prints the report.
pub fn run(a: &Args) -> Result<()> {
    anyhow::ensure!(a.tables >= 1, "--tables must be at least 1");
    anyhow::ensure!(
        (1..=7).contains(&a.players),
        "--players is bots per table: 1 to 7"
    );
    anyhow::ensure!(
        a.pace.is_finite() && a.pace >= 0.0,
        "--pace is messages a second: 0 or more"
    );
    for s in &a.server {
        anyhow::ensure!(
            s.starts_with("http://") || s.starts_with("https://"),
            "--server {s}: write the server's address as http://HOST:PORT"
        );
    }
    let mut cfg = BotsConfig {
        servers: a
            .server
            .iter()
            .map(|s| s.trim_end_matches('/').to_string())
            .collect(),
        tables: a.tables,
        players: a.players,
        rounds: a.rounds,
        prefix: a.prefix.clone(),
        stall: Duration::from_secs(a.stall_secs),
        keep_frames: false,
        think: Duration::from_millis(a.think_ms),
        pace_per_s: a.pace,
        launch: None,
    };
    if let Some(db) = &a.operator_demo_db {
        // A launch link lands at one server; bots spread over several would each
        // arrive where the link points, not at their own.
        anyhow::ensure!(
            cfg.servers.len() == 1,
            "--operator-demo-db takes one --server (its launch links point at it)"
        );
        cfg.launch = Some(launch_links(db, &cfg.servers[0], a.bot_balance));
    }
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .context("starting the async runtime")?;
    let report = rt.block_on(bots::run(cfg)).map_err(anyhow::Error::msg)?;
    if a.json {
        println!("{}", serde_json::to_string(&report)?);
    } else {
        println!(
            "{} rounds, {} actions, {} refusals, {} errors, {} reconnects in {:.1} s: {:.1} rounds/s; \
             action to view p50 {:.1} ms, p95 {:.1} ms, p99 {:.1} ms",
            report.rounds,
            report.actions,
            report.refusals,
            report.errors,
            report.reconnects,
            report.seconds,
            report.rounds_per_s,
            report.latency_ms.p50,
            report.latency_ms.p95,
            report.latency_ms.p99
        );
        for (kind, l) in &report.latency_by_kind_ms {
            println!(
                "  {kind}: {} timed, p50 {:.1} ms, p95 {:.1} ms, p99 {:.1} ms",
                l.actions, l.p50, l.p95, l.p99
            );
        }
        for m in &report.error_messages {
            println!("  error: {m}");
        }
    }
    anyhow::ensure!(report.errors == 0, "{} bot(s) failed", report.errors);
    Ok(())
}
