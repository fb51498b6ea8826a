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

impl BetMsg {
    /// The bet `(round, id, spots)` connection `conn` of `player` sent at `at`.
    pub fn new(
        conn: u64,
        player: String,
        round: i64,
        id: String,
        spots: Vec<SpotBet>,
        at: Instant,
    ) -> BetMsg {
        BetMsg {
            conn,
            player,
            round: RoundId(round),
            id,
            spots,
            at,
        }
    }
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
    /// The player has a bet waiting to be written with this one (which the engine
    /// or the books may yet refuse).
    SameSeat,
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
                Ok(BetMsg::new(conn, player, round, id, spots, at))
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
    /// Each bet is answered as if it had come alone after those before it.
    pub(super) fn bets(&mut self, bets: Vec<BetMsg>) -> Result<(), Fatal> {
        let mut ready: Vec<Ready> = Vec::new();
        for b in bets {
            // As the table does before each message: a window set up again (a
            // balance changed) opens at once.
            if self.round.is_none() {
                self.advance()?;
            }
            let mut checked = self.check_bet(&b, &ready)?;
            if matches!(checked, Checked::BalanceChanged | Checked::SameSeat) && !ready.is_empty() {
                // What it depends on is not written yet (the player's own bet before
                // it, which may yet be refused; whether the round is still a window
                // nobody has bet in): the bets before it are written first, and it is
                // checked again.
                self.write_bets(std::mem::take(&mut ready))?;
                if self.round.is_none() {
                    self.advance()?;
                }
                checked = self.check_bet(&b, &[])?;
            }
            match checked {
                Checked::Ready(r) => ready.push(r),
                Checked::Answered => {}
                Checked::BalanceChanged => self.balance_changed(b.conn, &b.id),
                // Nothing is waiting with it once the rest is written.
                Checked::SameSeat => {
                    let m = "you have bet in this round already";
                    self.refuse(b.conn, Code::AlreadyBet, m, Some(&b.id));
                }
            }
        }
        self.write_bets(ready)
    }

