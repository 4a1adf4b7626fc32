//! The warehouse rows of replayed games, built as Arrow column buffers (issue 15).
//!
//! For a game line the core read and replayed, [`ChunkRows::add`] appends its games, seats,
//! actions and tricks rows as `pipeline.warehouse.tables.COLUMNS` stores them (every column
//! but `batch_id`, which is Python's; the `*_text` columns are `crate::texts`'), and
//! [`ChunkRows::take`] hands each column over as the buffers of an Arrow array (validity
//! bitmap, values / offsets and data, a list's child), which Python wraps with
//! `pa.Array.from_buffers` (no per-row Python object). [`content_hash`] is `pipeline.logs.records.content_hash`: sha256 of the game's
//! JSON as `orjson.dumps(obj, option=OPT_SORT_KEYS)` writes it.

use std::cmp::Ordering;
use std::collections::HashSet;
use std::io;
use std::slice::ChunksExactMut;

use serde::Serialize;
use serde_json::ser::Formatter;
use serde_json::Value;
use sha2::{Digest, Sha256};

use crate::parse::tree::{esc_text, Node, Tree};
use crate::parse::{Meta, Record};
use crate::replay::Replayed;
use crate::state::{ActionType, CardsLeft};
use crate::texts::Texts;

/// One Arrow array as buffers: its length, null count, validity bitmap (None: no nulls), its
/// buffers after the validity (values; or offsets and data) and its children (a list's values).
pub struct Column {
    pub len: usize,
    pub nulls: usize,
    pub validity: Option<Vec<u8>>,
    pub buffers: Vec<Vec<u8>>,
    pub children: Vec<Column>,
}

/// A [`Column`] still in the buffers that built it (borrowed: the buffers keep their memory
/// for the next chunk, see [`RowsBuffer::tables`]).
pub struct ColumnRef<'a> {
    pub len: usize,
    pub nulls: usize,
    pub validity: Option<&'a [u8]>,
    pub buffers: Vec<&'a [u8]>,
    pub children: Vec<ColumnRef<'a>>,
}

impl ColumnRef<'_> {
    /// The column as owned buffers (a copy).
    pub fn to_owned(&self) -> Column {
        Column {
            len: self.len,
            nulls: self.nulls,
            validity: self.validity.map(<[u8]>::to_vec),
            buffers: self.buffers.iter().map(|b| b.to_vec()).collect(),
            children: self.children.iter().map(ColumnRef::to_owned).collect(),
        }
    }
}

/// Append bit `len` of a bitmap (its bytes hold `len` bits so far).
#[inline(always)]
fn push_bit(bytes: &mut Vec<u8>, len: usize, on: bool) {
    if len.is_multiple_of(8) {
        bytes.push(u8::from(on));
    } else if on {
        if let Some(last) = bytes.last_mut() {
            *last |= 1 << (len % 8);
        }
    }
}

/// Append `count` bits (at most 64: `word`'s lowest, its bits above them clear) to a bitmap
/// of `len` bits: the first into the last byte's free bits, the rest as whole bytes.
#[inline(always)]
fn append_word(bytes: &mut Vec<u8>, len: usize, mut word: u64, mut count: usize) {
    let used = len % 8;
    if used != 0 {
        if let Some(last) = bytes.last_mut() {
            *last |= (word << used) as u8;
        }
        let took = (8 - used).min(count);
        word >>= took;
        count -= took;
    }
    bytes.extend_from_slice(&word.to_le_bytes()[..count.div_ceil(8)]);
}

/// The values of a batch whose bits (validity, booleans) are gathered into one word before
/// they go to their bitmap: a batch is written this many items at a time.
const WORD: usize = 64;

#[derive(Default)]
struct Bits {
    bytes: Vec<u8>,
    len: usize,
}

impl Bits {
    #[inline(always)]
    fn push(&mut self, on: bool) {
        push_bit(&mut self.bytes, self.len, on);
        self.len += 1;
    }

    /// `count` bits (at most 64), `word`'s lowest.
    #[inline(always)]
    fn append_word(&mut self, word: u64, count: usize) {
        append_word(&mut self.bytes, self.len, word, count);
        self.len += count;
    }

    fn clear(&mut self) {
        self.bytes.clear();
        self.len = 0;
    }
}

/// A validity bitmap, written only from a column's first NULL on (a column without NULLs, most
/// of them, only counts its values); its memory is kept from chunk to chunk.
#[derive(Default)]
pub(crate) struct Valid {
    bytes: Vec<u8>,
    len: usize,
    nulls: usize,
}

impl Valid {
    #[inline(always)]
    pub(crate) fn push(&mut self, on: bool) {
        if self.nulls > 0 {
            push_bit(&mut self.bytes, self.len, on);
        } else if !on {
            self.all_valid();
            push_bit(&mut self.bytes, self.len, false);
        }
        self.nulls += usize::from(!on);
        self.len += 1;
    }

    /// The validity of `count` values (at most 64), `word`'s lowest bits (set: valid).
    #[inline(always)]
    fn append_word(&mut self, word: u64, count: usize) {
        let nulls = count - word.count_ones() as usize;
        if self.nulls > 0 {
            append_word(&mut self.bytes, self.len, word, count);
        } else if nulls > 0 {
            self.all_valid();
            append_word(&mut self.bytes, self.len, word, count);
        }
        self.nulls += nulls;
        self.len += count;
    }

    /// `count` values, none of them NULL.
    #[inline(always)]
    fn push_valid(&mut self, count: usize) {
        if self.nulls > 0 {
            self.append_ones(count);
        }
        self.len += count;
    }

    /// The bits of `count` valid values after a NULL (out of line: rare).
    #[cold]
    fn append_ones(&mut self, count: usize) {
        let (mut len, end) = (self.len, self.len + count);
        while len < end {
            let n = (end - len).min(WORD);
            append_word(&mut self.bytes, len, u64::MAX >> (64 - n), n);
            len += n;
        }
    }

    /// The bitmap of the values so far, all valid (before the column's first NULL).
    #[cold]
    fn all_valid(&mut self) {
        self.bytes.clear();
        self.bytes.resize(self.len / 8, 0xff);
        if !self.len.is_multiple_of(8) {
            self.bytes.push((1u8 << (self.len % 8)) - 1);
        }
    }

    pub(crate) fn len(&self) -> usize {
        self.len
    }

    pub(crate) fn nulls(&self) -> usize {
        self.nulls
    }

    pub(crate) fn bitmap(&self) -> Option<&[u8]> {
        (self.nulls > 0).then_some(self.bytes.as_slice())
    }

    pub(crate) fn clear(&mut self) {
        self.bytes.clear();
        self.len = 0;
        self.nulls = 0;
    }
}

/// Room for `n` more values of `width` bytes at the end of `buf`, zeroed: their slots, to
/// write a batch of values in place (one room check for all of them).
#[inline(always)]
fn slots(buf: &mut Vec<u8>, n: usize, width: usize) -> ChunksExactMut<'_, u8> {
    let start = buf.len();
    buf.resize(start + width * n, 0);
    buf[start..].chunks_exact_mut(width)
}

/// Copy `src` over `dst` (as long), a short one as two overlapping words (a value's text,
/// a few counts) rather than a call to `memcpy`.
#[inline(always)]
fn copy_small(dst: &mut [u8], src: &[u8]) {
    let n = src.len();
    if n > 16 {
        dst.copy_from_slice(src);
    } else if n >= 8 {
        dst[..8].copy_from_slice(&src[..8]);
        dst[n - 8..].copy_from_slice(&src[n - 8..]);
    } else if n >= 4 {
        dst[..4].copy_from_slice(&src[..4]);
        dst[n - 4..].copy_from_slice(&src[n - 4..]);
    } else {
        for (d, s) in dst.iter_mut().zip(src) {
            *d = *s;
        }
    }
}

/// An integer (or float, or timestamp) column of `W` bytes per value.
#[derive(Default)]
pub(crate) struct Fixed<const W: usize> {
    data: Vec<u8>,
    valid: Valid,
}

impl<const W: usize> Fixed<W> {
    #[inline(always)]
    pub(crate) fn push_int(&mut self, v: Option<i64>) {
        self.data
            .extend_from_slice(&v.unwrap_or(0).to_le_bytes()[..W]);
        self.valid.push(v.is_some());
    }

    /// One value per item, never NULL, as [`Fixed::push_int`] writes each (its lowest `W`
    /// bytes), in place.
    #[inline(always)]
    pub(crate) fn extend<T>(&mut self, items: &[T], value: impl Fn(&T) -> i64) {
        for (slot, item) in slots(&mut self.data, items.len(), W).zip(items) {
            slot.copy_from_slice(&value(item).to_le_bytes()[..W]);
        }
        self.valid.push_valid(items.len());
    }

    /// One value per item as [`Fixed::push_int`] writes each (None: NULL), in place, their
    /// validity a word at a time.
    #[inline(always)]
    pub(crate) fn extend_opt<T>(&mut self, items: &[T], value: impl Fn(&T) -> Option<i64>) {
        let mut slots = slots(&mut self.data, items.len(), W);
        for chunk in items.chunks(WORD) {
            let mut valid = 0u64;
            for (k, (item, slot)) in chunk.iter().zip(&mut slots).enumerate() {
                let v = value(item);
                slot.copy_from_slice(&v.unwrap_or(0).to_le_bytes()[..W]);
                valid |= u64::from(v.is_some()) << k;
            }
            self.valid.append_word(valid, chunk.len());
        }
    }
}

