//! Every `unsafe` SIMD kernel of the engine, each with its safe entry point: the AVX2 row
//! updates of the tree-sparse LᵀDL factorization (`mj_factorI`), its solve (`mj_solveLD`),
//! the dense reversed LᵀDL of the Newton Hessian, and the nonzero scan of dense
//! constraint-Jacobian rows. Each entry point takes any [`Scalar`], runs the kernel only on
//! `f64` where the CPU has AVX2 (checked at run time) and otherwise returns `false`/`None` for
//! the caller's scalar loop, which gives the same result bit for bit.

use crate::math::pivot::{pivot, Clamped};
use crate::math::Scalar;
use std::any::TypeId;

/// `f64` view of a slice of `T` when `T` is `f64`.
#[inline(always)]
fn as_f64<T: Scalar>(x: &[T]) -> Option<&[f64]> {
    // SAFETY: `T` is `f64`, so the slice is reinterpreted as itself
    (TypeId::of::<T>() == TypeId::of::<f64>())
        .then(|| unsafe { std::slice::from_raw_parts(x.as_ptr().cast::<f64>(), x.len()) })
}

/// Mutable [`as_f64`].
#[inline(always)]
fn as_f64_mut<T: Scalar>(x: &mut [T]) -> Option<&mut [f64]> {
    // SAFETY: `T` is `f64`, so the slice is reinterpreted as itself
    (TypeId::of::<T>() == TypeId::of::<f64>())
        .then(|| unsafe { std::slice::from_raw_parts_mut(x.as_mut_ptr().cast::<f64>(), x.len()) })
}

// ------------------------------------------------------------------ tree-sparse LᵀDL

/// The LᵀDL factorization of `smooth::crb::factor_tree` by the AVX2 kernel, when `T` is `f64`,
/// the CPU has AVX2 and `layout_ok()` (checked last, only then) confirms the tree layout;
/// returns the raised pivots if it ran. The caller checks `diag_inv.len() >= madr.len()`.
#[inline]
pub(crate) fn factor_tree<T: Scalar>(
    madr: &[usize],
    parent: &[i32],
    ld: &mut [T],
    diag_inv: &mut [T],
    layout_ok: impl FnOnce() -> bool,
) -> Option<Clamped> {
    #[cfg(target_arch = "x86_64")]
    {
        if TypeId::of::<T>() == TypeId::of::<f64>()
            && std::arch::is_x86_feature_detected!("avx2")
            && layout_ok()
        {
            if let (Some(ld), Some(di)) = (as_f64_mut(ld), as_f64_mut(diag_inv)) {
                // SAFETY: the CPU supports AVX2, `diag_inv` is long enough (the caller's check)
                // and the layout is a tree's (checked just above)
                return Some(unsafe { factor_tree_avx2(madr, parent, ld, di) });
            }
        }
        None
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        let _ = (madr, parent, ld, diag_inv, layout_ok);
        None
    }
}

/// `smooth::crb::factor_tree` on `f64` with AVX2 (MuJoCo's `mj_factorI` updates rows with AVX too): the
/// same operations in the same order, row `ii -= a · row k` four entries at a time, without
/// FMA contraction, so the result equals the scalar loop's bit for bit.
///
/// # Safety
/// AVX2, `diag_inv.len() ≥ madr.len()` and a tree layout of `ld` (`smooth::crb::tree_layout`).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn factor_tree_avx2(
    madr: &[usize],
    parent: &[i32],
    ld: &mut [f64],
    diag_inv: &mut [f64],
) -> Clamped {
    let nv = madr.len();
    let mut clamped = Clamped::default();
    let p = ld.as_mut_ptr();
    let mut end = ld.len();
    for k in (0..nv).rev() {
        let ak = madr[k];
        let len = end - ak;
        end = ak;
        // SAFETY: by the layout, row k is `ld[ak..ak + len]` with `len` = 1 + its depth, and
        // its ancestor at position `off` is a row of `len − off` entries before row k
        unsafe {
            let rk = p.add(ak);
            let inv = pivot(&mut *rk, k, &mut clamped);
            diag_inv[k] = inv;
            let mut i = *parent.get_unchecked(k);
            let mut off = 1;
            while i >= 0 {
                let ii = i as usize;
                let a = *rk.add(off) * inv;
                sub_scaled_avx2(p.add(*madr.get_unchecked(ii)), rk.add(off), len - off, a);
                *rk.add(off) = a;
                off += 1;
                i = *parent.get_unchecked(ii);
            }
        }
    }
    clamped
}

