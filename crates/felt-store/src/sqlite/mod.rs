//! The SQLite store: one file, WAL journal, `synchronous=FULL`, foreign keys on, a busy
//! timeout, and one `BEGIN IMMEDIATE` transaction per writing call. New books are
//! created (and older ones migrated) in one `BEGIN EXCLUSIVE` transaction that looks at
//! the file again first, so concurrent openers of a new file wait and then open it.
//!
//! Tables (schema 1, see [`schema`]): `schema_migrations` (version, name, applied_at);
//! `accounts` (kind, name, kept balance); `meters` (reset value and kept seed,
//! contribution and award totals); `rounds` (game, table, seed, seed SHA-256, status,
//! shoe before and after, result, void reason, where it ended); `round_steps` (seq,
//! action JSON); `round_events` (seq, step, event JSON); `entries` (one per movement:
//! round, step, kind, memo) and `postings` (two per entry, signed cents, summing to
//! zero); `shoes` (each table's current shoe); later schemas add shoe commitments and
//! rules (2), logins and web sessions (3) and the servers' table leases (4). Ledger and
//! journal are append-only (triggers refuse UPDATE and DELETE), and a round that ended
//! takes no more steps.

mod audit;
mod leases;
mod logins;
mod protection;
mod read;
pub mod schema;
mod seating;
#[cfg(test)]
mod tests;
mod wallet;

use crate::audit_log::{AuditEntry, AuditQuery, NewAuditEntry};
use crate::books::BooksReport;
use crate::error::{Result, StoreError};
use crate::lease::{checked_statuses, checked_tables, TableLease, TableStatus};
use crate::ledger::{balances_after, too_large, Limit};
use crate::limits::{Exclusion, LimitChange, RealitySchedule, UsageKind, UsageTotals};
use crate::login::{LockPolicy, Login, NewLogin, Role, WebSession};
use crate::model::{
    canonical_movements, seed_hash, sha256_hex, validate_json, Account, Balance, Ended, MeterInfo,
    Movement, MovementKind, NewRound, NewShoe, RoundId, RoundRecord, RoundShoe, RoundStatus,
    ShoeSeed, Step, StepWrite,
};
use crate::name::validate_name;
use crate::seating::{checked_seat, SeatClaim};
use crate::wallet::{NewWalletCall, WalletAnswer, WalletCall, WalletQuery};
use crate::Store;
use felt_core::money::Money;
use rusqlite::{params, Connection, ErrorCode, OpenFlags, OptionalExtension, TransactionBehavior};
use std::path::{Path, PathBuf};
use std::time::Duration;

/// How a [`SqliteStore`] or a [`crate::PgStore`] is opened.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OpenOptions {
    /// How long a call waits for another process's write lock (SQLite) or for a row
    /// another process holds (PostgreSQL's `lock_timeout`) before it fails with
    /// [`StoreError::Locked`]. Default 5 s.
    pub busy_timeout: Duration,
    /// Open for reading only (`felt history`, `felt books`): every write fails with
    /// [`StoreError::ReadOnly`], and the books must already be current felt books.
    pub read_only: bool,
}

impl Default for OpenOptions {
    fn default() -> OpenOptions {
        OpenOptions {
            busy_timeout: Duration::from_secs(5),
            read_only: false,
        }
    }
}

/// A schema migration as recorded in the file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AppliedMigration {
    /// Its version.
    pub version: i64,
    /// Its name.
    pub name: String,
    /// When it was applied (UTC, RFC 3339).
    pub applied_at: String,
}

/// The books in an SQLite file. See the [crate docs](crate) for an example.
#[derive(Debug)]
pub struct SqliteStore {
    conn: Connection,
    path: PathBuf,
    busy_ms: u64,
    /// A group transaction is open ([`Store::begin_group`]): each write is a savepoint
    /// inside it, and nothing is durable until [`Store::end_group`].
    in_group: bool,
    /// The server this connection's round writes are fenced to ([`Store::fence`]).
    fence: Option<String>,
}

/// A failure inside a call, before the file's path is attached.
#[derive(Debug)]
pub(crate) enum Fail {
    Sql(rusqlite::Error),
    Store(StoreError),
}

impl From<rusqlite::Error> for Fail {
    fn from(e: rusqlite::Error) -> Fail {
        Fail::Sql(e)
    }
}

impl From<StoreError> for Fail {
    fn from(e: StoreError) -> Fail {
        Fail::Store(e)
    }
}

pub(crate) type R<T> = std::result::Result<T, Fail>;

/// Turns a database error into the store's error for the file at `path`.
fn classify(path: &Path, busy_ms: u64, e: rusqlite::Error) -> StoreError {
    let path = path.to_path_buf();
    match &e {
        rusqlite::Error::SqliteFailure(f, _) => match f.code {
            ErrorCode::DatabaseBusy | ErrorCode::DatabaseLocked => StoreError::Locked {
                path,
                waited_ms: busy_ms,
            },
            ErrorCode::DiskFull => StoreError::DiskFull { path },
            ErrorCode::SystemIoFailure if is_write_failure(f.extended_code) => {
                StoreError::WriteFailed {
                    path,
                    cause: Box::new(e),
                }
            }
            ErrorCode::ReadOnly => StoreError::ReadOnly { path },
            ErrorCode::NotADatabase => StoreError::NotADatabase { path },
            ErrorCode::DatabaseCorrupt | ErrorCode::ConstraintViolation => StoreError::Damaged {
                path,
                detail: e.to_string(),
            },
            ErrorCode::CannotOpen | ErrorCode::PermissionDenied => StoreError::CannotOpen {
                path,
                cause: Box::new(e),
            },
            _ => StoreError::Database {
                path,
                cause: Box::new(e),
            },
        },
        rusqlite::Error::InvalidColumnType(..)
        | rusqlite::Error::FromSqlConversionFailure(..)
        | rusqlite::Error::IntegralValueOutOfRange(..)
        | rusqlite::Error::Utf8Error(..) => StoreError::Damaged {
            path,
            detail: e.to_string(),
        },
        _ => StoreError::Database {
            path,
            cause: Box::new(e),
        },
    }
}

/// Whether an extended `SQLITE_IOERR_*` code is a failed write, grow or sync of the
/// database, its journal or its shared-memory index (what a full disk or a file-size
/// limit gives when the system says so with an error rather than a short write).
fn is_write_failure(extended: std::os::raw::c_int) -> bool {
    use rusqlite::ffi;
    [
        ffi::SQLITE_IOERR_WRITE,
        ffi::SQLITE_IOERR_FSYNC,
        ffi::SQLITE_IOERR_DIR_FSYNC,
        ffi::SQLITE_IOERR_TRUNCATE,
        ffi::SQLITE_IOERR_SHMSIZE,
        ffi::SQLITE_IOERR_SHMMAP,
    ]
    .contains(&extended)
}

