//! felt-session: the engine joined to the books, shared by every front end (the
//! terminal table, `felt replay` and `felt history`, a server).
//!
//! - [`journal`]: a round played live, each step written to the books (any
//!   [`felt_store::Store`]) before it is shown; a stored round replayed through the
//!   engine and compared with its log; an interrupted round voided.
//! - [`dealing`]: where a round's cards come from: each shoe's seed, the commitment
//!   published before its first card, the seed revealed once the shoe is retired.
//! - [`recall`]: what of a stored round a player may see (a face-down card and the
//!   seed once its shoe is retired).
//! - [`recovery`]: a round left unfinished, resumed where it stopped or voided.
//! - [`seed`]: a test lab's reproducible seed stream (`--seed`).
//!
//! Errors are typed ([`SessionError`]): each says what went wrong and where.
#![forbid(unsafe_code)]

pub mod dealing;
mod error;
pub mod incomplete;
pub mod journal;
pub mod recall;
pub mod recovery;
pub mod seed;

pub use error::{Result, SessionError};
