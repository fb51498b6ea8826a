//! Evidence that felt's shuffle is random (`felt rng-test`): a battery of statistical
//! tests on shoes shuffled by felt's own dealing path, on recorded shoes, and on the
//! stream of seeds the shoes are shuffled from; each test with its statistic, p-value
//! and verdict at the 99% level, and the battery's verdict under Holm's correction.
//! Sources with a planted bias prove the battery can fail.
#![forbid(unsafe_code)]

pub mod battery;
pub mod report;
pub mod source;
pub mod stats;

pub use battery::Battery;
pub use report::Report;
