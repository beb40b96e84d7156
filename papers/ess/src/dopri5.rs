//! Adaptive Dormand–Prince 5(4) with dense output, the "integration step" of Anderson & Revzen §3.1
//! (Hairer, Nørsett & Wanner, *Solving ODEs I*, §II.4 and §II.6, ref. \[21\] of Anderson & Revzen).

use crate::error::HybridError;
use nalgebra::DVector;

/// Step-size control options for [`solve`] and the ESS integration step.
#[derive(Clone, Debug)]
pub struct Dopri5Options {
    /// Relative tolerance.
    pub rtol: f64,
    /// Absolute tolerance.
    pub atol: f64,
    /// Initial step; `None` picks one automatically (\[21\] §II.4 "starting step size").
    pub h_init: Option<f64>,
    /// Largest allowed step (Anderson & Revzen §5.1 uses 0.002 s).
    pub h_max: f64,
    /// Largest number of attempted steps before [`HybridError::MaxStepsExceeded`].
    pub max_steps: usize,
}

impl Default for Dopri5Options {
    fn default() -> Self {
        Self {
            rtol: 1e-8,
            atol: 1e-10,
            h_init: None,
            h_max: f64::INFINITY,
            max_steps: 1_000_000,
        }
    }
}

impl Dopri5Options {
    pub(crate) fn validate(&self) -> Result<(), HybridError> {
        let ok = |v: f64| v.is_finite() && v >= 0.0;
        if !ok(self.rtol) || !ok(self.atol) || self.rtol + self.atol <= 0.0 {
            return Err(HybridError::InvalidOptions(
                "tolerances must be finite, >= 0, not both 0",
            ));
        }
        if self.h_max.is_nan() || self.h_max <= 0.0 {
            return Err(HybridError::InvalidOptions("h_max must be > 0"));
        }
        if let Some(h) = self.h_init {
            if !h.is_finite() || h <= 0.0 {
                return Err(HybridError::InvalidOptions("h_init must be finite and > 0"));
            }
        }
        if self.max_steps == 0 {
            return Err(HybridError::InvalidOptions("max_steps must be > 0"));
        }
        Ok(())
    }
}

// Dormand–Prince 5(4) tableau ([21] Table II.5.2).
const C: [f64; 7] = [0.0, 0.2, 0.3, 0.8, 8.0 / 9.0, 1.0, 1.0];
const A: [[f64; 6]; 7] = [
    [0.0; 6],
    [0.2, 0.0, 0.0, 0.0, 0.0, 0.0],
    [3.0 / 40.0, 9.0 / 40.0, 0.0, 0.0, 0.0, 0.0],
    [44.0 / 45.0, -56.0 / 15.0, 32.0 / 9.0, 0.0, 0.0, 0.0],
    [
        19372.0 / 6561.0,
        -25360.0 / 2187.0,
        64448.0 / 6561.0,
        -212.0 / 729.0,
        0.0,
        0.0,
    ],
    [
        9017.0 / 3168.0,
        -355.0 / 33.0,
        46732.0 / 5247.0,
        49.0 / 176.0,
        -5103.0 / 18656.0,
        0.0,
    ],
    [
        35.0 / 384.0,
        0.0,
        500.0 / 1113.0,
        125.0 / 192.0,
        -2187.0 / 6784.0,
        11.0 / 84.0,
    ],
];
/// Difference between the 5th- and 4th-order weights (error estimate).
const E: [f64; 7] = [
    71.0 / 57600.0,
    0.0,
    -71.0 / 16695.0,
    71.0 / 1920.0,
    -17253.0 / 339200.0,
    22.0 / 525.0,
    -1.0 / 40.0,
];
/// Dense-output coefficients ([21] §II.6, continuous extension of order 4).
const D: [f64; 7] = [
    -12715105075.0 / 11282082432.0,
    0.0,
    87487479700.0 / 32700410799.0,
    -10690763975.0 / 1880347072.0,
    701980252875.0 / 199316789632.0,
    -1453857185.0 / 822651844.0,
    69997945.0 / 29380423.0,
];

/// Right-hand side `rhs(t, y, dy)`; may fail (non-finite values).
pub(crate) trait Rhs {
    fn eval(&mut self, t: f64, y: &DVector<f64>, dy: &mut DVector<f64>) -> Result<(), HybridError>;
}

impl<F: FnMut(f64, &DVector<f64>, &mut DVector<f64>)> Rhs for F {
    fn eval(&mut self, t: f64, y: &DVector<f64>, dy: &mut DVector<f64>) -> Result<(), HybridError> {
        self(t, y, dy);
        if dy.iter().all(|v| v.is_finite()) {
            Ok(())
        } else {
            Err(HybridError::NonFiniteValue { t })
        }
    }
}

