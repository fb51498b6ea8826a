//! Splits and resplits to every hand limit the engine accepts (2..=8),
//! checked against a brute-force enumerator that deals a split round card
//! by card in the casino's order (a hand is played out before the next one
//! gets its second card) on small shoes rich in the pair card, and the
//! monotonicity of the player's value in the hand limit.
//!
//! CDP1 is checked the same way: the enumerator takes each split hand's
//! decisions on the exact values of the shoe less the pair, the up card and
//! the hand's cards (see docs/analysis.md). The enumerator also deals the
//! second cards first and then plays the hands, which must give the same
//! value (every card drawn is uniform over the unseen cards whatever the
//! order). CDP is not the value of a strategy a player could follow (its
//! per-level values are combined by Farmer's formula), so no enumeration
//! reproduces it; it is checked against Farmer's program in
//! `tests/post_split.rs`.

mod common;

use common::brute_dealer;
use std::collections::HashMap;

use felt_math::main_game::*;

const NAT: usize = 6;
const BUST: usize = 5;

fn rules(m: u32, obo: bool, das: bool, post_split: PostSplit) -> MainGameRules {
    MainGameRules {
        post_split,
        ..common::no_peek_split_rules(m, obo, das)
    }
}

/// Best total and whether it is bust, from per-index counts (0 = ace).
fn total(c: &[u32; 10]) -> (u32, bool) {
    let hard: u32 = c.iter().enumerate().map(|(i, &n)| n * (i as u32 + 1)).sum();
    if c[0] > 0 && hard + 10 <= 21 {
        (hard + 10, false)
    } else {
        (hard, hard > 21)
    }
}

fn ncards(c: &[u32; 10]) -> u32 {
    c.iter().sum()
}

/// Result of one unit standing on `t` when the dealer ends in slot `d`
/// (0..=4: 17..=21, 5 bust, 6 natural).
fn unit(t: u32, d: usize) -> f64 {
    match d {
        BUST => 1.0,
        NAT => -1.0,
        _ => {
            let dt = 17 + d as u32;
            if t > dt {
                1.0
            } else if t < dt {
                -1.0
            } else {
                0.0
            }
        }
    }
}

fn minus(a: &[u32; 10], b: &[u32; 10]) -> [u32; 10] {
    std::array::from_fn(|i| a[i] - b[i])
}

fn plus1(a: &[u32; 10], x: usize) -> [u32; 10] {
    let mut r = *a;
    r[x] += 1;
    r
}

fn minus1(a: &[u32; 10], x: usize) -> [u32; 10] {
    let mut r = *a;
    r[x] -= 1;
    r
}

#[derive(Clone, Copy, PartialEq)]
enum Play {
    Stand,
    Hit,
    Double,
}

/// A split round's state: cards unseen, hands made, hands waiting for
/// their second card, the current hand's cards.
type SplitKey = ([u32; 10], u32, u32, [u32; 10]);

/// What is left of the round once the current hand is over.
#[derive(Clone, Copy)]
enum Rest<'a> {
    /// Casino order: `made` hands so far, `pending` waiting for a second card.
    Casino { made: u32, pending: u32 },
    /// Second cards dealt first: the two-card hands still to play.
    Dealt { hands: &'a [[u32; 10]] },
}

struct Brute {
    shoe: [u32; 10],
    up: usize,
    pair: usize,
    m: u32,
    obo: bool,
    das: bool,
    post: PostSplit,
    dealer: HashMap<[u32; 10], [f64; 7]>,
    /// Hit values by (hand, other pair cards out of the shoe the decision sees).
    hit: HashMap<([u32; 10], u32), f64>,
    split: HashMap<SplitKey, ([f64; 7], f64)>,
}

impl Brute {
    fn new(shoe: [u32; 10], up: usize, pair: usize, r: &MainGameRules) -> Self {
        Brute {
            shoe,
            up,
            pair,
            m: r.max_split_hands,
            obo: r.no_peek_loss == NoPeekLoss::OriginalBetsOnly,
            das: r.double_after_split,
            post: r.post_split,
            dealer: HashMap::new(),
            hit: HashMap::new(),
            split: HashMap::new(),
        }
    }

    /// How many pair cards besides its own a split hand's decisions take
    /// out of the shoe: none (CDZ-, decided as unsplit) or the other one of
    /// the pair (CDP1).
    fn extra(&self) -> u32 {
        match self.post {
            PostSplit::Cdz => 0,
            PostSplit::Cdp1 => 1,
            PostSplit::Cdp => panic!("CDP is no strategy a round can be dealt to"),
        }
    }

