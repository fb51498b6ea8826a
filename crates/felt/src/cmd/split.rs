//! `felt split PAIR UP`: the value of splitting a pair against an up card when every
//! decision may depend on every card seen in the round, beside the post-split models.

use crate::exact_arg::{parse_shoe, shoe_text};
use anyhow::{Context, Result};
use felt_math::main_game::{
    hand_evs, optimal_split_within, MainGameRules, OptimalSplit, PostSplit, Shoe, SplitBounds,
    DEFAULT_KEYS_IN_MEMORY, DEFAULT_MAX_STATES, MAX_OPTIMAL_SPLIT_HANDS,
};
use felt_math::mapping::main_game_rules;
use serde::Serialize;
use std::io::Write as _;

/// Arguments of `felt split`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The pair's card: A, 2, ..., 9 or T (any ten-valued card).
    pub pair: String,
    /// The dealer's up card: A, 2, ..., 9 or T.
    pub up: String,
    /// A preset name or the path of a rules file (the table rules; default classic).
    #[arg(long, default_value = "classic")]
    pub game: String,
    /// Decks the round is dealt from (default: the rules file's).
    #[arg(long, conflicts_with = "shoe")]
    pub decks: Option<u8>,
    /// The shoe the round is dealt from, counts of A,2,...,9,T (it still holds the pair
    /// and the up card).
    #[arg(long, value_parser = parse_shoe)]
    pub shoe: Option<Shoe>,
    /// Most states the optimal split may value before it is refused (a bound on
    /// its time: four hands from a full shoe are far past the default).
    #[arg(long, default_value_t = DEFAULT_MAX_STATES)]
    pub max_states: u64,
    /// Most hands the pair may be split into, 2 to 4 (default: the rules').
    #[arg(long)]
    pub hands: Option<u32>,
    /// Most states whose keys wait in memory (16 bytes each) for their level to be
    /// valued; the others wait in a temporary file.
    #[arg(long, default_value_t = DEFAULT_KEYS_IN_MEMORY)]
    pub keys_in_memory: u64,
    /// Worker threads valuing the states (default: every core).
    #[arg(long)]
    pub threads: Option<usize>,
    /// Only count the states the optimal split would value, by the number of
    /// cards dealt in them, without valuing them (within --max-states; the
    /// memory of two such levels).
    #[arg(long)]
    pub count_states: bool,
    /// Print the figures as JSON.
    #[arg(long)]
    pub json: bool,
}

/// What `felt split --count-states` prints.
#[derive(Debug, Serialize)]
pub struct StateCount {
    /// The states the optimal split would value.
    pub states: u64,
    /// Those states by the number of cards dealt in them (the pair and the up
    /// card included): entry `n` counts the states with `n` cards dealt.
    pub states_by_cards: Vec<u64>,
}

