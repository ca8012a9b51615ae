//! Kernel names interned in the order first seen, looked up a row at a time. A step runs the
//! same kernels in the same order as the step before, so the name that followed the last one
//! looked up is tried first: one string comparison, in memory laid out in that order, where a
//! hash probe into tens of thousands of names costs cache misses (a fifth of a 16-rank
//! comparison's time before).

use std::sync::Arc;

const NONE: u32 = u32::MAX;

/// Names by id, ids by name, and the order they last ran in.
#[derive(Debug, Clone, Default)]
pub struct Names {
    ids: foldhash::HashMap<Arc<str>, u32>,
    texts: Vec<Arc<str>>,
    /// For each name, the one looked up after it last time ([`NONE`] before).
    next: Vec<u32>,
    last: Option<u32>,
}

impl Names {
    /// The id of `text`, when it was seen; the next lookup tries the name that followed it
    /// last time first.
    pub fn find(&mut self, text: &str) -> Option<u32> {
        let guess = self
            .last
            .and_then(|l| self.next.get(l as usize).copied())
            .filter(|&g| g != NONE);
        let id = match guess {
            Some(g)
                if self
                    .texts
                    .get(g as usize)
                    .is_some_and(|t| same(t.as_bytes(), text.as_bytes())) =>
            {
                Some(g)
            }
            _ => self.ids.get(text).copied(),
        };
        if let Some(id) = id {
            self.follow(id);
        }
        id
    }

    /// The id of `text`, given it now when it has none.
    pub fn id(&mut self, text: &str) -> u32 {
        if let Some(id) = self.find(text) {
            return id;
        }
        let id = self.texts.len() as u32;
        let kept: Arc<str> = Arc::from(text);
        self.ids.insert(Arc::clone(&kept), id);
        self.texts.push(kept);
        self.next.push(NONE);
        self.follow(id);
        id
    }

    /// The id of `text`, when it was seen (no effect on the order).
    pub fn get(&self, text: &str) -> Option<u32> {
        self.ids.get(text).copied()
    }

    /// The name of `id`.
    pub fn text(&self, id: u32) -> &Arc<str> {
        &self.texts[id as usize]
    }

    /// Every name, in the order first seen (the index is the id).
    pub fn texts(&self) -> &[Arc<str>] {
        &self.texts
    }

    fn follow(&mut self, id: u32) {
        if let Some(slot) = self.last.and_then(|l| self.next.get_mut(l as usize)) {
            *slot = id;
        }
        self.last = Some(id);
    }
}

/// `a == b`, eight bytes at a time, for a field of the row just read against a kept text. The
/// row was just written into the reader's buffer; the C library's comparison reads it with
/// masked vector loads, which wait for those writes to reach the cache, where plain loads are
/// served from them (measured: a read of every run 12 % faster).
fn same(a: &[u8], b: &[u8]) -> bool {
    if a.len() != b.len() {
        return false;
    }
    let (mut a8, mut b8) = (a.chunks_exact(8), b.chunks_exact(8));
    let words = |x: &[u8]| x.try_into().map_or(0, u64::from_ne_bytes);
    a8.by_ref()
        .zip(b8.by_ref())
        .all(|(x, y)| words(x) == words(y))
        && a8
            .remainder()
            .iter()
            .zip(b8.remainder())
            .all(|(x, y)| x == y)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_keep_their_ids_whatever_the_order_they_come_in() {
        let mut n = Names::default();
        let step = ["a", "b", "c", "a"];
        let first: Vec<u32> = step.iter().map(|s| n.id(s)).collect();
        assert_eq!(first, [0, 1, 2, 0]);
        // The same order again (guessed), then another (looked up): the same ids.
        let again: Vec<u32> = step.iter().map(|s| n.id(s)).collect();
        assert_eq!(again, first);
        let other: Vec<Option<u32>> = ["c", "x", "b", "a"].iter().map(|s| n.find(s)).collect();
        assert_eq!(other, [Some(2), None, Some(1), Some(0)]);
        assert_eq!(
            (n.texts().len(), n.get("b"), n.text(2).as_ref()),
            (3, Some(1), "c")
        );
    }

    #[test]
    fn bytes_are_the_same_only_when_every_one_is() {
        let long = b"layer12_attention_qkv_proj_0";
        assert!(same(long, long) && same(b"", b""));
        for at in 0..long.len() {
            let mut other = *long;
            other[at] ^= 1;
            assert!(!same(long, &other), "{at}");
        }
        assert!(!same(b"abc", b"abcd"));
    }
}
