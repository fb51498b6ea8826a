//! Any bytes as a game and a session played on it.
//!
//! The game: a preset chosen by the first byte, then up to 8 fuzzer-chosen edits to
//! its fields (decks, CSM, penetration, burns, dealer and peek rules, insurance,
//! doubles, splits, surrender, seats, spots, rounding, limits, payouts, side bets
//! added, removed and reordered, their pay lines, meters and third cards), each kept
//! only if the file still validates (`felt_fuzz::session::rules_from`): every input
//! plays a valid game, most of them one no preset is.
//!
//! The session: 1 to 7 seats, rich or poor, round after round while bytes remain:
//! bets (every spot and side bet, or bets, side bets, withdrawals, burns and illegal
//! actions chosen by the bytes), then the round played one chance step at a time
//! (`set_auto(false)` + `advance`), with chance steps running by themselves, by the
//! automated path (`play_auto`, the strategy choosing from the bytes), or switching
//! between them, with illegal actions among the legal ones.
//!
//! Invariants, after every step:
//! - nothing panics, nothing overflows (debug assertions are on);
//! - a refused action (or chance step, or burn) changes nothing: round, meters, log;
//! - every card is in exactly one place; every cent is conserved, the ledger balances,
//!   no balance goes negative, the felt is empty when a round is over; a meter moves
//!   only with a ledger entry; a round ends within a bounded number of steps;
//! - every seat's view serializes to JSON, and no view depends on a hidden card: the
//!   round is replayed on a second engine whose shoe holds the hole card and the
//!   undealt cards in another order, and every view must be the same after every step
//!   while those cards are hidden, every action accepted or refused alike.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let _ = felt_fuzz::session::play_bytes(data);
});
