//! Iterative LQR on a discrete-time system `x' = f(x, u)` with a quadratic tracking cost.
//!
//! The backward pass is the Riccati recursion on the local linearization (A, B) with
//! Levenberg–Marquardt regularization of `Quu`; the forward pass is a backtracking line search on
//! the feedforward term (Li & Todorov 2004; Tassa et al. 2012).

use nalgebra::{DMatrix, DVector};

/// A discrete-time system. `jacobians` defaults to central finite differences of `step`.
pub trait Dynamics {
    /// State dimension.
    fn nx(&self) -> usize;
    /// Control dimension.
    fn nu(&self) -> usize;
    /// One step: `xnext = f(x, u)`.
    fn step(&mut self, x: &[f64], u: &[f64], xnext: &mut [f64]) -> Result<(), String>;
    /// `A = ∂f/∂x`, `B = ∂f/∂u` at `(x, u)`.
    fn jacobians(
        &mut self,
        x: &[f64],
        u: &[f64],
        a: &mut DMatrix<f64>,
        b: &mut DMatrix<f64>,
    ) -> Result<(), String> {
        let (nx, nu) = (self.nx(), self.nu());
        let eps = 1e-6;
        let mut xp = x.to_vec();
        let mut up = u.to_vec();
        let mut fp = vec![0.0; nx];
        let mut fm = vec![0.0; nx];
        for j in 0..nx {
            xp[j] = x[j] + eps;
            self.step(&xp, u, &mut fp)?;
            xp[j] = x[j] - eps;
            self.step(&xp, u, &mut fm)?;
            xp[j] = x[j];
            for i in 0..nx {
                a[(i, j)] = (fp[i] - fm[i]) / (2.0 * eps);
            }
        }
        for j in 0..nu {
            up[j] = u[j] + eps;
            self.step(x, &up, &mut fp)?;
            up[j] = u[j] - eps;
            self.step(x, &up, &mut fm)?;
            up[j] = u[j];
            for i in 0..nx {
                b[(i, j)] = (fp[i] - fm[i]) / (2.0 * eps);
            }
        }
        Ok(())
    }
}

/// `Σ_t dt·[½ (x_t − x*)ᵀ Q (x_t − x*) + ½ u_tᵀ R u_t] + ½ (x_T − x*)ᵀ Qf (x_T − x*)`.
#[derive(Clone, Debug)]
pub struct QuadraticCost {
    pub q: DMatrix<f64>,
    pub r: DMatrix<f64>,
    pub qf: DMatrix<f64>,
    pub xref: DVector<f64>,
    pub dt: f64,
}

impl QuadraticCost {
    /// Total cost of a trajectory (`xs` has one more entry than `us`).
    pub fn total(&self, xs: &[DVector<f64>], us: &[DVector<f64>]) -> f64 {
        let mut c = 0.0;
        for (x, u) in xs.iter().zip(us) {
            let dx = x - &self.xref;
            c += self.dt
                * 0.5
                * ((dx.transpose() * &self.q * &dx)[0] + (u.transpose() * &self.r * u)[0]);
        }
        if let Some(x) = xs.last() {
            let dx = x - &self.xref;
            c += 0.5 * (dx.transpose() * &self.qf * &dx)[0];
        }
        c
    }
}

/// Solver settings.
#[derive(Clone, Debug)]
pub struct IlqrOptions {
    pub max_iter: usize,
    /// Stop when the relative cost decrease falls below this.
    pub tol: f64,
    pub mu_init: f64,
    pub mu_min: f64,
    pub mu_max: f64,
}

impl Default for IlqrOptions {
    fn default() -> Self {
        IlqrOptions {
            max_iter: 200,
            tol: 1e-9,
            mu_init: 1e-6,
            mu_min: 1e-9,
            mu_max: 1e10,
        }
    }
}

/// The result of [`ilqr`].
#[derive(Clone, Debug)]
pub struct IlqrResult {
    pub xs: Vec<DVector<f64>>,
    pub us: Vec<DVector<f64>>,
    /// Feedback gains `K_t` (`u = u_t + K_t (x − x_t)`).
    pub gains: Vec<DMatrix<f64>>,
    /// Cost after each iteration (the first entry is the initial guess).
    pub cost_history: Vec<f64>,
    pub iterations: usize,
    pub converged: bool,
}

