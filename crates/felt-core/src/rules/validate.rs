//! Cross-field checks that make a [`super::RulesFile`] a playable game.

use super::{PayLine, RulesFile, SideBetRules};
use crate::money::Money;
use crate::sidebet::SideBetKind;

type Refusal = (String, String);

fn refuse(key: impl Into<String>, message: impl Into<String>) -> Result<(), Refusal> {
    Err((key.into(), message.into()))
}

/// Checks every rule that no single field's type can express.
pub(super) fn validate(f: &RulesFile) -> Result<(), Refusal> {
    if f.game.id.trim().is_empty() {
        return refuse("game.id", "the game id must not be empty");
    }
    let s = &f.shoe;
    if !(1..=8).contains(&s.decks) {
        return refuse(
            "shoe.decks",
            format!("{} decks: 1 to 8 are allowed", s.decks),
        );
    }
    if !(s.penetration.is_finite() && super::PENETRATION.contains(&s.penetration)) {
        return refuse(
            "shoe.penetration",
            format!(
                "penetration {} must be between {} and {}",
                s.penetration,
                super::PENETRATION.start(),
                super::PENETRATION.end()
            ),
        );
    }
    if s.burn > 10 {
        return refuse("shoe.burn", "at most 10 burn cards");
    }
    let p = &f.player;
    if !(1..=8).contains(&p.max_split_hands) {
        return refuse(
            "player.max_split_hands",
            "the hand limit is 1 (no split) to 8 hands",
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
        return refuse("table.seats", "a table has 1 to 7 seats");
    }
    if !(1..=7).contains(&t.max_spots_per_player) {
        return refuse("table.max_spots_per_player", "1 to 7 spots per player");
    }
    let m = &f.main_bet;
    check_limits("main_bet", m.min, m.max, m.increment)?;
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

fn validate_side_bet(key: &str, b: &SideBetRules) -> Result<(), Refusal> {
    if b.id.trim().is_empty() {
        return refuse(format!("{key}.id"), "a side bet needs an id");
    }
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
        has_meter |= line.meter_percent.is_some();
    }
    match (&b.progressive, has_meter) {
        (None, true) => refuse(
            format!("{key}.progressive"),
            "a pay line pays a share of the meter, but the bet has no [progressive] meter",
        ),
        (Some(p), _) => {
            if p.meter.trim().is_empty() {
                return refuse(format!("{key}.progressive.meter"), "the meter needs an id");
            }
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
                "`{}` is not a hand of a {kind:?} bet",
                serde_name(line.hand)
            ),
        );
    }
    match (line.odds, line.meter_percent) {
        (Some(_), Some(_)) | (None, None) => refuse(
            key,
            "a pay line has exactly one of `odds` and `meter_percent`",
        ),
        (Some(r), None) if r.num == 0 => refuse(format!("{key}.odds"), "odds must be positive"),
        (None, Some(p)) if !(1..=100).contains(&p) => refuse(
            format!("{key}.meter_percent"),
            "a meter share is 1 to 100 percent",
        ),
        _ => Ok(()),
    }
}

fn serde_name(h: crate::sidebet::HandName) -> String {
    toml::Value::try_from(h)
        .ok()
        .and_then(|v| v.as_str().map(str::to_string))
        .unwrap_or_else(|| format!("{h:?}"))
}
