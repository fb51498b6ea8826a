//! Cross-field checks that make a [`super::RulesFile`] a playable game.

use super::{LinePay, PayLine, RulesFile, SideBetRules};
use crate::id::ShortId;
use crate::money::{Basis, Money, Ratio};
use crate::round::{MAX_BALANCE, MAX_ROUND_PAYOUT, MAX_SIDE_BETS};
use crate::sidebet::SideBetKind;

type Refusal = (String, String);

fn refuse(key: impl Into<String>, message: impl Into<String>) -> Result<(), Refusal> {
    Err((key.into(), message.into()))
}

/// Checks every rule that no single field's type can express.
pub(super) fn validate(f: &RulesFile) -> Result<(), Refusal> {
    check_id("game.id", "game", &f.game.id)?;
    let s = &f.shoe;
    if !(1..=8).contains(&s.decks) {
        return refuse(
            "shoe.decks",
            format!(
                "{} is not a whole number from 1 to 8 (decks in the shoe)",
                s.decks
            ),
        );
    }
    if !(s.penetration.is_finite() && super::PENETRATION.contains(&s.penetration)) {
        return refuse(
            "shoe.penetration",
            format!(
                "{} is not a number from {} to {} (the part of the shoe dealt before the cut card)",
                s.penetration,
                super::PENETRATION.start(),
                super::PENETRATION.end()
            ),
        );
    }
    if s.burn > 10 {
        return refuse(
            "shoe.burn",
            format!(
                "{} is not a whole number from 0 to 10 (cards burned after a shuffle)",
                s.burn
            ),
        );
    }
    let p = &f.player;
    if !(1..=8).contains(&p.max_split_hands) {
        return refuse(
            "player.max_split_hands",
            format!(
                "{} is not a whole number from 1 to 8 (the most hands a spot can split into; \
                 1: no split)",
                p.max_split_hands
            ),
        );
    }
    if p.resplit_aces && p.max_split_hands < 3 {
        return refuse(
            "player.resplit_aces",
            format!(
                "resplitting aces needs a hand limit of at least 3, but max_split_hands = {}",
                p.max_split_hands
            ),
        );
    }
    if p.one_card_split_aces && p.hit_split_aces {
        return refuse(
            "player.hit_split_aces",
            "split aces cannot be hit when they receive one card each (one_card_split_aces = true)",
        );
    }
    if p.double_for_less && p.double == super::DoubleOn::None {
        return refuse("player.double_for_less", "doubling for less needs doubling");
    }
    if p.double_after_split && p.double == super::DoubleOn::None {
        return refuse(
            "player.double_after_split",
            "doubling after a split needs doubling",
        );
    }
    if p.surrender_after_split && p.surrender == super::Surrender::None {
        return refuse(
            "player.surrender_after_split",
            "surrender after split needs a surrender rule",
        );
    }
    if p.surrender_after_split && p.max_split_hands < 2 {
        return refuse(
            "player.surrender_after_split",
            "surrender after split needs splitting",
        );
    }
    let t = &f.table;
    if !(1..=7).contains(&t.seats) {
        return refuse(
            "table.seats",
            format!(
                "{} is not a whole number from 1 to 7 (seats at the table)",
                t.seats
            ),
        );
    }
    if !(1..=7).contains(&t.max_spots_per_player) {
        return refuse(
            "table.max_spots_per_player",
            format!(
                "{} is not a whole number from 1 to 7 (betting spots one player may play)",
                t.max_spots_per_player
            ),
        );
    }
    check_full_table(f)?;
    let m = &f.main_bet;
    check_limits("main_bet", m.min, m.max, m.increment)?;
    check_ratio("main_bet.blackjack_pays", m.blackjack_pays)?;
    check_ratio("insurance.pays", f.insurance.pays)?;
    if m.blackjack_pays.num == 0 {
        return refuse("main_bet.blackjack_pays", "a natural must pay something");
    }
    if t.rounding == super::Rounding::Exact {
        let step = m.increment;
        if !m.blackjack_pays.is_exact_for(step) || !m.blackjack_pays.is_exact_for(m.min) {
            return refuse(
                "table.rounding",
                format!(
                    "rounding = \"exact\" needs every main bet to pay {} in whole cents, \
                     but the increment {} does not",
                    m.blackjack_pays, step
                ),
            );
        }
    }
    if let Some(min) = f.insurance.min {
        if min <= Money::ZERO {
            return refuse("insurance.min", "the insurance minimum must be positive");
        }
    }
    if f.side_bets.len() > MAX_SIDE_BETS {
        return refuse(
            format!("side_bets[{MAX_SIDE_BETS}]"),
            format!(
                "a table carries at most {MAX_SIDE_BETS} side bets, but this file has {}: \
                 remove {}",
                f.side_bets.len(),
                if f.side_bets.len() - MAX_SIDE_BETS == 1 {
                    "this one".to_string()
                } else {
                    format!("{} of them", f.side_bets.len() - MAX_SIDE_BETS)
                }
            ),
        );
    }
    let mut ids: Vec<&str> = Vec::new();
    for (i, b) in f.side_bets.iter().enumerate() {
        let key = format!("side_bets[{i}]");
        if ids.contains(&b.id.as_str()) {
            return refuse(
                format!("{key}.id"),
                format!("side bet id `{}` is used twice", b.id),
            );
        }
        ids.push(&b.id);
        validate_side_bet(&key, b)?;
    }
    check_shared_meters(f)?;
    check_payouts(f)
}

