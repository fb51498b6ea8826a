//! `felt strategy NAME|FILE`: the computed basic strategy chart, with a legend, the
//! plays after a split that differ from it, each cell's expected values (`--ev`) and
//! all of it as JSON (`--json`).

use crate::exact_arg::{shoe_text, ExactArgs};
use anyhow::Result;
use felt_core::rules::Surrender;
use felt_math::hint::{peeks_under, values};
use felt_math::main_game::{
    analyse_shoe, Action, BasicStrategy, Cell, HandKind, MainGameAnalysis, PostSplitDifference,
};
use felt_math::mapping::main_game_rules;
use serde_json::{json, Value};
use std::fmt::Write as _;
use std::io::Write as _;

/// Arguments of `felt strategy`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// A preset name (see `felt games`) or the path of a rules file.
    pub game: String,
    /// The shoe (default: the rules file's decks) and the post-split model of the
    /// composition-dependent split values printed with `--post-split`.
    #[command(flatten)]
    pub exact: ExactArgs,
    /// Also print each cell's expected values: `given-no-blackjack` (the default, as
    /// published tables give them: under a card the dealer peeks under, the values once
    /// the dealer is known to have no blackjack) or `before-peek` (a dealer blackjack
    /// counted in, as it costs the initial bet).
    #[arg(long, value_enum, num_args = 0..=1, default_missing_value = "given-no-blackjack")]
    pub ev: Option<EvBasis>,
    /// Print the chart, the expected values (both bases) and the after-split plays as
    /// JSON.
    #[arg(long)]
    pub json: bool,
}

/// On what the expected values are conditioned.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum EvBasis {
    /// Given the dealer has no blackjack, under the cards the dealer peeks under.
    GivenNoBlackjack,
    /// Before the peek: a dealer blackjack counted in.
    BeforePeek,
}

/// Up cards in chart order, 1 = ace.
const UPS: [u8; 10] = [2, 3, 4, 5, 6, 7, 8, 9, 10, 1];

/// The chart's codes and what they mean.
const LEGEND: [(&str, &str); 8] = [
    ("S", "stand"),
    ("H", "hit"),
    ("P", "split"),
    ("Dh", "double, else hit"),
    ("Ds", "double, else stand"),
    ("Rh", "surrender, else hit"),
    ("Rs", "surrender, else stand"),
    ("Rp", "surrender, else split"),
];

fn up_label(up: u8) -> String {
    match up {
        1 => "A".into(),
        10 => "T".into(),
        u => u.to_string(),
    }
}

pub(crate) fn action_word(a: Action) -> &'static str {
    a.word()
}

/// The rows of the chart: (kind, total or pair card, label). Hard 5 to 20 (hard 4 is
/// only 2,2 and 21 stands by itself), soft 13 to 20 (soft 12 is only A,A; soft 21 only
/// where the rules let it be hit), and the pairs.
fn rows(hit_soft_21: bool) -> Vec<(HandKind, u8, String)> {
    let soft_top = if hit_soft_21 { 21 } else { 20 };
    let cells = (5..=20)
        .map(|t| (HandKind::Hard, t))
        .chain((13..=soft_top).map(|t| (HandKind::Soft, t)))
        .chain((1..=10).map(|c| (HandKind::Pair, c)));
    cells.map(|(k, t)| (k, t, row_label(k, t))).collect()
}

fn kind_word(kind: HandKind) -> &'static str {
    match kind {
        HandKind::Hard => "hard",
        HandKind::Soft => "soft",
        HandKind::Pair => "pair",
    }
}

/// A row's label in the chart: `16`, `A,7`, `8,8`.
fn row_label(kind: HandKind, t: u8) -> String {
    match kind {
        HandKind::Hard => format!("{t}"),
        HandKind::Soft => format!("A,{}", up_label(t.saturating_sub(11))),
        HandKind::Pair => format!("{0},{0}", up_label(t)),
    }
}

