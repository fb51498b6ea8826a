//! `felt verify`: checks every shoe's commitment against its revealed seed, and the
//! cards the shoe dealt against the order its seed gives.
//!
//! Before a shoe's first card the books publish the SHA-256 of its seed (the
//! commitment); once the shoe is retired they publish the seed. Anyone can then check
//! that the seed hashes to the commitment, that every round of the shoe was seeded from
//! it, and that the cards dealt (burns and hole cards included) are, one after the
//! other, the order the seed shuffles a new shoe into. A shoe still in play shows only
//! its commitment. `felt verify --seed HEX` does the same for a seed a player copied
//! from the screen, without any books.

use anyhow::{bail, Context, Result};
use felt_core::{Card, Event, Shoe};
use felt_session::dealing::{round_seed, shoe_order};
use felt_store::{RoundRecord, RoundStatus, ShoeSeed};
use serde_json::{json, Value};
use std::io::Write as _;

/// Arguments of `felt verify`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Only this shoe (see `felt history`).
    #[arg(long, conflicts_with = "seed")]
    pub shoe: Option<i64>,
    /// Check a revealed seed (64 hex digits) without books: its SHA-256, and the
    /// order it shuffles a new shoe into.
    #[arg(long)]
    pub seed: Option<String>,
    /// With --seed: the commitment (64 hex digits) published before the shoe's first
    /// card, to check the seed against.
    #[arg(long, requires = "seed")]
    pub commitment: Option<String>,
    /// With --seed: the decks of the shoe.
    #[arg(long, requires = "seed", default_value_t = 6, value_parser = clap::value_parser!(u8).range(1..=8))]
    pub decks: u8,
    /// Print JSON instead of text.
    #[arg(long)]
    pub json: bool,
    /// The books (an SQLite file). Default: $FELT_DB, else felt.db in the user's data
    /// directory.
    #[arg(long)]
    pub db: Option<String>,
}

/// What was found of one shoe.
struct ShoeCheck {
    shoe: ShoeSeed,
    rounds: usize,
    /// Cards of the shoe checked against its seed's order.
    cards_checked: usize,
    /// What does not hold; empty when everything does.
    problems: Vec<String>,
    /// Why the order was not checked, if it was not.
    unchecked: Option<String>,
}

/// Runs the check.
pub fn run(a: &Args) -> Result<()> {
    let mut out = std::io::stdout().lock();
    if let Some(hex) = &a.seed {
        return seed_only(&mut out, hex, a.commitment.as_deref(), a.decks, a.json);
    }
    let (_, store) = crate::cmd::books::open_books(a.db.as_deref())?;
    let store = store.as_ref();
    let shoes: Vec<ShoeSeed> = store
        .shoe_seeds()?
        .into_iter()
        .filter(|s| a.shoe.is_none_or(|id| s.id == id))
        .collect();
    if let Some(id) = a.shoe {
        if shoes.is_empty() {
            bail!("there is no shoe {id} in the books: `felt verify` lists them all");
        }
    }
    let mut checks = Vec::with_capacity(shoes.len());
    for shoe in shoes {
        let rounds = store.rounds_of_shoe(shoe.id)?;
        checks.push(check_shoe(shoe, &rounds));
    }
    let bad = checks.iter().filter(|c| !c.problems.is_empty()).count();
    if a.json {
        let v: Vec<Value> = checks.iter().map(check_json).collect();
        writeln!(out, "{}", serde_json::to_string_pretty(&v)?)?;
    } else {
        if checks.is_empty() {
            writeln!(out, "No shoe in the books yet.")?;
        }
        for c in &checks {
            for line in check_lines(c) {
                writeln!(out, "{line}")?;
            }
        }
        let retired = checks.iter().filter(|c| c.shoe.is_retired()).count();
        writeln!(
            out,
            "{} shoe(s): {retired} retired and checked, {} in play (seed secret), {bad} with a \
             problem.",
            checks.len(),
            checks.len() - retired
        )?;
    }
    if bad > 0 {
        bail!("{bad} shoe(s) do not match their commitment or their seed");
    }
    Ok(())
}

