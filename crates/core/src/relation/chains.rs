//! Reachability at scale: operations on *sequences* (paths of the graph: a
//! thread, a lane of a timed thread, or a sub-chain of one), a few static
//! generating edges per operation (CSR), and `succ` frontiers — for each
//! operation and each *slot*, the first position of that slot's sequence it
//! reaches — so that `a` reaches `b` is one comparison (docs/design/scale.md §4).
//!
//! Edges are added incrementally ([`Frontier::insert`]): the new frontier is
//! merged backwards from the edge's source and stops where nothing drops;
//! every drop is reported to the caller, which fires its rules there. A trail
//! undoes insertions for search. Memory: `4·n·D` bytes for `D` slots.

use std::collections::{HashMap, VecDeque};

/// No sequence / no position.
pub const NONE: u32 = u32::MAX;

/// A DAG over `0..n` whose nodes lie on sequences (paths), with static
/// generating edges. A node's slots name the sequences it can reach: node
/// `x` reaches sequence `base[x] + s` in slot `s` (one family of sequences
/// per node, e.g. per variable for `po-loc`).
#[derive(Clone)]
pub struct ChainGraph<L> {
    slots: usize,
    seq: Vec<u32>,
    pos: Vec<u32>,
    base: Vec<u32>,
    seq_slot: Vec<u32>,
    seq_start: Vec<u32>,
    seq_nodes: Vec<u32>,
    chain_rel: L,
    out_start: Vec<u32>,
    out: Vec<(u32, L)>,
    in_start: Vec<u32>,
    inn: Vec<(u32, L)>,
    reads: SeqIndex,
    writes: SeqIndex,
    /// Per sequence, the one variable all its reads and writes access
    /// ([`NONE`]: none; [`MIXED`]: several).
    seq_var: Vec<u32>,
    /// Per sequence, whether each of its nodes is a write of `seq_var`
    /// (PSO's store sub-chains): its write positions are all of them.
    only_writes: Vec<bool>,
}

/// A sequence accessing several variables.
const MIXED: u32 = NONE - 1;

/// Per sequence, entries `(var, pos)` sorted, with a directory from
/// `(sequence, var)` to its run: "first read of `x` in `q` at or after `p`"
/// is a look-up, then a binary search within a short run, or in a long one
/// a step through its *skips* (per block of [`BLOCK`] positions, the first
/// entry at or after the block's start) and a short scan: one or two cache
/// misses instead of a binary search's dozen at 10⁶ operations.
#[derive(Clone)]
struct SeqIndex {
    positions: Vec<u32>,
    skips: Vec<u32>,
    dir: Dir,
    /// Per variable, the sequences holding its entries (ascending).
    seqs_of: HashMap<u32, Vec<u32>, BuildMix>,
}

/// A multiplicative hash for the directory's packed `(sequence, var)` keys.
#[derive(Default, Clone, Copy)]
struct BuildMix;

impl std::hash::BuildHasher for BuildMix {
    type Hasher = Mix;
    fn build_hasher(&self) -> Mix {
        Mix(0)
    }
}

struct Mix(u64);

impl std::hash::Hasher for Mix {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0 ^ b as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        }
    }
    fn write_u64(&mut self, k: u64) {
        self.0 = (k ^ (k >> 29)).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        self.0 ^= self.0 >> 32;
    }
    fn write_u32(&mut self, k: u32) {
        self.write_u64(u64::from(k));
    }
}

/// The directory from `(sequence, var)` to a run of positions: a table when
/// sequences × variables is within a few entries per item, else a hash map.
#[derive(Clone)]
enum Dir {
    Table { vars: u32, runs: Vec<Run> },
    Hash(HashMap<u64, Run, BuildMix>),
}

/// A run of [`SeqIndex::positions`], `start..end`, and where its skips
/// start in [`SeqIndex::skips`] ([`NONE`]: a short run, none).
#[derive(Clone, Copy)]
struct Run {
    start: u32,
    end: u32,
    skips: u32,
}

const EMPTY: Run = Run {
    start: 0,
    end: 0,
    skips: NONE,
};

/// Positions per skip block.
const BLOCK: u32 = 64;

/// Runs longer than this get skips.
const SHORT: usize = 16;

/// Entries a cursor steps forward before a query looks its position up.
const NEAR_STEPS: usize = 8;

/// Per graph, the last answer of each `(sequence, variable)` of its read
/// and write indexes, for [`ChainGraph::first_read_near`] and
/// [`ChainGraph::first_write_near`] (scale §4, indexes).
#[derive(Clone)]
pub struct Cursors {
    reads: Vec<u32>,
    writes: Vec<u32>,
}

impl Dir {
    fn for_items(items: &[(u32, u32, u32)]) -> Dir {
        let seqs = items.iter().map(|i| i.0 as u64 + 1).max().unwrap_or(0);
        let vars = items.iter().map(|i| i.1 as u64 + 1).max().unwrap_or(0);
        if seqs * vars <= (4 * items.len() as u64).max(1 << 12) {
            Dir::Table {
                vars: vars as u32,
                runs: vec![EMPTY; (seqs * vars) as usize],
            }
        } else {
            Dir::Hash(HashMap::with_hasher(BuildMix))
        }
    }

    fn insert(&mut self, q: u32, v: u32, run: Run) {
        match self {
            Dir::Table { vars, runs } => runs[(q as usize) * (*vars as usize) + v as usize] = run,
            Dir::Hash(m) => {
                m.insert(key(q, v), run);
            }
        }
    }

    #[inline]
    fn get(&self, q: u32, v: u32) -> Run {
        match self {
            Dir::Table { vars, runs } => {
                if v >= *vars {
                    return EMPTY;
                }
                runs.get((q as usize) * (*vars as usize) + v as usize)
                    .copied()
                    .unwrap_or(EMPTY)
            }
            Dir::Hash(m) => m.get(&key(q, v)).copied().unwrap_or(EMPTY),
        }
    }
}

impl SeqIndex {
    fn new(mut items: Vec<(u32, u32, u32)>) -> SeqIndex {
        items.sort_unstable();
        let mut dir = Dir::for_items(&items);
        let mut seqs_of: HashMap<u32, Vec<u32>, BuildMix> = HashMap::with_hasher(BuildMix);
        let mut skips = Vec::new();
        let mut i = 0;
        while i < items.len() {
            let (q, v, _) = items[i];
            let mut j = i;
            while j < items.len() && items[j].0 == q && items[j].1 == v {
                j += 1;
            }
            let mut run = Run {
                start: i as u32,
                end: j as u32,
                skips: NONE,
            };
            if j - i > SHORT {
                // per block b, the first entry at position >= b·BLOCK
                run.skips = skips.len() as u32;
                let mut at = i;
                for b in 0..=items[j - 1].2 / BLOCK {
                    while items[at].2 < b * BLOCK {
                        at += 1;
                    }
                    skips.push(at as u32);
                }
            }
            dir.insert(q, v, run);
            seqs_of.entry(v).or_default().push(q);
            i = j;
        }
        SeqIndex {
            positions: items.into_iter().map(|(_, _, p)| p).collect(),
            skips,
            dir,
            seqs_of,
        }
    }

    /// The index in `positions` of `run`'s first entry at or after `p`
    /// (`run.end` if none).
    #[inline]
    fn lower_bound(&self, run: Run, p: u32) -> usize {
        let (i, j) = (run.start as usize, run.end as usize);
        if run.skips == NONE {
            return i + self.positions[i..j].partition_point(|&e| e < p);
        }
        if p > self.positions[j - 1] {
            return j;
        }
        let mut at = self.skips[(run.skips + p / BLOCK) as usize] as usize;
        while self.positions[at] < p {
            at += 1;
        }
        at
    }

