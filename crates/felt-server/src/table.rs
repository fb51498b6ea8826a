//! A table is an actor: one thread owns its round, its timers and its calls to the
//! books; connections send it messages and receive only renderings of the view of
//! their own seat (or a spectator's). A thread, not an async task: the books are
//! synchronous (SQLite), and a table waiting on them must not hold up the runtime.
//!
//! A round: the betting window opens when someone sits (a countdown; the round deals
//! when every player of the round has bet, or when the window closes with a bet on
//! the table). Insurance, even money and early surrender are asked of every spot at
//! once, in one window; the answers go to the engine in seat order when all are in or
//! the window closes (an unanswered offer times out: declined). Each hand has a
//! decision timer; when it runs out the hand stands. A timeout is an action in the
//! round's log like any other. Every step is in the books before anyone sees it.

mod bets;
mod through_wallet;

use crate::books::Books;
use crate::config::TableConfig;
use crate::frames;
use crate::metrics::Metrics;
use crate::protocol::{error_frame, ClientMsg, Code, Word, VERSION};
use crate::render::{self, SeatMap};
use felt_core::meter::MemoryMeters;
use felt_core::round::{HandRef, Legal, Turn};
use felt_core::{Action, ActionError, Decision, Event, Money, Phase, Shoe};
use felt_session::dealing::{self, Seeds};
use felt_session::journal::{self, Ctx, Live, Stepped};
use felt_session::recovery::{self, Recovered};
use felt_store::{Account, RoundId, SeatClaim};
use std::collections::{BTreeMap, BTreeSet, HashMap, VecDeque};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc::{Receiver, RecvTimeoutError, Sender};
use std::sync::{Arc, RwLock};
use std::time::{Duration, Instant};

/// Where a connection's frames go (bounded: a connection that does not read is dropped
/// and must reconnect).
pub type Outbox = tokio::sync::mpsc::Sender<Arc<str>>;

/// How many frames a player's stream keeps for a reconnecting client (one who missed
/// more gets a fresh view).
const REPLAY_FRAMES: usize = 64;
/// The most bytes of frames a player's stream keeps.
const REPLAY_BYTES: usize = 256 * 1024;
/// The most streams a table keeps: past it, the longest idle go first, grace or not.
const MAX_STREAMS: usize = 512;
/// How often a table looks for streams to drop.
const SWEEP_EVERY: Duration = Duration::from_secs(5);

/// A message to a table.
pub enum ToTable {
    /// A connection joins the table's stream.
    Join {
        /// The connection.
        conn: u64,
        /// The logged-in player.
        player: String,
        /// Where its frames go.
        out: Outbox,
        /// The last `seq` it saw (reconnecting).
        last_seq: Option<u64>,
        /// The protocol version it speaks.
        version: u32,
    },
    /// A connection is gone.
    Gone {
        /// The connection.
        conn: u64,
    },
    /// A client message.
    Msg {
        /// The connection.
        conn: u64,
        /// The message.
        msg: ClientMsg,
        /// When it arrived.
        at: Instant,
    },
    /// Close the table: no new round; the round in play finishes.
    Close {
        /// Why (shown to the players).
        reason: String,
    },
    /// The test mode ([`crate::test_shoes`]): the next round deals from this shoe.
    Stack {
        /// The stacked shoe.
        shoe: Shoe,
    },
    /// A progressive meter of this table changed (another table, maybe on another
    /// server, took a contribution or paid an award): the players see it at once.
    Meters {
        /// The table's meters as the books hold them now.
        meters: Vec<crate::render::MeterOut>,
    },
    /// Another server holds this table now (this server lost its lease): the table
    /// stops at once, and its players are told to reconnect (they reach the new host).
    Moved,
    /// The server stops and the round in play did not end within its grace: the table
    /// stops where it stands (the round is parked in the books for the next host).
    Park,
    /// Money arrived in a seated player's wallet (a top-up): a betting window nobody
    /// has bet in opens again with the balance as it is now, and everyone sees it.
    Deposited {
        /// The player.
        player: String,
    },
    /// The player may not play on (a break, an exclusion: [`crate::limits`]): a player
    /// in the round in play leaves when it ends, else at once; told why.
    Stop {
        /// The player.
        player: String,
        /// Why, in a sentence.
        reason: String,
    },
    /// The answer of a debit this table sent to the operator's wallet.
    Wallet(crate::wallet::table::Answered),
}

/// What the lobby shows of a table (updated by the table).
#[derive(Debug, Clone, serde::Serialize)]
pub struct TableInfo {
    /// The table's name.
    pub name: String,
    /// The game's id.
    pub game: String,
    /// The game's name.
    pub game_name: String,
    /// Seats.
    pub seats: u8,
    /// Players seated, by seat (1..).
    pub players: Vec<(u8, String)>,
    /// The seats whose player holds them without a connection here.
    pub away: Vec<u8>,
    /// Main bet limits.
    pub min: Money,
    /// Main bet limits.
    pub max: Money,
    /// The betting window and decision timer (ms).
    pub betting_ms: u64,
    /// The decision timer (ms).
    pub decision_ms: u64,
    /// The round in play.
    pub round: Option<i64>,
    /// Closed (by an operator, or the server stopping).
    pub closed: bool,
    /// Stopped because the books failed (or the table moved): the server starts it
    /// again from the books while it holds the table's lease.
    pub failed: bool,
    /// The players' streams the table keeps (seated, connected, or gone within the
    /// reconnection grace).
    pub streams: usize,
}

/// A running table: its inbox and its lobby line.
#[derive(Clone)]
pub struct TableHandle {
    /// Its inbox.
    pub tx: Sender<ToTable>,
    /// Its lobby line.
    pub info: Arc<RwLock<TableInfo>>,
    /// Client messages in the inbox, not yet handled.
    queued: Arc<AtomicUsize>,
}

/// The most client messages a table's inbox holds: past it a client's message is
/// answered `busy` and dropped (the players' rate limits keep it far away).
pub const INBOX_MESSAGES: usize = 1024;

impl TableHandle {
    /// Sends a client's message to the table, unless its inbox holds
    /// [`INBOX_MESSAGES`] already (`Err(true)`) or the table is gone (`Err(false)`).
    pub fn send_message(&self, conn: u64, msg: ClientMsg, at: Instant) -> Result<(), bool> {
        if self.queued.fetch_add(1, Ordering::SeqCst) >= INBOX_MESSAGES {
            self.queued.fetch_sub(1, Ordering::SeqCst);
            return Err(true);
        }
        self.tx.send(ToTable::Msg { conn, msg, at }).map_err(|_| {
            self.queued.fetch_sub(1, Ordering::SeqCst);
            false
        })
    }
}

/// Checks that a table's rules make a table (before any server deals it).
pub fn check(cfg: &TableConfig) -> Result<(), String> {
    Ctx::new(cfg.rules.clone(), &cfg.game, cfg.table_id())
        .map(|_| ())
        .map_err(|e| e.to_string())
}

/// What a table uses of the server's.
pub struct Services {
    /// The books.
    pub books: Books,
    /// The server's metrics.
    pub metrics: Arc<Metrics>,
    /// The server's wall clock.
    pub clock: Arc<crate::clock::Clock>,
    /// The players' reality-check schedules (a bet waits for a due check's answer).
    pub reality: Arc<crate::reality::Checks>,
    /// How long web sessions live (session-time limits count logged-in time).
    pub life: crate::logged_in::Life,
    /// The operator's wallet (`felt serve --wallet`); `None`: the books' play money.
    pub wallet: Option<crate::wallet::table::TableWallet>,
}

/// Starts a table's thread; the books are read for the players seated at it (a player
/// sits at one table at a time, whichever server deals it: the books keep the seats)
/// and the round it left unfinished.
pub fn spawn(
    cfg: TableConfig,
    services: Services,
) -> Result<(TableHandle, std::thread::JoinHandle<()>), String> {
    let (actor, handle, rx) = build(cfg, services)?;
    let thread = std::thread::Builder::new()
        .name(format!("table {}", actor.cfg.name))
        .spawn(move || actor.run(rx))
        .map_err(|e| e.to_string())?;
    Ok((handle, thread))
}

/// The table's actor (recovered from the books), its handle and its inbox.
fn build(
    cfg: TableConfig,
    services: Services,
) -> Result<(Actor, TableHandle, Receiver<ToTable>), String> {
    let Services {
        books,
        metrics,
        clock,
        reality,
        life,
        wallet,
    } = services;
    let ctx = Ctx::new(cfg.rules.clone(), &cfg.game, cfg.table_id()).map_err(|e| e.to_string())?;
    let info = Arc::new(RwLock::new(TableInfo {
        name: cfg.name.clone(),
        game: cfg.rules.game().id.clone(),
        game_name: cfg.rules.game().name.clone(),
        seats: cfg.rules.table().seats,
        players: Vec::new(),
        away: Vec::new(),
        min: cfg.rules.main_bet().min,
        max: cfg.rules.main_bet().max,
        betting_ms: cfg.betting_ms,
        decision_ms: cfg.decision_ms,
        round: None,
        closed: false,
        failed: false,
        streams: 0,
    }));
    books
        .with(|s| -> felt_store::Result<()> {
            for (m, reset) in &ctx.meters {
                s.create_meter(m, *reset, &Account::house(ctx.house.clone()))?;
            }
            Ok(())
        })
        .map_err(|e| e.to_string())?;
    let (tx, rx) = std::sync::mpsc::channel();
    let queued = Arc::new(AtomicUsize::new(0));
    let seats = usize::from(cfg.rules.table().seats);
    let shoe = books
        .with(|s| s.shoe(&ctx.table_id))
        .map_err(|e| e.to_string())?
        .and_then(|b| Shoe::from_bytes(&b).ok())
        .filter(|s| s.decks() == cfg.rules.shoe().decks)
        .unwrap_or_else(|| ctx.table.new_shoe());
    let side_names = cfg
        .rules
        .side_bets()
        .iter()
        .map(|b| (b.id.clone(), b.name.clone()))
        .collect();
    let fixed = fixed_info(&cfg, &ctx);
    let mut actor = Actor {
        cfg,
        ctx,
        books,
        metrics,
        clock,
        reality,
        life,
        info: info.clone(),
        conns: BTreeMap::new(),
        seats: vec![None; seats],
        streams: HashMap::new(),
        shoe,
        seeds: Seeds::Entropy,
        round: None,
        timer: None,
        closed: None,
        last: None,
        side_names,
        fixed_members: frames::members(&fixed),
        fixed,
        meters: Vec::new(),
        announced: Vec::new(),
        stacked: None,
        swept: Instant::now(),
        queued: queued.clone(),
        inbox: wallet.as_ref().map(|_| tx.clone()),
        wallet,
        debits: BTreeMap::new(),
    };
    actor.read_meters();
    actor.recover()?;
    Ok((actor, TableHandle { tx, info, queued }, rx))
}

