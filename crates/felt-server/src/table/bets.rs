//! Bets: each is checked by the table (a round taking bets, the player's seat in it,
//! the reality check, the spots and side bets, the player's limits, their balance)
//! and written to the books as a step of its own, all or nothing. The bets waiting
//! in the table's inbox together are written in one call of the books, so under one
//! commit, and shown in one view: at a full table, the last of seven bets no longer
//! waits for six commits before its view. One of them the books or the engine refuse
//! changes nothing, of its own or of the others (each step is its own savepoint).

use super::through_wallet::Staking;
use super::{Actor, Fatal, Stepped, ToTable};
use crate::protocol::{ClientMsg, Code, SpotBet};
use felt_core::{Action, Money, Phase};
use felt_session::SessionError;
use felt_store::{Account, RoundId};
use std::collections::BTreeSet;
use std::sync::atomic::Ordering;
use std::sync::mpsc::Receiver;
use std::time::Instant;

/// The most bets written in one call of the books (a table has at most a few seats;
/// the bound keeps a flood of bets from holding the books in one call).
const MAX_BETS_AT_ONCE: usize = 16;

/// A bet message taken from the inbox.
pub(super) struct BetMsg {
    pub conn: u64,
    pub player: String,
    pub round: RoundId,
    pub id: String,
    pub spots: Vec<SpotBet>,
    /// When it arrived at the server.
    pub at: Instant,
}

/// A bet that passed the table's checks, to be written.
struct Ready {
    conn: u64,
    seat: u8,
    round: RoundId,
    id: String,
    actions: Vec<Action>,
    at: Instant,
}

/// What the table's checks made of a bet.
enum Checked {
    /// Passed: to be written.
    Ready(Ready),
    /// Answered already (refused, or sent to the operator's wallet).
    Answered,
    /// The player's balance in the books is not the one the round set them up with.
    BalanceChanged,
}

impl Actor {
    /// Takes `m` as a bet if it is one of a connection at the table (the inbox's
    /// count and wait are accounted as [`Actor::handle`] does); else gives it back.
    pub(super) fn as_bet(&self, m: ToTable) -> Result<BetMsg, ToTable> {
        match m {
            ToTable::Msg {
                conn,
                msg: ClientMsg::Bet { round, id, spots },
                at,
            } if self.conns.contains_key(&conn) => {
                self.queued.fetch_sub(1, Ordering::SeqCst);
                self.metrics
                    .inbox_seconds
                    .observe(at.elapsed().as_secs_f64());
                let player = self.conns[&conn].player.clone();
                Ok(BetMsg {
                    conn,
                    player,
                    round: RoundId(round),
                    id,
                    spots,
                    at,
                })
            }
            other => Err(other),
        }
    }

    /// `first` and the bets waiting behind it in the inbox (up to the first message
    /// that is not one, returned to be handled next).
    pub(super) fn gather_bets(
        &self,
        first: BetMsg,
        rx: &Receiver<ToTable>,
    ) -> (Vec<BetMsg>, Option<ToTable>) {
        let mut bets = vec![first];
        while bets.len() < MAX_BETS_AT_ONCE {
            let Ok(m) = rx.try_recv() else { break };
            match self.as_bet(m) {
                Ok(b) => bets.push(b),
                Err(other) => return (bets, Some(other)),
            }
        }
        (bets, None)
    }

    /// Checks `bets` in their order and writes those that pass in one call of the
    /// books; each is answered (a view showing it, or a refusal naming its id).
    pub(super) fn bets(&mut self, bets: Vec<BetMsg>) -> Result<(), Fatal> {
        let mut ready: Vec<Ready> = Vec::new();
        for b in bets {
            let batched: BTreeSet<u8> = ready.iter().map(|r| r.seat).collect();
            match self.check_bet(&b, &batched)? {
                Checked::Ready(r) => ready.push(r),
                Checked::Answered => {}
                Checked::BalanceChanged => {
                    // The bets before it are written first, as if it had come alone
                    // after them: with one of them in, the round is no longer a
                    // window nobody has bet in.
                    self.write_bets(std::mem::take(&mut ready))?;
                    self.balance_changed(b.conn, &b.id);
                }
            }
        }
        self.write_bets(ready)
    }

