//! `record_step_with`: a step computed under the books' write lock from the meters'
//! current amounts, written (or not) in the same transaction.

use crate::{c, Books};
use felt_core::Money;
use felt_store::{
    Account, Movement, MovementKind as K, NewRound, RoundStatus, Step, StepWrite, StoreError,
};

fn award_all(values: &[Money], to: &str) -> Step {
    Step {
        action: Some(r#"{"award":1}"#.into()),
        events: vec![format!(r#"{{"before":"{}"}}"#, values[0])],
        movements: vec![Movement::new(
            Account::meter("m"),
            Account::player(to),
            values[0],
            K::Award,
        )],
        wallet: Vec::new(),
    }
}

pub fn a_step_reads_the_meter_as_it_stands_and_writes_in_the_same_transaction(a: &mut Books) {
    let mut b = a.another();
    a.create_meter("m", c(1_000_00), &Account::house("h"))
        .unwrap();
    let new = |t: &str| NewRound {
        game_id: "g".into(),
        table_id: t.into(),
        seed: [1; 32],
        shoe: None,
        ..Default::default()
    };
    let ra = a.begin_round(&new("ta")).unwrap();
    let rb = b.begin_round(&new("tb")).unwrap();
    // Table b contributes through its own connection.
    b.record_step(
        rb,
        &Step {
            action: None,
            events: vec![],
            movements: vec![Movement::new(
                Account::house("h"),
                Account::meter("m"),
                c(5_00),
                K::Contribution,
            )],
            wallet: Vec::new(),
        },
    )
    .unwrap();
    // Table a's step sees 1005.00, not the 1000.00 it might have cached.
    let mut seen = Vec::new();
    let seq = a
        .record_step_with(ra, &["m"], &mut |v| {
            seen = v.to_vec();
            StepWrite::Step(award_all(v, "alice"))
        })
        .unwrap();
    assert_eq!(seq, Some(1));
    assert_eq!(seen, vec![c(1_005_00)]);
    assert_eq!(a.balance(&Account::meter("m")).unwrap(), Money::ZERO);
    assert_eq!(a.balance(&Account::player("alice")).unwrap(), c(1_005_00));
    // Nothing: rolled back, nothing written.
    let n = b
        .record_step_with(rb, &["m"], &mut |_| StepWrite::Nothing)
        .unwrap();
    assert_eq!(n, None);
    assert_eq!(b.round(rb).unwrap().unwrap().steps.len(), 1);
    // Finish: the last step, the result and the shoe, at once.
    b.record_step_with(rb, &[], &mut |_| StepWrite::Finish {
        last: Step::default(),
        result_json: "{}".into(),
        shoe_after: Some(b"shoe".to_vec()),
        ended: Default::default(),
        retire_shoe: false,
        counted_at_ms: None,
    })
    .unwrap();
    let r = b.round(rb).unwrap().unwrap();
    assert_eq!(r.status, RoundStatus::Finished);
    assert_eq!(b.shoe("tb").unwrap().as_deref(), Some(&b"shoe"[..]));
    // A closed round or an unknown meter: an error, and `compute` never runs.
    let mut ran = false;
    let e = b
        .record_step_with(rb, &[], &mut |_| {
            ran = true;
            StepWrite::Nothing
        })
        .unwrap_err();
    assert!(matches!(e, StoreError::RoundClosed { .. }), "{e}");
    let e = a
        .record_step_with(ra, &["nope"], &mut |_| {
            ran = true;
            StepWrite::Nothing
        })
        .unwrap_err();
    assert!(matches!(e, StoreError::UnknownMeter { .. }), "{e}");
    assert!(!ran);
    // A step the books refuse (the meter cannot pay) writes nothing at all.
    let e = a
        .record_step_with(ra, &["m"], &mut |_| {
            StepWrite::Step(award_all(&[c(1_00)], "alice"))
        })
        .unwrap_err();
    assert!(matches!(e, StoreError::InsufficientFunds { .. }), "{e}");
    assert_eq!(a.round(ra).unwrap().unwrap().steps.len(), 1);
    assert!(a.check_books().unwrap().is_sound());
}
