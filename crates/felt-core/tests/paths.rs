//! The three ways to drive a round give the same log, byte for byte: the automated
//! path ([`Round::play_auto`], what the simulator runs), one action at a time with
//! the chance steps run by the round (what `felt play` does), and every chance step
//! taken by hand ([`Round::set_auto`]`(false)` and [`Round::advance`]). Any shortcut
//! of the automated path that changed a card, a decision offered or a settlement
//! would show here (C-11). A strategy given as a type of its own ([`Strategy`])
//! plays as the same strategy given as a closure.

mod common;

use common::{bet_every_spot, random_legal};
use felt_core::round::Turn;
use felt_core::{
    presets, Action, Decision, DecisionContext, Event, MemoryMeters, Money, Strategy, Table,
};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Drive {
    Auto,
    AutoTyped,
    PerAction,
    Stepped,
}

/// The random legal decision, as a type of its own.
struct RandomLegal<'a>(&'a mut ChaCha8Rng);

impl Strategy for RandomLegal<'_> {
    fn decide(&mut self, c: &DecisionContext<'_>) -> Decision {
        random_legal(&c.legal, self.0)
    }
}

/// `rounds` rounds of `game`, 3 seats, every spot and side bet, driven as `drive`.
fn log(game: &str, seed: u64, rounds: usize, drive: Drive) -> String {
    let rules = presets::load(game).unwrap().unwrap();
    let table = Table::new(&rules).unwrap();
    let mut round = table
        .round(
            table.new_shoe(),
            ChaCha8Rng::seed_from_u64(seed),
            &[Money(100_000_000); 3],
        )
        .unwrap();
    round.set_auto(drive != Drive::Stepped);
    let mut meters = MemoryMeters::for_table(&table);
    let mut decide = ChaCha8Rng::seed_from_u64(seed ^ 0x5eed);
    let mut out = String::new();
    for _ in 0..rounds {
        let mut ev: Vec<Event> = Vec::new();
        round.begin(&mut ev).unwrap();
        bet_every_spot(&mut round, &mut meters, &mut ev, 2);
        match drive {
            Drive::Auto => {
                let mut strategy =
                    |c: &felt_core::DecisionContext<'_>| random_legal(&c.legal, &mut decide);
                round
                    .play_auto(&mut strategy, &mut meters, &mut ev)
                    .unwrap();
            }
            Drive::AutoTyped => {
                let mut strategy = RandomLegal(&mut decide);
                round
                    .play_auto(&mut strategy, &mut meters, &mut ev)
                    .unwrap();
            }
            Drive::PerAction | Drive::Stepped => {
                round.apply(Action::Deal, &mut meters, &mut ev).unwrap();
                loop {
                    match round.turn() {
                        Turn::Done => break,
                        Turn::Chance => round.advance(&mut meters, &mut ev).unwrap(),
                        Turn::Seat { seat, .. } => {
                            let d = random_legal(&round.legal_actions(), &mut decide);
                            let a = Action::Play {
                                seat,
                                at: None,
                                decision: d,
                            };
                            round.apply(a, &mut meters, &mut ev).unwrap();
                        }
                        Turn::Bets => panic!("betting open in the middle of a round"),
                    }
                }
            }
        }
        for e in &ev {
            out.push_str(&serde_json::to_string(e).unwrap());
            out.push('\n');
        }
    }
    out
}

#[test]
fn c_11_automated_per_action_and_stepped_rounds_give_the_same_log() {
    for game in presets::names() {
        let auto = log(game, 11, 1500, Drive::Auto);
        assert!(auto.lines().count() > 30_000, "{game}: a real log");
        assert_eq!(
            auto,
            log(game, 11, 1500, Drive::PerAction),
            "{game}: per action"
        );
        assert_eq!(auto, log(game, 11, 1500, Drive::Stepped), "{game}: stepped");
        assert_eq!(
            auto,
            log(game, 11, 1500, Drive::AutoTyped),
            "{game}: a strategy type"
        );
    }
}