/// `dst[j] -= src[j] * a` for `j < n` (a multiply, then a subtract: as the scalar loop).
///
/// # Safety
/// AVX2; `dst` and `src` valid for `n` entries and not overlapping.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
#[inline]
unsafe fn sub_scaled_avx2(dst: *mut f64, src: *const f64, n: usize, a: f64) {
    use std::arch::x86_64::*;
    let mut j = 0;
    // SAFETY: every access is at an index below `n` (the caller's contract)
    unsafe {
        let va = _mm256_set1_pd(a);
        while j + 4 <= n {
            let s = _mm256_loadu_pd(src.add(j));
            let d = _mm256_loadu_pd(dst.add(j));
            _mm256_storeu_pd(dst.add(j), _mm256_sub_pd(d, _mm256_mul_pd(s, va)));
            j += 4;
        }
        if j + 2 <= n {
            let va = _mm256_castpd256_pd128(va);
            let s = _mm_loadu_pd(src.add(j));
            let d = _mm_loadu_pd(dst.add(j));
            _mm_storeu_pd(dst.add(j), _mm_sub_pd(d, _mm_mul_pd(s, va)));
            j += 2;
        }
        if j < n {
            *dst.add(j) -= *src.add(j) * a;
        }
    }
}

// ------------------------------------------------------------------ tree-sparse solve

/// `smooth::crb::solve_tree_col` by the AVX2 kernel ([`solve_tree_col_avx2`]) when `T` is `f64`
/// and the CPU has AVX2; returns false otherwise (the caller's scalar loops give the same
/// result bit for bit). Panics, as the scalar loops' indexing does, on a row range or a
/// column outside the arrays.
#[inline]
pub(crate) fn solve_tree_col<T: Scalar>(
    madr: &[usize],
    col: &[usize],
    ld: &[T],
    diag_inv: &[T],
    x: &mut [T],
) -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        if TypeId::of::<T>() == TypeId::of::<f64>() && std::arch::is_x86_feature_detected!("avx2") {
            if let (Some(ld), Some(di), Some(x)) = (as_f64(ld), as_f64(diag_inv), as_f64_mut(x)) {
                let nv = madr.len();
                let (x, di, col) = (&mut x[..nv], &di[..nv], &col[..ld.len()]);
                // every row's range inside `ld`: starts ascending, each before the next
                let mut e = ld.len();
                for &a in madr.iter().rev() {
                    assert!(a < e, "solve_tree_col: row start {a} not below {e}");
                    e = a;
                }
                // SAFETY: the CPU supports AVX2; `x`, `di` hold nv entries, `col` as many as
                // `ld`, and every row `madr[k]..next` lies inside `ld` (checked just above); the
                // kernel checks every column against nv before it reads or writes `x` there
                unsafe { solve_tree_col_avx2(madr, col, ld, di, x) };
                return true;
            }
        }
        false
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        let _ = (madr, col, ld, diag_inv, x);
        false
    }
}