    /// The dealer's final outcome (hole card and draws from `unseen`).
    fn dealer(&mut self, unseen: &[u32; 10]) -> [f64; 7] {
        if let Some(d) = self.dealer.get(unseen) {
            return *d;
        }
        let mut out = [0.0; 7];
        let mut s = *unseen;
        // The rules of these shoes: the dealer hits a soft 17.
        brute_dealer(&mut vec![self.up], &mut s, true, &mut out, 1.0);
        self.dealer.insert(*unseen, out);
        out
    }

    /// The shoe a decision on hand `c` sees: the full shoe less its cards,
    /// the up card and `extra` further pair cards (none: the unsplit
    /// values CDZ- decides on).
    fn unseen_of(&self, c: &[u32; 10], extra: u32) -> [u32; 10] {
        let mut u = minus1(&minus(&self.shoe, c), self.up);
        u[self.pair] -= extra;
        u
    }

    fn stand(&mut self, c: &[u32; 10], extra: u32) -> f64 {
        let (t, _) = total(c);
        let d = self.dealer(&self.unseen_of(c, extra));
        (0..7).map(|i| d[i] * unit(t, i)).sum()
    }

    fn draws(&self, c: &[u32; 10], extra: u32) -> Vec<(usize, f64)> {
        let u = self.unseen_of(c, extra);
        let n: u32 = u.iter().sum();
        (0..10)
            .filter(|&x| u[x] > 0)
            .map(|x| (x, f64::from(u[x]) / f64::from(n)))
            .collect()
    }

    fn hit(&mut self, c: &[u32; 10], extra: u32) -> f64 {
        if let Some(v) = self.hit.get(&(*c, extra)) {
            return *v;
        }
        let mut v = 0.0;
        for (x, p) in self.draws(c, extra) {
            let c2 = plus1(c, x);
            v += p * if total(&c2).1 {
                -1.0
            } else {
                self.stand(&c2, extra).max(self.hit(&c2, extra))
            };
        }
        self.hit.insert((*c, extra), v);
        v
    }

    fn double(&mut self, c: &[u32; 10], extra: u32) -> f64 {
        let mut v = 0.0;
        for (x, p) in self.draws(c, extra) {
            let c2 = plus1(c, x);
            let d = self.dealer(&self.unseen_of(&c2, extra));
            let (t, bust) = total(&c2);
            let nat = if self.obo { -1.0 } else { -2.0 };
            let mut w = d[NAT] * nat;
            for (i, &q) in d.iter().enumerate().take(6) {
                w += q * if bust { -2.0 } else { 2.0 * unit(t, i) };
            }
            v += p * w;
        }
        v
    }

    /// The best play for the shoe `extra` sees, among the options allowed
    /// after a split (ties go to the earlier of stand, hit, double).
    fn decide(&mut self, c: &[u32; 10], extra: u32) -> Play {
        let mut best = (Play::Stand, self.stand(c, extra));
        let h = self.hit(c, extra);
        if h > best.1 {
            best = (Play::Hit, h);
        }
        if ncards(c) == 2 && self.das {
            let d = self.double(c, extra);
            if d > best.1 {
                best = (Play::Double, d);
            }
        }
        best.0
    }

    /// A split hand's result when the dealer ends in slot `d`; in an
    /// original-bets-only game the natural is counted once for the round.
    fn pay(&self, c: &[u32; 10], stake: f64, d: usize) -> f64 {
        let (t, bust) = total(c);
        if d == NAT {
            if self.obo {
                0.0
            } else {
                -stake
            }
        } else if bust {
            -stake
        } else {
            stake * unit(t, d)
        }
    }

    /// The hand `c` is over (stake 1 or 2): the later hands, then the
    /// dealer. Returns (dealer outcome distribution, expected sum of the
    /// results of this hand and every later one).
    fn finish(
        &mut self,
        unseen: &[u32; 10],
        rest: Rest<'_>,
        c: &[u32; 10],
        stake: f64,
    ) -> ([f64; 7], f64) {
        let (pd, ev) = match rest {
            Rest::Casino { made, pending } if pending > 0 => {
                let mut start = [0u32; 10];
                start[self.pair] = 1;
                self.round(unseen, made, pending - 1, &start)
            }
            Rest::Dealt { hands } if !hands.is_empty() => {
                let rest = Rest::Dealt { hands: &hands[1..] };
                self.play(unseen, rest, &hands[0])
            }
            _ => (self.dealer(unseen), 0.0),
        };
        let mine: f64 = (0..7).map(|d| pd[d] * self.pay(c, stake, d)).sum();
        (pd, ev + mine)
    }