fn hex(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}

fn parse_hex32(what: &str, text: &str) -> Result<[u8; 32]> {
    let t = text.trim();
    if t.len() != 64 || !t.bytes().all(|b| b.is_ascii_hexdigit()) {
        bail!("{what} must be 64 hexadecimal digits (32 bytes), got `{t}`");
    }
    let mut out = [0u8; 32];
    for (i, o) in out.iter_mut().enumerate() {
        *o = u8::from_str_radix(&t[2 * i..2 * i + 2], 16)
            .with_context(|| format!("{what}: `{t}`"))?;
    }
    Ok(out)
}

/// `felt verify --seed HEX [--commitment HEX] [--decks N]`.
fn seed_only(
    out: &mut impl std::io::Write,
    seed_hex: &str,
    commitment: Option<&str>,
    decks: u8,
    as_json: bool,
) -> Result<()> {
    let seed = parse_hex32("--seed", seed_hex)?;
    let hash = felt_store::seed_hash(&seed);
    let holds = match commitment {
        Some(c) => Some(parse_hex32("--commitment", c).map(|c| hex(&c) == hash)?),
        None => None,
    };
    let order: Vec<String> = shoe_order(decks, &seed)
        .into_iter()
        .map(|c| c.to_string())
        .collect();
    if as_json {
        let v = json!({
            "seed_sha256": hash,
            "commitment_holds": holds,
            "decks": decks,
            "order": order,
        });
        writeln!(out, "{}", serde_json::to_string_pretty(&v)?)?;
    } else {
        writeln!(out, "SHA-256 of the seed: {hash}")?;
        match holds {
            Some(true) => writeln!(out, "It matches the commitment.")?,
            Some(false) => writeln!(out, "It does NOT match the commitment.")?,
            None => {}
        }
        writeln!(
            out,
            "The order it shuffles a new {decks}-deck shoe into (burns and hole cards \
             included, first card first):"
        )?;
        for chunk in order.chunks(26) {
            writeln!(out, "  {}", chunk.join(" "))?;
        }
    }
    if holds == Some(false) {
        bail!("the seed does not match the commitment");
    }
    Ok(())
}

/// The cards a stored round took from the shoe, in order, as its events name them;
/// `None` once the rack was reshuffled (later cards follow the rack's order, not the
/// seed's). Events that cannot be read are a problem of the round.
fn dealt_cards(rec: &RoundRecord, problems: &mut Vec<String>) -> (Vec<Card>, bool) {
    use felt_core::round::ShuffleWhy;
    let mut cards = Vec::new();
    for e in &rec.events {
        match serde_json::from_str::<Event>(&e.json) {
            Ok(Event::Shuffled {
                why: ShuffleWhy::RackReshuffled,
                ..
            }) => return (cards, true),
            Ok(Event::Dealt { card, .. } | Event::Burned { card, .. }) => cards.push(card),
            Ok(_) => {}
            Err(err) => problems.push(format!(
                "round {} event {}: unreadable ({err})",
                rec.id, e.seq
            )),
        }
    }
    (cards, false)
}

