//! `felt history [--last N]`: past rounds, newest first, with their cards, actions,
//! wagers and results, as a player may see them. Each shows the shoe it was dealt from
//! and that shoe's commitment (the SHA-256 of its seed, published before its first
//! card); the seed, and the cards that were never turned (burns, an unturned hole
//! card), only once the shoe is retired, when no card of it will be dealt again.

use anyhow::Result;
use felt_core::{Action, Card, Decision, Money};
use felt_session::journal::{setup_of, StepAction};
use felt_session::recall::{self, Seen};
use felt_store::RoundRecord;
use serde_json::Value;
use std::io::Write as _;

/// Arguments of `felt history`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// How many rounds (the newest), 1 or more.
    #[arg(long, default_value_t = 20)]
    pub last: usize,
    /// Print JSON instead of text.
    #[arg(long)]
    pub json: bool,
    /// The books (an SQLite file). Default: $FELT_DB, else felt.db in the user's data
    /// directory.
    #[arg(long)]
    pub db: Option<String>,
}

/// Lists the rounds.
pub fn run(a: &Args) -> Result<()> {
    let mut out = std::io::stdout().lock();
    anyhow::ensure!(a.last > 0, "--last 0: give 1 or more rounds");
    let (_, store) = crate::cmd::books::open_books(a.db.as_deref())?;
    let store = store.as_ref();
    let rounds = store.history(a.last)?;
    if a.json {
        let v: Vec<Value> = rounds.iter().map(round_json).collect();
        writeln!(out, "{}", serde_json::to_string_pretty(&v)?)?;
        return Ok(());
    }
    if rounds.is_empty() {
        writeln!(out, "No round in the books yet.")?;
    }
    for r in &rounds {
        // The side bets' names come from the rules the round was played under.
        let side_ids: Vec<String> = crate::game_arg::round_ctx(store, r, None)
            .map(|c| c.rules.side_bets().iter().map(|b| b.id.clone()).collect())
            .unwrap_or_default();
        for line in round_lines(r, &side_ids) {
            writeln!(out, "{line}")?;
        }
        writeln!(out)?;
    }
    Ok(())
}

fn hex(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}

/// The round's seed as shown: only once everything of the round may be
/// ([`recall::seed`]).
fn shown_seed(r: &RoundRecord) -> Option<String> {
    recall::seed(r).map(|s| hex(&s))
}

fn shoe_json(r: &RoundRecord) -> Value {
    match &r.shoe {
        None => Value::Null,
        Some(s) => serde_json::json!({
            "id": s.id,
            "commitment": s.commitment,
            "committed_at": s.committed_at,
            "retired_at": s.retired_at,
            "seed": s.revealed().map(|b| hex(&b)),
            "lab": s.lab,
        }),
    }
}

fn round_json(r: &RoundRecord) -> Value {
    // A player sees each event's public form (a face-down card without its value)
    // until the shoe is retired: the rule of every front end (`recall`).
    let events: Vec<Value> = recall::events(r)
        .into_iter()
        .map(|e| match e {
            Seen::Event(ev) => serde_json::to_value(ev).unwrap_or(Value::Null),
            // Its text is not shown: it could hold a card (`felt replay` names it).
            Seen::Unreadable { seq } => serde_json::json!({ "event": "unreadable", "seq": seq }),
        })
        .collect();
    let actions: Vec<Value> = r
        .steps
        .iter()
        .filter_map(|s| s.action.as_deref())
        .filter_map(|a| serde_json::from_str(a).ok())
        .collect();
    serde_json::json!({
        "id": r.id,
        "game": r.game_id,
        "table": r.table_id,
        "status": r.status,
        "started_at": r.started_at,
        "ended_at": r.ended_at,
        "shoe": shoe_json(r),
        "round_in_shoe": r.shoe_round,
        "lab": r.lab,
        "rules_sha256": r.rules_sha256,
        "seed_sha256": r.seed_sha256,
        "seed": shown_seed(r),
        "void_reason": r.void_reason,
        "result": r.result.as_deref().and_then(|t| serde_json::from_str::<Value>(t).ok()),
        "actions": actions,
        "events": events,
        "movements": r.movements,
    })
}

