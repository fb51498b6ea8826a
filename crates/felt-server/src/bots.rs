//! `felt bots`: players that play through the same HTTP and WebSocket protocol a
//! browser uses. Each bot registers (or logs in), sits at its table, bets the table's
//! minimum on the main bet and every side bet, plays felt-math's computed basic
//! strategy, declines insurance and even money, and counts what happened: rounds,
//! actions, refusals, errors, and the latency from each action to the view that shows
//! it. A dropped connection is reconnected (with the last sequence number seen); the
//! bot plays on. With several servers, a bot reads the lobby for the server that deals
//! its table, connects there, and when that server dies (or the table moves) asks the
//! lobby again (of any live server) and follows the table to its new host, as a
//! browser does.

mod frame;
mod timing;

use timing::{time_answers, Awaits, Came, Pending};

use crate::protocol::VERSION;
use felt_math::main_game::{Action as Play, BasicStrategy, HandKind};
use frame::Frame;
use futures_util::{SinkExt, StreamExt};
use serde_json::{json, Value};
use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio::sync::Mutex;
use tokio_tungstenite::tungstenite::client::IntoClientRequest;
use tokio_tungstenite::tungstenite::protocol::WebSocketConfig;
use tokio_tungstenite::tungstenite::Message;

/// How many times in a row a bot tries to reach the server again (a restart). A bot
/// whose table moves on (failovers) tries on, while it has played a round within its
/// stall time.
const RETRIES: u32 = 120;

/// Frames read ahead of the bot's handling of them (the reader then waits).
const FRAMES_AHEAD: usize = 256;

/// The pause between two tries.
const RETRY_PAUSE: Duration = Duration::from_millis(250);

/// A bot's default pace: nine tenths of the server's default rate limit for one
/// connection and one account (20 messages a second), so a bot with no think time
/// never meets the limit.
pub const DEFAULT_PACE_PER_S: f64 = 18.0;

/// How long a bot waits after the server dropped one of its messages for the rate
/// limit, before it asks for a fresh view and sends again what the view still asks.
const RATE_LIMITED_PAUSE: Duration = Duration::from_millis(500);

/// How long an action may go unanswered before the bot takes it as lost (its answer
/// or the server's `rate-limited` went missing): it asks for the table as it stands
/// and answers that afresh.
const UNANSWERED: Duration = Duration::from_secs(3);

/// How long a bot with nothing unanswered waits with no progress before it asks for
/// the table as it stands anyway (once each such while): a bot that lost track of
/// what the table asks of it finds out long before it would give up on the
/// connection.
const IDLE_ASK: Duration = Duration::from_secs(5);

/// How long a bot waits for the view it asked for before it asks again (the ask may
/// have been dropped too).
const ASK_AGAIN: Duration = Duration::from_secs(1);

/// The bytes a connection reads at once: a view is a few kilobytes, and the
/// WebSocket library's default (128 KiB) is zeroed before every read.
pub const READ_BUFFER_BYTES: usize = 16 * 1024;

/// What to run.
#[derive(Debug, Clone)]
pub struct BotsConfig {
    /// The servers (`http://host:port`), one or more: the bots are spread over them
    /// for their accounts and lobby, and each follows its table to the server that
    /// deals it (the lobby says which), to another when that one dies.
    pub servers: Vec<String>,
    /// Tables to play at (the lobby's first N).
    pub tables: usize,
    /// Bots per table.
    pub players: usize,
    /// Rounds each bot plays.
    pub rounds: u64,
    /// Name prefix of the bots' accounts.
    pub prefix: String,
    /// Give up on a bot that sees no progress for this long.
    pub stall: Duration,
    /// Keep every frame each bot receives (for tests that read them).
    pub keep_frames: bool,
    /// A pause before each bet and decision, as a person takes (zero: none).
    pub think: Duration,
    /// The most messages a second each bot sends (zero: no pacing), in bursts of at
    /// most a second's worth: a client stays under the server's rate limit rather
    /// than have messages dropped ([`DEFAULT_PACE_PER_S`]).
    pub pace_per_s: f64,
    /// With an operator's wallet (`felt serve --wallet`): the operator's launch link
    /// of each bot, made from its name and table; the bot follows it instead of
    /// registering (`None`: the bots register or log in).
    pub launch: Option<Launch>,
}

/// Makes the operator's launch link of a bot, from its name and table.
#[derive(Clone)]
pub struct Launch(pub Arc<MakeLink>);

