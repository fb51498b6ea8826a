//! C-11: a round replays from its seed and its players' actions to the same log,
//! byte for byte.

mod common;

use common::random_legal;
use felt_core::{presets, Action, DecisionContext, Event, MemoryMeters, Money, Table};
use rand::SeedableRng;
use rand_chacha::{ChaCha20Rng, ChaCha8Rng};

/// Plays 200 rounds of `game` from `seed` with actions drawn from `actions_seed`;
/// returns the log as JSON lines.
fn log(game: &str, seed: u64, actions_seed: u64) -> String {
    let rules = presets::load(game).unwrap().unwrap();
    let table = Table::new(&rules).unwrap();
    let mut round = table
        .round(
            table.new_shoe(),
            ChaCha20Rng::seed_from_u64(seed),
            &[Money(50_000); 3],
        )
        .unwrap();
    let mut meters = MemoryMeters::for_table(&table);
    let mut choose = ChaCha8Rng::seed_from_u64(actions_seed);
    let mut out = String::new();
    for _ in 0..200 {
        let mut ev: Vec<Event> = Vec::new();
        round.begin(&mut ev).unwrap();
        for seat in 0..3 {
            let amount = rules.main_bet().min;
            if round.balance(seat).unwrap() >= Money(amount.0 * 10) {
                round
                    .apply(
                        Action::Bet {
                            seat,
                            spot: seat % 2,
                            amount,
                        },
                        &mut meters,
                        &mut ev,
                    )
                    .unwrap();
                if let Some(b) = table.side_bets().first() {
                    round
                        .apply(
                            Action::SideBet {
                                seat,
                                spot: seat % 2,
                                bet: 0,
                                amount: b.limits.min,
                            },
                            &mut meters,
                            &mut ev,
                        )
                        .unwrap();
                }
            }
        }
        let mut strategy = |c: &DecisionContext<'_>| random_legal(&c.legal, &mut choose);
        if round.phase() == felt_core::Phase::Betting && round.felt() > Money::ZERO {
            round
                .play_auto(&mut strategy, &mut meters, &mut ev)
                .unwrap();
        } else {
            // Nobody could bet: close the empty round by refilling seat 0.
            let _ = round.apply(Action::Deal, &mut meters, &mut ev);
            break;
        }
        for e in &ev {
            out.push_str(&serde_json::to_string(e).unwrap());
            out.push('\n');
        }
    }
    out
}

#[test]
fn c_11_the_same_seed_and_actions_give_the_same_log_byte_for_byte() {
    for game in presets::names() {
        let a = log(game, 42, 7);
        let b = log(game, 42, 7);
        assert!(a.len() > 10_000, "{game}: {}", a.len());
        assert_eq!(a, b, "{game}");
        assert_ne!(a, log(game, 43, 7), "{game}: another seed, another shoe");
    }
}

#[test]
fn c_11_events_serialize_as_json_lines() {
    let a = log("blazing-7s", 1, 1);
    let first = a.lines().next().unwrap();
    assert_eq!(first, r#"{"event":"round-started","round":1}"#);
    assert!(a.contains(r#""event":"shuffled","cards":312,"why":"new-shoe""#));
    assert!(a.contains(r#""pays":"3 to 2""#) || a.contains(r#""pays":"1 to 1""#));
    assert!(a.contains(r#""account":"meter","id":"blazing-7s""#));
}
