//! The advantage lab end to end: `felt eor`, `felt count`, `felt risk`, `felt indices`.

mod common;

fn felt(args: &[&str]) -> (bool, String, String) {
    let o = common::run(args, common::NO_DB, "");
    (o.status.success(), common::stdout(&o), common::stderr(&o))
}

fn json(args: &[&str]) -> serde_json::Value {
    let (ok, out, err) = felt(args);
    assert!(ok, "{args:?}: {err}");
    serde_json::from_str(&out).unwrap()
}

const VALUES: [&str; 10] = ["A", "2", "3", "4", "5", "6", "7", "8", "9", "T"];

#[test]
fn eor_json_has_the_issue_shape_and_per_card_values_where_suits_matter() {
    let v = json(&["eor", "lucky-ladies", "--decks", "2", "--json"]);
    assert_eq!(v["decks"], 2);
    let main = v["main"]["eor_percent"].as_object().unwrap();
    let mut keys: Vec<&str> = main.keys().map(String::as_str).collect();
    keys.sort_unstable();
    let mut want = VALUES;
    want.sort_unstable();
    assert_eq!(keys, want);
    // small cards help the player when they leave, aces and tens hurt
    assert!(main["5"].as_f64().unwrap() > 0.0 && main["T"].as_f64().unwrap() < 0.0);
    let ll = &v["side_bets"][0];
    assert_eq!(ll["id"], "lucky-ladies");
    assert!(ll["house_edge"].as_f64().unwrap() > 0.0);
    let cards = ll["eor_card_percent"].as_object().unwrap();
    assert_eq!(cards.len(), 52);
    // the queen of hearts is worth more to the bet than any other ten
    let qh = cards["Qh"].as_f64().unwrap();
    assert!(qh < cards["Qs"].as_f64().unwrap() && qh < cards["Kh"].as_f64().unwrap());
    // Lucky Lucky reads suits only as "suited": no per-card table
    let v = json(&["eor", "lucky-lucky", "--json"]);
    assert!(v["side_bets"][0].get("eor_card_percent").is_none());
}

#[test]
fn eor_refuses_bad_decks_and_meters_naming_them() {
    let (ok, _, err) = felt(&["eor", "classic", "--decks", "9"]);
    assert!(!ok && err.contains("9 decks"), "{err}");
    let (ok, _, err) = felt(&["eor", "blazing-7s", "--meter", "-1"]);
    assert!(!ok && err.contains("--meter"), "{err}");
    let (ok, out, _) = felt(&["eor", "lucky-7", "--decks", "1"]);
    assert!(
        ok && out.contains("lucky-7") && out.contains("insurance"),
        "{out}"
    );
}

#[test]
fn count_writes_each_wagers_best_count_as_a_count_file_felt_reads_back() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().to_str().unwrap();
    let v = json(&[
        "count",
        "lucky-lucky",
        "--decks",
        "2",
        "--write",
        d,
        "--json",
    ]);
    let wagers: Vec<&str> = v["wagers"]
        .as_array()
        .unwrap()
        .iter()
        .map(|w| w["wager"].as_str().unwrap())
        .collect();
    assert_eq!(wagers, ["main", "insurance", "lucky-lucky"]);
    let file = dir.path().join("lucky-lucky-lucky-lucky.toml");
    let f = file.to_str().unwrap();
    // the written file is a count felt reads, and it correlates as reported
    let again = json(&[
        "count",
        "lucky-lucky",
        "--decks",
        "2",
        "--with",
        f,
        "--with",
        "hi-lo",
        "--json",
    ]);
    let ll = &again["wagers"][2];
    let written = ll["correlations"][0]["bc"].as_f64().unwrap();
    assert!((written - v["wagers"][2]["best"]["bc"].as_f64().unwrap()).abs() < 1e-12);
    assert!(written > ll["correlations"][1]["bc"].as_f64().unwrap());
    // a broken count file is refused with its line and key
    std::fs::write(dir.path().join("bad.toml"), "name = \"b\"\n[tags]\nA = x\n").unwrap();
    let bad = dir.path().join("bad.toml");
    let (ok, _, err) = felt(&["count", "classic", "--with", bad.to_str().unwrap()]);
    assert!(!ok && err.contains("line 3"), "{err}");
    let (ok, _, err) = felt(&["count", "classic", "--with", "no-such-count"]);
    assert!(!ok && err.contains("no count `no-such-count`"), "{err}");
}