    fn play(&mut self, unseen: &[u32; 10], rest: Rest<'_>, c: &[u32; 10]) -> ([f64; 7], f64) {
        let extra = self.extra();
        let act = if self.pair == 0 {
            Play::Stand // one card to split aces
        } else if ncards(c) == 2 {
            self.decide(c, extra)
        } else if self.hit(c, extra) > self.stand(c, extra) {
            Play::Hit
        } else {
            Play::Stand
        };
        if act == Play::Stand {
            return self.finish(unseen, rest, c, 1.0);
        }
        let n: u32 = unseen.iter().sum();
        let (mut pd, mut ev) = ([0.0; 7], 0.0);
        for x in (0..10).filter(|&x| unseen[x] > 0) {
            let p = f64::from(unseen[x]) / f64::from(n);
            let (u2, c2) = (minus1(unseen, x), plus1(c, x));
            let (d, v) = if act == Play::Double {
                self.finish(&u2, rest, &c2, 2.0)
            } else if total(&c2).1 {
                self.finish(&u2, rest, &c2, 1.0)
            } else {
                self.play(&u2, rest, &c2)
            };
            for i in 0..7 {
                pd[i] += p * d[i];
            }
            ev += p * v;
        }
        (pd, ev)
    }

    /// The current hand holds only its pair card: deal its second card
    /// (a pair card starts a new hand while fewer than `m` exist).
    fn round(
        &mut self,
        unseen: &[u32; 10],
        made: u32,
        pending: u32,
        c: &[u32; 10],
    ) -> ([f64; 7], f64) {
        let key = (*unseen, made, pending, *c);
        if let Some(r) = self.split.get(&key) {
            return *r;
        }
        let r = self.each_card(unseen, |b, x, u2| {
            if x == b.pair && made < b.m {
                b.round(&u2, made + 1, pending + 1, c)
            } else {
                b.play(&u2, Rest::Casino { made, pending }, &plus1(c, x))
            }
        });
        self.split.insert(key, r);
        r
    }

    /// The average over the next card `x` of `f(x, unseen less x)`.
    fn each_card(
        &mut self,
        unseen: &[u32; 10],
        mut f: impl FnMut(&mut Self, usize, [u32; 10]) -> ([f64; 7], f64),
    ) -> ([f64; 7], f64) {
        let n: u32 = unseen.iter().sum();
        let (mut pd, mut ev) = ([0.0; 7], 0.0);
        for x in (0..10).filter(|&x| unseen[x] > 0) {
            let p = f64::from(unseen[x]) / f64::from(n);
            let (d, v) = f(self, x, minus1(unseen, x));
            for i in 0..7 {
                pd[i] += p * d[i];
            }
            ev += p * v;
        }
        (pd, ev)
    }

    /// Second cards dealt first: `waiting` hands of `made` still hold only
    /// their pair card, `dealt` have their two cards; then the hands are
    /// played in order.
    fn deal_seconds(
        &mut self,
        unseen: &[u32; 10],
        made: u32,
        waiting: u32,
        dealt: &mut Vec<[u32; 10]>,
    ) -> ([f64; 7], f64) {
        if waiting == 0 {
            let hands = dealt.clone();
            let rest = Rest::Dealt { hands: &hands[1..] };
            return self.play(unseen, rest, &hands[0]);
        }
        self.each_card(unseen, |b, x, u2| {
            if x == b.pair && made < b.m {
                b.deal_seconds(&u2, made + 1, waiting + 1, dealt)
            } else {
                let mut c = [0u32; 10];
                c[b.pair] = 1;
                dealt.push(plus1(&c, x));
                let r = b.deal_seconds(&u2, made, waiting - 1, dealt);
                dealt.pop();
                r
            }
        })
    }

    /// Expected value of splitting the pair against the up card, dealt in
    /// the casino's order (`casino`) or second cards first.
    fn split_value_in(&mut self, casino: bool) -> f64 {
        let mut unseen = self.shoe;
        unseen[self.pair] -= 2;
        unseen[self.up] -= 1;
        let mut start = [0u32; 10];
        start[self.pair] = 1;
        let (pd, ev) = if casino {
            self.round(&unseen, 2, 1, &start)
        } else {
            self.deal_seconds(&unseen, 2, 2, &mut Vec::new())
        };
        if self.obo {
            ev - pd[NAT]
        } else {
            ev
        }
    }

    /// Expected value of splitting the pair against the up card.
    fn split_value(&mut self) -> f64 {
        self.split_value_in(true)
    }
}

fn check(shoe: [u32; 10], pair: usize, ups: &[usize], ms: std::ops::RangeInclusive<u32>) {
    check_model(shoe, pair, ups, ms, PostSplit::Cdz);
}

