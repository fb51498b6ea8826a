//! The bets a table offers again: each spot's last main bet and last side bets, from
//! this session, or for a returning player from the last round the books hold of the
//! table.

use felt_core::round::Action;
use felt_core::Money;
use felt_session::journal::{setup_of, StepAction};
use felt_store::{RoundRecord, Store};

/// The last bets of every spot (slot `seat * spots + spot`): the main bet, and each
/// side bet's amount (zero: none).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct LastBets {
    /// The main bet of each slot.
    pub main: Vec<Option<Money>>,
    /// The side bets of each slot, by the side bet's index.
    pub side: Vec<Vec<Money>>,
}

impl LastBets {
    /// No bet yet for `slots` slots of a game of `sides` side bets.
    pub fn new(slots: usize, sides: usize) -> Self {
        LastBets {
            main: vec![None; slots],
            side: vec![vec![Money::ZERO; sides]; slots],
        }
    }

    /// Makes room for `slots` slots (a recovered round may have had more).
    pub fn fit(&mut self, slots: usize, sides: usize) {
        if self.main.len() < slots {
            self.main.resize(slots, None);
            self.side.resize(slots, vec![Money::ZERO; sides]);
        }
        for s in &mut self.side {
            s.resize(sides, Money::ZERO);
        }
    }

    /// The bets of the newest round of `table` the books hold that any of `players`
    /// bet on (seat `i` is `players[i]`), if the books can tell: the rounds of the
    /// table's latest shoes, else of the books' latest rounds.
    pub fn from_books(
        store: &dyn Store,
        table: &str,
        players: &[String],
        spots: u8,
        sides: usize,
    ) -> felt_store::Result<Option<LastBets>> {
        let slots = players.len() * usize::from(spots);
        let mut shoes: Vec<i64> = store
            .shoe_seeds()?
            .into_iter()
            .filter(|s| s.table_id == table)
            .map(|s| s.id)
            .collect();
        shoes.reverse();
        // The table's last two shoes: a shoe retired by its last round leaves a new,
        // empty one after it.
        for shoe in shoes.into_iter().take(2) {
            let rounds = store.rounds_of_shoe(shoe)?;
            if let Some(b) = rounds
                .iter()
                .rev()
                .find_map(|r| bets_of(r, players, spots, sides, slots))
            {
                return Ok(Some(b));
            }
        }
        // Books from before shoe commitments: their latest rounds.
        Ok(store
            .history(256)?
            .iter()
            .filter(|r| r.table_id == table)
            .find_map(|r| bets_of(r, players, spots, sides, slots)))
    }
}

/// The bets placed in round `r` by `players`, if any.
fn bets_of(
    r: &RoundRecord,
    players: &[String],
    spots: u8,
    sides: usize,
    slots: usize,
) -> Option<LastBets> {
    let setup = setup_of(r).ok().flatten()?;
    let mut last = LastBets::new(slots, sides);
    let mut any = false;
    for step in &r.steps {
        let Some(Ok(action)) = step
            .action
            .as_deref()
            .map(serde_json::from_str::<StepAction>)
        else {
            continue;
        };
        for action in action.actions() {
            let (seat, spot) = match action {
                Action::Bet { seat, spot, .. } | Action::SideBet { seat, spot, .. } => (seat, spot),
                _ => continue,
            };
            // The seat's player, at this session's seat and spot.
            let Some(name) = setup.players.get(usize::from(seat)) else {
                continue;
            };
            let Some(mine) = players.iter().position(|p| p == name) else {
                continue;
            };
            if spot >= spots {
                continue;
            }
            let slot = mine * usize::from(spots) + usize::from(spot);
            match action {
                Action::Bet { amount, .. } => {
                    last.main[slot] = Some(amount);
                    any = true;
                }
                Action::SideBet { bet, amount, .. } => {
                    if let Some(s) = last.side[slot].get_mut(usize::from(bet)) {
                        *s = amount;
                    }
                }
                _ => {}
            }
        }
    }
    any.then_some(last)
}
