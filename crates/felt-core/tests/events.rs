//! The event log read back (C-11): every event the engine emits serializes to JSON and
//! reads back as the same typed value, byte for byte; what a player may see of an event
//! ([`Event::public`]) reads back too, and hides exactly the face-down cards. Changing
//! the hidden cards (the hole card, a face-down burn, the undealt shoe) changes nothing
//! a player sees before a changed card is shown.

mod common;

use common::random_legal;
use felt_core::card::Card;
use felt_core::round::{Decisions, Pays, PublicEvent, ShuffleWhy, Target, Turn};
use felt_core::rules::RulesFile;
use felt_core::{presets, Action, Basis, Event, MemoryMeters, Money, Rules, Shoe, Table};
use rand::{Rng, SeedableRng};
use rand_chacha::{ChaCha20Rng, ChaCha8Rng};
use std::collections::BTreeSet;

fn preset(name: &str) -> Rules {
    presets::load(name).unwrap().unwrap()
}

fn variant(name: &str, f: impl FnOnce(&mut RulesFile)) -> Rules {
    preset(name).modified(f).unwrap()
}

/// A legal amount for `limits`, drawn at random (a few steps above the minimum).
fn amount(l: &felt_core::rules::Limits, rng: &mut ChaCha8Rng) -> Money {
    let steps = ((l.max - l.min).as_cents() / l.increment.as_cents()).min(12);
    l.min + Money::cents(l.increment.as_cents() * rng.gen_range(0..=steps))
}

/// `rounds` rounds of `rules` with 3 seats (or the table's seats), random bets on random
/// spots, random legal decisions, and now and then a burn by hand: the whole log.
fn play(rules: &Rules, seed: u64, rounds: usize) -> Vec<Event> {
    let table = Table::new(rules).unwrap();
    let seats = table.seats().min(3);
    let mut round = table
        .round(
            table.new_shoe(),
            ChaCha8Rng::seed_from_u64(seed),
            &vec![Money::cents(100_000_000); usize::from(seats)],
        )
        .unwrap();
    let mut meters = MemoryMeters::for_table(&table);
    let mut rng = ChaCha8Rng::seed_from_u64(seed ^ 0xe7e7);
    let mut log: Vec<Event> = Vec::new();
    for r in 0..rounds {
        round.begin(&mut log).unwrap();
        if r % 17 == 3 {
            // A dealer-operated table's burn (LA-4), face down or up.
            let _ = round.burn(r % 2 == 0, &mut log);
        }
        for seat in 0..seats {
            for spot in 0..table.spots_per_seat() {
                if rng.gen_bool(0.2) {
                    continue;
                }
                let main = table.rules().main_bet().limits();
                let mut bet = Action::Bet {
                    seat,
                    spot,
                    amount: amount(&main, &mut rng),
                };
                if round.apply(bet, &mut meters, &mut log).is_err() {
                    bet = Action::Bet {
                        seat,
                        spot,
                        amount: main.min,
                    };
                    round.apply(bet, &mut meters, &mut log).unwrap();
                }
                for (b, side) in table.side_bets().iter().enumerate() {
                    if rng.gen_bool(0.3) {
                        continue;
                    }
                    let a = amount(&side.limits, &mut rng);
                    let bet = b as u8;
                    let side_bet = |amount| Action::SideBet {
                        seat,
                        spot,
                        bet,
                        amount,
                    };
                    if round.apply(side_bet(a), &mut meters, &mut log).is_err() {
                        round
                            .apply(side_bet(side.limits.min), &mut meters, &mut log)
                            .unwrap();
                    }
                }
            }
        }
        if round.turn() == Turn::Bets && round.apply(Action::Deal, &mut meters, &mut log).is_err() {
            // Nobody bet: the round cannot be dealt; bet once and deal.
            let bet = Action::Bet {
                seat: 0,
                spot: 0,
                amount: table.rules().main_bet().min,
            };
            round.apply(bet, &mut meters, &mut log).unwrap();
            round.apply(Action::Deal, &mut meters, &mut log).unwrap();
        }
        while let Turn::Seat { seat, .. } = round.turn() {
            let d = random_legal(&round.legal_actions(), &mut rng);
            // Now and then the seat's timer runs out instead.
            let action = if rng.gen_bool(0.05) {
                Action::Timeout { seat, at: None }
            } else {
                Action::Play {
                    seat,
                    at: None,
                    decision: d,
                }
            };
            round.apply(action, &mut meters, &mut log).unwrap();
        }
        assert_eq!(round.turn(), Turn::Done);
    }
    log
}