/// `Damaged` for the current file, from a detail.
pub(crate) fn damaged(detail: impl Into<String>) -> Fail {
    Fail::Store(StoreError::Damaged {
        path: PathBuf::new(),
        detail: detail.into(),
    })
}

/// The prepared statements a connection keeps: more than a round's step, its end and
/// the reads beside them use in turn (rusqlite's default of 16 is fewer, so each
/// statement would be parsed again every step).
const STATEMENT_CACHE: usize = 128;

impl SqliteStore {
    /// Opens (creating and migrating on first use) the books at `path`, with the default
    /// options. Missing parent directories are created.
    pub fn open(path: impl AsRef<Path>) -> Result<SqliteStore> {
        SqliteStore::open_with(path, &OpenOptions::default())
    }

    /// Opens the books at `path` for reading only; the file must exist and be a current
    /// felt database.
    pub fn open_read_only(path: impl AsRef<Path>) -> Result<SqliteStore> {
        SqliteStore::open_with(
            path,
            &OpenOptions {
                read_only: true,
                ..OpenOptions::default()
            },
        )
    }

    /// Opens the books at `path` with `options`.
    pub fn open_with(path: impl AsRef<Path>, options: &OpenOptions) -> Result<SqliteStore> {
        let path = path.as_ref().to_path_buf();
        let busy_ms = u64::try_from(options.busy_timeout.as_millis()).unwrap_or(u64::MAX);
        let cannot_open =
            |cause: Box<dyn std::error::Error + Send + Sync>| StoreError::CannotOpen {
                path: path.clone(),
                cause,
            };
        if path.is_dir() {
            return Err(cannot_open("it is a directory, not a file".into()));
        }
        let flags = if options.read_only {
            if !path.exists() {
                return Err(cannot_open("no such file".into()));
            }
            OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX
        } else {
            if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
                std::fs::create_dir_all(parent).map_err(|e| cannot_open(Box::new(e)))?;
            }
            OpenFlags::SQLITE_OPEN_READ_WRITE
                | OpenFlags::SQLITE_OPEN_CREATE
                | OpenFlags::SQLITE_OPEN_NO_MUTEX
        };
        let conn =
            Connection::open_with_flags(&path, flags).map_err(|e| classify(&path, busy_ms, e))?;
        conn.set_prepared_statement_cache_capacity(STATEMENT_CACHE);
        let mut store = SqliteStore {
            conn,
            path,
            busy_ms,
            in_group: false,
            fence: None,
        };
        store.set_up(options).map_err(|e| store.fail(e))?;
        Ok(store)
    }

    /// The file the books are in.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The schema version of the file (`PRAGMA user_version`).
    pub fn schema_version(&self) -> Result<i64> {
        self.read(|c| Ok(c.pragma_query_value(None, "user_version", |r| r.get(0))?))
    }

    /// The migrations applied to the file, oldest first.
    pub fn migrations(&self) -> Result<Vec<AppliedMigration>> {
        self.read(|c| {
            let mut st = c.prepare(
                "SELECT version, name, applied_at FROM schema_migrations ORDER BY version",
            )?;
            let rows = st.query_map([], |r| {
                Ok(AppliedMigration {
                    version: r.get(0)?,
                    name: r.get(1)?,
                    applied_at: r.get(2)?,
                })
            })?;
            Ok(rows.collect::<rusqlite::Result<Vec<_>>>()?)
        })
    }

    fn fail(&self, e: Fail) -> StoreError {
        match e {
            Fail::Sql(e) => classify(&self.path, self.busy_ms, e),
            Fail::Store(StoreError::Damaged { path, detail }) if path.as_os_str().is_empty() => {
                StoreError::Damaged {
                    path: self.path.clone(),
                    detail,
                }
            }
            Fail::Store(e) => e,
        }
    }

    /// Recognises the file, sets the connection up and migrates it.
    ///
    /// Several processes may open books that do not exist yet at the same instant (two
    /// `felt play` on a new `--db`, a `felt books` beside them). Every look at the file
    /// is one transaction, so it sees the file before a creation or after it, never in
    /// between; a file that needs creating (or migrating) is looked at again and set up
    /// inside one `BEGIN EXCLUSIVE` transaction, which the other openers wait for (the
    /// busy timeout) before they look, and then find complete books.
    fn set_up(&mut self, options: &OpenOptions) -> R<()> {
        self.conn
            .busy_timeout(options.busy_timeout)
            .map_err(Fail::Sql)?;
        if options.read_only {
            let state = self.wait_for_books(options.busy_timeout)?;
            if state.version < schema::LATEST {
                return Err(StoreError::Damaged {
                    path: self.path.clone(),
                    detail: format!(
                        "it holds schema {} and this felt needs {}; a read-only open cannot \
                         set it up (open it once for writing, e.g. with `felt play`)",
                        state.version,
                        schema::LATEST
                    ),
                }
                .into());
            }
            self.conn.pragma_update(None, "foreign_keys", true)?;
            return Ok(());
        }
        // Current books (the usual case) are opened without taking the write lock.
        let path = self.path.clone();
        let state = in_transaction(&mut self.conn, TransactionBehavior::Deferred, |c| {
            inspect(c, &path)
        })?;
        if state.version < schema::LATEST {
            self.migrate()?;
        }
        // WAL: readers never block the writer, and a commit is one append + fsync. The
        // journal mode cannot change inside a transaction, so it is set once the books
        // exist; books another opener set up a moment ago may still be switching.
        self.use_wal(options.busy_timeout)?;
        // FULL: a committed transaction survives a power cut, not only a crash.
        self.conn.pragma_update(None, "synchronous", "FULL")?;
        self.conn.pragma_update(None, "foreign_keys", true)?;
        self.verify_migrations()?;
        Ok(())
    }

    /// Looks at a file opened for reading only. A file with nothing in it yet (another
    /// felt has just created it and is about to set it up) is looked at again until it
    /// holds books, at most for the busy timeout: then it holds no books yet.
    fn wait_for_books(&mut self, timeout: Duration) -> R<FileState> {
        let path = self.path.clone();
        let deadline = std::time::Instant::now() + timeout;
        loop {
            let state = in_transaction(&mut self.conn, TransactionBehavior::Deferred, |c| {
                inspect(c, &path)
            })?;
            if !state.is_empty() {
                return Ok(state);
            }
            if std::time::Instant::now() >= deadline {
                return Err(StoreError::NoBooksYet { path }.into());
            }
            std::thread::sleep(Duration::from_millis(10));
        }
    }

    /// Puts the file in WAL mode. Leaving the rollback journal needs the file to
    /// itself, and SQLite does not always wait for that: a busy file is tried again
    /// until the busy timeout has passed.
    fn use_wal(&mut self, timeout: Duration) -> R<()> {
        let deadline = std::time::Instant::now() + timeout;
        loop {
            match self
                .conn
                .pragma_update_and_check(None, "journal_mode", "WAL", |r| r.get::<_, String>(0))
            {
                Ok(_mode) => return Ok(()),
                Err(rusqlite::Error::SqliteFailure(f, _))
                    if matches!(f.code, ErrorCode::DatabaseBusy | ErrorCode::DatabaseLocked)
                        && std::time::Instant::now() < deadline =>
                {
                    std::thread::sleep(Duration::from_millis(5));
                }
                Err(e) => return Err(e.into()),
            }
        }
    }

    /// Creates or migrates the books: looks at the file again and sets it up in one
    /// exclusive transaction (another opener may have done it between the first look
    /// and this lock).
    fn migrate(&mut self) -> R<()> {
        let path = self.path.clone();
        in_transaction(&mut self.conn, TransactionBehavior::Exclusive, |tx| {
            let state = inspect(tx, &path)?;
            if state.version >= schema::LATEST {
                return Ok(());
            }
            for m in schema::MIGRATIONS
                .iter()
                .filter(|m| m.version > state.version)
            {
                tx.execute_batch(m.sql)?;
                tx.execute(
                    "INSERT INTO schema_migrations (version, name) VALUES (?1, ?2)",
                    params![m.version, m.name],
                )?;
                tx.pragma_update(None, "user_version", m.version)?;
            }
            tx.pragma_update(None, "application_id", schema::APP_ID)?;
            Ok(())
        })
    }

    fn verify_migrations(&mut self) -> R<()> {
        in_transaction(&mut self.conn, TransactionBehavior::Deferred, |c| {
            verify_migrations(c)
        })
    }

    /// Runs `f` in one write transaction (`BEGIN IMMEDIATE`); rolls back on any error.
    /// Inside a group, `f` runs in a savepoint of the group's transaction instead: an
    /// error rolls back `f`'s writes only.
    fn write<T>(&mut self, f: impl FnOnce(&Connection) -> R<T>) -> Result<T> {
        let in_group = self.in_group;
        let out = (|| {
            if in_group {
                let sp = self.conn.savepoint()?;
                let out = f(&sp)?;
                sp.commit()?;
                return Ok(out);
            }
            let tx = self
                .conn
                .transaction_with_behavior(TransactionBehavior::Immediate)?;
            let out = f(&tx)?;
            tx.commit()?;
            Ok(out)
        })();
        out.map_err(|e| self.fail(e))
    }

    /// Runs `f` in one read transaction (a consistent snapshot); inside a group, in the
    /// group's transaction (which sees the group's writes).
    fn read<T>(&self, f: impl FnOnce(&Connection) -> R<T>) -> Result<T> {
        if self.in_group {
            return f(&self.conn).map_err(|e| self.fail(e));
        }
        let out = (|| {
            let tx = self.conn.unchecked_transaction()?;
            let out = f(&tx)?;
            tx.finish()?;
            Ok(out)
        })();
        out.map_err(|e| self.fail(e))
    }

    #[cfg(test)]
    pub(crate) fn conn(&self) -> &Connection {
        &self.conn
    }
}

