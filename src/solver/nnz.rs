//! The nonzero counts MuJoCo 4.0.0 reports for its solvers: `solver_nnz[island]` and `nA`
//! (API Reference "mjData": "number of nonzeros in Hessian or efc_AR" and "number of non-zeros in
//! constraint inverse inertia matrix"). They describe the matrix each solver works on, so they
//! follow the dense/sparse choice of `efc_J` (`mj_isSparse`: the `jacobian` option, or nv ≥ 60
//! under `auto`). The rules were measured on MuJoCo 4.0.0 over models with islands, tendons,
//! equality constraints, noslip and simple bodies, under every solver and `jacobian` option:
//! - PGS works on the dual matrix AR = J M⁻¹ Jᵀ + R: [`ar_nnz`].
//! - CG works on J: its nonzeros, `nefc · nv` when dense.
//! - Newton works on the Hessian H = M + Jᵀ D J: `nv²` when dense. Sparse, it counts M's lower
//!   triangle in MuJoCo's sparse layout (`M_rownnz`: a dof of a [`simple_body`] holds only its
//!   diagonal, any other dof its ancestors too), the lower triangle of H's factor (the pattern
//!   of M ∪ Σ_rows J_iᵀJ_i over every row whatever its state, with the fill of eliminating the
//!   last dof first, as [`crate::solver::hsparse`]) and the lower triangle of Σ_rows J_iᵀJ_i.
//!   A Newton solve that stops before its first iteration has not formed H: it reports J's
//!   nonzeros, as CG (the noslip pass after it does not change the count).

use crate::data::scratch::NnzScratch;
use crate::data::{Data, Deferred, SolverNnz, NISLAND};
use crate::math::Scalar;
use crate::model::{Model, SolverType};
use crate::simple::simple_body;

/// A solve's `solver_nnz` entry: known at once, or the sparse Newton count left for the reader
/// (the pattern of Σ J_iᵀJ_i over its dofs is in the work space's `dofs` and `jbits`).
pub enum Count {
    Known(usize),
    Deferred,
}

/// `solver_nnz` of the solve over `dofs` and `rows` (an island's, or every dof and row with
/// islands off) after `niter` iterations of the selected solver (without the noslip pass's).
/// The sparse Newton count is left for the reader ([`Count::Deferred`]): only its Σ J_iᵀJ_i
/// pattern, which needs the rows, is formed here (into `w.dofs`, `w.jbits`); the factor's fill,
/// the costly part, is formed when the count is read ([`SolverNnz::get`]).
/// Allocates nothing once `w` has grown to the problem's size.
pub fn solver_nnz<T: Scalar>(
    m: &Model,
    d: &Data<T>,
    dofs: &[usize],
    rows: &[usize],
    niter: usize,
    w: &mut NnzScratch,
) -> Count {
    let (nv, nefc) = (dofs.len(), rows.len());
    let j_nnz = || {
        if d.efc_J_sparse {
            rows.iter().map(|&r| d.efc_J_rownnz[r]).sum()
        } else {
            nefc * nv
        }
    };
    Count::Known(match m.opt.solver {
        SolverType::Pgs => ar_nnz(m, d, rows, w),
        SolverType::Cg => j_nnz(),
        SolverType::Newton if niter == 0 => j_nnz(),
        SolverType::Newton if !d.efc_J_sparse => nv * nv,
        SolverType::Newton => {
            jtj_pattern(m, d, dofs, rows, w);
            return Count::Deferred;
        }
    })
}

impl SolverNnz {
    /// Every count, the deferred ones formed now (with a work space of their own).
    pub fn get(&self, m: &Model) -> [usize; NISLAND] {
        let mut w = NnzScratch::default();
        std::array::from_fn(|k| self.count(m, k, &mut w))
    }

    /// Island `k`'s count.
    fn count(&self, m: &Model, k: usize, w: &mut NnzScratch) -> usize {
        match self.deferred[k] {
            None => self.known[k],
            Some(p) => {
                let words = p.n.div_ceil(64).max(1);
                w.dofs.clear();
                w.dofs.extend_from_slice(&self.dofs[p.dof..p.dof + p.n]);
                w.jbits.clear();
                w.jbits
                    .extend_from_slice(&self.jbits[p.bits..p.bits + p.n * words]);
                fill_count(m, w)
            }
        }
    }

    /// Sets every count (no deferred one).
    pub fn set(&mut self, v: [usize; NISLAND]) {
        self.known = v;
        self.deferred = [None; NISLAND];
        self.dofs.clear();
        self.jbits.clear();
    }

