//! The faults the reference operator injects, for tests: every call meets them until
//! they are cleared.

use serde::{Deserialize, Serialize};

/// What the wallet does wrong, on purpose.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Faults {
    /// Waits this long (ms) before doing anything.
    pub delay_ms: u64,
    /// Does the call, then closes the connection without an answer.
    pub drop_after_commit: bool,
    /// Answers 503 without doing anything.
    pub fail_before_commit: bool,
    /// Does the call twice, as a duplicate delivery would (the second is answered from
    /// the first).
    pub duplicate: bool,
    /// Does the call, then sends the answer slowly, over this long (ms).
    pub slow_ms: u64,
}

/// The longest delay or slowness accepted (ms).
pub const MAX_MS: u64 = 600_000;

impl Faults {
    /// Adds one fault in the words of `--fault`: `delay=MS`, `drop-after-commit`,
    /// `fail-before-commit`, `duplicate`, `slow=MS`, or `none` (clears them all).
    pub fn add(&mut self, word: &str) -> Result<(), String> {
        let ms = |v: &str| -> Result<u64, String> {
            v.parse::<u64>()
                .ok()
                .filter(|n| *n <= MAX_MS)
                .ok_or_else(|| format!("`{v}` is not a number of milliseconds up to {MAX_MS}"))
        };
        match word.split_once('=') {
            Some(("delay", v)) => self.delay_ms = ms(v)?,
            Some(("slow", v)) => self.slow_ms = ms(v)?,
            None if word == "drop-after-commit" => self.drop_after_commit = true,
            None if word == "fail-before-commit" => self.fail_before_commit = true,
            None if word == "duplicate" => self.duplicate = true,
            None if word == "none" => *self = Faults::default(),
            _ => {
                return Err(format!(
                    "unknown fault `{word}`: delay=MS, drop-after-commit, fail-before-commit, \
                     duplicate, slow=MS or none"
                ))
            }
        }
        Ok(())
    }

    /// The faults of these words, in order.
    pub fn parse(words: &[String]) -> Result<Faults, String> {
        let mut f = Faults::default();
        for w in words {
            f.add(w)?;
        }
        Ok(f)
    }

    /// Whether the delays are within [`MAX_MS`].
    pub fn check(&self) -> Result<(), String> {
        if self.delay_ms > MAX_MS || self.slow_ms > MAX_MS {
            return Err(format!("delays are at most {MAX_MS} ms"));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn faults_are_read_from_their_words() {
        let words: Vec<String> = ["delay=250", "duplicate", "slow=10"]
            .iter()
            .map(|w| w.to_string())
            .collect();
        let f = Faults::parse(&words).unwrap();
        assert_eq!(
            f,
            Faults {
                delay_ms: 250,
                duplicate: true,
                slow_ms: 10,
                ..Faults::default()
            }
        );
        let cleared = Faults::parse(&["drop-after-commit".into(), "none".into()]).unwrap();
        assert_eq!(cleared, Faults::default());
        for bad in ["delay", "delay=x", "delay=600001", "explode", "slow=-1"] {
            assert!(Faults::parse(&[bad.to_string()]).is_err(), "{bad}");
        }
    }
}