/// One-step machinery: stages, error estimate, step-size proposal and dense output.
///
/// The error norm uses only the first `n_err` components, so appended variational
/// components (the B-derivative) ride along without steering the step size.
pub(crate) struct Stepper {
    n_err: usize,
    /// `k[0]` must hold `f(t, y)` before [`Stepper::attempt`]; `k[6]` is `f(t+h, y1)` (FSAL).
    pub k: [DVector<f64>; 7],
    ytmp: DVector<f64>,
    /// Candidate solution after [`Stepper::attempt`].
    pub y1: DVector<f64>,
    r: [DVector<f64>; 5],
    pub rejected_last: bool,
}

impl Stepper {
    pub fn new(len: usize, n_err: usize) -> Self {
        let z = || DVector::zeros(len);
        Self {
            n_err,
            k: [z(), z(), z(), z(), z(), z(), z()],
            ytmp: z(),
            y1: z(),
            r: [z(), z(), z(), z(), z()],
            rejected_last: false,
        }
    }

    fn scale(&self, opts: &Dopri5Options, a: f64, b: f64) -> f64 {
        opts.atol + opts.rtol * a.abs().max(b.abs())
    }

    /// Automatic initial step ([21] §II.4); `k[0]` must hold `f(t, y)`.
    pub fn initial_step<R: Rhs>(
        &mut self,
        rhs: &mut R,
        t: f64,
        y: &DVector<f64>,
        dir_span: f64,
        opts: &Dopri5Options,
    ) -> Result<f64, HybridError> {
        let n = self.n_err.max(1) as f64;
        let (mut d0, mut d1) = (0.0, 0.0);
        for i in 0..self.n_err {
            let sc = self.scale(opts, y[i], y[i]);
            d0 += (y[i] / sc).powi(2);
            d1 += (self.k[0][i] / sc).powi(2);
        }
        let (d0, d1) = ((d0 / n).sqrt(), (d1 / n).sqrt());
        let h0 = if d0 < 1e-5 || d1 < 1e-5 {
            1e-6
        } else {
            0.01 * d0 / d1
        };
        let h0 = h0.min(dir_span);
        self.ytmp.copy_from(y);
        self.ytmp.axpy(h0, &self.k[0], 1.0);
        rhs.eval(t + h0, &self.ytmp, &mut self.k[1])?;
        let mut d2 = 0.0;
        for i in 0..self.n_err {
            let sc = self.scale(opts, y[i], y[i]);
            d2 += ((self.k[1][i] - self.k[0][i]) / sc).powi(2);
        }
        let d2 = (d2 / n).sqrt() / h0;
        let dm = d1.max(d2);
        let h1 = if dm <= 1e-15 {
            (h0 * 1e-3).max(1e-6)
        } else {
            (0.01 / dm).powf(0.2)
        };
        Ok((100.0 * h0).min(h1).min(opts.h_max).min(dir_span))
    }

    /// Computes the six new stages and `y1` for step `h`; returns the scaled error norm.
    pub fn attempt<R: Rhs>(
        &mut self,
        rhs: &mut R,
        t: f64,
        y: &DVector<f64>,
        h: f64,
        opts: &Dopri5Options,
    ) -> Result<f64, HybridError> {
        let len = y.len();
        for s in 1..7 {
            for i in 0..len {
                let mut acc = 0.0;
                for (j, a) in A[s].iter().enumerate().take(s) {
                    acc += a * self.k[j][i];
                }
                self.ytmp[i] = y[i] + h * acc;
            }
            if s == 6 {
                self.y1.copy_from(&self.ytmp);
            }
            let (ytmp, k) = (&self.ytmp, &mut self.k[s]);
            rhs.eval(t + C[s] * h, ytmp, k)?;
        }
        let mut err = 0.0;
        for i in 0..self.n_err {
            let mut e = 0.0;
            for (j, ej) in E.iter().enumerate() {
                e += ej * self.k[j][i];
            }
            let sc = self.scale(opts, y[i], self.y1[i]);
            err += (h * e / sc).powi(2);
        }
        let err = (err / self.n_err.max(1) as f64).sqrt();
        Ok(if err.is_nan() { f64::INFINITY } else { err })
    }

    /// Step-size factor from the error norm (safety 0.9, bounds [0.2, 10]).
    pub fn factor(&self, err: f64) -> f64 {
        let fac = if err == 0.0 {
            10.0
        } else {
            0.9 * err.powf(-0.2)
        };
        let hi = if self.rejected_last { 1.0 } else { 10.0 };
        fac.clamp(0.2, hi)
    }

    /// Prepares the continuous extension after an accepted step from `y` with step `h`.
    pub fn prepare_dense(&mut self, y: &DVector<f64>, h: f64) {
        for i in 0..y.len() {
            let ydiff = self.y1[i] - y[i];
            let bspl = h * self.k[0][i] - ydiff;
            self.r[0][i] = y[i];
            self.r[1][i] = ydiff;
            self.r[2][i] = bspl;
            self.r[3][i] = ydiff - h * self.k[6][i] - bspl;
            let mut d = 0.0;
            for (j, dj) in D.iter().enumerate() {
                d += dj * self.k[j][i];
            }
            self.r[4][i] = h * d;
        }
    }