/// A bot's name and table to its launch link.
pub type MakeLink = dyn Fn(&str, &str) -> Result<String, String> + Send + Sync;

impl std::fmt::Debug for Launch {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Launch(..)")
    }
}

/// The report (`--json` prints it as one object).
#[derive(Debug, Clone, Default, serde::Serialize)]
pub struct Report {
    /// Rounds played (summed over the bots).
    pub rounds: u64,
    /// Actions sent (bets and decisions).
    pub actions: u64,
    /// Error frames received (refused messages).
    pub refusals: u64,
    /// Failures: a bot that could not register, connect or reconnect, or stalled.
    pub errors: u64,
    /// Reconnections after a dropped connection.
    pub reconnects: u64,
    /// Why the bots reconnected, in words (at most 20).
    pub reconnect_reasons: Vec<String>,
    /// Times a bot took an action as lost (unanswered for 3 s), or with nothing
    /// unanswered saw no progress for 5 s, and answered the table afresh.
    pub resyncs: u64,
    /// Rounds per second (all bots).
    pub rounds_per_s: f64,
    /// Latency (ms) from an action sent to the frame that answers it (docs/server.md,
    /// "What the latency is").
    pub latency_ms: Latency,
    /// The same by kind of action: `bet`, `turn` (a turn's decision), `offer` (an
    /// offer's answer) and `refused` (any action refused, timed to its error).
    pub latency_by_kind_ms: BTreeMap<String, Latency>,
    /// Seconds the run took.
    pub seconds: f64,
    /// The refusals' codes and counts.
    pub refusal_codes: HashMap<String, u64>,
    /// The errors, in words (at most 20).
    pub error_messages: Vec<String>,
    /// The first refusals, as received (at most 10).
    pub refusal_examples: Vec<String>,
    /// Every frame each bot received, by bot, when `keep_frames` (not in `--json`).
    #[serde(skip)]
    pub frames: BTreeMap<String, Vec<Value>>,
}

/// Latency percentiles (ms).
#[derive(Debug, Clone, Default, serde::Serialize)]
pub struct Latency {
    /// How many actions were timed.
    pub actions: usize,
    /// Median.
    pub p50: f64,
    /// 95th percentile.
    pub p95: f64,
    /// 99th percentile.
    pub p99: f64,
}

impl Latency {
    /// The percentiles of `ms` (each the nearest rank; 0 when empty).
    fn of(mut ms: Vec<f64>) -> Latency {
        ms.sort_by(|a, b| a.total_cmp(b));
        let q = |p: f64| -> f64 {
            let i = ((ms.len() as f64 - 1.0) * p).round() as usize;
            ms.get(i.min(ms.len().saturating_sub(1)))
                .copied()
                .unwrap_or(0.0)
        };
        Latency {
            actions: ms.len(),
            p50: q(0.50),
            p95: q(0.95),
            p99: q(0.99),
        }
    }
}

#[derive(Default)]
struct Tally {
    rounds: u64,
    actions: u64,
    refusals: u64,
    errors: u64,
    reconnects: u64,
    reconnect_reasons: Vec<String>,
    resyncs: u64,
    latencies: timing::Latencies,
    codes: HashMap<String, u64>,
    messages: Vec<String>,
    examples: Vec<String>,
    frames: BTreeMap<String, Vec<Value>>,
}

type Shared = Arc<Mutex<Tally>>;

/// Sends the request `make` builds, asking again while the server is away (a
/// restart: the connection is refused) or says the books are (503: a database
/// restarting), as a person would.
async fn send_retrying(
    make: impl Fn() -> reqwest::RequestBuilder,
) -> reqwest::Result<reqwest::Response> {
    let mut tries = 0;
    loop {
        match make().send().await {
            Err(e) if (e.is_connect() || e.is_request()) && tries < RETRIES => {}
            Ok(r) if r.status() == reqwest::StatusCode::SERVICE_UNAVAILABLE && tries < RETRIES => {}
            r => return r,
        }
        tries += 1;
        tokio::time::sleep(RETRY_PAUSE).await;
    }
}

/// GETs `url` as JSON (see [`send_retrying`]).
async fn get_json(http: &reqwest::Client, url: &str) -> Result<Value, String> {
    let r = send_retrying(|| http.get(url))
        .await
        .map_err(|e| format!("{url}: {e}"))?;
    r.json().await.map_err(|e| format!("{url}: {e}"))
}