#[derive(Clone)]
struct Seated {
    player: String,
    /// Rounds ended while the player had no connection.
    absent: u32,
    /// Leaves when the round ends.
    leaving: bool,
    /// Leaves when the round ends, having played it out: may not play on (why).
    stop: Option<String>,
}

struct Conn {
    player: String,
    out: Outbox,
    /// The protocol version its `hello` named.
    version: u32,
}

/// A player's stream at this table: its sequence and its last frames.
#[derive(Default)]
struct Stream {
    seq: u64,
    frames: VecDeque<(u64, Arc<str>)>,
    /// The bytes of `frames`.
    bytes: usize,
    /// Since when its player has had neither a seat nor a connection here.
    idle_since: Option<Instant>,
    /// Its views carry the table's fixed part (protocol version 1).
    fixed_in_views: bool,
}

impl Stream {
    /// Keeps `frame` (number `seq`) for a reconnection, within the bounds.
    fn keep(&mut self, seq: u64, frame: Arc<str>) {
        self.bytes += frame.len();
        self.frames.push_back((seq, frame));
        while self.frames.len() > REPLAY_FRAMES || self.bytes > REPLAY_BYTES {
            match self.frames.pop_front() {
                Some((_, f)) => self.bytes -= f.len(),
                None => break,
            }
        }
    }
}

struct Offer {
    seat: u8,
    at: HandRef,
    legal: Legal,
}

struct Answer {
    decision: Decision,
    id: String,
    conn: u64,
    /// With the operator's wallet, what the acknowledged debit of an insurance
    /// brings into the books with the step at the window's close (empty otherwise).
    funding: journal::Extra,
}

/// The insurance / even money / early surrender window.
struct Window {
    offers: Vec<Offer>,
    answers: BTreeMap<(u8, u8, u8), Answer>,
}

struct RoundState {
    live: Live,
    /// The ids this betting window was announced under (the books give a round its
    /// id when its first bet is written: another table may take the one expected, and
    /// a window set up again for a newcomer may expect another), so bets naming any
    /// of them are bets of this round.
    announced: Vec<RoundId>,
    seats: SeatMap,
    /// Engine seats that have bet.
    bet: BTreeSet<u8>,
    /// Engine seats whose player left before betting: out of this round, even if they
    /// sit again before it deals (their balance may have moved meanwhile).
    left: BTreeSet<u8>,
    window: Option<Window>,
    /// The round's settlements so far.
    settlements: Vec<render::SettlementLine>,
    /// The hand the decision timer runs for.
    timed: Option<(u8, HandRef)>,
    /// Balances of players who topped up during this betting window before betting
    /// (read once from the books at the deposit; the round's own balance is older).
    deposited: HashMap<String, Money>,
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum TimerKind {
    Betting,
    Offer,
    Decision,
    Pause,
}

impl TimerKind {
    fn word(self) -> &'static str {
        match self {
            TimerKind::Betting => "betting",
            TimerKind::Offer => "offer",
            TimerKind::Decision => "decision",
            TimerKind::Pause => "next-round",
        }
    }
}

/// The last round's final state, shown until the next one opens.
struct Last {
    round: render::RoundOut,
    settlements: Vec<render::SettlementLine>,
    number: i64,
    seats: SeatMap,
}

struct Actor {
    cfg: TableConfig,
    ctx: Ctx,
    books: Books,
    metrics: Arc<Metrics>,
    /// The server's wall clock (limits, breaks, reality checks).
    clock: Arc<crate::clock::Clock>,
    /// The players' reality-check schedules.
    reality: Arc<crate::reality::Checks>,
    /// How long web sessions live.
    life: crate::logged_in::Life,
    info: Arc<RwLock<TableInfo>>,
    conns: BTreeMap<u64, Conn>,
    seats: Vec<Option<Seated>>,
    streams: HashMap<String, Stream>,
    shoe: Shoe,
    seeds: Seeds,
    round: Option<RoundState>,
    timer: Option<(Instant, TimerKind)>,
    closed: Option<String>,
    last: Option<Last>,
    side_names: Vec<(String, String)>,
    /// The table's game, limits and hints: sent once, in each connection's welcome.
    fixed: frames::Fixed,
    /// `fixed` serialized, as the members a version 1 view carries.
    fixed_members: String,
    /// The table's progressive meters as last read from the books (after a step that
    /// moved one, and at each change the meters' watch reports).
    meters: Vec<render::MeterOut>,
    /// The ids of betting windows dropped before any bet (see `RoundState::announced`).
    announced: Vec<RoundId>,
    /// The test mode's stacked shoe: the next round to take a bet deals from it.
    stacked: Option<Shoe>,
    /// When the streams were last swept.
    swept: Instant,
    /// Client messages in the inbox (see [`TableHandle::send_message`]).
    queued: Arc<AtomicUsize>,
    /// The operator's wallet, if the table's money goes through it.
    wallet: Option<crate::wallet::table::TableWallet>,
    /// The table's own inbox, for the wallet's answers (dropped when it closes).
    inbox: Option<Sender<ToTable>>,
    /// The debits sent and not yet answered, by transaction id.
    debits: BTreeMap<String, through_wallet::InFlight>,
}

/// A failure of the books: the table stops taking actions and says so.
type Fatal = String;

impl Actor {
    fn run(mut self, rx: Receiver<ToTable>) {
        self.metrics.tables.inc();
        // A message taken from the inbox behind a run of bets, handled next.
        let mut held: Option<ToTable> = None;
        loop {
            if let Err(e) = self.advance() {
                self.fail(&e);
                break;
            }
            self.sweep();
            let wait = self
                .timer
                .map(|(t, _)| t.saturating_duration_since(Instant::now()))
                .unwrap_or(SWEEP_EVERY)
                .min(SWEEP_EVERY.min(Duration::from_millis(self.cfg.reconnect_ms)));
            let next = match held.take() {
                Some(m) => Ok(m),
                None => rx.recv_timeout(wait),
            };
            let r = match next {
                Ok(m) => {
                    let began = Instant::now();
                    // Bets waiting together are written under one commit.
                    let (r, messages) = match self.as_bet(m) {
                        Ok(first) => {
                            let (bets, after) = self.gather_bets(first, &rx);
                            held = after;
                            let n = bets.len();
                            (self.bets(bets), n)
                        }
                        Err(m) => (self.handle(m), 1),
                    };
                    // A run of bets: its time shared by its messages.
                    let each = began.elapsed().as_secs_f64() / messages as f64;
                    for _ in 0..messages {
                        self.metrics.message_seconds.observe(each);
                    }
                    r
                }
                Err(RecvTimeoutError::Timeout) => self.on_timer(),
                Err(RecvTimeoutError::Disconnected) => break,
            };
            if let Err(e) = r {
                self.fail(&e);
                break;
            }
            if self.closed.is_some() && self.round.is_none() && self.timer.is_none() {
                self.close_all();
                self.inbox = None;
                // Keep answering (with `table-closed`) until the server drops the inbox.
                if let Some(m) = held.take() {
                    self.closed_reply(m);
                }
                while let Ok(m) = rx.recv() {
                    self.closed_reply(m);
                }
                break;
            }
        }
        self.metrics.tables.dec();
    }

    /// The books refused a step: the round stays as the books have it (resumed at
    /// the next start); the table closes.
    /// The books refused a step, or the table moved: the round stays as the books have
    /// it (whoever hosts the table next resumes it); the players are told to reconnect
    /// (an `away` frame), and the table's thread ends.
    fn fail(&mut self, e: &str) {
        tracing::error!(table = %self.cfg.name, error = %e, "the table stops");
        self.inbox = None;
        // The cause stays in the server's log: it may name a player or their money.
        self.closed = Some("the table is interrupted: reconnect in a moment".to_string());
        self.round = None;
        self.timer = None;
        self.close_all_with("away");
        if let Ok(mut i) = self.info.write() {
            i.failed = true;
        }
    }

    fn closed_reply(&mut self, m: ToTable) {
        if let ToTable::Join { out, .. } = m {
            let reason = self.closed.clone().unwrap_or_default();
            let _ = out.try_send(
                error_frame(
                    0,
                    Code::TableClosed,
                    &format!("the table is closed: {reason}"),
                    None,
                )
                .into(),
            );
        }
    }

