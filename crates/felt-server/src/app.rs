//! The HTTP side: accounts, the lobby, rules and recall, health and metrics, and the
//! WebSocket each table's players connect through.

use crate::auth;
use crate::books::{Books, OpenReader};
use crate::config::TableConfig;
use crate::hosting::{Hosting, Hosts};
use crate::logged_in::Life;
use crate::metrics::Metrics;
use crate::protocol::{error_frame, ClientMsg, Code, MAX_MESSAGE, OLDEST_VERSION, VERSION};
use crate::table::{self, TableHandle, ToTable};
use axum::extract::ws::{Message, WebSocket, WebSocketUpgrade};
use axum::extract::{Path, Query, State};
use axum::http::{header, HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use felt_core::Money;
use felt_store::{Account, LockPolicy, Role, RoundId, Store, StoreError, TableStatus};
use serde::Deserialize;
use serde_json::{json, Value};
use std::collections::{BTreeMap, BTreeSet};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, OnceLock, RwLock};
use std::time::{Duration, Instant};

/// What the server is set to.
#[derive(Debug, Clone)]
pub struct Settings {
    /// A new account's play money.
    pub starting_balance: Money,
    /// A session unused this long ends (ms).
    pub idle_ms: i64,
    /// Failed logins in a row that lock an account, and for how long.
    pub lock: LockPolicy,
    /// Messages a connection may send per second (sustained), and in a burst.
    pub rate_per_s: f64,
    /// The burst.
    pub burst: f64,
    /// How many table sockets an account, an address and the server may hold, and
    /// the rate an account's sockets share.
    pub sockets: crate::sockets::SocketLimits,
    /// A table socket that sends nothing for this long (not even the pong to the
    /// server's ping, sent after 25 s without a frame) is closed.
    pub silent_socket: Duration,
    /// The test mode (`felt serve --test-shoes`, loopback only): `POST
    /// /api/test/tables/NAME/shoe` stacks a table's next shoe (an operator's session
    /// only).
    pub test_shoes: bool,
    /// How log-ins and registrations are throttled and passwords hashed.
    pub guard: crate::guard::GuardPolicy,
    /// How connections are bounded.
    pub conn: crate::listen::ConnLimits,
    /// Proxies whose `X-Forwarded-For` names the client (`--trust-proxy`); none: the
    /// header is ignored.
    pub trusted_proxies: Vec<std::net::IpAddr>,
    /// The play-money top-up: how much, and how often at most.
    pub top_up: crate::topup::TopUp,
    /// Reality checks, the help line and a session's longest life.
    pub protection: crate::session_info::Protection,
    /// How many requests, and changes, one session may make a minute.
    pub session_rate: crate::session_rate::SessionRate,
}

impl Default for Settings {
    fn default() -> Settings {
        Settings {
            starting_balance: Money::cents(100_000),
            idle_ms: 15 * 60 * 1000,
            lock: LockPolicy {
                after: 3,
                for_ms: 30 * 60 * 1000,
            },
            rate_per_s: 20.0,
            burst: 40.0,
            sockets: Default::default(),
            silent_socket: Duration::from_secs(75),
            test_shoes: false,
            guard: Default::default(),
            conn: Default::default(),
            trusted_proxies: Vec::new(),
            top_up: Default::default(),
            protection: Default::default(),
            session_rate: Default::default(),
        }
    }
}

/// One table of the tables file: dealt here while this server holds its lease.
struct Slot {
    cfg: TableConfig,
    /// Its actor, while this server deals the table.
    here: RwLock<Option<TableHandle>>,
    /// Its rules card, pay tables and returns (computed once, on first request).
    rules_json: OnceLock<Value>,
}

impl Slot {
    /// The actor dealing the table here, if any.
    fn handle(&self) -> Option<TableHandle> {
        self.here.read().unwrap_or_else(|p| p.into_inner()).clone()
    }
}

/// The books a server runs on: the writer's connection, read-only connections beside
/// it, and how changes made by other servers are signalled.
pub struct BooksSetup {
    /// The writer's connection.
    pub store: Box<dyn Store + Send>,
    /// Opens read-only connections to the same books (see [`Books::read`]).
    pub readers: Option<OpenReader>,
    /// Waits for a change of the books made elsewhere (PostgreSQL's NOTIFY); `None`:
    /// the meters are polled four times a second.
    pub changes: Option<crate::watch::Changes>,
}

/// The server's shared state.
pub struct Server {
    books: Books,
    metrics: Arc<Metrics>,
    settings: Settings,
    hosting: Hosting,
    tables: BTreeMap<String, Slot>,
    hosts: Hosts,
    /// The lobby's live feed (`/api/events`): meters and table moves, as SSE data.
    events: tokio::sync::broadcast::Sender<Arc<str>>,
    /// The table sockets open here.
    sockets: Arc<crate::sockets::Sockets>,
    next_conn: AtomicU64,
    draining: AtomicBool,
    guard: crate::guard::Guard,
    /// The basic strategies computed for hints.
    strategies: crate::hint::Strategies,
    /// The wall clock of limits, breaks, reality checks and lock-outs.
    clock: Arc<crate::clock::Clock>,
    /// The players' reality-check schedules.
    reality: Arc<crate::reality::Checks>,
    /// The operator's wallet the tables' money goes through (`felt serve --wallet`).
    wallet: Option<crate::wallet::table::TableWallet>,
}

/// The shared state as handlers see it.
pub type Shared = Arc<Server>;

impl Server {
    /// Starts the server on `books`: claims the tables no live server holds (resuming
    /// the rounds the books hold unfinished) and keeps claiming and renewing them every
    /// [`Hosting::renew`] while it runs; watches the meters for changes made elsewhere.
    pub fn start(
        books: BooksSetup,
        tables: Vec<TableConfig>,
        settings: Settings,
        hosting: Hosting,
    ) -> Result<Shared, String> {
        Server::start_with_wallet(books, tables, settings, hosting, None)
    }

