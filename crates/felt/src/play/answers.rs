//! Reading the player's answers: amounts, yes or no, and decisions, each refused with
//! the reason when it is not one of the legal choices.

use felt_core::round::Decision;
use felt_core::Money;

/// An amount; empty takes `default`.
pub fn parse_amount(s: &str, default: Money) -> Result<Money, String> {
    if s.is_empty() {
        return Ok(default);
    }
    let m: Money = s
        .parse()
        .map_err(|e: felt_core::money::ParseMoneyError| e.to_string())?;
    if m < Money::ZERO {
        return Err("an amount cannot be negative".to_string());
    }
    Ok(m)
}

/// Yes or no; empty takes `default`.
pub fn parse_yes_no(s: &str, default: bool) -> Result<bool, String> {
    match s.to_ascii_lowercase().as_str() {
        "" => Ok(default),
        "n" | "no" => Ok(false),
        "y" | "yes" => Ok(true),
        _ => Err("answer y or n".to_string()),
    }
}

/// The menu of legal choices, e.g. `[h]it, [s]tand, [d]ouble 5.00, s[p]lit`.
pub fn choice_menu(legal: &felt_core::Legal) -> String {
    use felt_core::round::Decisions as D;
    let d = legal.decisions;
    let mut items = Vec::new();
    if d.contains(D::HIT) {
        items.push("[h]it".to_string());
    }
    if d.contains(D::STAND) {
        items.push("[s]tand".to_string());
    }
    if d.contains(D::DOUBLE) {
        match legal.double {
            Some(r) if r.min != r.max => items.push(format!("[d]ouble {} to {}", r.min, r.max)),
            Some(r) => items.push(format!("[d]ouble {}", r.max)),
            None => items.push("[d]ouble".to_string()),
        }
    }
    if d.contains(D::SPLIT) {
        items.push("s[p]lit".to_string());
    }
    if d.contains(D::SURRENDER) {
        items.push("su[r]render".to_string());
    }
    if d.contains(D::INSURE) {
        match legal.insurance {
            Some(r) if r.min != r.max => items.push(format!("[i]nsurance {} to {}", r.min, r.max)),
            Some(r) => items.push(format!("[i]nsurance {}", r.max)),
            None => items.push("[i]nsurance".to_string()),
        }
    }
    if d.contains(D::EVEN_MONEY) {
        items.push("[e]ven money".to_string());
    }
    if d.contains(D::DECLINE) {
        items.push("[n]o thanks".to_string());
    }
    items.join(", ")
}

/// What each choice offered now does, one a line.
pub fn decision_help(legal: &felt_core::Legal) -> String {
    use felt_core::round::Decisions as D;
    let d = legal.decisions;
    let amounts = |r: Option<felt_core::round::AmountRange>, what: &str| match r {
        Some(r) if r.min != r.max => {
            format!(
                " (`{what} AMOUNT`: {} to {}; alone: {})",
                r.min, r.max, r.max
            )
        }
        Some(r) => format!(" (for {})", r.max),
        None => String::new(),
    };
    let mut lines = Vec::new();
    let mut add = |bit: D, text: String| {
        if d.contains(bit) {
            lines.push(format!("  {text}"));
        }
    };
    add(D::HIT, "h, hit: take a card".into());
    add(D::STAND, "s, stand: take no more cards".into());
    add(
        D::DOUBLE,
        format!(
            "d, double: add to the bet and take exactly one card{}",
            amounts(legal.double, "d")
        ),
    );
    add(
        D::SPLIT,
        "p, split: two hands, each with a bet equal to this one".into(),
    );
    add(
        D::SURRENDER,
        "r, surrender: give up the hand and half the bet".into(),
    );
    add(
        D::INSURE,
        format!(
            "i, insurance: a bet that the dealer has blackjack, paid 2 to 1{}",
            amounts(legal.insurance, "i")
        ),
    );
    add(
        D::EVEN_MONEY,
        "e, even money: your blackjack paid 1 to 1 now, whatever the dealer has".into(),
    );
    add(D::DECLINE, "n, no thanks: decline the offer".into());
    lines.join("\n")
}

/// Why `m` is not an amount `r` allows: out of range, or between two steps (C-6: an
/// insurance or a double for less goes in the table's steps, or is exactly the full
/// amount).
fn refuse_amount(m: Money, r: felt_core::round::AmountRange) -> String {
    let full = if r.full != r.max && !r.full.is_multiple_of(r.step) {
        format!(", or exactly {}", r.full)
    } else if !r.max.is_multiple_of(r.step) {
        format!(", or exactly {}", r.max)
    } else {
        String::new()
    };
    if m >= r.min && m <= r.max {
        format!(
            "{m} is not allowed: amounts go in steps of {} from {} to {}{full}",
            r.step, r.min, r.max
        )
    } else {
        format!(
            "{m} is not allowed: {} to {} in steps of {}{full}",
            r.min, r.max, r.step
        )
    }
}

