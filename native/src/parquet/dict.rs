//! The dictionaries of dictionary-encoded columns: values plain-encoded, hashed and compared,
//! and each column's distinct values in first-seen order with every row's index among them.

use std::mem::MaybeUninit;

use super::{BYTE_ARRAY, INT32};

/// A dictionary of more plain bytes than this is dropped for plain values (pyarrow's
/// `dictionary_pagesize_limit`).
const DICTIONARY_LIMIT: usize = 1 << 20;

/// FxHash's step (the dictionaries' keys are short and trusted).
#[inline(always)]
fn fx(h: u64, w: u64) -> u64 {
    (h.rotate_left(5) ^ w).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95)
}

/// Plain-encoded values of one type: what a page or a dictionary page holds.
pub(super) trait Plain: Copy {
    fn plain(values: &[Self], physical: i32, out: &mut Vec<u8>);
    /// Bytes a value takes plain-encoded.
    fn plain_size(self, physical: i32) -> usize;
    /// The statistic's bytes of a value.
    fn stat(self, physical: i32) -> Vec<u8>;
}

/// Values of `N` bytes each appended to `out`: reserved once, then written in place (no
/// capacity check a value, no zeros written first).
fn fixed<T: Copy, const N: usize>(out: &mut Vec<u8>, values: &[T], bytes: impl Fn(T) -> [u8; N]) {
    let n = N * values.len();
    out.reserve(n);
    for (c, &v) in out.spare_capacity_mut()[..n]
        .chunks_exact_mut(N)
        .zip(values)
    {
        for (d, b) in c.iter_mut().zip(bytes(v)) {
            d.write(b);
        }
    }
    // SAFETY: the loop wrote the `n` bytes after the length (`N` a value, one chunk a value)
    unsafe { out.set_len(out.len() + n) };
}

impl Plain for i64 {
    fn plain(values: &[i64], physical: i32, out: &mut Vec<u8>) {
        if physical == INT32 {
            fixed(out, values, |v| (v as i32).to_le_bytes());
        } else {
            fixed(out, values, i64::to_le_bytes);
        }
    }

    fn plain_size(self, physical: i32) -> usize {
        if physical == INT32 {
            4
        } else {
            8
        }
    }

    fn stat(self, physical: i32) -> Vec<u8> {
        if physical == INT32 {
            (self as i32).to_le_bytes().to_vec()
        } else {
            self.to_le_bytes().to_vec()
        }
    }
}

impl Plain for f64 {
    fn plain(values: &[f64], _: i32, out: &mut Vec<u8>) {
        fixed(out, values, f64::to_le_bytes);
    }

    fn plain_size(self, _: i32) -> usize {
        8
    }

    fn stat(self, _: i32) -> Vec<u8> {
        self.to_le_bytes().to_vec()
    }
}

/// `from` copied to `to`, of its length: up to 32 bytes by two loads and two stores that
/// overlap (no call), longer ones by `copy_nonoverlapping`.
#[inline(always)]
fn copy_short(to: &mut [MaybeUninit<u8>], from: &[u8]) {
    assert_eq!(to.len(), from.len());
    let (p, n) = (to.as_mut_ptr().cast::<u8>(), from.len());
    // SAFETY: each store is of bytes within `to` (as long as `from`, asserted above), each
    // load of bytes within `from`
    unsafe {
        macro_rules! ends {
            ($w:literal) => {
                if let (Some(a), Some(b)) = (from.first_chunk::<$w>(), from.last_chunk::<$w>()) {
                    p.cast::<[u8; $w]>().write_unaligned(*a);
                    p.add(n - $w).cast::<[u8; $w]>().write_unaligned(*b);
                    return;
                }
            };
        }
        if n > 32 {
            std::ptr::copy_nonoverlapping(from.as_ptr(), p, n);
            return;
        }
        ends!(16);
        ends!(8);
        ends!(4);
        for (k, &b) in from.iter().enumerate() {
            p.add(k).write(b);
        }
    }
}

impl Plain for &[u8] {
    /// Each value's length then its bytes, written in place once the whole is reserved.
    fn plain(values: &[&[u8]], _: i32, out: &mut Vec<u8>) {
        let n: usize = values.iter().map(|v| 4 + v.len()).sum();
        out.reserve(n);
        let spare = &mut out.spare_capacity_mut()[..n];
        let mut at = 0;
        for v in values {
            let (len, bytes) = spare[at..at + 4 + v.len()].split_at_mut(4);
            for (d, b) in len.iter_mut().zip((v.len() as u32).to_le_bytes()) {
                d.write(b);
            }
            copy_short(bytes, v);
            at += 4 + v.len();
        }
        // SAFETY: the loop wrote the `n` bytes after the length (each value's 4 + its own)
        unsafe { out.set_len(out.len() + n) };
    }

    fn plain_size(self, _: i32) -> usize {
        4 + self.len()
    }

    fn stat(self, _: i32) -> Vec<u8> {
        self.to_vec()
    }
}

