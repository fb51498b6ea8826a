//! Progressive meters behind a trait, so a database can hold them later (B7-1, B7-6).
//!
//! A meter is shared by every table that names it; the round only asks it to add a
//! wager's increment, to pay a share and to be refilled to its reset value. Each
//! operation returns the before/after values the round logs as an event.

use crate::id::ShortId;
use crate::money::Money;
use serde::{Deserialize, Serialize};

/// A meter's id, as the rules file names it (`[side_bets.progressive] meter`).
pub type MeterId = ShortId;

/// One change of a meter: its value before and after.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct MeterChange {
    /// The meter.
    pub id: MeterId,
    /// The value before the change.
    pub before: Money,
    /// The value after the change.
    pub after: Money,
}

/// Where progressive meters live. Each call is one atomic change.
pub trait Meters {
    /// The meter's value; `None` if the store does not hold this meter.
    fn value(&self, id: &MeterId) -> Option<Money>;
    /// Adds `amount` (a wager's increment, B7-1).
    fn contribute(&mut self, id: &MeterId, amount: Money) -> Option<MeterChange>;
    /// Takes `percent` of the meter as it stands, rounded down to a cent (B7-6), and
    /// returns the amount taken.
    fn award(&mut self, id: &MeterId, percent: u8) -> Option<(Money, MeterChange)>;
    /// Sets the meter to `to` (the reset value after a 100% award; the house funds it).
    fn refill(&mut self, id: &MeterId, to: Money) -> Option<MeterChange>;
}

/// The share of a meter `percent` takes: `value * percent / 100`, rounded down to a cent.
pub fn share(value: Money, percent: u8) -> Money {
    if percent >= 100 {
        return value;
    }
    Money((i128::from(value.0) * i128::from(percent) / 100) as i64)
}

/// Meters held in memory: a handful of (id, value) pairs.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct MemoryMeters {
    meters: Vec<(MeterId, Money)>,
}

impl MemoryMeters {
    /// No meter.
    pub fn new() -> MemoryMeters {
        MemoryMeters::default()
    }

    /// Every meter a table's side bets name, each at its reset value.
    pub fn for_table(table: &crate::round::Table) -> MemoryMeters {
        let mut m = MemoryMeters::new();
        for (id, reset) in table.meters() {
            if m.value(&id).is_none() {
                m.set(id, reset);
            }
        }
        m
    }

    /// Sets (or creates) a meter.
    pub fn set(&mut self, id: MeterId, value: Money) {
        match self.meters.iter_mut().find(|(i, _)| *i == id) {
            Some(slot) => slot.1 = value,
            None => self.meters.push((id, value)),
        }
    }

    /// The sum of all meters.
    pub fn total(&self) -> Money {
        self.meters.iter().map(|(_, v)| *v).sum()
    }

    /// All meters.
    pub fn iter(&self) -> impl Iterator<Item = (MeterId, Money)> + '_ {
        self.meters.iter().copied()
    }

    /// Where meter `id` is held, for [`MemoryMeters::value_at`]: a meter keeps its
    /// place once set (meters are never removed).
    pub fn position(&self, id: &MeterId) -> Option<usize> {
        self.meters.iter().position(|(i, _)| i == id)
    }

    /// The value of the meter held at `position` (from [`MemoryMeters::position`]).
    #[inline(always)]
    pub fn value_at(&self, position: usize) -> Option<Money> {
        self.meters.get(position).map(|(_, v)| *v)
    }

    fn slot(&mut self, id: &MeterId) -> Option<&mut Money> {
        self.meters
            .iter_mut()
            .find(|(i, _)| i == id)
            .map(|(_, v)| v)
    }
}

impl Meters for MemoryMeters {
    fn value(&self, id: &MeterId) -> Option<Money> {
        self.meters.iter().find(|(i, _)| i == id).map(|(_, v)| *v)
    }

    fn contribute(&mut self, id: &MeterId, amount: Money) -> Option<MeterChange> {
        let v = self.slot(id)?;
        let before = *v;
        *v += amount;
        Some(MeterChange {
            id: *id,
            before,
            after: *v,
        })
    }

    fn award(&mut self, id: &MeterId, percent: u8) -> Option<(Money, MeterChange)> {
        let v = self.slot(id)?;
        let before = *v;
        let paid = share(before, percent);
        *v -= paid;
        Some((
            paid,
            MeterChange {
                id: *id,
                before,
                after: *v,
            },
        ))
    }

    fn refill(&mut self, id: &MeterId, to: Money) -> Option<MeterChange> {
        let v = self.slot(id)?;
        let before = *v;
        *v = to;
        Some(MeterChange {
            id: *id,
            before,
            after: to,
        })
    }
}

/// No meters at all: for tables without a progressive.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct NoMeters;

impl Meters for NoMeters {
    fn value(&self, _: &MeterId) -> Option<Money> {
        None
    }
    fn contribute(&mut self, _: &MeterId, _: Money) -> Option<MeterChange> {
        None
    }
    fn award(&mut self, _: &MeterId, _: u8) -> Option<(Money, MeterChange)> {
        None
    }
    fn refill(&mut self, _: &MeterId, _: Money) -> Option<MeterChange> {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn b7_6_ten_percent_rounds_down_to_a_cent_and_the_rest_stays() {
        let id = MeterId::new("m").unwrap();
        let mut m = MemoryMeters::new();
        m.set(id, Money(200_019));
        let (paid, ch) = m.award(&id, 10).unwrap();
        assert_eq!(paid, Money(20_001));
        assert_eq!((ch.before, ch.after), (Money(200_019), Money(180_018)));
        let (paid, ch) = m.award(&id, 100).unwrap();
        assert_eq!(paid, Money(180_018));
        assert_eq!(ch.after, Money::ZERO);
        assert_eq!(m.refill(&id, Money(5)).unwrap().after, Money(5));
        assert!(NoMeters.value(&id).is_none());
    }

    #[test]
    fn a_meter_keeps_its_position_and_value_at_reads_it() {
        let (a, b) = (MeterId::new("a").unwrap(), MeterId::new("b").unwrap());
        let mut m = MemoryMeters::new();
        m.set(a, Money(10));
        m.set(b, Money(20));
        let (pa, pb) = (m.position(&a).unwrap(), m.position(&b).unwrap());
        assert_ne!(pa, pb);
        m.contribute(&b, Money(5));
        m.set(a, Money(11));
        assert_eq!(m.position(&a), Some(pa));
        assert_eq!(m.value_at(pa), Some(Money(11)));
        assert_eq!(m.value_at(pb), Some(Money(25)));
        assert_eq!(m.position(&MeterId::new("c").unwrap()), None);
        assert_eq!(m.value_at(2), None);
    }
}
