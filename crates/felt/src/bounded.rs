//! Reading what felt is given with limits: a file is read through [`Read::take`], so a
//! huge file or one that never ends (`/dev/zero`, a FIFO nobody closes) is refused
//! after its limit instead of filling the memory.

use anyhow::{bail, Context, Result};
use std::io::Read;
use std::path::Path;

/// The largest rules file or shoe file felt reads: 1 MiB. A rules file is a few KB
/// (the commented presets are 3 to 8 KB) and a shoe file at most 8 decks of cards (a
/// few KB with comments), so this leaves two orders of magnitude for comments while
/// a refused file costs at most 1 MiB of memory and a moment to read.
pub const FILE_LIMIT: u64 = 1 << 20;

/// The text of `path`, `what` naming it in errors ("the rules file"): refused when it
/// holds more than `limit` bytes (or never ends), or is not UTF-8 text.
pub fn read_text(path: &Path, what: &str, limit: u64) -> Result<String> {
    let shown = path.display();
    let too_big = || {
        format!(
            "{what} {shown} is larger than {} (or never ends): felt reads at most that much; \
             give a file of that size or less",
            size(limit)
        )
    };
    let file = std::fs::File::open(path).with_context(|| format!("cannot read {what} {shown}"))?;
    let meta = file
        .metadata()
        .with_context(|| format!("cannot read {what} {shown}"))?;
    if meta.is_dir() {
        bail!("{what} {shown} is a directory, not a file");
    }
    if meta.is_file() && meta.len() > limit {
        bail!(too_big());
    }
    // One byte past the limit tells a file of exactly `limit` bytes from a longer one
    // (a device or a pipe has no length to look at first).
    let mut bytes = Vec::new();
    file.take(limit.saturating_add(1))
        .read_to_end(&mut bytes)
        .with_context(|| format!("cannot read {what} {shown}"))?;
    if bytes.len() as u64 > limit {
        bail!(too_big());
    }
    String::from_utf8(bytes).map_err(|e| {
        let at = e.utf8_error().valid_up_to();
        anyhow::anyhow!(
            "{what} {shown} is not UTF-8 text (byte {:#04X} at offset {at})",
            e.as_bytes()[at]
        )
    })
}

/// `1 MiB`, `4 KiB`, `100 bytes`.
pub fn size(bytes: u64) -> String {
    if bytes >= 1 << 20 && bytes.is_multiple_of(1 << 20) {
        format!("{} MiB", bytes >> 20)
    } else if bytes >= 1 << 10 && bytes.is_multiple_of(1 << 10) {
        format!("{} KiB", bytes >> 10)
    } else {
        format!("{bytes} bytes")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_of_the_limit_is_read_and_one_byte_more_is_refused() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path();
        let p = dir.join("f.txt");
        std::fs::write(&p, "x".repeat(100)).unwrap();
        assert_eq!(read_text(&p, "the file", 100).unwrap().len(), 100);
        let e = read_text(&p, "the file", 99).unwrap_err().to_string();
        assert!(e.contains("larger than 99 bytes"), "{e}");
        std::fs::write(&p, b"ab\xffc").unwrap();
        let e = read_text(&p, "the file", 99).unwrap_err().to_string();
        assert!(e.contains("not UTF-8 text (byte 0xFF at offset 2)"), "{e}");
        let e = read_text(dir, "the file", 99).unwrap_err().to_string();
        assert!(e.contains("is a directory"), "{e}");
    }
}
