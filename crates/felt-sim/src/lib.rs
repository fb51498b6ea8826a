//! felt-sim: Monte Carlo on the real felt-core engine, cut into seeded chunks that
//! run on every core and merge to the same result whatever the thread count.
#![forbid(unsafe_code)]

pub mod runner;
pub mod stats;