#[test]
fn risk_json_has_the_issue_shape_with_null_for_what_was_not_asked() {
    let v = json(&[
        "risk",
        "--win",
        "0.01",
        "--sd",
        "1.15",
        "--bankroll",
        "300",
        "--json",
    ]);
    for k in [
        "ror",
        "ror_trip",
        "ror_goal",
        "bankroll_for_ror",
        "n0",
        "di",
        "score",
    ] {
        assert!(v.get(k).is_some(), "{k}");
    }
    assert!(v["ror_trip"].is_null() && v["ror_goal"].is_null());
    let ror = v["ror"].as_f64().unwrap();
    assert!((ror - (-2.0 * 0.01 * 300.0 / (1.15f64 * 1.15)).exp()).abs() < 1e-12);
    let v = json(&[
        "risk",
        "--win",
        "0.01",
        "--sd",
        "1.15",
        "--bankroll",
        "300",
        "--hands",
        "1000",
        "--goal",
        "100",
        "--json",
    ]);
    assert!(v["ror_trip"].as_f64().unwrap() < ror && v["ror_goal"].as_f64().unwrap() < ror);
    let (ok, _, err) = felt(&["risk", "--win", "0.01", "--sd", "-1", "--bankroll", "3"]);
    assert!(!ok && err.contains("--sd"), "{err}");
}

#[test]
fn indices_json_has_the_issue_shape_the_illustrious_18_first() {
    let v = json(&[
        "indices", "classic", "--count", "hi-lo", "--decks", "6", "--json",
    ]);
    let list = v["indices"].as_array().unwrap();
    assert!(list.len() > 50, "{}", list.len());
    // classic has no surrender: no Fab 4, the Illustrious 18 open the list
    assert_eq!(list[0]["hand"], "insurance");
    assert!(list[0].get("up").is_none());
    let famous = list
        .iter()
        .take_while(|x| x["list"] == "Illustrious 18")
        .count();
    assert!(famous >= 17, "{famous}");
    let plays = ["hit", "stand", "double", "split", "surrender", "insure"];
    let (mut soft, mut pair) = (false, false);
    for x in list {
        let hand = x["hand"].as_str().unwrap();
        assert!(plays.contains(&x["play"].as_str().unwrap()), "{x}");
        assert!(x["index"].is_i64(), "{x}");
        assert_ne!(x["play"], "surrender");
        let b = hand.as_bytes();
        soft |= b.len() == 2 && b[0] == b'A' && b[1].is_ascii_digit();
        pair |= b.len() == 2 && b[0] == b[1];
        assert!(
            hand == "insurance" || hand.parse::<u8>().is_ok() || b.len() == 2,
            "{hand}"
        );
    }
    assert!(soft && pair);
    let sixteen = list
        .iter()
        .find(|x| x["hand"] == "16" && x["up"] == "T" && x["play"] == "stand")
        .unwrap();
    assert!(sixteen["index"].as_i64().unwrap().abs() <= 1, "{sixteen}");
}

