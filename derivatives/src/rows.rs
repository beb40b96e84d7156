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

/// `row i ← s0 · row i − Σ_k a_k · row k` over the source rows `k` at offsets `ks` (`k c`, in
/// `x`): the source rows in groups of eight, then
/// four, then two, then one, each group's products summed left to right (an eight as two fours)
/// and subtracted from the row. With AVX2 and `c ≥ 16` ([`gather_avx2`]) the row is formed
/// sixteen columns at a time in registers, each source row read once per block of columns;
/// otherwise [`gather_body`] sweeps the sources over the whole row. Both do the same operations
/// on every column in the same order (no FMA contraction), so the results are bit-identical.
///
/// # Safety
/// Every offset in `ks` is `k c` for a row `k ≠ i`, rows `i` and every `k` lie in `x`
/// (`(k + 1) c ≤ x.len()`), and `a.len() ≥ ks.len()`.
unsafe fn gather(
    x: &mut [f64],
    c: usize,
    i: usize,
    s0: f64,
    ks: &[usize],
    a: &[f64],
    tmp: &mut [f64],
) {
    debug_assert!(ks
        .iter()
        .all(|&o| o % c == 0 && o != i * c && o + c <= x.len()));
    #[cfg(target_arch = "x86_64")]
    if c >= 16 && std::arch::is_x86_feature_detected!("avx2") {
        // SAFETY: the CPU supports AVX2 (checked just above), c ≥ 16; the rows as the caller
        // guarantees
        unsafe { gather_avx2(x.as_mut_ptr(), c, i, s0, ks, a) };
        return;
    }
    gather_body(x, c, i, s0, ks, a, tmp);
}

/// [`gather`] with the row formed in registers, sixteen columns (four vectors) at a time: every
/// block's value is held in registers while all source groups are added, then stored. Where `c`
/// is not a multiple of 16 the last block is `[c − 16, c)`, overlapping the one before it: it is
/// formed first (from the row's old values) and stored last; its overlapping lanes get the
/// same values as the other block's.
///
/// # Safety
/// AVX2; `c ≥ 16`; `x` holds row `i` and the rows at offsets `ks` (`c` columns each), none of
/// them row `i`; `a.len() ≥ ks.len()`.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn gather_avx2(x: *mut f64, c: usize, i: usize, s0: f64, ks: &[usize], a: &[f64]) {
    use std::arch::x86_64::*;
    let n = ks.len();
    let tail = !c.is_multiple_of(16);
    let nblk = c / 16 + usize::from(tail);
    let scale = s0 != 1.0;
    // SAFETY: every block lies in [0, c) of rows i and ks (the caller's contract); ks[p] and
    // a[p] are read for p < n only
    unsafe {
        let out = x.add(i * c);
        let src = x as *const f64;
        let s = _mm256_set1_pd(s0);
        let mut last = [_mm256_setzero_pd(); 4];
        for blk in 0..nblk {
            // the tail block first
            let j = match (tail, blk) {
                (true, 0) => c - 16,
                (true, _) => 16 * (blk - 1),
                _ => 16 * blk,
            };
            let row = |p: usize| src.add(*ks.get_unchecked(p) + j);
            let coef = |p: usize| _mm256_set1_pd(*a.get_unchecked(p));
            // Σ of the products of sources p..p + m, left to right
            let sum = |p: usize, m: usize| -> [__m256d; 4] {
                let (r, b) = (row(p), coef(p));
                let mut h = [
                    _mm256_mul_pd(b, _mm256_loadu_pd(r)),
                    _mm256_mul_pd(b, _mm256_loadu_pd(r.add(4))),
                    _mm256_mul_pd(b, _mm256_loadu_pd(r.add(8))),
                    _mm256_mul_pd(b, _mm256_loadu_pd(r.add(12))),
                ];
                for q in p + 1..p + m {
                    let (r, b) = (row(q), coef(q));
                    for (v, h) in h.iter_mut().enumerate() {
                        *h = _mm256_add_pd(*h, _mm256_mul_pd(b, _mm256_loadu_pd(r.add(4 * v))));
                    }
                }
                h
            };
            let mut acc = [
                _mm256_loadu_pd(out.add(j)),
                _mm256_loadu_pd(out.add(j + 4)),
                _mm256_loadu_pd(out.add(j + 8)),
                _mm256_loadu_pd(out.add(j + 12)),
            ];
            if scale {
                for v in &mut acc {
                    *v = _mm256_mul_pd(s, *v);
                }
            }
            let mut p = 0;
            while p + 8 <= n {
                let (h1, h2) = (sum(p, 4), sum(p + 4, 4));
                for v in 0..4 {
                    acc[v] = _mm256_sub_pd(acc[v], _mm256_add_pd(h1[v], h2[v]));
                }
                p += 8;
            }
            let mut sub = |h: [__m256d; 4]| {
                for v in 0..4 {
                    acc[v] = _mm256_sub_pd(acc[v], h[v]);
                }
            };
            while p + 4 <= n {
                sub(sum(p, 4));
                p += 4;
            }
            if p + 2 <= n {
                sub(sum(p, 2));
                p += 2;
            }
            while p < n {
                sub(sum(p, 1));
                p += 1;
            }
            if tail && blk == 0 {
                last = acc;
            } else {
                for (v, y) in acc.iter().enumerate() {
                    _mm256_storeu_pd(out.add(j + 4 * v), *y);
                }
            }
        }
        if tail {
            for (v, y) in last.iter().enumerate() {
                _mm256_storeu_pd(out.add(c - 16 + 4 * v), *y);
            }
        }
    }
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
        let r: [usize; 8] = std::array::from_fn(|q| ks[p + q]);
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
        let (r0, r1, r2, r3) = (ks[p], ks[p + 1], ks[p + 2], ks[p + 3]);
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
        let (r0, r1) = (ks[p], ks[p + 1]);
        let (a0, a1) = (a[p], a[p + 1]);
        let (x0, x1) = (&x[r0..r0 + c], &x[r1..r1 + c]);
        for t in 0..c {
            tmp[t] -= a0 * x0[t] + a1 * x1[t];
        }
        p += 2;
    }
    while p < ks.len() {
        let r = ks[p];
        let ap = a[p];
        for (y, z) in tmp.iter_mut().zip(&x[r..r + c]) {
            *y -= ap * *z;
        }
        p += 1;
    }
    x[i * c..i * c + c].copy_from_slice(tmp);
}