/// Runs `f` in one transaction of `behavior` on `conn`; rolls back on any error.
fn in_transaction<T>(
    conn: &mut Connection,
    behavior: TransactionBehavior,
    f: impl FnOnce(&Connection) -> R<T>,
) -> R<T> {
    let tx = conn.transaction_with_behavior(behavior)?;
    let out = f(&tx)?;
    tx.commit()?;
    Ok(out)
}

/// Checks that the schema version and the list of migrations agree.
fn verify_migrations(conn: &Connection) -> R<()> {
    let version: i64 = conn.pragma_query_value(None, "user_version", |r| r.get(0))?;
    let listed: i64 = conn
        .query_row(
            "SELECT COUNT(*) FROM schema_migrations WHERE version BETWEEN 1 AND ?1",
            [version],
            |r| r.get(0),
        )
        .map_err(|e| damaged(format!("its schema_migrations table is unreadable: {e}")))?;
    if listed != version {
        return Err(damaged(format!(
            "it says schema {version} but its schema_migrations table lists {listed} \
                 migrations"
        )));
    }
    Ok(())
}

/// What a file turned out to be.
struct FileState {
    version: i64,
    /// Nothing in it yet: no application id, no schema, no table.
    empty: bool,
}

impl FileState {
    fn is_empty(&self) -> bool {
        self.empty
    }
}

/// Recognises a felt database (or a fresh file) and refuses anything else.
fn inspect(conn: &Connection, path: &Path) -> R<FileState> {
    let app_id: i32 = conn.pragma_query_value(None, "application_id", |r| r.get(0))?;
    let version: i64 = conn.pragma_query_value(None, "user_version", |r| r.get(0))?;
    let mut st = conn.prepare(
        "SELECT name FROM sqlite_master WHERE type IN ('table', 'view') \
         AND name NOT LIKE 'sqlite_%' ORDER BY name",
    )?;
    let tables = st
        .query_map([], |r| r.get::<_, String>(0))?
        .collect::<rusqlite::Result<Vec<_>>>()?;
    let foreign = |detail: String| {
        Fail::Store(StoreError::ForeignDatabase {
            path: path.to_path_buf(),
            detail,
        })
    };
    if app_id != schema::APP_ID {
        if app_id != 0 {
            return Err(foreign(format!(
                "application id {app_id:#010x}, felt's is {:#010x}",
                schema::APP_ID
            )));
        }
        if !tables.is_empty() || version != 0 {
            let shown = crate::error::some_tables(&tables);
            return Err(foreign(format!(
                "no felt application id; schema version {version}; tables: {}",
                if shown.is_empty() { "none" } else { &shown }
            )));
        }
    }
    if version > schema::LATEST {
        return Err(Fail::Store(StoreError::NewerSchema {
            path: path.to_path_buf(),
            found: version,
            known: schema::LATEST,
        }));
    }
    if version < 0 {
        return Err(damaged(format!("its schema version is {version}")));
    }
    Ok(FileState {
        version,
        empty: app_id == 0 && version == 0 && tables.is_empty(),
    })
}