#[test]
fn indices_written_with_out_are_played_by_the_simulator() {
    let dir = tempfile::tempdir().unwrap();
    let toml = dir.path().join("hi-lo.toml");
    let jsonf = dir.path().join("hi-lo.json");
    let v = json(&[
        "indices",
        "classic",
        "--count",
        "hi-lo",
        "--json",
        "--out",
        toml.to_str().unwrap(),
    ]);
    let n = v["indices"].as_array().unwrap().len();
    let (ok, _, err) = felt(&[
        "indices",
        "classic",
        "--count",
        "hi-lo",
        "--out",
        jsonf.to_str().unwrap(),
    ]);
    assert!(ok, "{err}");
    for file in [&toml, &jsonf] {
        let (ok, out, err) = felt(&[
            "sim",
            "classic",
            "--count",
            "hi-lo",
            "--indices",
            file.to_str().unwrap(),
            "--rounds",
            "20000",
            "--seed",
            "3",
            "--main-only",
        ]);
        assert!(ok, "{file:?}: {err}");
        assert!(out.contains(&format!("({n} plays)")), "{n}: {out}");
    }
}

#[test]
fn indices_refuse_bad_input_naming_it() {
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("bad-count.toml");
    std::fs::write(&bad, "name = \"x\"\n[tags]\nA = \"one\"\n").unwrap();
    let cases: [(&[&str], &str); 6] = [
        (&["--count", "ko"], "unbalanced"),
        (&["--count", "no-such-count"], "no count `no-such-count`"),
        (&["--count", bad.to_str().unwrap()], "bad-count.toml"),
        (&["--count", "hi-lo", "--decks", "0"], "0 decks"),
        (&["--count", "hi-lo", "--decks-left", "9"], "decks left"),
        (
            &["--count", "hi-lo", "--out", "/nonexistent-dir/x.toml"],
            "/nonexistent-dir/x.toml",
        ),
    ];
    for (args, want) in cases {
        let mut all = vec!["indices", "classic"];
        all.extend_from_slice(args);
        let (ok, _, err) = felt(&all);
        assert!(!ok && err.contains(want), "{args:?}: {err}");
        assert!(!err.contains("panicked"), "{err}");
    }
}

/// The SVG's polylines (each its points, in pixels) and its text, after checking the
/// file is well-formed XML with an `svg` root.
fn svg_parts(path: &std::path::Path) -> (Vec<Vec<(f64, f64)>>, String) {
    let text = std::fs::read_to_string(path).unwrap();
    let doc = roxmltree::Document::parse(&text).unwrap();
    assert_eq!(doc.root_element().tag_name().name(), "svg");
    let lines = doc
        .descendants()
        .filter(|n| n.has_tag_name("polyline"))
        .map(|n| {
            n.attribute("points")
                .unwrap()
                .split_whitespace()
                .map(|p| {
                    let (x, y) = p.split_once(',').unwrap();
                    (x.parse().unwrap(), y.parse().unwrap())
                })
                .collect()
        })
        .collect();
    let words = doc
        .descendants()
        .filter(|n| n.has_tag_name("text"))
        .filter_map(|n| n.text())
        .collect::<Vec<_>>()
        .join("|");
    (lines, words)
}

/// The polyline of exactly `n` points (legend marks have two).
fn series_of(lines: &[Vec<(f64, f64)>], n: usize) -> Vec<&Vec<(f64, f64)>> {
    lines.iter().filter(|l| l.len() == n).collect()
}

