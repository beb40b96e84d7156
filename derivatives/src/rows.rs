//! Row-block linear algebra on many right-hand sides at once: `x` holds an `n × c` matrix
//! row-major (row `k` at `x[k c..(k+1) c]`), so every update is a contiguous axpy over the `c`
//! columns.

#![allow(clippy::needless_range_loop)]

use moreau::model::Model;
use moreau::pipeline::dof_parent;
use moreau::Data;
use nalgebra::DMatrix;

fn scale(x: &mut [f64], c: usize, k: usize, a: f64) {
    for y in &mut x[k * c..k * c + c] {
        *y *= a;
    }
}

/// `row i ← s0 · row i − Σ_k a_k · row k` over `ks` (all `k ≠ i`), eight/four/two source rows per sweep; the
/// same code compiled for AVX2 when the CPU has it (4 lanes instead of SSE2's 2; no FMA
/// contraction, so the results are bit-identical).
fn gather(x: &mut [f64], c: usize, i: usize, s0: f64, ks: &[usize], a: &[f64], tmp: &mut [f64]) {
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx2") {
        // SAFETY: the CPU supports AVX2 (checked just above); the body is safe code.
        unsafe { gather_avx2(x, c, i, s0, ks, a, tmp) };
        return;
    }
    gather_body(x, c, i, s0, ks, a, tmp);
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn gather_avx2(
    x: &mut [f64],
    c: usize,
    i: usize,
    s0: f64,
    ks: &[usize],
    a: &[f64],
    tmp: &mut [f64],
) {
    gather_body(x, c, i, s0, ks, a, tmp);
}

#[inline(always)]
fn gather_body(
    x: &mut [f64],
    c: usize,
    i: usize,
    s0: f64,
    ks: &[usize],
    a: &[f64],
    tmp: &mut [f64],
) {
    // every slice below has length c: lets the inner loops run without bounds checks
    let tmp = &mut tmp[..c];
    let a = &a[..ks.len()];
    for (t, y) in tmp.iter_mut().zip(&x[i * c..i * c + c]) {
        *t = s0 * *y;
    }
    let mut p = 0;
    while p + 8 <= ks.len() {
        let r: [usize; 8] = std::array::from_fn(|q| ks[p + q] * c);
        let b: [f64; 8] = std::array::from_fn(|q| a[p + q]);
        let xs: [&[f64]; 8] = std::array::from_fn(|q| &x[r[q]..r[q] + c]);
        let [x0, x1, x2, x3, x4, x5, x6, x7] = xs;
        for t in 0..c {
            tmp[t] -= (b[0] * x0[t] + b[1] * x1[t] + b[2] * x2[t] + b[3] * x3[t])
                + (b[4] * x4[t] + b[5] * x5[t] + b[6] * x6[t] + b[7] * x7[t]);
        }
        p += 8;
    }
    while p + 4 <= ks.len() {
        let (r0, r1, r2, r3) = (ks[p] * c, ks[p + 1] * c, ks[p + 2] * c, ks[p + 3] * c);
        let (a0, a1, a2, a3) = (a[p], a[p + 1], a[p + 2], a[p + 3]);
        let (x0, x1, x2, x3) = (
            &x[r0..r0 + c],
            &x[r1..r1 + c],
            &x[r2..r2 + c],
            &x[r3..r3 + c],
        );
        for t in 0..c {
            tmp[t] -= a0 * x0[t] + a1 * x1[t] + a2 * x2[t] + a3 * x3[t];
        }
        p += 4;
    }
    if p + 2 <= ks.len() {
        let (r0, r1) = (ks[p] * c, ks[p + 1] * c);
        let (a0, a1) = (a[p], a[p + 1]);
        let (x0, x1) = (&x[r0..r0 + c], &x[r1..r1 + c]);
        for t in 0..c {
            tmp[t] -= a0 * x0[t] + a1 * x1[t];
        }
        p += 2;
    }
    while p < ks.len() {
        let r = ks[p] * c;
        let ap = a[p];
        for (y, z) in tmp.iter_mut().zip(&x[r..r + c]) {
            *y -= ap * *z;
        }
        p += 1;
    }
    x[i * c..i * c + c].copy_from_slice(tmp);
}

