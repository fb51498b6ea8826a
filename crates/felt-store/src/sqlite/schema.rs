//! The SQLite schema, as numbered migrations.
//!
//! `PRAGMA user_version` holds the newest migration applied and `schema_migrations`
//! lists each one with its name and time; `PRAGMA application_id` marks the file as
//! felt's. A migration is applied in the same transaction as its bookkeeping, so a file
//! is never left half-migrated. Never edit a released migration: add a new one.

/// `PRAGMA application_id` of a felt database: the bytes `FELT`.
pub const APP_ID: i32 = 0x4645_4C54;

/// One schema migration.
#[derive(Debug, Clone, Copy)]
pub struct Migration {
    /// Its version (1, 2, ...; `PRAGMA user_version` after it is applied).
    pub version: i64,
    /// A short name.
    pub name: &'static str,
    /// The SQL, run as one batch inside the migration's transaction.
    pub sql: &'static str,
}

/// Every migration, in order.
pub const MIGRATIONS: &[Migration] = &[
    Migration {
        version: 1,
        name: "ledger, meters, rounds, shoes",
        sql: V1,
    },
    Migration {
        version: 2,
        name: "shoe commitments, rules kept with each round, test-lab rounds",
        sql: V2,
    },
    Migration {
        version: 3,
        name: "logins and web sessions of the online table",
        sql: V3,
    },
    Migration {
        version: 4,
        name: "table leases of the servers sharing the books",
        sql: V4,
    },
    Migration {
        version: 5,
        name: "each table's status kept with its lease, for every server's lobby",
        sql: V5,
    },
    Migration {
        version: 6,
        name: "table seats: one table per player, across the servers",
        sql: V6,
    },
    Migration {
        version: 7,
        name: "the outbox of calls to an operator's wallet",
        sql: V7,
    },
    Migration {
        version: 8,
        name: "audit log; player limits, what counts against them, breaks and exclusions",
        sql: V8,
    },
    Migration {
        version: 9,
        name: "each player's reality-check schedule, shared by the servers",
        sql: V9,
    },
    Migration {
        version: 10,
        name: "a limit on each single wager (period 'bet', wager limits only)",
        sql: V10,
    },
];

/// The newest schema version this build knows.
pub const LATEST: i64 = 10;

const V1: &str = r#"
CREATE TABLE schema_migrations (
    version    INTEGER PRIMARY KEY,
    name       TEXT NOT NULL,
    applied_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
);

-- Accounts; balance_cents is a cache of the sum of the account's postings, updated in
-- the same transaction as the postings and audited by check_books.
CREATE TABLE accounts (
    id            INTEGER PRIMARY KEY,
    kind          TEXT NOT NULL CHECK (kind IN ('cashier', 'player', 'house', 'felt', 'meter')),
    name          TEXT NOT NULL,
    balance_cents INTEGER NOT NULL DEFAULT 0,
    created_at    TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
    UNIQUE (kind, name)
);

-- Progressive meters (each is also an account of kind 'meter'); the three counters
-- are caches of the meter's postings by kind: amount = seeded + contributions - awards.
CREATE TABLE meters (
    account_id          INTEGER PRIMARY KEY REFERENCES accounts(id),
    meter_id            TEXT NOT NULL UNIQUE,
    reset_cents         INTEGER NOT NULL CHECK (reset_cents >= 0),
    seeded_cents        INTEGER NOT NULL DEFAULT 0,
    contributions_cents INTEGER NOT NULL DEFAULT 0,
    awards_cents        INTEGER NOT NULL DEFAULT 0,
    created_at          TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
);