/// A row's name in words: `hard 16`, `soft 18`, `8,8`.
pub(crate) fn row_name(kind: HandKind, t: u8) -> String {
    match kind {
        HandKind::Hard => format!("hard {t}"),
        HandKind::Soft => format!("soft {t}"),
        HandKind::Pair => format!("{0},{0}", up_label(t)),
    }
}

/// The chart, its legend and the after-split plays as text.
fn chart(s: &BasicStrategy, hit_soft_21: bool) -> Result<String> {
    let mut o = String::new();
    let header = |o: &mut String, title: &str| {
        let _ = write!(o, "{title:<8}");
        for up in UPS {
            let _ = write!(o, "{:>4}", up_label(up));
        }
        o.push('\n');
    };
    let mut codes_used: Vec<String> = Vec::new();
    let mut last_kind = None;
    for (kind, t, label) in rows(hit_soft_21) {
        if last_kind != Some(kind) {
            header(&mut o, kind_word(kind));
            last_kind = Some(kind);
        }
        let _ = write!(o, "{label:<8}");
        for up in UPS {
            let c = s.cell(kind, t, up)?.code();
            let _ = write!(o, "{c:>4}");
            if !codes_used.contains(&c) {
                codes_used.push(c);
            }
        }
        o.push('\n');
    }
    o.push('\n');
    let used = |c: &str| codes_used.iter().any(|u| u == c);
    let family = |codes: &[(&str, &str)]| -> Vec<String> {
        codes
            .iter()
            .filter(|(c, _)| used(c))
            .map(|(c, w)| format!("{c} {w}"))
            .collect()
    };
    let mut lines = Vec::new();
    let plain = family(&[("S", "stand"), ("H", "hit"), ("P", "split")]);
    if !plain.is_empty() {
        lines.push(plain.join(", "));
    }
    let d = family(&[("Dh", "hit"), ("Ds", "stand")]);
    if !d.is_empty() {
        lines.push(format!("D double, else: {}", d.join(", ")));
    }
    let r = family(&[("Rh", "hit"), ("Rs", "stand"), ("Rp", "split")]);
    if !r.is_empty() {
        lines.push(format!("R surrender, else: {}", r.join(", ")));
    }
    for (i, l) in lines.iter().enumerate() {
        let _ = writeln!(o, "{:<8}{l}", if i == 0 { "Legend:" } else { "" });
    }
    if !(d.is_empty() && r.is_empty()) {
        let _ = writeln!(
            o,
            "        (\"else\": where the first is not offered, e.g. on three or more cards)"
        );
    }
    let _ = writeln!(
        o,
        "Soft hands: A,x (A,7 is soft 18). Three or more cards: the row of the total."
    );
    o.push('\n');
    o.push_str(&after_split(s.post_split_differences()));
    Ok(o)
}

/// `2,3,4,6` as `2-4,6`, in chart order (2 .. T, A).
fn up_ranges(ups: &[u8]) -> String {
    let pos = |u: u8| UPS.iter().position(|&x| x == u).unwrap_or(0);
    let mut idx: Vec<usize> = ups.iter().map(|&u| pos(u)).collect();
    idx.sort_unstable();
    idx.dedup();
    let mut parts = Vec::new();
    let mut i = 0;
    while i < idx.len() {
        let mut j = i;
        while j + 1 < idx.len() && idx[j + 1] == idx[j] + 1 {
            j += 1;
        }
        let (a, b) = (up_label(UPS[idx[i]]), up_label(UPS[idx[j]]));
        parts.push(match j - i {
            0 => a,
            1 => format!("{a},{b}"),
            _ => format!("{a}-{b}"),
        });
        i = j + 1;
    }
    parts.join(",")
}