/// A value a dictionary holds: its id, computed once a value and compared first (the value
/// itself, a double's bits, a string's length and two of its words), its hash (its high
/// bits pick its slot), and its equality to a value of the same id.
pub(super) trait Key: Plain {
    type Id: Copy + Eq;
    fn id(self) -> Self::Id;
    fn hash(self, id: Self::Id) -> u64;
    /// Whether `self` equals `other`, the two of the same id: always, but for a string
    /// longer than 16 bytes (its id does not hold all of it).
    fn same(self, other: Self) -> bool;

    /// [`dictionary`] of these values (`bounds`: of integers of a narrow type, its range).
    fn dictionary(
        values: &[Self],
        (physical, _bounds): (i32, Option<(i64, i64)>),
        indices: &mut Vec<u32>,
    ) -> Option<Vec<Self>> {
        dictionary(values, physical, indices)
    }
}

impl Key for i64 {
    type Id = i64;

    #[inline(always)]
    fn id(self) -> i64 {
        self
    }

    #[inline(always)]
    fn hash(self, _: i64) -> u64 {
        fx(0, self as u64)
    }

    #[inline(always)]
    fn same(self, _: i64) -> bool {
        true
    }

    /// Integers of a narrow range (a seat, an action's index) by a table of slots, one a
    /// value in the range (the range of their type when it is given, else their least and
    /// greatest); others by [`dictionary`].
    fn dictionary(
        values: &[i64],
        (physical, bounds): (i32, Option<(i64, i64)>),
        indices: &mut Vec<u32>,
    ) -> Option<Vec<i64>> {
        const NARROW: u64 = 1 << 16;
        indices.clear();
        let Some(&first) = values.first() else {
            return Some(Vec::new());
        };
        let (lo, hi) = bounds.unwrap_or_else(|| {
            // one pass for both bounds, four of each side by side (no chain of dependent
            // compares, no branch a value)
            let (mut lo, mut hi) = ([first; 4], [first; 4]);
            let mut chunks = values.chunks_exact(4);
            for c in &mut chunks {
                for k in 0..4 {
                    lo[k] = if c[k] < lo[k] { c[k] } else { lo[k] };
                    hi[k] = if c[k] > hi[k] { c[k] } else { hi[k] };
                }
            }
            for &v in chunks.remainder() {
                lo[0] = if v < lo[0] { v } else { lo[0] };
                hi[0] = if v > hi[0] { v } else { hi[0] };
            }
            let lo = lo[0].min(lo[1]).min(lo[2].min(lo[3]));
            let hi = hi[0].max(hi[1]).max(hi[2].max(hi[3]));
            (lo, hi)
        });
        let span = hi.wrapping_sub(lo) as u64;
        if span >= NARROW {
            return dictionary(values, physical, indices);
        }
        let mut slots = vec![u32::MAX; span as usize + 1];
        let mut distinct = Vec::new();
        indices.extend(values.iter().map(|&v| {
            let slot = &mut slots[v.wrapping_sub(lo) as usize];
            if *slot == u32::MAX {
                *slot = distinct.len() as u32;
                distinct.push(v);
            }
            *slot
        }));
        Some(distinct)
    }
}

impl Key for f64 {
    type Id = u64;

    #[inline(always)]
    fn id(self) -> u64 {
        self.to_bits()
    }

    #[inline(always)]
    fn hash(self, id: u64) -> u64 {
        fx(0, id)
    }

    #[inline(always)]
    fn same(self, _: f64) -> bool {
        true
    }
}

/// A string's two words: for one of at most 16 bytes, two that with its length tell it
/// apart from any other such string (the words overlap when it is shorter than 16); for a
/// longer one its first and last 8 bytes. Loads of 8, 4 and 1 bytes, none past its end and
/// no call.
#[inline(always)]
fn words(s: &[u8]) -> (u64, u64) {
    if let (Some(a), Some(b)) = (s.first_chunk::<8>(), s.last_chunk::<8>()) {
        return (u64::from_le_bytes(*a), u64::from_le_bytes(*b));
    }
    if let (Some(a), Some(b)) = (s.first_chunk::<4>(), s.last_chunk::<4>()) {
        return (u32::from_le_bytes(*a).into(), u32::from_le_bytes(*b).into());
    }
    match *s {
        [] => (0, 0),
        [first, .., last] | [first @ last] => {
            let middle = s[s.len() / 2];
            (
                u64::from(first) | u64::from(middle) << 8 | u64::from(last) << 16,
                0,
            )
        }
    }
}

impl Key for &[u8] {
    /// its length and [`words`]
    type Id = (usize, u64, u64);

    #[inline(always)]
    fn id(self) -> (usize, u64, u64) {
        let (a, b) = words(self);
        (self.len(), a, b)
    }

    #[inline(always)]
    fn hash(self, (n, a, b): (usize, u64, u64)) -> u64 {
        if n <= 16 {
            return fx(fx(fx(0, n as u64), a), b);
        }
        let mut h = fx(0, n as u64);
        let mut words = self.chunks_exact(8);
        for w in &mut words {
            h = fx(h, u64::from_le_bytes(w.try_into().unwrap()));
        }
        fx(h, b)
    }

