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

/// Yes or no; empty is no.
pub fn parse_yes_no(s: &str) -> Result<bool, String> {
    match s.to_ascii_lowercase().as_str() {
        "" | "n" | "no" => Ok(false),
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
            Some(r) if r.min != r.max => {
                items.push(format!("[d]ouble (d AMOUNT, {} to {})", r.min, r.max))
            }
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
            Some(r) if r.min != r.max => {
                items.push(format!("[i]nsurance (i AMOUNT, {} to {})", r.min, r.max))
            }
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

/// Reads a choice; refuses what is not offered, saying what is.
pub fn parse_decision(s: &str, legal: &felt_core::Legal) -> Result<Decision, String> {
    let mut words = s.split_whitespace();
    let word = words.next().unwrap_or("").to_ascii_lowercase();
    let amount = words.next();
    let pick = |range: Option<felt_core::round::AmountRange>| -> Result<Money, String> {
        let r = range.ok_or("no amount is offered")?;
        match amount {
            None => Ok(r.max),
            Some(t) => {
                let m: Money = t
                    .parse()
                    .map_err(|e: felt_core::money::ParseMoneyError| e.to_string())?;
                if r.allows(m) {
                    Ok(m)
                } else {
                    Err(format!("{m} is not allowed: {} to {}", r.min, r.max))
                }
            }
        }
    };
    let d = match word.as_str() {
        "h" | "hit" => Decision::Hit,
        "s" | "stand" => Decision::Stand,
        "d" | "double" => Decision::Double(pick(legal.double)?),
        "p" | "split" => Decision::Split,
        "r" | "surrender" => Decision::Surrender,
        "i" | "insurance" | "insure" => Decision::Insure(pick(legal.insurance)?),
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
    if !legal.decisions.allows(d) {
        return Err(format!(
            "not offered now; choose one of: {}",
            choice_menu(legal)
        ));
    }
    Ok(d)
}
