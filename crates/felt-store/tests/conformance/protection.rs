//! The audit log, limit changes, usage and exclusions: append-only rows, listed as
//! written, the same on both engines.

use crate::Books;
use felt_store::{
    Account, AuditQuery, Exclusion, ExclusionKind, LimitChange, LimitKind, LimitPeriod, Movement,
    MovementKind, NewAuditEntry, NewRound, RealitySchedule, RoundId, Step, StepWrite, StoreError,
    UsageKind, UsageTotals,
};

fn entry<'a>(at_ms: i64, actor: &'a str, subject: &'a str) -> NewAuditEntry<'a> {
    NewAuditEntry {
        at_ms,
        actor,
        action: "close-table",
        subject,
        detail: "closed for the night",
    }
}

/// The newest `limit` entries of the whole log.
fn last(limit: usize) -> AuditQuery {
    AuditQuery {
        limit,
        ..Default::default()
    }
}

pub fn the_audit_log_lists_by_subject_and_time_and_refuses_bad_entries(s: &mut Books) {
    let first = s.append_audit(&entry(1_000, "op", "t1")).unwrap();
    let second = s.append_audit(&entry(2_000, "system", "t2")).unwrap();
    s.append_audit(&entry(3_000, "op", "t1")).unwrap();
    assert!(second > first);
    let all = s.audit_entries(&last(10)).unwrap();
    assert_eq!(
        all.iter().map(|e| e.at_ms).collect::<Vec<_>>(),
        [1_000, 2_000, 3_000]
    );
    assert_eq!(all[1].actor, "system");
    assert_eq!(all[0].detail, "closed for the night");
    let t1_since = s
        .audit_entries(&AuditQuery {
            subject: Some("t1".into()),
            since_ms: Some(1_500),
            limit: 10,
        })
        .unwrap();
    assert_eq!(t1_since.len(), 1);
    assert_eq!(
        (t1_since[0].at_ms, t1_since[0].subject.as_str()),
        (3_000, "t1")
    );
    let newest = s.audit_entries(&last(2)).unwrap();
    assert_eq!(
        newest.iter().map(|e| e.at_ms).collect::<Vec<_>>(),
        [2_000, 3_000]
    );
    let bad = s.append_audit(&entry(4_000, " ", "t1")).unwrap_err();
    assert!(matches!(bad, StoreError::InvalidInput(_)), "{bad}");
    let long = "x".repeat(200);
    assert!(s.append_audit(&entry(4_000, "op", &long)).is_err());
    assert_eq!(s.audit_entries(&last(10)).unwrap().len(), 3);
}

fn change(player: &str, amount: Option<i64>, requested_ms: i64, effective_ms: i64) -> LimitChange {
    LimitChange {
        seq: 0,
        player: player.into(),
        kind: LimitKind::Loss,
        period: LimitPeriod::Week,
        amount,
        requested_ms,
        effective_ms,
    }
}

pub fn limit_changes_are_kept_in_order_and_bad_ones_refused(s: &mut Books) {
    s.append_limit_change(&change("alice", Some(50_00), 10, 10))
        .unwrap();
    s.append_limit_change(&change("alice", None, 20, 86_400_020))
        .unwrap();
    s.append_limit_change(&change("bob", Some(1), 30, 30))
        .unwrap();
    let got = s.limit_changes("alice").unwrap();
    assert_eq!(got.len(), 2);
    assert_eq!(got[0].player, "alice");
    assert_eq!((got[0].amount, got[1].amount), (Some(50_00), None));
    assert_eq!(got[1].effective_ms, 86_400_020);
    assert_eq!(
        (got[1].kind, got[1].period),
        (LimitKind::Loss, LimitPeriod::Week)
    );
    for bad in [
        change("alice", Some(-1), 10, 10),
        change("alice", Some(1), 10, 9),
    ] {
        let e = s.append_limit_change(&bad).unwrap_err();
        assert!(matches!(e, StoreError::InvalidInput(_)), "{e}");
    }
    assert!(s.append_limit_change(&change("", Some(1), 10, 10)).is_err());
    assert_eq!(s.limit_changes("alice").unwrap().len(), 2);
    // A single-wager limit (period `bet`) is a wager limit's only.
    let single = LimitChange {
        kind: LimitKind::Wager,
        period: LimitPeriod::Bet,
        ..change("alice", Some(25_00), 40, 40)
    };
    s.append_limit_change(&single).unwrap();
    let e = s
        .append_limit_change(&LimitChange {
            kind: LimitKind::Session,
            ..single.clone()
        })
        .unwrap_err();
    assert!(matches!(e, StoreError::InvalidInput(_)), "{e}");
    let got = s.limit_changes("alice").unwrap();
    assert_eq!(
        got.iter().map(|c| c.period).collect::<Vec<_>>(),
        [LimitPeriod::Week, LimitPeriod::Week, LimitPeriod::Bet]
    );
}

