//! Cutting a simulation into fixed chunks, each with its own random stream derived
//! from the seed, and running them on a thread pool. Results are merged in chunk
//! order, so the same seed gives the same totals whatever the number of threads.

use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use rayon::prelude::*;

/// Rounds per chunk: the unit of work and of reproducibility.
pub const CHUNK_ROUNDS: u64 = 1 << 16;

/// Why a simulation could not run.
#[derive(Debug, thiserror::Error)]
pub enum RunError {
    /// The thread pool could not be built.
    #[error("cannot start {threads} worker threads: {source}")]
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

/// The sizes of the chunks of a run of `rounds` rounds.
pub fn chunk_sizes(rounds: u64) -> impl Iterator<Item = u64> {
    let full = rounds / CHUNK_ROUNDS;
    let rest = rounds % CHUNK_ROUNDS;
    (0..full)
        .map(|_| CHUNK_ROUNDS)
        .chain((rest > 0).then_some(rest))
}

/// Runs `work(chunk_index, rounds, rng)` for every chunk on `threads` threads and
/// merges the results in chunk order. `progress(rounds)` is called after each chunk.
pub fn run_chunks<A, W, M, P>(
    rounds: u64,
    seed: u64,
    threads: usize,
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
    let chunks: Vec<(u64, u64)> = chunk_sizes(rounds)
        .enumerate()
        .map(|(i, n)| (i as u64, n))
        .collect();
    let results: Vec<A> = pool.install(|| {
        chunks
            .par_iter()
            .map(|&(i, n)| {
                let mut rng = chunk_rng(seed, i);
                let a = work(i, n, &mut rng);
                progress(n);
                a
            })
            .collect()
    });
    let mut it = results.into_iter();
    let Some(mut total) = it.next() else {
        return Ok(None);
    };
    for a in it {
        merge(&mut total, a);
    }
    Ok(Some(total))
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
        assert_eq!(chunk_sizes(0).count(), 0);
        assert_eq!(
            chunk_sizes(CHUNK_ROUNDS * 2 + 1).sum::<u64>(),
            CHUNK_ROUNDS * 2 + 1
        );
    }
}