/// `x ← (L Lᵀ)⁻¹ x`, `L` row-major `n × n` from `chol_factor`.
pub fn chol_solve(l: &[f64], n: usize, x: &mut [f64], c: usize) {
    let mut tmp = vec![0.0; c];
    let mut ks = Vec::with_capacity(n);
    let mut a = Vec::with_capacity(n);
    for i in 0..n {
        ks.clear();
        a.clear();
        ks.extend(0..i);
        a.extend_from_slice(&l[i * n..i * n + i]);
        gather(x, c, i, 1.0, &ks, &a, &mut tmp);
        scale(x, c, i, 1.0 / l[i * n + i]);
    }
    for i in (0..n).rev() {
        ks.clear();
        a.clear();
        ks.extend(i + 1..n);
        a.extend((i + 1..n).map(|k| l[k * n + i]));
        gather(x, c, i, 1.0, &ks, &a, &mut tmp);
        scale(x, c, i, 1.0 / l[i * n + i]);
    }
}

/// `ld += JᵀHJ` in qM's layout (every coupled pair of rows on one dof chain) and
/// `x[:, nv..2nv] −= JᵀH diag(B) J` (`jd`: the rows expanded, `x` row-major with `c`
/// columns); the ancestor lists of `s` (built) give each row's qM addresses. Compiled for
/// AVX2 as well (no FMA contraction).
#[allow(clippy::too_many_arguments)]
pub fn add_jhj(
    m: &Model,
    d: &Data<f64>,
    h: &DMatrix<f64>,
    jd: &[f64],
    c: usize,
    ld: &mut [f64],
    x: &mut [f64],
    s: &Scratch,
) {
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx2") {
        // SAFETY: the CPU supports AVX2 (checked just above); the body is safe code.
        unsafe { add_jhj_avx2(m, d, h, jd, c, ld, x, s) };
        return;
    }
    add_jhj_body(m, d, h, jd, c, ld, x, s);
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
#[allow(clippy::too_many_arguments)]
unsafe fn add_jhj_avx2(
    m: &Model,
    d: &Data<f64>,
    h: &DMatrix<f64>,
    jd: &[f64],
    c: usize,
    ld: &mut [f64],
    x: &mut [f64],
    s: &Scratch,
) {
    add_jhj_body(m, d, h, jd, c, ld, x, s);
}

#[inline(always)]
#[allow(clippy::too_many_arguments)]
fn add_jhj_body(
    m: &Model,
    d: &Data<f64>,
    h: &DMatrix<f64>,
    jd: &[f64],
    c: usize,
    ld: &mut [f64],
    x: &mut [f64],
    s: &Scratch,
) {
    let (nv, n) = (m.nv, h.nrows());
    for r in 0..n {
        for q in 0..n {
            let hrq = h[(r, q)];
            if hrq == 0.0 {
                continue;
            }
            let (jr, jq) = (&jd[r * nv..(r + 1) * nv], &jd[q * nv..(q + 1) * nv]);
            let b = d.efc_KBIP[q][1];
            // the velocity-column update spans row q's nonzeros only
            let lo = jq.iter().position(|&z| z != 0.0).unwrap_or(0);
            let hi = jq.iter().rposition(|&z| z != 0.0).map_or(lo, |h| h + 1);
            for k in 0..nv {
                if jr[k] == 0.0 {
                    continue;
                }
                let a = hrq * jr[k];
                // (JᵀHJ)_kl for l on k's chain (row k of the qM layout)
                // (row k's ancestor entries follow its diagonal contiguously)
                let a0 = m.dof_Madr[k];
                let anc = &s.aidx[s.aptr[k]..s.aptr[k + 1]];
                let row = &mut ld[a0..a0 + 1 + anc.len()];
                row[0] += a * jq[k];
                for (o, &l) in row[1..].iter_mut().zip(anc) {
                    *o += a * jq[l];
                }
                let ab = a * b;
                let y = &mut x[k * c + nv + lo..k * c + nv + hi];
                for (y, z) in y.iter_mut().zip(&jq[lo..hi]) {
                    *y -= ab * *z;
                }
            }
        }
    }
}

