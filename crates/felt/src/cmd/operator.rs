//! `felt operator NAME`: makes (or promotes) an operator login of the online tables.
//! The password is read from standard input (one line), never from the command line.

use anyhow::{Context, Result};
use felt_store::{NewLogin, Role};
use std::io::{BufRead, Read};

/// Arguments of `felt operator`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The operator's login name.
    pub name: String,
    /// The books (as `felt serve --db`).
    #[arg(long)]
    pub db: Option<String>,
}

/// Makes the operator (or gives an existing login the operator role and this password).
pub fn run(a: &Args) -> Result<()> {
    let name = felt_store::normalize_name("operator", &a.name).context("the operator's name")?;
    eprintln!("Password for operator {name} (one line on standard input):");
    let mut line = String::new();
    std::io::stdin()
        .lock()
        .take(4096)
        .read_line(&mut line)
        .context("reading the password")?;
    let password = line.trim_end_matches(['\n', '\r']);
    if let Some(p) = felt_server::auth::password_problem(&name, password) {
        anyhow::bail!("{p}; nothing was changed");
    }
    let hash = felt_server::auth::hash_password(password).map_err(anyhow::Error::msg)?;
    let path = felt_store::resolve_books(a.db.as_deref())?;
    let mut store = felt_store::open_books(&path)?;
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as i64);
    if store.login(&name)?.is_some() {
        store.set_login(&name, &hash, Role::Operator)?;
        println!("{name} is now an operator (password replaced) in {path}");
    } else {
        store.create_login(&NewLogin {
            name: &name,
            password_hash: &hash,
            role: Role::Operator,
            starting_balance: felt_core::Money::ZERO,
            now_ms: now,
        })?;
        println!("operator {name} made in {path}");
    }
    Ok(())
}