    /// Where a cursor for `(q, var)` is kept in a [`Cursors`] row (its
    /// directory entry), or `None` when the directory is a hash map.
    #[inline]
    fn cursor_at(&self, q: u32, var: u32) -> Option<usize> {
        match &self.dir {
            Dir::Table { vars, runs } if var < *vars => {
                let i = q as usize * *vars as usize + var as usize;
                (i < runs.len()).then_some(i)
            }
            _ => None,
        }
    }

    /// Cursor entries this index needs: one per directory entry.
    fn cursor_len(&self) -> usize {
        match &self.dir {
            Dir::Table { runs, .. } => runs.len(),
            Dir::Hash(_) => 0,
        }
    }

    /// [`SeqIndex::first`], starting from the entry the last query of
    /// `(q, var)` answered (kept in `cursors`): queries that move forward
    /// along a sequence, as a thread's writes do, step a few entries
    /// instead of looking the position up afresh.
    #[inline]
    fn first_near(&self, q: u32, var: u32, p: u32, cursors: &mut [u32]) -> Option<u32> {
        let Some(c) = self.cursor_at(q, var) else {
            return self.first(q, var, p);
        };
        let run = self.dir.get(q, var);
        let (i, j) = (run.start as usize, run.end as usize);
        let mut at = cursors[c] as usize;
        // the cursor is good if no entry before it is at or after p
        if at < i || at > j {
            at = self.lower_bound(run, p);
        } else if at > i && self.positions[at - 1] >= p {
            // a query behind the last one: step back
            let mut steps = 0;
            while at > i && self.positions[at - 1] >= p {
                at -= 1;
                steps += 1;
                if steps == NEAR_STEPS {
                    at = self.lower_bound(run, p);
                    break;
                }
            }
        } else {
            let mut steps = 0;
            while at < j && self.positions[at] < p {
                at += 1;
                steps += 1;
                if steps == NEAR_STEPS {
                    at = self.lower_bound(run, p);
                    break;
                }
            }
        }
        cursors[c] = at as u32;
        (at < j).then(|| self.positions[at])
    }

    /// The sequences holding entries of `var`.
    fn seqs(&self, var: u32) -> &[u32] {
        self.seqs_of.get(&var).map_or(&[], |v| v.as_slice())
    }

    /// The first position `>= p` of an entry of `var` in sequence `q`.
    fn first(&self, q: u32, var: u32, p: u32) -> Option<u32> {
        let run = self.dir.get(q, var);
        let at = self.lower_bound(run, p);
        (at < run.end as usize).then(|| self.positions[at])
    }

    /// The last position `<= p` of an entry of `var` in sequence `q`.
    fn last_at(&self, q: u32, var: u32, p: u32) -> Option<u32> {
        let run = self.dir.get(q, var);
        let at = self.lower_bound(run, p.saturating_add(1));
        (at > run.start as usize).then(|| self.positions[at - 1])
    }

    /// The entries of `var` in `q` at positions `>= p`.
    fn count_from(&self, q: u32, var: u32, p: u32) -> usize {
        let run = self.dir.get(q, var);
        run.end as usize - self.lower_bound(run, p)
    }
}

fn key(q: u32, var: u32) -> u64 {
    (q as u64) << 32 | var as u64
}

/// What [`ChainGraph::new`] is built from.
#[derive(Clone)]
pub struct Layout<L> {
    /// Number of nodes.
    pub n: usize,
    /// Slots per node (`D`).
    pub slots: usize,
    /// Each sequence: its slot and its nodes in path order.
    pub seqs: Vec<(u32, Vec<u32>)>,
    /// Per node, the sequence id of its slot 0 ([`NONE`] is read as 0).
    pub base: Vec<u32>,
    /// The label of the edges between consecutive nodes of a sequence.
    pub chain_rel: L,
    /// Static edges besides the sequences'.
    pub edges: Vec<(u32, u32, L)>,
    /// Per node: `Some((var, is_read))` for a read or write (rule sites).
    pub access: Vec<Option<(u32, bool)>>,
}

impl<L: Copy> ChainGraph<L> {
    /// Builds the CSR structure and the per-sequence indexes.
    pub fn new(l: Layout<L>) -> ChainGraph<L> {
        let n = l.n;
        let nseq = l.seqs.len();
        let mut seq = vec![NONE; n];
        let mut pos = vec![NONE; n];
        let mut seq_slot = Vec::with_capacity(nseq);
        let mut seq_start = Vec::with_capacity(nseq + 1);
        let mut seq_nodes = Vec::with_capacity(n);
        let mut reads = Vec::new();
        let mut writes = Vec::new();
        let mut seq_var = vec![NONE; nseq];
        let mut only_writes = vec![true; nseq];
        seq_start.push(0u32);
        for (q, (slot, nodes)) in l.seqs.into_iter().enumerate() {
            seq_slot.push(slot);
            for (p, &x) in nodes.iter().enumerate() {
                seq[x as usize] = q as u32;
                pos[x as usize] = p as u32;
                if let Some((v, is_read)) = l.access[x as usize] {
                    seq_var[q] = match seq_var[q] {
                        NONE => v,
                        one if one == v => v,
                        _ => MIXED,
                    };
                    let item = (q as u32, v, p as u32);
                    only_writes[q] &= !is_read;
                    if is_read {
                        reads.push(item);
                    } else {
                        writes.push(item);
                    }
                } else {
                    only_writes[q] = false;
                }
            }
            only_writes[q] &= seq_var[q] != MIXED;
            seq_nodes.extend(nodes);
            seq_start.push(seq_nodes.len() as u32);
        }
        let (out_start, out) = csr(n, l.chain_rel, l.edges.iter().map(|&(a, b, r)| (a, b, r)));
        let (in_start, inn) = csr(n, l.chain_rel, l.edges.iter().map(|&(a, b, r)| (b, a, r)));
        ChainGraph {
            slots: l.slots,
            seq,
            pos,
            base: l
                .base
                .into_iter()
                .map(|b| if b == NONE { 0 } else { b })
                .collect(),
            seq_slot,
            seq_start,
            seq_nodes,
            chain_rel: l.chain_rel,
            out_start,
            out,
            in_start,
            inn,
            reads: SeqIndex::new(reads),
            writes: SeqIndex::new(writes),
            seq_var,
            only_writes,
        }
    }

    /// Whether sequence `q` may hold reads or writes of `var` (a quick
    /// test before the indexes: `false` is certain).
    #[inline]
    pub fn may_hold(&self, q: u32, var: u32) -> bool {
        let v = self.seq_var[q as usize];
        v == var || v == MIXED
    }

    /// Number of nodes.
    pub fn n(&self) -> usize {
        self.seq.len()
    }

    /// Slots per node.
    pub fn slots(&self) -> usize {
        self.slots
    }

    /// The sequence node `x` reaches in slot `s`.
    #[inline]
    pub fn seq_of_slot(&self, x: u32, s: usize) -> u32 {
        self.base[x as usize] + s as u32
    }

    /// The node at position `p` of sequence `q`.
    #[inline]
    pub fn at(&self, q: u32, p: u32) -> u32 {
        self.seq_nodes[(self.seq_start[q as usize] + p) as usize]
    }

    /// Whether `x` lies on a sequence of this graph.
    #[inline]
    pub fn on_sequence(&self, x: u32) -> bool {
        self.seq[x as usize] != NONE
    }

    /// Length of sequence `q`.
    #[inline]
    fn len(&self, q: u32) -> u32 {
        self.seq_start[q as usize + 1] - self.seq_start[q as usize]
    }

    /// The first read of `var` at or after position `p` of sequence `q`.
    pub fn first_read(&self, q: u32, var: u32, p: u32) -> Option<u32> {
        if self.only_writes[q as usize] {
            return None;
        }
        self.reads.first(q, var, p).map(|p| self.at(q, p))
    }

