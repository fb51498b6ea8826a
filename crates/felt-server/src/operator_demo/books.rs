//! The reference operator's own books, in an SQLite file: players and their balances,
//! launch tokens, every transaction with its first answer, the rollbacks of debits not
//! seen yet, and a ledger of every change of a balance.

use crate::wallet::wire::{
    Authenticate, Authenticated, Balance, BalanceAnswer, Credit, Debit, Refusal, RefusalCode,
    Rollback,
};
use felt_core::money::Money;
use rusqlite::{params, Connection, OptionalExtension, TransactionBehavior};
use std::path::Path;

const SCHEMA: &str = r#"
CREATE TABLE IF NOT EXISTS players (
    id            TEXT PRIMARY KEY,
    name          TEXT NOT NULL,
    currency      TEXT NOT NULL,
    balance_cents INTEGER NOT NULL CHECK (balance_cents >= 0),
    blocked       INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE IF NOT EXISTS tokens (
    token     TEXT PRIMARY KEY,
    player    TEXT NOT NULL REFERENCES players(id),
    expires_s INTEGER NOT NULL
);
-- Every debit, credit and rollback with its first answer (given again to a repeat).
CREATE TABLE IF NOT EXISTS transactions (
    id           TEXT PRIMARY KEY,
    call         TEXT NOT NULL,
    player       TEXT NOT NULL,
    round        TEXT NOT NULL,
    amount_cents INTEGER NOT NULL,
    content      TEXT NOT NULL,
    status       INTEGER NOT NULL,
    answer       TEXT NOT NULL,
    rolled_back  INTEGER NOT NULL DEFAULT 0
);
-- Rollbacks of debits that had not arrived: such a debit is refused if it comes.
CREATE TABLE IF NOT EXISTS unseen_rollbacks (
    debit    TEXT PRIMARY KEY,
    rollback TEXT NOT NULL
);
-- A player's wager limit: the debits taken and not rolled back may not pass it.
CREATE TABLE IF NOT EXISTS wager_limits (
    player      TEXT PRIMARY KEY REFERENCES players(id),
    limit_cents INTEGER NOT NULL CHECK (limit_cents >= 0)
);
CREATE TABLE IF NOT EXISTS ledger (
    seq            INTEGER PRIMARY KEY AUTOINCREMENT,
    transaction_id TEXT NOT NULL,
    call           TEXT NOT NULL,
    player         TEXT NOT NULL,
    round          TEXT NOT NULL,
    delta_cents    INTEGER NOT NULL
);
"#;

/// A failure of the demo's books (answered 500: nothing was done).
#[derive(Debug, thiserror::Error)]
#[error("the operator's books failed: {0}")]
pub struct BooksError(String);

impl BooksError {
    /// A failure described by `why`.
    pub fn new(why: impl Into<String>) -> BooksError {
        BooksError(why.into())
    }
}

impl From<rusqlite::Error> for BooksError {
    fn from(e: rusqlite::Error) -> BooksError {
        BooksError(e.to_string())
    }
}

/// An answer: its HTTP status and JSON body.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Answer {
    /// The status.
    pub status: u16,
    /// The body.
    pub body: String,
}

impl Answer {
    fn ok(value: &impl serde::Serialize) -> Answer {
        Answer {
            status: 200,
            body: serde_json::to_string(value).unwrap_or_default(),
        }
    }

    fn balance(cents: i64) -> Answer {
        Answer::ok(&BalanceAnswer::new(Money::cents(cents)))
    }

    /// A refusal of `code`.
    pub fn refusal(code: RefusalCode, message: &str) -> Answer {
        let status = match code {
            RefusalCode::InsufficientFunds => 402,
            RefusalCode::LimitReached | RefusalCode::PlayerBlocked => 403,
            RefusalCode::SessionExpired | RefusalCode::BadSignature => 401,
            RefusalCode::TransactionMismatch => 409,
        };
        let r = Refusal {
            error: code,
            message: message.to_string(),
        };
        Answer {
            status,
            body: serde_json::to_string(&r).unwrap_or_default(),
        }
    }
}

