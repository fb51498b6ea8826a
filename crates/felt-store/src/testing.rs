//! A throw-away PostgreSQL cluster for tests (feature `testing`).
//!
//! [`TestPostgres::start`] runs `scripts/postgres-test start` in a new temporary
//! directory: Debian's PostgreSQL is installed if missing, a cluster is made and
//! started on a free loopback port, and a watchdog stops it (and removes its directory)
//! once the test process is gone, however it ends. [`TestPostgres::shared`] is one
//! cluster for every test of a test binary; [`TestPostgres::fresh_database`] gives each
//! test a database of its own. When PostgreSQL cannot be started, the test panics with
//! the script's own words: nothing is skipped silently.

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
static DATABASES: AtomicU64 = AtomicU64::new(0);

impl TestPostgres {
    /// Starts a cluster of its own (for a test that restarts it); panics, with the
    /// script's error output, when PostgreSQL cannot be started.
    pub fn start() -> TestPostgres {
        let dir = std::env::temp_dir().join(format!(
            "felt-pg-{}-{}",
            std::process::id(),
            DATABASES.fetch_add(1, Ordering::Relaxed)
        ));
        let pid = std::process::id().to_string();
        let dir_arg = dir.to_string_lossy().to_string();
        match run(&["start", &dir_arg, &pid]) {
            Ok(out) => {
                let url = out.lines().last().unwrap_or_default().trim().to_string();
                assert!(
                    url.starts_with("postgres://"),
                    "scripts/postgres-test printed no URL: {out}"
                );
                TestPostgres { dir, url }
            }
            Err(e) => panic!("PostgreSQL could not be started for the tests: {e}"),
        }
    }

    /// The cluster shared by every test of this test binary (started on first use,
    /// stopped by its watchdog when the binary exits).
    pub fn shared() -> &'static TestPostgres {
        SHARED.get_or_init(TestPostgres::start)
    }

    /// The URL of the cluster's `felt` database (role `felt`, which may create
    /// databases).
    pub fn url(&self) -> &str {
        &self.url
    }

    /// A new, empty database on the cluster, for one test; returns its URL.
    pub fn fresh_database(&self) -> String {
        let n = DATABASES.fetch_add(1, Ordering::Relaxed);
        let name = format!("felt_test_{}_{n}", std::process::id());
        let mut client = ::postgres::Client::connect(&self.url, ::postgres::NoTls)
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

impl Drop for TestPostgres {
    fn drop(&mut self) {
        let dir = self.dir.to_string_lossy().to_string();
        let _ = run(&["stop", &dir]);
    }
}
