//! felt-server: `felt serve`, the online casino's server side, and `felt bots`, the
//! players that load-test it through the same protocol a browser speaks.
//!
//! - [`config`]: the tables file (which tables run, their seats, limits and timers).
//! - [`web`]: the browser table, embedded; [`test_shoes`]: the test mode that deals a
//!   given shoe.
#![forbid(unsafe_code)]

pub mod app;
pub mod auth;
pub mod books;
pub mod bots;
pub mod config;
pub mod metrics;
pub mod protocol;
pub mod render;
pub mod table;
pub mod test_shoes;
pub mod web;