/// `smooth::crb::solve_tree_col` on `f64` with AVX2: the same products and sums in the same
/// order, four entries of a row at a time: `x[col] -= l · x_k` gathered, computed four wide and
/// stored back (a row's columns are its ancestors, all different), and `x_k -= l · x[col]` with
/// the four products gathered and multiplied four wide and subtracted one after another. No
/// FMA contraction, so the result equals the scalar loops' bit for bit. Every column is
/// compared with nv (unsigned) before `x` is touched there: the backward pass stops with a
/// panic before a store through a bad column, the forward pass gathers only the good lanes and
/// panics after the pass if there was a bad one (the lanes it left out).
///
/// # Safety
/// AVX2; `x` and `diag_inv` nv = `madr.len()` entries, `col` `ld.len()`, and
/// `madr[k] < madr[k + 1]` (`< ld.len()` for the last row).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn solve_tree_col_avx2(
    madr: &[usize],
    col: &[usize],
    ld: &[f64],
    diag_inv: &[f64],
    x: &mut [f64],
) {
    use std::arch::x86_64::*;
    let nv = madr.len();
    let xp = x.as_mut_ptr();
    let (lp, cp) = (ld.as_ptr(), col.as_ptr());
    const SIGN: i64 = i64::MIN;
    // SAFETY: every access below is inside a row's range (the caller's contract) or at a
    // column checked against nv first
    unsafe {
        let sign = _mm256_set1_epi64x(SIGN);
        // c <u nv ⇔ (c ^ SIGN) <s (nv ^ SIGN)
        let lim = _mm256_set1_epi64x((nv as i64) ^ SIGN);
        // x ← L⁻ᵀ x: rows last first, each scattered into its ancestors
        let mut e = ld.len();
        for k in (0..nv).rev() {
            let a = *madr.get_unchecked(k);
            let (s, n) = (a + 1, e - a - 1);
            e = a;
            let xk = *xp.add(k);
            if xk == 0.0 {
                continue;
            }
            let vxk = _mm256_set1_pd(xk);
            let mut j = 0;
            while j + 4 <= n {
                let c = _mm256_loadu_si256(cp.add(s + j).cast());
                let ok = _mm256_cmpgt_epi64(lim, _mm256_xor_si256(c, sign));
                assert!(
                    _mm256_movemask_pd(_mm256_castsi256_pd(ok)) == 0xF,
                    "solve_tree_col: a column is not below nv = {nv}"
                );
                let xv = _mm256_mask_i64gather_pd::<8>(
                    _mm256_setzero_pd(),
                    xp.cast_const(),
                    c,
                    _mm256_castsi256_pd(ok),
                );
                let r = _mm256_sub_pd(xv, _mm256_mul_pd(_mm256_loadu_pd(lp.add(s + j)), vxk));
                let (lo, hi) = (_mm256_castpd256_pd128(r), _mm256_extractf128_pd::<1>(r));
                _mm_storel_pd(xp.add(*cp.add(s + j)), lo);
                _mm_storeh_pd(xp.add(*cp.add(s + j + 1)), lo);
                _mm_storel_pd(xp.add(*cp.add(s + j + 2)), hi);
                _mm_storeh_pd(xp.add(*cp.add(s + j + 3)), hi);
                j += 4;
            }
            while j < n {
                let c = *cp.add(s + j);
                assert!(c < nv, "solve_tree_col: a column is not below nv = {nv}");
                *xp.add(c) -= *lp.add(s + j) * xk;
                j += 1;
            }
        }
        // x ← D⁻¹ x
        for k in 0..nv {
            *xp.add(k) *= *diag_inv.get_unchecked(k);
        }
        // x ← L⁻¹ x: each row's sum from its ancestors, first dof first
        let mut all = _mm256_set1_epi64x(-1);
        for k in 0..nv {
            let s = *madr.get_unchecked(k) + 1;
            let e = if k + 1 < nv {
                *madr.get_unchecked(k + 1)
            } else {
                ld.len()
            };
            let n = e - s;
            let mut acc = *xp.add(k);
            let mut j = 0;
            while j + 4 <= n {
                let c = _mm256_loadu_si256(cp.add(s + j).cast());
                let ok = _mm256_cmpgt_epi64(lim, _mm256_xor_si256(c, sign));
                all = _mm256_and_si256(all, ok);
                let xv = _mm256_mask_i64gather_pd::<8>(
                    _mm256_setzero_pd(),
                    xp.cast_const(),
                    c,
                    _mm256_castsi256_pd(ok),
                );
                let p = _mm256_mul_pd(_mm256_loadu_pd(lp.add(s + j)), xv);
                let (lo, hi) = (_mm256_castpd256_pd128(p), _mm256_extractf128_pd::<1>(p));
                acc -= _mm_cvtsd_f64(lo);
                acc -= _mm_cvtsd_f64(_mm_unpackhi_pd(lo, lo));
                acc -= _mm_cvtsd_f64(hi);
                acc -= _mm_cvtsd_f64(_mm_unpackhi_pd(hi, hi));
                j += 4;
            }
            while j < n {
                let c = *cp.add(s + j);
                assert!(c < nv, "solve_tree_col: a column is not below nv = {nv}");
                acc -= *lp.add(s + j) * *xp.add(c);
                j += 1;
            }
            *xp.add(k) = acc;
        }
        assert!(
            _mm256_movemask_pd(_mm256_castsi256_pd(all)) == 0xF,
            "solve_tree_col: a column is not below nv = {nv}"
        );
    }
}