    /// The first write of `var` at or after position `p` of sequence `q`.
    pub fn first_write(&self, q: u32, var: u32, p: u32) -> Option<u32> {
        if self.only_writes[q as usize] {
            let held = self.seq_var[q as usize] == var && p < self.len(q);
            return held.then(|| self.at(q, p));
        }
        self.writes.first(q, var, p).map(|p| self.at(q, p))
    }

    /// Cursors for [`ChainGraph::first_read_near`] and
    /// [`ChainGraph::first_write_near`], none set.
    pub fn cursors(&self) -> Cursors {
        Cursors {
            reads: vec![NONE; self.reads.cursor_len()],
            writes: vec![NONE; self.writes.cursor_len()],
        }
    }

    /// [`ChainGraph::first_read`], from the cursor of `(q, var)` (the same
    /// answer, found by stepping when queries move forward).
    #[inline]
    pub fn first_read_near(&self, q: u32, var: u32, p: u32, c: &mut Cursors) -> Option<u32> {
        if self.only_writes[q as usize] {
            return None;
        }
        self.reads
            .first_near(q, var, p, &mut c.reads)
            .map(|p| self.at(q, p))
    }

    /// [`ChainGraph::first_write`], from the cursor of `(q, var)`.
    #[inline]
    pub fn first_write_near(&self, q: u32, var: u32, p: u32, c: &mut Cursors) -> Option<u32> {
        if self.only_writes[q as usize] {
            let held = self.seq_var[q as usize] == var && p < self.len(q);
            return held.then(|| self.at(q, p));
        }
        self.writes
            .first_near(q, var, p, &mut c.writes)
            .map(|p| self.at(q, p))
    }

    /// Writes of `var` at positions `>= p` of sequence `q`.
    pub fn writes_from(&self, q: u32, var: u32, p: u32) -> usize {
        if self.only_writes[q as usize] {
            let held = self.seq_var[q as usize] == var;
            return if held {
                self.len(q).saturating_sub(p) as usize
            } else {
                0
            };
        }
        self.writes.count_from(q, var, p)
    }

    /// The last write of `var` at or before position `p` of sequence `q`.
    pub fn last_write_at(&self, q: u32, var: u32, p: u32) -> Option<u32> {
        self.writes.last_at(q, var, p).map(|p| self.at(q, p))
    }

    /// The *past* frontiers of the static graph (one family of sequences):
    /// per node and slot, the last position of that slot's sequence that
    /// reaches the node, the node itself included (one sweep in topological
    /// order, `4·n·D` bytes). `last_write_at` on it answers "the last write
    /// of `x` on `q` before `r`" with one look-up.
    pub fn past(&self) -> Result<Past, Cycle<L>> {
        let (n, d) = (self.n(), self.slots);
        // positions + 1, so that 0 (zeroed memory) is "none"
        let mut last = vec![0u32; n * d];
        for x in topological(self)? {
            let row = x as usize * d;
            for y in self.static_pred(x) {
                let yr = y as usize * d;
                for s in 0..d {
                    last[row + s] = last[row + s].max(last[yr + s]);
                }
            }
            let q = self.seq[x as usize];
            if q != NONE {
                let at = row + self.seq_slot[q as usize] as usize;
                last[at] = last[at].max(self.pos[x as usize] + 1);
            }
        }
        Ok(Past { d, last })
    }

    /// The sequences holding writes of `var`.
    pub fn seqs_with_writes(&self, var: u32) -> &[u32] {
        self.writes.seqs(var)
    }

    /// The sequences holding reads or writes of `var` (each once, ascending).
    pub fn seqs_with(&self, var: u32) -> Vec<u32> {
        let mut v: Vec<u32> = self.reads.seqs(var).to_vec();
        v.extend_from_slice(self.writes.seqs(var));
        v.sort_unstable();
        v.dedup();
        v
    }

    /// The sequence of node `x` ([`NONE`] if none).
    pub fn seq_of_op(&self, x: u32) -> u32 {
        self.seq[x as usize]
    }

    /// The slot of sequence `q`.
    pub fn slot_of(&self, q: u32) -> usize {
        self.seq_slot[q as usize] as usize
    }

    /// Number of sequences.
    pub fn sequences(&self) -> u32 {
        self.seq_slot.len() as u32
    }

    /// Adds static edges (rebuilding the edge arrays).
    pub fn add_edges(&mut self, extra: &[(u32, u32, L)]) {
        let n = self.n();
        // today's edges by source, then `extra`: streamed twice per array,
        // never gathered in one list (at 10^6 operations it is hundreds of MB)
        let (start, out) = (&self.out_start, &self.out);
        let all = (0..n)
            .flat_map(move |a| {
                let (i, j) = (start[a] as usize, start[a + 1] as usize);
                out[i..j].iter().map(move |&(b, r)| (a as u32, b, r))
            })
            .chain(extra.iter().copied());
        let (in_start, inn) = csr(n, self.chain_rel, all.clone().map(|(a, b, r)| (b, a, r)));
        let (out_start, out) = csr(n, self.chain_rel, all);
        (self.out_start, self.out, self.in_start, self.inn) = (out_start, out, in_start, inn);
    }

    /// `Err(cycle)` if the static graph is cyclic.
    pub fn acyclic(&self) -> Result<(), Cycle<L>> {
        topological(self).map(|_| ())
    }

    /// Whether the static graph together with the successors `extra(x, f)`
    /// gives (calling `f` for each, twice per node) is acyclic: Kahn's
    /// algorithm with the extra edges streamed, never stored, so a caller
    /// with millions of generated edges builds neither a merged graph nor
    /// their list. Only the answer: the cycle, when there is one, comes
    /// from [`ChainGraph::add_edges`] and [`ChainGraph::acyclic`].
    pub fn acyclic_with(&self, extra: &Successors) -> bool {
        let n = self.n();
        let mut indeg = vec![0u32; n];
        for x in 0..n as u32 {
            for (y, _) in self.static_succ(x) {
                indeg[y as usize] += 1;
            }
            extra(x, &mut |y| indeg[y as usize] += 1);
        }
        let mut order: Vec<u32> = (0..n as u32).filter(|&x| indeg[x as usize] == 0).collect();
        let mut head = 0;
        while head < order.len() {
            let x = order[head];
            head += 1;
            let mut free = |y: u32| {
                indeg[y as usize] -= 1;
                if indeg[y as usize] == 0 {
                    order.push(y);
                }
            };
            for (y, _) in self.static_succ(x) {
                free(y);
            }
            extra(x, &mut free);
        }
        order.len() == n
    }

    /// The first of `pairs` `(a, b)` whose `b` reaches `a` over the static
    /// edges (`None`: none, or the static graph is cyclic): reachability
    /// from 64 sources at once, as bit masks carried along a topological
    /// order, O((n + edges) · ⌈pairs / 64⌉).
    pub fn first_reaching(&self, pairs: &[(u32, u32)]) -> Option<usize> {
        let order = topological(self).ok()?;
        let mut mask = vec![0u64; self.n()];
        for (c, chunk) in pairs.chunks(64).enumerate() {
            mask.fill(0);
            for (i, &(_, b)) in chunk.iter().enumerate() {
                mask[b as usize] |= 1 << i;
            }
            for &x in &order {
                let m = mask[x as usize];
                if m != 0 {
                    for (y, _) in self.static_succ(x) {
                        mask[y as usize] |= m;
                    }
                }
            }
            let hit = chunk
                .iter()
                .enumerate()
                .position(|(i, &(a, b))| a != b && mask[a as usize] & (1 << i) != 0);
            if let Some(i) = hit {
                return Some(c * 64 + i);
            }
        }
        None
    }

