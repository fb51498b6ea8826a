//! One number style for what a person reads: whole counts with thousands separators
//! (`2,862,766,146,240`), amounts with two decimals and separators (`2,000.00`).

/// `digits` (an optional `-` then ASCII digits) with a comma every three digits.
fn grouped(digits: &str) -> String {
    let (sign, d) = digits
        .strip_prefix('-')
        .map_or(("", digits), |rest| ("-", rest));
    let mut out = String::with_capacity(d.len() + d.len() / 3 + 1);
    out.push_str(sign);
    for (i, c) in d.chars().enumerate() {
        if i > 0 && (d.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// A whole count: `1,234,567`.
pub fn count(n: u128) -> String {
    grouped(&n.to_string())
}

/// An amount (money, or a meter in units of the wager) with `decimals` decimals and
/// thousands separators: `amount(2000.0, 2)` is `2,000.00`.
pub fn amount(x: f64, decimals: usize) -> String {
    if !x.is_finite() {
        return x.to_string();
    }
    let text = format!("{x:.decimals$}");
    let (whole, frac) = text
        .split_once('.')
        .map_or((text.as_str(), None), |(w, f)| (w, Some(f)));
    // `-0.00` reads as `0.00`.
    let whole = if whole == "-0" && frac.is_none_or(|f| f.bytes().all(|b| b == b'0')) {
        "0"
    } else {
        whole
    };
    match frac {
        Some(f) => format!("{}.{f}", grouped(whole)),
        None => grouped(whole),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_and_amounts_are_grouped() {
        assert_eq!(count(2_862_766_146_240), "2,862,766,146,240");
        assert_eq!(count(999), "999");
        assert_eq!(count(0), "0");
        assert_eq!(amount(2000.0, 2), "2,000.00");
        assert_eq!(amount(16059.318, 2), "16,059.32");
        assert_eq!(amount(-1_000_000_012_112.5, 2), "-1,000,000,012,112.50");
        assert_eq!(amount(-0.001, 2), "0.00");
        assert_eq!(amount(25.0, 0), "25");
    }
}
