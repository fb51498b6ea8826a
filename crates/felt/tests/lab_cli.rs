//! The advantage lab end to end: `felt eor`, `felt count`, `felt risk`.

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
