//! Any byte string as a session of actions on any preset: refused actions change
//! nothing, every cent and every card is accounted for, nothing panics.
#![no_main]
use felt_core::check::{check_cards, check_money, Ledger};
use felt_core::{presets, Action, Decision, MemoryMeters, Money, Table};
use libfuzzer_sys::fuzz_target;
use rand::SeedableRng;
use rand_chacha::ChaCha20Rng;

fuzz_target!(|data: &[u8]| {
    let Some((&first, rest)) = data.split_first() else { return };
    let names: Vec<&str> = presets::names().collect();
    let name = names[usize::from(first) % names.len()];
    let Some(Ok(rules)) = presets::load(name) else { return };
    let Ok(table) = Table::new(&rules) else { return };
    let seats = 1 + (first / 8) % 3;
    let start = vec![Money(50_000); usize::from(seats)];
    let rng = ChaCha20Rng::seed_from_u64(u64::from(first));
    let Ok(mut round) = table.round(table.new_shoe(), rng, &start) else { return };
    let mut meters = MemoryMeters::for_table(&table);
    let mut log = Ledger::default();
    if round.begin(&mut log).is_err() {
        return;
    }
    for chunk in rest.chunks(3) {
        let [op, a, b] = [chunk[0], *chunk.get(1).unwrap_or(&0), *chunk.get(2).unwrap_or(&0)];
        let seat = a % (seats + 1);
        let amount = Money(i64::from(b) * 100);
        let action = match op % 12 {
            0 => Action::Bet { seat, spot: a / 64, amount },
            1 => Action::SideBet { seat, spot: a / 64, bet: b % 3, amount: Money(i64::from(b % 5) * 100) },
            2 => Action::Withdraw { seat, spot: a / 64 },
            3 => Action::Deal,
            4 => Action::Play { seat, decision: Decision::Hit },
            5 => Action::Play { seat, decision: Decision::Stand },
            6 => Action::Play { seat, decision: Decision::Double(amount) },
            7 => Action::Play { seat, decision: Decision::Split },
            8 => Action::Play { seat, decision: Decision::Surrender },
            9 => Action::Play { seat, decision: Decision::Insure(amount) },
            10 => Action::Play { seat, decision: Decision::EvenMoney },
            _ => Action::Play { seat, decision: Decision::Decline },
        };
        let before = round.clone();
        let meters_before = meters.clone();
        let logged = log.clone();
        if round.apply(action, &mut meters, &mut log).is_err() {
            assert!(round == before, "a refused action changed the round");
            assert!(meters == meters_before, "a refused action changed a meter");
            assert!(log == logged, "a refused action moved chips");
        }
        if round.phase() == felt_core::Phase::Done {
            let _ = round.begin(&mut log);
        }
        if let Err(e) = check_cards(&round) {
            panic!("cards: {e}");
        }
        if let Err(e) = check_money(&round, &start, &log) {
            panic!("money: {e}");
        }
    }
});
