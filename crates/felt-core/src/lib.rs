//! felt-core: the blackjack engine. Cards, money, rules as data, side-bet hands,
//! the shoe and the round. No I/O, no clock, no global random generator.
#![forbid(unsafe_code)]

pub mod card;
pub mod money;
pub mod presets;
pub mod rules;
pub mod sidebet;

pub use card::{Card, Rank, Suit};
pub use money::{Basis, Money, Payout, Ratio};
pub use rules::{Rules, RulesError};
