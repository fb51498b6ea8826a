//! Computed index plays (issue 15, item 5): the shoe expected at a true count, the
//! exact analysis of a fractional composition, the published Illustrious 18 and
//! Fab 4, and a check by whole-card shoes that the plays do cross at the indices.

use felt_math::count::{self, CountSystem};
use felt_math::indices::{
    composition_at, compute_indices, ComputedIndex, IndexError, IndexOptions, Play, PUBLISHED,
};
use felt_math::main_game::{
    analyse_composition, analyse_shoe, hand_evs, MainGameRules, Shoe, Surrender,
};

fn hi_lo() -> CountSystem {
    count::preset("hi-lo").unwrap().unwrap()
}

/// Six decks, S17, peek, double any two, DAS, resplit to four hands, late
/// surrender: the Illustrious 18 and Fab 4's game (the analyser's default but S17).
fn six_deck_s17_ls() -> MainGameRules {
    MainGameRules {
        dealer_hits_soft_17: false,
        ..MainGameRules::default()
    }
}

#[test]
fn a_fractional_composition_lies_between_its_whole_neighbours() {
    let rules = six_deck_s17_ls();
    let base = [8u32, 8, 8, 8, 8, 8, 8, 8, 8, 32];
    let mut more = base;
    more[0] += 1; // one more ace
    let a = analyse_shoe(&rules, &Shoe::from_counts(base).unwrap()).unwrap();
    let b = analyse_shoe(&rules, &Shoe::from_counts(more).unwrap()).unwrap();
    // at whole counts the fractional entry point is the whole-shoe analysis
    let whole = analyse_composition(&rules, &base.map(f64::from)).unwrap();
    assert_eq!(whole.ev_cd, a.ev_cd);
    assert_eq!(whole.ev_basic, a.ev_basic);
    let mut half = base.map(f64::from);
    half[0] += 0.5;
    let m = analyse_composition(&rules, &half).unwrap();
    let step = b.ev_cd - a.ev_cd;
    assert!(step > 1e-4, "an ace helps the player: {step}");
    // half an ace moves the value about half as far (truncating the half card would
    // leave it at `a`, rounding it would reach `b`)
    let at = (m.ev_cd - a.ev_cd) / step;
    assert!(
        (at - 0.5).abs() < 0.05,
        "half an ace is {at} of a whole one"
    );
    for bad in [[f64::NAN; 10], [-1.0; 10], [1e9; 10]] {
        assert!(analyse_composition(&rules, &bad).is_err());
    }
}

#[test]
fn the_shoe_at_a_true_count_carries_that_count() {
    let c = hi_lo();
    for (left, tc) in [(3.0, 4.0), (3.0, -7.5), (1.5, 10.0), (0.5, 2.0)] {
        let n = composition_at(&c, left, tc).unwrap();
        let cards: f64 = n.iter().sum();
        let tags: f64 = n.iter().zip(c.tags).map(|(n, t)| n * t).sum();
        assert!((cards - 52.0 * left).abs() < 1e-9, "{cards}");
        // the cards seen carry the opposite of what is left
        assert!((-tags / left - tc).abs() < 1e-9, "{tags}");
        // the neutral cards keep their density; the low cards share the change evenly
        assert!((n[6] - 4.0 * left).abs() < 1e-12);
        assert!((n[1] - n[5]).abs() < 1e-12);
    }
    let ko = count::preset("ko").unwrap().unwrap();
    assert!(matches!(
        composition_at(&ko, 3.0, 1.0),
        Err(IndexError::Unbalanced(_))
    ));
    assert!(matches!(
        composition_at(&c, 3.0, 45.0),
        Err(IndexError::OutOfReach { .. })
    ));
}

fn find<'a>(v: &'a [ComputedIndex], hand: &str, up: Option<&str>, play: Play) -> &'a ComputedIndex {
    v.iter()
        .find(|x| x.hand == hand && x.up.as_deref() == up && x.play == play)
        .unwrap_or_else(|| panic!("no index for {hand} v {up:?} {play:?}"))
}