fn check_shoe(shoe: ShoeSeed, rounds: &[RoundRecord]) -> ShoeCheck {
    let mut c = ShoeCheck {
        rounds: rounds.len(),
        cards_checked: 0,
        problems: Vec::new(),
        unchecked: None,
        shoe,
    };
    let Some(seed) = c.shoe.revealed() else {
        c.unchecked = Some("the shoe is in play: its seed is secret until it is retired".into());
        return c;
    };
    if !c.shoe.commitment_holds() {
        c.problems.push(format!(
            "its seed's SHA-256 is {}, not the commitment {}",
            felt_store::seed_hash(&seed),
            c.shoe.commitment
        ));
    }
    for (k, rec) in rounds.iter().enumerate() {
        if rec.shoe_round != Some(k as u32) {
            c.problems.push(format!(
                "round {} is stored as round {:?} of the shoe, but is its round {k}",
                rec.id, rec.shoe_round
            ));
        }
        if rec.seed != round_seed(&seed, k as u32) {
            c.problems.push(format!(
                "round {}'s seed is not the one the shoe's seed gives its round {k}",
                rec.id
            ));
        }
        if rec.status == RoundStatus::Open {
            c.problems
                .push(format!("round {} of a retired shoe is still open", rec.id));
        }
    }
    if c.shoe.lab.as_deref().is_some_and(|l| l.contains("--shoe")) {
        c.unchecked = Some("a stacked shoe: its first cards were chosen by a test lab".into());
        return c;
    }
    let decks = rounds
        .first()
        .and_then(|r| r.shoe_before.as_deref())
        .and_then(|b| Shoe::from_bytes(b).ok())
        .map(|s| s.decks());
    let Some(decks) = decks else {
        if !rounds.is_empty() {
            c.problems
                .push("its first round holds no readable shoe".to_string());
        }
        return c;
    };
    let order = shoe_order(decks, &seed);
    let mut at = 0usize;
    for rec in rounds {
        let (cards, reshuffled) = dealt_cards(rec, &mut c.problems);
        for card in cards {
            match order.get(at) {
                Some(want) if *want == card => {}
                Some(want) => {
                    c.problems.push(format!(
                        "card {} of the shoe (round {}) was {card}, but the seed's order has {want}",
                        at + 1,
                        rec.id
                    ));
                    return c;
                }
                None => {
                    c.problems.push(format!(
                        "round {} dealt more cards than the shoe holds",
                        rec.id
                    ));
                    return c;
                }
            }
            at += 1;
        }
        c.cards_checked = at;
        if reshuffled {
            c.unchecked = Some(format!(
                "the rack was reshuffled in round {}: the cards after it follow the rack",
                rec.id
            ));
            break;
        }
    }
    c
}

fn check_json(c: &ShoeCheck) -> Value {
    json!({
        "shoe": c.shoe.id,
        "table": c.shoe.table_id,
        "commitment": c.shoe.commitment,
        "committed_at": c.shoe.committed_at,
        "retired_at": c.shoe.retired_at,
        "seed": c.shoe.revealed().map(|s| hex(&s)),
        "lab": c.shoe.lab,
        "rounds": c.rounds,
        "cards_checked": c.cards_checked,
        "sound": c.problems.is_empty(),
        "problems": c.problems,
        "not_checked": c.unchecked,
    })
}

fn check_lines(c: &ShoeCheck) -> Vec<String> {
    let s = &c.shoe;
    let mut out = vec![format!(
        "Shoe {} (table {}, {} round(s){}): commitment {} published {}",
        s.id,
        s.table_id,
        c.rounds,
        s.lab.as_deref().map_or(String::new(), |l| format!(", {l}")),
        s.commitment,
        s.committed_at
    )];
    match s.revealed() {
        None => out.push("  in play: its seed is kept secret until it is retired".to_string()),
        Some(seed) => {
            out.push(format!(
                "  retired {}; seed {}",
                s.retired_at.as_deref().unwrap_or("?"),
                hex(&seed)
            ));
            if c.problems.is_empty() {
                out.push(format!(
                    "  the seed matches the commitment; every round's seed derives from it; the \
                     {} card(s) dealt are the seed's order, card for card",
                    c.cards_checked
                ));
            }
        }
    }
    if let Some(u) = &c.unchecked {
        if s.is_retired() {
            out.push(format!("  not checked further: {u}"));
        }
    }
    for p in &c.problems {
        out.push(format!("  PROBLEM: {p}"));
    }
    out
}
