//! Dense square bit matrices: row `a` holds the successors of `a`.

use super::bits::iter_ones;

/// A relation over `0..n` as an `n × n` bit matrix (row-major, `u64` words).
#[derive(Clone, PartialEq, Eq)]
pub struct BitMatrix {
    n: usize,
    stride: usize,
    words: Vec<u64>,
}

impl std::fmt::Debug for BitMatrix {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_set().entries(self.pairs()).finish()
    }
}

impl BitMatrix {
    /// The empty relation over `0..n`.
    pub fn new(n: usize) -> BitMatrix {
        let stride = n.div_ceil(64);
        BitMatrix {
            n,
            stride,
            words: vec![0; n * stride],
        }
    }

    /// Number of elements `n`.
    #[inline]
    pub fn n(&self) -> usize {
        self.n
    }

    /// Words per row.
    #[inline]
    pub fn stride(&self) -> usize {
        self.stride
    }

    /// Row `a`: the successors of `a`.
    #[inline]
    pub fn row(&self, a: usize) -> &[u64] {
        &self.words[a * self.stride..(a + 1) * self.stride]
    }

    /// Row `a`, mutably.
    #[inline]
    pub fn row_mut(&mut self, a: usize) -> &mut [u64] {
        &mut self.words[a * self.stride..(a + 1) * self.stride]
    }

    /// All rows, `stride` words each, row after row.
    #[inline]
    pub fn words_mut(&mut self) -> &mut [u64] {
        &mut self.words
    }

    /// Whether `(a, b)` is in the relation.
    #[inline]
    pub fn get(&self, a: usize, b: usize) -> bool {
        self.words[a * self.stride + b / 64] >> (b % 64) & 1 == 1
    }

    /// Adds `(a, b)`; returns whether it was new.
    #[inline]
    pub fn set(&mut self, a: usize, b: usize) -> bool {
        let w = &mut self.words[a * self.stride + b / 64];
        let bit = 1u64 << (b % 64);
        let new = *w & bit == 0;
        *w |= bit;
        new
    }

    /// Removes `(a, b)`.
    #[inline]
    pub fn unset(&mut self, a: usize, b: usize) {
        self.words[a * self.stride + b / 64] &= !(1u64 << (b % 64));
    }

    /// Row `dst` |= row `src` of `other` (which may be `self`'s clone).
    #[inline]
    pub fn or_row_from(&mut self, dst: usize, other: &BitMatrix, src: usize) {
        let s = self.stride;
        let from = &other.words[src * s..(src + 1) * s];
        for (d, f) in self.words[dst * s..(dst + 1) * s].iter_mut().zip(from) {
            *d |= *f;
        }
    }

    /// Row `a` |= `bits`.
    #[inline]
    pub fn or_row(&mut self, a: usize, bits: &[u64]) {
        for (d, f) in self.row_mut(a).iter_mut().zip(bits) {
            *d |= *f;
        }
    }

    /// Row `a` &= `bits`.
    #[inline]
    pub fn and_row(&mut self, a: usize, bits: &[u64]) {
        for (d, f) in self.row_mut(a).iter_mut().zip(bits) {
            *d &= *f;
        }
    }

    /// `self |= other`.
    pub fn union_with(&mut self, other: &BitMatrix) {
        debug_assert_eq!(self.n, other.n);
        for (d, f) in self.words.iter_mut().zip(&other.words) {
            *d |= *f;
        }
    }

