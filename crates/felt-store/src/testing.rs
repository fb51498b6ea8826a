//! A throw-away PostgreSQL cluster for tests (feature `testing`).
//!
//! [`TestPostgres::start`] runs `scripts/postgres-test start` in a new temporary
//! directory: Debian's PostgreSQL is installed if missing, a cluster is made and
//! started on a free loopback port, and a watchdog stops it (and removes its directory)
//! once the test process is gone, however it ends. [`TestPostgres::shared`] is one
//! cluster for every test of a test binary; [`TestPostgres::fresh_database`] gives each
//! test a database of its own. When PostgreSQL cannot be started, the test panics with
//! the script's own words: nothing is skipped silently.
//!
//! [`TestPostgres::start_tls`] (and [`TestPostgres::shared_tls`]) is a cluster that
//! speaks TLS and refuses TCP connections without it, its certificate (for `localhost`
//! and `127.0.0.1`) signed by a throw-away CA ([`TestPostgres::ca_pem`]);
//! [`session_tls`] tells whether a connection made as the store makes them is encrypted.

use crate::error::{Result, StoreError};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::OnceLock;

/// The script that makes, restarts and stops the clusters.
pub fn script() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scripts/postgres-test")
}

/// A running PostgreSQL cluster, stopped when dropped (or when the test process ends).
#[derive(Debug)]
pub struct TestPostgres {
    dir: PathBuf,
    url: String,
    tls: bool,
}

fn run(args: &[&str]) -> std::result::Result<String, String> {
    let script = script();
    let out = Command::new("bash")
        .arg(&script)
        .args(args)
        .output()
        .map_err(|e| format!("cannot run {}: {e}", script.display()))?;
    let stdout = String::from_utf8_lossy(&out.stdout).trim().to_string();
    if !out.status.success() {
        return Err(format!(
            "{} {} failed ({}):\n{}\n{}",
            script.display(),
            args.join(" "),
            out.status,
            String::from_utf8_lossy(&out.stderr).trim(),
            stdout
        ));
    }
    Ok(stdout)
}

static SHARED: OnceLock<TestPostgres> = OnceLock::new();
static SHARED_TLS: OnceLock<TestPostgres> = OnceLock::new();
static DATABASES: AtomicU64 = AtomicU64::new(0);

impl TestPostgres {
    /// Starts a cluster of its own (for a test that restarts it); panics, with the
    /// script's error output, when PostgreSQL cannot be started.
    pub fn start() -> TestPostgres {
        TestPostgres::start_with(false)
    }

    /// Starts a cluster of its own that speaks TLS (`scripts/postgres-test start
    /// --tls`): its certificate, for `localhost` and `127.0.0.1`, is signed by the CA of
    /// [`TestPostgres::ca_pem`], and it refuses TCP connections without TLS. Panics as
    /// [`TestPostgres::start`] does.
    pub fn start_tls() -> TestPostgres {
        TestPostgres::start_with(true)
    }

    fn start_with(tls: bool) -> TestPostgres {
        let dir = std::env::temp_dir().join(format!(
            "felt-pg-{}-{}",
            std::process::id(),
            DATABASES.fetch_add(1, Ordering::Relaxed)
        ));
        let pid = std::process::id().to_string();
        let dir_arg = dir.to_string_lossy().to_string();
        let mut args = vec!["start", &dir_arg, &pid];
        if tls {
            args.push("--tls");
        }
        match run(&args) {
            Ok(out) => {
                let url = out.lines().last().unwrap_or_default().trim().to_string();
                assert!(
                    url.starts_with("postgres://"),
                    "scripts/postgres-test printed no URL: {out}"
                );
                TestPostgres { dir, url, tls }
            }
            Err(e) => panic!("PostgreSQL could not be started for the tests: {e}"),
        }
    }

    /// The cluster shared by every test of this test binary (started on first use,
    /// stopped by its watchdog when the binary exits).
    pub fn shared() -> &'static TestPostgres {
        SHARED.get_or_init(TestPostgres::start)
    }

    /// The TLS cluster shared by every test of this test binary (see
    /// [`TestPostgres::start_tls`]).
    pub fn shared_tls() -> &'static TestPostgres {
        SHARED_TLS.get_or_init(TestPostgres::start_tls)
    }

    /// The PEM file of the CA that signed the server's certificate, for a cluster
    /// started with TLS (`None` otherwise).
    pub fn ca_pem(&self) -> Option<PathBuf> {
        self.tls.then(|| self.dir.join("ca.pem"))
    }

    /// The PEM file of a second CA that signed nothing of the cluster's, for a cluster
    /// started with TLS (`None` otherwise): a server it is told to trust is refused.
    pub fn other_ca_pem(&self) -> Option<PathBuf> {
        self.tls.then(|| self.dir.join("other-ca.pem"))
    }

    /// The URL of the cluster's `felt` database (role `felt`, which may create
    /// databases), by `127.0.0.1` and with no `sslmode` (so `prefer`: encrypted on a
    /// cluster started with TLS).
    pub fn url(&self) -> &str {
        &self.url
    }

    /// A new, empty database on the cluster, for one test; returns its URL.
    pub fn fresh_database(&self) -> String {
        let n = DATABASES.fetch_add(1, Ordering::Relaxed);
        let name = format!("felt_test_{}_{n}", std::process::id());
        let location = crate::location::redact_url(&self.url);
        let mut client = crate::postgres::connect(&self.url, &location, "felt test")
            .unwrap_or_else(|e| panic!("cannot connect to the test cluster: {e}"));
        client
            .batch_execute(&format!("CREATE DATABASE {name}"))
            .unwrap_or_else(|e| panic!("cannot create database {name}: {e}"));
        let base = self
            .url
            .rsplit_once('/')
            .map_or(self.url.as_str(), |(b, _)| b);
        format!("{base}/{name}")
    }

    /// Restarts the server (`pg_ctl restart -m fast`): every connection is cut.
    pub fn restart(&self) {
        let dir = self.dir.to_string_lossy().to_string();
        if let Err(e) = run(&["restart", &dir]) {
            panic!("the test cluster did not restart: {e}");
        }
    }

    /// The cluster's directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }
}

/// Whether a connection to `url`, made as the store makes its connections (the same
/// `sslmode` and `sslrootcert`), is encrypted: the TLS version the server reports for
/// the session (`pg_stat_ssl`), or `None` when it is not encrypted.
pub fn session_tls(url: &str) -> Result<Option<String>> {
    let location = crate::location::redact_url(url);
    let mut client = crate::postgres::connect(url, &location, "felt test")?;
    let failed = |e: ::postgres::Error| StoreError::ServerFailed {
        location: location.clone(),
        cause: e.into(),
    };
    let row = client
        .query_one(
            "SELECT ssl, version FROM pg_stat_ssl WHERE pid = pg_backend_pid()",
            &[],
        )
        .map_err(failed)?;
    let ssl: bool = row.try_get(0).map_err(failed)?;
    let version: Option<String> = row.try_get(1).map_err(failed)?;
    Ok(if ssl { version } else { None })
}

impl Drop for TestPostgres {
    fn drop(&mut self) {
        let dir = self.dir.to_string_lossy().to_string();
        let _ = run(&["stop", &dir]);
    }
}
