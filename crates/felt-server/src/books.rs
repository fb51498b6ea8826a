//! The books a server writes: one store, one writer. Every table's steps, every login
//! and every read go through one lock on one connection, so a table never fights
//! another for SQLite's write lock (it waits its turn in the queue instead), and the
//! time each call holds the books is measured.

use crate::metrics::Metrics;
use felt_store::Store;
use std::sync::{Arc, Mutex};
use std::time::Instant;

/// The shared books.
#[derive(Clone)]
pub struct Books {
    store: Arc<Mutex<Box<dyn Store + Send>>>,
    metrics: Arc<Metrics>,
}

impl Books {
    /// Books over this store.
    pub fn new(store: Box<dyn Store + Send>, metrics: Arc<Metrics>) -> Books {
        Books {
            store: Arc::new(Mutex::new(store)),
            metrics,
        }
    }

    /// Runs `f` on the store (blocking: call it from a table's thread or
    /// `spawn_blocking`, never on the async runtime). The time is recorded as store
    /// commit time.
    pub fn with<T>(&self, f: impl FnOnce(&mut dyn Store) -> T) -> T {
        // A panic while holding the lock leaves the store as its last transaction left
        // it (each call is one transaction): the lock is taken back.
        let mut guard = self.store.lock().unwrap_or_else(|p| p.into_inner());
        let started = Instant::now();
        let out = f(guard.as_mut());
        self.metrics
            .store_seconds
            .observe(started.elapsed().as_secs_f64());
        out
    }

    /// Runs `f` on the store from async code, on the blocking pool.
    pub async fn run<T: Send + 'static>(
        &self,
        f: impl FnOnce(&mut dyn Store) -> T + Send + 'static,
    ) -> T {
        let books = self.clone();
        match tokio::task::spawn_blocking(move || books.with(f)).await {
            Ok(v) => v,
            Err(e) => std::panic::resume_unwind(e.into_panic()),
        }
    }
}
