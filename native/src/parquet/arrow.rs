//! Arrow arrays read in place through the Arrow C data interface (the structs of
//! `arrow/c/abi.h`): a record batch Python exports (`__arrow_c_array__`) becomes one
//! [`Array`] a column, borrowing the exporter's buffers (nothing copied).

use std::ffi::{c_char, c_void, CStr};

/// `struct ArrowSchema`.
#[repr(C)]
pub struct FfiSchema {
    format: *const c_char,
    name: *const c_char,
    metadata: *const c_char,
    flags: i64,
    n_children: i64,
    children: *mut *mut FfiSchema,
    dictionary: *mut FfiSchema,
    release: Option<unsafe extern "C" fn(*mut FfiSchema)>,
    private_data: *mut c_void,
}

/// `struct ArrowArray`.
#[repr(C)]
pub struct FfiArray {
    length: i64,
    null_count: i64,
    offset: i64,
    n_buffers: i64,
    n_children: i64,
    buffers: *mut *const c_void,
    children: *mut *mut FfiArray,
    dictionary: *mut FfiArray,
    release: Option<unsafe extern "C" fn(*mut FfiArray)>,
    private_data: *mut c_void,
}

/// The value types a warehouse column holds (Arrow's format strings `b c s i l g u tsm:UTC`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Leaf {
    Bool,
    I8,
    I16,
    I32,
    I64,
    F64,
    Utf8,
    /// `timestamp[ms, tz=UTC]`
    TimestampMs,
}

impl Leaf {
    fn of(format: &str) -> Option<Leaf> {
        Some(match format {
            "b" => Leaf::Bool,
            "c" => Leaf::I8,
            "s" => Leaf::I16,
            "i" => Leaf::I32,
            "l" => Leaf::I64,
            "g" => Leaf::F64,
            "u" => Leaf::Utf8,
            "tsm:UTC" => Leaf::TimestampMs,
            _ => return None,
        })
    }

    /// Bytes a value (0: bits, or offsets and data).
    fn width(self) -> usize {
        match self {
            Leaf::Bool | Leaf::Utf8 => 0,
            Leaf::I8 => 1,
            Leaf::I16 => 2,
            Leaf::I32 => 4,
            Leaf::I64 | Leaf::F64 | Leaf::TimestampMs => 8,
        }
    }
}

/// One column of a record batch: its name, its value type, and whether it is a list of them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Field {
    pub name: String,
    pub leaf: Leaf,
    pub list: bool,
}

/// An Arrow array of a [`Leaf`] type, or a list array (its `child` the values), borrowed.
pub struct Array<'a> {
    pub len: usize,
    pub nulls: usize,
    offset: usize,
    validity: Option<&'a [u8]>,
    /// values (fixed width or bits), or offsets for a string or a list
    values: &'a [u8],
    data: &'a [u8],
    pub child: Option<Box<Array<'a>>>,
}

#[inline(always)]
fn bit(bits: &[u8], i: usize) -> bool {
    bits[i >> 3] >> (i & 7) & 1 == 1
}

/// A byte's eight bits as eight bytes 0 or 1, the least significant bit first: the byte
/// copied to each lane, lane `k` masked to bit `k`, and that bit carried to the lane's top
/// bit by adding 0x7f (a lane never carries into the next).
#[inline(always)]
fn spread(b: u8) -> u64 {
    const LANES: u64 = 0x0101_0101_0101_0101;
    let bits = (u64::from(b) * LANES) & 0x8040_2010_0804_0201;
    ((bits + 0x7f * LANES) & (0x80 * LANES)) >> 7
}

