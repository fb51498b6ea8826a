//! The audit log: what operators (and the server itself) did, with who and when, in an
//! append-only table of the books (GLI-19 2.8.8, 2.9.5, A.6.3). A row is never changed
//! or deleted: the books refuse it with a trigger on both engines.

/// The actor of an entry the server wrote by itself (not an operator or a player).
pub const SYSTEM_ACTOR: &str = "system";

/// The longest actor, action or subject the log keeps.
pub const MAX_AUDIT_FIELD: usize = 128;

/// The longest detail the log keeps.
pub const MAX_AUDIT_DETAIL: usize = 4_096;

/// An entry to append.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewAuditEntry<'a> {
    /// When, in Unix milliseconds (the server's clock).
    pub at_ms: i64,
    /// Who: an operator's login, a player's, or [`SYSTEM_ACTOR`].
    pub actor: &'a str,
    /// What, as a short kebab-case word (`close-table`, `exclude-player`, ...).
    pub action: &'a str,
    /// On what: a player's or a table's name.
    pub subject: &'a str,
    /// The rest, in a sentence (a reason, the values before and after).
    pub detail: &'a str,
}

/// An entry as the log holds it.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct AuditEntry {
    /// Its number: entries are numbered in the order they were written.
    pub seq: i64,
    /// When, in Unix milliseconds.
    pub at_ms: i64,
    /// Who.
    pub actor: String,
    /// What.
    pub action: String,
    /// On what.
    pub subject: String,
    /// The rest.
    pub detail: String,
}

/// Which entries to list.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct AuditQuery {
    /// Only entries on this subject.
    pub subject: Option<String>,
    /// Only entries at or after this time (Unix milliseconds).
    pub since_ms: Option<i64>,
    /// At most this many (the newest); 0: none.
    pub limit: usize,
}

/// Checks an entry before it is written: every field present and short enough.
pub(crate) fn check(e: &NewAuditEntry<'_>) -> crate::Result<()> {
    for (what, v) in [
        ("actor", e.actor),
        ("action", e.action),
        ("subject", e.subject),
    ] {
        if v.trim().is_empty() || v.len() > MAX_AUDIT_FIELD {
            return Err(crate::StoreError::InvalidInput(format!(
                "an audit entry's {what} must be 1 to {MAX_AUDIT_FIELD} bytes, not {} bytes",
                v.len()
            )));
        }
    }
    if e.detail.len() > MAX_AUDIT_DETAIL {
        return Err(crate::StoreError::InvalidInput(format!(
            "an audit entry's detail must be at most {MAX_AUDIT_DETAIL} bytes, not {}",
            e.detail.len()
        )));
    }
    Ok(())
}