impl<const W: usize> Col for Fixed<W> {
    fn each_vec(&mut self, f: &mut dyn FnMut(&mut Vec<u8>)) {
        f(&mut self.data);
        f(&mut self.valid.bytes);
    }

    fn column(&self) -> ColumnRef<'_> {
        ColumnRef {
            len: self.valid.len(),
            nulls: self.valid.nulls(),
            validity: self.valid.bitmap(),
            buffers: vec![&self.data],
            children: vec![],
        }
    }

    fn clear(&mut self) {
        self.data.clear();
        self.valid.clear();
    }
}

pub(crate) type I8 = Fixed<1>;
pub(crate) type I16 = Fixed<2>;
pub(crate) type I32 = Fixed<4>;
pub(crate) type I64 = Fixed<8>;

#[derive(Default)]
pub(crate) struct F64(Fixed<8>);

impl F64 {
    #[inline(always)]
    pub(crate) fn push(&mut self, v: Option<f64>) {
        self.0
            .data
            .extend_from_slice(&v.unwrap_or(0.0).to_le_bytes());
        self.0.valid.push(v.is_some());
    }
}

impl Col for F64 {
    fn each_vec(&mut self, f: &mut dyn FnMut(&mut Vec<u8>)) {
        self.0.each_vec(f);
    }

    fn column(&self) -> ColumnRef<'_> {
        self.0.column()
    }

    fn clear(&mut self) {
        self.0.clear();
    }
}

#[derive(Default)]
pub(crate) struct Bool {
    data: Bits,
    valid: Valid,
}

impl Bool {
    #[inline(always)]
    pub(crate) fn push(&mut self, v: Option<bool>) {
        self.data.push(v.unwrap_or(false));
        self.valid.push(v.is_some());
    }

    /// One value per item, never NULL, their bits a word at a time.
    #[inline(always)]
    pub(crate) fn extend<T>(&mut self, items: &[T], value: impl Fn(&T) -> bool) {
        for chunk in items.chunks(WORD) {
            let mut on = 0u64;
            for (k, item) in chunk.iter().enumerate() {
                on |= u64::from(value(item)) << k;
            }
            self.data.append_word(on, chunk.len());
        }
        self.valid.push_valid(items.len());
    }

    /// One value per item as [`Bool::push`] writes each (None: NULL), their bits a word at a
    /// time.
    #[inline(always)]
    pub(crate) fn extend_opt<T>(&mut self, items: &[T], value: impl Fn(&T) -> Option<bool>) {
        for chunk in items.chunks(WORD) {
            let (mut on, mut valid) = (0u64, 0u64);
            for (k, item) in chunk.iter().enumerate() {
                let v = value(item);
                on |= u64::from(v == Some(true)) << k;
                valid |= u64::from(v.is_some()) << k;
            }
            self.data.append_word(on, chunk.len());
            self.valid.append_word(valid, chunk.len());
        }
    }
}

impl Col for Bool {
    fn each_vec(&mut self, f: &mut dyn FnMut(&mut Vec<u8>)) {
        f(&mut self.data.bytes);
        f(&mut self.valid.bytes);
    }

    fn column(&self) -> ColumnRef<'_> {
        ColumnRef {
            len: self.valid.len(),
            nulls: self.valid.nulls(),
            validity: self.valid.bitmap(),
            buffers: vec![&self.data.bytes],
            children: vec![],
        }
    }

    fn clear(&mut self) {
        self.data.clear();
        self.valid.clear();
    }
}

/// A string column: `offsets` (i32, starting at 0), UTF-8 `data`, validity.
pub(crate) struct Str {
    offsets: Vec<u8>,
    data: Vec<u8>,
    valid: Valid,
}

impl Default for Str {
    fn default() -> Str {
        Str {
            offsets: 0i32.to_le_bytes().to_vec(),
            data: Vec::new(),
            valid: Valid::default(),
        }
    }
}

/// A string's end in a chunk's string data, as its `i32` offset.
#[inline(always)]
fn offset(end: usize) -> [u8; 4] {
    i32::try_from(end)
        .expect("a chunk's strings fit 2 GiB")
        .to_le_bytes()
}

/// The room [`Str::extend`] makes after a column's data for each value's text: a text this
/// long or shorter is copied into it in place ([`copy_small`]).
const SHORT: usize = 16;

impl Str {
    #[inline(always)]
    pub(crate) fn push(&mut self, v: Option<&str>) {
        if let Some(text) = v {
            self.data.extend_from_slice(text.as_bytes());
        }
        self.close(v.is_some());
    }

    /// Where the next value is written (its bytes appended, then [`Str::close`]).
    pub(crate) fn data(&mut self) -> &mut Vec<u8> {
        &mut self.data
    }

    /// End the value written since the last one (`valid`: not NULL).
    #[inline(always)]
    pub(crate) fn close(&mut self, valid: bool) {
        self.offsets.extend_from_slice(&offset(self.data.len()));
        self.valid.push(valid);
    }

    /// One value per item as [`Str::push`] writes each (None: NULL), in place: room for a
    /// chunk's short texts made once ([`SHORT`] bytes a value, more for a longer text), each
    /// copied without a call ([`copy_small`]).
    #[inline(always)]
    pub(crate) fn extend<T, S: AsRef<str>>(
        &mut self,
        items: &[T],
        value: impl Fn(&T) -> Option<S>,
    ) {
        let mut end = self.data.len();
        let mut slots = slots(&mut self.offsets, items.len(), 4);
        for chunk in items.chunks(WORD) {
            self.data.resize(end + SHORT * chunk.len(), 0);
            let mut valid = 0u64;
            for (k, (item, slot)) in chunk.iter().zip(&mut slots).enumerate() {
                if let Some(text) = value(item) {
                    let bytes = text.as_ref().as_bytes();
                    let n = bytes.len();
                    if n > SHORT {
                        self.data.resize(self.data.len() + n, 0);
                    }
                    copy_small(&mut self.data[end..end + n], bytes);
                    end += n;
                    valid |= 1 << k;
                }
                slot.copy_from_slice(&(end as i32).to_le_bytes());
            }
            offset(end); // the chunk's last end fits, so does each before it
            self.valid.append_word(valid, chunk.len());
        }
        self.data.truncate(end);
    }

    /// One text `n` times (a game's id on each of its rows): copied from the copies so far,
    /// doubling.
    pub(crate) fn repeat(&mut self, text: &str, n: usize) {
        let start = self.data.len();
        let len = text.len();
        for (k, slot) in slots(&mut self.offsets, n, 4).enumerate() {
            slot.copy_from_slice(&offset(start + (k + 1) * len));
        }
        if n > 0 {
            self.data.extend_from_slice(text.as_bytes());
        }
        let all = n * len;
        while self.data.len() - start < all {
            let done = self.data.len() - start;
            self.data
                .extend_from_within(start..start + done.min(all - done));
        }
        self.valid.push_valid(n);
    }

    /// One value per item, each written in place by `write(item, data, end)` into the data
    /// from `end` (the value before's end), which has at least `room` bytes there, zeroed or
    /// left by the values before (more where `write` makes it so): `write` answers the
    /// value's length (None: NULL). The room is made once for a word of values where it is
    /// small, else checked for each value; no room check per byte written, the data cut back
    /// to the last value's end at the close.
    #[inline(always)]
    pub(crate) fn extend_in_place<T>(
        &mut self,
        items: &[T],
        room: usize,
        mut write: impl FnMut(&T, &mut Vec<u8>, usize) -> Option<usize>,
    ) {
        /// The most bytes of room made at once: zeroed by `memset`'s vector stores, below its
        /// `rep stosb` threshold of 2 KiB.
        const GROW: usize = 1024;
        let per_word = room * WORD <= GROW;
        let mut end = self.data.len();
        let mut slots = slots(&mut self.offsets, items.len(), 4);
        for chunk in items.chunks(WORD) {
            if per_word {
                self.data.resize(end + room * chunk.len(), 0);
            }
            let mut valid = 0u64;
            for (k, (item, slot)) in chunk.iter().zip(&mut slots).enumerate() {
                if !per_word && self.data.len() - end < room {
                    self.data.resize(end + room.max(GROW), 0);
                }
                let written = write(item, &mut self.data, end);
                end += written.unwrap_or(0);
                slot.copy_from_slice(&offset(end));
                valid |= u64::from(written.is_some()) << k;
            }
            self.valid.append_word(valid, chunk.len());
        }
        self.data.truncate(end);
    }
}

impl Col for Str {
    fn each_vec(&mut self, f: &mut dyn FnMut(&mut Vec<u8>)) {
        f(&mut self.offsets);
        f(&mut self.data);
        f(&mut self.valid.bytes);
    }

    fn column(&self) -> ColumnRef<'_> {
        ColumnRef {
            len: self.valid.len(),
            nulls: self.valid.nulls(),
            validity: self.valid.bitmap(),
            buffers: vec![&self.offsets, &self.data],
            children: vec![],
        }
    }

    fn clear(&mut self) {
        restart(&mut self.offsets);
        self.data.clear();
        self.valid.clear();
    }
}

/// A list column (never null), its values a child column.
pub(crate) struct List<C> {
    offsets: Vec<u8>,
    n: i32,
    len: usize,
    pub(crate) values: C,
}