/// Runs the bots and reports.
pub async fn run(cfg: BotsConfig) -> Result<Report, String> {
    let http = reqwest::Client::builder()
        .timeout(Duration::from_secs(30))
        .build()
        .map_err(|e| e.to_string())?;
    let first = cfg.servers.first().ok_or("no server given")?.clone();
    let lobby = get_json(&http, &format!("{first}/api/tables"))
        .await
        .map_err(|e| format!("the lobby of {first}: {e}"))?;
    let tables: Vec<String> = lobby["tables"]
        .as_array()
        .map(|a| {
            a.iter()
                .filter(|t| t["closed"] != true)
                .filter_map(|t| t["name"].as_str().map(str::to_string))
                .take(cfg.tables)
                .collect()
        })
        .unwrap_or_default();
    if tables.len() < cfg.tables {
        return Err(format!(
            "the server runs {} open tables; {} were asked for",
            tables.len(),
            cfg.tables
        ));
    }
    let mut strategies: HashMap<String, Arc<BasicStrategy>> = HashMap::new();
    for t in &tables {
        let rules = get_json(&http, &format!("{first}/api/tables/{t}/rules")).await?;
        let game = rules["game"].as_str().unwrap_or_default().to_string();
        if strategies.contains_key(&game) {
            continue;
        }
        let g = game.clone();
        let bs = tokio::task::spawn_blocking(move || strategy_for(&g))
            .await
            .map_err(|e| e.to_string())??;
        strategies.insert(game, Arc::new(bs));
    }
    let tally: Shared = Default::default();
    let started = Instant::now();
    let mut tasks = Vec::new();
    for (ti, t) in tables.iter().enumerate() {
        for k in 0..cfg.players {
            let bot = Bot {
                cfg: cfg.clone(),
                home: (ti * cfg.players + k) % cfg.servers.len(),
                name: format!("{}-{ti}-{k}", cfg.prefix),
                table: t.clone(),
                strategies: strategies.clone(),
                tally: tally.clone(),
            };
            tasks.push(tokio::spawn(async move { bot.run().await }));
        }
    }
    for t in tasks {
        if let Err(e) = t.await {
            let mut g = tally.lock().await;
            g.errors += 1;
            g.messages.push(format!("a bot panicked: {e}"));
        }
    }
    let seconds = started.elapsed().as_secs_f64();
    let mut g = tally.lock().await;
    let by_kind = timing::Kind::ALL
        .iter()
        .map(|&k| (k, Latency::of(g.latencies.of(k).to_vec())))
        .filter(|(_, l)| l.actions > 0)
        .map(|(k, l)| (k.name().to_string(), l))
        .collect();
    Ok(Report {
        rounds: g.rounds,
        actions: g.actions,
        refusals: g.refusals,
        errors: g.errors,
        reconnects: g.reconnects,
        reconnect_reasons: g.reconnect_reasons.clone(),
        resyncs: g.resyncs,
        rounds_per_s: if seconds > 0.0 {
            g.rounds as f64 / seconds
        } else {
            0.0
        },
        latency_ms: Latency::of(g.latencies.all()),
        latency_by_kind_ms: by_kind,
        seconds,
        refusal_codes: g.codes.clone(),
        error_messages: g.messages.iter().take(20).cloned().collect(),
        refusal_examples: g.examples.clone(),
        frames: std::mem::take(&mut g.frames),
    })
}

/// The session cookie (`name=value`) an answer sets.
fn session_cookie(r: &reqwest::Response) -> Option<String> {
    r.headers()
        .get("set-cookie")
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.split(';').next())
        .map(str::to_string)
}

/// The computed basic strategy of a preset game, or of the classic game for a game
/// the bot does not know by name.
fn strategy_for(game: &str) -> Result<BasicStrategy, String> {
    let rules = felt_core::presets::load(game)
        .or_else(|| felt_core::presets::load("classic"))
        .ok_or("no preset")?
        .map_err(|e| e.to_string())?;
    felt_math::parsheet::par_sheet(&rules, None, None)
        .map(|p| p.strategy)
        .map_err(|e| e.to_string())
}

struct Bot {
    cfg: BotsConfig,
    /// The server (index in `cfg.servers`) the bot asks first.
    home: usize,
    name: String,
    table: String,
    strategies: HashMap<String, Arc<BasicStrategy>>,
    tally: Shared,
}