-- Rounds; seed_sha256 is written with the row, before the first card is dealt.
CREATE TABLE rounds (
    id          INTEGER PRIMARY KEY AUTOINCREMENT,
    game_id     TEXT NOT NULL,
    table_id    TEXT NOT NULL,
    seed        BLOB NOT NULL CHECK (length(seed) = 32),
    seed_sha256 TEXT NOT NULL,
    status      TEXT NOT NULL DEFAULT 'open' CHECK (status IN ('open', 'finished', 'voided')),
    shoe_before BLOB,
    shoe_after  BLOB,
    result_json TEXT,
    void_reason TEXT,
    last_step   INTEGER,
    last_entry  INTEGER,
    started_at  TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
    ended_at    TEXT
);
CREATE INDEX rounds_open ON rounds (table_id) WHERE status = 'open';

CREATE TABLE round_steps (
    round_id    INTEGER NOT NULL REFERENCES rounds(id),
    seq         INTEGER NOT NULL CHECK (seq >= 1),
    action_json TEXT,
    created_at  TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
    PRIMARY KEY (round_id, seq)
) WITHOUT ROWID;

CREATE TABLE round_events (
    round_id   INTEGER NOT NULL,
    seq        INTEGER NOT NULL CHECK (seq >= 1),
    step_seq   INTEGER NOT NULL,
    event_json TEXT NOT NULL,
    PRIMARY KEY (round_id, seq),
    FOREIGN KEY (round_id, step_seq) REFERENCES round_steps (round_id, seq)
) WITHOUT ROWID;

-- The ledger: one entry per movement, its postings sum to zero (negative: money
-- leaves the account; positive: money arrives).
CREATE TABLE entries (
    id         INTEGER PRIMARY KEY AUTOINCREMENT,
    round_id   INTEGER REFERENCES rounds(id),
    step_seq   INTEGER,
    kind       TEXT NOT NULL CHECK (kind IN ('deposit', 'withdrawal', 'wager', 'loss', 'payout',
               'contribution', 'award', 'seed', 'refund', 'adjustment')),
    memo       TEXT NOT NULL DEFAULT '',
    created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
    FOREIGN KEY (round_id, step_seq) REFERENCES round_steps (round_id, seq)
);
CREATE INDEX entries_round ON entries (round_id);

CREATE TABLE postings (
    id           INTEGER PRIMARY KEY,
    entry_id     INTEGER NOT NULL REFERENCES entries(id),
    account_id   INTEGER NOT NULL REFERENCES accounts(id),
    amount_cents INTEGER NOT NULL CHECK (amount_cents <> 0)
);
CREATE INDEX postings_entry ON postings (entry_id);
CREATE INDEX postings_account ON postings (account_id);

-- The shoe of each table as the last round left it (opaque to the books).
CREATE TABLE shoes (
    table_id   TEXT PRIMARY KEY,
    state      BLOB NOT NULL,
    round_id   INTEGER REFERENCES rounds(id),
    updated_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
);

-- The ledger and the journal are append-only; a round that ended takes nothing more.
CREATE TRIGGER entries_append_only_u BEFORE UPDATE ON entries
BEGIN SELECT RAISE(ABORT, 'felt: ledger entries are append-only'); END;
CREATE TRIGGER entries_append_only_d BEFORE DELETE ON entries
BEGIN SELECT RAISE(ABORT, 'felt: ledger entries are append-only'); END;
CREATE TRIGGER postings_append_only_u BEFORE UPDATE ON postings
BEGIN SELECT RAISE(ABORT, 'felt: ledger postings are append-only'); END;
CREATE TRIGGER postings_append_only_d BEFORE DELETE ON postings
BEGIN SELECT RAISE(ABORT, 'felt: ledger postings are append-only'); END;
CREATE TRIGGER steps_append_only_u BEFORE UPDATE ON round_steps
BEGIN SELECT RAISE(ABORT, 'felt: round steps are append-only'); END;
CREATE TRIGGER steps_append_only_d BEFORE DELETE ON round_steps
BEGIN SELECT RAISE(ABORT, 'felt: round steps are append-only'); END;
CREATE TRIGGER events_append_only_u BEFORE UPDATE ON round_events
BEGIN SELECT RAISE(ABORT, 'felt: round events are append-only'); END;
CREATE TRIGGER events_append_only_d BEFORE DELETE ON round_events
BEGIN SELECT RAISE(ABORT, 'felt: round events are append-only'); END;
CREATE TRIGGER steps_only_while_open BEFORE INSERT ON round_steps
WHEN (SELECT status FROM rounds WHERE id = NEW.round_id) IS NOT 'open'
BEGIN SELECT RAISE(ABORT, 'felt: the round has ended'); END;
CREATE TRIGGER events_only_while_open BEFORE INSERT ON round_events
WHEN (SELECT status FROM rounds WHERE id = NEW.round_id) IS NOT 'open'
BEGIN SELECT RAISE(ABORT, 'felt: the round has ended'); END;
CREATE TRIGGER rounds_no_delete BEFORE DELETE ON rounds
BEGIN SELECT RAISE(ABORT, 'felt: rounds are never deleted'); END;
CREATE TRIGGER rounds_no_reopen BEFORE UPDATE OF status ON rounds
WHEN OLD.status <> 'open'
BEGIN SELECT RAISE(ABORT, 'felt: a round that ended stays ended'); END;
"#;