impl<C: Default> Default for List<C> {
    fn default() -> List<C> {
        List {
            offsets: 0i32.to_le_bytes().to_vec(),
            n: 0,
            len: 0,
            values: C::default(),
        }
    }
}

impl List<I8> {
    /// One list of the seats' card counts per item (each count one value, never NULL; each
    /// list's end offset after its values): the offsets and the values in place, a table of up to
    /// eight seats' counts written as one word.
    #[inline(always)]
    pub(crate) fn extend_counts<T>(&mut self, items: &[T], counts: impl Fn(&T) -> &CardsLeft) {
        let total: usize = items.iter().map(|item| counts(item).len()).sum();
        let start = self.values.data.len();
        let data = &mut self.values.data;
        data.resize(start + total + 8, 0);
        let mut at = start;
        for (slot, item) in slots(&mut self.offsets, items.len(), 4).zip(items) {
            let c = counts(item);
            match c.word() {
                Some(word) => data[at..at + 8].copy_from_slice(&word.to_le_bytes()),
                None => data[at..at + c.len()].copy_from_slice(c.as_slice()),
            }
            at += c.len();
            self.n += c.len() as i32;
            slot.copy_from_slice(&self.n.to_le_bytes());
        }
        data.truncate(at);
        self.values.valid.push_valid(total);
        self.len += items.len();
    }
}

impl List<Str> {
    /// One list of texts per item (never NULL; each list's end offset after its values).
    #[inline(always)]
    pub(crate) fn extend_texts<T>(&mut self, items: &[T], list: impl Fn(&T) -> &[&str]) {
        for (slot, item) in slots(&mut self.offsets, items.len(), 4).zip(items) {
            let texts = list(item);
            for &text in texts {
                self.values.push(Some(text));
            }
            self.n += texts.len() as i32;
            slot.copy_from_slice(&self.n.to_le_bytes());
        }
        self.len += items.len();
    }
}

impl<C: Col> Col for List<C> {
    fn each_vec(&mut self, f: &mut dyn FnMut(&mut Vec<u8>)) {
        f(&mut self.offsets);
        self.values.each_vec(f);
    }

    fn column(&self) -> ColumnRef<'_> {
        ColumnRef {
            len: self.len,
            nulls: 0,
            validity: None,
            buffers: vec![&self.offsets],
            children: vec![self.values.column()],
        }
    }

    fn clear(&mut self) {
        restart(&mut self.offsets);
        self.n = 0;
        self.len = 0;
        self.values.clear();
    }
}

/// Offsets emptied to their first, 0.
fn restart(offsets: &mut Vec<u8>) {
    offsets.clear();
    offsets.extend_from_slice(&0i32.to_le_bytes());
}

/// A column buffer: its Arrow buffers as they stand, emptied (its memory kept), and each of
/// its byte vectors in a fixed order (to hand them over, see [`RowsBuffer::hand_over`]).
pub(crate) trait Col {
    fn column(&self) -> ColumnRef<'_>;
    fn clear(&mut self);
    fn each_vec(&mut self, f: &mut dyn FnMut(&mut Vec<u8>));
}

/// A table's column buffers, each field a stored column of that name (the tables of both
/// games' rows: `crate::ddz::rows` too).
macro_rules! table {
    ($vis:vis $name:ident { $($col:ident: $ty:ty,)* }) => {
        #[derive(Default)]
        $vis struct $name {
            $($col: $ty,)*
        }

        impl $name {
            $vis fn columns(&self) -> Vec<(&'static str, $crate::rows::ColumnRef<'_>)> {
                vec![$((stringify!($col), $crate::rows::Col::column(&self.$col)),)*]
            }

            $vis fn clear(&mut self) {
                $($crate::rows::Col::clear(&mut self.$col);)*
            }

            $vis fn each_vec(&mut self, f: &mut dyn FnMut(&mut Vec<u8>)) {
                $($crate::rows::Col::each_vec(&mut self.$col, f);)*
            }
        }
    };
}
pub(crate) use table;

/// A value as an `i64` column stores it (None when it does not fit).
pub(crate) fn int<T: TryInto<i64>>(v: T) -> Option<i64> {
    v.try_into().ok()
}

pub(crate) fn opt<T: TryInto<i64>>(v: Option<T>) -> Option<i64> {
    v.and_then(int)
}

table! {pub(crate) GameHead {
    game_id: Str,
    content_hash: Str,
    game_kind: Str,
    ruleset: Str,
    overrides: Str,
    match_id: Str,
    game_number: I32,
    table_id: Str,
    tournament_id: Str,
    started_at: Str,
    players: I8,
    outcome: Str,
    winner: I8,
    first_leader: I8,
    n_tricks: I16,
    n_actions: I32,
    full_info: Bool,
    source_file: Str,
    source_line: I64,
    tournament_kind: Str,
    tournament_round: I32,
    info_level: Str,
}}

/// What a games row of either game holds alike: the envelope (`GameRows.add`'s) and the
/// result's outcome, winner, first leader, tricks and actions.
pub(crate) struct Head<'a> {
    pub(crate) game_id: &'a str,
    pub(crate) hash: &'a str,
    pub(crate) game_kind: &'a str,
    pub(crate) game_number: u64,
    pub(crate) meta: &'a Meta,
    pub(crate) full_info: bool,
    pub(crate) outcome: &'a str,
    pub(crate) winner: Option<usize>,
    pub(crate) first_leader: Option<usize>,
    pub(crate) n_tricks: u32,
    pub(crate) n_actions: usize,
}

impl GameHead {
    /// Whether no game is in the columns.
    pub(crate) fn is_empty(&self) -> bool {
        self.game_id.valid.len() == 0
    }

    /// A game's columns of its games row that both games fill alike; then the seats' (the
    /// envelope's player id, name and balance of each of `info.players` seats).
    pub(crate) fn push(&mut self, h: &Head<'_>, info: &LineInfo<'_>, seats: &mut SeatHead) {
        let gid = Some(h.game_id);
        let meta = h.meta;
        self.game_id.push(gid);
        self.content_hash.push(Some(h.hash));
        self.game_kind.push(Some(h.game_kind));
        self.ruleset.push(Some(info.ruleset));
        self.overrides.push(Some(info.overrides));
        self.match_id.push(meta.match_id.as_deref());
        self.game_number.push_int(int(h.game_number));
        self.table_id.push(meta.table_id.as_deref());
        self.tournament_id.push(meta.tournament_id.as_deref());
        self.started_at.push(meta.started_at.as_deref());
        self.players.push_int(int(info.players));
        self.outcome.push(Some(h.outcome));
        self.winner.push_int(opt(h.winner));
        self.first_leader.push_int(opt(h.first_leader));
        self.n_tricks.push_int(int(h.n_tricks));
        self.n_actions.push_int(int(h.n_actions));
        self.full_info.push(Some(h.full_info));
        self.source_file.push(Some(info.file));
        self.source_line.push_int(Some(info.line));
        self.tournament_kind.push(meta.tournament_kind.as_deref());
        self.tournament_round.push_int(opt(meta.tournament_round));
        self.info_level
            .push(Some(if h.full_info { "full" } else { "partial" }));
        for seat in 0..info.players {
            let m = meta.seats.get(seat);
            seats.game_id.push(gid);
            seats.seat.push_int(int(seat));
            seats.player_id.push(m.map(|m| m.player_id.as_str()));
            seats.name.push(m.and_then(|m| m.name.as_deref()));
            seats.balance.push(m.and_then(|m| m.balance));
        }
    }
}

table! {pub(crate) SeatHead {
    game_id: Str,
    seat: I8,
    player_id: Str,
    name: Str,
    balance: F64,
}}

table! {Games {
    claim: Str,
    bao_seat: I8,
    bao_unknown_seat: I8,
}}

table! {Seats {
    deal_mask: I64,
    final_hand_mask: I64,
    cards_left: I8,
    is_winner: Bool,
}}

table! {Actions {
    game_id: Str,
    action_index: I16,
    seat: I8,
    action_type: Str,
    cards_mask: I64,
    kind: Str,
    rank_key: I64,
    trick: I16,
    is_lead: Bool,
    top_before_mask: I64,
    cards_left: List<I8>,
    hand_before_mask: I64,
    beating_play_existed: Bool,
    highest_single: I8,
    next_seat: I8,
    next_on_one: Bool,
    obligation: Str,
    block: Str,
    block_reason: Str,
    ends_trick: Bool,
    wins_game: Bool,
    drawn: I8,
    claim: Str,
    unchecked: List<Str>,
    ts: I64,
    think_seconds: F64,
    last_call: Str,
}}

table! {pub(crate) Tricks {
    game_id: Str,
    trick: I16,
    leader: I8,
    winner: I8,
    n_actions: I16,
    n_plays: I16,
    lead_kind: Str,
    ends_game: Bool,
}}