// ------------------------------------------------------------------ general sparse solve

/// `solver::hsparse::solve` by the AVX2 kernel ([`solve_runs_avx2`]) when `T` is `f64` and the
/// CPU has AVX2; returns false otherwise (the caller's scalar loops give the same result bit
/// for bit). The pattern's rows are read run by run (`run[run_adr[k]..run_adr[k + 1]]`, each
/// `[x, c, n]`: positions `adr[k] + x..` holding columns `c..c + n`), every run sliced with
/// bounds checks, so a bad pattern panics as the scalar loops' indexing does. `x` holds nv =
/// `adr.len()` entries.
pub(crate) fn solve_runs<T: Scalar>(
    adr: &[usize],
    len: &[usize],
    run_adr: &[usize],
    run: &[[u32; 3]],
    h: &[T],
    x: &mut [T],
) -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        if std::arch::is_x86_feature_detected!("avx2") {
            if let (Some(h), Some(x)) = (as_f64(h), as_f64_mut(x)) {
                // SAFETY: the CPU supports AVX2
                unsafe { solve_runs_avx2(adr, len, run_adr, run, h, x) };
                return true;
            }
        }
        false
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        let _ = (adr, len, run_adr, run, h, x);
        false
    }
}

/// `solver::hsparse::solve` on `f64` with AVX2: the backward pass subtracts `l · x_k` from a
/// run of x four entries at a time ([`sub_scaled_avx2`]: a multiply, then a subtract, per
/// entry as the scalar loop), the forward pass multiplies four entries of a run at a time and
/// adds the four products to the row's sum one after another ([`dot_seq_avx2`]), so every sum
/// runs in the scalar loop's order. No FMA: the result equals the scalar loops' bit for bit.
///
/// # Safety
/// AVX2.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn solve_runs_avx2(
    adr: &[usize],
    len: &[usize],
    run_adr: &[usize],
    run: &[[u32; 3]],
    h: &[f64],
    x: &mut [f64],
) {
    let nv = adr.len();
    let x = &mut x[..nv];
    for k in (0..nv).rev() {
        let xk = x[k];
        if xk == 0.0 {
            continue;
        }
        let a = adr[k];
        for &[o, c, n] in &run[run_adr[k]..run_adr[k + 1]] {
            let (o, c, n) = (a + o as usize, c as usize, n as usize);
            let (xs, hs) = (&mut x[c..c + n], &h[o..o + n]);
            // SAFETY: AVX2 (this function's); both slices hold n entries and do not overlap
            unsafe { sub_scaled_avx2(xs.as_mut_ptr(), hs.as_ptr(), n, xk) };
        }
    }
    for k in 0..nv {
        let a = adr[k];
        let mut acc = 0.0;
        for &[o, c, n] in &run[run_adr[k]..run_adr[k + 1]] {
            let (o, c, n) = (a + o as usize, c as usize, n as usize);
            let (xs, hs) = (&x[c..c + n], &h[o..o + n]);
            // SAFETY: AVX2 (this function's); both slices hold n entries
            acc = unsafe { dot_seq_avx2(hs.as_ptr(), xs.as_ptr(), n, acc) };
        }
        // k = 0 has no entries: subtracting the zero sum leaves x[0] as it is, bit for bit
        x[k] = x[k] / h[a + len[k]] - acc;
    }
}

/// `acc + Σ_j a[j] · b[j]` for `j < n`, the products added one after another in order (four
/// multiplied at a time).
///
/// # Safety
/// AVX2; `a` and `b` valid for `n` entries.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
#[inline]
unsafe fn dot_seq_avx2(a: *const f64, b: *const f64, n: usize, mut acc: f64) -> f64 {
    use std::arch::x86_64::*;
    let mut j = 0;
    // SAFETY: every access is at an index below `n` (the caller's contract)
    unsafe {
        while j + 4 <= n {
            let p = _mm256_mul_pd(_mm256_loadu_pd(a.add(j)), _mm256_loadu_pd(b.add(j)));
            let (lo, hi) = (_mm256_castpd256_pd128(p), _mm256_extractf128_pd::<1>(p));
            acc += _mm_cvtsd_f64(lo);
            acc += _mm_cvtsd_f64(_mm_unpackhi_pd(lo, lo));
            acc += _mm_cvtsd_f64(hi);
            acc += _mm_cvtsd_f64(_mm_unpackhi_pd(hi, hi));
            j += 4;
        }
        if j + 2 <= n {
            let p = _mm_mul_pd(_mm_loadu_pd(a.add(j)), _mm_loadu_pd(b.add(j)));
            acc += _mm_cvtsd_f64(p);
            acc += _mm_cvtsd_f64(_mm_unpackhi_pd(p, p));
            j += 2;
        }
        if j < n {
            acc += *a.add(j) * *b.add(j);
        }
    }
    acc
}

