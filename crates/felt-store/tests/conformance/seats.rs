//! Table seats: one table per player across every server sharing the books, one
//! player per seat.

use crate::Books;
use felt_store::{BooksAt, SeatClaim, StoreError, STALE_SEAT_MS};

fn elsewhere(table: &str, seat: u8) -> SeatClaim {
    SeatClaim::Elsewhere {
        table: table.to_string(),
        seat,
    }
}

pub fn a_player_sits_at_one_table_and_a_seat_holds_one_player(s: &mut Books) {
    let mut b = s.another();
    assert_eq!(
        s.take_seat("online/t1", 4, "ann").unwrap(),
        SeatClaim::Taken
    );
    // Again: still hers (a table starting again seats its players this way).
    assert_eq!(
        s.take_seat("online/t1", 4, "ann").unwrap(),
        SeatClaim::Taken
    );
    // Another server, another table: refused, naming where she sits.
    assert_eq!(
        b.take_seat("online/t2", 1, "ann").unwrap(),
        elsewhere("online/t1", 4)
    );
    assert_eq!(
        b.take_seat("online/t1", 6, "ann").unwrap(),
        elsewhere("online/t1", 4)
    );
    // Her seat is hers: bob is refused it, by its canonical name too.
    assert_eq!(
        b.take_seat("online/t1", 4, "bob").unwrap(),
        SeatClaim::Occupied
    );
    assert_eq!(
        b.take_seat("online/t1", 6, " bob").unwrap(),
        SeatClaim::Taken
    );
    assert_eq!(
        s.take_seat("online/t1", 6, "bob").unwrap(),
        SeatClaim::Taken
    );
    assert_eq!(
        s.table_seats("online/t1").unwrap(),
        [(4, "ann".to_string()), (6, "bob".to_string())]
    );
    assert!(s.table_seats("online/t2").unwrap().is_empty());
    // She leaves: free to sit at t2; leaving a table she is not at changes nothing.
    assert!(!b.leave_seat("online/t2", "ann").unwrap());
    assert!(b.leave_seat("online/t1", "ann").unwrap());
    assert!(!b.leave_seat("online/t1", "ann").unwrap());
    assert_eq!(
        s.take_seat("online/t2", 1, "ann").unwrap(),
        SeatClaim::Taken
    );
    // A table that closes for good frees its seats, only its own.
    s.clear_table_seats("online/t1").unwrap();
    assert!(s.table_seats("online/t1").unwrap().is_empty());
    assert_eq!(
        s.table_seats("online/t2").unwrap(),
        [(1, "ann".to_string())]
    );
    assert_eq!(
        s.take_seat("online/t3", 2, "bob").unwrap(),
        SeatClaim::Taken
    );
    // Seats outlive the process that took them (a server dies; the next host reads).
    s.reopen();
    assert_eq!(
        s.table_seats("online/t3").unwrap(),
        [(2, "bob".to_string())]
    );
}

pub fn seat_arguments_are_checked(s: &mut Books) {
    for e in [
        s.take_seat("online/t1", 0, "ann").unwrap_err(),
        s.take_seat("", 1, "ann").unwrap_err(),
        s.take_seat("online/t1", 1, "").unwrap_err(),
        s.take_seat(" online/t1", 1, "ann").unwrap_err(),
    ] {
        assert!(
            matches!(
                e,
                StoreError::InvalidInput(_) | StoreError::InvalidName { .. }
            ),
            "{e}"
        );
    }
    assert!(s.table_seats("online/t1").unwrap().is_empty());
}

