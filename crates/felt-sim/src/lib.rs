//! felt-sim: Monte Carlo on the real felt-core engine, cut into seeded chunks that
//! run on every core and merge to the same result whatever the thread count.
//!
//! [`simulate`] plays a game's rounds through the engine with the strategy the exact
//! analysis computes ([`strategy`]), every side bet on every spot, and reports each
//! wager's house edge with its standard error, pay-line frequencies, progressive
//! meters and the speed ([`SimReport`], [`report::text`] for the terminal).
#![forbid(unsafe_code)]

pub mod count;
pub mod counting;
pub mod indices;
pub mod report;
pub mod runner;
mod sides;
pub mod sim;
pub mod stats;
pub mod strategy;
pub mod vulnerability;

pub use counting::{CountingOptions, CountingReport};
pub use runner::{CHUNK_ROUNDS, MAX_THREADS};
pub use sim::{
    merge_shards, simulate, Freq, LineReport, MainOutcomes, MainReport, ProgressFn,
    ProgressiveReport, RunSpec, ShardFile, SideBetReport, SimError, SimOptions, SimReport,
    Simulator, TallySums, SHARD_FORMAT,
};
pub use stats::{BetAccumulator, BetSummary};
pub use strategy::{StrategyKind, StrategyTable};
