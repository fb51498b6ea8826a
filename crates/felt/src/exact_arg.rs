//! The options every exact command shares: the shoe (`--decks N` or `--shoe
//! A,2,...,T`) and the post-split model (`--post-split cdz|cdp1|cdp`).

use anyhow::{bail, Result};
use felt_math::exact::ExactInput;
use felt_math::main_game::{PostSplit, Shoe};

/// `--decks`, `--shoe` and `--post-split`.
#[derive(Debug, Clone, clap::Args)]
pub struct ExactArgs {
    /// Decks to analyse (default: the rules file's).
    #[arg(long, conflicts_with = "shoe")]
    pub decks: Option<u8>,
    /// Analyse this shoe instead of full decks: the counts of A,2,3,4,5,6,7,8,9,T (T: all
    /// ten-valued cards), e.g. a counter's depleted shoe `20,24,24,24,24,24,24,24,24,96`.
    #[arg(long, value_parser = parse_shoe)]
    pub shoe: Option<Shoe>,
    /// How the composition-dependent figures play the hands formed by a split (see
    /// docs/analysis.md; default cdz).
    #[arg(long, value_enum)]
    pub post_split: Option<PostSplitArg>,
}

/// The post-split models, as the command line names them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum PostSplitArg {
    /// CDZ-: split hands played as the same cards unsplit.
    Cdz,
    /// CDP1: split hands played optimally for the first split hand's shoe.
    Cdp1,
    /// CDP: split hands played optimally for the pair cards the split removes.
    Cdp,
}

impl From<PostSplitArg> for PostSplit {
    fn from(a: PostSplitArg) -> Self {
        match a {
            PostSplitArg::Cdz => PostSplit::Cdz,
            PostSplitArg::Cdp1 => PostSplit::Cdp1,
            PostSplitArg::Cdp => PostSplit::Cdp,
        }
    }
}

impl ExactArgs {
    /// The analysis input these options ask for.
    pub fn input(&self) -> ExactInput {
        ExactInput {
            decks: self.decks,
            shoe: self.shoe,
            post_split: self.post_split.map_or(PostSplit::Cdz, PostSplit::from),
        }
    }
}

/// Parses `A,2,...,T` counts: ten whole numbers, commas between.
pub fn parse_shoe(s: &str) -> Result<Shoe> {
    let parts: Vec<&str> = s.split(',').map(str::trim).collect();
    if parts.len() != 10 {
        bail!(
            "`{s}`: a shoe is ten counts, of A,2,3,4,5,6,7,8,9,T (T: every ten-valued card), \
             got {}",
            parts.len()
        );
    }
    let mut counts = [0u32; 10];
    for (c, p) in counts.iter_mut().zip(&parts) {
        *c = p.parse().map_err(|_| {
            anyhow::anyhow!("`{p}` in `{s}`: each count is a whole number of cards")
        })?;
    }
    Ok(Shoe::from_counts(counts)?)
}

/// `A,2,...,T` counts as written on the command line.
pub fn shoe_text(counts: &[u32; 10]) -> String {
    counts.map(|c| c.to_string()).join(",")
}