// ---- writing -------------------------------------------------------------------

/// The id of `account`, created if missing (a meter must exist already).
fn ensure_account(tx: &Connection, account: &Account) -> R<i64> {
    let found: Option<i64> = tx
        .prepare_cached("SELECT id FROM accounts WHERE kind = ?1 AND name = ?2")?
        .query_row(params![account.kind_str(), account.name()], |r| r.get(0))
        .optional()?;
    if let Some(id) = found {
        return Ok(id);
    }
    if let Account::Meter(m) = account {
        return Err(StoreError::UnknownMeter { meter: m.clone() }.into());
    }
    tx.prepare_cached("INSERT INTO accounts (kind, name) VALUES (?1, ?2)")?
        .execute(params![account.kind_str(), account.name()])?;
    Ok(tx.last_insert_rowid())
}

fn account_balance(tx: &Connection, id: i64) -> R<i64> {
    Ok(tx
        .prepare_cached("SELECT balance_cents FROM accounts WHERE id = ?1")?
        .query_row([id], |r| r.get(0))?)
}

/// Writes one movement: an entry, its two postings, the kept balances and meter
/// counters. The caller has validated it.
fn apply_movement(
    tx: &Connection,
    m: &Movement,
    round: Option<i64>,
    step: Option<i64>,
    limit: Limit,
) -> R<i64> {
    let amount = m.amount.as_cents();
    let from = ensure_account(tx, &m.from)?;
    let to = ensure_account(tx, &m.to)?;
    let from_bal = account_balance(tx, from)?;
    let to_bal = account_balance(tx, to)?;
    let (new_from, new_to) = balances_after(m, from_bal, to_bal, limit)?;
    tx.prepare_cached(
        "INSERT INTO entries (round_id, step_seq, kind, memo) VALUES (?1, ?2, ?3, ?4)",
    )?
    .execute(params![round, step, m.kind.as_str(), m.memo])?;
    let entry = tx.last_insert_rowid();
    let mut post = tx.prepare_cached(
        "INSERT INTO postings (entry_id, account_id, amount_cents) VALUES (?1, ?2, ?3)",
    )?;
    post.execute(params![entry, from, -amount])?;
    post.execute(params![entry, to, amount])?;
    let mut set = tx.prepare_cached("UPDATE accounts SET balance_cents = ?2 WHERE id = ?1")?;
    set.execute(params![from, new_from])?;
    set.execute(params![to, new_to])?;
    if let Account::Meter(_) = m.to {
        bump_meter(tx, to, m, amount)?;
    }
    if let Account::Meter(_) = m.from {
        bump_meter(tx, from, m, -amount)?;
    }
    Ok(entry)
}

/// Updates a meter's kept counters for `delta` cents moved into it (negative: out).
fn bump_meter(tx: &Connection, account: i64, m: &Movement, delta: i64) -> R<()> {
    let (column, signed) = match m.kind {
        MovementKind::Seed => ("seeded_cents", delta),
        MovementKind::Contribution => ("contributions_cents", delta),
        MovementKind::Award => ("awards_cents", -delta),
        other => {
            return Err(StoreError::InvalidMovement {
                reason: format!("a {other} cannot touch a progressive meter"),
            }
            .into())
        }
    };
    let current: i64 = tx
        .prepare_cached(&format!(
            "SELECT {column} FROM meters WHERE account_id = ?1"
        ))?
        .query_row([account], |r| r.get(0))
        .optional()?
        .ok_or_else(|| damaged(format!("meter account {account} has no meters row")))?;
    let next = current.checked_add(signed).ok_or_else(|| too_large(m))?;
    tx.prepare_cached(&format!(
        "UPDATE meters SET {column} = ?2 WHERE account_id = ?1"
    ))?
    .execute(params![account, next])?;
    Ok(())
}

/// The status of a round, or `UnknownRound`.
fn round_status(tx: &Connection, round: RoundId) -> R<RoundStatus> {
    let s: Option<String> = tx
        .prepare_cached("SELECT status FROM rounds WHERE id = ?1")?
        .query_row([round.0], |r| r.get(0))
        .optional()?;
    let s = s.ok_or(StoreError::UnknownRound { round: round.0 })?;
    RoundStatus::parse(&s).ok_or_else(|| damaged(format!("round {round} has status `{s}`")))
}

/// Checks that `round` is open and that this connection may write it (the fence, see
/// [`Store::fence`]): an unknown round first, then a lost lease, then an ended round.
fn require_open(tx: &Connection, round: RoundId, fence: Option<&str>) -> R<()> {
    if fence.is_some() {
        let table: Option<String> = tx
            .prepare_cached("SELECT table_id FROM rounds WHERE id = ?1")?
            .query_row([round.0], |r| r.get(0))
            .optional()?;
        let table = table.ok_or(StoreError::UnknownRound { round: round.0 })?;
        leases::check_fence(tx, fence, &table)?;
    }
    match round_status(tx, round)? {
        RoundStatus::Open => Ok(()),
        s => Err(StoreError::RoundClosed {
            round: round.0,
            status: s.to_string(),
        }
        .into()),
    }
}

/// Writes a step of an open round; returns its seq.
fn insert_step(tx: &Connection, round: RoundId, step: &Step) -> R<u32> {
    let seq: i64 = tx
        .prepare_cached("SELECT COALESCE(MAX(seq), 0) + 1 FROM round_steps WHERE round_id = ?1")?
        .query_row([round.0], |r| r.get(0))?;
    tx.prepare_cached("INSERT INTO round_steps (round_id, seq, action_json) VALUES (?1, ?2, ?3)")?
        .execute(params![round.0, seq, step.action])?;
    let mut ev: i64 = tx
        .prepare_cached("SELECT COALESCE(MAX(seq), 0) FROM round_events WHERE round_id = ?1")?
        .query_row([round.0], |r| r.get(0))?;
    let mut ins = tx.prepare_cached(
        "INSERT INTO round_events (round_id, seq, step_seq, event_json) VALUES (?1, ?2, ?3, ?4)",
    )?;
    for e in &step.events {
        ev += 1;
        ins.execute(params![round.0, ev, seq, e])?;
    }
    for m in &step.movements {
        apply_movement(tx, m, Some(round.0), Some(seq), Limit::Round)?;
    }
    wallet::insert(tx, round, &step.wallet)?;
    u32::try_from(seq).map_err(|_| damaged(format!("round {round} has step {seq}")))
}

