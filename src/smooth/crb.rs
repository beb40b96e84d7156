//! Joint-space inertia by composite rigid bodies (`mj_crb`) and its sparse LᵀDL factorization
//! (`mj_factorM`, `mj_solveM`, `mj_mulM`); Computation "General framework" (M),
//! "Simulation pipeline" stages 5-6.
//!
//! Layout of `qM`/`qLD` (`nM` entries): row `i` stores `M[i,i], M[i,λ(i)], M[i,λ(λ(i))], …`
//! contiguously from `dof_Madr[i]`, where `λ = dof_parentid`. Only these entries of the lower
//! triangle can be non-zero, and the factorization `M = Lᵀ D L` (L unit lower triangular) has no
//! fill-in: `qLD` holds `D` on the diagonal addresses and `L` below it.

use crate::data::scratch::{clear_on, scatter};
use crate::data::{Data, Warning};
use crate::math::pivot::{pivot, Clamped};
use crate::math::spatial::{dof_parent, inert_mul};
use crate::math::{sc, simd, Scalar};
use crate::model::Model;

/// Composite inertias `crb` and the sparse `qM`, including `dof_armature` on the diagonal and the
/// tendon armature `Σ_t armature_t J_tᵀ J_t` restricted to the sparsity of `qM` (entries coupling
/// dofs that are not ancestors of each other are dropped, as MuJoCo 4.0.0 does). Needs `ten_J`
/// ([`crate::smooth::tendon::tendon`]); fixed tendons only (their `J` is constant, so no bias term).
pub fn crb<T: Scalar>(m: &Model, d: &mut Data<T>) {
    let nbody = m.nbody;
    let crb = &mut d.crb[..nbody];
    crb.copy_from_slice(&d.cinert[..nbody]);
    let bparent = &m.body_parentid[..nbody];
    for b in (1..nbody).rev() {
        let p = bparent[b];
        if p != 0 {
            let c = crb[b];
            for (x, y) in crb[p].iter_mut().zip(c.iter()) {
                *x += *y;
            }
        }
    }
    let nv = m.nv;
    let cdof = &d.cdof[..nv];
    let parent = &m.dof_parentid[..nv];
    let bodyid = &m.dof_bodyid[..nv];
    let madr = &m.dof_Madr[..nv];
    let qm = &mut d.qM[..m.nM];
    // the effective armature with the actuators' share, read from the model's table when it is
    // filled (as `dof_armature_eff`, without its per-dof check)
    let extra = (m.dof_actextra.len() == nv).then_some(&m.dof_actextra[..]);
    for i in 0..nv {
        let f = inert_mul(&crb[bodyid[i]], &cdof[i]);
        let arm = match extra {
            Some(e) => m.dof_armature[i] + e[i][3],
            None => m.dof_armature_eff(i),
        };
        // row i: the diagonal, then i's ancestors in order (rows end where the next begins)
        let a = madr[i];
        let e = if i + 1 < nv { madr[i + 1] } else { qm.len() };
        let row = &mut qm[a..e];
        row[0] = cdof[i].dot(&f) + sc::<T>(arm);
        let mut j = parent[i];
        for x in row[1..].iter_mut() {
            let Ok(jj) = usize::try_from(j) else {
                break;
            };
            *x = cdof[jj].dot(&f);
            j = parent[jj];
        }
    }
    for t in 0..m.ntendon {
        let arm = m.tendon_armature_eff(t);
        if arm == 0.0 {
            continue;
        }
        let arm: T = sc(arm);
        // the ancestors' entries are read from the row scattered into the dense scratch row
        let mut row = std::mem::take(&mut d.dense_row);
        let s = &d.sparse_scratch;
        let (a, n) = (s.ten_J_rowadr[t], s.ten_J_rownnz[t]);
        let cols = &s.ten_J_colind[a..a + n];
        scatter(cols, &d.ten_J[a..a + n], &mut row);
        for &i in cols {
            let ji = row[i];
            if ji == T::zero() {
                continue;
            }
            let mut adr = m.dof_Madr[i];
            d.qM[adr] += arm * ji * ji;
            let mut j = dof_parent(m, i);
            while let Some(jj) = j {
                adr += 1;
                d.qM[adr] += arm * ji * row[jj];
                j = dof_parent(m, jj);
            }
        }
        clear_on(cols, &mut row);
        d.dense_row = row;
    }
}