/// What a choice needs besides the answer: the legal choices, the hand's stake (the
/// amount of a double, or twice an insurance, when the answer gives none and none is
/// offered), and the engine's check of a decision.
pub struct Choice<'a, F> {
    /// The legal choices now.
    pub legal: &'a felt_core::Legal,
    /// The stake of the hand deciding.
    pub stake: Money,
    /// The engine's verdict on a decision (`Round::check_decision`).
    pub check: F,
}

/// Reads a choice; a decision the engine refuses is answered with the engine's reason
/// (C-10), and the question, asked again, shows the choices.
pub fn parse_decision<F>(s: &str, c: &Choice<'_, F>) -> Result<Decision, String>
where
    F: Fn(Decision) -> Result<(), felt_core::ActionError>,
{
    let legal = c.legal;
    let mut words = s.split_whitespace();
    let word = words.next().unwrap_or("").to_ascii_lowercase();
    let amount = words.next();
    // The amount given, else the most offered, else (nothing offered: the engine says
    // why) the full amount.
    let pick =
        |range: Option<felt_core::round::AmountRange>, full: Money| -> Result<Money, String> {
            let given = amount
                .map(|t| {
                    t.parse::<Money>()
                        .map_err(|e: felt_core::money::ParseMoneyError| e.to_string())
                })
                .transpose()?;
            match (range, given) {
                (None, g) => Ok(g.unwrap_or(full)),
                (Some(r), None) => Ok(r.max),
                (Some(r), Some(m)) if r.allows(m) => Ok(m),
                (Some(r), Some(m)) => Err(refuse_amount(m, r)),
            }
        };
    let d = match word.as_str() {
        "h" | "hit" => Decision::Hit,
        "s" | "stand" => Decision::Stand,
        "d" | "double" => Decision::Double(pick(legal.double, c.stake)?),
        "p" | "split" => Decision::Split,
        "r" | "surrender" => Decision::Surrender,
        "i" | "insurance" | "insure" => {
            Decision::Insure(pick(legal.insurance, Money(c.stake.as_cents() / 2))?)
        }
        "e" | "even" | "even-money" => Decision::EvenMoney,
        "n" | "no" => Decision::Decline,
        "" => return Err(format!("choose one of: {}", choice_menu(legal))),
        other => return Err(format!("`{other}` is not a choice: {}", choice_menu(legal))),
    };
    if amount.is_some() && !matches!(d, Decision::Double(_) | Decision::Insure(_)) {
        return Err(format!("`{word}` takes no amount"));
    }
    if words.next().is_some() {
        return Err("too many words: give a choice and at most one amount".to_string());
    }
    (c.check)(d).map_err(|e| e.to_string())?;
    Ok(d)
}

#[cfg(test)]
mod amount_tests {
    use super::*;
    use felt_core::round::{AmountRange, Decisions, Turn};

    /// `parse_decision` with an engine that takes whatever the legal set allows.
    fn parse(s: &str, legal: &felt_core::Legal) -> Result<Decision, String> {
        let c = Choice {
            legal,
            stake: Money::cents(1000),
            check: |d: Decision| {
                if legal.decisions.allows(d) {
                    Ok(())
                } else {
                    Err(felt_core::ActionError::NoChanceStep)
                }
            },
        };
        parse_decision(s, &c)
    }

    fn insurance(min: i64, max: i64, step: i64, full: i64) -> felt_core::Legal {
        felt_core::Legal {
            turn: Turn::Done,
            decisions: Decisions::INSURE,
            double: None,
            insurance: Some(AmountRange {
                min: Money::cents(min),
                max: Money::cents(max),
                step: Money::cents(step),
                full: Money::cents(full),
            }),
        }
    }

    #[test]
    fn c_6_an_amount_between_steps_says_the_step_and_one_out_of_range_the_range() {
        // Lucky Ladies, a 10.00 bet: insurance from 1.00 to 5.00 in steps of 1.00.
        let legal = insurance(100, 500, 100, 500);
        let e = parse("i 2.50", &legal).unwrap_err();
        assert_eq!(
            e,
            "2.50 is not allowed: amounts go in steps of 1.00 from 1.00 to 5.00"
        );
        let e = parse("i 7", &legal).unwrap_err();
        assert_eq!(e, "7.00 is not allowed: 1.00 to 5.00 in steps of 1.00");
        assert_eq!(
            parse("i 2", &legal),
            Ok(Decision::Insure(Money::cents(200)))
        );
        // Half of a 7.00 bet: 3.50 is allowed as the full amount, and said so.
        let legal = insurance(100, 350, 100, 350);
        let e = parse("i 2.50", &legal).unwrap_err();
        assert!(e.ends_with("or exactly 3.50"), "{e}");
        assert_eq!(
            parse("i 3.50", &legal),
            Ok(Decision::Insure(Money::cents(350)))
        );
    }
}
