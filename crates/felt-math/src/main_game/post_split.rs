//! How the hands formed by a split are played in the composition-dependent
//! figures: the three models of Eric Farmer's combinatorial analyser.

/// The post-split strategy of the composition-dependent (CD) figures.
///
/// Every model plays each unsplit hand optimally for the exact shoe, and
/// decides whether to split on the exact split value of its own model. They
/// differ in what a hand formed by a split may know (see `docs/analysis.md`):
///
/// * [`PostSplit::Cdz`] (CDZ-): a split hand is played as the same cards
///   would be played unsplit, optimal for the full shoe less that hand's
///   cards and the up card, blind to the other split cards.
/// * [`PostSplit::Cdp1`] (CDP1): a split hand is played optimally for the
///   shoe less the pair, the up card and the hand's cards (the first split
///   hand's view); that one strategy plays every hand of the split,
///   resplit hands included.
/// * [`PostSplit::Cdp`] (CDP): the post-split strategy is optimal for the
///   shoe less the hand's cards, the up card and every pair card the split
///   removes (two plus one per resplit), chosen afresh for each number of
///   pair cards, as if that number were known when the hand is played.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum PostSplit {
    /// Pre-split strategy after a split (zero memory).
    #[default]
    Cdz,
    /// Strategy optimal for the first split hand, fixed for all of them.
    Cdp1,
    /// Strategy optimal given the number of pair cards removed.
    Cdp,
}

impl PostSplit {
    /// All three models, from the least to the most informed.
    pub const ALL: [PostSplit; 3] = [PostSplit::Cdz, PostSplit::Cdp1, PostSplit::Cdp];

    /// The model's short name as analysts write it: `CDZ-`, `CDP1`, `CDP`.
    pub fn name(self) -> &'static str {
        match self {
            PostSplit::Cdz => "CDZ-",
            PostSplit::Cdp1 => "CDP1",
            PostSplit::Cdp => "CDP",
        }
    }

    /// One sentence on how split hands are played.
    pub fn describe(self) -> &'static str {
        match self {
            PostSplit::Cdz => {
                "CDZ-: each split hand is played as the same cards would be before the split, \
                 given the removed cards; resplits exact to the hand limit"
            }
            PostSplit::Cdp1 => {
                "CDP1: each split hand is played optimally for the shoe less the pair, the up \
                 card and its own cards, that strategy fixed for every hand of the split; \
                 resplits exact to the hand limit"
            }
            PostSplit::Cdp => {
                "CDP: each split hand is played optimally for the shoe less its own cards, the \
                 up card and every pair card the split removes, as if the number of resplits \
                 were known; resplits exact to the hand limit"
            }
        }
    }
}
