//! Small dense kernels generic over the scalar (row-major storage): M from the tree-sparse qM,
//! Cholesky factor/solve, J and Jᵀ products. Stand-ins until the smooth pipeline's sparse
//! factorization (`crb::solve_m`) is used here.

#![allow(clippy::needless_range_loop)] // index-based numeric kernels

use crate::data::{sc, Scalar};
use crate::model::Model;

/// Dense symmetric M (nv × nv) from MuJoCo's tree-sparse `qM`: row i stores M[i,i] at
/// `dof_Madr[i]`, then M[i,p], M[i,p'], ... along the ancestors p = `dof_parentid[i]`, ...
pub fn full_m<T: Scalar>(m: &Model, qm: &[T], out: &mut [T]) {
    let nv = m.nv;
    out[..nv * nv].fill(T::zero());
    for i in 0..nv {
        let mut adr = m.dof_Madr[i];
        let mut j = i as i32;
        while j >= 0 {
            let ju = j as usize;
            out[i * nv + ju] = qm[adr];
            out[ju * nv + i] = qm[adr];
            adr += 1;
            j = m.dof_parentid[ju];
        }
    }
}

/// In-place Cholesky A = L Lᵀ of the n × n symmetric matrix `a` (lower triangle used, L written
/// there; the strict upper triangle is left unspecified). Pivots below 1e-15 are replaced by
/// 1e-15 (mjMINVAL) as MuJoCo does. Returns the number of replaced pivots.
pub fn chol_factor<T: Scalar>(a: &mut [T], n: usize) -> usize {
    let mut nbad = 0;
    let minval: T = sc(1e-15);
    for j in 0..n {
        let mut s = a[j * n + j];
        for k in 0..j {
            s -= a[j * n + k] * a[j * n + k];
        }
        if s < minval {
            s = minval;
            nbad += 1;
        }
        let ljj = s.sqrt();
        a[j * n + j] = ljj;
        for i in j + 1..n {
            let mut s = a[i * n + j];
            for k in 0..j {
                s -= a[i * n + k] * a[j * n + k];
            }
            a[i * n + j] = s / ljj;
        }
    }
    nbad
}

/// Solves (L Lᵀ) x = b in place (`x` holds b on entry), with L from [`chol_factor`].
pub fn chol_solve<T: Scalar>(l: &[T], n: usize, x: &mut [T]) {
    for i in 0..n {
        let mut s = x[i];
        for k in 0..i {
            s -= l[i * n + k] * x[k];
        }
        x[i] = s / l[i * n + i];
    }
    for i in (0..n).rev() {
        let mut s = x[i];
        for k in i + 1..n {
            s -= l[k * n + i] * x[k];
        }
        x[i] = s / l[i * n + i];
    }
}

/// y = A x for the row-major r × c matrix A.
pub fn mul<T: Scalar>(a: &[T], x: &[T], r: usize, c: usize, y: &mut [T]) {
    for i in 0..r {
        y[i] = dot(&a[i * c..(i + 1) * c], x);
    }
}

/// y = Jᵀ f for the row-major nefc × nv matrix J.
pub fn mul_jt<T: Scalar>(j: &[T], f: &[T], nefc: usize, nv: usize, y: &mut [T]) {
    y[..nv].fill(T::zero());
    for i in 0..nefc {
        let fi = f[i];
        if fi == T::zero() {
            continue;
        }
        for (yk, jk) in y.iter_mut().zip(&j[i * nv..(i + 1) * nv]) {
            *yk += *jk * fi;
        }
    }
}

/// Dot product.
#[inline]
pub fn dot<T: Scalar>(a: &[T], b: &[T]) -> T {
    let mut s = T::zero();
    for (x, y) in a.iter().zip(b) {
        s += *x * *y;
    }
    s
}
