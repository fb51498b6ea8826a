//! A player of the harness: launched by the operator's link at the server that deals
//! its table (the lobby says which), over the browser's WebSocket protocol; bets the
//! table's minimum or a few times it, side bets now and then, and answers each
//! decision at random (offers declined), all drawn from a seeded generator. A dropped
//! connection (a killed server) is launched again, at the table's host of the moment.

use super::demo::Operator;
use felt_server::bots::cards_on_table;
use futures_util::{SinkExt, StreamExt};
use rand::{Rng, SeedableRng};
use serde_json::{json, Value};
use std::collections::{BTreeMap, BTreeSet};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio_tungstenite::tungstenite::client::IntoClientRequest;
use tokio_tungstenite::tungstenite::Message;

type Socket =
    tokio_tungstenite::WebSocketStream<tokio_tungstenite::MaybeTlsStream<tokio::net::TcpStream>>;

/// One connection of a launched player to its table.
pub struct Conn {
    ws: Socket,
}

impl Conn {
    /// Follows a new launch link of `player` at `table` on the server `host`
    /// (`http://...`) and says hello to the table over the session it opens.
    pub async fn launch(
        op: &Operator,
        host: &str,
        player: &str,
        table: &str,
    ) -> Result<Conn, String> {
        let link = op.launch_link(host, player, table).await;
        let http = reqwest::Client::builder()
            .redirect(reqwest::redirect::Policy::none())
            .timeout(Duration::from_secs(10))
            .build()
            .map_err(|e| e.to_string())?;
        let r = http
            .get(&link)
            .send()
            .await
            .map_err(|e| e.without_url().to_string())?;
        if r.status() != reqwest::StatusCode::SEE_OTHER {
            return Err(format!("the launch link answered {}", r.status()));
        }
        let cookie = r
            .headers()
            .get("set-cookie")
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.split(';').next())
            .ok_or("the launch opened no session")?
            .to_string();
        let mut req = format!("{}/ws", host.replacen("http", "ws", 1))
            .into_client_request()
            .map_err(|e| e.to_string())?;
        let cookie = cookie.parse().map_err(|_| "a bad cookie".to_string())?;
        req.headers_mut().insert("cookie", cookie);
        let (ws, _) = tokio_tungstenite::connect_async(req)
            .await
            .map_err(|e| format!("connecting: {e}"))?;
        let mut c = Conn { ws };
        c.send(json!({"type": "hello", "version": 1, "table": table}))
            .await?;
        Ok(c)
    }

    /// Sends one message.
    pub async fn send(&mut self, v: Value) -> Result<(), String> {
        self.ws
            .send(Message::text(v.to_string()))
            .await
            .map_err(|e| e.to_string())
    }

    /// The next JSON frame within `wait`: `Ok(None)` if none came, `Err` once the
    /// connection has ended.
    pub async fn next(&mut self, wait: Duration) -> Result<Option<Value>, String> {
        loop {
            let m = match tokio::time::timeout(wait, self.ws.next()).await {
                Err(_) => return Ok(None),
                Ok(None) => return Err("the connection ended".into()),
                Ok(Some(Err(e))) => return Err(e.to_string()),
                Ok(Some(Ok(m))) => m,
            };
            if let Message::Text(t) = m {
                return serde_json::from_str(&t).map_err(|e| format!("not JSON ({e}): {t}"));
            }
        }
    }

    /// The first frame within `secs` seconds that `pred` accepts.
    pub async fn until(&mut self, secs: u64, pred: impl Fn(&Value) -> bool) -> Value {
        let end = Instant::now() + Duration::from_secs(secs);
        loop {
            let left = end.saturating_duration_since(Instant::now());
            assert!(!left.is_zero(), "no such frame within {secs} s");
            match self.next(left).await {
                Ok(Some(v)) if pred(&v) => return v,
                Ok(_) => {}
                Err(e) => panic!("waiting for a frame: {e}"),
            }
        }
    }
}