    /// The table's checks of a bet, in order; a refusal is sent here. `batched`: the
    /// engine seats whose bet is waiting to be written with this one.
    fn check_bet(&mut self, b: &BetMsg, batched: &BTreeSet<u8>) -> Result<Checked, Fatal> {
        let (conn, player, id) = (b.conn, b.player.as_str(), b.id.as_str());
        let Some(r) = self.round.as_ref() else {
            self.refuse(conn, Code::NotBetting, "no round takes bets now", Some(id));
            return Ok(Checked::Answered);
        };
        if r.live.engine.phase() != Phase::Betting {
            let m = "bets are closed: the cards are out";
            self.refuse(conn, Code::NotBetting, m, Some(id));
            return Ok(Checked::Answered);
        }
        let Some(e) = self.engine_seat(player) else {
            let m = if self.seat_of(player).is_some() {
                "you sat down after this round opened: bet in the next one"
            } else {
                "take a seat to bet"
            };
            self.refuse(conn, Code::NotSeated, m, Some(id));
            return Ok(Checked::Answered);
        };
        let now = self.clock.now_ms();
        let due = self.books.read(|s| self.reality.due(s, player, now));
        if due.as_ref().is_ok_and(|d| *d) {
            let m = "a reality check waits for your answer: continue or log out, then bet";
            self.refuse(conn, Code::RealityCheck, m, Some(id));
            return Ok(Checked::Answered);
        }
        if let Err(e) = due {
            // A check that cannot be read is not passed.
            tracing::error!(%player, error = %e, "the reality check could not be read");
            let m = "your reality check cannot be read now: nothing was staked; try again";
            self.refuse(conn, Code::Refused, m, Some(id));
            return Ok(Checked::Answered);
        }
        let has_bet = self.round.as_ref().is_some_and(|r| r.bet.contains(&e));
        if has_bet || batched.contains(&e) {
            let m = "you have bet in this round already";
            self.refuse(conn, Code::AlreadyBet, m, Some(id));
            return Ok(Checked::Answered);
        }
        let Some(actions) = self.bet_actions(conn, e, &b.spots, id) else {
            return Ok(Checked::Answered);
        };
        let wagers = actions.iter().filter_map(|a| match a {
            Action::Bet { amount, .. } | Action::SideBet { amount, .. } => Some(*amount),
            _ => None,
        });
        let staked = wagers.clone().fold(Money::ZERO, |t, a| t + a);
        let largest = wagers.max().unwrap_or(Money::ZERO);
        if !self.may_stake(conn, player, (Some(staked), Some(largest)), id) {
            return Ok(Checked::Answered);
        }
        if self.wallet.is_some() {
            let staking = Staking::Bet(actions);
            self.stake_through_wallet(conn, player, e, b.round, id, staking, b.at)?;
            return Ok(Checked::Answered);
        }
        if !self.balance_unchanged(player, e) {
            return Ok(Checked::BalanceChanged);
        }
        Ok(Checked::Ready(Ready {
            conn,
            seat: e,
            round: b.round,
            id: b.id.clone(),
            actions,
            at: b.at,
        }))
    }

    /// The engine's actions of a bet on `spots` by engine seat `e`, or `None` (refused
    /// here) for a spot not the player's or a side bet the game does not have.
    fn bet_actions(
        &mut self,
        conn: u64,
        e: u8,
        spots: &[SpotBet],
        id: &str,
    ) -> Option<Vec<Action>> {
        let max_spots = self.cfg.rules.table().max_spots_per_player;
        let mut actions = Vec::new();
        let mut seen = BTreeSet::new();
        for s in spots {
            if !(1..=max_spots).contains(&s.spot) || !seen.insert(s.spot) {
                let m = format!(
                    "spot {} is not yours to bet: each of spots 1 to {max_spots} once",
                    s.spot
                );
                self.refuse(conn, Code::Refused, &m, Some(id));
                return None;
            }
            actions.push(Action::Bet {
                seat: e,
                spot: s.spot - 1,
                amount: s.main,
            });
            for (side, amount) in &s.side {
                let Some(bet) = self.ctx.table.side_bet_index(side) else {
                    let ids: Vec<&str> = self.side_names.iter().map(|(i, _)| i.as_str()).collect();
                    let m = format!(
                        "this game has no side bet `{side}` (it has: {})",
                        if ids.is_empty() {
                            "none".to_string()
                        } else {
                            ids.join(", ")
                        }
                    );
                    self.refuse(conn, Code::Refused, &m, Some(id));
                    return None;
                };
                if *amount == Money::ZERO {
                    continue;
                }
                actions.push(Action::SideBet {
                    seat: e,
                    spot: s.spot - 1,
                    bet,
                    amount: *amount,
                });
            }
        }
        Some(actions)
    }