/// The `event` tag of an event's JSON.
fn kind(json: &str) -> String {
    let v: serde_json::Value = serde_json::from_str(json).unwrap();
    v["event"].as_str().unwrap().to_string()
}

#[test]
fn c_11_every_event_of_every_preset_reads_back_as_itself() {
    let mut games: Vec<(String, Rules)> = presets::names()
        .map(|n| (n.to_string(), preset(n)))
        .collect();
    games.extend([
        // Payouts rounded down to a cent (C-2): `Rounding` events.
        (
            "classic, rounding down".to_string(),
            variant("classic", |f| {
                f.table.rounding = felt_core::rules::Rounding::Down;
                f.main_bet.min = Money::cents(5_01);
                f.main_bet.increment = Money::cents(1);
            }),
        ),
        // A CSM (C-12): `Shuffled { why: csm }`.
        (
            "classic, CSM".to_string(),
            variant("classic", |f| f.shoe.csm = true),
        ),
        // One deck, 3 seats of 7 spots, 8 hands: the rack is reshuffled, rounds voided.
        (
            "lucky-7, one deck".to_string(),
            variant("lucky-7", |f| {
                f.shoe.decks = 1;
                f.shoe.penetration = 0.95;
                f.table.seats = 3;
                f.table.max_spots_per_player = 7;
                f.player.max_split_hands = 8;
            }),
        ),
        // Pay lines `for` (B7-3a) on common hands.
        (
            "lucky-lucky, for".to_string(),
            variant("lucky-lucky", |f| {
                for line in &mut f.side_bets[0].pays {
                    line.basis = Basis::For;
                }
            }),
        ),
        // Meter lines on common hands, paid `to` and `for` (B7-5a, B7-6).
        (
            "blazing-7s, common meter lines".to_string(),
            variant("blazing-7s", |f| {
                f.side_bets[0].pays[3].pay = felt_core::rules::LinePay::Meter(10);
                f.side_bets[0].pays[4].pay = felt_core::rules::LinePay::Meter(100);
                f.side_bets[0].pays[4].basis = Basis::For;
                f.side_bets[0].pays[2].basis = Basis::For;
            }),
        ),
    ]);
    let mut kinds = BTreeSet::new();
    let mut shuffles = BTreeSet::new();
    let mut pays = BTreeSet::new();
    let (mut hidden, mut total) = (0usize, 0usize);
    for (i, (name, rules)) in games.iter().enumerate() {
        let rounds = if name.contains("one deck") { 400 } else { 250 };
        for e in play(rules, 40 + i as u64, rounds) {
            total += 1;
            let json = serde_json::to_string(&e).unwrap();
            let back: Event = serde_json::from_str(&json)
                .unwrap_or_else(|err| panic!("{name}: {json} does not read back: {err}"));
            assert_eq!(back, e, "{name}: {json}");
            assert_eq!(serde_json::to_string(&back).unwrap(), json, "{name}");
            kinds.insert(kind(&json));
            match e {
                Event::Shuffled { why, .. } => {
                    shuffles.insert(format!("{why:?}"));
                }
                Event::Settled(s) => {
                    if let Some(p) = s.pays {
                        pays.insert(match p {
                            Pays::Odds(o) => format!("odds {:?}", o.basis),
                            Pays::Meter { basis, .. } => format!("meter {basis:?}"),
                        });
                    }
                }
                _ => {}
            }
            // A player's view of the event reads back as itself too, and is the event
            // itself unless the event is a face-down card.
            let p = e.public();
            let pj = serde_json::to_string(&p).unwrap();
            let pback: PublicEvent = serde_json::from_str(&pj)
                .unwrap_or_else(|err| panic!("{name}: {pj} does not read back: {err}"));
            assert_eq!(pback, p, "{name}: {pj}");
            let face_down = matches!(
                e,
                Event::Dealt { face_up: false, .. } | Event::Burned { face_up: false, .. }
            );
            if face_down {
                hidden += 1;
                assert!(!pj.contains("\"card\""), "{name}: {pj}");
                assert!(pj.contains("\"face_up\":false"), "{name}: {pj}");
                assert_eq!(kind(&pj), kind(&json));
                assert_eq!(p.event(), None);
            } else {
                assert_eq!(pj, json, "{name}");
                assert_eq!(p, PublicEvent::Shown(e));
            }
        }
    }
    let all = [
        "round-started",
        "shuffled",
        "burned",
        "cut-card-out",
        "bets-closed",
        "dealt",
        "peeked",
        "hole-card-turned",
        "decided",
        "timed-out",
        "stood",
        "dealer-done",
        "moved",
        "settled",
        "meter",
        "rounding",
        "voided",
        "round-ended",
    ];
    let missing: Vec<_> = all.iter().filter(|k| !kinds.contains(**k)).collect();
    assert!(missing.is_empty(), "never emitted: {missing:?} ({kinds:?})");
    assert_eq!(kinds.len(), all.len(), "{kinds:?}");
    for why in [
        ShuffleWhy::NewShoe,
        ShuffleWhy::CutCard,
        ShuffleWhy::Csm,
        ShuffleWhy::RackReshuffled,
    ] {
        assert!(shuffles.contains(&format!("{why:?}")), "{shuffles:?}");
    }
    assert_eq!(
        pays,
        ["meter For", "meter To", "odds For", "odds To"]
            .map(String::from)
            .into(),
    );
    assert!(
        total > 100_000 && hidden > 1_000,
        "{total} events, {hidden} hidden"
    );
}

