//! Money in integer minor units (cents) and payout ratios with an explicit basis.

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::fmt;
use std::str::FromStr;

/// An amount of money in minor units (cents). Never a float.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct Money(pub i64);

impl Money {
    /// Zero.
    pub const ZERO: Money = Money(0);

    /// An amount from minor units (cents).
    pub const fn cents(c: i64) -> Money {
        Money(c)
    }

    /// The amount in minor units.
    pub const fn as_cents(self) -> i64 {
        self.0
    }

    /// Whether this amount is a whole multiple of `step` (a zero step accepts anything).
    pub fn is_multiple_of(self, step: Money) -> bool {
        step.0 == 0 || self.0 % step.0 == 0
    }
}

impl std::ops::Add for Money {
    type Output = Money;
    fn add(self, o: Money) -> Money {
        Money(self.0 + o.0)
    }
}
impl std::ops::Sub for Money {
    type Output = Money;
    fn sub(self, o: Money) -> Money {
        Money(self.0 - o.0)
    }
}
impl std::ops::Neg for Money {
    type Output = Money;
    fn neg(self) -> Money {
        Money(-self.0)
    }
}
impl std::ops::AddAssign for Money {
    fn add_assign(&mut self, o: Money) {
        self.0 += o.0;
    }
}
impl std::ops::SubAssign for Money {
    fn sub_assign(&mut self, o: Money) {
        self.0 -= o.0;
    }
}
impl std::iter::Sum for Money {
    fn sum<I: Iterator<Item = Money>>(iter: I) -> Money {
        Money(iter.map(|m| m.0).sum())
    }
}

impl fmt::Display for Money {
    /// `12.50`, `-0.05`: two decimals, no currency sign.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let sign = if self.0 < 0 { "-" } else { "" };
        let a = self.0.unsigned_abs();
        let s = format!("{sign}{}.{:02}", a / 100, a % 100);
        f.pad(&s)
    }
}

/// Why an amount was not understood.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("`{text}` is not an amount of money (write e.g. 25, 2.50 or 0.05; at most two decimals)")]
pub struct ParseMoneyError {
    /// The text that was refused.
    pub text: String,
}

impl FromStr for Money {
    type Err = ParseMoneyError;

    /// Parses `25`, `2.5`, `2.50`, `-1.05`; at most two decimals, no exponent.
    fn from_str(s: &str) -> Result<Money, ParseMoneyError> {
        let err = || ParseMoneyError {
            text: s.to_string(),
        };
        let t = s.trim();
        let (neg, t) = match t.strip_prefix('-') {
            Some(rest) => (true, rest),
            None => (false, t),
        };
        let (whole, frac) = match t.split_once('.') {
            Some((w, f)) => (w, f),
            None => (t, ""),
        };
        if whole.is_empty() && frac.is_empty() {
            return Err(err());
        }
        if !whole.chars().all(|c| c.is_ascii_digit())
            || !frac.chars().all(|c| c.is_ascii_digit())
            || frac.len() > 2
            || whole.len() > 15
        {
            return Err(err());
        }
        let w: i64 = if whole.is_empty() {
            0
        } else {
            whole.parse().map_err(|_| err())?
        };
        let f: i64 = match frac.len() {
            0 => 0,
            1 => frac.parse::<i64>().map_err(|_| err())? * 10,
            _ => frac.parse().map_err(|_| err())?,
        };
        let c = w * 100 + f;
        Ok(Money(if neg { -c } else { c }))
    }
}

impl Serialize for Money {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.to_string())
    }
}

/// What a rules file may write for an amount, in the words of its error messages.
const AMOUNT_WORDS: &str = "an amount: a whole number (25) or a decimal in quotes (\"2.50\")";