/// What `felt split` prints.
#[derive(Debug, Serialize)]
pub struct SplitReport {
    /// The game's id.
    pub game: String,
    /// The pair's card, 1 = ace ..= 10.
    pub pair: u8,
    /// The up card, 1 = ace ..= 10.
    pub up: u8,
    /// The shoe the round is dealt from, A, 2, ..., 9, ten-valued.
    pub shoe: [u32; 10],
    /// Most hands the pair may be split into.
    pub max_hands: u32,
    /// Whether the values are given no dealer blackjack (the dealer peeked).
    pub given_no_blackjack: bool,
    /// Splitting with every decision on every card seen in the round.
    pub optimal: f64,
    /// Splitting under each post-split model: `CDZ-`, `CDP1`, `CDP`.
    pub models: Vec<(&'static str, f64)>,
    /// The best play without splitting.
    pub no_split: f64,
    /// Decision and chance states the optimal split valued.
    pub states: u64,
    /// Those states by the number of cards dealt in them (the pair and the up
    /// card included): entry `n` counts the states with `n` cards dealt.
    pub states_by_cards: Vec<u64>,
    /// States whose keys waited in a temporary file (past --keys-in-memory).
    pub keys_on_disk: u64,
}

/// A card argument: `A`, `2`..`9`, `T` (or `10`, `J`, `Q`, `K`).
fn rank(s: &str) -> Result<u8> {
    match s.to_ascii_uppercase().as_str() {
        "A" | "1" => Ok(1),
        "T" | "10" | "J" | "Q" | "K" => Ok(10),
        d => d
            .parse::<u8>()
            .ok()
            .filter(|v| (2..=9).contains(v))
            .with_context(|| format!("`{s}`: a card is A, 2, ..., 9 or T")),
    }
}

/// The request: the game's id and rules, the shoe, the pair and the up card.
fn request(a: &Args) -> Result<(String, MainGameRules, Shoe, u8, u8)> {
    let (pair, up) = (rank(&a.pair)?, rank(&a.up)?);
    let file = crate::game_arg::load_game(&a.game)?;
    let decks = a.decks.unwrap_or(file.shoe().decks);
    anyhow::ensure!((1..=8).contains(&decks), "--decks {decks}: 1 to 8");
    let mut rules: MainGameRules = main_game_rules(&file, decks).main;
    if let Some(h) = a.hands {
        anyhow::ensure!(
            (2..=MAX_OPTIMAL_SPLIT_HANDS).contains(&h),
            "--hands {h}: 2 to {MAX_OPTIMAL_SPLIT_HANDS}"
        );
        rules.max_split_hands = h;
    }
    let shoe = match a.shoe {
        Some(s) => s,
        None => Shoe::decks(u32::from(decks))?,
    };
    Ok((file.game().id.clone(), rules, shoe, pair, up))
}

/// Counts the states the optimal split would value.
pub fn count(a: &Args) -> Result<StateCount> {
    let (_, rules, shoe, pair, up) = request(a)?;
    let states_by_cards = OptimalSplit::count_states(&rules, &shoe, pair, up, a.max_states)?;
    Ok(StateCount {
        states: states_by_cards.iter().sum(),
        states_by_cards,
    })
}

/// Computes the report.
pub fn report(a: &Args) -> Result<SplitReport> {
    let (game, rules, shoe, pair, up) = request(a)?;
    let bounds = SplitBounds {
        max_states: a.max_states,
        keys_in_memory: a.keys_in_memory,
        ..SplitBounds::default()
    };
    anyhow::ensure!(
        a.threads.is_none_or(|t| (1..=1024).contains(&t)),
        "--threads: give 1 to 1024, or leave it out to use every core"
    );
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(a.threads.unwrap_or(0))
        .build()?;
    let opt = pool.install(|| optimal_split_within(&rules, &shoe, pair, up, bounds))?;
    let mut models = Vec::new();
    let mut no_split = f64::NAN;
    let mut given = false;
    for post in PostSplit::ALL {
        let r = MainGameRules {
            post_split: post,
            ..rules.clone()
        };
        let e = hand_evs(&r, &shoe, &[pair, pair], up)?;
        given = e.conditioned;
        no_split = [Some(e.stand), e.hit, e.double, e.surrender]
            .into_iter()
            .flatten()
            .fold(f64::NEG_INFINITY, f64::max);
        models.push((post.name(), e.split.context("the pair cannot be split")?));
    }
    Ok(SplitReport {
        game,
        pair,
        up,
        shoe: shoe.counts(),
        max_hands: opt.max_hands,
        given_no_blackjack: given,
        optimal: opt.given_no_natural(given),
        models,
        no_split,
        states: opt.states,
        states_by_cards: opt.states_by_cards,
        keys_on_disk: opt.keys_on_disk,
    })
}

fn label(r: u8) -> String {
    match r {
        1 => "A".into(),
        10 => "T".into(),
        v => v.to_string(),
    }
}

/// Prints the split's values.
pub fn run(a: &Args) -> Result<()> {
    let mut out = std::io::stdout().lock();
    if a.count_states {
        let c = count(a)?;
        if a.json {
            writeln!(out, "{}", serde_json::to_string_pretty(&c)?)?;
        } else {
            writeln!(out, "{} states; by cards dealt:", c.states)?;
            for (cards, n) in c.states_by_cards.iter().enumerate().filter(|c| *c.1 > 0) {
                writeln!(out, "  {cards:>3} {n:>12}")?;
            }
        }
        return Ok(());
    }
    let r = report(a)?;
    if a.json {
        writeln!(out, "{}", serde_json::to_string_pretty(&r)?)?;
        return Ok(());
    }
    let (p, u) = (label(r.pair), label(r.up));
    writeln!(
        out,
        "SPLIT {p},{p} v {u}  {}, shoe A-T {}, up to {} hands",
        r.game,
        shoe_text(&r.shoe),
        r.max_hands
    )?;
    writeln!(
        out,
        "Expected value per unit of the initial bet{}:",
        if r.given_no_blackjack {
            ", given the dealer has no blackjack"
        } else {
            " (a dealer blackjack counted in)"
        }
    )?;
    writeln!(
        out,
        "  optimal (every decision on every card seen)  {:+.9}",
        r.optimal
    )?;
    for (name, v) in &r.models {
        writeln!(out, "  {name:<44} {v:+.9}")?;
    }
    writeln!(
        out,
        "  {:<44} {:+.9}",
        "best play without splitting", r.no_split
    )?;
    writeln!(out, "({} states valued; see docs/analysis.md)", r.states)?;
    Ok(())
}