fn money(v: &Value) -> Money {
    serde_json::from_value(v.clone()).unwrap_or_default()
}

fn place(v: &Value) -> String {
    let n = |k: &str| v[k].as_u64().unwrap_or(0) + 1;
    format!("seat {} spot {} hand {}", n("seat"), n("spot"), n("hand"))
}

fn bet(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        Value::Object(o) => o
            .get("side")
            .and_then(Value::as_str)
            .map_or_else(|| v.to_string(), str::to_string),
        other => other.to_string(),
    }
}

/// An action as a line reads it; `side_ids` names the side bets by their index.
fn action_text(a: &Action, side_ids: &[String]) -> String {
    match a {
        Action::Bet { seat, spot, amount } => {
            format!("seat {} spot {} bets {amount}", seat + 1, spot + 1)
        }
        Action::SideBet {
            seat,
            spot,
            bet,
            amount,
        } => match side_ids.get(usize::from(*bet)) {
            Some(id) => format!("seat {} spot {} {id} {amount}", seat + 1, spot + 1),
            None => format!(
                "seat {} spot {} side bet #{} {amount}",
                seat + 1,
                spot + 1,
                bet + 1
            ),
        },
        Action::Withdraw { seat, spot } => format!("seat {} spot {} withdraws", seat + 1, spot + 1),
        Action::Deal => "deal".to_string(),
        Action::Play { seat, at, decision } => {
            let d = match decision {
                Decision::Hit => "hit".to_string(),
                Decision::Stand => "stand".to_string(),
                Decision::Double(m) => format!("double {m}"),
                Decision::Split => "split".to_string(),
                Decision::Surrender => "surrender".to_string(),
                Decision::Insure(m) => format!("insurance {m}"),
                Decision::EvenMoney => "even money".to_string(),
                Decision::Decline => "no thanks".to_string(),
            };
            match at {
                Some(h) => format!("seat {} {h}: {d}", seat + 1),
                None => format!("seat {}: {d}", seat + 1),
            }
        }
        Action::Timeout { seat, at } => match at {
            Some(h) => format!("seat {} {h}: timed out", seat + 1),
            None => format!("seat {}: timed out", seat + 1),
        },
    }
}