#[test]
fn sim_plot_draws_the_edge_and_frequency_of_every_true_count_row() {
    let dir = tempfile::tempdir().unwrap();
    let svg = dir.path().join("tc.svg");
    let v = json(&[
        "sim",
        "classic",
        "--count",
        "hi-lo",
        "--ramp",
        "1:1,2:4",
        "--rounds",
        "300000",
        "--seed",
        "5",
        "--json",
        "--plot",
        svg.to_str().unwrap(),
    ]);
    let rows = v["counting"]["by_true_count"].as_array().unwrap();
    let with_edge = rows
        .iter()
        .filter(|r| !r["main_advantage"].is_null())
        .count();
    let (lines, words) = svg_parts(&svg);
    assert!(
        words.contains("Main game edge by true count (Hi-Lo)"),
        "{words}"
    );
    assert!(words.contains("Frequency of each true count") && words.contains("% of rounds seen"));
    assert!(words.contains("95% interval"));
    assert!(!series_of(&lines, with_edge).is_empty(), "{with_edge}");
    // the frequency line peaks at the report's most frequent true count
    let freq: Vec<f64> = rows
        .iter()
        .map(|r| r["frequency"].as_f64().unwrap())
        .collect();
    let top = (0..freq.len())
        .max_by(|&a, &b| freq[a].total_cmp(&freq[b]))
        .unwrap();
    let line = series_of(&lines, rows.len()).into_iter().last().unwrap();
    let drawn_top = (0..line.len())
        .min_by(|&a, &b| line[a].1.total_cmp(&line[b].1))
        .unwrap();
    assert_eq!(drawn_top, top);
    // refused before a run: no count, an unwritable file
    let (ok, _, err) = felt(&["sim", "classic", "--plot", "x.svg"]);
    assert!(!ok && err.contains("--count"), "{err}");
    let (ok, _, err) = felt(&[
        "sim",
        "classic",
        "--count",
        "hi-lo",
        "--rounds",
        "1e9",
        "--plot",
        "/nonexistent-dir/p.svg",
    ]);
    assert!(!ok && err.contains("/nonexistent-dir/p.svg"), "{err}");
}

#[test]
fn count_report_plot_draws_the_break_even_meter_rows() {
    let dir = tempfile::tempdir().unwrap();
    let svg = dir.path().join("meter.svg");
    let v = json(&[
        "count",
        "blazing-7s",
        "--report",
        "--rounds",
        "200000",
        "--json",
        "--plot",
        svg.to_str().unwrap(),
    ]);
    let (lines, words) = svg_parts(&svg);
    assert!(words.contains("break-even meter by true count"), "{words}");
    let counts = v["bets"][0]["counts"].as_array().unwrap();
    let mut drawn = 0;
    for c in counts {
        let positive = c["meter"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|m| m["meter_units"].as_f64().unwrap() > 0.0)
            .count();
        if positive > 2 {
            assert!(!series_of(&lines, positive).is_empty(), "{positive}");
            drawn += 1;
        }
    }
    assert!(drawn >= 1);
}

#[test]
fn risk_plot_draws_ordered_quantiles_of_bankroll_walks() {
    let dir = tempfile::tempdir().unwrap();
    let svg = dir.path().join("walks.svg");
    let args = [
        "risk",
        "--win",
        "0.02",
        "--sd",
        "1.15",
        "--bankroll",
        "50",
        "--hands",
        "20000",
        "--json",
        "--plot",
        svg.to_str().unwrap(),
    ];
    let v = json(&args);
    let ror = v["ror_trip"].as_f64().unwrap();
    assert!(ror > 0.05 && ror < 0.25, "{ror}");
    let (lines, words) = svg_parts(&svg);
    assert!(
        words.contains("hands played") && words.contains("50% quantile"),
        "{words}"
    );
    // five quantiles, 1,000 steps each
    let q = series_of(&lines, 1001);
    assert_eq!(q.len(), 5);
    let end: Vec<f64> = q.iter().map(|l| l[1000].1).collect();
    // pixels grow downward: the 5% quantile lowest, then each above the last
    assert!(end.windows(2).all(|w| w[0] >= w[1]), "{end:?}");
    // with a 5% to 25% chance of ruin within the trip, the 5% quantile ends ruined
    // (at 0, the lowest point drawn) and the 25% quantile does not
    let bottom = q
        .iter()
        .copied()
        .flatten()
        .map(|p| p.1)
        .fold(f64::MIN, f64::max);
    assert_eq!(end[0], bottom);
    assert!(end[1] < bottom);
    let (ok, _, err) = felt(&[
        "risk",
        "--win",
        "0.02",
        "--sd",
        "1.15",
        "--bankroll",
        "50",
        "--plot",
        "/nonexistent-dir/w.svg",
    ]);
    assert!(!ok && err.contains("/nonexistent-dir/w.svg"), "{err}");
}