    fn close_all(&mut self) {
        self.close_all_with("closed");
    }

    /// Unseats everyone and sends every connection a last frame: `closed` (the table
    /// closed for good: its seats in the books are freed) or `away` (it is interrupted:
    /// reconnect; the seats stay in the books for the table's next host).
    fn close_all_with(&mut self, kind: &'static str) {
        let reason = self.closed.clone().unwrap_or_default();
        self.seats.iter_mut().for_each(|s| *s = None);
        if kind == "closed" {
            let table = self.ctx.table_id.clone();
            if let Err(e) = self.books.with(|s| s.clear_table_seats(&table)) {
                tracing::warn!(table = %self.cfg.name, error = %e, "the closed table's seats stay in the books");
            }
        }
        let conns: Vec<u64> = self.conns.keys().copied().collect();
        for c in conns {
            self.reply(c, |seq, _| {
                frames::to_text(&frames::Closing {
                    kind,
                    seq,
                    reason: &reason,
                })
            });
        }
        self.conns.clear();
        if let Ok(mut i) = self.info.write() {
            i.closed = true;
            i.round = None;
            i.players.clear();
        }
    }

    /// The table starts (again): the players the books seat here sit at the seats they
    /// had; the newest round it left unfinished with a bet is resumed (or voided, as its
    /// rules say), any other is voided (a table plays one round at a time).
    fn recover(&mut self) -> Result<(), String> {
        self.seat_from_books()?;
        let table_id = self.ctx.table_id.clone();
        let open: Vec<_> = self
            .books
            .with(|s| s.unfinished_rounds())
            .map_err(|e| e.to_string())?
            .into_iter()
            .filter(|r| r.table_id == table_id)
            .collect();
        let (resume, void) = recovery::pick(open);
        for (rec, reason) in void {
            let what = self
                .books
                .with(|s| journal::void(s, &rec, &reason))
                .map_err(|e| e.to_string())?;
            tracing::warn!(table = %self.cfg.name, round = rec.id.0, %reason, %what, "an interrupted round is void");
        }
        if let Some(rec) = resume {
            self.resume(rec)?;
        }
        self.publish_info();
        Ok(())
    }

    /// Seats the players the books seat at this table, at their seats (a seat the
    /// table no longer has is freed).
    fn seat_from_books(&mut self) -> Result<(), String> {
        let table = self.ctx.table_id.clone();
        let seated = self
            .books
            .with(|s| s.table_seats(&table))
            .map_err(|e| e.to_string())?;
        for (seat, player) in seated {
            match self.seats.get_mut(usize::from(seat) - 1) {
                Some(slot) => {
                    *slot = Some(Seated {
                        player,
                        absent: 0,
                        leaving: false,
                        stop: None,
                    })
                }
                None => {
                    self.books
                        .with(|s| s.leave_seat(&table, &player))
                        .map_err(|e| e.to_string())?;
                }
            }
        }
        Ok(())
    }

    /// Resumes round `rec`: its players play from their seats (the round's setup gives
    /// the engine seats in order, the books the table seats; a player the books do not
    /// seat here takes a free seat for the round and leaves when it ends).
    fn resume(&mut self, rec: felt_store::RoundRecord) -> Result<(), String> {
        let got = self.books.with(|s| -> Result<Recovered, String> {
            let ctx = journal::ctx_for(s, &rec).map_err(|e| e.to_string())?;
            let setup = journal::setup_of(&rec).map_err(|e| e.to_string())?;
            let (players, spots) = match setup {
                Some(s) => (s.players, s.spots),
                None => (Vec::new(), self.cfg.rules.table().max_spots_per_player),
            };
            recovery::recover(s, &ctx, &rec, &players, spots).map_err(|e| e.to_string())
        })?;
        let live = match got {
            Recovered::Voided { reason, what } => {
                tracing::warn!(table = %self.cfg.name, round = rec.id.0, %reason, %what, "an interrupted round is void");
                return Ok(());
            }
            Recovered::Opened { live, .. } | Recovered::Resumed { live, .. } => live,
        };
        let mut live = live;
        live.closing = self.closing();
        live.usage_clock = Some(self.usage_clock());
        tracing::info!(table = %self.cfg.name, round = rec.id.0, "an interrupted round resumes");
        let mut map = Vec::new();
        for p in &live.setup.players {
            let seat = match self.seat_of(p) {
                Some(seat) => seat,
                None => self.seat_for_round(p),
            };
            map.push(seat);
        }
        // The seats with a bet in (all, once the cards are out).
        let bet = live
            .engine
            .view(0)
            .spots
            .iter()
            .filter(|s| s.main > Money::ZERO)
            .map(|s| s.seat)
            .collect();
        let betting = live.engine.phase() == Phase::Betting;
        self.round = Some(RoundState {
            announced: vec![live.id],
            live,
            seats: SeatMap(map),
            bet,
            left: BTreeSet::new(),
            window: None,
            settlements: Vec::new(),
            timed: None,
            deposited: HashMap::new(),
        });
        // The round goes on where it stopped: a betting window runs again, chance
        // steps are dealt, the decision (or offer) timer runs, so a player who does
        // not come back is stood.
        if betting {
            self.timer = Some((
                Instant::now() + Duration::from_millis(self.cfg.betting_ms),
                TimerKind::Betting,
            ));
        }
        let mut events = Vec::new();
        self.drive(&mut events)?;
        self.note(&events);
        Ok(())
    }

    /// A free seat for a player of a resumed round the books do not seat here (seated
    /// in the books if they may sit here; leaving when the round ends either way).
    fn seat_for_round(&mut self, player: &str) -> u8 {
        let Some(free) = self.seats.iter().position(Option::is_none) else {
            // No seat free: the round's view numbers the player past the table's seats.
            return (self.seats.len() + 1).min(usize::from(u8::MAX)) as u8;
        };
        let seat = (free + 1) as u8;
        let table = self.ctx.table_id.clone();
        let took = self.books.with(|s| s.take_seat(&table, seat, player));
        self.seats[free] = Some(Seated {
            player: player.to_string(),
            absent: 0,
            leaving: !matches!(took, Ok(SeatClaim::Taken)),
            stop: None,
        });
        seat
    }

    fn handle(&mut self, m: ToTable) -> Result<(), Fatal> {
        match m {
            ToTable::Join {
                conn,
                player,
                out,
                last_seq,
                version,
            } => {
                self.metrics.connections.inc();
                self.conns.insert(
                    conn,
                    Conn {
                        player: player.clone(),
                        out,
                        version,
                    },
                );
                if let Some(s) = self.seats.iter_mut().flatten().find(|s| s.player == player) {
                    s.absent = 0;
                }
                self.welcome(conn, last_seq);
                self.publish_info();
                Ok(())
            }
            ToTable::Gone { conn } => {
                if self.conns.remove(&conn).is_some() {
                    self.metrics.connections.dec();
                }
                self.publish_info();
                self.deal_if_all_bet()
            }
            ToTable::Close { reason } => {
                self.closed = Some(reason);
                // No new round: a pending one (nothing written) is dropped.
                if self.round.as_ref().is_some_and(|r| r.live.is_pending()) {
                    self.drop_pending();
                    self.timer = None;
                }
                if self.round.is_none() {
                    self.timer = None;
                }
                self.broadcast(&[], None);
                Ok(())
            }
            ToTable::Msg { conn, msg, at } => {
                self.queued.fetch_sub(1, Ordering::SeqCst);
                self.metrics
                    .inbox_seconds
                    .observe(at.elapsed().as_secs_f64());
                self.on_message(conn, msg, at)
            }
            ToTable::Stack { shoe } => {
                self.stacked = Some(shoe);
                // A window nobody has bet in is set up again from the stacked shoe.
                if self.round.as_ref().is_some_and(|r| r.live.is_pending()) {
                    self.drop_pending();
                    self.timer = None;
                }
                Ok(())
            }
            ToTable::Meters { meters } => {
                self.meters = meters;
                let meters = self.meters.clone();
                let players: Vec<String> = self.conns.values().map(|c| c.player.clone()).collect();
                for p in players {
                    self.send_to_player(&p, |seq| {
                        frames::to_text(&frames::Meters {
                            kind: "meters",
                            seq,
                            meters: &meters,
                        })
                    });
                }
                Ok(())
            }
            ToTable::Moved => Err("another server holds the table now".to_string()),
            ToTable::Park => Err("the server stops before the round ends: it is parked in \
                                  the books"
                .to_string()),
            ToTable::Deposited { player } => {
                // A round the player has bet in shows what it set the player up with.
                let bet = self.round.as_ref().zip(self.engine_seat(&player));
                if bet.is_some_and(|(r, e)| r.bet.contains(&e)) {
                    return Ok(());
                }
                let pending = self.round.as_ref().is_some_and(|r| r.live.is_pending());
                if pending && self.seat_of(&player).is_some() {
                    self.drop_pending();
                    self.timer = None;
                } else if self.round.is_some() {
                    // Others have bet: the window stays; the player sees the new
                    // balance now and bets with it in the next round.
                    let balance = self.balance_now(&player);
                    if let (Some(r), Some(b)) = (self.round.as_mut(), balance) {
                        r.deposited.insert(player, b);
                    }
                }
                self.broadcast(&[], None);
                Ok(())
            }
            ToTable::Stop { player, reason } => self.stop(&player, reason),
            ToTable::Wallet(answer) => self.on_wallet_answer(answer),
        }
    }

