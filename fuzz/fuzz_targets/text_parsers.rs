//! Cards, amounts and ratios from any text: a value or an error, never a panic.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(text) = std::str::from_utf8(data) {
        let _ = felt_core::card::parse_cards(text);
        let _ = text.parse::<felt_core::Money>();
        let _ = text.parse::<felt_core::Ratio>();
    }
});
