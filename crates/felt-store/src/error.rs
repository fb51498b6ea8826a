//! The store's errors: each says what is wrong and what to do about it.

use felt_core::money::Money;
use std::path::PathBuf;

/// A boxed lower-level cause (kept out of the public API's types).
pub type Cause = Box<dyn std::error::Error + Send + Sync + 'static>;

/// Everything that can go wrong in the books.
///
/// A failed call changes nothing: its transaction is rolled back, and whatever was
/// committed before it is still there.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum StoreError {
    /// The file exists but is not an SQLite database (garbage, another format, or a
    /// database damaged beyond its header).
    #[error(
        "the file at {path} is not a felt database (it is not an SQLite file, or its header \
         is damaged): move it away or restore a backup, or point felt at another database"
    )]
    NotADatabase {
        /// The file.
        path: PathBuf,
    },

    /// The database belongs to another program (an SQLite file with another application
    /// id or other tables, a PostgreSQL database holding tables that are not felt's).
    #[error(
        "the database at {path} belongs to another program ({detail}): felt will not touch it; \
         point felt at another database (an empty one, or felt's own)"
    )]
    ForeignDatabase {
        /// The file, or the PostgreSQL database (its URL without the password).
        path: PathBuf,
        /// What gave it away: its application id, or the tables it holds.
        detail: String,
    },

    /// The database exists but holds no books yet: it is empty, or another felt is
    /// creating the books in it right now (a read-only open waits for that, at most for
    /// the busy timeout).
    #[error(
        "the database at {path} holds no books yet (it is empty, or another felt is creating \
         the books in it right now): start the books with `felt play` on this database, or \
         try again in a moment; nothing was written",
        path = .path.display()
    )]
    NoBooksYet {
        /// The file, or the PostgreSQL database (its URL without the password).
        path: PathBuf,
    },

    /// The database was written by a newer felt, with a schema this felt does not know.
    #[error(
        "the database at {path} was written by a newer felt (schema {found}, this felt knows \
         {known}): upgrade felt, or point felt at another database"
    )]
    NewerSchema {
        /// The file, or the PostgreSQL database (its URL without the password).
        path: PathBuf,
        /// The schema version found in the file.
        found: i64,
        /// The newest schema version this build knows.
        known: i64,
    },

    /// Another process holds the database's write lock (SQLite) or a row this call must
    /// lock (PostgreSQL) for longer than the busy timeout.
    #[error(
        "the database at {path} is locked by another process (waited {waited_ms} ms): close \
         the other felt (or whatever program holds the file or the rows) and try again; \
         nothing was written"
    )]
    Locked {
        /// The file, or the PostgreSQL database (its URL without the password).
        path: PathBuf,
        /// How long this call waited for the lock.
        waited_ms: u64,
    },

    /// Another session (process) plays this player at these books now: two sessions
    /// must not hold one wallet at once. See [`crate::SeatLocks`] and
    /// [`crate::PgSeatLocks`].
    #[error(
        "player `{player}`'s seat at the books {books} is in use by another session ({}): \
         finish that session first (answer q there), or play under another name; nothing \
         was changed",
        holder(.pid)
    )]
    SeatInUse {
        /// The player whose seat is taken.
        player: String,
        /// Where the books are: a file path, or a PostgreSQL URL without its password.
        books: String,
        /// The process id of the session holding the seat, when it could be read.
        pid: Option<u32>,
    },

    /// A seat lock file could not be made or locked (an unwritable directory).
    #[error(
        "cannot take the seat lock {path} ({cause}): check that the directory of the books is \
         writable, or point felt at another database; nothing was changed"
    )]
    SeatLockFailed {
        /// The lock file (or the books, when they cannot be found).
        path: PathBuf,
        /// What the system said.
        cause: Cause,
    },

    /// The disk (or the database's size limit) is full.
    #[error(
        "the disk holding the database at {path} is full (or a file-size limit or disk quota is \
         reached): free some space (or raise the limit) and try again; the step that failed \
         was not written and everything committed before it is safe"
    )]
    DiskFull {
        /// The file.
        path: PathBuf,
    },

    /// The operating system refused to write the database or its journal: the disk is
    /// full, a file-size limit (`ulimit -f`) or quota is reached, or the device failed.
    #[error(
        "cannot write the database at {path} or its journal ({cause}): the disk is full, a \
         file-size limit (`ulimit -f`) or disk quota is reached, or the device is failing. \
         Free some space (or raise the limit) and try again; the step that failed was not \
         committed and everything committed before it is safe"
    )]
    WriteFailed {
        /// The file.
        path: PathBuf,
        /// What the database said.
        cause: Cause,
    },

    /// The database cannot be written: a read-only file, directory or file system, a
    /// read-only database server or session, or a store opened read-only.
    #[error(
        "the database at {path} cannot be written (read-only file, directory or file system, \
         read-only database server, or opened read-only): fix its permissions, or point felt \
         at a writable database; nothing was written"
    )]
    ReadOnly {
        /// The file, or the PostgreSQL database (its URL without the password).
        path: PathBuf,
    },

    /// The database could not be opened or created at all (a file that cannot be made,
    /// a PostgreSQL server that refuses felt's login or has no such database, a URL's
    /// TLS parameters that are wrong or that the server's certificate fails).
    #[error(
        "cannot open the database at {path} ({cause}): check that the directory exists and is \
         writable (for a database server: that the database exists and takes felt's login, \
         and that the URL's sslmode and sslrootcert fit the server), or point felt at another \
         database"
    )]
    CannotOpen {
        /// The file, or the PostgreSQL database (its URL without the password).
        path: PathBuf,
        /// What the system said.
        cause: Cause,
    },

    /// The file is a felt database, but its contents are damaged or inconsistent.
    ///
    /// `felt books` cannot read such a file either, so the advice names what works
    /// without felt: SQLite's own integrity check, a backup, or new books.
    #[error(
        "the database at {path} is damaged ({detail}): nothing more was written to it. Keep \
         it for an audit and do not play on it. `sqlite3 '{path}' 'PRAGMA integrity_check'` \
         lists the damage; to go on, restore a backup of the file (with its -wal and -shm \
         files, if any), or move the file and its -wal and -shm files aside (e.g. \
         `mv '{path}' '{path}.damaged'`) so that the next `felt play` starts new books, or \
         point felt at another database",
        path = .path.display()
    )]
    Damaged {
        /// The file.
        path: PathBuf,
        /// What was found.
        detail: String,
    },

    /// The operating system gave no data directory for this user.
    #[error(
        "cannot find a data directory for this user (is HOME set?), so there is no default \
         database: point felt at one (a file, or a postgres:// URL) to say where the books live"
    )]
    NoDataDir,

    /// No shoe commitment has this id.
    #[error("there is no shoe {shoe} in the books: list them with `felt verify`")]
    UnknownShoe {
        /// The shoe id asked for.
        shoe: i64,
    },

    /// A round was to deal from a shoe that is retired, or belongs to another table.
    #[error(
        "shoe {shoe} (of table `{table}`) is retired or not this table's: a new round there \
         must commit to a new shoe"
    )]
    ShoeRetired {
        /// The shoe.
        shoe: i64,
        /// The table it belongs to.
        table: String,
    },

    /// A new login's name is taken (by another login, or by a wallet of the books).
    #[error("the name `{name}` is taken: choose another; nothing was changed")]
    NameTaken {
        /// The name.
        name: String,
    },

    /// No login has this name.
    #[error("there is no login `{name}` in the books")]
    UnknownLogin {
        /// The name.
        name: String,
    },

    /// No round has this id.
    #[error("there is no round {round} in the books: list them with `felt history`")]
    UnknownRound {
        /// The round id asked for.
        round: i64,
    },

    /// A step, finish or void was asked of a round that is already finished or voided.
    #[error(
        "round {round} is {status}: nothing can be added to a round once it has ended (start \
         a new round)"
    )]
    RoundClosed {
        /// The round.
        round: i64,
        /// `finished` or `voided`.
        status: String,
    },

    /// A movement of money that the books refuse (zero or negative amount, an account
    /// paying itself, a kind that does not fit its accounts).
    #[error("refused movement: {reason}; nothing was written")]
    InvalidMovement {
        /// Why.
        reason: String,
    },

    /// A player wallet or a meter would go below zero.
    #[error(
        "{account} holds {balance} and cannot pay {amount}: deposit first (or fix the caller); \
         nothing was written"
    )]
    InsufficientFunds {
        /// The account, as shown to a user (`player alice`, `meter blazing`).
        account: String,
        /// Its balance before the movement.
        balance: Money,
        /// The amount asked.
        amount: Money,
    },

    /// A deposit (or any movement outside a round) would take a player's wallet above
    /// the engine's balance limit ([`felt_core::round::MAX_BALANCE`]): the engine could
    /// not seat that player afterwards, so the books refuse it before writing.
    #[error(
        "{account} holds {balance}: {amount} more would take it above {limit}, the most a \
         player's wallet may hold (the engine's balance limit); nothing was written"
    )]
    BalanceLimit {
        /// The account, as shown to a user (`player alice`).
        account: String,
        /// Its balance before the movement.
        balance: Money,
        /// The amount asked.
        amount: Money,
        /// The limit.
        limit: Money,
    },

    /// A text the books store as JSON is not JSON.
    #[error(
        "the {what} is not valid JSON ({detail}): this is a bug in the caller; nothing was written"
    )]
    InvalidJson {
        /// Which text (`action of a step`, `event 3 of a step`, `round result`).
        what: String,
        /// The parser's message.
        detail: String,
    },

    /// A name the books refuse: empty, too long, holding an invisible or control
    /// character, or (for an id) not in its canonical form. See
    /// [`crate::normalize_name`].
    #[error("the {what} name {} cannot be used: {problem}; nothing was written", shown(.name))]
    InvalidName {
        /// Which kind of name (`player`, `table`, `meter`, ...).
        what: String,
        /// The name as given.
        name: String,
        /// What is wrong with it.
        problem: crate::NameProblem,
    },

    /// A name, id or other argument the books refuse.
    #[error("{0}; nothing was written")]
    InvalidInput(String),

    /// A wallet call named in a call is not in the books' outbox.
    #[error("there is no wallet call `{id}` in the books: list them with `felt wallet`")]
    UnknownWalletCall {
        /// Its transaction id.
        id: String,
    },

    /// A wallet call of this transaction id is in the books already: ids are never reused.
    #[error(
        "a wallet call `{id}` is in the books already: each transaction id is used once; \
         nothing was written"
    )]
    WalletCallExists {
        /// Its transaction id.
        id: String,
    },

    /// A meter named in a call does not exist.
    #[error("there is no progressive meter `{meter}`: create it first (with its reset value)")]
    UnknownMeter {
        /// The meter id.
        meter: String,
    },

    /// Any other database failure (an I/O error, an internal error).
    #[error(
        "the database at {path} failed ({cause}): try again; if it persists, check the file \
         with `sqlite3 '{path}' 'PRAGMA integrity_check'` and restore a backup",
        path = .path.display()
    )]
    Database {
        /// The file.
        path: PathBuf,
        /// What the database said.
        cause: Cause,
    },

    /// The PostgreSQL server cannot be reached, or the connection to it was lost during
    /// the call (a restart, a network failure). The next call connects again.
    #[error(
        "the database server at {location} is unreachable ({detail}): check that it runs and \
         takes connections; the next call connects again"
    )]
    Unavailable {
        /// The database (its URL without the password).
        location: String,
        /// What failed, and whether the call may have been written.
        detail: String,
    },

    /// Another server holds the lease of the table now (see
    /// [`Store::claim_tables`](crate::Store::claim_tables) and
    /// [`Store::fence`](crate::Store::fence)): this server may not write its rounds.
    #[error(
        "table `{table}` is dealt by server `{holder}` now (its lease passed to that server): \
         this server must stop dealing it; nothing was written"
    )]
    LeaseLost {
        /// The table.
        table: String,
        /// The server that holds its lease.
        holder: String,
    },

    /// The PostgreSQL books hold something they must not (a row that cannot be read, a
    /// write the schema's rules refuse).
    #[error(
        "the books at {location} are inconsistent ({detail}): nothing more was written. Keep \
         the database for an audit and do not play on it; restore a backup, or point felt at \
         another database"
    )]
    Inconsistent {
        /// The database (its URL without the password).
        location: String,
        /// What was found.
        detail: String,
    },

    /// Any other failure of the PostgreSQL server.
    #[error(
        "the database server at {location} failed ({cause}): try again; if it persists, read \
         the server's log"
    )]
    ServerFailed {
        /// The database (its URL without the password).
        location: String,
        /// What the server said.
        cause: Cause,
    },

    /// A call succeeded inside a group commit (see `Store::begin_group`) whose commit
    /// then failed: nothing of the group is in the books.
    #[error(
        "the books could not commit this step with the others written at the same moment \
         ({detail}): none of them is in the books"
    )]
    GroupFailed {
        /// Why the group's commit failed.
        detail: String,
    },
}

/// Who holds a seat, as the error says it.
fn holder(pid: &Option<u32>) -> String {
    match pid {
        Some(p) => format!("process {p}"),
        None => "process id unknown".to_string(),
    }
}

/// A name as an error quotes it: escaped (an invisible character shows as `\u{200b}`),
/// and cut after 60 characters.
fn shown(name: &str) -> String {
    const MAX: usize = 60;
    let mut cut: String = name.chars().take(MAX).collect();
    if name.chars().nth(MAX).is_some() {
        cut.push_str("...");
    }
    format!("{cut:?}")
}

/// The store's result type.
pub type Result<T, E = StoreError> = std::result::Result<T, E>;

/// The first tables of a database that is not felt's, for its error: at most eight,
/// then "...".
pub(crate) fn some_tables(tables: &[String]) -> String {
    let mut shown = tables
        .iter()
        .take(8)
        .cloned()
        .collect::<Vec<_>>()
        .join(", ");
    if tables.len() > 8 {
        shown.push_str(", ...");
    }
    shown
}