/// A call the wallet answers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Request {
    /// `authenticate`.
    Authenticate(Authenticate),
    /// `balance`.
    Balance(Balance),
    /// `debit`.
    Debit(Debit),
    /// `credit`.
    Credit(Credit),
    /// `rollback`.
    Rollback(Rollback),
}

impl Request {
    /// The call `name` with this body; `None` for an unknown name, `Err` for a body
    /// that is not the call's.
    pub fn parse(name: &str, body: &[u8]) -> Option<Result<Request, String>> {
        fn of<T: serde::de::DeserializeOwned>(
            body: &[u8],
            f: fn(T) -> Request,
        ) -> Result<Request, String> {
            serde_json::from_slice(body)
                .map(f)
                .map_err(|e| e.to_string())
        }
        Some(match name {
            "authenticate" => of(body, Request::Authenticate),
            "balance" => of(body, Request::Balance),
            "debit" => of(body, Request::Debit),
            "credit" => of(body, Request::Credit),
            "rollback" => of(body, Request::Rollback),
            _ => return None,
        })
    }
}

/// One change of a balance.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LedgerRow {
    /// The transaction that made it.
    pub transaction_id: String,
    /// `debit`, `credit` or `rollback`.
    pub call: String,
    /// The player.
    pub player: String,
    /// felt's round.
    pub round: String,
    /// The change.
    pub delta: Money,
}

/// A transaction as the operator keeps it, with its first answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TransactionRow {
    /// felt's transaction id.
    pub id: String,
    /// `debit`, `credit` or `rollback`.
    pub call: String,
    /// The player.
    pub player: String,
    /// felt's round.
    pub round: String,
    /// The call's body without its `request_id`, as first received.
    pub content: String,
    /// The status of the first answer (200: done).
    pub status: u16,
    /// For a debit, whether a rollback gave its money back.
    pub rolled_back: bool,
}

/// The operator's books.
pub struct DemoBooks {
    conn: Connection,
}

/// A transaction's identity and content, for idempotency.
struct Tx<'a> {
    id: &'a str,
    call: &'static str,
    player: &'a str,
    round: &'a str,
    amount: i64,
    content: String,
}

/// The call's body with its `request_id` blanked: what must match for a repeat.
fn content_of<T: serde::Serialize + Clone>(call: &T, blank: impl FnOnce(&mut T)) -> String {
    let mut c = call.clone();
    blank(&mut c);
    serde_json::to_string(&c).unwrap_or_default()
}

impl DemoBooks {
    /// Opens (or makes) the books at `path`.
    pub fn open(path: &Path) -> Result<DemoBooks, BooksError> {
        let conn = Connection::open(path)?;
        conn.busy_timeout(std::time::Duration::from_secs(5))?;
        conn.execute_batch("PRAGMA journal_mode = WAL; PRAGMA synchronous = FULL;")?;
        conn.execute_batch(SCHEMA)?;
        Ok(DemoBooks { conn })
    }

    /// Adds player `id` with a starting balance, unless the player exists.
    pub fn add_player(
        &mut self,
        id: &str,
        name: &str,
        currency: &str,
        balance: Money,
    ) -> Result<(), BooksError> {
        if balance.as_cents() < 0 {
            return Err(BooksError(format!("{id}: a balance below zero")));
        }
        self.conn.execute(
            "INSERT INTO players (id, name, currency, balance_cents) VALUES (?1, ?2, ?3, ?4) \
             ON CONFLICT (id) DO NOTHING",
            params![id, name, currency, balance.as_cents()],
        )?;
        Ok(())
    }

    /// Blocks or unblocks a player (refused for a player the books do not have).
    pub fn set_blocked(&mut self, id: &str, blocked: bool) -> Result<(), BooksError> {
        let changed = self.conn.execute(
            "UPDATE players SET blocked = ?2 WHERE id = ?1",
            params![id, blocked],
        )?;
        if changed == 0 {
            return Err(BooksError::new(format!("no player `{id}`")));
        }
        Ok(())
    }

