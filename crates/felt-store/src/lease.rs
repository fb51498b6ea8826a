//! Table leases: which server deals which table, when several servers share the books.

/// A server's hold on a table: only the holder deals it, until the lease expires.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct TableLease {
    /// The books' table id.
    pub table: String,
    /// The server holding it.
    pub server: String,
    /// Where clients reach that server (`http://host:port`).
    pub url: String,
    /// Rises by one each time the table changes hands (a fencing token).
    pub epoch: i64,
    /// When the lease ends unless renewed (Unix ms, the books' clock).
    pub expires_ms: i64,
    /// Not expired (the books' clock, when read).
    pub live: bool,
}
