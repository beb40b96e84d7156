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

use crate::data::scratch::{HessianPattern, Problem, SolverScratch};
use crate::data::{ConstraintState, ConstraintType, CONE_H};
use crate::math::{sc, Scalar};

const NIL: usize = usize::MAX;

impl<T: Scalar> Problem<T> {
    /// Fills `self.hpat` for the problem's rows (compressed rows, `J_sparse`); nothing to do
    /// when it is up to date.
    pub(crate) fn hsym(&mut self) {
        if self.hpat.done {
            return;
        }
        self.hpat.done = true;
        if self.hsym_key(false) {
            return;
        }
        self.hsym_key(true);
        let (nv, nefc) = (self.nv, self.nefc);
        let h = &mut self.hpat;
        // the groups: each contact's rows together, every other row alone
        h.group.clear();
        h.row_cone.clear();
        h.row_cone.resize(nefc, NIL);
        let mut ci = 0;
        let mut i = 0;
        while i < nefc {
            while ci < self.cone.len() && self.cone[ci].adr < i {
                ci += 1;
            }
            let n = if ci < self.cone.len() && self.cone[ci].adr == i {
                h.row_cone[i..i + self.cone[ci].nrow.max(1)].fill(ci);
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
        // each row's runs of consecutive columns
        h.run_adr.clear();
        h.run.clear();
        for k in 0..nv {
            h.run_adr.push(h.run.len());
            push_runs(&mut h.run, &h.col[h.adr[k]..h.adr[k] + h.len[k]]);
        }
        h.run_adr.push(h.run.len());
        // the transposed pattern: per dof i, the rows k > i holding it, descending
        h.up_adr.clear();
        h.up_adr.resize(nv + 1, 0);
        for k in 0..nv {
            for x in h.adr[k]..h.adr[k] + h.len[k] {
                h.up_adr[h.col[x] + 1] += 1;
            }
        }
        for i in 0..nv {
            h.up_adr[i + 1] += h.up_adr[i];
        }
        h.up.clear();
        h.up.resize(h.up_adr[nv], [0; 4]);
        // fill from the end of each list, rows ascending: the lists come out descending; each
        // entry with the run of row k holding its position
        h.mark[..nv].copy_from_slice(&h.up_adr[1..]);
        for k in 0..nv {
            let (r0, r1) = (h.run_adr[k], h.run_adr[k + 1]);
            let mut r = r0;
            for x in 0..h.len[k] {
                while r + 1 < r1 && h.run[r + 1][0] as usize <= x {
                    r += 1;
                }
                let i = h.col[h.adr[k] + x];
                h.mark[i] -= 1;
                let cut = x - h.run[r][0] as usize;
                h.up[h.mark[i]] = [k as u32, x as u32, (r - r0) as u32, cut as u32];
            }
        }
        // J's columns: per dof, the rows with a non-zero there, ascending
        h.jt_adr.clear();
        h.jt_adr.resize(nv + 1, 0);
        for r in 0..nefc {
            let (a, m) = (self.J_rowadr[r], self.J_rownnz[r]);
            for &c in &self.J_colind[a..a + m] {
                h.jt_adr[c + 1] += 1;
            }
        }
        for i in 0..nv {
            h.jt_adr[i + 1] += h.jt_adr[i];
        }
        h.jt.clear();
        h.jt.resize(h.jt_adr[nv], (0, 0));
        h.mark[..nv].copy_from_slice(&h.jt_adr[..nv]);
        for r in 0..nefc {
            let (a, m) = (self.J_rowadr[r], self.J_rownnz[r]);
            for (x, &c) in self.J_colind[a..a + m].iter().enumerate() {
                h.jt[h.mark[c]] = (r, x);
                h.mark[c] += 1;
            }
        }
    }

    /// The inputs of [`Self::hsym`]'s pattern in one list: the sizes, each cone's first row
    /// and row count, each dof's parent (M's structure), each row's nonzero count and columns.
    /// `write`: stores them in `hpat.key` (returns true); otherwise returns whether the stored
    /// list equals them, i.e. the pattern built from it is this problem's.
    fn hsym_key(&mut self, write: bool) -> bool {
        let (nv, nefc) = (self.nv, self.nefc);
        let key = &mut self.hpat.key;
        let sizes = [nv, nefc, self.qM.len(), self.cone.len()];
        let cones = self.cone.iter().flat_map(|c| [c.adr, c.nrow]);
        let parents = self.parentid[..nv].iter().map(|&p| (p + 1) as usize);
        let nnz = self.J_rownnz[..nefc].iter().copied();
        let cols = (0..nefc).flat_map(|r| {
            let a = self.J_rowadr[r];
            self.J_colind[a..a + self.J_rownnz[r]].iter().copied()
        });
        let all = sizes
            .into_iter()
            .chain(cones)
            .chain(parents)
            .chain(nnz)
            .chain(cols);
        if write {
            key.clear();
            key.extend(all);
            true
        } else {
            // the sizes come first, so lists of different lengths differ before either ends
            let mut it = key.iter();
            all.into_iter().all(|x| it.next() == Some(&x)) && it.next().is_none()
        }
    }
}

/// Builds H from the problem's states and cone Hessians into `s.Hs` with the pattern
/// `p.hpat` ([`Problem::hsym`]) and factors it ([`factor`]). Per entry the sums of the dense
/// build (M, then the QUADRATIC rows in order, then the cones in order), formed one row of H
/// at a time in a dense accumulator (`s.bwork`): row a gets M's entries, then each row of J
/// with a non-zero in column a, its pairs (a, b ≤ a).
pub(super) fn hessian<T: Scalar>(p: &Problem<T>, s: &mut SolverScratch<T>) {
    let z = T::zero();
    let pat = &p.hpat;
    let nv = p.nv;
    let nnz = pat.col.len();
    s.Hs.clear();
    s.Hs.resize(nnz, z);
    s.Hred.clear();
    s.Hred.resize(nnz, z);
    s.bwork.clear();
    s.bwork.resize(nv, z);
    let acc = &mut s.bwork;
    let h = &mut s.Hred;
    let nm = p.qM.len();
    let cone_st = |c: usize| {
        c != NIL
            && p.ty[p.cone[c].adr] == ConstraintType::ContactElliptic
            && p.state[p.cone[c].adr] == ConstraintState::Cone
    };
    for a in 0..nv {
        // M: row a lists a, then its ancestors
        let (m0, m1) = (p.Madr[a], p.Madr.get(a + 1).copied().unwrap_or(nm));
        for (&v, &c) in p.qM[m0..m1].iter().zip(&p.Mcol[m0..m1]) {
            acc[c] = v;
        }
        let rows = &pat.jt[pat.jt_adr[a]..pat.jt_adr[a + 1]];
        for &(i, x) in rows {
            if p.state[i] != ConstraintState::Quadratic {
                continue;
            }
            let r = p.jrow(i);
            let ja = r.vals[x] * p.D[i];
            if crate::math::exact_zero(ja) {
                continue;
            }
            let cols = r.cols.unwrap_or(&[]);
            for (&b, &vb) in cols[..=x].iter().zip(r.vals) {
                acc[b] += ja * vb;
            }
        }
        for &(i, x) in rows {
            let c = pat.row_cone[i];
            if !cone_st(c) {
                continue;
            }
            let cone = &p.cone[c];
            let (adr, dim) = (cone.adr, cone.dim);
            if i >= adr + dim {
                continue; // a pyramidal edge past the cone's rows (not elliptic)
            }
            let pp = i - adr;
            let hc = &s.cone_H[c * CONE_H..c * CONE_H + dim * dim];
            let va = p.jrow(i).vals[x];
            for qq in 0..dim {
                let w = hc[pp * dim + qq];
                if crate::math::exact_zero(w) {
                    continue;
                }
                let ja = va * w;
                if crate::math::exact_zero(ja) {
                    continue;
                }
                let rq = p.jrow(adr + qq);
                for (&b, &vb) in rq.cols.unwrap_or(&[]).iter().zip(rq.vals) {
                    if b > a {
                        break;
                    }
                    acc[b] += ja * vb;
                }
            }
        }
        let (ra, len) = (pat.adr[a], pat.len[a]);
        for &[x, c, n] in &pat.run[pat.run_adr[a]..pat.run_adr[a + 1]] {
            let (x, c, n) = (ra + x as usize, c as usize, n as usize);
            h[x..x + n].copy_from_slice(&acc[c..c + n]);
            acc[c..c + n].fill(z);
        }
        h[ra + len] = acc[a];
        acc[a] = z;
    }
    factor(pat, &mut s.Hred, &mut s.Hs, &mut s.bwork, nv);
}

/// [`crate::math::dense::ldl_factor_rev`] on the pattern, left-looking: row i (last first)
/// gathers the updates of the rows k > i that hold it, k descending, in the dense accumulator
/// `acc` (nv, zero on entry and exit), each the product of row k's reduced entries (kept in
/// `red`) and its multiplier of i, so every entry sees the dense kernel's operations in its
/// order. `red` holds H on entry and the reduced rows on exit; `l` gets the factor (the
/// multipliers, and D on the diagonal slots). Pivots below 1e-15 are replaced by 1e-15;
/// returns their count.
#[inline(never)]
pub fn factor<T: Scalar>(
    pat: &HessianPattern,
    red: &mut [T],
    l: &mut [T],
    acc: &mut [T],
    nv: usize,
) -> usize {
    let z = T::zero();
    let mut nbad = 0;
    let minval: T = sc(1e-15);
    for i in (0..nv).rev() {
        let (ai, li) = (pat.adr[i], pat.len[i]);
        let ups = &pat.up[pat.up_adr[i]..pat.up_adr[i + 1]];
        let runs = &pat.run[pat.run_adr[i]..pat.run_adr[i + 1]];
        if !ups.is_empty() {
            for &[x, c, n] in runs {
                let (x, c, n) = (ai + x as usize, c as usize, n as usize);
                acc[c..c + n].copy_from_slice(&red[x..x + n]);
            }
            acc[i] = red[ai + li];
            for &[k, pos, r, cut] in ups {
                let k = k as usize;
                let ak = pat.adr[k];
                let kp = ak + pos as usize;
                let aki = red[kp];
                if crate::math::exact_zero(aki) {
                    continue;
                }
                let f = l[kp];
                // row k's entries before i, run by run: the runs wholly before it, then the
                // first `cut` entries of the run holding it
                let r0 = pat.run_adr[k];
                let r1 = r0 + r as usize;
                for &[x, c, n] in &pat.run[r0..r1] {
                    let (x, c, n) = (ak + x as usize, c as usize, n as usize);
                    for (a, &v) in acc[c..c + n].iter_mut().zip(&red[x..x + n]) {
                        *a -= v * f;
                    }
                }
                let n = cut as usize;
                if n > 0 {
                    let [x, c, _] = pat.run[r1];
                    let (x, c) = (ak + x as usize, c as usize);
                    for (a, &v) in acc[c..c + n].iter_mut().zip(&red[x..x + n]) {
                        *a -= v * f;
                    }
                }
                acc[i] -= aki * f;
            }
            for &[x, c, n] in runs {
                let (x, c, n) = (ai + x as usize, c as usize, n as usize);
                red[x..x + n].copy_from_slice(&acc[c..c + n]);
                acc[c..c + n].fill(z);
            }
            red[ai + li] = acc[i];
            acc[i] = z;
        }
        let mut di = red[ai + li];
        if di < minval {
            di = minval;
            red[ai + li] = di;
            nbad += 1;
        }
        l[ai + li] = di;
        for x in 0..li {
            let a = red[ai + x];
            l[ai + x] = if crate::math::exact_zero(a) {
                a
            } else {
                a / di
            };
        }
    }
    nbad
}

/// [`crate::math::dense::ldl_solve_rev`] on the pattern: `x ← H⁻¹ x`. Each row's entries are
/// read run by run ([`HessianPattern::run`]): the same products and sums per entry in the same
/// order as entry by entry, and the division by the diagonal is done in the last pass, just
/// before the row's sum is subtracted (the dense kernel divides every entry first; the sums of
/// row k read only entries below k, which are final in both orders).
pub fn solve<T: Scalar>(pat: &HessianPattern, h: &[T], nv: usize, x: &mut [T]) {
    let x = &mut x[..nv];
    let (adr, len) = (&pat.adr[..nv], &pat.len[..nv]);
    let run_adr = &pat.run_adr[..nv + 1];
    if crate::math::simd::solve_runs(adr, len, run_adr, &pat.run, h, x) {
        return;
    }
    for k in (0..nv).rev() {
        let xk = x[k];
        if crate::math::exact_zero(xk) {
            continue;
        }
        let a = adr[k];
        for &[o, c, n] in &pat.run[run_adr[k]..run_adr[k + 1]] {
            let (o, c, n) = (a + o as usize, c as usize, n as usize);
            for (xc, &v) in x[c..c + n].iter_mut().zip(&h[o..o + n]) {
                *xc -= v * xk;
            }
        }
    }
    for k in 0..nv {
        let a = adr[k];
        let mut acc = T::zero();
        for &[o, c, n] in &pat.run[run_adr[k]..run_adr[k + 1]] {
            let (o, c, n) = (a + o as usize, c as usize, n as usize);
            for (&xc, &v) in x[c..c + n].iter().zip(&h[o..o + n]) {
                acc += v * xc;
            }
        }
        // k = 0 has no entries: subtracting the zero sum leaves x[0] as it is, bit for bit
        x[k] = x[k] / h[a + len[k]] - acc;
    }
}

/// [`crate::math::dense::ldl_rank1_rev`] on the pattern (`w` nv, overwritten, non-zero on
/// the columns of a row of the problem only).
pub fn rank1<T: Scalar>(
    pat: &HessianPattern,
    h: &mut [T],
    nv: usize,
    w: &mut [T],
    up: bool,
) -> bool {
    let mut alpha: T = if up { T::one() } else { -T::one() };
    for k in (0..nv).rev() {
        let pk = w[k];
        if crate::math::exact_zero(pk) {
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
        for &[o, c, n] in &pat.run[pat.run_adr[k]..pat.run_adr[k + 1]] {
            let (o, c, n) = (a + o as usize, c as usize, n as usize);
            for (wc, li) in w[c..c + n].iter_mut().zip(h[o..o + n].iter_mut()) {
                *wc -= pk * *li;
                *li += beta * *wc;
            }
        }
    }
    true
}

/// Lays a tree-sparse factor (`crate::smooth::crb::factor_tree`'s layout of M: per dof `k` at
/// `madr[k]` its D, then its multipliers of its ancestors in `mcol[madr[k] + 1..]`, parent
/// first) out on the pattern into `l` (exact zeros where the tree has no entry), so that
/// [`rank1`] can go on updating it when a row off one root path enters: the factor of the
/// same H, in the general layout. Returns false, leaving `l` unspecified, if an ancestor is
/// missing from its row of the pattern (a pattern not built for this tree).
pub fn from_tree<T: Scalar>(
    pat: &HessianPattern,
    madr: &[usize],
    mcol: &[usize],
    ld: &[T],
    l: &mut Vec<T>,
    nv: usize,
) -> bool {
    l.clear();
    l.resize(pat.col.len(), T::zero());
    for k in 0..nv {
        let (a, len) = (pat.adr[k], pat.len[k]);
        let (m0, m1) = (madr[k], madr.get(k + 1).copied().unwrap_or(ld.len()));
        l[a + len] = ld[m0];
        // the ancestors descend, the pattern's row ascends: one walk down the row
        let cols = &pat.col[a..a + len];
        let mut x = len;
        for (&c, &v) in mcol[m0 + 1..m1].iter().zip(&ld[m0 + 1..m1]) {
            loop {
                if x == 0 {
                    return false;
                }
                x -= 1;
                if cols[x] == c {
                    break;
                }
            }
            l[a + x] = v;
        }
    }
    true
}

/// Appends the runs of consecutive columns of one row's `cols` to `run`, each as (position of
/// its first entry in the row, its first column, its length).
fn push_runs(run: &mut Vec<[u32; 3]>, cols: &[usize]) {
    let mut x = 0;
    while x < cols.len() {
        let c = cols[x];
        let mut n = 1;
        while x + n < cols.len() && cols[x + n] == c + n {
            n += 1;
        }
        run.push([x as u32, c as u32, n as u32]);
        x += n;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::math::dense;

    /// The pattern of rows with the given columns (ascending, each below its row), with runs.
    fn pattern(rows: &[Vec<usize>]) -> HessianPattern {
        let mut p = HessianPattern::default();
        for (k, cols) in rows.iter().enumerate() {
            p.adr.push(p.col.len());
            p.len.push(cols.len());
            p.col.extend(cols);
            p.col.push(k);
            p.run_adr.push(p.run.len());
            push_runs(&mut p.run, cols);
        }
        p.run_adr.push(p.run.len());
        p
    }

    /// [`solve`] (by the AVX2 kernel where the CPU has it) equals the dense kernel
    /// [`dense::ldl_solve_rev`] on the same factor bit for bit: rows of 0 to 39 entries in one
    /// run or in runs of every length, exact zeros in the right-hand side.
    #[test]
    fn solve_equals_dense_solve_bit_for_bit() {
        let nv = 40;
        let mut seed = 0x9e37_79b9_7f4a_7c15_u64;
        let mut rnd = move || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            (seed >> 11) as f64 / (1u64 << 53) as f64 - 0.5
        };
        for gap in [0usize, 2, 3, 5, 7] {
            let rows: Vec<Vec<usize>> = (0..nv)
                .map(|k| {
                    (0..k)
                        .filter(|c| gap == 0 || (c * 7 + k) % gap != 0)
                        .collect()
                })
                .collect();
            let pat = pattern(&rows);
            let mut h = vec![0.0; pat.col.len()];
            let mut l = vec![0.0; nv * nv];
            for (k, cols) in rows.iter().enumerate() {
                let a = pat.adr[k];
                for (x, &c) in cols.iter().enumerate() {
                    let v = rnd();
                    h[a + x] = v;
                    l[k * nv + c] = v;
                }
                let d = 1.0 + rnd().abs();
                h[a + cols.len()] = d;
                l[k * nv + k] = d;
            }
            let b: Vec<f64> = (0..nv)
                .map(|i| if i % 9 == 4 { 0.0 } else { rnd() })
                .collect();
            let (mut xs, mut xd) = (b.clone(), b);
            solve(&pat, &h, nv, &mut xs);
            dense::ldl_solve_rev(&l, nv, &mut xd);
            for i in 0..nv {
                assert_eq!(xs[i].to_bits(), xd[i].to_bits(), "gap {gap}, entry {i}");
            }
        }
    }
}
