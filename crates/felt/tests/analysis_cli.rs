//! `felt edge` and `felt strategy` end to end.

mod common;

fn felt(args: &[&str]) -> (bool, String, String) {
    let o = common::run(args, common::NO_DB, "");
    (o.status.success(), common::stdout(&o), common::stderr(&o))
}

#[test]
fn edge_json_has_the_par_sheet_fields_and_ll_5_figure() {
    let (ok, out, err) = felt(&["edge", "lucky-lucky", "--json"]);
    assert!(ok, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["game"], "lucky-lucky");
    assert_eq!(v["decks"], 6);
    let he = v["main"]["house_edge"].as_f64().unwrap();
    let cd = v["main"]["house_edge_cd"].as_f64().unwrap();
    assert!(he >= cd && he > 0.0 && he < 0.01, "{he} {cd}");
    let ll = &v["side_bets"][0];
    assert_eq!(ll["id"], "lucky-lucky");
    assert_eq!(
        format!("{:.2}", ll["house_edge"].as_f64().unwrap() * 100.0),
        "2.66"
    );
    let first = &ll["outcomes"][0];
    assert!(first["name"].is_string() && first["count"].is_u64() && first["probability"].is_f64());
}

#[test]
fn edge_decks_and_meter_options_change_the_figures() {
    let (ok, out, _) = felt(&["edge", "lucky-lucky", "--decks", "1", "--json"]);
    assert!(ok);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(
        format!(
            "{:.2}",
            v["side_bets"][0]["house_edge"].as_f64().unwrap() * 100.0
        ),
        "2.61"
    );
    let (ok, out, _) = felt(&["edge", "blazing-7s", "--meter", "16059.3", "--json"]);
    assert!(ok);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert!(v["side_bets"][0]["house_edge"].as_f64().unwrap().abs() < 1e-5);
    let (ok, out, _) = felt(&["edge", "blazing-7s"]);
    assert!(ok);
    assert!(
        out.contains("break-even meter 16,059.31 units")
            && out.contains("edge = 37.1586% - 0.002314% x meter")
            && out.contains("METER CURVE"),
        "{out}"
    );
    let (ok, _, err) = felt(&["edge", "classic", "--decks", "9"]);
    assert!(!ok && err.contains("9 decks"), "{err}");
}

#[test]
fn strategy_prints_a_computed_chart_with_evs_on_request() {
    let (ok, out, _) = felt(&["strategy", "lucky-ladies", "--ev"]);
    assert!(ok);
    // Late surrender preset, H17, 6 decks: hard 16 against a ten surrenders.
    let row16 = out.lines().find(|l| l.starts_with("16 ")).unwrap();
    assert!(
        row16.split_whitespace().nth(9).unwrap().starts_with('R'),
        "{row16}"
    );
    assert!(
        out.contains("Expected values per unit") && out.contains("\nsurrender "),
        "{out}"
    );
}

#[test]
fn strategy_lists_the_post_split_differences() {
    let (ok, out, err) = felt(&["strategy", "lucky-ladies"]);
    assert!(ok, "{err}");
    let section = out
        .split("After a split, where the play differs from the chart:")
        .nth(1)
        .unwrap_or_else(|| panic!("no post-split section: {out}"));
    // aces split once, one card each; other pairs resplit to five hands
    let aces = section
        .split("  split aces take one card each and stand:\n")
        .nth(1)
        .unwrap_or_else(|| panic!("{section}"));
    assert!(aces.contains("    A,A         stand v 2-A\n"), "{section}");
    let resplit = section
        .split("  resplit up to 5 hands; a pair arriving at the 5-hand limit:\n")
        .nth(1)
        .unwrap_or_else(|| panic!("{section}"));
    let eights = resplit.lines().find(|l| l.starts_with("    8,8 ")).unwrap();
    assert!(eights.ends_with("surrender v 9,T"), "{eights}");
    // double and surrender are allowed after a split in this game
    assert!(!section.contains("no double after a split"), "{section}");
}