// ------------------------------------------------------------------ dense LᵀDL

/// The pivot rows whose multipliers `dense::ldl_factor_rev` gathers per pass over a row.
pub(crate) const LDL_CHUNK: usize = 64;

/// `dense::ldl_factor_rev` by the AVX2 kernel when `T` is `f64` and the CPU has AVX2: the
/// number of raised pivots, or `None` (the caller's scalar loop gives the same bits). The
/// caller checks `a.len() >= n * n`.
#[inline]
pub(crate) fn ldl_factor_rev<T: Scalar>(a: &mut [T], n: usize) -> Option<usize> {
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx2") {
        if let Some(a) = as_f64_mut(a) {
            assert!(a.len() >= n * n);
            // SAFETY: the CPU supports AVX2 (checked just above), `a` holds n × n entries
            return Some(unsafe { ldl_factor_rev_avx2(a, n) });
        }
    }
    let _ = (a, n);
    None
}

/// `dense::ldl_factor_rev_scalar` on `f64` with AVX2: the same operations in the same order
/// (each entry `a_kj −= a_mj · f_m`, a multiply then a subtract, no FMA contraction, for the
/// rows `m` from the last), up to sixteen entries of row `k` at a time in registers, the last
/// one to three by masked loads and stores ([`ldl_row_pass`]); so the result equals the scalar
/// loop's bit for bit.
///
/// # Safety
/// AVX2; `a.len() ≥ n²`.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn ldl_factor_rev_avx2(a: &mut [f64], n: usize) -> usize {
    let p = a.as_mut_ptr();
    let mut nbad = 0;
    let mut offs = [0usize; LDL_CHUNK];
    // SAFETY: every access is to row k (entries 0..n) or to a row m in k + 1..n (entries
    // 0..=m), all below n² (the caller's contract); a pass over at most LDL_CHUNK rows m keeps
    // `cnt` below both LDL_CHUNK and the rows passed (≤ n − k − 1), so the multipliers at
    // k + 1 + cnt stay in row k
    unsafe {
        for k in (0..n).rev() {
            let rk = p.add(k * n);
            let len = k + 1;
            let f = rk.add(len);
            let mut m = n;
            while m > len {
                // the rows m (last first) with a_mk ≠ 0: their starts and multipliers, without
                // a branch (a zero's slot is written, then reused)
                let stop = if m - len > LDL_CHUNK {
                    m - LDL_CHUNK
                } else {
                    len
                };
                let mut cnt = 0;
                while m > stop {
                    m -= 1;
                    let o = m * n;
                    let u = *p.add(o + k);
                    *f.add(cnt) = u / *p.add(o + m);
                    *offs.get_unchecked_mut(cnt) = o;
                    cnt += usize::from(u != 0.0);
                }
                let offs = &offs[..cnt];
                let mut j = 0;
                while len - j >= 16 {
                    ldl_row_pass::<4, false>(p, rk.add(j), j, offs, f);
                    j += 16;
                }
                match ((len - j) / 4, (len - j) % 4 != 0) {
                    (0, true) => ldl_row_pass::<0, true>(p, rk.add(j), j, offs, f),
                    (1, false) => ldl_row_pass::<1, false>(p, rk.add(j), j, offs, f),
                    (1, true) => ldl_row_pass::<1, true>(p, rk.add(j), j, offs, f),
                    (2, false) => ldl_row_pass::<2, false>(p, rk.add(j), j, offs, f),
                    (2, true) => ldl_row_pass::<2, true>(p, rk.add(j), j, offs, f),
                    (3, false) => ldl_row_pass::<3, false>(p, rk.add(j), j, offs, f),
                    (3, true) => ldl_row_pass::<3, true>(p, rk.add(j), j, offs, f),
                    _ => {}
                }
                // row k is done with these rows' a_mk: L's column k gets the multipliers
                for (c, &o) in offs.iter().enumerate() {
                    *p.add(o + k) = *f.add(c);
                }
            }
            if *rk.add(k) < 1e-15 {
                *rk.add(k) = 1e-15;
                nbad += 1;
            }
        }
    }
    nbad
}