/// Scratch of [`ld_solve`]: the descendants of every dof with the qM address of their
/// factor entry (compressed rows), the ancestors likewise, and one row of `c` values.
#[derive(Default)]
pub struct Scratch {
    ptr: Vec<usize>,
    idx: Vec<usize>,
    adr: Vec<usize>,
    aptr: Vec<usize>,
    aidx: Vec<usize>,
    aadr: Vec<usize>,
    vals: Vec<f64>,
    tmp: Vec<f64>,
    /// The tree the lists were built for (`dof_parentid`, `dof_Madr`).
    parent: Vec<i32>,
    madr: Vec<usize>,
}

impl Scratch {
    pub(crate) fn build(&mut self, m: &Model) {
        if self.parent == m.dof_parentid && self.madr == m.dof_Madr {
            return;
        }
        self.parent.clone_from(&m.dof_parentid);
        self.madr.clone_from(&m.dof_Madr);
        let nv = m.nv;
        self.ptr.clear();
        self.ptr.resize(nv + 1, 0);
        self.aptr.clear();
        self.aptr.push(0);
        self.aidx.clear();
        self.aadr.clear();
        for k in 0..nv {
            let mut adr = m.dof_Madr[k];
            let mut i = dof_parent(m, k);
            while let Some(ii) = i {
                adr += 1;
                self.ptr[ii + 1] += 1;
                self.aidx.push(ii);
                self.aadr.push(adr);
                i = dof_parent(m, ii);
            }
            self.aptr.push(self.aidx.len());
        }
        for i in 0..nv {
            self.ptr[i + 1] += self.ptr[i];
        }
        let n = self.ptr[nv];
        self.idx.resize(n, 0);
        self.adr.resize(n, 0);
        let mut fill = self.ptr[..nv].to_vec();
        for k in 0..nv {
            for p in self.aptr[k]..self.aptr[k + 1] {
                let i = self.aidx[p];
                self.idx[fill[i]] = k;
                self.adr[fill[i]] = self.aadr[p];
                fill[i] += 1;
            }
        }
    }
}

/// `x ← A⁻¹ x` with `A`'s tree-sparse LᵀDL factor (`factor_ld`, qM layout): both
/// triangular sweeps as row gathers (descendants, then ancestors).
pub fn ld_solve(m: &Model, ld: &[f64], diag_inv: &[f64], x: &mut [f64], c: usize, s: &mut Scratch) {
    let nv = m.nv;
    s.build(m);
    s.tmp.resize(c, 0.0);
    for i in (0..nv).rev() {
        let r = s.ptr[i]..s.ptr[i + 1];
        if r.is_empty() {
            continue;
        }
        s.vals.clear();
        s.vals.extend(s.adr[r.clone()].iter().map(|&a| ld[a]));
        gather(x, c, i, 1.0, &s.idx[r], &s.vals, &mut s.tmp);
    }
    for k in 0..nv {
        let r = s.aptr[k]..s.aptr[k + 1];
        if r.is_empty() {
            scale(x, c, k, diag_inv[k]);
            continue;
        }
        // row k of the qM layout: the ancestors' entries follow the diagonal in order; the
        // diagonal scale applied on the way in
        let a0 = m.dof_Madr[k] + 1;
        let vals = &ld[a0..a0 + r.len()];
        gather(x, c, k, diag_inv[k], &s.aidx[r], vals, &mut s.tmp);
    }
}

/// `y = A x` for a symmetric `A` in the qM layout.
pub fn sparse_mul(m: &Model, a: &[f64], x: &[f64], y: &mut [f64], c: usize) {
    for i in 0..m.nv {
        let d = a[m.dof_Madr[i]];
        for (u, v) in y[i * c..i * c + c].iter_mut().zip(&x[i * c..i * c + c]) {
            *u = d * *v;
        }
    }
    for i in 0..m.nv {
        let mut adr = m.dof_Madr[i];
        let mut j = dof_parent(m, i);
        while let Some(jj) = j {
            adr += 1;
            let v = a[adr];
            for t in 0..c {
                y[i * c + t] += v * x[jj * c + t];
                y[jj * c + t] += v * x[i * c + t];
            }
            j = dof_parent(m, jj);
        }
    }
}
