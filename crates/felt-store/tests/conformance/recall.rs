//! Recall: shoes and their commitments, rules, a player's rounds; and outputs that are
//! the same texts and bytes whatever holds the books.

use crate::{assert_sound, c, new_round, step, wager, Books};
use felt_store::{
    seed_hash, sha256_hex, Account, Ended, MovementKind, NewShoe, RoundShoe, RoundStatus, Step,
    StepWrite, StoreError,
};

pub fn shoes_commitments_rules_and_player_rounds(s: &mut Books) {
    s.deposit("ann", c(100_00)).unwrap();
    s.deposit("bob", c(100_00)).unwrap();
    let rules = "[rules]\ndecks = 6\n".to_string();
    let mut first = new_round("t1", 1);
    first.shoe_seed = RoundShoe::New(NewShoe {
        seed: [9; 32],
        lab: Some("--seed 9".into()),
    });
    first.rules = Some(rules.clone());
    first.lab = Some("--seed 9".into());
    let r1 = s.begin_round(&first).unwrap();
    let shoe = s.table_shoe_seed("t1").unwrap();
    assert!(
        shoe.is_none(),
        "the table's shoe is set when a round leaves it"
    );
    let shoe = s.shoe_seeds().unwrap().pop().unwrap();
    assert_eq!(shoe.commitment, seed_hash(&[9; 32]));
    assert!(shoe.revealed().is_none() && shoe.commitment_holds());
    assert_eq!(shoe.lab.as_deref(), Some("--seed 9"));
    s.record_step(r1, &step(Some("{}"), &[], vec![wager("ann", "t1", 1_00)]))
        .unwrap();
    s.finish_round(r1, &Step::default(), "{}", Some(b"after 1"))
        .unwrap();
    assert_eq!(s.table_shoe_seed("t1").unwrap().unwrap().id, shoe.id);
    // The next round deals from the same shoe, and the game retires it at its end.
    let mut second = new_round("t1", 2);
    second.shoe_seed = RoundShoe::Current(shoe.id);
    second.shoe_round = 1;
    second.rules = Some(rules.clone());
    let r2 = s.begin_round(&second).unwrap();
    s.record_step(r2, &step(Some("{}"), &[], vec![wager("bob", "t1", 2_00)]))
        .unwrap();
    s.record_step_with(r2, &[], &mut |_| StepWrite::Finish {
        last: Step::default(),
        result_json: "{}".into(),
        shoe_after: Some(b"after 2".to_vec()),
        ended: Ended::Finished,
        retire_shoe: true,
        counted_at_ms: None,
    })
    .unwrap();
    let retired = s.table_shoe_seed("t1").unwrap().unwrap();
    assert_eq!(retired.revealed(), Some([9; 32]));
    // A retired shoe, or another table's, deals no more.
    let mut third = new_round("t1", 3);
    third.shoe_seed = RoundShoe::Current(shoe.id);
    let e = s.begin_round(&third).unwrap_err();
    assert!(matches!(e, StoreError::ShoeRetired { .. }), "{e}");
    third.table_id = "t2".into();
    let e = s.begin_round(&third).unwrap_err();
    assert!(matches!(e, StoreError::ShoeRetired { .. }), "{e}");
    assert_eq!(s.shoe_rounds(shoe.id).unwrap(), 2);
    assert_eq!(s.shoe_rounds(999).unwrap(), 0);
    let of_shoe = s.rounds_of_shoe(shoe.id).unwrap();
    assert_eq!(
        of_shoe
            .iter()
            .map(|r| (r.id, r.shoe_round))
            .collect::<Vec<_>>(),
        vec![(r1, Some(0)), (r2, Some(1))]
    );
    let sha = sha256_hex(rules.as_bytes());
    assert_eq!(of_shoe[0].rules_sha256.as_deref(), Some(sha.as_str()));
    assert_eq!(of_shoe[0].lab.as_deref(), Some("--seed 9"));
    assert_eq!(of_shoe[1].lab, None);
    assert_eq!(s.rules_text(&sha).unwrap(), Some(rules));
    assert_eq!(s.rules_text(&"0".repeat(64)).unwrap(), None);
    // A new shoe at the table; a void retires the shoe it dealt from.
    let mut fourth = new_round("t1", 4);
    fourth.shoe_seed = RoundShoe::New(NewShoe {
        seed: [4; 32],
        lab: None,
    });
    let r4 = s.begin_round(&fourth).unwrap();
    s.record_step(r4, &step(None, &[], vec![wager("ann", "t1", 3_00)]))
        .unwrap();
    let rec = s.round(r4).unwrap().unwrap();
    s.void_round(r4, "the dealer dropped the shoe", &rec.reversal())
        .unwrap();
    let seeds = s.shoe_seeds().unwrap();
    assert_eq!(seeds.len(), 2);
    assert!(seeds.iter().all(|s| s.is_retired()));
    // A player's rounds, newest first, paged.
    assert_eq!(
        s.player_rounds("ann", 10, None)
            .unwrap()
            .iter()
            .map(|r| r.id)
            .collect::<Vec<_>>(),
        vec![r4, r1]
    );
    assert_eq!(
        s.player_rounds(" ann", 1, Some(r4))
            .unwrap()
            .iter()
            .map(|r| r.id)
            .collect::<Vec<_>>(),
        vec![r1]
    );
    assert_eq!(s.player_rounds("bob", 10, None).unwrap()[0].id, r2);
    assert!(s.player_rounds("carol", 10, None).unwrap().is_empty());
    assert_eq!(s.round(r4).unwrap().unwrap().status, RoundStatus::Voided);
    assert_sound(s);
}

