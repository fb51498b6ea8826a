//! `felt operator-demo`: the reference operator of `docs/operators.md`, a wallet with
//! its own books that keeps the contract, with faults to inject for tests; and the
//! launch links that send its players to felt's tables.

use anyhow::{Context, Result};
use felt_core::Money;
use felt_server::operator_demo::books::DemoBooks;
use felt_server::operator_demo::faults::Faults;
use felt_server::operator_demo::{self, DemoWallet};
use felt_server::wallet::signature::{unix_now, MIN_SECRET};
use std::io::Write;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// Arguments of `felt operator-demo`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// What to do.
    #[command(subcommand)]
    pub command: Demo,
}

/// The demo's commands.
#[derive(Debug, clap::Subcommand)]
pub enum Demo {
    /// Serve the wallet at http://ADDR/wallet/ (felt serve --wallet http://ADDR/wallet).
    Serve(ServeArgs),
    /// Print a launch link that seats a player at one of felt's tables.
    Launch(LaunchArgs),
}

/// Arguments of `felt operator-demo serve`.
#[derive(Debug, clap::Args)]
pub struct ServeArgs {
    /// The operator's books (an SQLite file, made if missing).
    #[arg(long, default_value = "operator-demo.db")]
    pub db: PathBuf,
    /// Where the wallet listens.
    #[arg(long, default_value = "127.0.0.1:9090")]
    pub addr: SocketAddr,
    /// The secret shared with felt (made, 32 random bytes in hex, if missing).
    #[arg(long, default_value = "operator-demo.secret")]
    pub secret_file: PathBuf,
    /// A player to open if missing: ID:NAME:BALANCE (repeatable).
    #[arg(long = "player", value_name = "ID:NAME:BALANCE")]
    pub players: Vec<String>,
    /// A player's wager limit, ID:AMOUNT (repeatable): a debit that would take the
    /// player's debits past it is refused, limit-reached.
    #[arg(long = "limit", value_name = "ID:AMOUNT")]
    pub limits: Vec<String>,
    /// The players' currency.
    #[arg(long, default_value = "EUR")]
    pub currency: String,
    /// A fault every call meets (repeatable): delay=MS, drop-after-commit,
    /// fail-before-commit, duplicate, slow=MS.
    #[arg(long = "fault", value_name = "FAULT")]
    pub faults: Vec<String>,
}

/// Arguments of `felt operator-demo launch`.
#[derive(Debug, clap::Args)]
pub struct LaunchArgs {
    /// The player's id at the operator.
    pub player: String,
    /// The operator's books.
    #[arg(long, default_value = "operator-demo.db")]
    pub db: PathBuf,
    /// The table to sit at.
    #[arg(long)]
    pub table: String,
    /// Where felt serve is.
    #[arg(long, default_value = "http://127.0.0.1:8080")]
    pub felt: String,
    /// How long the link may be used (seconds).
    #[arg(long, default_value_t = 600, value_parser = clap::value_parser!(u64).range(1..=86_400))]
    pub valid_secs: u64,
}

/// Runs the demo command.
pub fn run(a: &Args) -> Result<()> {
    match &a.command {
        Demo::Serve(s) => serve(s),
        Demo::Launch(l) => launch(l),
    }
}

/// `ID:NAME:BALANCE`.
fn player_arg(text: &str) -> Result<(String, String, Money)> {
    let mut parts = text.splitn(3, ':');
    let (Some(id), Some(name), Some(balance)) = (parts.next(), parts.next(), parts.next()) else {
        anyhow::bail!("--player {text}: write ID:NAME:BALANCE, e.g. p-1001:Alice:250.00");
    };
    let balance: Money = balance
        .parse()
        .with_context(|| format!("--player {text}: the balance"))?;
    anyhow::ensure!(
        !id.is_empty() && !name.is_empty() && balance >= Money::ZERO,
        "--player {text}: an id, a name and a balance not below zero"
    );
    Ok((id.to_string(), name.to_string(), balance))
}