    /// [`ToTable::Stop`]: the player leaves now, or when the round they play ends.
    fn stop(&mut self, player: &str, reason: String) -> Result<(), Fatal> {
        if self.seat_of(player).is_none() {
            return Ok(());
        }
        self.send_to_player(player, |seq| {
            error_frame(seq, Code::PlayerBlocked, &reason, None)
        });
        self.end_seat(player, reason)
    }

    /// The player, told why already, leaves now, or when the round they play ends.
    fn end_seat(&mut self, player: &str, reason: String) -> Result<(), Fatal> {
        let Some(seat) = self.seat_of(player) else {
            return Ok(());
        };
        let in_round = self.bet_in_round(seat);
        if in_round {
            if let Some(s) = self.seats[usize::from(seat - 1)].as_mut() {
                s.stop = Some(reason);
            }
            return Ok(());
        }
        self.unseat_now(player)
    }

    /// Whether `player` may stake `extra` more now, its largest single wager `single`
    /// (`None`: `extra` is one wager) ([`crate::limits::may_stake`]); if not, the
    /// refusal is sent.
    fn may_stake(
        &mut self,
        conn: u64,
        player: &str,
        (extra, single): (Option<Money>, Option<Money>),
        id: &str,
    ) -> bool {
        let round = self.round_id();
        let now = self.clock.now_ms();
        let asked = (extra, single);
        let verdict = self
            .books
            .read(|s| crate::limits::may_stake(s, player, round, asked, self.life, now));
        match verdict {
            Ok(()) => true,
            Err((code, m)) => {
                self.refuse(conn, code, &m, Some(id));
                false
            }
        }
    }

    fn welcome(&mut self, conn: u64, last_seq: Option<u64>) {
        let Some((player, version)) = self.conns.get(&conn).map(|c| (c.player.clone(), c.version))
        else {
            return;
        };
        // A version 1 client reads the table's fixed part in every view: the player's
        // frames (one stream for all their connections) carry it while any of their
        // connections speaks version 1 (a version 2 client ignores it).
        let fixed_in_views = self
            .conns
            .values()
            .any(|c| c.player == player && c.version < 2);
        let seat = self.seat_of(&player);
        let stream = self.streams.entry(player.clone()).or_default();
        stream.idle_since = None;
        if stream.fixed_in_views != fixed_in_views {
            // The kept frames are in the other form: none is replayed (a fresh view).
            stream.fixed_in_views = fixed_in_views;
            stream.frames.clear();
            stream.bytes = 0;
        }
        // Missed frames, if the stream still holds every one after `last_seq`.
        let missed: Option<Vec<Arc<str>>> = last_seq.and_then(|l| {
            if l > stream.seq {
                return None;
            }
            let first = stream.frames.front().map_or(stream.seq + 1, |f| f.0);
            (l + 1 >= first).then(|| {
                stream
                    .frames
                    .iter()
                    .filter(|(s, _)| *s > l)
                    .map(|(_, f)| f.clone())
                    .collect()
            })
        });
        let resumed = missed.is_some();
        // The welcome carries the stream's last seq; the missed frames (after
        // `last_seq`) follow it, or else a fresh view.
        let welcome = frames::to_text(&frames::Welcome {
            kind: "welcome",
            seq: stream.seq,
            version: version.min(VERSION),
            table: &self.cfg.name,
            player: &player,
            seat,
            resumed,
            fixed: &self.fixed,
        });
        if let Some(c) = self.conns.get(&conn) {
            let _ = c.out.try_send(welcome.into());
        }
        match missed {
            Some(frames) => {
                if let Some(c) = self.conns.get(&conn) {
                    for f in frames {
                        if c.out.try_send(f).is_err() {
                            break;
                        }
                    }
                }
            }
            None => self.reply(conn, |seq, me| me.view_frame(seq, &player)),
        }
    }

    fn seat_of(&self, player: &str) -> Option<u8> {
        self.seats
            .iter()
            .position(|s| s.as_ref().is_some_and(|s| s.player == player))
            .map(|p| (p + 1) as u8)
    }

    /// Answers one connection alone (a `pong`, the view a `sync` asks for, a
    /// refusal): the frame carries the player's stream's current `seq` and is not kept
    /// for a reconnection, so a player's other connections never receive it.
    fn reply(&mut self, conn: u64, frame: impl FnOnce(u64, &Self) -> String) {
        let Some(player) = self.conns.get(&conn).map(|c| c.player.clone()) else {
            return;
        };
        let seq = self.streams.get(&player).map_or(0, |s| s.seq);
        let text: Arc<str> = frame(seq, self).into();
        let full = self
            .conns
            .get(&conn)
            .is_some_and(|c| c.out.try_send(text).is_err());
        if full && self.conns.remove(&conn).is_some() {
            self.metrics.connections.dec();
        }
    }

    /// Sends a frame to every connection of one player (or a spectator's), numbered
    /// in the player's stream and kept for a reconnection.
    fn send_to_player(&mut self, player: &str, frame: impl FnOnce(u64) -> String) {
        let stream = self.streams.entry(player.to_string()).or_default();
        stream.seq += 1;
        let seq = stream.seq;
        let text: Arc<str> = frame(seq).into();
        stream.keep(seq, text.clone());
        let mut slow = Vec::new();
        for (id, c) in &self.conns {
            if c.player == player && c.out.try_send(text.clone()).is_err() {
                slow.push(*id);
            }
        }
        // A connection that does not read its frames is dropped: it reconnects and
        // gets what it missed.
        for id in slow {
            if self.conns.remove(&id).is_some() {
                self.metrics.connections.dec();
            }
        }
    }

    fn refuse(&mut self, conn: u64, code: Code, message: &str, id: Option<&str>) {
        self.metrics.refusals.inc();
        self.reply(conn, |seq, _| error_frame(seq, code, message, id));
    }

    /// Drops the streams of players who have had neither a seat nor a connection here
    /// for the table's reconnection grace (a page reconnecting within it gets what it
    /// missed), and past [`MAX_STREAMS`] the longest idle.
    fn sweep(&mut self) {
        let now = Instant::now();
        let grace = Duration::from_millis(self.cfg.reconnect_ms);
        if now.duration_since(self.swept) < SWEEP_EVERY.min(grace) {
            return;
        }
        self.swept = now;
        let present: BTreeSet<&str> = self
            .conns
            .values()
            .map(|c| c.player.as_str())
            .chain(self.seats.iter().flatten().map(|s| s.player.as_str()))
            .collect();
        for (p, st) in self.streams.iter_mut() {
            if present.contains(p.as_str()) {
                st.idle_since = None;
            } else if st.idle_since.is_none() {
                st.idle_since = Some(now);
            }
        }
        self.streams
            .retain(|_, st| st.idle_since.is_none_or(|t| now.duration_since(t) < grace));
        if self.streams.len() > MAX_STREAMS {
            let mut idle: Vec<(Instant, String)> = self
                .streams
                .iter()
                .filter_map(|(p, st)| st.idle_since.map(|t| (t, p.clone())))
                .collect();
            idle.sort();
            let excess = self.streams.len() - MAX_STREAMS;
            for (_, p) in idle.into_iter().take(excess) {
                self.streams.remove(&p);
            }
        }
        if let Ok(mut i) = self.info.write() {
            i.streams = self.streams.len();
        }
    }

    fn on_message(&mut self, conn: u64, msg: ClientMsg, at: Instant) -> Result<(), Fatal> {
        let Some(player) = self.conns.get(&conn).map(|c| c.player.clone()) else {
            return Ok(());
        };
        match msg {
            ClientMsg::Hello { .. } => {
                self.refuse(
                    conn,
                    Code::Hello,
                    "this connection has said hello already",
                    None,
                );
            }
            ClientMsg::Ping {} => {
                self.reply(conn, |seq, _| {
                    frames::to_text(&frames::Pong { kind: "pong", seq })
                });
            }
            ClientMsg::Sync {} => self.reply(conn, |seq, me| me.view_frame(seq, &player)),
            ClientMsg::Sit { seat } => self.sit(conn, &player, seat)?,
            ClientMsg::Leave {} => self.leave(conn, &player)?,
            ClientMsg::Bet { round, id, spots } => {
                let bet = bets::BetMsg::new(conn, player, round, id, spots, at);
                self.bets(vec![bet])?
            }
            ClientMsg::Act {
                round,
                spot,
                hand,
                decision,
                amount,
                id,
            } => self.act(
                conn,
                &player,
                RoundId(round),
                (spot, hand),
                decision,
                amount,
                &id,
                at,
            )?,
        }
        Ok(())
    }

