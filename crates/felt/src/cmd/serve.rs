//! `felt serve`: the online tables (HTTP + WebSocket), on the same books as `felt play`.

use anyhow::{Context, Result};
use felt_core::Money;
use felt_server::app::{self, Server, Settings};
use felt_server::config;
use std::net::SocketAddr;
use std::time::Duration;

/// Arguments of `felt serve`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The address to listen on.
    #[arg(long, default_value = "127.0.0.1:8080")]
    pub addr: SocketAddr,
    /// The books: an SQLite file (created on first use), or a PostgreSQL database
    /// (`postgres://user:password@host/db`, with `?sslmode=verify-full&sslrootcert=CA.pem`
    /// for TLS), which several servers share. Default: $FELT_DB, else felt.db in the
    /// user's data directory.
    #[arg(long)]
    pub db: Option<String>,
    /// This server's name in the table leases (stable across restarts: a restarted
    /// server takes its tables back at once). Default: the host name and the port.
    #[arg(long)]
    pub server_id: Option<String>,
    /// Where clients and the other servers reach this server (`http://host:port`),
    /// shown in the lobby and used by the others' relays; `https://...` says the server
    /// is behind TLS (a proxy's): the session cookie is then `Secure`. Its origin is
    /// also the page's own for the cross-origin check. Default: http://ADDR (with
    /// 127.0.0.1 for an unspecified address).
    #[arg(long)]
    pub public_url: Option<String>,
    /// Seconds a table lease lasts: a dead server's tables move to another live
    /// server after at most this long (renewed every second).
    #[arg(long, default_value_t = 5, value_parser = clap::value_parser!(u64).range(2..=300))]
    pub lease_secs: u64,
    /// The tables file (TOML; see docs/server.md). Default: one table of each preset.
    #[arg(long)]
    pub tables: Option<std::path::PathBuf>,
    /// A new account's play money.
    #[arg(long, default_value = "1000.00")]
    pub starting_balance: Money,
    /// The play money a player may add when their balance cannot cover a table's
    /// minimum bet (a deposit in the books; 0: no top-ups).
    #[arg(long, default_value = "1000.00")]
    pub top_up: Money,
    /// The least time between two top-ups of one player, in seconds.
    #[arg(long, default_value_t = 600, value_parser = clap::value_parser!(u64).range(1..=31_536_000))]
    pub top_up_every_secs: u64,
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
    /// A reverse proxy (its address) whose `X-Forwarded-For` names the client, for the
    /// log-in and registration throttling (repeat for several). Without one the header
    /// is ignored: the client is the connection's peer.
    #[arg(long = "trust-proxy", value_name = "IP")]
    pub trust_proxy: Vec<std::net::IpAddr>,
    /// An address for the monitoring only: `/metrics` and `/healthz` with its detail,
    /// no session asked (on --addr both need an operator's session; `/healthz` answers
    /// anyone 200 or 503 without detail).
    #[arg(long)]
    pub ops_addr: Option<SocketAddr>,
    /// Connections open at once (WebSockets included); more wait. Default: the
    /// open-files limit (raised to its hard limit at start) less 128.
    #[arg(long, value_parser = clap::value_parser!(u64).range(16..=1_000_000))]
    pub max_connections: Option<u64>,
    /// Accounts one client address may register per hour.
    #[arg(long, default_value_t = 20)]
    pub registrations_per_hour: u32,
    /// Table sockets one account may hold open at once (its tabs and devices).
    #[arg(long, default_value_t = 8, value_parser = clap::value_parser!(u32).range(1..=1_000))]
    pub sockets_per_account: u32,
    /// Table sockets one client address may hold open at once (a casino's players
    /// behind one NAT share an address: raise it for them, or trust their proxy).
    #[arg(long, default_value_t = 64, value_parser = clap::value_parser!(u32).range(1..=1_000_000))]
    pub sockets_per_address: u32,
    /// The operator's wallet (docs/operators.md): its base URL, https:// (http:// only
    /// to this machine).
    #[arg(long, value_name = "URL")]
    pub wallet: Option<String>,
    /// The secret the wallet calls are signed with (required with --wallet).
    #[arg(long, value_name = "FILE", requires = "wallet")]
    pub wallet_secret_file: Option<std::path::PathBuf>,
    /// Sessions, lock-outs, reality checks and the help line.
    #[command(flatten)]
    pub protection: super::serve_protection::Protection,
}

