//! The fault harness of the operator's wallet (`tests/wallet_faults.rs`): the reference
//! operator in the test's process with faults injected at random ([`operator`]),
//! players launched by its links over the browser's protocol ([`player`]), the run
//! itself with `felt serve --wallet` killed at random moments ([`harness`]), and what
//! must hold after it ([`checks`]).

// Each test uses the part it needs.
#![allow(dead_code)]

#[path = "../../../felt-server/tests/common/demo.rs"]
pub mod demo;

pub mod checks;
pub mod harness;
pub mod operator;
pub mod player;

/// The tests' async runtime (the operator, the players): two workers.
pub fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("a runtime")
}