/// What a bot remembers across reconnections.
#[derive(Default)]
struct Memory {
    last_seq: Option<u64>,
    rounds: u64,
    /// The round the bot has bet in.
    bet_in: Option<i64>,
    /// Rounds counted (each once).
    counted: Option<i64>,
    /// Actions sent and not yet seen in a view: (id, when).
    pending: Vec<Pending>,
    /// Decisions sent, by round, spot, hand, the cards on the table and whether an
    /// offer: not sent twice. (Every decision that leaves a hand to decide again deals
    /// a card; an offer and the hand's first decision see the same cards.)
    sent: Vec<(i64, u64, u64, usize, bool)>,
    next_id: u64,
    seated: bool,
    /// The id of the last bet sent.
    bet_id: Option<String>,
    /// The table's game and limits, as the welcome said (they do not change at the
    /// table): each view is read with them.
    game: Option<String>,
    limits: frame::Limits,
    /// The server dropped a message (its rate limit): the next view is answered
    /// afresh, the bet and decisions it still asks for sent again.
    resend: bool,
    /// When the view for `resend` was last asked for.
    asked: Option<Instant>,
    /// The pacing bucket: messages that may go now, and when it was last filled.
    tokens: f64,
    filled: Option<Instant>,
    /// This bot's counts, added to the run's tally when it ends (one lock per bot,
    /// not one per frame).
    counts: Counts,
}

/// What a bot counts as it plays.
#[derive(Default)]
struct Counts {
    rounds: u64,
    actions: u64,
    latencies: timing::Latencies,
}

impl Tally {
    fn add(&mut self, c: Counts) {
        self.rounds += c.rounds;
        self.actions += c.actions;
        self.latencies.extend(c.latencies);
    }
}

impl Bot {
    async fn fail(&self, m: String) {
        let mut g = self.tally.lock().await;
        g.errors += 1;
        if g.messages.len() < 20 {
            g.messages.push(format!("{}: {m}", self.name));
        }
    }

    async fn run(self) {
        let mut mem = Memory::default();
        self.play(&mut mem).await;
        let counts = std::mem::take(&mut mem.counts);
        self.tally.lock().await.add(counts);
    }

    async fn play(&self, mem: &mut Memory) {
        let http = match reqwest::Client::builder()
            .cookie_store(true)
            .timeout(Duration::from_secs(30))
            .build()
        {
            Ok(c) => c,
            Err(e) => return self.fail(e.to_string()).await,
        };
        let cookie = match &self.cfg.launch {
            Some(launch) => self.launched(launch).await,
            None => self.registered(&http).await,
        };
        let cookie = match cookie {
            Ok(c) => c,
            Err(e) => return self.fail(e).await,
        };
        let mut tries = 0;
        let mut last_round = Instant::now();
        while mem.rounds < self.cfg.rounds {
            let played = mem.rounds;
            let r = match self.find_host(&http).await {
                Some(host) => self.session(&cookie, mem, &host).await,
                None => Ok(false),
            };
            if mem.rounds > played {
                tries = 0;
                last_round = Instant::now();
            }
            // Under repeated failovers a table can move many times before a round
            // ends: the bot gives up only when both budgets are spent.
            let again = tries < RETRIES || last_round.elapsed() < self.cfg.stall;
            match r {
                Ok(true) => break,
                Ok(false) | Err(_) if again => {
                    tries += 1;
                    let mut g = self.tally.lock().await;
                    g.reconnects += 1;
                    if g.reconnect_reasons.len() < 20 {
                        let why = r
                            .err()
                            .unwrap_or_else(|| "the connection ended".to_string());
                        g.reconnect_reasons.push(format!("{}: {why}", self.name));
                    }
                    drop(g);
                    tokio::time::sleep(RETRY_PAUSE).await;
                }
                Ok(false) => {
                    let m = format!(
                        "the table closed ({tries} tries, no round for {:.0} s)",
                        last_round.elapsed().as_secs_f64()
                    );
                    return self.fail(m).await;
                }
                Err(e) => return self.fail(e).await,
            }
        }
    }

    /// The session of a bot the operator launched: its link is followed (not past
    /// felt's `303` to the table), the session cookie kept.
    async fn launched(&self, launch: &Launch) -> Result<String, String> {
        let link = (launch.0)(&self.name, &self.table)?;
        let http = reqwest::Client::builder()
            .redirect(reqwest::redirect::Policy::none())
            .timeout(Duration::from_secs(30))
            .build()
            .map_err(|e| e.to_string())?;
        let r = send_retrying(|| http.get(&link))
            .await
            .map_err(|e| format!("the launch link: {e}"))?;
        if r.status() != reqwest::StatusCode::SEE_OTHER {
            let s = r.status();
            let t = r.text().await.unwrap_or_default();
            return Err(format!("the launch link: {s} {t}"));
        }
        session_cookie(&r).ok_or_else(|| "the launch gave no session cookie".to_string())
    }