#[test]
fn c_11_a_text_that_is_not_an_event_is_refused_with_a_reason() {
    for bad in [
        r#"{"event":"dealt","to":{"who":"dealer"},"face_up":true,"side_bet_only":false}"#,
        r#"{"event":"burned","face_up":true}"#,
        r#"{"event":"teleported"}"#,
        r#"{"event":"dealt","to":{"who":"dealer"},"face_up":false,"side_bet_only":false,"x":1}"#,
        "[]",
        "",
    ] {
        assert!(serde_json::from_str::<PublicEvent>(bad).is_err(), "{bad}");
    }
    let bad_pays = r#"{"event":"settled","at":{"seat":0,"spot":0,"hand":0},"bet":"main","outcome":"win","line":null,"pays":"7% of meter, stake kept","stake":"1.00","returned":"2.00"}"#;
    assert!(serde_json::from_str::<Event>(bad_pays).is_err());
    let good = bad_pays.replace("stake kept", "stake returned");
    assert!(serde_json::from_str::<Event>(&good).is_ok(), "{good}");
    let long_id = format!(
        r#"{{"event":"meter","change":{{"id":"{}","before":"1.00","after":"2.00"}},"why":"increment"}}"#,
        "m".repeat(32)
    );
    assert!(serde_json::from_str::<Event>(&long_id).is_err());
}

// ---- Hidden cards change no public event and no view ----------------------------------

/// One run of a round on a stacked shoe: its house log, and snapshots (events so far,
/// each seat's view as JSON) after the deal and after each decision.
struct Run {
    log: Vec<Event>,
    snapshots: Vec<(usize, Vec<String>)>,
}

