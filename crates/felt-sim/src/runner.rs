//! Cutting a simulation into fixed chunks, each with its own random stream derived
//! from the seed, and running them on a thread pool. Results are merged in chunk
//! order, so the same seed gives the same totals whatever the number of threads.

use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use rayon::prelude::*;

/// Rounds per chunk: the unit of work and of reproducibility.
pub const CHUNK_ROUNDS: u64 = 1 << 16;

/// The most worker threads a run may ask for.
pub const MAX_THREADS: usize = 1024;

/// Why a simulation could not run.
#[derive(Debug, thiserror::Error)]
pub enum RunError {
    /// The thread pool could not be built.
    #[error("cannot start {threads} worker threads")]
    ThreadPool {
        /// Threads asked for.
        threads: usize,
        /// The pool's error.
        source: rayon::ThreadPoolBuildError,
    },
}

/// The random stream of chunk `index` of a run seeded with `seed`: ChaCha8 keyed by the
/// seed, stream number = chunk index. Independent of thread count and scheduling.
pub fn chunk_rng(seed: u64, index: u64) -> ChaCha8Rng {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    rng.set_stream(index);
    rng
}

/// The number of chunks of a run of `rounds` rounds.
pub fn chunk_count(rounds: u64) -> u64 {
    rounds.div_ceil(CHUNK_ROUNDS)
}

/// The rounds of chunk `index` of a run of `rounds` rounds (the last one may be short).
pub fn chunk_len(rounds: u64, index: u64) -> u64 {
    rounds
        .saturating_sub(index.saturating_mul(CHUNK_ROUNDS))
        .min(CHUNK_ROUNDS)
}

/// Chunks each thread is given per batch. Chunks run batch by batch and each batch's
/// results are merged before the next starts, so memory stays bounded whatever the
/// number of rounds.
const BATCH_CHUNKS_PER_THREAD: u64 = 16;

/// Runs `work(chunk_index, rounds, rng)` for every chunk on `threads` threads and
/// merges the results in chunk order. `progress(rounds)` is called after each chunk.
pub fn run_chunks<A, W, M, P>(
    rounds: u64,
    seed: u64,
    threads: usize,
    work: W,
    merge: M,
    progress: P,
) -> Result<Option<A>, RunError>
where
    A: Send,
    W: Fn(u64, u64, &mut ChaCha8Rng) -> A + Sync,
    M: FnMut(&mut A, A),
    P: Fn(u64) + Sync,
{
    let chunks = 0..chunk_count(rounds);
    run_chunk_range(rounds, seed, threads, chunks, work, merge, progress)
}

/// The chunks of shard `shard` (0-based) of `shards` of a run of `rounds` rounds: a
/// contiguous range, the shards together covering every chunk once.
pub fn shard_chunks(rounds: u64, shard: u64, shards: u64) -> std::ops::Range<u64> {
    let chunks = u128::from(chunk_count(rounds));
    let shards = u128::from(shards.max(1));
    let at = |i: u128| u64::try_from(chunks * i.min(shards) / shards).unwrap_or(u64::MAX);
    at(u128::from(shard))..at(u128::from(shard) + 1)
}

/// [`run_chunks`] for the chunks `range` of the run only (a shard).
pub fn run_chunk_range<A, W, M, P>(
    rounds: u64,
    seed: u64,
    threads: usize,
    range: std::ops::Range<u64>,
    work: W,
    mut merge: M,
    progress: P,
) -> Result<Option<A>, RunError>
where
    A: Send,
    W: Fn(u64, u64, &mut ChaCha8Rng) -> A + Sync,
    M: FnMut(&mut A, A),
    P: Fn(u64) + Sync,
{
    let threads = threads.max(1);
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .map_err(|source| RunError::ThreadPool { threads, source })?;
    let chunks = range.end.min(chunk_count(rounds));
    let batch = u64::try_from(threads)
        .unwrap_or(u64::MAX)
        .saturating_mul(BATCH_CHUNKS_PER_THREAD);
    let mut total: Option<A> = None;
    let mut start = range.start;
    while start < chunks {
        let end = start.saturating_add(batch).min(chunks);
        let results: Vec<A> = pool.install(|| {
            (start..end)
                .into_par_iter()
                .map(|i| {
                    let n = chunk_len(rounds, i);
                    let mut rng = chunk_rng(seed, i);
                    let a = work(i, n, &mut rng);
                    progress(n);
                    a
                })
                .collect()
        });
        for a in results {
            match total.as_mut() {
                Some(t) => merge(t, a),
                None => total = Some(a),
            }
        }
        start = end;
    }
    Ok(total)
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::RngCore;

    #[test]
    fn same_seed_same_result_whatever_the_thread_count() {
        let work = |_i: u64, n: u64, rng: &mut ChaCha8Rng| -> Vec<u64> {
            (0..n.min(3)).map(|_| rng.next_u64()).collect()
        };
        let merge = |a: &mut Vec<u64>, b: Vec<u64>| a.extend(b);
        let one = run_chunks(5 * CHUNK_ROUNDS + 7, 42, 1, work, merge, |_| {}).unwrap();
        let two = run_chunks(5 * CHUNK_ROUNDS + 7, 42, 2, work, merge, |_| {}).unwrap();
        assert_eq!(one, two);
        let other = run_chunks(5 * CHUNK_ROUNDS + 7, 43, 2, work, merge, |_| {}).unwrap();
        assert_ne!(one, other);
        assert_eq!(one.unwrap().len(), 18);
    }

    #[test]
    fn chunks_cover_every_round() {
        assert_eq!(chunk_count(0), 0);
        let rounds = CHUNK_ROUNDS * 2 + 1;
        assert_eq!(chunk_count(rounds), 3);
        let lens: Vec<u64> = (0..3).map(|i| chunk_len(rounds, i)).collect();
        assert_eq!(lens, [CHUNK_ROUNDS, CHUNK_ROUNDS, 1]);
        assert_eq!(chunk_count(u64::MAX), u64::MAX / CHUNK_ROUNDS + 1);
        assert_eq!(
            chunk_len(u64::MAX, u64::MAX / CHUNK_ROUNDS),
            CHUNK_ROUNDS - 1
        );
    }

    #[test]
    fn shards_cover_every_chunk_once() {
        for (rounds, shards) in [
            (10 * CHUNK_ROUNDS, 3),
            (2 * CHUNK_ROUNDS, 5),
            (1, 1),
            (7, 2),
        ] {
            let mut next = 0;
            for s in 0..shards {
                let r = shard_chunks(rounds, s, shards);
                assert_eq!(r.start, next);
                next = r.end;
            }
            assert_eq!(next, chunk_count(rounds));
        }
    }

    #[test]
    fn batches_merge_in_chunk_order() {
        // More chunks than one batch holds: the merge still sees them in order.
        let chunks = 2 * BATCH_CHUNKS_PER_THREAD + 3;
        let work = |i: u64, _n: u64, _rng: &mut ChaCha8Rng| vec![i];
        let merge = |a: &mut Vec<u64>, b: Vec<u64>| a.extend(b);
        let got = run_chunks(chunks * CHUNK_ROUNDS, 1, 1, work, merge, |_| {}).unwrap();
        assert_eq!(got, Some((0..chunks).collect::<Vec<_>>()));
    }
}