/// The bits of `bits` in `range` appended to `out` as bytes 0 or 1: a bit at a time to a
/// byte of the bitmap, then a byte of it at a time ([`spread`]).
fn unpack(bits: &[u8], range: std::ops::Range<usize>, out: &mut Vec<u8>) {
    let (mut i, to) = (range.start, range.end);
    while i < to && i % 8 != 0 {
        out.push(u8::from(bit(bits, i)));
        i += 1;
    }
    let whole = &bits[i / 8..i / 8 + (to - i) / 8];
    out.reserve(8 * whole.len() + 8);
    for &b in whole {
        out.extend_from_slice(&spread(b).to_le_bytes());
    }
    i += 8 * whole.len();
    out.extend((i..to).map(|i| u8::from(bit(bits, i))));
}

impl<'a> Array<'a> {
    #[inline(always)]
    pub fn valid(&self, i: usize) -> bool {
        self.validity.is_none_or(|v| bit(v, self.offset + i))
    }

    /// Where the string or list at `i` starts and ends (in `data`, or in the child).
    pub fn span(&self, i: usize) -> (usize, usize) {
        self.spans(i, i + 1).next().unwrap_or((0, 0))
    }

    /// Where each string or list from `from` to `to` starts and ends, in order.
    pub fn spans(&self, from: usize, to: usize) -> impl Iterator<Item = (usize, usize)> + '_ {
        let o = if from == to {
            &[][..]
        } else {
            &self.values[4 * (self.offset + from)..4 * (self.offset + to + 1)]
        };
        let ends = o.chunks_exact(4);
        ends.clone().zip(ends.skip(1)).map(|(a, b)| {
            let at = |c: &[u8]| i32::from_le_bytes(c.try_into().unwrap()) as usize;
            (at(a), at(b))
        })
    }

    /// The integer at `i` (valid or not).
    #[inline(always)]
    pub fn int(&self, i: usize, leaf: Leaf) -> i64 {
        let (j, v) = (self.offset + i, self.values);
        match leaf {
            Leaf::I8 => i64::from(v[j] as i8),
            Leaf::I16 => i64::from(i16::from_le_bytes(v[2 * j..2 * j + 2].try_into().unwrap())),
            Leaf::I32 => i64::from(i32::from_le_bytes(v[4 * j..4 * j + 4].try_into().unwrap())),
            _ => i64::from_le_bytes(v[8 * j..8 * j + 8].try_into().unwrap()),
        }
    }

    /// The double at `i` (valid or not).
    #[inline(always)]
    pub fn float(&self, i: usize) -> f64 {
        let j = 8 * (self.offset + i);
        f64::from_le_bytes(self.values[j..j + 8].try_into().unwrap())
    }

    /// The boolean at `i` (valid or not), 0 or 1.
    #[inline(always)]
    pub fn bool(&self, i: usize) -> u8 {
        u8::from(bit(self.values, self.offset + i))
    }

    /// The string at `i` (valid or not: a NULL's is empty, or what its offsets span).
    #[inline(always)]
    pub fn str(&self, i: usize) -> &'a [u8] {
        let j = 4 * (self.offset + i);
        let ends = &self.values[j..j + 8];
        let start = u32::from_le_bytes(ends[..4].try_into().unwrap()) as usize;
        let end = u32::from_le_bytes(ends[4..].try_into().unwrap()) as usize;
        &self.data[start..end]
    }

    /// The integers from `from` to `to` (valid or not), appended to `out`.
    pub fn ints(&self, from: usize, to: usize, leaf: Leaf, out: &mut Vec<i64>) {
        let (f, t) = (self.offset + from, self.offset + to);
        let v = self.values;
        match leaf {
            Leaf::I8 => out.extend(v[f..t].iter().map(|&b| i64::from(b as i8))),
            Leaf::I16 => out.extend(
                v[2 * f..2 * t]
                    .chunks_exact(2)
                    .map(|c| i64::from(i16::from_le_bytes([c[0], c[1]]))),
            ),
            Leaf::I32 => out.extend(
                v[4 * f..4 * t]
                    .chunks_exact(4)
                    .map(|c| i64::from(i32::from_le_bytes(c.try_into().unwrap()))),
            ),
            _ => out.extend(
                v[8 * f..8 * t]
                    .chunks_exact(8)
                    .map(|c| i64::from_le_bytes(c.try_into().unwrap())),
            ),
        }
    }

    /// The doubles from `from` to `to`, appended to `out`.
    pub fn floats(&self, from: usize, to: usize, out: &mut Vec<f64>) {
        let (f, t) = (self.offset + from, self.offset + to);
        let v = &self.values[8 * f..8 * t];
        out.extend(
            v.chunks_exact(8)
                .map(|c| f64::from_le_bytes(c.try_into().unwrap())),
        );
    }

    /// The booleans from `from` to `to`, appended to `out` as bytes 0 or 1.
    pub fn bools(&self, from: usize, to: usize, out: &mut Vec<u8>) {
        unpack(self.values, self.offset + from..self.offset + to, out);
    }

    /// Whether each row is valid, appended to `out` as bytes 0 or 1 (a column's definition
    /// levels).
    pub fn validity(&self, out: &mut Vec<u8>) {
        match self.validity {
            Some(v) => unpack(v, self.offset..self.offset + self.len, out),
            None => out.resize(out.len() + self.len, 1),
        }
    }

    /// The strings of the rows whose level is 1 (`levels`: one a row from the first, 0 or
    /// 1), appended to `out`: each row's string read (each one's end read once: it is the
    /// next one's start), and kept when its level is 1 (no branch a row).
    pub fn strs_where(&self, levels: &[u8], out: &mut Vec<&'a [u8]>) {
        if levels.is_empty() {
            return;
        }
        let data = self.data;
        let ends = &self.values[4 * self.offset..4 * (self.offset + levels.len() + 1)];
        let at = |c: &[u8]| i32::from_le_bytes(c.try_into().unwrap()) as usize;
        let mut start = at(&ends[..4]);
        out.reserve(levels.len());
        let spare = &mut out.spare_capacity_mut()[..levels.len()];
        let mut k = 0;
        for (c, &d) in ends[4..].chunks_exact(4).zip(levels) {
            let end = at(c);
            spare[k].write(&data[start..end]);
            start = end;
            k += usize::from(d);
        }
        // SAFETY: each of the first `k` slots was written before `k` passed it
        unsafe { out.set_len(out.len() + k) };
    }

    /// The strings from `from` to `to`, appended to `out` (each one's end read once: it
    /// is the next one's start).
    pub fn strs(&self, from: usize, to: usize, out: &mut Vec<&'a [u8]>) {
        if from == to {
            return;
        }
        let data = self.data;
        let ends = &self.values[4 * (self.offset + from)..4 * (self.offset + to + 1)];
        let at = |c: &[u8]| i32::from_le_bytes(c.try_into().unwrap()) as usize;
        let mut start = at(&ends[..4]);
        out.extend(ends[4..].chunks_exact(4).map(|c| {
            let end = at(c);
            let s = &data[start..end];
            start = end;
            s
        }));
    }
}