pub fn usage_is_summed_from_a_time_on(s: &mut Books) {
    s.record_usage(
        "alice",
        1_000,
        &[(UsageKind::Stake, 10_00), (UsageKind::Return, 4_00)],
    )
    .unwrap();
    // A minute logged in, counted at 61 s (from 1 s on).
    s.record_usage(
        "alice",
        61_000,
        &[(UsageKind::Deposit, 500_00), (UsageKind::PlayMs, 60_000)],
    )
    .unwrap();
    s.record_usage("alice", 63_000, &[(UsageKind::Stake, 1_00)])
        .unwrap();
    s.record_usage("bob", 63_000, &[(UsageKind::Stake, 99_00)])
        .unwrap();
    assert_eq!(
        s.usage_since("alice", 0).unwrap(),
        UsageTotals {
            staked: 11_00,
            returned: 4_00,
            deposited: 500_00,
            play_ms: 60_000,
            play_counted_to_ms: Some(61_000),
        }
    );
    assert_eq!(s.usage_since("alice", 62_500).unwrap().staked, 1_00);
    // A period that began at 41 s, in the middle of that minute: its last 20 s count.
    assert_eq!(s.usage_since("alice", 41_000).unwrap().play_ms, 20_000);
    s.record_usage("alice", 90_000, &[(UsageKind::PlayMs, 5_000)])
        .unwrap();
    assert_eq!(s.usage_since("alice", 41_000).unwrap().play_ms, 25_000);
    assert_eq!(s.usage_since("carol", 0).unwrap(), UsageTotals::default());
    let e = s
        .record_usage(
            "alice",
            94_000,
            &[(UsageKind::Stake, 5), (UsageKind::Return, -1)],
        )
        .unwrap_err();
    assert!(matches!(e, StoreError::InvalidInput(_)), "{e}");
    assert_eq!(
        s.usage_since("alice", 93_500).unwrap(),
        UsageTotals::default()
    );
}

fn exclusion(kind: ExclusionKind, until_ms: Option<i64>, set_by: &str) -> Exclusion {
    Exclusion {
        seq: 0,
        player: "alice".into(),
        kind,
        start_ms: 1_000,
        until_ms,
        set_by: set_by.into(),
        reason: String::new(),
    }
}

pub fn exclusions_are_kept_with_who_set_them_and_never_end_before_they_start(s: &mut Books) {
    s.append_exclusion(&exclusion(ExclusionKind::Break, Some(2_000), "alice"))
        .unwrap();
    s.append_exclusion(&exclusion(ExclusionKind::Operator, None, "op"))
        .unwrap();
    let got = s.exclusions("alice").unwrap();
    assert_eq!(got.len(), 2);
    assert_eq!(
        (got[0].kind, got[0].until_ms),
        (ExclusionKind::Break, Some(2_000))
    );
    assert_eq!(
        (got[1].kind, got[1].set_by.as_str()),
        (ExclusionKind::Operator, "op")
    );
    assert!(got[1].holds_at(1_000_000_000) && !got[0].holds_at(2_000));
    for bad in [
        exclusion(ExclusionKind::SelfExcluded, Some(1_000), "alice"),
        exclusion(ExclusionKind::SelfExcluded, None, ""),
    ] {
        let e = s.append_exclusion(&bad).unwrap_err();
        assert!(matches!(e, StoreError::InvalidInput(_)), "{e}");
    }
    assert_eq!(s.exclusions("alice").unwrap().len(), 2);
}