/// Marks a round ended, recording where its steps and entries stop.
fn close_round(
    tx: &Connection,
    round: RoundId,
    status: RoundStatus,
    result: Option<&str>,
    void_reason: Option<&str>,
    shoe_after: Option<&[u8]>,
) -> R<()> {
    let last_step: i64 = tx
        .prepare_cached("SELECT COALESCE(MAX(seq), 0) FROM round_steps WHERE round_id = ?1")?
        .query_row([round.0], |r| r.get(0))?;
    let last_entry: i64 = tx
        .prepare_cached("SELECT COALESCE(MAX(id), 0) FROM entries WHERE round_id = ?1")?
        .query_row([round.0], |r| r.get(0))?;
    tx.prepare_cached(
        "UPDATE rounds SET status = ?2, result_json = ?3, void_reason = ?4, shoe_after = ?5, \
         last_step = ?6, last_entry = ?7, ended_at = strftime('%Y-%m-%dT%H:%M:%fZ', 'now') \
         WHERE id = ?1",
    )?
    .execute(params![
        round.0,
        status.as_str(),
        result,
        void_reason,
        shoe_after,
        last_step,
        last_entry
    ])?;
    Ok(())
}

/// Writes a new shoe's commitment for `table` and retires the table's previous shoe;
/// returns the new shoe's id.
fn commit_shoe(tx: &Connection, table: &str, new: &NewShoe) -> R<i64> {
    tx.prepare_cached(
        "UPDATE shoe_seeds SET retired_at = strftime('%Y-%m-%dT%H:%M:%fZ', 'now') \
         WHERE table_id = ?1 AND retired_at IS NULL",
    )?
    .execute([table])?;
    tx.prepare_cached(
        "INSERT INTO shoe_seeds (table_id, seed, commitment, lab) VALUES (?1, ?2, ?3, ?4)",
    )?
    .execute(params![table, &new.seed[..], seed_hash(&new.seed), new.lab])?;
    Ok(tx.last_insert_rowid())
}

/// Retires the shoe round `round` was dealt from (if it has one and it is in play).
fn retire_round_shoe(tx: &Connection, round: RoundId) -> R<()> {
    tx.prepare_cached(
        "UPDATE shoe_seeds SET retired_at = strftime('%Y-%m-%dT%H:%M:%fZ', 'now') \
         WHERE id = (SELECT shoe_id FROM rounds WHERE id = ?1) AND retired_at IS NULL",
    )?
    .execute([round.0])?;
    Ok(())
}

/// How a round ends, as [`finish_in`] writes it.
struct End<'a> {
    result_json: &'a str,
    shoe_after: Option<&'a [u8]>,
    ended: &'a Ended,
    retire_shoe: bool,
    counted_at_ms: Option<i64>,
}

/// Writes a round's last step (if any), closes it (finished, or voided by the game)
/// and keeps the shoe it leaves, retiring its commitment if asked, and counts the
/// round against its players' limits if asked; returns the number of its last step.
fn finish_in(tx: &Connection, round: RoundId, last: &Step, end: &End<'_>) -> R<u32> {
    let shoe_after = end.shoe_after;
    let seq = if last.is_empty() {
        let n: i64 = tx.query_row(
            "SELECT COALESCE(MAX(seq), 0) FROM round_steps WHERE round_id = ?1",
            [round.0],
            |r| r.get(0),
        )?;
        u32::try_from(n).map_err(|_| damaged(format!("round {round} has step {n}")))?
    } else {
        insert_step(tx, round, last)?
    };
    let (status, reason) = match end.ended {
        Ended::Finished => (RoundStatus::Finished, None),
        Ended::Voided(why) => (RoundStatus::Voided, Some(why.as_str())),
    };
    close_round(tx, round, status, Some(end.result_json), reason, shoe_after)?;
    if let Some(shoe) = shoe_after {
        tx.execute(
            "INSERT INTO shoes (table_id, state, round_id, seed_id) \
             SELECT table_id, ?2, id, shoe_id FROM rounds WHERE id = ?1 \
             ON CONFLICT (table_id) DO UPDATE SET state = excluded.state, \
             round_id = excluded.round_id, seed_id = excluded.seed_id, \
             updated_at = excluded.updated_at",
            params![round.0, shoe],
        )?;
    }
    if end.retire_shoe || status == RoundStatus::Voided {
        retire_round_shoe(tx, round)?;
    }
    wallet::close_round(tx, round, status == RoundStatus::Voided)?;
    if let Some(at_ms) = end.counted_at_ms {
        protection::count_round(tx, round, at_ms)?;
    }
    Ok(seq)
}

impl Store for SqliteStore {
    fn begin_group(&mut self) -> Result<()> {
        if self.in_group {
            return Err(StoreError::InvalidInput(
                "a group commit is already open".to_string(),
            ));
        }
        self.conn
            .execute_batch("BEGIN IMMEDIATE")
            .map_err(|e| self.fail(Fail::Sql(e)))?;
        self.in_group = true;
        Ok(())
    }

    fn end_group(&mut self) -> Result<()> {
        if !self.in_group {
            return Ok(());
        }
        self.in_group = false;
        if let Err(e) = self.conn.execute_batch("COMMIT") {
            // A failed COMMIT may leave the transaction open: nothing of it stays.
            if !self.conn.is_autocommit() {
                let _ = self.conn.execute_batch("ROLLBACK");
            }
            return Err(self.fail(Fail::Sql(e)));
        }
        Ok(())
    }

    fn post(&mut self, movements: &[Movement]) -> Result<Vec<i64>> {
        let movements = canonical_movements(movements)?;
        self.write(|tx| {
            movements
                .iter()
                .map(|m| apply_movement(tx, m, None, None, Limit::Checked))
                .collect()
        })
    }

    fn create_meter(
        &mut self,
        meter: &str,
        reset: Money,
        funded_by: &Account,
    ) -> Result<MeterInfo> {
        validate_name("meter", meter)?;
        if reset.as_cents() < 0 {
            return Err(StoreError::InvalidInput(format!(
                "the reset value of meter `{meter}` cannot be below zero (got {reset})"
            )));
        }
        let seed = Movement::new(
            funded_by.canonical()?.into_owned(),
            Account::meter(meter),
            reset,
            MovementKind::Seed,
        )
        .with_memo(format!("initial value of meter {meter}"));
        if reset.as_cents() > 0 {
            seed.validate()?;
        }
        self.write(|tx| {
            if let Some(info) = read::meter_info(tx, meter)? {
                return Ok(info);
            }
            tx.execute(
                "INSERT INTO accounts (kind, name) VALUES ('meter', ?1)",
                [meter],
            )?;
            let id = tx.last_insert_rowid();
            tx.execute(
                "INSERT INTO meters (account_id, meter_id, reset_cents) VALUES (?1, ?2, ?3)",
                params![id, meter, reset.as_cents()],
            )?;
            if reset.as_cents() > 0 {
                apply_movement(tx, &seed, None, None, Limit::Checked)?;
            }
            read::meter_info(tx, meter)?
                .ok_or_else(|| damaged(format!("meter {meter} vanished after its creation")))
        })
    }