    /// Before a solve that writes islands `0..written`: the deferred counts of the islands it
    /// leaves as they were are formed now (their inputs would be overwritten), and the pools
    /// are emptied for the new ones.
    pub(crate) fn begin(&mut self, m: &Model, written: usize, w: &mut NnzScratch) {
        if self.dofs.is_empty() {
            // nothing deferred: a deferred count keeps its island's dofs (at least one) here
            return;
        }
        for k in written..NISLAND {
            if self.deferred[k].is_some() {
                self.known[k] = self.count(m, k, w);
                self.deferred[k] = None;
            }
        }
        self.deferred = [None; NISLAND];
        self.dofs.clear();
        self.jbits.clear();
    }

    /// Island `k`'s count from its solve; a deferred one's inputs are copied out of `w`.
    pub(crate) fn put(&mut self, k: usize, c: Count, w: &NnzScratch) {
        match c {
            Count::Known(v) => {
                self.known[k] = v;
                self.deferred[k] = None;
            }
            Count::Deferred => {
                self.known[k] = 0;
                self.deferred[k] = Some(Deferred {
                    dof: self.dofs.len(),
                    n: w.dofs.len(),
                    bits: self.jbits.len(),
                });
                self.dofs.extend_from_slice(&w.dofs);
                self.jbits.extend_from_slice(&w.jbits);
            }
        }
    }
}

/// Sets bit `col` of bit row `row` (rows of `words` words).
fn set(bits: &mut [u64], words: usize, row: usize, col: usize) {
    bits[row * words + col / 64] |= 1 << (col % 64);
}

/// ORs the bits of `src` at columns `0..=a` into the bit row `dst`.
#[inline]
fn or_up_to(dst: &mut [u64], src: &[u64], a: usize) {
    for c in 0..=a / 64 {
        let mask = if c < a / 64 {
            u64::MAX
        } else {
            u64::MAX >> (63 - a % 64)
        };
        dst[c] |= src[c] & mask;
    }
}

/// Number of set bits.
fn count(bits: &[u64]) -> usize {
    bits.iter().map(|w| w.count_ones() as usize).sum()
}

/// Nonzeros of AR = J M⁻¹ Jᵀ + R over `rows` (mjData's `nA` over all rows). A dense `efc_J`
/// gives a dense AR, `nefc²`. A sparse one keeps the structural nonzeros: M⁻¹ couples every
/// pair of dofs of one kinematic tree and none of two trees, so entry (i, j) is kept when rows
/// i and j touch a common tree (a tree is the dofs below one root dof, `dof_parentid` = -1).
pub fn ar_nnz<T: Scalar>(m: &Model, d: &Data<T>, rows: &[usize], w: &mut NnzScratch) -> usize {
    ar_nnz_of(m, d, rows.len(), |i| rows[i], w)
}

/// [`ar_nnz`] over every row of `d` (`nA`).
pub fn ar_nnz_all<T: Scalar>(m: &Model, d: &Data<T>, w: &mut NnzScratch) -> usize {
    ar_nnz_of(m, d, d.nefc, |i| i, w)
}

/// [`ar_nnz`] over the `nefc` rows `row(0..nefc)`.
fn ar_nnz_of<T: Scalar>(
    m: &Model,
    d: &Data<T>,
    nefc: usize,
    row: impl Fn(usize) -> usize,
    w: &mut NnzScratch,
) -> usize {
    if !d.efc_J_sparse {
        return nefc * nefc;
    }
    // each dof's tree, numbered by its root dof (parents come before children)
    let tree = &mut w.index;
    tree.clear();
    tree.resize(m.nv, 0);
    for i in 0..m.nv {
        tree[i] = usize::try_from(m.dof_parentid[i]).map_or(i, |p| tree[p]);
    }
    // the trees of each row as a bit row, then the pairs of rows sharing one (room for the
    // efc arrays' high-water mark at once)
    let words = m.nv.div_ceil(64).max(1);
    w.jbits.clear();
    w.jbits.reserve(d.efc_type.capacity().max(nefc) * words);
    w.jbits.resize(nefc * words, 0);
    for i in 0..nefc {
        for &c in row_cols(d, row(i)) {
            set(&mut w.jbits, words, i, tree[c]);
        }
    }
    let b = &w.jbits;
    let mut n = 0;
    for i in 0..nefc {
        let bi = &b[i * words..(i + 1) * words];
        for j in 0..nefc {
            let bj = &b[j * words..(j + 1) * words];
            n += usize::from(bi.iter().zip(bj).any(|(x, y)| x & y != 0));
        }
    }
    n
}