    /// The session of a bot that registers (or, registered before, logs in).
    async fn registered(&self, http: &reqwest::Client) -> Result<String, String> {
        let password = format!("{}-password", self.name);
        let body = json!({"name": self.name, "password": password});
        let home = &self.cfg.servers[self.home];
        for path in ["register", "login"] {
            let url = format!("{home}/api/{path}");
            let r = send_retrying(|| http.post(&url).json(&body)).await;
            match r {
                Ok(r) if r.status().is_success() => {
                    return session_cookie(&r).ok_or_else(|| "no session cookie".to_string())
                }
                Ok(r) if r.status() == reqwest::StatusCode::CONFLICT => continue,
                Ok(r) => {
                    let s = r.status();
                    let t = r.text().await.unwrap_or_default();
                    return Err(format!("{path}: {s} {t}"));
                }
                Err(e) => return Err(format!("{path}: {e}")),
            }
        }
        Err("no session cookie".to_string())
    }

    /// The server dealing the bot's table, as the lobby of the first server that
    /// answers (the home server first) says; `None` while no live server deals it
    /// (a takeover in progress) or no server answers.
    async fn find_host(&self, http: &reqwest::Client) -> Option<String> {
        let n = self.cfg.servers.len();
        for i in 0..n {
            let server = &self.cfg.servers[(self.home + i) % n];
            let lobby = http
                .get(format!("{server}/api/tables"))
                .timeout(Duration::from_secs(2))
                .send()
                .await;
            let Ok(lobby) = lobby else { continue };
            let Ok(v) = lobby.json::<Value>().await else {
                continue;
            };
            let table = v["tables"]
                .as_array()
                .into_iter()
                .flatten()
                .find(|t| t["name"] == self.table.as_str())?;
            let host = &table["host"];
            return match (host["live"].as_bool(), host["url"].as_str()) {
                (Some(true), Some(url)) if !url.is_empty() => Some(url.to_string()),
                _ => None,
            };
        }
        None
    }