/// Runs the server until SIGTERM or Ctrl-C.
pub fn run(a: &Args) -> Result<()> {
    init_logs(a.json_logs);
    let wallet = a
        .wallet
        .as_ref()
        .map(|url| {
            felt_server::wallet::WalletSettings::from_args(url, a.wallet_secret_file.as_deref())
        })
        .transpose()?;
    anyhow::ensure!(
        !a.test_shoes || a.addr.ip().is_loopback(),
        "--test-shoes deals chosen cards: it is refused on {}, allowed only on a loopback \
         address (127.0.0.1, ::1)",
        a.addr
    );
    // Refused before the books are opened.
    a.protection.check()?;
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
    anyhow::ensure!(
        a.top_up >= Money::ZERO && a.top_up <= felt_core::round::MAX_BALANCE,
        "--top-up {}: 0 to {}",
        a.top_up,
        felt_core::round::MAX_BALANCE
    );
    let at = felt_store::resolve_books(a.db.as_deref())?;
    let books = felt_server::books::setup(&at)?;
    let url = a.public_url.clone().unwrap_or_else(|| {
        let mut addr = a.addr;
        if addr.ip().is_unspecified() {
            addr.set_ip(std::net::Ipv4Addr::LOCALHOST.into());
        }
        format!("http://{addr}")
    });
    let server_id = a.server_id.clone().unwrap_or_else(|| {
        let host = std::env::var("HOSTNAME")
            .ok()
            .filter(|h| !h.is_empty())
            .or_else(|| std::fs::read_to_string("/etc/hostname").ok())
            .map(|h| h.trim().to_string())
            .filter(|h| !h.is_empty())
            .unwrap_or_else(|| "felt".to_string());
        format!("{host}:{}", a.addr.port())
    });
    let mut hosting = felt_server::hosting::Hosting::new(server_id, url);
    hosting.lease = Duration::from_secs(a.lease_secs);
    let files = felt_server::listen::raise_open_files();
    let mut settings = Settings {
        starting_balance: a.starting_balance,
        test_shoes: a.test_shoes,
        trusted_proxies: a.trust_proxy.clone(),
        top_up: felt_server::topup::TopUp {
            amount: a.top_up,
            every: Duration::from_secs(a.top_up_every_secs),
        },
        ..Settings::default()
    };
    settings.conn.max = match a.max_connections {
        Some(n) => usize::try_from(n).unwrap_or(usize::MAX),
        None => felt_server::listen::max_for_files(files),
    };
    a.protection.apply(&mut settings)?;
    tracing::info!(
        jurisdiction = ?a.protection.jurisdiction,
        idle_mins = settings.idle_ms / 60_000,
        lock_after = settings.lock.after,
        lock_ms = settings.lock.for_ms,
        reality = ?settings.protection.reality,
        "player protection"
    );
    settings.guard.registrations = a.registrations_per_hour;
    settings.sockets.per_account = a.sockets_per_account as usize;
    settings.sockets.per_address = a.sockets_per_address as usize;
    settings.sockets.total = settings.sockets.total.max(settings.conn.max);
    let n = tables.len();
    let server_name = hosting.server.clone();
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .context("starting the async runtime")?;
    // With an operator's wallet, its outbox worker sends the credits and rollbacks on
    // a connection of its own to the books; any server's worker sends any pending call
    // (a call sent twice is answered once: the operator keys on its transaction id).
    let wallet = match wallet {
        Some(settings) => Some(felt_server::wallet::table::WalletMode {
            settings,
            runtime: rt.handle().clone(),
            outbox: felt_store::open_books(&at)?,
            policy: felt_server::wallet::outbox::RetryPolicy::default(),
            every: Duration::from_secs(1),
        }),
        None => None,
    };
    let state = Server::start_with_wallet(books, tables, settings, hosting, wallet)
        .map_err(anyhow::Error::msg)
        .context("starting the tables")?;
    rt.block_on(async {
        let listener = tokio::net::TcpListener::bind(a.addr)
            .await
            .with_context(|| format!("--addr {}: cannot listen there", a.addr))?;
        let local = listener.local_addr()?;
        if let Some(ops) = a.ops_addr {
            let l = tokio::net::TcpListener::bind(ops)
                .await
                .with_context(|| format!("--ops-addr {ops}: cannot listen there"))?;
            let app = app::ops_router(state.clone());
            let limits = state.settings().conn.clone();
            tokio::spawn(felt_server::listen::serve(l, app, limits, std::future::pending()));
            println!("felt serve: /metrics and /healthz on http://{ops}/");
        }
        let here = state.dealt_here().len();
        tracing::info!(%local, tables = n, dealt_here = here, server = %server_name, books = %at, "felt serve is up");
        println!(
            "felt serve: {n} tables, {here} dealt here, on http://{local}/ (server {server_name}; books: {at})"
        );
        println!("Open http://{local}/ in a browser to play.");
        if a.test_shoes {
            println!(
                "felt serve: TEST MODE: POST /api/test/tables/NAME/shoe stacks a shoe, POST /api/test/clock moves the clock forward"
            );
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
