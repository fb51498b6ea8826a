//! One conformance suite, both engines: each test body is written once, over [`Books`]
//! (a store and the means to open the same books again), and run against a new SQLite
//! file (`sqlite::...`) and a new PostgreSQL database (`postgres::...`, on the test
//! binary's own throw-away cluster, see `felt_store::testing`).
// Amounts are written as dollars_cents (100_00 is 100.00).
#![allow(clippy::inconsistent_digit_grouping)]

mod books;
mod groups;
mod leases;
mod logins;
mod names;
mod protection;
mod recall;
mod seats;
mod step_with;
mod wallet;

use felt_core::Money;
use felt_store::testing::TestPostgres;
use felt_store::{
    open_books, open_books_read_only, Account, BooksAt, Movement, MovementKind, NewRound, Step,
    Store,
};
use std::ops::{Deref, DerefMut};

/// Books under test: a store open on them, and where they are.
pub struct Books {
    store: Box<dyn Store + Send>,
    at: BooksAt,
    _dir: Option<tempfile::TempDir>,
}

impl Books {
    /// New SQLite books in a directory of their own.
    pub fn sqlite() -> Books {
        let dir = tempfile::tempdir().expect("temp dir");
        let at = BooksAt::Sqlite(dir.path().join("books").join("felt.db"));
        Books {
            store: open_books(&at).expect("open"),
            at,
            _dir: Some(dir),
        }
    }

    /// New PostgreSQL books: a new database on the binary's cluster.
    pub fn postgres() -> Books {
        let at = BooksAt::Postgres(TestPostgres::shared().fresh_database());
        Books {
            store: open_books(&at).expect("open"),
            at,
            _dir: None,
        }
    }

    /// Where the books are.
    pub fn at(&self) -> &BooksAt {
        &self.at
    }

    /// Another writer on the same books (another process, another server).
    pub fn another(&self) -> Box<dyn Store + Send> {
        open_books(&self.at).expect("open another")
    }

    /// A reader of the same books.
    pub fn reader(&self) -> Box<dyn Store + Send> {
        open_books_read_only(&self.at).expect("open a reader")
    }

    /// Drops the store (the process dies) and opens the books again.
    pub fn reopen(&mut self) {
        self.store = open_books(&self.at).expect("reopen");
    }
}

impl Deref for Books {
    type Target = dyn Store + Send;
    fn deref(&self) -> &Self::Target {
        &*self.store
    }
}

impl DerefMut for Books {
    fn deref_mut(&mut self) -> &mut Self::Target {
        &mut *self.store
    }
}

/// Cents.
pub fn c(cents: i64) -> Money {
    Money::cents(cents)
}

/// A round at `table` with a seed of `seed` bytes.
pub fn new_round(table: &str, seed: u8) -> NewRound {
    NewRound {
        game_id: "blazing-7s".into(),
        table_id: table.into(),
        seed: [seed; 32],
        shoe: Some(format!("shoe of {table}").into_bytes()),
        ..Default::default()
    }
}

/// A player's bet to the house.
pub fn wager(player: &str, table: &str, cents: i64) -> Movement {
    Movement::new(
        Account::player(player),
        Account::house(table),
        c(cents),
        MovementKind::Wager,
    )
}

/// The house pays a player.
pub fn payout(table: &str, player: &str, cents: i64) -> Movement {
    Movement::new(
        Account::house(table),
        Account::player(player),
        c(cents),
        MovementKind::Payout,
    )
}

/// A step.
pub fn step(action: Option<&str>, events: &[&str], movements: Vec<Movement>) -> Step {
    Step {
        action: action.map(str::to_string),
        events: events.iter().map(|e| e.to_string()).collect(),
        movements,
        wallet: Vec::new(),
    }
}

/// The books balance.
pub fn assert_sound(store: &Books) {
    let report = store.check_books().expect("check_books");
    assert!(report.is_sound(), "{report}");
    assert_eq!(report.ledger_sum, Money::ZERO);
}

/// Each test body, once per engine.
macro_rules! conformance {
    ($($module:ident :: $name:ident),* $(,)?) => {
        mod sqlite {
            $(#[test]
            fn $name() {
                crate::$module::$name(&mut crate::Books::sqlite());
            })*
        }
        mod postgres {
            $(#[test]
            fn $name() {
                crate::$module::$name(&mut crate::Books::postgres());
            })*
        }
    };
}

