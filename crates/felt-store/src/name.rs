//! Names in the books: one spelling for names that look the same.
//!
//! A person types a player name, and two names that look the same on a screen must
//! be the same wallet (or one of them refused), or a player could be given a second
//! wallet, or be shown someone else's, by a name with a trailing space, a no-break
//! space, a zero-width space or a right-to-left override. The canonical form of a
//! name is:
//!
//! - Unicode NFKC (compatibility composition): a no-break space or an ideographic
//!   space becomes a space, a fullwidth `ａ` an `a`, `e` + combining acute one `é`;
//! - whitespace (Unicode White_Space: spaces of every width, tabs, line breaks)
//!   trimmed at both ends, and each run of it inside made one space;
//! - no invisible character (format characters, general category Cf: zero-width
//!   space and joiners, bidirectional marks, embeddings, overrides and isolates, the
//!   byte-order mark, the soft hyphen, tags; and the other default-ignorable code
//!   points: variation selectors, Hangul fillers, the combining grapheme joiner) and
//!   no control character: these are refused, naming the character and where it is,
//!   rather than dropped, so that what was typed is never silently another name;
//! - not empty, at most [`MAX_NAME_LEN`] bytes.
//!
//! Case is kept: `Alice` and `alice` look different and stay two names (folding them
//! would also merge wallets that books written before this rule may hold apart).
//! Letters of different scripts that look alike (Latin `a`, Cyrillic `а`) are not
//! matched: that needs confusable detection, which this does not attempt.
//!
//! Player names are typed by people: the books take any spelling and keep its
//! canonical form ([`normalize_name`]). Table, game, meter and house ids come from
//! programs and rules files: they must be given in canonical form already
//! ([`validate_name`]), so an id is never stored under a spelling its caller does not
//! know.

use crate::error::{Result, StoreError};
use std::borrow::Cow;
use std::fmt;
use unicode_normalization::UnicodeNormalization;

/// Longest account, game, table or meter name the books accept (in bytes, in its
/// canonical form).
pub const MAX_NAME_LEN: usize = 200;

/// What is wrong with a name (see [`StoreError::InvalidName`]).
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum NameProblem {
    /// Nothing but whitespace.
    Empty,
    /// Longer than [`MAX_NAME_LEN`] bytes (its canonical form's length).
    TooLong {
        /// Its length in bytes.
        len: usize,
    },
    /// An invisible (format or default-ignorable) character.
    Invisible {
        /// The character.
        ch: char,
        /// Where it is: the first character is 1.
        position: usize,
    },
    /// A control character (other than whitespace, which is trimmed or made a space).
    Control {
        /// The character.
        ch: char,
        /// Where it is: the first character is 1.
        position: usize,
    },
    /// An id that is not in its canonical form (ids are not rewritten, only refused).
    NotCanonical {
        /// The canonical form.
        canonical: String,
    },
}

impl fmt::Display for NameProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            NameProblem::Empty => f.write_str("it cannot be empty"),
            NameProblem::TooLong { len } => {
                write!(f, "it is at most {MAX_NAME_LEN} bytes (got {len})")
            }
            NameProblem::Invisible { ch, position } => write!(
                f,
                "it holds {} at position {position}, an invisible character: names that \
                 look the same must be the same name, so invisible characters are refused; \
                 type the name without it",
                describe(*ch)
            ),
            NameProblem::Control { ch, position } => write!(
                f,
                "it holds {} at position {position}: control characters are refused",
                describe(*ch)
            ),
            NameProblem::NotCanonical { canonical } => write!(
                f,
                "it is not in its canonical form: give it as {canonical:?} (Unicode NFKC, \
                 without leading, trailing or repeated whitespace)"
            ),
        }
    }
}

/// `U+200B ZERO WIDTH SPACE`, `U+0007 (a control character)`.
fn describe(ch: char) -> String {
    let code = format!("U+{:04X}", u32::from(ch));
    match char_name(ch) {
        Some(name) => format!("{code} {name}"),
        None if ch.is_control() => format!("{code} (a control character)"),
        None => format!("{code} (an invisible format character)"),
    }
}

