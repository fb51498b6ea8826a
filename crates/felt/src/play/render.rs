//! Turning events and views into the lines a player reads.

use felt_core::round::{
    BetKind, Decision, Event, Move, Outcome, Place, Settlement, ShuffleWhy, Target, View, Why,
};
use felt_core::{Card, Money, Rules};

/// Names seats, spots, hands and side bets the way the table talks about them.
///
/// A spot's hands are named ("hand 1", "hand 2", ...) once the spot is split, the
/// first hand too, in every line: cards dealt, hands standing, settlements, questions.
/// An unsplit spot's lines name no hand. Side bets and insurance belong to the spot,
/// not to a hand, so their lines name the spot only. The names follow the round's
/// events: feed every event to [`Names::observe`] before rendering it.
pub struct Names<'a> {
    rules: &'a Rules,
    spots: u8,
    /// The spots of the current round that have been split: (seat, spot).
    split: Vec<(u8, u8)>,
    /// What the round's events have shown: every hand's cards, the dealer's.
    seen: Seen,
}

/// A spot: (seat, spot).
type SpotKey = (u8, u8);

/// The cards of the round as its events show them, to say "soft 17" and whether any
/// hand is left for the dealer to play against.
#[derive(Default)]
struct Seen {
    /// Each spot's hands' cards, as the engine holds them (a split inserts the new
    /// hand right after the one split).
    hands: Vec<(SpotKey, Vec<Vec<Card>>)>,
    /// The dealer's face-up cards, the hole card first once turned.
    dealer: Vec<Card>,
    /// Whether the hole card is turned.
    hole_turned: bool,
    /// Hands settled (their main stake) so far.
    settled: usize,
    /// Naturals settled so far (even money, or paid in turn).
    naturals_settled: usize,
    /// The spots paid even money.
    even_money: Vec<(u8, u8)>,
    /// The spots' insurance stakes, once settled.
    insurance_settled: Vec<((u8, u8), Money)>,
}

impl Seen {
    fn spot(&mut self, seat: u8, spot: u8) -> &mut Vec<Vec<Card>> {
        let i = match self.hands.iter().position(|(k, _)| *k == (seat, spot)) {
            Some(i) => i,
            None => {
                self.hands.push(((seat, spot), Vec::new()));
                self.hands.len() - 1
            }
        };
        &mut self.hands[i].1
    }

    fn observe(&mut self, e: &Event) {
        match e {
            Event::RoundStarted { .. } => *self = Seen::default(),
            Event::Dealt {
                to: Target::Player(p),
                card,
                side_bet_only: false,
                ..
            } => {
                let hands = self.spot(p.seat, p.spot);
                let h = usize::from(p.hand);
                if hands.len() <= h {
                    hands.resize(h + 1, Vec::new());
                }
                hands[h].push(*card);
            }
            Event::Dealt {
                to: Target::Dealer,
                card,
                face_up: true,
                ..
            } => self.dealer.push(*card),
            Event::HoleCardTurned { card, .. } => {
                self.dealer.insert(0, *card);
                self.hole_turned = true;
            }
            Event::Decided {
                at,
                decision: Decision::Split,
            } => {
                let hands = self.spot(at.seat, at.spot);
                let h = usize::from(at.hand);
                if let Some(second) = hands.get_mut(h).and_then(Vec::pop) {
                    hands.insert(h + 1, vec![second]);
                }
            }
            Event::Settled(s) if s.bet == BetKind::Insurance => {
                self.insurance_settled
                    .push(((s.at.seat, s.at.spot), s.stake));
            }
            Event::Settled(s) if s.bet == BetKind::Main => {
                self.settled += 1;
                if matches!(s.outcome, Outcome::EvenMoney | Outcome::Blackjack) {
                    self.naturals_settled += 1;
                }
                if s.outcome == Outcome::EvenMoney {
                    self.even_money.push((s.at.seat, s.at.spot));
                }
            }
            _ => {}
        }
    }

    /// Whether hand `p` is soft, as far as the events show.
    fn soft(&self, p: Place) -> bool {
        self.hands
            .iter()
            .find(|(k, _)| *k == (p.seat, p.spot))
            .and_then(|(_, hands)| hands.get(usize::from(p.hand)))
            .is_some_and(|c| felt_core::Hand::from_cards(c).is_soft())
    }