/// `dst[k ld + i] = s · src[i ls + k]` for `i < n`, `k < m`: the `n × m` block of `src` (row
/// stride `ls`) transposed into `dst` (row stride `ld`), each entry times `s`. With AVX2 in
/// 4 × 4 tiles (four rows loaded, shuffled into four columns, stored); otherwise entry by
/// entry. Each entry is the one product `s · v` either way (`s = ±1` moves it exactly).
pub fn transpose_into(
    src: &[f64],
    ls: usize,
    n: usize,
    m: usize,
    dst: &mut [f64],
    ld: usize,
    s: f64,
) {
    if n == 0 || m == 0 {
        return;
    }
    assert!(
        (n - 1) * ls + m <= src.len() && (m - 1) * ld + n <= dst.len(),
        "transpose_into: the blocks do not fit"
    );
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx2") {
        // SAFETY: the CPU supports AVX2 (checked just above); both blocks lie in their
        // slices (asserted above)
        unsafe { transpose_avx2(src.as_ptr(), ls, n, m, dst.as_mut_ptr(), ld, s) };
        return;
    }
    for i in 0..n {
        for (k, &v) in src[i * ls..i * ls + m].iter().enumerate() {
            dst[k * ld + i] = s * v;
        }
    }
}

/// [`transpose_into`] in 4 × 4 tiles of AVX2 registers, the edges entry by entry.
///
/// # Safety
/// AVX2; `src[i ls + k]` for `i < n`, `k < m` and `dst[k ld + i]` for the same `i`, `k` lie
/// in their allocations.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn transpose_avx2(
    src: *const f64,
    ls: usize,
    n: usize,
    m: usize,
    dst: *mut f64,
    ld: usize,
    s: f64,
) {
    use std::arch::x86_64::*;
    let (n4, m4) = (n - n % 4, m - m % 4);
    // SAFETY: every address below is src[i ls + k] or dst[k ld + i] with i < n, k < m
    unsafe {
        let sv = _mm256_set1_pd(s);
        for i in (0..n4).step_by(4) {
            let r = src.add(i * ls);
            for k in (0..m4).step_by(4) {
                let a = _mm256_mul_pd(sv, _mm256_loadu_pd(r.add(k)));
                let b = _mm256_mul_pd(sv, _mm256_loadu_pd(r.add(ls + k)));
                let c = _mm256_mul_pd(sv, _mm256_loadu_pd(r.add(2 * ls + k)));
                let d = _mm256_mul_pd(sv, _mm256_loadu_pd(r.add(3 * ls + k)));
                // (a0 b0 a2 b2), (a1 b1 a3 b3), (c0 d0 c2 d2), (c1 d1 c3 d3)
                let (t0, t1) = (_mm256_unpacklo_pd(a, b), _mm256_unpackhi_pd(a, b));
                let (t2, t3) = (_mm256_unpacklo_pd(c, d), _mm256_unpackhi_pd(c, d));
                let o = dst.add(k * ld + i);
                _mm256_storeu_pd(o, _mm256_permute2f128_pd::<0x20>(t0, t2));
                _mm256_storeu_pd(o.add(ld), _mm256_permute2f128_pd::<0x20>(t1, t3));
                _mm256_storeu_pd(o.add(2 * ld), _mm256_permute2f128_pd::<0x31>(t0, t2));
                _mm256_storeu_pd(o.add(3 * ld), _mm256_permute2f128_pd::<0x31>(t1, t3));
            }
            for k in m4..m {
                for e in 0..4 {
                    *dst.add(k * ld + i + e) = s * *src.add((i + e) * ls + k);
                }
            }
        }
        for i in n4..n {
            for k in 0..m {
                *dst.add(k * ld + i) = s * *src.add(i * ls + k);
            }
        }
    }
}

