//! What a dump file was when it was loaded — size, modification time and a hash of its bytes —
//! so a change on disk (an edited, rewritten or deleted dump) is noticed before a run hands
//! the file to a job while the plan on screen is of the old one.

use std::path::Path;
use std::time::SystemTime;

/// A loaded file as it was.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileStamp {
    /// Its size in bytes.
    pub size: u64,
    /// When it was last modified, when the file system says.
    pub modified: Option<SystemTime>,
    /// A hash of its bytes ([`hash`]).
    pub hash: u64,
}

/// How a file differs from its stamp.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FileChange {
    /// It is gone (or cannot be read).
    Gone,
    /// Its contents changed: the sizes before and now.
    Changed {
        /// The size it had.
        was: u64,
        /// The size it has.
        now: u64,
    },
}

impl std::fmt::Display for FileChange {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            FileChange::Gone => f.write_str("it was deleted or cannot be read any more"),
            FileChange::Changed { was, now } if was == now => {
                write!(f, "its contents changed (same size, {was} bytes)")
            }
            FileChange::Changed { was, now } => {
                write!(f, "its contents changed ({was} → {now} bytes)")
            }
        }
    }
}

impl FileStamp {
    /// The stamp of `bytes`, just read from a file with `metadata`.
    pub fn of(metadata: &std::fs::Metadata, bytes: &[u8]) -> FileStamp {
        FileStamp {
            size: bytes.len() as u64,
            modified: metadata.modified().ok(),
            hash: hash(bytes),
        }
    }

    /// How the file at `path` differs from this stamp, if it does. Size and time alone
    /// settle "unchanged"; when they differ the bytes are hashed again, so a file only
    /// touched (or copied back) is not reported.
    pub fn check(&self, path: &Path) -> Option<FileChange> {
        let Ok(metadata) = std::fs::metadata(path) else {
            return Some(FileChange::Gone);
        };
        if metadata.len() == self.size && metadata.modified().ok() == self.modified {
            return None;
        }
        let Ok(bytes) = std::fs::read(path) else {
            return Some(FileChange::Gone);
        };
        let same = bytes.len() as u64 == self.size && hash(&bytes) == self.hash;
        (!same).then_some(FileChange::Changed {
            was: self.size,
            now: bytes.len() as u64,
        })
    }
}

/// A fast 64-bit hash of `bytes`: four lanes of eight bytes each (multiply and rotate; the
/// lanes do not wait on each other, so a core works on all four at once), then the tail and a
/// final mix — about 20 GB/s, enough to tell a changed dump from the loaded one; not
/// cryptographic.
pub fn hash(bytes: &[u8]) -> u64 {
    const K: u64 = 0x9E37_79B9_7F4A_7C15;
    let step = |h: u64, w: u64| (h ^ w).wrapping_mul(K).rotate_left(29);
    let word = |b: &[u8]| {
        let mut w = [0u8; 8];
        w.copy_from_slice(b);
        u64::from_le_bytes(w)
    };
    let seed = 0x243F_6A88_85A3_08D3 ^ bytes.len() as u64;
    let mut lanes = [seed, seed ^ 1, seed ^ 2, seed ^ 3];
    let mut blocks = bytes.chunks_exact(32);
    for block in &mut blocks {
        for (lane, w) in lanes.iter_mut().zip(block.chunks_exact(8)) {
            *lane = step(*lane, word(w));
        }
    }
    let mut h = lanes.into_iter().fold(seed, step);
    let mut words = blocks.remainder().chunks_exact(8);
    for w in &mut words {
        h = step(h, word(w));
    }
    for &b in words.remainder() {
        h = step(h, u64::from(b));
    }
    h ^= h >> 33;
    h = h.wrapping_mul(0xFF51_AFD7_ED55_8CCD);
    h ^ (h >> 33)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_change_on_disk_is_told_and_a_touch_is_not() {
        let dir = crate::scratch::scratch("stamp");
        let path = dir.join("dump.txt");
        let _ = std::fs::write(&path, b"op { name: \"a\" }\n");
        let (Ok(meta), Ok(bytes)) = (std::fs::metadata(&path), std::fs::read(&path)) else {
            panic!("cannot read the test file back");
        };
        let stamp = FileStamp::of(&meta, &bytes);
        assert_eq!(stamp.check(&path), None);
        // Rewritten with the same bytes (a new time): not a change.
        std::thread::sleep(std::time::Duration::from_millis(20));
        let _ = std::fs::write(&path, &bytes);
        assert_eq!(stamp.check(&path), None);
        // Same size, one byte different.
        let _ = std::fs::write(&path, b"op { name: \"b\" }\n");
        assert_eq!(
            stamp.check(&path),
            Some(FileChange::Changed { was: 17, now: 17 })
        );
        let _ = std::fs::write(&path, b"op { name: \"abc\" }\n");
        assert_eq!(
            stamp.check(&path).map(|c| c.to_string()),
            Some("its contents changed (17 → 19 bytes)".to_string())
        );
        let _ = std::fs::remove_file(&path);
        assert_eq!(stamp.check(&path), Some(FileChange::Gone));
    }

    #[test]
    fn the_hash_tells_one_byte_apart() {
        let a = vec![7u8; 1 << 16];
        let mut b = a.clone();
        b[40_000] = 8;
        assert_ne!(hash(&a), hash(&b));
        assert_ne!(hash(b"abc"), hash(b"abd"));
        assert_eq!(hash(&a), hash(&a.clone()));
        // Every lane, the words after the last block and the last bytes.
        let c = vec![7u8; 71];
        for at in 0..c.len() {
            let mut d = c.clone();
            d[at] = 8;
            assert_ne!(hash(&c), hash(&d), "a change at byte {at}");
        }
        assert_ne!(hash(&c), hash(&c[..70]), "a byte less");
    }
}
