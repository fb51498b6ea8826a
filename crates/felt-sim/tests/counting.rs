//! Counting in the simulator against the exact figures and against itself.
//!
//! Sized to run in seconds at opt-level 3 (the workspace's test profile); fixed seeds,
//! so every check is deterministic. Statistical checks allow 4 standard errors.

use felt_core::card::{Card, Rank, Suit};
use felt_core::money::Money;
use felt_core::round::{Decisions, Legal, Place, Turn};
use felt_core::{presets, Decision, DecisionContext, Phase, Rules};
use felt_math::main_game::analyse;
use felt_math::mapping::main_game_rules;
use felt_sim::count::{DeckEstimation, TcRounding};
use felt_sim::counting::{parse_ramp, CountingOptions, RiskOptions};
use felt_sim::indices::{self, IndexTable};
use felt_sim::{
    merge_shards, simulate, CountingReport, SimOptions, SimReport, Simulator, StrategyTable,
    CHUNK_ROUNDS,
};

fn preset(name: &str) -> Rules {
    presets::load(name).unwrap().unwrap()
}

fn hi_lo() -> CountingOptions {
    CountingOptions::watch(&felt_math::count::preset("hi-lo").unwrap().unwrap())
}

const I18: &str = r#"
name = "part of the Illustrious 18"
[[index]]
hand = "insurance"
index = 3
[[index]]
hand = "16"
up = "T"
play = "stand"
index = 0
[[index]]
hand = "12"
up = "3"
play = "stand"
index = 2
[[index]]
hand = "10"
up = "T"
play = "double"
index = 4
[[index]]
hand = "TT"
up = "6"
play = "split"
index = 4
"#;

/// The report with the timings (the only thread-dependent fields) blanked.
fn figures(mut r: SimReport) -> SimReport {
    r.threads = 0;
    r.setup_seconds = 0.0;
    r.elapsed_seconds = 0.0;
    r.rounds_per_second = 0.0;
    r.rounds_per_second_per_thread = 0.0;
    r
}

fn counting(r: &SimReport) -> &CountingReport {
    r.counting.as_ref().expect("a counting report")
}

#[test]
fn a_flat_bet_with_a_count_plays_the_same_rounds_as_without() {
    // Watching the count changes nothing: same cards, same decisions, same figures,
    // so the main wager and the side bets still match the exact edges as before.
    let rules = preset("blackjack-bonus");
    let base = SimOptions {
        rounds: 2 * CHUNK_ROUNDS + 999,
        seed: Some(11),
        threads: 2,
        ..SimOptions::default()
    };
    let plain = simulate(&rules, &base).unwrap();
    let counted = simulate(
        &rules,
        &SimOptions {
            counting: Some(hi_lo()),
            ..base.clone()
        },
    )
    .unwrap();
    assert_eq!(plain.main.summary, counted.main.summary);
    assert_eq!(plain.main.outcomes, counted.main.outcomes);
    assert_eq!(plain.main.exact_house_edge, counted.main.exact_house_edge);
    assert_eq!(plain.side_bets, counted.side_bets);
    let c = counting(&counted);
    assert_eq!(c.rounds_seen, base.rounds);
    assert_eq!(c.rounds_played, base.rounds);
    assert!((c.average_bet - 1.0).abs() < 1e-12);
    // The counter's win is the main and side bets' together.
    let net: i128 =
        plain.main.summary.net + plain.side_bets.iter().map(|b| b.summary.net).sum::<i128>();
    let unit = rules.main_bet().min.0 as f64;
    let win = net as f64 / base.rounds as f64 / unit * 100.0;
    assert!(
        (c.win_per_100.value - win).abs() < 1e-9,
        "{} vs {win}",
        c.win_per_100.value
    );
}

#[test]
fn flat_bet_edge_matches_the_exact_edge_off_the_top() {
    // A CSM: every round off the top of a full shoe, the count reset every round.
    let rules = preset("classic");
    let r = simulate(
        &rules,
        &SimOptions {
            rounds: 600_000,
            seed: Some(5),
            threads: 2,
            csm: true,
            main_only: true,
            counting: Some(hi_lo()),
            ..SimOptions::default()
        },
    )
    .unwrap();
    let mapped = main_game_rules(&r_rules(&rules, true), rules.shoe().decks);
    let exact = -analyse(&mapped.main).unwrap().ev_basic;
    let s = &r.main.summary;
    let z = (s.house_edge - exact) / s.se;
    assert!(
        z.abs() <= 4.0,
        "simulated {} exact {exact} z {z}",
        s.house_edge
    );
    // With a CSM every round is seen at true count 0.
    let c = counting(&r);
    assert_eq!(c.by_true_count.len(), 1);
    assert_eq!(c.by_true_count[0].tc, 0);
    let adv = -c.advantage.value;
    assert!((adv - s.house_edge).abs() < 1e-12);
}

