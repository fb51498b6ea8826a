//! felt-server: `felt serve`, the online casino's server side, and `felt bots`, the
//! players that load-test it through the same protocol a browser speaks.
//!
//! - [`config`]: the tables file (which tables run, their seats, limits and timers).
//! - [`hosting`]: which server deals which table (leases in the books, taken over
//!   when a server dies); [`relay`]: a player carried to the server dealing their
//!   table; [`watch`]: meters linked across tables and servers, pushed to every
//!   client.
//! - [`web`]: the browser table, embedded; [`test_shoes`]: the test mode that deals a
//!   given shoe; [`clock`]: the wall clock of limits, breaks and sessions, which the test
//!   mode moves forward.
//! - [`reality`], [`session_info`]: reality checks and the log-in session's figures;
//!   [`lockout`]: accounts locked after failed log-ins, lifted by an operator;
//!   [`unfinished`]: the player's unfinished rounds shown at log-in.
//! - [`audit`]: the audit log of operator actions, in the books; [`limits`]: the
//!   limits a player sets, breaks and exclusions, and [`limits_api`] their HTTP API.
//! - [`accounts`]: register, log in and out; [`guard`]: log-ins and registrations
//!   throttled per client address ([`client`]), the password hashing bounded;
//!   [`origin`]: state-changing requests from the server's own pages only;
//!   [`listen`]: the accept loop (connections capped, header and idle timeouts);
//!   [`topup`]: play-money top-ups when a balance cannot cover a table's minimum;
//!   [`hint`]: the basic-strategy hint with each choice's expected value.
//! - [`wallet`]: the operator's wallet (`felt serve --wallet`): the contract's messages,
//!   their signature and the client; [`operator_demo`]: a reference operator.
#![forbid(unsafe_code)]

pub mod accounts;
pub mod app;
pub mod audit;
pub mod auth;
pub mod books;
pub mod bots;
pub mod client;
pub mod clock;
pub mod config;
pub mod frames;
pub mod guard;
pub mod hint;
pub mod hosting;
pub mod limits;
pub mod limits_api;
pub mod listen;
pub mod lockout;
pub mod logged_in;
pub mod metrics;
pub mod operator_demo;
pub mod origin;
pub mod protocol;
pub mod reality;
pub mod relay;
pub mod render;
pub mod session_end;
pub mod session_info;
pub mod session_rate;
pub mod sockets;
pub mod table;
pub mod test_shoes;
pub mod topup;
pub mod unfinished;
pub mod wallet;
pub mod watch;
pub mod web;