    /// The successors of `a`, in increasing order.
    pub fn succ(&self, a: usize) -> impl Iterator<Item = usize> + '_ {
        iter_ones(self.row(a))
    }

    /// All pairs, row by row.
    pub fn pairs(&self) -> impl Iterator<Item = (usize, usize)> + '_ {
        (0..self.n).flat_map(move |a| self.succ(a).map(move |b| (a, b)))
    }

    /// Number of pairs.
    pub fn count(&self) -> usize {
        self.words.iter().map(|w| w.count_ones() as usize).sum()
    }

    /// The inverse relation, by 64×64 bit-block transposes.
    pub fn transpose(&self) -> BitMatrix {
        if self.stride == 1 {
            // one block: the rows, padded to 64
            let mut block = [0u64; 64];
            block[..self.n].copy_from_slice(&self.words);
            transpose_leading(&mut block, self.n.next_power_of_two());
            return BitMatrix {
                n: self.n,
                stride: 1,
                words: block[..self.n].to_vec(),
            };
        }
        let mut t = BitMatrix::new(self.n);
        let mut block = [0u64; 64];
        for bi in 0..self.stride {
            for bj in 0..self.stride {
                // block[r] = bits (bj*64 .. bj*64+64) of row bi*64 + r
                let mut any = 0;
                for (r, slot) in block.iter_mut().enumerate() {
                    let row = bi * 64 + r;
                    *slot = if row < self.n {
                        self.words[row * self.stride + bj]
                    } else {
                        0
                    };
                    any |= *slot;
                }
                if any == 0 {
                    continue;
                }
                transpose64(&mut block);
                for (c, &w) in block.iter().enumerate() {
                    let row = bj * 64 + c;
                    if row < self.n {
                        t.words[row * self.stride + bi] = w;
                    }
                }
            }
        }
        t
    }

    /// Row `dst` |= row `src` of the same matrix (`dst != src`).
    #[inline]
    pub fn or_row_within(&mut self, dst: usize, src: usize) {
        debug_assert_ne!(dst, src);
        let s = self.stride;
        let (d, f) = if dst < src {
            let (lo, hi) = self.words.split_at_mut(src * s);
            (&mut lo[dst * s..(dst + 1) * s], &hi[..s])
        } else {
            let (lo, hi) = self.words.split_at_mut(dst * s);
            (&mut hi[..s], &lo[src * s..(src + 1) * s])
        };
        for (x, y) in d.iter_mut().zip(f) {
            *x |= *y;
        }
    }

    /// Row `dst` = row `src` of the same matrix.
    #[inline]
    pub fn copy_row_within(&mut self, dst: usize, src: usize) {
        let s = self.stride;
        self.words.copy_within(src * s..(src + 1) * s, dst * s);
    }

    /// Whether some `(a, a)` is in the relation.
    pub fn has_loop(&self) -> Option<usize> {
        (0..self.n).find(|&a| self.get(a, a))
    }
}

/// Transposes a 64×64 bit matrix in place (bit `c` of word `r` ↔ bit `r` of word `c`).
fn transpose64(a: &mut [u64; 64]) {
    transpose_leading(a, 64);
}

/// Transposes the leading `size × size` block of a 64×64 bit matrix in
/// place (`size` a power of two; the other bits must be 0): the rounds of
/// [`transpose64`] on sub-blocks smaller than `size` only.
fn transpose_leading(a: &mut [u64; 64], size: usize) {
    let mut j = 32;
    let mut m: u64 = 0x0000_0000_FFFF_FFFF;
    while j != 0 {
        if j < size {
            let mut k = 0;
            while k < size {
                // swap the upper-right and lower-left j×j sub-blocks
                let t = ((a[k] >> j) ^ a[k + j]) & m;
                a[k] ^= t << j;
                a[k + j] ^= t;
                k = (k + j + 1) & !j;
            }
        }
        j >>= 1;
        m ^= m << j;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn transpose_matches_pairwise() {
        let mut rng = crate::gen::Rng::new(99);
        for n in [1, 2, 5, 17, 31, 32, 33, 63, 64, 65, 130, 200] {
            let mut m = BitMatrix::new(n);
            for _ in 0..(n * 3) {
                m.set(rng.below(n), rng.below(n));
            }
            let mut want = BitMatrix::new(n);
            for (a, b) in m.pairs() {
                want.set(b, a);
            }
            assert_eq!(m.transpose(), want, "n = {n}");
        }
    }
}
