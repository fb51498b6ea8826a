//! felt-store: the books. A double-entry ledger in integer cents, progressive meters
//! shared by the tables that name them, and a round journal that makes money, meters
//! and history survive a crash at any instant; in an SQLite file ([`SqliteStore`]) or a
//! PostgreSQL database ([`PgStore`]), behind one [`Store`] trait.
//!
//! The store knows nothing of blackjack: actions and events are JSON texts the engine
//! produced, shoes are opaque bytes, and money moves as [`Movement`]s between
//! [`Account`]s. Each call is one transaction: a step's events and its money are
//! written together or not at all, and a failed call changes nothing.
//!
//! ```
//! use felt_core::Money;
//! use felt_store::{Account, Movement, MovementKind, NewRound, SqliteStore, Step, Store};
//!
//! # fn main() -> Result<(), felt_store::StoreError> {
//! # let dir = tempfile::tempdir().map_err(|e| felt_store::StoreError::InvalidInput(e.to_string()))?;
//! # let path = dir.path().join("felt.db");
//! // `felt play --db PATH`: resolve_db_path(cli) honours --db, then FELT_DB, then the
//! // data directory.
//! let mut books = SqliteStore::open(&path)?;
//! books.deposit("alice", Money::cents(100_00))?;
//! books.create_meter("blazing", Money::cents(2_000_00), &Account::house("operator"))?;
//!
//! let round = books.begin_round(&NewRound {
//!     game_id: "blazing-7s".into(),
//!     table_id: "t1".into(),
//!     seed: [7; 32],
//!     shoe: books.shoe("t1")?,
//!     ..Default::default()
//! })?;
//! let (alice, house) = (Account::player("alice"), Account::house("t1"));
//! books.record_step(round, &Step {
//!     action: Some(r#"{"bet":{"spot":0,"main":"10.00","side":"1.00"}}"#.into()),
//!     events: vec![r#"{"bet_placed":{"spot":0}}"#.into()],
//!     movements: vec![
//!         Movement::new(alice.clone(), house.clone(), Money::cents(10_00), MovementKind::Wager),
//!         Movement::new(alice.clone(), Account::meter("blazing"), Money::cents(1_00),
//!             MovementKind::Contribution),
//!     ],
//!     wallet: vec![],
//! })?;
//! books.finish_round(round, &Step {
//!     action: None,
//!     events: vec![r#"{"settled":{"spot":0,"win":"20.00"}}"#.into()],
//!     movements: vec![Movement::new(house, alice, Money::cents(20_00), MovementKind::Payout)],
//!     wallet: vec![],
//! }, r#"{"net":"9.00"}"#, Some(b"shoe after round 1"))?;
//!
//! assert_eq!(books.balance(&Account::player("alice"))?, Money::cents(109_00));
//! assert!(books.check_books()?.is_sound());
//! assert!(books.unfinished_rounds()?.is_empty());
//! # Ok(())
//! # }
//! ```
//!
//! A step whose engine reads a shared progressive meter (an award is a share of the
//! meter as it stands) is written with [`Store::record_step_with`]: the meters are read
//! and the step computed and written inside one write transaction, so tables in other
//! processes that share the meter wait, and every award is exact.
//!
//! [`SeatLocks`] keep two sessions from playing one player's wallet at once: an
//! operating-system lock per player, held for the session and freed when its process
//! ends, however it ends.
//!
//! After a crash, [`Store::unfinished_rounds`] lists the rounds begun and not ended,
//! with their seed, shoe, actions, events and money: replay the actions on the engine
//! and go on, or [`Store::void_round`] with [`RoundRecord::reversal`] as the refunds.
//!
//! # PostgreSQL
//!
//! The `--db` value chooses the engine ([`BooksAt::parse`], [`resolve_books`],
//! [`open_books`]): a `postgres://` or `postgresql://` URL opens a [`PgStore`], anything
//! else an SQLite file. Both engines give the same results and the same errors for the
//! same calls (one conformance suite runs against both); what PostgreSQL adds is that
//! several processes, on several machines, write one set of books at once:
//!
//! - The schema is the same tables as SQLite's, as numbered migrations in
//!   `schema_migrations`, each applied in one transaction under an advisory lock, so
//!   servers starting together on an empty database do not race. A database holding
//!   tables that are not felt's is refused ([`StoreError::ForeignDatabase`]), one
//!   written by a newer felt too ([`StoreError::NewerSchema`]). The append-only and
//!   round-ended rules are triggers, as in SQLite. Money is `BIGINT` cents, JSON is kept
//!   byte for byte as text, and times are the same `YYYY-MM-DDTHH:MM:SS.sssZ` texts.
//! - Each call is one transaction (`READ COMMITTED`, rows locked explicitly: a table's
//!   lease, then the round, then the meters in id order, then the accounts in id
//!   order), retried whole on a deadlock or serialization failure. A progressive meter
//!   shared by tables on several servers stays exact: [`Store::record_step_with`] locks
//!   the meters before `compute` sees them, so two hits at once are one after the other.
//!   Row ids come from sequences: they only grow, but a call that failed may leave a gap.
//! - Servers share the tables by leases ([`Store::claim_tables`], [`TableLease`]); a
//!   fenced connection ([`Store::fence`]) cannot write a table another server took over
//!   ([`StoreError::LeaseLost`]).
//! - Every change of a meter notifies `felt_meters` (payload: the meter id) and every
//!   change of a table's holder `felt_tables` (payload: the table id), delivered at
//!   commit: [`PgListener`] waits for them, so a server shows another server's meter
//!   moves at once.
//! - A lost connection fails the call with [`StoreError::Unavailable`] (a connection
//!   found dead before a call sends anything is replaced silently); the next call
//!   connects again.
//! - [`PgSeatLocks`] are the seat locks of a PostgreSQL database: session advisory
//!   locks, freed when their connection closes (the process ends, however it ends).
//! - Connections use TLS as the URL's `sslmode` and `sslrootcert` say, with libpq's
//!   meanings (`disable`, `allow`, `prefer` by default, `require`, `verify-ca`,
//!   `verify-full`; a PEM file of CAs, or `system`), on rustls: see `docs/deploy.md`.
//!
//! The `testing` feature adds [`testing::TestPostgres`], a throw-away PostgreSQL
//! cluster for tests (`scripts/postgres-test`).
#![forbid(unsafe_code)]

