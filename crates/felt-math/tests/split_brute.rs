//! Splits and resplits to every hand limit the engine accepts (2..=8),
//! checked against a brute-force enumerator that deals a split round card
//! by card in the casino's order (a hand is played out before the next one
//! gets its second card) on small shoes rich in the pair card, and the
//! monotonicity of the player's value in the hand limit.

mod common;

use common::brute_dealer;
use std::collections::HashMap;

use felt_math::main_game::*;

const NAT: usize = 6;
const BUST: usize = 5;

fn rules(m: u32, obo: bool, das: bool) -> MainGameRules {
    MainGameRules {
        decks: 1,
        dealer_hits_soft_17: true,
        // no hole-card peek: every value is unconditioned, as enumerated
        peek: Peek::None,
        no_peek_loss: if obo {
            NoPeekLoss::OriginalBetsOnly
        } else {
            NoPeekLoss::AllBets
        },
        blackjack_pays: (3, 2),
        double: DoubleOn::AnyTwo,
        double_after_split: das,
        max_split_hands: m,
        resplit_aces: true,
        one_card_to_split_aces: true,
        hit_split_aces: false,
        surrender: Surrender::None,
        surrender_after_split: false,
        split_by_rank: false,
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

struct Brute {
    shoe: [u32; 10],
    up: usize,
    pair: usize,
    m: u32,
    obo: bool,
    das: bool,
    dealer: HashMap<[u32; 10], [f64; 7]>,
    hit: HashMap<[u32; 10], f64>,
    split: HashMap<SplitKey, ([f64; 7], f64)>,
}

impl Brute {
    fn new(shoe: [u32; 10], up: usize, pair: usize, m: u32, obo: bool, das: bool) -> Self {
        Brute {
            shoe,
            up,
            pair,
            m,
            obo,
            das,
            dealer: HashMap::new(),
            hit: HashMap::new(),
            split: HashMap::new(),
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

    /// Unsplit values of the hand `c` (its cards out of the full shoe, the
    /// up card too): the CDZ- decisions are taken on these.
    fn unseen_of(&self, c: &[u32; 10]) -> [u32; 10] {
        minus1(&minus(&self.shoe, c), self.up)
    }

    fn stand(&mut self, c: &[u32; 10]) -> f64 {
        let (t, _) = total(c);
        let d = self.dealer(&self.unseen_of(c));
        (0..7).map(|i| d[i] * unit(t, i)).sum()
    }

    fn draws(&self, c: &[u32; 10]) -> Vec<(usize, f64)> {
        let u = self.unseen_of(c);
        let n: u32 = u.iter().sum();
        (0..10)
            .filter(|&x| u[x] > 0)
            .map(|x| (x, f64::from(u[x]) / f64::from(n)))
            .collect()
    }

    fn hit(&mut self, c: &[u32; 10]) -> f64 {
        if let Some(v) = self.hit.get(c) {
            return *v;
        }
        let mut v = 0.0;
        for (x, p) in self.draws(c) {
            let c2 = plus1(c, x);
            v += p * if total(&c2).1 {
                -1.0
            } else {
                self.stand(&c2).max(self.hit(&c2))
            };
        }
        self.hit.insert(*c, v);
        v
    }

    fn double(&mut self, c: &[u32; 10]) -> f64 {
        let mut v = 0.0;
        for (x, p) in self.draws(c) {
            let c2 = plus1(c, x);
            let d = self.dealer(&self.unseen_of(&c2));
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

    /// CDZ-: the play the same cards get unsplit, among the options allowed
    /// after a split (ties go to the earlier of stand, hit, double).
    fn decide(&mut self, c: &[u32; 10]) -> Play {
        let (t, _) = total(c);
        let mut best = (Play::Stand, self.stand(c));
        let h = self.hit(c);
        if h > best.1 {
            best = (Play::Hit, h);
        }
        if ncards(c) == 2 && self.das {
            let _ = t;
            let d = self.double(c);
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
        made: u32,
        pending: u32,
        c: &[u32; 10],
        stake: f64,
    ) -> ([f64; 7], f64) {
        let (pd, ev) = if pending > 0 {
            let mut start = [0u32; 10];
            start[self.pair] = 1;
            self.round(unseen, made, pending - 1, &start)
        } else {
            (self.dealer(unseen), 0.0)
        };
        let mine: f64 = (0..7).map(|d| pd[d] * self.pay(c, stake, d)).sum();
        (pd, ev + mine)
    }

    fn play(
        &mut self,
        unseen: &[u32; 10],
        made: u32,
        pending: u32,
        c: &[u32; 10],
    ) -> ([f64; 7], f64) {
        let act = if self.pair == 0 {
            Play::Stand // one card to split aces
        } else if ncards(c) == 2 {
            self.decide(c)
        } else if self.hit(c) > self.stand(c) {
            Play::Hit
        } else {
            Play::Stand
        };
        if act == Play::Stand {
            return self.finish(unseen, made, pending, c, 1.0);
        }
        let n: u32 = unseen.iter().sum();
        let (mut pd, mut ev) = ([0.0; 7], 0.0);
        for x in (0..10).filter(|&x| unseen[x] > 0) {
            let p = f64::from(unseen[x]) / f64::from(n);
            let (u2, c2) = (minus1(unseen, x), plus1(c, x));
            let (d, v) = if act == Play::Double {
                self.finish(&u2, made, pending, &c2, 2.0)
            } else if total(&c2).1 {
                self.finish(&u2, made, pending, &c2, 1.0)
            } else {
                self.play(&u2, made, pending, &c2)
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
        let n: u32 = unseen.iter().sum();
        let (mut pd, mut ev) = ([0.0; 7], 0.0);
        for x in (0..10).filter(|&x| unseen[x] > 0) {
            let p = f64::from(unseen[x]) / f64::from(n);
            let u2 = minus1(unseen, x);
            let (d, v) = if x == self.pair && made < self.m {
                self.round(&u2, made + 1, pending + 1, c)
            } else {
                self.play(&u2, made, pending, &plus1(c, x))
            };
            for i in 0..7 {
                pd[i] += p * d[i];
            }
            ev += p * v;
        }
        self.split.insert(key, (pd, ev));
        (pd, ev)
    }

    /// Expected value of splitting the pair against the up card.
    fn split_value(&mut self) -> f64 {
        let mut unseen = self.shoe;
        unseen[self.pair] -= 2;
        unseen[self.up] -= 1;
        let mut start = [0u32; 10];
        start[self.pair] = 1;
        let (pd, ev) = self.round(&unseen, 2, 1, &start);
        if self.obo {
            ev - pd[NAT]
        } else {
            ev
        }
    }
}

fn check(shoe: [u32; 10], pair: usize, ups: &[usize], ms: std::ops::RangeInclusive<u32>) {
    for m in ms {
        for &up in ups {
            for (obo, das) in [(false, true), (true, false)] {
                let r = rules(m, obo, das);
                let s = Shoe::from_counts(shoe).unwrap();
                let p = pair as u8 + 1;
                let got = hand_evs(&r, &s, &[p, p], up as u8 + 1)
                    .unwrap()
                    .split
                    .unwrap();
                let want = Brute::new(shoe, up, pair, m, obo, das).split_value();
                assert!(
                    (got - want).abs() < 1e-11,
                    "pair {p} v {} m {m} obo {obo} das {das}: {got} vs brute {want}",
                    up + 1
                );
            }
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