/// A ratio whose denominator is zero (possible in a file changed in code) is refused
/// before anything divides by it.
fn check_ratio(key: &str, r: Ratio) -> Result<(), Refusal> {
    if r.den == 0 {
        return refuse(key, format!("the ratio {r} divides by zero"));
    }
    Ok(())
}

/// Refuses a table whose initial deal alone, at a full table, needs more cards than
/// the shoe holds: every round at a full table would be voided.
///
/// A round is voided only when it needs a card and neither the shoe nor the discard
/// rack has one (`Round::draw_reshuffled`): when the undealt cards run out, the rack
/// (burned cards and earlier rounds' cards) is shuffled and dealt on, so a round can
/// hold every card of the shoe, `decks * 52`, burns included, and is voided exactly
/// when it needs one more. The fewest cards a round at a full table can need is its
/// initial deal (two a spot, two for the dealer): the round can end there (a dealer
/// natural, or every hand standing against a dealer 17). So a table is refused when
/// that deal exceeds the shoe, and only then: a worst case over every card sequence
/// (a hand can take up to 21 cards: twenty aces and one more) would refuse every
/// preset, whose rounds almost never come near the shoe's size.
fn check_full_table(f: &RulesFile) -> Result<(), Refusal> {
    let (decks, seats, spots) = (
        u32::from(f.shoe.decks),
        u32::from(f.table.seats),
        u32::from(f.table.max_spots_per_player),
    );
    let cards = decks * 52;
    let deal = 2 * seats * spots + 2;
    if deal > cards {
        let need = deal.div_ceil(52);
        return refuse(
            "shoe.decks",
            format!(
                "a full table ({seats} seats x {spots} spots = {} spots) needs {deal} cards for \
                 the initial deal alone (2 a spot and 2 for the dealer), but {decks} deck(s) \
                 hold {cards}: every round at a full table would be voided; use at least \
                 {need} decks, or fewer seats or spots per player",
                seats * spots
            ),
        );
    }
    Ok(())
}

/// The value a progressive meter is taken to hold, at most, when a meter line's payout
/// is bounded ([`super::METER_BOUND`]).
const METER: i128 = super::METER_BOUND.as_cents() as i128;

/// The money bound of a rules file (see [`super::PayoutBound`]), in wide integers so
/// that no file, however large its numbers, overflows the computation.
pub(super) struct Bound {
    /// The largest single settlement, stake returned included.
    pub largest: i128,
    /// The key of the rule that gives it.
    pub key: String,
    /// What one spot can receive in one round, at most.
    pub per_spot: i128,
    /// Spots one seat may play.
    pub spots: i128,
}