fn r_rules(rules: &Rules, csm: bool) -> Rules {
    rules.modified(|f| f.shoe.csm = csm).unwrap()
}

#[test]
fn true_count_frequencies_sum_to_one_and_the_edge_rises_with_the_count() {
    let rules = preset("blackjack-bonus");
    let r = simulate(
        &rules,
        &SimOptions {
            rounds: 3_000_000,
            seed: Some(3),
            threads: 2,
            main_only: true,
            penetration: Some(0.75),
            counting: Some(hi_lo()),
            ..SimOptions::default()
        },
    )
    .unwrap();
    let c = counting(&r);
    let total: f64 = c.by_true_count.iter().map(|row| row.frequency).sum();
    assert!((total - 1.0).abs() < 1e-12, "{total}");
    let seen: u64 = c.by_true_count.iter().map(|row| row.rounds).sum();
    assert_eq!(seen, 3_000_000);
    // Hi-Lo and the main game: the advantage rises with the true count. Each step
    // from -4 to +5 within noise, and the whole span by far.
    let adv = |tc: i32| {
        c.by_true_count
            .iter()
            .find(|row| row.tc == tc)
            .and_then(|row| row.main_advantage)
            .unwrap()
    };
    for tc in -4..5 {
        let (a, b) = (adv(tc), adv(tc + 1));
        let se = (a.se * a.se + b.se * b.se).sqrt();
        assert!(
            b.value - a.value > -4.0 * se,
            "TC {tc}: {:.4}% then {:.4}% (SE {:.4}%)",
            a.value * 100.0,
            b.value * 100.0,
            se * 100.0
        );
    }
    let (lo, hi) = (adv(-4), adv(5));
    let se = (lo.se * lo.se + hi.se * hi.se).sqrt();
    assert!(hi.value - lo.value > 4.0 * se, "{lo:?} {hi:?}");
    // About half a percent per true count (Hi-Lo's usual figure, 0.4 to 0.6).
    let slope = (hi.value - lo.value) / 9.0;
    assert!((0.003..0.008).contains(&slope), "slope {slope}");
    // Flat betting: the shoe-clustered standard error of the win rate is close to the
    // naive one (rounds of a shoe are nearly independent when the bet is flat).
    let naive = c.sd_per_round.value / (c.rounds_played as f64).sqrt() * 100.0;
    let ratio = c.win_per_100.se / naive;
    assert!((0.85..1.2).contains(&ratio), "ratio {ratio}");
}

fn full_counter() -> CountingOptions {
    let mut o = hi_lo();
    o.ramp = parse_ramp("-1:1,1:2,2:4,3:8,4:12").unwrap();
    o.table_max = Some(12_00);
    o.table_min = Some(1_00);
    o.unit = Some(1_00);
    o.wong_in = Some(-1);
    o.wong_out = Some(-1);
    o.side_at = Some(2);
    o.estimation = DeckEstimation::Quarter;
    o.rounding = TcRounding::Truncate;
    o.indices = Some(indices::parse(I18, "i18.toml").unwrap());
    o.risk = Some(RiskOptions {
        bankroll: 200.0,
        goal: Some(200.0),
        hands: Some(5_000),
    });
    o
}

