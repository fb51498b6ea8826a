//! The table with an operator's wallet (`felt serve --wallet`, `docs/operators.md`):
//! a bet, or an action that stakes money (a double, a split, insurance), is written as a debit to
//! the books' outbox and sent from the async runtime; the table goes on serving views,
//! timers and other players meanwhile, and the bet or action is stepped into the round
//! when the debit's answer comes back ([`ToTable::Wallet`]), with the money it brought
//! into the player's mirror account. A refused or lost debit refuses the bet or action
//! (a lost one is rolled back by the books). The betting window and the decision timer
//! wait while a debit is in flight (bounded by the wallet client's timeout).

use super::{Actor, Fatal, Stepped, TimerKind, ToTable};
use crate::protocol::Code;
use crate::wallet::client::Outcome;
use crate::wallet::outbox::{answer_of, now_ms};
use crate::wallet::table::{self as wt, Answered, Stake};
use felt_core::round::HandRef;
use felt_core::{Action, Decision, Money};
use felt_session::journal::{self, Closing, Extra};
use felt_store::{debit_id, RoundId, WalletAnswer, WalletCallKind, WalletQuery, WalletState};
use std::time::{Duration, Instant};

/// Why a debit the operator took is refused all the same.
const UNUSED: &str = "the operator's answer came too late for the round: nothing was staked \
                      (the debit is rolled back)";

/// Whether debit `id` of `round` still awaits its answer in the books (not marked lost
/// by an outbox worker meanwhile).
fn still_pending(s: &mut dyn felt_store::Store, round: RoundId, id: &str) -> Result<bool, String> {
    let query = WalletQuery {
        round: Some(round),
        state: Some(WalletState::Pending),
        ..WalletQuery::default()
    };
    let calls = s.wallet_calls(&query).map_err(|e| e.to_string())?;
    Ok(calls
        .iter()
        .any(|c| c.transaction_id == id && c.rollback.is_none()))
}

/// How soon a timer that waits for a debit looks again.
const RECHECK: Duration = Duration::from_millis(50);

/// What a debit in flight pays for.
pub(super) enum Staking {
    /// A player's bets (every wager of every spot).
    Bet(Vec<Action>),
    /// A double, a split.
    Act(Action),
    /// Insurance of a hand, answered in the offer window: the acknowledged debit's
    /// money goes into the step at the window's close.
    Insure {
        /// The insured hand.
        at: HandRef,
        /// The insurance bet.
        amount: Money,
    },
}

/// A debit sent, its answer awaited.
pub(super) struct InFlight {
    conn: u64,
    player: String,
    /// The player's engine seat.
    seat: u8,
    round: RoundId,
    /// The client's id of the bet or action.
    id: String,
    staking: Staking,
    amount: Money,
    at: Instant,
}

impl Actor {
    /// Whether a debit of this table awaits its answer.
    pub(super) fn debit_in_flight(&self) -> bool {
        !self.debits.is_empty()
    }

    /// Whether a debit of `player` awaits its answer (the view shows the bet pending).
    pub(super) fn debit_pending(&self, player: &str) -> bool {
        self.debits.values().any(|d| d.player == player)
    }

    /// A timer that ran out while a debit is in flight looks again shortly (the
    /// debit's answer comes within the wallet client's timeout).
    pub(super) fn wait_for_debits(&mut self, kind: TimerKind) -> bool {
        if !self.debit_in_flight() {
            return false;
        }
        self.timer = Some((Instant::now() + RECHECK, kind));
        true
    }

    /// The closing credits, with the wallet.
    pub(super) fn closing(&self) -> Option<Closing> {
        self.wallet.as_ref().map(|_| wt::closing as Closing)
    }

    /// The balances a new round sets its players up with: with the wallet, the
    /// operator's last answers (asked for now if unknown: the window is set up again
    /// when it comes); `None` without (the books').
    pub(super) fn wallet_balances(&self, players: &[String]) -> Option<Vec<Money>> {
        let w = self.wallet.as_ref()?;
        Some(
            players
                .iter()
                .map(|p| {
                    w.balances.get(p).unwrap_or_else(|| {
                        if let Some(inbox) = &self.inbox {
                            w.fetch_balance(
                                p,
                                inbox.clone(),
                                ToTable::Deposited { player: p.clone() },
                            );
                        }
                        Money::ZERO
                    })
                })
                .collect(),
        )
    }

    /// The player's balance outside a round: the operator's last answer with the
    /// wallet, else the books'.
    pub(super) fn balance_now(&self, player: &str) -> Option<Money> {
        match &self.wallet {
            Some(w) => w.balances.get(player),
            None => self
                .books
                .read(|s| s.balance(&felt_store::Account::player(player)))
                .ok(),
        }
    }

