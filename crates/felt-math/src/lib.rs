//! Exact analysis of felt's games: side-bet enumeration, the main game's
//! dealer probabilities and player expected values, strategy and par sheets.
#![forbid(unsafe_code)]

pub mod count;
pub mod eor;
pub mod exact;
pub mod hint;
pub mod indices;
pub mod main_game;
pub mod mapping;
pub mod parsheet;
pub mod risk;
pub mod sidebet;