/// `A = Lᵀ D L` in place for the symmetric positive definite `n × n` matrix `a` (row-major;
/// its lower triangle is read), eliminating from the last row up as `factor_ld` does on the
/// tree (MuJoCo's `mj_factorM` order), but on a dense matrix: the strictly lower triangle is
/// overwritten by the unit lower triangular `L`, `dinv` receives `1 / D`. An entry left zero by
/// the elimination stays an exact zero (no operation touches it), so where the rows of `a`
/// couple few dofs (dof trees joined by a few constraint rows) `L` keeps that sparsity and
/// [`ld_solve_dense`] skips it; `nz` is scratch. A pivot below `1e-15` is raised to it, as
/// the dense Cholesky factor of the solver's Newton Hessian does.
pub fn ld_factor_dense(a: &mut [f64], n: usize, dinv: &mut Vec<f64>, nz: &mut Vec<usize>) {
    assert!(
        a.len() >= n * n,
        "ld_factor_dense: a holds fewer than n × n entries"
    );
    dinv.clear();
    dinv.resize(n, 0.0);
    for k in (0..n).rev() {
        // (a NaN pivot stays NaN)
        let dk = if a[k * n + k] < 1e-15 {
            1e-15
        } else {
            a[k * n + k]
        };
        nz.clear();
        nz.extend((0..k).filter(|&i| a[k * n + i] != 0.0));
        // rows i < k: a_ij −= a_ki a_kj / d_k for j ≤ i (row k itself is not written)
        let (head, rowk) = a.split_at_mut(k * n);
        let rowk = &mut rowk[..k];
        for (p, &i) in nz.iter().enumerate() {
            let f = rowk[i] / dk;
            let rowi = &mut head[i * n..i * n + i + 1];
            for &j in &nz[..=p] {
                rowi[j] -= f * rowk[j];
            }
        }
        for &i in nz.iter() {
            rowk[i] /= dk;
        }
        dinv[k] = 1.0 / dk;
    }
}

/// Scratch of [`ld_solve_dense`]: the nonzeros of `L` by row and by column (row offsets for
/// `c` columns and values), and one row of `c` values.
#[derive(Default)]
pub struct DenseScratch {
    rptr: Vec<usize>,
    roff: Vec<usize>,
    rval: Vec<f64>,
    cptr: Vec<usize>,
    coff: Vec<usize>,
    cval: Vec<f64>,
    tmp: Vec<f64>,
}

