//! The PostgreSQL store: the same books as [`crate::sqlite`], written by several
//! processes (servers) at once.
//!
//! Each writing call is one `READ COMMITTED` transaction that locks the rows it needs
//! in one order (a table's lease, shared; the round; the meters by id; the accounts by
//! id) before it reads them, and is tried again whole (up to [`RETRIES`] times) when
//! the server reports a deadlock or a serialization failure. Reads run in one
//! `REPEATABLE READ READ ONLY` transaction: one consistent snapshot. A group
//! ([`Store::begin_group`]) is one transaction in which each call is a savepoint.
//!
//! The connection is made at open and kept. One found dead at the start of a call
//! (the server restarted since the last call) is replaced before anything is sent; one
//! lost during a call fails the call with [`StoreError::Unavailable`] and is replaced
//! by the next call. A client is closed on a thread of its own, so a store (or a
//! listener, or seat locks) may be dropped anywhere, an async task included.
//!
//! Tables: see [`schema`].

mod audit;
mod conn;
mod error;
mod leases;
mod listen;
mod logins;
mod protection;
mod read;
pub mod schema;
mod seat;
mod seating;
mod tls;
mod wallet;
mod write;

pub use listen::{Notice, PgListener, METERS_CHANNEL, TABLES_CHANNEL};
pub use seat::{seat_key, PgSeatLocks};

use crate::audit_log::{AuditEntry, AuditQuery, NewAuditEntry};
use crate::books::BooksReport;
use crate::error::{Result, StoreError};
use crate::lease::{checked_statuses, checked_tables, TableLease, TableStatus};
use crate::ledger::Limit;
use crate::limits::{Exclusion, LimitChange, RealitySchedule, UsageKind, UsageTotals};
use crate::login::{LockPolicy, Login, NewLogin, Role, WebSession};
use crate::model::{
    canonical_movements, seed_hash, sha256_hex, validate_json, Account, Balance, Ended, MeterInfo,
    Movement, MovementKind, NewRound, RoundId, RoundRecord, RoundShoe, RoundStatus, ShoeSeed, Step,
    StepWrite,
};
use crate::name::validate_name;
use crate::seating::{checked_seat, SeatClaim};
use crate::sqlite::{AppliedMigration, OpenOptions};
use crate::wallet::{NewWalletCall, WalletAnswer, WalletCall, WalletQuery};
use crate::Store;
use ::postgres::Client;
use conn::{get, Conn};
use error::{classify, damaged, Fail, R};
use felt_core::money::Money;
use std::cell::{Cell, RefCell};
use std::path::PathBuf;
use std::time::{Duration, Instant};
use write::End;

/// How many times a call is tried in all when the server reports a deadlock or a
/// serialization failure.
pub const RETRIES: u32 = 8;

/// The database as errors and logs show it: its URL without the password.
pub(crate) fn location_of(url: &str) -> String {
    crate::location::redact_url(url)
}

/// Connects to the database at `url`, naming the session `app` unless the URL names it;
/// a connection attempt gives up after 10 s unless the URL says otherwise. TLS as the
/// URL's `sslmode` and `sslrootcert` say, with libpq's meanings (see [`tls`]): by
/// default (`prefer`) encrypted when the server offers it. A wrong parameter, a CA file
/// that cannot be used, or a server whose certificate is refused is
/// [`StoreError::CannotOpen`], saying which and why.
pub(crate) fn connect(url: &str, location: &str, app: &str) -> Result<Client> {
    let cannot_open = |cause: String| StoreError::CannotOpen {
        path: PathBuf::from(location),
        cause: cause.into(),
    };
    let params = tls::TlsParams::from_url(url).map_err(cannot_open)?;
    let mut config: ::postgres::Config = params
        .rest
        .parse()
        .map_err(|e| cannot_open(format!("the URL cannot be read: {e}")))?;
    if config.get_connect_timeout().is_none() {
        config.connect_timeout(Duration::from_secs(10));
    }
    if config.get_application_name().is_none() {
        config.application_name(app);
    }
    let mode = params.mode(tls::mode_of(&config)).map_err(cannot_open)?;
    let tls = tls::Tls::new(mode, params.root.as_ref()).map_err(cannot_open)?;
    tls.connect(&mut config).map_err(|e| match e {
        tls::Failed::Tls(why) => cannot_open(why),
        tls::Failed::Pg(e) => classify(location, 0, Fail::Pg(e), false),
    })
}

