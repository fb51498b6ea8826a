//! Table leases and fencing: which server deals which table.

use crate::{assert_sound, c, new_round, payout, step, wager, Books};
use felt_store::{
    Account, SeatedPlayer, Step, StepWrite, Store, StoreError, TableLease, TableStatus,
};

fn tables(leases: &[TableLease]) -> Vec<(&str, &str, i64, bool)> {
    leases
        .iter()
        .map(|l| (l.table.as_str(), l.server.as_str(), l.epoch, l.live))
        .collect()
}

pub fn a_lease_is_claimed_renewed_released_and_taken_over(s: &mut Books) {
    let mut b = s.another();
    assert!(s.table_leases().unwrap().is_empty());
    let held = s
        .claim_tables("srv-a", "http://a:8080", &["t2", "t1", "t1"], 60_000)
        .unwrap();
    assert_eq!(
        tables(&held),
        [("t1", "srv-a", 1, true), ("t2", "srv-a", 1, true)]
    );
    assert!(held.iter().all(|l| l.url == "http://a:8080"));
    // Live leases stay their holder's: another server gets only what is free.
    let got = b
        .claim_tables("srv-b", "http://b:8080", &["t1", "t3"], 60_000)
        .unwrap();
    assert_eq!(tables(&got), [("t3", "srv-b", 1, true)]);
    // A renewal keeps the epoch and moves the expiry on.
    let again = s
        .claim_tables("srv-a", "http://a:8080", &["t1"], 120_000)
        .unwrap();
    assert_eq!(tables(&again), [("t1", "srv-a", 1, true)]);
    assert!(again[0].expires_ms >= held[0].expires_ms + 50_000);
    // A release lets another server take the table at once: it changes hands.
    s.release_tables("srv-a", &["t1"]).unwrap();
    let t1 = s.table_leases().unwrap();
    assert_eq!(tables(&t1)[0], ("t1", "srv-a", 1, false));
    let got = b
        .claim_tables("srv-b", "http://b:8080", &["t1"], 60_000)
        .unwrap();
    assert_eq!(tables(&got), [("t1", "srv-b", 2, true)]);
    // A lease that ran out is taken too.
    s.claim_tables("srv-a", "http://a:8080", &["t9"], 1)
        .unwrap();
    std::thread::sleep(std::time::Duration::from_millis(30));
    let got = b
        .claim_tables("srv-b", "http://b:8080", &["t9"], 60_000)
        .unwrap();
    assert_eq!(tables(&got), [("t9", "srv-b", 2, true)]);
    // Releasing what another server holds changes nothing.
    s.release_tables("srv-a", &["t3", "t9"]).unwrap();
    assert_eq!(
        tables(&s.table_leases().unwrap()),
        [
            ("t1", "srv-b", 2, true),
            ("t2", "srv-a", 1, true),
            ("t3", "srv-b", 1, true),
            ("t9", "srv-b", 2, true),
        ]
    );
    // Nothing claimed, nothing held.
    assert!(s.claim_tables("srv-a", "x", &[], 1_000).unwrap().is_empty());
}

pub fn a_fenced_connection_writes_only_the_tables_it_holds(s: &mut Books) {
    let mut b = s.another();
    s.deposit("ann", c(100_00)).unwrap();
    s.claim_tables("srv-a", "http://a", &["t1"], 60_000)
        .unwrap();
    s.fence(Some("srv-a"));
    let r = s.begin_round(&new_round("t1", 1)).unwrap();
    s.record_step(r, &step(Some("{}"), &[], vec![wager("ann", "t1", 1_00)]))
        .unwrap();
    // A table without a lease is not fenced (felt play).
    let free = s.begin_round(&new_round("free", 2)).unwrap();
    s.finish_round(free, &Step::default(), "{}", None).unwrap();
    // srv-a stops cleanly; srv-b takes the table.
    s.release_tables("srv-a", &["t1"]).unwrap();
    b.claim_tables("srv-b", "http://b", &["t1"], 60_000)
        .unwrap();
    b.fence(Some("srv-b"));
    let before = s.balances().unwrap();
    let mut ran = false;
    let lost = [
        s.record_step(r, &step(None, &[], vec![wager("ann", "t1", 1_00)]))
            .unwrap_err(),
        s.record_step_with(r, &[], &mut |_| {
            ran = true;
            StepWrite::Nothing
        })
        .unwrap_err(),
        s.finish_round(r, &Step::default(), "{}", None).unwrap_err(),
        s.void_round(r, "late", &[]).unwrap_err(),
        s.begin_round(&new_round("t1", 3)).unwrap_err(),
        s.save_shoe("t1", b"late shoe").unwrap_err(),
    ];
    assert!(!ran, "compute never runs for a table this server lost");
    for e in lost {
        assert!(
            matches!(&e, StoreError::LeaseLost { table, holder } if table == "t1" && holder == "srv-b"),
            "{e}"
        );
        assert!(e.to_string().contains("nothing was written"), "{e}");
    }
    assert_eq!(s.balances().unwrap(), before, "nothing was written");
    assert_eq!(s.table_rounds("t1").unwrap(), 1);
    // The new host resumes the round from the books.
    let open = b.unfinished_rounds().unwrap();
    assert_eq!(open.iter().map(|r| r.id).collect::<Vec<_>>(), vec![r]);
    b.finish_round(
        r,
        &step(None, &[], vec![payout("t1", "ann", 2_00)]),
        "{}",
        None,
    )
    .unwrap();
    assert_eq!(b.balance(&Account::player("ann")).unwrap(), c(101_00));
    // Without its fence, srv-a's connection writes again (operator tools).
    s.fence(None);
    s.save_shoe("t1", b"x").unwrap();
    assert_sound(s);
}

