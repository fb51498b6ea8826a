//! `GET /metrics`: Prometheus text. Connections, tables, rounds, actions, refusals,
//! the action-to-view latency, the time a message waits in its table's inbox, and the
//! time a store call waits for and holds the books.

use prometheus_client::encoding::text::encode;
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::metrics::histogram::{exponential_buckets, Histogram};
use prometheus_client::registry::Registry;

/// The server's metrics.
pub struct Metrics {
    registry: Registry,
    /// Open WebSocket connections.
    pub connections: Gauge,
    /// Tables running.
    pub tables: Gauge,
    /// Rounds finished.
    pub rounds: Counter,
    /// Client actions (bets and decisions) applied.
    pub actions: Counter,
    /// Client messages refused with an error.
    pub refusals: Counter,
    /// From an action's arrival at its table to its view sent (seconds).
    pub action_seconds: Histogram,
    /// How long each store call held the books (seconds).
    pub store_seconds: Histogram,
    /// How long each store call waited for the books (seconds).
    pub store_wait_seconds: Histogram,
    /// How long an action waited in its table's inbox before the table took it up.
    pub inbox_seconds: Histogram,
    /// Calls committed together by each group commit of the books.
    pub group_calls: Histogram,
    /// How long a call, its SQL done, waited for its group's commit.
    pub commit_wait_seconds: Histogram,
    /// How long a table took over one message (its steps, its views).
    pub message_seconds: Histogram,
}

impl Default for Metrics {
    fn default() -> Metrics {
        Metrics::new()
    }
}

impl Metrics {
    /// Registers every metric.
    pub fn new() -> Metrics {
        let mut registry = Registry::with_prefix("felt");
        let connections = Gauge::default();
        let tables = Gauge::default();
        let rounds = Counter::default();
        let actions = Counter::default();
        let refusals = Counter::default();
        let action_seconds = Histogram::new(exponential_buckets(0.000_25, 2.0, 16));
        let store_seconds = Histogram::new(exponential_buckets(0.000_05, 2.0, 16));
        let store_wait_seconds = Histogram::new(exponential_buckets(0.000_05, 2.0, 16));
        let inbox_seconds = Histogram::new(exponential_buckets(0.000_05, 2.0, 16));
        let group_calls = Histogram::new(exponential_buckets(1.0, 2.0, 8));
        let commit_wait_seconds = Histogram::new(exponential_buckets(0.000_05, 2.0, 16));
        let message_seconds = Histogram::new(exponential_buckets(0.000_05, 2.0, 16));
        registry.register(
            "connections",
            "Open WebSocket connections",
            connections.clone(),
        );
        registry.register("tables", "Tables running", tables.clone());
        registry.register("rounds", "Rounds finished", rounds.clone());
        registry.register("actions", "Client actions applied", actions.clone());
        registry.register("refusals", "Client messages refused", refusals.clone());
        registry.register(
            "action_to_view_seconds",
            "From a client action's arrival at its table to its view sent",
            action_seconds.clone(),
        );
        registry.register(
            "store_call_seconds",
            "How long each store call (a commit, a read) held the books",
            store_seconds.clone(),
        );
        registry.register(
            "store_wait_seconds",
            "How long each store call waited for the books (another table's call)",
            store_wait_seconds.clone(),
        );
        registry.register(
            "table_inbox_seconds",
            "How long a client message waited in its table's inbox",
            inbox_seconds.clone(),
        );
        registry.register(
            "store_group_calls",
            "Store calls committed together by one group commit (one disk sync)",
            group_calls.clone(),
        );
        registry.register(
            "store_commit_wait_seconds",
            "How long a store call, its SQL done, waited for its group's commit",
            commit_wait_seconds.clone(),
        );
        registry.register(
            "table_message_seconds",
            "How long a table took over one message (its steps and views)",
            message_seconds.clone(),
        );
        Metrics {
            registry,
            connections,
            tables,
            rounds,
            actions,
            refusals,
            action_seconds,
            store_seconds,
            store_wait_seconds,
            inbox_seconds,
            group_calls,
            commit_wait_seconds,
            message_seconds,
        }
    }

    /// The Prometheus text exposition.
    pub fn text(&self) -> String {
        let mut out = String::new();
        // Writing into a String cannot fail.
        let _ = encode(&mut out, &self.registry);
        out
    }
}
