//! Par sheets from rules files: every preset analyses, and rules files written like a
//! user would write them reproduce the published exact figures through the mapping.

use felt_core::{presets, Rules};
use felt_math::parsheet::par_sheet;

fn classic_with(changes: &[(&str, &str)]) -> Rules {
    let mut text = presets::PRESETS[0].1.to_string();
    for (from, to) in changes {
        assert!(text.contains(from), "{from}");
        text = text.replacen(from, to, 1);
    }
    Rules::from_toml(&text, "test.toml").unwrap()
}

#[test]
fn rules_file_6d_h17_das_rsp4_ls_gives_published_cd_edge() {
    let r = classic_with(&[
        ("soft_17 = \"stand\"", "soft_17 = \"hit\""),
        ("surrender = \"none\"", "surrender = \"late\""),
    ]);
    let s = par_sheet(&r, None, None).unwrap();
    assert_eq!(format!("{:.6}", s.main.ev_cd * 100.0), "-0.527192");
    assert!(s.main.house_edge >= s.main.house_edge_cd);
}

#[test]
fn rules_file_1d_s17_no_das_no_resplit_gives_published_cd_edge() {
    let r = classic_with(&[
        ("decks = 6 ", "decks = 1 "),
        ("double_after_split = true", "double_after_split = false"),
        ("max_split_hands = 4", "max_split_hands = 2"),
    ]);
    let s = par_sheet(&r, None, None).unwrap();
    assert_eq!(format!("{:.6}", s.main.ev_cd * 100.0), "0.024274");
}

#[test]
fn every_preset_has_a_par_sheet_for_every_deck_count() {
    for name in presets::names() {
        let r = presets::load(name).unwrap().unwrap();
        for decks in [1u8, 2, 6, 8] {
            let s = par_sheet(&r, Some(decks), None).unwrap();
            assert_eq!(s.decks, decks);
            assert!(
                s.main.house_edge > -0.01 && s.main.house_edge < 0.02,
                "{name} {decks}: {}",
                s.main.house_edge
            );
            assert!(s.main.house_edge + 1e-12 >= s.main.house_edge_cd, "{name}");
            let ids: Vec<_> = s.side_bets.iter().map(|b| b.id.as_str()).collect();
            let want: Vec<_> = r.side_bets().iter().map(|b| b.id.as_str()).collect();
            assert_eq!(ids, want);
            let json = serde_json::to_value(&s).unwrap();
            assert!(json["main"]["house_edge"].is_f64() && json["main"]["house_edge_cd"].is_f64());
            for b in json["side_bets"].as_array().unwrap() {
                assert!(b["id"].is_string() && b["house_edge"].is_f64());
                for o in b["outcomes"].as_array().unwrap() {
                    assert!(
                        o["name"].is_string() && o["count"].is_u64() && o["probability"].is_f64()
                    );
                }
            }
        }
        assert!(par_sheet(&r, Some(9), None).is_err());
    }
}

#[test]
fn blazing_7s_par_sheet_has_a_meter_curve_through_break_even() {
    let r = presets::load("blazing-7s").unwrap().unwrap();
    let s = par_sheet(&r, None, Some(2000.0)).unwrap();
    let (id, points) = &s.meter_curves[0];
    assert_eq!(id, "blazing-7s");
    assert!(points.first().unwrap().house_edge > 0.0);
    assert!(points.last().unwrap().house_edge < 0.0);
}