/// The lanes of the last one to three entries of a row (a lane is on when its sign bit is).
#[cfg(target_arch = "x86_64")]
static TAIL_MASK: [[i64; 4]; 4] = [[0; 4], [-1, 0, 0, 0], [-1, -1, 0, 0], [-1, -1, -1, 0]];

/// `acc[t] −= a[o_c + j + t] · f[c]` for the `V` groups of four entries at `acc` (then, with
/// `TAIL`, the one to three entries left before the multipliers at `f`, by masked loads and
/// stores), for every row start `o_c` in `offs` in order, the entries kept in registers.
///
/// # Safety
/// AVX2; `acc` points into row k at entry `j`, `f` to row k's entry k + 1 (so the tail's
/// length is `f − acc − 4V`, one to three), each `p + o_c` to a row below k (entries
/// `j..=k` readable), and `f` has `offs.len()` entries.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
#[inline]
unsafe fn ldl_row_pass<const V: usize, const TAIL: bool>(
    p: *mut f64,
    acc: *mut f64,
    j: usize,
    offs: &[usize],
    f: *const f64,
) {
    use std::arch::x86_64::*;
    // SAFETY: the caller's contract
    unsafe {
        let mut r = [_mm256_setzero_pd(); V];
        for (v, rv) in r.iter_mut().enumerate() {
            *rv = _mm256_loadu_pd(acc.add(4 * v));
        }
        let tail = if TAIL {
            let left = f.offset_from(acc.add(4 * V)) as usize;
            _mm256_loadu_si256(TAIL_MASK[left].as_ptr().cast())
        } else {
            _mm256_setzero_si256()
        };
        let mut t = if TAIL {
            _mm256_maskload_pd(acc.add(4 * V), tail)
        } else {
            _mm256_setzero_pd()
        };
        for (c, &o) in offs.iter().enumerate() {
            let x = p.add(o + j);
            let fm = _mm256_broadcast_sd(&*f.add(c));
            for (v, rv) in r.iter_mut().enumerate() {
                *rv = _mm256_sub_pd(*rv, _mm256_mul_pd(_mm256_loadu_pd(x.add(4 * v)), fm));
            }
            if TAIL {
                let xv = _mm256_maskload_pd(x.add(4 * V), tail);
                t = _mm256_sub_pd(t, _mm256_mul_pd(xv, fm));
            }
        }
        for (v, rv) in r.iter().enumerate() {
            _mm256_storeu_pd(acc.add(4 * v), *rv);
        }
        if TAIL {
            _mm256_maskstore_pd(acc.add(4 * V), tail, t);
        }
    }
}

// ------------------------------------------------------------------ sparse rows

/// The nonzeros of `row` (at most 64 entries) into `vals` and their columns into `cols`, in
/// order, with their count and bit mask, when `T` is `f64` and the CPU has AVX2
/// ([`compress_row_f64`]); `None` otherwise (the caller's scalar scan does the same).
#[inline]
pub(crate) fn compress_row<T: Scalar>(
    row: &[T],
    vals: &mut [T],
    cols: &mut [usize],
) -> Option<(usize, u64)> {
    match (as_f64(row), as_f64_mut(vals)) {
        (Some(row), Some(vals)) => compress_row_f64(row, vals, cols),
        _ => None,
    }
}

/// The nonzeros of `row` (at most 64 entries; NaN counts, −0 does not, as `v != 0.0`) into
/// `vals` and their columns into `cols`, in order: their count and bit mask (bit `a` for column
/// `a`). `None` where the CPU lacks AVX2 (the caller's scalar scan does the same).
#[inline]
fn compress_row_f64(row: &[f64], vals: &mut [f64], cols: &mut [usize]) -> Option<(usize, u64)> {
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx2") {
        // SAFETY: the CPU supports AVX2 (checked just above)
        return Some(unsafe { compress_row_avx2(row, vals, cols) });
    }
    let _ = (row, vals, cols);
    None
}

