//! The exact commands' shoe and post-split options end to end: `--shoe` on `felt
//! edge`, `felt strategy` and `felt eor`, `--post-split cdz|cdp1|cdp`, and `felt
//! split` with its typed refusals.

mod common;

use serde_json::Value;

fn felt(args: &[&str]) -> (bool, String, String) {
    let o = common::run(args, common::NO_DB, "");
    (o.status.success(), common::stdout(&o), common::stderr(&o))
}

fn json(args: &[&str]) -> Value {
    let (ok, out, err) = felt(args);
    assert!(ok, "{args:?}: {err}");
    serde_json::from_str(&out).unwrap()
}

const ONE_DECK: &str = "4,4,4,4,4,4,4,4,4,16";

#[test]
fn a_shoe_of_one_full_deck_gives_the_one_deck_figures_in_edge_strategy_and_eor() {
    let shoe = json(&["edge", "classic", "--shoe", ONE_DECK, "--json"]);
    let decks = json(&["edge", "classic", "--decks", "1", "--json"]);
    assert_eq!(shoe["main"]["house_edge"], decks["main"]["house_edge"]);
    assert_eq!(
        shoe["main"]["house_edge_cd"],
        decks["main"]["house_edge_cd"]
    );
    assert_eq!(shoe["shoe"][9], 16);
    // side bets need suits: none from a shoe of values, and the sheet says so
    assert_eq!(shoe["side_bets"].as_array().unwrap().len(), 0);
    let notes = shoe["main"]["not_analysed"].to_string();
    assert!(notes.contains("give --decks for them"), "{notes}");

    let eor_shoe = json(&["eor", "classic", "--shoe", ONE_DECK, "--json"]);
    let eor_decks = json(&["eor", "classic", "--decks", "1", "--json"]);
    assert_eq!(eor_shoe["main"], eor_decks["main"]);
    // removing a five helps the player most, an ace hurts (every published EoR table)
    let five = eor_shoe["main"]["eor_percent"]["5"].as_f64().unwrap();
    assert!(five > 0.5 && eor_shoe["main"]["eor_percent"]["A"].as_f64().unwrap() < 0.0);

    let (ok, by_shoe, err) = felt(&["strategy", "classic", "--shoe", ONE_DECK]);
    assert!(ok, "{err}");
    let (_, by_decks, _) = felt(&["strategy", "classic", "--decks", "1"]);
    assert!(by_shoe
        .starts_with("Basic strategy for Classic Blackjack (the shoe A-T 4,4,4,4,4,4,4,4,4,16)"));
    let chart = |s: &str| s.lines().skip(1).collect::<Vec<_>>().join("\n");
    assert_eq!(chart(&by_shoe), chart(&by_decks));
}

#[test]
fn a_depleted_shoe_moves_the_edge_and_a_small_one_drops_the_splits_it_cannot_deal() {
    // Twenty tens gone from six decks: the player's edge falls by over a percent.
    let full = json(&["edge", "classic", "--decks", "6", "--json"]);
    let poor = json(&[
        "edge",
        "classic",
        "--shoe",
        "24,24,24,24,24,24,24,24,24,76",
        "--json",
    ]);
    let (f, p) = (
        full["main"]["house_edge"].as_f64().unwrap(),
        poor["main"]["house_edge"].as_f64().unwrap(),
    );
    assert!(p - f > 0.01, "full {f}, without twenty tens {p}");

    // Cards worth 85: one round is dealt to the end, a split could run out of cards.
    let (ok, out, err) = felt(&["edge", "classic", "--shoe", "1,1,1,1,1,1,1,1,1,4"]);
    assert!(ok, "{err}");
    assert!(
        out.contains("splits: none analysed, the shoe cannot deal two split hands to the end"),
        "{out}"
    );
    // Worth 130: three split hands (a round of three needs at most 119, of four 150).
    let small = json(&["edge", "classic", "--shoe", "2,2,2,2,2,2,2,2,2,4", "--json"]);
    let notes = small["main"]["not_analysed"].to_string();
    assert!(notes.contains("splits: to 3 hands at most"), "{notes}");
    let (ok, _, err) = felt(&["eor", "classic", "--shoe", "3,3,3,3,3,3,3,3,3,12"]);
    assert!(ok, "{err}");

    // Worth 56: a round itself could run out.
    for cmd in ["edge", "strategy", "eor"] {
        let (ok, _, err) = felt(&[cmd, "classic", "--shoe", "0,0,0,0,0,0,8,0,0,0"]);
        assert!(
            !ok && err.contains("the shoe's cards are worth") && err.contains("run out"),
            "{cmd}: {err}"
        );
    }
}

#[test]
fn post_split_models_are_named_and_ordered_in_text_and_json() {
    let mut edges = Vec::new();
    for (arg, name) in [("cdz", "CDZ-"), ("cdp1", "CDP1"), ("cdp", "CDP")] {
        let v = json(&[
            "edge",
            "classic",
            "--decks",
            "1",
            "--post-split",
            arg,
            "--json",
        ]);
        assert_eq!(v["main"]["post_split"], name);
        edges.push((
            v["main"]["house_edge"].as_f64().unwrap(),
            v["main"]["house_edge_cd"].as_f64().unwrap(),
        ));
        let (ok, out, err) = felt(&["edge", "classic", "--decks", "1", "--post-split", arg]);
        assert!(ok, "{err}");
        assert!(
            out.contains(&format!("per initial bet; {name}:")),
            "{arg}: {out}"
        );
    }
    // The basic-strategy edge does not depend on the model; the composition-dependent
    // one falls from CDZ- to CDP1 to CDP (classic, one deck: -0.1819%, -0.1831%,
    // -0.1831%), and the default is CDZ-.
    assert!(edges.iter().all(|e| e.0 == edges[0].0));
    assert!(
        edges[0].1 > edges[1].1 && edges[1].1 >= edges[2].1,
        "{edges:?}"
    );
    assert_eq!(format!("{:.4}", edges[0].1 * 100.0), "-0.1819");
    let default = json(&["edge", "classic", "--decks", "1", "--json"]);
    assert_eq!(
        default["main"]["house_edge_cd"].as_f64().unwrap(),
        edges[0].1
    );

    let (ok, out, err) = felt(&["strategy", "classic", "--decks", "1", "--post-split", "cdp"]);
    assert!(ok, "{err}");
    assert!(out.contains("(CDP after the split)"), "{out}");
}

