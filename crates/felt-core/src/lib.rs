//! felt-core: the blackjack engine. Cards, money, rules as data, side-bet hands,
//! the shoe and the round. No I/O, no clock, no global random generator.
#![forbid(unsafe_code)]

pub mod card;
pub mod check;
pub mod hand;
pub mod id;
pub mod meter;
pub mod money;
pub mod presets;
pub mod round;
pub mod rules;
pub mod shoe;
pub mod sidebet;

pub use card::{Card, Rank, Suit};
pub use hand::Hand;
pub use id::ShortId;
pub use meter::{MemoryMeters, MeterChange, MeterId, Meters, NoMeters};
pub use money::{Basis, Money, Payout, Ratio};
pub use round::{
    Action, ActionError, Decision, DecisionContext, Event, EventSink, Legal, NoopSink, Phase,
    PublicEvent, Round, SpotBets, Strategy, Table, TableError, Turn, View,
};
pub use rules::{Rules, RulesError};
pub use shoe::{Shoe, ShoeError};