mod audit_log;
mod books;
mod error;
mod lease;
mod ledger;
mod limits;
mod location;
mod login;
mod model;
mod name;
mod path;
pub mod postgres;
mod seat;
mod seating;
pub mod sqlite;
#[cfg(feature = "testing")]
pub mod testing;
mod wallet;

pub use crate::postgres::{Notice, PgListener, PgSeatLocks, PgStore};
pub use audit_log::{
    AuditEntry, AuditQuery, NewAuditEntry, MAX_AUDIT_DETAIL, MAX_AUDIT_FIELD, SYSTEM_ACTOR,
};
pub use books::{BooksReport, Discrepancy};
pub use error::{Cause, Result, StoreError};
pub use lease::{SeatedPlayer, TableLease, TableStatus};
pub use limits::{
    round_usage, Exclusion, ExclusionKind, LimitChange, LimitKind, LimitPeriod, RealitySchedule,
    UsageKind, UsageTotals,
};
pub use location::{
    open_books, open_books_read_only, redact_url, resolve_books, BooksAt, HeldSeats,
};
pub use login::{LockPolicy, Login, NewLogin, Role, WebSession};
pub use model::{
    seed_hash, sha256_hex, Account, AwardRecord, Balance, Ended, EventRecord, MeterInfo, Movement,
    MovementKind, MovementRecord, NewRound, NewShoe, RoundId, RoundRecord, RoundShoe, RoundStatus,
    ShoeSeed, Step, StepRecord, StepWrite, RECENT_AWARDS,
};
pub use name::{normalize_name, validate_name, NameProblem, MAX_NAME_LEN};
pub use path::{default_db_path, resolve_db_path, DB_ENV, DB_FILE_NAME};
pub use seat::{lock_dir, lock_file, SeatLocks};
pub use seating::{SeatClaim, STALE_SEAT_MS};
pub use sqlite::{AppliedMigration, OpenOptions, SqliteStore};
pub use wallet::{
    credit_id, debit_id, funding_memo, rollback_id, NewWalletCall, WalletAnswer, WalletCall,
    WalletCallKind, WalletQuery, WalletState, CLOSING_NOTHING, MAX_TRANSACTION_ID, ROLLBACK_SUFFIX,
};