/// `ID:AMOUNT`: a player's wager limit.
fn limit_arg(text: &str) -> Result<(String, Money)> {
    let (id, limit) = text
        .split_once(':')
        .with_context(|| format!("--limit {text}: write ID:AMOUNT, e.g. p-1001:50.00"))?;
    let limit: Money = limit
        .parse()
        .with_context(|| format!("--limit {text}: the amount"))?;
    anyhow::ensure!(
        !id.is_empty() && limit >= Money::ZERO,
        "--limit {text}: an id and an amount not below zero"
    );
    Ok((id.to_string(), limit))
}

/// The secret in `path`, made if the file is missing.
fn secret(path: &Path) -> Result<Vec<u8>> {
    if !path.exists() {
        let hex = format!(
            "{:032x}{:032x}",
            rand::random::<u128>(),
            rand::random::<u128>()
        );
        let mut options = std::fs::OpenOptions::new();
        options.write(true).create_new(true);
        #[cfg(unix)]
        std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
        let mut f = options
            .open(path)
            .with_context(|| format!("making the secret file {}", path.display()))?;
        writeln!(f, "{hex}").with_context(|| format!("writing {}", path.display()))?;
        eprintln!(
            "felt operator-demo: made the secret file {}",
            path.display()
        );
    }
    let mut bytes = std::fs::read(path)
        .with_context(|| format!("reading the secret file {}", path.display()))?;
    while matches!(bytes.last(), Some(b'\n' | b'\r')) {
        bytes.pop();
    }
    anyhow::ensure!(
        bytes.len() >= MIN_SECRET,
        "the secret in {} is {} bytes; it must be at least {MIN_SECRET}",
        path.display(),
        bytes.len()
    );
    Ok(bytes)
}

fn serve(a: &ServeArgs) -> Result<()> {
    let faults = Faults::parse(&a.faults).map_err(anyhow::Error::msg)?;
    let secret = secret(&a.secret_file)?;
    let mut books = DemoBooks::open(&a.db)?;
    for p in &a.players {
        let (id, name, balance) = player_arg(p)?;
        books.add_player(&id, &name, &a.currency, balance)?;
    }
    for l in &a.limits {
        let (id, limit) = limit_arg(l)?;
        books.set_wager_limit(&id, Some(limit))?;
    }
    let wallet = Arc::new(DemoWallet::new(books, secret, faults));
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .context("starting the async runtime")?;
    rt.block_on(async {
        let listener = tokio::net::TcpListener::bind(a.addr)
            .await
            .with_context(|| format!("--addr {}: cannot listen there", a.addr))?;
        let local = listener.local_addr()?;
        println!(
            "felt operator-demo: the wallet is at http://{local}/wallet (books {}, secret {})",
            a.db.display(),
            a.secret_file.display()
        );
        operator_demo::serve(listener, wallet)
            .await
            .context("serving the wallet")
    })
}

fn launch(a: &LaunchArgs) -> Result<()> {
    let mut books = DemoBooks::open(&a.db)?;
    let expires = unix_now().saturating_add(i64::try_from(a.valid_secs).unwrap_or(86_400));
    let link = |token: &str| operator_demo::launch_link(&a.felt, token, &a.table);
    // Check the address before a token is made for it.
    link("").map_err(|e| anyhow::anyhow!("--felt {}: {e}", a.felt))?;
    let token = books.launch_token(&a.player, expires)?;
    println!("{}", link(&token).map_err(anyhow::Error::msg)?);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_wager_limit_names_a_player_and_an_amount_not_below_zero() {
        assert_eq!(
            limit_arg("p-1:15.00").unwrap(),
            ("p-1".to_string(), Money::cents(15_00))
        );
        for bad in [":15.00", "p-1", "p-1:", "p-1:lots", "p-1:-1.00"] {
            assert!(limit_arg(bad).is_err(), "{bad}");
        }
    }
}