/// `x ← A⁻¹ x` (`x` row-major `n × c`) with `A`'s dense LᵀDL factor from [`ld_factor_dense`]:
/// both triangular sweeps as row gathers over `L`'s nonzeros only (by column: `Lᵀ y = x` from
/// the last row up; by row with `D⁻¹` applied on the way in: `L x = D⁻¹ y`).
pub fn ld_solve_dense(
    l: &[f64],
    n: usize,
    dinv: &[f64],
    x: &mut [f64],
    c: usize,
    s: &mut DenseScratch,
) {
    assert!(x.len() >= n * c && l.len() >= n * n && dinv.len() >= n);
    s.rptr.clear();
    s.roff.clear();
    s.rval.clear();
    s.rptr.push(0);
    for k in 0..n {
        for (i, &v) in l[k * n..k * n + k].iter().enumerate() {
            if v != 0.0 {
                s.roff.push(i * c);
                s.rval.push(v);
            }
        }
        s.rptr.push(s.roff.len());
    }
    s.cptr.clear();
    s.coff.clear();
    s.cval.clear();
    s.cptr.push(0);
    for i in 0..n {
        for k in i + 1..n {
            let v = l[k * n + i];
            if v != 0.0 {
                s.coff.push(k * c);
                s.cval.push(v);
            }
        }
        s.cptr.push(s.coff.len());
    }
    s.tmp.resize(c, 0.0);
    for i in (0..n).rev() {
        let r = s.cptr[i]..s.cptr[i + 1];
        if !r.is_empty() {
            // SAFETY: the sources are rows k > i < n, all in x (asserted above)
            unsafe { gather(x, c, i, 1.0, &s.coff[r.clone()], &s.cval[r], &mut s.tmp) };
        }
    }
    for k in 0..n {
        let r = s.rptr[k]..s.rptr[k + 1];
        if r.is_empty() {
            scale(x, c, k, dinv[k]);
        } else {
            // SAFETY: the sources are rows i < k, all in x (asserted above)
            unsafe { gather(x, c, k, dinv[k], &s.roff[r.clone()], &s.rval[r], &mut s.tmp) };
        }
    }
}

/// Every row's nonzero dofs, once (the coupled pairs of [`add_jhj`] and [`add_jhj_dense`] visit
/// each row many times): `nz` the dofs of row `r` ascending at `span[r][0]..span[r][1]`, and
/// `span[r][2]..span[r][3]` the dofs from its first nonzero to its last (`0..0` for a zero row).
fn row_spans(jd: &[f64], nv: usize, n: usize, nz: &mut Vec<usize>, span: &mut Vec<[usize; 4]>) {
    nz.clear();
    span.clear();
    for r in 0..n {
        let jr = &jd[r * nv..(r + 1) * nv];
        let p0 = nz.len();
        nz.extend((0..nv).filter(|&k| jr[k] != 0.0));
        let p1 = nz.len();
        let (lo, hi) = if p1 > p0 {
            (nz[p0], nz[p1 - 1] + 1)
        } else {
            (0, 0)
        };
        span.push([p0, p1, lo, hi]);
    }
}