fn check_model(
    shoe: [u32; 10],
    pair: usize,
    ups: &[usize],
    ms: std::ops::RangeInclusive<u32>,
    post: PostSplit,
) {
    for m in ms {
        for &up in ups {
            for (obo, das) in [(false, true), (true, false)] {
                let r = rules(m, obo, das, post);
                let s = Shoe::from_counts(shoe).unwrap();
                let p = pair as u8 + 1;
                let got = hand_evs(&r, &s, &[p, p], up as u8 + 1)
                    .unwrap()
                    .split
                    .unwrap();
                let want = Brute::new(shoe, up, pair, &r).split_value();
                let name = post.name();
                assert!(
                    (got - want).abs() < 1e-11,
                    "{name} pair {p} v {} m {m} obo {obo} das {das}: {got} vs brute {want}",
                    up + 1
                );
            }
        }
    }
}

#[test]
fn cdp1_splits_match_brute_force_to_every_hand_limit() {
    // fives and tens: the split hands hit and double, and the decisions
    // move with the pair cards removed
    let fives = [2, 2, 0, 0, 10, 2, 0, 0, 2, 22];
    let eights = [2, 2, 2, 0, 0, 2, 0, 9, 2, 16];
    check_model(fives, 4, &[9, 5], 2..=5, PostSplit::Cdp1);
    check_model(eights, 7, &[9, 0], 2..=4, PostSplit::Cdp1);
}

#[test]
fn dealing_order_does_not_change_a_split_whose_play_ignores_the_hand_count() {
    let shoe = [2, 2, 2, 0, 0, 2, 0, 9, 2, 16];
    for post in [PostSplit::Cdz, PostSplit::Cdp1] {
        for m in 2..=4 {
            let r = rules(m, false, true, post);
            let mut b = Brute::new(shoe, 9, 7, &r);
            let casino = b.split_value_in(true);
            let seconds_first = b.split_value_in(false);
            assert!(
                (casino - seconds_first).abs() < 1e-13,
                "{} m {m}: {casino} vs {seconds_first}",
                post.name()
            );
        }
    }
}

#[test]
fn splitting_tens_to_every_hand_limit_matches_brute_force() {
    // thirty tens: a ten pair reaches eight hands often
    let shoe = [2, 2, 0, 0, 2, 2, 0, 0, 2, 30];
    check(shoe, 9, &[9, 5, 8], 2..=8);
}

#[test]
fn splitting_fives_with_hits_and_doubles_matches_brute_force() {
    // fives and tens: the split hands hit and double (5-6, 5-5-A ...)
    let shoe = [2, 2, 0, 0, 10, 2, 0, 0, 2, 22];
    check(shoe, 4, &[9, 5, 0], 2..=8);
}

#[test]
fn resplitting_aces_to_every_hand_limit_matches_brute_force() {
    let shoe = [10, 0, 0, 0, 0, 2, 0, 0, 2, 26];
    check(shoe, 0, &[9, 5], 2..=8);
}

/// The value of the round with up to `m` hands per pair.
fn ev_cd(m: u32, decks: u32, rsa: bool) -> MainGameAnalysis {
    analyse(&MainGameRules {
        decks,
        max_split_hands: m,
        resplit_aces: rsa,
        ..MainGameRules::default()
    })
    .unwrap()
}

#[test]
fn more_hands_never_cost_the_player_and_five_beat_four() {
    for decks in [1, 2, 6] {
        let evs: Vec<(f64, f64)> = (2..=8)
            .map(|m| {
                let a = ev_cd(m, decks, m >= 3);
                (a.ev_cd, a.ev_basic)
            })
            .collect();
        for w in evs.windows(2) {
            assert!(w[1].0 >= w[0].0 - 1e-15, "{decks} decks CD: {evs:?}");
            assert!(w[1].1 >= w[0].1 - 1e-15, "{decks} decks basic: {evs:?}");
        }
        // one deck holds four cards of a rank: no pair but tens can reach a
        // fifth hand, and tens are never split off the top
        if decks > 1 {
            // five hands beat four by a visible margin (pairs of 8s, aces)
            assert!(evs[3].0 > evs[2].0 + 1e-7, "{decks} decks: {evs:?}");
            assert!(evs[3].1 > evs[2].1 + 1e-7, "{decks} decks: {evs:?}");
        } else {
            assert_eq!(evs[2].0, evs[6].0);
        }
    }
}

#[test]
fn a_pair_rich_shoe_gains_from_every_extra_hand() {
    // eights and aces against a ten-rich shoe: resplitting pays
    let shoe = Shoe::from_counts([8, 4, 4, 4, 4, 4, 4, 12, 4, 40]).unwrap();
    let evs: Vec<f64> = (2..=8)
        .map(|m| {
            analyse_shoe(
                &MainGameRules {
                    decks: 1,
                    max_split_hands: m,
                    resplit_aces: true,
                    ..MainGameRules::default()
                },
                &shoe,
            )
            .unwrap()
            .ev_cd
        })
        .collect();
    for w in evs.windows(2) {
        assert!(w[1] > w[0], "{evs:?}");
    }
}
