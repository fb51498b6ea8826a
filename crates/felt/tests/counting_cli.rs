//! `felt sim` with a count, `--shard I/N` and `felt merge`, end to end.

mod common;

fn felt(args: &[&str]) -> (bool, String, String) {
    let o = common::run(args, common::NO_DB, "");
    (o.status.success(), common::stdout(&o), common::stderr(&o))
}

fn repo(path: &str) -> String {
    format!("{}/../../{path}", env!("CARGO_MANIFEST_DIR"))
}

/// The JSON report without the fields that time the run.
fn figures(json: &str) -> String {
    let mut v: serde_json::Value = serde_json::from_str(json).unwrap();
    let o = v.as_object_mut().unwrap();
    for k in [
        "threads",
        "setup_seconds",
        "elapsed_seconds",
        "rounds_per_second",
        "rounds_per_second_per_thread",
    ] {
        assert!(o.remove(k).is_some(), "{k}");
    }
    serde_json::to_string_pretty(&v).unwrap()
}

#[test]
fn sharded_run_merges_into_the_unsharded_report() {
    let dir = tempfile::tempdir().unwrap();
    let indices = repo("indices/illustrious-18-fab-4.toml");
    let run: Vec<&str> = vec![
        "sim",
        "blackjack-bonus",
        "--rounds",
        "200000",
        "--seed",
        "5",
        "--count",
        "hi-lo",
        "--ramp",
        "1:1,2:2,3:4,4:5",
        "--table-max",
        "20",
        "--indices",
        &indices,
        "--side-at",
        "3",
        "--bankroll",
        "100",
        "--hands",
        "2000",
    ];
    let mut whole = run.clone();
    whole.extend(["--json", "--threads", "2"]);
    let (ok, out, err) = felt(&whole);
    assert!(ok, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert!(v["counting"]["by_true_count"].as_array().unwrap().len() > 5);
    assert!(v["counting"]["di"]["se"].is_f64());
    assert_eq!(v["counting"]["index_plays"], 22);
    let mut files = Vec::new();
    for i in 1..=3 {
        let path = dir.path().join(format!("shard-{i}.json"));
        let shard = format!("{i}/3");
        let p = path.to_str().unwrap().to_string();
        let mut args = run.clone();
        args.extend(["--shard", &shard, "--out", &p, "--threads", "1"]);
        let (ok, _, err) = felt(&args);
        assert!(ok, "{err}");
        files.push(p);
    }
    let mut merge = vec!["merge", "--json"];
    merge.extend(files.iter().map(String::as_str).rev());
    let (ok, merged, err) = felt(&merge);
    assert!(ok, "{err}");
    assert_eq!(figures(&out), figures(&merged));
    // The text report too, once the timing line is set aside.
    let (ok, text, _) = felt(&["merge", &files[0], &files[1], &files[2]]);
    assert!(ok);
    assert!(
        text.contains("Counting: Hi-Lo") && text.contains("SCORE"),
        "{text}"
    );
    // A shard missing is refused, naming it.
    let (ok, _, err) = felt(&["merge", &files[0], &files[2]]);
    assert!(!ok);
    assert!(err.contains("2/3"), "{err}");
}

#[test]
fn counting_options_are_checked() {
    let (ok, _, err) = felt(&["sim", "classic", "--rounds", "10", "--ramp", "1:2"]);
    assert!(!ok && err.contains("--ramp needs a count"), "{err}");
    let (ok, _, err) = felt(&[
        "sim", "classic", "--rounds", "10", "--count", "hi-lo", "--ramp", "2:1,1:2",
    ]);
    assert!(!ok && err.contains("rise"), "{err}");
    let (ok, _, err) = felt(&["sim", "classic", "--rounds", "10", "--count", "nope"]);
    assert!(!ok && err.contains("no count `nope`"), "{err}");
    let (ok, _, err) = felt(&["sim", "classic", "--rounds", "10", "--shard", "1/2"]);
    assert!(!ok && err.contains("--shard needs --seed"), "{err}");
    let (ok, _, err) = felt(&[
        "sim", "classic", "--rounds", "10", "--seed", "1", "--shard", "3/2",
    ]);
    assert!(!ok && err.contains("I/N"), "{err}");
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("bad.toml");
    std::fs::write(
        &bad,
        "[[index]]\nhand = \"16\"\nup = \"T\"\nplay = \"stnad\"\nindex = 0\n",
    )
    .unwrap();
    let (ok, _, err) = felt(&[
        "sim",
        "classic",
        "--rounds",
        "10",
        "--count",
        "hi-lo",
        "--indices",
        bad.to_str().unwrap(),
    ]);
    assert!(
        !ok && err.contains("line 4") && err.contains("index[0].play"),
        "{err}"
    );
    let (ok, _, err) = felt(&["merge", bad.to_str().unwrap()]);
    assert!(!ok && err.contains("not a shard file"), "{err}");
    let (ok, _, err) = felt(&[
        "sim",
        "classic",
        "--rounds",
        "10",
        "--count",
        "hi-lo",
        "--bankroll",
        "10",
        "--hands",
        "100000",
    ]);
    assert!(!ok && err.contains("--hands"), "{err}");
}

#[test]
fn count_report_is_an_operators_vulnerability_report() {
    let (ok, out, err) = felt(&[
        "count",
        "blackjack-bonus",
        "--report",
        "--rounds",
        "300000",
        "--json",
    ]);
    assert!(ok, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let bets = v["bets"].as_array().unwrap();
    assert_eq!(bets.len(), 2);
    for b in bets {
        let counts = b["counts"].as_array().unwrap();
        assert_eq!(counts.len(), 2, "best count and Hi-Lo");
        assert!(counts[0]["count"].as_str().unwrap().starts_with("best ["));
        assert_eq!(counts[1]["count"], "Hi-Lo");
        assert!(counts[0]["frequency"].is_f64());
    }
    let (ok, text, _) = felt(&["count", "blackjack-bonus", "--report", "--rounds", "200000"]);
    assert!(ok);
    assert!(
        text.contains("SIDE BET VULNERABILITY") && text.contains("Bonus 7's"),
        "{text}"
    );
    let (ok, _, err) = felt(&["count", "blackjack-bonus", "--rounds", "200000"]);
    assert!(!ok && err.contains("--report"), "{err}");
}
