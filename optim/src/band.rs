//! Symmetric positive-definite banded matrices: storage, assembly and Cholesky solve.
//!
//! The Gauss–Newton normal matrix of direct collocation is block-banded (each knot's residual
//! touches three consecutive configurations), so `JᵀJ` has half-bandwidth `3·nv − 1`. The
//! factorization costs `O(n·b²)` instead of `O(n³)`.

#![allow(clippy::needless_range_loop)]

use nalgebra::DMatrix;

/// Lower band of a symmetric `n×n` matrix: `get(i, j)` for `i ≥ j`, `i − j ≤ bw`.
#[derive(Clone, Debug)]
pub struct BandMatrix {
    pub n: usize,
    pub bw: usize,
    /// Row-major: row `i` holds `A(i, i−bw..=i)` (entries before column 0 unused).
    data: Vec<f64>,
}

impl BandMatrix {
    pub fn zeros(n: usize, bw: usize) -> Self {
        BandMatrix {
            n,
            bw,
            data: vec![0.0; n * (bw + 1)],
        }
    }

    /// Copies `other` (same size) into `self` without allocating.
    pub fn copy_from(&mut self, other: &BandMatrix) {
        self.n = other.n;
        self.bw = other.bw;
        self.data.clone_from(&other.data);
    }

    pub fn fill_zero(&mut self) {
        self.data.iter_mut().for_each(|x| *x = 0.0);
    }

    #[inline]
    fn idx(&self, i: usize, j: usize) -> usize {
        debug_assert!(j <= i && i - j <= self.bw);
        i * (self.bw + 1) + (self.bw + j - i)
    }

    /// `A(i, j)` for any `i, j` (zero outside the band).
    pub fn get(&self, i: usize, j: usize) -> f64 {
        let (i, j) = if i >= j { (i, j) } else { (j, i) };
        if i - j > self.bw {
            0.0
        } else {
            self.data[self.idx(i, j)]
        }
    }

    /// Adds `v` to `A(i, j)` (and implicitly `A(j, i)`); requires `i ≥ j`.
    #[inline]
    pub fn add(&mut self, i: usize, j: usize, v: f64) {
        let k = self.idx(i, j);
        self.data[k] += v;
    }

    /// `y = A x`.
    pub fn mul(&self, x: &[f64], y: &mut [f64]) {
        y.iter_mut().for_each(|v| *v = 0.0);
        for i in 0..self.n {
            let j0 = i.saturating_sub(self.bw);
            for j in j0..i {
                let a = self.data[self.idx(i, j)];
                y[i] += a * x[j];
                y[j] += a * x[i];
            }
            y[i] += self.data[self.idx(i, i)] * x[i];
        }
    }

    /// In-place Cholesky `A = L Lᵀ` (L in the band). Returns false if not positive definite.
    pub fn cholesky(&mut self) -> bool {
        let (n, bw) = (self.n, self.bw);
        for j in 0..n {
            let k0 = j.saturating_sub(bw);
            let mut d = self.data[self.idx(j, j)];
            for k in k0..j {
                let l = self.data[self.idx(j, k)];
                d -= l * l;
            }
            if d <= 0.0 || !d.is_finite() {
                return false;
            }
            let d = d.sqrt();
            let jj = self.idx(j, j);
            self.data[jj] = d;
            for i in j + 1..(j + bw + 1).min(n) {
                let k0i = i.saturating_sub(bw).max(k0);
                let mut s = self.data[self.idx(i, j)];
                for k in k0i..j {
                    s -= self.data[self.idx(i, k)] * self.data[self.idx(j, k)];
                }
                let ij = self.idx(i, j);
                self.data[ij] = s / d;
            }
        }
        true
    }

    /// Solves `L x = b` in place after [`cholesky`](Self::cholesky).
    pub fn solve_lower(&self, x: &mut [f64]) {
        let bw = self.bw;
        for i in 0..self.n {
            let mut s = x[i];
            for k in i.saturating_sub(bw)..i {
                s -= self.data[self.idx(i, k)] * x[k];
            }
            x[i] = s / self.data[self.idx(i, i)];
        }
    }