    fn dealer_soft(&self) -> bool {
        felt_core::Hand::from_cards(&self.dealer).is_soft()
    }

    /// Whether no hand is left for the dealer to play against: every hand dealt is
    /// settled (busted, surrendered, paid) or a natural, which the dealer's cards do
    /// not change.
    fn none_left(&self) -> bool {
        let hands: usize = self.hands.iter().map(|(_, h)| h.len()).sum();
        let naturals = self
            .hands
            .iter()
            .filter(|(_, h)| {
                h.len() == 1 && h[0].len() == 2 && felt_core::Hand::from_cards(&h[0]).total() == 21
            })
            .count();
        hands > 0 && self.settled + naturals.saturating_sub(self.naturals_settled) >= hands
    }
}

/// A total as a player reads it: "soft 17" when an ace counts 11 (a two-card 21 is
/// a blackjack, and says so elsewhere).
pub fn total_words(total: u8, soft: bool) -> String {
    if soft && total < 21 {
        format!("soft {total}")
    } else {
        total.to_string()
    }
}

impl<'a> Names<'a> {
    /// Names for this game with `spots` spots per seat.
    pub fn new(rules: &'a Rules, spots: u8) -> Self {
        Names {
            rules,
            spots,
            split: Vec::new(),
            seen: Seen::default(),
        }
    }

    /// Sets the spots per seat (a recovered round may have been dealt with another
    /// number than this session's).
    pub fn set_spots(&mut self, spots: u8) {
        self.spots = spots;
    }

    /// Follows the round: a new round forgets the splits, a split marks its spot.
    pub fn observe(&mut self, e: &Event) {
        self.seen.observe(e);
        match e {
            Event::RoundStarted { .. } => self.split.clear(),
            Event::Decided {
                at,
                decision: Decision::Split,
            } => self.mark_split(at.seat, at.spot),
            _ => {}
        }
    }

    /// Marks a spot as split (its hands are named from now on).
    pub fn mark_split(&mut self, seat: u8, spot: u8) {
        if !self.is_split(seat, spot) {
            self.split.push((seat, spot));
        }
    }

    /// Whether the spot has been split in this round.
    pub fn is_split(&self, seat: u8, spot: u8) -> bool {
        self.split.contains(&(seat, spot))
    }

    /// "Seat 1".
    pub fn seat(&self, seat: u8) -> String {
        format!("Seat {}", seat + 1)
    }

    /// "Seat 1" or "Seat 1 spot 2" (with several spots): the spot, never a hand.
    pub fn spot(&self, seat: u8, spot: u8) -> String {
        let mut s = self.seat(seat);
        if self.spots > 1 {
            s.push_str(&format!(" spot {}", spot + 1));
        }
        s
    }

    /// The hand at `p`: its spot, plus "hand N" when the spot is split (any hand past
    /// the first is a split hand, whatever the events said).
    pub fn hand(&self, p: Place) -> String {
        let mut s = self.spot(p.seat, p.spot);
        if p.hand > 0 || self.is_split(p.seat, p.spot) {
            s.push_str(&format!(" hand {}", u16::from(p.hand) + 1));
        }
        s
    }

    /// The display name of a side bet id.
    pub fn side_bet(&self, id: &str) -> String {
        self.rules
            .side_bets()
            .iter()
            .find(|b| b.id == id)
            .map_or_else(|| id.to_string(), |b| b.name.clone())
    }

    fn bet(&self, b: BetKind) -> String {
        match b {
            BetKind::Main => "Main bet".to_string(),
            BetKind::Double => "Double".to_string(),
            BetKind::Split => "Split".to_string(),
            BetKind::Insurance => "Insurance".to_string(),
            BetKind::Side(id) => self.side_bet(id.as_str()),
        }
    }
}

/// Cards with suit symbols, e.g. `7♥ 10♠`.
pub fn cards(cs: &[Card]) -> String {
    cs.iter().map(|c| c.pretty()).collect::<Vec<_>>().join(" ")
}

fn signed(m: Money) -> String {
    if m.as_cents() >= 0 {
        format!("+{m}")
    } else {
        m.to_string()
    }
}