/// `n` bytes at `p` (none when `n` is 0); an error for a missing buffer.
unsafe fn slice<'a>(p: *const c_void, n: usize) -> Result<&'a [u8], String> {
    if n == 0 {
        return Ok(&[]);
    }
    if p.is_null() {
        return Err("an Arrow buffer is missing".into());
    }
    Ok(std::slice::from_raw_parts(p.cast::<u8>(), n))
}

unsafe fn text<'a>(p: *const c_char) -> &'a str {
    if p.is_null() {
        return "";
    }
    CStr::from_ptr(p).to_str().unwrap_or("")
}

unsafe fn nth<'a, T>(list: *mut *mut T, n: i64, i: usize) -> Result<&'a T, String> {
    if list.is_null() || i as i64 >= n || (*list.add(i)).is_null() {
        return Err("an Arrow child is missing".into());
    }
    Ok(&**list.add(i))
}

fn count_nulls(validity: Option<&[u8]>, offset: usize, len: usize) -> usize {
    validity.map_or(0, |v| {
        (offset..offset + len).filter(|&i| !bit(v, i)).count()
    })
}

/// Read one array of `format` (a leaf type, or `+l` with `child` its values' format).
unsafe fn read<'a>(
    a: &'a FfiArray,
    format: &str,
    child: Option<&str>,
) -> Result<Array<'a>, String> {
    let len = a.length as usize;
    let offset = a.offset as usize;
    let end = offset + len;
    let buffers = a.buffers;
    let buffer = |i: usize| -> *const c_void {
        if buffers.is_null() || i as i64 >= a.n_buffers {
            std::ptr::null()
        } else {
            *buffers.add(i)
        }
    };
    let validity = if buffer(0).is_null() {
        None
    } else {
        Some(slice(buffer(0), end.div_ceil(8))?)
    };
    let nulls = if a.null_count < 0 {
        count_nulls(validity, offset, len)
    } else {
        a.null_count as usize
    };
    let mut out = Array {
        len,
        nulls,
        offset,
        validity,
        values: &[],
        data: &[],
        child: None,
    };
    let offsets = |out: &mut Array<'a>| -> Result<usize, String> {
        if len == 0 {
            return Ok(0);
        }
        out.values = slice(buffer(1), 4 * (end + 1))?;
        Ok(out.span(len - 1).1)
    };
    if format == "+l" {
        let child_format = child.ok_or("a list without its values")?;
        if child_format == "+l" {
            return Err("a list of lists".into());
        }
        offsets(&mut out)?;
        let values = read(nth(a.children, a.n_children, 0)?, child_format, None)?;
        out.child = Some(Box::new(values));
        return Ok(out);
    }
    let leaf = Leaf::of(format).ok_or_else(|| format!("Arrow type {format:?}"))?;
    match leaf {
        Leaf::Bool => out.values = slice(buffer(1), end.div_ceil(8))?,
        Leaf::Utf8 => {
            let last = offsets(&mut out)?;
            out.data = slice(buffer(2), last)?;
        }
        _ => out.values = slice(buffer(1), leaf.width() * end)?,
    }
    Ok(out)
}