/// The books in a PostgreSQL database. See the [crate docs](crate).
pub struct PgStore {
    session: RefCell<Session>,
}

impl std::fmt::Debug for PgStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.session.try_borrow() {
            Ok(s) => f
                .debug_struct("PgStore")
                .field("location", &s.location)
                .field("read_only", &s.read_only)
                .finish(),
            Err(_) => f.debug_struct("PgStore").finish_non_exhaustive(),
        }
    }
}

/// Whether a group transaction is open on the connection.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Group {
    /// No group: each call commits itself.
    Closed,
    /// A group transaction is open.
    Open,
    /// The group's transaction was lost (with its connection, or its commit failed):
    /// every call fails until [`Store::end_group`] reports it.
    Lost(String),
}

/// The connection and what the store knows about it.
struct Session {
    /// The URL, password included (kept to connect again).
    url: String,
    /// The URL without its password.
    location: String,
    lock_ms: u64,
    read_only: bool,
    conn: Option<Conn>,
    group: Group,
    fence: Option<String>,
}

impl Session {
    fn fail(&mut self, f: Fail, committing: bool) -> StoreError {
        if f.is_connection_lost() {
            self.drop_conn();
        }
        classify(&self.location, self.lock_ms, f, committing)
    }

    fn drop_conn(&mut self) {
        if let Some(c) = self.conn.take() {
            c.close();
        }
    }

    /// The connection, made (and set up) if there is none.
    fn conn(&mut self) -> Result<&mut Conn> {
        if self.conn.is_none() {
            let client = connect(&self.url, &self.location, "felt")?;
            let mut c = Conn::new(client);
            let mut setup = format!("SET lock_timeout = {}", self.lock_ms.max(1));
            if self.read_only {
                setup.push_str("; SET SESSION CHARACTERISTICS AS TRANSACTION READ ONLY");
            }
            if let Err(e) = c.batch(&setup) {
                c.close();
                return Err(classify(&self.location, self.lock_ms, e, false));
            }
            self.conn = Some(c);
        }
        self.conn.as_mut().ok_or_else(|| StoreError::Unavailable {
            location: self.location.clone(),
            detail: "no connection".to_string(),
        })
    }

    /// Starts a transaction with `begin`. A connection found dead here (nothing of the
    /// call has been sent yet) is replaced once, silently.
    fn begin(&mut self, begin: &str) -> Result<()> {
        for first in [true, false] {
            let sent = self.conn()?.batch(begin);
            match sent {
                Ok(()) => return Ok(()),
                Err(e) if first && e.is_connection_lost() => self.drop_conn(),
                Err(e) => return Err(self.fail(e, false)),
            }
        }
        Err(StoreError::Unavailable {
            location: self.location.clone(),
            detail: "the connection was lost twice in a row".to_string(),
        })
    }

    fn lost_group(&self, detail: &str) -> StoreError {
        StoreError::Unavailable {
            location: self.location.clone(),
            detail: format!("{detail}; nothing of the open group commit is in the books"),
        }
    }

    /// Runs `f` in one write transaction (tried again on a deadlock or a serialization
    /// failure while `may_retry` says so); inside a group, in a savepoint of the
    /// group's transaction.
    fn write<T>(
        &mut self,
        mut f: impl FnMut(&mut Conn) -> R<T>,
        may_retry: impl Fn() -> bool,
    ) -> Result<T> {
        let mut attempt = 1;
        loop {
            let out = match self.group.clone() {
                Group::Lost(why) => return Err(self.lost_group(&why)),
                Group::Open => self.write_in_group(&mut f),
                Group::Closed => self.write_alone(&mut f),
            };
            match out {
                Err((e, committing)) => {
                    if e.is_retryable() && may_retry() && attempt < RETRIES {
                        attempt += 1;
                        backoff(attempt);
                        continue;
                    }
                    return Err(self.fail(e, committing));
                }
                Ok(v) => return Ok(v),
            }
        }
    }