impl Tricks {
    /// A game's tricks rows (both games'): `action(i)` is action `i`'s seat and play kind;
    /// a column at a time.
    pub(crate) fn push(
        &mut self,
        gid: &str,
        tricks: &[Trick],
        action: impl Fn(usize) -> (usize, Option<&'static str>),
    ) {
        self.game_id.repeat(gid, tricks.len());
        self.trick.extend(tricks, |k| i64::from(k.trick));
        self.leader.extend_opt(tricks, |k| int(action(k.first).0));
        self.winner
            .extend_opt(tricks, |k| int(action(k.last_play).0));
        self.n_actions.extend(tricks, |k| k.moves);
        self.n_plays.extend(tricks, |k| k.plays);
        self.lead_kind.extend(tricks, |k| action(k.first).1);
        self.ends_game.extend(tricks, |k| k.ends_game);
    }
}

/// A game's actions' `ts` (epoch milliseconds: round(ts * 1000) half to even, as pyarrow's
/// round) and `think_seconds` (since the action before, when both have a time) columns, from
/// each action's logged time (both games').
pub(crate) fn push_times(ts: &mut I64, think: &mut F64, times: &[Option<f64>]) {
    let millis = |t: &Option<f64>| t.map(|t| (t * 1000.0).round_ties_even() as i64);
    let mut ts_slots = slots(&mut ts.data, times.len(), 8);
    let mut think_slots = slots(&mut think.0.data, times.len(), 8);
    let mut previous = None;
    for chunk in times.chunks(WORD) {
        let (mut ts_valid, mut think_valid) = (0u64, 0u64);
        for (k, t) in chunk.iter().enumerate() {
            let ms = millis(t);
            let since = match (previous, ms) {
                (Some(before), Some(now)) => Some(seconds(now) - seconds(before)),
                _ => None,
            };
            if let (Some(ts_slot), Some(think_slot)) = (ts_slots.next(), think_slots.next()) {
                ts_slot.copy_from_slice(&ms.unwrap_or(0).to_le_bytes());
                think_slot.copy_from_slice(&since.unwrap_or(0.0).to_le_bytes());
            }
            ts_valid |= u64::from(ms.is_some()) << k;
            think_valid |= u64::from(since.is_some()) << k;
            previous = ms;
        }
        ts.valid.append_word(ts_valid, chunk.len());
        think.0.valid.append_word(think_valid, chunk.len());
    }
}

/// What Python knows of a line and its ruleset: where it was read, and the ruleset's name and
/// overrides as the games row stores them (`rs.name`, `overrides_json(rs)`).
pub struct LineInfo<'a> {
    pub file: &'a str,
    pub line: i64,
    pub ruleset: &'a str,
    pub overrides: &'a str,
    pub players: usize,
}

/// One trick of a game (a round of play): its number, first move, last play, moves, plays,
/// and whether it ends the game.
pub struct Trick {
    pub(crate) trick: u32,
    pub(crate) first: usize,
    pub(crate) last_play: usize,
    pub(crate) moves: i64,
    pub(crate) plays: i64,
    pub(crate) ends_game: bool,
}

/// A move of a trick, as [`tricks_of`] reads an action: its trick (or round), whether it is
/// a play (else a pass), whether it wins the game.
pub(crate) struct Move {
    pub(crate) trick: u32,
    pub(crate) play: bool,
    pub(crate) wins_game: bool,
}

/// The tricks of a game as `tricks_table` finds them (the plays and passes, `step` saying
/// which an action is: None for neither), or None when a trick does not open with a play
/// (Python's row builder refuses the game: its line goes to Python). Both games' actions.
pub(crate) fn tricks_of<A>(actions: &[A], step: impl Fn(&A) -> Option<Move>) -> Option<Vec<Trick>> {
    // a trick is a play and the passes that end it (the game's last may be one play): room
    // for a two-player game's tricks, so that the vector is made once, not regrown
    let mut out: Vec<Trick> = Vec::with_capacity(actions.len() / 2 + 1);
    for (i, a) in actions.iter().enumerate() {
        let Some(m) = step(a) else {
            continue;
        };
        match out.last_mut() {
            Some(t) if t.trick == m.trick => {
                t.moves += 1;
                if m.play {
                    t.plays += 1;
                    t.last_play = i;
                }
                t.ends_game |= m.wins_game;
            }
            _ => {
                if !m.play {
                    return None;
                }
                out.push(Trick {
                    trick: m.trick,
                    first: i,
                    last_play: i,
                    moves: 1,
                    plays: 1,
                    ends_game: m.wins_game,
                });
            }
        }
    }
    Some(out)
}

/// A Big Two action as a move of [`tricks_of`].
fn big2_move(a: &crate::state::ActionRecord) -> Option<Move> {
    let play = a.kind == ActionType::Play;
    (play || a.kind == ActionType::Pass).then_some(Move {
        trick: a.trick,
        play,
        wins_game: a.wins_game,
    })
}

/// Seconds from epoch milliseconds, as `think_seconds` reads them.
fn seconds(ms: i64) -> f64 {
    ms as f64 / 1000.0
}

/// The rows of a chunk's games, and the game ids it holds (a chunk holds a game once).
#[derive(Default)]
pub struct ChunkRows {
    ids: HashSet<String>,
    head: GameHead,
    seat_head: SeatHead,
    games: Games,
    seats: Seats,
    actions: Actions,
    tricks: Tricks,
    texts: Texts,
}

impl ChunkRows {
    /// Whether the chunk holds this game id already; if not, it does now (a game whose rows
    /// Python builds).
    pub fn claim(&mut self, game_id: &str) -> bool {
        self.ids.insert(game_id.to_owned())
    }

    pub fn holds(&self, game_id: &str) -> bool {
        self.ids.contains(game_id)
    }

    /// Append a replayed game's rows; false (nothing appended) when Python must build them.
    pub fn add(&mut self, r: &Record, done: &Replayed, hash: &str, info: &LineInfo<'_>) -> bool {
        let Some(tricks) = tricks_of(&done.actions, big2_move) else {
            return false;
        };
        if r.ts.len() != done.actions.len() || !self.ids.insert(r.game_id.clone()) {
            return false;
        }
        let res = &done.result;
        let n = done.actions.len();
        let n_tricks = done
            .actions
            .iter()
            .rev()
            .find(|a| a.kind == ActionType::Play)
            .map_or(0, |a| a.trick);
        let head = Head {
            game_id: &r.game_id,
            hash,
            game_kind: &r.game_kind,
            game_number: r.game_number,
            meta: &r.meta,
            full_info: r.hands.is_some(),
            outcome: res.outcome.as_str(),
            winner: res.winner,
            first_leader: res.first_leader,
            n_tricks,
            n_actions: n,
        };
        self.head.push(&head, info, &mut self.seat_head);
        let g = &mut self.games;
        g.claim.push(res.claim.map(|c| c.as_str()));
        g.bao_seat.push_int(opt(res.bao_seat));
        g.bao_unknown_seat.push_int(opt(res.bao_unknown_seat));

        let s = &mut self.seats;
        for seat in 0..info.players {
            s.deal_mask.push_int(
                r.hands
                    .as_ref()
                    .and_then(|h| h.get(seat))
                    .and_then(|&m| int(m)),
            );
            let final_hand = res.final_hands.as_ref().and_then(|h| h.get(seat).copied());
            let deal = r.hands.as_ref().and_then(|h| h.get(seat).copied());
            self.texts.seat(deal, final_hand);
            s.final_hand_mask.push_int(final_hand.and_then(int));
            s.cards_left
                .push_int(res.cards_left.get(seat).and_then(|&c| int(c)));
            s.is_winner.push(Some(res.winner == Some(seat)));
        }

        // the actions rows a column at a time: each column's buffers checked for room once
        let acts = &done.actions[..];
        let x = &mut self.actions;
        self.texts.actions(acts);
        x.game_id.repeat(&r.game_id, n);
        x.action_index.extend(acts, |a| i64::from(a.action_index));
        x.seat.extend(acts, |a| i64::from(a.seat));
        x.action_type.extend(acts, |a| Some(a.kind.as_str()));
        x.cards_mask.extend_opt(acts, |a| int(a.cards));
        x.kind.extend(acts, |a| a.play_kind.map(|k| k.as_str()));
        x.rank_key.extend_opt(acts, |a| opt(a.rank_key()));
        x.trick.extend(acts, |a| i64::from(a.trick));
        x.is_lead.extend(acts, |a| a.is_lead);
        x.top_before_mask.extend_opt(acts, |a| int(a.top_before));
        x.cards_left.extend_counts(acts, |a| &a.cards_left);
        x.hand_before_mask
            .extend_opt(acts, |a| opt(a.hand_before()));
        x.beating_play_existed
            .extend_opt(acts, |a| a.beating_play_existed);
        x.highest_single.extend_opt(acts, |a| opt(a.highest_single));
        x.next_seat.extend(acts, |a| i64::from(a.next_seat));
        x.next_on_one.extend(acts, |a| a.next_on_one);
        x.obligation
            .extend(acts, |a| a.obligation.map(|o| o.as_str()));
        x.block.extend(acts, |a| a.block.map(|b| b.as_str()));
        x.block_reason.extend(acts, |a| {
            let reason = a.block_reason();
            (!reason.is_empty()).then_some(reason)
        });
        x.ends_trick.extend(acts, |a| a.ends_trick);
        x.wins_game.extend(acts, |a| a.wins_game);
        x.drawn.extend_opt(acts, |a| opt(a.drawn));
        x.claim.extend(acts, |a| a.claim.map(|c| c.as_str()));
        x.unchecked.extend_texts(acts, |a| a.unchecked.names());
        push_times(&mut x.ts, &mut x.think_seconds, &r.ts);
        x.last_call
            .extend(acts, |a| a.last_call.map(|c| c.as_str()));

        self.tricks.push(&r.game_id, &tricks, |i| {
            let a = &done.actions[i];
            (a.seat.into(), a.play_kind.map(|p| p.as_str()))
        });
        true
    }