/// The server that deals `table`, as the lobby of the first of `servers` that
/// answers says; `None` while none does (a restart, a takeover).
pub async fn host_of(servers: &[String], table: &str) -> Option<String> {
    for server in servers {
        let lobby = reqwest::Client::new()
            .get(format!("{server}/api/tables"))
            .timeout(Duration::from_secs(2))
            .send()
            .await;
        let Ok(v) = lobby.map(|r| r.json::<Value>()) else {
            continue;
        };
        let Ok(v) = v.await else { continue };
        let t = v["tables"]
            .as_array()
            .into_iter()
            .flatten()
            .find(|t| t["name"] == table)?;
        return match (t["host"]["live"].as_bool(), t["host"]["url"].as_str()) {
            (Some(true), Some(url)) if !url.is_empty() => Some(url.to_string()),
            _ => None,
        };
    }
    None
}

/// What a player saw.
#[derive(Debug, Default, Clone)]
pub struct Tally {
    /// Bets sent.
    pub bets: u64,
    /// Decisions sent.
    pub decisions: u64,
    /// Refusals, by code.
    pub refusals: BTreeMap<String, u64>,
    /// Launches after the first (the server died or refused the launch).
    pub relaunches: u64,
    /// Why a launch failed (a server down, the wallet's authenticate lost), by reason.
    pub launch_failures: BTreeMap<String, u64>,
    /// Why a connection ended, by reason.
    pub drops: BTreeMap<String, u64>,
}

/// A player of the harness.
pub struct Bot {
    /// The operator's player id.
    pub name: String,
    /// Its table.
    pub table: String,
    /// The servers, for the lobby.
    pub servers: Vec<String>,
    /// Its choices' generator.
    pub rng: rand_chacha::ChaCha8Rng,
}

/// How long a player still plays its round out once stopped.
const WIND_DOWN: Duration = Duration::from_secs(30);

impl Bot {
    /// A player whose choices are drawn from `seed`.
    pub fn new(name: &str, table: &str, servers: &[String], seed: u64) -> Bot {
        Bot {
            name: name.into(),
            table: table.into(),
            servers: servers.to_vec(),
            rng: rand_chacha::ChaCha8Rng::seed_from_u64(seed),
        }
    }

    /// Plays until `stop`, then plays its round out (at most [`WIND_DOWN`]).
    pub async fn play(mut self, op: Arc<Operator>, stop: Arc<AtomicBool>) -> Tally {
        let mut tally = Tally::default();
        let mut stopped_at: Option<Instant> = None;
        let mut first = true;
        loop {
            if stop.load(Ordering::Relaxed) {
                let at = *stopped_at.get_or_insert_with(Instant::now);
                if at.elapsed() > WIND_DOWN {
                    return tally;
                }
            }
            let Some(host) = host_of(&self.servers, &self.table).await else {
                tokio::time::sleep(Duration::from_millis(200)).await;
                continue;
            };
            if !first {
                tally.relaunches += 1;
            }
            first = false;
            let mut conn = match Conn::launch(&op, &host, &self.name, &self.table).await {
                Ok(c) => c,
                Err(e) => {
                    *tally.launch_failures.entry(e).or_insert(0) += 1;
                    tokio::time::sleep(Duration::from_millis(300)).await;
                    continue;
                }
            };
            if self.session(&mut conn, &stop, &mut tally).await {
                return tally;
            }
        }
    }