impl Clamped {
    /// Records the raised pivots in `d.warning` as MuJoCo does: one `mjWARN_INERTIA` per pivot
    /// ("Inertia matrix is too close to singular … at DOF i"), the last with the lowest dof; the
    /// first (the highest dof) is the one reported when the counter was zero.
    pub fn warn<T: Scalar>(self, d: &mut Data<T>) {
        if self.count > 0 {
            d.announce(Warning::Inertia, self.first as i64);
            let s = &mut d.warning[Warning::Inertia as usize];
            s.number += self.count as u64;
            s.lastinfo = self.dof as i64;
        }
    }
}

/// LᵀDL factorization of `qM` into `qLD` and `qLDiagInv` (no fill-in, see module docs); a
/// pivot below [`PIVOT_MIN`](crate::math::pivot::PIVOT_MIN) is raised to it with an `Inertia`
/// warning (`mj_factorM`).
pub fn factor_m<T: Scalar>(m: &Model, d: &mut Data<T>) {
    d.qLD.copy_from_slice(&d.qM);
    let clamped = factor_ld(m, &mut d.qLD, &mut d.qLDiagInv);
    clamped.warn(d);
}

/// In-place LᵀDL factorization of a matrix in the `qM` layout; writes `1/D` into `diag_inv`.
/// Row `k` from position `off` lists exactly the ancestors of `ii = λ^off(k)`, i.e. row `ii`,
/// so each elimination step is one contiguous axpy on row `ii`. As MuJoCo's `mj_factorI`, each
/// row is divided by its pivot as a product with the pivot's reciprocal (so the factor equals
/// MuJoCo's bit for bit, not within an ulp), and a pivot below
/// [`PIVOT_MIN`](crate::math::pivot::PIVOT_MIN) is raised to it
/// (returned, for the caller's warning).
pub fn factor_ld<T: Scalar>(m: &Model, ld: &mut [T], diag_inv: &mut [T]) -> Clamped {
    factor_tree(&m.dof_Madr, &m.dof_parentid, &mut ld[..m.nM], diag_inv)
}

/// [`factor_ld`] on any tree-sparse layout: row `k` starts at `madr[k]` and holds the entries
/// of `k` and its ancestors along `parent` (`-1`: root), rows in order, `ld.len()` entries in
/// all (the island problems of the solver use it on their own dofs).
pub fn factor_tree<T: Scalar>(
    madr: &[usize],
    parent: &[i32],
    ld: &mut [T],
    diag_inv: &mut [T],
) -> Clamped {
    let n = ld.len();
    // the AVX2 kernel pays for its layout check (O(nv)) and a call per row update only where
    // rows are long: with rows of fewer than three entries on average (point masses, arms of
    // two links, two-dof carts) the scalar loop, which gives the same factor bit for bit,
    // costs less (callgrind, per factorization of M: ball_in_cup 294 -> 266 instructions,
    // point_mass 191 -> 158)
    if diag_inv.len() >= madr.len() && n >= SIMD_MIN_ROW * madr.len() {
        if let Some(c) =
            simd::factor_tree(madr, parent, ld, diag_inv, || tree_layout(madr, parent, n))
        {
            return c;
        }
    }
    factor_tree_scalar(madr, parent, ld, diag_inv)
}

/// The average row length (entries of `ld` per dof) from which [`factor_tree`] uses the AVX2
/// kernel.
const SIMD_MIN_ROW: usize = 3;

/// True if `madr`, `parent` describe a tree-sparse layout of `total` entries: rows in order,
/// each parent before its child, and every row one entry longer than its parent's (a root's:
/// one entry), so that row `k` holds exactly `k` and its ancestors.
fn tree_layout(madr: &[usize], parent: &[i32], total: usize) -> bool {
    let nv = madr.len();
    if parent.len() < nv {
        return false;
    }
    for k in 0..nv {
        let next = if k + 1 < nv { madr[k + 1] } else { total };
        let Some(len) = next.checked_sub(madr[k]) else {
            return false;
        };
        // (a parent's row was checked before: `madr[p + 1] ≥ madr[p] + 1`)
        let want = match usize::try_from(parent[k]) {
            Err(_) => 1,
            Ok(p) if p < k => madr[p + 1] - madr[p] + 1,
            Ok(_) => return false,
        };
        if len != want {
            return false;
        }
    }
    true
}

