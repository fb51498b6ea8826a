//! `X-Felt-Signature: t=UNIX_SECONDS,v1=HEX`: HMAC-SHA256 keyed with the shared secret,
//! of `t`, a `.` and the body's bytes exactly as sent (`docs/operators.md`).

use hmac::{Hmac, Mac};
use sha2::Sha256;
use std::fmt::Write;

/// The signature's header.
pub const HEADER: &str = "X-Felt-Signature";

/// How far (seconds) a signature's time may be from the checker's clock.
pub const TOLERANCE_SECS: i64 = 300;

/// The shortest secret accepted (bytes).
pub const MIN_SECRET: usize = 32;

type HmacSha256 = Hmac<Sha256>;

fn mac(secret: &[u8], t: i64, body: &[u8]) -> HmacSha256 {
    // HMAC takes a key of any length: `new_from_slice` cannot fail for it.
    let mut m = <HmacSha256 as Mac>::new_from_slice(secret)
        .unwrap_or_else(|_| unreachable!("HMAC accepts keys of any length"));
    m.update(t.to_string().as_bytes());
    m.update(b".");
    m.update(body);
    m
}

/// The header's value for `body` sent at Unix time `t` (seconds).
pub fn sign(secret: &[u8], t: i64, body: &[u8]) -> String {
    let digest = mac(secret, t, body).finalize().into_bytes();
    let mut hex = String::with_capacity(digest.len() * 2);
    for b in digest {
        // Writing to a String cannot fail.
        let _ = write!(hex, "{b:02x}");
    }
    format!("t={t},v1={hex}")
}

/// Why a signature is not accepted.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SignatureProblem {
    /// No header, or not `t=...,v1=...`.
    #[error("the X-Felt-Signature header is missing or not `t=UNIX_SECONDS,v1=HEX`")]
    Malformed,
    /// Its time is too far from the checker's clock.
    #[error("the signature's time is {0} s from this clock (at most {TOLERANCE_SECS} s)")]
    Stale(i64),
    /// The HMAC does not match.
    #[error("the signature does not match the body")]
    Mismatch,
}

/// Checks the header `value` of `body` at Unix time `now` (seconds), in constant time.
pub fn verify(
    secret: &[u8],
    value: Option<&str>,
    body: &[u8],
    now: i64,
) -> Result<(), SignatureProblem> {
    let value = value.ok_or(SignatureProblem::Malformed)?;
    let (t, hex) = value
        .split_once(",v1=")
        .and_then(|(t, hex)| Some((t.strip_prefix("t=")?.parse::<i64>().ok()?, hex)))
        .ok_or(SignatureProblem::Malformed)?;
    let bytes = decode_hex(hex).ok_or(SignatureProblem::Malformed)?;
    let skew = now.saturating_sub(t).saturating_abs();
    if skew > TOLERANCE_SECS {
        return Err(SignatureProblem::Stale(skew));
    }
    mac(secret, t, body)
        .verify_slice(&bytes)
        .map_err(|_| SignatureProblem::Mismatch)
}

fn decode_hex(hex: &str) -> Option<Vec<u8>> {
    if hex.len() != 64 || !hex.bytes().all(|b| b.is_ascii_hexdigit()) {
        return None;
    }
    (0..hex.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&hex[i..i + 2], 16).ok())
        .collect()
}

/// Now, in Unix seconds.
pub fn unix_now() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_secs()).unwrap_or(i64::MAX))
}

#[cfg(test)]
mod tests {
    use super::*;

    const SECRET: &[u8] = b"felt-demo-secret-0123456789";

    #[test]
    fn a_signature_checks_out_for_its_body_only() {
        let body = br#"{"request_id":"x","player":"p"}"#;
        let sig = sign(SECRET, 1_000, body);
        assert!(sig.starts_with("t=1000,v1="));
        assert_eq!(verify(SECRET, Some(&sig), body, 1_000), Ok(()));
        assert_eq!(
            verify(SECRET, Some(&sig), body, 1_000 + TOLERANCE_SECS),
            Ok(())
        );
        assert_eq!(
            verify(
                SECRET,
                Some(&sig),
                br#"{"request_id":"x","player":"q"}"#,
                1_000
            ),
            Err(SignatureProblem::Mismatch)
        );
        assert_eq!(
            verify(
                b"another secret of thirty-two bytes",
                Some(&sig),
                body,
                1_000
            ),
            Err(SignatureProblem::Mismatch)
        );
        assert_eq!(
            verify(SECRET, Some(&sig), body, 1_000 + TOLERANCE_SECS + 1),
            Err(SignatureProblem::Stale(TOLERANCE_SECS + 1))
        );
        // The same body at another time is another signature.
        let later = sign(SECRET, 1_001, body);
        assert_ne!(later[7..], sig[7..]);
        assert_eq!(
            verify(
                SECRET,
                Some(&later.replace("t=1001", "t=1000")),
                body,
                1_000
            ),
            Err(SignatureProblem::Mismatch)
        );
    }

    #[test]
    fn malformed_headers_are_refused() {
        let body = b"{}";
        let good = sign(SECRET, 5, body);
        for bad in [
            None,
            Some(""),
            Some("t=5"),
            Some("v1=00,t=5"),
            Some("t=x,v1=00"),
            Some(&good[..good.len() - 1]),
            Some(&good.replace("v1=", "v2=")),
        ] {
            assert_eq!(
                verify(SECRET, bad, body, 5),
                Err(SignatureProblem::Malformed),
                "{bad:?}"
            );
        }
        let upper = good
            .to_uppercase()
            .replace("T=", "t=")
            .replace("V1=", "v1=");
        assert_eq!(verify(SECRET, Some(&upper), body, 5), Ok(()));
    }
}
