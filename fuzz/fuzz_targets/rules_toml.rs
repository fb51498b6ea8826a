//! Any bytes as a rules file: a game or a located error, never a panic; and every
//! file accepted is played.
//!
//! For every file `Rules::from_toml` accepts: its rules card is written, its table is
//! built (`Table::new` may refuse it with an error, never a panic), and three rounds
//! are played with up to 3 seats, the choices drawn from a generator seeded by the
//! file's bytes:
//! 1. a bet on every spot of every seat and every side bet on each, amounts within
//!    the limits, played by the automated path (`play_auto`, a strategy choosing
//!    among the decisions offered);
//! 2. the same bets, played one step at a time (`set_auto(false)` + `advance`), each
//!    decision chosen among those offered;
//! 3. random bets, side bets, withdrawals, burns and illegal actions, then a round
//!    switching between the two paths with illegal actions among the legal ones.
//!
//! Invariants, after every step: nothing panics or overflows; a refused action changes
//! nothing; cards and cents are conserved, the ledger balances, the felt is empty at
//! the end of a round; every seat's view serializes, and no view depends on a hidden
//! card (the round replayed with the hidden cards permuted shows the same views; see
//! `felt_fuzz::session`).
#![no_main]
use felt_core::rules::rules_card;
use felt_core::Rules;
use felt_fuzz::session::{hash, play_rules};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    match Rules::from_toml(text, "fuzz.toml") {
        Ok(rules) => {
            assert!(!rules_card(&rules).is_empty());
            // `Table::new` may refuse the file (more than 4 side bets, an id over 31
            // bytes) with an error: then there is nothing to play.
            let _ = play_rules(&rules, hash(data));
        }
        Err(e) => {
            assert_eq!(e.origin, "fuzz.toml");
            assert!(!e.to_string().is_empty());
        }
    }
});
