//! CPython's `random.Random`, draw for draw: MT19937 seeded as `random.seed` seeds it (an int,
//! or a str through SHA-512, version 2), and the methods the simulator calls (`random`,
//! `getrandbits`, `randrange`, `choice`, `shuffle`, `choices`, `sample`, `lognormvariate`)
//! implemented as `Lib/random.py` implements them, so a seeded run draws the same numbers.

use sha2::{Digest, Sha512};

const N: usize = 624;
const M: usize = 397;

pub struct PyRandom {
    mt: [u32; N],
    index: usize,
}

/// `4 * exp(-0.5) / sqrt(2.0)` (`random.NV_MAGICCONST`).
fn nv_magic() -> f64 {
    4.0 * (-0.5f64).exp() / 2.0f64.sqrt()
}

impl PyRandom {
    fn init_genrand(s: u32) -> PyRandom {
        let mut mt = [0u32; N];
        mt[0] = s;
        for i in 1..N {
            mt[i] = 1_812_433_253u32
                .wrapping_mul(mt[i - 1] ^ (mt[i - 1] >> 30))
                .wrapping_add(i as u32);
        }
        PyRandom { mt, index: N }
    }

    /// `init_by_array` (what `random.seed(int)` calls with the int's 32-bit words, low first).
    pub fn from_key(key: &[u32]) -> PyRandom {
        static START: std::sync::OnceLock<[u32; N]> = std::sync::OnceLock::new();
        let mut r = PyRandom {
            mt: *START.get_or_init(|| PyRandom::init_genrand(19_650_218).mt),
            index: N,
        };
        let mt = &mut r.mt;
        let (mut i, mut j) = (1usize, 0usize);
        for _ in 0..N.max(key.len()) {
            mt[i] = (mt[i] ^ (mt[i - 1] ^ (mt[i - 1] >> 30)).wrapping_mul(1_664_525))
                .wrapping_add(key[j])
                .wrapping_add(j as u32);
            i += 1;
            j += 1;
            if i >= N {
                mt[0] = mt[N - 1];
                i = 1;
            }
            if j >= key.len() {
                j = 0;
            }
        }
        for _ in 0..N - 1 {
            mt[i] = (mt[i] ^ (mt[i - 1] ^ (mt[i - 1] >> 30)).wrapping_mul(1_566_083_941))
                .wrapping_sub(i as u32);
            i += 1;
            if i >= N {
                mt[0] = mt[N - 1];
                i = 1;
            }
        }
        mt[0] = 0x8000_0000;
        r
    }

    /// `random.Random(text)`: the int of `text.encode() + sha512(text.encode()).digest()`.
    pub fn from_text(text: &str) -> PyRandom {
        let mut bytes = text.as_bytes().to_vec();
        bytes.extend_from_slice(&Sha512::digest(text.as_bytes()));
        let start = bytes.iter().position(|&b| b != 0).unwrap_or(bytes.len());
        let big = &bytes[start..];
        let mut key = Vec::with_capacity(big.len() / 4 + 1);
        let mut end = big.len();
        while end > 0 {
            let begin = end.saturating_sub(4);
            key.push(big[begin..end].iter().fold(0u32, |w, &b| w << 8 | b as u32));
            end = begin;
        }
        if key.is_empty() {
            key.push(0);
        }
        PyRandom::from_key(&key)
    }

    fn next_u32(&mut self) -> u32 {
        if self.index >= N {
            let mt = &mut self.mt;
            let mag = |y: u32| if y & 1 == 1 { 0x9908_b0df } else { 0 };
            for k in 0..N - M {
                let y = (mt[k] & 0x8000_0000) | (mt[k + 1] & 0x7fff_ffff);
                mt[k] = mt[k + M] ^ (y >> 1) ^ mag(y);
            }
            for k in N - M..N - 1 {
                let y = (mt[k] & 0x8000_0000) | (mt[k + 1] & 0x7fff_ffff);
                mt[k] = mt[k + M - N] ^ (y >> 1) ^ mag(y);
            }
            let y = (mt[N - 1] & 0x8000_0000) | (mt[0] & 0x7fff_ffff);
            mt[N - 1] = mt[M - 1] ^ (y >> 1) ^ mag(y);
            self.index = 0;
        }
        let mut y = self.mt[self.index];
        self.index += 1;
        y ^= y >> 11;
        y ^= (y << 7) & 0x9d2c_5680;
        y ^= (y << 15) & 0xefc6_0000;
        y ^ (y >> 18)
    }