    /// Writes `ready` in one call of the books (each its own step), then answers each:
    /// one view shows every bet written; a refused one is told why.
    fn write_bets(&mut self, ready: Vec<Ready>) -> Result<(), Fatal> {
        if ready.is_empty() {
            return Ok(());
        }
        let Some(r) = self.round.as_mut() else {
            for b in &ready {
                self.refuse(
                    b.conn,
                    Code::NotBetting,
                    "no round takes bets now",
                    Some(&b.id),
                );
            }
            return Ok(());
        };
        let ctx = &self.ctx;
        let written = self.books.with(|s| {
            let mut out = Vec::with_capacity(ready.len());
            for b in &ready {
                // A bet names the round its betting window announced; another table
                // may have taken that id in the books.
                let round = if r.announced.contains(&b.round) {
                    r.live.id
                } else {
                    b.round
                };
                let stepped = r.live.step_batch(s, ctx, round, &b.id, &b.actions);
                let failed = stepped.is_err();
                out.push(stepped);
                if failed {
                    // The round is void or the books failed: the rest is not written.
                    break;
                }
            }
            Ok::<_, SessionError>(out)
        });
        let results = written.map_err(|e| e.to_string())?;
        let mut events = Vec::new();
        let mut first_at: Option<Instant> = None;
        let mut fatal = None;
        let mut reopened = false;
        let mut taken = 0;
        let unwritten = ready.len() - results.len();
        let mut bets = ready.into_iter();
        for (b, stepped) in bets.by_ref().zip(results) {
            match stepped {
                Ok(Stepped::Done(ev)) => {
                    if let Some(r) = self.round.as_mut() {
                        r.bet.insert(b.seat);
                    }
                    events.extend(ev);
                    first_at = Some(first_at.map_or(b.at, |a| a.min(b.at)));
                    taken += 1;
                }
                Ok(other) => self.refuse_stepped(b.conn, other, &b.id),
                // The round's first bet could not be written once the round was: the
                // books voided it (nobody else had bet). The bet is refused and a new
                // window opens; the table goes on.
                Err(SessionError::NotOpened { round, why }) => {
                    tracing::warn!(table = %self.cfg.name, round = round.0, %why, "a round's first bet was not written: the round is void");
                    self.round = None;
                    self.timer = None;
                    reopened = true;
                    self.refuse(b.conn, Code::Refused, NOT_TAKEN, Some(&b.id));
                }
                Err(e) => fatal = Some(e.to_string()),
            }
        }
        debug_assert!(unwritten == 0 || reopened || fatal.is_some());
        for b in bets {
            self.refuse(b.conn, Code::Refused, NOT_TAKEN, Some(&b.id));
        }
        if taken > 0 {
            // The round is in the books: a stacked shoe is dealt by it alone.
            self.stacked = None;
            self.metrics.actions.inc_by(taken);
            self.publish_info();
            self.broadcast(&events, first_at);
        } else if reopened {
            self.publish_info();
        }
        if let Some(e) = fatal {
            return Err(e);
        }
        if taken > 0 {
            // Betting closes by itself when every player of the round has bet.
            self.deal_if_all_bet()?;
        }
        Ok(())
    }

    /// Whether the player's wallet in the books still holds what the round set them
    /// up with (it moves only through this table while they sit here, but a player can
    /// leave and come back, and a deposit can arrive).
    fn balance_unchanged(&self, player: &str, e: u8) -> bool {
        let Some(r) = self.round.as_ref() else {
            return false;
        };
        let round_has = r.live.engine.balance(e);
        let books = self
            .books
            .read(|s| s.balance(&Account::player(player)).ok());
        books.is_some() && books == round_has
    }

    /// A bet refused for a balance that changed since the round set the player up: a
    /// window nobody has bet in is set up again with the books' balances; else the
    /// player bets in the next round.
    fn balance_changed(&mut self, conn: u64, id: &str) {
        let pending = self.round.as_ref().is_some_and(|r| r.live.is_pending());
        let m = if pending {
            "your balance changed since this betting window opened: the window opens again \
             with your balance as it is now; bet again"
        } else {
            "your balance changed since this round opened: this round is dealt without you; \
             bet in the next one"
        };
        self.refuse(conn, Code::BalanceChanged, m, Some(id));
        if pending {
            self.drop_pending();
            self.timer = None;
            self.broadcast(&[], None);
        }
    }
}

/// Why a bet was not taken when its round's first bet could not be written.
const NOT_TAKEN: &str =
    "your bet could not be taken: nothing was staked; the betting window opens again";

#[cfg(test)]
mod tests {
    use super::super::{build, Services, TableHandle};
    use super::*;
    use crate::books::Books;
    use crate::metrics::Metrics;
    use crate::protocol::VERSION;
    use std::sync::Arc;

    fn preset(name: &str) -> Result<felt_core::Rules, String> {
        match felt_core::presets::load(name) {
            Some(r) => r.map_err(|e| e.to_string()),
            None => Err(format!("no game `{name}`")),
        }
    }

    /// Every frame waiting in a connection's outbox, as JSON.
    fn frames(rx: &mut tokio::sync::mpsc::Receiver<Arc<str>>) -> Vec<serde_json::Value> {
        std::iter::from_fn(|| rx.try_recv().ok())
            .map(|f| serde_json::from_str(&f).unwrap())
            .collect()
    }

