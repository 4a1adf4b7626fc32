//! The game ids a CSV reader has met (`pipeline.logs.csv_logs`), each with a number (its
//! games-CSV row's line and the file its actions were read in), in ~31 bytes an id where a
//! Python dict of `str` → `int` takes ~130: a 1M-game CSV import held ~120 MiB of it.
//!
//! An id is kept as a 128-bit digest: two SipHash-1-3 values of it under a key drawn at random
//! for each table (std's `RandomState`), the id with a 0 and with a 1 after it. Two ids
//! colliding is beyond reach, by chance as for the import's games index
//! (`pipeline.warehouse.known`, BLAKE2b) and by design too, the key being unknown; the digest
//! lives only as long as its table, so it need not be BLAKE2b's, which took ~5× as long (an id
//! is looked up three or four times a CSV game). The newest ids are in a small hash
//! map; past a sixteenth of the rest (and at least [`MERGE_AT`]) they are merged into 64
//! sorted buckets by the digest's top bits, one bucket at a time, so a merge holds one
//! bucket twice, not the table.

use std::collections::HashMap;
use std::hash::{BuildHasher, BuildHasherDefault, Hash, Hasher, RandomState};

/// The small map is merged into the buckets past this size or a sixteenth of them.
pub const MERGE_AT: usize = 65_536;

const BUCKET_BITS: u32 = 6;

/// An id's digest, two little-endian words; the first word's top bits pick its bucket.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
struct Key([u64; 2]);

impl Key {
    /// `id`'s digest under `key` (see the module's notes).
    fn of(key: &RandomState, id: &[u8]) -> Key {
        Key([key.hash_one((id, 0u8)), key.hash_one((id, 1u8))])
    }

    fn bucket(self) -> usize {
        (self.0[0] >> (64 - BUCKET_BITS)) as usize
    }
}

impl Hash for Key {
    fn hash<H: Hasher>(&self, state: &mut H) {
        state.write_u64(self.0[1]) // uniform already: no hashing of the hash
    }
}

/// The hasher of [`Key`]s: the word it is given.
#[derive(Default)]
struct Word(u64);

impl Hasher for Word {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = self.0.rotate_left(8) ^ u64::from(b);
        }
    }

    fn write_u64(&mut self, n: u64) {
        self.0 = n;
    }
}

/// Game id → a number, as a dict of them answers `get`, `[id] = n` and `setdefault`.
#[derive(Default)]
pub struct IdTable {
    small: HashMap<Key, u64, BuildHasherDefault<Word>>,
    buckets: Vec<Vec<(Key, u64)>>,
    merged: usize,
    /// the digests' key, the table's own
    key: RandomState,
}

impl IdTable {
    pub fn new() -> IdTable {
        IdTable {
            buckets: vec![Vec::new(); 1 << BUCKET_BITS],
            ..IdTable::default()
        }
    }

    pub fn len(&self) -> usize {
        self.merged + self.small.len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    fn slot(&self, key: Key) -> Result<usize, usize> {
        self.buckets[key.bucket()].binary_search_by(|(k, _)| k.cmp(&key))
    }

    /// `id`'s number, if it has one.
    pub fn get(&self, id: &[u8]) -> Option<u64> {
        let key = Key::of(&self.key, id);
        if let Some(&n) = self.small.get(&key) {
            return Some(n);
        }
        self.slot(key).ok().map(|i| self.buckets[key.bucket()][i].1)
    }

    /// Give `id` the number `n`.
    pub fn set(&mut self, id: &[u8], n: u64) {
        let key = Key::of(&self.key, id);
        match self.slot(key) {
            Ok(i) => self.buckets[key.bucket()][i].1 = n,
            Err(_) => self.insert(key, n),
        }
    }

    /// `id`'s number, given `n` first when it has none.
    pub fn set_default(&mut self, id: &[u8], n: u64) -> u64 {
        let key = Key::of(&self.key, id);
        if let Some(&known) = self.small.get(&key) {
            return known;
        }
        match self.slot(key) {
            Ok(i) => self.buckets[key.bucket()][i].1,
            Err(_) => {
                self.insert(key, n);
                n
            }
        }
    }

    fn insert(&mut self, key: Key, n: u64) {
        self.small.insert(key, n);
        if self.small.len() >= MERGE_AT.max(self.merged / 16) {
            self.merge();
        }
    }

    /// The small map into the buckets, each bucket merged in place from its end.
    fn merge(&mut self) {
        let mut new: Vec<(Key, u64)> = self.small.drain().collect();
        self.small.shrink_to(MERGE_AT);
        new.sort_unstable_by_key(|&(k, _)| k);
        self.merged += new.len();
        let mut rest = &new[..];
        for (b, bucket) in self.buckets.iter_mut().enumerate() {
            let n = rest.partition_point(|(k, _)| k.bucket() == b);
            let (more, after) = rest.split_at(n);
            rest = after;
            if more.is_empty() {
                continue;
            }
            let old = bucket.len();
            bucket.reserve_exact(more.len());
            bucket.extend_from_slice(more);
            let (mut i, mut j) = (old, more.len());
            for k in (0..old + more.len()).rev() {
                if j == 0 {
                    break; // the old entries left are where they were
                }
                if i > 0 && bucket[i - 1].0 > more[j - 1].0 {
                    bucket[k] = bucket[i - 1];
                    i -= 1;
                } else {
                    bucket[k] = more[j - 1];
                    j -= 1;
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap as Plain;

    /// A dict's answers through merges, for ids new, set again and asked for twice.
    #[test]
    fn answers_as_a_map_does() {
        let mut table = IdTable::new();
        let mut plain: Plain<String, u64> = Plain::new();
        for k in 0..(3 * MERGE_AT as u64) {
            let id = format!("g{}", k * 7 % 100_003);
            let n = k * 3 + 1;
            let got = table.set_default(id.as_bytes(), n);
            assert_eq!(got, *plain.entry(id.clone()).or_insert(n));
            if k % 5 == 0 {
                table.set(id.as_bytes(), n + 1);
                plain.insert(id, n + 1);
            }
        }
        assert!(table.merged > 0 && table.len() == plain.len());
        for (id, n) in &plain {
            assert_eq!(table.get(id.as_bytes()), Some(*n));
        }
        assert_eq!(table.get(b"never"), None);
        for bucket in &table.buckets {
            assert!(bucket.windows(2).all(|w| w[0].0 < w[1].0));
        }
    }
}
