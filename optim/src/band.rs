//! Symmetric positive-definite banded matrices: storage, assembly and Cholesky solve.
//!
//! The Gauss–Newton normal matrix of direct collocation is block-banded (each knot's residual
//! touches three consecutive configurations), so `JᵀJ` has half-bandwidth `3·nv − 1`. The
//! factorization costs `O(n·b²)` instead of `O(n³)`.

#![allow(clippy::needless_range_loop)]

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

#[cfg(test)]
mod tests {
    use super::*;
    use nalgebra::{DMatrix, DVector};

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
}
