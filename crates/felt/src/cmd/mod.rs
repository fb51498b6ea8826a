//! One module per subcommand.

pub mod edge;
pub mod games;
pub mod rules;
pub mod sim;
pub mod strategy;
