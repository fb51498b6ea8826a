//! `GET /metrics`: Prometheus text. Connections, tables, rounds, actions, refusals,
//! the action-to-view latency, the time a message waits in its table's inbox, and the
//! time a store call waits for and holds the books; the calls to an operator's wallet,
//! their outcomes and lost answers.

use prometheus_client::encoding::text::encode;
use prometheus_client::encoding::EncodeLabelSet;
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::metrics::histogram::{exponential_buckets, Histogram};
use prometheus_client::registry::Registry;

/// The labels of a wallet call's count: the call, and its outcome or why its answer
/// was lost.
#[derive(Debug, Clone, PartialEq, Eq, Hash, EncodeLabelSet)]
pub struct WalletLabels {
    /// `authenticate`, `balance`, `debit`, `credit`, `rollback`.
    pub call: &'static str,
    /// `answered`, `refused`, `lost`; or the lost answer's reason.
    pub outcome: &'static str,
}

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
    /// Wallet calls by call and outcome.
    wallet_calls: Family<WalletLabels, Counter>,
    /// Lost wallet answers by call and reason.
    wallet_lost: Family<WalletLabels, Counter>,
    /// How long each wallet call took (seconds).
    pub wallet_seconds: Histogram,
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
        let wallet_calls = Family::<WalletLabels, Counter>::default();
        let wallet_lost = Family::<WalletLabels, Counter>::default();
        let wallet_seconds = Histogram::new(exponential_buckets(0.000_5, 2.0, 16));
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
        registry.register(
            "wallet_calls",
            "Calls to the operator's wallet, by call and outcome",
            wallet_calls.clone(),
        );
        registry.register(
            "wallet_lost_answers",
            "Wallet answers lost (timeout, connection, 5xx, not the contract), by call and reason",
            wallet_lost.clone(),
        );
        registry.register(
            "wallet_call_seconds",
            "How long each call to the operator's wallet took",
            wallet_seconds.clone(),
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
            wallet_calls,
            wallet_lost,
            wallet_seconds,
        }
    }

    /// Counts a wallet call and its outcome.
    pub fn wallet_call(&self, call: &'static str, outcome: &'static str) {
        self.wallet_calls
            .get_or_create(&WalletLabels { call, outcome })
            .inc();
    }

    /// Counts a lost wallet answer and its reason.
    pub fn wallet_lost(&self, call: &'static str, reason: &'static str) {
        self.wallet_lost
            .get_or_create(&WalletLabels {
                call,
                outcome: reason,
            })
            .inc();
    }

    /// The Prometheus text exposition.
    pub fn text(&self) -> String {
        let mut out = String::new();
        // Writing into a String cannot fail.
        let _ = encode(&mut out, &self.registry);
        out
    }
}