    /// Whether `action` of engine seat `seat` takes money (a double, a split).
    pub(super) fn stakes_money(&self, seat: u8, action: Action) -> bool {
        self.wallet.is_some()
            && self.round.as_ref().is_some_and(|r| {
                matches!(
                    wt::stake_of(&r.live.engine, &self.ctx, seat, &[action]),
                    Ok(Some(_))
                )
            })
    }

    /// Writes the debit of a bet or action to the outbox and sends it; the bet or
    /// action waits for the answer. Whether it was sent (else the player was told
    /// why not).
    #[allow(clippy::too_many_arguments)]
    pub(super) fn stake_through_wallet(
        &mut self,
        conn: u64,
        player: &str,
        seat: u8,
        round: RoundId,
        id: &str,
        staking: Staking,
        at: Instant,
    ) -> Result<bool, Fatal> {
        let (Some(wallet), Some(inbox)) = (self.wallet.clone(), self.inbox.clone()) else {
            return Ok(false);
        };
        if self.debits.values().any(|d| d.player == player) {
            let m = "your last bet or action waits for the operator's wallet: wait for its answer";
            self.refuse(conn, Code::WalletPending, m, Some(id));
            return Ok(false);
        }
        let Some(r) = self.round.as_mut() else {
            return Ok(false);
        };
        if round != r.live.id && !r.announced.contains(&round) {
            let s = Stepped::OtherRound {
                asked: round,
                current: r.live.id,
            };
            self.refuse_stepped(conn, s, id);
            return Ok(false);
        }
        let stake = match &staking {
            // The offer window steps its answers at its close, in seat order: the
            // insurance bet is the stake (the window checked it against the offer).
            Staking::Insure { at, amount } => Ok(Some(wt::insurance_stake(at.spot, *amount))),
            Staking::Bet(a) => wt::stake_of(&r.live.engine, &self.ctx, seat, a),
            Staking::Act(a) => wt::stake_of(&r.live.engine, &self.ctx, seat, &[*a]),
        };
        let stake: Stake = match stake {
            Ok(Some(s)) => s,
            Ok(None) => {
                self.refuse(conn, Code::Refused, "nothing to stake", Some(id));
                return Ok(false);
            }
            Err(e) => {
                self.refuse_stepped(conn, Stepped::Refused(e), id);
                return Ok(false);
            }
        };
        let due_again = now_ms()
            .saturating_add(
                i64::try_from(wallet.client.settings().timeout.as_millis()).unwrap_or(0),
            )
            .saturating_add(2_000);
        let ctx = &self.ctx;
        let call = self
            .books
            .with(|s| -> Result<felt_store::NewWalletCall, String> {
                r.live.open_now(s, ctx).map_err(|e| e.to_string())?;
                let round = r.live.id;
                let prefix = debit_id(round, seat, 0);
                let prefix = prefix.trim_end_matches('0');
                let query = WalletQuery {
                    round: Some(round),
                    ..WalletQuery::default()
                };
                let n = s
                    .wallet_calls(&query)
                    .map_err(|e| e.to_string())?
                    .iter()
                    .filter(|c| {
                        c.kind == WalletCallKind::Debit && c.transaction_id.starts_with(prefix)
                    })
                    .count();
                let n = u32::try_from(n).unwrap_or(u32::MAX).saturating_add(1);
                let call = wt::debit_call(&debit_id(round, seat, n), player, &stake)?;
                s.record_wallet_calls(round, std::slice::from_ref(&call))
                    .map_err(|e| e.to_string())?;
                s.wallet_attempt(&call.transaction_id, due_again)
                    .map_err(|e| e.to_string())?;
                Ok(call)
            })?;
        let round = r.live.id;
        wallet.send_debit(
            wt::debit_request(&call, round, &stake),
            inbox,
            ToTable::Wallet,
        );
        self.debits.insert(
            call.transaction_id.clone(),
            InFlight {
                conn,
                player: player.to_string(),
                seat,
                round,
                id: id.to_string(),
                staking,
                amount: call.amount,
                at,
            },
        );
        let amount = call.amount;
        self.send_to_player(player, |seq| {
            crate::frames::to_text(&crate::frames::Pending {
                kind: "pending",
                seq,
                id,
                amount,
            })
        });
        self.publish_info();
        Ok(true)
    }

