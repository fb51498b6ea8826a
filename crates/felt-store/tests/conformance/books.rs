//! The books through the public API: ledger, meters, rounds, recovery, history.

use crate::{assert_sound, c, new_round, payout, step, wager, Books};
use felt_core::Money;
use felt_store::{Account, Movement, MovementKind as K, RoundId, RoundStatus, Step, StoreError};
use proptest::prelude::*;
use proptest::test_runner::{Config, TestRunner};
use std::cell::{Cell, RefCell};

pub fn deposits_withdrawals_and_refusals(s: &mut Books) {
    s.deposit("alice", c(100_00)).unwrap();
    s.withdraw("alice", c(30_00)).unwrap();
    assert_eq!(s.balance(&Account::player("alice")).unwrap(), c(70_00));
    assert_eq!(s.balance(&Account::Cashier).unwrap(), c(-70_00));
    assert_eq!(s.balance(&Account::player("nobody")).unwrap(), Money::ZERO);

    let e = s.withdraw("alice", c(70_01)).unwrap_err();
    assert!(matches!(e, StoreError::InsufficientFunds { .. }), "{e}");
    assert!(
        e.to_string()
            .contains("player alice holds 70.00 and cannot pay 70.01"),
        "{e}"
    );
    for bad in [
        Movement::new(
            Account::player("a"),
            Account::player("a"),
            c(1),
            K::Adjustment,
        ),
        Movement::new(Account::Cashier, Account::player("a"), c(0), K::Deposit),
        Movement::new(Account::Cashier, Account::player("a"), c(-5), K::Deposit),
        Movement::new(Account::Cashier, Account::meter("m"), c(5), K::Deposit),
        Movement::new(Account::Cashier, Account::player("a"), c(5), K::Award),
        Movement::new(Account::Cashier, Account::player(""), c(5), K::Deposit),
    ] {
        let e = s.post(std::slice::from_ref(&bad)).unwrap_err();
        assert!(
            matches!(
                e,
                StoreError::InvalidMovement { .. } | StoreError::InvalidName { .. }
            ),
            "{bad:?}: {e}"
        );
    }
    let e = s
        .post(&[Movement::new(
            Account::house("t"),
            Account::meter("nope"),
            c(5),
            K::Seed,
        )])
        .unwrap_err();
    assert!(matches!(e, StoreError::UnknownMeter { .. }), "{e}");
    assert_eq!(s.balance(&Account::player("alice")).unwrap(), c(70_00));
    assert_sound(s);
}

pub fn the_last_deposit_with_a_memo_is_the_newest_of_that_player(s: &mut Books) {
    assert_eq!(s.last_deposit("alice", "top-up").unwrap(), None);
    s.deposit("alice", c(10_00)).unwrap();
    let top_up = |to: &str, cents| {
        Movement::new(Account::Cashier, Account::player(to), c(cents), K::Deposit)
            .with_memo("top-up")
    };
    s.post(&[top_up("alice", 1_00)]).unwrap();
    let newest = s.post(&[top_up("alice", 2_00)]).unwrap()[0];
    s.post(&[top_up("bob", 3_00)]).unwrap();
    s.deposit("alice", c(4_00)).unwrap();
    let last = s.last_deposit("alice", "top-up").unwrap().unwrap();
    assert_eq!(last.entry_id, newest);
    assert_eq!(last.movement.amount, c(2_00));
    assert_eq!(last.movement.to, Account::player("alice"));
    assert!(last.at.ends_with('Z'), "{}", last.at);
    assert_eq!(s.last_deposit("alice", "other").unwrap(), None);
    assert_sound(s);
}