impl<'de> Deserialize<'de> for Money {
    /// Accepts a string `"2.50"` or a whole number of units `2`.
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Money, D::Error> {
        struct Amount;
        impl serde::de::Visitor<'_> for Amount {
            type Value = Money;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(AMOUNT_WORDS)
            }
            fn visit_i64<E: serde::de::Error>(self, v: i64) -> Result<Money, E> {
                v.checked_mul(100)
                    .map(Money)
                    .ok_or_else(|| E::custom(format!("{v} is too large an amount of money")))
            }
            fn visit_u64<E: serde::de::Error>(self, v: u64) -> Result<Money, E> {
                i64::try_from(v)
                    .ok()
                    .and_then(|v| v.checked_mul(100))
                    .map(Money)
                    .ok_or_else(|| E::custom(format!("{v} is too large an amount of money")))
            }
            fn visit_f64<E: serde::de::Error>(self, v: f64) -> Result<Money, E> {
                Err(E::custom(format!(
                    "{v} is not {AMOUNT_WORDS}: write a decimal amount in quotes, \"{v:.2}\""
                )))
            }
            fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<Money, E> {
                v.parse().map_err(E::custom)
            }
        }
        d.deserialize_any(Amount)
    }
}

/// Whether a payout returns the stake as well (`to`) or includes it (`for`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, Default)]
#[serde(rename_all = "kebab-case")]
pub enum Basis {
    /// `a to b`: the stake comes back, plus `stake * a / b`.
    #[default]
    To,
    /// `a for b`: `stake * a / b` comes back in all, the stake included.
    For,
}

/// A payout ratio `a:b`, e.g. 3:2, 2:1, 200:1.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Ratio {
    /// The numerator `a`.
    pub num: u32,
    /// The denominator `b` (never zero).
    pub den: u32,
}

impl Ratio {
    /// The ratio `num:den`; `None` if `den` is zero.
    pub const fn new(num: u32, den: u32) -> Option<Ratio> {
        if den == 0 {
            None
        } else {
            Some(Ratio { num, den })
        }
    }

    /// `stake * num / den`, rounded down, and the fractional part lost (in 1/den cents).
    pub fn apply(self, stake: Money) -> (Money, i64) {
        let p = i128::from(stake.0) * i128::from(self.num);
        let d = i128::from(self.den);
        // Floors toward negative infinity; stakes are never negative in practice.
        let q = p.div_euclid(d);
        let r = p.rem_euclid(d);
        (Money(q as i64), r as i64)
    }

    /// Whether `stake * num / den` is a whole number of cents.
    pub fn is_exact_for(self, stake: Money) -> bool {
        self.apply(stake).1 == 0
    }

    /// The ratio as a float, for statistics only.
    pub fn as_f64(self) -> f64 {
        f64::from(self.num) / f64::from(self.den)
    }
}

impl fmt::Display for Ratio {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", self.num, self.den)
    }
}

/// Why a ratio was not understood.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("`{text}` is not a payout ratio (write a:b, e.g. 3:2, 200:1)")]
pub struct ParseRatioError {
    /// The text that was refused.
    pub text: String,
}

impl FromStr for Ratio {
    type Err = ParseRatioError;
    fn from_str(s: &str) -> Result<Ratio, ParseRatioError> {
        let err = || ParseRatioError {
            text: s.to_string(),
        };
        let (a, b) = s
            .split_once(':')
            .or_else(|| s.split_once(" to "))
            .ok_or_else(err)?;
        let a: u32 = a.trim().parse().map_err(|_| err())?;
        let b: u32 = b.trim().parse().map_err(|_| err())?;
        Ratio::new(a, b).ok_or_else(err)
    }
}

impl Serialize for Ratio {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.to_string())
    }
}

impl<'de> Deserialize<'de> for Ratio {
    /// Accepts `"a:b"` (or `"a to b"`) in quotes.
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Ratio, D::Error> {
        struct RatioText;
        impl serde::de::Visitor<'_> for RatioText {
            type Value = Ratio;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a payout ratio in quotes, a:b (\"3:2\", \"200:1\")")
            }
            fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<Ratio, E> {
                v.parse().map_err(E::custom)
            }
        }
        d.deserialize_str(RatioText)
    }
}

/// A payout: a ratio and its basis. `3:2 to` returns stake + 1.5 x stake.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Payout {
    /// The ratio `a:b`.
    pub ratio: Ratio,
    /// `to` (stake returned as well) or `for` (stake included).
    pub basis: Basis,
}

