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
    /// Opens (or creates) the file for appending: a later session's events follow an
    /// earlier one's, nothing is overwritten.
    pub fn open(path: &Path) -> Result<EventFile> {
        let created = !path.exists();
        let file = std::fs::OpenOptions::new()
            .append(true)
            .create(true)
            .open(path)
            .with_context(|| format!("cannot write the event log {}", path.display()))?;
        Ok(EventFile {
            file,
            path: path.to_path_buf(),
            created,
        })
    }

    /// The session starts: its events go after whatever the file holds. Returns the
    /// writer and whether the file already held events.
    pub fn start(self) -> Result<(std::io::BufWriter<std::fs::File>, bool)> {
        let earlier = self
            .file
            .metadata()
            .with_context(|| format!("cannot write the event log {}", self.path.display()))?
            .len()
            > 0;
        Ok((std::io::BufWriter::new(self.file), earlier))
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
