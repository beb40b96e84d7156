//! The Newton Hessian H = M + Jᵀ diag(D·[QUADRATIC]) J + Σ_cones Jcᵀ H_cone Jc in general
//! sparse rows, for problems whose rows are not all on one root path of the dof tree (contacts
//! between two trees or two branches) and whose J is in compressed rows: the reversed `Lᵀ D L`
//! factor of [`crate::math::dense::ldl_factor_rev`] (last dof eliminated first) on the
//! structural nonzeros only, so the large-model path has no dense nv × nv matrix (as MuJoCo's
//! sparse Newton Hessian from nv = 60, `mj_isSparse`).
//!
//! The symbolic structure ([`Problem::hsym`]) is that of the factor of M + Σ_all rows J_iᵀJ_i
//! (every row of the problem, whatever its state, and a contact's rows together): row k holds
//! the columns j < k where the factor can be non-zero. Eliminating k couples every pair of its
//! columns, so its columns below its largest one p (its parent in the elimination tree) are
//! columns of p: with the pattern of M (a row's ancestors) and each row's columns added to its
//! largest column, the recursion over the dofs, last first, gives the whole pattern. A factor
//! restricted to any subset of the rows (the QUADRATIC ones) and its rank-1 updates by a row of
//! the problem stay inside it.
//!
//! Every operation is the dense kernel's on the entries the dense kernel can make non-zero, in
//! the same order per entry (an entry outside the pattern stays an exact zero there: its
//! updates are products with exact zeros), so the factor, the solves and the updates equal the
//! dense ones bit for bit, up to the sign of an exact zero.

#![allow(clippy::needless_range_loop)] // index-based numeric kernels

use super::{Problem, SolverScratch};
use crate::constraint::cost::CONE_H;
use crate::constraint::{ConstraintState, ConstraintType};
use crate::data::{sc, Scalar};

/// Symbolic structure of the sparse Hessian of a problem (position stage only), with its work
/// space; filled by [`Problem::hsym`].
#[derive(Clone, Debug, Default)]
pub struct HessianPattern {
    /// Row k: the columns `col[adr[k]..adr[k] + len[k]]` (ascending, all below k), then the
    /// diagonal at `adr[k] + len[k]`.
    pub adr: Vec<usize>,
    pub len: Vec<usize>,
    pub col: Vec<usize>,
    /// The pattern belongs to the problem's current rows.
    pub(super) done: bool,
    /// Work space: rows (or contacts) by their largest column, elimination-tree children by
    /// parent (linked lists, `usize::MAX` ends), the mark of the current row.
    head: Vec<usize>,
    next: Vec<usize>,
    group: Vec<(usize, usize)>,
    child_head: Vec<usize>,
    child_next: Vec<usize>,
    mark: Vec<usize>,
}

const NIL: usize = usize::MAX;

impl HessianPattern {
    /// Reserves room for `nv` dofs, `nefc` rows and `nnz` pattern entries (diagonals included).
    pub fn reserve(&mut self, nv: usize, nefc: usize, nnz: usize) {
        fn grow<X>(v: &mut Vec<X>, n: usize) {
            v.reserve(n.saturating_sub(v.len()));
        }
        for v in [
            &mut self.adr,
            &mut self.len,
            &mut self.head,
            &mut self.child_head,
            &mut self.child_next,
            &mut self.mark,
        ] {
            grow(v, nv);
        }
        grow(&mut self.next, nefc);
        grow(&mut self.group, nefc);
        grow(&mut self.col, nnz);
    }
}