    fn begin_round(&mut self, round: &NewRound) -> Result<RoundId> {
        validate_name("game", &round.game_id)?;
        validate_name("table", &round.table_id)?;
        if let Some(rules) = &round.rules {
            if rules.trim().is_empty() {
                return Err(StoreError::InvalidInput(
                    "a round's rules text cannot be empty".to_string(),
                ));
            }
        }
        let hash = seed_hash(&round.seed);
        let fence = self.fence.clone();
        self.write(|tx| {
            leases::check_fence(tx, fence.as_deref(), &round.table_id)?;
            let shoe_id = match &round.shoe_seed {
                RoundShoe::Unrecorded => None,
                RoundShoe::Current(id) => {
                    let s =
                        read::shoe_seed(tx, *id)?.ok_or(StoreError::UnknownShoe { shoe: *id })?;
                    if s.table_id != round.table_id || s.is_retired() {
                        return Err(StoreError::ShoeRetired {
                            shoe: *id,
                            table: s.table_id,
                        }
                        .into());
                    }
                    Some(*id)
                }
                RoundShoe::New(new) => Some(commit_shoe(tx, &round.table_id, new)?),
            };
            let rules_sha = match &round.rules {
                None => None,
                Some(text) => {
                    let sha = sha256_hex(text.as_bytes());
                    tx.prepare_cached(
                        "INSERT INTO rules_texts (sha256, canonical) VALUES (?1, ?2) \
                         ON CONFLICT (sha256) DO NOTHING",
                    )?
                    .execute(params![sha, text])?;
                    Some(sha)
                }
            };
            tx.execute(
                "INSERT INTO rounds (game_id, table_id, seed, seed_sha256, shoe_before, \
                 shoe_id, shoe_round, rules_sha256, lab) \
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
                params![
                    round.game_id,
                    round.table_id,
                    &round.seed[..],
                    hash,
                    round.shoe,
                    shoe_id,
                    shoe_id.map(|_| round.shoe_round),
                    rules_sha,
                    round.lab,
                ],
            )?;
            Ok(RoundId(tx.last_insert_rowid()))
        })
    }

    fn record_step(&mut self, round: RoundId, step: &Step) -> Result<u32> {
        let step = step.canonical()?;
        let fence = self.fence.clone();
        self.write(|tx| {
            require_open(tx, round, fence.as_deref())?;
            insert_step(tx, round, &step)
        })
    }

    fn record_step_with(
        &mut self,
        round: RoundId,
        meters: &[&str],
        compute: &mut dyn FnMut(&[Money]) -> StepWrite,
    ) -> Result<Option<u32>> {
        let fence = self.fence.clone();
        self.write(|tx| {
            require_open(tx, round, fence.as_deref())?;
            let mut values = Vec::with_capacity(meters.len());
            for m in meters {
                let v: Option<i64> = tx
                    .prepare_cached(
                        "SELECT balance_cents FROM accounts WHERE kind = 'meter' AND name = ?1",
                    )?
                    .query_row([m], |r| r.get(0))
                    .optional()?;
                let v = v.ok_or_else(|| StoreError::UnknownMeter {
                    meter: (*m).to_string(),
                })?;
                values.push(Money::cents(v));
            }
            match compute(&values) {
                StepWrite::Nothing => Ok(None),
                StepWrite::Step(step) => {
                    let step = step.canonical()?;
                    insert_step(tx, round, &step).map(Some)
                }
                StepWrite::Finish {
                    last,
                    result_json,
                    shoe_after,
                    ended,
                    retire_shoe,
                    counted_at_ms,
                } => {
                    let last = last.canonical()?;
                    validate_json("round result", &result_json)?;
                    let end = End {
                        result_json: &result_json,
                        shoe_after: shoe_after.as_deref(),
                        ended: &ended,
                        retire_shoe,
                        counted_at_ms,
                    };
                    finish_in(tx, round, &last, &end).map(Some)
                }
            }
        })
    }

    fn finish_round(
        &mut self,
        round: RoundId,
        last: &Step,
        result_json: &str,
        shoe_after: Option<&[u8]>,
    ) -> Result<()> {
        let last = last.canonical()?;
        validate_json("round result", result_json)?;
        let fence = self.fence.clone();
        self.write(|tx| {
            require_open(tx, round, fence.as_deref())?;
            let end = End {
                result_json,
                shoe_after,
                ended: &Ended::Finished,
                retire_shoe: false,
                counted_at_ms: None,
            };
            finish_in(tx, round, &last, &end).map(|_| ())
        })
    }

    fn void_round(&mut self, round: RoundId, reason: &str, refunds: &[Movement]) -> Result<()> {
        let refunds = canonical_movements(refunds)?;
        let fence = self.fence.clone();
        self.write(|tx| {
            require_open(tx, round, fence.as_deref())?;
            for m in refunds.iter() {
                apply_movement(tx, m, Some(round.0), None, Limit::Round)?;
            }
            close_round(tx, round, RoundStatus::Voided, None, Some(reason), None)?;
            wallet::close_round(tx, round, true)?;
            retire_round_shoe(tx, round)
        })
    }

    fn save_shoe(&mut self, table: &str, shoe: &[u8]) -> Result<()> {
        validate_name("table", table)?;
        let fence = self.fence.clone();
        self.write(|tx| {
            leases::check_fence(tx, fence.as_deref(), table)?;
            tx.execute(
                "INSERT INTO shoes (table_id, state, round_id) VALUES (?1, ?2, NULL) \
                 ON CONFLICT (table_id) DO UPDATE SET state = excluded.state, \
                 round_id = NULL, updated_at = excluded.updated_at",
                params![table, shoe],
            )?;
            Ok(())
        })
    }

    fn shoe(&self, table: &str) -> Result<Option<Vec<u8>>> {
        self.read(|c| {
            Ok(c.query_row(
                "SELECT state FROM shoes WHERE table_id = ?1",
                [table],
                |r| r.get(0),
            )
            .optional()?)
        })
    }