/// `a += JᵀHJ` on the lower triangle of the dense row-major `nv × nv` matrix `a` and
/// `x[:, nv..2nv] −= JᵀH diag(B) J` (`jd`: the rows expanded, `x` row-major with `c` columns):
/// [`add_jhj`] for a matrix without M's tree sparsity.
#[allow(clippy::too_many_arguments)]
pub fn add_jhj_dense(
    nv: usize,
    d: &Data<f64>,
    h: &DMatrix<f64>,
    jd: &[f64],
    c: usize,
    a: &mut [f64],
    x: &mut [f64],
    nz: &mut Vec<usize>,
    span: &mut Vec<[usize; 4]>,
) {
    let n = h.nrows();
    row_spans(jd, nv, n, nz, span);
    for r in 0..n {
        let [p0, p1, _, _] = span[r];
        for q in 0..n {
            let hrq = h[(r, q)];
            if hrq == 0.0 {
                continue;
            }
            let (jr, jq) = (&jd[r * nv..(r + 1) * nv], &jd[q * nv..(q + 1) * nv]);
            let b = d.efc_KBIP[q][1];
            let [_, _, lo, hi] = span[q];
            for &k in &nz[p0..p1] {
                let f = hrq * jr[k];
                let row = &mut a[k * nv..k * nv + nv];
                for (o, z) in row[lo..hi.min(k + 1).max(lo)].iter_mut().zip(&jq[lo..]) {
                    *o += f * *z;
                }
                let fb = f * b;
                let y = &mut x[k * c + nv + lo..k * c + nv + hi];
                for (y, z) in y.iter_mut().zip(&jq[lo..hi]) {
                    *y -= fb * *z;
                }
            }
        }
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
    nz: &mut Vec<usize>,
    span: &mut Vec<[usize; 4]>,
) {
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx2") {
        // SAFETY: the CPU supports AVX2 (checked just above); the body is safe code.
        unsafe { add_jhj_avx2(m, d, h, jd, c, ld, x, s, nz, span) };
        return;
    }
    add_jhj_body(m, d, h, jd, c, ld, x, s, nz, span);
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
    nz: &mut Vec<usize>,
    span: &mut Vec<[usize; 4]>,
) {
    add_jhj_body(m, d, h, jd, c, ld, x, s, nz, span);
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
    nz: &mut Vec<usize>,
    span: &mut Vec<[usize; 4]>,
) {
    let (nv, n) = (m.nv, h.nrows());
    row_spans(jd, nv, n, nz, span);
    for r in 0..n {
        let [p0, p1, _, _] = span[r];
        for q in 0..n {
            let hrq = h[(r, q)];
            if hrq == 0.0 {
                continue;
            }
            let (jr, jq) = (&jd[r * nv..(r + 1) * nv], &jd[q * nv..(q + 1) * nv]);
            let b = d.efc_KBIP[q][1];
            // the velocity-column update spans row q's nonzeros only
            let [_, _, lo, hi] = span[q];
            // (row r's nonzero dofs, ascending)
            for &k in &nz[p0..p1] {
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
                let z = &jq[lo..hi];
                // four at a time (the spans are short: a loop vectorized by 16 would run its
                // scalar tail), the rest one by one; the same operation on every entry
                let mut y4 = y.chunks_exact_mut(4);
                let mut z4 = z.chunks_exact(4);
                for (y, z) in (&mut y4).zip(&mut z4) {
                    for (y, z) in y.iter_mut().zip(z) {
                        *y -= ab * *z;
                    }
                }
                for (y, z) in y4.into_remainder().iter_mut().zip(z4.remainder()) {
                    *y -= ab * *z;
                }
            }
        }
    }
}

/// Scratch of [`ld_solve`]: the descendants of every dof with the qM address of their
/// factor entry (compressed rows), the ancestors likewise, both also as row offsets for the
/// last column count, and one row of `c` values.
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
    /// `idx` and `aidx` times `off_c` (row offsets in a matrix of `off_c` columns).
    idx_off: Vec<usize>,
    aidx_off: Vec<usize>,
    off_c: usize,
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
        // the offsets are rebuilt by `offsets`
        self.off_c = 0;
        self.idx_off.clear();
        self.aidx_off.clear();
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

impl Scratch {
    /// The lists (built) as row offsets for `c` columns.
    fn offsets(&mut self, c: usize) {
        if self.off_c == c && self.idx_off.len() == self.idx.len() {
            return;
        }
        self.off_c = c;
        self.idx_off.clear();
        self.idx_off.extend(self.idx.iter().map(|&k| k * c));
        self.aidx_off.clear();
        self.aidx_off.extend(self.aidx.iter().map(|&k| k * c));
    }
}