/// Computed at three decks left (half of six), by `felt indices`; the crossing is
/// the true count the player sees deciding:
///
/// | play            | published | computed | crossing |
/// |-----------------|-----------|----------|----------|
/// | insurance       | +3        | +3       | 3.33     |
/// | 16 v T stand    | 0         | +1       | 1.00     |
/// | 15 v T stand    | +4        | +4       | 3.91     |
/// | TT v 5 split    | +5        | +5       | 4.85     |
/// | TT v 6 split    | +4        | +5       | 4.67     |
/// | 10 v T double   | +4        | +4       | 3.55     |
/// | 12 v 3 stand    | +2        | +2       | 1.99     |
/// | 12 v 2 stand    | +3        | +4       | 3.72     |
/// | 11 v A double   | +1        | +1       | 0.50     |
/// | 9 v 2 double    | +1        | +1       | 0.97     |
/// | 10 v A double   | +4        | +3       | 3.32     |
/// | 9 v 7 double    | +3        | +3       | 3.21     |
/// | 16 v 9 stand    | +5        | +6       | 5.69     |
/// | 13 v 2 stand    | -1        | -1       | -0.56    |
/// | 12 v 4 stand    | 0         | 0        | 0.29     |
/// | 12 v 5 stand    | -2        | -1       | -1.40    |
/// | 12 v 6 stand    | -1        | -1       | -0.79    |
/// | 13 v 3 stand    | -2        | -2       | -2.06    |
/// | 14 v T surr.    | +3        | +3       | 3.24     |
/// | 15 v T surr.    | 0         | 0        | -0.48    |
/// | 15 v 9 surr.    | +2        | +2       | 2.22     |
/// | 15 v A surr.    | +1        | +1       | 1.21     |
///
/// Six of the 22 differ, each by one.
#[test]
fn the_illustrious_18_and_fab_4_come_out_within_one_and_first() {
    let rules = six_deck_s17_ls();
    let v = compute_indices(&rules, &hi_lo(), IndexOptions::for_decks(6)).unwrap();
    let mut differ = Vec::new();
    for (hand, up, play, published, _) in PUBLISHED {
        let x = find(&v, hand, up, play);
        assert!(
            (x.index - published).abs() <= 1,
            "{hand} v {up:?} {play:?}: computed {} (crossing {:.2}), published {published}",
            x.index,
            x.crossing
        );
        assert!(x.when.is_none() && x.to.is_none(), "{x:?}");
        assert!(x.list.is_some());
        if x.index != published {
            differ.push(format!("{hand}v{}", up.unwrap_or("")));
        }
    }
    assert!(differ.len() <= 6, "{differ:?}");
    // listed first, in the published order, the cells kept together
    let famous: Vec<&ComputedIndex> = v
        .iter()
        .take_while(|x| {
            x.list.is_some() || {
                PUBLISHED
                    .iter()
                    .any(|f| f.0 == x.hand && f.1 == x.up.as_deref())
            }
        })
        .collect();
    assert!(famous.len() >= PUBLISHED.len());
    assert_eq!((v[0].hand.as_str(), v[0].play), ("14", Play::Surrender));
    let pos = |h: &str, u: &str, p: Play| {
        v.iter()
            .position(|x| x.hand == h && x.up.as_deref() == Some(u) && x.play == p)
            .unwrap()
    };
    // the surrender before the stand of the same cell (the simulator tries in order)
    assert!(pos("15", "T", Play::Surrender) < pos("15", "T", Play::Stand));
    assert!(pos("16", "T", Play::Surrender) < pos("16", "T", Play::Stand));
    // insurance: 3 x tens / cards = 1 with 16 (1 + TC/40) tens a deck of 52
    let ins = find(&v, "insurance", None, Play::Insure);
    let exact = 40.0 * (52.0 / 3.0 / 16.0 - 1.0);
    assert!((ins.crossing - exact).abs() < 1e-9, "{}", ins.crossing);
    // without surrender there is no surrender index, and the stands remain
    let mut no_s = rules.clone();
    no_s.surrender = Surrender::None;
    let w = compute_indices(&no_s, &hi_lo(), IndexOptions::for_decks(6)).unwrap();
    assert!(w.iter().all(|x| x.play != Play::Surrender));
    assert_eq!(
        find(&w, "16", Some("T"), Play::Stand).index,
        find(&v, "16", Some("T"), Play::Stand).index
    );
}

