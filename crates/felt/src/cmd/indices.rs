//! `felt indices NAME|FILE --count hi-lo`: the index plays of a game for a count,
//! computed from exact expected values at each true count.

use anyhow::{Context, Result};
use felt_math::indices::{indices_for_game, to_toml, IndexReport};
use std::fmt::Write;
use std::io::Write as _;
use std::path::PathBuf;

/// Arguments of `felt indices`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// A preset game (see `felt games`) or the path of a rules file.
    pub game: String,
    /// The count: a preset (hi-lo, hi-opt-1, hi-opt-2, omega-2, zen, wong-halves,
    /// insurance) or a count file; balanced counts only.
    #[arg(long, value_name = "NAME|FILE")]
    pub count: String,
    /// Decks in the shoe (default: the rules file's).
    #[arg(long)]
    pub decks: Option<u8>,
    /// Decks left where the shoe at each true count is taken (default: half the shoe).
    #[arg(long, value_name = "DECKS")]
    pub decks_left: Option<f64>,
    /// Lowest true count examined.
    #[arg(long, default_value_t = -10, allow_negative_numbers = true)]
    pub tc_min: i32,
    /// Highest true count examined.
    #[arg(long, default_value_t = 10, allow_negative_numbers = true)]
    pub tc_max: i32,
    /// Write the indices as an index file `felt sim --indices` reads (TOML; JSON when
    /// the name ends in `.json`).
    #[arg(long, value_name = "FILE")]
    pub out: Option<PathBuf>,
    /// Print the indices as JSON.
    #[arg(long)]
    pub json: bool,
}

/// Prints the indices (and writes them with `--out`).
pub fn run(a: &Args) -> Result<()> {
    let count = crate::cmd::count::load_count(&a.count)?;
    let rules = crate::game_arg::load_game(&a.game)?;
    let report = indices_for_game(
        &rules,
        &count,
        a.decks,
        a.decks_left,
        Some((a.tc_min, a.tc_max)),
    )?;
    if let Some(path) = &a.out {
        let text = if path.extension().is_some_and(|e| e == "json") {
            serde_json::to_string_pretty(&report)? + "\n"
        } else {
            to_toml(&report, &comment(&report, &rules))
        };
        std::fs::write(path, text)
            .with_context(|| format!("cannot write the index file {}", path.display()))?;
    }
    let mut out = std::io::stdout().lock();
    if a.json {
        writeln!(out, "{}", serde_json::to_string_pretty(&report)?)?;
    } else {
        write!(out, "{}", render(&report, &rules))?;
    }
    Ok(())
}

/// The rules the indices depend on, in a few words.
fn rules_words(rules: &felt_core::Rules) -> String {
    use felt_core::rules::{Soft17, Surrender};
    let p = rules.player();
    format!(
        "{}, {}, {}",
        if rules.dealer().soft_17 == Soft17::Hit {
            "H17"
        } else {
            "S17"
        },
        if p.double_after_split {
            "DAS"
        } else {
            "no DAS"
        },
        match p.surrender {
            Surrender::None => "no surrender",
            Surrender::Late => "late surrender",
            Surrender::Early => "early surrender",
        }
    )
}

fn comment(r: &IndexReport, rules: &felt_core::Rules) -> String {
    format!(
        "{} index plays for {} ({} decks, {}), computed by `felt indices`:\n\
         exact expected values of the shoe expected at each true count from {} to {},\n\
         {} decks left. Read by `felt sim --count ... --indices FILE`.",
        r.count,
        r.game,
        r.decks,
        rules_words(rules),
        r.tc_range[0],
        r.tc_range[1],
        r.decks_left
    )
}

/// The indices as a table.
pub fn render(r: &IndexReport, rules: &felt_core::Rules) -> String {
    let mut o = String::new();
    let _ = writeln!(
        o,
        "INDEX PLAYS  {}, {} deck(s), {}; count {}",
        r.game,
        r.decks,
        rules_words(rules),
        r.count
    );
    let _ = writeln!(
        o,
        "from exact expected values of the shoe expected at each true count {} to {}, {} decks left",
        r.tc_range[0], r.tc_range[1], r.decks_left
    );
    let _ = writeln!(o);
    let _ = writeln!(
        o,
        "{:<10}{:>3}  {:<10}{:>8}  {:>9}  {:<12}list",
        "hand", "up", "play", "index", "crossing", "instead of"
    );
    for x in &r.indices {
        let index = match (x.when, x.to) {
            (_, Some(to)) => format!("{:+}..{to:+}", x.index),
            (Some(_), None) => format!("{:+}-", x.index),
            (None, None) => format!("{:+}", x.index),
        };
        let list = match x.list {
            Some(felt_math::indices::Famous::Fab4) => "Fab 4",
            Some(felt_math::indices::Famous::I18) => "Illustrious 18",
            None => "",
        };
        let _ = writeln!(
            o,
            "{:<10}{:>3}  {:<10}{:>8}  {:>9.2}  {:<12}{}",
            x.hand,
            x.up.as_deref().unwrap_or(""),
            x.play.word(),
            index,
            x.crossing,
            x.instead_of.map_or("", |p| p.word()),
            list
        );
    }
    let _ = writeln!(o);
    let _ = writeln!(
        o,
        "A play is made at its index and above (marked -: at it and below; a..b: from a to b); \
         `crossing` is the true count where the two plays' values cross."
    );
    let _ = writeln!(
        o,
        "{} indices. Hands: 16 hard, A7 soft, TT a pair. Write them for the simulator with --out FILE.toml.",
        r.indices.len()
    );
    o
}
