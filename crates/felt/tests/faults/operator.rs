//! The reference operator's faults, switched at random moments from a seeded
//! generator: every fault of `docs/operators.md` (a delay, an answer dropped after
//! commit, a 5xx before commit, a duplicate delivery, a slow answer), some past felt's
//! 5 s call timeout, and quiet spells between them.

use felt_server::operator_demo::faults::Faults;
use felt_server::operator_demo::DemoWallet;
use rand::{Rng, SeedableRng};
use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::Duration;

/// Longer than `felt serve`'s whole-call timeout (5 s): the answer is lost to felt.
const PAST_THE_TIMEOUT_MS: u64 = 5_500;

/// One spell of faults, named for the figures.
fn draw(rng: &mut impl Rng) -> (&'static str, Faults) {
    let none = Faults::default();
    match rng.gen_range(0..100) {
        0..=39 => ("none", none),
        40..=49 => (
            "delay",
            Faults {
                delay_ms: rng.gen_range(50..400),
                ..none
            },
        ),
        50..=52 => (
            "delay past the timeout",
            Faults {
                delay_ms: PAST_THE_TIMEOUT_MS,
                ..none
            },
        ),
        53..=64 => (
            "drop-after-commit",
            Faults {
                drop_after_commit: true,
                ..none
            },
        ),
        65..=76 => (
            "fail-before-commit",
            Faults {
                fail_before_commit: true,
                ..none
            },
        ),
        77..=88 => (
            "duplicate",
            Faults {
                duplicate: true,
                ..none
            },
        ),
        89..=96 => (
            "slow",
            Faults {
                slow_ms: rng.gen_range(50..300),
                ..none
            },
        ),
        _ => (
            "slow past the timeout",
            Faults {
                slow_ms: PAST_THE_TIMEOUT_MS,
                ..none
            },
        ),
    }
}

/// Faults switched every 200 to 700 ms until stopped.
pub struct Injector {
    stop: Arc<AtomicBool>,
    thread: JoinHandle<BTreeMap<&'static str, u32>>,
}

impl Injector {
    /// Starts switching `wallet`'s faults, drawn from `seed`.
    pub fn start(wallet: Arc<DemoWallet>, seed: u64) -> Injector {
        let stop = Arc::new(AtomicBool::new(false));
        let stopped = stop.clone();
        let thread = std::thread::spawn(move || {
            let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
            let mut spells = BTreeMap::new();
            while !stopped.load(Ordering::Relaxed) {
                let (name, faults) = draw(&mut rng);
                wallet.set_faults(faults);
                *spells.entry(name).or_insert(0) += 1;
                std::thread::sleep(Duration::from_millis(rng.gen_range(200..700)));
            }
            wallet.set_faults(Faults::default());
            spells
        });
        Injector { stop, thread }
    }

    /// Clears the faults; how many spells of each there were.
    pub fn stop(self) -> BTreeMap<&'static str, u32> {
        self.stop.store(true, Ordering::Relaxed);
        self.thread.join().expect("the fault injector ends")
    }
}