/// The line an event prints, if the table says anything about it.
pub fn event_line(e: &Event, names: &Names<'_>) -> Option<String> {
    Some(match e {
        Event::Shuffled { why, cards } => match why {
            ShuffleWhy::NewShoe => format!("The dealer shuffles a new shoe ({cards} cards)."),
            ShuffleWhy::CutCard => {
                format!("The cut card came out: the dealer shuffles ({cards} cards).")
            }
            ShuffleWhy::Csm => "The shuffling machine reshuffles every card.".to_string(),
            ShuffleWhy::RackReshuffled => {
                format!("The shoe ran out: the discards are shuffled ({cards} cards).")
            }
        },
        Event::Burned { card, face_up } => {
            if *face_up {
                format!("Burn card: {}.", card.pretty())
            } else {
                "One card is burned face down.".to_string()
            }
        }
        Event::CutCardOut { .. } => "The cut card is out: last round of this shoe.".to_string(),
        Event::BetsClosed => "No more bets.".to_string(),
        Event::Dealt {
            to,
            card,
            face_up,
            side_bet_only,
        } => match to {
            Target::Dealer if !face_up => "Dealer: hole card, face down.".to_string(),
            // After the hole card, a card the dealer draws: with the total it makes.
            Target::Dealer if names.seen.hole_turned => {
                let cards = &names.seen.dealer;
                format!(
                    "Dealer draws {} (total {}).",
                    card.pretty(),
                    total_words(
                        felt_core::Hand::from_cards(cards).total(),
                        names.seen.dealer_soft()
                    )
                )
            }
            Target::Dealer => format!("Dealer: {}", card.pretty()),
            Target::Player(p) => {
                let extra = if *side_bet_only {
                    " (third card for the 7s bet only)"
                } else {
                    ""
                };
                format!("{}: {}{extra}", names.hand(*p), card.pretty())
            }
        },
        Event::Peeked { natural } => {
            if *natural {
                "The dealer checks the hole card: blackjack!".to_string()
            } else {
                "The dealer checks the hole card: no blackjack.".to_string()
            }
        }
        Event::HoleCardTurned { card, total } => {
            format!(
                "Dealer turns the hole card: {} (total {}).",
                card.pretty(),
                total_words(*total, names.seen.dealer_soft())
            )
        }
        Event::Stood { at, total } => {
            format!(
                "{} stands on {}.",
                names.hand(*at),
                total_words(*total, names.seen.soft(*at))
            )
        }
        Event::TimedOut { at } => format!("{}: the time to decide ran out.", names.hand(*at)),
        Event::DealerDone { total, busted } => {
            if *busted {
                format!("Dealer busts with {total}.")
            } else if names.seen.none_left() {
                "No hand is left in play: the dealer does not draw.".to_string()
            } else {
                format!(
                    "Dealer stands on {}.",
                    total_words(*total, names.seen.dealer_soft())
                )
            }
        }
        Event::Settled(s) => settlement_line(s, names),
        Event::Meter { change, why } => format!(
            "{} meter {:?}: {} -> {}",
            change.id.as_str(),
            why,
            change.before,
            change.after
        )
        .replace("Increment", "increment")
        .replace("Award", "award")
        .replace("Reset", "reset"),
        Event::Rounding { num, den, .. } => {
            format!("(a payout was rounded down: {num}/{den} of a cent is not paid)")
        }
        Event::Voided => "The round is void: every stake on the felt is returned.".to_string(),
        Event::Moved(Move {
            why: Why::MeterIncrement,
            ..
        }) => return None,
        _ => return None,
    })
}

fn settlement_line(s: &Settlement, names: &Names<'_>) -> String {
    let net = Money(s.returned.as_cents() - s.stake.as_cents());
    let what = names.bet(s.bet);
    let how = match s.outcome {
        Outcome::Win => "wins".to_string(),
        Outcome::Blackjack => "blackjack".to_string(),
        Outcome::EvenMoney => "even money".to_string(),
        Outcome::Lose => "loses".to_string(),
        Outcome::Bust => "bust".to_string(),
        Outcome::Push => "push".to_string(),
        Outcome::Surrender => "surrendered".to_string(),
        Outcome::Returned => "returned".to_string(),
    };
    let mut reason = how;
    if let Some(line) = s.line {
        reason = line.describe().to_string();
    }
    if let Some(p) = s.pays {
        let p = serde_json::to_value(p)
            .ok()
            .and_then(|v| v.as_str().map(str::to_string))
            .unwrap_or_default();
        reason = format!("{reason}, {p}");
    }
    // A side bet or insurance belongs to the spot; the main bet to its hand.
    let who = match s.bet {
        BetKind::Main | BetKind::Double | BetKind::Split => names.hand(s.at),
        BetKind::Insurance | BetKind::Side(_) => names.spot(s.at.seat, s.at.spot),
    };
    format!("{who} {what}: {reason}: {}", signed(net))
}

