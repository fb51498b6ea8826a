//! The files a session reads and writes besides the books: the stacked shoe of
//! `--shoe FILE` and the event log of `--events FILE`.

use anyhow::{Context, Result};
use felt_core::{card, Card, Rules, Shoe};
use rand_chacha::ChaCha20Rng;
use std::path::{Path, PathBuf};

/// The file of `--events FILE` between its check and the session's start.
pub struct EventFile {
    file: std::fs::File,
    path: PathBuf,
    created: bool,
}

impl EventFile {
    /// Opens (or creates) the file without emptying it.
    pub fn open(path: &Path) -> Result<EventFile> {
        let created = !path.exists();
        let file = std::fs::OpenOptions::new()
            .write(true)
            .create(true)
            .truncate(false)
            .open(path)
            .with_context(|| format!("cannot write the event log {}", path.display()))?;
        Ok(EventFile {
            file,
            path: path.to_path_buf(),
            created,
        })
    }

    /// The session starts: the file is emptied and written from its start.
    pub fn start(self) -> Result<std::io::BufWriter<std::fs::File>> {
        self.file
            .set_len(0)
            .with_context(|| format!("cannot write the event log {}", self.path.display()))?;
        Ok(std::io::BufWriter::new(self.file))
    }

    /// The session was refused: a file it created goes away, an earlier one stays as
    /// it was.
    pub fn abandon(self) {
        drop(self.file);
        if self.created {
            let _ = std::fs::remove_file(&self.path);
        }
    }
}

/// The cards of `--shoe FILE`.
pub fn read_shoe_file(path: &Path) -> Result<Vec<Card>> {
    let text = crate::bounded::read_text(path, "the shoe file", crate::bounded::FILE_LIMIT)?;
    card::parse_cards(&text).with_context(|| format!("in the shoe file {}", path.display()))
}

/// The shoe of `--shoe FILE`: the file's cards first, in order, then the shuffled rest.
pub fn stacked_shoe(
    path: &Path,
    first: &[Card],
    rules: &Rules,
    rng: &mut ChaCha20Rng,
) -> Result<Shoe> {
    let mut s = Shoe::stacked(rules.shoe().decks, first, rng)
        .with_context(|| format!("in the shoe file {}", path.display()))?;
    s.set_penetration(rules.shoe().penetration);
    Ok(s)
}