    /// Sets (or, with `None`, lifts) `player`'s wager limit: a debit that would take
    /// the sum of the player's debits (not rolled back) past it is `limit-reached`.
    pub fn set_wager_limit(
        &mut self,
        player: &str,
        limit: Option<Money>,
    ) -> Result<(), BooksError> {
        match limit {
            Some(l) if l.as_cents() < 0 => {
                return Err(BooksError(format!("{player}: a limit below zero")))
            }
            Some(l) => self.conn.execute(
                "INSERT INTO wager_limits (player, limit_cents) VALUES (?1, ?2) \
                 ON CONFLICT (player) DO UPDATE SET limit_cents = excluded.limit_cents",
                params![player, l.as_cents()],
            )?,
            None => self
                .conn
                .execute("DELETE FROM wager_limits WHERE player = ?1", [player])?,
        };
        Ok(())
    }

    /// A new launch token for `player`, valid until `expires_s` (Unix seconds).
    pub fn launch_token(&mut self, player: &str, expires_s: i64) -> Result<String, BooksError> {
        if self.balance_of(player)?.is_none() {
            return Err(BooksError(format!("there is no player {player}")));
        }
        let token = format!("lt-{:032x}", rand::random::<u128>());
        self.conn.execute(
            "INSERT INTO tokens (token, player, expires_s) VALUES (?1, ?2, ?3)",
            params![token, player, expires_s],
        )?;
        Ok(token)
    }

    /// A player's balance, if the player exists.
    pub fn balance_of(&self, player: &str) -> Result<Option<Money>, BooksError> {
        Ok(self
            .conn
            .query_row(
                "SELECT balance_cents FROM players WHERE id = ?1",
                [player],
                |r| r.get::<_, i64>(0),
            )
            .optional()?
            .map(Money::cents))
    }

    /// Every change of a balance, in order.
    pub fn ledger(&self) -> Result<Vec<LedgerRow>, BooksError> {
        let mut st = self.conn.prepare(
            "SELECT transaction_id, call, player, round, delta_cents FROM ledger ORDER BY seq",
        )?;
        let rows = st
            .query_map([], |r| {
                Ok(LedgerRow {
                    transaction_id: r.get(0)?,
                    call: r.get(1)?,
                    player: r.get(2)?,
                    round: r.get(3)?,
                    delta: Money::cents(r.get(4)?),
                })
            })?
            .collect::<rusqlite::Result<Vec<_>>>()?;
        Ok(rows)
    }

    /// Every transaction, in the order it first arrived (the operator staff's view for
    /// reconciling with felt's rounds).
    pub fn transactions(&self) -> Result<Vec<TransactionRow>, BooksError> {
        let mut st = self.conn.prepare(
            "SELECT id, call, player, round, content, status, rolled_back FROM transactions \
             ORDER BY rowid",
        )?;
        let rows = st
            .query_map([], |r| {
                Ok(TransactionRow {
                    id: r.get(0)?,
                    call: r.get(1)?,
                    player: r.get(2)?,
                    round: r.get(3)?,
                    content: r.get(4)?,
                    status: r.get(5)?,
                    rolled_back: r.get(6)?,
                })
            })?
            .collect::<rusqlite::Result<Vec<_>>>()?;
        Ok(rows)
    }

    /// Answers `request` at Unix time `now_s`, in one transaction of the books.
    pub fn answer(&mut self, request: &Request, now_s: i64) -> Result<Answer, BooksError> {
        let tx = self
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)?;
        let answer = match request {
            Request::Authenticate(a) => authenticate(&tx, &a.token, now_s)?,
            Request::Balance(b) => match balance(&tx, &b.player)? {
                Some((cents, _)) => Answer::balance(cents),
                None => unknown_player(),
            },
            Request::Debit(d) => {
                let content = content_of(d, |c| c.request_id.clear());
                let t = Tx {
                    id: &d.transaction_id,
                    call: "debit",
                    player: &d.player,
                    round: &d.round,
                    amount: d.amount.0.as_cents(),
                    content,
                };
                transact(&tx, &t, debit)?
            }
            Request::Credit(c) => {
                let content = content_of(c, |c| c.request_id.clear());
                let t = Tx {
                    id: &c.transaction_id,
                    call: "credit",
                    player: &c.player,
                    round: &c.round,
                    amount: c.amount.0.as_cents(),
                    content,
                };
                transact(&tx, &t, credit)?
            }
            Request::Rollback(r) => {
                let content = content_of(r, |c| c.request_id.clear());
                let t = Tx {
                    id: &r.transaction_id,
                    call: "rollback",
                    player: &r.player,
                    round: &r.round,
                    amount: 0,
                    content,
                };
                transact(&tx, &t, |c, t| rollback(c, t, &r.rolls_back))?
            }
        };
        tx.commit()?;
        Ok(answer)
    }
}