/// `YYYY-MM-DDTHH:MM:SS.sssZ`.
fn is_time(t: &str) -> bool {
    let b = t.as_bytes();
    b.len() == 24
        && b.iter().enumerate().all(|(i, ch)| match i {
            4 | 7 => *ch == b'-',
            10 => *ch == b'T',
            13 | 16 => *ch == b':',
            19 => *ch == b'.',
            23 => *ch == b'Z',
            _ => ch.is_ascii_digit(),
        })
}

pub fn outputs_are_the_same_texts_on_both_engines(s: &mut Books) {
    let event = r#"{"a" : 1,  "é":"\u00e9", "n": [1.50, 2e3]}"#;
    let result = "{ \"net\" : \"1.00\" }";
    s.deposit("ann", c(10_00)).unwrap();
    let mut round = new_round("t", 1);
    round.shoe = Some(vec![0, 255, 1, 0]);
    let r = s.begin_round(&round).unwrap();
    s.record_step(
        r,
        &step(Some("\"stand\""), &[event], vec![wager("ann", "t", 1_00)]),
    )
    .unwrap();
    s.finish_round(r, &Step::default(), result, Some(&[7, 0, 7]))
        .unwrap();
    let rec = s.round(r).unwrap().unwrap();
    assert_eq!(rec.events[0].json, event, "JSON is kept byte for byte");
    assert_eq!(rec.result.as_deref(), Some(result));
    assert_eq!(rec.actions(), vec!["\"stand\""]);
    assert_eq!(rec.shoe_before, Some(vec![0, 255, 1, 0]));
    assert_eq!(rec.shoe_after, Some(vec![7, 0, 7]));
    assert_eq!(s.shoe("t").unwrap(), Some(vec![7, 0, 7]));
    for t in [
        rec.started_at.as_str(),
        rec.ended_at.as_deref().unwrap_or(""),
        rec.steps[0].at.as_str(),
        rec.movements[0].at.as_str(),
    ] {
        assert!(is_time(t), "`{t}` is not YYYY-MM-DDTHH:MM:SS.sssZ");
    }
    assert!(rec.started_at <= rec.ended_at.clone().unwrap_or_default());
    // Names are ordered by their bytes, as SQLite orders them, whatever the collation.
    for name in ["ä", "a", "B", "b b", "b"] {
        s.deposit(name, c(1)).unwrap();
    }
    let players: Vec<String> = s
        .balances()
        .unwrap()
        .into_iter()
        .filter_map(|b| match b.account {
            Account::Player(n) => Some(n),
            _ => None,
        })
        .collect();
    assert_eq!(players, ["B", "a", "ann", "b", "b b", "ä"]);
    for m in ["zed", "Zed", "émile"] {
        s.create_meter(m, c(1_00), &Account::house("ops")).unwrap();
    }
    let meters: Vec<String> = s.meters().unwrap().into_iter().map(|m| m.id).collect();
    assert_eq!(meters, ["Zed", "zed", "émile"]);
    let kinds: Vec<&str> = s
        .balances()
        .unwrap()
        .iter()
        .map(|b| b.account.kind_str())
        .collect();
    let mut sorted = kinds.clone();
    sorted.sort_unstable();
    assert_eq!(kinds, sorted, "accounts by kind, then name");
    let m = s.meter("zed").unwrap().unwrap();
    assert_eq!(m.seeded, c(1_00));
    let rec = s.round(r).unwrap().unwrap();
    assert_eq!(rec.movements[0].movement.kind, MovementKind::Wager);
    assert_sound(s);
}
