//! What of a stored round a player may see: one rule for every front end (`felt
//! history`, a server's recall for its players and its operators).
//!
//! A card dealt face down and never turned (a burn, an unturned hole card) stays
//! hidden, and so does the round's seed, while the round's shoe is in play: either
//! would tell a player what is left in the shoe. Once the shoe is retired (no card of
//! it is dealt again) everything of the round may be shown. A round written before
//! shoe commitments, whose shoe is never dealt from again, is shown whole once it is
//! over.

use felt_core::{Event, PublicEvent};
use felt_store::{RoundRecord, RoundStatus};

/// A stored event as a player may see it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Seen {
    /// The event, or its public form (a face-down card without its value).
    Event(PublicEvent),
    /// Its stored text is not an event this build reads: not shown (it could hold a
    /// card), only its number in the round.
    Unreadable {
        /// The event's number in the round.
        seq: u32,
    },
}

/// Whether everything of the round may be shown: its shoe is retired.
pub fn revealed(r: &RoundRecord) -> bool {
    match &r.shoe {
        Some(shoe) => shoe.is_retired(),
        None => r.status != RoundStatus::Open,
    }
}

/// The round's seed, once everything of it may be shown.
pub fn seed(r: &RoundRecord) -> Option<[u8; 32]> {
    revealed(r).then_some(r.seed)
}

/// The round's events, in order, as a player may see them.
pub fn events(r: &RoundRecord) -> Vec<Seen> {
    let all = revealed(r);
    r.events
        .iter()
        .map(|e| match serde_json::from_str::<Event>(&e.json) {
            Ok(ev) if all => Seen::Event(PublicEvent::Shown(ev)),
            Ok(ev) => Seen::Event(ev.public()),
            Err(_) => Seen::Unreadable { seq: e.seq },
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use felt_core::card::{Rank, Suit};
    use felt_core::Card;
    use felt_store::{NewRound, NewShoe, RoundShoe, SqliteStore, Step, Store};

    fn round_of_new_shoe(s: &mut SqliteStore, seed: u8, events: &[Event]) -> felt_store::RoundId {
        let id = s
            .begin_round(&NewRound {
                game_id: "classic".into(),
                table_id: "t".into(),
                seed: [seed; 32],
                shoe_seed: RoundShoe::New(NewShoe {
                    seed: [seed; 32],
                    lab: None,
                }),
                ..Default::default()
            })
            .unwrap();
        let last = Step {
            action: None,
            events: events
                .iter()
                .map(|e| serde_json::to_string(e).unwrap())
                .collect(),
            movements: Vec::new(),
            wallet: Vec::new(),
        };
        s.finish_round(id, &last, "{}", None).unwrap();
        id
    }

    #[test]
    fn a_face_down_card_and_the_seed_show_only_once_the_shoe_is_retired() {
        let dir = tempfile::tempdir().unwrap();
        let mut s = SqliteStore::open(dir.path().join("felt.db")).unwrap();
        let card = Card::new(Rank::Ace, Suit::Spades);
        let burned = Event::Burned {
            card,
            face_up: false,
        };
        let shown = Event::Burned {
            card,
            face_up: true,
        };
        let first = round_of_new_shoe(&mut s, 1, &[burned, shown]);
        let r = s.round(first).unwrap().unwrap();
        assert_eq!(r.status, RoundStatus::Finished);
        assert!(!revealed(&r) && seed(&r).is_none());
        assert_eq!(
            events(&r),
            [
                Seen::Event(burned.public()),
                Seen::Event(PublicEvent::Shown(shown))
            ]
        );
        assert_eq!(burned.public(), PublicEvent::BurnedFaceDown);
        // The next round commits to a new shoe: the first one is retired.
        round_of_new_shoe(&mut s, 2, &[]);
        let r = s.round(first).unwrap().unwrap();
        assert!(revealed(&r));
        assert_eq!(seed(&r), Some([1; 32]));
        assert_eq!(events(&r)[0], Seen::Event(PublicEvent::Shown(burned)));
    }
}
