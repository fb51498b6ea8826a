//! Which frame answers an action a bot sent: the latency the bots report runs
//! from the moment an action is sent to the arrival of the frame that answers it.

use super::frame::Frame;
use std::time::Instant;

/// What answers an action.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Awaits {
    /// A bet: a view in which the bot's seat has bet, or betting is over.
    Bet,
    /// A turn's decision on hand `hand` of spot `spot` in round `round`, sent with
    /// `cards` cards face up: a view in which that hand is no longer asked with
    /// those cards.
    Turn {
        round: i64,
        spot: u64,
        hand: u64,
        cards: usize,
    },
    /// An offer's answer (insurance, even money, early surrender): its `accepted`
    /// (the view waits for every spot's answer: the other players, not the
    /// server), or a view with the offer closed.
    Offer { spot: u64, hand: u64 },
}

/// What kind of action a latency is of (its answer differs: see [`Awaits`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Kind {
    /// A bet answered by a view.
    Bet,
    /// A turn's decision answered by a view.
    Turn,
    /// An offer's answer, answered by its `accepted`.
    Offer,
    /// Any action the server refused (its `error`).
    Refused,
}

impl Kind {
    /// Every kind, in the report's order.
    pub const ALL: [Kind; 4] = [Kind::Bet, Kind::Turn, Kind::Offer, Kind::Refused];

    /// Its name in the report (`latency_by_kind_ms`).
    pub fn name(self) -> &'static str {
        match self {
            Kind::Bet => "bet",
            Kind::Turn => "turn",
            Kind::Offer => "offer",
            Kind::Refused => "refused",
        }
    }
}

/// Latencies (ms) by kind of action.
#[derive(Debug, Clone, Default)]
pub struct Latencies {
    by_kind: [Vec<f64>; 4],
}

impl Latencies {
    /// One latency of `kind`.
    pub fn push(&mut self, kind: Kind, ms: f64) {
        self.by_kind[kind as usize].push(ms);
    }

    /// Those of `kind`.
    pub fn of(&self, kind: Kind) -> &[f64] {
        &self.by_kind[kind as usize]
    }

    /// Every latency, whatever its kind.
    pub fn all(&self) -> Vec<f64> {
        self.by_kind.concat()
    }

    /// Adds `o`'s.
    pub fn extend(&mut self, o: Latencies) {
        for (a, b) in self.by_kind.iter_mut().zip(o.by_kind) {
            a.extend(b);
        }
    }
}

/// An action sent and not yet answered.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pending {
    pub id: String,
    pub at: Instant,
    pub awaits: Awaits,
}

