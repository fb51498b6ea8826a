//! Logins of the online table: who may play (a name, a password hash, a role), their
//! failed attempts and lock-out, and the web sessions their browsers hold.
//!
//! The books keep only what a server needs to check a login: an argon2id hash the
//! server made (never the password), and the SHA-256 of each session token (never the
//! token). Times are milliseconds since the Unix epoch, given by the caller, so the
//! rules (lock-out, inactivity) are decided by the server and tested with any clock.

use serde::{Deserialize, Serialize};

/// What a login may do.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Role {
    /// Plays at the tables with their own wallet.
    Player,
    /// Also sees every table and meter, recalls any round and closes tables.
    Operator,
}

impl Role {
    /// The role as the books write it.
    pub fn as_str(self) -> &'static str {
        match self {
            Role::Player => "player",
            Role::Operator => "operator",
        }
    }

    /// The role the books wrote.
    pub fn parse(s: &str) -> Option<Role> {
        match s {
            "player" => Some(Role::Player),
            "operator" => Some(Role::Operator),
            _ => None,
        }
    }
}

/// A login as the books hold it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Login {
    /// The player's name (also the wallet's name).
    pub name: String,
    /// The password's argon2id hash (PHC string).
    pub password_hash: String,
    /// Its role.
    pub role: Role,
    /// When it was made.
    pub created_ms: i64,
    /// The last successful login, if any.
    pub last_login_ms: Option<i64>,
    /// Failed attempts since the last success (or the last lock-out).
    pub failed_logins: u32,
    /// Refused until this time (after too many failed attempts).
    pub locked_until_ms: Option<i64>,
}

impl Login {
    /// Whether the login is locked at `now_ms`.
    pub fn is_locked(&self, now_ms: i64) -> bool {
        self.locked_until_ms.is_some_and(|t| t > now_ms)
    }
}

/// A new login: the name (already in its canonical form), the hash, the role and the
/// play money its wallet starts with (deposited in the same transaction).
#[derive(Debug, Clone)]
pub struct NewLogin<'a> {
    /// The name.
    pub name: &'a str,
    /// The argon2id hash.
    pub password_hash: &'a str,
    /// The role.
    pub role: Role,
    /// The starting balance (0 for none).
    pub starting_balance: felt_core::Money,
    /// Now.
    pub now_ms: i64,
}

/// When too many failed attempts lock a login, and for how long.
#[derive(Debug, Clone, Copy)]
pub struct LockPolicy {
    /// Failed attempts in a row that lock the login.
    pub after: u32,
    /// How long it stays locked (ms).
    pub for_ms: i64,
}

/// A web session: the login a browser's session cookie stands for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WebSession {
    /// The login's name.
    pub name: String,
    /// Its role.
    pub role: Role,
    /// When the session was opened.
    pub created_ms: i64,
    /// When it was last used.
    pub last_seen_ms: i64,
}
