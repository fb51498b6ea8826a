//! The keys of every level of the optimal split's states, kept from their
//! forward count until their level is valued: in memory up to a number of
//! keys, the rest in a temporary file (removed when the store goes), read
//! back a level at a time, the most cards first.

use super::Key;
use crate::main_game::error::MainGameError;
use std::fs::File;
use std::io::{BufReader, BufWriter, Read, Seek, SeekFrom, Write};

/// One level's keys, by stage.
pub(super) type Level = Vec<Vec<Key>>;

/// Where a level's keys are.
enum Held {
    Memory(Level),
    /// At this offset of the file, with each stage's number of keys.
    File {
        at: u64,
        stages: Vec<usize>,
    },
}

/// The levels pushed, in order, popped the last first.
pub(super) struct KeyStore {
    levels: Vec<Held>,
    in_memory: u64,
    max_in_memory: u64,
    file: Option<File>,
    end: u64,
}

/// Bytes per key in the file: its two words, little-endian.
const KEY_BYTES: usize = 16;

fn io_error(e: std::io::Error) -> MainGameError {
    MainGameError::WorkingFile(format!(
        "the temporary file of the states' keys past --keys-in-memory (in the system's \
         temporary directory, TMPDIR): {e}"
    ))
}

impl KeyStore {
    /// A store keeping up to `max_in_memory` keys in memory.
    pub(super) fn new(max_in_memory: u64) -> KeyStore {
        KeyStore {
            levels: Vec::new(),
            in_memory: 0,
            max_in_memory,
            file: None,
            end: 0,
        }
    }

    /// Levels held.
    pub(super) fn len(&self) -> usize {
        self.levels.len()
    }

    /// Keys written to the file so far.
    pub(super) fn spilled(&self) -> u64 {
        self.end / KEY_BYTES as u64
    }

    /// Holds the next level: in memory while the bound allows, else in the file.
    pub(super) fn push(&mut self, level: Level) -> Result<(), MainGameError> {
        let n: u64 = level.iter().map(|s| s.len() as u64).sum();
        if self.in_memory + n <= self.max_in_memory {
            self.in_memory += n;
            self.levels.push(Held::Memory(level));
            return Ok(());
        }
        let file = match &mut self.file {
            Some(f) => f,
            None => self.file.insert(tempfile::tempfile().map_err(io_error)?),
        };
        file.seek(SeekFrom::Start(self.end)).map_err(io_error)?;
        let mut out = BufWriter::with_capacity(1 << 20, &mut *file);
        for key in level.iter().flatten() {
            out.write_all(&key.0.to_le_bytes()).map_err(io_error)?;
            out.write_all(&key.1.to_le_bytes()).map_err(io_error)?;
        }
        out.flush().map_err(io_error)?;
        let at = self.end;
        self.end += n * KEY_BYTES as u64;
        let stages = level.iter().map(Vec::len).collect();
        self.levels.push(Held::File { at, stages });
        Ok(())
    }

    /// The last level held, taken out of the store.
    pub(super) fn pop(&mut self) -> Result<Option<Level>, MainGameError> {
        match self.levels.pop() {
            None => Ok(None),
            Some(Held::Memory(level)) => {
                self.in_memory -= level.iter().map(|s| s.len() as u64).sum::<u64>();
                Ok(Some(level))
            }
            Some(Held::File { at, stages }) => {
                let Some(file) = &mut self.file else {
                    return Err(io_error(std::io::Error::other("no file was made")));
                };
                file.seek(SeekFrom::Start(at)).map_err(io_error)?;
                let mut input = BufReader::with_capacity(1 << 20, &mut *file);
                let mut word = [0u8; 8];
                let mut next = || -> Result<u64, MainGameError> {
                    input.read_exact(&mut word).map_err(io_error)?;
                    Ok(u64::from_le_bytes(word))
                };
                let mut level = Vec::with_capacity(stages.len());
                for n in stages {
                    let mut keys = Vec::with_capacity(n);
                    for _ in 0..n {
                        keys.push(Key(next()?, next()?));
                    }
                    level.push(keys);
                }
                self.end = at;
                Ok(Some(level))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn level(from: u64, stages: &[usize]) -> Level {
        let mut k = from;
        stages
            .iter()
            .map(|&n| {
                (0..n)
                    .map(|_| {
                        k += 1;
                        Key(k << 40 | 7, !k)
                    })
                    .collect()
            })
            .collect()
    }

    #[test]
    fn levels_come_back_last_first_whether_held_in_memory_or_in_the_file() {
        let levels = [
            level(0, &[3, 0, 2]),
            level(100, &[4, 1]),
            level(200, &[0, 5, 6]),
        ];
        let mut store = KeyStore::new(6);
        for l in &levels {
            store.push(l.clone()).unwrap();
        }
        // The first level (5 keys) fits the bound of 6; the others go to the file.
        assert_eq!(store.spilled(), 16);
        assert_eq!(store.len(), 3);
        for l in levels.iter().rev() {
            assert!(store.pop().unwrap().unwrap() == *l);
        }
        assert!(store.pop().unwrap().is_none());
        assert_eq!(store.spilled(), 0);
    }
}