/// [`factor_tree`] for any scalar (and CPUs without AVX2).
pub(crate) fn factor_tree_scalar<T: Scalar>(
    madr: &[usize],
    parent: &[i32],
    ld: &mut [T],
    diag_inv: &mut [T],
) -> Clamped {
    let nv = madr.len();
    // equal lengths let one bounds check cover `madr[ii]` and `parent[ii]`
    let parent = &parent[..nv];
    let diag_inv = &mut diag_inv[..nv];
    let mut clamped = Clamped::default();
    let mut end = ld.len();
    for k in (0..nv).rev() {
        let ak = madr[k];
        let (head, tail) = ld.split_at_mut(ak);
        let rowk = &mut tail[..end - ak];
        end = ak;
        let len = rowk.len();
        let inv = pivot(&mut rowk[0], k, &mut clamped);
        diag_inv[k] = inv;
        let mut i = parent[k];
        let mut off = 1;
        // four ancestors' rows per pass over row k while they are long enough to pay for it
        // (each of their entries gets exactly one update from row k, so this equals the
        // row-by-row elimination bit for bit, with one load of row k per four updates)
        while off + FUSE_MIN <= len {
            let Some(rows) = ancestors4(parent, i) else {
                break;
            };
            eliminate4(head, madr, rows, rowk, off, inv);
            off += 4;
            i = parent[rows[3]];
        }
        while i >= 0 && off < len {
            let ii = i as usize;
            let a = rowk[off] * inv;
            let ai = madr[ii];
            let src = &rowk[off..len];
            let dst = &mut head[ai..ai + src.len()];
            // the rows are short: a scalar loop unrolled by two beats a vectorized one (callgrind)
            let mut j = 0;
            while j + 1 < src.len() {
                dst[j] -= src[j] * a;
                dst[j + 1] -= src[j + 1] * a;
                j += 2;
            }
            if j < src.len() {
                dst[j] -= src[j] * a;
            }
            rowk[off] = a;
            off += 1;
            i = parent[ii];
        }
    }
    clamped
}

/// Shortest row `k` suffix (`len − off`) that [`factor_tree`] eliminates four rows at a time.
const FUSE_MIN: usize = 6;

/// `i` and its next three ancestors along `parent`, if all exist.
#[inline(always)]
fn ancestors4(parent: &[i32], i: i32) -> Option<[usize; 4]> {
    let r0 = usize::try_from(i).ok()?;
    let r1 = usize::try_from(*parent.get(r0)?).ok()?;
    let r2 = usize::try_from(*parent.get(r1)?).ok()?;
    let r3 = usize::try_from(*parent.get(r2)?).ok()?;
    Some([r0, r1, r2, r3])
}

/// Four steps of [`factor_tree`] at once, for the consecutive ancestors `rows` (deepest first)
/// at positions `off..off + 4` of row `k` (`rowk`; `head`: the rows before it): row `rows[g]`
/// `-= a_g · rowk[off + g..]` with `a_g = rowk[off + g] · inv` (`inv`: the pivot's reciprocal),
/// then `rowk[off + g] = a_g`.
#[inline(always)]
fn eliminate4<T: Scalar>(
    head: &mut [T],
    madr: &[usize],
    rows: [usize; 4],
    rowk: &mut [T],
    off: usize,
    inv: T,
) {
    let src = &rowk[off..];
    let n = src.len();
    let (a0, a1, a2, a3) = (src[0] * inv, src[1] * inv, src[2] * inv, src[3] * inv);
    // the rows' prefixes of lengths n, n − 1, n − 2, n − 3; ancestors lie at lower addresses
    let (rest, r0) = head.split_at_mut(madr[rows[0]]);
    let (rest, r1) = rest.split_at_mut(madr[rows[1]]);
    let (rest, r2) = rest.split_at_mut(madr[rows[2]]);
    let r3 = &mut rest[madr[rows[3]]..];
    let (d0, d1, d2, d3) = (
        &mut r0[..n],
        &mut r1[..n - 1],
        &mut r2[..n - 2],
        &mut r3[..n - 3],
    );
    // columns off .. off + 2 reach only the deeper rows
    d0[0] -= src[0] * a0;
    d0[1] -= src[1] * a0;
    d1[0] -= src[1] * a1;
    d0[2] -= src[2] * a0;
    d1[1] -= src[2] * a1;
    d2[0] -= src[2] * a2;
    axpy4(
        &src[3..],
        &mut d0[3..],
        &mut d1[2..],
        &mut d2[1..],
        d3,
        [a0, a1, a2, a3],
    );
    rowk[off..off + 4].copy_from_slice(&[a0, a1, a2, a3]);
}

