//! A string-keyed map that empties itself when full: the exact-match caches of the template
//! miner and of `aciproj patterns`' redaction.
//!
//! Emptying instead of evicting keeps it a plain `HashMap`, with no bookkeeping on a hit; a
//! cache that filled up is refilled by the lines that follow. Its memory is bounded by an entry
//! count and by the bytes the caller says each entry costs.

use std::collections::HashMap;
use std::hash::{BuildHasher, RandomState};

pub(crate) struct ClearingMap<V, S = RandomState> {
    map: HashMap<Box<str>, V, S>,
    bytes: usize,
    max_entries: usize,
    max_bytes: usize,
    /// How many times the map emptied itself.
    clears: u64,
}

impl<V, S: BuildHasher + Default> ClearingMap<V, S> {
    pub(crate) fn new(max_entries: usize, max_bytes: usize) -> Self {
        ClearingMap {
            map: HashMap::default(),
            bytes: 0,
            max_entries,
            max_bytes,
            clears: 0,
        }
    }

    pub(crate) fn get(&self, key: &str) -> Option<&V> {
        self.map.get(key)
    }

    /// Keeps `key → value`, counting `cost` bytes; empties the map first when this entry would
    /// take it past either bound.
    pub(crate) fn insert(&mut self, key: Box<str>, value: V, cost: usize) {
        if self.map.len() >= self.max_entries || self.bytes + cost > self.max_bytes {
            self.clear();
            self.clears += 1;
        }
        self.bytes += cost;
        self.map.insert(key, value);
    }

    /// Empties the map.
    pub(crate) fn clear(&mut self) {
        self.map.clear();
        self.bytes = 0;
    }

    /// How many times the map emptied itself because it was full ([`ClearingMap::clear`] calls
    /// do not count): an entry got before and after the same count was there all along.
    pub(crate) fn clears(&self) -> u64 {
        self.clears
    }

    #[cfg(test)]
    pub(crate) fn len(&self) -> usize {
        self.map.len()
    }

    #[cfg(test)]
    pub(crate) fn is_empty(&self) -> bool {
        self.map.is_empty()
    }

    #[cfg(test)]
    pub(crate) fn bytes(&self) -> usize {
        self.bytes
    }

    #[cfg(test)]
    pub(crate) fn values(&self) -> impl Iterator<Item = &V> {
        self.map.values()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn empties_itself_at_either_bound() {
        let mut by_count: ClearingMap<u32> = ClearingMap::new(2, 100);
        by_count.insert("a".into(), 1, 1);
        by_count.insert("b".into(), 2, 1);
        assert_eq!((by_count.len(), by_count.get("a")), (2, Some(&1)));
        by_count.insert("c".into(), 3, 1);
        assert_eq!(
            (by_count.len(), by_count.get("a"), by_count.get("c")),
            (1, None, Some(&3))
        );

        let mut by_bytes: ClearingMap<u32> = ClearingMap::new(100, 10);
        by_bytes.insert("a".into(), 1, 6);
        by_bytes.insert("b".into(), 2, 4);
        assert_eq!(by_bytes.bytes(), 10);
        by_bytes.insert("c".into(), 3, 1);
        assert_eq!(
            (by_bytes.len(), by_bytes.bytes(), by_bytes.get("b")),
            (1, 1, None)
        );
    }
}