    fn sit(&mut self, conn: u64, player: &str, seat: Option<u8>) -> Result<(), Fatal> {
        if let Some(reason) = &self.closed {
            let m = format!("the table is closed: {reason}");
            self.refuse(conn, Code::TableClosed, &m, None);
            return Ok(());
        }
        if let Some(s) = self.seat_of(player) {
            self.refuse(
                conn,
                Code::AlreadySeated,
                &format!("you sit at seat {s} already"),
                None,
            );
            return Ok(());
        }
        let now = self.clock.now_ms();
        let blocked = self
            .books
            .read(|s| crate::limits::exclusion(s, player, now));
        if let Ok(Some(e)) = blocked {
            let m = crate::limits::exclusion_sentence(&e);
            self.refuse(conn, Code::PlayerBlocked, &m, None);
            return Ok(());
        }
        if let Some(m) = crate::limits::time_is_up(&self.books, player, self.life, now) {
            self.refuse(conn, Code::LimitReached, &m, None);
            return Ok(());
        }
        let n = self.seats.len() as u8;
        let want = match seat {
            Some(s) if (1..=n).contains(&s) => s,
            Some(s) => {
                let m = format!("there is no seat {s}: this table has seats 1 to {n}");
                self.refuse(conn, Code::SeatTaken, &m, None);
                return Ok(());
            }
            None => match self.seats.iter().position(Option::is_none) {
                Some(p) => (p + 1) as u8,
                None => {
                    self.refuse(conn, Code::SeatTaken, "every seat is taken", None);
                    return Ok(());
                }
            },
        };
        if self.seats[usize::from(want - 1)].is_some() {
            let m = format!("seat {want} is taken");
            self.refuse(conn, Code::SeatTaken, &m, None);
            return Ok(());
        }
        // The books hold the seat: one table per player, whichever server deals it.
        let table = self.ctx.table_id.clone();
        let claim = self
            .books
            .with(|s| s.take_seat(&table, want, player))
            .map_err(|e| e.to_string())?;
        match claim {
            SeatClaim::Taken => {}
            SeatClaim::Elsewhere { table: t, seat } if t == table => {
                let m = format!("you sit at seat {seat} already");
                self.refuse(conn, Code::AlreadySeated, &m, None);
                return Ok(());
            }
            SeatClaim::Elsewhere { table: t, .. } => {
                let name = t.strip_prefix("online/").unwrap_or(&t);
                let m = format!(
                    "you sit at table `{name}`: leave it first (one seat at a time, one wallet)"
                );
                self.refuse(conn, Code::SeatedElsewhere, &m, None);
                return Ok(());
            }
            SeatClaim::Occupied => {
                let m = format!("seat {want} is taken");
                self.refuse(conn, Code::SeatTaken, &m, None);
                return Ok(());
            }
        }
        self.seats[usize::from(want - 1)] = Some(Seated {
            player: player.to_string(),
            absent: 0,
            leaving: false,
            stop: None,
        });
        // A round nobody has bet on yet is set up again with the newcomer.
        if self.round.as_ref().is_some_and(|r| r.live.is_pending()) {
            self.drop_pending();
            self.timer = None;
        }
        self.publish_info();
        self.broadcast(&[], None);
        Ok(())
    }

    fn leave(&mut self, conn: u64, player: &str) -> Result<(), Fatal> {
        let Some(seat) = self.seat_of(player) else {
            self.refuse(
                conn,
                Code::NotSeated,
                "you have no seat at this table",
                None,
            );
            return Ok(());
        };
        let in_round = self.bet_in_round(seat);
        if in_round {
            if let Some(s) = self.seats[usize::from(seat - 1)].as_mut() {
                s.leaving = true;
            }
            // The table does not wait for a player who left: an offer window waiting
            // only for leavers closes, and their hands stand as their turns come.
            if self.window_waits_only_for_leavers() {
                return self.close_window_if_ready();
            }
            return self.after_step(Vec::new(), None);
        }
        self.unseat_now(player)
    }

    /// Whether the player at table seat `seat` has bet in the round in play (dealt).
    fn bet_in_round(&self, seat: u8) -> bool {
        self.round.as_ref().is_some_and(|r| {
            !r.live.is_pending()
                && r.seats
                    .engine_seat(seat)
                    .is_some_and(|e| r.bet.contains(&e))
        })
    }

    /// Frees the seat of a player not in the round in play, and tells everyone.
    fn unseat_now(&mut self, player: &str) -> Result<(), Fatal> {
        if let Some(e) = self.engine_seat(player) {
            if let Some(r) = self.round.as_mut() {
                r.left.insert(e);
            }
        }
        self.unseat(player);
        if self.round.as_ref().is_some_and(|r| r.live.is_pending()) {
            self.drop_pending();
            self.timer = None;
        }
        self.publish_info();
        self.broadcast(&[], None);
        // The window no longer waits for the leaver's bet.
        self.deal_if_all_bet()
    }

    /// The engine seats of the round whose players are leaving when it ends.
    fn leaving_engine_seats(&self) -> BTreeSet<u8> {
        self.seats
            .iter()
            .flatten()
            .filter(|s| s.leaving)
            .filter_map(|s| self.engine_seat(&s.player))
            .collect()
    }

    /// Whether the open offer window waits for no one but leavers.
    fn window_waits_only_for_leavers(&self) -> bool {
        let Some(w) = self.round.as_ref().and_then(|r| r.window.as_ref()) else {
            return false;
        };
        let leaving = self.leaving_engine_seats();
        w.offers
            .iter()
            .filter(|o| !w.answers.contains_key(&(o.seat, o.at.spot, o.at.hand)))
            .all(|o| leaving.contains(&o.seat))
    }

    /// Frees the player's seat, here and in the books (a failure of the books leaves
    /// the seat there: the table's next start seats the player again).
    fn unseat(&mut self, player: &str) {
        for s in self.seats.iter_mut() {
            s.take_if(|s| s.player == player);
        }
        let table = self.ctx.table_id.clone();
        if let Err(e) = self.books.with(|s| s.leave_seat(&table, player)) {
            tracing::warn!(table = %self.cfg.name, %player, error = %e, "the seat stays in the books");
        }
    }

    /// A betting window closed with no bet: each seated player with no connection has
    /// missed one more round, and past the table's limit is unseated (so a seat the
    /// books gave back after a restart is freed if its player never returns, even when
    /// no round is dealt).
    fn window_missed(&mut self) {
        let mut gone = Vec::new();
        for s in self.seats.iter_mut().flatten() {
            if !self.conns.values().any(|c| c.player == s.player) {
                s.absent += 1;
                if s.absent > self.cfg.absent_rounds {
                    gone.push(s.player.clone());
                }
            }
        }
        for p in &gone {
            self.unseat(p);
        }
        if !gone.is_empty() {
            self.publish_info();
        }
    }

    /// The engine seat of `player` in the round in play.
    /// The player's seat in the round, if the player plays it from the seat they had
    /// when it was set up (a newcomer in a seat left during betting does not).
    fn engine_seat(&self, player: &str) -> Option<u8> {
        let seat = self.seat_of(player)?;
        let r = self.round.as_ref()?;
        let e = r.seats.engine_seat(seat)?;
        (r.live.setup.players.get(usize::from(e))? == player && !r.left.contains(&e)).then_some(e)
    }

    /// The engine seats the betting window still waits for: the round's players
    /// still in their seats and connected who have not bet (one who left, or whose
    /// connection dropped, sits this round out unless they bet in time; a bet whose
    /// debit is at the operator is waited for apart: [`Actor::deal_if_all_bet`]).
    fn awaited_bets(&self) -> usize {
        let Some(r) = self.round.as_ref() else {
            return 0;
        };
        r.live
            .setup
            .players
            .iter()
            .enumerate()
            .filter(|(e, p)| {
                let e = *e as u8;
                !r.bet.contains(&e)
                    && self.engine_seat(p) == Some(e)
                    && self.conns.values().any(|c| &c.player == *p)
            })
            .count()
    }

    /// Deals the round in betting once someone has bet and no bet is awaited: not
    /// while a bet's debit is at the operator (its player may have lost the
    /// connection since: the bet stands if the operator takes the money).
    fn deal_if_all_bet(&mut self) -> Result<(), Fatal> {
        let betting = self.round.as_ref().is_some_and(|r| {
            r.live.engine.phase() == Phase::Betting && !r.live.is_pending() && !r.bet.is_empty()
        });
        if betting && self.awaited_bets() == 0 && !self.debit_in_flight() {
            self.deal()?;
        }
        Ok(())
    }

    fn round_id(&self) -> RoundId {
        self.round.as_ref().map_or(RoundId(0), |r| r.live.id)
    }

    fn refuse_stepped(&mut self, conn: u64, s: Stepped, id: &str) {
        let code = match &s {
            Stepped::Refused(ActionError::NotYourTurn { .. }) => Code::NotYourTurn,
            Stepped::Refused(ActionError::NotThisHand { .. }) => Code::NotThisHand,
            Stepped::Refused(ActionError::LateBet) => Code::NotBetting,
            Stepped::Refused(_) | Stepped::Done(_) | Stepped::BadBatch => Code::Refused,
            Stepped::OtherRound { .. } => Code::OtherRound,
            Stepped::Unfunded { .. } => Code::InsufficientFunds,
            Stepped::AlreadyApplied => Code::AlreadyApplied,
            Stepped::BadActionId => Code::BadActionId,
        };
        let message = match (&s, self.round.as_ref()) {
            (Stepped::Refused(e), Some(r)) => render::refusal(e, &r.seats),
            _ => s.to_string(),
        };
        self.refuse(conn, code, &message, Some(id));
    }