    /// One try of a write outside a group; the error says whether it came at the
    /// commit.
    fn write_alone<T>(
        &mut self,
        f: &mut impl FnMut(&mut Conn) -> R<T>,
    ) -> std::result::Result<T, (Fail, bool)> {
        self.begin("BEGIN ISOLATION LEVEL READ COMMITTED")
            .map_err(|e| (Fail::Store(e), false))?;
        let Some(c) = self.conn.as_mut() else {
            return Err((damaged("the connection vanished"), false));
        };
        match f(c) {
            Ok(v) => match c.batch("COMMIT") {
                Ok(()) => Ok(v),
                Err(e) => {
                    if !e.is_connection_lost() {
                        let _ = c.batch("ROLLBACK");
                    }
                    Err((e, true))
                }
            },
            Err(e) => {
                if !e.is_connection_lost() {
                    if let Err(r) = c.batch("ROLLBACK") {
                        return Err((r, false));
                    }
                }
                Err((e, false))
            }
        }
    }

    /// One try of a write inside the open group, in a savepoint. A deadlock with locks
    /// the group took in earlier calls cannot be undone by trying the call again: the
    /// group so far is committed (its calls are done) and a new group transaction
    /// begun, so the next try holds no lock from before.
    fn write_in_group<T>(
        &mut self,
        f: &mut impl FnMut(&mut Conn) -> R<T>,
    ) -> std::result::Result<T, (Fail, bool)> {
        let out = (|| {
            let Some(c) = self.conn.as_mut() else {
                return Err(damaged("the connection vanished"));
            };
            c.batch("SAVEPOINT felt_call")?;
            match f(c) {
                Ok(v) => {
                    c.batch("RELEASE SAVEPOINT felt_call")?;
                    Ok(v)
                }
                Err(e) => {
                    if !e.is_connection_lost() {
                        c.batch("ROLLBACK TO SAVEPOINT felt_call; RELEASE SAVEPOINT felt_call")?;
                        if e.is_retryable() {
                            c.batch("COMMIT; BEGIN ISOLATION LEVEL READ COMMITTED")?;
                        }
                    }
                    Err(e)
                }
            }
        })();
        if let Err(e) = &out {
            if e.is_connection_lost() {
                self.group = Group::Lost("the connection was lost during a group commit".into());
            } else if !matches!(e, Fail::Store(_) | Fail::Damaged(_)) && self.group_broken() {
                self.group = Group::Lost("the group's transaction failed and cannot go on".into());
            }
        }
        out.map_err(|e| (e, false))
    }

    /// Whether the open group's transaction can go on (it is not aborted).
    fn group_broken(&mut self) -> bool {
        match self.conn.as_mut() {
            None => true,
            Some(c) => c
                .batch("SAVEPOINT felt_probe; RELEASE SAVEPOINT felt_probe")
                .is_err(),
        }
    }

    /// Runs `f` in one read-only snapshot; inside a group, in the group's transaction
    /// (which sees the group's writes).
    fn read<T>(&mut self, f: impl FnOnce(&mut Conn) -> R<T>) -> Result<T> {
        match self.group.clone() {
            Group::Lost(why) => Err(self.lost_group(&why)),
            Group::Open => {
                let out = (|| {
                    let Some(c) = self.conn.as_mut() else {
                        return Err(damaged("the connection vanished"));
                    };
                    c.batch("SAVEPOINT felt_read")?;
                    match f(c) {
                        Ok(v) => {
                            c.batch("RELEASE SAVEPOINT felt_read")?;
                            Ok(v)
                        }
                        Err(e) => {
                            if !e.is_connection_lost() {
                                c.batch(
                                    "ROLLBACK TO SAVEPOINT felt_read; \
                                     RELEASE SAVEPOINT felt_read",
                                )?;
                            }
                            Err(e)
                        }
                    }
                })();
                out.map_err(|e| {
                    if e.is_connection_lost() {
                        self.group =
                            Group::Lost("the connection was lost during a group commit".into());
                    }
                    self.fail(e, false)
                })
            }
            Group::Closed => {
                self.begin("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY")?;
                let out = (|| {
                    let Some(c) = self.conn.as_mut() else {
                        return Err(damaged("the connection vanished"));
                    };
                    match f(c) {
                        Ok(v) => {
                            c.batch("COMMIT")?;
                            Ok(v)
                        }
                        Err(e) => {
                            if !e.is_connection_lost() {
                                c.batch("ROLLBACK")?;
                            }
                            Err(e)
                        }
                    }
                })();
                out.map_err(|e| self.fail(e, false))
            }
        }
    }
}

/// A short pause before a call is tried again, longer each time, a little different
/// in each process and thread (so two that collided do not collide again).
fn backoff(attempt: u32) {
    let jitter = u64::from(
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.subsec_nanos())
            % 1_000,
    );
    let ms = u64::from(attempt.min(6)) * 3;
    std::thread::sleep(Duration::from_micros(ms * 1_000 + jitter * 3));
}

