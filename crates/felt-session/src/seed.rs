//! The session's random stream: where each round's shuffle seed comes from.
//!
//! `--seed S` must reproduce a session (a test lab reruns it on a copy of the books and
//! gets the same cards), yet a player who keeps `--seed S` on books that carry over
//! must not be dealt the shuffles of an earlier session again. So the stream is drawn
//! from the seed *and* the number of rounds the table has already begun in the books:
//! on a table with no rounds it is exactly the seed's own stream, and every later
//! session starts a stream of its own. The same seed, the same books and the same
//! answers still replay the same session, byte for byte.

use rand::SeedableRng;
use rand_chacha::ChaCha20Rng;
use sha2::{Digest, Sha256};

/// The random stream of a session seeded `seed` at a table that has begun `earlier`
/// rounds: the seed's own stream when `earlier` is 0, else one derived from both
/// (SHA-256 of a fixed label, the seed and the count).
pub fn session_rng(seed: u64, earlier: u64) -> ChaCha20Rng {
    if earlier == 0 {
        return ChaCha20Rng::seed_from_u64(seed);
    }
    let mut h = Sha256::new();
    h.update(b"felt play session seed v1");
    h.update(seed.to_le_bytes());
    h.update(earlier.to_le_bytes());
    ChaCha20Rng::from_seed(h.finalize().into())
}

/// The line that says how the session's shuffles are seeded.
pub fn describe(game: &str, seed: u64, earlier: u64) -> String {
    if earlier == 0 {
        format!("{game} - seed {seed}")
    } else {
        format!(
            "{game} - seed {seed}, mixed with the {earlier} round(s) this table has begun: \
             new shuffles, not an earlier session's (the same seed on a copy of these books \
             replays this session)"
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::RngCore;

    fn first(mut r: ChaCha20Rng) -> [u8; 32] {
        let mut b = [0u8; 32];
        r.fill_bytes(&mut b);
        b
    }

    #[test]
    fn a_fresh_table_keeps_the_seeds_own_stream_and_later_sessions_differ() {
        assert_eq!(
            first(session_rng(7, 0)),
            first(ChaCha20Rng::seed_from_u64(7))
        );
        assert_eq!(first(session_rng(7, 3)), first(session_rng(7, 3)));
        let streams: std::collections::BTreeSet<[u8; 32]> = [(7, 0), (7, 1), (7, 2), (8, 1)]
            .into_iter()
            .map(|(s, n)| first(session_rng(s, n)))
            .collect();
        assert_eq!(streams.len(), 4);
    }
}