    #[allow(clippy::too_many_arguments)]
    fn act(
        &mut self,
        conn: u64,
        player: &str,
        round: RoundId,
        (spot, hand): (u8, u8),
        word: Word,
        amount: Option<Money>,
        id: &str,
        at: Instant,
    ) -> Result<(), Fatal> {
        if self.round.is_none() || round != self.round_id() {
            let m = format!(
                "the action is for round {round}, but {}: nothing was done",
                match &self.round {
                    Some(r) => format!("round {} is in play", r.live.id),
                    None => "no round is in play".to_string(),
                }
            );
            self.refuse(conn, Code::OtherRound, &m, Some(id));
            return Ok(());
        }
        let Some(e) = self.engine_seat(player) else {
            self.refuse(
                conn,
                Code::NotSeated,
                "you have no hand in this round",
                Some(id),
            );
            return Ok(());
        };
        if spot == 0 || hand == 0 {
            self.refuse(
                conn,
                Code::NotThisHand,
                "spots and hands are numbered from 1",
                Some(id),
            );
            return Ok(());
        }
        let at_hand = HandRef {
            spot: spot - 1,
            hand: hand - 1,
        };
        // An offer window: the answer is kept until every spot has answered.
        if self.round.as_ref().is_some_and(|r| r.window.is_some()) {
            return self.answer_offer(conn, e, at_hand, word, amount, id);
        }
        let Some(r) = self.round.as_mut() else {
            return Ok(());
        };
        let legal = r.live.engine.legal_actions();
        let decision = decision_of(word, amount, &legal);
        let more = match decision {
            Decision::Double(a) => Some(Some(a)),
            Decision::Split => Some(None),
            _ => None,
        };
        if more.is_some_and(|extra| !self.may_stake(conn, player, (extra, None), id)) {
            return Ok(());
        }
        let action = Action::Play {
            seat: e,
            at: Some(at_hand),
            decision,
        };
        if self.stakes_money(e, action) {
            let staking = through_wallet::Staking::Act(action);
            let sent = self.stake_through_wallet(conn, player, e, round, id, staking, at);
            return sent.map(|_| ());
        }
        let Some(r) = self.round.as_mut() else {
            return Ok(());
        };
        let stepped = self
            .books
            .with(|s| r.live.step_client(s, &self.ctx, round, id, action))
            .map_err(|e| e.to_string())?;
        match stepped {
            Stepped::Done(events) => {
                self.metrics.actions.inc();
                r.timed = None;
                self.after_step(events, Some(at))?;
            }
            other => self.refuse_stepped(conn, other, id),
        }
        Ok(())
    }