    /// Solves `Lᵀ x = b` in place after [`cholesky`](Self::cholesky).
    pub fn solve_upper(&self, x: &mut [f64]) {
        let (n, bw) = (self.n, self.bw);
        for i in (0..n).rev() {
            let mut s = x[i];
            for k in i + 1..(i + bw + 1).min(n) {
                s -= self.data[self.idx(k, i)] * x[k];
            }
            x[i] = s / self.data[self.idx(i, i)];
        }
    }

    /// Solves `L Lᵀ x = b` in place after [`cholesky`](Self::cholesky).
    pub fn solve(&self, x: &mut [f64]) {
        let (n, bw) = (self.n, self.bw);
        for i in 0..n {
            let mut s = x[i];
            for k in i.saturating_sub(bw)..i {
                s -= self.data[self.idx(i, k)] * x[k];
            }
            x[i] = s / self.data[self.idx(i, i)];
        }
        for i in (0..n).rev() {
            let mut s = x[i];
            for k in i + 1..(i + bw + 1).min(n) {
                s -= self.data[self.idx(k, i)] * x[k];
            }
            x[i] = s / self.data[self.idx(i, i)];
        }
    }
}

/// A symmetric positive-definite "arrowhead" matrix `[[A, B], [Bᵀ, C]]`: `A` banded (`n×n`), a
/// dense border `B` (`n×n_p`) and a dense corner `C` (`n_p×n_p`). The Gauss–Newton matrix of
/// collocation with model parameters as decision variables has this shape (every knot depends
/// on the parameters). [`Bordered::cholesky`] factors it without fill-in of the band: with
/// `A = L Lᵀ`, `W = L⁻¹ B` and the Schur complement `S = C − WᵀW = L_S L_Sᵀ`, the full factor
/// is `[[L, 0], [Wᵀ, L_S]]` (cost `O(n·b² + n·b·n_p + n·n_p²)`, no dense `(n + n_p)²` solve).
#[derive(Clone, Debug)]
pub struct Bordered {
    pub band: BandMatrix,
    /// `B`, column-major `n × n_p`.
    pub border: DMatrix<f64>,
    /// `C` (both triangles are kept).
    pub corner: DMatrix<f64>,
    /// After [`Bordered::cholesky`]: `W = L⁻¹ B`.
    w: DMatrix<f64>,
    /// After [`Bordered::cholesky`]: `L_S` (lower triangle).
    ls: DMatrix<f64>,
}

impl Bordered {
    pub fn zeros(n: usize, bw: usize, np: usize) -> Self {
        Bordered {
            band: BandMatrix::zeros(n, bw),
            border: DMatrix::zeros(n, np),
            corner: DMatrix::zeros(np, np),
            w: DMatrix::zeros(n, np),
            ls: DMatrix::zeros(np, np),
        }
    }

    /// Total dimension `n + n_p`.
    pub fn dim(&self) -> usize {
        self.band.n + self.corner.nrows()
    }

    /// Number of border columns `n_p`.
    pub fn np(&self) -> usize {
        self.corner.nrows()
    }

    /// Same sizes as `(n, bw, np)`?
    pub fn has_shape(&self, n: usize, bw: usize, np: usize) -> bool {
        self.band.n == n && self.band.bw == bw && self.corner.nrows() == np
    }

    /// Copies `other` (same sizes) without allocating.
    pub fn copy_from(&mut self, other: &Bordered) {
        self.band.copy_from(&other.band);
        self.border.copy_from(&other.border);
        self.corner.copy_from(&other.corner);
    }

    pub fn fill_zero(&mut self) {
        self.band.fill_zero();
        self.border.fill(0.0);
        self.corner.fill(0.0);
    }

    /// Diagonal entry `i` of the whole matrix.
    pub fn diag(&self, i: usize) -> f64 {
        let n = self.band.n;
        if i < n {
            self.band.get(i, i)
        } else {
            self.corner[(i - n, i - n)]
        }
    }