pub fn two_servers_claiming_at_once_seat_each_player_once(s: &mut Books) {
    // Each round: two servers seat the same player at two tables, and two players in
    // one seat, at the same instant. Exactly one of each wins.
    for round in 0..12u8 {
        let player = format!("p{round}");
        let seat = round % 7 + 1;
        let barrier = std::sync::Arc::new(std::sync::Barrier::new(4));
        let mut handles = Vec::new();
        for (k, (table, who)) in [
            ("online/a", player.clone()),
            ("online/b", player.clone()),
            ("online/c", format!("x{round}")),
            ("online/c", format!("y{round}")),
        ]
        .into_iter()
        .enumerate()
        {
            let mut store = s.another();
            let barrier = barrier.clone();
            handles.push(std::thread::spawn(move || {
                barrier.wait();
                let seat = if k < 2 { 1 } else { seat };
                (
                    table,
                    who.clone(),
                    store.take_seat(table, seat, &who).unwrap(),
                )
            }));
        }
        let got: Vec<_> = handles.into_iter().map(|h| h.join().unwrap()).collect();
        let taken = |i: usize| got[i].2 == SeatClaim::Taken;
        assert!(taken(0) ^ taken(1), "{got:?}");
        let (winner, loser) = if taken(0) { (0, 1) } else { (1, 0) };
        assert_eq!(got[loser].2, elsewhere(got[winner].0, 1), "{got:?}");
        assert!(taken(2) ^ taken(3), "{got:?}");
        assert!(
            got[2..].iter().any(|g| g.2 == SeatClaim::Occupied),
            "{got:?}"
        );
        let at_c: Vec<_> = s
            .table_seats("online/c")
            .unwrap()
            .into_iter()
            .filter(|(n, _)| *n == seat)
            .collect();
        assert_eq!(at_c.len(), 1);
        s.leave_seat(got[winner].0, &player).unwrap();
        s.clear_table_seats("online/c").unwrap();
    }
}

/// Moves `table`'s lease expiry `ms` into the past, as if its server had died then.
fn expire_lease(at: &BooksAt, table: &str, ms: i64) {
    match at {
        BooksAt::Sqlite(path) => {
            let c = rusqlite::Connection::open(path).unwrap();
            c.execute(
                "UPDATE table_leases SET expires_ms = expires_ms - ?2 WHERE table_id = ?1",
                rusqlite::params![table, ms],
            )
            .unwrap();
        }
        BooksAt::Postgres(url) => {
            let mut c = postgres::Client::connect(url, postgres::NoTls).unwrap();
            c.execute(
                "UPDATE table_leases SET expires_ms = expires_ms - $2 WHERE table_id = $1",
                &[&table, &ms],
            )
            .unwrap();
        }
    }
}

pub fn a_seat_at_a_table_nobody_deals_any_more_does_not_hold_its_player(s: &mut Books) {
    s.claim_tables("srv-a", "http://a", &["online/gone", "online/live"], 60_000)
        .unwrap();
    assert_eq!(
        s.take_seat("online/gone", 1, "ann").unwrap(),
        SeatClaim::Taken
    );
    assert_eq!(
        s.take_seat("online/live", 1, "bob").unwrap(),
        SeatClaim::Taken
    );
    // Its server died a minute ago: the seat still holds her (the next host seats her).
    expire_lease(s.at(), "online/gone", 60_000 + 60_000);
    assert_eq!(
        s.take_seat("online/new", 1, "ann").unwrap(),
        elsewhere("online/gone", 1)
    );
    // Nobody has dealt the table for longer than STALE_SEAT_MS: she is free.
    expire_lease(s.at(), "online/gone", STALE_SEAT_MS);
    assert_eq!(
        s.take_seat("online/new", 1, "ann").unwrap(),
        SeatClaim::Taken
    );
    assert!(s.table_seats("online/gone").unwrap().is_empty());
    assert_eq!(
        s.take_seat("online/new", 2, "bob").unwrap(),
        elsewhere("online/live", 1)
    );
}

pub fn a_fenced_connection_seats_only_at_the_tables_it_holds(s: &mut Books) {
    let mut b = s.another();
    s.claim_tables("srv-a", "http://a", &["online/t1"], 60_000)
        .unwrap();
    b.fence(Some("srv-b"));
    for e in [
        b.take_seat("online/t1", 1, "ann").unwrap_err(),
        b.leave_seat("online/t1", "ann").unwrap_err(),
        b.clear_table_seats("online/t1").unwrap_err(),
    ] {
        assert!(matches!(e, StoreError::LeaseLost { .. }), "{e}");
    }
    s.fence(Some("srv-a"));
    assert_eq!(
        s.take_seat("online/t1", 1, "ann").unwrap(),
        SeatClaim::Taken
    );
    assert_eq!(
        b.table_seats("online/t1").unwrap(),
        [(1, "ann".to_string())]
    );
}