/// `x ← A⁻¹ x` with `A`'s tree-sparse LᵀDL factor (`factor_ld`, qM layout): both
/// triangular sweeps as row gathers (descendants, then ancestors).
pub fn ld_solve(m: &Model, ld: &[f64], diag_inv: &[f64], x: &mut [f64], c: usize, s: &mut Scratch) {
    let nv = m.nv;
    assert!(x.len() >= nv * c, "ld_solve: x holds fewer than nv rows");
    s.build(m);
    s.offsets(c);
    s.tmp.resize(c, 0.0);
    // the kernel chosen once for all rows ([`gather`]'s choice)
    #[cfg(target_arch = "x86_64")]
    let avx = c >= 16 && std::arch::is_x86_feature_detected!("avx2");
    #[cfg(not(target_arch = "x86_64"))]
    let avx = false;
    // row i ← s0 · row i − Σ a_k · row k (the sources' offsets ks)
    let gather_row =
        |x: &mut [f64], i: usize, s0: f64, ks: &[usize], a: &[f64], tmp: &mut [f64]| {
            debug_assert!(ks
                .iter()
                .all(|&o| o % c == 0 && o != i * c && o + c <= x.len()));
            #[cfg(target_arch = "x86_64")]
            if avx {
                // SAFETY: AVX2 is present and c ≥ 16 (avx); the rows are dofs of the tree other
                // than i (s.build), all inside x (asserted above)
                unsafe { gather_avx2(x.as_mut_ptr(), c, i, s0, ks, a) };
                return;
            }
            gather_body(x, c, i, s0, ks, a, tmp);
        };
    for i in (0..nv).rev() {
        let r = s.ptr[i]..s.ptr[i + 1];
        if r.is_empty() {
            continue;
        }
        s.vals.clear();
        s.vals.extend(s.adr[r.clone()].iter().map(|&a| ld[a]));
        // (the descendants of dof i: dofs of the tree, none is i)
        gather_row(x, i, 1.0, &s.idx_off[r], &s.vals, &mut s.tmp);
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
        // (the ancestors of dof k: dofs of the tree, none is k)
        gather_row(x, k, diag_inv[k], &s.aidx_off[r], vals, &mut s.tmp);
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

#[cfg(test)]
mod tests {
    use super::*;

    /// Uniform in (−1, 1) from a 64-bit LCG (Knuth's MMIX constants).
    fn lcg(s: &mut u64) -> f64 {
        *s = s
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        ((*s >> 11) as f64 / (1u64 << 53) as f64) * 2.0 - 1.0
    }

    /// The dense LᵀDL factor and solve against nalgebra's LU solve of the same system: two
    /// dof trees (branches of 7 and 6 dofs on a 3-dof root chain, a lone 4-dof branch) joined
    /// by a few coupling rows, SPD as `Σ v vᵀ + I`; 1 to 40 right-hand-side columns (the
    /// gather kernels' short and AVX2 widths). The factor keeps the exact zeros of the
    /// entries no elimination reaches (rows of the lone branch against the others when no row
    /// couples them), and the solution agrees to 1e-12 relative.
    #[test]
    fn dense_ld_factor_solves_and_keeps_zeros() {
        let mut seed = 11;
        let parent: [i32; 20] = [
            -1, 0, 1, 2, 3, 4, 5, 6, 7, 8, 2, 10, 11, 12, 13, 14, -1, 16, 17, 18,
        ];
        let n = parent.len();
        let path = |k: usize| {
            let mut p = vec![k];
            let mut x = parent[k];
            while x >= 0 {
                p.push(x as usize);
                x = parent[x as usize];
            }
            p
        };
        for coupled_lone in [false, true] {
            let mut a = vec![0.0; n * n];
            let mut add = |v: &[(usize, f64)]| {
                for &(i, x) in v {
                    for &(j, y) in v {
                        a[i * n + j] += x * y;
                    }
                }
            };
            // the tree: one vector per dof on its root path
            for k in 0..n {
                let v: Vec<(usize, f64)> =
                    path(k).into_iter().map(|i| (i, lcg(&mut seed))).collect();
                add(&v);
            }
            // coupling rows: across the two branches of the first tree, and (optionally)
            // between the first tree and the lone one
            let mut rows = vec![vec![9usize, 8, 15, 14, 13], vec![6, 12]];
            if coupled_lone {
                rows.push(vec![19, 4]);
            }
            for r in &rows {
                let v: Vec<(usize, f64)> = r.iter().map(|&i| (i, 3.0 * lcg(&mut seed))).collect();
                add(&v);
            }
            for k in 0..n {
                a[k * n + k] += 1.0;
            }
            let mut l = a.clone();
            let (mut dinv, mut nz) = (Vec::new(), Vec::new());
            ld_factor_dense(&mut l, n, &mut dinv, &mut nz);
            if !coupled_lone {
                for k in 16..n {
                    assert!(
                        l[k * n..k * n + 16].iter().all(|&x| x == 0.0),
                        "row {k} filled"
                    );
                }
            }
            let am = DMatrix::from_row_slice(n, n, &a);
            for c in [1, 5, 16, 17, 40] {
                let b: Vec<f64> = (0..n * c).map(|_| lcg(&mut seed)).collect();
                let mut x = b.clone();
                let mut s = DenseScratch::default();
                ld_solve_dense(&l, n, &dinv, &mut x, c, &mut s);
                let want = am
                    .clone()
                    .lu()
                    .solve(&DMatrix::from_row_slice(n, c, &b))
                    .unwrap();
                let got = DMatrix::from_row_slice(n, c, &x);
                let err = (&got - &want).amax() / want.amax();
                assert!(err < 1e-12, "coupled_lone {coupled_lone}, c {c}: {err:e}");
            }
        }
    }

    /// The tiled transpose against the entry-by-entry definition, bit for bit, for every
    /// remainder of the tile size in both dimensions, row strides larger than the block and
    /// both scales (`−1` keeps signed zeros' signs flipped exactly); entries outside the
    /// block untouched.
    #[test]
    fn transpose_into_is_the_definition() {
        let mut seed = 3;
        for n in 0..11 {
            for m in 0..11 {
                for s in [1.0, -1.0] {
                    let (ls, ld) = (m + 3, n + 2);
                    let mut src: Vec<f64> = (0..n * ls + 4).map(|_| lcg(&mut seed)).collect();
                    if !src.is_empty() {
                        src[0] = -0.0;
                    }
                    let mut dst: Vec<f64> = (0..m * ld + 4).map(|_| lcg(&mut seed)).collect();
                    let mut want = dst.clone();
                    for i in 0..n {
                        for k in 0..m {
                            want[k * ld + i] = s * src[i * ls + k];
                        }
                    }
                    transpose_into(&src, ls, n, m, &mut dst, ld, s);
                    let bits = |x: &[f64]| x.iter().map(|v| v.to_bits()).collect::<Vec<_>>();
                    assert_eq!(bits(&dst), bits(&want), "n {n}, m {m}, s {s}");
                }
            }
        }
    }

    /// The register-blocked kernel (taken wherever the CPU has AVX2 and c ≥ 16, including the
    /// overlapping tail block of c not a multiple of 16) against the plain row sweep: the same
    /// bits for every column, every group size (8, 4, 2, 1 and their mixes) and both scales.
    #[test]
    fn gather_kernels_agree_bit_for_bit() {
        let mut seed = 7;
        let rows = 24;
        for c in [16, 17, 19, 20, 24, 28, 31, 32, 33, 48, 75, 180] {
            for n in 0..rows {
                for s0 in [1.0, 0.37] {
                    let x0: Vec<f64> = (0..rows * c).map(|_| lcg(&mut seed)).collect();
                    let i = n % rows;
                    // n source rows other than i, in a scrambled order
                    let mut ks: Vec<usize> = (0..rows).filter(|&k| k != i).map(|k| k * c).collect();
                    ks.rotate_left(n % 5);
                    ks.truncate(n.min(rows - 1));
                    let a: Vec<f64> = ks.iter().map(|_| lcg(&mut seed)).collect();
                    let (mut x1, mut x2) = (x0.clone(), x0.clone());
                    let mut tmp = vec![0.0; c];
                    // SAFETY: offsets of rows other than i, all inside x1
                    unsafe { gather(&mut x1, c, i, s0, &ks, &a, &mut tmp) };
                    gather_body(&mut x2, c, i, s0, &ks, &a, &mut tmp);
                    let bits = |x: &[f64]| x.iter().map(|v| v.to_bits()).collect::<Vec<_>>();
                    assert_eq!(bits(&x1), bits(&x2), "c {c}, {} sources, s0 {s0}", ks.len());
                    // the other rows untouched, row i changed where it has sources
                    for k in (0..rows).filter(|&k| k != i) {
                        assert_eq!(x1[k * c..(k + 1) * c], x0[k * c..(k + 1) * c]);
                    }
                    if !ks.is_empty() {
                        assert_ne!(x1[i * c..(i + 1) * c], x0[i * c..(i + 1) * c]);
                    }
                }
            }
        }
    }
}