fn unknown_player() -> Answer {
    Answer::refusal(RefusalCode::PlayerBlocked, "there is no such player")
}

/// The balance and blocked flag of a player.
fn balance(c: &Connection, player: &str) -> Result<Option<(i64, bool)>, BooksError> {
    Ok(c.query_row(
        "SELECT balance_cents, blocked FROM players WHERE id = ?1",
        [player],
        |r| Ok((r.get(0)?, r.get(1)?)),
    )
    .optional()?)
}

fn authenticate(c: &Connection, token: &str, now_s: i64) -> Result<Answer, BooksError> {
    let found = c
        .query_row(
            "SELECT p.id, p.name, p.currency, p.balance_cents, p.blocked, t.expires_s \
             FROM tokens t JOIN players p ON p.id = t.player WHERE t.token = ?1",
            [token],
            |r| {
                Ok((
                    r.get::<_, String>(0)?,
                    r.get::<_, String>(1)?,
                    r.get::<_, String>(2)?,
                    r.get::<_, i64>(3)?,
                    r.get::<_, bool>(4)?,
                    r.get::<_, i64>(5)?,
                ))
            },
        )
        .optional()?;
    Ok(match found {
        Some((_, _, _, _, _, expires)) if expires < now_s => {
            Answer::refusal(RefusalCode::SessionExpired, "the launch link has expired")
        }
        Some((_, _, _, _, true, _)) => {
            Answer::refusal(RefusalCode::PlayerBlocked, "the player is blocked")
        }
        Some((id, name, currency, cents, false, _)) => Answer::ok(&Authenticated::new(
            &id,
            &name,
            &currency,
            Money::cents(cents),
        )),
        None => Answer::refusal(RefusalCode::SessionExpired, "unknown launch token"),
    })
}