    fn balance(books: &Books, player: &str) -> Money {
        books.read(|s| s.balance(&Account::player(player))).unwrap()
    }

    #[test]
    fn bets_waiting_together_are_written_under_one_commit_and_shown_in_one_view_and_a_refused_one_changes_nothing(
    ) {
        let dir = tempfile::tempdir().unwrap();
        let store = felt_store::SqliteStore::open(dir.path().join("felt.db")).unwrap();
        let metrics = Arc::new(Metrics::new());
        let books = Books::new(Box::new(store), metrics.clone());
        let players = ["alice", "bob", "carol"];
        let start = Money::cents(100_000);
        for p in players {
            books.with(|s| s.deposit(p, start)).unwrap();
        }
        let text = "[[table]]\nname = \"t\"\ngame = \"classic\"\n";
        let cfg = crate::config::parse(text, std::path::Path::new("t.toml"), &preset).unwrap();
        let cfg = cfg.into_iter().next().unwrap();
        let (min, max) = (cfg.rules.main_bet().min, cfg.rules.main_bet().max);
        let services = Services {
            books: books.clone(),
            metrics,
            clock: Arc::new(crate::clock::Clock::system()),
            reality: Arc::new(crate::reality::Checks::new(Default::default())),
            life: crate::logged_in::Life {
                idle_ms: 3_600_000,
                max_ms: 86_400_000,
            },
            wallet: None,
        };
        let (mut actor, handle, rx): (Actor, TableHandle, _) = build(cfg, services).unwrap();
        let mut outs = Vec::new();
        for (conn, p) in players.iter().enumerate() {
            let (out, frames) = tokio::sync::mpsc::channel(256);
            outs.push(frames);
            let join = ToTable::Join {
                conn: conn as u64,
                player: p.to_string(),
                out,
                last_seq: None,
                version: VERSION,
            };
            actor.handle(join).unwrap();
        }
        let at = Instant::now();
        for conn in 0..3 {
            handle
                .send_message(conn, ClientMsg::Sit { seat: None }, at)
                .unwrap();
        }
        while let Ok(m) = rx.try_recv() {
            actor.handle(m).unwrap();
        }
        // The betting window opens.
        actor.advance().unwrap();
        let round = actor.round_id();
        for p in players {
            assert!(actor.engine_seat(p).is_some(), "{p} is not in the round");
        }
        outs.iter_mut().for_each(|o| drop(frames(o)));

        // Four bets wait in the inbox together: alice's, bob's over the table's
        // limit, carol's, and alice's again.
        let bet = |conn: u64, id: &str, main: Money| ToTable::Msg {
            conn,
            msg: ClientMsg::Bet {
                round: round.0,
                id: id.to_string(),
                spots: vec![SpotBet {
                    spot: 1,
                    main,
                    side: Default::default(),
                }],
            },
            at,
        };
        let over = max + Money::cents(100);
        for m in [
            bet(0, "a1", min),
            bet(1, "b1", over),
            bet(2, "c1", min),
            bet(0, "a2", min),
        ] {
            let ToTable::Msg { conn, msg, at } = m else {
                unreachable!()
            };
            handle.send_message(conn, msg, at).unwrap();
        }
        drop(handle);
        let commits = |b: &Books| b.groups_ended();
        let before = commits(&books);
        // The table takes them as it runs, and stops when its inbox is gone.
        actor.run(rx);
        assert_eq!(
            commits(&books) - before,
            1,
            "the bets were not written under one commit"
        );

        let [alice, bob, carol] = [0, 1, 2].map(|i| frames(&mut outs[i]));
        let kinds = |fs: &[serde_json::Value]| -> Vec<String> {
            fs.iter()
                .map(|f| match f["type"].as_str().unwrap() {
                    "error" => format!("error {} {}", f["code"], f["id"]),
                    k => k.to_string(),
                })
                .collect()
        };
        // Each sees the bets written in one view; the refused are told, by id.
        assert_eq!(
            kinds(&alice),
            ["error \"already-bet\" \"a2\"", "view"],
            "{alice:?}"
        );
        assert_eq!(kinds(&bob), ["error \"refused\" \"b1\"", "view"], "{bob:?}");
        assert_eq!(kinds(&carol), ["view"], "{carol:?}");
        let view = carol.last().unwrap();
        let has_bet: Vec<bool> = view["seats"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| s["has_bet"].as_bool().unwrap_or(false))
            .collect();
        assert_eq!(has_bet.iter().filter(|b| **b).count(), 2, "{view}");
        // The books: alice and carol staked once, bob nothing.
        assert_eq!(balance(&books, "alice"), start - min);
        assert_eq!(balance(&books, "carol"), start - min);
        assert_eq!(balance(&books, "bob"), start);
        let report = books.read(|r| r.check_books()).unwrap();
        assert!(report.is_sound(), "{report}");
    }
}
