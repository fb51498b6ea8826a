//! `felt serve`: the online tables (HTTP + WebSocket), on the same books as `felt play`.

use anyhow::{Context, Result};
use felt_core::Money;
use felt_server::app::{self, Server, Settings};
use felt_server::config;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::Duration;

/// Arguments of `felt serve`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The address to listen on.
    #[arg(long, default_value = "127.0.0.1:8080")]
    pub addr: SocketAddr,
    /// The books (an SQLite file), created on first use. Default: $FELT_DB, else
    /// felt.db in the user's data directory.
    #[arg(long)]
    pub db: Option<PathBuf>,
    /// The tables file (TOML; see docs/server.md). Default: one table of each preset.
    #[arg(long)]
    pub tables: Option<PathBuf>,
    /// A new account's play money.
    #[arg(long, default_value = "1000.00")]
    pub starting_balance: Money,
    /// Seconds the rounds in play get to finish when the server stops (SIGTERM,
    /// Ctrl-C); a round still open after it is parked and resumes at the next start.
    #[arg(long, default_value_t = 30)]
    pub grace_secs: u64,
    /// Log as JSON lines (one object per event) instead of text.
    #[arg(long)]
    pub json_logs: bool,
    /// The test mode: `POST /api/test/tables/NAME/shoe` stacks a table's next shoe
    /// (the browser tests' scenarios). Refused unless --addr is a loopback address.
    #[arg(long)]
    pub test_shoes: bool,
}

/// Runs the server until SIGTERM or Ctrl-C.
pub fn run(a: &Args) -> Result<()> {
    init_logs(a.json_logs);
    anyhow::ensure!(
        !a.test_shoes || a.addr.ip().is_loopback(),
        "--test-shoes deals chosen cards: it is refused on {}, allowed only on a loopback \
         address (127.0.0.1, ::1)",
        a.addr
    );
    let load = |g: &str| crate::game_arg::load_game(g).map_err(|e| format!("{e:#}"));
    let tables = match &a.tables {
        Some(p) => config::read(p, &load)?,
        None => config::default_tables(&load)?,
    };
    anyhow::ensure!(
        a.starting_balance >= Money::ZERO && a.starting_balance <= felt_core::round::MAX_BALANCE,
        "--starting-balance {}: 0 to {}",
        a.starting_balance,
        felt_core::round::MAX_BALANCE
    );
    let path = felt_store::resolve_db_path(a.db.as_deref())?;
    let store = felt_store::SqliteStore::open(&path)?;
    let settings = Settings {
        starting_balance: a.starting_balance,
        test_shoes: a.test_shoes,
        ..Settings::default()
    };
    let n = tables.len();
    let state = Server::start(
        Box::new(store),
        Some(felt_server::books::sqlite_readers(path.clone())),
        tables,
        settings,
    )
    .map_err(anyhow::Error::msg)
    .context("starting the tables")?;
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .context("starting the async runtime")?;
    rt.block_on(async {
        let listener = tokio::net::TcpListener::bind(a.addr)
            .await
            .with_context(|| format!("--addr {}: cannot listen there", a.addr))?;
        let local = listener.local_addr()?;
        tracing::info!(%local, tables = n, books = %path.display(), "felt serve is up");
        println!(
            "felt serve: {n} tables on http://{local}/ (books: {})",
            path.display()
        );
        println!("Open http://{local}/ in a browser to play.");
        if a.test_shoes {
            println!("felt serve: TEST MODE: POST /api/test/tables/NAME/shoe stacks a shoe");
        }
        app::serve(
            listener,
            state,
            stop_signal(),
            Duration::from_secs(a.grace_secs),
        )
        .await
        .context("serving")
    })?;
    println!("felt serve: stopped");
    Ok(())
}

fn init_logs(json: bool) {
    let filter = tracing_subscriber::EnvFilter::try_from_env("FELT_LOG")
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info"));
    let builder = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr);
    let _ = if json {
        builder.json().try_init()
    } else {
        builder.try_init()
    };
}

/// SIGTERM or Ctrl-C.
async fn stop_signal() {
    let ctrl_c = async {
        let _ = tokio::signal::ctrl_c().await;
    };
    #[cfg(unix)]
    let term = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut s) => {
                s.recv().await;
            }
            Err(_) => std::future::pending::<()>().await,
        }
    };
    #[cfg(not(unix))]
    let term = std::future::pending::<()>();
    tokio::select! {
        _ = ctrl_c => {},
        _ = term => {},
    }
}