impl Bound {
    /// What one seat can receive in one round, at most.
    pub fn per_seat(&self) -> i128 {
        self.per_spot * self.spots
    }

    fn candidate(&mut self, amount: i128, key: impl FnOnce() -> String) {
        if amount > self.largest {
            self.largest = amount;
            self.key = key();
        }
    }
}

/// `stake * r` rounded down (`r.den` is not zero: checked before).
fn times(stake: i128, r: Ratio) -> i128 {
    stake * i128::from(r.num) / i128::from(r.den.max(1))
}

/// The stake plus `stake * r` (`to`) or `stake * r` (`for`).
fn returned(stake: i128, r: Ratio, basis: Basis) -> i128 {
    match basis {
        Basis::To => stake + times(stake, r),
        Basis::For => times(stake, r),
    }
}

/// The most any settlement can hand back, and the most one seat can receive in one
/// round, from the rules alone (the file's other checks have passed):
///
/// - a main hand: its stake is at most the maximum, twice that once doubled (a double
///   is never more than the bet); a win pays 1:1, a natural (never doubled or split)
///   the blackjack payout, even money 1:1. A spot holds at most `max_split_hands`
///   hands; a natural and a split cannot both happen on one spot.
/// - insurance: at most half the maximum bet, paid at the insurance ratio.
/// - a side bet: its maximum paid at the best line of its pay table; a meter line pays
///   at most its share of [`super::METER_BOUND`] (plus the stake on `to`).
///
/// A spot can win its main hands, its insurance and every side bet in one round; a seat
/// plays at most `max_spots_per_player` spots.
pub(super) fn bound(f: &RulesFile) -> Bound {
    let m = &f.main_bet;
    let max = i128::from(m.max.as_cents());
    let mut b = Bound {
        largest: 0,
        key: "main_bet.max".to_string(),
        per_spot: 0,
        spots: i128::from(f.table.max_spots_per_player),
    };
    let doubled = if f.player.double == super::DoubleOn::None {
        max
    } else {
        2 * max
    };
    let hand = 2 * doubled;
    let natural = returned(max, m.blackjack_pays, Basis::To);
    b.candidate(hand, || "main_bet.max".to_string());
    b.candidate(natural, || "main_bet.blackjack_pays".to_string());
    let hands = i128::from(f.player.max_split_hands.max(1));
    let mut spot = (hands * hand).max(natural).max(2 * max);
    if f.insurance.offer != super::InsuranceOffer::Off {
        let ins = returned((max + 1) / 2, f.insurance.pays, Basis::To);
        b.candidate(ins, || "insurance.pays".to_string());
        spot += ins;
    }
    for (i, bet) in f.side_bets.iter().enumerate() {
        let stake = i128::from(bet.max.as_cents());
        let mut best = 0;
        for (j, line) in bet.pays.iter().enumerate() {
            let (amount, field) = match line.pay {
                LinePay::Odds(r) => (returned(stake, r, line.basis), "odds"),
                LinePay::Meter(p) => {
                    let share = METER * i128::from(p.min(100)) / 100;
                    let back = if line.basis == Basis::To { stake } else { 0 };
                    (share + back, "meter_percent")
                }
            };
            b.candidate(amount, || format!("side_bets[{i}].pays[{j}].{field}"));
            best = best.max(amount);
        }
        spot += best;
    }
    b.per_spot = spot;
    b
}

/// `cents` as an amount with thousands separators (`1,000,000,012,112.50`), for any
/// width.
fn show(cents: i128) -> String {
    let sign = if cents < 0 { "-" } else { "" };
    let a = cents.unsigned_abs();
    let whole = (a / 100).to_string();
    let mut grouped = String::new();
    for (i, c) in whole.chars().enumerate() {
        if i > 0 && (whole.len() - i).is_multiple_of(3) {
            grouped.push(',');
        }
        grouped.push(c);
    }
    format!("{sign}{grouped}.{:02}", a % 100)
}