conformance! {
    books::deposits_withdrawals_and_refusals,
    books::the_last_deposit_with_a_memo_is_the_newest_of_that_player,
    books::a_deposit_above_the_engines_balance_limit_is_refused_and_the_next_session_works,
    books::a_step_that_fails_halfway_leaves_nothing,
    books::round_lifecycle_journal_and_shoe,
    books::history_is_newest_first_and_limited,
    books::recovery_lists_unfinished_rounds_after_a_crash_and_void_refunds,
    books::meters_are_shared_and_keep_their_identity_and_awards,
    books::meter_identity_holds_under_a_seeded_random_loop,
    books::ledger_balances_under_random_movements,
    books::an_engine_style_round_through_the_felt,
    books::next_round_id_is_the_id_the_next_round_gets,
    books::bad_states_are_typed_errors_and_change_nothing,
    groups::a_group_commits_its_calls_together_and_a_failed_call_leaves_no_trace,
    groups::a_reader_refuses_writes,
    leases::a_lease_is_claimed_renewed_released_and_taken_over,
    leases::a_fenced_connection_writes_only_the_tables_it_holds,
    leases::lease_arguments_are_checked,
    leases::a_table_status_is_kept_by_its_holder_only,
    logins::a_new_login_gets_its_starting_balance_and_a_taken_name_is_refused_without_change,
    logins::failures_lock_the_login_and_a_success_forgets_them_and_returns_the_previous_login,
    logins::an_operator_lifts_a_lock_and_its_failures_are_forgotten,
    logins::a_web_session_stands_for_its_login_until_closed_and_roles_change_only_by_set_login,
    logins::every_session_of_a_login_is_listed_and_closed_but_the_one_kept,
    names::names_that_look_the_same_are_one_wallet,
    names::invisible_and_control_characters_are_refused_naming_them,
    names::ids_must_be_given_in_their_canonical_form,
    names::a_seat_is_held_by_the_canonical_name,
    protection::the_audit_log_lists_by_subject_and_time_and_refuses_bad_entries,
    protection::limit_changes_are_kept_in_order_and_bad_ones_refused,
    protection::usage_is_summed_from_a_time_on,
    protection::a_round_that_ends_counts_its_stakes_and_returns_in_the_same_transaction,
    protection::exclusions_are_kept_with_who_set_them_and_never_end_before_they_start,
    protection::a_reality_check_schedule_is_kept_one_a_player_and_replaced,
    recall::shoes_commitments_rules_and_player_rounds,
    recall::outputs_are_the_same_texts_on_both_engines,
    seats::a_player_sits_at_one_table_and_a_seat_holds_one_player,
    seats::seat_arguments_are_checked,
    seats::two_servers_claiming_at_once_seat_each_player_once,
    seats::a_seat_at_a_table_nobody_deals_any_more_does_not_hold_its_player,
    seats::a_fenced_connection_seats_only_at_the_tables_it_holds,
    step_with::a_step_reads_the_meter_as_it_stands_and_writes_in_the_same_transaction,
    wallet::a_call_is_written_with_its_step_or_not_at_all,
    wallet::answers_settle_a_call_once_and_a_lost_debit_is_rolled_back,
    wallet::a_voided_round_rolls_back_its_debits,
    wallet::calls_are_listed_by_round_table_state_time_and_due,
    wallet::a_finished_round_rolls_back_the_debits_no_step_used,
    wallet::pending_calls_survive_a_restart_and_are_shared_by_servers,
}

#[test]
fn normalize_name_gives_the_canonical_form() {
    use felt_store::normalize_name;
    assert_eq!(normalize_name("player", "alice").unwrap(), "alice");
    assert_eq!(normalize_name("player", " alice\u{a0}").unwrap(), "alice");
    assert_eq!(
        normalize_name("player", "mary \u{2003} ann").unwrap(),
        "mary ann"
    );
    assert_eq!(normalize_name("player", "\u{ff21}lice").unwrap(), "Alice");
    assert_eq!(
        normalize_name("player", "cafe\u{301}").unwrap(),
        "caf\u{e9}"
    );
    assert_eq!(normalize_name("player", "Zoë").unwrap(), "Zoë");
    assert!(normalize_name("player", "al\u{2028}ice").unwrap() == "al ice");
}