#[test]
fn split_prints_the_optimal_value_beside_the_models_and_the_strategy_table() {
    let v = json(&["split", "A", "6", "--decks", "1", "--json"]);
    assert_eq!((v["pair"].as_u64(), v["up"].as_u64()), (Some(1), Some(6)));
    // aces the classic rules do not resplit: two hands
    assert_eq!(v["max_hands"], 2);
    let optimal = v["optimal"].as_f64().unwrap();
    // Split aces take one card each and are never resplit here: no decision is left,
    // so every model is the optimal split.
    for m in v["models"].as_array().unwrap() {
        assert!((m[1].as_f64().unwrap() - optimal).abs() < 1e-12, "{m}");
    }
    assert!(optimal > v["no_split"].as_f64().unwrap());
    // the states valued, by the number of cards dealt in them, add up
    let by_cards: u64 = v["states_by_cards"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| n.as_u64().unwrap())
        .sum();
    assert_eq!(Some(by_cards), v["states"].as_u64());
    // counted without valuing them, level by level: the same states
    let c = json(&[
        "split",
        "A",
        "6",
        "--decks",
        "1",
        "--count-states",
        "--json",
    ]);
    assert_eq!(c["states"], v["states"]);
    assert_eq!(c["states_by_cards"], v["states_by_cards"]);
    // the same figure as the CDP split table of `felt strategy` (A,A v 6: +0.758)
    assert_eq!(format!("{optimal:+.3}"), "+0.758");
    let (ok, out, _) = felt(&["strategy", "classic", "--decks", "1", "--post-split", "cdp"]);
    assert!(ok && out.contains("A,A      +0.566 +0.613 +0.669 +0.732 +0.758"));

    let (ok, out, err) = felt(&["split", "A", "T", "--shoe", ONE_DECK]);
    assert!(ok, "{err}");
    assert!(out.starts_with("SPLIT A,A v T  classic, shoe A-T 4,4,4,4,4,4,4,4,4,16"));
    assert!(out.contains("given the dealer has no blackjack"), "{out}");
    let line = |name: &str| -> f64 {
        let l = out
            .lines()
            .find(|l| l.trim_start().starts_with(name))
            .unwrap();
        l.split_whitespace().last().unwrap().parse().unwrap()
    };
    let opt = line("optimal");
    assert_eq!(opt, line("CDZ-"));
    assert!(
        opt > 0.19 && opt > line("best play without splitting") + 0.2,
        "{out}"
    );

    // --hands overrides the rules' hand limit; the keys waiting in a file and the
    // threads change no figure
    let two = |extra: &[&str]| {
        let mut args = vec!["split", "8", "T", "--decks", "1", "--hands", "2", "--json"];
        args.extend_from_slice(extra);
        json(&args)
    };
    let plain = two(&["--threads", "1"]);
    assert_eq!(plain["max_hands"], 2);
    assert_eq!(plain["keys_on_disk"], 0);
    // with no resplit CDP1 and CDP are one model, and the optimal split is at least it
    let models = plain["models"].as_array().unwrap();
    assert_eq!(models[1][1], models[2][1]);
    assert!(plain["optimal"].as_f64().unwrap() >= models[2][1].as_f64().unwrap() - 1e-12);
    let spilled = two(&["--threads", "2", "--keys-in-memory", "0"]);
    assert_eq!(spilled["keys_on_disk"], plain["states"]);
    assert_eq!(spilled["optimal"], plain["optimal"]);
    assert_eq!(spilled["states_by_cards"], plain["states_by_cards"]);
}

#[test]
fn split_refuses_bad_input_with_typed_sentences() {
    let cases: [(&[&str], &str); 8] = [
        (&["split", "8", "T", "--hands", "5"], "--hands 5: 2 to 4"),
        (
            &["split", "8", "T", "--threads", "0"],
            "--threads: give 1 to 1024",
        ),
        (&["split", "X", "6"], "`X`: a card is A, 2, ..., 9 or T"),
        (&["split", "8", "11"], "a card is A, 2, ..., 9 or T"),
        (
            &["split", "8", "T", "--shoe", "4,4,4"],
            "a shoe is ten counts",
        ),
        (
            &["split", "8", "T", "--shoe", "4,4,4,4,x,4,4,4,4,16"],
            "each count is a whole number of cards",
        ),
        (
            &["split", "8", "T", "--shoe", "0,0,0,0,0,0,0,4,0,8"],
            "an optimal split to 4 hands needs cards worth at least 150",
        ),
        (
            &["split", "8", "T", "--decks", "1", "--max-states", "1000"],
            "the optimal split of 8,8 against 10 to 4 hands passed 1000 states (the bound)",
        ),
    ];
    for (args, want) in cases {
        let (ok, _, err) = felt(args);
        assert!(!ok && err.contains(want), "{args:?}: {err}");
    }
}