impl PgStore {
    /// Opens (creating and migrating on first use) the books in the database at `url`
    /// (`postgres://user:password@host:port/database`), with the default options.
    pub fn open(url: &str) -> Result<PgStore> {
        PgStore::open_with(url, &OpenOptions::default())
    }

    /// Opens the books at `url` for reading only: the database must hold current
    /// books, and every write fails with [`StoreError::ReadOnly`] (the session's
    /// transactions are read-only).
    pub fn open_read_only(url: &str) -> Result<PgStore> {
        PgStore::open_with(
            url,
            &OpenOptions {
                read_only: true,
                ..OpenOptions::default()
            },
        )
    }

    /// Opens the books at `url` with `options` (`busy_timeout`: how long a call waits
    /// for a row another process holds, the session's `lock_timeout`).
    pub fn open_with(url: &str, options: &OpenOptions) -> Result<PgStore> {
        let location = location_of(url);
        let mut session = Session {
            url: url.to_string(),
            location,
            lock_ms: u64::try_from(options.busy_timeout.as_millis()).unwrap_or(u64::MAX),
            read_only: options.read_only,
            conn: None,
            group: Group::Closed,
            fence: None,
        };
        set_up(&mut session, options)?;
        Ok(PgStore {
            session: RefCell::new(session),
        })
    }

    /// The database, as it may be shown (its URL without the password).
    pub fn location(&self) -> String {
        self.session
            .try_borrow()
            .map(|s| s.location.clone())
            .unwrap_or_default()
    }

    /// The schema version of the database (the newest migration applied).
    pub fn schema_version(&self) -> Result<i64> {
        self.read(|c| {
            get(
                &c.one(
                    "SELECT COALESCE(MAX(version), 0)::bigint FROM schema_migrations",
                    &[],
                )?,
                0,
            )
        })
    }

    /// The migrations applied to the database, oldest first.
    pub fn migrations(&self) -> Result<Vec<AppliedMigration>> {
        self.read(|c| {
            c.query(
                "SELECT version, name, applied_at FROM schema_migrations ORDER BY version",
                &[],
            )?
            .iter()
            .map(|r| {
                Ok(AppliedMigration {
                    version: get(r, 0)?,
                    name: get(r, 1)?,
                    applied_at: get(r, 2)?,
                })
            })
            .collect()
        })
    }

    fn read<T>(&self, f: impl FnOnce(&mut Conn) -> R<T>) -> Result<T> {
        let mut s = self.session.try_borrow_mut().map_err(|_| {
            StoreError::InvalidInput("the store is already in use by this thread".to_string())
        })?;
        s.read(f)
    }

    fn write<T>(&mut self, f: impl FnMut(&mut Conn) -> R<T>) -> Result<T> {
        self.session.get_mut().write(f, || true)
    }

    fn fenced_to(&self) -> Option<String> {
        self.session.try_borrow().ok().and_then(|s| s.fence.clone())
    }
}

impl Drop for PgStore {
    fn drop(&mut self) {
        self.session.get_mut().drop_conn();
    }
}