    /// A shortest path `from ⇝ to` over the static edges alone (breadth
    /// first, no frontiers needed), as labelled edges; `None` if there is
    /// none. O(n) time and space: for a few queries on a graph whose
    /// frontier table is not worth building.
    pub fn static_path(&self, from: u32, to: u32) -> Option<Cycle<L>> {
        let mut parent: Vec<u32> = vec![NONE; self.n()];
        let mut label: Vec<Option<L>> = vec![None; self.n()];
        let mut queue = VecDeque::from([from]);
        parent[from as usize] = from;
        while let Some(x) = queue.pop_front() {
            for (y, r) in self.static_succ(x) {
                if parent[y as usize] != NONE {
                    continue;
                }
                parent[y as usize] = x;
                label[y as usize] = Some(r);
                if y == to {
                    let mut path = Vec::new();
                    let mut z = to;
                    while z != from {
                        let p = parent[z as usize];
                        path.push((p, z, label[z as usize].expect("visited with its edge")));
                        z = p;
                    }
                    path.reverse();
                    return Some(path);
                }
                queue.push_back(y);
            }
        }
        None
    }

    /// Position of `x` in its sequence.
    #[inline]
    pub fn pos(&self, x: u32) -> u32 {
        self.pos[x as usize]
    }

    /// The successors of `x`: the next node of its sequence, then its static edges.
    fn static_succ(&self, x: u32) -> impl Iterator<Item = (u32, L)> + '_ {
        let q = self.seq[x as usize];
        let next = (q != NONE)
            .then(|| {
                let i = self.seq_start[q as usize] + self.pos[x as usize] + 1;
                (i < self.seq_start[q as usize + 1])
                    .then(|| (self.seq_nodes[i as usize], self.chain_rel))
            })
            .flatten();
        let (a, b) = (self.out_start[x as usize], self.out_start[x as usize + 1]);
        next.into_iter()
            .chain(self.out[a as usize..b as usize].iter().copied())
    }

    /// The predecessors of `x`: the previous node of its sequence, then its static edges.
    fn static_pred(&self, x: u32) -> impl Iterator<Item = u32> + '_ {
        let q = self.seq[x as usize];
        let prev = (q != NONE && self.pos[x as usize] > 0).then(|| {
            self.seq_nodes[(self.seq_start[q as usize] + self.pos[x as usize] - 1) as usize]
        });
        let (a, b) = (self.in_start[x as usize], self.in_start[x as usize + 1]);
        prev.into_iter()
            .chain(self.inn[a as usize..b as usize].iter().map(|e| e.0))
    }
}

/// The edges as compressed rows (`fill` pads the array before it is filled).
fn csr<L: Copy>(
    n: usize,
    fill_label: L,
    edges: impl Iterator<Item = (u32, u32, L)> + Clone,
) -> (Vec<u32>, Vec<(u32, L)>) {
    let mut start = vec![0u32; n + 1];
    for (a, _, _) in edges.clone() {
        start[a as usize + 1] += 1;
    }
    for i in 0..n {
        start[i + 1] += start[i];
    }
    let mut fill = start.clone();
    let mut out = vec![(0u32, fill_label); start[n] as usize];
    for (a, b, r) in edges {
        out[fill[a as usize] as usize] = (b, r);
        fill[a as usize] += 1;
    }
    (start, out)
}

/// An edge added after construction.
#[derive(Clone, Copy)]
struct Added<L> {
    from: u32,
    to: u32,
    rel: L,
    next_out: u32,
    next_in: u32,
}

/// A point to undo to.
#[derive(Debug, Clone, Copy)]
pub struct Mark {
    trail: usize,
    added: usize,
}

/// Adding an edge would close a cycle.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WouldCycle;

/// A cycle, as labelled edges `(from, to, rel)`.
pub type Cycle<L> = Vec<(u32, u32, L)>;

/// See [`ChainGraph::past`].
pub struct Past {
    d: usize,
    last: Vec<u32>,
}

impl Past {
    /// The last position of slot `s`'s sequence that reaches `x` (or is `x`).
    #[inline]
    pub fn last(&self, x: u32, s: usize) -> Option<u32> {
        self.last[x as usize * self.d + s].checked_sub(1)
    }
}

/// A stack kept in fixed-size segments: a long trail grows without the
/// copies (and fresh pages) of a doubling vector.
struct Segmented<T> {
    segs: Vec<Vec<T>>,
    len: usize,
}

impl<T> Default for Segmented<T> {
    fn default() -> Self {
        Segmented {
            segs: Vec::new(),
            len: 0,
        }
    }
}

impl<T> Segmented<T> {
    const SEG: usize = 1 << 16;

    fn len(&self) -> usize {
        self.len
    }

    fn push(&mut self, t: T) {
        let i = self.len / Self::SEG;
        if i == self.segs.len() {
            self.segs.push(Vec::with_capacity(Self::SEG));
        }
        self.segs[i].push(t);
        self.len += 1;
    }

    fn pop(&mut self) -> Option<T> {
        if self.len == 0 {
            return None;
        }
        self.len -= 1;
        self.segs[self.len / Self::SEG].pop()
    }

    fn clear(&mut self) {
        self.segs.iter_mut().for_each(Vec::clear);
        self.len = 0;
    }
}

/// A frontier table: each entry a complemented position (`!position`, 0
/// for [`NONE`]), in 16 bits when every position of the graph is below
/// `u16::MAX` (half the memory and half the pages the kernel zeroes), else
/// in 32. Entries cross the interface as `u32` raw values of the same
/// order (a larger raw value is a smaller position).
enum Table {
    Narrow(Vec<u16>),
    Wide(Vec<u32>),
}

impl Table {
    /// The raw entry at `i`.
    #[inline]
    fn get(&self, i: usize) -> u32 {
        match self {
            Table::Narrow(t) => u32::from(t[i]),
            Table::Wide(t) => t[i],
        }
    }

    /// Sets the raw entry at `i` (a raw value of this table).
    #[inline]
    fn set(&mut self, i: usize, raw: u32) {
        match self {
            Table::Narrow(t) => t[i] = raw as u16,
            Table::Wide(t) => t[i] = raw,
        }
    }

    /// The raw entry of a position.
    #[inline]
    fn encode(&self, pos: u32) -> u32 {
        match self {
            Table::Narrow(_) if pos == NONE => 0,
            Table::Narrow(_) => u32::from(!(pos as u16)),
            Table::Wide(_) => !pos,
        }
    }

    /// The position of a raw entry ([`NONE`] for 0).
    #[inline]
    fn decode(&self, raw: u32) -> u32 {
        match self {
            Table::Narrow(_) if raw == 0 => NONE,
            Table::Narrow(_) => u32::from(!(raw as u16)),
            Table::Wide(_) => !raw,
        }
    }

    /// Row `row` takes, slot by slot, the larger entry of itself and row
    /// `from` (frontiers merge as minimum positions), `d` slots a row.
    fn max_row(&mut self, row: usize, from: usize, d: usize) {
        fn max<T: Copy + Ord>(t: &mut [T], row: usize, from: usize, d: usize) {
            // two disjoint rows as slices: no bounds checks in the loop,
            // which compiles to vector maxima
            let (to, from) = if row < from {
                let (lo, hi) = t.split_at_mut(from);
                (&mut lo[row..row + d], &hi[..d])
            } else {
                let (lo, hi) = t.split_at_mut(row);
                (&mut hi[..d], &lo[from..from + d])
            };
            for (a, &b) in to.iter_mut().zip(from) {
                *a = (*a).max(b);
            }
        }
        match self {
            Table::Narrow(t) => max(t, row, from, d),
            Table::Wide(t) => max(t, row, from, d),
        }
    }