/// The two-card hands of a hard total without an ace or a pair, as ranks 1..=10.
fn hard_hands(total: u8) -> Vec<[u8; 2]> {
    (2..=10u8)
        .flat_map(|a| (a + 1..=10).map(move |b| [a, b]))
        .filter(|h| h[0] + h[1] == total)
        .collect()
}

/// `value(play) - value(other)` of a cell by `hand_evs` on whole-card shoes, each of
/// the cell's hands dealt from the three-deck shoe expected before the round at the
/// true count that, with the hand and the up card seen, makes the player's true count
/// `tc` (the model of `felt indices`), rounded to whole cards; the hands weighted by
/// their chance.
fn cell_difference(
    rules: &MainGameRules,
    tc: f64,
    hands: &[[u8; 2]],
    up: u8,
    play: Play,
    other: Play,
) -> f64 {
    let c = hi_lo();
    let tag = |r: u8| c.tags[usize::from(r - 1)];
    let mut sum = 0.0;
    for h in hands {
        let seen = tag(h[0]) + tag(h[1]) + tag(up);
        let before = (tc * (3.0 - 3.0 / 52.0) - seen) / 3.0;
        let counts = composition_at(&c, 3.0, before)
            .unwrap()
            .map(|x| x.round() as u32);
        let shoe = Shoe::from_counts(counts).unwrap();
        let (a, b) = (usize::from(h[0] - 1), usize::from(h[1] - 1));
        let w = f64::from(counts[a]) * f64::from(counts[b]);
        let e = hand_evs(rules, &shoe, h, up).unwrap();
        let value = |p: Play| match p {
            Play::Stand => e.stand,
            Play::Hit => e.hit.unwrap(),
            Play::Double => e.double.unwrap(),
            Play::Split => e.split.unwrap(),
            Play::Surrender => e.surrender.unwrap(),
            Play::Insure => unreachable!(),
        };
        sum += w * (value(play) - value(other));
    }
    sum
}

#[test]
fn on_whole_card_shoes_the_plays_cross_at_the_computed_indices() {
    let rules = six_deck_s17_ls();
    let v = compute_indices(&rules, &hi_lo(), IndexOptions::for_decks(6)).unwrap();
    let cases: [(&str, u8, Play, Vec<[u8; 2]>); 6] = [
        ("16", 10, Play::Stand, hard_hands(16)),
        ("12", 4, Play::Stand, hard_hands(12)),
        ("13", 2, Play::Stand, hard_hands(13)),
        ("10", 10, Play::Double, hard_hands(10)),
        ("9", 2, Play::Double, hard_hands(9)),
        ("TT", 6, Play::Split, vec![[10, 10]]),
    ];
    for (hand, up, play, hands) in cases {
        let label = if up == 10 {
            "T".to_string()
        } else {
            up.to_string()
        };
        let x = find(&v, hand, Some(&label), play);
        let other = x.instead_of.unwrap();
        // one true count either side of the crossing: the better play changes
        let d_below = cell_difference(&rules, x.crossing - 1.0, &hands, up, play, other);
        let d_above = cell_difference(&rules, x.crossing + 1.0, &hands, up, play, other);
        assert!(
            d_below < 0.0 && d_above > 0.0,
            "{hand} v {label} {play:?} over {other:?} at {:.2}: {d_below} then {d_above}",
            x.crossing
        );
    }
}

#[test]
fn bad_options_are_refused_with_reasons() {
    let rules = six_deck_s17_ls();
    let c = hi_lo();
    let mut o = IndexOptions::for_decks(6);
    o.decks_left = 0.0;
    assert!(matches!(
        compute_indices(&rules, &c, o),
        Err(IndexError::DecksLeft { .. })
    ));
    o.decks_left = 7.0;
    assert!(matches!(
        compute_indices(&rules, &c, o),
        Err(IndexError::DecksLeft { .. })
    ));
    let mut o = IndexOptions::for_decks(6);
    (o.tc_min, o.tc_max) = (3, 3);
    assert!(matches!(
        compute_indices(&rules, &c, o),
        Err(IndexError::Range { .. })
    ));
    let ko = count::preset("ko").unwrap().unwrap();
    let e = compute_indices(&rules, &ko, IndexOptions::for_decks(6)).unwrap_err();
    assert!(e.to_string().contains("unbalanced"), "{e}");
}
