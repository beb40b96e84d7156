//! Small dense kernels generic over the scalar (row-major storage): M from the tree-sparse qM,
//! Cholesky factor/solve (CG, PGS, noslip), the Newton Hessian's `Lᵀ D L` in reversed order
//! with its rank-1 updates, J and Jᵀ products. The solvers' M products and solves are
//! tree-sparse (`crb::mul_tree`, `crb::solve_tree`).

#![allow(clippy::needless_range_loop)] // index-based numeric kernels

use crate::math::simd::LDL_CHUNK;
use crate::math::{sc, Scalar};

/// In-place Cholesky A = L Lᵀ of the n × n symmetric matrix `a` (row-major; lower triangle used,
/// L written there; the strict upper triangle is left unspecified), with four interleaved
/// partial sums per inner product. Pivots below 1e-15 are replaced by 1e-15 (mjMINVAL) as MuJoCo
/// does. Returns the number of replaced pivots. Used for the Newton Hessian and the dense M of
/// CG, PGS and noslip.
pub fn chol_factor_fast<T: Scalar>(a: &mut [T], n: usize) -> usize {
    chol_impl(a, n)
}

#[inline]
fn chol_impl<T: Scalar>(a: &mut [T], n: usize) -> usize {
    let mut nbad = 0;
    let minval: T = sc(1e-15);
    // a − x·y with partial sums
    let sub = |a0: T, x: &[T], y: &[T]| -> T { a0 - dot4(x, y) };
    for j in 0..n {
        // rows 0..j hold L (left-looking: inner loops are contiguous row products)
        let (_, rest) = a.split_at_mut(j * n);
        let (rowj, below) = rest.split_at_mut(n);
        let mut s = sub(rowj[j], &rowj[..j], &rowj[..j]);
        if s < minval {
            s = minval;
            nbad += 1;
        }
        let ljj = s.sqrt();
        rowj[j] = ljj;
        let lj = &rowj[..j];
        for i in j + 1..n {
            let rowi = &mut below[(i - j - 1) * n..(i - j) * n];
            rowi[j] = sub(rowi[j], &rowi[..j], lj) / ljj;
        }
    }
    nbad
}

/// In-place `A = Lᵀ D L` (L unit lower triangular) of the n × n symmetric matrix `a` (row-major,
/// lower triangle used; D written on the diagonal, L strictly below it, the strict upper
/// triangle used as scratch and left unspecified), eliminating the last variable first as
/// MuJoCo's `mj_factorM` does: a matrix with the dof tree's sparsity (parents before children,
/// the Newton Hessian of contacts on one chain each) gets no fill-in, and the zeros are skipped,
/// so the cost follows the sparsity. Pivots below 1e-15 are replaced by 1e-15 (mjMINVAL);
/// returns their number.
///
/// Each entry `(k, j)`, `j ≤ k`, is reduced as in the right-looking elimination (pivot `m`
/// from the last down to `k + 1`, skipped where the reduced `a_mk` is exactly zero: `a_kj −=
/// a_mj · (a_mk / d_m)` with the reduced, undivided `a_mj`), so the result is that
/// elimination's bit for bit. The order of the loops is left-looking instead: row `k` is
/// finished at once, its entries kept in registers while the rows below subtract from them,
/// and the multipliers `a_mk / d_m` of column `k` become L only once row `k` no longer needs
/// the undivided `a_mk`. On `f64` with AVX2 the same operations run four entries at a time
/// (`simd::ldl_factor_rev`).
pub fn ldl_factor_rev<T: Scalar>(a: &mut [T], n: usize) -> usize {
    assert!(
        a.len() >= n * n,
        "ldl_factor_rev: {} entries for n = {n}",
        a.len()
    );
    if let Some(nbad) = crate::math::simd::ldl_factor_rev(a, n) {
        return nbad;
    }
    ldl_factor_rev_scalar(a, n)
}