    /// A debit's answer: the bet or action is stepped into the round with the money,
    /// or refused with the operator's reason (or as lost: the books roll it back).
    pub(super) fn on_wallet_answer(&mut self, a: Answered) -> Result<(), Fatal> {
        let Some(d) = self.debits.remove(&a.transaction_id) else {
            return Ok(());
        };
        let answer = answer_of(WalletCallKind::Debit, a.outcome.clone());
        let tx = a.transaction_id.clone();
        if let WalletAnswer::Acknowledged { balance } = answer {
            return self.step_funded(&tx, d, balance);
        }
        self.books
            .with(|s| s.wallet_answer(&tx, &answer))
            .map_err(|e| e.to_string())?;
        let (code, m) = match &a.outcome {
            Outcome::Refused(r) => (
                wt::code_of(r.error),
                format!("the operator refused it: {}", r.message),
            ),
            _ => (
                Code::WalletUnavailable,
                "the operator's wallet did not answer in time: nothing was staked (the debit \
                 is rolled back)"
                    .to_string(),
            ),
        };
        self.debit_not_taken(d, code, m)
    }

    /// A debit refused, lost, or taken and not used: the bet or action is refused with
    /// `code` and `m` (the books roll a lost or unused one back).
    fn debit_not_taken(&mut self, d: InFlight, code: Code, m: String) -> Result<(), Fatal> {
        let m = match d.staking {
            Staking::Insure { .. } => format!("you are not insured: {m}"),
            _ => m,
        };
        self.refuse(d.conn, code, &m, Some(&d.id));
        if let Staking::Insure { at, .. } = d.staking {
            // Not insured: the answer is a decline, and the window may close.
            self.answer_funded(d.seat, at, Decision::Decline, Extra::default());
        }
        if code == Code::PlayerBlocked {
            // The operator says the player may not play: the seat ends (at once, or
            // when the round the player is in ends).
            self.end_seat(&d.player, m)?;
            // A round its refused debits wrote, with nobody left to bet in it, is
            // voided now rather than at the window's close: whoever sits next starts a
            // new window.
            let unbet = self.round.as_ref().is_some_and(|r| r.bet.is_empty());
            if unbet && self.debits.is_empty() && self.seats.iter().all(Option::is_none) {
                self.void_unbet()?;
                self.timer = None;
                self.broadcast(&[], None);
            }
        }
        if matches!(d.staking, Staking::Insure { .. }) {
            self.broadcast(&[], None);
            return self.close_window_if_ready();
        }
        if matches!(d.staking, Staking::Act(_)) {
            // The hand stays to play: its decision timer starts again.
            if let Some(r) = self.round.as_mut() {
                r.timed = None;
            }
            return self.after_step(Vec::new(), None);
        }
        self.broadcast(&[], None);
        // A bet not taken: the others may have been waiting only for its debit.
        self.deal_if_all_bet()
    }

    /// The offer window's answer of engine seat `seat` for hand `at` becomes
    /// `decision`, stepped with `funding` at the window's close.
    fn answer_funded(&mut self, seat: u8, at: HandRef, decision: Decision, funding: Extra) {
        let answers = self
            .round
            .as_mut()
            .and_then(|r| r.window.as_mut())
            .and_then(|w| w.answers.get_mut(&(seat, at.spot, at.hand)));
        if let Some(a) = answers {
            a.decision = decision;
            a.funding = funding;
        }
    }

    /// An acknowledged debit no step may use: recorded as lost (so the books roll it
    /// back), and its bet or action refused.
    fn taken_unused(&mut self, debit: &str, d: InFlight, detail: &str) -> Result<(), Fatal> {
        let lost = WalletAnswer::Lost {
            detail: detail.to_string(),
        };
        self.books
            .with(|s| s.wallet_answer(debit, &lost))
            .map_err(|e| e.to_string())?;
        self.debit_not_taken(d, Code::WalletUnavailable, UNUSED.into())
    }