use felt_core::money::Money;

/// The books, whatever holds them: an SQLite file ([`SqliteStore`]) or a PostgreSQL
/// database ([`PgStore`]).
///
/// Every writing call is one transaction: all of it is written, or none of it (the
/// error says why). Reading calls see one consistent snapshot.
pub trait Store {
    /// Writes movements of money outside any round (deposits, withdrawals,
    /// adjustments), all or none; returns their ledger entry ids.
    fn post(&mut self, movements: &[Movement]) -> Result<Vec<i64>>;

    /// Puts `amount` in `player`'s wallet from the cashier (an initial bankroll, a
    /// buy-in); returns the ledger entry id.
    fn deposit(&mut self, player: &str, amount: Money) -> Result<i64> {
        let m = Movement::new(
            Account::Cashier,
            Account::player(player),
            amount,
            MovementKind::Deposit,
        );
        one_entry(self.post(&[m])?)
    }

    /// Takes `amount` out of `player`'s wallet back to the cashier; returns the ledger
    /// entry id.
    fn withdraw(&mut self, player: &str, amount: Money) -> Result<i64> {
        let m = Movement::new(
            Account::player(player),
            Account::Cashier,
            amount,
            MovementKind::Withdrawal,
        );
        one_entry(self.post(&[m])?)
    }

    /// Creates the progressive meter `meter` with its reset value, funded (a seed
    /// movement) by `funded_by`; if it exists already, returns it unchanged.
    fn create_meter(&mut self, meter: &str, reset: Money, funded_by: &Account)
        -> Result<MeterInfo>;

    /// Starts a round: writes its seed, the seed's SHA-256, the shoe it starts from, the
    /// rules it is played under and, for a new shoe, the shoe's commitment (retiring
    /// the table's previous shoe), all before any card is dealt.
    fn begin_round(&mut self, round: &NewRound) -> Result<RoundId>;

    /// Writes one step of an open round (its action, events and money) atomically;
    /// returns the step's number (1, 2, ...).
    fn record_step(&mut self, round: RoundId, step: &Step) -> Result<u32>;

    /// Computes and writes one step of an open round while holding the books' write
    /// lock: `compute` receives the current amounts of `meters` (read inside the
    /// transaction, so no other table can change them until the step is written) and
    /// says what to write. This is how a round whose progressive pays a share of the
    /// meter stays exact when several tables (processes) share the meter: the engine
    /// reads the meter, moves it and the books record that, as one transaction.
    /// Returns the step's number, or `None` when `compute` asked for nothing.
    /// `compute` runs at most once (not at all if the lock cannot be had).
    fn record_step_with(
        &mut self,
        round: RoundId,
        meters: &[&str],
        compute: &mut dyn FnMut(&[Money]) -> StepWrite,
    ) -> Result<Option<u32>>;

    /// Ends a round: writes its last step (skipped if empty), its result (JSON), and
    /// the shoe it leaves (which becomes the table's shoe), all in one transaction.
    fn finish_round(
        &mut self,
        round: RoundId,
        last: &Step,
        result_json: &str,
        shoe_after: Option<&[u8]>,
    ) -> Result<()>;

    /// Voids an open round with `refunds` (usually [`RoundRecord::reversal`]), in one
    /// transaction. The round's shoe is retired with it (cards of it may have been
    /// seen, so none of it is dealt again and its seed becomes public); the table's
    /// next round commits to a new shoe. Every debit of the round in the wallet outbox
    /// that was not refused and has no rollback yet gets one ([`rollback_id`]), in the
    /// same transaction.
    fn void_round(&mut self, round: RoundId, reason: &str, refunds: &[Movement]) -> Result<()>;