/// The plays after a split that differ from the chart, grouped by why: one line per
/// cell (or run of cells played alike), each play with the up cards it is made
/// against.
fn after_split(diffs: &[PostSplitDifference]) -> String {
    let mut o = String::from("After a split, where the play differs from the chart:\n");
    if diffs.is_empty() {
        o.push_str("  none: every hand after a split is played as the chart shows\n");
        return o;
    }
    // Per reason, per cell: (play after, up cards in chart order).
    type Plays = Vec<(Action, Vec<u8>)>;
    type Cells = Vec<((HandKind, u8), Plays)>;
    let mut reasons: Vec<(String, Cells)> = Vec::new();
    for d in diffs {
        let why = d.reason.describe();
        let at = match reasons.iter().position(|(w, _)| *w == why) {
            Some(i) => i,
            None => {
                reasons.push((why, Vec::new()));
                reasons.len() - 1
            }
        };
        let cells = &mut reasons[at].1;
        let key = (d.kind, d.total_or_rank);
        let ci = match cells.iter().position(|(k, _)| *k == key) {
            Some(i) => i,
            None => {
                cells.push((key, Vec::new()));
                cells.len() - 1
            }
        };
        let plays = &mut cells[ci].1;
        match plays.iter_mut().find(|(a, _)| *a == d.after) {
            Some((_, ups)) => ups.push(d.up),
            None => plays.push((d.after, vec![d.up])),
        }
    }
    let order = |u: &u8| UPS.iter().position(|x| x == u).unwrap_or(0);
    for (why, cells) in &mut reasons {
        for (_, plays) in cells.iter_mut() {
            for (_, ups) in plays.iter_mut() {
                ups.sort_by_key(order);
            }
            plays.sort_by_key(|(_, ups)| ups.first().map(order));
        }
        let _ = writeln!(o, "  {why}:");
        let mut i = 0;
        while i < cells.len() {
            let ((kind, first), plays) = &cells[i];
            let mut j = i;
            while j + 1 < cells.len() {
                let ((k2, t2), p2) = &cells[j + 1];
                if *k2 != *kind
                    || *kind == HandKind::Pair
                    || *t2 != cells[j].0 .1 + 1
                    || p2 != plays
                {
                    break;
                }
                j += 1;
            }
            let last = cells[j].0 .1;
            let name = match kind {
                HandKind::Pair => row_name(*kind, *first),
                _ if j > i => format!("{} {first}-{last}", kind_word(*kind)),
                _ => format!("{} {first}", kind_word(*kind)),
            };
            let plays: Vec<String> = plays
                .iter()
                .map(|(a, ups)| format!("{} v {}", action_word(*a), up_ranges(ups)))
                .collect();
            let _ = writeln!(o, "    {name:<11} {}", plays.join("; "));
            i = j + 1;
        }
    }
    o
}