    /// Dense output at `t + θ h`, `θ ∈ [0, 1]`, after [`Stepper::prepare_dense`].
    pub fn dense(&self, theta: f64, out: &mut DVector<f64>) {
        let t1 = 1.0 - theta;
        for i in 0..out.len() {
            out[i] = self.r[0][i]
                + theta
                    * (self.r[1][i]
                        + t1 * (self.r[2][i] + theta * (self.r[3][i] + t1 * self.r[4][i])));
        }
    }
}

/// Whether `h` is too small to advance from `t`.
pub(crate) fn underflow(t: f64, h: f64) -> bool {
    h <= 16.0 * f64::EPSILON * t.abs().max(1e-3) || h.is_nan()
}

/// Result of [`solve`]: accepted step times and states, and counters.
#[derive(Clone, Debug)]
pub struct OdeSolution {
    /// Times of the accepted steps, starting at `t0` and ending at `tf`.
    pub t: Vec<f64>,
    /// States at those times.
    pub y: Vec<DVector<f64>>,
    /// Accepted steps.
    pub accepted: usize,
    /// Rejected steps.
    pub rejected: usize,
}

/// Integrates `dy/dt = f(t, y)` from `(t0, y0)` to `tf > t0` with adaptive dopri5 (\[21\] §II.4).
pub fn solve<F>(
    mut f: F,
    t0: f64,
    y0: &DVector<f64>,
    tf: f64,
    opts: &Dopri5Options,
) -> Result<OdeSolution, HybridError>
where
    F: FnMut(f64, &DVector<f64>, &mut DVector<f64>),
{
    opts.validate()?;
    if !t0.is_finite() || !tf.is_finite() || y0.iter().any(|v| !v.is_finite()) {
        return Err(HybridError::NonFiniteInput);
    }
    if tf < t0 {
        return Err(HybridError::InvalidOptions("tf must be >= t0"));
    }
    let n = y0.len();
    let mut st = Stepper::new(n, n);
    let mut sol = OdeSolution {
        t: vec![t0],
        y: vec![y0.clone()],
        accepted: 0,
        rejected: 0,
    };
    if tf == t0 {
        return Ok(sol);
    }
    let (mut t, mut y) = (t0, y0.clone());
    f.eval(t, &y, &mut st.k[0])?;
    let mut h = match opts.h_init {
        Some(h) => h.min(opts.h_max),
        None => st.initial_step(&mut f, t, &y, tf - t0, opts)?,
    };
    let mut attempts = 0;
    while t < tf {
        attempts += 1;
        if attempts > opts.max_steps {
            return Err(HybridError::MaxStepsExceeded { t });
        }
        let last = h >= tf - t;
        let hs = if last { tf - t } else { h };
        if underflow(t, hs) && !last {
            return Err(HybridError::StepSizeUnderflow { t, h: hs });
        }
        let err = st.attempt(&mut f, t, &y, hs, opts)?;
        let fac = st.factor(err);
        if err > 1.0 {
            st.rejected_last = true;
            sol.rejected += 1;
            h = hs * fac;
            continue;
        }
        st.rejected_last = false;
        sol.accepted += 1;
        t = if last { tf } else { t + hs };
        y.copy_from(&st.y1);
        st.k.swap(0, 6);
        sol.t.push(t);
        sol.y.push(y.clone());
        h = (hs * fac).min(opts.h_max);
    }
    Ok(sol)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The continuous extension is accurate to O(h⁵) locally (order 4).
    #[test]
    fn dense_output_order() {
        let err_at = |h: f64| {
            let opts = Dopri5Options::default();
            let mut f = |_t: f64, y: &DVector<f64>, dy: &mut DVector<f64>| {
                dy[0] = y[1];
                dy[1] = -y[0];
            };
            let y = DVector::from_vec(vec![0.0, 1.0]);
            let mut st = Stepper::new(2, 2);
            f.eval(0.0, &y, &mut st.k[0]).unwrap();
            st.attempt(&mut f, 0.0, &y, h, &opts).unwrap();
            st.prepare_dense(&y, h);
            let mut out = DVector::zeros(2);
            let mut worst: f64 = 0.0;
            for theta in [0.2, 0.5, 0.7] {
                st.dense(theta, &mut out);
                let t: f64 = theta * h;
                worst = worst.max((out[0] - t.sin()).abs().max((out[1] - t.cos()).abs()));
            }
            worst
        };
        let (e1, e2) = (err_at(0.4), err_at(0.2));
        let order = (e1 / e2).log2();
        assert!(
            order > 4.5,
            "local dense-output order {order} ({e1:e}, {e2:e})"
        );
    }
}
