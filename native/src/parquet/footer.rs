//! A Parquet file's footer (`FileMetaData`, Thrift's compact protocol): the schema as pyarrow
//! writes it for the warehouse's types, the row group's column chunks, the key-value pairs.

use super::arrow::{Field, Leaf};
use super::thrift::{Kind, Writer};
use super::{physical, MinMax};

// parquet.thrift's enums
const REQUIRED: i32 = 0;
const OPTIONAL: i32 = 1;
const REPEATED: i32 = 2;
const ZSTD: i32 = 6;
const UTF8: i32 = 0;
const LIST: i32 = 3;
const TIMESTAMP_MILLIS: i32 = 9;
const INT_8: i32 = 15;
const INT_16: i32 = 16;

/// One column chunk's footer entry.
pub(super) struct ColumnMeta {
    pub(super) path: Vec<String>,
    pub(super) physical: i32,
    pub(super) encodings: Vec<i32>,
    pub(super) num_values: i64,
    pub(super) uncompressed: i64,
    pub(super) compressed: i64,
    pub(super) data_page_offset: i64,
    pub(super) dictionary_page_offset: Option<i64>,
    /// null count, min and max
    pub(super) statistics: Option<(usize, MinMax)>,
}

impl ColumnMeta {
    /// Where the chunk starts: its dictionary page, else its data page.
    fn start(&self) -> i64 {
        self.dictionary_page_offset.unwrap_or(self.data_page_offset)
    }
}

/// A leaf's schema element (`name`: the column's, or a list's `element`).
fn leaf_element(w: &mut Writer, leaf: Leaf, name: &str) {
    w.begin_element();
    w.i32(1, physical(leaf));
    w.i32(3, OPTIONAL);
    w.binary(4, name.as_bytes());
    let converted = match leaf {
        Leaf::Utf8 => Some(UTF8),
        Leaf::I8 => Some(INT_8),
        Leaf::I16 => Some(INT_16),
        Leaf::TimestampMs => Some(TIMESTAMP_MILLIS),
        _ => None,
    };
    if let Some(c) = converted {
        w.i32(6, c);
    }
    match leaf {
        Leaf::Utf8 => {
            w.begin(10);
            w.begin(1); // STRING
            w.end();
            w.end();
        }
        Leaf::I8 | Leaf::I16 => {
            w.begin(10);
            w.begin(10); // INTEGER
            w.i8(1, if leaf == Leaf::I8 { 8 } else { 16 });
            w.bool(2, true);
            w.end();
            w.end();
        }
        Leaf::TimestampMs => {
            w.begin(10);
            w.begin(8); // TIMESTAMP, adjusted to UTC, in MILLIS
            w.bool(1, true);
            w.begin(2);
            w.begin(1);
            w.end();
            w.end();
            w.end();
            w.end();
        }
        _ => {}
    }
    w.end();
}

/// A column's schema elements: a leaf, or a list's three (`<name>` LIST, `list` repeated,
/// `element`), as pyarrow writes them.
fn schema_elements(w: &mut Writer, field: &Field) {
    if !field.list {
        leaf_element(w, field.leaf, &field.name);
        return;
    }
    w.begin_element();
    w.i32(3, OPTIONAL);
    w.binary(4, field.name.as_bytes());
    w.i32(5, 1);
    w.i32(6, LIST);
    w.begin(10);
    w.begin(3); // LIST
    w.end();
    w.end();
    w.end();
    w.begin_element();
    w.i32(3, REPEATED);
    w.binary(4, b"list");
    w.i32(5, 1);
    w.end();
    leaf_element(w, field.leaf, "element");
}

/// The file's footer (`FileMetaData`).
pub(super) fn footer(
    fields: &[Field],
    columns: &[ColumnMeta],
    rows: usize,
    metadata: &[(String, String)],
) -> Vec<u8> {
    let mut w = Writer::default();
    w.i32(1, 2);
    let elements = 1 + fields
        .iter()
        .map(|f| if f.list { 3 } else { 1 })
        .sum::<usize>();
    w.list(2, Kind::Struct, elements);
    w.begin_element();
    w.i32(3, REQUIRED);
    w.binary(4, b"schema");
    w.i32(5, fields.len() as i32);
    w.end();
    fields.iter().for_each(|f| schema_elements(&mut w, f));
    w.i64(3, rows as i64);
    w.list(4, Kind::Struct, 1);
    w.begin_element();
    w.list(1, Kind::Struct, columns.len());
    for c in columns {
        w.begin_element();
        w.i64(2, c.start());
        w.begin(3);
        w.i32(1, c.physical);
        w.list(2, Kind::I32, c.encodings.len());
        c.encodings.iter().for_each(|&e| w.list_i32(e));
        w.list(3, Kind::Binary, c.path.len());
        c.path.iter().for_each(|p| w.list_binary(p.as_bytes()));
        w.i32(4, ZSTD);
        w.i64(5, c.num_values);
        w.i64(6, c.uncompressed);
        w.i64(7, c.compressed);
        w.i64(9, c.data_page_offset);
        if let Some(d) = c.dictionary_page_offset {
            w.i64(11, d);
        }
        if let Some((nulls, min_max)) = &c.statistics {
            w.begin(12);
            w.i64(3, *nulls as i64);
            if let Some((min, max)) = min_max {
                w.binary(5, max);
                w.binary(6, min);
            }
            w.end();
        }
        w.end();
        w.end();
    }
    w.i64(2, columns.iter().map(|c| c.uncompressed).sum());
    w.i64(3, rows as i64);
    w.i64(5, columns.first().map_or(4, ColumnMeta::start));
    w.i64(6, columns.iter().map(|c| c.compressed).sum());
    w.end();
    if !metadata.is_empty() {
        w.list(5, Kind::Struct, metadata.len());
        for (k, v) in metadata {
            w.begin_element();
            w.binary(1, k.as_bytes());
            w.binary(2, v.as_bytes());
            w.end();
        }
    }
    w.binary(6, CREATED_BY.as_bytes());
    w.list(7, Kind::Struct, columns.len());
    for _ in columns {
        w.begin_element();
        w.begin(1); // TYPE_ORDER
        w.end();
        w.end();
    }
    w.stop();
    w.out
}

/// The footer's `created_by`.
const CREATED_BY: &str = concat!(
    "big2-replay native core version ",
    env!("CARGO_PKG_VERSION")
);
