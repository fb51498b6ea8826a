//! The tally's fast paths: which side bet and which pay line a settlement names, and
//! the sums of a wager whose initial stake is the same every round.
//!
//! A settlement names its side bet by id (a 32-byte [`ShortId`]): comparing it with
//! every id of the table cost more than the rest of the bet's tally. The ids of one
//! table differ at some byte of their arrays (the length byte, often), so one byte
//! read from the settlement and one table read give the bet.

use crate::stats::BetAccumulator;
use felt_core::id::ShortId;
use felt_core::money::Payout;
use felt_core::round::SideBet;
use felt_core::round::MAX_SIDE_BETS;
use felt_core::rules::LinePay;
use felt_core::sidebet::HandName;

/// No bet or no line.
const NONE: u8 = u8::MAX;
/// Hand names a line table is indexed by (more than there are [`HandName`]s).
const HANDS: usize = 64;

/// Side bets by id and their lines by hand, for one table.
#[derive(Debug, Clone)]
pub(crate) struct SideLookup {
    ids: Vec<ShortId>,
    /// A byte of the id array where every id differs, and the bet of each value.
    by_byte: Option<(usize, Box<[u8; 256]>)>,
    /// Per bet, the line index of each hand name.
    lines: [[u8; HANDS]; MAX_SIDE_BETS],
}

impl SideLookup {
    /// The lookup of the bets `ids` whose pay tables list `lines` (best first).
    pub(crate) fn new(ids: &[ShortId], lines: &[Vec<HandName>]) -> SideLookup {
        let len = ShortId::MAX_LEN + 1;
        let by_byte = (0..len)
            .find(|&p| {
                let mut seen = [false; 256];
                ids.iter()
                    .all(|id| !std::mem::replace(&mut seen[usize::from(id.as_array()[p])], true))
            })
            .map(|p| {
                let mut t = Box::new([NONE; 256]);
                for (b, id) in ids.iter().enumerate() {
                    t[usize::from(id.as_array()[p])] = b as u8;
                }
                (p, t)
            });
        let mut by_hand = [[NONE; HANDS]; MAX_SIDE_BETS];
        for (row, ls) in by_hand.iter_mut().zip(lines) {
            // The first line of a hand, as a search from the top finds it.
            for (l, &h) in ls.iter().enumerate().rev() {
                if let Some(slot) = row.get_mut(h as usize) {
                    *slot = l as u8;
                }
            }
        }
        SideLookup {
            ids: ids.to_vec(),
            by_byte,
            lines: by_hand,
        }
    }

    /// The index of the bet `id`, one of the table's: only one byte of it is read (a
    /// whole id read back from the settlement just written waits for its stores), so
    /// an id of another table that shares the byte would be taken for a bet of this
    /// one. The tally only sees its own table's settlements.
    #[inline(always)]
    pub(crate) fn bet(&self, id: &ShortId) -> Option<usize> {
        let b = match &self.by_byte {
            Some((p, t)) => usize::from(t[usize::from(id.as_array()[*p & 31])]),
            None => return self.ids.iter().position(|x| x == id),
        };
        debug_assert!(b == usize::from(NONE) || self.ids.get(b) == Some(id));
        (b != usize::from(NONE)).then_some(b)
    }

    /// The index in bet `b`'s pay table of the line paying `hand`.
    #[inline(always)]
    pub(crate) fn line(&self, b: usize, hand: HandName) -> Option<usize> {
        let l = *self.lines.get(b)?.get(hand as usize)?;
        (l != NONE).then_some(usize::from(l))
    }
}

/// A wager's sums while its initial stake is the same every round: the stake's
/// sums are worked out when folded into a [`BetAccumulator`], the same integers as
/// recording each round.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct FlatSums {
    rounds: u64,
    wagered: i128,
    net: i128,
    net_sq: i128,
}

impl FlatSums {
    /// One round: everything wagered and the player's net (cents).
    #[inline(always)]
    pub(crate) fn record(&mut self, wagered: i64, net: i64) {
        let n = i128::from(net);
        self.rounds += 1;
        self.wagered += i128::from(wagered);
        self.net += n;
        self.net_sq += n * n;
    }

    /// Rounds recorded.
    pub(crate) fn rounds(&self) -> u64 {
        self.rounds
    }

    /// The sum of the rounds' nets (cents).
    pub(crate) fn net(&self) -> i128 {
        self.net
    }

