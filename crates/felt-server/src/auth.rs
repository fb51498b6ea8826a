//! Passwords and session tokens. A password is kept only as its argon2id hash (the
//! crate's default parameters: 19 MiB, 2 passes); a session token is 32 random bytes
//! from the operating system, sent once in an HttpOnly SameSite=Strict cookie, and kept
//! in the books only as its SHA-256.

use argon2::password_hash::rand_core::OsRng;
use argon2::password_hash::{PasswordHash, PasswordHasher, SaltString};
use argon2::Argon2;
use rand::RngCore;

/// The session cookie's name.
pub const COOKIE: &str = "felt_session";

/// The shortest password accepted.
pub const MIN_PASSWORD: usize = 8;
/// The longest password accepted (bytes): argon2 hashes anything, but a megabyte
/// password is an attack, not a password.
pub const MAX_PASSWORD: usize = 256;

/// The most common passwords of eight characters or more (the first 500 of the
/// ranked list of Mark Burnett's ten million leaked passwords, as zxcvbn ships it), one
/// a line: a guesser tries these first.
const COMMON: &str = include_str!("../data/common-passwords.txt");

/// Why a password is refused for the login `name` (the reason, said to the player).
pub fn password_problem(name: &str, p: &str) -> Option<String> {
    if p.chars().count() < MIN_PASSWORD {
        return Some(format!("a password has at least {MIN_PASSWORD} characters"));
    }
    if p.len() > MAX_PASSWORD {
        return Some(format!("a password has at most {MAX_PASSWORD} bytes"));
    }
    let mut chars = p.chars();
    if let Some(first) = chars.next() {
        if chars.all(|c| c == first) {
            return Some("a password is not one character repeated: choose another".to_string());
        }
    }
    let lower = p.to_lowercase();
    if lower == name.to_lowercase() {
        return Some("a password is not the name itself: choose another".to_string());
    }
    if COMMON.lines().any(|c| c == lower) {
        return Some(
            "this password is among the most common ones, the first a guesser tries: \
             choose another"
                .to_string(),
        );
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

thread_local! {
    /// The argon2 memory of this thread's verifications, kept from one to the next: a
    /// hashing thread holds one block of 19 MiB instead of asking the allocator for a
    /// new one each time (which, across threads, grew the process by hundreds of MiB).
    static MEMORY: std::cell::RefCell<Vec<argon2::Block>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// Whether `password` matches the stored hash.
pub fn verify_password(password: &str, hash: &str) -> bool {
    let Ok(h) = PasswordHash::new(hash) else {
        return false;
    };
    let (Some(expected), Some(salt)) = (h.hash, h.salt) else {
        return false;
    };
    let (Ok(params), Ok(algorithm)) = (
        argon2::Params::try_from(&h),
        argon2::Algorithm::try_from(h.algorithm),
    ) else {
        return false;
    };
    let version = h
        .version
        .and_then(|v| argon2::Version::try_from(v).ok())
        .unwrap_or_default();
    let mut salt_bytes = [0u8; 64];
    let Ok(salt) = salt.decode_b64(&mut salt_bytes) else {
        return false;
    };
    let blocks = params.block_count();
    let argon = Argon2::new(algorithm, version, params);
    let mut out = vec![0u8; expected.len()];
    let hashed = MEMORY.with(|m| {
        let mut m = m.borrow_mut();
        if m.len() < blocks {
            m.resize(blocks, argon2::Block::default());
        }
        argon
            .hash_password_into_with_memory(password.as_bytes(), salt, &mut out, &mut m[..blocks])
            .is_ok()
    });
    hashed && argon2::password_hash::Output::new(&out).is_ok_and(|o| o == expected)
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

/// The SHA-256 of the session token a request's `Cookie` headers carry, if any (the
/// books keep sessions by it).
pub fn session_hash(headers: &axum::http::HeaderMap) -> Option<String> {
    headers
        .get_all(axum::http::header::COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .find_map(token_from_cookies)
        .map(token_hash)
}

/// The `Set-Cookie` value that gives a browser its session (`Secure`: sent over
/// HTTPS only, when the server's public URL is `https`).
pub fn set_cookie(token: &str, max_age_s: u64, secure: bool) -> String {
    let secure = if secure { "; Secure" } else { "" };
    format!("{COOKIE}={token}; HttpOnly; SameSite=Strict; Path=/; Max-Age={max_age_s}{secure}")
}

/// The `Set-Cookie` value that removes it.
pub fn clear_cookie(secure: bool) -> String {
    set_cookie("", 0, secure)
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
            set_cookie(&t, 60, false).contains("HttpOnly")
                && set_cookie(&t, 60, false).contains("SameSite=Strict")
        );
        assert!(!set_cookie(&t, 60, false).contains("Secure"));
        assert!(set_cookie(&t, 60, true).ends_with("; Secure"));
        assert!(clear_cookie(true).contains("Max-Age=0; Secure"));
    }

    #[test]
    fn common_repeated_and_own_name_passwords_are_refused_with_the_reason() {
        for p in ["password", "PassWord", "12345678", "qwertyuiop", "iloveyou"] {
            let why = password_problem("ann", p).unwrap_or_default();
            assert!(why.contains("most common"), "{p}: {why}");
        }
        let why = password_problem("ann", "        ").unwrap_or_default();
        assert!(why.contains("one character repeated"), "{why}");
        let why = password_problem("annabelle", "AnnaBelle").unwrap_or_default();
        assert!(why.contains("the name"), "{why}");
        assert_eq!(password_problem("ann", "ann-secret"), None);
        assert_eq!(password_problem("ann", "correct horse battery"), None);
        assert_eq!(COMMON.lines().count(), 500);
        assert!(COMMON
            .lines()
            .all(|l| l.len() >= MIN_PASSWORD && l == l.to_lowercase()));
    }
}