    fn next_round_id(&self) -> Result<RoundId> {
        self.read(|c| {
            let last: Option<i64> = c
                .query_row(
                    "SELECT seq FROM sqlite_sequence WHERE name = 'rounds'",
                    [],
                    |r| r.get(0),
                )
                .optional()?;
            let last = match last {
                Some(n) => n,
                None => c.query_row("SELECT COALESCE(MAX(id), 0) FROM rounds", [], |r| r.get(0))?,
            };
            Ok(RoundId(last.saturating_add(1)))
        })
    }

    fn table_shoe_seed(&self, table: &str) -> Result<Option<ShoeSeed>> {
        self.read(|c| {
            let id: Option<Option<i64>> = c
                .query_row(
                    "SELECT seed_id FROM shoes WHERE table_id = ?1",
                    [table],
                    |r| r.get(0),
                )
                .optional()?;
            match id.flatten() {
                None => Ok(None),
                Some(id) => read::shoe_seed(c, id),
            }
        })
    }

    fn shoe_rounds(&self, shoe: i64) -> Result<u32> {
        self.read(|c| {
            let n: i64 = c.query_row(
                "SELECT COUNT(*) FROM rounds WHERE shoe_id = ?1",
                [shoe],
                |r| r.get(0),
            )?;
            u32::try_from(n).map_err(|_| damaged(format!("shoe {shoe} counts {n} rounds")))
        })
    }

    fn shoe_seeds(&self) -> Result<Vec<ShoeSeed>> {
        self.read(read::shoe_seeds)
    }

    fn rounds_of_shoe(&self, shoe: i64) -> Result<Vec<RoundRecord>> {
        self.read(|c| {
            let ids = read::ids(
                c,
                "SELECT id FROM rounds WHERE shoe_id = ?1 ORDER BY id",
                [shoe],
            )?;
            read::rounds(c, &ids)
        })
    }

    fn rules_text(&self, sha256: &str) -> Result<Option<String>> {
        self.read(|c| {
            Ok(c.query_row(
                "SELECT canonical FROM rules_texts WHERE sha256 = ?1",
                [sha256],
                |r| r.get(0),
            )
            .optional()?)
        })
    }

    fn table_rounds(&self, table: &str) -> Result<u64> {
        self.read(|c| {
            let n: i64 = c.query_row(
                "SELECT COUNT(*) FROM rounds WHERE table_id = ?1",
                [table],
                |r| r.get(0),
            )?;
            u64::try_from(n).map_err(|_| damaged(format!("table {table} counts {n} rounds")))
        })
    }

    fn unfinished_rounds(&self) -> Result<Vec<RoundRecord>> {
        self.read(|c| {
            let ids = read::ids(
                c,
                "SELECT id FROM rounds WHERE status = 'open' ORDER BY id",
                [],
            )?;
            read::rounds(c, &ids)
        })
    }

    fn round(&self, id: RoundId) -> Result<Option<RoundRecord>> {
        self.read(|c| read::round(c, id))
    }

    fn history(&self, last_n: usize) -> Result<Vec<RoundRecord>> {
        let n = i64::try_from(last_n).unwrap_or(i64::MAX);
        self.read(|c| {
            let ids = read::ids(c, "SELECT id FROM rounds ORDER BY id DESC LIMIT ?1", [n])?;
            read::rounds(c, &ids)
        })
    }

    fn balance(&self, account: &Account) -> Result<Money> {
        // A player is looked up by the name the books keep for what was asked.
        let account = match account {
            Account::Player(_) => account.canonical()?,
            _ => std::borrow::Cow::Borrowed(account),
        };
        self.read(|c| {
            let b: Option<i64> = c
                .prepare_cached("SELECT balance_cents FROM accounts WHERE kind = ?1 AND name = ?2")?
                .query_row(params![account.kind_str(), account.name()], |r| r.get(0))
                .optional()?;
            Ok(Money::cents(b.unwrap_or(0)))
        })
    }

    fn balances(&self) -> Result<Vec<Balance>> {
        self.read(read::balances)
    }

    fn meter(&self, id: &str) -> Result<Option<MeterInfo>> {
        self.read(|c| read::meter_info(c, id))
    }

    fn meters(&self) -> Result<Vec<MeterInfo>> {
        self.read(read::meters)
    }

    fn check_books(&self) -> Result<BooksReport> {
        self.read(audit::check)
    }

    fn player_rounds(
        &self,
        player: &str,
        last_n: usize,
        before: Option<RoundId>,
    ) -> Result<Vec<RoundRecord>> {
        let name = crate::name::normalize_cow("player", player)?;
        let n = i64::try_from(last_n).unwrap_or(i64::MAX);
        let before = before.map_or(i64::MAX, |r| r.0);
        self.read(|c| {
            let ids = read::ids(
                c,
                "SELECT DISTINCT e.round_id FROM entries e \
                 JOIN postings p ON p.entry_id = e.id \
                 JOIN accounts a ON a.id = p.account_id \
                 WHERE a.kind = 'player' AND a.name = ?1 AND e.round_id IS NOT NULL \
                 AND e.round_id < ?2 ORDER BY e.round_id DESC LIMIT ?3",
                params![name.as_ref(), before, n],
            )?;
            read::rounds(c, &ids)
        })
    }

    fn last_deposit(&self, player: &str, memo: &str) -> Result<Option<crate::MovementRecord>> {
        let name = crate::name::normalize_cow("player", player)?;
        self.read(|c| {
            let found = read::movements(
                c,
                &crate::ledger::last_deposit_filter("?1", "?2"),
                params![memo, name.as_ref()],
            )?;
            Ok(found.into_iter().next())
        })
    }

    fn create_login(&mut self, new: &NewLogin<'_>) -> Result<()> {
        validate_name("player", new.name)?;
        let deposit = (new.starting_balance > Money::ZERO).then(|| {
            Movement::new(
                Account::Cashier,
                Account::player(new.name),
                new.starting_balance,
                MovementKind::Deposit,
            )
        });
        let deposit = match deposit {
            Some(m) => canonical_movements(&[m])?.into_owned(),
            None => Vec::new(),
        };
        self.write(|tx| {
            logins::create(tx, new)?;
            for m in &deposit {
                apply_movement(tx, m, None, None, Limit::Checked)?;
            }
            Ok(())
        })
    }

    fn login(&self, name: &str) -> Result<Option<Login>> {
        self.read(|c| logins::login(c, name))
    }

    fn login_succeeded(&mut self, name: &str, now_ms: i64) -> Result<Option<i64>> {
        self.write(|tx| logins::succeeded(tx, name, now_ms))
    }