/// [`ldl_factor_rev`] without SIMD (any scalar; the result of the AVX2 kernel bit for bit).
pub(crate) fn ldl_factor_rev_scalar<T: Scalar>(a: &mut [T], n: usize) -> usize {
    let mut nbad = 0;
    let minval: T = sc(1e-15);
    let mut offs = [0usize; LDL_CHUNK];
    for k in (0..n).rev() {
        let (rowk, below) = a[k * n..n * n].split_at_mut(n);
        let (lo, f) = rowk.split_at_mut(k + 1);
        let mut m = n;
        while m > k + 1 {
            // the next rows m (last first) with a_mk ≠ 0: their offsets in `below`, their
            // multipliers a_mk / d_m in row k's strict upper part
            let mut cnt = 0;
            while m > k + 1 && cnt < LDL_CHUNK {
                m -= 1;
                let o = (m - k - 1) * n;
                let u = below[o + k];
                if !crate::math::exact_zero(u) {
                    f[cnt] = u / below[o + m];
                    offs[cnt] = o;
                    cnt += 1;
                }
            }
            let (offs, f) = (&offs[..cnt], &f[..cnt]);
            let mut j = 0;
            while j + 4 <= k + 1 {
                let mut acc = [lo[j], lo[j + 1], lo[j + 2], lo[j + 3]];
                for (&o, &fm) in offs.iter().zip(f) {
                    let x = &below[o + j..o + j + 4];
                    acc[0] -= x[0] * fm;
                    acc[1] -= x[1] * fm;
                    acc[2] -= x[2] * fm;
                    acc[3] -= x[3] * fm;
                }
                lo[j..j + 4].copy_from_slice(&acc);
                j += 4;
            }
            for lj in &mut lo[j..] {
                let mut acc = *lj;
                for (&o, &fm) in offs.iter().zip(f) {
                    acc -= below[o + j] * fm;
                }
                *lj = acc;
                j += 1;
            }
            // row k is done with these rows' a_mk: L's column k gets the multipliers
            for (&o, &fm) in offs.iter().zip(f) {
                below[o + k] = fm;
            }
        }
        if lo[k] < minval {
            lo[k] = minval;
            nbad += 1;
        }
    }
    nbad
}

/// Rank-1 update (`up`) or downdate of the factor from [`ldl_factor_rev`]: `Lᵀ D L ± w wᵀ`, in
/// place; `w` is overwritten. The classic LDLᵀ update (Gill, Golub, Murray & Saunders 1974,
/// method C1) in the reversed variable order, so it walks the rows of L from the last: where
/// `w` is zero nothing changes, and `w` keeps the sparsity of its dof chain. Returns false
/// (factor left partially modified) if a downdate would make a pivot non-positive; the caller
/// then refactors.
pub fn ldl_rank1_rev<T: Scalar>(l: &mut [T], n: usize, w: &mut [T], up: bool) -> bool {
    let mut alpha: T = if up { T::one() } else { -T::one() };
    for k in (0..n).rev() {
        let p = w[k];
        if crate::math::exact_zero(p) {
            continue;
        }
        let rowk = &mut l[k * n..k * n + k + 1];
        let dk = rowk[k];
        let dbar = dk + alpha * p * p;
        if dbar <= T::zero() {
            return false;
        }
        let beta = p * alpha / dbar;
        alpha = alpha * dk / dbar;
        rowk[k] = dbar;
        for (wi, li) in w[..k].iter_mut().zip(rowk[..k].iter_mut()) {
            *wi -= p * *li;
            *li += beta * *wi;
        }
    }
    true
}

/// `y += x · f` elementwise (`y`, `x` of equal length). Not inlined: as a function its two
/// slices are known not to alias, so the loop is vectorized without run-time overlap checks
/// (short rows are dominated by that overhead otherwise).
#[inline(never)]
pub fn add_scaled<T: Scalar>(y: &mut [T], x: &[T], f: T) {
    let n = y.len();
    let x = &x[..n];
    for k in 0..n {
        y[k] += f * x[k];
    }
}

/// Solves `(Lᵀ D L) x = b` in place (`x` holds b on entry) with the factor from
/// [`ldl_factor_rev`].
pub fn ldl_solve_rev<T: Scalar>(l: &[T], n: usize, x: &mut [T]) {
    let x = &mut x[..n];
    // Lᵀ y = b (last variable first)
    for k in (0..n).rev() {
        let xk = x[k];
        if crate::math::exact_zero(xk) {
            continue;
        }
        for (y, lk) in x[..k].iter_mut().zip(&l[k * n..k * n + k]) {
            *y -= *lk * xk;
        }
    }
    for k in 0..n {
        x[k] /= l[k * n + k];
    }
    // L x = y
    for k in 1..n {
        let (done, rest) = x.split_at_mut(k);
        rest[0] -= dot(&l[k * n..k * n + k], done);
    }
}