    /// Pushes `(slot, raw)` for each slot where row `from`'s entry is
    /// larger than row `row`'s.
    fn above(&self, from: usize, row: usize, d: usize, out: &mut Vec<(u32, u32)>) {
        fn above<T: Copy + Ord + Into<u32>>(
            t: &[T],
            from: usize,
            row: usize,
            d: usize,
            out: &mut Vec<(u32, u32)>,
        ) {
            // a block at a time: most blocks have no larger entry, and
            // that test compiles to vector comparisons
            const BLOCK: usize = 32;
            let (a, b) = (&t[from..from + d], &t[row..row + d]);
            for (k, (a, b)) in a.chunks(BLOCK).zip(b.chunks(BLOCK)).enumerate() {
                if a.iter().zip(b).fold(false, |any, (x, y)| any | (x > y)) {
                    for (i, (&x, &y)) in a.iter().zip(b).enumerate() {
                        if x > y {
                            out.push(((k * BLOCK + i) as u32, x.into()));
                        }
                    }
                }
            }
        }
        match self {
            Table::Narrow(t) => above(t, from, row, d, out),
            Table::Wide(t) => above(t, from, row, d, out),
        }
    }
}

/// The reachability of a [`ChainGraph`] plus added edges, kept as `succ`
/// frontiers under insertion.
pub struct Frontier<L> {
    g: ChainGraph<L>,
    /// The frontiers, each stored complemented (`!position`): [`NONE`] is 0,
    /// so the table starts as zeroed memory and a smaller position is a
    /// larger entry. Two bytes an entry when every position fits.
    succ: Table,
    added: Vec<Added<L>>,
    out_head: Vec<u32>,
    in_head: Vec<u32>,
    trail: Segmented<(u32, u32)>,
    keep_trail: bool,
    delta: Vec<(u32, u32)>,
    stack: Vec<(u32, u32, u32)>,
    /// Frontier entries lowered so far (the work measure).
    pub drops: u64,
}

impl<L: Copy> Frontier<L> {
    /// Computes the frontiers of the static graph (one sweep in reverse
    /// topological order), or returns a cycle of it.
    pub fn new(g: ChainGraph<L>) -> Result<Frontier<L>, Cycle<L>> {
        // (a node in no sequence has position NONE, and needs no entry)
        let narrow = g.pos.iter().all(|&p| p == NONE || p < u32::from(u16::MAX));
        Frontier::with_table(g, narrow)
    }

    /// [`Frontier::new`] with 16-bit entries if `narrow` (every position
    /// must then be below `u16::MAX`), else 32-bit ones.
    fn with_table(g: ChainGraph<L>, narrow: bool) -> Result<Frontier<L>, Cycle<L>> {
        let n = g.n();
        let d = g.slots;
        let order = topological(&g)?;
        let mut succ = if narrow {
            Table::Narrow(vec![0; n * d])
        } else {
            Table::Wide(vec![0; n * d])
        };
        for &x in order.iter().rev() {
            let q = g.seq[x as usize];
            let row = x as usize * d;
            if q != NONE {
                let at = row + g.seq_slot[q as usize] as usize;
                succ.set(at, succ.encode(g.pos[x as usize]));
            }
            for (y, _) in g.static_succ(x) {
                succ.max_row(row, y as usize * d, d);
            }
        }
        Ok(Frontier {
            succ,
            added: Vec::new(),
            out_head: vec![NONE; n],
            in_head: vec![NONE; n],
            trail: Segmented::default(),
            keep_trail: false,
            delta: Vec::new(),
            stack: Vec::new(),
            drops: 0,
            g,
        })
    }

    /// The graph.
    pub fn graph(&self) -> &ChainGraph<L> {
        &self.g
    }

    /// Gives the graph back (dropping the frontiers).
    pub fn into_graph(self) -> ChainGraph<L> {
        self.g
    }

    /// The frontier of `x` in slot `s`: the first position of sequence
    /// `seq_of_slot(x, s)` that `x` reaches ([`NONE`] if none).
    #[inline]
    pub fn frontier(&self, x: u32, s: usize) -> u32 {
        self.succ
            .decode(self.succ.get(x as usize * self.g.slots + s))
    }

    /// Whether `a` reaches `b` (strictly). Both must be of one family (same
    /// variable in a per-variable graph).
    #[inline]
    pub fn reaches(&self, a: u32, b: u32) -> bool {
        let q = self.g.seq[b as usize];
        if a == b || q == NONE {
            return false;
        }
        let s = self.g.seq_slot[q as usize] as usize;
        debug_assert_eq!(self.g.seq_of_slot(a, s), q, "reachability across families");
        self.succ
            .decode(self.succ.get(a as usize * self.g.slots + s))
            <= self.g.pos[b as usize]
    }

    /// Record a trail from now on (for [`Frontier::undo`]).
    pub fn set_trail(&mut self, on: bool) {
        self.keep_trail = on;
        if !on {
            self.trail.clear();
        }
    }

    /// The current point, to undo to.
    pub fn mark(&self) -> Mark {
        Mark {
            trail: self.trail.len(),
            added: self.added.len(),
        }
    }

    /// Undoes every insertion since `m` (the trail must have been on).
    pub fn undo(&mut self, m: Mark) {
        while self.trail.len() > m.trail {
            let (i, old) = self.trail.pop().expect("longer than the mark");
            self.succ.set(i as usize, old);
        }
        while self.added.len() > m.added {
            let e = self.added.pop().expect("longer than the mark");
            self.out_head[e.from as usize] = e.next_out;
            self.in_head[e.to as usize] = e.next_in;
        }
    }

    /// Adds every edge of `edges` labelled `rel`: the same frontiers as
    /// [`Frontier::insert`] one edge at a time, which this does for a few
    /// edges; for many (one per [`REBUILD_PER`] nodes or more) and no
    /// inserted edge alive, the static graph takes them and one sweep
    /// rebuilds the frontiers (wCCM at 10⁶ operations: 520,000 rule-2
    /// edges in 0.52 s one at a time, about 0.15 s rebuilt). `Err`: a
    /// cycle they close (the first one met, or one of the rebuilt graph).
    pub fn insert_all(mut self, edges: &[(u32, u32)], rel: L) -> Result<Frontier<L>, Cycle<L>> {
        if self.added.is_empty() && edges.len() * REBUILD_PER >= self.g.n() {
            let narrow = matches!(self.succ, Table::Narrow(_));
            let mut g = self.into_graph();
            let extra: Vec<(u32, u32, L)> = edges.iter().map(|&(a, b)| (a, b, rel)).collect();
            g.add_edges(&extra);
            return Frontier::with_table(g, narrow);
        }
        for &(a, b) in edges {
            if self.insert(a, b, rel, |_, _, _, _| {}).is_err() {
                return Err(self.cycle_through(a, b, rel).expect("b reaches a"));
            }
        }
        Ok(self)
    }

    /// Adds `a -rel-> b`. `Err` if `b` reaches `a` (nothing changes);
    /// `Ok(false)` if `a` already reaches `b`. Every lowered frontier entry
    /// is reported as `on_drop(x, slot, new, old)`.
    pub fn insert(
        &mut self,
        a: u32,
        b: u32,
        rel: L,
        mut on_drop: impl FnMut(u32, usize, u32, u32),
    ) -> Result<bool, WouldCycle> {
        // an existing path first: most insertions during saturation are
        // already implied, and an acyclic graph cannot also have `b ⇝ a`
        if a != b && self.reaches(a, b) {
            return Ok(false);
        }
        if a == b || self.reaches(b, a) {
            return Err(WouldCycle);
        }
        self.added.push(Added {
            from: a,
            to: b,
            rel,
            next_out: self.out_head[a as usize],
            next_in: self.in_head[b as usize],
        });
        let e = (self.added.len() - 1) as u32;
        self.out_head[a as usize] = e;
        self.in_head[b as usize] = e;
        let d = self.g.slots;
        // Only the slots where `b`'s frontier is below `a`'s can drop, and
        // along any path back from `a` the dropping slots only shrink (a
        // predecessor's frontier is at most its successor's): each visited
        // node tests just the slots that dropped at the node it was reached
        // from (an arena of `(slot, value)` runs, one per changed node).
        self.delta.clear();
        let (ar, br) = (a as usize * d, b as usize * d);
        self.succ.above(br, ar, d, &mut self.delta);
        self.stack.clear();
        self.stack.push((a, 0, self.delta.len() as u32));
        while let Some((x, from, to)) = self.stack.pop() {
            let row = x as usize * d;
            let run = self.delta.len() as u32;
            for i in from as usize..to as usize {
                let (s, v) = self.delta[i];
                let at = row + s as usize;
                let old = self.succ.get(at);
                if v > old {
                    if self.keep_trail {
                        self.trail.push((at as u32, old));
                    }
                    self.succ.set(at, v);
                    self.drops += 1;
                    self.delta.push((s, v));
                    on_drop(x, s as usize, self.succ.decode(v), self.succ.decode(old));
                }
            }
            let end = self.delta.len() as u32;
            if end > run {
                for p in self.g.static_pred(x) {
                    self.stack.push((p, run, end));
                }
                let mut e = self.in_head[x as usize];
                while e != NONE {
                    self.stack.push((self.added[e as usize].from, run, end));
                    e = self.added[e as usize].next_in;
                }
            }
        }
        Ok(true)
    }

