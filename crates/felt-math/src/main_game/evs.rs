//! Expected values of every option for one hand against one up card.

use super::analysis::min_value;
use super::engine::{BsPlay, Engine, GroupScratch, Level};
use super::error::MainGameError;
use super::hands::{hands, key_of};
use super::rules::{MainGameRules, Prepared, Surrender};
use super::shoe::{rank_index, Shoe};
use super::split::levels;
use super::strategy::Action;

/// Expected values (per unit initial bet) of the options of one hand.
///
/// When the dealer peeked under this up card (`conditioned`), the values
/// are conditioned on the dealer not having a natural, as a player sees
/// them at the table; otherwise they are unconditional (a dealer natural is
/// one outcome). Early surrender is valued at -0.5 before the peek.
/// `best` is the optimal option, decided on the round's (unconditioned)
/// values.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ActionEvs {
    /// Standing (for a natural: its payout).
    pub stand: f64,
    /// Hitting, then playing optimally (`None` for a natural).
    pub hit: Option<f64>,
    /// Doubling, when the rules allow it on this hand.
    pub double: Option<f64>,
    /// Splitting (resplitting whenever allowed, `rules.post_split` play), for
    /// a splittable pair.
    pub split: Option<f64>,
    /// Surrendering, when allowed (first two cards).
    pub surrender: Option<f64>,
    /// The option with the highest expected value.
    pub best: Action,
    /// Probability the dealer has a natural given the cards seen.
    pub dealer_natural: f64,
    /// Whether the values are conditioned on no dealer natural.
    pub conditioned: bool,
}

/// Exact expected values of the options of the hand `player_cards` (ranks
/// 1 = ace ..= 10, at least two cards, hard total at most 21) against up
/// card `up`, the round dealt from `shoe` (which still holds the player's
/// cards and the up card). Every decision is composition dependent; hands
/// after a split follow `rules.post_split`. For split-by-rank ten pairs the
/// pair is taken to be of one rank and the shoe's other tens spread evenly
/// over the ranks.
pub fn hand_evs(
    rules: &MainGameRules,
    shoe: &Shoe,
    player_cards: &[u8],
    up: u8,
) -> Result<ActionEvs, MainGameError> {
    let prep = Prepared::new(rules)?;
    let u = rank_index(up)?;
    if player_cards.len() < 2 {
        return Err(MainGameError::InvalidHand(
            "a hand has at least two cards".into(),
        ));
    }
    if player_cards.len() > 21 {
        return Err(MainGameError::InvalidHand("too many cards".into()));
    }
    let mut counts = [0u8; 10];
    let mut left = *shoe;
    for &c in player_cards {
        counts[rank_index(c)?] += 1;
        left.remove(c)?;
    }
    left.remove(up)?;
    let hx = hands();
    let h = hx
        .find(key_of(&counts))
        .ok_or_else(|| MainGameError::InvalidHand("the hand is bust".into()))? as usize;
    let total = hx.total[h];
    let soft = hx.soft[h];
    let hard = u32::from(total) - if soft { 10 } else { 0 };
    if left.hard_value() < 21 - hard + 16 {
        return Err(MainGameError::ShoeTooSmall(
            "the hand or the dealer could run out of cards".into(),
        ));
    }
    let two = player_cards.len() == 2;
    let natural = two && counts[0] == 1 && counts[9] == 1;
    let pair = if two {
        (0..10).find(|&r| counts[r] == 2)
    } else {
        None
    };
    let mut e = Engine::new(prep, shoe.signed(), f64::from(shoe.counts()[9]) / 4.0);
    e.unsplit_pass();
    let i = h * 10 + u;
    let pbj = e.pbj[i];
    let conditioned = e.r.peeked[u];
    let cond = |v: f64| {
        if conditioned && pbj < 1.0 {
            (v + pbj) / (1.0 - pbj)
        } else {
            v
        }
    };
    if natural {
        let v = e.r.bj * (1.0 - pbj);
        return Ok(ActionEvs {
            stand: if conditioned && pbj < 1.0 {
                v / (1.0 - pbj)
            } else {
                v
            },
            hit: None,
            double: None,
            split: None,
            surrender: None,
            best: Action::Stand,
            dealer_natural: pbj,
            conditioned,
        });
    }
    let mut opts = vec![(Action::Stand, e.stand[i]), (Action::Hit, e.hit[i])];
    let double = (two && e.r.can_double(total, soft)).then_some(e.dbl[i]);
    if let Some(d) = double {
        opts.push((Action::Double, d));
    }
    let mut split = None;
    if let Some(p) = pair {
        if e.r.max_hands[p] >= 2 && left.hard_value() >= min_value(e.r.max_hands[p]) {
            let post = [[Action::Stand; 10]; 10];
            let none = Box::new([[[false; 10]; 22]; 2]);
            let play = BsPlay {
                multi_hit: &none,
                post_split: post,
            };
            let mut g = GroupScratch::new(hx.len());
            e.mark_needed(p, &play, &mut g);
            let lv: Vec<Level> = (0..levels(e.r.max_hands[p]))
                .map(|a| e.group_pass(p, a, &play, &mut g))
                .collect();
            let x: Vec<f64> = lv.iter().map(|l| l.x_cd[u]).collect();
            let pv: Vec<f64> = lv.iter().map(|l| l.pv_cd[u]).collect();
            let s = e.split_ev(p, u, &x, &pv);
            split = Some(s);
            opts.push((Action::Split, s));
        }
    }
    let surrender = if two { e.r.surrender_value(pbj) } else { None };
    if let Some(s) = surrender {
        opts.push((Action::Surrender, s));
    }
    let best = opts
        .iter()
        .fold((Action::Stand, f64::NEG_INFINITY), |b, &(a, v)| {
            if v > b.1 {
                (a, v)
            } else {
                b
            }
        })
        .0;
    let sur_shown = surrender.map(|s| {
        if rules.surrender == Surrender::Early {
            s
        } else {
            cond(s)
        }
    });
    Ok(ActionEvs {
        stand: cond(e.stand[i]),
        hit: Some(cond(e.hit[i])),
        double: double.map(cond),
        split: split.map(cond),
        surrender: sur_shown,
        best,
        dealer_natural: pbj,
        conditioned,
    })
}