/// Solves (L Lᵀ) x = b in place (`x` holds b on entry), with L from [`chol_factor_fast`].
pub fn chol_solve<T: Scalar>(l: &[T], n: usize, x: &mut [T]) {
    for i in 0..n {
        let row = &l[i * n..i * n + i + 1];
        let mut s = x[i];
        for (lk, xk) in row[..i].iter().zip(&x[..i]) {
            s -= *lk * *xk;
        }
        x[i] = s / row[i];
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
        if crate::math::exact_zero(fi) {
            continue;
        }
        for (yk, jk) in y.iter_mut().zip(&j[i * nv..(i + 1) * nv]) {
            *yk += *jk * fi;
        }
    }
}

/// Dot product (sequential sum).
#[inline]
pub fn dot<T: Scalar>(a: &[T], b: &[T]) -> T {
    let mut s = T::zero();
    for (x, y) in a.iter().zip(b) {
        s += *x * *y;
    }
    s
}

/// The four lane sums of `a · b` over its whole groups of four, and the one to three pairs left.
#[inline(always)]
fn lanes4<'a, T: Scalar>(a: &'a [T], b: &'a [T]) -> ([T; 4], &'a [T], &'a [T]) {
    let n = a.len().min(b.len());
    let (a, b) = (&a[..n], &b[..n]);
    let mut acc = [T::zero(); 4];
    let (ca, cb) = (a.chunks_exact(4), b.chunks_exact(4));
    let (ra, rb) = (ca.remainder(), cb.remainder());
    for (x, y) in ca.zip(cb) {
        acc[0] += x[0] * y[0];
        acc[1] += x[1] * y[1];
        acc[2] += x[2] * y[2];
        acc[3] += x[3] * y[3];
    }
    (acc, ra, rb)
}

/// Dot product with four interleaved partial sums: the f64 path pipelines instead of waiting
/// on one accumulator (~2× faster Cholesky at nv = 27); round-off differs from [`dot`].
#[inline]
pub fn dot4<T: Scalar>(a: &[T], b: &[T]) -> T {
    let (mut acc, ra, rb) = lanes4(a, b);
    for (x, y) in ra.iter().zip(rb) {
        acc[0] += *x * *y;
    }
    (acc[0] + acc[1]) + (acc[2] + acc[3])
}

/// Dot product in the order of MuJoCo 4.0.0's `mju_dot`: four lane sums over whole groups of
/// four, joined as `(s0 + s2) + (s1 + s3)`, then the last one to three products summed among
/// themselves and added (bit for bit against `mujoco.mju_dot` on 20,000 random vectors of
/// length 0-129, `tools/bench/mju_dot_order.py`). The lanes are independent, so the f64 path
/// runs on vector registers without reassociating a sum.
#[inline]
pub fn dot_mj<T: Scalar>(a: &[T], b: &[T]) -> T {
    let (acc, ra, rb) = lanes4(a, b);
    let s = (acc[0] + acc[2]) + (acc[1] + acc[3]);
    match ra.len() {
        3 => s + ((ra[0] * rb[0] + ra[1] * rb[1]) + ra[2] * rb[2]),
        2 => s + (ra[0] * rb[0] + ra[1] * rb[1]),
        1 => s + ra[0] * rb[0],
        _ => s,
    }
}