    /// `random()`: 53 bits in [0, 1).
    pub fn random(&mut self) -> f64 {
        let a = (self.next_u32() >> 5) as f64;
        let b = (self.next_u32() >> 6) as f64;
        (a * 67_108_864.0 + b) * (1.0 / 9_007_199_254_740_992.0)
    }

    /// `getrandbits(k)` for `k <= 32`.
    pub fn getrandbits(&mut self, k: u32) -> u32 {
        if k == 0 {
            0
        } else {
            self.next_u32() >> (32 - k)
        }
    }

    /// `_randbelow(n)` = `randrange(n)` for `0 < n < 2**32`.
    pub fn randbelow(&mut self, n: usize) -> usize {
        let k = usize::BITS - n.leading_zeros();
        let mut r = self.getrandbits(k) as usize;
        while r >= n {
            r = self.getrandbits(k) as usize;
        }
        r
    }

    pub fn choice<T: Copy>(&mut self, seq: &[T]) -> T {
        seq[self.randbelow(seq.len())]
    }

    pub fn shuffle<T>(&mut self, x: &mut [T]) {
        for i in (1..x.len()).rev() {
            let j = self.randbelow(i + 1);
            x.swap(i, j);
        }
    }

    /// `choices(range(len(weights)), weights=weights)[0]` (integer weights).
    pub fn choice_weighted(&mut self, weights: &[u64]) -> usize {
        let mut cum = Vec::with_capacity(weights.len());
        let mut total = 0u64;
        for &w in weights {
            total += w;
            cum.push(total as f64);
        }
        let x = self.random() * total as f64;
        let hi = weights.len() - 1;
        // bisect_right(cum, x, 0, hi)
        let (mut lo, mut hi) = (0usize, hi);
        while lo < hi {
            let mid = (lo + hi) / 2;
            if x < cum[mid] {
                hi = mid;
            } else {
                lo = mid + 1;
            }
        }
        lo
    }

    /// `sample(population, k)` for a population of at most 21 (the pool branch).
    pub fn sample<T: Copy>(&mut self, population: &[T], k: usize) -> Vec<T> {
        let n = population.len();
        debug_assert!(n <= 21 && k <= 5);
        let mut pool = population.to_vec();
        let mut out = Vec::with_capacity(k);
        for i in 0..k {
            let j = self.randbelow(n - i);
            out.push(pool[j]);
            pool[j] = pool[n - i - 1];
        }
        out
    }

    /// `normalvariate(mu, sigma)` (Kinderman and Monahan).
    pub fn normalvariate(&mut self, mu: f64, sigma: f64) -> f64 {
        let magic = nv_magic();
        loop {
            let u1 = self.random();
            let u2 = 1.0 - self.random();
            let z = magic * (u1 - 0.5) / u2;
            let zz = z * z / 4.0;
            if zz <= -u2.ln() {
                return mu + z * sigma;
            }
        }
    }

    pub fn lognormvariate(&mut self, mu: f64, sigma: f64) -> f64 {
        self.normalvariate(mu, sigma).exp()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn same_draws_as_cpython() {
        // python -c 'import random; r = random.Random(42); print(r.random(), r.randrange(52))'
        let mut r = PyRandom::from_key(&[42]);
        assert_eq!(r.random(), 0.6394267984578837);
        assert_eq!(r.randbelow(52), 1);
        // r = random.Random("7:0"); r.random(), r.randrange(52), r.getrandbits(5)
        let mut s = PyRandom::from_text("7:0");
        assert_eq!(s.random(), 0.7014016190307873);
        assert_eq!(s.randbelow(52), 2);
        assert_eq!(s.getrandbits(5), 29);
    }
}