    #[inline(always)]
    fn same(self, other: &[u8]) -> bool {
        self.len() <= 16 || self == other
    }
}

/// The distinct values in first-seen order, each value's index among them in `indices`;
/// None when their plain encoding would pass [`DICTIONARY_LIMIT`]. An open-addressing table
/// (linear probes), at most half full, of each distinct value's id and index (a probe reads
/// one slot, not the slot then the value); a value equal to the one before it is not looked
/// up.
fn dictionary<T: Key>(values: &[T], physical: i32, indices: &mut Vec<u32>) -> Option<Vec<T>> {
    const EMPTY: u32 = u32::MAX;
    indices.clear();
    let Some(&first) = values.first() else {
        return Some(Vec::new());
    };
    let mut bits = 10;
    let mut slots = vec![(first.id(), EMPTY); 1 << bits];
    let mut distinct: Vec<T> = Vec::new();
    indices.reserve(values.len());
    let mut size = 0;
    // the value before, its id and its index (EMPTY before the first)
    let (mut last, mut last_id, mut last_i) = (first, first.id(), EMPTY);
    for &v in values {
        let id = v.id();
        if id == last_id && last_i != EMPTY && v.same(last) {
            indices.push(last_i);
            continue;
        }
        let mask = slots.len() - 1;
        let mut at = (v.hash(id) >> (64 - bits)) as usize;
        let i = loop {
            let (slot_id, s) = slots[at];
            if s == EMPTY {
                let i = distinct.len() as u32;
                slots[at] = (id, i);
                distinct.push(v);
                size += v.plain_size(physical);
                if size > DICTIONARY_LIMIT {
                    return None;
                }
                if 2 * distinct.len() > slots.len() {
                    bits += 1;
                    let old = std::mem::replace(&mut slots, vec![(id, EMPTY); 1 << bits]);
                    let mask = slots.len() - 1;
                    for (slot_id, s) in old.into_iter().filter(|&(_, s)| s != EMPTY) {
                        let h = distinct[s as usize].hash(slot_id);
                        let mut at = (h >> (64 - bits)) as usize;
                        while slots[at].1 != EMPTY {
                            at = (at + 1) & mask;
                        }
                        slots[at] = (slot_id, s);
                    }
                }
                break i;
            }
            if slot_id == id && distinct[s as usize].same(v) {
                break s;
            }
            at = (at + 1) & mask;
        };
        indices.push(i);
        (last, last_id, last_i) = (v, id, i);
    }
    Some(distinct)
}

/// What a dictionary column leaves for a later column that follows it (`Options::follows`):
/// its values' indices and its definition levels (as `gather` left them), and its data page
/// (`body` before zstd, `page` as written, header included, and its (uncompressed,
/// compressed) sizes): a follower whose dictionary is taken from it has the same levels and
/// indices, so the same body, whose page is copied, not compressed again.
pub(super) struct Keyed {
    pub(super) indices: Vec<u32>,
    pub(super) def: Vec<u8>,
    pub(super) def_all: Option<u8>,
    pub(super) body: Vec<u8>,
    pub(super) page: Vec<u8>,
    pub(super) sizes: (i64, i64),
}

/// The dictionary of a column whose values follow those of an earlier one (a card text, its
/// mask's), from that column's indices: the value at each entry's first row, in the same
/// first-seen order, so the same dictionary and indices as [`dictionary`] finds, without
/// hashing every row's value (only each entry's). None (then [`dictionary`] runs) when the
/// two columns' NULLs differ, when two rows of one entry hold different values, when two
/// entries hold the same value, or past [`DICTIONARY_LIMIT`]. Its rows' indices are that
/// column's (`key.indices`, read there, not copied).
pub(super) fn reused<'a>(
    values: &[&'a [u8]],
    (def, def_all): (&[u8], Option<u8>),
    key: &Keyed,
) -> Option<Vec<&'a [u8]>> {
    if def_all != key.def_all || def != key.def.as_slice() || values.len() != key.indices.len() {
        return None;
    }
    // each entry's value and id
    let mut entries: Vec<(&[u8], _)> = Vec::new();
    let mut size = 0;
    for (&v, &d) in values.iter().zip(&key.indices) {
        let (d, id) = (d as usize, v.id());
        match entries.get(d) {
            Some(&(e, e_id)) => {
                if e_id != id || !e.same(v) {
                    return None;
                }
            }
            None if d == entries.len() => {
                entries.push((v, id));
                size += v.plain_size(BYTE_ARRAY);
                if size > DICTIONARY_LIMIT {
                    return None;
                }
            }
            None => return None,
        }
    }
    let distinct: Vec<&[u8]> = entries.into_iter().map(|(v, _)| v).collect();
    // two entries of one value (two masks of one text) would make another dictionary
    let mut seen = Vec::new();
    if dictionary(&distinct, BYTE_ARRAY, &mut seen)?.len() != distinct.len() {
        return None;
    }
    Some(distinct)
}