    /// Adds `v` to diagonal entry `i` of the whole matrix.
    pub fn add_diag(&mut self, i: usize, v: f64) {
        let n = self.band.n;
        if i < n {
            self.band.add(i, i, v);
        } else {
            self.corner[(i - n, i - n)] += v;
        }
    }

    /// Entry `(i, j)` of the whole matrix.
    pub fn get(&self, i: usize, j: usize) -> f64 {
        let n = self.band.n;
        match (i < n, j < n) {
            (true, true) => self.band.get(i, j),
            (true, false) => self.border[(i, j - n)],
            (false, true) => self.border[(j, i - n)],
            (false, false) => self.corner[(i - n, j - n)],
        }
    }

    /// `y = [[A, B], [Bᵀ, C]] x`.
    pub fn mul(&self, x: &[f64], y: &mut [f64]) {
        let n = self.band.n;
        let (xq, xp) = x.split_at(n);
        let (yq, yp) = y.split_at_mut(n);
        self.band.mul(xq, yq);
        for (j, &xj) in xp.iter().enumerate() {
            let col = self.border.column(j);
            for i in 0..n {
                yq[i] += col[i] * xj;
            }
            yp[j] = (0..n).map(|i| col[i] * xq[i]).sum::<f64>()
                + (0..xp.len())
                    .map(|k| self.corner[(j, k)] * xp[k])
                    .sum::<f64>();
        }
    }

    /// In-place factorization (the band is overwritten by `L`; `W` and `L_S` are stored).
    /// Returns false if the matrix is not positive definite.
    pub fn cholesky(&mut self) -> bool {
        if !self.band.cholesky() {
            return false;
        }
        let np = self.np();
        self.w.copy_from(&self.border);
        for j in 0..np {
            self.band.solve_lower(self.w.column_mut(j).as_mut_slice());
        }
        // S = C − WᵀW, then its dense Cholesky in place (lower triangle).
        for j in 0..np {
            for i in j..np {
                let wij = self.w.column(i).dot(&self.w.column(j));
                self.ls[(i, j)] = self.corner[(i, j)] - wij;
            }
        }
        for j in 0..np {
            let mut d = self.ls[(j, j)];
            for k in 0..j {
                d -= self.ls[(j, k)] * self.ls[(j, k)];
            }
            if d <= 0.0 || !d.is_finite() {
                return false;
            }
            let d = d.sqrt();
            self.ls[(j, j)] = d;
            for i in j + 1..np {
                let mut s = self.ls[(i, j)];
                for k in 0..j {
                    s -= self.ls[(i, k)] * self.ls[(j, k)];
                }
                self.ls[(i, j)] = s / d;
            }
        }
        true
    }

    /// Solves `L_full x = b` in place after [`Bordered::cholesky`]: `x_q = L⁻¹ b_q`,
    /// `x_p = L_S⁻¹ (b_p − Wᵀ x_q)`.
    pub fn solve_lower(&self, x: &mut [f64]) {
        let n = self.band.n;
        let (xq, xp) = x.split_at_mut(n);
        self.band.solve_lower(xq);
        for j in 0..xp.len() {
            let wq: f64 = self
                .w
                .column(j)
                .iter()
                .zip(xq.iter())
                .map(|(a, b)| a * b)
                .sum();
            xp[j] -= wq;
        }
        for i in 0..xp.len() {
            let mut s = xp[i];
            for k in 0..i {
                s -= self.ls[(i, k)] * xp[k];
            }
            xp[i] = s / self.ls[(i, i)];
        }
    }

    /// Solves `L_fullᵀ x = b` in place after [`Bordered::cholesky`]: `x_p = L_S⁻ᵀ b_p`,
    /// `x_q = L⁻ᵀ (b_q − W x_p)`.
    pub fn solve_upper(&self, x: &mut [f64]) {
        let n = self.band.n;
        let (xq, xp) = x.split_at_mut(n);
        let np = xp.len();
        for i in (0..np).rev() {
            let mut s = xp[i];
            for k in i + 1..np {
                s -= self.ls[(k, i)] * xp[k];
            }
            xp[i] = s / self.ls[(i, i)];
        }
        for (j, &xj) in xp.iter().enumerate() {
            for (a, w) in xq.iter_mut().zip(self.w.column(j).iter()) {
                *a -= w * xj;
            }
        }
        self.band.solve_upper(xq);
    }