/// The columns of an exported record batch (a struct array and its schema): each column's
/// [`Field`] and [`Array`]. An error names a type this reader does not read.
///
/// # Safety
/// `schema` and `array` must point to live, valid C data interface structs (those of a
/// capsule Python holds for the duration of the borrow).
pub unsafe fn batch<'a>(
    schema: &'a FfiSchema,
    array: &'a FfiArray,
) -> Result<Vec<(Field, Array<'a>)>, String> {
    if text(schema.format) != "+s" || array.offset != 0 {
        return Err("not a record batch".into());
    }
    let mut out = Vec::with_capacity(schema.n_children as usize);
    for i in 0..schema.n_children as usize {
        let s = nth(schema.children, schema.n_children, i)?;
        let name = text(s.name).to_owned();
        let format = text(s.format);
        let (leaf, child) = if format == "+l" {
            let c = text(nth(s.children, s.n_children, 0)?.format);
            (Leaf::of(c), Some(c))
        } else {
            (Leaf::of(format), None)
        };
        let Some(leaf) = leaf else {
            return Err(format!("{name}: Arrow type {format:?} ({child:?})"));
        };
        let a = nth(array.children, array.n_children, i)?;
        if a.length != array.length {
            return Err(format!("{name}: a column of another length than its batch"));
        }
        let values = read(a, format, child)?;
        out.push((
            Field {
                name,
                leaf,
                list: child.is_some(),
            },
            values,
        ));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spread_is_the_bits() {
        for b in 0..=255u8 {
            let want: Vec<u8> = (0..8).map(|k| (b >> k) & 1).collect();
            assert_eq!(spread(b).to_le_bytes().to_vec(), want, "{b:#010b}");
        }
    }
}