/// Refuses a file whose payouts could overflow what the engine and the books hold:
/// what one seat can receive in one round must not exceed [`MAX_ROUND_PAYOUT`] (so a
/// balance at [`MAX_BALANCE`] plus a round's winnings, and a house paying every seat,
/// stay within 64-bit cents). The error names the rule of the largest payout.
fn check_payouts(f: &RulesFile) -> Result<(), Refusal> {
    for (i, b) in f.side_bets.iter().enumerate() {
        if let Some(p) = &b.progressive {
            if p.reset > super::METER_BOUND {
                return refuse(
                    format!("side_bets[{i}].progressive.reset"),
                    format!(
                        "a meter's reset value is at most {} (the engine's balance limit), \
                         not {}",
                        show(super::METER_BOUND.as_cents().into()),
                        show(p.reset.as_cents().into())
                    ),
                );
            }
        }
    }
    let b = bound(f);
    let seat = b.per_seat();
    if seat > i128::from(MAX_ROUND_PAYOUT.as_cents()) {
        return refuse(
            b.key.clone(),
            format!(
                "one payout here can reach {} and one seat's payouts in one round {} \
                 ({} spot(s) x {} a spot), above {}, the most the engine and the books can \
                 hold for a round (balances are at most {}): lower this payout or the \
                 bet's maximum",
                show(b.largest),
                show(seat),
                b.spots,
                show(b.per_spot),
                show(MAX_ROUND_PAYOUT.as_cents().into()),
                show(MAX_BALANCE.as_cents().into())
            ),
        );
    }
    Ok(())
}

fn check_limits(key: &str, min: Money, max: Money, inc: Money) -> Result<(), Refusal> {
    if inc <= Money::ZERO {
        return refuse(
            format!("{key}.increment"),
            "the bet increment must be positive",
        );
    }
    if min <= Money::ZERO {
        return refuse(format!("{key}.min"), "the minimum bet must be positive");
    }
    if max < min {
        return refuse(
            format!("{key}.max"),
            format!("the maximum {max} is below the minimum {min}"),
        );
    }
    if !min.is_multiple_of(inc) || !max.is_multiple_of(inc) {
        return refuse(
            format!("{key}.increment"),
            format!("the minimum {min} and maximum {max} must be multiples of the increment {inc}"),
        );
    }
    if max.as_cents() > 1_000_000_000 {
        return refuse(format!("{key}.max"), "the maximum bet is too large");
    }
    Ok(())
}

/// An id (`game.id`, a side bet's `id`, a meter's `meter`) names the game, the bet or
/// the meter in every output, in events and in the books: 1 to [`ShortId::MAX_LEN`]
/// bytes of ASCII letters, digits, `-` and `_`, the form the engine holds inline and the
/// books accept as written.
fn check_id(key: &str, what: &str, id: &str) -> Result<(), Refusal> {
    const RULE: &str = "an id is 1 to 31 characters: letters a-z or A-Z, digits, `-` or `_`";
    if id.is_empty() {
        return refuse(key, format!("the {what} id is empty: {RULE}"));
    }
    if id.len() > ShortId::MAX_LEN {
        return refuse(
            key,
            format!("the {what} id `{id}` is {} bytes long: {RULE}", id.len()),
        );
    }
    if let Some(c) = id
        .chars()
        .find(|c| !(c.is_ascii_alphanumeric() || *c == '-' || *c == '_'))
    {
        return refuse(key, format!("the {what} id {id:?} holds {c:?}: {RULE}"));
    }
    Ok(())
}

/// Side bets that name one meter share it, so they must agree on its reset value (a
/// table keeps one meter per id).
fn check_shared_meters(f: &RulesFile) -> Result<(), Refusal> {
    for (i, b) in f.side_bets.iter().enumerate() {
        let Some(p) = &b.progressive else { continue };
        let earlier = f.side_bets[..i]
            .iter()
            .enumerate()
            .filter_map(|(j, e)| e.progressive.as_ref().map(|q| (j, q)))
            .find(|(_, q)| q.meter == p.meter && q.reset != p.reset);
        if let Some((j, q)) = earlier {
            return refuse(
                format!("side_bets[{i}].progressive.reset"),
                format!(
                    "the meter `{}` is shared with side_bets[{j}], whose reset is {}: one \
                     meter has one reset value, not {} as well",
                    p.meter, q.reset, p.reset
                ),
            );
        }
    }
    Ok(())
}