const V2: &str = r#"
-- The rules each round was played under, as canonical TOML, once per distinct text.
CREATE TABLE rules_texts (
    sha256     TEXT PRIMARY KEY CHECK (length(sha256) = 64),
    canonical  TEXT NOT NULL,
    created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
) WITHOUT ROWID;

-- One row per shoe (per shuffle from a new seed): the SHA-256 of its seed is the
-- commitment published before its first card; the seed is shown only once the shoe is
-- retired (retired_at set). `lab` says what a test lab chose (a --seed, a stacked
-- shoe); NULL for a seed from the operating system's entropy.
CREATE TABLE shoe_seeds (
    id           INTEGER PRIMARY KEY AUTOINCREMENT,
    table_id     TEXT NOT NULL,
    seed         BLOB NOT NULL CHECK (length(seed) = 32),
    commitment   TEXT NOT NULL CHECK (length(commitment) = 64),
    lab          TEXT,
    committed_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
    retired_at   TEXT
);
CREATE INDEX shoe_seeds_table ON shoe_seeds (table_id);

ALTER TABLE rounds ADD COLUMN shoe_id INTEGER REFERENCES shoe_seeds(id);
ALTER TABLE rounds ADD COLUMN shoe_round INTEGER;
ALTER TABLE rounds ADD COLUMN rules_sha256 TEXT REFERENCES rules_texts(sha256);
ALTER TABLE rounds ADD COLUMN lab TEXT;
ALTER TABLE shoes ADD COLUMN seed_id INTEGER REFERENCES shoe_seeds(id);

CREATE TRIGGER rules_texts_fixed_u BEFORE UPDATE ON rules_texts
BEGIN SELECT RAISE(ABORT, 'felt: stored rules are never changed'); END;
CREATE TRIGGER rules_texts_fixed_d BEFORE DELETE ON rules_texts
BEGIN SELECT RAISE(ABORT, 'felt: stored rules are never deleted'); END;
CREATE TRIGGER shoe_seeds_no_delete BEFORE DELETE ON shoe_seeds
BEGIN SELECT RAISE(ABORT, 'felt: shoe commitments are never deleted'); END;
CREATE TRIGGER shoe_seeds_fixed BEFORE UPDATE OF id, table_id, seed, commitment, lab, committed_at
ON shoe_seeds
BEGIN SELECT RAISE(ABORT, 'felt: a shoe commitment is never changed'); END;
CREATE TRIGGER shoe_seeds_retire_once BEFORE UPDATE OF retired_at ON shoe_seeds
WHEN OLD.retired_at IS NOT NULL
BEGIN SELECT RAISE(ABORT, 'felt: a retired shoe stays retired'); END;
CREATE TRIGGER rounds_shoe_fixed BEFORE UPDATE OF shoe_id, shoe_round, rules_sha256, lab, seed
ON rounds
BEGIN SELECT RAISE(ABORT, 'felt: a round keeps its shoe, seed and rules'); END;
"#;