    /// [`Server::start`], the tables' money going through the operator's `wallet`
    /// when given (`docs/operators.md`).
    pub fn start_with_wallet(
        books: BooksSetup,
        tables: Vec<TableConfig>,
        settings: Settings,
        hosting: Hosting,
        wallet: Option<crate::wallet::table::WalletMode>,
    ) -> Result<Shared, String> {
        let metrics = Arc::new(Metrics::new());
        let mut store = books.store;
        // The books refuse a round's step from this server once it no longer holds
        // the table (another server took it over).
        store.fence(Some(&hosting.server));
        let mut b = Books::new(store, metrics.clone());
        if let Some(open) = books.readers {
            b = b.with_readers(open);
        }
        let mut slots = BTreeMap::new();
        for cfg in tables {
            crate::table::check(&cfg).map_err(|e| format!("table `{}`: {e}", cfg.name))?;
            slots.insert(
                cfg.name.clone(),
                Slot {
                    cfg,
                    here: RwLock::new(None),
                    rules_json: OnceLock::new(),
                },
            );
        }
        let clock = Arc::new(crate::clock::Clock::system());
        crate::audit::record_settings(&b, &hosting.server, &settings, clock.now_ms())
            .map_err(|e| format!("the audit log cannot keep this server's settings: {e}"))?;
        let wallet = wallet.map(|w| w.start(metrics.clone())).transpose()?;
        let (events, _) = tokio::sync::broadcast::channel(256);
        let sockets = crate::sockets::Sockets::new(settings.sockets);
        let guard = crate::guard::Guard::new(settings.guard.clone())?;
        let reality = Arc::new(crate::reality::Checks::new(settings.protection.reality));
        let server = Arc::new(Server {
            books: b,
            metrics,
            settings,
            hosting,
            tables: slots,
            hosts: Hosts::default(),
            events,
            sockets,
            next_conn: AtomicU64::new(1),
            draining: AtomicBool::new(false),
            guard,
            strategies: Default::default(),
            clock,
            reality,
            wallet,
        });
        if let Some(w) = &server.wallet {
            // A balance the operator's answers moved shows at the player's table (a
            // betting window nobody has bet in opens again with it).
            let weak = Arc::downgrade(&server);
            w.balances.on_change(move |player| {
                if let Some(h) = weak.upgrade().and_then(|s| s.table_of(player)) {
                    let player = player.to_string();
                    let _ = h.tx.send(ToTable::Deposited { player });
                }
            });
        }
        server.rehost()?;
        let weak = Arc::downgrade(&server);
        let every = server.hosting.renew;
        std::thread::Builder::new()
            .name("hosting".to_string())
            .spawn(move || loop {
                std::thread::sleep(every);
                let Some(s) = weak.upgrade() else { break };
                if s.draining.load(Ordering::SeqCst) {
                    break;
                }
                if let Err(e) = s.rehost() {
                    tracing::warn!(error = %e, "renewing the table leases failed; trying again");
                }
            })
            .map_err(|e| e.to_string())?;
        crate::watch::spawn(Arc::downgrade(&server), books.changes)?;
        Ok(server)
    }

