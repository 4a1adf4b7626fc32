//! Parquet's value and level encodings: the RLE / bit-packed hybrid (levels and dictionary
//! indices) and DELTA_BINARY_PACKED (increasing times).

use super::thrift::varint;

/// Bits packed little-endian, least significant first, as Parquet packs them.
#[derive(Default)]
struct Bits {
    acc: u128,
    n: u32,
}

impl Bits {
    #[inline(always)]
    fn push(&mut self, out: &mut Vec<u8>, v: u64, width: u32) {
        self.acc |= u128::from(v) << self.n;
        self.n += width;
        if self.n >= 64 {
            out.extend_from_slice(&(self.acc as u64).to_le_bytes());
            self.acc >>= 64;
            self.n -= 64;
        }
    }

    fn flush(&mut self, out: &mut Vec<u8>) {
        let bytes = self.n.div_ceil(8) as usize;
        out.extend_from_slice(&self.acc.to_le_bytes()[..bytes]);
        self.acc = 0;
        self.n = 0;
    }
}

/// The number of bits that hold `max` (0 for 0).
pub fn width_of(max: u64) -> u32 {
    64 - max.leading_zeros()
}

/// `values` in the RLE / bit-packed hybrid at `width` bits a value: bit-packed in groups
/// of 8, but for a group of 8 equal values, which starts an RLE run as long as they repeat.
/// (A run that starts inside a group is found from the next group on, when it is that long.)
///
/// ```
/// use big2_native::parquet::encode::hybrid;
/// let mut out = Vec::new();
/// hybrid(&mut out, &[1u32; 10], 1);
/// assert_eq!(out, [20, 1]); // a run of 10 ones
/// out.clear();
/// hybrid(&mut out, &[1u32, 0, 1], 1);
/// assert_eq!(out, [3, 0b101]); // one bit-packed group
/// ```
pub fn hybrid<T: Copy + PartialEq + Into<u64>>(out: &mut Vec<u8>, values: &[T], width: u32) {
    let value_bytes = width.div_ceil(8) as usize;
    let n = values.len();
    let mut literal_from = 0; // the first value not yet written
    let mut i = 0;
    while i + 8 <= n {
        let x = values[i];
        // all eight compared, without an early exit: a few vector instructions
        if values[i + 1..i + 8]
            .iter()
            .fold(true, |same, &y| same & (y == x))
        {
            let end = i
                + 8
                + values[i + 8..]
                    .iter()
                    .position(|&y| y != x)
                    .unwrap_or(n - i - 8);
            literals(out, &values[literal_from..i], width);
            varint(out, ((end - i) as u64) << 1);
            let v: u64 = x.into();
            out.extend_from_slice(&v.to_le_bytes()[..value_bytes]);
            literal_from = end;
            i = end;
        } else {
            i += 8;
        }
    }
    literals(out, &values[literal_from..], width);
}

/// A bit-packed run of `values` (none: nothing written), its last group padded with zeros.
fn literals<T: Copy + Into<u64>>(out: &mut Vec<u8>, values: &[T], width: u32) {
    if values.is_empty() {
        return;
    }
    let groups = values.len().div_ceil(8);
    varint(out, ((groups as u64) << 1) | 1);
    pack(out, values, width);
}

/// Eight values of at most 16 bits (8 of them fill a `u128`) as one little-endian word: the first four
/// in its low `4 * width` bits, the last four above them (two 64-bit sums, one wide shift).
#[inline(always)]
fn group<T: Copy + Into<u64>>(g: &[T; 8], width: u32) -> u128 {
    let (mut lo, mut hi) = (0u64, 0u64);
    for k in 0..4 {
        lo |= g[k].into() << (k as u32 * width);
        hi |= g[k + 4].into() << (k as u32 * width);
    }
    u128::from(lo) | u128::from(hi) << (4 * width)
}

/// `values` bit-packed at `width` bits, least significant first, zeros after the last one to
/// a multiple of 8 values (so `width` bytes a group of 8). Up to 16 bits a group is
/// one word ([`pack_groups`], its shifts constants), else a value at a time.
fn pack<T: Copy + Into<u64>>(out: &mut Vec<u8>, values: &[T], width: u32) {
    macro_rules! by_width {
        ($($w:literal)*) => {
            match width {
                $($w => return pack_groups::<$w, T>(out, values),)*
                _ => {}
            }
        };
    }
    by_width!(0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16);
    let mut bits = Bits::default();
    for &v in values {
        bits.push(out, v.into(), width);
    }
    for _ in values.len()..values.len().div_ceil(8) * 8 {
        bits.push(out, 0, width);
    }
    bits.flush(out);
}

/// [`pack`] at `W` bits, at most 16: each group stored as 16 bytes of which
/// the next group overwrites all but its `W`, no per-value branch and no call to copy a few
/// bytes.
fn pack_groups<const W: u32, T: Copy + Into<u64>>(out: &mut Vec<u8>, values: &[T]) {
    let groups = values.len().div_ceil(8);
    let w = W as usize;
    out.reserve(groups * w + 16);
    let spare = out.spare_capacity_mut();
    let mut store = |at: usize, word: u128| {
        let to = &mut spare[at..at + 16];
        // SAFETY: `to` is 16 bytes long (the slice above is checked)
        unsafe {
            to.as_mut_ptr()
                .cast::<[u8; 16]>()
                .write_unaligned(word.to_le_bytes())
        };
    };
    let mut at = 0;
    let mut chunks = values.chunks_exact(8);
    for g in &mut chunks {
        store(at, group(g.try_into().unwrap(), W));
        at += w;
    }
    let rest = chunks.remainder();
    if !rest.is_empty() {
        let mut last = [0u64; 8];
        for (l, &v) in last.iter_mut().zip(rest) {
            *l = v.into();
        }
        store(at, group(&last, W));
    }
    // SAFETY: group `g` wrote the 16 bytes from `g * w` on (`w` at most 16), so the
    // `groups * w` bytes after the length are written
    unsafe { out.set_len(out.len() + groups * w) };
}