    /// Adds the rounds to `acc`, each with the initial stake `staked`, and clears them.
    pub(crate) fn fold_into(&mut self, acc: &mut BetAccumulator, staked: i64) {
        let (r, s) = (i128::from(self.rounds), i128::from(staked));
        acc.rounds += self.rounds;
        acc.staked += r * s;
        acc.wagered += self.wagered;
        acc.net += self.net;
        acc.net_sq += self.net_sq;
        acc.staked_sq += r * s * s;
        acc.net_staked += self.net * s;
        *self = FlatSums::default();
    }
}

/// A side bet's net for each way it settles, when one stake of the same amount is
/// its only wager in a round (one spot): a round's net is then its settlement's, so
/// the round sums follow from how often each line was hit and the bet lost, and,
/// for the lines paid from a meter, from the sums of their nets ([`MeterLineNets`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct LineNets {
    stake: i64,
    /// The player's net on each line of the pay table (cents); `None` for a line paid
    /// from a meter, whose net changes with the meter.
    lines: Vec<Option<i64>>,
}

/// The nets of a side bet's wins on lines paid from its meter, summed as they come:
/// their sum and their sum of squares (cents).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct MeterLineNets {
    net: i128,
    net_sq: i128,
}

impl MeterLineNets {
    /// One win on a line paid from the meter, of net `net` (cents).
    #[inline]
    pub(crate) fn record(&mut self, net: i64) {
        let n = i128::from(net);
        self.net += n;
        self.net_sq += n * n;
    }
}

impl LineNets {
    /// The nets of the side bets `bets` at their minimum stakes, if there are any and
    /// every round's sums follow from their line counts and meter wins: one spot a
    /// round.
    pub(crate) fn for_bets(bets: &[SideBet], spots: u64) -> Option<Vec<LineNets>> {
        if spots != 1 || bets.is_empty() {
            return None;
        }
        let nets = bets
            .iter()
            .map(|b| {
                let stake = b.limits.min;
                let lines = b
                    .lines
                    .iter()
                    .map(|l| match l.pay {
                        LinePay::Odds(ratio) => {
                            let payout = Payout {
                                ratio,
                                basis: l.basis,
                            };
                            Some(payout.returned(stake).0 .0 - stake.0)
                        }
                        LinePay::Meter(_) => None,
                    })
                    .collect();
                LineNets {
                    stake: stake.0,
                    lines,
                }
            })
            .collect();
        Some(nets)
    }

    /// The player's net on line `line` of the pay table (cents); `None` for a line
    /// paid from the meter.
    #[cfg(test)]
    pub(crate) fn net_of_line(&self, line: usize) -> Option<i64> {
        self.lines.get(line).copied().flatten()
    }

    /// The sums of `rounds` rounds in which the lines were hit `hits` times, the
    /// wins on lines paid from the meter summed in `meter`, and the bet lost `loses`
    /// times (the other rounds returned the stake: net 0).
    pub(crate) fn sums(
        &self,
        rounds: u64,
        hits: &[u64],
        meter: MeterLineNets,
        loses: u64,
    ) -> FlatSums {
        let mut net = -i128::from(loses) * i128::from(self.stake) + meter.net;
        let mut net_sq =
            i128::from(loses) * i128::from(self.stake) * i128::from(self.stake) + meter.net_sq;
        for (&h, n) in hits.iter().zip(&self.lines) {
            if let Some(n) = n {
                net += i128::from(h) * i128::from(*n);
                net_sq += i128::from(h) * i128::from(*n) * i128::from(*n);
            }
        }
        FlatSums {
            rounds,
            wagered: i128::from(rounds) * i128::from(self.stake),
            net,
            net_sq,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn folded_sums_are_the_recorded_ones() {
        let (mut a, mut b, mut f) = (
            BetAccumulator::new(0),
            BetAccumulator::new(0),
            FlatSums::default(),
        );
        for (w, n) in [(500, -500), (1000, 1000), (500, 750), (1500, -1500)] {
            a.record(500, w, n);
            f.record(w, n);
        }
        f.fold_into(&mut b, 500);
        assert_eq!(a, b);
    }

    #[test]
    fn bets_are_found_by_one_byte_and_checked() {
        let ids: Vec<ShortId> = ["poker-bonus", "bonus-7s", "lucky-lucky"]
            .iter()
            .map(|s| ShortId::new(s).unwrap())
            .collect();
        let lines = vec![vec![HandName::Flush, HandName::Straight], vec![], vec![]];
        let l = SideLookup::new(&ids, &lines);
        for (b, id) in ids.iter().enumerate() {
            assert_eq!(l.bet(id), Some(b));
        }
        assert_eq!(l.bet(&ShortId::new("nothing").unwrap()), None);
        assert_eq!(l.line(0, HandName::Straight), Some(1));
        assert_eq!(l.line(0, HandName::ThreeSevens), None);
        assert_eq!(l.line(1, HandName::Flush), None);
    }
}