/// `d_g -= a_g · src` for the four rows `d0..d3` (each as long as `src`). Not inlined: as function
/// arguments the five slices are known not to alias, so LLVM's packed loop needs no run-time
/// overlap checks (inlined, those checks cost more than the loop on the short rows of M).
#[inline(never)]
fn axpy4<T: Scalar>(src: &[T], d0: &mut [T], d1: &mut [T], d2: &mut [T], d3: &mut [T], a: [T; 4]) {
    let [a0, a1, a2, a3] = a;
    for ((((&s, x0), x1), x2), x3) in src
        .iter()
        .zip(d0.iter_mut())
        .zip(d1.iter_mut())
        .zip(d2.iter_mut())
        .zip(d3.iter_mut())
    {
        *x0 -= s * a0;
        *x1 -= s * a1;
        *x2 -= s * a2;
        *x3 -= s * a3;
    }
}

/// Solves `M x = b` in place (`x` holds `b` on entry) with a factorization from [`factor_ld`].
/// Uses the model's entry columns `dof_Mcol` (`solve_tree_col`) when they are filled.
pub fn solve_ld<T: Scalar>(m: &Model, ld: &[T], diag_inv: &[T], x: &mut [T]) {
    if m.dof_Mcol.len() == m.nM {
        solve_tree_col(&m.dof_Madr, &m.dof_Mcol, &ld[..m.nM], diag_inv, x);
    } else {
        solve_tree(&m.dof_Madr, &m.dof_parentid, ld, diag_inv, x);
    }
}

/// [`solve_m`] for a right-hand side that is zero outside the dofs `lo..hi`, a union of whole
/// kinematic trees (dofs are numbered tree by tree): M is block diagonal by tree, so the
/// solution is zero outside them too, and only `x[lo..hi]` is read and written, by the same
/// operations in the same order as the whole solve (which skips the zeros of the first pass).
/// Costs the trees' size, not nv.
pub fn solve_m_range(m: &Model, d: &Data<f64>, x: &mut [f64], lo: usize, hi: usize) {
    solve_tree_range(
        &m.dof_Madr,
        &m.dof_parentid,
        &d.qLD,
        &d.qLDiagInv,
        x,
        lo..hi,
    );
}

/// [`solve_ld`] on any tree-sparse layout (see [`factor_tree`]).
pub fn solve_tree<T: Scalar>(
    madr: &[usize],
    parent: &[i32],
    ld: &[T],
    diag_inv: &[T],
    x: &mut [T],
) {
    let nv = madr.len();
    solve_tree_range(madr, parent, ld, diag_inv, x, 0..nv);
}

/// [`solve_tree`] on the dofs `dofs` alone, whole trees (see [`solve_m_range`]).
fn solve_tree_range<T: Scalar>(
    madr: &[usize],
    parent: &[i32],
    ld: &[T],
    diag_inv: &[T],
    x: &mut [T],
    dofs: std::ops::Range<usize>,
) {
    let nv = madr.len();
    let x = &mut x[..nv];
    // equal lengths let one bounds check cover `x[ii]` and `parent[ii]`
    let parent = &parent[..nv];
    crate::work::add(crate::work::Loop::MSolve, dofs.len());
    // Lᵀ y = b (descendants first); row `k` after its diagonal lists k's ancestors in order
    for k in dofs.clone().rev() {
        let xk = x[k];
        if xk == T::zero() {
            continue;
        }
        let mut i = parent[k];
        for &l in &ld[madr[k] + 1..] {
            if i < 0 {
                break;
            }
            let ii = i as usize;
            x[ii] -= l * xk;
            i = parent[ii];
        }
    }
    for (xk, &di) in x[dofs.clone()].iter_mut().zip(&diag_inv[dofs.clone()]) {
        *xk *= di;
    }
    // L x = y (ancestors first)
    for k in dofs {
        let mut i = parent[k];
        let mut s = x[k];
        for &l in &ld[madr[k] + 1..] {
            if i < 0 {
                break;
            }
            let ii = i as usize;
            s -= l * x[ii];
            i = parent[ii];
            crate::work::add(crate::work::Loop::MSolve, 1);
        }
        x[k] = s;
    }
}