/// Answers a transaction once: a repeat of the same content gets the first answer, other
/// content `transaction-mismatch`; a new one is `apply`d and its answer kept.
fn transact(
    c: &Connection,
    t: &Tx<'_>,
    apply: impl FnOnce(&Connection, &Tx<'_>) -> Result<(Answer, i64), BooksError>,
) -> Result<Answer, BooksError> {
    let seen = c
        .query_row(
            "SELECT content, status, answer FROM transactions WHERE id = ?1",
            [t.id],
            |r| {
                Ok((
                    r.get::<_, String>(0)?,
                    r.get::<_, u16>(1)?,
                    r.get::<_, String>(2)?,
                ))
            },
        )
        .optional()?;
    if let Some((content, status, body)) = seen {
        return Ok(if content == t.content {
            Answer { status, body }
        } else {
            Answer::refusal(
                RefusalCode::TransactionMismatch,
                "this transaction id was seen with other content",
            )
        });
    }
    let (answer, delta) = apply(c, t)?;
    c.execute(
        "INSERT INTO transactions (id, call, player, round, amount_cents, content, status, answer) \
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
        params![t.id, t.call, t.player, t.round, t.amount, t.content, answer.status, answer.body],
    )?;
    if delta != 0 {
        c.execute(
            "UPDATE players SET balance_cents = balance_cents + ?2 WHERE id = ?1",
            params![t.player, delta],
        )?;
        c.execute(
            "INSERT INTO ledger (transaction_id, call, player, round, delta_cents) \
             VALUES (?1, ?2, ?3, ?4, ?5)",
            params![t.id, t.call, t.player, t.round, delta],
        )?;
    }
    Ok(answer)
}

fn debit(c: &Connection, t: &Tx<'_>) -> Result<(Answer, i64), BooksError> {
    let rolled_back: bool = c.query_row(
        "SELECT EXISTS (SELECT 1 FROM unseen_rollbacks WHERE debit = ?1)",
        [t.id],
        |r| r.get(0),
    )?;
    if rolled_back {
        let a = Answer::refusal(
            RefusalCode::TransactionMismatch,
            "this debit was rolled back before it arrived",
        );
        return Ok((a, 0));
    }
    Ok(match (balance(c, t.player)?, past_limit(c, t)?) {
        (None, _) => (unknown_player(), 0),
        (Some((_, true)), _) => (
            Answer::refusal(RefusalCode::PlayerBlocked, "the player is blocked"),
            0,
        ),
        (Some(_), Some((limit, wagered))) => {
            let m = format!(
                "the wager limit of {} is reached: {} wagered",
                Money::cents(limit),
                Money::cents(wagered)
            );
            (Answer::refusal(RefusalCode::LimitReached, &m), 0)
        }
        (Some((cents, false)), None) if cents < t.amount => (
            Answer::refusal(
                RefusalCode::InsufficientFunds,
                &format!("the balance is {}", Money::cents(cents)),
            ),
            0,
        ),
        (Some((cents, false)), None) => (Answer::balance(cents - t.amount), -t.amount),
    })
}

/// The player's wager limit and what they wagered, if debit `t` would pass it.
fn past_limit(c: &Connection, t: &Tx<'_>) -> Result<Option<(i64, i64)>, BooksError> {
    let limit: Option<i64> = c
        .query_row(
            "SELECT limit_cents FROM wager_limits WHERE player = ?1",
            [t.player],
            |r| r.get(0),
        )
        .optional()?;
    let Some(limit) = limit else {
        return Ok(None);
    };
    let wagered: i64 = c.query_row(
        "SELECT COALESCE(SUM(amount_cents), 0) FROM transactions \
         WHERE player = ?1 AND call = 'debit' AND status = 200 AND rolled_back = 0",
        [t.player],
        |r| r.get(0),
    )?;
    Ok((wagered.saturating_add(t.amount) > limit).then_some((limit, wagered)))
}

fn credit(c: &Connection, t: &Tx<'_>) -> Result<(Answer, i64), BooksError> {
    Ok(match balance(c, t.player)? {
        None => (unknown_player(), 0),
        Some((cents, _)) => (Answer::balance(cents + t.amount), t.amount),
    })
}

fn rollback(c: &Connection, t: &Tx<'_>, debit: &str) -> Result<(Answer, i64), BooksError> {
    let Some((cents, _)) = balance(c, t.player)? else {
        return Ok((unknown_player(), 0));
    };
    let found = c
        .query_row(
            "SELECT player, round, amount_cents, status, rolled_back FROM transactions \
             WHERE id = ?1 AND call = 'debit'",
            [debit],
            |r| {
                Ok((
                    r.get::<_, String>(0)?,
                    r.get::<_, String>(1)?,
                    r.get::<_, i64>(2)?,
                    r.get::<_, u16>(3)?,
                    r.get::<_, bool>(4)?,
                ))
            },
        )
        .optional()?;
    Ok(match found {
        None => {
            c.execute(
                "INSERT INTO unseen_rollbacks (debit, rollback) VALUES (?1, ?2) \
                 ON CONFLICT (debit) DO NOTHING",
                params![debit, t.id],
            )?;
            (Answer::balance(cents), 0)
        }
        Some((player, round, ..)) if player != t.player || round != t.round => (
            Answer::refusal(
                RefusalCode::TransactionMismatch,
                "the debit is another player's or round's",
            ),
            0,
        ),
        Some((_, _, amount, 200, false)) => {
            c.execute(
                "UPDATE transactions SET rolled_back = 1 WHERE id = ?1",
                [debit],
            )?;
            (Answer::balance(cents + amount), amount)
        }
        // Refused, or rolled back already: nothing to give back.
        Some(_) => (Answer::balance(cents), 0),
    })
}