/// Plays a round of `rules` with 2 seats of `spots` spots on a shoe whose first cards
/// are `first` (the rest shuffled from `tail_seed`): the first card is burned face down
/// by hand, then every spot bets the minimum and every side bet its minimum; offers are
/// declined and every hand stands, so every decision rests on what the seats see.
fn run(rules: &Rules, first: &[Card], tail_seed: u64, spots: u8) -> Run {
    let table = Table::new(rules).unwrap();
    let mut rng = ChaCha20Rng::seed_from_u64(tail_seed);
    let shoe = Shoe::stacked(rules.shoe().decks, first, &mut rng).unwrap();
    let mut round = table
        .round(shoe, rng, &[Money::cents(1_000_000); 2])
        .unwrap();
    let mut meters = MemoryMeters::for_table(&table);
    let mut log: Vec<Event> = Vec::new();
    round.begin(&mut log).unwrap();
    round.burn(false, &mut log).unwrap();
    for seat in 0..2 {
        for spot in 0..spots {
            let amount = rules.main_bet().min;
            round
                .apply(Action::Bet { seat, spot, amount }, &mut meters, &mut log)
                .unwrap();
            for (bet, b) in table.side_bets().iter().enumerate() {
                let a = Action::SideBet {
                    seat,
                    spot,
                    bet: bet as u8,
                    amount: b.limits.min,
                };
                round.apply(a, &mut meters, &mut log).unwrap();
            }
        }
    }
    let views = |round: &felt_core::Round<ChaCha20Rng>| -> Vec<String> {
        (0..2)
            .map(|s| serde_json::to_string(&round.view(s)).unwrap())
            .collect()
    };
    let mut snapshots = vec![(log.len(), views(&round))];
    round.apply(Action::Deal, &mut meters, &mut log).unwrap();
    snapshots.push((log.len(), views(&round)));
    while let Turn::Seat { seat, .. } = round.turn() {
        let offered = round.legal_actions().decisions;
        let decision = if offered.contains(Decisions::DECLINE) {
            felt_core::Decision::Decline
        } else {
            felt_core::Decision::Stand
        };
        round
            .apply(
                Action::Play {
                    seat,
                    at: None,
                    decision,
                },
                &mut meters,
                &mut log,
            )
            .unwrap();
        snapshots.push((log.len(), views(&round)));
    }
    Run { log, snapshots }
}

/// Whether the dealer holds a natural with these two cards.
fn natural(hole: Card, up: Card) -> bool {
    let (h, u) = (hole.value(), up.value());
    (h == 1 && u == 10) || (h == 10 && u == 1)
}

#[test]
fn c_11_changing_the_hole_card_a_face_down_burn_or_the_undealt_cards_changes_no_public_event_or_view(
) {
    let (mut compared_events, mut compared_views, mut hidden_differences) = (0, 0, 0);
    for name in presets::names() {
        let rules = preset(name);
        let spots = rules.table().max_spots_per_player.min(2);
        let n = 2 * usize::from(spots);
        for seed in 0..40u64 {
            // Shoe A: the shuffle of `seed`, in dealing order: the burn, a card to each
            // spot, the hole card, a second card to each spot, the up card, the rest.
            let mut rng = ChaCha20Rng::seed_from_u64(seed);
            let order = Shoe::stacked(rules.shoe().decks, &[], &mut rng)
                .unwrap()
                .undealt()
                .to_vec();
            let deal = 1 + 2 * n + 2;
            let (burn, hole, up) = (order[0], order[1 + n], order[2 + 2 * n]);
            // Shoe B: the same face-up cards; another burned card, another hole card
            // (with or without a natural, as in A: the peek announces it), and the
            // undealt cards shuffled anew.
            let swap_hole = order[deal..]
                .iter()
                .copied()
                .find(|&c| c != hole && natural(c, up) == natural(hole, up));
            let Some(other_hole) = swap_hole else {
                continue;
            };
            let other_burn = order[deal..]
                .iter()
                .copied()
                .find(|&c| c != burn && c != other_hole)
                .unwrap();
            let a_first = &order[..deal];
            let mut b_first = a_first.to_vec();
            b_first[0] = other_burn;
            b_first[1 + n] = other_hole;
            let a = run(&rules, a_first, 1000 + seed, spots);
            let b = run(&rules, &b_first, 2000 + seed, spots);
            assert_ne!(&a.log, &b.log);

            // The first event a player sees differently in the house logs: past it the
            // rounds may part (a changed card is shown). Face-down cards are not shown.
            let shown = |e: &Event| {
                !matches!(
                    e,
                    Event::Dealt { face_up: false, .. } | Event::Burned { face_up: false, .. }
                )
            };
            let cut = a
                .log
                .iter()
                .zip(&b.log)
                .position(|(x, y)| x != y && (shown(x) || shown(y)))
                .unwrap_or(a.log.len().min(b.log.len()));
            // The whole initial deal comes before it (up to the up card).
            let up_at = a
                .log
                .iter()
                .position(|e| {
                    matches!(
                        e,
                        Event::Dealt {
                            to: Target::Dealer,
                            face_up: true,
                            ..
                        }
                    )
                })
                .unwrap();
            assert!(cut > up_at, "{name} {seed}: parted at {cut}");
            let hidden = (0..cut).filter(|&i| a.log[i] != b.log[i]).count();
            assert_eq!(
                hidden, 2,
                "{name} {seed}: the burn and the hole card differ"
            );
            hidden_differences += hidden;
            for i in 0..cut {
                let pa = serde_json::to_string(&a.log[i].public()).unwrap();
                let pb = serde_json::to_string(&b.log[i].public()).unwrap();
                assert_eq!(pa, pb, "{name} {seed}: public event {i}");
                compared_events += 1;
            }
            // Every view taken before that point is the same, byte for byte.
            for (sa, sb) in a.snapshots.iter().zip(&b.snapshots) {
                if sa.0 > cut || sb.0 > cut {
                    break;
                }
                assert_eq!(sa.0, sb.0, "{name} {seed}");
                assert_eq!(sa.1, sb.1, "{name} {seed}: views after event {}", sa.0);
                compared_views += 1;
            }
        }
    }
    assert!(compared_events > 3_000, "{compared_events}");
    assert!(compared_views > 300, "{compared_views}");
    assert!(hidden_differences > 300, "{hidden_differences}");
}