    /// One connection, to the server at `host`: plays until the bot's rounds are done
    /// (true) or the connection drops or the table moves (false, or an error).
    async fn session(&self, cookie: &str, mem: &mut Memory, host: &str) -> Result<bool, String> {
        let ws_url = format!("{}/ws", host.replacen("http", "ws", 1));
        let mut req = ws_url.into_client_request().map_err(|e| e.to_string())?;
        req.headers_mut().insert(
            "cookie",
            cookie.parse().map_err(|_| "a bad cookie".to_string())?,
        );
        // No Nagle delay on the bot's small messages, as browsers send theirs.
        let config = WebSocketConfig::default().read_buffer_size(READ_BUFFER_BYTES);
        let (ws, _) = tokio_tungstenite::connect_async_with_config(req, Some(config), true)
            .await
            .map_err(|e| format!("connecting: {e}"))?;
        let (mut tx, mut rx) = ws.split();
        // Frames are read (and their arrival timed) by a task of their own, so a
        // frame that comes while the bot waits for its pace is timed when it came,
        // not when the bot gets to it. Dropping the set stops the task.
        let (arrived_tx, mut arrived) = tokio::sync::mpsc::channel(FRAMES_AHEAD);
        let mut reader = tokio::task::JoinSet::new();
        reader.spawn(async move {
            while let Some(m) = rx.next().await {
                if arrived_tx.send((Instant::now(), m)).await.is_err() {
                    break;
                }
            }
        });
        // What was sent on a dropped connection may have been lost with it (a server
        // killed before it committed): the next view says what stands, and the bot
        // decides again from it (the server refuses what was already applied).
        mem.sent.clear();
        mem.pending.clear();
        mem.bet_id = None;
        mem.bet_in = None;
        let hello = json!({"type": "hello", "version": VERSION, "table": self.table, "last_seq": mem.last_seq});
        self.pace(mem).await;
        tx.send(Message::text(hello.to_string()))
            .await
            .map_err(|e| e.to_string())?;
        let mut last_progress = Instant::now();
        let mut last_idle_ask = Instant::now();
        loop {
            // Frames that move nothing (a countdown, another player's view) are no
            // progress either.
            if last_progress.elapsed() > self.cfg.stall {
                return Err(format!(
                    "no progress for {} s at table {}",
                    self.cfg.stall.as_secs(),
                    self.table
                ));
            }
            // An action unanswered for long was dropped unannounced, or the fresh
            // view asked for after a drop has not come (the ask may have been
            // dropped too): the bot asks (again) for the table as it stands. Frames
            // that keep coming (other players' views) do not put this off.
            let lost = mem.pending.iter().any(|p| p.at.elapsed() > UNANSWERED);
            let unasked = mem.resend && mem.asked.is_none_or(|a| a.elapsed() > ASK_AGAIN);
            let idle = mem.pending.is_empty()
                && last_progress.elapsed() > IDLE_ASK
                && last_idle_ask.elapsed() > IDLE_ASK;
            if idle {
                last_idle_ask = Instant::now();
            }
            if lost || unasked || idle {
                if lost || idle {
                    self.tally.lock().await.resyncs += 1;
                }
                self.answer_afresh(mem, &mut tx).await?;
            }
            let next = tokio::time::timeout(ASK_AGAIN, arrived.recv()).await;
            let (came, msg) = match next {
                Err(_) => continue,
                Ok(None) | Ok(Some((_, Err(_)))) => return Ok(false),
                Ok(Some((came, Ok(m)))) => (came, m),
            };
            let Message::Text(text) = msg else { continue };
            let Ok(f) = serde_json::from_str::<Frame>(&text) else {
                return Err(format!("the server sent no frame of the protocol: {text}"));
            };
            if self.cfg.keep_frames {
                let v = serde_json::from_str::<Value>(&text).unwrap_or_default();
                let mut g = self.tally.lock().await;
                g.frames.entry(self.name.clone()).or_default().push(v);
            }
            if let Some(seq) = f.seq {
                if f.kind != "welcome" {
                    mem.last_seq = Some(seq);
                }
            }
            match f.kind.as_ref() {
                // An offer's answer (insurance, even money, early surrender) is
                // acknowledged at once; the view comes when every spot has answered,
                // a wait for the other players, not for the server: it is timed to
                // its acknowledgement.
                "accepted" => {
                    if let Some(id) = f.id.as_deref() {
                        let latencies = &mut mem.counts.latencies;
                        time_answers(&mut mem.pending, came, Came::Reply(id), latencies);
                    }
                }
                "welcome" => {
                    mem.game = f.game.map(|g| g.into_owned());
                    mem.limits = f.limits.unwrap_or_default();
                    mem.seated = f.seat.is_some();
                    if mem.seated {
                        // What was sent before is forgotten (above), and a resumed
                        // stream with nothing missed brings no view: ask for one.
                        self.answer_afresh(mem, &mut tx).await?;
                    } else {
                        self.pace(mem).await;
                        tx.send(Message::text(json!({"type": "sit"}).to_string()))
                            .await
                            .map_err(|e| e.to_string())?;
                    }
                }
                "error" => {
                    let code = f.code.as_deref().unwrap_or("?");
                    let mut g = self.tally.lock().await;
                    g.refusals += 1;
                    *g.codes.entry(code.to_string()).or_default() += 1;
                    if g.examples.len() < 10 {
                        g.examples.push(format!("{}: {text}", self.name));
                    }
                    drop(g);
                    // A refusal answers its action.
                    if let Some(id) = f.id.as_deref() {
                        let latencies = &mut mem.counts.latencies;
                        time_answers(&mut mem.pending, came, Came::Refusal(id), latencies);
                    }
                    if code == "table-closed" || code == "away" {
                        return Ok(false);
                    }
                    if code == "rate-limited" {
                        // A message was dropped, unknown which: wait, then ask for
                        // the table as it stands and answer it again.
                        tokio::time::sleep(RATE_LIMITED_PAUSE).await;
                        self.answer_afresh(mem, &mut tx).await?;
                        continue;
                    }
                    // A bet refused because the round was set up again (someone sat
                    // down): bet again in the round the next view shows.
                    if f.id.is_some() && f.id.as_deref() == mem.bet_id.as_deref() {
                        mem.bet_in = None;
                        mem.bet_id = None;
                    }
                }
                "closed" | "away" => return Ok(false),
                "view" => {
                    let latencies = &mut mem.counts.latencies;
                    time_answers(&mut mem.pending, came, Came::View(&f), latencies);
                    if self.on_view(&f, mem, &mut tx).await? {
                        last_progress = Instant::now();
                    }
                    if mem.rounds >= self.cfg.rounds && !f.in_play {
                        let _ = tx
                            .send(Message::text(json!({"type": "leave"}).to_string()))
                            .await;
                        let _ = tx.close().await;
                        return Ok(true);
                    }
                }
                _ => {}
            }
        }
    }