/// The Unicode names of the characters most often met in names by accident or on
/// purpose.
fn char_name(ch: char) -> Option<&'static str> {
    Some(match ch {
        '\u{0}' => "NULL",
        '\u{8}' => "BACKSPACE",
        '\u{1b}' => "ESCAPE",
        '\u{7f}' => "DELETE",
        '\u{ad}' => "SOFT HYPHEN",
        '\u{34f}' => "COMBINING GRAPHEME JOINER",
        '\u{61c}' => "ARABIC LETTER MARK",
        '\u{115f}' => "HANGUL CHOSEONG FILLER",
        '\u{1160}' => "HANGUL JUNGSEONG FILLER",
        '\u{180e}' => "MONGOLIAN VOWEL SEPARATOR",
        '\u{200b}' => "ZERO WIDTH SPACE",
        '\u{200c}' => "ZERO WIDTH NON-JOINER",
        '\u{200d}' => "ZERO WIDTH JOINER",
        '\u{200e}' => "LEFT-TO-RIGHT MARK",
        '\u{200f}' => "RIGHT-TO-LEFT MARK",
        '\u{202a}' => "LEFT-TO-RIGHT EMBEDDING",
        '\u{202b}' => "RIGHT-TO-LEFT EMBEDDING",
        '\u{202c}' => "POP DIRECTIONAL FORMATTING",
        '\u{202d}' => "LEFT-TO-RIGHT OVERRIDE",
        '\u{202e}' => "RIGHT-TO-LEFT OVERRIDE",
        '\u{2060}' => "WORD JOINER",
        '\u{2061}' => "FUNCTION APPLICATION",
        '\u{2062}' => "INVISIBLE TIMES",
        '\u{2063}' => "INVISIBLE SEPARATOR",
        '\u{2064}' => "INVISIBLE PLUS",
        '\u{2066}' => "LEFT-TO-RIGHT ISOLATE",
        '\u{2067}' => "RIGHT-TO-LEFT ISOLATE",
        '\u{2068}' => "FIRST STRONG ISOLATE",
        '\u{2069}' => "POP DIRECTIONAL ISOLATE",
        '\u{3164}' => "HANGUL FILLER",
        '\u{fe0e}' => "VARIATION SELECTOR-15",
        '\u{fe0f}' => "VARIATION SELECTOR-16",
        '\u{feff}' => "ZERO WIDTH NO-BREAK SPACE",
        '\u{ffa0}' => "HALFWIDTH HANGUL FILLER",
        _ => return None,
    })
}

/// Whether `ch` is invisible: general category Cf (format) or Default_Ignorable_Code_Point
/// (Unicode 16). Whitespace is not: it is trimmed, or made one space.
fn is_invisible(ch: char) -> bool {
    matches!(
        u32::from(ch),
        0x00AD
            | 0x034F
            | 0x0600..=0x0605
            | 0x061C
            | 0x06DD
            | 0x070F
            | 0x0890..=0x0891
            | 0x08E2
            | 0x115F..=0x1160
            | 0x17B4..=0x17B5
            | 0x180B..=0x180F
            | 0x200B..=0x200F
            | 0x202A..=0x202E
            | 0x2060..=0x206F
            | 0x3164
            | 0xFE00..=0xFE0F
            | 0xFEFF
            | 0xFFA0
            | 0xFFF0..=0xFFFB
            | 0x110BD
            | 0x110CD
            | 0x13430..=0x1343F
            | 0x1BCA0..=0x1BCA3
            | 0x1D173..=0x1D17A
            | 0xE0000..=0xE0FFF
    )
}

/// The first invisible or control (non-whitespace) character of `s`.
fn bad_char(s: &str) -> Option<NameProblem> {
    s.chars().enumerate().find_map(|(i, ch)| {
        let position = i + 1;
        if is_invisible(ch) {
            Some(NameProblem::Invisible { ch, position })
        } else if ch.is_control() && !ch.is_whitespace() {
            Some(NameProblem::Control { ch, position })
        } else {
            None
        }
    })
}

