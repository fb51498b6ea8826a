//! Where the battery's shoes come from: felt's own dealing path (the code that deals
//! at the tables), recorded shoes (a file, or the books' retired shoes, read by the
//! caller), and sources with a planted bias that the battery must reject.

use crate::battery::{Battery, ShoeError};
use felt_core::{Card, Shoe};
use felt_session::dealing::{shoe_order, Seeds};
use felt_session::SessionError;
use rand::{Rng, RngCore, SeedableRng};
use rand_chacha::ChaCha20Rng;

/// Feeds `shuffles` shoes of the battery's decks dealt as the tables deal them: a
/// seed from `seeds` (the operating system's entropy, or a lab's stream), the shoe it
/// shuffles a new shoe into ([`shoe_order`]), and the seed itself to the seed-stream
/// tests. Each seed also shuffles a one-deck shoe for the one-deck permutation test.
pub fn deal(battery: &mut Battery, seeds: &mut Seeds, shuffles: u64) -> Result<(), SessionError> {
    let decks = battery.decks();
    for _ in 0..shuffles {
        let seed = seeds.next_seed()?;
        battery.add_seed(&seed);
        battery
            .add_shoe(&shoe_order(decks, &seed))
            .map_err(|e| SessionError::Entropy(e.to_string()))?;
        if decks != 1 {
            battery.add_one_deck_shoe(&shoe_order(1, &seed));
        }
    }
    Ok(())
}

/// Reads recorded shoes, one a line as `felt play --shoe` writes cards (`Ah 10d 7s`,
/// commas or spaces between cards); blank lines and lines starting with `#` are
/// skipped. A line that is not a shoe of the battery's decks is an error naming it.
pub fn read_shoes(battery: &mut Battery, text: &str) -> Result<(), RecordError> {
    for (i, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let cards = felt_core::card::parse_cards(line).map_err(|e| RecordError {
            line: i + 1,
            reason: e.to_string(),
        })?;
        battery.add_shoe(&cards).map_err(|e| RecordError {
            line: i + 1,
            reason: e.to_string(),
        })?;
    }
    Ok(())
}

/// A recorded shoe that cannot be tested.
#[derive(Debug, thiserror::Error)]
#[error("line {line}: {reason}")]
pub struct RecordError {
    /// Its line (from 1).
    pub line: usize,
    /// Why.
    pub reason: String,
}

/// A shoe source with a bias planted on purpose: the proof that the battery can fail.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Planted {
    /// The classic off-by-one Fisher-Yates: every position swapped with any position of
    /// the shoe (not only those not yet fixed), so some orders come more often.
    NaiveSwap,
    /// A small bias: in one shoe of five, a ten-valued first card is swapped with a card
    /// at a random later position (a dealer who dislikes a ten on top).
    TenOffTop,
    /// felt's own shuffle, seeded from a stream whose bytes have their top bit set six
    /// times in ten.
    BiasedSeeds,
}

/// Feeds `shuffles` shoes from a planted source, drawn from `seed`. Its report must
/// not carry felt's scaling statement (see [`crate::Report::scaling`]): clear it.
pub fn plant(
    battery: &mut Battery,
    planted: Planted,
    shuffles: u64,
    seed: u64,
) -> Result<(), ShoeError> {
    let mut rng = ChaCha20Rng::seed_from_u64(seed);
    let decks = battery.decks();
    for _ in 0..shuffles {
        match planted {
            Planted::NaiveSwap => {
                let mut cards = Shoe::new(decks).undealt().to_vec();
                let n = cards.len();
                for i in 0..n {
                    cards.swap(i, rng.gen_range(0..n));
                }
                battery.add_shoe(&cards)?;
            }
            Planted::TenOffTop => {
                let mut cards = shoe_order(decks, &rng.gen());
                if cards[0].value() == 10 && rng.gen_ratio(1, 5) {
                    let j = rng.gen_range(1..cards.len());
                    cards.swap(0, j);
                }
                battery.add_shoe(&cards)?;
            }
            Planted::BiasedSeeds => {
                let mut seed = [0u8; 32];
                rng.fill_bytes(&mut seed);
                for b in &mut seed {
                    *b = if rng.gen_ratio(6, 10) {
                        *b | 0x80
                    } else {
                        *b & 0x7f
                    };
                }
                battery.add_seed(&seed);
                battery.add_shoe(&shoe_order(decks, &seed))?;
                if decks != 1 {
                    battery.add_one_deck_shoe(&shoe_order(1, &seed));
                }
            }
        }
    }
    Ok(())
}

/// The shoes of `cards` as lines `felt rng-test --input` reads.
pub fn shoe_line(cards: &[Card]) -> String {
    cards
        .iter()
        .map(|c| c.to_string())
        .collect::<Vec<_>>()
        .join(" ")
}
