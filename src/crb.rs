//! Joint-space inertia by composite rigid bodies (`mj_crb`) and its sparse LᵀDL factorization
//! (`mj_factorM`, `mj_solveM`, `mj_mulM`); seed 000 "General framework" (M), seed 004
//! "Simulation pipeline" stages 5-6.
//!
//! Layout of `qM`/`qLD` (`nM` entries): row `i` stores `M[i,i], M[i,λ(i)], M[i,λ(λ(i))], …`
//! contiguously from `dof_Madr[i]`, where `λ = dof_parentid`. Only these entries of the lower
//! triangle can be non-zero, and the factorization `M = Lᵀ D L` (L unit lower triangular) has no
//! fill-in: `qLD` holds `D` on the diagonal addresses and `L` below it.

use crate::data::{sc, Data, Scalar};
use crate::model::Model;
use crate::spatial::{dof_parent, inert_mul};

/// Composite inertias `crb` and the sparse `qM`, including `dof_armature` on the diagonal and the
/// tendon armature `Σ_t armature_t J_tᵀ J_t` restricted to the sparsity of `qM` (entries coupling
/// dofs that are not ancestors of each other are dropped, as MuJoCo 4.0.0 does). Needs `ten_J`
/// ([`crate::tendon::tendon`]); fixed tendons only (their `J` is constant, so no bias term).
pub fn crb<T: Scalar>(m: &Model, d: &mut Data<T>) {
    d.crb.copy_from_slice(&d.cinert);
    for b in (1..m.nbody).rev() {
        let p = m.body_parentid[b];
        if p != 0 {
            let c = d.crb[b];
            for (x, y) in d.crb[p].iter_mut().zip(c.iter()) {
                *x += *y;
            }
        }
    }
    for i in 0..m.nv {
        let f = inert_mul(&d.crb[m.dof_bodyid[i]], &d.cdof[i]);
        let mut adr = m.dof_Madr[i];
        d.qM[adr] = d.cdof[i].dot(&f) + sc::<T>(m.dof_armature_eff(i));
        let mut j = dof_parent(m, i);
        while let Some(jj) = j {
            adr += 1;
            d.qM[adr] = d.cdof[jj].dot(&f);
            j = dof_parent(m, jj);
        }
    }
    let nv = m.nv;
    for t in 0..m.ntendon {
        let arm = m.tendon_armature_eff(t);
        if arm == 0.0 {
            continue;
        }
        let arm: T = sc(arm);
        let row = &d.ten_J[t * nv..(t + 1) * nv];
        for i in 0..nv {
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
    }
}

/// LᵀDL factorization of `qM` into `qLD` and `qLDiagInv` (no fill-in, see module docs).
pub fn factor_m<T: Scalar>(m: &Model, d: &mut Data<T>) {
    d.qLD.copy_from_slice(&d.qM);
    factor_ld(m, &mut d.qLD, &mut d.qLDiagInv);
}

/// Length of row `k` of the `qM` layout (the dof and its ancestors).
#[inline]
fn row_len(m: &Model, k: usize) -> usize {
    if k + 1 < m.nv {
        m.dof_Madr[k + 1] - m.dof_Madr[k]
    } else {
        m.nM - m.dof_Madr[k]
    }
}

/// In-place LᵀDL factorization of a matrix in the `qM` layout; writes `1/D` into `diag_inv`.
/// Row `k` from position `off` lists exactly the ancestors of `ii = λ^off(k)`, i.e. row `ii`,
/// so each elimination step is one contiguous axpy on row `ii`.
pub fn factor_ld<T: Scalar>(m: &Model, ld: &mut [T], diag_inv: &mut [T]) {
    for k in (0..m.nv).rev() {
        let ak = m.dof_Madr[k];
        let len = row_len(m, k);
        let (head, tail) = ld.split_at_mut(ak);
        let rowk = &mut tail[..len];
        let dk = rowk[0];
        let mut i = dof_parent(m, k);
        let mut off = 1;
        while let Some(ii) = i {
            let a = rowk[off] / dk;
            let ai = m.dof_Madr[ii];
            let n = len - off;
            for (y, x) in head[ai..ai + n].iter_mut().zip(&rowk[off..]) {
                *y -= *x * a;
            }
            rowk[off] = a;
            off += 1;
            i = dof_parent(m, ii);
        }
    }
    for k in 0..m.nv {
        diag_inv[k] = T::one() / ld[m.dof_Madr[k]];
    }
}

/// Solves `M x = b` in place (`x` holds `b` on entry) with a factorization from [`factor_ld`].
pub fn solve_ld<T: Scalar>(m: &Model, ld: &[T], diag_inv: &[T], x: &mut [T]) {
    // Lᵀ y = b (descendants first)
    for k in (0..m.nv).rev() {
        let xk = x[k];
        if xk == T::zero() {
            continue;
        }
        let mut adr = m.dof_Madr[k];
        let mut i = dof_parent(m, k);
        while let Some(ii) = i {
            adr += 1;
            x[ii] -= ld[adr] * xk;
            i = dof_parent(m, ii);
        }
    }
    for k in 0..m.nv {
        x[k] *= diag_inv[k];
    }
    // L x = y (ancestors first)
    for k in 0..m.nv {
        let mut adr = m.dof_Madr[k];
        let mut i = dof_parent(m, k);
        let mut s = x[k];
        while let Some(ii) = i {
            adr += 1;
            s -= ld[adr] * x[ii];
            i = dof_parent(m, ii);
        }
        x[k] = s;
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
    for i in 0..m.nv {
        out[i] = mat[m.dof_Madr[i]] * x[i];
    }
    for i in 0..m.nv {
        let mut adr = m.dof_Madr[i];
        let mut j = dof_parent(m, i);
        while let Some(jj) = j {
            adr += 1;
            out[i] += mat[adr] * x[jj];
            out[jj] += mat[adr] * x[i];
            j = dof_parent(m, jj);
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
