//! Passwords and session tokens. A password is kept only as its argon2id hash (the
//! crate's default parameters: 19 MiB, 2 passes); a session token is 32 random bytes
//! from the operating system, sent once in an HttpOnly SameSite=Strict cookie, and kept
//! in the books only as its SHA-256.

use argon2::password_hash::rand_core::OsRng;
use argon2::password_hash::{PasswordHash, PasswordHasher, PasswordVerifier, SaltString};
use argon2::Argon2;
use rand::RngCore;

/// The session cookie's name.
pub const COOKIE: &str = "felt_session";

/// The shortest password accepted.
pub const MIN_PASSWORD: usize = 8;
/// The longest password accepted (bytes): argon2 hashes anything, but a megabyte
/// password is an attack, not a password.
pub const MAX_PASSWORD: usize = 256;

/// Why a password is refused at registration.
pub fn password_problem(p: &str) -> Option<String> {
    if p.chars().count() < MIN_PASSWORD {
        return Some(format!("a password has at least {MIN_PASSWORD} characters"));
    }
    if p.len() > MAX_PASSWORD {
        return Some(format!("a password has at most {MAX_PASSWORD} bytes"));
    }
    None
}

/// The argon2id hash of a password (PHC string).
pub fn hash_password(password: &str) -> Result<String, String> {
    let salt = SaltString::generate(&mut OsRng);
    Argon2::default()
        .hash_password(password.as_bytes(), &salt)
        .map(|h| h.to_string())
        .map_err(|e| format!("the password could not be hashed: {e}"))
}

/// Whether `password` matches the stored hash.
pub fn verify_password(password: &str, hash: &str) -> bool {
    match PasswordHash::new(hash) {
        Ok(h) => Argon2::default()
            .verify_password(password.as_bytes(), &h)
            .is_ok(),
        Err(_) => false,
    }
}

/// A dummy verification, so a login with an unknown name takes as long as one with a
/// wrong password (no timing oracle for which names exist).
pub fn verify_nothing(password: &str) {
    static DUMMY: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    let h = DUMMY.get_or_init(|| hash_password("not a password at all").unwrap_or_default());
    let _ = verify_password(password, h);
}

/// A new session token (64 hex characters) and its SHA-256 (what the books keep).
pub fn new_token() -> (String, String) {
    let mut b = [0u8; 32];
    rand::rngs::OsRng.fill_bytes(&mut b);
    let token: String = b.iter().map(|x| format!("{x:02x}")).collect();
    let hash = token_hash(&token);
    (token, hash)
}

/// The SHA-256 (hex) of a token.
pub fn token_hash(token: &str) -> String {
    felt_store::sha256_hex(token.as_bytes())
}

/// The session token in a `Cookie` header, if any.
pub fn token_from_cookies(header: &str) -> Option<&str> {
    header
        .split(';')
        .filter_map(|kv| kv.trim().split_once('='))
        .find(|(k, _)| *k == COOKIE)
        .map(|(_, v)| v)
        .filter(|v| v.len() == 64 && v.bytes().all(|b| b.is_ascii_hexdigit()))
}

/// The `Set-Cookie` value that gives a browser its session.
pub fn set_cookie(token: &str, max_age_s: u64) -> String {
    format!("{COOKIE}={token}; HttpOnly; SameSite=Strict; Path=/; Max-Age={max_age_s}")
}

/// The `Set-Cookie` value that removes it.
pub fn clear_cookie() -> String {
    format!("{COOKIE}=; HttpOnly; SameSite=Strict; Path=/; Max-Age=0")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_hash_verifies_its_password_only_and_is_argon2id() {
        let h = hash_password("correct horse").unwrap();
        assert!(h.starts_with("$argon2id$"), "{h}");
        assert!(!h.contains("correct horse"));
        assert!(verify_password("correct horse", &h));
        assert!(!verify_password("correct hors", &h));
        assert!(!verify_password("correct horse", "not a hash"));
    }

    #[test]
    fn the_cookie_is_found_among_others_and_a_malformed_one_is_not() {
        let (t, h) = new_token();
        assert_eq!(h, token_hash(&t));
        let header = format!("a=b; {COOKIE}={t}; c=d");
        assert_eq!(token_from_cookies(&header), Some(t.as_str()));
        assert_eq!(token_from_cookies(&format!("{COOKIE}=zz")), None);
        assert!(
            set_cookie(&t, 60).contains("HttpOnly")
                && set_cookie(&t, 60).contains("SameSite=Strict")
        );
    }
}