/// The columns of sparse `efc_J` row `r`.
fn row_cols<T: Scalar>(d: &Data<T>, r: usize) -> &[usize] {
    let a = d.efc_J_rowadr[r];
    &d.efc_J_colind[a..a + d.efc_J_rownnz[r]]
}

/// The bit rows of Σ J_iᵀJ_i over `dofs` and `rows` (lower triangle, the dofs in ascending
/// order, the elimination order of the fill) into `w.jbits`, the sorted dofs into `w.dofs`.
fn jtj_pattern<T: Scalar>(
    m: &Model,
    d: &Data<T>,
    dofs: &[usize],
    rows: &[usize],
    w: &mut NnzScratch,
) {
    // room for the largest problem, all the dofs, at once (`reserve` counts from the current
    // length: the arrays still hold the last count's bits, so that is taken off)
    w.reserve(m.nv);
    w.dofs.clear();
    w.dofs.extend_from_slice(dofs);
    w.dofs.sort_unstable();
    let n = dofs.len();
    let words = n.div_ceil(64).max(1);
    local_index(m, w);
    let local = &w.index;
    // Σ J_iᵀ J_i: every pair of columns of each row, as the row's column set (a bit row in
    // `below`) given to each of its columns up to that column; consecutive rows with the same
    // columns (the rows of one contact) add nothing new
    w.jbits.clear();
    w.jbits.resize(n * words, 0);
    w.below.clear();
    w.below.resize(words, 0);
    let mut last: Option<&[usize]> = None;
    for &r in rows {
        let cols = row_cols(d, r);
        if last == Some(cols) {
            continue;
        }
        last = Some(cols);
        w.cols.clear();
        w.cols
            .extend(cols.iter().map(|&c| local[c]).filter(|&c| c != NIL));
        w.below.fill(0);
        for &a in &w.cols {
            w.below[a / 64] |= 1 << (a % 64);
        }
        for &a in &w.cols {
            or_up_to(&mut w.jbits[a * words..(a + 1) * words], &w.below, a);
        }
    }
}

/// `w.index`: each dof's place in `w.dofs`, NIL outside them.
fn local_index(m: &Model, w: &mut NnzScratch) {
    w.index.clear();
    w.index.resize(m.nv, NIL);
    for (a, &dof) in w.dofs.iter().enumerate() {
        w.index[dof] = a;
    }
}

/// No local index.
const NIL: usize = usize::MAX;

/// The sparse Newton count (module docs) from the sorted dofs `w.dofs` and their Σ J_iᵀJ_i bit
/// rows `w.jbits` ([`jtj_pattern`]): M's pattern, the factor's fill, the three counts.
fn fill_count(m: &Model, w: &mut NnzScratch) -> usize {
    let n = w.dofs.len();
    let words = n.div_ceil(64).max(1);
    local_index(m, w);
    let local = &w.index;
    // M in MuJoCo's sparse layout: the diagonal, and the ancestors unless the body is simple
    w.mbits.clear();
    w.mbits.resize(n * words, 0);
    for (a, &dof) in w.dofs.iter().enumerate() {
        set(&mut w.mbits, words, a, a);
        if simple_body(m, m.dof_bodyid[dof]) {
            continue;
        }
        let mut j = m.dof_parentid[dof];
        while let Ok(p) = usize::try_from(j) {
            if local[p] != NIL {
                set(&mut w.mbits, words, a, local[p]);
            }
            j = m.dof_parentid[p];
        }
    }
    // the factor's pattern: eliminating row k (last first) couples every pair of its columns
    w.hbits.clear();
    w.hbits
        .extend(w.mbits.iter().zip(&w.jbits).map(|(x, y)| x | y));
    let h = &mut w.hbits;
    w.below.clear();
    w.below.resize(words, 0);
    let below = &mut w.below;
    for k in (0..n).rev() {
        below.copy_from_slice(&h[k * words..(k + 1) * words]);
        below[k / 64] &= (1u64 << (k % 64)) - 1;
        // each row a < k in `below` gets the columns of `below` up to a (set bits in order)
        for (wi, &word) in below.iter().enumerate() {
            let mut bits = word;
            while bits != 0 {
                let a = wi * 64 + bits.trailing_zeros() as usize;
                bits &= bits - 1;
                or_up_to(&mut h[a * words..(a + 1) * words], below, a);
            }
        }
    }
    count(&w.mbits) + count(&w.hbits) + count(&w.jbits)
}