/// The expected values as blocks of at most 80 columns: per hand, the chart's play,
/// then a line per action, a column per up card.
fn ev_chart(s: &BasicStrategy, rules: &felt_core::Rules, basis: EvBasis) -> Result<String> {
    let peek = rules.dealer().peek;
    let early = rules.player().surrender == Surrender::Early;
    let mut o = String::new();
    let peeked: Vec<String> = UPS
        .iter()
        .filter(|&&u| peeks_under(peek, u))
        .map(|&u| up_label(u))
        .collect();
    let _ = writeln!(
        o,
        "Expected values per unit of the initial bet; `play`: the chart's play."
    );
    match basis {
        EvBasis::GivenNoBlackjack if !peeked.is_empty() => {
            let _ = writeln!(
                o,
                "Under {}: given the dealer has no blackjack (the dealer peeks first, so a\n\
                 player deciding knows it), as published tables give them. `--ev before-peek`\n\
                 counts a dealer blackjack in (the initial bet lost).",
                peeked.join(" and ")
            );
        }
        EvBasis::GivenNoBlackjack => {
            let _ = writeln!(
                o,
                "The dealer does not peek in this game: every value counts a dealer blackjack\n\
                 in, as it is found when the hole card is turned."
            );
        }
        EvBasis::BeforePeek => {
            let _ = writeln!(
                o,
                "Before the peek: a dealer blackjack counted in (the initial bet lost).\n\
                 `--ev` alone gives the values given no dealer blackjack, as published."
            );
        }
    }
    if early {
        let _ = writeln!(
            o,
            "Early surrender is before the peek: -0.500 on either basis."
        );
    }
    for (kind, t, _) in rows(rules.player().hit_soft_21) {
        o.push('\n');
        let _ = write!(o, "{:<10}", row_name(kind, t));
        for up in UPS {
            let _ = write!(o, " {:>6}", up_label(up));
        }
        let _ = writeln!(o);
        let cells: Vec<&Cell> = UPS
            .iter()
            .map(|&up| s.cell(kind, t, up))
            .collect::<Result<_, _>>()?;
        let _ = write!(o, "{:<10}", "play");
        for c in &cells {
            let _ = write!(o, " {:>6}", c.code());
        }
        let _ = writeln!(o);
        let cols: Vec<Vec<(Action, f64)>> = UPS
            .iter()
            .zip(&cells)
            .map(|(&up, cell)| {
                let given = basis == EvBasis::GivenNoBlackjack && peeks_under(peek, up);
                values(cell, given, early)
            })
            .collect();
        for action in [
            Action::Stand,
            Action::Hit,
            Action::Double,
            Action::Split,
            Action::Surrender,
        ] {
            if cols.iter().all(|v| v.iter().all(|(a, _)| *a != action)) {
                continue;
            }
            let _ = write!(o, "{:<10}", action_word(action));
            for v in &cols {
                match v.iter().find(|(a, _)| *a == action) {
                    Some((_, x)) => {
                        let _ = write!(o, " {x:>+6.3}");
                    }
                    None => {
                        let _ = write!(o, " {:>6}", "-");
                    }
                }
            }
            o.push('\n');
        }
    }
    Ok(o)
}

/// Everything as JSON: the chart, both bases of every cell's values, the legend and
/// the after-split plays.
fn to_json(
    a: &MainGameAnalysis,
    rules: &felt_core::Rules,
    decks: u8,
    exact: &ExactArgs,
) -> Result<Value> {
    let s = &a.basic_strategy;
    let peek = rules.dealer().peek;
    let early = rules.player().surrender == Surrender::Early;
    let obj = |v: Vec<(Action, f64)>| -> Value {
        Value::Object(
            v.into_iter()
                .map(|(a, x)| (action_word(a).to_string(), json!(x)))
                .collect(),
        )
    };
    let mut cells = Vec::new();
    let mut chart: Vec<Value> = Vec::new();
    for (kind, t, label) in rows(rules.player().hit_soft_21) {
        let mut plays = Vec::new();
        for up in UPS {
            let cell = s.cell(kind, t, up)?;
            let c = cell.code();
            let peeked = peeks_under(peek, up);
            cells.push(json!({
                "kind": kind_word(kind),
                "row": label,
                "total": (kind != HandKind::Pair).then_some(t),
                "up": up_label(up),
                "play": c,
                "ranking": cell.ranking().iter().map(|a| action_word(*a)).collect::<Vec<_>>(),
                "dealer_peeks": peeked,
                "dealer_blackjack_probability": cell.dealer_natural,
                "ev_given_no_blackjack": if peeked { obj(values(cell, true, early)) } else { Value::Null },
                "ev_before_peek": obj(values(cell, false, early)),
            }));
            plays.push(c);
        }
        chart.push(json!({ "kind": kind_word(kind), "row": label, "plays": plays }));
    }
    let after: Vec<Value> = s
        .post_split_differences()
        .iter()
        .map(|d| {
            json!({
                "kind": kind_word(d.kind),
                "row": row_label(d.kind, d.total_or_rank),
                "up": up_label(d.up),
                "chart_play": action_word(d.before),
                "play_after_split": action_word(d.after),
                "why": d.reason.describe(),
            })
        })
        .collect();
    Ok(json!({
        "game": rules.game().id,
        "name": rules.game().name,
        "decks": decks,
        "shoe": exact.shoe.map(|s| s.counts()),
        "post_split": exact.input().post_split.name(),
        "split_cd": split_cd_rows(a),
        "up_cards": UPS.iter().map(|&u| up_label(u)).collect::<Vec<_>>(),
        "legend": LEGEND.iter().map(|(c, w)| json!({"code": c, "means": w})).collect::<Vec<_>>(),
        "chart": chart,
        "cells": cells,
        "after_split": after,
    }))
}