/// [`solve_tree`] with the column of every entry given (`col[t]`: the dof of entry `t`, i.e.
/// row `k` from `madr[k]` lists `k` and its ancestors; rows end where the next begins, the last
/// at `ld.len()`): the same operations in the same order, without walking `parent` (fewer
/// instructions: no dependent load of `parent[ii]` and no root test per entry).
pub fn solve_tree_col<T: Scalar>(
    madr: &[usize],
    col: &[usize],
    ld: &[T],
    diag_inv: &[T],
    x: &mut [T],
) {
    let nv = madr.len();
    let x = &mut x[..nv];
    let col = &col[..ld.len()];
    crate::work::add(crate::work::Loop::MSolve, ld.len());
    // the same operations in the same order, four entries at a time, on f64 with AVX2, where
    // the rows are long enough to pay for the kernel's fixed cost (its checks, the masked tail
    // of every row): on average four entries or more below the diagonal a row. Shorter rows
    // take the loops below, which cost fewer instructions there (callgrind, instructions per
    // call, kernel against loops: ball_in_cup 325 against 225, hopper 774 against 725,
    // cheetah and walker 945 against 912; humanoid 4,189 against 5,307, quadruped 3,183
    // against 3,741)
    if ld.len() >= 5 * nv && simd::solve_tree_col(madr, col, ld, diag_inv, x) {
        return;
    }
    // rows end where the next begins: walking down, each row's end is the previous start
    let mut e = ld.len();
    for k in (0..nv).rev() {
        let a = madr[k];
        let (l, c) = (&ld[a + 1..e], &col[a + 1..e]);
        e = a;
        let xk = x[k];
        if xk == T::zero() {
            continue;
        }
        for (&lv, &cv) in l.iter().zip(c) {
            x[cv] -= lv * xk;
        }
    }
    for (xk, &di) in x.iter_mut().zip(&diag_inv[..nv]) {
        *xk *= di;
    }
    for k in 0..nv {
        let a = madr[k] + 1;
        let e = if k + 1 < nv { madr[k + 1] } else { ld.len() };
        let mut s = x[k];
        for (&lv, &cv) in ld[a..e].iter().zip(&col[a..e]) {
            s -= lv * x[cv];
        }
        x[k] = s;
    }
}

/// [`mul_tree`] with the column of every entry given (see [`solve_tree_col`]).
pub fn mul_tree_col<T: Scalar>(madr: &[usize], col: &[usize], mat: &[T], x: &[T], out: &mut [T]) {
    let nv = madr.len();
    let (x, out) = (&x[..nv], &mut out[..nv]);
    for i in 0..nv {
        out[i] = mat[madr[i]] * x[i];
    }
    for i in 0..nv {
        let a = madr[i] + 1;
        let e = if i + 1 < nv { madr[i + 1] } else { mat.len() };
        let xi = x[i];
        let mut oi = out[i];
        for (&v, &j) in mat[a..e].iter().zip(&col[a..e]) {
            oi += v * x[j];
            out[j] += v * xi;
        }
        out[i] = oi;
    }
}

/// `x ← M⁻¹ x` using the factorization in `d` (`mj_solveM`).
pub fn solve_m<T: Scalar>(m: &Model, d: &Data<T>, x: &mut [T]) {
    solve_ld(m, &d.qLD, &d.qLDiagInv, x);
}

/// `out = M x` with the sparse `qM` of `d` (`mj_mulM`).
pub fn mul_m<T: Scalar>(m: &Model, d: &Data<T>, x: &[T], out: &mut [T]) {
    mul_sparse(m, &d.qM, x, out);
}

/// `out = M x` for a symmetric matrix `mat` in the `qM` layout.
pub fn mul_sparse<T: Scalar>(m: &Model, mat: &[T], x: &[T], out: &mut [T]) {
    if m.dof_Mcol.len() == m.nM {
        mul_tree_col(&m.dof_Madr, &m.dof_Mcol, &mat[..m.nM], x, out);
    } else {
        mul_tree(&m.dof_Madr, &m.dof_parentid, mat, x, out);
    }
}

/// [`mul_sparse`] on any tree-sparse layout (see [`factor_tree`]).
pub fn mul_tree<T: Scalar>(madr: &[usize], parent: &[i32], mat: &[T], x: &[T], out: &mut [T]) {
    let nv = madr.len();
    let (x, out) = (&x[..nv], &mut out[..nv]);
    for i in 0..nv {
        out[i] = mat[madr[i]] * x[i];
    }
    for i in 0..nv {
        let mut adr = madr[i];
        let mut j = parent[i];
        while j >= 0 {
            let jj = j as usize;
            adr += 1;
            out[i] += mat[adr] * x[jj];
            out[jj] += mat[adr] * x[i];
            j = parent[jj];
        }
    }
}