impl Payout {
    /// A `to` payout `num:den`. Panics never; a zero `den` gives 0:1.
    pub fn to(num: u32, den: u32) -> Payout {
        Payout {
            ratio: Ratio::new(num, den).unwrap_or(Ratio { num: 0, den: 1 }),
            basis: Basis::To,
        }
    }

    /// The amount handed back to the player for a winning `stake` (stake included),
    /// rounded down to a cent, and the remainder (in 1/den cents) lost to rounding.
    pub fn returned(self, stake: Money) -> (Money, i64) {
        let (win, rem) = self.ratio.apply(stake);
        match self.basis {
            Basis::To => (stake + win, rem),
            Basis::For => (win, rem),
        }
    }

    /// The player's net gain per unit staked, for statistics.
    pub fn net_per_unit(self) -> f64 {
        match self.basis {
            Basis::To => self.ratio.as_f64(),
            Basis::For => self.ratio.as_f64() - 1.0,
        }
    }
}

/// Why a payout text was not understood.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("`{text}` is not a payout (write e.g. 3 to 2, 200 for 1)")]
pub struct ParsePayoutError {
    /// The text that was refused.
    pub text: String,
}

impl FromStr for Payout {
    type Err = ParsePayoutError;

    /// Parses what [`Payout`]'s `Display` writes: `3 to 2` (stake returned as well) or
    /// `200 for 1` (stake included); `a:b` reads as `a to b`.
    fn from_str(s: &str) -> Result<Payout, ParsePayoutError> {
        let err = || ParsePayoutError {
            text: s.to_string(),
        };
        let (ratio, basis) = match s.split_once(" for ") {
            Some((a, b)) => (format!("{a}:{b}"), Basis::For),
            None => (s.to_string(), Basis::To),
        };
        let ratio: Ratio = ratio.parse().map_err(|_| err())?;
        Ok(Payout { ratio, basis })
    }
}

impl fmt::Display for Payout {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let b = match self.basis {
            Basis::To => "to",
            Basis::For => "for",
        };
        write!(f, "{} {b} {}", self.ratio.num, self.ratio.den)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn c_2_payout_to_returns_stake_plus_ratio_and_for_includes_stake() {
        let s = Money(1000);
        assert_eq!(Payout::to(3, 2).returned(s), (Money(2500), 0));
        let for_1 = Payout {
            ratio: Ratio::new(200, 1).unwrap(),
            basis: Basis::For,
        };
        assert_eq!(for_1.returned(Money(100)), (Money(20000), 0));
        // 3:2 on an odd number of cents leaves a remainder that is reported, not hidden.
        assert_eq!(Payout::to(3, 2).returned(Money(101)), (Money(101 + 151), 1));
    }

    #[test]
    fn money_parses_and_prints() {
        assert_eq!("2.5".parse::<Money>().unwrap(), Money(250));
        assert_eq!("0.05".parse::<Money>().unwrap(), Money(5));
        assert_eq!("25".parse::<Money>().unwrap(), Money(2500));
        assert_eq!("-1.05".parse::<Money>().unwrap(), Money(-105));
        assert!("1.005".parse::<Money>().is_err());
        assert!("1e3".parse::<Money>().is_err());
        assert!(".".parse::<Money>().is_err());
        assert_eq!(Money(-105).to_string(), "-1.05");
        assert_eq!(Money(5).to_string(), "0.05");
        assert_eq!("3:2".parse::<Ratio>().unwrap(), Ratio::new(3, 2).unwrap());
        for p in [
            Payout::to(3, 2),
            Payout {
                ratio: Ratio::new(200, 1).unwrap(),
                basis: Basis::For,
            },
        ] {
            assert_eq!(p.to_string().parse::<Payout>(), Ok(p));
        }
        assert!("3 from 2".parse::<Payout>().is_err());
        assert!("3 for 0".parse::<Payout>().is_err());
        assert!("3:0".parse::<Ratio>().is_err());
    }
}
