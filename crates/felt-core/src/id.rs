//! Short inline identifiers (side-bet ids, meter ids): `Copy`, no heap, serialized as text.

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::fmt;

/// An identifier of at most [`ShortId::MAX_LEN`] bytes held inline, so that events
/// naming a side bet or a meter never allocate.
///
/// One 32-byte array, the length first and the text after it (zero-padded): equal ids
/// are equal arrays and order by length, then text. Compared as whole 16-byte halves,
/// a copy just written (an event naming a bet) is read back from its own stores.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ShortId {
    bytes: [u8; ShortId::MAX_LEN + 1],
}

impl ShortId {
    /// The longest id, in bytes.
    pub const MAX_LEN: usize = 31;

    /// The id for `text`; `None` if it is longer than [`ShortId::MAX_LEN`] bytes.
    pub fn new(text: &str) -> Option<ShortId> {
        let b = text.as_bytes();
        if b.len() > Self::MAX_LEN {
            return None;
        }
        let mut bytes = [0u8; Self::MAX_LEN + 1];
        bytes[0] = b.len() as u8;
        bytes[1..=b.len()].copy_from_slice(b);
        Some(ShortId { bytes })
    }

    /// The inline array: the length, then the text, zero-padded. Equal ids are equal
    /// arrays, so one byte where a set of ids differ tells them apart (the simulator's
    /// tally finds a settled side bet so).
    #[inline(always)]
    pub fn as_array(&self) -> &[u8; ShortId::MAX_LEN + 1] {
        &self.bytes
    }

    /// The id as text.
    pub fn as_str(&self) -> &str {
        // Built from a `&str` cut at its own length, so always valid UTF-8.
        let len = usize::from(self.bytes[0]).min(Self::MAX_LEN);
        std::str::from_utf8(&self.bytes[1..=len]).unwrap_or("")
    }
}

impl fmt::Display for ShortId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.pad(self.as_str())
    }
}

impl fmt::Debug for ShortId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:?}", self.as_str())
    }
}

impl Serialize for ShortId {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

impl<'de> Deserialize<'de> for ShortId {
    /// Reads the text back; refuses a text longer than [`ShortId::MAX_LEN`] bytes.
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<ShortId, D::Error> {
        let t = String::deserialize(d)?;
        ShortId::new(&t).ok_or_else(|| {
            serde::de::Error::custom(format!(
                "the id `{t}` is longer than {} bytes",
                ShortId::MAX_LEN
            ))
        })
    }
}

impl PartialEq<str> for ShortId {
    fn eq(&self, other: &str) -> bool {
        self.as_str() == other
    }
}

impl PartialEq<&str> for ShortId {
    fn eq(&self, other: &&str) -> bool {
        self.as_str() == *other
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_ids_round_trip_and_refuse_long_text() {
        let id = ShortId::new("blazing-7s").unwrap();
        assert_eq!(id.as_str(), "blazing-7s");
        assert_eq!(id, "blazing-7s");
        assert!(ShortId::new(&"x".repeat(32)).is_none());
        assert_eq!(ShortId::new("").unwrap().as_str(), "");
        let back: ShortId = serde_json::from_str(&serde_json::to_string(&id).unwrap()).unwrap();
        assert_eq!(back, id);
        assert!(serde_json::from_str::<ShortId>(&format!("\"{}\"", "x".repeat(32))).is_err());
        let longest = "y".repeat(ShortId::MAX_LEN);
        assert_eq!(ShortId::new(&longest).unwrap().as_str(), longest);
    }

    #[test]
    fn short_ids_order_by_length_then_text() {
        let id = |t: &str| ShortId::new(t).unwrap();
        assert!(id("zz") < id("aaa"));
        assert!(id("ab") < id("ac"));
        assert_ne!(id("ab"), id("ab\0"));
    }
}