pub fn a_reality_check_schedule_is_kept_one_a_player_and_replaced(s: &mut Books) {
    let at = |login_ms: i64, interval_mins: u32, anchor_ms: i64| RealitySchedule {
        player: "alice".to_string(),
        login_ms,
        first_round: RoundId(7),
        interval_mins,
        anchor_ms,
    };
    assert_eq!(s.reality_schedule("alice").unwrap(), None);
    s.put_reality_schedule(&at(1_000, 60, 1_000)).unwrap();
    s.put_reality_schedule(&RealitySchedule {
        player: "bob".to_string(),
        ..at(5, 15, 5)
    })
    .unwrap();
    s.put_reality_schedule(&at(1_000, 30, 9_000)).unwrap();
    assert_eq!(
        s.reality_schedule("alice").unwrap(),
        Some(at(1_000, 30, 9_000))
    );
    assert_eq!(
        s.reality_schedule("bob").unwrap().unwrap().interval_mins,
        15
    );
    assert!(s.put_reality_schedule(&at(1_000, 0, 9_000)).is_err());
    let other = s.another();
    assert_eq!(
        other.reality_schedule("alice").unwrap(),
        Some(at(1_000, 30, 9_000)),
        "another store on the books (another server) sees the same"
    );
    s.reopen();
    assert_eq!(
        s.reality_schedule("alice").unwrap(),
        Some(at(1_000, 30, 9_000)),
        "kept in the books"
    );
}

pub fn a_round_that_ends_counts_its_stakes_and_returns_in_the_same_transaction(s: &mut Books) {
    let c = felt_core::Money::cents;
    s.deposit("alice", c(100_00)).unwrap();
    let round = |s: &mut Books, t: &str| {
        s.begin_round(&NewRound {
            game_id: "g".into(),
            table_id: t.into(),
            seed: [1; 32],
            ..Default::default()
        })
        .unwrap()
    };
    let (alice, house) = (Account::player("alice"), Account::house("h"));
    let one = |from: &Account, to: &Account, amount, kind| Step {
        movements: vec![Movement::new(from.clone(), to.clone(), c(amount), kind)],
        ..Default::default()
    };
    let bet = |amount| one(&alice, &house, amount, MovementKind::Wager);
    let paid = |amount| one(&house, &alice, amount, MovementKind::Payout);
    let finish = |last: Step, result_json: &str, counted_at_ms| StepWrite::Finish {
        last,
        result_json: result_json.into(),
        shoe_after: None,
        ended: Default::default(),
        retire_shoe: false,
        counted_at_ms,
    };
    // Counted at the round's end: the stake of an earlier step and the last step's
    // return, at the time given.
    let r = round(s, "t1");
    s.record_step(r, &bet(10_00)).unwrap();
    s.record_step_with(r, &[], &mut |_| finish(paid(15_00), "{}", Some(7_000)))
        .unwrap();
    let want = UsageTotals {
        staked: 10_00,
        returned: 15_00,
        ..Default::default()
    };
    assert_eq!(s.usage_since("alice", 7_000).unwrap(), want);
    assert_eq!(
        s.usage_since("alice", 7_001).unwrap(),
        UsageTotals::default()
    );
    // Not asked: nothing counted.
    let r = round(s, "t2");
    s.record_step(r, &bet(3_00)).unwrap();
    s.record_step_with(r, &[], &mut |_| finish(Step::default(), "{}", None))
        .unwrap();
    assert_eq!(s.usage_since("alice", 0).unwrap(), want);
    // A finish the books refuse (its result is not JSON) counts nothing either.
    let r = round(s, "t3");
    s.record_step(r, &bet(2_00)).unwrap();
    let e = s
        .record_step_with(r, &[], &mut |_| {
            finish(Step::default(), "not json", Some(8_000))
        })
        .unwrap_err();
    assert!(matches!(e, StoreError::InvalidJson { .. }), "{e}");
    assert_eq!(s.usage_since("alice", 0).unwrap(), want);
}