/// A frame that may answer actions.
pub enum Came<'f, 'a> {
    View(&'f Frame<'a>),
    /// An `accepted` naming the action's id.
    Reply(&'f str),
    /// An `error` naming the action's id.
    Refusal(&'f str),
}

impl Awaits {
    fn answered_by(&self, v: &Frame<'_>) -> bool {
        let asked = |offer: bool, spot: u64, hand: u64| {
            v.you.as_ref().is_some_and(|y| {
                y.decisions
                    .iter()
                    .any(|d| d.offer == offer && d.spot == spot && d.hand == hand)
            })
        };
        match *self {
            Awaits::Bet => {
                let betting = v.round.as_ref().is_none_or(|r| r.phase == "betting");
                v.has_bet() || (v.in_play && !betting)
            }
            Awaits::Turn {
                round,
                spot,
                hand,
                cards,
            } => {
                v.round_id != Some(round)
                    || v.cards_on_table() != cards
                    || !asked(false, spot, hand)
            }
            Awaits::Offer { spot, hand } => !asked(true, spot, hand),
        }
    }
}

/// Times the actions a frame that came at `came_at` answers, and forgets them.
/// An action sent after the frame came (while the bot waited for its pace) waits
/// for a later frame.
pub fn time_answers(
    pending: &mut Vec<Pending>,
    came_at: Instant,
    came: Came<'_, '_>,
    latencies: &mut Latencies,
) {
    pending.retain(|p| {
        let answered = p.at <= came_at
            && match came {
                Came::View(v) => p.awaits.answered_by(v),
                Came::Reply(id) | Came::Refusal(id) => p.id == id,
            };
        if answered {
            let kind = match (&came, &p.awaits) {
                (Came::Refusal(_), _) => Kind::Refused,
                (_, Awaits::Bet) => Kind::Bet,
                (_, Awaits::Turn { .. }) => Kind::Turn,
                (_, Awaits::Offer { .. }) => Kind::Offer,
            };
            latencies.push(kind, came_at.duration_since(p.at).as_secs_f64() * 1000.0);
        }
        !answered
    });
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    fn view(json: &str) -> Frame<'_> {
        serde_json::from_str(json).unwrap()
    }

    #[test]
    fn each_action_is_timed_to_the_frame_that_answers_it() {
        let t0 = Instant::now();
        let at = |ms: u64| t0 + Duration::from_millis(ms);
        let pending = |id: &str, ms: u64, awaits: Awaits| Pending {
            id: id.to_string(),
            at: at(ms),
            awaits,
        };
        let mut p = vec![
            pending("bet", 0, Awaits::Bet),
            pending("insure", 10, Awaits::Offer { spot: 1, hand: 1 }),
        ];
        let mut ms = Latencies::default();
        // another seat's bet: the view does not show this seat's bet
        let other = r#"{"type":"view","round_id":5,"in_play":false,
            "seats":[{"seat":1,"has_bet":false},{"seat":2,"has_bet":true}],
            "round":{"phase":"betting"},"you":{"seat":1}}"#;
        time_answers(&mut p, at(3), Came::View(&view(other)), &mut ms);
        assert!(ms.all().is_empty());
        let mine = other.replace(r#""seat":1,"has_bet":false"#, r#""seat":1,"has_bet":true"#);
        time_answers(&mut p, at(4), Came::View(&view(&mine)), &mut ms);
        assert_eq!(p.len(), 1);
        // the offer's answer: its accepted, not another reply
        time_answers(&mut p, at(12), Came::Reply("bet"), &mut ms);
        time_answers(&mut p, at(14), Came::Reply("insure"), &mut ms);
        assert!(p.is_empty());
        assert_eq!(ms.of(Kind::Bet), [4.0]);
        assert_eq!(ms.of(Kind::Offer), [4.0]);

        // a turn: answered once its hand has another card, not by a view sent before
        let turn = Awaits::Turn {
            round: 5,
            spot: 1,
            hand: 1,
            cards: 3,
        };
        let mut p = vec![pending("hit", 20, turn)];
        let asked = r#"{"type":"view","round_id":5,"in_play":true,
            "seats":[{"seat":1,"has_bet":true}],
            "round":{"phase":"turns","spots":[{"seat":1,"spot":1,"hands":[{"hand":1,"cards":["7h","5d"]}]}],
              "dealer":{"cards":["Ts"]}},
            "you":{"seat":1,"decisions":[{"spot":1,"hand":1,"choices":[{"decision":"hit"}]}]}}"#;
        // a view that came before the hit was sent answers nothing
        time_answers(&mut p, at(19), Came::View(&view(asked)), &mut ms);
        // the same cards, the hand still asked: not answered
        time_answers(&mut p, at(22), Came::View(&view(asked)), &mut ms);
        assert_eq!(p.len(), 1);
        let dealt = asked.replace(r#"["7h","5d"]"#, r#"["7h","5d","2c"]"#);
        time_answers(&mut p, at(27), Came::View(&view(&dealt)), &mut ms);
        assert!(p.is_empty());
        assert_eq!(ms.of(Kind::Turn), [7.0]);

        // a refused action: timed to its error, as a refusal
        let mut p = vec![pending("late", 30, Awaits::Bet)];
        time_answers(&mut p, at(33), Came::Refusal("late"), &mut ms);
        assert!(p.is_empty());
        assert_eq!(ms.of(Kind::Refused), [3.0]);
        assert_eq!(ms.all().len(), 4);
    }
}