    fn answer_offer(
        &mut self,
        conn: u64,
        seat: u8,
        at: HandRef,
        word: Word,
        amount: Option<Money>,
        id: &str,
    ) -> Result<(), Fatal> {
        let Some(w) = self.round.as_mut().and_then(|r| r.window.as_mut()) else {
            return Ok(());
        };
        let Some(offer) = w.offers.iter().find(|o| o.seat == seat && o.at == at) else {
            let m = format!("no offer is open on your {at}");
            self.refuse(conn, Code::NotThisHand, &m, Some(id));
            return Ok(());
        };
        let decision = decision_of(word, amount, &offer.legal);
        let ok = offer.legal.decisions.allows(decision)
            && match decision {
                Decision::Insure(a) => offer.legal.insurance.is_some_and(|r| r.allows(a)),
                _ => true,
            };
        if !ok {
            let m = match decision {
                Decision::Insure(a) => match offer.legal.insurance {
                    Some(r) => format!(
                        "insurance of {a} is not allowed: {} to {} in steps of {}",
                        r.min, r.max, r.step
                    ),
                    None => "insurance is not offered on this hand".to_string(),
                },
                d => format!(
                    "{} is not offered now: the choices are {}",
                    word_text(d),
                    render::choices(&offer.legal)
                        .iter()
                        .map(|c| c.decision)
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            };
            self.refuse(conn, Code::Refused, &m, Some(id));
            return Ok(());
        }
        if let Decision::Insure(a) = decision {
            let player = self.conns.get(&conn).map(|c| c.player.clone());
            if player.is_some_and(|p| !self.may_stake(conn, &p, (Some(a), None), id)) {
                return Ok(());
            }
        }
        let Some(w) = self.round.as_mut().and_then(|r| r.window.as_mut()) else {
            return Ok(());
        };
        let key = (seat, at.spot, at.hand);
        if w.answers.contains_key(&key) || w.answers.values().any(|a| a.id == id) {
            let m = "this offer has been answered already";
            self.refuse(conn, Code::AlreadyApplied, m, Some(id));
            return Ok(());
        }
        w.answers.insert(
            key,
            Answer {
                decision,
                id: id.to_string(),
                conn,
                funding: journal::Extra::default(),
            },
        );
        let Some(player) = self.conns.get(&conn).map(|c| c.player.clone()) else {
            return Ok(());
        };
        self.send_to_player(&player, |seq| {
            frames::to_text(&frames::Accepted {
                kind: "accepted",
                seq,
                id,
            })
        });
        if let (Decision::Insure(amount), true) = (decision, self.wallet.is_some()) {
            // Insurance is a further debit of the round, sent now: its answer is in
            // before the window closes (the window waits for it).
            let staking = through_wallet::Staking::Insure { at, amount };
            let round = self.round_id();
            let now = Instant::now();
            if !self.stake_through_wallet(conn, &player, seat, round, id, staking, now)? {
                if let Some(w) = self.round.as_mut().and_then(|r| r.window.as_mut()) {
                    w.answers.remove(&key);
                }
            }
        }
        self.close_window_if_ready()
    }

    /// Closes the offer window once it waits for no one but leavers (every offer
    /// answered, at the latest) and no insurance debit awaits the operator's answer.
    fn close_window_if_ready(&mut self) -> Result<(), Fatal> {
        if self.window_waits_only_for_leavers() && !self.debit_in_flight() {
            return self.close_window();
        }
        Ok(())
    }

    /// Feeds the window's answers to the engine in seat order; an offer not answered
    /// times out (declined).
    fn close_window(&mut self) -> Result<(), Fatal> {
        let Some(r) = self.round.as_mut() else {
            return Ok(());
        };
        let Some(w) = r.window.take() else {
            return Ok(());
        };
        let mut events = Vec::new();
        let mut refused = Vec::new();
        let round = r.live.id;
        for o in &w.offers {
            let answer = w.answers.get(&(o.seat, o.at.spot, o.at.hand));
            let timeout = Action::Timeout {
                seat: o.seat,
                at: Some(o.at),
            };
            let stepped = match answer {
                Some(a) => {
                    let action = Action::Play {
                        seat: o.seat,
                        at: Some(o.at),
                        decision: a.decision,
                    };
                    r.live.funding = a.funding.clone();
                    let s = self
                        .books
                        .with(|s| r.live.step_client(s, &self.ctx, round, &a.id, action))
                        .map_err(|e| e.to_string());
                    r.live.funding = journal::Extra::default();
                    let s = s?;
                    if !a.funding.before.is_empty() && !matches!(s, Stepped::Done(_)) {
                        tracing::warn!(table = %self.cfg.name, answer = %a.id, refused = %s, "an acknowledged insurance debit's step was refused: no step used it, so the round's finish rolls it back");
                    }
                    match s {
                        Stepped::Done(ev) => Stepped::Done(ev),
                        other => {
                            refused.push((a.conn, other.to_string(), a.id.clone()));
                            self.books
                                .with(|s| r.live.step(s, &self.ctx, Some(timeout)))
                                .map_err(|e| e.to_string())?
                        }
                    }
                }
                None => self
                    .books
                    .with(|s| r.live.step(s, &self.ctx, Some(timeout)))
                    .map_err(|e| e.to_string())?,
            };
            match stepped {
                Stepped::Done(ev) => {
                    self.metrics.actions.inc();
                    events.extend(ev);
                }
                // The engine moved on past this offer (a natural ended the round).
                _ => break,
            }
        }
        for (conn, m, id) in refused {
            self.refuse(conn, Code::Refused, &m, Some(&id));
        }
        self.after_step(events, None)
    }

    /// After a step: the round goes on (chance steps, windows, timers) or ends; then
    /// everyone sees it.
    fn after_step(&mut self, mut events: Vec<Event>, at: Option<Instant>) -> Result<(), Fatal> {
        // Settlements are noted as they come (before `drive` may end the round).
        self.note(&events);
        self.drive(&mut events)?;
        self.broadcast(&events, at);
        Ok(())
    }

    /// Runs chance steps the engine waits for, opens an offer window, arms the
    /// decision timer, or ends the round.
    fn drive(&mut self, events: &mut Vec<Event>) -> Result<(), Fatal> {
        loop {
            let leaving = self.leaving_engine_seats();
            let Some(r) = self.round.as_mut() else {
                return Ok(());
            };
            if r.live.is_done() {
                self.end_round();
                return Ok(());
            }
            let legal = r.live.engine.legal_actions();
            match (r.live.engine.phase(), legal.turn) {
                (_, Turn::Chance) => {
                    // Every chance step in a row (the deal, the dealer's draws) in one
                    // call of the books: one group commit, not one per card.
                    let ctx = &self.ctx;
                    let ev = self.books.with(|s| -> Result<Vec<Event>, String> {
                        let mut ev = Vec::new();
                        while !r.live.is_done()
                            && matches!(r.live.engine.legal_actions().turn, Turn::Chance)
                        {
                            match r.live.step(s, ctx, None).map_err(|e| e.to_string())? {
                                Stepped::Done(more) => ev.extend(more),
                                other => return Err(format!("a chance step was refused: {other}")),
                            }
                        }
                        Ok(ev)
                    })?;
                    self.note(&ev);
                    events.extend(ev);
                }
                (Phase::Insurance | Phase::EarlySurrender, Turn::Seat { .. }) => {
                    if r.window.is_none() {
                        let offers = offers(&r.live, &self.ctx);
                        r.window = Some(Window {
                            offers,
                            answers: BTreeMap::new(),
                        });
                        self.timer = Some((
                            Instant::now() + Duration::from_millis(self.cfg.decision_ms),
                            TimerKind::Offer,
                        ));
                    }
                    return Ok(());
                }
                (_, Turn::Seat { seat, spot, hand }) if leaving.contains(&seat) => {
                    // A player who left stands at once: a timeout in the round's log,
                    // as when the decision timer runs out.
                    let ev = time_out(&self.books, &self.ctx, r, seat, HandRef { spot, hand })?;
                    self.note(&ev);
                    events.extend(ev);
                }
                (_, Turn::Seat { seat, spot, hand }) => {
                    let key = (seat, HandRef { spot, hand });
                    if r.timed != Some(key) {
                        r.timed = Some(key);
                        self.timer = Some((
                            Instant::now() + Duration::from_millis(self.cfg.decision_ms),
                            TimerKind::Decision,
                        ));
                    }
                    return Ok(());
                }
                (_, Turn::Bets) | (_, Turn::Done) => return Ok(()),
            }
        }
    }

    /// The server's clock, at which a round's end counts its usage against the
    /// players' limits in the books' transaction that ends it.
    fn usage_clock(&self) -> journal::UsageClock {
        let clock = self.clock.clone();
        Arc::new(move || clock.now_ms())
    }

    fn end_round(&mut self) {
        let Some(r) = self.round.take() else { return };
        self.metrics.rounds.inc();
        self.shoe = r.live.engine.shoe().clone();
        self.last = Some(Last {
            round: render::RoundOut::of(&r.live.engine.view(0), &r.seats),
            settlements: r.settlements.clone(),
            number: r.live.id.0,
            seats: r.seats.clone(),
        });
        // A player past a session-time limit (logged-in time) leaves now, at the
        // round's end, and is told why.
        let now = self.clock.now_ms();
        let mut time_up = Vec::new();
        for s in self.seats.iter_mut().flatten() {
            if s.stop.is_none() {
                s.stop = crate::limits::time_is_up(&self.books, &s.player, self.life, now);
                time_up.extend(s.stop.clone().map(|m| (s.player.clone(), m)));
            }
        }
        for (player, m) in time_up {
            self.send_to_player(&player, |seq| {
                error_frame(seq, Code::LimitReached, &m, None)
            });
        }
        // Absent players: one more round missed; past the table's limit, unseated.
        let mut gone = Vec::new();
        for s in self.seats.iter_mut().flatten() {
            let connected = self.conns.values().any(|c| c.player == s.player);
            if !connected {
                s.absent += 1;
            }
            if s.leaving || s.stop.is_some() || s.absent > self.cfg.absent_rounds {
                gone.push(s.player.clone());
            }
        }
        for p in gone {
            self.unseat(&p);
        }
        self.timer = Some((
            Instant::now() + Duration::from_millis(self.cfg.pause_ms),
            TimerKind::Pause,
        ));
        self.wake_outbox();
        // The round's end is shown by the caller's broadcast (from `last`); the next
        // round's betting window opens when the pause ends.
        self.publish_info();
    }

    /// Drops a round nobody has bet on (nothing of it is in the books), keeping the
    /// ids its window was announced under for the next window.
    fn drop_pending(&mut self) {
        if let Some(r) = self.round.take() {
            self.announced.extend(r.announced);
            let keep = self.announced.len().saturating_sub(16);
            self.announced.drain(..keep);
        }
    }

    /// Keeps the settlements among `events` in the round's list.
    fn note(&mut self, events: &[Event]) {
        let Some(r) = self.round.as_mut() else { return };
        for e in events {
            if let Some(line) = render::SettlementLine::of(e, &r.seats, &self.side_names) {
                r.settlements.push(line);
            }
        }
    }

    /// Opens a round when players sit and nothing else runs.
    fn advance(&mut self) -> Result<(), Fatal> {
        if self.round.is_some() || self.closed.is_some() || self.timer.is_some() {
            return Ok(());
        }
        let seated: Vec<(u8, String)> = self
            .seats
            .iter()
            .enumerate()
            .filter_map(|(i, s)| s.as_ref().map(|s| ((i + 1) as u8, s.player.clone())))
            .collect();
        if seated.is_empty() {
            return Ok(());
        }
        let players: Vec<String> = seated.iter().map(|(_, p)| p.clone()).collect();
        let spots = self.cfg.rules.table().max_spots_per_player;
        let shoe = self.shoe.clone();
        // A stacked shoe (test mode) is dealt under a test lab's mark; it is kept
        // until a bet is written (a window that closes empty is set up again from it).
        let stacked = self.stacked.clone();
        let mut lab = stacked.as_ref().map(|_| Seeds::Lab {
            rng: Box::new(rand::SeedableRng::from_seed(rand::random())),
            mark: crate::test_shoes::MARK.to_string(),
        });
        let balances = self.wallet_balances(&players);
        let (mut live, events) = self
            .books
            .with(|s| -> felt_session::Result<(Live, Vec<Event>)> {
                let seeds = lab.as_mut().unwrap_or(&mut self.seeds);
                let d = dealing::next_dealing(s, &self.ctx, shoe, seeds, stacked)?;
                match &balances {
                    Some(b) => Live::begin_with(s, &self.ctx, d, &players, b, spots),
                    None => Live::begin(s, &self.ctx, d, &players, spots),
                }
            })
            .map_err(|e| e.to_string())?;
        live.closing = self.closing();
        live.usage_clock = Some(self.usage_clock());
        let mut announced = std::mem::take(&mut self.announced);
        announced.push(live.id);
        self.round = Some(RoundState {
            announced,
            live,
            seats: SeatMap(seated.iter().map(|(s, _)| *s).collect()),
            bet: BTreeSet::new(),
            left: BTreeSet::new(),
            window: None,
            settlements: Vec::new(),
            timed: None,
            deposited: HashMap::new(),
        });
        self.last = None;
        self.timer = Some((
            Instant::now() + Duration::from_millis(self.cfg.betting_ms),
            TimerKind::Betting,
        ));
        self.publish_info();
        self.broadcast(&events, None);
        Ok(())
    }

    fn on_timer(&mut self) -> Result<(), Fatal> {
        let Some((when, kind)) = self.timer else {
            return Ok(());
        };
        if Instant::now() < when {
            return Ok(());
        }
        self.timer = None;
        match kind {
            TimerKind::Pause => {
                self.broadcast(&[], None);
                Ok(())
            }
            TimerKind::Betting if self.wait_for_debits(kind) => Ok(()),
            TimerKind::Decision | TimerKind::Offer if self.wait_for_debits(kind) => Ok(()),
            TimerKind::Betting => {
                let has_bets = self.round.as_ref().is_some_and(|r| !r.bet.is_empty());
                if has_bets {
                    self.deal()
                } else {
                    // Nobody bet: the round was never written (or only its refused or
                    // lost debits were: it is voided); a new window opens.
                    self.void_unbet()?;
                    self.drop_pending();
                    self.window_missed();
                    Ok(())
                }
            }
            TimerKind::Offer => self.close_window(),
            TimerKind::Decision => {
                let Some(r) = self.round.as_mut() else {
                    return Ok(());
                };
                let Turn::Seat { seat, spot, hand } = r.live.engine.legal_actions().turn else {
                    return Ok(());
                };
                let events = time_out(&self.books, &self.ctx, r, seat, HandRef { spot, hand })?;
                self.after_step(events, None)
            }
        }
    }

    /// No more bets: the dealer deals.
    fn deal(&mut self) -> Result<(), Fatal> {
        let Some(r) = self.round.as_mut() else {
            return Ok(());
        };
        self.timer = None;
        let s = self
            .books
            .with(|s| r.live.step(s, &self.ctx, Some(Action::Deal)))
            .map_err(|e| e.to_string())?;
        match s {
            Stepped::Done(events) => self.after_step(events, None),
            other => Err(format!("the deal was refused: {other}")),
        }
    }

    fn publish_info(&self) {
        if let Ok(mut i) = self.info.write() {
            i.players = self
                .seats
                .iter()
                .enumerate()
                .filter_map(|(n, s)| s.as_ref().map(|s| ((n + 1) as u8, s.player.clone())))
                .collect();
            i.away = i
                .players
                .iter()
                .filter(|(_, p)| !self.conns.values().any(|c| &c.player == p))
                .map(|(n, _)| *n)
                .collect();
            i.round = self.round.as_ref().map(|r| r.live.id.0);
            i.closed = self.closed.is_some();
        }
    }

    /// Every player at the table (connected, or seated and away: their stream keeps
    /// what they miss) gets the view with the step's events; the latency of the action
    /// that caused it (if any) is recorded. The table's part of the view is rendered
    /// once; only each player's own part differs.
    fn broadcast(&mut self, events: &[Event], at: Option<Instant>) {
        if events.iter().any(|e| matches!(e, Event::Meter { .. })) {
            self.read_meters();
        }
        let mut players: Vec<String> = self.conns.values().map(|c| c.player.clone()).collect();
        players.extend(self.seats.iter().flatten().map(|s| s.player.clone()));
        players.sort();
        players.dedup();
        let table = self.table_view(events);
        for p in players {
            let stream = self.streams.get(&p);
            let seq = stream.map_or(0, |s| s.seq) + 1;
            let fixed = self.fixed_for(stream);
            let text = frames::view_frame(seq, &self.you(&p), fixed, &table);
            self.send_to_player(&p, |_| text);
        }
        if let Some(at) = at {
            self.metrics
                .action_seconds
                .observe(at.elapsed().as_secs_f64());
        }
    }

    /// One player's view alone (a welcome, a `sync`).
    fn view_frame(&self, seq: u64, player: &str) -> String {
        let fixed = self.fixed_for(self.streams.get(player));
        frames::view_frame(seq, &self.you(player), fixed, &self.table_view(&[]))
    }

    /// The table's fixed part, for a stream whose views carry it (version 1).
    fn fixed_for(&self, stream: Option<&Stream>) -> Option<&str> {
        stream
            .is_some_and(|s| s.fixed_in_views)
            .then_some(self.fixed_members.as_str())
    }

    /// What every seat sees alike (seats, timer, meters, the round, its settlements
    /// and the step's events), serialized once for every connection.
    fn table_view(&self, events: &[Event]) -> String {
        let seats = self
            .seats
            .iter()
            .enumerate()
            .map(|(i, s)| {
                let n = (i + 1) as u8;
                let Some(s) = s else {
                    return frames::SeatOut::free(n);
                };
                let e = self.engine_seat(&s.player);
                let has_bet = self
                    .round
                    .as_ref()
                    .is_some_and(|r| e.is_some_and(|e| r.bet.contains(&e)));
                frames::SeatOut {
                    seat: n,
                    player: Some(&s.player),
                    connected: Some(self.conns.values().any(|c| c.player == s.player)),
                    in_round: Some(e.is_some()),
                    has_bet: Some(has_bet),
                    bet_pending: Some(self.debit_pending(&s.player)),
                    leaving: Some(s.leaving),
                }
            })
            .collect();
        let timer = self.timer.map(|(t, k)| frames::TimerOut {
            kind: k.word(),
            ms: t.saturating_duration_since(Instant::now()).as_millis() as u64,
        });
        let live;
        let (round, settlements, number, numbering) = match (&self.round, &self.last) {
            (Some(r), _) => {
                // The round's public part is the same from every seat.
                live = render::RoundOut::of(&r.live.engine.view(0), &r.seats);
                (
                    Some(&live),
                    &r.settlements[..],
                    Some(r.live.id.0),
                    Some(&r.seats),
                )
            }
            (None, Some(l)) => (
                Some(&l.round),
                &l.settlements[..],
                Some(l.number),
                Some(&l.seats),
            ),
            (None, None) => (None, &[][..], None, None),
        };
        frames::to_text(&frames::TableView {
            kind: "view",
            table: &self.cfg.name,
            round_id: number,
            in_play: self.round.is_some(),
            closed: self.closed.as_deref(),
            seats,
            timer,
            meters: &self.meters,
            round,
            settlements,
            events: numbering.map_or_else(Vec::new, |seats| {
                events
                    .iter()
                    .map(|e| render::EventOut::of(e, seats))
                    .collect()
            }),
        })
    }

    /// Reads the table's meters from the books (they move with other tables' and
    /// servers' rounds too: the meters' watch reports those).
    fn read_meters(&mut self) {
        if self.ctx.meters.is_empty() {
            return;
        }
        self.meters = self.books.read(|s| {
            self.ctx
                .meters
                .iter()
                .filter_map(|(m, _)| s.meter(m).ok().flatten())
                .map(|m| render::MeterOut::from(&m))
                .collect()
        });
    }

    /// The player's own part of a view: seat, balance, whether they may bet, and the
    /// decisions asked of them (their turn, or their spots' offers).
    fn you<'a>(&self, player: &'a str) -> frames::You<'a> {
        let engine_seat = self.engine_seat(player);
        let round = self.round.as_ref();
        // The round's balance, or before the player's bet, one topped up during this
        // window (see `RoundState::deposited`); the books' when there is no round.
        let balance = round
            .zip(engine_seat)
            .and_then(|(r, e)| {
                let betting = !r.bet.contains(&e) && r.live.engine.phase() == Phase::Betting;
                betting
                    .then(|| r.deposited.get(player).copied())
                    .flatten()
                    .or_else(|| r.live.engine.balance(e))
            })
            .or_else(|| self.balance_now(player));
        let mut decisions = Vec::new();
        if let (Some(r), Some(e)) = (round, engine_seat) {
            if let Some(w) = &r.window {
                for o in w.offers.iter().filter(|o| o.seat == e) {
                    let answered = w.answers.contains_key(&(o.seat, o.at.spot, o.at.hand));
                    decisions.push(frames::DecisionOut {
                        spot: o.at.spot + 1,
                        hand: o.at.hand + 1,
                        offer: true,
                        answered: Some(answered),
                        choices: if answered {
                            Vec::new()
                        } else {
                            render::choices(&o.legal)
                        },
                    });
                }
            } else {
                let legal = r.live.engine.legal_actions();
                if let Turn::Seat { seat, spot, hand } = legal.turn {
                    if seat == e {
                        decisions.push(frames::DecisionOut {
                            spot: spot + 1,
                            hand: hand + 1,
                            offer: false,
                            answered: None,
                            choices: render::choices(&legal),
                        });
                    }
                }
            }
        }
        let may_bet = round
            .zip(engine_seat)
            .is_some_and(|(r, e)| r.live.engine.phase() == Phase::Betting && !r.bet.contains(&e));
        frames::You {
            player,
            seat: self.seat_of(player),
            balance,
            may_bet,
            decisions,
        }
    }
}