    /// Every successor of `x`: sequence, static and added edges.
    fn succ_edges(&self, x: u32, mut f: impl FnMut(u32, L)) {
        for (y, r) in self.g.static_succ(x) {
            f(y, r);
        }
        let mut e = self.out_head[x as usize];
        while e != NONE {
            let a = &self.added[e as usize];
            f(a.to, a.rel);
            e = a.next_out;
        }
    }

    /// A shortest path `from ⇝ to` (breadth first, only through nodes that
    /// reach `to`), as labelled edges; `None` if `from` does not reach `to`.
    pub fn path(&self, from: u32, to: u32) -> Option<Cycle<L>> {
        if !self.reaches(from, to) {
            return None;
        }
        let mut parent: HashMap<u32, (u32, L), BuildMix> = HashMap::with_hasher(BuildMix);
        let mut queue = VecDeque::from([from]);
        parent.insert(from, (NONE, self.g.chain_rel));
        while let Some(x) = queue.pop_front() {
            let mut found = false;
            self.succ_edges(x, |y, r| {
                if found || parent.contains_key(&y) {
                    return;
                }
                if y == to || self.reaches(y, to) {
                    parent.insert(y, (x, r));
                    if y == to {
                        found = true;
                    } else {
                        queue.push_back(y);
                    }
                }
            });
            if found {
                let mut path = Vec::new();
                let mut y = to;
                while y != from {
                    let (x, r) = parent[&y];
                    path.push((x, y, r));
                    y = x;
                }
                path.reverse();
                return Some(path);
            }
        }
        None
    }

    /// Edges added so far (an added edge's number is its index: the order
    /// of insertion).
    pub fn added_len(&self) -> u32 {
        self.added.len() as u32
    }

    /// The number of the added edge `a -> b`, if there is one.
    pub fn added_index(&self, a: u32, b: u32) -> Option<u32> {
        let mut e = self.out_head[a as usize];
        while e != NONE {
            let x = &self.added[e as usize];
            if x.to == b {
                return Some(e);
            }
            e = x.next_out;
        }
        None
    }

    /// A shortest path `from ⇝ to` over the static edges and the added
    /// edges numbered below `limit` only (the graph as it was before edge
    /// `limit` was added), as labelled edges with, for each, its added
    /// edge's number ([`NONE`] for a static edge). Only nodes that reach
    /// `to` now are searched: reachability then was no larger.
    pub fn path_within(&self, from: u32, to: u32, limit: u32) -> Option<Vec<(u32, u32, L, u32)>> {
        if !self.reaches(from, to) {
            return None;
        }
        let mut parent: HashMap<u32, (u32, L, u32), BuildMix> = HashMap::with_hasher(BuildMix);
        let mut queue = VecDeque::from([from]);
        parent.insert(from, (NONE, self.g.chain_rel, NONE));
        while let Some(x) = queue.pop_front() {
            let mut found = false;
            let mut visit = |y: u32, r: L, e: u32| {
                if found || parent.contains_key(&y) {
                    return;
                }
                if y == to || self.reaches(y, to) {
                    parent.insert(y, (x, r, e));
                    if y == to {
                        found = true;
                    } else {
                        queue.push_back(y);
                    }
                }
            };
            for (y, r) in self.g.static_succ(x) {
                visit(y, r, NONE);
            }
            let mut e = self.out_head[x as usize];
            while e != NONE {
                let a = &self.added[e as usize];
                if e < limit {
                    visit(a.to, a.rel, e);
                }
                e = a.next_out;
            }
            if found {
                let mut path = Vec::new();
                let mut y = to;
                while y != from {
                    let (x, r, e) = parent[&y];
                    path.push((x, y, r, e));
                    y = x;
                }
                path.reverse();
                return Some(path);
            }
        }
        None
    }

    /// The cycle closed by adding `a -rel-> b` when `b` reaches `a`.
    pub fn cycle_through(&self, a: u32, b: u32, rel: L) -> Option<Cycle<L>> {
        let mut c = vec![(a, b, rel)];
        c.extend(self.path(b, a)?);
        Some(c)
    }

    /// A linear extension of the graph with its added edges; ties go to the
    /// smallest `key` (e.g. issue time), so the order follows the run.
    pub fn linear_extension(&self, key: impl Fn(u32) -> u64) -> Vec<u32> {
        let n = self.g.n();
        let mut indeg = vec![0u32; n];
        for x in 0..n as u32 {
            self.succ_edges(x, |y, _| indeg[y as usize] += 1);
        }
        let mut heap: std::collections::BinaryHeap<std::cmp::Reverse<(u64, u32)>> = (0..n as u32)
            .filter(|&x| indeg[x as usize] == 0)
            .map(|x| std::cmp::Reverse((key(x), x)))
            .collect();
        let mut order = Vec::with_capacity(n);
        while let Some(std::cmp::Reverse((_, x))) = heap.pop() {
            order.push(x);
            self.succ_edges(x, |y, _| {
                indeg[y as usize] -= 1;
                if indeg[y as usize] == 0 {
                    heap.push(std::cmp::Reverse((key(y), y)));
                }
            });
        }
        debug_assert_eq!(order.len(), n, "the graph is acyclic");
        order
    }
}

/// A topological order of the static graph (Kahn), or one of its cycles.
fn topological<L: Copy>(g: &ChainGraph<L>) -> Result<Vec<u32>, Cycle<L>> {
    let n = g.n();
    let mut indeg = vec![0u32; n];
    for x in 0..n as u32 {
        for (y, _) in g.static_succ(x) {
            indeg[y as usize] += 1;
        }
    }
    let mut order: Vec<u32> = (0..n as u32).filter(|&x| indeg[x as usize] == 0).collect();
    let mut head = 0;
    while head < order.len() {
        let x = order[head];
        head += 1;
        for (y, _) in g.static_succ(x) {
            indeg[y as usize] -= 1;
            if indeg[y as usize] == 0 {
                order.push(y);
            }
        }
    }
    if order.len() == n {
        return Ok(order);
    }
    // Walk back through nodes left over (each has a left-over predecessor)
    // until one repeats: it lies on a cycle; then a shortest cycle through it.
    let left = |x: u32| indeg[x as usize] > 0;
    let mut x = (0..n as u32).find(|&x| left(x)).expect("some node is left");
    let mut seen = std::collections::HashSet::new();
    while seen.insert(x) {
        x = g
            .static_pred(x)
            .find(|&p| left(p))
            .expect("a left-over node has a left-over predecessor");
    }
    let mut parent: HashMap<u32, (u32, L), BuildMix> = HashMap::with_hasher(BuildMix);
    let mut queue = VecDeque::from([x]);
    while let Some(y) = queue.pop_front() {
        for (z, r) in g.static_succ(y) {
            if !left(z) || parent.contains_key(&z) {
                continue;
            }
            parent.insert(z, (y, r));
            if z == x {
                let mut c = Vec::new();
                let mut w = x;
                loop {
                    let (p, r) = parent[&w];
                    c.push((p, w, r));
                    w = p;
                    if w == x {
                        break;
                    }
                }
                c.reverse();
                return Err(c);
            }
            queue.push_back(z);
        }
    }
    unreachable!("a node on a cycle reaches itself")
}