/// Expands the sparse `qM` layout into a dense row-major `nv × nv` matrix (`mj_fullM`; for tests
/// and diagnostics, not the hot path).
pub fn full_m<T: Scalar>(m: &Model, mat: &[T], dense: &mut [T]) {
    let nv = m.nv;
    dense.iter_mut().for_each(|x| *x = T::zero());
    for i in 0..nv {
        let mut adr = m.dof_Madr[i];
        dense[i * nv + i] = mat[adr];
        let mut j = dof_parent(m, i);
        while let Some(jj) = j {
            adr += 1;
            dense[i * nv + jj] = mat[adr];
            dense[jj * nv + i] = mat[adr];
            j = dof_parent(m, jj);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A branching dof tree with root paths up to 11 deep (rows long enough for the four-row
    /// passes of [`factor_tree`] and their remainders), its layout, and an SPD matrix with its
    /// sparsity: `Σ_b v_b v_bᵀ + I`, each `v_b` supported on `b`'s root path.
    fn tree_matrix() -> (Vec<i32>, Vec<usize>, Vec<f64>) {
        let parent = vec![
            -1, 0, 1, 2, 3, 4, 5, 6, 5, 8, 9, 10, 2, 12, -1, 14, 15, 16, 17, 18,
        ];
        let nv = parent.len();
        let path = |k: usize| {
            let mut p = vec![k];
            while let Ok(j) = usize::try_from(parent[*p.last().unwrap()]) {
                p.push(j);
            }
            p
        };
        let mut madr = vec![0; nv];
        for k in 1..nv {
            madr[k] = madr[k - 1] + path(k - 1).len();
        }
        let mut ld = vec![0.0; madr[nv - 1] + path(nv - 1).len()];
        let mut seed = 12345u64;
        let mut rand = || {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (seed >> 11) as f64 / (1u64 << 53) as f64 - 0.5
        };
        for b in 0..nv {
            let pb = path(b);
            let v: Vec<f64> = pb.iter().map(|_| rand()).collect();
            // entry (i, j) for j an ancestor of i (or i): row i at the position of j on i's path
            for (x, &i) in pb.iter().enumerate() {
                let pi = path(i);
                for (y, &j) in pb.iter().enumerate().skip(x) {
                    let pos = pi.iter().position(|&q| q == j).unwrap();
                    ld[madr[i] + pos] += v[x] * v[y];
                }
            }
            ld[madr[b]] += 1.0;
        }
        (parent, madr, ld)
    }

    /// [`factor_tree`] equals the plain one-row-at-a-time elimination bit for bit, and its
    /// [`solve_tree`] solves `M x = b` (residual ≤ 1e-13 relative).
    #[test]
    fn factor_tree_matches_row_by_row_elimination() {
        let (parent, madr, m) = tree_matrix();
        let nv = madr.len();
        let mut fast = m.clone();
        let mut dinv = vec![0.0; nv];
        factor_tree(&madr, &parent, &mut fast, &mut dinv);
        // the portable path (the AVX2 one above where the CPU has it) gives the same bits
        let mut portable = m.clone();
        let mut dinv2 = vec![0.0; nv];
        factor_tree_scalar(&madr, &parent, &mut portable, &mut dinv2);
        assert!(fast
            .iter()
            .chain(&dinv)
            .zip(portable.iter().chain(&dinv2))
            .all(|(a, b)| a.to_bits() == b.to_bits()));
        let mut slow = m.clone();
        for k in (0..nv).rev() {
            let len = if k + 1 < nv { madr[k + 1] } else { slow.len() } - madr[k];
            let inv = 1.0 / slow[madr[k]];
            let (mut i, mut off) = (parent[k], 1);
            while i >= 0 {
                let ii = i as usize;
                let a = slow[madr[k] + off] * inv;
                for j in 0..len - off {
                    slow[madr[ii] + j] -= slow[madr[k] + off + j] * a;
                }
                slow[madr[k] + off] = a;
                off += 1;
                i = parent[ii];
            }
        }
        for (t, (f, s)) in fast.iter().zip(&slow).enumerate() {
            assert_eq!(f.to_bits(), s.to_bits(), "entry {t}: {f} vs {s}");
        }
        let b: Vec<f64> = (0..nv).map(|i| (i as f64 * 0.7).sin()).collect();
        let mut x = b.clone();
        solve_tree(&madr, &parent, &fast, &dinv, &mut x);
        let mut r = vec![0.0; nv];
        mul_tree(&madr, &parent, &m, &x, &mut r);
        for i in 0..nv {
            assert!((r[i] - b[i]).abs() <= 1e-13 * (1.0 + b[i].abs()), "row {i}");
        }
    }

    /// [`tree_matrix`] and a [`Model`] of its tree with the cached columns
    /// ([`Model::fill_dof_mcol`]).
    fn tree_model() -> (Vec<i32>, Vec<usize>, Vec<f64>, Model) {
        let (parent, madr, mat) = tree_matrix();
        let mut m = Model {
            nv: madr.len(),
            nM: mat.len(),
            dof_parentid: parent.clone(),
            dof_Madr: madr.clone(),
            ..Default::default()
        };
        m.fill_dof_mcol();
        (parent, madr, mat, m)
    }

    /// The column-indexed [`solve_tree_col`] / [`mul_tree_col`] equal the parent walks
    /// [`solve_tree`] / [`mul_tree`] bit for bit (same operations in the same order), with the
    /// columns from [`Model::fill_dof_mcol`]; a right-hand side with zeros exercises the skipped
    /// rows of the Lᵀ pass.
    #[test]
    fn column_solve_and_product_match_parent_walk() {
        let (parent, madr, mat, mut m) = tree_model();
        let nv = madr.len();
        assert_eq!(m.dof_Mcol.len(), mat.len());
        // row i lists i, then its ancestors
        for (i, &a) in madr.iter().enumerate() {
            assert_eq!(m.dof_Mcol[a], i);
        }
        let mut ld = mat.clone();
        let mut dinv = vec![0.0; nv];
        factor_tree(&madr, &parent, &mut ld, &mut dinv);
        let b: Vec<f64> = (0..nv)
            .map(|i| {
                if i % 3 == 1 {
                    0.0
                } else {
                    (i as f64 * 0.7).sin()
                }
            })
            .collect();
        let (mut x1, mut x2) = (b.clone(), b.clone());
        solve_tree(&madr, &parent, &ld, &dinv, &mut x1);
        solve_ld(&m, &ld, &dinv, &mut x2);
        let (mut y1, mut y2) = (vec![0.0; nv], vec![0.0; nv]);
        mul_tree(&madr, &parent, &mat, &b, &mut y1);
        mul_sparse(&m, &mat, &b, &mut y2);
        for i in 0..nv {
            assert_eq!(x1[i].to_bits(), x2[i].to_bits(), "solve, dof {i}");
            assert_eq!(y1[i].to_bits(), y2[i].to_bits(), "product, dof {i}");
        }
        // without the cached columns the parent walk is used
        m.dof_Mcol.clear();
        let mut x3 = b.clone();
        solve_ld(&m, &ld, &dinv, &mut x3);
        assert_eq!(x1, x3);
    }

    /// A column past the dofs stops [`solve_tree_col`] with a panic (the scalar loops'
    /// indexing; the AVX2 kernel checks every column before it reads or writes `x` there), in
    /// either pass: a far column in the middle of a long row, and one just past nv.
    #[test]
    fn column_solve_panics_on_a_column_past_nv() {
        let (parent, madr, mat, m) = tree_model();
        let nv = madr.len();
        let mut dinv = vec![0.0; nv];
        let mut ld = mat.clone();
        factor_tree(&madr, &parent, &mut ld, &mut dinv);
        let (madr, ld, dinv) = (&madr, &ld, &dinv);
        // row 11 holds 11 and its 9 ancestors
        for bad in [usize::MAX / 2, 1 << 40, nv] {
            for x0 in [1.0, 0.0] {
                let mut col = m.dof_Mcol.clone();
                col[madr[11] + 2] = bad;
                // x0 = 0 skips row 11 in the backward pass: the forward pass meets the column
                let mut x: Vec<f64> = (0..nv).map(|i| if i == 11 { x0 } else { 1.0 }).collect();
                let r = std::panic::catch_unwind(move || {
                    solve_tree_col(madr, &col, ld, dinv, &mut x);
                });
                assert!(r.is_err(), "column {bad}, x_11 = {x0}");
            }
        }
    }
}
