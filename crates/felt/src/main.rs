//! The `felt` command line.
fn main() {}
