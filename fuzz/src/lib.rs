//! Shared helpers of the fuzz targets: a session driven by the fuzzer's bytes, with
//! the engine's invariants and the hidden-card check after every step.
pub mod session;
