//! The simulation report as text for the terminal.

use crate::sim::{Freq, SimReport};
use crate::stats::BetSummary;
use std::fmt::Write;

fn pct(x: f64) -> String {
    format!("{:.4}%", x * 100.0)
}

fn count(n: u64) -> String {
    let s = n.to_string();
    let mut out = String::new();
    for (i, ch) in s.chars().enumerate() {
        if i > 0 && (s.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(ch);
    }
    out
}

fn cents(c: i128) -> String {
    let sign = if c < 0 { "-" } else { "" };
    let a = c.unsigned_abs();
    format!("{sign}{}.{:02}", count(a as u64 / 100), a % 100)
}

fn rate(r: f64) -> String {
    if r >= 1e6 {
        format!("{:.2} M", r / 1e6)
    } else if r >= 1e3 {
        format!("{:.1} k", r / 1e3)
    } else {
        format!("{r:.0}")
    }
}

fn edge_line(out: &mut String, s: &BetSummary, exact: Option<f64>, rounds: u64) {
    if s.se > 0.0 {
        let _ = writeln!(
            out,
            "  house edge {}  SE {}  95% [{}, {}]  SD/round {:.4}",
            pct(s.house_edge),
            pct(s.se),
            pct(s.ci95[0]),
            pct(s.ci95[1]),
            s.sd_per_round
        );
    } else {
        // One round, or rounds that all came out alike: no spread to estimate an
        // error from, so no interval and no comparison in standard errors.
        let why = if rounds < 2 {
            "one round has no standard error; simulate more rounds"
        } else {
            "every round came out alike, so there is no standard error yet; simulate more rounds"
        };
        let _ = writeln!(out, "  house edge {}  ({why})", pct(s.house_edge));
    }
    if let Some(x) = exact {
        if s.se > 0.0 {
            let z = (s.house_edge - x) / s.se;
            let _ = writeln!(
                out,
                "  exact      {}  (simulated - exact = {z:+.2} SE)",
                pct(x)
            );
        } else {
            let _ = writeln!(out, "  exact      {}", pct(x));
        }
    }
    let _ = writeln!(
        out,
        "  wagered {}  initial stakes {}  player net {}",
        cents(s.wagered),
        cents(s.staked),
        cents(s.net)
    );
}

fn freq_cell(name: &str, f: &Freq) -> String {
    format!("{name} {:.3}%", f.frequency * 100.0)
}

/// The report as text.
pub fn text(r: &SimReport) -> String {
    let mut out = String::new();
    let shoe = if r.csm {
        format!("{} decks, CSM (fresh shoe every round)", r.decks)
    } else {
        format!(
            "{} decks, penetration {:.0}%",
            r.decks,
            r.penetration * 100.0
        )
    };
    let _ = writeln!(
        out,
        "felt sim {}: {shoe}, {} seat(s) x {} spot(s), {} strategy{}",
        r.game,
        r.seats,
        r.spots,
        r.strategy,
        if r.main_only { ", main bet only" } else { "" }
    );
    let _ = writeln!(
        out,
        "{} round{}, seed {}, {} thread(s): {:.2} s, {} rounds/s ({} per thread); setup {:.2} s",
        count(r.rounds),
        if r.rounds == 1 { "" } else { "s" },
        r.seed,
        r.threads,
        r.elapsed_seconds,
        rate(r.rounds_per_second),
        rate(r.rounds_per_second_per_thread),
        r.setup_seconds
    );
    if r.voided_rounds > 0 {
        let _ = writeln!(
            out,
            "voided rounds (shoe ran out): {}",
            count(r.voided_rounds)
        );
    }
    let m = &r.main;
    let _ = writeln!(out, "\nmain bet");
    edge_line(&mut out, &m.summary, m.exact_house_edge, r.rounds);
    let o = &m.outcomes;
    let mut cells = vec![
        freq_cell("win", &o.win),
        freq_cell("blackjack", &o.blackjack),
        freq_cell("push", &o.push),
        freq_cell("lose", &o.lose),
        freq_cell("bust", &o.bust),
    ];
    if o.surrender.count > 0 {
        cells.push(freq_cell("surrender", &o.surrender));
    }
    if o.returned.count > 0 {
        cells.push(freq_cell("returned", &o.returned));
    }
    let _ = writeln!(
        out,
        "  {} hands, per hand: {}",
        count(m.hands),
        cells.join("  ")
    );
    let _ = writeln!(
        out,
        "  {}  {}",
        freq_cell("doubles", &m.doubles),
        freq_cell("splits", &m.splits)
    );
    for b in &r.side_bets {
        let _ = writeln!(out, "\nside bet {} ({})", b.id, b.name);
        let exact = b
            .progressive
            .as_ref()
            .and_then(|p| p.exact_house_edge_at_average)
            .or(b.exact_house_edge);
        edge_line(&mut out, &b.summary, exact, r.rounds);
        if let Some(p) = &b.progressive {
            let _ = writeln!(
                out,
                "  meter {}: reset {}, average {}, {} award(s) paying {} ({} of the stakes); \
                 exact edge at the reset {}",
                p.meter,
                cents(i128::from(p.reset)),
                cents(p.average_meter.round() as i128),
                count(p.awards),
                cents(p.award_amount),
                pct(p.meter_return),
                p.exact_house_edge_at_reset.map_or("-".into(), pct)
            );
        }
        let _ = writeln!(
            out,
            "  {:<44} {:>14} {:>12} {:>12}",
            "line", "hits", "per wager", "exact"
        );
        for l in &b.lines {
            let _ = writeln!(
                out,
                "  {:<44} {:>14} {:>11.5}% {:>11}",
                l.name,
                count(l.hits.count),
                l.hits.frequency * 100.0,
                l.exact_probability
                    .map_or("-".into(), |p| format!("{:.5}%", p * 100.0))
            );
        }
        let _ = writeln!(
            out,
            "  {:<44} {:>14} {:>11.5}%",
            "loses",
            count(b.loses.count),
            b.loses.frequency * 100.0
        );
        let _ = writeln!(out, "  hit frequency {:.4}%", b.hit_frequency * 100.0);
    }
    if let Some(c) = &r.counting {
        out.push_str(&crate::counting::text(c));
    }
    if !r.notes.is_empty() {
        let _ = writeln!(out, "\nnotes");
        for n in &r.notes {
            let _ = writeln!(out, "- {n}");
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_and_cents_are_grouped() {
        assert_eq!(count(1_234_567), "1,234,567");
        assert_eq!(count(12), "12");
        assert_eq!(cents(-123_456), "-1,234.56");
        assert_eq!(cents(5), "0.05");
    }
}