/// Prints the chart (and the EVs with `--ev`, or everything as JSON).
pub fn run(a: &Args) -> Result<()> {
    let mut out = std::io::stdout().lock();
    let rules = crate::game_arg::load_game(&a.game)?;
    let decks = a.exact.decks.unwrap_or(rules.shoe().decks);
    anyhow::ensure!((1..=8).contains(&decks), "--decks {decks}: 1 to 8");
    let input = a.exact.input();
    let mut mapped = main_game_rules(&rules, decks);
    mapped.main.post_split = input.post_split;
    let analysis = analyse_shoe(&mapped.main, &input.shoe_or_decks(decks)?)?;
    let s = &analysis.basic_strategy;
    if a.json {
        writeln!(
            out,
            "{}",
            serde_json::to_string_pretty(&to_json(&analysis, &rules, decks, &a.exact)?)?
        )?;
        return Ok(());
    }
    let shoe = match &a.exact.shoe {
        Some(s) => format!("the shoe A-T {}", shoe_text(&s.counts())),
        None => format!("{decks} deck{}", if decks == 1 { "" } else { "s" }),
    };
    writeln!(
        out,
        "Basic strategy for {} ({shoe}), computed from the rules",
        rules.game().name,
    )?;
    writeln!(
        out,
        "Rows: the player's hand; columns: the dealer's up card."
    )?;
    writeln!(out)?;
    write!(out, "{}", chart(s, rules.player().hit_soft_21)?)?;
    if let Some(basis) = a.ev {
        writeln!(out)?;
        write!(out, "{}", ev_chart(s, &rules, basis)?)?;
    }
    if a.exact.post_split.is_some() {
        writeln!(out)?;
        write!(
            out,
            "{}",
            split_cd_chart(&analysis, input.post_split.name())
        )?;
    }
    Ok(())
}

/// Per pair (A to T), per up card in chart order: the composition-dependent value of
/// splitting, before the peek (`None` where the pair cannot be split).
fn split_cd_rows(a: &MainGameAnalysis) -> Vec<(String, Vec<Option<f64>>)> {
    (1..=10u8)
        .map(|p| {
            let row = UPS
                .iter()
                .map(|&u| a.split_cd[usize::from(p - 1)][usize::from(u - 1)])
                .collect();
            (format!("{0},{0}", up_label(p)), row)
        })
        .collect()
}

/// The composition-dependent split values as a chart.
fn split_cd_chart(a: &MainGameAnalysis, model: &str) -> String {
    let mut o = format!(
        "Splitting, composition-dependent play ({model} after the split): the expected value \
         per\nunit of the initial bet, before the peek (a dealer blackjack counted in).\n"
    );
    let _ = write!(o, "{:<8}", "pair");
    for up in UPS {
        let _ = write!(o, " {:>6}", up_label(up));
    }
    o.push('\n');
    for (label, row) in split_cd_rows(a) {
        let _ = write!(o, "{label:<8}");
        for v in row {
            match v {
                Some(v) => {
                    let _ = write!(o, " {v:>+6.3}");
                }
                None => {
                    let _ = write!(o, " {:>6}", "-");
                }
            }
        }
        o.push('\n');
    }
    o
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn up_cards_read_as_ranges_in_chart_order() {
        assert_eq!(up_ranges(&[2, 3, 4, 6]), "2-4,6");
        assert_eq!(up_ranges(&[9, 10, 1]), "9-A");
        assert_eq!(up_ranges(&[10, 1, 5]), "5,T,A");
        assert_eq!(up_ranges(&[7]), "7");
    }
}