/// The table's game, limits and hints, as each welcome carries them.
fn fixed_info(cfg: &TableConfig, ctx: &Ctx) -> frames::Fixed {
    let main = cfg.rules.main_bet();
    frames::Fixed {
        game: cfg.rules.game().id.clone(),
        limits: frames::Limits {
            main: frames::BetLimits {
                min: main.min,
                max: main.max,
                increment: main.increment,
            },
            side_bets: ctx
                .table
                .side_bets()
                .iter()
                .map(|b| frames::SideBetLimits {
                    id: b.id.as_str().to_string(),
                    limits: frames::BetLimits {
                        min: b.limits.min,
                        max: b.limits.max,
                        increment: b.limits.increment,
                    },
                })
                .collect(),
            spots: cfg.rules.table().max_spots_per_player,
        },
        hints: cfg.hints,
    }
}

/// Stands the hand `at` of engine seat `seat` by a timeout (its decision timer ran
/// out, or its player left): an action in the round's log like any other.
fn time_out(
    books: &Books,
    ctx: &Ctx,
    r: &mut RoundState,
    seat: u8,
    at: HandRef,
) -> Result<Vec<Event>, Fatal> {
    let action = Action::Timeout { seat, at: Some(at) };
    let s = books
        .with(|s| r.live.step(s, ctx, Some(action)))
        .map_err(|e| e.to_string())?;
    r.timed = None;
    match s {
        Stepped::Done(events) => Ok(events),
        other => Err(format!("a timeout was refused: {other}")),
    }
}

/// Every spot the offer window asks (insurance, even money, early surrender), found by
/// declining each in turn on a copy of the round.
fn offers(live: &Live, ctx: &Ctx) -> Vec<Offer> {
    let mut probe = live.engine.clone();
    let mut meters = MemoryMeters::for_table(&ctx.table);
    let phase = probe.phase();
    let mut out = Vec::new();
    while probe.phase() == phase && out.len() < 64 {
        let legal = probe.legal_actions();
        let Turn::Seat { seat, spot, hand } = legal.turn else {
            break;
        };
        let at = HandRef { spot, hand };
        out.push(Offer { seat, at, legal });
        let decline = Action::Play {
            seat,
            at: Some(at),
            decision: Decision::Decline,
        };
        if probe.apply(decline, &mut meters, &mut Vec::new()).is_err() {
            break;
        }
    }
    out
}

/// The engine's decision for a word (a double or insurance without an amount: the full
/// amount offered).
fn decision_of(word: Word, amount: Option<Money>, legal: &Legal) -> Decision {
    match word {
        Word::Hit => Decision::Hit,
        Word::Stand => Decision::Stand,
        Word::Double => {
            Decision::Double(amount.unwrap_or_else(|| legal.double.map_or(Money::ZERO, |r| r.full)))
        }
        Word::Split => Decision::Split,
        Word::Surrender => Decision::Surrender,
        Word::Insurance => Decision::Insure(
            amount.unwrap_or_else(|| legal.insurance.map_or(Money::ZERO, |r| r.full)),
        ),
        Word::EvenMoney => Decision::EvenMoney,
        Word::Decline => Decision::Decline,
    }
}

fn word_text(d: Decision) -> &'static str {
    match d {
        Decision::Hit => "hit",
        Decision::Stand => "stand",
        Decision::Double(_) => "double",
        Decision::Split => "split",
        Decision::Surrender => "surrender",
        Decision::Insure(_) => "insurance",
        Decision::EvenMoney => "even money",
        Decision::Decline => "decline",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_full_inbox_answers_busy_and_a_gone_table_says_so() {
        let (tx, rx) = std::sync::mpsc::channel();
        let info = TableInfo {
            name: "t".to_string(),
            game: "classic".to_string(),
            game_name: "Classic".to_string(),
            seats: 7,
            players: Vec::new(),
            away: Vec::new(),
            min: Money::cents(100),
            max: Money::cents(10_000),
            betting_ms: 1,
            decision_ms: 1,
            round: None,
            closed: false,
            failed: false,
            streams: 0,
        };
        let h = TableHandle {
            tx,
            info: Arc::new(RwLock::new(info)),
            queued: Arc::default(),
        };
        let at = Instant::now();
        for _ in 0..INBOX_MESSAGES {
            assert_eq!(h.send_message(1, ClientMsg::Ping {}, at), Ok(()));
        }
        assert_eq!(h.send_message(1, ClientMsg::Ping {}, at), Err(true));
        // The table takes one: room for one more.
        assert!(matches!(rx.recv(), Ok(ToTable::Msg { .. })));
        h.queued.fetch_sub(1, Ordering::SeqCst);
        assert_eq!(h.send_message(1, ClientMsg::Ping {}, at), Ok(()));
        drop(rx);
        h.queued.store(0, Ordering::SeqCst);
        assert_eq!(h.send_message(1, ClientMsg::Ping {}, at), Err(false));
        assert_eq!(h.queued.load(Ordering::SeqCst), 0);
    }
}
