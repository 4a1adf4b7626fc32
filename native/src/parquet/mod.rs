//! The warehouse's part files written in the core (issue 15): a Parquet file of one row
//! group from Arrow record batches, as `pipeline.warehouse.store` asks for each table's
//! columns (a dictionary or not, statistics or not, DELTA_BINARY_PACKED integers and
//! DELTA_LENGTH_BYTE_ARRAY strings), zstd level 1.
//!
//! What it writes is what pyarrow's `pq.write_table` writes for the same options, read back
//! alike by pyarrow and DuckDB (the same schema, types, values, statistics and encodings:
//! `tests/native/test_parquet.py`): version 1 data pages, one a column chunk; a dictionary
//! page when the column asks for one and its values take at most 1 MiB (pyarrow's limit),
//! else plain values; min / max statistics and the null count where asked; the Arrow schema
//! pyarrow stores (`ARROW:schema`, Python's) in the footer. The columns it reads are the
//! warehouse's types: booleans, 8- to 64-bit integers, doubles, strings, UTC millisecond
//! times, and lists of those.

pub mod arrow;
mod dict;
pub mod encode;
mod footer;
#[cfg(feature = "python")]
pub(crate) mod py;
pub mod thrift;

use std::cell::RefCell;

use arrow::{Array, Field, Leaf};
use dict::{reused, Key, Keyed, Plain};
use encode::{delta_binary_packed, hybrid, width_of};
use footer::{footer, ColumnMeta};
use thrift::{varint, Writer};

/// How a column is written (`store._writer_options`); `delta`: integers DELTA_BINARY_PACKED,
/// strings DELTA_LENGTH_BYTE_ARRAY (no dictionary either way); `follows`: the name of an
/// earlier column whose every value gives this one's (a card text, its mask's: see
/// `dict::reused`).
#[derive(Clone, Copy, Debug, Default)]
pub struct Options<'o> {
    pub dictionary: bool,
    pub statistics: bool,
    pub delta: bool,
    pub follows: Option<&'o str>,
}

/// zstd's level (pyarrow's default for zstd).
const ZSTD_LEVEL: i32 = 1;

// parquet.thrift's enums
const BOOLEAN: i32 = 0;
const INT32: i32 = 1;
const INT64: i32 = 2;
const DOUBLE: i32 = 5;
const BYTE_ARRAY: i32 = 6;
const PLAIN: i32 = 0;
const RLE: i32 = 3;
const DELTA_BINARY_PACKED: i32 = 5;
const DELTA_LENGTH_BYTE_ARRAY: i32 = 6;
const RLE_DICTIONARY: i32 = 8;
const DATA_PAGE: i32 = 0;
const DICTIONARY_PAGE: i32 = 2;