const V3: &str = r#"
-- Who may log in to the online table: the name is also the player's wallet. The
-- password is kept only as its argon2id hash; times are Unix milliseconds.
CREATE TABLE logins (
    name            TEXT PRIMARY KEY,
    password_hash   TEXT NOT NULL,
    role            TEXT NOT NULL CHECK (role IN ('player', 'operator')),
    created_ms      INTEGER NOT NULL,
    last_login_ms   INTEGER,
    failed_logins   INTEGER NOT NULL DEFAULT 0 CHECK (failed_logins >= 0),
    locked_until_ms INTEGER
) WITHOUT ROWID;

-- A browser's session: the SHA-256 of its cookie's token, never the token.
CREATE TABLE web_sessions (
    token_sha256 TEXT PRIMARY KEY CHECK (length(token_sha256) = 64),
    name         TEXT NOT NULL REFERENCES logins(name),
    created_ms   INTEGER NOT NULL,
    last_seen_ms INTEGER NOT NULL
) WITHOUT ROWID;
CREATE INDEX web_sessions_name ON web_sessions (name);
"#;

const V4: &str = r#"
-- Which server deals which table (felt serve): the holder renews its lease; once it
-- expires another server may claim the table, and the epoch rises. Times are Unix ms.
CREATE TABLE table_leases (
    table_id   TEXT PRIMARY KEY,
    server     TEXT NOT NULL,
    url        TEXT NOT NULL,
    epoch      INTEGER NOT NULL CHECK (epoch >= 1),
    expires_ms INTEGER NOT NULL
) WITHOUT ROWID;
"#;

const V5: &str = r#"
-- What the holder last said of the table (JSON: who sits where, whether closed), for
-- the lobbies of the servers that do not deal it.
ALTER TABLE table_leases ADD COLUMN status TEXT;
"#;

const V6: &str = r#"
-- Who sits where at the online tables, for every server sharing the books: one row per
-- seated player (a player sits at one table at a time), one player per seat. The name
-- is canonical; since_ms is Unix milliseconds.
CREATE TABLE seats (
    player   TEXT PRIMARY KEY,
    table_id TEXT NOT NULL,
    seat     INTEGER NOT NULL CHECK (seat BETWEEN 1 AND 255),
    since_ms INTEGER NOT NULL,
    UNIQUE (table_id, seat)
) WITHOUT ROWID;
"#;

const V7: &str = r#"
-- The outbox of calls to an operator's wallet (felt serve --wallet): each debit and
-- credit is written with the round's step that causes it, before it is sent; the books
-- write the rollbacks. A call keeps its content for ever (it is sent again as it was);
-- only its state, answer and attempts change. Times are Unix milliseconds.
CREATE TABLE wallet_calls (
    seq             INTEGER PRIMARY KEY AUTOINCREMENT,
    transaction_id  TEXT NOT NULL UNIQUE CHECK (length(transaction_id) BETWEEN 1 AND 128),
    kind            TEXT NOT NULL CHECK (kind IN ('debit', 'credit', 'rollback')),
    round_id        INTEGER NOT NULL REFERENCES rounds(id),
    table_id        TEXT NOT NULL,
    player          TEXT NOT NULL,
    amount_cents    INTEGER NOT NULL CHECK (amount_cents >= 0),
    detail_json     TEXT NOT NULL,
    rolls_back      TEXT REFERENCES wallet_calls(transaction_id),
    rollback        TEXT,
    state           TEXT NOT NULL DEFAULT 'pending'
                    CHECK (state IN ('pending', 'acknowledged', 'rolled-back', 'failed')),
    reason          TEXT,
    balance_cents   INTEGER,
    attempts        INTEGER NOT NULL DEFAULT 0 CHECK (attempts >= 0),
    next_attempt_ms INTEGER NOT NULL,
    last_error      TEXT,
    created_ms      INTEGER NOT NULL,
    settled_ms      INTEGER,
    CHECK ((kind = 'rollback') = (rolls_back IS NOT NULL))
);
CREATE INDEX wallet_calls_round ON wallet_calls (round_id);
CREATE INDEX wallet_calls_created ON wallet_calls (created_ms);
CREATE INDEX wallet_calls_pending ON wallet_calls (next_attempt_ms) WHERE state = 'pending';