    /// Renews this server's leases and claims its share of the free tables; starts the
    /// tables it now holds and does not deal yet (or whose books failed), stops those
    /// it lost, and gives up one idle table when it holds more than its share (a
    /// server joined). The first call's failures are the start's.
    fn rehost(&self) -> Result<(), String> {
        let me = self.hosting.server.clone();
        let leases = self
            .books
            .read(|st| st.table_leases())
            .map_err(|e| format!("reading the table leases: {e}"))?;
        let ids: Vec<String> = self.tables.values().map(|t| t.cfg.table_id()).collect();
        let plan = crate::hosting::plan(&me, &ids, &leases);
        let (url, ttl) = (self.hosting.url.clone(), self.hosting.lease_ms());
        let want = plan.claim.clone();
        let server = me.clone();
        let statuses = self.statuses();
        let held = self
            .books
            .with(
                move |st| -> felt_store::Result<Vec<felt_store::TableLease>> {
                    let refs: Vec<&str> = want.iter().map(String::as_str).collect();
                    let held = st.claim_tables(&server, &url, &refs, ttl)?;
                    let said: Vec<(&str, &TableStatus)> =
                        statuses.iter().map(|(t, s)| (t.as_str(), s)).collect();
                    st.note_table_status(&server, &said)?;
                    Ok(held)
                },
            )
            .map_err(|e| format!("claiming the tables in the books: {e}"))?;
        let mut held: BTreeSet<String> = held.into_iter().map(|l| l.table).collect();
        if held.iter().filter(|t| ids.contains(t)).count() > plan.share {
            self.shed_one(&mut held);
        }
        let mut first_error = None;
        for slot in self.tables.values() {
            let mine = held.contains(&slot.cfg.table_id());
            let mut here = slot.here.write().unwrap_or_else(|p| p.into_inner());
            let failed = here
                .as_ref()
                .is_some_and(|h| h.info.read().map(|i| i.failed).unwrap_or(true));
            if !mine {
                if let Some(h) = here.take() {
                    tracing::warn!(table = %slot.cfg.name, "another server holds the table now");
                    let _ = h.tx.send(ToTable::Moved);
                }
                continue;
            }
            if here.is_some() && !failed {
                continue;
            }
            if self.draining.load(Ordering::SeqCst) {
                continue;
            }
            let services = table::Services {
                books: self.books.clone(),
                metrics: self.metrics.clone(),
                clock: self.clock.clone(),
                reality: self.reality.clone(),
                life: life(self),
                wallet: self.wallet.clone(),
            };
            match table::spawn(slot.cfg.clone(), services) {
                Ok((handle, _thread)) => {
                    tracing::info!(table = %slot.cfg.name, server = %me, again = failed, "dealing the table");
                    *here = Some(handle);
                }
                Err(e) => {
                    tracing::error!(table = %slot.cfg.name, error = %e, "the table cannot start");
                    *here = None;
                    first_error.get_or_insert(format!("table `{}`: {e}", slot.cfg.name));
                }
            }
        }
        let leases = self.books.read(|st| st.table_leases()).unwrap_or_default();
        if self.hosts.set(crate::hosting::tables_only(leases)) {
            let _ = self.events.send(Arc::from(r#"{"type":"tables"}"#));
        }
        match first_error {
            Some(e) => Err(e),
            None => Ok(()),
        }
    }

    /// How each table dealt here stands, for the other servers' lobbies.
    fn statuses(&self) -> Vec<(String, TableStatus)> {
        self.tables
            .values()
            .filter_map(|t| {
                let handle = t.handle()?;
                let status = table_status(&*handle.info.read().ok()?);
                Some((t.cfg.table_id(), status))
            })
            .collect()
    }

    /// Gives up one table dealt here with nobody seated and no round in play (so no
    /// player is moved), for a server that holds less than its share to take.
    fn shed_one(&self, held: &mut BTreeSet<String>) {
        let idle = self.tables.values().find(|t| {
            held.contains(&t.cfg.table_id())
                && t.handle().is_some_and(|h| {
                    h.info
                        .read()
                        .map(|i| i.players.is_empty() && i.round.is_none())
                        .unwrap_or(false)
                })
        });
        let Some(slot) = idle else { return };
        let id = slot.cfg.table_id();
        if let Some(h) = slot.here.write().unwrap_or_else(|p| p.into_inner()).take() {
            let _ = h.tx.send(ToTable::Moved);
        }
        let server = self.hosting.server.clone();
        let table = id.clone();
        let released = self
            .books
            .with(move |st| st.release_tables(&server, &[table.as_str()]));
        if released.is_ok() {
            tracing::info!(table = %slot.cfg.name, "gave the table up for a server with fewer tables");
            held.remove(&id);
        }
    }

    /// Stops taking new rounds: every table finishes the round in play, then closes;
    /// one still in play after `grace` is parked.
    /// Returns once every table has closed, or after `grace` (a round still in play is
    /// parked: its steps are in the books, and whoever deals the table next resumes
    /// it). The leases are then given up, so another server takes the tables at once.
    pub fn drain(&self, reason: &str, grace: Duration) {
        let until = Instant::now() + grace;
        self.draining.store(true, Ordering::SeqCst);
        // The lobbies' event streams end (a server stopping waits for its open
        // responses).
        let _ = self.events.send(Arc::from(END_OF_EVENTS));
        let handles: Vec<TableHandle> = self.tables.values().filter_map(Slot::handle).collect();
        for h in &handles {
            let _ = h.tx.send(ToTable::Close {
                reason: reason.to_string(),
            });
        }
        // Each table thread ends once its round is over and it has said so; the
        // inboxes stay open until then.
        loop {
            let open = handles
                .iter()
                .filter(|h| h.info.read().map(|i| !i.closed).unwrap_or(false))
                .count();
            if open == 0 || Instant::now() >= until {
                break;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        // A table whose round is still in play stops where it stands (the round is
        // parked in the books): once the leases are given up the table is another
        // server's, and an answer that comes later (an operator's to a debit) must
        // not move this round on here.
        let open = |h: &&TableHandle| {
            h.info
                .read()
                .map(|i| !i.closed && !i.failed)
                .unwrap_or(false)
        };
        let parked: Vec<&TableHandle> = handles.iter().filter(open).collect();
        for h in &parked {
            let _ = h.tx.send(ToTable::Park);
        }
        let until = Instant::now() + PARK_WAIT;
        while parked.iter().any(open) && Instant::now() < until {
            std::thread::sleep(Duration::from_millis(5));
        }
        // The outbox is the next start's: an embedding process that goes on (a test)
        // must not send its calls from a stopped server.
        if let Some(w) = &self.wallet {
            w.stop_worker();
        }
        let ids: Vec<String> = self.tables.values().map(|t| t.cfg.table_id()).collect();
        let server = self.hosting.server.clone();
        let released = self.books.with(move |st| {
            let refs: Vec<&str> = ids.iter().map(String::as_str).collect();
            st.release_tables(&server, &refs)
        });
        if let Err(e) = released {
            tracing::warn!(error = %e, "the table leases could not be given up: they expire");
        }
    }

    /// The books (for tests and the operator's commands).
    pub fn books(&self) -> &Books {
        &self.books
    }

    /// The table sockets open here.
    pub fn sockets(&self) -> &crate::sockets::Sockets {
        &self.sockets
    }

    /// The metrics.
    pub fn metrics(&self) -> &Metrics {
        &self.metrics
    }

    /// The operator's wallet, in wallet mode.
    pub fn wallet(&self) -> Option<&crate::wallet::table::TableWallet> {
        self.wallet.as_ref()
    }

    /// The server's wall clock ([`crate::clock`]).
    pub fn clock(&self) -> &Arc<crate::clock::Clock> {
        &self.clock
    }

    /// The players' reality-check schedules ([`crate::reality`]).
    pub fn reality(&self) -> &Arc<crate::reality::Checks> {
        &self.reality
    }

    /// The name of the table whose id in the books is `table_id`, if it is one of this
    /// server's tables.
    pub fn table_name_of(&self, table_id: &str) -> Option<String> {
        self.tables
            .values()
            .find(|t| t.cfg.table_id() == table_id)
            .map(|t| t.cfg.name.clone())
    }

    /// Now on the server's clock ([`crate::clock`]), in milliseconds since the epoch.
    pub fn now_ms(&self) -> i64 {
        self.clock.now_ms()
    }

    /// What the server is set to.
    pub fn settings(&self) -> &Settings {
        &self.settings
    }

    /// How this server takes part in hosting.
    pub fn hosting(&self) -> &Hosting {
        &self.hosting
    }

    /// The basic strategies computed for hints, by rules.
    pub fn strategies(&self) -> &crate::hint::Strategies {
        &self.strategies
    }

    /// The log-in guard (throttling and hashing).
    pub fn guard(&self) -> &crate::guard::Guard {
        &self.guard
    }

    /// Whether the session cookie is `Secure` (the public URL is `https`).
    pub fn secure(&self) -> bool {
        self.hosting
            .url
            .to_ascii_lowercase()
            .starts_with("https://")
    }

    /// A table's settings and, while this server deals it, its handle, by name.
    pub fn table(&self, name: &str) -> Option<(&TableConfig, Option<TableHandle>)> {
        self.tables.get(name).map(|t| (&t.cfg, t.handle()))
    }

    /// The lowest minimum main bet of the server's tables (zero without tables).
    pub fn lowest_minimum(&self) -> Money {
        self.tables
            .values()
            .map(|t| t.cfg.rules.main_bet().min)
            .min()
            .unwrap_or(Money::ZERO)
    }

    /// The table dealt here at which `player` sits, if any.
    pub(crate) fn table_of(&self, player: &str) -> Option<TableHandle> {
        self.tables.values().filter_map(Slot::handle).find(|h| {
            h.info
                .read()
                .is_ok_and(|i| i.players.iter().any(|(_, p)| p == player))
        })
    }

    /// The tables this server deals now, by name.
    pub fn dealt_here(&self) -> Vec<String> {
        self.tables
            .values()
            .filter(|t| t.handle().is_some())
            .map(|t| t.cfg.name.clone())
            .collect()
    }

    /// The tables dealt here whose meters include one of `changed`, with their meters
    /// (for [`crate::watch`]).
    pub(crate) fn tables_with_meters(&self) -> Vec<(TableHandle, Vec<String>)> {
        self.tables
            .values()
            .filter_map(|t| t.handle().map(|h| (h, meter_ids(&t.cfg))))
            .filter(|(_, m)| !m.is_empty())
            .collect()
    }

    /// Sends `data` to every lobby following `/api/events`.
    pub(crate) fn publish(&self, data: Arc<str>) {
        let _ = self.events.send(data);
    }
}

/// The progressive meters a table's side bets feed.
fn meter_ids(cfg: &TableConfig) -> Vec<String> {
    cfg.rules
        .side_bets()
        .iter()
        .filter_map(|b| b.progressive.as_ref().map(|p| p.meter.clone()))
        .collect()
}

/// A request body's largest size (bytes): JSON bodies are small here.
pub const MAX_BODY: usize = 64 * 1024;

/// The router: every state-changing request from the server's own pages only
/// ([`crate::origin`]), bodies up to [`MAX_BODY`].
pub fn router(state: Shared) -> Router {
    let public_url = state.hosting.url.clone();
    let session_rate = crate::session_rate::Counters::new(state.settings.session_rate);
    Router::new()
        .route("/healthz", get(healthz))
        .route("/metrics", get(metrics))
        .route("/api/register", post(crate::accounts::register))
        .route("/api/login", post(crate::accounts::login))
        .route("/api/logout", post(crate::accounts::logout))
        .route("/api/me", get(crate::accounts::me))
        .route("/api/top-up", post(crate::topup::top_up))
        .route("/api/session", get(crate::session_info::session))
        .route("/api/help-line", get(crate::session_info::help_line))
        .route(
            "/api/session/reality-check",
            axum::routing::put(crate::session_info::set_interval).post(crate::session_info::answer),
        )
        .route("/api/tables", get(lobby))
        .route("/api/events", get(events))
        .route("/api/tables/{name}/rules", get(rules))
        .route("/api/tables/{name}/hint", get(crate::hint::hint))
        .route("/api/history", get(history))
        .route("/api/operator/tables", get(operator_tables))
        .route("/api/operator/rounds/{id}", get(operator_round))
        .route("/api/operator/incomplete", get(operator_incomplete))
        .route("/api/operator/tables/{name}/close", post(operator_close))
        .route("/api/operator/wallet", get(operator_wallet))
        .route(
            "/api/operator/players/{name}/unlock",
            post(crate::lockout::unlock),
        )
        .route("/api/operator/audit", get(crate::audit::list))
        .route(
            "/api/operator/players/{name}/exclude",
            post(crate::limits_api::operator_exclude),
        )
        .route(
            "/api/operator/players/{name}/logout",
            post(crate::session_end::operator_logout),
        )
        .route("/api/password", post(crate::session_end::change_password))
        .route(
            "/api/limits",
            get(crate::limits_api::get).put(crate::limits_api::put),
        )
        .route("/api/limits/break", post(crate::limits_api::take_break))
        .route("/api/limits/review", post(crate::limits_api::review))
        .route("/ws", get(ws))
        .route(
            "/api/test/tables/{name}/shoe",
            post(crate::test_shoes::stack),
        )
        .route("/api/test/clock", post(crate::clock::advance))
        .merge(crate::web::routes())
        .layer(axum::middleware::from_fn_with_state(
            state.clone(),
            crate::wallet::launch::intercept,
        ))
        .layer(axum::middleware::from_fn_with_state(
            session_rate,
            crate::session_rate::check,
        ))
        .layer(axum::middleware::from_fn_with_state(
            public_url,
            crate::origin::check,
        ))
        .layer(axum::extract::DefaultBodyLimit::max(MAX_BODY))
        .with_state(state)
}

/// The operations router (`felt serve --ops-addr`, an address for the monitoring
/// only): `/metrics` and `/healthz` with its detail, no session asked.
pub fn ops_router(state: Shared) -> Router {
    Router::new()
        .route("/healthz", get(ops_healthz))
        .route("/metrics", get(ops_metrics))
        .with_state(state)
}

/// An API error: a status, a code and a sentence.
pub(crate) struct ApiError(pub StatusCode, pub &'static str, pub String);

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        (self.0, Json(json!({"error": self.1, "message": self.2}))).into_response()
    }
}

/// `503 books`: a store call failed (logged).
pub(crate) fn store_error(e: StoreError) -> ApiError {
    tracing::error!(error = %e, "a store call failed");
    ApiError(
        StatusCode::SERVICE_UNAVAILABLE,
        "books",
        "the books cannot be read or written now; try again later".to_string(),
    )
}

/// `GET /healthz`: 200 when the books answer and the server is not stopping, else
/// 503; the detail (tables, server, version) only to an operator's session.
async fn healthz(State(s): State<Shared>, headers: HeaderMap) -> Response {
    let operator = operator(&s, &headers).await.is_ok();
    health(&s, operator).await
}

async fn ops_healthz(State(s): State<Shared>) -> Response {
    health(&s, true).await
}

async fn health(s: &Shared, detail: bool) -> Response {
    let draining = s.draining.load(Ordering::SeqCst);
    let ok = s
        .books
        .run(|st| st.balance(&Account::Cashier).is_ok())
        .await;
    let status = if ok && !draining {
        StatusCode::OK
    } else {
        StatusCode::SERVICE_UNAVAILABLE
    };
    let word = if !ok {
        "books-unavailable"
    } else if draining {
        "draining"
    } else {
        "ok"
    };
    let body = if detail {
        json!({
            "status": word,
            "tables": s.dealt_here().len(),
            "server": s.hosting.server,
            "version": VERSION,
        })
    } else {
        json!({ "status": if status == StatusCode::OK { "ok" } else { "unavailable" } })
    };
    (status, Json(body)).into_response()
}

/// `GET /metrics`: an operator's session only (or `--ops-addr`).
async fn metrics(State(s): State<Shared>, headers: HeaderMap) -> Result<Response, ApiError> {
    operator(&s, &headers).await?;
    Ok(ops_metrics(State(s)).await)
}

async fn ops_metrics(State(s): State<Shared>) -> Response {
    (
        [(
            header::CONTENT_TYPE,
            "application/openmetrics-text; version=1.0.0; charset=utf-8",
        )],
        s.metrics.text(),
    )
        .into_response()
}

/// A logged-in request's login.
pub(crate) struct Who {
    /// The login's name.
    pub name: String,
    /// Its role.
    pub role: Role,
    /// When its session was opened (the log-in; ms since the epoch).
    pub since_ms: i64,
}

/// The login a request's session cookie stands for; an unused session past the
/// inactivity timeout is ended.
pub(crate) async fn who(s: &Shared, headers: &HeaderMap) -> Result<Who, ApiError> {
    let none = || {
        ApiError(
            StatusCode::UNAUTHORIZED,
            "no-session",
            "log in first (POST /api/login): this request has no valid session".to_string(),
        )
    };
    let hash = auth::session_hash(headers).ok_or_else(none)?;
    let life = life(s);
    let now = s.now_ms();
    let found = s
        .books
        .run(move |st| standing_session(st, &hash, life, true, now))
        .await
        .map_err(store_error)?;
    found
        .map(|w| Who {
            name: w.name,
            role: w.role,
            since_ms: w.created_ms,
        })
        .ok_or_else(none)
}

/// How long a session lives on this server: unused, and at all.
pub(crate) fn life(s: &Server) -> Life {
    Life {
        idle_ms: s.settings.idle_ms,
        max_ms: s.settings.protection.session_max_ms,
    }
}

/// The session of token hash `hash`, if it stands: an unused session past its idle
/// time, or any past its longest life, is ended here. A session `used` now is marked
/// so, at most once a minute (a write per request would be waste; a quarter of the
/// idle time when that is shorter).
fn standing_session(
    st: &mut dyn Store,
    hash: &str,
    life: Life,
    used: bool,
    now: i64,
) -> felt_store::Result<Option<felt_store::WebSession>> {
    let Some(w) = st.web_session(hash)? else {
        return Ok(None);
    };
    let idle_ms = life.idle_ms;
    if now - w.last_seen_ms > idle_ms || now - w.created_ms > life.max_ms {
        crate::logged_in::record(st, &w.name, life, now)?;
        st.close_web_session(hash)?;
        return Ok(None);
    }
    if used && now - w.last_seen_ms > (idle_ms / 4).min(60_000) {
        st.touch_web_session(hash, now)?;
    }
    Ok(Some(w))
}

/// What the lobby says of a table's seats: `info` as the table dealt here stands.
fn table_status(info: &table::TableInfo) -> TableStatus {
    TableStatus {
        players: info
            .players
            .iter()
            .map(|(seat, player)| felt_store::SeatedPlayer {
                seat: *seat,
                player: player.clone(),
                away: info.away.contains(seat),
            })
            .collect(),
        closed: info.closed && !info.failed,
    }
}

/// `GET /api/tables`: the tables, their seats and meters; who sits where only to a
/// logged-in request (a visitor sees which seats are taken, not by whom).
async fn lobby(State(s): State<Shared>, headers: HeaderMap) -> Response {
    let names = who(&s, &headers).await.is_ok();
    let meters = s
        .books
        .read_async(|st| st.meters())
        .await
        .unwrap_or_default();
    let tables: Vec<Value> = s
        .tables
        .values()
        .map(|t| {
            let lease = s.hosts.get(&t.cfg.table_id());
            // A table dealt here as it stands; another server's as its host last said.
            let status = match t.handle() {
                Some(h) => h.info.read().ok().map(|i| table_status(&i)),
                None => lease
                    .as_ref()
                    .filter(|l| l.live)
                    .and_then(|l| l.status.clone()),
            };
            let ids = meter_ids(&t.cfg);
            let m: Vec<crate::render::MeterOut> = meters
                .iter()
                .filter(|m| ids.contains(&m.id))
                .map(crate::render::MeterOut::from)
                .collect();
            let host = lease.map(|l| {
                json!({
                    "server": l.server,
                    "url": l.url,
                    "live": l.live,
                    "here": l.server == s.hosting.server,
                })
            });
            json!({
                "name": t.cfg.name,
                "game": t.cfg.rules.game().id,
                "game_name": t.cfg.rules.game().name,
                "seats": t.cfg.rules.table().seats,
                "taken": status.as_ref().map(|st| st.players.len()),
                // Players at the table now (a seat held by an absent player is taken,
                // not counted).
                "present": status.as_ref().map(|st| st.players.iter().filter(|p| !p.away).count()),
                "players": status.as_ref().map(|st| seats(&st.players, names)),
                "limits": {"min": t.cfg.rules.main_bet().min, "max": t.cfg.rules.main_bet().max},
                "betting_ms": t.cfg.betting_ms,
                "decision_ms": t.cfg.decision_ms,
                "meters": m,
                "closed": status.as_ref().map(|st| st.closed),
                "host": host,
            })
        })
        .collect();
    Json(json!({"tables": tables, "server": s.hosting.server})).into_response()
}

/// The seated players as the lobby shows them: with their names, or only the seats;
/// `away` on a seat held by a player not at the table.
fn seats(players: &[felt_store::SeatedPlayer], names: bool) -> Value {
    players
        .iter()
        .map(|p| {
            let mut v = json!({"seat": p.seat});
            if names {
                v["player"] = json!(p.player);
            }
            // Said only of a seat held without its player.
            if p.away {
                v["away"] = json!(true);
            }
            v
        })
        .collect()
}

/// The message that ends every `/api/events` stream (the server is stopping).
const END_OF_EVENTS: &str = "";

/// How long a stopping server waits for the tables it parks to stop.
const PARK_WAIT: Duration = Duration::from_secs(2);

/// The lobby's live feed (server-sent events): a `meters` event with every meter when
/// one changes (here or on another server), a `tables` event when a table moves. A
/// client reads `/api/tables` when the feed (re)opens.
async fn events(State(s): State<Shared>) -> Response {
    use axum::response::sse::{Event, KeepAlive, Sse};
    let rx = s.events.subscribe();
    let stream = futures_util::stream::unfold(rx, |mut rx| async move {
        loop {
            match rx.recv().await {
                Ok(data) if data.as_ref() == END_OF_EVENTS => return None,
                Ok(data) => {
                    let e = Event::default().data(data.as_ref());
                    return Some((Ok::<_, std::convert::Infallible>(e), rx));
                }
                // A slow reader skipped some: the next one says what stands.
                Err(tokio::sync::broadcast::error::RecvError::Lagged(_)) => continue,
                Err(tokio::sync::broadcast::error::RecvError::Closed) => return None,
            }
        }
    });
    Sse::new(stream)
        .keep_alive(KeepAlive::new().interval(Duration::from_secs(15)))
        .into_response()
}

/// No table of this name.
fn no_table(name: &str) -> ApiError {
    ApiError(
        StatusCode::NOT_FOUND,
        "no-table",
        format!("there is no table `{name}`"),
    )
}

async fn rules(State(s): State<Shared>, Path(name): Path<String>) -> Result<Response, ApiError> {
    let t = s.tables.get(&name).ok_or_else(|| no_table(&name))?;
    if let Some(v) = t.rules_json.get() {
        return Ok(Json(v.clone()).into_response());
    }
    let rules = t.cfg.rules.clone();
    let v = tokio::task::spawn_blocking(move || rules_json(&rules))
        .await
        .map_err(|e| ApiError(StatusCode::INTERNAL_SERVER_ERROR, "internal", e.to_string()))?;
    Ok(Json(t.rules_json.get_or_init(|| v).clone()).into_response())
}

/// The rules card, each pay table and each wager's exact return to player.
fn rules_json(rules: &felt_core::Rules) -> Value {
    let card = felt_core::rules::rules_card(rules);
    let sheet = felt_math::parsheet::par_sheet(rules, None, None);
    let (main, sides) = match &sheet {
        Ok(p) => (
            json!({"house_edge": p.main.house_edge, "return_to_player": 1.0 - p.main.house_edge}),
            serde_json::to_value(&p.side_bets).unwrap_or(Value::Null),
        ),
        Err(e) => (json!({"error": e.to_string()}), Value::Null),
    };
    let pay_tables: Vec<Value> = rules
        .side_bets()
        .iter()
        .map(|b| serde_json::to_value(b).unwrap_or(Value::Null))
        .collect();
    json!({
        "game": rules.game().id,
        "name": rules.game().name,
        "card": card,
        "main": main,
        "side_bets": sides,
        "pay_tables": pay_tables,
    })
}

#[derive(Deserialize)]
struct HistoryQuery {
    n: Option<usize>,
    before: Option<i64>,
}

async fn history(
    State(s): State<Shared>,
    headers: HeaderMap,
    Query(q): Query<HistoryQuery>,
) -> Result<Response, ApiError> {
    let w = who(&s, &headers).await?;
    let n = q.n.unwrap_or(10).clamp(1, 100);
    let before = q.before.map(RoundId);
    let name = w.name.clone();
    let rounds = s
        .books
        .read_async(move |st| st.player_rounds(&name, n, before))
        .await
        .map_err(store_error)?;
    let games: Vec<Value> = rounds.iter().map(|r| recall(r, Some(&w.name))).collect();
    Ok(Json(json!({"player": w.name, "games": games})).into_response())
}

/// A stored round as a player recalls it: every card, decision, wager and result as
/// the books have them, and the player's balance before and after. A card dealt face
/// down and never turned (a burn, an unturned hole card) stays hidden while the
/// round's shoe is in play ([`felt_session::recall`], the rule of `felt history` too);
/// an operator's recall follows the same rule (the host's `felt replay` shows all).
fn recall(r: &felt_store::RoundRecord, player: Option<&str>) -> Value {
    use felt_session::recall::{self, Seen};
    let ended = r.status != felt_store::RoundStatus::Open;
    let setup = felt_session::journal::setup_of(r).ok().flatten();
    let events: Vec<Value> = recall::events(r)
        .into_iter()
        .filter_map(|e| match e {
            // A round over: the books' numbering; one in play: the protocol's.
            Seen::Event(e) if ended => serde_json::to_value(e).ok(),
            Seen::Event(e) => serde_json::to_value(crate::render::EventOut::public(
                &e,
                &crate::render::SeatMap::default(),
            ))
            .ok(),
            Seen::Unreadable { .. } => None,
        })
        .collect();
    let actions: Vec<Value> = r
        .steps
        .iter()
        .filter_map(|s| s.action.as_deref())
        .filter_map(|a| serde_json::from_str::<Value>(a).ok())
        .filter(|a| a.get("setup").is_none())
        .collect();
    let result: Value = r
        .result
        .as_deref()
        .and_then(|t| serde_json::from_str(t).ok())
        .unwrap_or(Value::Null);
    let (before, after) = match (player, &setup) {
        (Some(p), Some(s)) => {
            let i = s.players.iter().position(|n| n == p);
            let before = i.and_then(|i| s.balances.get(i)).copied();
            let after = result["seats"]
                .as_array()
                .and_then(|a| a.iter().find(|x| x["player"] == p))
                .map(|x| x["balance"].clone());
            (before, after)
        }
        _ => (None, None),
    };
    json!({
        "round": r.id.0,
        "table": r.table_id,
        "game": r.game_id,
        "status": match r.status {
            felt_store::RoundStatus::Open => "open",
            felt_store::RoundStatus::Finished => "finished",
            felt_store::RoundStatus::Voided => "voided",
        },
        "players": setup.as_ref().map(|s| s.players.clone()),
        "started_at": r.started_at,
        "ended_at": r.ended_at,
        "revealed": recall::revealed(r),
        "balance_before": before,
        "balance_after": after,
        "actions": actions,
        "events": events,
        "result": result,
    })
}

/// The request's login, if it is an operator's.
pub(crate) async fn operator(s: &Shared, headers: &HeaderMap) -> Result<Who, ApiError> {
    let w = who(s, headers).await?;
    if w.role != Role::Operator {
        return Err(ApiError(
            StatusCode::FORBIDDEN,
            "forbidden",
            "only an operator may do this".to_string(),
        ));
    }
    Ok(w)
}

async fn operator_tables(
    State(s): State<Shared>,
    headers: HeaderMap,
) -> Result<Response, ApiError> {
    operator(&s, &headers).await?;
    let meters = s
        .books
        .read_async(|st| st.meters())
        .await
        .map_err(store_error)?;
    let tables: Vec<Value> = s
        .tables
        .values()
        .map(|t| {
            let info = t
                .handle()
                .and_then(|h| h.info.read().ok().map(|i| serde_json::to_value(&*i).ok()))
                .flatten();
            let host = s.hosts.get(&t.cfg.table_id());
            json!({
                "name": t.cfg.name,
                "here": info,
                "host": host.map(|l| json!({"server": l.server, "url": l.url, "live": l.live, "epoch": l.epoch})),
            })
        })
        .collect();
    let meters: Vec<crate::render::MeterOut> =
        meters.iter().map(crate::render::MeterOut::from).collect();
    Ok(Json(json!({"tables": tables, "meters": meters})).into_response())
}

async fn operator_round(
    State(s): State<Shared>,
    headers: HeaderMap,
    Path(id): Path<i64>,
) -> Result<Response, ApiError> {
    operator(&s, &headers).await?;
    let r = s
        .books
        .read_async(move |st| st.round(RoundId(id)))
        .await
        .map_err(store_error)?
        .ok_or_else(|| {
            ApiError(
                StatusCode::NOT_FOUND,
                "no-round",
                format!("there is no round {id} in the books"),
            )
        })?;
    Ok(Json(recall(&r, None)).into_response())
}

/// `GET /api/operator/incomplete`: every unfinished round, the stakes it holds per
/// player, whether a server deals it now, and how it will end by its rules
/// (`felt_session::incomplete`; `felt books --incomplete` prints the same).
async fn operator_incomplete(
    State(s): State<Shared>,
    headers: HeaderMap,
) -> Result<Response, ApiError> {
    operator(&s, &headers).await?;
    let rounds = s
        .books
        .read_async(felt_session::incomplete::report)
        .await
        .map_err(|e| {
            ApiError(
                StatusCode::SERVICE_UNAVAILABLE,
                "books",
                format!("the books cannot be read: {e}"),
            )
        })?;
    Ok(Json(json!({ "rounds": rounds })).into_response())
}

/// The most wallet calls one answer of `GET /api/operator/wallet` lists.
pub const WALLET_PAGE: usize = 1_000;

/// The question of `GET /api/operator/wallet`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct WalletParams {
    /// Of this round only.
    round: Option<i64>,
    /// Written at or after this time (Unix ms).
    since: Option<i64>,
    /// Pending only.
    #[serde(default)]
    pending: bool,
}

/// `GET /api/operator/wallet?round=ID` or `?since=UNIX_MS` (`&pending=true`): the
/// calls to the operator's wallet in the books' outbox with their state, oldest first,
/// at most [`WALLET_PAGE`] (an operator's session).
async fn operator_wallet(
    State(s): State<Shared>,
    headers: HeaderMap,
    Query(q): Query<WalletParams>,
) -> Result<Response, ApiError> {
    operator(&s, &headers).await?;
    let query = felt_store::WalletQuery {
        round: q.round.map(RoundId),
        since_ms: q.since,
        state: q.pending.then_some(felt_store::WalletState::Pending),
        limit: Some(WALLET_PAGE),
        ..felt_store::WalletQuery::default()
    };
    let calls = s
        .books
        .read_async(move |st| st.wallet_calls(&query))
        .await
        .map_err(store_error)?;
    Ok(Json(json!({ "calls": calls })).into_response())
}

async fn operator_close(
    State(s): State<Shared>,
    headers: HeaderMap,
    Path(name): Path<String>,
) -> Result<Response, ApiError> {
    let w = operator(&s, &headers).await?;
    let t = s.tables.get(&name).ok_or_else(|| no_table(&name))?;
    let Some(h) = t.handle() else {
        return Err(ApiError(
            StatusCode::CONFLICT,
            "not-here",
            format!("table `{name}` is dealt by another server: close it there"),
        ));
    };
    tracing::warn!(table = %name, operator = %w.name, "an operator closes the table");
    crate::audit::record(
        &s,
        &w.name,
        crate::audit::AuditAction::CloseTable,
        &name,
        format!("table `{name}` closed by operator {}", w.name),
    )
    .await?;
    let _ = h.tx.send(ToTable::Close {
        reason: format!("closed by operator {}", w.name),
    });
    Ok((
        StatusCode::ACCEPTED,
        Json(json!({"table": name, "closing": true})),
    )
        .into_response())
}

/// Whether a WebSocket's `Origin` (if any) is this server's own.
fn same_origin(headers: &HeaderMap) -> bool {
    let Some(origin) = headers.get(header::ORIGIN).and_then(|o| o.to_str().ok()) else {
        // Not a browser (a bot, a test): nothing cross-site to fear.
        return true;
    };
    let host = headers
        .get(header::HOST)
        .and_then(|h| h.to_str().ok())
        .unwrap_or("");
    let stripped = origin
        .strip_prefix("http://")
        .or_else(|| origin.strip_prefix("https://"))
        .unwrap_or("");
    !host.is_empty() && stripped == host
}

async fn ws(
    State(s): State<Shared>,
    headers: HeaderMap,
    crate::accounts::ClientIp(ip): crate::accounts::ClientIp,
    upgrade: WebSocketUpgrade,
) -> Response {
    if !same_origin(&headers) {
        return ApiError(
            StatusCode::FORBIDDEN,
            "cross-origin",
            "a WebSocket from another site's page is refused".to_string(),
        )
        .into_response();
    }
    let w = match who(&s, &headers).await {
        Ok(w) => w,
        Err(e) => return e.into_response(),
    };
    // A table dealt by another server is relayed there with the same session.
    let cookie = headers
        .get(header::COOKIE)
        .and_then(|c| c.to_str().ok())
        .unwrap_or_default()
        .to_string();
    let session = auth::session_hash(&headers).unwrap_or_default();
    let conn = s.next_conn.fetch_add(1, Ordering::Relaxed);
    let permit = match s.sockets.open(conn, &w.name, &session, Some(ip)) {
        Ok(p) => p,
        Err(too_many) => {
            s.metrics.refusals.inc();
            return ApiError(
                StatusCode::TOO_MANY_REQUESTS,
                "too-many-sockets",
                too_many.to_string(),
            )
            .into_response();
        }
    };
    let socket = Socket {
        conn,
        player: w.name,
        session,
        cookie,
        permit,
    };
    upgrade
        .max_message_size(64 * 1024)
        .read_buffer_size(READ_BUFFER_BYTES)
        .on_upgrade(move |ws| connection(s, socket, ws))
}

/// A table socket's identity and its place among the open ones.
struct Socket {
    conn: u64,
    player: String,
    /// The session's token hash.
    session: String,
    /// The request's cookies (a relay to another server sends them on).
    cookie: String,
    permit: crate::sockets::Permit,
}

/// How often the server pings a socket.
const PING_EVERY: Duration = Duration::from_secs(25);

/// The bytes a table socket reads at once: a client's messages are small
/// ([`MAX_MESSAGE`]), and the WebSocket library zeroes its whole read buffer (by
/// default 128 KiB) before every read.
const READ_BUFFER_BYTES: usize = 2 * MAX_MESSAGE;
/// How often an open socket's session is checked (it ends with the session: a log-out
/// or an operator's ending of it on any server, expiry): every 5 seconds, or at a
/// quarter of the session's idle time when that is shorter. A check is a read; the
/// books' writer is asked only to mark the session used (at most once a minute) or
/// to close it.
fn session_check(idle_ms: i64) -> Duration {
    Duration::from_millis(u64::try_from(idle_ms / 4).unwrap_or(0).clamp(100, 5_000))
}

/// Whether the session `hash` still stands (not logged out, not idle past `idle_ms`);
/// marks it used when the socket was `active` since the last check.
async fn session_stands(s: &Shared, hash: String, active: bool) -> bool {
    let life = life(s);
    let now = s.now_ms();
    let h = hash.clone();
    let seen = match s.books.read_async(move |st| st.web_session(&h)).await {
        Ok(seen) => seen,
        // The books cannot say now: the socket stays; the next check decides.
        Err(_) => return true,
    };
    let Some(w) = seen else { return false };
    let expired = now - w.last_seen_ms > life.idle_ms || now - w.created_ms > life.max_ms;
    let to_mark = active && now - w.last_seen_ms > (life.idle_ms / 4).min(60_000);
    if !expired && !to_mark {
        return true;
    }
    s.books
        .run(move |st| standing_session(st, &hash, life, active, now))
        .await
        .map(|w| w.is_some())
        .unwrap_or(true)
}

/// After one of `player`'s sessions ended elsewhere (another server, or expiry): with
/// no session of theirs left standing, their seat here is left as a log-out leaves it
/// (at the end of the round in play).
async fn seat_after_session_ended(s: &Shared, player: &str) {
    if s.table_of(player).is_none() {
        return;
    }
    let (life, now, name) = (life(s), s.now_ms(), player.to_string());
    let standing = s
        .books
        .read_async(move |st| st.web_sessions_of(&name))
        .await
        .map(|all| all.iter().any(|w| life.end_of(w, now) >= now));
    if let Ok(false) = standing {
        crate::session_end::leave_seat(s, player, "your session ended: log in again");
    }
}

/// A per-connection token bucket.
struct Bucket {
    tokens: f64,
    last: Instant,
    over: u32,
}

/// Where a connection's messages go once it said hello.
enum Target {
    /// The table's actor, here.
    Here(TableHandle),
    /// The server dealing the table (a relay).
    There(tokio::sync::mpsc::Sender<String>),
}

/// The most frames a connection's writer takes from its queue for one flush.
const WRITE_BATCH: usize = 32;

/// Sends `frames` with one flush at the end (the socket is written once, not once a
/// frame, when several are ready).
async fn write_all<S>(sink: &mut S, frames: impl Iterator<Item = Arc<str>>) -> Result<(), S::Error>
where
    S: futures_util::Sink<Message> + Unpin,
{
    use futures_util::SinkExt;
    for f in frames {
        sink.feed(Message::Text(f.as_ref().into())).await?;
    }
    sink.flush().await
}

/// One WebSocket: `hello` first, then every message goes to the table's actor, or to
/// the server that deals the table (relayed as it is); frames from either go out.
/// Refusals before the table (bad JSON, too large, rate) are answered here.
async fn connection(s: Shared, socket: Socket, ws: WebSocket) {
    use futures_util::{SinkExt, StreamExt};
    let Socket {
        conn,
        player,
        session,
        cookie,
        mut permit,
    } = socket;
    let (mut sink, mut stream) = ws.split();
    let (out, mut rx) = tokio::sync::mpsc::channel::<Arc<str>>(1024);
    // The writer sends the frames, and a ping whenever nothing was sent for a while
    // (a client's pong proves it is alive).
    let writer = tokio::spawn(async move {
        let mut ready = Vec::new();
        loop {
            match tokio::time::timeout(PING_EVERY, rx.recv_many(&mut ready, WRITE_BATCH)).await {
                Ok(0) => break,
                Ok(_) => {
                    // The frames queued by now go out together: one write, one flush.
                    if write_all(&mut sink, ready.drain(..)).await.is_err() {
                        break;
                    }
                }
                Err(_) => {
                    if sink.send(Message::Ping(Default::default())).await.is_err() {
                        break;
                    }
                }
            }
        }
        let _ = sink.close().await;
    });
    let every = session_check(s.settings.idle_ms);
    let mut checks = tokio::time::interval_at(tokio::time::Instant::now() + every, every);
    let mut active = false;
    let mut target: Option<Target> = None;
    let relay_ended = Arc::new(tokio::sync::Notify::new());
    let mut bucket = Bucket {
        tokens: s.settings.burst,
        last: Instant::now(),
        over: 0,
    };
    let local =
        |code: Code, message: &str| -> Arc<str> { error_frame(0, code, message, None).into() };
    let ended = |why: &str| -> Arc<str> { error_frame(0, Code::SessionEnded, why, None).into() };
    loop {
        let msg = tokio::select! {
            m = tokio::time::timeout(s.settings.silent_socket, stream.next()) => match m {
                Ok(m) => m,
                // Silent past the deadline: a half-open connection holds nothing.
                Err(_) => break,
            },
            () = relay_ended.notified() => break,
            _ = permit.closed.changed() => {
                let why = permit.closed.borrow().clone().unwrap_or_else(|| Arc::from("closed"));
                let _ = out.try_send(ended(&why));
                break;
            }
            _ = checks.tick() => {
                if !session_stands(&s, session.clone(), std::mem::take(&mut active)).await {
                    let _ = out.try_send(ended("your session ended: log in again"));
                    seat_after_session_ended(&s, &player).await;
                    break;
                }
                continue;
            }
        };
        let Some(msg) = msg else { break };
        active = true;
        let text = match msg {
            Ok(Message::Text(t)) => t,
            Ok(Message::Close(_)) | Err(_) => break,
            Ok(Message::Ping(_) | Message::Pong(_)) => continue,
            Ok(Message::Binary(_)) => {
                let _ = out.try_send(local(Code::BadMessage, "messages are JSON text"));
                continue;
            }
        };
        // The rate limit: a token per message, refilled at rate_per_s up to the burst.
        let now = Instant::now();
        bucket.tokens = (bucket.tokens
            + now.duration_since(bucket.last).as_secs_f64() * s.settings.rate_per_s)
            .min(s.settings.burst);
        bucket.last = now;
        if bucket.tokens < 1.0 || !s.sockets.allow(&player) {
            bucket.over += 1;
            s.metrics.refusals.inc();
            if bucket.over > 100 {
                let _ = out.try_send(local(
                    Code::RateLimited,
                    "too many messages: the connection is closed",
                ));
                break;
            }
            // Every dropped message is answered, so a client always knows to ask
            // again (the queue is bounded, and a hundred drops in a row close it).
            let _ = out.try_send(local(
                Code::RateLimited,
                "too many messages: this one was dropped; slow down",
            ));
            continue;
        }
        bucket.tokens -= 1.0;
        bucket.over = 0;
        if text.len() > MAX_MESSAGE {
            s.metrics.refusals.inc();
            let _ = out.try_send(local(
                Code::TooLarge,
                &format!("a message has at most {MAX_MESSAGE} bytes"),
            ));
            continue;
        }
        let parsed: Result<ClientMsg, _> = serde_json::from_str(&text);
        let msg = match parsed {
            Ok(m) => m,
            Err(e) => {
                s.metrics.refusals.inc();
                let code = if e.to_string().contains("unknown variant") {
                    Code::UnknownType
                } else {
                    Code::BadMessage
                };
                let _ = out.try_send(local(code, &format!("not a message of this protocol: {e}")));
                continue;
            }
        };
        match (&target, msg) {
            (
                None,
                ClientMsg::Hello {
                    version,
                    table: name,
                    last_seq,
                },
            ) => {
                if !(OLDEST_VERSION..=VERSION).contains(&version) {
                    let _ = out.try_send(local(
                        Code::Version,
                        &format!(
                            "this server speaks protocol versions {OLDEST_VERSION} to {VERSION}"
                        ),
                    ));
                    continue;
                }
                let Some(slot) = s.tables.get(&name) else {
                    let _ =
                        out.try_send(local(Code::NoTable, &format!("there is no table `{name}`")));
                    continue;
                };
                let away = |why: &str| {
                    local(
                        Code::Away,
                        &format!("table `{name}` {why}: reconnect in a moment"),
                    )
                };
                if let Some(h) = slot.handle() {
                    let failed = h.info.read().map(|i| i.failed).unwrap_or(true);
                    let joined = !failed
                        && h.tx
                            .send(ToTable::Join {
                                conn,
                                player: player.clone(),
                                out: out.clone(),
                                last_seq,
                                version,
                            })
                            .is_ok();
                    if !joined {
                        let _ = out.try_send(away("is starting again from the books"));
                        break;
                    }
                    target = Some(Target::Here(h));
                    continue;
                }
                match s.hosts.get(&slot.cfg.table_id()) {
                    Some(l) if l.live && l.server != s.hosting.server && !l.url.is_empty() => {
                        let up = crate::relay::open(
                            &l.url,
                            &cookie,
                            text.to_string(),
                            out.clone(),
                            relay_ended.clone(),
                        );
                        target = Some(Target::There(up));
                    }
                    _ => {
                        let _ = out.try_send(away("is moving to another server"));
                        break;
                    }
                }
            }
            (None, _) => {
                let _ = out.try_send(local(
                    Code::Hello,
                    "say hello first: {\"type\": \"hello\", \"version\": 2, \"table\": NAME}",
                ));
            }
            (Some(Target::Here(h)), msg) => match h.send_message(conn, msg, Instant::now()) {
                Ok(()) => {}
                Err(true) => {
                    s.metrics.refusals.inc();
                    let _ = out.try_send(local(
                        Code::Busy,
                        "the table is busy: this message was dropped; try again in a moment",
                    ));
                }
                Err(false) => break,
            },
            (Some(Target::There(up)), _) => {
                if up.send(text.to_string()).await.is_err() {
                    break;
                }
            }
        }
        if writer.is_finished() {
            break;
        }
    }
    if let Some(Target::Here(h)) = target {
        let _ = h.tx.send(ToTable::Gone { conn });
    }
    drop(out);
    let _ = writer.await;
    drop(permit);
}

/// Serves `state` on `listener` until `stop` resolves; then stops taking new rounds,
/// lets the rounds in play finish for at most `grace` (a round still open after it is
/// parked: it is in the books and resumes at the next start) and returns.
pub async fn serve(
    listener: tokio::net::TcpListener,
    state: Shared,
    stop: impl std::future::Future<Output = ()> + Send + 'static,
    grace: Duration,
) -> std::io::Result<()> {
    let app = router(state.clone());
    let drained = state.clone();
    let shutdown = async move {
        stop.await;
        tracing::info!("stopping: no new rounds; the rounds in play finish or are parked");
        let s = drained.clone();
        let _ = tokio::task::spawn_blocking(move || s.drain("the server is stopping", grace)).await;
    };
    let limits = state.settings.conn.clone();
    crate::listen::serve(listener, app, limits, shutdown).await
}