/// Keeps every event, and apart the side-bet settlements told with their bet's index.
#[derive(Default)]
struct IndexedSides {
    events: Vec<Event>,
    indexed: Vec<(usize, felt_core::round::Settlement)>,
}

impl felt_core::round::EventSink for IndexedSides {
    fn event(&mut self, e: &Event) {
        self.events.push(*e);
    }

    fn side_settled(&mut self, bet: usize, s: &felt_core::round::Settlement) {
        self.indexed.push((bet, *s));
        self.events.push(Event::Settled(*s));
    }
}

/// `rounds` automated rounds, every bet on every spot of three seats, into `sink`.
fn play_every_bet<S: felt_core::round::EventSink>(table: &Table, rounds: usize, sink: &mut S) {
    let mut round = table
        .round(
            table.new_shoe(),
            ChaCha8Rng::seed_from_u64(5),
            &[Money(1_000_000_000_000); 3],
        )
        .unwrap();
    let mut meters = MemoryMeters::for_table(table);
    let mut stand = |c: &felt_core::DecisionContext<'_>| {
        if c.legal.decisions.contains(Decisions::DECLINE) {
            felt_core::Decision::Decline
        } else if c.total < 17 && c.legal.decisions.contains(Decisions::HIT) {
            felt_core::Decision::Hit
        } else {
            felt_core::Decision::Stand
        }
    };
    for _ in 0..rounds {
        round.begin(sink).unwrap();
        common::bet_every_spot(&mut round, &mut meters, sink, 3);
        round.play_auto(&mut stand, &mut meters, sink).unwrap();
    }
}

/// A side bet's settlement reaches a sink with the index of its bet in the table's side
/// bets (the simulator's tally reads it instead of finding the bet by id), and a sink
/// that does not ask for the index gets the same settlement, in the same place, as an
/// ordinary event.
#[test]
fn side_settlements_carry_their_bets_index() {
    for game in presets::names() {
        let table = Table::new(&preset(game)).unwrap();
        let bets = table.side_bets();
        if bets.is_empty() {
            continue;
        }
        let mut indexed = IndexedSides::default();
        play_every_bet(&table, 300, &mut indexed);
        let mut plain: Vec<Event> = Vec::new();
        play_every_bet(&table, 300, &mut plain);
        assert_eq!(indexed.events, plain, "{game}: the same events either way");
        for (b, s) in &indexed.indexed {
            assert_eq!(
                s.bet,
                felt_core::round::BetKind::Side(bets[*b].id),
                "{game}: index {b} names its bet"
            );
        }
        for b in 0..bets.len() {
            assert!(
                indexed.indexed.iter().any(|(i, _)| *i == b),
                "{game}: bet {b} settled with its index"
            );
        }
    }
}
