//! Any bytes as a rules file: a game or a located error, never a panic.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(text) = std::str::from_utf8(data) {
        if let Ok(rules) = felt_core::Rules::from_toml(text, "fuzz.toml") {
            let _ = felt_core::rules::rules_card(&rules);
        }
    }
});
