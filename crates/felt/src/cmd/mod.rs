//! One module per subcommand.

pub mod games;
pub mod rules;
