//! Where a round's cards come from: the shoe, its seed and its commitment.
//!
//! Each shoe is shuffled from a 32-byte seed of its own. Before the shoe's first card
//! the books hold the seed's SHA-256 (the commitment, shown to the players); the seed
//! itself is shown only once the shoe is retired (its cut card came out, a continuous
//! shuffler took the cards back, or a round dealt from it was voided), when no card of
//! it will be dealt again. Anyone can then check the seed against the commitment and
//! rebuild the shoe's order from the seed alone (a new shoe is shuffled from pack
//! order), card for card (`felt verify`).
//!
//! The seed comes from the operating system's entropy. `felt play --seed S` is a test
//! lab's feature: seeds are drawn from S (and the rounds the table has begun) instead,
//! and every shoe and round so dealt is marked in the books with it. A session never
//! deals from a lab shoe unless it is a lab session itself.
//!
//! A round's own generator (for the shuffle it opens with and a rack reshuffle) is
//! seeded with SHA-256 of a label, the shoe's seed and the round's place in the shoe.

use crate::error::{Result, SessionError};
use crate::journal::Ctx;
use felt_core::shoe::ShuffleMethod;
use felt_core::Shoe;
use felt_store::{NewShoe, RoundShoe, ShoeSeed, Store};
use rand::RngCore;
use rand_chacha::ChaCha20Rng;
use sha2::{Digest, Sha256};

/// The seed of round `shoe_round` of the shoe seeded `shoe_seed`.
pub fn round_seed(shoe_seed: &[u8; 32], shoe_round: u32) -> [u8; 32] {
    let mut h = Sha256::new();
    h.update(b"felt round seed v2");
    h.update(shoe_seed);
    h.update(shoe_round.to_le_bytes());
    h.finalize().into()
}

/// The order of a new shoe of `decks` decks shuffled from `shoe_seed`: what a retired
/// shoe's cards must have been, in dealing order (burns included).
pub fn shoe_order(decks: u8, shoe_seed: &[u8; 32]) -> Vec<felt_core::Card> {
    use rand::SeedableRng;
    let mut s = Shoe::new(decks);
    s.shuffle(&mut ChaCha20Rng::from_seed(round_seed(shoe_seed, 0)));
    s.undealt().to_vec()
}

/// Where new shoes' seeds come from.
pub enum Seeds {
    /// The operating system's entropy: the real game.
    Entropy,
    /// A test lab's stream (`--seed`), with the mark its shoes and rounds carry.
    Lab {
        /// The stream.
        rng: Box<ChaCha20Rng>,
        /// The mark, e.g. `--seed 7`.
        mark: String,
    },
}

impl Seeds {
    /// A new shoe's seed.
    pub fn next_seed(&mut self) -> Result<[u8; 32]> {
        let mut seed = [0u8; 32];
        match self {
            Seeds::Entropy => rand::rngs::OsRng
                .try_fill_bytes(&mut seed)
                .map_err(|e| SessionError::Entropy(e.to_string()))?,
            Seeds::Lab { rng, .. } => rng.fill_bytes(&mut seed),
        }
        Ok(seed)
    }

    /// The lab's mark (`None` for entropy).
    pub fn mark(&self) -> Option<&str> {
        match self {
            Seeds::Entropy => None,
            Seeds::Lab { mark, .. } => Some(mark),
        }
    }
}

/// What the next round deals from.
pub struct Dealing {
    /// The shoe the round starts from (it shuffles it first when a new shoe begins).
    pub shoe: Shoe,
    /// The shoe's commitment: the current one, or a new one to write with the round.
    pub shoe_ref: RoundShoe,
    /// The round's place in the shoe.
    pub shoe_round: u32,
    /// The round's generator seed.
    pub round_seed: [u8; 32],
    /// The round's lab mark, if any.
    pub lab: Option<String>,
    /// The commitment shown to the players (SHA-256 of the shoe's seed), with the
    /// shoe's number once the books gave it one.
    pub commitment: String,
    /// The shoe's number in the books (`None`: a new shoe, numbered when written).
    pub shoe_id: Option<i64>,
}

/// The dealing of the table's next round: the shoe in play and its commitment if
/// the round can go on with it, else a new shoe with a new seed (committed when the
/// round is written). `stacked` is a lab's stacked shoe to deal first.
pub fn next_dealing(
    store: &dyn Store,
    ctx: &Ctx,
    shoe: Shoe,
    seeds: &mut Seeds,
    stacked: Option<Shoe>,
) -> Result<Dealing> {
    let lab = seeds.mark().map(str::to_string);
    if let Some(stacked) = stacked {
        // A stacked shoe (`--shoe FILE`, a lab session): its first cards were chosen,
        // so its commitment is the lab's record, not a proof of a fair order.
        return Ok(new_dealing(stacked, seeds.next_seed()?, lab));
    }
    let current = store.table_shoe_seed(&ctx.table_id)?;
    let usable = |c: &ShoeSeed| {
        !c.is_retired()
            && (lab.is_some() || c.lab.is_none())
            && shoe.decks() == ctx.rules.shoe().decks
            && shoe.shuffle_method() == ShuffleMethod::FromPackOrder
            && ctx.table.shuffle_due(&shoe).is_none()
    };
    match current {
        Some(c) if usable(&c) => {
            let shoe_round = store.shoe_rounds(c.id)?;
            Ok(Dealing {
                round_seed: round_seed(&c.seed, shoe_round),
                shoe,
                shoe_ref: RoundShoe::Current(c.id),
                shoe_round,
                lab,
                commitment: c.commitment,
                shoe_id: Some(c.id),
            })
        }
        _ => {
            // A new shoe: the round shuffles it first. A shoe the engine would not
            // shuffle now (a retired one, another deck count, one from an older felt)
            // is replaced by new decks, which it does.
            let start = if ctx.table.shuffle_due(&shoe).is_some()
                && shoe.decks() == ctx.rules.shoe().decks
                && shoe.shuffle_method() == ShuffleMethod::FromPackOrder
            {
                shoe
            } else {
                ctx.table.new_shoe()
            };
            Ok(new_dealing(start, seeds.next_seed()?, lab))
        }
    }
}

fn new_dealing(shoe: Shoe, seed: [u8; 32], lab: Option<String>) -> Dealing {
    Dealing {
        round_seed: round_seed(&seed, 0),
        commitment: felt_store::seed_hash(&seed),
        shoe,
        shoe_ref: RoundShoe::New(NewShoe {
            seed,
            lab: lab.clone(),
        }),
        shoe_round: 0,
        lab,
        shoe_id: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_seeds_differ_by_shoe_and_place_and_are_not_the_shoe_seed() {
        let (a, b) = ([1u8; 32], [2u8; 32]);
        let seeds = [
            round_seed(&a, 0),
            round_seed(&a, 1),
            round_seed(&b, 0),
            round_seed(&b, 1),
        ];
        for (i, x) in seeds.iter().enumerate() {
            assert_ne!(x, &a);
            assert_ne!(x, &b);
            for y in &seeds[i + 1..] {
                assert_ne!(x, y);
            }
        }
    }

    #[test]
    fn a_shoes_order_is_its_seeds_alone() {
        let order = shoe_order(6, &[9; 32]);
        assert_eq!(order.len(), 312);
        assert_eq!(order, shoe_order(6, &[9; 32]));
        assert_ne!(order, shoe_order(6, &[8; 32]));
    }
}