/// Recognises the database and brings its schema up to date (a read-only open waits,
/// at most the busy timeout, for another felt that is creating the books).
fn set_up(s: &mut Session, options: &OpenOptions) -> Result<()> {
    let location = s.location.clone();
    let lock_ms = s.lock_ms;
    let fail = |e: Fail| classify(&location, lock_ms, e, false);
    let c = s.conn()?;
    if options.read_only {
        let deadline = Instant::now() + options.busy_timeout;
        loop {
            let state = schema::inspect(c, &location).map_err(fail)?;
            if state.version >= schema::LATEST {
                break;
            }
            if Instant::now() >= deadline {
                if state.empty {
                    return Err(StoreError::NoBooksYet {
                        path: PathBuf::from(&location),
                    });
                }
                return Err(StoreError::Inconsistent {
                    location: location.clone(),
                    detail: format!(
                        "it holds schema {} and this felt needs {}; a read-only open cannot \
                         set it up (open it once for writing, e.g. with `felt play`)",
                        state.version,
                        schema::LATEST
                    ),
                });
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    } else {
        let state = schema::inspect(c, &location).map_err(fail)?;
        if state.version < schema::LATEST {
            schema::migrate(c, &location).map_err(fail)?;
        }
    }
    schema::verify(c).map_err(fail)
}

impl Store for PgStore {
    fn begin_group(&mut self) -> Result<()> {
        let s = self.session.get_mut();
        if s.group != Group::Closed {
            return Err(StoreError::InvalidInput(
                "a group commit is already open".to_string(),
            ));
        }
        s.begin("BEGIN ISOLATION LEVEL READ COMMITTED")?;
        s.group = Group::Open;
        Ok(())
    }

    fn end_group(&mut self) -> Result<()> {
        let s = self.session.get_mut();
        match std::mem::replace(&mut s.group, Group::Closed) {
            Group::Closed => Ok(()),
            Group::Lost(why) => Err(s.lost_group(&why)),
            Group::Open => {
                let Some(c) = s.conn.as_mut() else {
                    return Err(s.lost_group("the connection was lost during a group commit"));
                };
                match c.batch("COMMIT") {
                    Ok(()) => Ok(()),
                    Err(e) => {
                        if !e.is_connection_lost() {
                            let _ = c.batch("ROLLBACK");
                        }
                        Err(s.fail(e, true))
                    }
                }
            }
        }
    }

    fn post(&mut self, movements: &[Movement]) -> Result<Vec<i64>> {
        let movements = canonical_movements(movements)?;
        self.write(|c| write::post(c, &movements, None, Limit::Checked))
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
        self.write(|c| {
            if let Some(info) = read::meter_info(c, meter)? {
                return Ok(info);
            }
            let made = c.opt(
                "INSERT INTO accounts (kind, name) VALUES ('meter', $1) \
                 ON CONFLICT (kind, name) DO NOTHING RETURNING id",
                &[&meter],
            )?;
            let Some(row) = made else {
                // Another server made it at this instant: it is the meter.
                return read::meter_info(c, meter)?
                    .ok_or_else(|| damaged(format!("meter {meter} has no meter record")));
            };
            let id: i64 = get(&row, 0)?;
            c.exec(
                "INSERT INTO meters (account_id, meter_id, reset_cents) VALUES ($1, $2, $3)",
                &[&id, &meter, &reset.as_cents()],
            )?;
            if reset.as_cents() > 0 {
                write::post(c, std::slice::from_ref(&seed), None, Limit::Checked)?;
            }
            read::meter_info(c, meter)?
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
        let fence = self.fenced_to();
        self.write(|c| {
            leases::check_fence(c, fence.as_deref(), &round.table_id)?;
            let shoe_id = match &round.shoe_seed {
                RoundShoe::Unrecorded => None,
                RoundShoe::Current(id) => {
                    let s =
                        read::shoe_seed(c, *id)?.ok_or(StoreError::UnknownShoe { shoe: *id })?;
                    if s.table_id != round.table_id || s.is_retired() {
                        return Err(StoreError::ShoeRetired {
                            shoe: *id,
                            table: s.table_id,
                        }
                        .into());
                    }
                    Some(*id)
                }
                RoundShoe::New(new) => Some(write::commit_shoe(c, &round.table_id, new)?),
            };
            let rules_sha = match &round.rules {
                None => None,
                Some(text) => {
                    let sha = sha256_hex(text.as_bytes());
                    c.exec(
                        "INSERT INTO rules_texts (sha256, canonical) VALUES ($1, $2) \
                         ON CONFLICT (sha256) DO NOTHING",
                        &[&sha, text],
                    )?;
                    Some(sha)
                }
            };
            let shoe_round = shoe_id.map(|_| i64::from(round.shoe_round));
            let row = c.one(
                "INSERT INTO rounds (game_id, table_id, seed, seed_sha256, shoe_before, \
                 shoe_id, shoe_round, rules_sha256, lab) \
                 VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) RETURNING id",
                &[
                    &round.game_id,
                    &round.table_id,
                    &&round.seed[..],
                    &hash,
                    &round.shoe,
                    &shoe_id,
                    &shoe_round,
                    &rules_sha,
                    &round.lab,
                ],
            )?;
            Ok(RoundId(get(&row, 0)?))
        })
    }

    fn record_step(&mut self, round: RoundId, step: &Step) -> Result<u32> {
        let step = step.canonical()?;
        let fence = self.fenced_to();
        self.write(|c| {
            write::require_open(c, round, fence.as_deref())?;
            write::insert_step(c, round, &step)
        })
    }

    fn record_step_with(
        &mut self,
        round: RoundId,
        meters: &[&str],
        compute: &mut dyn FnMut(&[Money]) -> StepWrite,
    ) -> Result<Option<u32>> {
        let fence = self.fenced_to();
        let mut sorted = meters.to_vec();
        sorted.sort_unstable();
        sorted.dedup();
        // `compute` runs at most once: a call is tried again only before it ran.
        let ran = Cell::new(false);
        self.session.get_mut().write(
            |c| {
                write::require_open(c, round, fence.as_deref())?;
                write::lock_meters(c, &sorted)?;
                let mut values = Vec::with_capacity(meters.len());
                for m in meters {
                    let v = c.opt(
                        "SELECT balance_cents FROM accounts WHERE kind = 'meter' AND name = $1",
                        &[m],
                    )?;
                    let v: i64 = match v {
                        Some(r) => get(&r, 0)?,
                        None => {
                            return Err(StoreError::UnknownMeter {
                                meter: (*m).to_string(),
                            }
                            .into())
                        }
                    };
                    values.push(Money::cents(v));
                }
                ran.set(true);
                match compute(&values) {
                    StepWrite::Nothing => Ok(None),
                    StepWrite::Step(step) => {
                        let step = step.canonical()?;
                        write::insert_step(c, round, &step).map(Some)
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
                        write::finish_in(c, round, &last, &end).map(Some)
                    }
                }
            },
            || !ran.get(),
        )
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
        let fence = self.fenced_to();
        self.write(|c| {
            write::require_open(c, round, fence.as_deref())?;
            let end = End {
                result_json,
                shoe_after,
                ended: &Ended::Finished,
                retire_shoe: false,
                counted_at_ms: None,
            };
            write::finish_in(c, round, &last, &end).map(|_| ())
        })
    }

    fn void_round(&mut self, round: RoundId, reason: &str, refunds: &[Movement]) -> Result<()> {
        let refunds = canonical_movements(refunds)?;
        let fence = self.fenced_to();
        self.write(|c| {
            write::require_open(c, round, fence.as_deref())?;
            write::post(c, &refunds, Some(round.0), Limit::Round)?;
            write::close_round(c, round, RoundStatus::Voided, None, Some(reason), None)?;
            wallet::close_round(c, round, true)?;
            write::retire_round_shoe(c, round)
        })
    }

    fn save_shoe(&mut self, table: &str, shoe: &[u8]) -> Result<()> {
        validate_name("table", table)?;
        let fence = self.fenced_to();
        self.write(|c| {
            leases::check_fence(c, fence.as_deref(), table)?;
            c.exec(
                "INSERT INTO shoes (table_id, state, round_id) VALUES ($1, $2, NULL) \
                 ON CONFLICT (table_id) DO UPDATE SET state = excluded.state, \
                 round_id = NULL, updated_at = excluded.updated_at",
                &[&table, &shoe],
            )?;
            Ok(())
        })
    }

    fn shoe(&self, table: &str) -> Result<Option<Vec<u8>>> {
        self.read(
            |c| match c.opt("SELECT state FROM shoes WHERE table_id = $1", &[&table])? {
                Some(r) => Ok(Some(get(&r, 0)?)),
                None => Ok(None),
            },
        )
    }

    fn next_round_id(&self) -> Result<RoundId> {
        self.read(|c| {
            let last: i64 = get(
                &c.one(
                    "SELECT COALESCE(pg_sequence_last_value(\
                     pg_get_serial_sequence('rounds', 'id')::regclass), 0)::bigint",
                    &[],
                )?,
                0,
            )?;
            Ok(RoundId(last.saturating_add(1)))
        })
    }

    fn table_shoe_seed(&self, table: &str) -> Result<Option<ShoeSeed>> {
        self.read(|c| {
            let id: Option<i64> =
                match c.opt("SELECT seed_id FROM shoes WHERE table_id = $1", &[&table])? {
                    Some(r) => get(&r, 0)?,
                    None => None,
                };
            match id {
                None => Ok(None),
                Some(id) => read::shoe_seed(c, id),
            }
        })
    }

    fn shoe_rounds(&self, shoe: i64) -> Result<u32> {
        self.read(|c| {
            let n: i64 = get(
                &c.one(
                    "SELECT COUNT(*)::bigint FROM rounds WHERE shoe_id = $1",
                    &[&shoe],
                )?,
                0,
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
                "SELECT id FROM rounds WHERE shoe_id = $1 ORDER BY id",
                &[&shoe],
            )?;
            read::rounds(c, &ids)
        })
    }

    fn rules_text(&self, sha256: &str) -> Result<Option<String>> {
        self.read(|c| {
            match c.opt(
                "SELECT canonical FROM rules_texts WHERE sha256 = $1",
                &[&sha256],
            )? {
                Some(r) => Ok(Some(get(&r, 0)?)),
                None => Ok(None),
            }
        })
    }

    fn table_rounds(&self, table: &str) -> Result<u64> {
        self.read(|c| {
            let n: i64 = get(
                &c.one(
                    "SELECT COUNT(*)::bigint FROM rounds WHERE table_id = $1",
                    &[&table],
                )?,
                0,
            )?;
            u64::try_from(n).map_err(|_| damaged(format!("table {table} counts {n} rounds")))
        })
    }

    fn unfinished_rounds(&self) -> Result<Vec<RoundRecord>> {
        self.read(|c| {
            let ids = read::ids(
                c,
                "SELECT id FROM rounds WHERE status = 'open' ORDER BY id",
                &[],
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
            let ids = read::ids(c, "SELECT id FROM rounds ORDER BY id DESC LIMIT $1", &[&n])?;
            read::rounds(c, &ids)
        })
    }

    fn balance(&self, account: &Account) -> Result<Money> {
        let account = match account {
            Account::Player(_) => account.canonical()?,
            _ => std::borrow::Cow::Borrowed(account),
        };
        self.read(|c| {
            let b: Option<i64> = match c.opt(
                "SELECT balance_cents FROM accounts WHERE kind = $1 AND name = $2",
                &[&account.kind_str(), &account.name()],
            )? {
                Some(r) => Some(get(&r, 0)?),
                None => None,
            };
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
                 WHERE a.kind = 'player' AND a.name = $1 AND e.round_id IS NOT NULL \
                 AND e.round_id < $2 ORDER BY e.round_id DESC LIMIT $3",
                &[&name.as_ref(), &before, &n],
            )?;
            read::rounds(c, &ids)
        })
    }

    fn last_deposit(&self, player: &str, memo: &str) -> Result<Option<crate::MovementRecord>> {
        let name = crate::name::normalize_cow("player", player)?;
        self.read(|c| {
            let found = read::movements(
                c,
                &crate::ledger::last_deposit_filter("$1", "$2"),
                &[&memo, &name.as_ref()],
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
        self.write(|c| {
            logins::create(c, new)?;
            write::post(c, &deposit, None, Limit::Checked)?;
            Ok(())
        })
    }

    fn login(&self, name: &str) -> Result<Option<Login>> {
        self.read(|c| logins::login(c, name))
    }

    fn login_succeeded(&mut self, name: &str, now_ms: i64) -> Result<Option<i64>> {
        self.write(|c| logins::succeeded(c, name, now_ms))
    }

    fn login_failed(&mut self, name: &str, now_ms: i64, policy: LockPolicy) -> Result<Login> {
        self.write(|c| logins::failed(c, name, now_ms, policy))
    }

    fn unlock_login(&mut self, name: &str) -> Result<Option<i64>> {
        self.write(|c| logins::unlock(c, name))
    }

    fn set_login(&mut self, name: &str, password_hash: &str, role: Role) -> Result<()> {
        self.write(|c| logins::set(c, name, password_hash, role))
    }

    fn open_web_session(&mut self, token_sha256: &str, name: &str, now_ms: i64) -> Result<()> {
        self.write(|c| logins::open_session(c, token_sha256, name, now_ms))
    }

    fn web_session(&self, token_sha256: &str) -> Result<Option<WebSession>> {
        self.read(|c| logins::session(c, token_sha256))
    }

    fn touch_web_session(&mut self, token_sha256: &str, now_ms: i64) -> Result<()> {
        self.write(|c| logins::touch_session(c, token_sha256, now_ms))
    }

    fn close_web_session(&mut self, token_sha256: &str) -> Result<()> {
        self.write(|c| logins::close_session(c, token_sha256))
    }

    fn web_sessions_of(&self, name: &str) -> Result<Vec<WebSession>> {
        let name = crate::name::normalize_cow("player", name)?;
        self.read(|c| logins::sessions_of(c, &name))
    }

    fn close_web_sessions_of(&mut self, name: &str, keep: Option<&str>) -> Result<u64> {
        let name = crate::name::normalize_cow("player", name)?;
        self.write(|c| logins::close_sessions_of(c, &name, keep))
    }

    fn check_books(&self) -> Result<BooksReport> {
        self.read(audit::check)
    }

    fn wallet_calls(&self, query: &WalletQuery) -> Result<Vec<WalletCall>> {
        self.read(|c| wallet::list(c, query))
    }

    fn record_wallet_calls(&mut self, round: RoundId, calls: &[NewWalletCall]) -> Result<()> {
        crate::wallet::validate_all(calls)?;
        let fence = self.fenced_to();
        self.write(|c| {
            write::require_open(c, round, fence.as_deref())?;
            wallet::insert(c, round, calls)
        })
    }

    fn wallet_attempt(&mut self, id: &str, retry_at_ms: i64) -> Result<WalletCall> {
        self.write(|c| wallet::attempt(c, id, retry_at_ms))
    }

    fn wallet_answer(&mut self, id: &str, answer: &WalletAnswer) -> Result<WalletCall> {
        self.write(|c| wallet::answer(c, id, answer))
    }

    fn append_audit(&mut self, entry: &NewAuditEntry<'_>) -> Result<i64> {
        crate::audit_log::check(entry)?;
        self.write(|c| protection::append_audit(c, entry))
    }

    fn audit_entries(&self, query: &AuditQuery) -> Result<Vec<AuditEntry>> {
        self.read(|c| protection::audit(c, query))
    }

    fn append_limit_change(&mut self, change: &LimitChange) -> Result<i64> {
        let change = crate::limits::checked_change(change)?;
        self.write(|c| protection::append_limit(c, &change))
    }

    fn limit_changes(&self, player: &str) -> Result<Vec<LimitChange>> {
        let name = crate::name::normalize_cow("player", player)?;
        self.read(|c| protection::limits(c, &name))
    }

    fn record_usage(&mut self, player: &str, at_ms: i64, usage: &[(UsageKind, i64)]) -> Result<()> {
        let name = crate::limits::checked_usage(player, usage)?;
        self.write(|c| protection::add_usage(c, &name, at_ms, usage))
    }

    fn usage_since(&self, player: &str, since_ms: i64) -> Result<UsageTotals> {
        let name = crate::name::normalize_cow("player", player)?;
        self.read(|c| protection::usage(c, &name, since_ms))
    }

    fn append_exclusion(&mut self, exclusion: &Exclusion) -> Result<i64> {
        let exclusion = crate::limits::checked_exclusion(exclusion)?;
        self.write(|c| protection::append_exclusion(c, &exclusion))
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
        self.write(|c| protection::put_reality_schedule(c, &schedule))
    }

    fn claim_tables(
        &mut self,
        server: &str,
        url: &str,
        tables: &[&str],
        ttl_ms: i64,
    ) -> Result<Vec<TableLease>> {
        let tables = checked_tables(server, tables, Some(ttl_ms))?;
        self.write(|c| leases::claim(c, server, url, &tables, ttl_ms))
    }

    fn release_tables(&mut self, server: &str, tables: &[&str]) -> Result<()> {
        let tables = checked_tables(server, tables, None)?;
        self.write(|c| leases::release(c, server, &tables))
    }

    fn table_leases(&self) -> Result<Vec<TableLease>> {
        self.read(leases::all)
    }

    fn note_table_status(&mut self, server: &str, statuses: &[(&str, &TableStatus)]) -> Result<()> {
        let rows = checked_statuses(server, statuses)?;
        self.write(|c| leases::note_status(c, server, &rows))
    }

    fn take_seat(&mut self, table: &str, seat: u8, player: &str) -> Result<SeatClaim> {
        let player = checked_seat(table, seat, player)?;
        let fence = self.fenced_to();
        self.write(|c| seating::take(c, fence.as_deref(), table, seat, &player))
    }

    fn leave_seat(&mut self, table: &str, player: &str) -> Result<bool> {
        let player = checked_seat(table, 1, player)?;
        let fence = self.fenced_to();
        self.write(|c| seating::leave(c, fence.as_deref(), table, &player))
    }

    fn table_seats(&self, table: &str) -> Result<Vec<(u8, String)>> {
        self.read(|c| seating::of_table(c, table))
    }

    fn clear_table_seats(&mut self, table: &str) -> Result<()> {
        validate_name("table", table)?;
        let fence = self.fenced_to();
        self.write(|c| seating::clear(c, fence.as_deref(), table))
    }

    fn fence(&mut self, server: Option<&str>) {
        self.session.get_mut().fence = server.map(str::to_string);
    }
}