    /// Sets a table's shoe (opaque bytes) outside a round, e.g. after a reshuffle.
    fn save_shoe(&mut self, table: &str, shoe: &[u8]) -> Result<()>;

    /// The table's shoe as the last round (or [`Store::save_shoe`]) left it.
    fn shoe(&self, table: &str) -> Result<Option<Vec<u8>>>;

    /// The id the next round begun in these books will get (a round set up in memory
    /// shows it before it is written; another table may take it first).
    fn next_round_id(&self) -> Result<RoundId>;

    /// The commitment of the shoe `table` deals from now (`None`: no shoe, or one
    /// recorded before shoe commitments).
    fn table_shoe_seed(&self, table: &str) -> Result<Option<ShoeSeed>>;

    /// How many rounds were begun from shoe `shoe` (open, finished or voided).
    fn shoe_rounds(&self, shoe: i64) -> Result<u32>;

    /// Every shoe commitment, oldest first.
    fn shoe_seeds(&self) -> Result<Vec<ShoeSeed>>;

    /// The rounds dealt from shoe `shoe`, in order.
    fn rounds_of_shoe(&self, shoe: i64) -> Result<Vec<RoundRecord>>;

    /// The canonical rules text whose SHA-256 is `sha256`, if the books keep it.
    fn rules_text(&self, sha256: &str) -> Result<Option<String>>;

    /// How many rounds were ever begun at `table` (open, finished or voided).
    fn table_rounds(&self, table: &str) -> Result<u64>;

    /// The rounds begun and not ended, oldest first: what start-up must replay or void.
    fn unfinished_rounds(&self) -> Result<Vec<RoundRecord>>;

    /// One round, with its steps, events and money.
    fn round(&self, id: RoundId) -> Result<Option<RoundRecord>>;

    /// The last `last_n` rounds, newest first, with their steps, events and money.
    fn history(&self, last_n: usize) -> Result<Vec<RoundRecord>>;

    /// An account's balance (zero for an account never used).
    fn balance(&self, account: &Account) -> Result<Money>;

    /// Every account and its balance.
    fn balances(&self) -> Result<Vec<Balance>>;

    /// A meter with its latest awards.
    fn meter(&self, id: &str) -> Result<Option<MeterInfo>>;

    /// Every meter with its latest awards.
    fn meters(&self) -> Result<Vec<MeterInfo>>;

    /// The rounds in which `player`'s wallet moved, newest first: at most `last_n`,
    /// each older than `before` when given (to page back).
    fn player_rounds(
        &self,
        player: &str,
        last_n: usize,
        before: Option<RoundId>,
    ) -> Result<Vec<RoundRecord>>;

    /// The newest deposit into `player`'s wallet outside any round whose memo is
    /// `memo` (e.g. a play-money top-up), if any: what a rule such as "once an hour"
    /// is checked against.
    fn last_deposit(&self, player: &str, memo: &str) -> Result<Option<MovementRecord>>;

