//! Thrift's compact protocol, the writing half: what a Parquet footer and page header are
//! written in (the fields the file writer sets, each by its id in `parquet.thrift`).

/// The compact protocol's type of a field (its low nibble) or of a list's elements.
#[derive(Clone, Copy)]
#[repr(u8)]
pub enum Kind {
    True = 1,
    False = 2,
    Byte = 3,
    I32 = 5,
    I64 = 6,
    Binary = 8,
    List = 9,
    Struct = 12,
}

/// A compact-protocol writer: structs nest ([`Writer::begin`] / [`Writer::end`]), each
/// field's id is written as its delta from the last field's of the same struct.
///
/// ```
/// use big2_native::parquet::thrift::Writer;
/// let mut w = Writer::default();
/// w.i32(1, 2);
/// w.binary(4, b"ab");
/// w.stop();
/// assert_eq!(w.out, [0x15, 4, 0x38, 2, b'a', b'b', 0]);
/// ```
#[derive(Default)]
pub struct Writer {
    pub out: Vec<u8>,
    last: i16,
    outer: Vec<i16>,
}

fn zigzag(v: i64) -> u64 {
    ((v << 1) ^ (v >> 63)) as u64
}

/// Append `v` as an unsigned LEB128 varint.
pub fn varint(out: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        out.push((v as u8) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

impl Writer {
    fn field(&mut self, id: i16, kind: Kind) {
        let delta = id - self.last;
        if (1..=15).contains(&delta) {
            self.out.push(((delta as u8) << 4) | kind as u8);
        } else {
            self.out.push(kind as u8);
            varint(&mut self.out, zigzag(id.into()));
        }
        self.last = id;
    }

    pub fn i32(&mut self, id: i16, v: i32) {
        self.field(id, Kind::I32);
        varint(&mut self.out, zigzag(v.into()));
    }

    pub fn i64(&mut self, id: i16, v: i64) {
        self.field(id, Kind::I64);
        varint(&mut self.out, zigzag(v));
    }

    pub fn i8(&mut self, id: i16, v: i8) {
        self.field(id, Kind::Byte);
        self.out.push(v as u8);
    }

    pub fn bool(&mut self, id: i16, v: bool) {
        self.field(id, if v { Kind::True } else { Kind::False });
    }

    pub fn binary(&mut self, id: i16, v: &[u8]) {
        self.field(id, Kind::Binary);
        varint(&mut self.out, v.len() as u64);
        self.out.extend_from_slice(v);
    }

    /// A list field's header: `n` elements of `kind` follow (for structs, each between
    /// [`Writer::begin_element`] and [`Writer::end`]).
    pub fn list(&mut self, id: i16, kind: Kind, n: usize) {
        self.field(id, Kind::List);
        if n < 15 {
            self.out.push(((n as u8) << 4) | kind as u8);
        } else {
            self.out.push(0xf0 | kind as u8);
            varint(&mut self.out, n as u64);
        }
    }

    /// An element of an i32 list (an enum's value).
    pub fn list_i32(&mut self, v: i32) {
        varint(&mut self.out, zigzag(v.into()));
    }

    /// An element of a binary list (a string).
    pub fn list_binary(&mut self, v: &[u8]) {
        varint(&mut self.out, v.len() as u64);
        self.out.extend_from_slice(v);
    }

    /// A struct field opens: its fields follow, then [`Writer::end`].
    pub fn begin(&mut self, id: i16) {
        self.field(id, Kind::Struct);
        self.begin_element();
    }

    /// A struct element of a list opens (no field header).
    pub fn begin_element(&mut self) {
        self.outer.push(self.last);
        self.last = 0;
    }

    /// The open struct closes.
    pub fn end(&mut self) {
        self.out.push(0);
        self.last = self.outer.pop().unwrap_or(0);
    }

    /// The outermost struct closes.
    pub fn stop(&mut self) {
        self.out.push(0);
        self.last = 0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_deltas_and_lists() {
        let mut w = Writer::default();
        w.i64(20, -1);
        w.list(21, Kind::I32, 15);
        (0..15).for_each(|_| w.list_i32(1));
        w.bool(22, true);
        w.begin(23);
        w.i32(1, 64);
        w.end();
        w.stop();
        let mut want = vec![0x06, 40, 1, 0x19, 0xf5, 15];
        want.extend([2; 15]);
        want.extend([0x11, 0x1c, 0x15, 0x80, 0x01, 0, 0]);
        assert_eq!(w.out, want);
    }
}