#[test]
fn same_seed_same_counter_on_one_and_two_threads() {
    let rules = preset("blackjack-bonus");
    let opts = |threads| SimOptions {
        rounds: 3 * CHUNK_ROUNDS + 77,
        seed: Some(9),
        threads,
        seats: 2,
        spots: 2,
        counting: Some(full_counter()),
        ..SimOptions::default()
    };
    let one = figures(simulate(&rules, &opts(1)).unwrap());
    let two = figures(simulate(&rules, &opts(2)).unwrap());
    assert_eq!(one, two);
    assert_eq!(
        serde_json::to_string(&one).unwrap(),
        serde_json::to_string(&two).unwrap()
    );
    // The ramp, wonging and side bets above a count did what they say.
    let c = counting(&one);
    assert!(c.rounds_played < c.rounds_seen);
    for row in &c.by_true_count {
        if row.tc < -1 {
            assert_eq!(row.played, 0, "wonged out below -1 (TC {})", row.tc);
        }
        if row.tc < 2 {
            assert!(
                row.side_advantage.iter().all(Option::is_none),
                "TC {}",
                row.tc
            );
        }
        if row.played > 0 {
            let want = match row.tc {
                i32::MIN..=0 => 1.0,
                1 => 2.0,
                2 => 4.0,
                3 => 8.0,
                _ => 12.0,
            } * 2.0; // two spots
            assert!(
                (row.average_bet - want).abs() < 1e-9,
                "TC {}: {}",
                row.tc,
                row.average_bet
            );
        }
    }
    let placed: u64 = c
        .by_true_count
        .iter()
        .filter(|row| row.tc >= 2)
        .map(|row| row.played)
        .sum();
    assert_eq!(one.side_bets[0].summary.rounds, placed);
    assert!(one.main.exact_house_edge.is_none());
    let risk = c.risk.as_ref().unwrap();
    assert!(risk.trips > 0);
    assert!(risk.formula.is_some());
}

#[test]
fn shards_merge_into_the_unsharded_report_byte_for_byte() {
    let rules = preset("blazing-7s");
    let opts = SimOptions {
        rounds: 4 * CHUNK_ROUNDS + 321,
        seed: Some(21),
        threads: 2,
        counting: Some(full_counter()),
        ..SimOptions::default()
    };
    let whole = figures(simulate(&rules, &opts).unwrap());
    let sim = Simulator::new(&rules, &opts).unwrap();
    // Three shards, written and read back as JSON, merged in any order.
    let mut files: Vec<_> = (0..3)
        .map(|i| {
            let f = sim.run_shard(i, 3).unwrap();
            let text = serde_json::to_string(&f).unwrap();
            serde_json::from_str::<felt_sim::ShardFile>(&text).unwrap()
        })
        .collect();
    files.reverse();
    let merged = figures(merge_shards(&files).unwrap());
    assert_eq!(
        serde_json::to_string_pretty(&whole).unwrap(),
        serde_json::to_string_pretty(&merged).unwrap()
    );
    // Without a count, too; more shards than chunks leaves some empty.
    let plain = SimOptions {
        rounds: 2 * CHUNK_ROUNDS + 5,
        counting: None,
        ..opts.clone()
    };
    let whole = figures(simulate(&rules, &plain).unwrap());
    let sim = Simulator::new(&rules, &plain).unwrap();
    let files: Vec<_> = (0..5).map(|i| sim.run_shard(i, 5).unwrap()).collect();
    let merged = figures(merge_shards(&files).unwrap());
    assert_eq!(
        serde_json::to_string(&whole).unwrap(),
        serde_json::to_string(&merged).unwrap()
    );
    // Refused: a missing shard, a shard twice, a shard of another run.
    assert!(merge_shards(&files[..4]).is_err());
    let mut twice = files.clone();
    twice[4] = files[3].clone();
    assert!(merge_shards(&twice).is_err());
    let other = Simulator::new(
        &rules,
        &SimOptions {
            seed: Some(22),
            ..plain
        },
    )
    .unwrap()
    .run_shard(4, 5)
    .unwrap();
    let mut mixed = files.clone();
    mixed[4] = other;
    assert!(merge_shards(&mixed).is_err());
    assert!(merge_shards(&[]).is_err());
    // A shard whose sums were tampered with (a round more) is refused.
    let mut short = files.clone();
    short[4].sums.main.rounds += 1;
    assert!(merge_shards(&short).is_err());
    assert!(sim.run_shard(5, 5).is_err());
}