fn validate_side_bet(key: &str, b: &SideBetRules) -> Result<(), Refusal> {
    check_id(&format!("{key}.id"), "side bet", &b.id)?;
    check_limits(key, b.min, b.max, b.increment)?;
    if b.pays.is_empty() {
        return refuse(
            format!("{key}.pays"),
            "a side bet pay table needs at least one line",
        );
    }
    let sevens = b.kind == SideBetKind::Sevens;
    if !sevens {
        if b.third_card.is_some() {
            return refuse(
                format!("{key}.third_card"),
                "only a 7s bet has a third card",
            );
        }
        if b.third_card_on_dealer_natural {
            return refuse(
                format!("{key}.third_card_on_dealer_natural"),
                "only a 7s bet has a third card",
            );
        }
        if !b.one_seven_pays {
            return refuse(
                format!("{key}.one_seven_pays"),
                "only a 7s bet has a one-7 line",
            );
        }
    }
    let mut has_meter = false;
    for (j, line) in b.pays.iter().enumerate() {
        let lk = format!("{key}.pays[{j}]");
        validate_line(&lk, b.kind, line)?;
        if b.pays[..j].iter().any(|l| l.hand == line.hand) {
            return refuse(
                format!("{lk}.hand"),
                format!("the hand `{}` is listed twice", line.hand.describe()),
            );
        }
        has_meter |= matches!(line.pay, LinePay::Meter(_));
    }
    match (&b.progressive, has_meter) {
        (None, true) => refuse(
            format!("{key}.progressive"),
            "a pay line pays a share of the meter, but the bet has no [progressive] meter",
        ),
        (Some(p), _) => {
            check_id(&format!("{key}.progressive.meter"), "meter", &p.meter)?;
            if p.reset <= Money::ZERO {
                return refuse(
                    format!("{key}.progressive.reset"),
                    "the reset must be positive",
                );
            }
            if p.increment < Money::ZERO || p.increment > b.min {
                return refuse(
                    format!("{key}.progressive.increment"),
                    "the meter increment must be between 0 and the minimum wager",
                );
            }
            Ok(())
        }
        (None, false) => Ok(()),
    }
}

fn validate_line(key: &str, kind: SideBetKind, line: &PayLine) -> Result<(), Refusal> {
    if line.hand.kind() != kind {
        return refuse(
            format!("{key}.hand"),
            format!(
                "`{}` is not a hand of a {} bet (kind = \"{}\")",
                serde_name(&line.hand),
                kind_words(kind),
                serde_name(&kind)
            ),
        );
    }
    match line.pay {
        LinePay::Odds(r) if r.den == 0 => refuse(
            format!("{key}.odds"),
            format!("the odds {r} divide by zero"),
        ),
        LinePay::Odds(r) if r.num == 0 => refuse(
            format!("{key}.odds"),
            format!("the odds {r} pay nothing: a pay line pays more than 0"),
        ),
        LinePay::Meter(p) if !(1..=100).contains(&p) => refuse(
            format!("{key}.meter_percent"),
            format!("{p} is not a whole number from 1 to 100 (the percent of the meter paid)"),
        ),
        _ => Ok(()),
    }
}

/// A side-bet kind as a player names it.
fn kind_words(kind: SideBetKind) -> &'static str {
    match kind {
        SideBetKind::LuckyLucky => "Lucky Lucky",
        SideBetKind::ThreeCardPoker => "three-card poker",
        SideBetKind::LuckyLadies => "Lucky Ladies",
        SideBetKind::Sevens => "7s",
    }
}

/// The name a rules file writes for `v` (`lucky-lucky`, `three-sevens`).
fn serde_name<T: serde::Serialize + std::fmt::Debug>(v: &T) -> String {
    toml::Value::try_from(v)
        .ok()
        .and_then(|v| v.as_str().map(str::to_string))
        .unwrap_or_else(|| format!("{v:?}"))
}
