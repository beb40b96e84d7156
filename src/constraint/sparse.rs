//! Sparse constraint Jacobian (MuJoCo's `<option jacobian="sparse|dense|auto">`, `mj_isSparse`).
//!
//! In sparse mode `efc_J` holds only the values of each row's column pattern, in compressed row
//! form: row `i` has `efc_J_rownnz[i]` entries from `efc_J_rowadr[i]`, at the ascending dofs
//! `efc_J_colind[..]`; `efc_J_rowsuper[i]` counts the following rows with the same pattern.
//! The patterns are MuJoCo 4.0.0's, structural zeros included (checked against the oracle,
//! `tests/engine/sparse_oracle.rs`):
//! - contact: the dofs of the two bodies' chains that are not shared (the common ancestors'
//!   columns of `J(b2, p) − J(b1, p)` cancel exactly, so MuJoCo leaves them out);
//! - connect, weld: the union of the two bodies' chains (shared ancestors included);
//! - joint equality: the one or two joints' dofs; dof friction loss and hinge/slide limits: the
//!   dof; ball limits: its 3 dofs;
//! - tendon rows: the tendon's pattern (fixed: its joints' dofs, zero coefficients included;
//!   spatial: the union of the chains of the bodies its sites and wrap geoms sit on), for a
//!   tendon equality the union of both tendons' patterns.
//!
//! MuJoCo 4.0.0 has no transposed `efc_JT` any more; moreau forms `Jᵀf` by scattering rows.

use crate::data::scratch::SparseScratch;
use crate::data::Data;
use crate::math::spatial::dof_chain;
use crate::math::Scalar;
use crate::model::Model;

pub use crate::data::efc::is_sparse;

/// One row of `efc_J`: all `nv` values (dense) or the values at `cols` (sparse).
#[derive(Clone, Copy, Debug)]
pub struct JRow<'a, T> {
    pub cols: Option<&'a [usize]>,
    pub vals: &'a [T],
}

impl<T: Scalar> JRow<'_, T> {
    /// `J_i · x` (sequential sum in column order).
    #[inline]
    pub fn dot(&self, x: &[T]) -> T {
        let mut s = T::zero();
        match self.cols {
            None => {
                // four terms per pass, still added one after another in column order
                let n = self.vals.len().min(x.len());
                let (a, b) = (&self.vals[..n], &x[..n]);
                let (a4, b4) = (a.chunks_exact(4), b.chunks_exact(4));
                let (ar, br) = (a4.remainder(), b4.remainder());
                for (a, b) in a4.zip(b4) {
                    s += a[0] * b[0];
                    s += a[1] * b[1];
                    s += a[2] * b[2];
                    s += a[3] * b[3];
                }
                for (a, b) in ar.iter().zip(br) {
                    s += *a * *b;
                }
            }
            Some(c) => {
                for (a, &k) in self.vals.iter().zip(c) {
                    s += *a * x[k];
                }
            }
        }
        s
    }

    /// `y += f J_iᵀ`.
    #[inline]
    pub fn axpy(&self, f: T, y: &mut [T]) {
        match self.cols {
            None => {
                for (q, a) in y.iter_mut().zip(self.vals) {
                    *q += *a * f;
                }
            }
            Some(c) => {
                for (a, &k) in self.vals.iter().zip(c) {
                    y[k] += *a * f;
                }
            }
        }
    }

    /// Writes the dense row into `out` (`nv` entries).
    pub fn expand(&self, out: &mut [T]) {
        match self.cols {
            None => out.copy_from_slice(self.vals),
            Some(c) => {
                out.fill(T::zero());
                for (a, &k) in self.vals.iter().zip(c) {
                    out[k] = *a;
                }
            }
        }
    }
}

impl<T: Scalar> Data<T> {
    /// Row `i` of `efc_J` in whichever layout it is stored (`nv` = `m.nv`).
    #[inline(always)]
    pub fn efc_J_row(&self, i: usize, nv: usize) -> JRow<'_, T> {
        if self.efc_J_sparse {
            let (a, n) = (self.efc_J_rowadr[i], self.efc_J_rownnz[i]);
            JRow {
                cols: Some(&self.efc_J_colind[a..a + n]),
                vals: &self.efc_J[a..a + n],
            }
        } else {
            JRow {
                cols: None,
                vals: &self.efc_J[i * nv..(i + 1) * nv],
            }
        }
    }

    /// `efc_J` as a dense `nefc × nv` row-major matrix (allocates; for output and analysis).
    pub fn efc_J_dense(&self, nv: usize) -> Vec<T> {
        let mut out = vec![T::zero(); self.nefc * nv];
        for i in 0..self.nefc {
            self.efc_J_row(i, nv).expand(&mut out[i * nv..(i + 1) * nv]);
        }
        out
    }
}

/// Appends the ascending union of the ascending lists `a`, `b` to `out`; with `exclusive`,
/// only the entries in exactly one of them.
fn merge(a: &[usize], b: &[usize], exclusive: bool, out: &mut Vec<usize>) {
    let (mut i, mut j) = (0, 0);
    while i < a.len() || j < b.len() {
        if j == b.len() || (i < a.len() && a[i] < b[j]) {
            out.push(a[i]);
            i += 1;
        } else if i == a.len() || b[j] < a[i] {
            out.push(b[j]);
            j += 1;
        } else {
            if !exclusive {
                out.push(a[i]);
            }
            i += 1;
            j += 1;
        }
    }
}

impl SparseScratch {
    /// Pattern of tendon `t`.
    pub fn ten_cols(&self, t: usize) -> &[usize] {
        let a = self.ten_J_rowadr[t];
        &self.ten_J_colind[a..a + self.ten_J_rownnz[t]]
    }

    /// Appends the pattern of a two-body row to `out`: the union of the chains of `b1` and
    /// `b2`, or (`exclusive`, contacts) the dofs in exactly one of them.
    pub fn body_pair(
        &mut self,
        m: &Model,
        b1: usize,
        b2: usize,
        exclusive: bool,
        out: &mut Vec<usize>,
    ) {
        self.c1.clear();
        self.c2.clear();
        dof_chain(m, b1, &mut self.c1);
        dof_chain(m, b2, &mut self.c2);
        self.c1.reverse();
        self.c2.reverse();
        merge(&self.c1, &self.c2, exclusive, out);
    }

    /// Appends the union of the patterns of tendons `t1` and `t2` (or `t1` alone) to `out`.
    pub fn tendon_pair(&self, t1: usize, t2: Option<usize>, out: &mut Vec<usize>) {
        match t2 {
            None => out.extend_from_slice(self.ten_cols(t1)),
            Some(t2) => merge(self.ten_cols(t1), self.ten_cols(t2), false, out),
        }
    }
}