/// DELTA_BINARY_PACKED: blocks of 128 values in 4 miniblocks of 32 (parquet-format's
/// Encodings.md), each miniblock packed at the width of its deltas less the block's least.
///
/// ```
/// use big2_native::parquet::encode::delta_binary_packed;
/// let mut out = Vec::new();
/// delta_binary_packed(&mut out, &[5, 6, 7]);
/// // header (128, 4 miniblocks, 3 values, first 5), block: least delta 1, widths 0
/// assert_eq!(out, [128, 1, 4, 3, 10, 2, 0, 0, 0, 0]);
/// ```
pub fn delta_binary_packed(out: &mut Vec<u8>, values: &[i64]) {
    const BLOCK: usize = 128;
    const MINI: usize = 32;
    let zigzag = |v: i64| ((v << 1) ^ (v >> 63)) as u64;
    varint(out, BLOCK as u64);
    varint(out, (BLOCK / MINI) as u64);
    varint(out, values.len() as u64);
    varint(out, zigzag(values.first().copied().unwrap_or(0)));
    let mut deltas = [0i64; BLOCK];
    let mut at = 1;
    while at < values.len() {
        let n = (values.len() - at).min(BLOCK);
        for (k, d) in deltas[..n].iter_mut().enumerate() {
            *d = values[at + k].wrapping_sub(values[at + k - 1]);
        }
        let block = &deltas[..n];
        let least = block.iter().copied().min().unwrap_or(0);
        varint(out, zigzag(least));
        let mut widths = [0u8; BLOCK / MINI];
        for (w, mini) in widths.iter_mut().zip(block.chunks(MINI)) {
            let bits = mini
                .iter()
                .fold(0u64, |acc, &d| acc | d.wrapping_sub(least) as u64);
            *w = width_of(bits) as u8;
        }
        out.extend_from_slice(&widths);
        for (&w, mini) in widths.iter().zip(block.chunks(MINI)) {
            let mut packed = [0u64; MINI];
            for (p, &d) in packed.iter_mut().zip(mini) {
                *p = d.wrapping_sub(least) as u64;
            }
            pack(out, &packed, w.into());
        }
        at += n;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The reference reader of the hybrid encoding (`n` values).
    fn unhybrid(data: &[u8], width: u32, n: usize) -> Vec<u64> {
        let mut out = Vec::new();
        let mut p = 0;
        let vb = width.div_ceil(8) as usize;
        while out.len() < n {
            let (mut h, mut s) = (0u64, 0);
            loop {
                let b = data[p];
                p += 1;
                h |= u64::from(b & 0x7f) << s;
                s += 7;
                if b < 0x80 {
                    break;
                }
            }
            if h & 1 == 0 {
                let mut v = [0u8; 8];
                v[..vb].copy_from_slice(&data[p..p + vb]);
                p += vb;
                out.extend(std::iter::repeat_n(
                    u64::from_le_bytes(v),
                    (h >> 1) as usize,
                ));
            } else {
                let count = (h >> 1) as usize * 8;
                for k in 0..count {
                    let bit = k * width as usize;
                    let mut v = 0u64;
                    for b in 0..width as usize {
                        let at = bit + b;
                        v |= u64::from((data[p + at / 8] >> (at % 8)) & 1) << b;
                    }
                    out.push(v);
                }
                p += (count * width as usize).div_ceil(8);
            }
        }
        out.truncate(n);
        out
    }

    #[test]
    fn hybrid_reads_back() {
        let mut seed = 7u64;
        for width in [1u32, 2, 3, 7, 8, 13, 20] {
            for len in [0usize, 1, 7, 8, 9, 17, 100, 1000] {
                let values: Vec<u32> = (0..len)
                    .map(|_| {
                        seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1);
                        let r = (seed >> 33) as u32;
                        // long runs, short runs and noise
                        if r.is_multiple_of(3) {
                            0
                        } else {
                            (r >> 4) % (1 << width)
                        }
                    })
                    .flat_map(|v| std::iter::repeat_n(v, (v % 12) as usize + 1))
                    .take(len)
                    .collect();
                let mut out = Vec::new();
                hybrid(&mut out, &values, width);
                let back = unhybrid(&out, width, values.len());
                let want: Vec<u64> = values.iter().map(|&v| v.into()).collect();
                assert_eq!(back, want, "width {width} len {len}");
            }
        }
    }

    /// [`pack`] against the value-at-a-time packer ([`Bits`]) it stands in for.
    #[test]
    fn pack_is_bits() {
        let mut seed = 11u64;
        for width in 0u32..=24 {
            for len in [1usize, 5, 8, 9, 16, 31, 32, 100] {
                let values: Vec<u64> = (0..len)
                    .map(|_| {
                        seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1);
                        (seed >> 20) & ((1u64 << width) - 1)
                    })
                    .collect();
                let mut want = vec![9u8];
                let mut bits = Bits::default();
                for &v in &values {
                    bits.push(&mut want, v, width);
                }
                for _ in len..len.div_ceil(8) * 8 {
                    bits.push(&mut want, 0, width);
                }
                bits.flush(&mut want);
                let mut got = vec![9u8];
                pack(&mut got, &values, width);
                assert_eq!(got, want, "width {width} len {len}");
            }
        }
    }
}
