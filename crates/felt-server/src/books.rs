//! The books a server writes: one store, one writer, group commit.
//!
//! Every table's steps and every login go through one lock on one connection, so a
//! table never fights another for SQLite's write lock. Calls that queue up behind each
//! other share one transaction: each call is its own savepoint (all or nothing, as
//! alone), and the last call of the queue commits them all with one sync of the disk,
//! after which every caller of the group gets its result. So a table waits for the
//! others' SQL, never for one disk sync per other table (the group commit of database
//! servers). Nothing of a group is shown before it is committed: a caller returns only
//! then, and if the commit fails every caller of the group gets the failure.
//!
//! Reads that need no lock (a balance, the meters, a recall) go to a pool of read-only
//! connections when the books can open them (SQLite's WAL lets readers run beside the
//! writer), so a view never queues behind another table's commit. The time each call
//! waits for and holds the books, and the size of each group, are measured.

use crate::metrics::Metrics;
use felt_store::{Store, StoreError};
use std::panic::{catch_unwind, resume_unwind, AssertUnwindSafe};
use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError};
use std::time::Instant;

/// The most calls one group commits: the first of a group waits for the others'
/// SQL, so a group is kept short.
const GROUP_CALLS: u32 = 8;

/// Opens one more read-only connection to the books.
pub type OpenReader = Arc<dyn Fn() -> felt_store::Result<Box<dyn Store + Send>> + Send + Sync>;

/// What a call on the books returns, able to carry the failure of the group commit the
/// call was part of.
pub trait BooksOutcome {
    /// The call's result when its group could not be committed.
    fn books_failed(e: StoreError) -> Self;
}

impl<T> BooksOutcome for Result<T, StoreError> {
    fn books_failed(e: StoreError) -> Self {
        Err(e)
    }
}

impl<T> BooksOutcome for Result<T, felt_session::SessionError> {
    fn books_failed(e: StoreError) -> Self {
        Err(e.into())
    }
}

impl<T> BooksOutcome for Result<T, String> {
    fn books_failed(e: StoreError) -> Self {
        Err(e.to_string())
    }
}

impl BooksOutcome for bool {
    fn books_failed(_: StoreError) -> Self {
        false
    }
}

/// The writer's connection and the group open on it.
struct Writer {
    store: Box<dyn Store + Send>,
    /// A group transaction is open.
    open: bool,
    /// Calls in the open group.
    calls: u32,
    /// Groups ended so far; the open group is number `ended`.
    ended: u64,
    /// The last group whose commit failed, and why.
    failed: Option<(u64, String)>,
}

impl Writer {
    /// Commits the open group (if any) and wakes its callers.
    fn end_group(&mut self, done: &Condvar, metrics: &Metrics) -> felt_store::Result<()> {
        if !self.open {
            return Ok(());
        }
        let r = self.store.end_group();
        metrics.group_calls.observe(f64::from(self.calls));
        if let Err(e) = &r {
            tracing::error!(error = %e, calls = self.calls, "a group commit of the books failed");
            self.failed = Some((self.ended, e.to_string()));
        }
        self.open = false;
        self.calls = 0;
        self.ended += 1;
        done.notify_all();
        r
    }
}

/// The shared books.
#[derive(Clone)]
pub struct Books {
    writer: Arc<(Mutex<Writer>, Condvar)>,
    /// Calls waiting for the writer's lock (they will join the open group).
    queued: Arc<AtomicUsize>,
    readers: Arc<Mutex<Vec<Box<dyn Store + Send>>>>,
    open_reader: Option<OpenReader>,
    metrics: Arc<Metrics>,
}

impl Books {
    /// Books over this store; reads share its lock unless [`Books::with_readers`].
    pub fn new(store: Box<dyn Store + Send>, metrics: Arc<Metrics>) -> Books {
        let writer = Writer {
            store,
            open: false,
            calls: 0,
            ended: 0,
            failed: None,
        };
        Books {
            writer: Arc::new((Mutex::new(writer), Condvar::new())),
            queued: Arc::default(),
            readers: Arc::default(),
            open_reader: None,
            metrics,
        }
    }

    /// Reads go to read-only connections opened by `open` (as many as read at once).
    pub fn with_readers(mut self, open: OpenReader) -> Books {
        self.open_reader = Some(open);
        self
    }

    /// Calls waiting for the writer now (they will join the open group).
    pub fn waiting(&self) -> usize {
        self.queued.load(Ordering::SeqCst)
    }