pub fn a_deposit_above_the_engines_balance_limit_is_refused_and_the_next_session_works(
    s: &mut Books,
) {
    use felt_core::round::MAX_BALANCE;
    s.deposit("alice", c(100_00)).unwrap();
    let before = s.balances().unwrap();
    let history = s.history(10).unwrap().len();

    // One cent more than the limit allows, and an amount that would overflow i64.
    for amount in [
        MAX_BALANCE - c(100_00) + c(1),
        Money::cents(i64::MAX - 1_00),
    ] {
        let e = s.deposit("alice", amount).unwrap_err();
        match &e {
            StoreError::BalanceLimit {
                account,
                balance,
                amount: a,
                limit,
            } => {
                assert_eq!(account, "player alice");
                assert_eq!(*balance, c(100_00));
                assert_eq!(*a, amount);
                assert_eq!(*limit, MAX_BALANCE);
            }
            other => panic!("not a balance-limit refusal: {other}"),
        }
        let shown = e.to_string();
        assert!(
            shown.contains("player alice holds 100.00")
                && shown.contains(&amount.to_string())
                && shown.contains("100000000000000.00")
                && shown.contains("nothing was written"),
            "{shown}"
        );
        // Nothing was written: not the wallet, not the cashier, not a ledger row.
        assert_eq!(s.balances().unwrap(), before);
        assert_sound(s);
    }
    // A batch whose second movement breaks the limit writes none of them.
    let e = s
        .post(&[
            Movement::new(
                Account::Cashier,
                Account::player("bob"),
                c(5_00),
                K::Deposit,
            ),
            Movement::new(
                Account::Cashier,
                Account::player("alice"),
                MAX_BALANCE,
                K::Deposit,
            ),
        ])
        .unwrap_err();
    assert!(matches!(e, StoreError::BalanceLimit { .. }), "{e}");
    assert_eq!(s.balances().unwrap(), before);
    assert_eq!(s.history(10).unwrap().len(), history);

    // Up to the limit exactly is taken, and the engine seats the player with it: the
    // next session works.
    s.deposit("alice", MAX_BALANCE - c(100_00)).unwrap();
    let balance = s.balance(&Account::player("alice")).unwrap();
    assert_eq!(balance, MAX_BALANCE);
    let rules = felt_core::presets::load("classic").unwrap().unwrap();
    let table = felt_core::Table::new(&rules).unwrap();
    let rng = <rand_chacha::ChaCha20Rng as rand_chacha::rand_core::SeedableRng>::seed_from_u64(1);
    assert!(table.round(table.new_shoe(), rng, &[balance]).is_ok());
    assert!(s.deposit("alice", c(1)).is_err());
    // A withdrawal below the limit is never refused by it.
    s.withdraw("alice", c(1)).unwrap();
    assert_sound(s);
}