impl<T: Scalar> Problem<T> {
    /// Fills `self.hpat` for the problem's rows (compressed rows, `J_sparse`); nothing to do
    /// when it is up to date.
    pub(crate) fn hsym(&mut self) {
        if self.hpat.done {
            return;
        }
        let (nv, nefc) = (self.nv, self.nefc);
        let h = &mut self.hpat;
        h.done = true;
        // the groups: each contact's rows together, every other row alone
        h.group.clear();
        let mut ci = 0;
        let mut i = 0;
        while i < nefc {
            while ci < self.cone.len() && self.cone[ci].adr < i {
                ci += 1;
            }
            let n = if ci < self.cone.len() && self.cone[ci].adr == i {
                self.cone[ci].nrow.max(1)
            } else {
                1
            };
            h.group.push((i, n));
            i += n;
        }
        // each group in the list of its largest column
        h.head.clear();
        h.head.resize(nv, NIL);
        h.next.clear();
        h.next.resize(h.group.len(), NIL);
        for (g, &(r0, n)) in h.group.iter().enumerate() {
            let mut top = None;
            for r in r0..r0 + n {
                let (a, k) = (self.J_rowadr[r], self.J_rownnz[r]);
                if let Some(&c) = self.J_colind[a..a + k].last() {
                    top = Some(top.map_or(c, |t: usize| t.max(c)));
                }
            }
            if let Some(t) = top {
                h.next[g] = h.head[t];
                h.head[t] = g;
            }
        }
        h.child_head.clear();
        h.child_head.resize(nv, NIL);
        h.child_next.clear();
        h.child_next.resize(nv, NIL);
        h.mark.clear();
        h.mark.resize(nv, NIL);
        h.adr.clear();
        h.adr.resize(nv, 0);
        h.len.clear();
        h.len.resize(nv, 0);
        h.col.clear();
        let nm = self.qM.len();
        for k in (0..nv).rev() {
            let start = h.col.len();
            // M: the ancestors of k
            let (a, e) = (self.Madr[k], self.Madr.get(k + 1).copied().unwrap_or(nm));
            for &c in &self.Mcol[a + 1..e] {
                h.mark[c] = k;
                h.col.push(c);
            }
            // the rows whose largest column is k
            let mut g = h.head[k];
            while g != NIL {
                let (r0, n) = h.group[g];
                for r in r0..r0 + n {
                    let (a, m) = (self.J_rowadr[r], self.J_rownnz[r]);
                    for &c in &self.J_colind[a..a + m] {
                        if c != k && h.mark[c] != k {
                            h.mark[c] = k;
                            h.col.push(c);
                        }
                    }
                }
                g = h.next[g];
            }
            // the children's columns (all ≤ k: k is their largest)
            let mut c = h.child_head[k];
            while c != NIL {
                for x in h.adr[c]..h.adr[c] + h.len[c] {
                    let j = h.col[x];
                    if j != k && h.mark[j] != k {
                        h.mark[j] = k;
                        h.col.push(j);
                    }
                }
                c = h.child_next[c];
            }
            h.col[start..].sort_unstable();
            let len = h.col.len() - start;
            h.adr[k] = start;
            h.len[k] = len;
            // the diagonal's slot
            h.col.push(k);
            if let Some(&p) = h.col[start..start + len].last() {
                h.child_next[k] = h.child_head[p];
                h.child_head[p] = k;
            }
        }
    }
}

/// `row[pos of b] op= v` for the ascending columns `bs` of a source, merged into row `a`'s
/// pattern (every `b < a` is in it; `b == a` is the diagonal).
#[inline]
fn row_slice(pat: &HessianPattern, a: usize) -> (usize, usize) {
    (pat.adr[a], pat.len[a])
}

/// Builds H from the problem's states and cone Hessians into `s.Hs` with the pattern
/// `p.hpat` ([`Problem::hsym`]) and factors it: the sums of the dense build (M, then the
/// QUADRATIC rows in order, then the cones in order).
pub(super) fn hessian<T: Scalar>(p: &Problem<T>, s: &mut SolverScratch<T>) {
    let pat = &p.hpat;
    let h = &mut s.Hs;
    h.clear();
    h.resize(pat.col.len(), T::zero());
    let nm = p.qM.len();
    // M: row k lists k, then its ancestors (descending columns)
    for k in 0..p.nv {
        let (a, e) = (p.Madr[k], p.Madr.get(k + 1).copied().unwrap_or(nm));
        let (ra, len) = row_slice(pat, k);
        h[ra + len] = p.qM[a];
        let cols = &pat.col[ra..ra + len];
        let mut y = len;
        for (&v, &c) in p.qM[a + 1..e].iter().zip(&p.Mcol[a + 1..e]) {
            while cols[y - 1] != c {
                y -= 1;
            }
            y -= 1;
            h[ra + y] = v;
        }
    }
    // one row's (or two rows') pairs (a, b ≤ a): h[a, b] += (w v_p[a]) v_q[b]
    let add = |h: &mut [T], cp: &[usize], vp: &[T], cq: &[usize], vq: &[T], w: T| {
        for (&a, &ra) in cp.iter().zip(vp) {
            let ja = ra * w;
            if ja == T::zero() {
                continue;
            }
            let (adr, len) = row_slice(pat, a);
            let cols = &pat.col[adr..adr + len];
            let mut y = 0;
            for (&b, &rb) in cq.iter().zip(vq) {
                if b > a {
                    break;
                }
                if b == a {
                    h[adr + len] += ja * rb;
                    break;
                }
                while cols[y] != b {
                    y += 1;
                }
                h[adr + y] += ja * rb;
            }
        }
    };
    for i in 0..p.nefc {
        if p.state[i] != ConstraintState::Quadratic {
            continue;
        }
        let r = p.jrow(i);
        let cols = r.cols.unwrap_or(&[]);
        add(h, cols, r.vals, cols, r.vals, p.D[i]);
    }
    for (c, cone) in p.cone.iter().enumerate() {
        let adr = cone.adr;
        if p.ty[adr] != ConstraintType::ContactElliptic || p.state[adr] != ConstraintState::Cone {
            continue;
        }
        let dim = cone.dim;
        let hc = &s.cone_H[c * CONE_H..c * CONE_H + dim * dim];
        for pp in 0..dim {
            for qq in 0..dim {
                let w = hc[pp * dim + qq];
                if w == T::zero() {
                    continue;
                }
                let (rp, rq) = (p.jrow(adr + pp), p.jrow(adr + qq));
                let (cp, cq) = (rp.cols.unwrap_or(&[]), rq.cols.unwrap_or(&[]));
                add(h, cp, rp.vals, cq, rq.vals, w);
            }
        }
    }
    factor(pat, h, p.nv);
}