    /// [`RowsBuffer::tables`] as owned buffers, and the buffer empties.
    pub fn take(&mut self) -> Vec<(&'static str, Vec<(&'static str, Column)>)> {
        let out = self
            .tables()
            .into_iter()
            .map(|(table, cols)| {
                let cols = cols.into_iter().map(|(n, c)| (n, c.to_owned())).collect();
                (table, cols)
            })
            .collect();
        self.clear();
        out
    }
}

/// The tables of a rows buffer, each column by its name (borrowed from the buffers).
pub type Tables<'a> = Vec<(&'static str, Vec<(&'static str, ColumnRef<'a>)>)>;

/// A chunk's rows buffer (both games'), as `crate::py` hands it over to Python (no copy).
pub trait RowsBuffer {
    /// The buffered rows, table by table (`games`, `seats`, `actions`, `tricks`), each column
    /// by its name, as they stand in the buffers (then [`RowsBuffer::hand_over`]).
    fn tables(&self) -> Tables<'_>;

    /// Whether the buffer holds no rows.
    fn is_empty(&self) -> bool;

    /// Empty the buffer (a Big Two buffer's game ids too); the column buffers keep their
    /// memory, so the next chunk neither regrows them nor touches new pages.
    fn clear(&mut self);

    /// Each byte vector of the buffer, in a fixed order.
    fn each_vec(&mut self, f: &mut dyn FnMut(&mut Vec<u8>));

    /// Move every byte vector of the buffer out (in [`RowsBuffer::each_vec`]'s order),
    /// putting `spare`'s in their places (the vectors of an earlier hand-over, which Python no
    /// longer holds), else empty ones (no memory: `crate::py::rows_take` puts the spare ones
    /// in at the next chunk's start, once Python has dropped them); then empty the buffer. The columns
    /// of [`RowsBuffer::tables`] taken just before stay where they were: in the vectors
    /// returned (a vector's heap memory does not move with it).
    fn hand_over(&mut self, spare: Option<Vec<Vec<u8>>>) -> Vec<Vec<u8>> {
        let mut spare = spare.into_iter().flatten();
        let mut out = Vec::with_capacity(256);
        self.each_vec(&mut |v: &mut Vec<u8>| {
            let fresh = match spare.next() {
                Some(mut s) => {
                    s.clear();
                    s
                }
                None => Vec::new(),
            };
            out.push(std::mem::replace(v, fresh));
        });
        self.clear();
        out
    }
}

impl RowsBuffer for ChunkRows {
    fn tables(&self) -> Tables<'_> {
        let [seat_texts, action_texts] = self.texts.columns();
        let mut games = self.head.columns();
        games.extend(self.games.columns());
        let mut seats = self.seat_head.columns();
        seats.extend(self.seats.columns());
        seats.extend(seat_texts);
        let mut actions = self.actions.columns();
        actions.extend(action_texts);
        vec![
            ("games", games),
            ("seats", seats),
            ("actions", actions),
            ("tricks", self.tricks.columns()),
        ]
    }

    fn is_empty(&self) -> bool {
        self.head.is_empty()
    }

    fn clear(&mut self) {
        self.ids.clear();
        self.head.clear();
        self.seat_head.clear();
        self.games.clear();
        self.seats.clear();
        self.actions.clear();
        self.tricks.clear();
        self.texts.clear();
    }

    fn each_vec(&mut self, f: &mut dyn FnMut(&mut Vec<u8>)) {
        self.head.each_vec(f);
        self.seat_head.each_vec(f);
        self.games.each_vec(f);
        self.seats.each_vec(f);
        self.actions.each_vec(f);
        self.tricks.each_vec(f);
        self.texts.each_vec(f);
    }
}

/// [`write_py_float`] as a string (for tests).
#[cfg(test)]
fn py_float(x: f64) -> String {
    let mut out = Vec::with_capacity(32);
    write_py_float(x, &mut out);
    String::from_utf8(out).expect("ASCII")
}

/// Append a float as orjson writes it: Python's `repr` digits (the shortest that read back,
/// the nearest of those), fixed notation from 1e-5 to below 1e16 (`1.0`, `0.00001`), else
/// `1e+16`, `9.99e-6`. The digits are żmij's (`zmij`, serde_json's float printer, which picks
/// them as Python's `repr` does, ties and the power-of-two edges included:
/// `tests::py_float_as_the_reference`).
pub fn write_py_float(x: f64, out: &mut Vec<u8>) {
    if x == 0.0 {
        out.extend_from_slice(if x.is_sign_negative() {
            b"-0.0"
        } else {
            b"0.0"
        });
        return;
    }
    let mut buffer = zmij::Buffer::new();
    let printed = buffer.format_finite(x).as_bytes();
    if (1e-5..1e16).contains(&x.abs()) && !printed.contains(&b'e') {
        // żmij's fixed notation is orjson's (`123.45`, `0.00012`, `100.0`)
        out.extend_from_slice(printed);
        return;
    }
    let (digits, n, exp) = sci_digits(printed);
    let digits = &digits[..n];
    if x.is_sign_negative() {
        out.push(b'-');
    }
    if (-5..16).contains(&exp) {
        if exp >= 0 {
            let whole = exp as usize + 1;
            if n <= whole {
                out.extend_from_slice(digits);
                out.resize(out.len() + whole - n, b'0');
                out.extend_from_slice(b".0");
            } else {
                out.extend_from_slice(&digits[..whole]);
                out.push(b'.');
                out.extend_from_slice(&digits[whole..]);
            }
        } else {
            out.extend_from_slice(b"0.");
            out.resize(out.len() + (-exp - 1) as usize, b'0');
            out.extend_from_slice(digits);
        }
    } else {
        out.push(digits[0]);
        if n > 1 {
            out.push(b'.');
            out.extend_from_slice(&digits[1..]);
        }
        out.push(b'e');
        out.push(if exp < 0 { b'-' } else { b'+' });
        out.extend_from_slice(itoa::Buffer::new().format(exp.unsigned_abs()).as_bytes());
    }
}

/// The significant digits of a printed nonzero float (`-123.45`, `0.00012`, `1.5e-7`,
/// `3e+35`: any layout of a decimal), without leading or trailing zeros: (the digits, how
/// many, the power of ten of the first).
fn sci_digits(printed: &[u8]) -> ([u8; 24], usize, i32) {
    let mut digits = [b'0'; 24];
    // digits before the point, the index of the first nonzero digit (both among the digits)
    let (mut n, mut k, mut whole, mut first) = (0, 0i32, None, None);
    let mut at = usize::from(printed.first() == Some(&b'-'));
    while let Some(&c) = printed.get(at) {
        match c {
            b'.' => whole = Some(k),
            b'0'..=b'9' => {
                if c != b'0' && first.is_none() {
                    first = Some(k);
                }
                if first.is_some() && n < digits.len() {
                    digits[n] = c;
                    n += 1;
                }
                k += 1;
            }
            _ => break,
        }
        at += 1;
    }
    let mut exp: i32 = 0;
    if let Some(rest) = printed.get(at + 1..).filter(|_| printed[at] == b'e') {
        let (negative, rest) = match rest.split_first() {
            Some((&b'-', rest)) => (true, rest),
            Some((&b'+', rest)) => (false, rest),
            _ => (false, rest),
        };
        for &c in rest {
            exp = exp * 10 + i32::from(c - b'0');
        }
        if negative {
            exp = -exp;
        }
    }
    while n > 1 && digits[n - 1] == b'0' {
        n -= 1;
    }
    (digits, n, whole.unwrap_or(k) - 1 - first.unwrap_or(0) + exp)
}

/// serde_json's compact layout with orjson's floats.
struct OrjsonFormat;

impl Formatter for OrjsonFormat {
    fn write_f64<W: ?Sized + io::Write>(&mut self, w: &mut W, value: f64) -> io::Result<()> {
        let mut out = Vec::with_capacity(32);
        write_py_float(value, &mut out);
        w.write_all(&out)
    }
}

struct HashWriter(Sha256);