    /// The table's checks of a bet, in order; a refusal is sent here. `waiting`: the
    /// bets waiting to be written with this one.
    fn check_bet(&mut self, b: &BetMsg, waiting: &[Ready]) -> Result<Checked, Fatal> {
        let (conn, player, id) = (b.conn, b.player.as_str(), b.id.as_str());
        // A connection dropped meanwhile (its outbox full): its messages go nowhere.
        if !self.conns.contains_key(&conn) {
            return Ok(Checked::Answered);
        }
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
        if self.round.as_ref().is_some_and(|r| r.bet.contains(&e)) {
            let m = "you have bet in this round already";
            self.refuse(conn, Code::AlreadyBet, m, Some(id));
            return Ok(Checked::Answered);
        }
        if waiting.iter().any(|r| r.seat == e) {
            return Ok(Checked::SameSeat);
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
        let mut taken_at = Vec::new();
        let mut fatal = None;
        let mut reopened = false;
        let mut taken = 0;
        let mut bets = ready.into_iter();
        for (b, stepped) in bets.by_ref().zip(results) {
            match stepped {
                Ok(Stepped::Done(ev)) => {
                    if let Some(r) = self.round.as_mut() {
                        r.bet.insert(b.seat);
                    }
                    events.extend(ev);
                    taken_at.push(b.at);
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
        let why = if fatal.is_some() {
            "your bet could not be written: nothing was staked; the table stops"
        } else {
            NOT_TAKEN
        };
        for b in bets {
            self.refuse(b.conn, Code::Refused, why, Some(&b.id));
        }
        if taken > 0 {
            // The round is in the books: a stacked shoe is dealt by it alone.
            self.stacked = None;
            self.metrics.actions.inc_by(taken);
            self.publish_info();
            self.broadcast(&events, None);
            // Each bet's time from its arrival to the view that shows it.
            for at in taken_at {
                self.metrics
                    .action_seconds
                    .observe(at.elapsed().as_secs_f64());
            }
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
    use serde_json::Value;
    use std::sync::Arc;

    fn preset(name: &str) -> Result<felt_core::Rules, String> {
        match felt_core::presets::load(name) {
            Some(r) => r.map_err(|e| e.to_string()),
            None => Err(format!("no game `{name}`")),
        }
    }

    const START: Money = Money::cents(100_000);

    /// A classic table whose players (connections 0, 1, ...) sit, with its betting
    /// window open; the bets are queued in its inbox and the table runs on them.
    struct Table {
        _dir: tempfile::TempDir,
        books: Books,
        actor: Actor,
        handle: TableHandle,
        rx: Receiver<ToTable>,
        outs: Vec<tokio::sync::mpsc::Receiver<Arc<str>>>,
        round: RoundId,
        min: Money,
        max: Money,
    }

    impl Table {
        fn open(players: &[&str]) -> Table {
            let dir = tempfile::tempdir().unwrap();
            let store = felt_store::SqliteStore::open(dir.path().join("felt.db")).unwrap();
            let metrics = Arc::new(Metrics::new());
            let books = Books::new(Box::new(store), metrics.clone());
            for p in players {
                books.with(|s| s.deposit(p, START)).unwrap();
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
            let (mut actor, handle, rx) = build(cfg, services).unwrap();
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
            for conn in 0..players.len() as u64 {
                let sit = ClientMsg::Sit { seat: None };
                handle.send_message(conn, sit, Instant::now()).unwrap();
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
            let mut t = Table {
                _dir: dir,
                books,
                actor,
                handle,
                rx,
                outs,
                round,
                min,
                max,
            };
            drain(&mut t.outs);
            t
        }

        /// Queues the bets `(conn, id, main)` together, runs the table on them until
        /// its inbox is gone; the frames each connection received and the commits.
        fn run(mut self, bets: &[(u64, &str, Money)]) -> (Vec<Vec<String>>, u64, Books) {
            for &(conn, id, main) in bets {
                let msg = ClientMsg::Bet {
                    round: self.round.0,
                    id: id.to_string(),
                    spots: vec![SpotBet {
                        spot: 1,
                        main,
                        side: Default::default(),
                    }],
                };
                self.handle.send_message(conn, msg, Instant::now()).unwrap();
            }
            let queued = self.handle.queued.clone();
            drop(self.handle);
            let before = self.books.groups_ended();
            self.actor.run(self.rx);
            assert_eq!(queued.load(Ordering::SeqCst), 0, "the inbox's count");
            let commits = self.books.groups_ended() - before;
            let all = drain(&mut self.outs);
            (all, commits, self.books)
        }
    }

    /// Every frame waiting in each connection's outbox: its type and the seats it
    /// shows with a bet, or an error's code and id.
    fn drain(outs: &mut [tokio::sync::mpsc::Receiver<Arc<str>>]) -> Vec<Vec<String>> {
        let mut all = Vec::new();
        for o in outs {
            let kinds = std::iter::from_fn(|| o.try_recv().ok())
                .map(|f| serde_json::from_str::<Value>(&f).unwrap())
                .map(|f| match f["type"].as_str().unwrap() {
                    "error" => format!("error {} {}", f["code"], f["id"]),
                    k => format!("{k} {}", bets_shown(&f)),
                })
                .collect();
            all.push(kinds);
        }
        all
    }

    /// The seats a view shows with a bet (`-` for none), e.g. `1,3`.
    fn bets_shown(f: &Value) -> String {
        let seats: Vec<String> = f["seats"]
            .as_array()
            .into_iter()
            .flatten()
            .filter(|s| s["has_bet"].as_bool() == Some(true))
            .map(|s| s["seat"].to_string())
            .collect();
        if seats.is_empty() {
            "-".to_string()
        } else {
            seats.join(",")
        }
    }

    fn balance(books: &Books, player: &str) -> Money {
        books.read(|s| s.balance(&Account::player(player))).unwrap()
    }

    fn sound(books: &Books) {
        let report = books.read(|r| r.check_books()).unwrap();
        assert!(report.is_sound(), "{report}");
    }

    #[test]
    fn bets_waiting_together_are_written_under_one_commit_and_shown_in_one_view_and_a_refused_one_changes_nothing(
    ) {
        let t = Table::open(&["alice", "bob", "carol"]);
        let (min, over) = (t.min, t.max + Money::cents(100));
        // Four bets wait in the inbox together: alice's, bob's over the table's
        // limit, carol's, and alice's again.
        let bets = [
            (0, "a1", min),
            (1, "b1", over),
            (2, "c1", min),
            (0, "a2", min),
        ];
        let (frames, commits, books) = t.run(&bets);
        assert_eq!(commits, 1, "the bets were not written under one commit");
        // Each sees the bets written in one view (seats 1 and 3); the refused are
        // told, by id, in the order they came (alice's second bet is checked once
        // her first is written: the engine might have refused that one).
        assert_eq!(
            frames,
            [
                vec!["view 1,3", "error \"already-bet\" \"a2\""],
                vec!["error \"refused\" \"b1\"", "view 1,3"],
                vec!["view 1,3"],
            ]
        );
        // The books: alice and carol staked once, bob nothing.
        assert_eq!(balance(&books, "alice"), START - min);
        assert_eq!(balance(&books, "carol"), START - min);
        assert_eq!(balance(&books, "bob"), START);
        sound(&books);
    }

    #[test]
    fn a_players_second_bet_waiting_behind_their_first_is_taken_when_the_first_is_refused() {
        // Bob bets nothing: the round is not dealt.
        let t = Table::open(&["alice", "bob", "carol"]);
        let (min, over) = (t.min, t.max + Money::cents(100));
        let bets = [(0, "a1", over), (0, "a2", min), (2, "c1", min)];
        let (frames, commits, books) = t.run(&bets);
        // a1 is written (and refused) before a2 is checked; a2 and c1 go together.
        assert_eq!(commits, 2);
        assert_eq!(
            frames,
            [
                vec!["error \"refused\" \"a1\"", "view 1,3"],
                vec!["view 1,3"],
                vec!["view 1,3"],
            ]
        );
        assert_eq!(balance(&books, "alice"), START - min);
        assert_eq!(balance(&books, "bob"), START);
        assert_eq!(balance(&books, "carol"), START - min);
        sound(&books);
    }

    #[test]
    fn a_bet_refused_for_a_changed_balance_sets_the_window_up_again_and_the_bets_behind_it_are_taken(
    ) {
        let t = Table::open(&["alice", "bob", "carol"]);
        let min = t.min;
        // Alice's balance moves after the window opened (a deposit).
        let more = Money::cents(500);
        t.books.with(|s| s.deposit("alice", more)).unwrap();
        let bets = [(1, "b1", min), (0, "a1", min), (2, "c1", min)];
        let (frames, _, books) = t.run(&bets);
        // Bob's bet is written before alice's is refused: the round is no longer a
        // window nobody has bet in, so alice bets in the next one, and carol's bet,
        // behind hers, is taken in this one.
        assert_eq!(
            frames,
            [
                vec!["view 2", "error \"balance-changed\" \"a1\"", "view 2,3"],
                vec!["view 2", "view 2,3"],
                vec!["view 2", "view 2,3"],
            ]
        );
        assert_eq!(balance(&books, "alice"), START + more);
        assert_eq!(balance(&books, "bob"), START - min);
        assert_eq!(balance(&books, "carol"), START - min);
        sound(&books);
    }

    #[test]
    fn a_bet_refused_for_a_changed_balance_in_an_empty_window_opens_it_again_and_the_next_bet_is_taken(
    ) {
        let t = Table::open(&["alice", "bob"]);
        let min = t.min;
        let more = Money::cents(500);
        t.books.with(|s| s.deposit("alice", more)).unwrap();
        let bets = [(0, "a1", min), (1, "b1", min), (0, "a2", min)];
        let (frames, _, books) = t.run(&bets);
        // Nobody had bet: the window is set up again with alice's new balance, and
        // bob's bet (naming the window as announced) and alice's next are taken.
        assert_eq!(frames[0][0], "error \"balance-changed\" \"a1\"");
        assert_eq!(frames[1].last().map(String::as_str), Some("view 1,2"));
        assert_eq!(balance(&books, "alice"), START + more - min);
        assert_eq!(balance(&books, "bob"), START - min);
        sound(&books);
    }
}