    /// Reacts to a view; returns whether the round moved on.
    async fn on_view<S>(&self, v: &Frame<'_>, mem: &mut Memory, tx: &mut S) -> Result<bool, String>
    where
        S: futures_util::Sink<Message> + Unpin,
        S::Error: std::fmt::Display,
    {
        let mut progress = false;
        let round = v.round_id;
        let you = v.you.as_ref();
        let has_bet = v.has_bet();
        if has_bet && round.is_some() {
            // The id the books gave the round (another table may have taken the one
            // its betting window announced).
            mem.bet_in = round;
        }
        // A round the bot bet in that has ended: counted once.
        if let (Some(b), Some(r)) = (mem.bet_in, round) {
            if !v.in_play && r == b && mem.counted != Some(b) {
                mem.counted = Some(b);
                mem.rounds += 1;
                mem.counts.rounds += 1;
                progress = true;
            }
        }
        if you.is_none_or(|y| y.seat.is_none())
            && v.closed.is_none()
            && mem.rounds < self.cfg.rounds
        {
            mem.seated = false;
        }
        let betting = v.round.as_ref().is_some_and(|r| r.phase == "betting");
        if has_bet || (v.in_play && !betting) {
            // The bet is in (or betting is over): a new one may go in the next round.
            mem.bet_id = None;
        }
        // After a dropped message the bet is sent again if the view shows none.
        let rebet = std::mem::take(&mut mem.resend) && !has_bet;
        let may_bet = you.is_some_and(|y| y.may_bet);
        if may_bet && mem.rounds < self.cfg.rounds && mem.bet_id.is_none() {
            if let Some(r) = round {
                if mem.bet_in != Some(r) || rebet {
                    // A version 1 view carries the limits itself.
                    let limits = v.limits.as_ref().unwrap_or(&mem.limits);
                    let side: serde_json::Map<String, Value> = limits
                        .side_bets
                        .iter()
                        .map(|b| (b.id.clone(), json!(b.min)))
                        .collect();
                    let main = json!(limits.main.min);
                    let id = self.next_id(mem);
                    let bet = json!({
                        "type": "bet", "round": r, "id": id,
                        "spots": [{"spot": 1, "main": main, "side": side}],
                    });
                    mem.bet_id = Some(id.clone());
                    self.send(tx, bet, mem, id, Awaits::Bet).await?;
                    mem.bet_in = Some(r);
                    progress = true;
                }
            }
        }
        let Some(r) = round else { return Ok(progress) };
        for d in you.into_iter().flat_map(|y| &y.decisions) {
            if d.answered == Some(true) {
                continue;
            }
            let choices: Vec<&str> = d.choices.iter().map(|c| c.decision.as_ref()).collect();
            if choices.is_empty() {
                continue;
            }
            let (spot, hand) = (d.spot, d.hand);
            let key = (r, spot, hand, v.cards_on_table(), d.offer);
            if mem.sent.contains(&key) {
                continue;
            }
            let word = if d.offer {
                if choices.contains(&"decline") {
                    "decline"
                } else {
                    choices[0]
                }
            } else {
                let game = v
                    .game
                    .as_deref()
                    .or(mem.game.as_deref())
                    .unwrap_or_default();
                let up = v.round.as_ref().and_then(|r| r.dealer.cards.first());
                self.choose(game, up.copied(), v.hand_cards(spot, hand), &choices)
            };
            let id = self.next_id(mem);
            let act = json!({
                "type": "act", "round": r, "spot": spot, "hand": hand,
                "decision": word, "id": id,
            });
            let awaits = if d.offer {
                Awaits::Offer { spot, hand }
            } else {
                Awaits::Turn {
                    round: r,
                    spot,
                    hand,
                    cards: v.cards_on_table(),
                }
            };
            self.send(tx, act, mem, id, awaits).await?;
            mem.sent.push(key);
            if mem.sent.len() > 64 {
                mem.sent.remove(0);
            }
            progress = true;
        }
        Ok(progress)
    }

    fn next_id(&self, mem: &mut Memory) -> String {
        mem.next_id += 1;
        format!("{}-{}", self.name, mem.next_id)
    }

    async fn send<S>(
        &self,
        tx: &mut S,
        m: Value,
        mem: &mut Memory,
        id: String,
        awaits: Awaits,
    ) -> Result<(), String>
    where
        S: futures_util::Sink<Message> + Unpin,
        S::Error: std::fmt::Display,
    {
        if !self.cfg.think.is_zero() {
            tokio::time::sleep(self.cfg.think).await;
        }
        self.pace(mem).await;
        // Timed from before the write: its answer may come before the write returns.
        let at = Instant::now();
        tx.send(Message::text(m.to_string()))
            .await
            .map_err(|e| e.to_string())?;
        mem.pending.push(Pending { id, at, awaits });
        mem.counts.actions += 1;
        Ok(())
    }

    /// Forgets what the bot sent (some of it was lost) and asks for the table as it
    /// stands: the next view is answered afresh, the bet and decisions it still asks
    /// for sent again (the server refuses what it already applied).
    async fn answer_afresh<S>(&self, mem: &mut Memory, tx: &mut S) -> Result<(), String>
    where
        S: futures_util::Sink<Message> + Unpin,
        S::Error: std::fmt::Display,
    {
        mem.resend = true;
        mem.sent.clear();
        mem.pending.clear();
        mem.bet_id = None;
        self.pace(mem).await;
        tx.send(Message::text(json!({"type": "sync"}).to_string()))
            .await
            .map_err(|e| e.to_string())?;
        mem.asked = Some(Instant::now());
        Ok(())
    }

    /// Waits until the bot's pace lets one more message go, and takes its token.
    async fn pace(&self, mem: &mut Memory) {
        let rate = self.cfg.pace_per_s;
        if rate <= 0.0 {
            return;
        }
        // A second's worth of messages at most at once (at least one).
        let burst = rate.max(1.0);
        let now = Instant::now();
        let since = mem
            .filled
            .map_or(burst, |f| now.duration_since(f).as_secs_f64() * rate);
        mem.tokens = (mem.tokens + since).min(burst);
        mem.filled = Some(now);
        if mem.tokens < 1.0 {
            let wait = Duration::from_secs_f64((1.0 - mem.tokens) / rate);
            tokio::time::sleep(wait).await;
            mem.tokens = 1.0;
            mem.filled = Some(Instant::now());
        }
        mem.tokens -= 1.0;
    }

    /// The basic strategy's play among the choices offered, for the hand of `cards`
    /// (as the protocol writes them) against the dealer's up card `up`, in `game`.
    fn choose<'a>(
        &self,
        game: &str,
        up: Option<&str>,
        cards: &[&str],
        choices: &[&'a str],
    ) -> &'a str {
        let up = up.map(card_value).unwrap_or(10);
        let cards: Vec<u8> = cards.iter().map(|c| card_value(c)).collect();
        let total: u8 = cards.iter().sum();
        let soft = cards.contains(&1) && total + 10 <= 21;
        let best = if soft { total + 10 } else { total };
        let (kind, key) = if cards.len() == 2 && cards[0] == cards[1] && choices.contains(&"split")
        {
            (HandKind::Pair, cards[0])
        } else if soft {
            (HandKind::Soft, best)
        } else {
            (HandKind::Hard, best.max(4))
        };
        let ranking: Vec<Play> = self
            .strategies
            .get(game)
            .and_then(|s| s.cell(kind, key, up).ok())
            .map(|c| c.ranking().to_vec())
            .unwrap_or_else(|| {
                if best >= 17 {
                    vec![Play::Stand, Play::Hit]
                } else {
                    vec![Play::Hit, Play::Stand]
                }
            });
        for p in ranking {
            let w = match p {
                Play::Stand => "stand",
                Play::Hit => "hit",
                Play::Double => "double",
                Play::Split => "split",
                Play::Surrender => "surrender",
            };
            if let Some(c) = choices.iter().find(|c| **c == w) {
                return c;
            }
        }
        if choices.contains(&"stand") {
            "stand"
        } else {
            choices[0]
        }
    }
}

/// How many cards lie face up on the table.
pub fn cards_on_table(v: &Value) -> usize {
    let hands: usize = v["round"]["spots"]
        .as_array()
        .into_iter()
        .flatten()
        .flat_map(|s| s["hands"].as_array().into_iter().flatten())
        .map(|h| h["cards"].as_array().map_or(0, Vec::len))
        .sum();
    hands + v["round"]["dealer"]["cards"].as_array().map_or(0, Vec::len)
}

/// A card's blackjack value from its text (`7h`: 7, `Qs`: 10, `Ad`: 1).
fn card_value(c: &str) -> u8 {
    match c.chars().next() {
        Some('A') => 1,
        Some(d @ '2'..='9') => d as u8 - b'0',
        _ => 10,
    }
}