    /// Solves `[[A, B], [Bᵀ, C]] x = b` in place after [`Bordered::cholesky`] (block
    /// elimination by the Schur complement on the parameter block).
    pub fn solve(&self, x: &mut [f64]) {
        self.solve_lower(x);
        self.solve_upper(x);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use nalgebra::DVector;

    #[test]
    fn banded_cholesky_matches_dense() {
        let (n, bw) = (17, 4);
        let mut a = DMatrix::<f64>::zeros(n, n);
        let mut band = BandMatrix::zeros(n, bw);
        for i in 0..n {
            for j in i.saturating_sub(bw)..=i {
                let v = if i == j {
                    10.0 + i as f64
                } else {
                    ((i * 7 + j * 3) % 5) as f64 * 0.3 - 0.6
                };
                a[(i, j)] = v;
                a[(j, i)] = v;
                band.add(i, j, v);
            }
        }
        let b = DVector::from_fn(n, |i, _| (i as f64).sin());
        let mut y = vec![0.0; n];
        band.mul(b.as_slice(), &mut y);
        assert!((DVector::from_vec(y) - &a * &b).amax() < 1e-12);
        let xd = a.cholesky().unwrap().solve(&b);
        assert!(band.cholesky());
        let mut x = b.as_slice().to_vec();
        band.solve(&mut x);
        assert!((DVector::from_vec(x.clone()) - &xd).amax() < 1e-12);
        let mut x2 = b.as_slice().to_vec();
        band.solve_lower(&mut x2);
        band.solve_upper(&mut x2);
        assert!((DVector::from_vec(x2) - xd).amax() < 1e-12);
    }

    #[test]
    fn bordered_solve_matches_dense() {
        let (n, bw, np) = (23, 3, 3);
        let dim = n + np;
        // SPD: MᵀM + I with M banded in the first n columns plus dense border columns
        let mut mm = DMatrix::<f64>::zeros(dim + 4, dim);
        for i in 0..dim + 4 {
            for j in 0..dim {
                let inband = j < n && i < n && i.abs_diff(j) <= bw / 2;
                if inband || j >= n {
                    mm[(i, j)] = ((i * 13 + j * 7) % 11) as f64 * 0.2 - 1.0;
                }
            }
        }
        let a = mm.transpose() * &mm + DMatrix::identity(dim, dim);
        let mut h = Bordered::zeros(n, bw, np);
        for i in 0..dim {
            for j in 0..=i {
                if i < n {
                    if i - j <= bw {
                        h.band.add(i, j, a[(i, j)]);
                    } else {
                        assert_eq!(a[(i, j)], 0.0);
                    }
                } else if j < n {
                    h.border[(j, i - n)] = a[(i, j)];
                } else {
                    h.corner[(i - n, j - n)] = a[(i, j)];
                    h.corner[(j - n, i - n)] = a[(i, j)];
                }
            }
        }
        for i in 0..dim {
            for j in 0..dim {
                assert_eq!(h.get(i, j), a[(i, j)]);
            }
        }
        let b = DVector::from_fn(dim, |i, _| (i as f64 * 0.7).cos());
        let mut y = vec![0.0; dim];
        h.mul(b.as_slice(), &mut y);
        assert!((DVector::from_vec(y) - &a * &b).amax() < 1e-12);
        let xd = a.clone().cholesky().unwrap().solve(&b);
        assert!(h.cholesky());
        let mut x = b.as_slice().to_vec();
        h.solve(&mut x);
        let err = (DVector::from_vec(x) - &xd).amax();
        assert!(err < 1e-12 * xd.amax(), "{err:e}");
        // L_full L_fullᵀ = A through the triangular solves
        let mut x2 = b.as_slice().to_vec();
        h.solve_lower(&mut x2);
        h.solve_upper(&mut x2);
        assert!((DVector::from_vec(x2) - xd).amax() < 1e-12);
    }
}