/// Every row of the row-major `src` (`rowadr.len()` rows of `nv ≤ 64` entries) compressed as
/// [`compress_row`] compresses one, the rows' nonzeros stored one after another from address 0
/// (`rowadr`, `rownnz`), with each row's `leaf`: `-1` for a zero row, its deepest nonzero
/// column when `anc` (per column, the bit mask of the column and its ancestors) of that column
/// holds every nonzero column, else `-2`. True when `T` is `f64` and the CPU has AVX2; false,
/// nothing written, otherwise (the caller then compresses row by row).
#[allow(clippy::too_many_arguments)]
#[inline]
pub(crate) fn compress_rows<T: Scalar>(
    src: &[T],
    nv: usize,
    vals: &mut [T],
    cols: &mut [usize],
    rowadr: &mut [usize],
    rownnz: &mut [usize],
    anc: &[u64],
    leaf: &mut [i32],
) -> bool {
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx2") {
        if let (Some(src), Some(vals)) = (as_f64(src), as_f64_mut(vals)) {
            // SAFETY: the CPU supports AVX2 (checked just above)
            unsafe { compress_rows_avx2(src, nv, vals, cols, rowadr, rownnz, anc, leaf) };
            return true;
        }
    }
    let _ = (src, nv, vals, cols, rowadr, rownnz, anc, leaf);
    false
}

/// The mask of the nonzero entries among `nv ≤ 64` entries from `p` (bit `a` set when entry `a`
/// is not `0.0`; NaN counts as nonzero, as `v != 0.0`), four entries per compare.
///
/// # Safety
/// AVX2; `p` points to `nv` readable entries.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
#[inline]
unsafe fn nonzero_mask_avx2(p: *const f64, nv: usize) -> u64 {
    use std::arch::x86_64::*;
    let mut mk = 0u64;
    let mut a = 0;
    // SAFETY: every load reads entries below `nv` (the caller's contract)
    unsafe {
        let zero = _mm256_setzero_pd();
        while a + 4 <= nv {
            // unordered not-equal: true for NaN, as `v != 0.0`
            let c = _mm256_cmp_pd::<_CMP_NEQ_UQ>(_mm256_loadu_pd(p.add(a)), zero);
            mk |= (_mm256_movemask_pd(c) as u64) << a;
            a += 4;
        }
        if a < nv {
            // the last one to three entries by one masked load: the lanes past `nv` read as
            // +0.0 (not loaded, so never out of bounds) and compare equal to zero
            let tail = _mm256_loadu_si256(TAIL_MASK[nv - a].as_ptr().cast());
            let c = _mm256_cmp_pd::<_CMP_NEQ_UQ>(_mm256_maskload_pd(p.add(a), tail), zero);
            mk |= (_mm256_movemask_pd(c) as u64) << a;
        }
    }
    mk
}

/// [`compress_rows`] with AVX2: per row four entries per compare, then one step per nonzero.
///
/// # Safety
/// AVX2.
#[allow(clippy::too_many_arguments)]
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn compress_rows_avx2(
    src: &[f64],
    nv: usize,
    vals: &mut [f64],
    cols: &mut [usize],
    rowadr: &mut [usize],
    rownnz: &mut [usize],
    anc: &[u64],
    leaf: &mut [i32],
) {
    let nrow = rowadr.len();
    let room = nrow * nv;
    assert!(nv <= 64 && src.len() >= room && vals.len() >= room && cols.len() >= room);
    assert!(rownnz.len() == nrow && leaf.len() == nrow && anc.len() >= nv);
    let (vp, cp) = (vals.as_mut_ptr(), cols.as_mut_ptr());
    let mut k = 0;
    for i in 0..nrow {
        // SAFETY: row `i` is `src[i·nv..(i + 1)·nv]`, within `src` (asserted above)
        let p = unsafe { src.as_ptr().add(i * nv) };
        // SAFETY: row `i`'s `nv` entries lie within `src`
        let mk = unsafe { nonzero_mask_avx2(p, nv) };
        let mut bits = mk;
        let mut n = 0;
        while bits != 0 {
            let a = bits.trailing_zeros() as usize;
            // SAFETY: `a < nv` (a set bit of the mask), and `k + n < k + nv ≤ (i + 1)·nv`
            // (the rows before hold at most `nv` nonzeros each), within `vals` and `cols`
            unsafe {
                *vp.add(k + n) = *p.add(a);
                *cp.add(k + n) = a;
            }
            n += 1;
            bits &= bits - 1;
        }
        rowadr[i] = k;
        rownnz[i] = n;
        leaf[i] = if mk == 0 {
            -1
        } else {
            let last = 63 - mk.leading_zeros() as usize;
            if mk & !anc[last] == 0 {
                last as i32
            } else {
                -2
            }
        };
        k += n;
    }
}