/// [`crate::math::dense::ldl_factor_rev`] on the pattern: pivots below 1e-15 replaced by
/// 1e-15; returns their count.
pub fn factor<T: Scalar>(pat: &HessianPattern, h: &mut [T], nv: usize) -> usize {
    let mut nbad = 0;
    let minval: T = sc(1e-15);
    for k in (0..nv).rev() {
        let (ak, lk) = (pat.adr[k], pat.len[k]);
        let mut dk = h[ak + lk];
        if dk < minval {
            dk = minval;
            h[ak + lk] = dk;
            nbad += 1;
        }
        let ck = &pat.col[ak..ak + lk];
        for x in (0..lk).rev() {
            let aki = h[ak + x];
            if aki == T::zero() {
                continue;
            }
            let i = ck[x];
            let f = aki / dk;
            // row i (below row k in storage order is not guaranteed: index by addresses)
            let (ai, li) = (pat.adr[i], pat.len[i]);
            let ci = &pat.col[ai..ai + li];
            let mut y = 0;
            for t in 0..x {
                let j = ck[t];
                while ci[y] != j {
                    y += 1;
                }
                let v = h[ak + t];
                h[ai + y] -= v * f;
            }
            h[ai + li] -= aki * f;
            h[ak + x] = f;
        }
    }
    nbad
}

/// [`crate::math::dense::ldl_solve_rev`] on the pattern: `x ← H⁻¹ x`.
pub fn solve<T: Scalar>(pat: &HessianPattern, h: &[T], nv: usize, x: &mut [T]) {
    let x = &mut x[..nv];
    for k in (0..nv).rev() {
        let xk = x[k];
        if xk == T::zero() {
            continue;
        }
        let (a, l) = (pat.adr[k], pat.len[k]);
        for (&c, &v) in pat.col[a..a + l].iter().zip(&h[a..a + l]) {
            x[c] -= v * xk;
        }
    }
    for k in 0..nv {
        x[k] /= h[pat.adr[k] + pat.len[k]];
    }
    for k in 1..nv {
        let (a, l) = (pat.adr[k], pat.len[k]);
        let mut acc = T::zero();
        for (&c, &v) in pat.col[a..a + l].iter().zip(&h[a..a + l]) {
            acc += v * x[c];
        }
        x[k] -= acc;
    }
}

/// [`crate::math::dense::ldl_rank1_rev`] on the pattern (`w` nv, overwritten, non-zero on
/// the columns of a row of the problem only).
pub fn rank1<T: Scalar>(pat: &HessianPattern, h: &mut [T], nv: usize, w: &mut [T], up: bool) -> bool {
    let mut alpha: T = if up { T::one() } else { -T::one() };
    for k in (0..nv).rev() {
        let pk = w[k];
        if pk == T::zero() {
            continue;
        }
        let (a, l) = (pat.adr[k], pat.len[k]);
        let dk = h[a + l];
        let dbar = dk + alpha * pk * pk;
        if dbar <= T::zero() {
            return false;
        }
        let beta = pk * alpha / dbar;
        alpha = alpha * dk / dbar;
        h[a + l] = dbar;
        for (&c, li) in pat.col[a..a + l].iter().zip(h[a..a + l].iter_mut()) {
            w[c] -= pk * *li;
            *li += beta * w[c];
        }
    }
    true
}