pub fn lease_arguments_are_checked(s: &mut Books) {
    for ttl in [0, -5] {
        let e = s.claim_tables("srv", "u", &["t"], ttl).unwrap_err();
        assert!(matches!(e, StoreError::InvalidInput(_)), "{e}");
    }
    let e = s.claim_tables("srv", "u", &["t "], 1_000).unwrap_err();
    assert!(matches!(e, StoreError::InvalidName { .. }), "{e}");
    let e = s.claim_tables("", "u", &["t"], 1_000).unwrap_err();
    assert!(matches!(e, StoreError::InvalidName { .. }), "{e}");
    let e = s.release_tables("srv", &["\u{200b}"]).unwrap_err();
    assert!(matches!(e, StoreError::InvalidName { .. }), "{e}");
    assert!(s.table_leases().unwrap().is_empty());
}

fn status(players: &[(u8, &str)], closed: bool) -> TableStatus {
    TableStatus {
        players: players
            .iter()
            .map(|(seat, p)| SeatedPlayer {
                seat: *seat,
                player: p.to_string(),
                away: false,
            })
            .collect(),
        closed,
    }
}

fn statuses(s: &dyn Store) -> Vec<(String, Option<TableStatus>)> {
    s.table_leases()
        .unwrap()
        .into_iter()
        .map(|l| (l.table, l.status))
        .collect()
}

pub fn a_table_status_is_kept_by_its_holder_only(s: &mut Books) {
    let mut b = s.another();
    s.claim_tables("srv-a", "http://a", &["t1", "t2"], 60_000)
        .unwrap();
    b.claim_tables("srv-b", "http://b", &["t3"], 60_000)
        .unwrap();
    // Nothing said yet.
    assert!(statuses(&**s).iter().all(|(_, st)| st.is_none()));
    let one = status(&[(1, "ann"), (3, "Zoë")], false);
    let closed = status(&[], true);
    s.note_table_status("srv-a", &[("t1", &one), ("t2", &closed), ("t3", &one)])
        .unwrap();
    // Every connection reads it; t3 is srv-b's, so srv-a's word on it is not kept.
    let want = vec![
        ("t1".to_string(), Some(one.clone())),
        ("t2".to_string(), Some(closed.clone())),
        ("t3".to_string(), None),
    ];
    assert_eq!(statuses(&*b), want);
    // A renewal keeps it; a new word replaces it.
    s.claim_tables("srv-a", "http://a", &["t1", "t2"], 60_000)
        .unwrap();
    let later = status(&[(3, "Zoë")], false);
    s.note_table_status("srv-a", &[("t1", &later)]).unwrap();
    assert_eq!(statuses(&*b)[0], ("t1".to_string(), Some(later.clone())));
    // The table changes hands: the old holder's word goes with it, and counts no more.
    s.release_tables("srv-a", &["t1"]).unwrap();
    assert_eq!(statuses(&*b)[0], ("t1".to_string(), Some(later)));
    b.claim_tables("srv-b", "http://b", &["t1"], 60_000)
        .unwrap();
    assert_eq!(statuses(&*b)[0], ("t1".to_string(), None));
    s.note_table_status("srv-a", &[("t1", &one)]).unwrap();
    assert_eq!(statuses(&*b)[0], ("t1".to_string(), None));
    b.note_table_status("srv-b", &[("t1", &closed)]).unwrap();
    assert_eq!(statuses(&**s)[0], ("t1".to_string(), Some(closed)));
    // Names are checked; a bad call changes nothing.
    let before = statuses(&**s);
    let e = s
        .note_table_status("srv-a", &[("t2", &one), ("t 2\n", &one)])
        .unwrap_err();
    assert!(matches!(e, StoreError::InvalidName { .. }), "{e}");
    let e = s.note_table_status("", &[("t2", &one)]).unwrap_err();
    assert!(matches!(e, StoreError::InvalidName { .. }), "{e}");
    assert_eq!(statuses(&**s), before);
    s.note_table_status("srv-a", &[]).unwrap();
}