/// Whether `s` is canonical without any work: printable ASCII with single inner
/// spaces and none at the ends (NFKC leaves such text as it is).
fn is_plain_canonical(s: &str) -> bool {
    s.bytes().all(|b| (0x20..0x7f).contains(&b))
        && !s.starts_with(' ')
        && !s.ends_with(' ')
        && !s.contains("  ")
}

/// `s` with whitespace trimmed and each inner run of it made one space.
fn collapse_whitespace(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for word in s.split_whitespace() {
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(word);
    }
    out
}

/// The canonical form of `name` (borrowed when it is canonical already), or what is
/// wrong with it.
pub(crate) fn canonical(name: &str) -> std::result::Result<Cow<'_, str>, NameProblem> {
    if let Some(p) = bad_char(name) {
        return Err(p);
    }
    let form: Cow<'_, str> = if is_plain_canonical(name) {
        Cow::Borrowed(name)
    } else {
        let once = collapse_whitespace(&name.nfkc().collect::<String>());
        // NFKC can turn a character into one followed by a space (U+00A8 DIAERESIS is
        // a space and a combining diaeresis): normalised again until it holds still.
        let twice = collapse_whitespace(&once.nfkc().collect::<String>());
        if twice == name {
            Cow::Borrowed(name)
        } else {
            Cow::Owned(twice)
        }
    };
    if form.is_empty() {
        return Err(NameProblem::Empty);
    }
    if form.len() > MAX_NAME_LEN {
        return Err(NameProblem::TooLong { len: form.len() });
    }
    if let Some(p) = bad_char(&form) {
        return Err(p);
    }
    Ok(form)
}

fn invalid(what: &str, name: &str, problem: NameProblem) -> StoreError {
    StoreError::InvalidName {
        what: what.to_string(),
        name: name.to_string(),
        problem,
    }
}

/// The canonical form of a name a person typed (`what` names its kind in the error:
/// "player", ...): NFKC, whitespace trimmed and each inner run one space, invisible
/// and control characters refused. `"alice"`, `"alice "` and
/// `"alice\u{a0}"` are all `"alice"`; a name holding an invisible or control character
/// is refused with [`StoreError::InvalidName`], which names the character.
pub fn normalize_name(what: &str, name: &str) -> Result<String> {
    canonical(name)
        .map(Cow::into_owned)
        .map_err(|p| invalid(what, name, p))
}

/// Like [`normalize_name`], borrowing `name` when it is canonical already.
pub(crate) fn normalize_cow<'a>(what: &str, name: &'a str) -> Result<Cow<'a, str>> {
    canonical(name).map_err(|p| invalid(what, name, p))
}

/// Checks a name the books would store as given (`what` names its kind in the error:
/// "table", "meter", ...): it must be in its canonical form (see [`normalize_name`]),
/// which also means not blank, at most [`MAX_NAME_LEN`] bytes, no invisible or control
/// characters.
pub fn validate_name(what: &str, name: &str) -> Result<()> {
    match canonical(name) {
        Ok(Cow::Borrowed(_)) => Ok(()),
        Ok(Cow::Owned(c)) => Err(invalid(
            what,
            name,
            NameProblem::NotCanonical { canonical: c },
        )),
        Err(p) => Err(invalid(what, name, p)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_canonical_form_holds_still() {
        for s in [
            "alice",
            " alice ",
            "a\u{a8}b",
            "\u{a8}",
            "x \u{301}y",
            "\u{fb01}ne",
            "①②",
            "Ｍａｒｙ　Ａｎｎ",
            "e\u{2003}\u{301}",
        ] {
            if let Ok(c) = canonical(s) {
                assert_eq!(canonical(&c).unwrap(), c, "{s:?}");
                assert!(matches!(canonical(&c).unwrap(), Cow::Borrowed(_)), "{s:?}");
            }
        }
        assert_eq!(canonical("Ｍａｒｙ　Ａｎｎ").unwrap(), "Mary Ann");
    }

    #[test]
    fn positions_count_characters_from_one() {
        assert_eq!(
            canonical("é\u{200b}").unwrap_err(),
            NameProblem::Invisible {
                ch: '\u{200b}',
                position: 2
            }
        );
    }
}