/// Dense LU with partial pivoting, in place (row-major `n × n`); `piv[k]` is the row swapped
/// into position `k`. Returns false if a pivot is exactly zero.
pub fn lu_factor<T: Scalar>(a: &mut [T], n: usize, piv: &mut [usize]) -> bool {
    let mut ok = true;
    for k in 0..n {
        let mut p = k;
        let mut best = a[k * n + k].abs();
        for r in k + 1..n {
            let v = a[r * n + k].abs();
            if v > best {
                best = v;
                p = r;
            }
        }
        piv[k] = p;
        if p != k {
            for c in 0..n {
                a.swap(k * n + c, p * n + c);
            }
        }
        let pk = a[k * n + k];
        if crate::math::exact_zero(pk) {
            ok = false;
            continue;
        }
        for r in k + 1..n {
            let f = a[r * n + k] / pk;
            a[r * n + k] = f;
            if !crate::math::exact_zero(f) {
                for c in k + 1..n {
                    let v = a[k * n + c];
                    a[r * n + c] -= f * v;
                }
            }
        }
    }
    ok
}

/// Solves `A x = b` in place with the factor of [`lu_factor`].
pub fn lu_solve<T: Scalar>(a: &[T], n: usize, piv: &[usize], x: &mut [T]) {
    for k in 0..n {
        x.swap(k, piv[k]);
    }
    for r in 0..n {
        let mut s = x[r];
        for c in 0..r {
            s -= a[r * n + c] * x[c];
        }
        x[r] = s;
    }
    for r in (0..n).rev() {
        let mut s = x[r];
        for c in r + 1..n {
            s -= a[r * n + c] * x[c];
        }
        x[r] = s / a[r * n + r];
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `dot_mj` against MuJoCo 4.0.0's `mju_dot` on the same vectors: the expected bits were
    /// printed by `mujoco.mju_dot` (the oracle), and every case of length 5 or more was drawn
    /// until a left-to-right sum gives other bits, so the test fails on any other order.
    #[test]
    fn dot_mj_is_mujocos_order() {
        let cases: Vec<(Vec<f64>, Vec<f64>, u64)> = vec![
            (
                vec![0.007397, 0.55621, 0.25172],
                vec![0.569726, -0.056064, 0.746886],
                0x3fc49cdcaef50b9a,
            ),
            (
                vec![-0.111779, 0.028126, 0.001363, 1.605659, -6.257902],
                vec![-0.73879, 1.385647, 0.821924, 0.627376, 0.401707],
                0xbff6241d361917be,
            ),
            (
                vec![
                    -0.718474, 0.476868, 0.061478, 77.823073, -0.035726, 4.838262,
                ],
                vec![
                    1.301868, -1.599669, -0.302518, -1.309217, 0.244054, 1.514375,
                ],
                0xc058124b6d44e96c,
            ),
            (
                vec![
                    0.045176, 0.302558, 0.373877, -0.038214, -0.642919, 0.463487, 4.570362,
                ],
                vec![
                    1.094818, 0.022068, 0.91891, -0.419889, 0.327799, -2.138226, -1.449948,
                ],
                0xc01da6bdfb7db197,
            ),
            (
                vec![
                    0.068391, -1.874662, 2.292464, 2.906595, 6.719833, 1.48845, 1.714697,
                    -0.001231, -0.425142, -0.077658, -0.71242, -0.277878, -3.501062, -1.080503,
                    0.635216, -0.874964, -2.542331, -0.018863, 0.13757, 0.245161, 1.850664,
                    -0.671394, -4.139608, 0.037347, 10.85327, 0.185818, 0.235278,
                ],
                vec![
                    -0.197443, -0.563385, 0.291125, -0.574165, -1.069478, -0.845803, 1.311983,
                    0.044258, -1.16753, 0.008377, -1.555946, 1.789567, -1.524478, 0.478753,
                    0.543626, -1.450008, 0.300277, 0.997172, 0.467575, 0.261016, 0.949097,
                    0.160905, 0.336425, -0.126712, 0.631806, -0.941384, 0.791763,
                ],
                0x401f682ad31e7500,
            ),
        ];
        for (a, b, bits) in &cases {
            assert_eq!(dot_mj(a, b).to_bits(), *bits, "n = {}", a.len());
        }
        assert_eq!(dot_mj::<f64>(&[], &[]).to_bits(), 0);
    }

    /// A = Bᵀ B + I for a deterministic B whose entries are restricted to `pattern` (true: the
    /// entry may be non-zero), row-major n × n. With row r of B on the root path of dof r,
    /// A couples only ancestor pairs, like M = Σ_b J_bᵀ I_b J_b.
    fn spd(n: usize, pattern: impl Fn(usize, usize) -> bool) -> Vec<f64> {
        let b: Vec<f64> = (0..n * n)
            .map(|k| {
                let (i, j) = (k / n, k % n);
                if pattern(i, j) {
                    ((k * 7919 % 23) as f64 - 11.0) / 7.0
                } else {
                    0.0
                }
            })
            .collect();
        let mut a = vec![0.0; n * n];
        for i in 0..n {
            for j in 0..n {
                a[i * n + j] = (0..n).map(|k| b[k * n + i] * b[k * n + j]).sum::<f64>();
            }
            a[i * n + i] += 1.0;
        }
        a
    }

    fn residual(a: &[f64], x: &[f64], b: &[f64]) -> f64 {
        let n = x.len();
        (0..n)
            .map(|i| ((0..n).map(|k| a[i * n + k] * x[k]).sum::<f64>() - b[i]).abs())
            .fold(0.0, f64::max)
    }

    /// The right-looking reversed LᵀDL (pivot k from the last, each row i < k with a_ki ≠ 0
    /// updated by `a_ij −= a_kj · (a_ki / d_k)`): the elimination whose result
    /// `ldl_factor_rev` must give bit for bit.
    fn ldl_right_looking<T: Scalar>(a: &mut [T], n: usize) -> usize {
        let mut nbad = 0;
        let minval: T = sc(1e-15);
        for k in (0..n).rev() {
            if a[k * n + k] < minval {
                a[k * n + k] = minval;
                nbad += 1;
            }
            let dk = a[k * n + k];
            for i in (0..k).rev() {
                let aki = a[k * n + i];
                if crate::math::exact_zero(aki) {
                    continue;
                }
                let f = aki / dk;
                for j in 0..=i {
                    let x = a[k * n + j];
                    a[i * n + j] -= x * f;
                }
                a[k * n + i] = f;
            }
        }
        nbad
    }

    /// A deterministic symmetric test matrix (lower triangle) of order n: SPD from `spd` on a
    /// random pattern (`zeros` in 1/8: the share of B's entries forced to zero), some of its
    /// entries replaced by −0.0, and with `tiny`, a few diagonals made negligible or
    /// negative so that pivots are raised.
    fn ldl_case(n: usize, seed: u64, zeros: u64, tiny: bool) -> Vec<f64> {
        let mut s = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        let mut next = move || {
            s = s
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            s >> 33
        };
        let keep: Vec<bool> = (0..n * n).map(|_| next() % 8 >= zeros).collect();
        let mut a = spd(n, |i, j| keep[i * n + j]);
        for i in 0..n {
            for j in 0..i {
                if a[i * n + j] == 0.0 && next() % 4 == 0 {
                    a[i * n + j] = -0.0;
                }
            }
            if tiny && next() % 5 == 0 {
                a[i * n + i] = if next() % 2 == 0 { 1e-17 } else { -0.5 };
            }
        }
        a
    }

    /// The factor's lower triangle (D and L) and its raised pivots, as bits.
    fn lower_bits(a: &[f64], n: usize) -> Vec<u64> {
        (0..n)
            .flat_map(|i| (0..=i).map(move |j| (i, j)))
            .map(|(i, j)| a[i * n + j].to_bits())
            .collect()
    }

    /// `ldl_factor_rev` (the AVX2 kernel where the CPU has it) and its scalar loop give the
    /// right-looking elimination's factor bit for bit: dense, sparse and tree patterns, signed
    /// zeros, raised pivots, orders 1 to 40 and 70 (more pivot rows than one pass gathers),
    /// and on dual numbers (value and derivative).
    #[test]
    fn reversed_ldl_is_the_right_looking_elimination_bit_for_bit() {
        let mut cases = 0;
        for n in (1..=40).chain([70]) {
            for (seed, zeros, tiny) in [(1, 0, false), (2, 4, false), (3, 6, true), (4, 7, true)] {
                let a = ldl_case(n, seed * 1000 + n as u64, zeros, tiny);
                let mut want = a.clone();
                let nbad = ldl_right_looking(&mut want, n);
                let mut fast = a.clone();
                assert_eq!(ldl_factor_rev(&mut fast, n), nbad, "n {n} seed {seed}");
                let mut scalar = a.clone();
                assert_eq!(ldl_factor_rev_scalar(&mut scalar, n), nbad);
                let w = lower_bits(&want, n);
                assert_eq!(lower_bits(&fast, n), w, "n {n} seed {seed}");
                assert_eq!(lower_bits(&scalar, n), w, "n {n} seed {seed}");
                cases += usize::from(nbad > 0);
            }
        }
        assert!(cases > 10, "raised pivots in {cases} cases only");
        // dual numbers take the scalar loop: values and derivatives as the elimination's
        use num_dual::Dual64;
        for n in [1, 5, 12, 23] {
            let a = ldl_case(n, 77 + n as u64, 3, false);
            let da = ldl_case(n, 99 + n as u64, 5, false);
            let dual: Vec<Dual64> = a
                .iter()
                .zip(&da)
                .map(|(&v, &e)| Dual64::new(v, e))
                .collect();
            let mut want = dual.clone();
            ldl_right_looking(&mut want, n);
            let mut got = dual.clone();
            ldl_factor_rev(&mut got, n);
            for i in 0..n {
                for j in 0..=i {
                    let (g, w) = (got[i * n + j], want[i * n + j]);
                    assert_eq!(g.re.to_bits(), w.re.to_bits(), "({i}, {j})");
                    assert_eq!(g.eps.to_bits(), w.eps.to_bits(), "({i}, {j})");
                }
            }
        }
    }

    /// `ldl_factor_rev` + `ldl_solve_rev` solve A x = b for a dense SPD matrix and for one with
    /// the sparsity of a dof tree (chain 0-1-2, branches 3-4 and 5-6 from 2); rank-1 updates
    /// and downdates agree with refactoring A ± w wᵀ.
    #[test]
    fn reversed_ldl_solves_and_updates() {
        let n = 7;
        let parent = [-1i32, 0, 1, 2, 3, 2, 5];
        let anc = |i: usize, j: usize| {
            let mut c = i as i32;
            while c > j as i32 {
                c = parent[c as usize];
            }
            c == j as i32
        };
        let b: Vec<f64> = (0..n).map(|i| (i as f64 - 2.5) * 0.7).collect();
        for tree in [false, true] {
            // row r of B on the ancestors of r: Bᵀ B couples only ancestor pairs
            let a = spd(n, |i, j| j <= i && (!tree || anc(i, j)));
            let mut l = a.clone();
            assert_eq!(ldl_factor_rev(&mut l, n), 0);
            if tree {
                // no fill-in: L vanishes off the tree
                for i in 0..n {
                    for j in 0..i {
                        if !anc(i, j) {
                            assert_eq!(l[i * n + j], 0.0, "fill-in at ({i}, {j})");
                        }
                    }
                }
            }
            let mut x = b.clone();
            ldl_solve_rev(&l, n, &mut x);
            assert!(residual(&a, &x, &b) < 1e-12, "tree {tree}");
            // rank-1 update on one chain (dofs 0, 1, 2, 5, 6), then the downdate back
            let w: Vec<f64> = [0.3, -1.2, 0.8, 0.0, 0.0, 2.0, -0.5].to_vec();
            let mut a2 = a.clone();
            for i in 0..n {
                for j in 0..n {
                    a2[i * n + j] += w[i] * w[j];
                }
            }
            let mut l2 = l.clone();
            assert!(ldl_rank1_rev(&mut l2, n, &mut w.clone(), true));
            let mut x2 = b.clone();
            ldl_solve_rev(&l2, n, &mut x2);
            assert!(residual(&a2, &x2, &b) < 1e-12, "update, tree {tree}");
            assert!(ldl_rank1_rev(&mut l2, n, &mut w.clone(), false));
            let mut x3 = b.clone();
            ldl_solve_rev(&l2, n, &mut x3);
            assert!(residual(&a, &x3, &b) < 1e-12, "downdate, tree {tree}");
            // a downdate that would make A − 10 w wᵀ indefinite is refused
            let big: Vec<f64> = w.iter().map(|v| v * 10.0).collect();
            assert!(!ldl_rank1_rev(&mut l2, n, &mut big.clone(), false));
        }
    }
}