/// A column's non-null values, in order (in a [`Scratch`]'s buffers).
enum Values<'s, 'a> {
    /// one byte a boolean, 0 or 1
    Bool(&'s [u8]),
    /// and the bounds of the values' type when they are few (8-bit integers)
    Int(&'s [i64], Option<(i64, i64)>),
    Float(&'s [f64]),
    Bytes(&'s [&'a [u8]]),
}

/// The buffers a column is written with, kept by the thread from column to column and file
/// to file (so that no page of them is mapped anew each time), and its zstd context.
struct Scratch {
    rep: Vec<u8>,
    def: Vec<u8>,
    ints: Vec<i64>,
    floats: Vec<f64>,
    bools: Vec<u8>,
    indices: Vec<u32>,
    dict: Vec<u8>,
    body: Vec<u8>,
    packed: Vec<u8>,
    zstd: zstd::bulk::Compressor<'static>,
}

thread_local! {
    static SCRATCH: RefCell<Option<Scratch>> = const { RefCell::new(None) };
}

/// The values of the rows whose level is 1 (`levels`: one a row, 0 or 1), `get(i)` row
/// `i`'s value, appended to `out`: every row's value read, and kept when it is valid (no
/// branch a row; a NULL's value is there, Arrow's buffers hold every row).
fn pick<T: Copy>(levels: &[u8], out: &mut Vec<T>, get: impl Fn(usize) -> T) {
    out.reserve(levels.len());
    let spare = &mut out.spare_capacity_mut()[..levels.len()];
    let mut k = 0;
    for (i, &d) in levels.iter().enumerate() {
        spare[k].write(get(i));
        k += usize::from(d);
    }
    // SAFETY: each of the first `k` slots was written before `k` passed it
    unsafe { out.set_len(out.len() + k) };
}

/// The values of `arrays` (one column's, batch after batch), each run of valid ones
/// appended by `fill(array, from, to, out)` (`some(array, levels, out)`: the values of the
/// rows whose level is 1, as [`pick`]), and the definition levels of a nullable column (1 a
/// value, 0 a null), left empty when they are all the same; the number of nulls.
fn leaves<'a, T: Copy>(
    arrays: &[&Array<'a>],
    def: &mut Vec<u8>,
    out: &mut Vec<T>,
    fill: impl Fn(&Array<'a>, usize, usize, &mut Vec<T>),
    some: impl Fn(&Array<'a>, &[u8], &mut Vec<T>),
) -> usize {
    // levels all one value (every row valid, or every row null) are not written out
    let uniform = arrays.iter().all(|a| a.nulls == 0) || arrays.iter().all(|a| a.nulls == a.len);
    let mut nulls = 0;
    for a in arrays {
        if a.nulls == 0 {
            if !uniform {
                def.resize(def.len() + a.len, 1);
            }
            fill(a, 0, a.len, out);
        } else if a.nulls == a.len {
            if !uniform {
                def.resize(def.len() + a.len, 0);
            }
        } else {
            let at = def.len();
            a.validity(def);
            some(a, &def[at..], out);
        }
        nulls += a.nulls;
    }
    nulls
}

/// [`leaves`] of a nullable list of nullable values: definition 0 a null list, 1 an empty
/// one, 2 a null value, 3 a value; repetition 1 for a list's second value on. True when
/// every list holds values and none is NULL: the definition levels, all 3, are left empty.
fn list_leaves<'a, T>(
    arrays: &[&Array<'a>],
    rep: &mut Vec<u8>,
    def: &mut Vec<u8>,
    out: &mut Vec<T>,
    (fill, get): (
        impl Fn(&Array<'a>, usize, usize, &mut Vec<T>),
        impl Fn(&Array<'a>, usize) -> T,
    ),
) -> bool {
    let dense = |a: &Array<'_>| a.nulls == 0 && a.child.as_ref().is_some_and(|c| c.nulls == 0);
    // each array's number of empty lists when it is dense (counted once, for `full` and for
    // its levels)
    let empties: Vec<Option<usize>> = arrays
        .iter()
        .map(|a| dense(a).then(|| a.spans(0, a.len).filter(|(from, to)| from == to).count()))
        .collect();
    let full = empties.iter().all(|&e| e == Some(0));
    for (a, empty) in arrays.iter().zip(empties) {
        let Some(c) = a.child.as_deref() else {
            continue;
        };
        if a.len == 0 {
            continue;
        }
        if let Some(empty) = empty {
            // every value is there: the child's values from the first list's to the last's;
            // the levels sized once (a list's values, or one level for an empty list), then
            // each list's first marked
            let (first, _) = a.span(0);
            let (_, last) = a.span(a.len - 1);
            fill(c, first, last, out);
            let n = last - first + empty;
            let (r, d) = (rep.len(), def.len());
            rep.resize(r + n, 1);
            if !full {
                def.resize(d + n, 3);
            }
            let mut k = 0;
            for (from, to) in a.spans(0, a.len) {
                rep[r + k] = 0;
                if !full && from == to {
                    def[d + k] = 1;
                }
                k += (to - from).max(1);
            }
            continue;
        }
        for (i, (from, to)) in a.spans(0, a.len).enumerate() {
            if !a.valid(i) {
                rep.push(0);
                def.push(0);
            } else if from == to {
                rep.push(0);
                def.push(1);
            } else {
                for j in from..to {
                    rep.push(u8::from(j > from));
                    let valid = c.valid(j);
                    def.push(if valid { 3 } else { 2 });
                    if valid {
                        out.push(get(c, j));
                    }
                }
            }
        }
    }
    full
}

/// A column's levels (repetition: lists only) into `s.rep` and `s.def`, and its values
/// into the buffer of their type (`strs` for strings): the number of nulls (0 for a list),
/// and the definition level of every value when they are all one (then `s.def` is empty).
fn gather<'a>(
    field: &Field,
    arrays: &[&Array<'a>],
    s: &mut Scratch,
    strs: &mut Vec<&'a [u8]>,
) -> (usize, Option<u8>) {
    s.rep.clear();
    s.def.clear();
    let (rep, def) = (&mut s.rep, &mut s.def);
    macro_rules! read {
        ($out:expr, $fill:expr, $get:expr) => {
            read!($out, $fill, $get, |a: &Array<'a>,
                                      levels: &[u8],
                                      o: &mut _| {
                pick(levels, o, |i| $get(a, i))
            })
        };
        ($out:expr, $fill:expr, $get:expr, $some:expr) => {{
            let out = $out;
            out.clear();
            if field.list {
                let full = list_leaves(arrays, rep, def, out, ($fill, $get));
                (0, full.then_some(3))
            } else {
                let nulls = leaves(arrays, def, out, $fill, $some);
                let rows: usize = arrays.iter().map(|a| a.len).sum();
                (nulls, def.is_empty().then_some(u8::from(nulls < rows)))
            }
        }};
    }
    let leaf = field.leaf;
    match leaf {
        Leaf::Bool => read!(
            &mut s.bools,
            |a: &Array<'a>, f, t, o: &mut _| a.bools(f, t, o),
            |a: &Array<'a>, i| a.bool(i)
        ),
        Leaf::F64 => read!(
            &mut s.floats,
            |a: &Array<'a>, f, t, o: &mut _| a.floats(f, t, o),
            |a: &Array<'a>, i| a.float(i)
        ),
        Leaf::Utf8 => read!(
            strs,
            |a: &Array<'a>, f, t, o: &mut _| a.strs(f, t, o),
            |a: &Array<'a>, i| a.str(i),
            |a: &Array<'a>, levels: &[u8], o: &mut _| a.strs_where(levels, o)
        ),
        _ => read!(
            &mut s.ints,
            move |a: &Array<'a>, f, t, o: &mut _| a.ints(f, t, leaf, o),
            move |a: &Array<'a>, i| a.int(i, leaf)
        ),
    }
}

/// Parquet's physical type of a leaf.
pub(super) fn physical(leaf: Leaf) -> i32 {
    match leaf {
        Leaf::Bool => BOOLEAN,
        Leaf::I8 | Leaf::I16 | Leaf::I32 => INT32,
        Leaf::I64 | Leaf::TimestampMs => INT64,
        Leaf::F64 => DOUBLE,
        Leaf::Utf8 => BYTE_ARRAY,
    }
}

/// How a column's values were encoded: the data page's encoding, the dictionary's number
/// of values (its page's body in the scratch's `dict`), and the min / max statistics (of
/// what was asked).
struct Encoded {
    encoding: i32,
    dictionary: Option<usize>,
    min_max: MinMax,
}

/// A column's min and max (their statistics' bytes), when it has a value and they were asked.
pub(super) type MinMax = Option<(Vec<u8>, Vec<u8>)>;

fn min_max<T: Plain>(values: &[T], physical: i32, less: impl Fn(&T, &T) -> bool) -> MinMax {
    let mut it = values.iter();
    let first = *it.next()?;
    let (mut lo, mut hi) = (first, first);
    for v in it {
        if less(v, &lo) {
            lo = *v;
        }
        if less(&hi, v) {
            hi = *v;
        }
    }
    Some((lo.stat(physical), hi.stat(physical)))
}

/// Where a column's values are encoded: a dictionary's indices, its page's body, and the
/// data page's body (after the levels).
type Bufs<'b> = (&'b mut Vec<u32>, &'b mut Vec<u8>, &'b mut Vec<u8>);

/// A dictionary found without hashing (`dict::reused`): its values, and every row's index
/// among them (the followed column's, read where they are).
type Given<'k, T> = Option<(Vec<T>, &'k [u32])>;

/// Plain or dictionary values of one type, with their statistics (over the distinct values
/// when a dictionary holds them).
fn encode_values<T: Key>(
    (values, bounds): (&[T], Option<(i64, i64)>),
    physical: i32,
    (options, given): (Options<'_>, Given<'_, T>),
    (indices, dict, out): Bufs<'_>,
    stats: impl Fn(&[T]) -> MinMax,
) -> Encoded {
    if options.dictionary {
        let found = match given {
            Some(g) => Some(g),
            None => T::dictionary(values, (physical, bounds), indices).map(|d| (d, &indices[..])),
        };
        if let Some((distinct, indices)) = found {
            let width = width_of(distinct.len().saturating_sub(1) as u64);
            out.push(width as u8);
            hybrid(out, indices, width);
            dict.clear();
            T::plain(&distinct, physical, dict);
            return Encoded {
                encoding: RLE_DICTIONARY,
                dictionary: Some(distinct.len()),
                min_max: if options.statistics {
                    stats(&distinct)
                } else {
                    None
                },
            };
        }
    }
    T::plain(values, physical, out);
    Encoded {
        encoding: PLAIN,
        dictionary: None,
        min_max: if options.statistics {
            stats(values)
        } else {
            None
        },
    }
}

fn float_min_max(values: &[f64], physical: i32) -> MinMax {
    // NaN is no bound; a zero bound is -0.0 below and +0.0 above (as pyarrow)
    let numbers: Vec<f64> = values.iter().copied().filter(|x| !x.is_nan()).collect();
    let (lo, hi) = min_max(&numbers, physical, |a, b| a < b)?;
    let lo = f64::from_le_bytes(lo.try_into().unwrap());
    let hi = f64::from_le_bytes(hi.try_into().unwrap());
    let lo = if lo == 0.0 { -0.0 } else { lo };
    let hi = if hi == 0.0 { 0.0 } else { hi };
    Some((lo.stat(physical), hi.stat(physical)))
}

/// Eight booleans (bytes 0 or 1) as the bits of a byte, the first the least significant:
/// one multiplication moves byte `k`'s bit to bit `56 + k` (no two products meet, so
/// nothing carries).
#[inline(always)]
fn pack_bools(b: &[u8; 8]) -> u8 {
    (u64::from_le_bytes(*b).wrapping_mul(0x0102_0408_1020_4080) >> 56) as u8
}

/// A column's values into the data page's body, as [`encode_values`] (booleans bit-packed,
/// DELTA_BINARY_PACKED integers and DELTA_LENGTH_BYTE_ARRAY strings where asked: a string's
/// length is then not written before each value, and zstd finds longer repeats in the
/// values one after the other).
fn encode<'a>(
    values: Values<'_, 'a>,
    physical: i32,
    (options, given): (Options<'_>, Given<'_, &'a [u8]>),
    bufs: Bufs<'_>,
) -> Encoded {
    let stats = options.statistics;
    match values {
        Values::Bool(v) => {
            let out = bufs.2;
            let mut chunks = v.chunks_exact(8);
            out.extend((&mut chunks).map(|c| pack_bools(c.try_into().unwrap())));
            let rest = chunks.remainder();
            if !rest.is_empty() {
                let mut last = [0u8; 8];
                last[..rest.len()].copy_from_slice(rest);
                out.push(pack_bools(&last));
            }
            let min_max = (stats && !v.is_empty()).then(|| {
                let all = !v.contains(&0);
                let any = v.contains(&1);
                (vec![u8::from(all)], vec![u8::from(any)])
            });
            Encoded {
                encoding: PLAIN,
                dictionary: None,
                min_max,
            }
        }
        Values::Int(v, _) if options.delta => {
            delta_binary_packed(bufs.2, v);
            Encoded {
                encoding: DELTA_BINARY_PACKED,
                dictionary: None,
                min_max: stats.then(|| min_max(v, physical, |a, b| a < b)).flatten(),
            }
        }
        Values::Bytes(v) if options.delta => {
            let out = bufs.2;
            let lengths: Vec<i64> = v.iter().map(|b| b.len() as i64).collect();
            delta_binary_packed(out, &lengths);
            out.reserve(lengths.iter().sum::<i64>() as usize);
            for b in v {
                out.extend_from_slice(b);
            }
            Encoded {
                encoding: DELTA_LENGTH_BYTE_ARRAY,
                dictionary: None,
                min_max: stats.then(|| min_max(v, physical, |a, b| a < b)).flatten(),
            }
        }
        Values::Int(v, bounds) => {
            encode_values((v, bounds), physical, (options, None), bufs, |d| {
                min_max(d, physical, |a, b| a < b)
            })
        }
        Values::Float(v) => encode_values((v, None), physical, (options, None), bufs, |d| {
            float_min_max(d, physical)
        }),
        Values::Bytes(v) => encode_values((v, None), physical, (options, given), bufs, |d| {
            min_max(d, physical, |a, b| a < b)
        }),
    }
}

/// Write a page of `kind` to `out` (its header, `sub` its page type's header, then `body`
/// compressed into `packed`); its (uncompressed, compressed) bytes, header included.
fn page(
    out: &mut Vec<u8>,
    zstd: &mut zstd::bulk::Compressor<'static>,
    packed: &mut Vec<u8>,
    (kind, body): (i32, &[u8]),
    sub: impl FnOnce(&mut Writer),
) -> Result<(i64, i64), String> {
    packed.clear();
    packed.reserve(zstd::zstd_safe::compress_bound(body.len()));
    zstd.compress_to_buffer(body, packed)
        .map_err(|e| format!("zstd: {e}"))?;
    let mut w = Writer::default();
    w.i32(1, kind);
    w.i32(2, body.len() as i32);
    w.i32(3, packed.len() as i32);
    sub(&mut w);
    w.stop();
    out.extend_from_slice(&w.out);
    out.extend_from_slice(packed);
    let h = w.out.len() as i64;
    Ok((h + body.len() as i64, h + packed.len() as i64))
}

/// Levels as a version 1 data page holds them: their length (4 bytes), then the hybrid;
/// `levels` empty: `n` levels all `all` (one RLE run).
fn level_section(out: &mut Vec<u8>, (levels, n, all): (&[u8], usize, u8), max: u8) {
    let at = out.len();
    out.extend_from_slice(&[0; 4]);
    if levels.is_empty() && n > 0 {
        varint(out, (n as u64) << 1);
        out.push(all);
    } else {
        hybrid(out, levels, width_of(max.into()));
    }
    let n = (out.len() - at - 4) as u32;
    out[at..at + 4].copy_from_slice(&n.to_le_bytes());
}

/// One column chunk (a dictionary page when it has one, then one data page) onto `out`;
/// `key`: the column it follows, when it does; `keep`: whether a later column follows it
/// (then its [`Keyed`] when it took a dictionary).
fn write_column<'a>(
    out: &mut Vec<u8>,
    s: &mut Scratch,
    strs: &mut Vec<&'a [u8]>,
    (field, options): (&Field, Options<'_>),
    arrays: &[&Array<'a>],
    (key, keep): (Option<&Keyed>, bool),
) -> Result<(ColumnMeta, Option<Keyed>), String> {
    let (nulls, def_all) = gather(field, arrays, s, strs);
    let physical = physical(field.leaf);
    let mut options = options;
    if field.leaf == Leaf::Bool {
        options.dictionary = false;
    }
    if physical != INT32 && physical != INT64 && physical != BYTE_ARRAY {
        options.delta = false;
    }
    let given = match key {
        Some(k) if options.dictionary && field.leaf == Leaf::Utf8 => {
            reused(strs, (&s.def, def_all), k).map(|d| (d, &k.indices[..]))
        }
        _ => None,
    };
    let reusing = given.is_some();
    let max_def: u8 = if field.list { 3 } else { 1 };
    let body = &mut s.body;
    body.clear();
    let levels = if field.list {
        s.rep.len()
    } else {
        arrays.iter().map(|a| a.len).sum()
    };
    if field.list {
        level_section(body, (&s.rep, levels, 0), 1);
    }
    level_section(body, (&s.def, levels, def_all.unwrap_or(0)), max_def);
    let values = match field.leaf {
        Leaf::Bool => Values::Bool(&s.bools),
        Leaf::F64 => Values::Float(&s.floats),
        Leaf::Utf8 => Values::Bytes(strs),
        Leaf::I8 => Values::Int(&s.ints, Some((i8::MIN.into(), i8::MAX.into()))),
        _ => Values::Int(&s.ints, None),
    };
    let bufs = (&mut s.indices, &mut s.dict, body);
    let enc = encode(values, physical, (options, given), bufs);
    let start = out.len() as i64;
    let (mut uncompressed, mut compressed) = (0, 0);
    let mut dictionary_page_offset = None;
    if let Some(n) = enc.dictionary {
        dictionary_page_offset = Some(start);
        let dict = (DICTIONARY_PAGE, s.dict.as_slice());
        let (u, c) = page(out, &mut s.zstd, &mut s.packed, dict, |w| {
            w.begin(7);
            w.i32(1, n as i32);
            w.i32(2, PLAIN);
            w.end();
        })?;
        uncompressed += u;
        compressed += c;
    }
    let data_page_offset = out.len() as i64;
    let (u, c) = match key {
        // the followed column's page: the same header (levels, encoding) and body
        Some(k) if reusing && enc.encoding == RLE_DICTIONARY && k.body == s.body => {
            out.extend_from_slice(&k.page);
            k.sizes
        }
        _ => {
            let data = (DATA_PAGE, s.body.as_slice());
            page(out, &mut s.zstd, &mut s.packed, data, |w| {
                w.begin(5);
                w.i32(1, levels as i32);
                w.i32(2, enc.encoding);
                w.i32(3, RLE);
                w.i32(4, RLE);
                w.end();
            })?
        }
    };
    uncompressed += u;
    compressed += c;
    let encodings = match enc.encoding {
        RLE_DICTIONARY => vec![PLAIN, RLE, RLE_DICTIONARY],
        e => vec![RLE, e],
    };
    let path = if field.list {
        vec![field.name.clone(), "list".into(), "element".into()]
    } else {
        vec![field.name.clone()]
    };
    let keyed = (keep && enc.encoding == RLE_DICTIONARY).then(|| Keyed {
        indices: match key {
            Some(k) if reusing => k.indices.clone(),
            _ => s.indices.clone(),
        },
        def: s.def.clone(),
        def_all,
        body: s.body.clone(),
        page: out[data_page_offset as usize..].to_vec(),
        sizes: (u, c),
    });
    let meta = ColumnMeta {
        path,
        physical,
        encodings,
        num_values: levels as i64,
        uncompressed,
        compressed,
        data_page_offset,
        dictionary_page_offset,
        statistics: options.statistics.then_some((nulls, enc.min_max)),
    };
    Ok((meta, keyed))
}

fn scratch() -> Result<Scratch, String> {
    Ok(Scratch {
        rep: Vec::new(),
        def: Vec::new(),
        ints: Vec::new(),
        floats: Vec::new(),
        bools: Vec::new(),
        indices: Vec::new(),
        dict: Vec::new(),
        body: Vec::new(),
        packed: Vec::new(),
        zstd: zstd::bulk::Compressor::new(ZSTD_LEVEL).map_err(|e| format!("zstd: {e}"))?,
    })
}

/// A Parquet file of one row group holding `batches` (each a record batch's columns, the
/// same fields in each), each column written as `options` says for its name, `metadata` in
/// the footer. The bytes do not depend on `options`' `follows`: it only spares hashing.
pub fn write<'o>(
    batches: &[Vec<(Field, Array<'_>)>],
    options: impl Fn(&str) -> Options<'o>,
    metadata: &[(String, String)],
) -> Result<Vec<u8>, String> {
    let Some(first) = batches.first() else {
        return Err("no record batch to write".into());
    };
    let fields: Vec<Field> = first.iter().map(|(f, _)| f.clone()).collect();
    for b in batches {
        if b.len() != fields.len() || b.iter().zip(&fields).any(|((f, _), g)| f != g) {
            return Err("record batches of different schemas".into());
        }
    }
    let rows = batches
        .iter()
        .map(|b| b.first().map_or(0, |(_, a)| a.len))
        .sum();
    let mut out = Vec::with_capacity(1 << 20);
    out.extend_from_slice(b"PAR1");
    let columns = SCRATCH.with(|cell| -> Result<Vec<ColumnMeta>, String> {
        let mut slot = cell.borrow_mut();
        let s = match slot.as_mut() {
            Some(s) => s,
            None => slot.insert(scratch()?),
        };
        let mut strs = Vec::new();
        let mut columns = Vec::with_capacity(fields.len());
        let followed: Vec<&str> = fields
            .iter()
            .filter_map(|f| options(&f.name).follows)
            .collect();
        let mut keys: Vec<(&str, Keyed)> = Vec::new();
        for (i, field) in fields.iter().enumerate() {
            let arrays: Vec<&Array<'_>> = batches.iter().map(|b| &b[i].1).collect();
            let mut opts = options(&field.name);
            if field.list {
                // a list's values take a dictionary by their path (as pyarrow's option names it)
                opts.dictionary = options(&format!("{}.list.element", field.name)).dictionary;
            }
            let key = opts
                .follows
                .and_then(|name| keys.iter().find(|(k, _)| *k == name))
                .map(|(_, k)| k);
            let keep = followed.contains(&field.name.as_str());
            let (meta, keyed) =
                write_column(&mut out, s, &mut strs, (field, opts), &arrays, (key, keep))?;
            columns.push(meta);
            if let Some(k) = keyed {
                keys.push((&field.name, k));
            }
        }
        Ok(columns)
    })?;
    let meta = footer(&fields, &columns, rows, metadata);
    out.extend_from_slice(&meta);
    out.extend_from_slice(&(meta.len() as u32).to_le_bytes());
    out.extend_from_slice(b"PAR1");
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pack_bools_is_the_bits() {
        for b in 0..=255u8 {
            let bools: [u8; 8] = std::array::from_fn(|k| (b >> k) & 1);
            assert_eq!(pack_bools(&bools), b);
        }
    }
}