    /// Steps an acknowledged debit's bet or action into the round, with its money. The
    /// acknowledgement is recorded with the step, in one transaction of the books: a
    /// server killed before it, a step refused, or a table taken over by another server
    /// meanwhile leaves the debit with an unknown fate (or marks it lost), so it is
    /// rolled back, never kept by the operator with no bet in the round for it.
    fn step_funded(&mut self, debit: &str, d: InFlight, balance: Money) -> Result<(), Fatal> {
        let unused = |detail: String| WalletAnswer::Lost { detail };
        if self.round.as_ref().is_none_or(|r| r.live.id != d.round) {
            tracing::warn!(table = %self.cfg.name, debit = %d.id, "a debit was acknowledged for a round no longer in play: it is rolled back");
            return self.taken_unused(debit, d, "acknowledged for a round no longer in play");
        }
        if let Staking::Insure { at, amount } = d.staking {
            return self.insured(debit, d, at, amount, balance);
        }
        if matches!(d.staking, Staking::Bet(_)) && self.engine_seat(&d.player) != Some(d.seat) {
            // The player left the seat while the operator answered: no hand for them.
            return self.taken_unused(debit, d, "acknowledged after its player left the seat");
        }
        let Some(r) = self.round.as_mut() else {
            return Ok(());
        };
        r.live.funding = wt::funding(debit, &d.player, d.amount);
        let ctx = &self.ctx;
        let stepped = self.books.with(|s| -> Result<Option<Stepped>, String> {
            if !still_pending(s, d.round, debit)? {
                return Ok(None);
            }
            let stepped = match &d.staking {
                Staking::Bet(actions) => r.live.step_batch(s, ctx, d.round, &d.id, actions),
                Staking::Act(action) => r.live.step_client(s, ctx, d.round, &d.id, *action),
                // Stepped at the window's close (`insured`).
                Staking::Insure { .. } => Ok(Stepped::BadBatch),
            }
            .map_err(|e| e.to_string())?;
            let answer = match &stepped {
                Stepped::Done(_) => WalletAnswer::Acknowledged { balance },
                refused => unused(format!("acknowledged, its step refused: {refused}")),
            };
            s.wallet_answer(debit, &answer).map_err(|e| e.to_string())?;
            Ok(Some(stepped))
        });
        r.live.funding = Extra::default();
        let Some(stepped) = stepped? else {
            // Its fate was settled meanwhile (marked lost by an outbox worker).
            return self.debit_not_taken(d, Code::WalletUnavailable, UNUSED.into());
        };
        if let (Some(w), Stepped::Done(_)) = (&self.wallet, &stepped) {
            w.balances.set(&d.player, balance);
        }
        match (stepped, d.staking) {
            (Stepped::Done(events), Staking::Bet(_)) => {
                r.bet.insert(d.seat);
                self.stacked = None;
                self.metrics.actions.inc();
                self.publish_info();
                self.broadcast(&events, Some(d.at));
                self.deal_if_all_bet()
            }
            (Stepped::Done(events), Staking::Act(_)) => {
                self.metrics.actions.inc();
                r.timed = None;
                self.after_step(events, Some(d.at))
            }
            (other, staking) => {
                tracing::warn!(table = %self.cfg.name, debit = %d.id, refused = %other, "an acknowledged debit's step was refused: it is rolled back");
                self.refuse_stepped(d.conn, other, &d.id);
                if matches!(staking, Staking::Bet(_)) {
                    // The others may have been waiting only for this debit.
                    self.broadcast(&[], None);
                    return self.deal_if_all_bet();
                }
                Ok(())
            }
        }
    }

    /// An acknowledged insurance debit: recorded now, its money stepped with the
    /// answer at the offer window's close (a round that finishes without stepping it
    /// rolls it back in the books' finish, as any debit no step used).
    fn insured(
        &mut self,
        debit: &str,
        d: InFlight,
        at: HandRef,
        amount: Money,
        balance: Money,
    ) -> Result<(), Fatal> {
        let recorded = self.books.with(|s| -> Result<bool, String> {
            if !still_pending(s, d.round, debit)? {
                return Ok(false);
            }
            s.wallet_answer(debit, &WalletAnswer::Acknowledged { balance })
                .map_err(|e| e.to_string())?;
            Ok(true)
        })?;
        if !recorded {
            // Its fate was settled meanwhile (marked lost by an outbox worker).
            return self.debit_not_taken(d, Code::WalletUnavailable, UNUSED.into());
        }
        if let Some(w) = &self.wallet {
            w.balances.set(&d.player, balance);
        }
        let funding = wt::funding(debit, &d.player, d.amount);
        self.answer_funded(d.seat, at, Decision::Insure(amount), funding);
        self.broadcast(&[], None);
        self.close_window_if_ready()
    }

    /// A round a debit wrote to the books that no bet made it into (every debit
    /// refused or lost) is voided: its debits are rolled back and it is closed at the
    /// operator.
    pub(super) fn void_unbet(&mut self) -> Result<bool, Fatal> {
        let Some(r) = self.round.as_ref().filter(|r| !r.live.is_pending()) else {
            return Ok(false);
        };
        let id = r.live.id;
        self.books.with(|s| -> Result<(), String> {
            if let Some(rec) = s.round(id).map_err(|e| e.to_string())? {
                journal::void(s, &rec, "no bet was taken: its debits were refused or lost")
                    .map_err(|e| e.to_string())?;
            }
            Ok(())
        })?;
        self.round = None;
        self.wake_outbox();
        Ok(true)
    }

    /// The round's calls are due now: the outbox worker sends them.
    pub(super) fn wake_outbox(&self) {
        if let Some(w) = &self.wallet {
            w.wake.notify_one();
        }
    }
}