pub fn a_step_that_fails_halfway_leaves_nothing(s: &mut Books) {
    s.deposit("alice", c(10_00)).unwrap();
    let r = s.begin_round(&new_round("t1", 1)).unwrap();
    s.record_step(
        r,
        &step(
            Some(r#"{"bet":5}"#),
            &["{\"e\":1}"],
            vec![wager("alice", "t1", 5_00)],
        ),
    )
    .unwrap();
    let before = s.round(r).unwrap().unwrap();
    let balances = s.balances().unwrap();
    // The first movement is fine, the second overdraws: the whole step must vanish.
    let bad = step(
        Some(r#"{"double":true}"#),
        &["{\"e\":2}", "{\"e\":3}"],
        vec![wager("alice", "t1", 4_00), wager("alice", "t1", 4_00)],
    );
    let e = s.record_step(r, &bad).unwrap_err();
    assert!(matches!(e, StoreError::InsufficientFunds { .. }), "{e}");
    assert_eq!(s.round(r).unwrap().unwrap(), before);
    assert_eq!(s.balances().unwrap(), balances);
    // Bad JSON is refused before anything is written.
    let e = s
        .record_step(r, &step(Some("{not json"), &[], vec![]))
        .unwrap_err();
    assert!(matches!(e, StoreError::InvalidJson { .. }), "{e}");
    let e = s.record_step(r, &step(None, &["[1,"], vec![])).unwrap_err();
    assert!(matches!(e, StoreError::InvalidJson { .. }), "{e}");
    assert_eq!(s.round(r).unwrap().unwrap(), before);
    // A finish whose last step fails leaves the round open.
    let e = s
        .finish_round(
            r,
            &step(None, &[], vec![payout("t1", "alice", 1)]),
            "not json",
            None,
        )
        .unwrap_err();
    assert!(matches!(e, StoreError::InvalidJson { .. }), "{e}");
    assert_eq!(s.round(r).unwrap().unwrap().status, RoundStatus::Open);
    assert_sound(s);
}

pub fn round_lifecycle_journal_and_shoe(s: &mut Books) {
    s.deposit("bob", c(50_00)).unwrap();
    assert_eq!(s.shoe("t1").unwrap(), None);
    let r = s.begin_round(&new_round("t1", 9)).unwrap();
    let rec = s.round(r).unwrap().unwrap();
    assert_eq!(rec.status, RoundStatus::Open);
    assert_eq!(rec.seed, [9; 32]);
    assert_eq!(rec.seed_sha256, felt_store::seed_hash(&[9; 32]));
    assert_eq!(rec.seed_sha256.len(), 64);
    assert_eq!(rec.shoe_before.as_deref(), Some(&b"shoe of t1"[..]));

    assert_eq!(
        s.record_step(
            r,
            &step(
                Some(r#"{"bet":"10.00"}"#),
                &["{\"bet\":1}"],
                vec![wager("bob", "t1", 10_00)]
            )
        )
        .unwrap(),
        1
    );
    assert_eq!(
        s.record_step(
            r,
            &step(None, &["{\"card\":\"7h\"}", "{\"card\":\"Kd\"}"], vec![])
        )
        .unwrap(),
        2
    );
    assert_eq!(
        s.record_step(r, &step(Some(r#""stand""#), &["{\"stood\":1}"], vec![]))
            .unwrap(),
        3
    );
    s.finish_round(
        r,
        &step(None, &["{\"win\":1}"], vec![payout("t1", "bob", 20_00)]),
        r#"{"bob":"+10.00"}"#,
        Some(b"shoe after 1"),
    )
    .unwrap();
    let rec = s.round(r).unwrap().unwrap();
    assert_eq!(rec.status, RoundStatus::Finished);
    assert!(rec.ended_at.is_some());
    assert_eq!(rec.actions(), vec![r#"{"bet":"10.00"}"#, r#""stand""#]);
    assert_eq!(rec.steps.len(), 4);
    let ev: Vec<(u32, u32)> = rec.events.iter().map(|e| (e.seq, e.step_seq)).collect();
    assert_eq!(ev, vec![(1, 1), (2, 2), (3, 2), (4, 3), (5, 4)]);
    assert_eq!(rec.events[1].json, "{\"card\":\"7h\"}");
    assert_eq!(rec.movements.len(), 2);
    assert_eq!(rec.movements[0].step_seq, Some(1));
    assert_eq!(rec.movements[1].step_seq, Some(4));
    assert_eq!(rec.net_for(&Account::player("bob")), c(10_00));
    assert_eq!(rec.result.as_deref(), Some(r#"{"bob":"+10.00"}"#));
    assert_eq!(s.shoe("t1").unwrap().as_deref(), Some(&b"shoe after 1"[..]));
    assert_eq!(s.balance(&Account::player("bob")).unwrap(), c(60_00));

    // Nothing can be added to a round that has ended.
    for e in [
        s.record_step(r, &step(Some("1"), &[], vec![])).unwrap_err(),
        s.finish_round(r, &Step::default(), "{}", None).unwrap_err(),
        s.void_round(r, "late", &[]).unwrap_err(),
    ] {
        assert!(
            matches!(e, StoreError::RoundClosed { round, .. } if round == r.0),
            "{e}"
        );
    }
    let e = s.record_step(RoundId(999), &Step::default()).unwrap_err();
    assert!(matches!(e, StoreError::UnknownRound { round: 999 }), "{e}");
    assert!(s.round(RoundId(999)).unwrap().is_none());

    s.save_shoe("t1", b"reshuffled").unwrap();
    assert_eq!(s.shoe("t1").unwrap().as_deref(), Some(&b"reshuffled"[..]));
    assert_sound(s);
}

pub fn history_is_newest_first_and_limited(s: &mut Books) {
    s.deposit("p", c(1_000_00)).unwrap();
    let mut ids = Vec::new();
    for i in 0..7u8 {
        let r = s
            .begin_round(&new_round(if i % 2 == 0 { "a" } else { "b" }, i))
            .unwrap();
        s.record_step(
            r,
            &step(
                Some(&format!("{{\"round\":{i}}}")),
                &[],
                vec![wager("p", "a", 1_00)],
            ),
        )
        .unwrap();
        if i != 5 {
            s.finish_round(r, &Step::default(), "{}", None).unwrap();
        }
        ids.push(r);
    }
    let h = s.history(3).unwrap();
    assert_eq!(
        h.iter().map(|r| r.id).collect::<Vec<_>>(),
        vec![ids[6], ids[5], ids[4]]
    );
    assert_eq!(h[0].actions(), vec!["{\"round\":6}"]);
    assert_eq!(h[1].status, RoundStatus::Open);
    assert_eq!(s.history(100).unwrap().len(), 7);
    assert!(s.history(0).unwrap().is_empty());
    assert!(ids.windows(2).all(|w| w[0] < w[1]));
    // Rounds begun per table, whatever their status (round 5, at table b, is open).
    assert_eq!(s.table_rounds("a").unwrap(), 4);
    assert_eq!(s.table_rounds("b").unwrap(), 3);
    assert_eq!(s.table_rounds("c").unwrap(), 0);
}

pub fn meters_are_shared_and_keep_their_identity_and_awards(s: &mut Books) {
    let operator = Account::house("operator");
    let m = s.create_meter("blazing", c(2_000_00), &operator).unwrap();
    assert_eq!(
        (m.amount, m.reset, m.seeded),
        (c(2_000_00), c(2_000_00), c(2_000_00))
    );
    // Creating it again changes nothing (another table naming the same meter).
    assert_eq!(s.create_meter("blazing", c(9), &operator).unwrap(), m);
    s.deposit("ann", c(10_000_00)).unwrap();
    s.deposit("ben", c(10_000_00)).unwrap();
    let meter = Account::meter("blazing");
    let mut expected_awards = Vec::new();
    for i in 0..8i64 {
        // Two tables feed the same meter.
        let table = if i % 2 == 0 { "t1" } else { "t2" };
        let player = if i % 2 == 0 { "ann" } else { "ben" };
        let r = s
            .begin_round(&new_round(table, u8::try_from(i).unwrap()))
            .unwrap();
        s.record_step(
            r,
            &step(
                Some("{}"),
                &[],
                vec![
                    Movement::new(
                        Account::player(player),
                        Account::house(table),
                        c(1_00),
                        K::Wager,
                    ),
                    Movement::new(Account::house(table), meter.clone(), c(25), K::Contribution),
                ],
            ),
        )
        .unwrap();
        let before = s.meter("blazing").unwrap().unwrap().amount;
        let mut last = vec![];
        if i == 3 {
            // 100%: the whole meter, then the operator funds the reset (B7-6).
            last.push(Movement::new(
                meter.clone(),
                Account::player(player),
                before,
                K::Award,
            ));
            last.push(Movement::new(
                operator.clone(),
                meter.clone(),
                c(2_000_00),
                K::Seed,
            ));
            expected_awards.push((r, before));
        } else if i % 3 == 0 || i > 4 {
            // 10%, rounded down to a cent.
            let ten = Money::cents(before.as_cents() / 10);
            last.push(Movement::new(
                meter.clone(),
                Account::player(player),
                ten,
                K::Award,
            ));
            expected_awards.push((r, ten));
        }
        s.finish_round(r, &step(None, &["{\"meter\":1}"], last), "{}", None)
            .unwrap();
    }
    let m = s.meter("blazing").unwrap().unwrap();
    assert_eq!(m.amount, m.seeded + m.contributions - m.awards);
    assert_eq!(m.contributions, c(8 * 25));
    assert_eq!(m.seeded, c(4_000_00));
    let total: Money = expected_awards.iter().map(|a| a.1).sum();
    assert_eq!(m.awards, total);
    assert!(expected_awards.len() >= 5);
    let recent: Vec<(RoundId, Money)> = m
        .recent_awards
        .iter()
        .map(|a| (a.round.unwrap(), a.amount))
        .collect();
    let mut newest_first = expected_awards.clone();
    newest_first.reverse();
    assert_eq!(recent, newest_first);
    assert!(m.recent_awards.iter().all(|a| !a.at.is_empty()));
    // A meter never pays more than it holds.
    let r = s.begin_round(&new_round("t1", 99)).unwrap();
    let e = s
        .record_step(
            r,
            &step(
                None,
                &[],
                vec![Movement::new(
                    meter.clone(),
                    Account::player("ann"),
                    m.amount + c(1),
                    K::Award,
                )],
            ),
        )
        .unwrap_err();
    assert!(matches!(e, StoreError::InsufficientFunds { .. }), "{e}");
    assert_eq!(s.meters().unwrap(), vec![m]);
    assert_sound(s);
}

pub fn meter_identity_holds_under_a_seeded_random_loop(s: &mut Books) {
    let ops = Account::house("ops");
    s.create_meter("m1", c(1_000_00), &ops).unwrap();
    s.create_meter("m2", c(500_00), &ops).unwrap();
    s.deposit("p", c(1_000_000_00)).unwrap();
    let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
    let mut next = move |n: u64| {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x % n
    };
    for i in 0..150u64 {
        let meter = if next(2) == 0 { "m1" } else { "m2" };
        let acct = Account::meter(meter);
        let r = s
            .begin_round(&new_round("t", u8::try_from(i % 250).unwrap()))
            .unwrap();
        let inc = i64::try_from(1 + next(100)).unwrap();
        s.record_step(
            r,
            &step(
                None,
                &[],
                vec![Movement::new(
                    Account::player("p"),
                    acct.clone(),
                    c(inc),
                    K::Contribution,
                )],
            ),
        )
        .unwrap();
        let amount = s.meter(meter).unwrap().unwrap().amount;
        let mut last = vec![];
        match next(20) {
            0 => {
                let reset = s.meter(meter).unwrap().unwrap().reset;
                last.push(Movement::new(
                    acct.clone(),
                    Account::player("p"),
                    amount,
                    K::Award,
                ));
                last.push(Movement::new(ops.clone(), acct.clone(), reset, K::Seed));
            }
            1 | 2 => last.push(Movement::new(
                acct.clone(),
                Account::player("p"),
                c(amount.as_cents() / 10),
                K::Award,
            )),
            _ => {}
        }
        if next(10) == 0 {
            let rec = s.round(r).unwrap().unwrap();
            s.void_round(r, "test", &rec.reversal()).unwrap();
        } else {
            s.finish_round(r, &step(None, &[], last), "{}", None)
                .unwrap();
        }
        for m in s.meters().unwrap() {
            assert_eq!(m.amount, m.seeded + m.contributions - m.awards, "{m:?}");
        }
    }
    assert_sound(s);
}

pub fn an_engine_style_round_through_the_felt(s: &mut Books) {
    // The engine's accounts: seat -> felt (stakes in play), felt -> house (lost) or
    // back to the seat, house -> seat (winnings), house -> meter (increments and
    // refills), meter -> seat (shares).
    let (seat, felt, house, meter) = (
        Account::player("seat-1"),
        Account::felt("t1"),
        Account::house("t1"),
        Account::meter("blazing"),
    );
    s.create_meter("blazing", c(2_000_00), &house).unwrap();
    s.deposit("seat-1", c(100_00)).unwrap();
    let r = s.begin_round(&new_round("t1", 5)).unwrap();
    let mv = |from: &Account, to: &Account, cents: i64, kind: K| {
        Movement::new(from.clone(), to.clone(), c(cents), kind)
    };
    s.record_step(
        r,
        &step(
            Some(r#"{"bet":{"main":"10.00","blazing":"1.00"}}"#),
            &[],
            vec![
                mv(&seat, &felt, 10_00, K::Wager),
                mv(&seat, &felt, 1_00, K::Wager),
                mv(&house, &meter, 25, K::Contribution),
            ],
        ),
    )
    .unwrap();
    // Mid-round the chips are on the felt, and that is sound.
    assert_eq!(s.balance(&felt).unwrap(), c(11_00));
    assert_sound(s);
    let m = s.meter("blazing").unwrap().unwrap().amount;
    s.finish_round(
        r,
        &step(
            None,
            &[],
            vec![
                mv(&felt, &seat, 10_00, K::Payout),
                mv(&house, &seat, 10_00, K::Payout),
                mv(&felt, &seat, 1_00, K::Payout),
                Movement::new(meter.clone(), seat.clone(), m, K::Award),
                mv(&house, &meter, 2_000_00, K::Seed),
            ],
        ),
        "{}",
        None,
    )
    .unwrap();
    assert_eq!(s.balance(&felt).unwrap(), Money::ZERO);
    assert_eq!(s.balance(&seat).unwrap(), c(100_00 + 10_00) + m);
    assert_sound(s);

    // A round that ends with chips still on the felt is flagged.
    let r = s.begin_round(&new_round("t1", 6)).unwrap();
    s.record_step(r, &step(None, &[], vec![mv(&seat, &felt, 5_00, K::Wager)]))
        .unwrap();
    s.finish_round(r, &Step::default(), "{}", None).unwrap();
    let report = s.check_books().unwrap();
    assert!(
        report.discrepancies.iter().any(|d| matches!(
            d,
            felt_store::Discrepancy::FeltNotCleared { table, balance } if table == "t1" && *balance == c(5_00)
        )),
        "{report}"
    );
    assert!(
        report.to_string().contains("felt t1: 5.00 in play"),
        "{report}"
    );
}

pub fn next_round_id_is_the_id_the_next_round_gets(s: &mut Books) {
    assert_eq!(s.next_round_id().unwrap(), RoundId(1));
    // Asking takes no number.
    assert_eq!(s.next_round_id().unwrap(), RoundId(1));
    let r1 = s.begin_round(&new_round("t", 1)).unwrap();
    assert_eq!(r1, RoundId(1));
    assert_eq!(s.next_round_id().unwrap(), RoundId(2));
    let r2 = s.begin_round(&new_round("u", 2)).unwrap();
    assert_eq!(r2, RoundId(2));
    assert_eq!(s.next_round_id().unwrap(), RoundId(3));
}

pub fn recovery_lists_unfinished_rounds_after_a_crash_and_void_refunds(s: &mut Books) {
    let (r1, r2);
    {
        s.deposit("alice", c(100_00)).unwrap();
        s.create_meter("blazing", c(2_000_00), &Account::house("operator"))
            .unwrap();
        r1 = s.begin_round(&new_round("t1", 1)).unwrap();
        s.record_step(
            r1,
            &step(
                Some(r#"{"bet":{"main":"10.00","side":"1.00"}}"#),
                &["{\"bet\":1}"],
                vec![
                    wager("alice", "t1", 10_00),
                    Movement::new(
                        Account::player("alice"),
                        Account::meter("blazing"),
                        c(1_00),
                        K::Contribution,
                    ),
                ],
            ),
        )
        .unwrap();
        s.record_step(r1, &step(Some(r#""hit""#), &["{\"card\":\"7s\"}"], vec![]))
            .unwrap();
        let done = s.begin_round(&new_round("t2", 2)).unwrap();
        s.finish_round(done, &Step::default(), "{}", None).unwrap();
        r2 = s.begin_round(&new_round("t2", 3)).unwrap();
        // The process dies here: the store is dropped mid-round, nothing is finished.
    }
    s.reopen();
    let open = s.unfinished_rounds().unwrap();
    assert_eq!(open.iter().map(|r| r.id).collect::<Vec<_>>(), vec![r1, r2]);
    let rec = &open[0];
    assert_eq!(rec.seed, [1; 32]);
    assert_eq!(
        rec.actions(),
        vec![r#"{"bet":{"main":"10.00","side":"1.00"}}"#, r#""hit""#]
    );
    assert_eq!(rec.events.len(), 2);
    assert_eq!(rec.movements.len(), 2);
    assert_eq!(s.balance(&Account::player("alice")).unwrap(), c(89_00));
    let report = s.check_books().unwrap();
    assert!(report.is_sound(), "{report}");
    assert_eq!(report.open_rounds, vec![r1, r2]);

    // Void the first with the reversal of its money; finish the second by replay.
    let refunds = rec.reversal();
    assert_eq!(refunds.len(), 2);
    assert_eq!(refunds[0].kind, K::Contribution); // newest first
    s.void_round(r1, "crash during play; bets returned", &refunds)
        .unwrap();
    s.finish_round(r2, &Step::default(), "{}", None).unwrap();
    assert!(s.unfinished_rounds().unwrap().is_empty());
    assert_eq!(s.balance(&Account::player("alice")).unwrap(), c(100_00));
    let m = s.meter("blazing").unwrap().unwrap();
    assert_eq!(m.amount, c(2_000_00));
    assert_eq!(m.contributions, Money::ZERO);
    let v = s.round(r1).unwrap().unwrap();
    assert_eq!(v.status, RoundStatus::Voided);
    assert_eq!(
        v.void_reason.as_deref(),
        Some("crash during play; bets returned")
    );
    assert_eq!(v.movements.len(), 4);
    assert_eq!(v.movements[3].step_seq, None);
    assert_eq!(v.net_for(&Account::player("alice")), Money::ZERO);
    assert_sound(s);
}

#[derive(Debug, Clone)]
enum Op {
    Deposit(usize, i64),
    Withdraw(usize, i64),
    Bet(usize, usize, i64, bool),
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        (0..3usize, 1..100_000i64).prop_map(|(p, a)| Op::Deposit(p, a)),
        (0..3usize, 1..100_000i64).prop_map(|(p, a)| Op::Withdraw(p, a)),
        (0..3usize, 0..2usize, 1..50_000i64, any::<bool>())
            .prop_map(|(p, t, a, w)| Op::Bet(p, t, a, w)),
    ]
}

/// Random movements, some refused: the ledger always sums to zero, every balance
/// equals its ledger rows, and matches a model kept beside it. Each case plays its own
/// players and tables on the same books.
pub fn ledger_balances_under_random_movements(s: &mut Books) {
    let mut runner = TestRunner::new(Config {
        cases: 16,
        failure_persistence: None,
        ..Config::default()
    });
    let case = Cell::new(0u32);
    let books = RefCell::new(s);
    runner
        .run(&proptest::collection::vec(op(), 1..40), |ops| {
            let mut s = books.borrow_mut();
            let n = case.get();
            case.set(n + 1);
            let players: Vec<String> = (0..3).map(|p| format!("c{n}-p{p}")).collect();
            let tables: Vec<String> = (0..2).map(|t| format!("c{n}-t{t}")).collect();
            let mut wallet = [0i64; 3];
            for op in ops {
                match op {
                    Op::Deposit(p, a) => {
                        s.deposit(&players[p], c(a)).unwrap();
                        wallet[p] += a;
                    }
                    Op::Withdraw(p, a) => {
                        let r = s.withdraw(&players[p], c(a));
                        prop_assert_eq!(r.is_ok(), wallet[p] >= a);
                        if r.is_ok() {
                            wallet[p] -= a;
                        }
                    }
                    Op::Bet(p, t, a, win) => {
                        let r = s.begin_round(&new_round(&tables[t], 0)).unwrap();
                        let placed = s.record_step(
                            r,
                            &step(Some("{}"), &[], vec![wager(&players[p], &tables[t], a)]),
                        );
                        prop_assert_eq!(placed.is_ok(), wallet[p] >= a);
                        if placed.is_ok() {
                            wallet[p] -= a;
                            let last = if win {
                                vec![payout(&tables[t], &players[p], 2 * a)]
                            } else {
                                vec![]
                            };
                            s.finish_round(r, &step(None, &[], last), "{}", None)
                                .unwrap();
                            if win {
                                wallet[p] += 2 * a;
                            }
                        } else {
                            s.void_round(r, "bet refused", &[]).unwrap();
                        }
                    }
                }
            }
            for (p, w) in players.iter().zip(wallet) {
                prop_assert_eq!(s.balance(&Account::player(p.as_str())).unwrap(), c(w));
            }
            let report = s.check_books().unwrap();
            prop_assert!(report.is_sound(), "{}", report);
            let total: Money = s.balances().unwrap().iter().map(|b| b.balance).sum();
            prop_assert_eq!(total, Money::ZERO);
            Ok(())
        })
        .unwrap();
}

/// Bad states: each is its typed error, the same on every engine, and changes nothing.
pub fn bad_states_are_typed_errors_and_change_nothing(s: &mut Books) {
    s.deposit("ann", c(10_00)).unwrap();
    let ops = Account::house("ops");
    let m = s.create_meter("m", c(100_00), &ops).unwrap();
    // A meter created twice is the same meter, its reset unchanged.
    assert_eq!(s.create_meter("m", c(5_00), &ops).unwrap(), m);
    let e = s.create_meter("n", c(-1), &ops).unwrap_err();
    assert!(matches!(e, StoreError::InvalidInput(_)), "{e}");
    // A meter funded by a meter is a refused movement.
    let e = s
        .create_meter("n", c(1_00), &Account::meter("m"))
        .unwrap_err();
    assert!(matches!(e, StoreError::InvalidMovement { .. }), "{e}");
    assert!(s.meter("n").unwrap().is_none());
    let before = s.balances().unwrap();
    // Unknown rounds.
    for e in [
        s.record_step(RoundId(77), &Step::default()).unwrap_err(),
        s.finish_round(RoundId(77), &Step::default(), "{}", None)
            .unwrap_err(),
        s.void_round(RoundId(77), "why", &[]).unwrap_err(),
        s.record_step_with(RoundId(77), &["m"], &mut |_| felt_store::StepWrite::Nothing)
            .unwrap_err(),
    ] {
        assert!(matches!(e, StoreError::UnknownRound { round: 77 }), "{e}");
    }
    // Void twice; finish after a void.
    let r = s.begin_round(&new_round("t", 1)).unwrap();
    s.void_round(r, "first", &[]).unwrap();
    let e = s.void_round(r, "second", &[]).unwrap_err();
    assert!(
        matches!(&e, StoreError::RoundClosed { status, .. } if status == "voided"),
        "{e}"
    );
    let e = s.finish_round(r, &Step::default(), "{}", None).unwrap_err();
    assert!(matches!(e, StoreError::RoundClosed { .. }), "{e}");
    // An overdraft inside a round; a refund that overdraws a void.
    let r = s.begin_round(&new_round("t", 2)).unwrap();
    let e = s
        .record_step(r, &step(None, &[], vec![wager("ann", "t", 10_01)]))
        .unwrap_err();
    assert!(
        matches!(&e, StoreError::InsufficientFunds { account, .. } if account == "player ann"),
        "{e}"
    );
    let e = s
        .void_round(r, "refund too much", &[payout("t", "ann", 1)])
        .err();
    assert!(e.is_none(), "a house may go below zero: {e:?}");
    let e = s.void_round(r, "again", &[]).unwrap_err();
    assert!(matches!(e, StoreError::RoundClosed { .. }), "{e}");
    // A step on a closed round names the round and its status.
    let e = s.record_step(r, &Step::default()).unwrap_err();
    assert!(
        e.to_string().contains(&format!("round {r} is voided")),
        "{e}"
    );
    // Bad JSON, bad names, empty rules.
    let r = s.begin_round(&new_round("t", 3)).unwrap();
    let e = s.finish_round(r, &Step::default(), "{", None).unwrap_err();
    assert!(matches!(e, StoreError::InvalidJson { .. }), "{e}");
    let mut bad = new_round("t", 4);
    bad.rules = Some("  ".into());
    assert!(matches!(
        s.begin_round(&bad),
        Err(StoreError::InvalidInput(_))
    ));
    bad = new_round("", 4);
    assert!(matches!(
        s.begin_round(&bad),
        Err(StoreError::InvalidName { .. })
    ));
    assert!(matches!(
        s.save_shoe("t ", b"x"),
        Err(StoreError::InvalidName { .. })
    ));
    // A shoe that is not there, or not this table's.
    let mut unknown = new_round("t", 5);
    unknown.shoe_seed = felt_store::RoundShoe::Current(999);
    assert!(matches!(
        s.begin_round(&unknown),
        Err(StoreError::UnknownShoe { shoe: 999 })
    ));
    // Too large: a deposit that would overflow the cashier.
    let e = s
        .post(&[Movement::new(
            Account::house("a"),
            Account::house("b"),
            Money::cents(i64::MAX),
            K::Adjustment,
        )])
        .unwrap();
    assert_eq!(e.len(), 1);
    let e = s
        .post(&[Movement::new(
            Account::house("a"),
            Account::house("b"),
            Money::cents(i64::MAX),
            K::Adjustment,
        )])
        .unwrap_err();
    assert!(
        matches!(&e, StoreError::InvalidMovement { reason } if reason.contains("overflow")),
        "{e}"
    );
    // Only the void's refund reached ann's wallet.
    let ann = |b: &[felt_store::Balance]| {
        b.iter()
            .find(|b| b.account == Account::player("ann"))
            .map(|b| b.balance)
    };
    assert_eq!(ann(&s.balances().unwrap()), ann(&before).map(|v| v + c(1)));
}