    /// The writer, once the calls ahead of this one are done.
    fn lock_writer(&self) -> MutexGuard<'_, Writer> {
        let asked = Instant::now();
        self.queued.fetch_add(1, Ordering::SeqCst);
        // A panic while holding the lock leaves the store as its last call left it
        // (each call is all or nothing): the lock is taken back.
        let w = self.writer.0.lock().unwrap_or_else(PoisonError::into_inner);
        self.queued.fetch_sub(1, Ordering::SeqCst);
        self.metrics
            .store_wait_seconds
            .observe(asked.elapsed().as_secs_f64());
        w
    }

    /// Runs `f` on the store as one call of a group commit (blocking: call it from a
    /// table's thread or `spawn_blocking`, never on the async runtime), and returns its
    /// result once the group is committed (or the group's failure). The time `f` (and
    /// the commit, for the call that commits) holds the books is recorded.
    pub fn with<T: BooksOutcome>(&self, f: impl FnOnce(&mut dyn Store) -> T) -> T {
        let done = &self.writer.1;
        let mut w = self.lock_writer();
        let started = Instant::now();
        if !w.open {
            if let Err(e) = w.store.begin_group() {
                return T::books_failed(e);
            }
            w.open = true;
        }
        let group = w.ended;
        w.calls += 1;
        let out = match catch_unwind(AssertUnwindSafe(|| f(w.store.as_mut()))) {
            Ok(out) => out,
            Err(panic) => {
                // The others of the group are waiting for its commit.
                let _ = w.end_group(done, &self.metrics);
                drop(w);
                resume_unwind(panic);
            }
        };
        if w.calls >= GROUP_CALLS || self.queued.load(Ordering::SeqCst) == 0 {
            // Nobody behind this call, or the group is as big as a group gets: this
            // call commits it.
            let r = w.end_group(done, &self.metrics);
            self.metrics
                .store_seconds
                .observe(started.elapsed().as_secs_f64());
            return match r {
                Ok(()) => out,
                Err(e) => T::books_failed(e),
            };
        }
        self.metrics
            .store_seconds
            .observe(started.elapsed().as_secs_f64());
        // A call behind this one commits (the last of the queue does).
        let sql_done = Instant::now();
        while w.ended == group {
            w = done.wait(w).unwrap_or_else(PoisonError::into_inner);
        }
        self.metrics
            .commit_wait_seconds
            .observe(sql_done.elapsed().as_secs_f64());
        match &w.failed {
            Some((g, detail)) if *g == group => T::books_failed(StoreError::GroupFailed {
                detail: detail.clone(),
            }),
            _ => out,
        }
    }

    /// How many groups have been committed (or failed to commit) so far: calls of
    /// [`Books::with`] that shared a group count once.
    pub fn groups_ended(&self) -> u64 {
        self.lock_writer().ended
    }

    /// Runs the read `f` on a read-only connection (one from the pool, or a new one),
    /// or on the writer's connection, after committing its open group, when the books
    /// open no readers (blocking, like [`Books::with`]). A read sees every call
    /// committed before it began, and nothing uncommitted.
    pub fn read<T>(&self, f: impl FnOnce(&dyn Store) -> T) -> T {
        let Some(reader) = self.take_reader() else {
            let mut w = self.lock_writer();
            // The open group's calls wait for this commit; a failure is theirs to
            // report (this read then sees the books without them).
            let _ = w.end_group(&self.writer.1, &self.metrics);
            return f(w.store.as_ref());
        };
        let out = f(reader.as_ref());
        self.readers
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .push(reader);
        out
    }

    /// A read-only connection: one from the pool, or a new one; `None` when the
    /// books open no readers (or opening one fails).
    fn take_reader(&self) -> Option<Box<dyn Store + Send>> {
        let open = self.open_reader.as_ref()?;
        let pooled = self
            .readers
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .pop();
        pooled.or_else(|| {
            open()
                .map_err(|e| tracing::warn!(error = %e, "cannot open a reader of the books; reading through the writer"))
                .ok()
        })
    }

    /// [`Books::read`] from async code, on the blocking pool.
    pub async fn read_async<T: Send + 'static>(
        &self,
        f: impl FnOnce(&dyn Store) -> T + Send + 'static,
    ) -> T {
        let books = self.clone();
        match tokio::task::spawn_blocking(move || books.read(f)).await {
            Ok(v) => v,
            Err(e) => resume_unwind(e.into_panic()),
        }
    }

    /// [`Books::with`] from async code, on the blocking pool.
    pub async fn run<T: BooksOutcome + Send + 'static>(
        &self,
        f: impl FnOnce(&mut dyn Store) -> T + Send + 'static,
    ) -> T {
        let books = self.clone();
        match tokio::task::spawn_blocking(move || books.with(f)).await {
            Ok(v) => v,
            Err(e) => resume_unwind(e.into_panic()),
        }
    }
}

