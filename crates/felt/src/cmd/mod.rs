//! One module per subcommand.

pub mod books;
pub mod bots;
pub mod count;
pub mod edge;
pub mod eor;
pub mod games;
pub mod history;
pub mod indices;
pub mod operator;
pub mod operator_demo;
pub mod plot;
pub mod replay;
pub mod risk;
pub mod rng_test;
pub mod rules;
pub mod serve;
pub mod serve_protection;
pub mod sim;
pub mod sim_count;
pub mod split;
pub mod strategy;
pub mod verify;
pub mod wallet;