/// The table as `seat` sees it: the dealer, then every spot's hands and the bets
/// beside them (side bets, insurance).
pub fn table_lines(v: &View, names: &Names<'_>) -> Vec<String> {
    let mut out = Vec::new();
    let d = &v.dealer;
    let mut dealer = String::from("  Dealer: ");
    if d.hole_face_down {
        dealer.push_str("[hole] ");
    }
    dealer.push_str(&cards(&d.cards));
    if !d.cards.is_empty() {
        let soft = felt_core::Hand::from_cards(&d.cards).is_soft();
        dealer.push_str(&format!("  ({})", total_words(d.total, soft)));
    }
    out.push(dealer);
    for s in &v.spots {
        for (i, h) in s.hands.iter().enumerate() {
            // The view is the truth here: a spot with several hands was split.
            let who = if s.hands.len() > 1 || names.is_split(s.seat, s.spot) {
                format!("{} hand {}", names.spot(s.seat, s.spot), i + 1)
            } else {
                names.spot(s.seat, s.spot)
            };
            // A hand's stake above the spot's bet is a double (a split hand's stake is
            // the bet).
            let doubled = if h.stake > s.main { " doubled" } else { "" };
            let status = match h.status {
                "open" => String::new(),
                "natural" if names.seen.even_money.contains(&(s.seat, s.spot)) => {
                    "  [even money]".to_string()
                }
                st => format!("  [{st}]"),
            };
            out.push(format!(
                "  {who}: {}  ({})  bet {}{doubled}{status}",
                cards(&h.cards),
                total_words(h.total, h.soft),
                h.stake,
            ));
        }
        let mut beside: Vec<String> = s
            .side_bets
            .iter()
            .map(|b| {
                let state = if b.open { "" } else { " (settled)" };
                format!("{} {}{state}", names.side_bet(b.id.as_str()), b.amount)
            })
            .collect();
        if s.insurance > Money::ZERO {
            beside.push(format!("insurance {}", s.insurance));
        }
        for (_, stake) in names
            .seen
            .insurance_settled
            .iter()
            .filter(|(k, _)| *k == (s.seat, s.spot))
        {
            beside.push(format!("insurance {stake} (settled)"));
        }
        if !beside.is_empty() {
            out.push(format!(
                "  {} also: {}",
                names.spot(s.seat, s.spot),
                beside.join(", ")
            ));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(seat: u8, spot: u8, hand: u8) -> Place {
        Place { seat, spot, hand }
    }

    #[test]
    fn a_split_spot_names_every_hand_until_the_next_round() {
        let rules = crate::game_arg::load_game("classic").unwrap();
        let mut n = Names::new(&rules, 2);
        assert_eq!(n.hand(at(0, 1, 0)), "Seat 1 spot 2");
        n.observe(&Event::Decided {
            at: at(0, 1, 0),
            decision: Decision::Split,
        });
        assert_eq!(n.hand(at(0, 1, 0)), "Seat 1 spot 2 hand 1");
        assert_eq!(n.hand(at(0, 1, 2)), "Seat 1 spot 2 hand 3");
        // The other spot and the other seat are not split.
        assert_eq!(n.hand(at(0, 0, 0)), "Seat 1 spot 1");
        assert_eq!(n.hand(at(1, 1, 0)), "Seat 2 spot 2");
        n.observe(&Event::RoundStarted { round: 2 });
        assert_eq!(n.hand(at(0, 1, 0)), "Seat 1 spot 2");
        n.set_spots(1);
        assert_eq!(n.hand(at(0, 0, 0)), "Seat 1");
        assert_eq!(n.spot(6, 0), "Seat 7");
    }
}