/// [`compress_row_f64`] with AVX2: four entries per compare, then one step per nonzero.
///
/// # Safety
/// AVX2.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn compress_row_avx2(row: &[f64], vals: &mut [f64], cols: &mut [usize]) -> (usize, u64) {
    let nv = row.len();
    assert!(nv <= 64 && vals.len() >= nv && cols.len() >= nv);
    // SAFETY: `row` holds `nv` entries
    let mk = unsafe { nonzero_mask_avx2(row.as_ptr(), nv) };
    let mut bits = mk;
    let mut n = 0;
    while bits != 0 {
        let a = bits.trailing_zeros() as usize;
        // SAFETY: `a < nv` (a set bit of the mask) and `n` ≤ the bits before it < `nv`, both
        // within `row`, `vals` and `cols` (asserted above)
        unsafe {
            *vals.get_unchecked_mut(n) = *row.get_unchecked(a);
            *cols.get_unchecked_mut(n) = a;
        }
        n += 1;
        bits &= bits - 1;
    }
    (n, mk)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A row of `nv` entries with zeros, a negative zero and (with `nan`) a NaN among its
    /// values, by a fixed pattern per row `r`.
    fn row(r: usize, nv: usize, nan: bool) -> Vec<f64> {
        (0..nv)
            .map(|a| match (a * 7 + r * 3) % 5 {
                0 => 0.0,
                1 => -0.0,
                2 if nan && a % 3 == 0 => f64::NAN,
                k => 0.25 * k as f64 - a as f64,
            })
            .collect()
    }

    /// The kernels' row compression (whole groups of four and a masked tail of one to three)
    /// is `v != 0.0` column by column, for every row length up to 64.
    #[test]
    fn compressed_rows_are_the_nonzeros_in_order() {
        for nv in 0..=64 {
            for (r, nan) in [(0, false), (1, true), (2, false)] {
                let src = row(r, nv, nan);
                let want: Vec<usize> = (0..nv).filter(|&a| src[a] != 0.0).collect();
                let mut vals = vec![9.0; nv];
                let mut cols = vec![99; nv];
                let Some((n, mk)) = compress_row(&src, &mut vals, &mut cols) else {
                    return; // no AVX2: the callers' scalar scans run instead
                };
                assert_eq!(&cols[..n], &want[..], "nv {nv} row {r}");
                let mask = want.iter().fold(0u64, |m, &a| m | 1 << a);
                assert_eq!(mk, mask, "nv {nv} row {r}");
                for (&v, &a) in vals[..n].iter().zip(&want) {
                    assert_eq!(v.to_bits(), src[a].to_bits(), "nv {nv} row {r} col {a}");
                }
            }
            // several rows at once, stored one after another, with their leaves on a chain
            // (every column's ancestors are the columns before it)
            let nrow = 3;
            let src: Vec<f64> = (0..nrow).flat_map(|r| row(r, nv, r == 1)).collect();
            let anc: Vec<u64> = (0..nv).map(|a| u64::MAX >> (63 - a)).collect();
            let (mut vals, mut cols) = (vec![0.0; nrow * nv], vec![0; nrow * nv]);
            let (mut adr, mut nnz, mut leaf) = (vec![0; nrow], vec![0; nrow], vec![0; nrow]);
            let done = compress_rows(
                &src, nv, &mut vals, &mut cols, &mut adr, &mut nnz, &anc, &mut leaf,
            );
            if !done {
                return;
            }
            let mut k = 0;
            for r in 0..nrow {
                let x = &src[r * nv..(r + 1) * nv];
                let want: Vec<usize> = (0..nv).filter(|&a| x[a] != 0.0).collect();
                assert_eq!((adr[r], nnz[r]), (k, want.len()), "nv {nv} row {r}");
                assert_eq!(&cols[k..k + want.len()], &want[..], "nv {nv} row {r}");
                let l = want.last().map_or(-1, |&a| a as i32);
                assert_eq!(leaf[r], l, "nv {nv} row {r}");
                k += want.len();
            }
        }
    }
}