CREATE TRIGGER wallet_calls_no_delete BEFORE DELETE ON wallet_calls
BEGIN SELECT RAISE(ABORT, 'felt: wallet calls are never deleted'); END;
CREATE TRIGGER wallet_calls_fixed BEFORE UPDATE OF seq, transaction_id, kind, round_id,
    table_id, player, amount_cents, detail_json, rolls_back ON wallet_calls
BEGIN SELECT RAISE(ABORT, 'felt: a wallet call keeps its content'); END;
CREATE TRIGGER wallet_calls_settled BEFORE UPDATE OF state ON wallet_calls
WHEN OLD.state <> NEW.state AND OLD.state <> 'pending'
    AND NOT (OLD.state = 'acknowledged' AND NEW.state = 'rolled-back')
BEGIN SELECT RAISE(ABORT, 'felt: a wallet call answered stays answered'); END;
"#;

const V8: &str = r#"
-- What operators (and the server itself) did, with who and when; never changed or
-- deleted. Times are Unix milliseconds (the server's clock).
CREATE TABLE audit_log (
    seq     INTEGER PRIMARY KEY AUTOINCREMENT,
    at_ms   INTEGER NOT NULL,
    actor   TEXT NOT NULL CHECK (length(actor) BETWEEN 1 AND 128),
    action  TEXT NOT NULL CHECK (length(action) BETWEEN 1 AND 128),
    subject TEXT NOT NULL CHECK (length(subject) BETWEEN 1 AND 128),
    detail  TEXT NOT NULL
);
CREATE INDEX audit_log_subject ON audit_log (subject, at_ms);
CREATE INDEX audit_log_at ON audit_log (at_ms);
CREATE TRIGGER audit_log_no_update BEFORE UPDATE ON audit_log
BEGIN SELECT RAISE(ABORT, 'felt: the audit log is append-only'); END;
CREATE TRIGGER audit_log_no_delete BEFORE DELETE ON audit_log
BEGIN SELECT RAISE(ABORT, 'felt: the audit log is append-only'); END;

-- Every change of a limit a player set: the latest change in effect is the limit.
-- amount is cents (seconds for session); NULL: the limit removed.
CREATE TABLE player_limits (
    seq          INTEGER PRIMARY KEY AUTOINCREMENT,
    player       TEXT NOT NULL,
    kind         TEXT NOT NULL CHECK (kind IN ('deposit', 'loss', 'wager', 'session')),
    period       TEXT NOT NULL CHECK (period IN ('day', 'week', 'month')),
    amount       INTEGER CHECK (amount IS NULL OR amount >= 0),
    requested_ms INTEGER NOT NULL,
    effective_ms INTEGER NOT NULL CHECK (effective_ms >= requested_ms)
);
CREATE INDEX player_limits_player ON player_limits (player, seq);
CREATE TRIGGER player_limits_no_update BEFORE UPDATE ON player_limits
BEGIN SELECT RAISE(ABORT, 'felt: limit changes are append-only'); END;
CREATE TRIGGER player_limits_no_delete BEFORE DELETE ON player_limits
BEGIN SELECT RAISE(ABORT, 'felt: limit changes are append-only'); END;

-- What counts against the limits, at the server's clock: stakes and returns (at the
-- end of each round), play-money deposits, time seated.
CREATE TABLE limit_usage (
    seq    INTEGER PRIMARY KEY AUTOINCREMENT,
    player TEXT NOT NULL,
    at_ms  INTEGER NOT NULL,
    kind   TEXT NOT NULL CHECK (kind IN ('stake', 'return', 'deposit', 'play-ms')),
    amount INTEGER NOT NULL CHECK (amount >= 0)
);
CREATE INDEX limit_usage_player ON limit_usage (player, at_ms);
CREATE TRIGGER limit_usage_no_update BEFORE UPDATE ON limit_usage
BEGIN SELECT RAISE(ABORT, 'felt: limit usage is append-only'); END;
CREATE TRIGGER limit_usage_no_delete BEFORE DELETE ON limit_usage
BEGIN SELECT RAISE(ABORT, 'felt: limit usage is append-only'); END;