fn round_lines(r: &RoundRecord, side_ids: &[String]) -> Vec<String> {
    let mut out = Vec::new();
    out.push(format!(
        "Round {}  {}  table {}  {}  {}{}",
        r.id,
        r.game_id,
        r.table_id,
        r.status,
        r.started_at,
        r.ended_at
            .as_deref()
            .map_or(String::new(), |e| format!(" .. {e}"))
    ));
    match &r.shoe {
        Some(shoe) => {
            out.push(format!(
                "  shoe {} (its round {}), commitment: seed SHA-256 {}",
                shoe.id,
                r.shoe_round.map_or(0, |n| n + 1),
                shoe.commitment
            ));
            match shoe.revealed() {
                Some(seed) => out.push(format!(
                    "  shoe seed {} (retired {}; `felt verify` checks it)",
                    hex(&seed),
                    shoe.retired_at.as_deref().unwrap_or("?")
                )),
                None => out.push("  shoe seed: kept secret until the shoe is retired".to_string()),
            }
        }
        None => {
            out.push(format!("  seed SHA-256 {}", r.seed_sha256));
            match shown_seed(r) {
                Some(s) => out.push(format!("  seed {s}")),
                None => out.push("  seed: kept secret until the round has finished".to_string()),
            }
        }
    }
    if let Some(lab) = &r.lab {
        out.push(format!(
            "  TEST LAB ROUND ({lab}): not dealt from the operating system's entropy"
        ));
    }
    if let Ok(Some(setup)) = setup_of(r) {
        let who: Vec<String> = setup
            .players
            .iter()
            .zip(&setup.balances)
            .enumerate()
            .map(|(i, (p, b))| format!("seat {} {p} ({b})", i + 1))
            .collect();
        out.push(format!("  players: {}", who.join(", ")));
    }
    let actions: Vec<String> = r
        .steps
        .iter()
        .filter_map(|s| s.action.as_deref())
        .filter_map(|a| match serde_json::from_str::<StepAction>(a) {
            Ok(StepAction::Setup(_)) => None,
            Ok(step) => Some(
                step.actions()
                    .iter()
                    .map(|a| action_text(a, side_ids))
                    .collect::<Vec<_>>()
                    .join(", "),
            ),
            Err(_) => Some(format!("(unreadable: {a})")),
        })
        .collect();
    if !actions.is_empty() {
        out.push(format!("  actions: {}", actions.join("; ")));
    }
    // Cards, by hand, in the order dealt.
    let mut hands: Vec<(String, Vec<String>)> = Vec::new();
    let mut wagers = Vec::new();
    let mut results = Vec::new();
    // As a player may see them: a face-down card has no value until its shoe retires.
    for e in recall::events(r).into_iter().filter_map(|e| match e {
        Seen::Event(ev) => serde_json::to_value(ev).ok(),
        Seen::Unreadable { .. } => None,
    }) {
        match e["event"].as_str() {
            Some("dealt") => {
                let who = if e["to"]["who"] == "dealer" {
                    "dealer".to_string()
                } else {
                    place(&e["to"])
                };
                let card = match serde_json::from_value::<Card>(e["card"].clone()) {
                    Ok(c) => c.pretty(),
                    Err(_) if e["face_up"] == false => "[hole]".to_string(),
                    Err(_) => "?".to_string(),
                };
                match hands.iter_mut().find(|(w, _)| *w == who) {
                    Some((_, cs)) => cs.push(card),
                    None => hands.push((who, vec![card])),
                }
            }
            Some("hole-card-turned") => {
                let card = serde_json::from_value::<Card>(e["card"].clone())
                    .map_or_else(|_| "?".to_string(), Card::pretty);
                if let Some((_, cs)) = hands.iter_mut().find(|(w, _)| w == "dealer") {
                    if let Some(slot) = cs.iter_mut().find(|c| *c == "[hole]") {
                        *slot = card;
                    }
                }
            }
            Some("moved") if e["why"] == "wager" => {
                wagers.push(format!(
                    "{} {} {}",
                    place(&e["at"]),
                    bet(&e["bet"]),
                    money(&e["amount"])
                ));
            }
            Some("settled") => {
                let net = money(&e["returned"]) - money(&e["stake"]);
                let sign = if net >= Money::ZERO { "+" } else { "" };
                results.push(format!(
                    "{} {} {}{} {sign}{net}",
                    place(&e["at"]),
                    bet(&e["bet"]),
                    e["outcome"].as_str().unwrap_or("?"),
                    e["line"]
                        .as_str()
                        .map_or(String::new(), |l| format!(" ({l})")),
                ));
            }
            _ => {}
        }
    }
    if !hands.is_empty() {
        let h: Vec<String> = hands
            .iter()
            .map(|(w, cs)| format!("{w}: {}", cs.join(" ")))
            .collect();
        out.push(format!("  cards: {}", h.join(" | ")));
    }
    if !wagers.is_empty() {
        out.push(format!("  wagers: {}", wagers.join("; ")));
    }
    if !results.is_empty() {
        out.push(format!("  results: {}", results.join("; ")));
    }
    if let Some(reason) = &r.void_reason {
        out.push(format!("  void: {reason}"));
    }
    let mut players: Vec<felt_store::Account> = Vec::new();
    for m in &r.movements {
        for a in [&m.movement.from, &m.movement.to] {
            if matches!(a, felt_store::Account::Player(_)) && !players.contains(a) {
                players.push(a.clone());
            }
        }
    }
    if !players.is_empty() {
        let nets: Vec<String> = players
            .iter()
            .map(|p| {
                let n = r.net_for(p);
                let sign = if n >= Money::ZERO { "+" } else { "" };
                format!("{} {sign}{n}", p.name())
            })
            .collect();
        out.push(format!("  net: {}", nets.join(", ")));
    }
    out
}