    /// Makes a login (its name canonical and not yet taken, by a login or a wallet) and
    /// deposits its starting balance, in one transaction.
    fn create_login(&mut self, new: &NewLogin<'_>) -> Result<()>;

    /// The login of `name`, if any.
    fn login(&self, name: &str) -> Result<Option<Login>>;

    /// Records a successful login at `now_ms` (failures forgotten); returns the previous
    /// successful login's time.
    fn login_succeeded(&mut self, name: &str, now_ms: i64) -> Result<Option<i64>>;

    /// Records a failed login at `now_ms`, locking the login under `policy`; returns
    /// the login as it now stands.
    fn login_failed(&mut self, name: &str, now_ms: i64, policy: LockPolicy) -> Result<Login>;

    /// Lifts a login's lock and forgets its failures (an operator's act); returns the
    /// end of the lock it had, if any (past or not).
    fn unlock_login(&mut self, name: &str) -> Result<Option<i64>>;

    /// Sets a login's password hash and role.
    fn set_login(&mut self, name: &str, password_hash: &str, role: Role) -> Result<()>;

    /// Opens a web session: the SHA-256 (hex) of its token, for login `name`.
    fn open_web_session(&mut self, token_sha256: &str, name: &str, now_ms: i64) -> Result<()>;

    /// The web session of a token's SHA-256, if open.
    fn web_session(&self, token_sha256: &str) -> Result<Option<WebSession>>;

    /// Marks a web session used at `now_ms`.
    fn touch_web_session(&mut self, token_sha256: &str, now_ms: i64) -> Result<()>;

    /// Closes a web session (log out, or timed out).
    fn close_web_session(&mut self, token_sha256: &str) -> Result<()>;

    /// Every web session of login `name` still in the books (timed out or not).
    fn web_sessions_of(&self, name: &str) -> Result<Vec<WebSession>>;

    /// Closes every web session of login `name` but the one of token hash `keep`;
    /// returns how many were closed.
    fn close_web_sessions_of(&mut self, name: &str, keep: Option<&str>) -> Result<u64>;

    /// Audits the books: the ledger sums to zero, every balance equals its ledger rows,
    /// every meter equals seeds + contributions - awards, no round has anything written
    /// after it ended, every seed matches its hash.
    fn check_books(&self) -> Result<BooksReport>;

    /// The calls of the wallet outbox that `query` asks for, oldest first.
    fn wallet_calls(&self, query: &WalletQuery) -> Result<Vec<WalletCall>>;

    /// Puts debits in the outbox of open round `round`, outside any step (a debit is
    /// written, and sent, before the step that uses its money): all or none.
    fn record_wallet_calls(&mut self, round: RoundId, calls: &[NewWalletCall]) -> Result<()>;

    /// Counts an attempt to send wallet call `id`, before it is sent: its attempts rise
    /// by one and it is not due again before `retry_at_ms`. Returns the call as it
    /// stands (a call no longer pending is returned unchanged: do not send it).
    fn wallet_attempt(&mut self, id: &str, retry_at_ms: i64) -> Result<WalletCall>;

    /// Records what came of sending wallet call `id`, in one transaction: the first
    /// definitive answer stands (a later one changes nothing); a lost answer stays
    /// pending, and a lost debit gets its rollback; an acknowledged rollback makes its
    /// debit `rolled-back`. Returns the call as it stands afterwards.
    fn wallet_answer(&mut self, id: &str, answer: &WalletAnswer) -> Result<WalletCall>;

    /// Appends an entry to the audit log; returns its number. The log is append-only.
    fn append_audit(&mut self, entry: &NewAuditEntry<'_>) -> Result<i64>;

    /// The audit log entries `query` asks for (the newest `limit`), oldest first.
    fn audit_entries(&self, query: &AuditQuery) -> Result<Vec<AuditEntry>>;

    /// Appends a change of a player's limit (its `seq` is ignored); returns its number.
    fn append_limit_change(&mut self, change: &LimitChange) -> Result<i64>;

    /// Every change of `player`'s limits, oldest first.
    fn limit_changes(&self, player: &str) -> Result<Vec<LimitChange>>;

    /// Counts `usage` against `player`'s limits at `at_ms` (amounts at least zero).
    fn record_usage(&mut self, player: &str, at_ms: i64, usage: &[(UsageKind, i64)]) -> Result<()>;

    /// The sums of `player`'s usage at or after `since_ms`. A `play-ms` row at `t`
    /// counts the logged-in time up to `t`, so it counts at most `t - since_ms`: a
    /// session that straddles `since_ms` (a period's start) counts only its time after.
    fn usage_since(&self, player: &str, since_ms: i64) -> Result<UsageTotals>;

    /// Appends a break or an exclusion (its `seq` is ignored); returns its number.
    fn append_exclusion(&mut self, exclusion: &Exclusion) -> Result<i64>;

    /// Every break and exclusion of `player`, oldest first.
    fn exclusions(&self, player: &str) -> Result<Vec<Exclusion>>;

    /// `player`'s reality-check schedule, if any.
    fn reality_schedule(&self, player: &str) -> Result<Option<RealitySchedule>>;

    /// Keeps `schedule` as its player's (replacing the one kept).
    fn put_reality_schedule(&mut self, schedule: &RealitySchedule) -> Result<()>;

    /// Opens a group commit: the writing calls until [`Store::end_group`] are each all
    /// or nothing as usual (a failed call leaves no trace), but become durable together
    /// at `end_group`, with one sync of the disk for them all. Until then nothing of
    /// the group may be shown to anyone. A store without groups makes each call durable
    /// by itself (the default: both methods do nothing).
    fn begin_group(&mut self) -> Result<()> {
        Ok(())
    }

    /// Commits the open group (see [`Store::begin_group`]). On an error nothing of the
    /// group is in the books.
    fn end_group(&mut self) -> Result<()> {
        Ok(())
    }

    /// Claims or renews, for `server` (its clients reach it at `url`), the lease of each
    /// of `tables` that is free, expired, or already `server`'s, for `ttl_ms` from the
    /// database's clock; returns the leases `server` holds afterwards among `tables`, by
    /// table. `epoch` rises by one each time a table changes hands.
    fn claim_tables(
        &mut self,
        server: &str,
        url: &str,
        tables: &[&str],
        ttl_ms: i64,
    ) -> Result<Vec<TableLease>>;

    /// Gives up `server`'s leases of `tables` (a clean stop), so another server may take
    /// them at once.
    fn release_tables(&mut self, server: &str, tables: &[&str]) -> Result<()>;

    /// Every table lease, by table, `live` when it has not expired (the database's
    /// clock).
    fn table_leases(&self) -> Result<Vec<TableLease>>;

    /// Tells the other servers' lobbies how `server`'s tables stand (who sits where,
    /// whether closed): each status is kept with the table's lease, for
    /// [`Store::table_leases`] to return, if `server` holds that lease; a table it does
    /// not hold is left as it is.
    fn note_table_status(&mut self, server: &str, statuses: &[(&str, &TableStatus)]) -> Result<()>;

    /// Seats `player` (its canonical name is kept) in `seat` (from 1) at `table`, in
    /// one transaction: the player holds one seat in the books, at one table, and a
    /// seat holds one player, whichever server asks. Refused, with nothing changed,
    /// when the player sits elsewhere ([`SeatClaim::Elsewhere`], naming where) or the
    /// seat is someone else's ([`SeatClaim::Occupied`]); the player's own seat again is
    /// [`SeatClaim::Taken`]. Fenced like the round writes ([`Store::fence`]).
    fn take_seat(&mut self, table: &str, seat: u8, player: &str) -> Result<SeatClaim>;

    /// Frees `player`'s seat at `table`; whether the player sat there. Fenced.
    fn leave_seat(&mut self, table: &str, player: &str) -> Result<bool>;

    /// The seats taken at `table`: (seat, player), by seat.
    fn table_seats(&self, table: &str) -> Result<Vec<(u8, String)>>;

    /// Frees every seat at `table` (it closed for good). Fenced.
    fn clear_table_seats(&mut self, table: &str) -> Result<()>;

    /// Fences this connection's round writes to `server`: from now on
    /// [`Store::begin_round`], [`Store::record_step`], [`Store::record_step_with`],
    /// [`Store::finish_round`], [`Store::void_round`] and [`Store::save_shoe`] on a
    /// table that has a lease row are refused with [`StoreError::LeaseLost`] unless
    /// `server` holds that lease (checked in the same transaction, the lease row locked,
    /// so a takeover and a write are one after the other: a write is either before the
    /// takeover, and the new host resumes it from the books, or refused). An expired
    /// lease nobody took yet is still `server`'s. `None` removes the fence (the
    /// default). A table with no lease row is not fenced (`felt play`).
    fn fence(&mut self, server: Option<&str>);
}

fn one_entry(ids: Vec<i64>) -> Result<i64> {
    ids.first().copied().ok_or_else(|| {
        StoreError::InvalidInput("the books wrote no entry for the movement".to_string())
    })
}