-- Breaks (time-outs), self-exclusions and exclusions by an operator; until_ms NULL:
-- for good. Never shortened: a row is never changed or deleted.
CREATE TABLE exclusions (
    seq      INTEGER PRIMARY KEY AUTOINCREMENT,
    player   TEXT NOT NULL,
    kind     TEXT NOT NULL CHECK (kind IN ('break', 'self-excluded', 'operator')),
    start_ms INTEGER NOT NULL,
    until_ms INTEGER CHECK (until_ms IS NULL OR until_ms > start_ms),
    set_by   TEXT NOT NULL CHECK (length(set_by) BETWEEN 1 AND 128),
    reason   TEXT NOT NULL
);
CREATE INDEX exclusions_player ON exclusions (player, seq);
CREATE TRIGGER exclusions_no_update BEFORE UPDATE ON exclusions
BEGIN SELECT RAISE(ABORT, 'felt: an exclusion is never changed'); END;
CREATE TRIGGER exclusions_no_delete BEFORE DELETE ON exclusions
BEGIN SELECT RAISE(ABORT, 'felt: an exclusion is never deleted'); END;
"#;

const V9: &str = r#"
-- Each player's reality-check schedule, at the server's clock (Unix ms): when their
-- log-in session began and its first round (the figures count from it), the interval
-- they chose, and the log-in or the last answer, from which the next check falls due.
-- One row a player, replaced at each log-in and answer.
CREATE TABLE reality_checks (
    player        TEXT PRIMARY KEY,
    login_ms      INTEGER NOT NULL,
    first_round   INTEGER NOT NULL,
    interval_mins INTEGER NOT NULL CHECK (interval_mins >= 1),
    anchor_ms     INTEGER NOT NULL
);
"#;

const V10: &str = r#"
-- A wager limit may cap each single wager (period 'bet') as well as the wagers of a
-- day, a week or a month. SQLite cannot change a CHECK: the table is rebuilt, its
-- rows copied as they are (DROP TABLE fires no trigger), its index and triggers
-- made again.
CREATE TABLE player_limits_v10 (
    seq          INTEGER PRIMARY KEY AUTOINCREMENT,
    player       TEXT NOT NULL,
    kind         TEXT NOT NULL CHECK (kind IN ('deposit', 'loss', 'wager', 'session')),
    period       TEXT NOT NULL CHECK (period IN ('day', 'week', 'month', 'bet')),
    amount       INTEGER CHECK (amount IS NULL OR amount >= 0),
    requested_ms INTEGER NOT NULL,
    effective_ms INTEGER NOT NULL CHECK (effective_ms >= requested_ms),
    CHECK (period <> 'bet' OR kind = 'wager')
);
INSERT INTO player_limits_v10 (seq, player, kind, period, amount, requested_ms, effective_ms)
    SELECT seq, player, kind, period, amount, requested_ms, effective_ms FROM player_limits;
DROP TABLE player_limits;
ALTER TABLE player_limits_v10 RENAME TO player_limits;
CREATE INDEX player_limits_player ON player_limits (player, seq);
CREATE TRIGGER player_limits_no_update BEFORE UPDATE ON player_limits
BEGIN SELECT RAISE(ABORT, 'felt: limit changes are append-only'); END;
CREATE TRIGGER player_limits_no_delete BEFORE DELETE ON player_limits
BEGIN SELECT RAISE(ABORT, 'felt: limit changes are append-only'); END;
"#;