/// Extra successors of a node, given to a callback: `extra(x, f)` calls
/// `f(y)` for each ([`ChainGraph::acyclic_with`]).
pub type Successors<'a> = dyn Fn(u32, &mut dyn FnMut(u32)) + 'a;

/// [`Frontier::insert_all`] rebuilds from one edge per this many nodes.
pub const REBUILD_PER: usize = 8;

#[cfg(test)]
mod tests {
    use super::*;

    /// Acyclicity with the extra edges streamed answers as with them built
    /// into the graph.
    #[test]
    fn streamed_edges_decide_acyclicity_as_built_ones() {
        let mut next = draws(0xbb67_ae85_84ca_a73b);
        let (mut cyclic, rounds) = (0, 300);
        for _ in 0..rounds {
            let (k, len) = (1 + next(4) as u32, 1 + next(20) as u32);
            let layout = chains_layout(k, len, next(15) as usize, &mut next);
            let n = layout.n as u64;
            let extra: Vec<(u32, u32, u8)> = (0..next(6))
                .map(|_| (next(n) as u32, next(n) as u32, 3))
                .filter(|&(a, b, _)| a != b)
                .collect();
            let mut built = ChainGraph::new(layout);
            let streamed = built.acyclic_with(&|x, f| {
                for &(a, b, _) in &extra {
                    if a == x {
                        f(b);
                    }
                }
            });
            built.add_edges(&extra);
            assert_eq!(streamed, built.acyclic().is_ok());
            cyclic += usize::from(!streamed);
        }
        assert!(
            cyclic > 0 && cyclic < rounds,
            "both outcomes sampled: {cyclic}"
        );
    }

    /// Reachability of many sources at once, by bit masks, and the static
    /// breadth-first path answer as the frontiers do: the first pair whose
    /// `b` reaches `a`, and a path as short as theirs.
    #[test]
    fn static_reachability_answers_as_the_frontiers() {
        let mut next = draws(0x3c6e_f372_fe94_f82b);
        let (mut found, mut rounds) = (0, 0);
        while rounds < 300 {
            let (k, len) = (1 + next(4) as u32, 1 + next(25) as u32);
            let layout = chains_layout(k, len, next(20) as usize, &mut next);
            let n = layout.n as u64;
            let Ok(f) = Frontier::new(ChainGraph::new(layout)) else {
                continue;
            };
            rounds += 1;
            // more than 64 pairs at times: a second round of masks
            let m = if next(2) == 0 {
                1 + next(3)
            } else {
                1 + next(150)
            };
            let pairs: Vec<(u32, u32)> = (0..m).map(|_| (next(n) as u32, next(n) as u32)).collect();
            let expected = pairs.iter().position(|&(a, b)| f.reaches(b, a));
            assert_eq!(f.graph().first_reaching(&pairs), expected);
            // a hit after every miss: found in whichever round of 64 it is
            if let Some(i) = expected {
                let mut late: Vec<(u32, u32)> = pairs
                    .iter()
                    .copied()
                    .filter(|&(a, b)| !f.reaches(b, a))
                    .cycle()
                    .take(64 + next(100) as usize)
                    .collect();
                late.push(pairs[i]);
                assert_eq!(f.graph().first_reaching(&late), Some(late.len() - 1));
            }
            for &(a, b) in &pairs {
                let path = f.graph().static_path(b, a);
                assert_eq!(path.is_some(), f.reaches(b, a));
                if let Some(path) = path {
                    assert_eq!(path.first().unwrap().0, b);
                    assert_eq!(path.last().unwrap().1, a);
                    for w in path.windows(2) {
                        assert_eq!(w[0].1, w[1].0);
                    }
                    assert_eq!(Some(path.len()), f.path(b, a).map(|p| p.len()));
                }
            }
            found += usize::from(expected.is_some());
        }
        assert!(found > 30 && found < 270, "both outcomes sampled: {found}");
    }

    /// Many edges at once, rebuilt, give the frontiers (or the refusal of a
    /// cycle) of the same edges inserted one at a time.
    #[test]
    fn edges_rebuilt_or_inserted_give_the_same_frontiers() {
        let mut next = draws(0x6a09_e667_f3bc_c908);
        let mut cyclic = 0;
        for round in 0..200 {
            let (k, len) = (1 + next(4) as u32, 2 + next(30) as u32);
            let layout = chains_layout(k, len, next(20) as usize, &mut next);
            let n = layout.n as u64;
            let again = layout.clone();
            // enough edges to take the rebuild (at least n / REBUILD_PER)
            let m = (n as usize).div_ceil(REBUILD_PER) + next(n) as usize;
            let edges: Vec<(u32, u32)> = (0..m)
                .map(|_| (next(n) as u32, next(n) as u32))
                .filter(|&(a, b)| a != b)
                .collect();
            if edges.len() * REBUILD_PER < n as usize {
                continue;
            }
            let rebuilt = Frontier::new(ChainGraph::new(layout))
                .unwrap()
                .insert_all(&edges, 2);
            let mut one = Frontier::new(ChainGraph::new(again)).unwrap();
            let mut refused = false;
            for &(a, b) in &edges {
                if one.insert(a, b, 2, |_, _, _, _| {}).is_err() {
                    refused = true;
                    break;
                }
            }
            match rebuilt {
                Err(cycle) => {
                    assert!(
                        refused,
                        "round {round}: a cycle the insertions did not meet"
                    );
                    cyclic += 1;
                    // a cycle of the graph with the edges
                    for w in cycle.windows(2) {
                        assert_eq!(w[0].1, w[1].0, "round {round}");
                    }
                    assert_eq!(cycle.first().unwrap().0, cycle.last().unwrap().1);
                }
                Ok(f) => {
                    assert!(!refused, "round {round}: the insertions met a cycle");
                    for x in 0..n as u32 {
                        for s in 0..k as usize {
                            assert_eq!(f.frontier(x, s), one.frontier(x, s), "round {round}");
                        }
                    }
                }
            }
        }
        assert!(
            cyclic > 0 && cyclic < 200,
            "both outcomes sampled: {cyclic}"
        );
    }

    /// The project's generator ([`crate::gen::Rng`]) from `seed`: `next(m)` is in `0..m`.
    fn draws(seed: u64) -> impl FnMut(u64) -> u64 {
        let mut rng = crate::gen::Rng::new(seed);
        move |m| rng.next_u64() % m
    }

    /// `k` chains of nodes (node ids ascending along each), each node's
    /// slots the `k` chains, and `extra` random forward static edges.
    fn chains_layout(
        k: u32,
        len: u32,
        extra: usize,
        next: &mut impl FnMut(u64) -> u64,
    ) -> Layout<u8> {
        let n = (k * len) as usize;
        let seqs = (0..k)
            .map(|q| (q, (0..len).map(|p| p * k + q).collect()))
            .collect();
        let edges = (0..extra)
            .filter_map(|_| {
                let (a, b) = (next(n as u64) as u32, next(n as u64) as u32);
                (a < b).then_some((a, b, 1u8))
            })
            .collect();
        Layout {
            n,
            slots: k as usize,
            seqs,
            base: vec![0; n],
            chain_rel: 0,
            edges,
            access: vec![None; n],
        }
    }