    /// Plays over one connection: `true` once stopped and out of play, `false` when
    /// the connection ends.
    async fn session(&mut self, c: &mut Conn, stop: &AtomicBool, tally: &mut Tally) -> bool {
        let mut bet_in: Option<i64> = None;
        let mut answered: BTreeSet<(i64, u64, u64, usize)> = BTreeSet::new();
        let mut next_id = 0u64;
        let mut id = |name: &str| {
            next_id += 1;
            format!("{name}-{}-{next_id}", rand::random::<u32>())
        };
        let mut stopped_at: Option<Instant> = None;
        loop {
            let stopping = stop.load(Ordering::Relaxed);
            if stopping && stopped_at.get_or_insert_with(Instant::now).elapsed() > WIND_DOWN {
                return true;
            }
            let v = match c.next(Duration::from_secs(1)).await {
                Err(e) => {
                    *tally.drops.entry(e).or_insert(0) += 1;
                    return false;
                }
                Ok(None) => continue,
                Ok(Some(v)) => v,
            };
            let sent = match v["type"].as_str() {
                Some("welcome") if !v["seat"].is_u64() && !stopping => {
                    c.send(json!({"type": "sit"})).await
                }
                Some("error") => {
                    let code = v["code"].as_str().unwrap_or("?").to_string();
                    *tally.refusals.entry(code).or_insert(0) += 1;
                    Ok(())
                }
                Some("closed" | "away") => {
                    *tally.drops.entry(v.to_string()).or_insert(0) += 1;
                    return false;
                }
                Some("view") => {
                    if stopping && !staked(&v) {
                        let _ = c.send(json!({"type": "leave"})).await;
                        return true;
                    }
                    let mut out = Vec::new();
                    if v["you"]["seat"].is_null() && !stopping {
                        out.push(json!({"type": "sit"}));
                    }
                    let round = v["round_id"].as_i64();
                    if let (true, false, Some(r)) = (v["you"]["may_bet"] == true, stopping, round) {
                        if bet_in != Some(r) {
                            bet_in = Some(r);
                            tally.bets += 1;
                            let bet_id = id(&self.name);
                            out.push(self.bet(&v, r, bet_id));
                        }
                    }
                    for (key, word) in self.decisions(&v) {
                        if answered.insert(key) {
                            tally.decisions += 1;
                            let (r, spot, hand, _) = key;
                            out.push(json!({
                                "type": "act", "round": r, "spot": spot, "hand": hand,
                                "decision": word, "id": id(&self.name),
                            }));
                        }
                    }
                    let mut r = Ok(());
                    for m in out {
                        r = r.and(c.send(m).await);
                    }
                    r
                }
                _ => Ok(()),
            };
            if let Err(e) = sent {
                *tally.drops.entry(e).or_insert(0) += 1;
                return false;
            }
        }
    }

    /// A bet in round `r`: the main bet at 1, 2 or 5 times the table's minimum, and
    /// each side bet at its minimum half the time.
    fn bet(&mut self, v: &Value, r: i64, id: String) -> Value {
        let min = v["limits"]["main"]["min"]
            .as_str()
            .and_then(|m| m.parse::<felt_core::Money>().ok())
            .unwrap_or(felt_core::Money::cents(500));
        let times = [1, 2, 5][self.rng.gen_range(0..3)];
        let mut side = serde_json::Map::new();
        for b in v["limits"]["side_bets"].as_array().into_iter().flatten() {
            if let (Some(name), Some(min), true) =
                (b["id"].as_str(), b["min"].as_str(), self.rng.gen_bool(0.5))
            {
                side.insert(name.to_string(), json!(min));
            }
        }
        let main = felt_core::Money::cents(min.as_cents() * times);
        json!({
            "type": "bet", "round": r, "id": id,
            "spots": [{"spot": 1, "main": main.to_string(), "side": side}],
        })
    }

    /// The decisions the view asks of this player not yet answered, each with a
    /// random choice (an offer declined), keyed by round, spot, hand and the cards on
    /// the table (a decision asked again after a card is a new one).
    fn decisions(&mut self, v: &Value) -> Vec<((i64, u64, u64, usize), String)> {
        let Some(r) = v["round_id"].as_i64() else {
            return Vec::new();
        };
        let mut out = Vec::new();
        for d in v["you"]["decisions"].as_array().into_iter().flatten() {
            let (Some(offered), false) = (d["choices"].as_array(), d["answered"] == true) else {
                continue;
            };
            let choices: Vec<&str> = offered
                .iter()
                .filter_map(|c| c["decision"].as_str())
                .collect();
            if choices.is_empty() {
                continue;
            }
            let word = if d["offer"] == true && choices.contains(&"decline") {
                "decline"
            } else {
                choices[self.rng.gen_range(0..choices.len())]
            };
            let (spot, hand) = (
                d["spot"].as_u64().unwrap_or(1),
                d["hand"].as_u64().unwrap_or(1),
            );
            out.push(((r, spot, hand, cards_on_table(v)), word.to_string()));
        }
        out
    }
}

/// Whether the player has a stake on the table or on its way: a round dealt, or a
/// bet in (or waiting for the operator) in the betting window.
fn staked(v: &Value) -> bool {
    if v["in_play"] != true {
        return false;
    }
    if v["round"]["phase"] != "betting" {
        return true;
    }
    v["seats"].as_array().into_iter().flatten().any(|s| {
        s["seat"] == v["you"]["seat"] && (s["has_bet"] == true || s["bet_pending"] == true)
    })
}
