//! Word-level helpers on bit rows (`&[u64]`).

/// Iterates the indices of the set bits of a bit row, in increasing order.
#[inline]
pub fn iter_ones(words: &[u64]) -> Ones<'_> {
    Ones {
        words,
        next: 0,
        base: 0,
        cur: 0,
    }
}

/// The indices of the set bits of `word`, word `i` of a bit row, in
/// increasing order.
#[inline]
pub fn word_ones(i: usize, mut word: u64) -> impl Iterator<Item = usize> {
    std::iter::from_fn(move || {
        (word != 0).then(|| {
            let t = word.trailing_zeros() as usize;
            word &= word - 1;
            i * 64 + t
        })
    })
}

/// The iterator of [`iter_ones`].
#[derive(Debug, Clone)]
pub struct Ones<'a> {
    words: &'a [u64],
    next: usize,
    base: usize,
    cur: u64,
}

impl Iterator for Ones<'_> {
    type Item = usize;

    #[inline]
    fn next(&mut self) -> Option<usize> {
        while self.cur == 0 {
            let &w = self.words.get(self.next)?;
            self.base = self.next * 64;
            self.next += 1;
            self.cur = w;
        }
        let t = self.cur.trailing_zeros() as usize;
        self.cur &= self.cur - 1;
        Some(self.base + t)
    }
}

/// A fixed-size set of indices `0..n`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BitSet {
    words: Vec<u64>,
}

impl BitSet {
    /// The empty set over `0..n`.
    pub fn new(n: usize) -> BitSet {
        BitSet {
            words: vec![0; n.div_ceil(64)],
        }
    }

    /// Adds `i`.
    #[inline]
    pub fn insert(&mut self, i: usize) {
        self.words[i / 64] |= 1 << (i % 64);
    }

    /// Whether `i` is in the set.
    #[inline]
    pub fn contains(&self, i: usize) -> bool {
        self.words[i / 64] >> (i % 64) & 1 == 1
    }

    /// The set's words.
    #[inline]
    pub fn words(&self) -> &[u64] {
        &self.words
    }

    /// The set's words, mutably.
    #[inline]
    pub fn words_mut(&mut self) -> &mut [u64] {
        &mut self.words
    }

    /// Iterates the members in increasing order.
    pub fn iter(&self) -> impl Iterator<Item = usize> + '_ {
        iter_ones(&self.words)
    }

    /// Number of members.
    pub fn len(&self) -> usize {
        self.words.iter().map(|w| w.count_ones() as usize).sum()
    }

    /// Whether the set is empty.
    pub fn is_empty(&self) -> bool {
        self.words.iter().all(|&w| w == 0)
    }
}
