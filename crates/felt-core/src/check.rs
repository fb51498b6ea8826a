//! Invariant checkers shared by the tests, the property tests and fuzz targets:
//! every cent conserved, the ledger balanced, every card in exactly one place.

use crate::card::Card;
use crate::meter::MeterId;
use crate::money::Money;
use crate::round::{Account, Event, EventSink, Round, MAX_SEATS};
use rand_core::{CryptoRng, RngCore};

/// An [`EventSink`] that keeps the net of every account over the chip movements it
/// sees (positive: the account received chips).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Ledger {
    /// Net per seat.
    pub seats: [Money; MAX_SEATS],
    /// Net of the felt (stakes in play).
    pub felt: Money,
    /// Net of the house.
    pub house: Money,
    /// Net per meter.
    pub meters: Vec<(MeterId, Money)>,
    /// Movements seen.
    pub moves: u64,
    /// Whether a movement had a non-positive amount.
    pub bad_amount: bool,
}

impl Ledger {
    fn account(&mut self, a: Account) -> &mut Money {
        match a {
            Account::Seat { seat } => {
                let i = usize::from(seat).min(MAX_SEATS - 1);
                &mut self.seats[i]
            }
            Account::Felt => &mut self.felt,
            Account::House => &mut self.house,
            Account::Meter { id } => {
                let i = match self.meters.iter().position(|(m, _)| *m == id) {
                    Some(i) => i,
                    None => {
                        self.meters.push((id, Money::ZERO));
                        self.meters.len() - 1
                    }
                };
                &mut self.meters[i].1
            }
        }
    }

    /// The sum of every account's net: zero when the ledger balances.
    pub fn sum(&self) -> Money {
        self.seats.iter().copied().sum::<Money>()
            + self.felt
            + self.house
            + self.meters.iter().map(|(_, m)| *m).sum::<Money>()
    }

    /// The net of a meter.
    pub fn meter(&self, id: &MeterId) -> Money {
        self.meters
            .iter()
            .find(|(m, _)| m == id)
            .map_or(Money::ZERO, |(_, v)| *v)
    }
}

impl EventSink for Ledger {
    fn event(&mut self, e: &Event) {
        if let Event::Moved(m) = e {
            self.moves += 1;
            if m.amount <= Money::ZERO {
                self.bad_amount = true;
            }
            *self.account(m.from) -= m.amount;
            *self.account(m.to) += m.amount;
        }
    }
}

/// Every card in exactly one place: the shoe holds each card of its decks exactly
/// `decks` times, and the cards the shoe counts as in play are exactly the cards in
/// the round's hands.
pub fn check_cards<R: RngCore + CryptoRng>(round: &Round<R>) -> Result<(), String> {
    let shoe = round.shoe();
    if !shoe.is_complete() {
        return Err("the shoe does not hold each card exactly once per deck".into());
    }
    if shoe.discards() + shoe.in_play().len() + shoe.remaining() != shoe.len() {
        return Err("rack + play + undealt is not the whole shoe".into());
    }
    let mut a = [0i32; 52];
    for c in shoe.in_play() {
        a[c.index()] += 1;
    }
    for c in round.cards_in_play() {
        a[c.index()] -= 1;
    }
    if let Some(i) = a.iter().position(|&n| n != 0) {
        return Err(format!(
            "card {} is in the hands {} time(s) more than the shoe dealt it",
            Card::from_index(i).map_or_else(|| "?".to_string(), |c| c.to_string()),
            -a[i]
        ));
    }
    Ok(())
}

/// Every cent conserved: each seat's balance is its start plus its ledger net, the
/// felt holds exactly the ledger's felt net, the ledger balances, and no movement
/// has a non-positive amount. At the end of a round the felt is empty.
pub fn check_money<R: RngCore + CryptoRng>(
    round: &Round<R>,
    start: &[Money],
    ledger: &Ledger,
) -> Result<(), String> {
    if ledger.bad_amount {
        return Err("a movement of zero or a negative amount".into());
    }
    if ledger.sum() != Money::ZERO {
        return Err(format!("the ledger does not balance: {}", ledger.sum()));
    }
    for (i, (&b, &s)) in round.balances().iter().zip(start).enumerate() {
        if b != s + ledger.seats[i] {
            return Err(format!(
                "seat {i}: balance {b} but start {s} + ledger {}",
                ledger.seats[i]
            ));
        }
        if b < Money::ZERO {
            return Err(format!("seat {i}: negative balance {b}"));
        }
    }
    if round.felt() != ledger.felt {
        return Err(format!(
            "the felt holds {} but the ledger says {}",
            round.felt(),
            ledger.felt
        ));
    }
    if round.phase() == crate::round::Phase::Done && round.felt() != Money::ZERO {
        return Err(format!("round over with {} on the felt", round.felt()));
    }
    Ok(())
}