#[test]
fn simulated_risk_of_ruin_agrees_with_the_formula() {
    // A flat bet at a CSM game: a random walk of independent rounds, the formula's
    // setting. A trip of 2,000 rounds with 25 units.
    let mut o = hi_lo();
    o.risk = Some(RiskOptions {
        bankroll: 25.0,
        goal: None,
        hands: Some(2_000),
    });
    let r = simulate(
        &preset("classic"),
        &SimOptions {
            rounds: 3_000_000,
            seed: Some(8),
            threads: 2,
            csm: true,
            main_only: true,
            counting: Some(o),
            ..SimOptions::default()
        },
    )
    .unwrap();
    let k = counting(&r).risk.clone().unwrap();
    let sim = k.simulated_ror.unwrap();
    let formula = k.formula.unwrap().ror_trip.unwrap();
    eprintln!("trips {} simulated {:?} formula {formula}", k.trips, sim);
    assert!(k.trips >= 1_400);
    // The diffusion ignores the overshoot of the last losing round (a few percent of
    // a bankroll of 25 units), hence the allowance beside the 4 SE.
    assert!(
        (sim.value - formula).abs() < 4.0 * sim.se + 0.02,
        "simulated {sim:?} formula {formula}"
    );
}

#[test]
fn an_unbalanced_count_bets_by_the_running_count() {
    let mut o = CountingOptions::watch(&felt_math::count::preset("ko").unwrap().unwrap());
    o.ramp = parse_ramp("-20:1,0:2").unwrap();
    let r = simulate(
        &preset("classic"),
        &SimOptions {
            rounds: 200_000,
            seed: Some(4),
            threads: 2,
            main_only: true,
            counting: Some(o),
            ..SimOptions::default()
        },
    )
    .unwrap();
    let c = counting(&r);
    assert!(!c.balanced);
    assert_eq!(c.irc, Some(-20.0)); // 4 - 4 x 6 decks
    let total: f64 = c.by_true_count.iter().map(|row| row.frequency).sum();
    assert!((total - 1.0).abs() < 1e-12);
    // The first round of each shoe is bet at the initial running count.
    assert!(c.by_true_count.iter().any(|row| row.tc <= -20));
    for row in c.by_true_count.iter().filter(|row| row.played > 0) {
        let want = if row.tc >= 0 { 2.0 } else { 1.0 };
        assert!((row.average_bet - want).abs() < 1e-9, "RC {}", row.tc);
    }
}

fn ctx<'a>(cards: &'a [Card], up: Card, phase: Phase, decisions: Decisions) -> DecisionContext<'a> {
    let h = felt_core::Hand::from_cards(cards);
    DecisionContext {
        at: Place {
            seat: 0,
            spot: 0,
            hand: 0,
        },
        phase,
        cards,
        total: h.total(),
        soft: h.is_soft(),
        up,
        stake: Money(100),
        hands: 1,
        split: false,
        legal: Legal {
            turn: Turn::Seat {
                seat: 0,
                spot: 0,
                hand: 0,
            },
            decisions,
            double: None,
            insurance: Some(felt_core::round::AmountRange {
                min: Money(1),
                max: Money(50),
                step: Money(1),
                full: Money(50),
            }),
        },
    }
}