    fn login_failed(&mut self, name: &str, now_ms: i64, policy: LockPolicy) -> Result<Login> {
        self.write(|tx| logins::failed(tx, name, now_ms, policy))
    }

    fn unlock_login(&mut self, name: &str) -> Result<Option<i64>> {
        self.write(|tx| logins::unlock(tx, name))
    }

    fn set_login(&mut self, name: &str, password_hash: &str, role: Role) -> Result<()> {
        self.write(|tx| logins::set(tx, name, password_hash, role))
    }

    fn open_web_session(&mut self, token_sha256: &str, name: &str, now_ms: i64) -> Result<()> {
        self.write(|tx| logins::open_session(tx, token_sha256, name, now_ms))
    }

    fn web_session(&self, token_sha256: &str) -> Result<Option<WebSession>> {
        self.read(|c| logins::session(c, token_sha256))
    }

    fn touch_web_session(&mut self, token_sha256: &str, now_ms: i64) -> Result<()> {
        self.write(|tx| logins::touch_session(tx, token_sha256, now_ms))
    }

    fn close_web_session(&mut self, token_sha256: &str) -> Result<()> {
        self.write(|tx| logins::close_session(tx, token_sha256))
    }

    fn web_sessions_of(&self, name: &str) -> Result<Vec<WebSession>> {
        let name = crate::name::normalize_cow("player", name)?;
        self.read(|c| logins::sessions_of(c, &name))
    }

    fn close_web_sessions_of(&mut self, name: &str, keep: Option<&str>) -> Result<u64> {
        let name = crate::name::normalize_cow("player", name)?;
        self.write(|tx| logins::close_sessions_of(tx, &name, keep))
    }

    fn wallet_calls(&self, query: &WalletQuery) -> Result<Vec<WalletCall>> {
        self.read(|c| wallet::list(c, query))
    }

    fn record_wallet_calls(&mut self, round: RoundId, calls: &[NewWalletCall]) -> Result<()> {
        crate::wallet::validate_all(calls)?;
        let fence = self.fence.clone();
        self.write(|tx| {
            require_open(tx, round, fence.as_deref())?;
            wallet::insert(tx, round, calls)
        })
    }

    fn wallet_attempt(&mut self, id: &str, retry_at_ms: i64) -> Result<WalletCall> {
        self.write(|tx| wallet::attempt(tx, id, retry_at_ms))
    }

    fn wallet_answer(&mut self, id: &str, answer: &WalletAnswer) -> Result<WalletCall> {
        self.write(|tx| wallet::answer(tx, id, answer))
    }

    fn append_audit(&mut self, entry: &NewAuditEntry<'_>) -> Result<i64> {
        crate::audit_log::check(entry)?;
        self.write(|tx| protection::append_audit(tx, entry))
    }

    fn audit_entries(&self, query: &AuditQuery) -> Result<Vec<AuditEntry>> {
        self.read(|c| protection::audit(c, query))
    }

    fn append_limit_change(&mut self, change: &LimitChange) -> Result<i64> {
        let change = crate::limits::checked_change(change)?;
        self.write(|tx| protection::append_limit(tx, &change))
    }

    fn limit_changes(&self, player: &str) -> Result<Vec<LimitChange>> {
        let name = crate::name::normalize_cow("player", player)?;
        self.read(|c| protection::limits(c, &name))
    }

    fn record_usage(&mut self, player: &str, at_ms: i64, usage: &[(UsageKind, i64)]) -> Result<()> {
        let name = crate::limits::checked_usage(player, usage)?;
        self.write(|tx| protection::add_usage(tx, &name, at_ms, usage))
    }

    fn usage_since(&self, player: &str, since_ms: i64) -> Result<UsageTotals> {
        let name = crate::name::normalize_cow("player", player)?;
        self.read(|c| protection::usage(c, &name, since_ms))
    }

    fn append_exclusion(&mut self, exclusion: &Exclusion) -> Result<i64> {
        let exclusion = crate::limits::checked_exclusion(exclusion)?;
        self.write(|tx| protection::append_exclusion(tx, &exclusion))
    }

    fn exclusions(&self, player: &str) -> Result<Vec<Exclusion>> {
        let name = crate::name::normalize_cow("player", player)?;
        self.read(|c| protection::exclusions(c, &name))
    }

    fn reality_schedule(&self, player: &str) -> Result<Option<RealitySchedule>> {
        let name = crate::name::normalize_cow("player", player)?;
        self.read(|c| protection::reality_schedule(c, &name))
    }

    fn put_reality_schedule(&mut self, schedule: &RealitySchedule) -> Result<()> {
        let schedule = crate::limits::checked_schedule(schedule)?;
        self.write(|tx| protection::put_reality_schedule(tx, &schedule))
    }

    fn claim_tables(
        &mut self,
        server: &str,
        url: &str,
        tables: &[&str],
        ttl_ms: i64,
    ) -> Result<Vec<TableLease>> {
        let tables = checked_tables(server, tables, Some(ttl_ms))?;
        self.write(|tx| leases::claim(tx, server, url, &tables, ttl_ms))
    }

    fn release_tables(&mut self, server: &str, tables: &[&str]) -> Result<()> {
        let tables = checked_tables(server, tables, None)?;
        self.write(|tx| leases::release(tx, server, &tables))
    }

    fn table_leases(&self) -> Result<Vec<TableLease>> {
        self.read(leases::all)
    }

    fn note_table_status(&mut self, server: &str, statuses: &[(&str, &TableStatus)]) -> Result<()> {
        let rows = checked_statuses(server, statuses)?;
        self.write(|tx| leases::note_status(tx, server, &rows))
    }

    fn take_seat(&mut self, table: &str, seat: u8, player: &str) -> Result<SeatClaim> {
        let player = checked_seat(table, seat, player)?;
        let fence = self.fence.clone();
        self.write(|tx| seating::take(tx, fence.as_deref(), table, seat, &player))
    }

    fn leave_seat(&mut self, table: &str, player: &str) -> Result<bool> {
        let player = checked_seat(table, 1, player)?;
        let fence = self.fence.clone();
        self.write(|tx| seating::leave(tx, fence.as_deref(), table, &player))
    }

    fn table_seats(&self, table: &str) -> Result<Vec<(u8, String)>> {
        self.read(|c| seating::of_table(c, table))
    }

    fn clear_table_seats(&mut self, table: &str) -> Result<()> {
        validate_name("table", table)?;
        let fence = self.fence.clone();
        self.write(|tx| seating::clear(tx, fence.as_deref(), table))
    }

    fn fence(&mut self, server: Option<&str>) {
        self.fence = server.map(str::to_string);
    }
}
