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

    /// The inverse relation.
    pub fn transpose(&self) -> BitMatrix {
        let mut t = BitMatrix::new(self.n);
        for (a, b) in self.pairs() {
            t.set(b, a);
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

    /// Whether some `(a, a)` is in the relation.
    pub fn has_loop(&self) -> Option<usize> {
        (0..self.n).find(|&a| self.get(a, a))
    }
}