#[test]
fn index_plays_override_the_strategy_on_both_sides_of_the_index() {
    let rules = preset("blackjack-bonus");
    let mapped = main_game_rules(&rules, 6);
    let a = analyse(&mapped.main).unwrap();
    let table = StrategyTable::basic(&a.basic_strategy, &mapped.main);
    let ix = IndexTable::compile(&indices::parse(I18, "i18").unwrap()).unwrap();
    let c = |r: Rank| Card::new(r, Suit::Spades);
    let play = Decisions(Decisions::HIT.0 | Decisions::STAND.0 | Decisions::DOUBLE.0);
    let ten = c(Rank::King);
    // 16 v T: stand at 0 and above, hit below (basic hits).
    let h16 = [c(Rank::Ten), c(Rank::Six)];
    let x = ctx(&h16, ten, Phase::PlayerTurns, play);
    assert_eq!(table.decide(&x), Decision::Hit);
    assert_eq!(table.decide_indexed(&x, &ix, || 0), Decision::Stand);
    assert_eq!(table.decide_indexed(&x, &ix, || -1), Decision::Hit);
    // Any 16, three cards too.
    let h16b = [c(Rank::Ten), c(Rank::Two), c(Rank::Four)];
    let x = ctx(
        &h16b,
        ten,
        Phase::PlayerTurns,
        Decisions(Decisions::HIT.0 | Decisions::STAND.0),
    );
    assert_eq!(table.decide_indexed(&x, &ix, || 2), Decision::Stand);
    // 10 v T: double at +4; below, basic (hit); a three-card 10 cannot double.
    let h10 = [c(Rank::Six), c(Rank::Four)];
    let x = ctx(&h10, ten, Phase::PlayerTurns, play);
    assert!(matches!(
        table.decide_indexed(&x, &ix, || 4),
        Decision::Double(_)
    ));
    assert_eq!(table.decide_indexed(&x, &ix, || 3), Decision::Hit);
    // TT v 6: split at +4, else stand.
    let tt = [c(Rank::Ten), c(Rank::Queen)];
    let pair = Decisions(play.0 | Decisions::SPLIT.0);
    let x = ctx(&tt, c(Rank::Six), Phase::PlayerTurns, pair);
    assert_eq!(table.decide_indexed(&x, &ix, || 4), Decision::Split);
    assert_eq!(table.decide_indexed(&x, &ix, || 3), Decision::Stand);
    // A cell without an index plays basic strategy and never asks for the count.
    let h12 = [c(Rank::Ten), c(Rank::Two)];
    let x = ctx(&h12, c(Rank::Two), Phase::PlayerTurns, play);
    assert_eq!(
        table.decide_indexed(&x, &ix, || panic!("asked")),
        table.decide(&x)
    );
    // Insurance at +3 and above; even money on a natural.
    let ins = Decisions(Decisions::INSURE.0 | Decisions::DECLINE.0);
    let x = ctx(&h16, c(Rank::Ace), Phase::Insurance, ins);
    assert_eq!(
        table.decide_indexed(&x, &ix, || 3),
        Decision::Insure(Money(50))
    );
    assert_eq!(table.decide_indexed(&x, &ix, || 2), Decision::Decline);
    let bj = [c(Rank::Ace), c(Rank::King)];
    let em = Decisions(Decisions::EVEN_MONEY.0 | Decisions::DECLINE.0);
    let x = ctx(&bj, c(Rank::Ace), Phase::Insurance, em);
    assert_eq!(table.decide_indexed(&x, &ix, || 5), Decision::EvenMoney);
}

#[test]
fn a_sevens_count_beats_bonus_sevens_and_hi_lo_does_not() {
    use felt_math::count::CountSystem;
    use felt_sim::vulnerability::{vulnerability, VulnerabilityOptions};
    let sevens = CountSystem {
        name: "sevens".into(),
        tags: [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, -1.0, 0.0, 0.0, 0.0],
        balanced: false,
        side_count: None,
    };
    let hl = felt_math::count::preset("hi-lo").unwrap().unwrap();
    let opts = VulnerabilityOptions {
        rounds: 1_500_000,
        seed: 2,
        threads: 2,
        decks: None,
    };
    // Blackjack Bonus: the poker bonus with Hi-Lo as its "best", Bonus 7's with sevens.
    let r = vulnerability(
        &preset("blackjack-bonus"),
        &[hl.clone(), sevens.clone()],
        &hl,
        &opts,
    )
    .unwrap();
    let b7 = r.bets.iter().find(|b| b.id == "bonus-7s").unwrap();
    let (best, hilo) = (&b7.counts[0], &b7.counts[1]);
    assert!(best.count.contains("balanced"), "{}", best.count);
    // Counting sevens turns the bet near +1 (a seven more per deck left: 25% more sevens).
    let at = best.turns_positive_at.unwrap();
    assert!((0.0..3.0).contains(&at), "{at}");
    assert!(
        best.frequency > 0.005 && best.frequency < 0.5,
        "{}",
        best.frequency
    );
    let adv = best.average_advantage.unwrap();
    assert!(adv.value > 3.0 * adv.se, "{adv:?}");
    assert!(best.win_per_100.unwrap().value > 0.0);
    // Hi-Lo does not see sevens: no positive count within reach.
    assert!(
        hilo.turns_positive_at.is_none_or(|x| x > 10.0),
        "{:?}",
        hilo.turns_positive_at
    );
    // Every true count's frequencies sum to one.
    let total: f64 = best.by_true_count.iter().map(|x| x.frequency).sum();
    assert!((total - 1.0).abs() < 1e-12);
    // Blazing 7s: the break-even meter falls as the sevens count rises.
    let r = vulnerability(&preset("blazing-7s"), &[sevens], &hl, &opts).unwrap();
    let m = &r.bets[0].counts[0].meter;
    let at = |tc: i32| m.iter().find(|x| x.tc == tc).unwrap().meter_units;
    assert!(at(-2) > at(-1) && at(-1) > at(0), "{m:?}");
}