/// The books at `at` as a server runs on them: the writer's connection, read-only
/// connections beside it, and (PostgreSQL) the NOTIFY signal of changes made by other
/// servers.
pub fn setup(at: &felt_store::BooksAt) -> felt_store::Result<crate::app::BooksSetup> {
    let store = felt_store::open_books(at)?;
    let readers: OpenReader = {
        let at = at.clone();
        Arc::new(move || felt_store::open_books_read_only(&at))
    };
    let changes = match at {
        felt_store::BooksAt::Sqlite(_) => None,
        felt_store::BooksAt::Postgres(url) => Some(pg_changes(url.clone())),
    };
    Ok(crate::app::BooksSetup {
        store,
        readers: Some(readers),
        changes,
    })
}

/// Waits for PostgreSQL's NOTIFY of a meter change (on its own connection, opened
/// again when lost: the meters are then read again, as a signal may have been missed).
fn pg_changes(url: String) -> crate::watch::Changes {
    use felt_store::postgres::{Notice, PgListener};
    let mut listener: Option<PgListener> = None;
    Box::new(move |wait| {
        let l = match listener.as_mut() {
            Some(l) => l,
            None => match PgListener::connect(&url) {
                Ok(l) => listener.insert(l),
                Err(e) => {
                    tracing::warn!(error = %e, "cannot listen for meter changes; trying again");
                    std::thread::sleep(wait);
                    return true;
                }
            },
        };
        match l.wait(wait) {
            Ok(notices) => notices.iter().any(|n| matches!(n, Notice::Meter(_))),
            Err(e) => {
                tracing::warn!(error = %e, "the meter signal was lost; listening again");
                listener = None;
                true
            }
        }
    })
}

/// Read-only connections to the SQLite books at `path`.
pub fn sqlite_readers(path: PathBuf) -> OpenReader {
    Arc::new(move || {
        let reader = felt_store::SqliteStore::open_read_only(&path)?;
        Ok(Box::new(reader) as Box<dyn Store + Send>)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use felt_core::Money;
    use felt_store::{Account, SqliteStore};

    fn books() -> (tempfile::TempDir, Books, Arc<Metrics>) {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("felt.db");
        let store = SqliteStore::open(&path).unwrap();
        let metrics = Arc::new(Metrics::new());
        let books = Books::new(Box::new(store), metrics.clone()).with_readers(sqlite_readers(path));
        (dir, books, metrics)
    }

    fn balance(books: &Books, who: &str) -> Money {
        books.read(|r| r.balance(&Account::player(who))).unwrap()
    }

    #[test]
    fn a_call_queued_behind_another_joins_its_group_and_nothing_shows_before_the_commit() {
        let (_d, books, metrics) = books();
        let behind = books.clone();
        let mut queued = None;
        let first = books.with(|s| -> felt_store::Result<()> {
            s.deposit("alice", Money::cents(500))?;
            let b = behind.clone();
            queued = Some(std::thread::spawn(move || {
                b.with(|s| s.deposit("bob", Money::cents(700)))
            }));
            while behind.waiting() == 0 {
                std::thread::yield_now();
            }
            // Alice's deposit is written but not committed: a reader does not see it.
            assert_eq!(balance(&behind, "alice"), Money::ZERO);
            Ok(())
        });
        first.unwrap();
        // The first call returned: its group is committed (by the call behind it).
        assert_eq!(balance(&books, "alice"), Money::cents(500));
        queued.unwrap().join().unwrap().unwrap();
        assert_eq!(balance(&books, "bob"), Money::cents(700));
        let text = metrics.text();
        assert!(
            text.contains("felt_store_group_calls_bucket{le=\"1.0\"} 0"),
            "{text}"
        );
        assert!(
            text.contains("felt_store_group_calls_bucket{le=\"2.0\"} 1"),
            "{text}"
        );
    }

    #[test]
    fn calls_from_many_threads_all_land_once_and_the_books_stay_sound() {
        let (_d, books, _m) = books();
        let threads: Vec<_> = (0..8)
            .map(|t| {
                let b = books.clone();
                std::thread::spawn(move || {
                    for _ in 0..40 {
                        b.with(|s| s.deposit(&format!("p{t}"), Money::cents(1)))
                            .unwrap();
                    }
                })
            })
            .collect();
        for t in threads {
            t.join().unwrap();
        }
        for t in 0..8 {
            assert_eq!(balance(&books, &format!("p{t}")), Money::cents(40));
        }
        let report = books.read(|r| r.check_books()).unwrap();
        assert!(report.is_sound(), "{report}");
    }

    #[test]
    fn a_read_without_readers_commits_the_open_group_first() {
        let dir = tempfile::tempdir().unwrap();
        let store = SqliteStore::open(dir.path().join("felt.db")).unwrap();
        let books = Books::new(Box::new(store), Arc::new(Metrics::new()));
        books
            .with(|s| s.deposit("alice", Money::cents(300)))
            .unwrap();
        assert_eq!(balance(&books, "alice"), Money::cents(300));
    }
}