    /// The 16-bit table answers as the 32-bit one: every frontier after
    /// each of many random insertions (cycles refused alike), the lowered
    /// entries reported, and undo back to a mark.
    #[test]
    fn narrow_and_wide_frontiers_agree() {
        let mut next = draws(0x9e37_79b9_7f4a_7c15);
        for round in 0..40 {
            let (k, len) = (1 + next(5) as u32, 1 + next(60) as u32);
            let extra = next(40) as usize;
            let layout = chains_layout(k, len, extra, &mut next);
            let again = layout.clone();
            let mut narrow = Frontier::with_table(ChainGraph::new(layout), true).unwrap();
            let mut wide = Frontier::with_table(ChainGraph::new(again), false).unwrap();
            assert!(matches!(narrow.succ, Table::Narrow(_)));
            let n = narrow.graph().n() as u64;
            let same = |a: &Frontier<u8>, b: &Frontier<u8>| {
                for x in 0..n as u32 {
                    for s in 0..k as usize {
                        assert_eq!(a.frontier(x, s), b.frontier(x, s), "round {round}");
                    }
                }
            };
            narrow.set_trail(true);
            wide.set_trail(true);
            let mark = (narrow.mark(), wide.mark());
            let before: Vec<u32> = (0..n as u32).map(|x| narrow.frontier(x, 0)).collect();
            for _ in 0..30 {
                let (a, b) = (next(n) as u32, next(n) as u32);
                let (mut dn, mut dw) = (Vec::new(), Vec::new());
                let rn = narrow.insert(a, b, 2, |x, s, new, old| dn.push((x, s, new, old)));
                let rw = wide.insert(a, b, 2, |x, s, new, old| dw.push((x, s, new, old)));
                assert_eq!(rn.is_ok(), rw.is_ok());
                assert_eq!(rn.ok(), rw.ok());
                assert_eq!(dn, dw);
                same(&narrow, &wide);
            }
            narrow.undo(mark.0);
            wide.undo(mark.1);
            same(&narrow, &wide);
            let after: Vec<u32> = (0..n as u32).map(|x| narrow.frontier(x, 0)).collect();
            assert_eq!(before, after);
        }
    }

    /// A sequence longer than `u16::MAX` positions gets the 32-bit table,
    /// and its far positions are exact; a short one gets the 16-bit table.
    #[test]
    fn a_long_sequence_takes_the_wide_table() {
        let len = u32::from(u16::MAX) + 10;
        let mut nothing = |_: u64| 0;
        let f = Frontier::new(ChainGraph::new(chains_layout(1, len, 0, &mut nothing))).unwrap();
        assert!(matches!(f.succ, Table::Wide(_)));
        // a node's frontier on its own sequence is its own position
        assert_eq!(f.frontier(len - 1, 0), len - 1);
        assert_eq!(f.frontier(0, 0), 0);
        assert!(f.reaches(0, len - 1) && !f.reaches(len - 1, 0));
        let short = Frontier::new(ChainGraph::new(chains_layout(1, 100, 0, &mut nothing))).unwrap();
        assert!(matches!(short.succ, Table::Narrow(_)));
        assert_eq!(short.frontier(99, 0), 99);
        assert!(short.reaches(0, 99) && !short.reaches(99, 0));
    }

    /// The graph's rule-site queries against a scan of the sequence, on
    /// sequences of mixed accesses, of writes of one variable only (where
    /// the queries skip the index), of fences, and empty ones.
    #[test]
    fn rule_site_queries_match_a_scan() {
        let mut next = draws(0x9e37_79b9_7f4a_7c15);
        for _ in 0..300 {
            let (k, len, vars) = (1 + next(5) as u32, next(40) as u32, 1 + next(3) as u32);
            let mut l = chains_layout(k, len, 0, &mut next);
            for q in 0..k {
                let shape = next(4);
                for p in 0..len {
                    let x = (p * k + q) as usize;
                    l.access[x] = match shape {
                        // one variable's writes only
                        0 => Some((q % vars, false)),
                        // fences only
                        1 => None,
                        _ => (next(4) > 0).then(|| (next(vars as u64) as u32, next(2) == 0)),
                    };
                }
            }
            let access = l.access.clone();
            let g = ChainGraph::new(l);
            for q in 0..k {
                let at = |p: u32| (p * k + q) as usize;
                for v in 0..vars + 1 {
                    let is = |p: u32, read: bool| access[at(p)] == Some((v, read));
                    for p in 0..len + 2 {
                        let from = p..len;
                        let node = |p: Option<u32>| p.map(|p| at(p) as u32);
                        assert_eq!(
                            g.first_read(q, v, p),
                            node(from.clone().find(|&e| is(e, true)))
                        );
                        assert_eq!(
                            g.first_write(q, v, p),
                            node(from.clone().find(|&e| is(e, false)))
                        );
                        assert_eq!(
                            g.writes_from(q, v, p),
                            from.filter(|&e| is(e, false)).count()
                        );
                        assert_eq!(
                            g.last_write_at(q, v, p),
                            node((0..len.min(p + 1)).rfind(|&e| is(e, false)))
                        );
                    }
                }
            }
        }
    }

    /// Queries from cursors answer as the index does, whatever the order of
    /// the queries (runs forward, back, jumps), with the directory a table
    /// or (many variables, few entries) a hash map.
    #[test]
    fn near_queries_match_the_index() {
        let mut next = draws(0x5851_f42d_4c95_7f2d);
        for round in 0..300 {
            let vars = if round % 4 == 0 {
                1000 + next(2000) as u32
            } else {
                1 + next(3) as u32
            };
            let (k, len) = (1 + next(5) as u32, next(200) as u32);
            // four variables: with many, ids far apart (a hash directory)
            let var = |i: u64| [0, 1, vars / 2, vars - 1][i as usize].min(vars - 1);
            let mut l = chains_layout(k, len, 0, &mut next);
            for q in 0..k {
                let only_writes = next(4) == 0;
                for p in 0..len {
                    let x = (p * k + q) as usize;
                    l.access[x] = if only_writes {
                        Some((var(q as u64 % 4), false))
                    } else {
                        (next(4) > 0).then(|| (var(next(4)), next(2) == 0))
                    };
                }
            }
            let g = ChainGraph::new(l);
            let mut c = g.cursors();
            let mut p = 0u32;
            for _ in 0..400 {
                let (q, v) = (next(k as u64) as u32, var(next(4)));
                p = match next(4) {
                    0 => next(len as u64 + 2) as u32,
                    1 => p.saturating_sub(next(12) as u32),
                    _ => p + next(12) as u32,
                }
                .min(len + 1);
                assert_eq!(g.first_read_near(q, v, p, &mut c), g.first_read(q, v, p));
                assert_eq!(g.first_write_near(q, v, p, &mut c), g.first_write(q, v, p));
            }
        }
    }

    /// `first`, `last_at` and `count_from` (with skips on long runs) against
    /// a scan of the entries.
    #[test]
    fn seq_index_look_ups_match_a_scan() {
        let mut next = draws(0x2545_f491_4f6c_dd1d);
        for _ in 0..200 {
            let (seqs, vars, len) = (1 + next(3) as u32, 1 + next(4) as u32, 1 + next(600) as u32);
            let mut items = Vec::new();
            for q in 0..seqs {
                for p in 0..len {
                    if next(3) > 0 {
                        items.push((q, next(vars as u64) as u32, p));
                    }
                }
            }
            let index = SeqIndex::new(items.clone());
            for q in 0..seqs {
                for v in 0..vars + 1 {
                    let ps: Vec<u32> = items
                        .iter()
                        .filter(|i| i.0 == q && i.1 == v)
                        .map(|i| i.2)
                        .collect();
                    for p in 0..len + 2 {
                        assert_eq!(index.first(q, v, p), ps.iter().copied().find(|&e| e >= p));
                        assert_eq!(
                            index.last_at(q, v, p),
                            ps.iter().copied().rfind(|&e| e <= p)
                        );
                        assert_eq!(
                            index.count_from(q, v, p),
                            ps.iter().filter(|&&e| e >= p).count()
                        );
                    }
                }
            }
        }
    }
}