impl io::Write for HashWriter {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.0.update(buf);
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// `content_hash` of a game line: sha256 (hex) of its JSON with sorted keys, no spaces, UTF-8
/// kept, as orjson writes it; None when the line is not JSON serde reads.
pub fn content_hash(text: &str) -> Option<String> {
    let value: Value = serde_json::from_str(text).ok()?;
    let mut ser = serde_json::Serializer::with_formatter(HashWriter(Sha256::new()), OrjsonFormat);
    value.serialize(&mut ser).ok()?;
    let digest = ser.into_inner().0.finalize();
    Some(hex(&digest))
}

pub(crate) fn hex(digest: &[u8]) -> String {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let mut out = String::with_capacity(2 * digest.len());
    for &b in digest {
        out.push(DIGITS[usize::from(b >> 4)] as char);
        out.push(DIGITS[usize::from(b & 15)] as char);
    }
    out
}

/// [`content_hash`] of a line from the tree the parser read it into (one read of the line):
/// the same bytes (keys sorted, compact, strings as logged unless they hold an escape,
/// integers as logged, `-0` and the floats as orjson spells them). None when an object
/// repeats a key (then [`content_hash`] decides, as serde keeps the last). The tree's
/// objects are left with their entries sorted.
pub fn tree_hash(tree: &mut Tree<'_>) -> Option<String> {
    let mut out = Vec::with_capacity(tree.text.len());
    canonical(tree, tree.root, &mut out)?;
    Some(hex(&Sha256::digest(&out)))
}

/// A float as logged (`-?(0|[1-9][0-9]*)(.[0-9]+)?`, at most 15 digits; `dot` the position
/// of its point, if any) in orjson's spelling without reading it: a double holds any decimal
/// of at most 15 digits apart from every other, so the shortest digits that read back are the
/// logged ones without trailing zeros: a prefix of the text (`0` added when no fraction digit
/// is left). Only for the fixed notation from 1 and from 0.0001 (`py_float`'s for any such
/// value); false (nothing written) for a smaller value, which `py_float` spells.
fn logged_float(n: &str, dot: Option<usize>, out: &mut Vec<u8>) -> bool {
    let b = n.as_bytes();
    let (whole_end, mut end) = match dot {
        Some(d) => (d, b.len()),
        None => (b.len(), b.len()),
    };
    while end > whole_end + 1 && b[end - 1] == b'0' {
        end -= 1;
    }
    let frac = &b[(whole_end + 1).min(end)..end];
    let whole = &b[usize::from(b[0] == b'-')..whole_end];
    if whole == b"0" {
        let zeros = frac.iter().take_while(|&&c| c == b'0').count();
        if frac.is_empty() || zeros > 3 {
            return false; // zero, or below 0.0001 (py_float's fixed notation goes to 0.00001)
        }
    }
    if frac.is_empty() {
        out.extend_from_slice(&b[..whole_end]);
        out.extend_from_slice(b".0");
    } else {
        out.extend_from_slice(&b[..end]);
    }
    true
}

/// Keys in orjson's sorted order (their UTF-8 bytes, which is Python's code point order),
/// told apart by their first bytes where these differ (no call to `memcmp`).
#[inline]
fn key_order(a: &str, b: &str) -> Ordering {
    match (a.as_bytes().first(), b.as_bytes().first()) {
        (Some(x), Some(y)) if x != y => x.cmp(y),
        _ => a.cmp(b),
    }
}

/// The room of a short copy: `len` bytes of the line from `at` are written as one copy of
/// this many (no call to `memcpy`), then the output is cut back to its end.
const WINDOW: usize = 16;

/// Bytes `at .. at + len` of the line.
#[inline]
fn write_span(text: &[u8], at: usize, len: usize, out: &mut Vec<u8>) {
    if len <= WINDOW {
        if let Some(window) = text.get(at..at + WINDOW) {
            let end = out.len() + len;
            let window: &[u8; WINDOW] = window.try_into().expect("a window");
            out.extend_from_slice(window);
            out.truncate(end);
            return;
        }
    }
    out.extend_from_slice(&text[at..at + len]);
}

/// A string of the line (no escape in it) with its quotes: one copy of the window of the
/// line's bytes from its opening quote where `s` lies in `text` between two quotes (a tree's
/// strings and keys do), else three copies. `colon`: a key's, written after it (copied with
/// it where the line has it next).
#[inline(always)]
fn write_quoted(text: &str, s: &str, colon: bool, out: &mut Vec<u8>) {
    let b = text.as_bytes();
    // the opening quote's position when `s` lies in the line (else a position past its end)
    let at = (s.as_ptr() as usize)
        .wrapping_sub(b.as_ptr() as usize)
        .wrapping_sub(1);
    let len = s.len() + 2;
    if len < WINDOW {
        if let Some(window) = at.checked_add(WINDOW).and_then(|end| b.get(at..end)) {
            let window: &[u8; WINDOW] = window.try_into().expect("a window");
            if window[0] == b'"' && window[len - 1] == b'"' {
                let with_colon = colon && window[len] == b':';
                let end = out.len() + len + usize::from(with_colon);
                out.extend_from_slice(window);
                out.truncate(end);
                if colon && !with_colon {
                    out.push(b':');
                }
                return;
            }
        }
    }
    if at < b.len() && s.len() < b.len() - at - 1 && b[at] == b'"' && b[at + len - 1] == b'"' {
        let with_colon = colon && b.get(at + len) == Some(&b':');
        write_span(b, at, len + usize::from(with_colon), out);
        if colon && !with_colon {
            out.push(b':');
        }
        return;
    }
    out.push(b'"');
    out.extend_from_slice(s.as_bytes());
    out.push(b'"');
    if colon {
        out.push(b':');
    }
}

/// A number of the line: integers as logged, `-0` and the floats as orjson spells them.
/// Most are written as logged, one copy of the line's window, with no look at their digits:
/// `0`, and those that do not start with `0` or `-0` (a small fraction, which `py_float` may
/// spell otherwise) and end in a digit other than `0` or in `.0` (no trailing zero to drop,
/// not `-0`).
#[inline(always)]
fn write_number(text: &str, n: &str, out: &mut Vec<u8>) -> Option<()> {
    let b = n.as_bytes();
    let at = (n.as_ptr() as usize).wrapping_sub(text.as_ptr() as usize);
    if let (Some(&first), Some(&last), true) = (b.first(), b.last(), n.len() <= WINDOW) {
        let second = b.get(1).copied().unwrap_or(b'0');
        let small = first == b'0' || (first == b'-' && second == b'0');
        let before_last = b.len().checked_sub(2).map(|k| b[k]);
        let as_logged = if small {
            n == "0"
        } else {
            last != b'0' || before_last == Some(b'.')
        };
        if as_logged {
            // where the window is in the line, so is `n`, which starts there
            let line = text.as_bytes();
            if let Some(window) = at.checked_add(WINDOW).and_then(|end| line.get(at..end)) {
                let window: &[u8; WINDOW] = window.try_into().expect("a window");
                let end = out.len() + n.len();
                out.extend_from_slice(window);
                out.truncate(end);
                return Some(());
            }
        }
    }
    write_number_digits(text, n, out)
}

/// [`write_number`] after a look at the number's digits.
#[inline(never)]
fn write_number_digits(text: &str, n: &str, out: &mut Vec<u8>) -> Option<()> {
    let b = n.as_bytes();
    let dot = b.iter().position(|&c| c == b'.');
    if dot.is_none() && n != "-0" {
        let at = (n.as_ptr() as usize).wrapping_sub(text.as_ptr() as usize);
        if at <= text.len() && n.len() <= text.len() - at {
            write_span(text.as_bytes(), at, n.len(), out);
        } else {
            out.extend_from_slice(b);
        }
    } else if !logged_float(n, dot, out) {
        write_py_float(n.parse().ok()?, out);
    }
    Some(())
}

/// A number of more than 15 digits or with an exponent as orjson writes what it reads: an
/// integer (no point, no exponent) of 64 bits (`i64` or `u64`) as logged, any other as the
/// float `str::parse` reads (orjson reads a longer integer as a float too, and each rounds
/// once, correctly) in orjson's spelling ([`py_float`]).
#[inline(never)]
fn write_long(n: &str, out: &mut Vec<u8>) -> Option<()> {
    if n.parse::<i64>().is_ok() || n.parse::<u64>().is_ok() {
        out.extend_from_slice(n.as_bytes());
    } else {
        write_py_float(n.parse().ok()?, out);
    }
    Some(())
}

/// A value: a scalar written here, a container by [`canonical`].
#[inline(always)]
fn value(t: &mut Tree<'_>, i: u32, out: &mut Vec<u8>) -> Option<()> {
    match t.node(i) {
        Node::Null => out.extend_from_slice(b"null"),
        Node::True => out.extend_from_slice(b"true"),
        Node::False => out.extend_from_slice(b"false"),
        Node::Num(n) => write_number(t.text, n, out)?,
        Node::Long(n) => write_long(n, out)?,
        Node::Str(s) => write_quoted(t.text, s, false, out),
        Node::Esc(s) => write_escaped(s, out)?,
        Node::Arr { .. } | Node::Obj { .. } => canonical(t, i, out)?,
    }
    Some(())
}

/// A string with an escape (`Node::Esc`'s text) as orjson writes what it reads: its value in
/// UTF-8, escaping only a quote, a backslash and a control character (serde's escapes, which
/// [`content_hash`] writes too).
#[inline(never)]
fn write_escaped(quoted: &str, out: &mut Vec<u8>) -> Option<()> {
    let text = esc_text(quoted)?;
    let mut ser = serde_json::Serializer::with_formatter(out, OrjsonFormat);
    text.serialize(&mut ser).ok()
}

/// Objects of at most this many entries are put in key order by [`sort_short`], longer ones
/// by a sort after a check.
const INSERTION: usize = 24;

/// A short object's entries in key order, by insertion: in order already (most of a line's
/// objects), one comparison each and no move; else few moves (an action's four keys, in the
/// one order the logger writes them). None when a key is there twice: every two entries next
/// to each other at the end were compared.
#[inline(always)]
fn sort_short(entries: &mut [(&str, u32)]) -> Option<()> {
    for k in 1..entries.len() {
        let entry = entries[k];
        let mut j = k;
        while j > 0 {
            match key_order(entries[j - 1].0, entry.0) {
                Ordering::Less => break,
                Ordering::Equal => return None,
                Ordering::Greater => entries[j] = entries[j - 1],
            }
            j -= 1;
        }
        entries[j] = entry;
    }
    Some(())
}

fn canonical(t: &mut Tree<'_>, i: u32, out: &mut Vec<u8>) -> Option<()> {
    match t.node(i) {
        Node::Arr { start, len, .. } => {
            out.push(b'[');
            for k in start..start + len {
                if k > start {
                    out.push(b',');
                }
                value(t, t.links[k as usize].1, out)?;
            }
            out.push(b']');
        }
        Node::Obj { start, len, .. } => {
            let entries = &mut t.links[start as usize..(start + len) as usize];
            if entries.len() <= INSERTION {
                sort_short(entries)?;
            } else if !entries
                .windows(2)
                .all(|w| key_order(w[0].0, w[1].0) == Ordering::Less)
            {
                entries.sort_unstable_by(|a, b| key_order(a.0, b.0));
                if entries.windows(2).any(|w| w[0].0 == w[1].0) {
                    return None;
                }
            }
            out.push(b'{');
            for k in start..start + len {
                if k > start {
                    out.push(b',');
                }
                let (key, v) = t.links[k as usize];
                write_quoted(t.text, key, true, out);
                value(t, v, out)?;
            }
            out.push(b'}');
        }
        _ => value(t, i, out)?,
    }
    Some(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bits_and_nulls() {
        let mut b = Bool::default();
        for v in [Some(true), None, Some(false), Some(true)] {
            b.push(v);
        }
        let col = b.column().to_owned();
        assert_eq!((col.len, col.nulls), (4, 1));
        assert_eq!(col.validity, Some(vec![0b1101]));
        assert_eq!(col.buffers[0], vec![0b1001]);
        let mut i = I16::default();
        i.push_int(Some(-2));
        i.push_int(None);
        assert_eq!(i.column().buffers[0], [0xfe, 0xff, 0, 0]);
        i.clear();
        i.push_int(Some(1));
        let col = i.column();
        assert_eq!((col.len, col.nulls, col.validity), (1, 0, None));
    }

    /// The batch writers (`extend*`: in place, bits a word at a time) write the buffers the
    /// per-value pushes write: across a word's edge, after values already there (a bitmap
    /// not at a byte's edge), before and after a first NULL, texts short and long.
    #[test]
    fn batches_as_pushes() {
        fn same(a: &ColumnRef<'_>, b: &ColumnRef<'_>) {
            assert_eq!((a.len, a.nulls, a.validity), (b.len, b.nulls, b.validity));
            assert_eq!(a.buffers, b.buffers);
        }
        let mut next = crate::testing::xorshift(0x2545_f491_4f6c_dd1d);
        let words = [
            "",
            "play",
            "pass",
            "lead_non_single_or_highest_single",
            "10♦J♦Q♦",
        ];
        for round in 0..40 {
            let before = (next() % 11) as usize;
            let n = (next() % 150) as usize;
            let null_every = 1 + next() % 5;
            let values: Vec<Option<i64>> = (0..before + n)
                .map(|i| {
                    let v = next() as i64;
                    (round % 3 != 0 || i > before + 7)
                        .then_some(v)
                        .filter(|v| !(*v as u64).is_multiple_of(null_every))
                })
                .collect();
            let (old, new) = values.split_at(before);
            let (mut a, mut b) = (I16::default(), I16::default());
            let (mut p, mut q) = (Bool::default(), Bool::default());
            let (mut s, mut t) = (Str::default(), Str::default());
            let text = |v: &Option<i64>| v.map(|v| words[v as u64 as usize % words.len()]);
            let flag = |v: &Option<i64>| v.map(|v| v % 2 == 0);
            for v in old {
                a.push_int(*v);
                b.push_int(*v);
                p.push(flag(v));
                q.push(flag(v));
                s.push(text(v));
                t.push(text(v));
            }
            for v in new {
                a.push_int(*v);
                p.push(flag(v));
                s.push(text(v));
            }
            b.extend_opt(new, |v| *v);
            q.extend_opt(new, flag);
            t.extend(new, text);
            same(&a.column(), &b.column());
            same(&p.column(), &q.column());
            same(&s.column(), &t.column());
            // never NULL: the same values, no bitmap unless one was there already
            let (mut c, mut d) = (I64::default(), I64::default());
            let (mut e, mut f) = (Bool::default(), Bool::default());
            c.push_int(old.first().copied().flatten());
            d.push_int(old.first().copied().flatten());
            for v in new {
                c.push_int(Some(v.unwrap_or(7)));
                e.push(Some(v.is_some()));
            }
            d.extend(new, |v| v.unwrap_or(7));
            f.extend(new, |v| v.is_some());
            same(&c.column(), &d.column());
            same(&e.column(), &f.column());
        }
    }

    /// Both games' tricks: a trick opens with a play (else None), counts its moves and plays.
    #[test]
    fn tricks_of_moves() {
        let step = |&(trick, play, wins_game): &(u32, bool, bool)| {
            Some(Move {
                trick,
                play,
                wins_game,
            })
        };
        let moves = [
            (1, true, false),
            (1, false, false),
            (1, true, false),
            (2, true, true),
        ];
        let tricks = tricks_of(&moves, step).expect("tricks");
        let got: Vec<_> = tricks
            .iter()
            .map(|t| (t.trick, t.first, t.last_play, t.moves, t.plays, t.ends_game))
            .collect();
        assert_eq!(got, [(1, 0, 2, 3, 2, false), (2, 3, 3, 1, 1, true)]);
        assert!(tricks_of(&[(1, false, false)], step).is_none());
    }

    #[test]
    fn floats_as_orjson() {
        let cases = [
            (1e16, "1e+16"),
            (1.5e-7, "1.5e-7"),
            (123456789.123, "123456789.123"),
            (1.0, "1.0"),
            (0.1, "0.1"),
            (0.0001, "0.0001"),
            (0.00001, "0.00001"),
            (9.99e-6, "9.99e-6"),
            (2.5e15, "2500000000000000.0"),
            (-0.0, "-0.0"),
            (5e-324, "5e-324"),
            (1.2345678901234569e23, "1.2345678901234569e+23"),
            (-1785000000.125, "-1785000000.125"),
            // a tie between the two shortest: Python's repr takes the even one
            (1_782_090_774.0 + 33.0 / 256.0, "1782090774.1289062"),
            // a tie whose even side reads back as the double below: the other one
            (2f64.powi(-24), "5.960464477539063e-8"),
            (-(2f64.powi(-24)), "-5.960464477539063e-8"),
        ];
        for (x, text) in cases {
            assert_eq!(py_float(x), text);
        }
    }

    /// The spelling of [`py_float`] before it printed with żmij: two of Rust's formatters
    /// (the shortest digits; the nearest of that length, kept if it reads back), each checked
    /// against Python's `repr` (tests/native: every power of two, the ties).
    fn py_float_reference(x: f64) -> String {
        if x == 0.0 {
            return if x.is_sign_negative() { "-0.0" } else { "0.0" }.to_owned();
        }
        let shortest = format!("{x:e}");
        let digits = shortest
            .bytes()
            .take_while(|&c| c != b'e')
            .filter(u8::is_ascii_digit);
        let nearest = format!("{x:.*e}", digits.count() - 1);
        let sci = if nearest.parse::<f64>() == Ok(x) {
            nearest
        } else {
            shortest
        };
        let (mantissa, exp) = sci.split_once('e').expect("an exponent");
        let exp: i32 = exp.parse().expect("an exponent");
        let (sign, mantissa) = match mantissa.strip_prefix('-') {
            Some(m) => ("-", m),
            None => ("", mantissa),
        };
        let digits: String = mantissa.chars().filter(|c| *c != '.').collect();
        let mut out = String::from(sign);
        if (-5..16).contains(&exp) {
            if exp >= 0 {
                let whole = exp as usize + 1;
                if digits.len() <= whole {
                    out.push_str(&digits);
                    out.extend(std::iter::repeat_n('0', whole - digits.len()));
                    out.push_str(".0");
                } else {
                    out.push_str(&digits[..whole]);
                    out.push('.');
                    out.push_str(&digits[whole..]);
                }
            } else {
                out.push_str("0.");
                out.extend(std::iter::repeat_n('0', (-exp - 1) as usize));
                out.push_str(&digits);
            }
        } else {
            out.push_str(&digits[..1]);
            if digits.len() > 1 {
                out.push('.');
                out.push_str(&digits[1..]);
            }
            out.push('e');
            out.push(if exp < 0 { '-' } else { '+' });
            out.push_str(&exp.abs().to_string());
        }
        out
    }

    /// `py_float` spells as the reference: every power of two and its neighbours, the edges of
    /// the fixed notation, ties, subnormals, random bits, times to the microsecond and beyond.
    #[test]
    fn py_float_as_the_reference() {
        let mut cases = vec![
            f64::MIN_POSITIVE,
            f64::MAX,
            5e-324,
            1e16,
            1e-5,
            1e16f64.next_down(),
            1e-5f64.next_down(),
        ];
        for e in -1074..1024 {
            let p = 2f64.powi(e);
            cases.extend([
                p,
                p.next_up(),
                p.next_down(),
                10f64.powi(e.clamp(-323, 308)),
            ]);
        }
        let mut next = crate::testing::xorshift(0x2545_f491_4f6c_dd1d);
        for _ in 0..300_000 {
            cases.push(f64::from_bits(next()));
            let at = 1.6e9 + (next() % 400_000_000) as f64;
            let micros = (next() % 10_000_000) as f64;
            cases.push(at + micros / 1e7);
            cases.push(at + (next() % 1_000_000) as f64 / 1e6);
            cases.push(at + (next() % 256) as f64 / 256.0);
            cases.push((next() % 1_000_000) as f64 / 1e6);
        }
        let mut checked = 0;
        for x in cases {
            for x in [x, -x] {
                if x.is_finite() {
                    assert_eq!(py_float(x), py_float_reference(x), "{x:e}");
                    checked += 1;
                }
            }
        }
        assert!(checked > 2_000_000, "{checked}");
    }

    #[test]
    fn hash_as_python() {
        // hashlib.sha256(orjson.dumps({"b": 1, "a": [1.5, "é\n"]}, option=OPT_SORT_KEYS))
        let h = content_hash(r#"{"b": 1, "a": [1.5, "é\n"]}"#).unwrap();
        let mut s = Sha256::new();
        s.update("{\"a\":[1.5,\"é\\n\"],\"b\":1}".as_bytes());
        let want: String = s.finalize().iter().map(|b| format!("{b:02x}")).collect();
        assert_eq!(h, want);
    }

    /// The logged spelling of a float is `py_float`'s, on every shape of decimal the tree holds.
    #[test]
    fn logged_floats_as_py_float() {
        let mut next = crate::testing::xorshift(0x9e37_79b9_7f4a_7c15_u64);
        let mut written = 0;
        for round in 0..200_000 {
            let whole_len = (next() % 15) as usize;
            let frac_len = 1 + (next() % (15 - whole_len as u64)) as usize;
            let mut text = String::new();
            if round % 3 == 0 {
                text.push('-');
            }
            if whole_len == 0 {
                text.push('0');
            } else {
                text.push(char::from(b'1' + (next() % 9) as u8));
                for _ in 1..whole_len {
                    text.push(char::from(b'0' + (next() % 10) as u8));
                }
            }
            text.push('.');
            for k in 0..frac_len {
                // runs of zeros, leading and trailing, often
                let d = if next().is_multiple_of(3) || (round % 5 == 0 && k < 5) {
                    0
                } else {
                    next() % 10
                };
                text.push(char::from(b'0' + d as u8));
            }
            let mut out = Vec::new();
            if logged_float(&text, text.find('.'), &mut out) {
                let want = py_float(text.parse().unwrap());
                assert_eq!(String::from_utf8(out).unwrap(), want, "{text}");
                written += 1;
            }
        }
        assert!(written > 100_000, "{written}");
        for (text, spelled) in [("0.0001", true), ("0.00001", false), ("-0.0", false)] {
            assert_eq!(
                logged_float(text, text.find('.'), &mut Vec::new()),
                spelled,
                "{text}"
            );
        }
    }

    /// The hash from the tree is the hash from serde's `Value`, on lines with every kind of
    /// value, nesting, unsorted keys, integers and floats in every spelling the tree holds.
    #[test]
    fn tree_hash_is_content_hash() {
        let lines = [
            r#"{"b": 1, "a": [1.5, "é", -0, 0, -0.0, 0.10, 1785000012.125, -3, 100.0]}"#,
            r#"{"z": {"y": {"x": [], "w": {}}, "a": null}, "m": [true, false, null, {"k": 0.00001}]}"#,
            r#" {"ts": 1234567890.12345, "n": 123456789012345, "f": 0.000001, "g": 99999999999999.9} "#,
            r#"{"é": 1, "e": 2, "E": 3, "": 4, "aa": 5, "a": 6}"#,
            r#"[1, {"b": 2, "a": 1}]"#,
            r#"{"":"","a":["","x"],"b":{"":{}},"c":"é"}"#,
            "\"plain\"",
            r#"{"name": "\u9ec3\u5927\u6587", "q": "a\"b\\c\/d\b\f\n\r\t\u0001\u001f\u007f\u2028"}"#,
            r#"["\ud83c\udca1", "\u00e9", {"k": "\u0000"}]"#,
        ];
        for line in lines {
            let mut tree = Tree::read(line).expect(line);
            assert_eq!(tree_hash(&mut tree), content_hash(line), "{line}");
        }
        let mut repeated = Tree::read(r#"{"a": 1, "b": {"c": 1, "c": 2}}"#).unwrap();
        assert_eq!(tree_hash(&mut repeated), None);
    }

    /// The insertion of a short object's entries (`sort_short`) orders them as a sort does,
    /// and refuses exactly the lists that repeat a key: random lists of keys that share first
    /// bytes, are prefixes of each other, empty, multi-byte, in order, reversed or repeated.
    #[test]
    fn short_objects_as_sorted() {
        let keys = [
            "", "a", "aa", "ab", "b", "ts", "seat", "cards", "claim", "é", "e", "E",
        ];
        let mut next = crate::testing::xorshift(0x2f6b_1c3d_93a5_e871_u64);
        for round in 0..50_000 {
            let n = 1 + (next() % INSERTION as u64) as usize;
            let mut entries: Vec<(&str, u32)> = (0..n as u32)
                .map(|k| (keys[next() as usize % keys.len()], k))
                .collect();
            match round % 4 {
                0 => entries.sort_unstable_by(|a, b| a.0.cmp(b.0)),
                1 => entries.sort_unstable_by(|a, b| b.0.cmp(a.0)),
                _ => {}
            }
            let mut want = entries.clone();
            want.sort_unstable_by(|a, b| a.0.cmp(b.0));
            let repeats = want.windows(2).any(|w| w[0].0 == w[1].0);
            let mut got = entries.clone();
            match sort_short(&mut got) {
                Some(()) => assert_eq!(got, want, "{entries:?}"),
                None => assert!(repeats, "{entries:?}"),
            }
            assert_eq!(sort_short(&mut entries.clone()).is_none(), repeats);
        }
    }

    /// Numbers written as logged from the line's window (`write_number`) are written as the
    /// look at their digits writes them (`write_number_digits`), and the line's hash is
    /// serde's: random integers and decimals of every length the tree holds, with leading
    /// and trailing zeros, signs, `-0`, at every distance from the line's end.
    #[test]
    fn numbers_as_their_digits() {
        let mut next = crate::testing::xorshift(0x51_7cc1_b727_220a_u64);
        let mut line = String::new();
        for round in 0..100_000 {
            let total = 1 + (next() % 15) as usize;
            let whole = (next() % (total as u64 + 1)) as usize;
            let mut n = String::from(if round % 3 == 0 { "-" } else { "" });
            let digit = |x: u64, zeros: bool| {
                let zero = zeros && x.is_multiple_of(3);
                char::from(b'0' + (x % 10) as u8 * u8::from(!zero))
            };
            if whole == 0 {
                n.push('0');
            } else {
                n.push(char::from(b'1' + (next() % 9) as u8));
                for _ in 1..whole {
                    n.push(digit(next(), round % 2 == 0));
                }
            }
            // at most 15 digits, the `0` before a point among them
            let total = if whole == 0 { total.min(14) } else { total };
            if total > whole {
                n.push('.');
                for _ in whole..total {
                    n.push(digit(next(), round % 4 < 2));
                }
            }
            if n == "-0" && round % 2 == 0 {
                n = "0".to_owned();
            }
            let tail = " ".repeat((next() % 20) as usize);
            line.clear();
            line.push_str(&format!("[{n}, \"x\", {n}]{tail}"));
            let tree = Tree::read(&line).expect(&line);
            let items: Vec<u32> = tree.array(tree.root).unwrap().collect();
            for i in [items[0], items[2]] {
                let Node::Num(num) = tree.node(i) else {
                    panic!("{line}");
                };
                let (mut fast, mut digits) = (Vec::new(), Vec::new());
                write_number(tree.text, num, &mut fast).unwrap();
                write_number_digits(tree.text, num, &mut digits).unwrap();
                assert_eq!(fast, digits, "{line}");
            }
            let mut tree = tree;
            assert_eq!(tree_hash(&mut tree), content_hash(&line), "{line}");
        }
    }

    /// The short copies of the line (`write_span`: one copy of a window, cut back) write what
    /// serde does: strings, keys and numbers of every length around the window's, a key with
    /// its colon next to it or after spaces, values at the end of the line (no window there).
    #[test]
    fn short_copies_as_serde() {
        for n in 0..=2 * WINDOW {
            let s: String = "aé\u{3000}z0 ".chars().cycle().take(n).collect();
            let digits = "7".repeat(n.clamp(1, 13));
            let lines = [
                format!(
                    r#"{{"{s}": "{s}", "k{s}" : {digits}, "z"  :["{s}", {digits}], "y":{digits}}}"#
                ),
                format!(r#"{{"b{s}":"{s}","a{s}" :  -{digits}.50,"c":"{s}"}}"#),
                format!(r#"["{s}", {digits}, "{s}"]"#),
                format!(r#"[{digits}.0, "{s}", -{digits}]"#),
                format!(r#""{s}""#),
                digits.clone(),
                format!("{digits}.10"),
                format!("{{\"t{s}\"\t:\t\"{s}\"}}"),
            ];
            for line in lines {
                let mut tree = Tree::read(&line).expect(&line);
                assert_eq!(tree_hash(&mut tree), content_hash(&line), "{line}");
            }
        }
    }
}