fn rollout<D: Dynamics>(
    dynm: &mut D,
    x0: &DVector<f64>,
    us: &[DVector<f64>],
) -> Result<Vec<DVector<f64>>, String> {
    let mut xs = Vec::with_capacity(us.len() + 1);
    xs.push(x0.clone());
    let mut next = vec![0.0; dynm.nx()];
    for u in us {
        let x = xs.last().ok_or("empty trajectory")?;
        dynm.step(x.as_slice(), u.as_slice(), &mut next)?;
        if next.iter().any(|v| !v.is_finite()) {
            return Err("rollout diverged (non-finite state)".into());
        }
        xs.push(DVector::from_column_slice(&next));
    }
    Ok(xs)
}

/// Runs iLQR from `x0` with the initial control guess `us`. `on_iter(k, cost)` is called after
/// every iteration (for progress reporting).
pub fn ilqr<D: Dynamics>(
    dynm: &mut D,
    cost: &QuadraticCost,
    x0: &DVector<f64>,
    mut us: Vec<DVector<f64>>,
    opt: &IlqrOptions,
    mut on_iter: impl FnMut(usize, f64),
) -> Result<IlqrResult, String> {
    let (nx, nu) = (dynm.nx(), dynm.nu());
    let horizon = us.len();
    if x0.len() != nx || us.iter().any(|u| u.len() != nu) {
        return Err(format!(
            "dimension mismatch: expected x0 of {nx} and controls of {nu}"
        ));
    }
    let mut xs = rollout(dynm, x0, &us)?;
    let mut j = cost.total(&xs, &us);
    let mut history = vec![j];
    let mut mu = opt.mu_init;
    let mut a = vec![DMatrix::zeros(nx, nx); horizon];
    let mut b = vec![DMatrix::zeros(nx, nu); horizon];
    let mut kff = vec![DVector::zeros(nu); horizon];
    let mut gains = vec![DMatrix::zeros(nu, nx); horizon];
    let mut converged = false;
    let mut iterations = 0;
    let alphas = [
        1.0, 0.5, 0.25, 0.125, 0.0625, 0.03125, 0.015625, 0.0078125, 0.00390625,
    ];

    for it in 0..opt.max_iter {
        iterations = it + 1;
        for t in 0..horizon {
            dynm.jacobians(xs[t].as_slice(), us[t].as_slice(), &mut a[t], &mut b[t])?;
        }
        // Backward pass, retried with larger regularization when Quu is not positive definite.
        let mut expected;
        loop {
            let mut vx = &cost.qf * (&xs[horizon] - &cost.xref);
            let mut vxx = cost.qf.clone();
            let mut ok = true;
            expected = (0.0, 0.0);
            for t in (0..horizon).rev() {
                let dx = &xs[t] - &cost.xref;
                let lx = &cost.q * dx * cost.dt;
                let lu = &cost.r * &us[t] * cost.dt;
                let at = a[t].transpose();
                let bt = b[t].transpose();
                let qx = lx + &at * &vx;
                let qu = lu + &bt * &vx;
                let qxx = &cost.q * cost.dt + &at * &vxx * &a[t];
                let quu = &cost.r * cost.dt + &bt * &vxx * &b[t];
                let qux = &bt * &vxx * &a[t];
                let quu_reg = &quu + DMatrix::identity(nu, nu) * mu;
                let Some(chol) = quu_reg.cholesky() else {
                    ok = false;
                    break;
                };
                let k = -chol.solve(&qu);
                let kk = -chol.solve(&qux);
                expected.0 += (k.transpose() * &qu)[0];
                expected.1 += 0.5 * (k.transpose() * &quu * &k)[0];
                vx = &qx + kk.transpose() * &quu * &k + kk.transpose() * &qu + qux.transpose() * &k;
                vxx = &qxx
                    + kk.transpose() * &quu * &kk
                    + kk.transpose() * &qux
                    + qux.transpose() * &kk;
                vxx = (&vxx + vxx.transpose()) * 0.5;
                kff[t] = k;
                gains[t] = kk;
            }
            if ok {
                break;
            }
            mu = (mu * 10.0).max(opt.mu_min);
            if mu > opt.mu_max {
                return Err("iLQR: regularization exceeded its maximum".into());
            }
        }
        // Forward pass with line search.
        let mut accepted = false;
        for &alpha in &alphas {
            let mut xn = Vec::with_capacity(horizon + 1);
            let mut un = Vec::with_capacity(horizon);
            xn.push(x0.clone());
            let mut next = vec![0.0; nx];
            let mut fail = false;
            for t in 0..horizon {
                let u = &us[t] + &kff[t] * alpha + &gains[t] * (&xn[t] - &xs[t]);
                if dynm
                    .step(xn[t].as_slice(), u.as_slice(), &mut next)
                    .is_err()
                    || next.iter().any(|v| !v.is_finite())
                {
                    fail = true;
                    break;
                }
                xn.push(DVector::from_column_slice(&next));
                un.push(u);
            }
            if fail {
                continue;
            }
            let jn = cost.total(&xn, &un);
            let predicted = -(alpha * expected.0 + alpha * alpha * expected.1);
            if jn < j && (predicted <= 0.0 || (j - jn) / predicted > 1e-4) {
                let rel = (j - jn) / j.abs().max(1e-300);
                xs = xn;
                us = un;
                j = jn;
                accepted = true;
                mu = (mu / 10.0).max(opt.mu_min);
                if rel < opt.tol {
                    converged = true;
                }
                break;
            }
        }
        if !accepted {
            mu *= 10.0;
            if mu > opt.mu_max {
                // No descent at maximal regularization: a (local) optimum.
                converged = true;
            }
        }
        history.push(j);
        on_iter(it, j);
        if converged {
            break;
        }
    }
    Ok(IlqrResult {
        xs,
        us,
        gains,
        cost_history: history,
        iterations,
        converged,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A discrete double integrator: exact linear dynamics, so iLQR must reproduce the
    /// independently computed finite-horizon LQR (Riccati) solution.
    struct DoubleIntegrator {
        h: f64,
    }
    impl Dynamics for DoubleIntegrator {
        fn nx(&self) -> usize {
            2
        }
        fn nu(&self) -> usize {
            1
        }
        fn step(&mut self, x: &[f64], u: &[f64], xn: &mut [f64]) -> Result<(), String> {
            xn[1] = x[1] + self.h * u[0];
            xn[0] = x[0] + self.h * xn[1];
            Ok(())
        }
    }

    #[test]
    fn matches_riccati_on_linear_quadratic_problem() {
        let h = 0.05;
        let n = 60;
        let cost = QuadraticCost {
            q: DMatrix::from_diagonal(&DVector::from_vec(vec![1.0, 0.1])),
            r: DMatrix::from_element(1, 1, 0.01),
            qf: DMatrix::from_diagonal(&DVector::from_vec(vec![100.0, 10.0])),
            xref: DVector::from_vec(vec![1.0, 0.0]),
            dt: h,
        };
        let x0 = DVector::from_vec(vec![0.0, 0.0]);
        let mut sys = DoubleIntegrator { h };
        let res = ilqr(
            &mut sys,
            &cost,
            &x0,
            vec![DVector::zeros(1); n],
            &IlqrOptions::default(),
            |_, _| {},
        )
        .unwrap();

        // Independent solution: Riccati recursion in affine form for the tracking problem.
        let a = DMatrix::from_row_slice(2, 2, &[1.0, h, 0.0, 1.0]);
        let b = DMatrix::from_row_slice(2, 1, &[h * h, h]);
        let mut p = cost.qf.clone();
        let mut s = -&cost.qf * &cost.xref;
        let mut ks = vec![];
        for _ in 0..n {
            let quu = &cost.r * h + b.transpose() * &p * &b;
            let inv = quu.clone().try_inverse().unwrap();
            let k = &inv * b.transpose() * &p * &a;
            let kf = &inv * b.transpose() * &s;
            let q = &cost.q * h;
            let p_new = &q + a.transpose() * &p * &a - a.transpose() * &p * &b * &k;
            let s_new = -&q * &cost.xref + (a.transpose() - k.transpose() * b.transpose()) * &s;
            ks.push((k, kf));
            p = p_new;
            s = s_new;
        }
        ks.reverse();
        let mut x = x0.clone();
        for t in 0..n {
            let u = -&ks[t].0 * &x - &ks[t].1;
            assert!(
                (u[0] - res.us[t][0]).abs() < 1e-6,
                "t={t}: {} vs {}",
                u[0],
                res.us[t][0]
            );
            let mut xn = [0.0; 2];
            sys.step(x.as_slice(), u.as_slice(), &mut xn).unwrap();
            x = DVector::from_column_slice(&xn);
        }
        assert!(res.converged);
    }
}
