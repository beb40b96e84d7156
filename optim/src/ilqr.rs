//! Iterative LQR on a discrete-time system `x' = f(x, u)` with a quadratic tracking cost.
//!
//! The backward pass is the Riccati recursion on the local linearization (A, B) with
//! Levenberg–Marquardt regularization of `Quu`; the forward pass is a backtracking line search on
//! the feedforward term (Li & Todorov 2004; Tassa et al. 2012). A linearization with a
//! non-finite entry is redone by central differences of the system's step
//! ([`IlqrResult::jacobian_fallbacks`]); a non-finite Q-function is an error at once rather
//! than a reason to raise the regularization (which cannot make it positive definite).
//!
//! Control limits (`IlqrOptions::bounds`, e.g. the actuators' `ctrlrange`) make the backward pass a
//! box-constrained QP per stage, `min_δu ½ δuᵀ Quu δu + Quᵀ δu` s.t. `lo − u ≤ δu ≤ hi − u`, solved
//! by projected Newton ([`box_qp`]); the feedback gain is `−Quu_ff⁻¹ Qux_f` on the free controls
//! and zero on the clamped ones, and the forward pass clamps `u + α k + K δx` into the box
//! (control-limited DDP, Tassa, Mansard & Todorov 2014).

use nalgebra::{DMatrix, DVector};

/// A discrete-time system. The state `x` (length `nx`) may live on a manifold (quaternions of
/// ball/free joints): linearizations, gains and the cost act on the tangent space (length
/// `ndx`, `x ⊕ δ` = [`Dynamics::integrate`], `x ⊖ x0` = [`Dynamics::diff`]), as
/// `mjd_transitionFD` defines `A` (API Reference, `mjd_transitionFD`). The defaults are the
/// vector-space ones (`ndx = nx`, `+`, `−`). `jacobians` defaults to central finite differences
/// of `step` in the tangent space.
pub trait Dynamics {
    /// State dimension.
    fn nx(&self) -> usize;
    /// Tangent-space dimension (rows and columns of `A`).
    fn ndx(&self) -> usize {
        self.nx()
    }
    /// Control dimension.
    fn nu(&self) -> usize;
    /// One step: `xnext = f(x, u)`.
    fn step(&mut self, x: &[f64], u: &[f64], xnext: &mut [f64]) -> Result<(), String>;
    /// `dx = x ⊖ x0` (length `ndx`).
    fn diff(&self, x0: &[f64], x: &[f64], dx: &mut [f64]) {
        for ((d, a), b) in dx.iter_mut().zip(x).zip(x0) {
            *d = a - b;
        }
    }
    /// `x = x0 ⊕ dx`.
    fn integrate(&self, x0: &[f64], dx: &[f64], x: &mut [f64]) {
        for ((o, a), b) in x.iter_mut().zip(x0).zip(dx) {
            *o = a + b;
        }
    }
    /// `A = ∂f/∂x`, `B = ∂f/∂u` at `(x, u)` in the tangent space:
    /// `A[:, j] = (f(x ⊕ ε e_j) ⊖ f(x ⊕ −ε e_j)) / 2ε`.
    fn jacobians(
        &mut self,
        x: &[f64],
        u: &[f64],
        a: &mut DMatrix<f64>,
        b: &mut DMatrix<f64>,
    ) -> Result<(), String> {
        central_jacobians(self, x, u, a, b, 1e-6)
    }
    /// [`Dynamics::jacobians`] at every knot: `a[t]`, `b[t]` at `(xs[t], us[t])` for `t` below
    /// `us.len()`. On failure, the error of the first knot that fails. The default runs the
    /// knots one after another; a system may run them on threads (as
    /// [`crate::system::MoreauSystem`] does), with the same result.
    fn jacobians_all(
        &mut self,
        xs: &[DVector<f64>],
        us: &[DVector<f64>],
        a: &mut [DMatrix<f64>],
        b: &mut [DMatrix<f64>],
    ) -> Result<(), String> {
        jacobians_serial(self, xs, us, a, b)
    }
}

/// [`Dynamics::jacobians`] at every knot, one after another (the default
/// [`Dynamics::jacobians_all`]).
pub fn jacobians_serial<D: Dynamics + ?Sized>(
    dynm: &mut D,
    xs: &[DVector<f64>],
    us: &[DVector<f64>],
    a: &mut [DMatrix<f64>],
    b: &mut [DMatrix<f64>],
) -> Result<(), String> {
    for (t, u) in us.iter().enumerate() {
        dynm.jacobians(xs[t].as_slice(), u.as_slice(), &mut a[t], &mut b[t])?;
    }
    Ok(())
}

/// Central differences of full steps in the tangent space (the [`Dynamics::jacobians`]
/// default), callable from an override.
pub fn central_jacobians<D: Dynamics + ?Sized>(
    dynm: &mut D,
    x: &[f64],
    u: &[f64],
    a: &mut DMatrix<f64>,
    b: &mut DMatrix<f64>,
    eps: f64,
) -> Result<(), String> {
    let (nx, ndx, nu) = (dynm.nx(), dynm.ndx(), dynm.nu());
    let mut xp = x.to_vec();
    let mut up = u.to_vec();
    let mut dx = vec![0.0; ndx];
    let mut fp = vec![0.0; nx];
    let mut fm = vec![0.0; nx];
    let mut col = vec![0.0; ndx];
    for j in 0..ndx {
        dx[j] = eps;
        dynm.integrate(x, &dx, &mut xp);
        dynm.step(&xp, u, &mut fp)?;
        dx[j] = -eps;
        dynm.integrate(x, &dx, &mut xp);
        dynm.step(&xp, u, &mut fm)?;
        dx[j] = 0.0;
        dynm.diff(&fm, &fp, &mut col);
        for i in 0..ndx {
            a[(i, j)] = col[i] / (2.0 * eps);
        }
    }
    for j in 0..nu {
        up[j] = u[j] + eps;
        dynm.step(x, &up, &mut fp)?;
        up[j] = u[j] - eps;
        dynm.step(x, &up, &mut fm)?;
        up[j] = u[j];
        dynm.diff(&fm, &fp, &mut col);
        for i in 0..ndx {
            b[(i, j)] = col[i] / (2.0 * eps);
        }
    }
    Ok(())
}

/// `Σ_t dt·[½ (x_t ⊖ x*)ᵀ Q (x_t ⊖ x*) + ½ u_tᵀ R u_t] + ½ (x_T ⊖ x*)ᵀ Qf (x_T ⊖ x*)`; `Q`,
/// `Qf` are `ndx × ndx` (tangent space), `x*` has `nx` entries. In the backward pass the
/// Jacobian of `x ⊖ x*` with respect to `x`'s tangent is taken as the identity (exact for
/// vector states and at `x*`; for a quaternion it is `J_r⁻¹(x ⊖ x*)`, `I + O(|x ⊖ x*|)`), so
/// far from `x*` orientation errors get a Gauss–Newton-like approximate gradient; the line
/// search uses the exact cost.
#[derive(Clone, Debug)]
pub struct QuadraticCost {
    pub q: DMatrix<f64>,
    pub r: DMatrix<f64>,
    pub qf: DMatrix<f64>,
    pub xref: DVector<f64>,
    pub dt: f64,
}

impl QuadraticCost {
    /// Total cost of a trajectory on a vector state (`xs` has one more entry than `us`).
    pub fn total(&self, xs: &[DVector<f64>], us: &[DVector<f64>]) -> f64 {
        self.total_with(xs, us, |x| x - &self.xref)
    }

    /// Total cost with the tangent difference `x ⊖ x*` of `dynm`.
    pub fn total_on<D: Dynamics + ?Sized>(
        &self,
        dynm: &D,
        xs: &[DVector<f64>],
        us: &[DVector<f64>],
    ) -> f64 {
        self.total_with(xs, us, |x| self.error(dynm, x))
    }

    /// `x ⊖ x*` on `dynm`'s tangent space.
    pub fn error<D: Dynamics + ?Sized>(&self, dynm: &D, x: &DVector<f64>) -> DVector<f64> {
        tangent_error(dynm, &self.xref, x)
    }

    fn total_with(
        &self,
        xs: &[DVector<f64>],
        us: &[DVector<f64>],
        err: impl Fn(&DVector<f64>) -> DVector<f64>,
    ) -> f64 {
        let mut c = 0.0;
        for (x, u) in xs.iter().zip(us) {
            let dx = err(x);
            c += self.dt
                * 0.5
                * ((dx.transpose() * &self.q * &dx)[0] + (u.transpose() * &self.r * u)[0]);
        }
        if let Some(x) = xs.last() {
            let dx = err(x);
            c += 0.5 * (dx.transpose() * &self.qf * &dx)[0];
        }
        c
    }
}

/// The cost [`ilqr`] minimizes: a sum of stage costs `ℓ_t(x_t, u_t)` for `t < T` and a
/// terminal cost `ℓ_T(x_T)`, with their gradients and Gauss–Newton Hessians in `x`'s tangent
/// space. [`QuadraticCost`] (one reference and one weight for every stage) and
/// [`TrackingCost`] (a reference and weights per knot) implement it.
pub trait StageCost {
    /// Checks the cost's dimensions against the system and the horizon `T`.
    fn check(&self, nx: usize, ndx: usize, nu: usize, horizon: usize) -> Result<(), String>;
    /// The total cost of `xs` (`T + 1` states) and `us` (`T` controls) on `dynm`'s tangent
    /// space.
    fn total_on<D: Dynamics + ?Sized>(
        &self,
        dynm: &D,
        xs: &[DVector<f64>],
        us: &[DVector<f64>],
    ) -> f64;
    /// `(ℓ_x, ℓ_u, ℓ_xx, ℓ_uu)` of stage `t < T` at `(x, u)`.
    fn stage<D: Dynamics + ?Sized>(
        &self,
        dynm: &D,
        t: usize,
        x: &DVector<f64>,
        u: &DVector<f64>,
    ) -> (DVector<f64>, DVector<f64>, DMatrix<f64>, DMatrix<f64>);
    /// `(ℓ_x, ℓ_xx)` of the terminal cost at `x`.
    fn terminal<D: Dynamics + ?Sized>(
        &self,
        dynm: &D,
        x: &DVector<f64>,
    ) -> (DVector<f64>, DMatrix<f64>);
    /// [`StageCost::stage`] into `lx`, `lu`, `lxx`, `luu` (sized `ndx`, `nu`, `ndx × ndx`,
    /// `nu × nu`), with scratch `w`. The default copies [`StageCost::stage`]'s;
    /// [`QuadraticCost`] and [`TrackingCost`] write the same numbers without allocating.
    #[allow(clippy::too_many_arguments)]
    fn stage_into<D: Dynamics + ?Sized>(
        &self,
        dynm: &D,
        t: usize,
        x: &DVector<f64>,
        u: &DVector<f64>,
        w: &mut CostWork,
        lx: &mut DVector<f64>,
        lu: &mut DVector<f64>,
        lxx: &mut DMatrix<f64>,
        luu: &mut DMatrix<f64>,
    ) {
        let _ = w;
        let (a, b, c, d) = self.stage(dynm, t, x, u);
        lx.copy_from(&a);
        lu.copy_from(&b);
        lxx.copy_from(&c);
        luu.copy_from(&d);
    }
    /// [`StageCost::terminal`] into `vx`, `vxx` (the default copies it).
    fn terminal_into<D: Dynamics + ?Sized>(
        &self,
        dynm: &D,
        x: &DVector<f64>,
        w: &mut CostWork,
        vx: &mut DVector<f64>,
        vxx: &mut DMatrix<f64>,
    ) {
        let _ = w;
        let (a, b) = self.terminal(dynm, x);
        vx.copy_from(&a);
        vxx.copy_from(&b);
    }
    /// [`StageCost::total_on`] with scratch `w` (the default calls it).
    fn total_into<D: Dynamics + ?Sized>(
        &self,
        dynm: &D,
        xs: &[DVector<f64>],
        us: &[DVector<f64>],
        w: &mut CostWork,
    ) -> f64 {
        let _ = w;
        self.total_on(dynm, xs, us)
    }
}

impl StageCost for QuadraticCost {
    fn check(&self, nx: usize, ndx: usize, nu: usize, _horizon: usize) -> Result<(), String> {
        if self.xref.len() != nx
            || self.q.shape() != (ndx, ndx)
            || self.qf.shape() != (ndx, ndx)
            || self.r.shape() != (nu, nu)
        {
            return Err(format!(
                "iLQR: cost dimensions must be xref {nx}, Q and Qf {ndx}×{ndx} (tangent space), \
                 R {nu}×{nu}"
            ));
        }
        Ok(())
    }
    fn total_on<D: Dynamics + ?Sized>(
        &self,
        dynm: &D,
        xs: &[DVector<f64>],
        us: &[DVector<f64>],
    ) -> f64 {
        QuadraticCost::total_on(self, dynm, xs, us)
    }
    fn stage<D: Dynamics + ?Sized>(
        &self,
        dynm: &D,
        _t: usize,
        x: &DVector<f64>,
        u: &DVector<f64>,
    ) -> (DVector<f64>, DVector<f64>, DMatrix<f64>, DMatrix<f64>) {
        (
            &self.q * self.error(dynm, x) * self.dt,
            &self.r * u * self.dt,
            &self.q * self.dt,
            &self.r * self.dt,
        )
    }
    fn terminal<D: Dynamics + ?Sized>(
        &self,
        dynm: &D,
        x: &DVector<f64>,
    ) -> (DVector<f64>, DMatrix<f64>) {
        (&self.qf * self.error(dynm, x), self.qf.clone())
    }
    #[allow(clippy::too_many_arguments)]
    fn stage_into<D: Dynamics + ?Sized>(
        &self,
        dynm: &D,
        _t: usize,
        x: &DVector<f64>,
        u: &DVector<f64>,
        w: &mut CostWork,
        lx: &mut DVector<f64>,
        lu: &mut DVector<f64>,
        lxx: &mut DMatrix<f64>,
        luu: &mut DMatrix<f64>,
    ) {
        dynm.diff(self.xref.as_slice(), x.as_slice(), w.e.as_mut_slice());
        self.q.mul_to(&w.e, lx);
        *lx *= self.dt;
        lxx.copy_from(&self.q);
        *lxx *= self.dt;
        control_terms(&self.r, self.dt, u, lu, luu);
    }
    fn terminal_into<D: Dynamics + ?Sized>(
        &self,
        dynm: &D,
        x: &DVector<f64>,
        w: &mut CostWork,
        vx: &mut DVector<f64>,
        vxx: &mut DMatrix<f64>,
    ) {
        dynm.diff(self.xref.as_slice(), x.as_slice(), w.e.as_mut_slice());
        self.qf.mul_to(&w.e, vx);
        vxx.copy_from(&self.qf);
    }
    fn total_into<D: Dynamics + ?Sized>(
        &self,
        dynm: &D,
        xs: &[DVector<f64>],
        us: &[DVector<f64>],
        w: &mut CostWork,
    ) -> f64 {
        let mut c = 0.0;
        for (x, u) in xs.iter().zip(us) {
            dynm.diff(self.xref.as_slice(), x.as_slice(), w.e.as_mut_slice());
            let ex = w.quad_e(&self.q);
            let uu = w.quad_u(&self.r, u);
            c += self.dt * 0.5 * (ex + uu);
        }
        if let Some(x) = xs.last() {
            dynm.diff(self.xref.as_slice(), x.as_slice(), w.e.as_mut_slice());
            c += 0.5 * w.quad_e(&self.qf);
        }
        c
    }
}

/// A time-varying tracking cost: `Σ_t dt·[½ (x_t ⊖ x*_t)ᵀ diag(w_t) (x_t ⊖ x*_t) + ½ u_tᵀ R
/// u_t] + ½ (x_T ⊖ x*_T)ᵀ diag(w_T) (x_T ⊖ x*_T)`, with a reference `x*_t` (`nx` entries) and
/// diagonal tangent-space weights `w_t` (`ndx` entries) per knot `t = 0..=T` (the last ones are
/// the terminal cost's, not scaled by `dt`). The orientation error's Jacobian is taken as the
/// identity, as in [`QuadraticCost`].
#[derive(Clone, Debug)]
pub struct TrackingCost {
    /// `x*_t`, `T + 1` entries.
    pub xref: Vec<DVector<f64>>,
    /// `w_t`, `T + 1` entries.
    pub w: Vec<DVector<f64>>,
    pub r: DMatrix<f64>,
    pub dt: f64,
}

impl TrackingCost {
    /// `x_t ⊖ x*_t` on `dynm`'s tangent space.
    pub fn error<D: Dynamics + ?Sized>(
        &self,
        dynm: &D,
        t: usize,
        x: &DVector<f64>,
    ) -> DVector<f64> {
        tangent_error(dynm, &self.xref[t], x)
    }
}

/// `x ⊖ xref` on `dynm`'s tangent space.
fn tangent_error<D: Dynamics + ?Sized>(
    dynm: &D,
    xref: &DVector<f64>,
    x: &DVector<f64>,
) -> DVector<f64> {
    let mut dx = DVector::zeros(dynm.ndx());
    dynm.diff(xref.as_slice(), x.as_slice(), dx.as_mut_slice());
    dx
}

impl StageCost for TrackingCost {
    fn check(&self, nx: usize, ndx: usize, nu: usize, horizon: usize) -> Result<(), String> {
        if self.xref.len() != horizon + 1 || self.w.len() != horizon + 1 {
            return Err(format!(
                "iLQR: a tracking cost needs {} references and weights (one per knot), has {} \
                 and {}",
                horizon + 1,
                self.xref.len(),
                self.w.len()
            ));
        }
        if self.xref.iter().any(|x| x.len() != nx)
            || self.w.iter().any(|w| w.len() != ndx)
            || self.r.shape() != (nu, nu)
        {
            return Err(format!(
                "iLQR: tracking cost dimensions must be xref {nx}, w {ndx} (tangent space), \
                 R {nu}×{nu}"
            ));
        }
        if self
            .w
            .iter()
            .flatten()
            .any(|w| !(w.is_finite() && *w >= 0.0))
        {
            return Err("iLQR: tracking weights must be finite and non-negative".into());
        }
        Ok(())
    }
    fn total_on<D: Dynamics + ?Sized>(
        &self,
        dynm: &D,
        xs: &[DVector<f64>],
        us: &[DVector<f64>],
    ) -> f64 {
        let quad = |t: usize, x: &DVector<f64>| {
            let e = self.error(dynm, t, x);
            e.iter()
                .zip(self.w[t].iter())
                .map(|(e, w)| w * e * e)
                .sum::<f64>()
        };
        let mut c = 0.0;
        for (t, (x, u)) in xs.iter().zip(us).enumerate() {
            c += self.dt * 0.5 * (quad(t, x) + (u.transpose() * &self.r * u)[0]);
        }
        if let Some(x) = xs.last() {
            c += 0.5 * quad(xs.len() - 1, x);
        }
        c
    }
    fn stage<D: Dynamics + ?Sized>(
        &self,
        dynm: &D,
        t: usize,
        x: &DVector<f64>,
        u: &DVector<f64>,
    ) -> (DVector<f64>, DVector<f64>, DMatrix<f64>, DMatrix<f64>) {
        let e = self.error(dynm, t, x);
        (
            e.component_mul(&self.w[t]) * self.dt,
            &self.r * u * self.dt,
            DMatrix::from_diagonal(&(&self.w[t] * self.dt)),
            &self.r * self.dt,
        )
    }
    fn terminal<D: Dynamics + ?Sized>(
        &self,
        dynm: &D,
        x: &DVector<f64>,
    ) -> (DVector<f64>, DMatrix<f64>) {
        let t = self.xref.len() - 1;
        let e = self.error(dynm, t, x);
        (
            e.component_mul(&self.w[t]),
            DMatrix::from_diagonal(&self.w[t]),
        )
    }
    #[allow(clippy::too_many_arguments)]
    fn stage_into<D: Dynamics + ?Sized>(
        &self,
        dynm: &D,
        t: usize,
        x: &DVector<f64>,
        u: &DVector<f64>,
        w: &mut CostWork,
        lx: &mut DVector<f64>,
        lu: &mut DVector<f64>,
        lxx: &mut DMatrix<f64>,
        luu: &mut DMatrix<f64>,
    ) {
        dynm.diff(self.xref[t].as_slice(), x.as_slice(), w.e.as_mut_slice());
        let wt = &self.w[t];
        lxx.fill(0.0);
        for i in 0..wt.len() {
            lx[i] = w.e[i] * wt[i] * self.dt;
            lxx[(i, i)] = wt[i] * self.dt;
        }
        control_terms(&self.r, self.dt, u, lu, luu);
    }
    fn terminal_into<D: Dynamics + ?Sized>(
        &self,
        dynm: &D,
        x: &DVector<f64>,
        w: &mut CostWork,
        vx: &mut DVector<f64>,
        vxx: &mut DMatrix<f64>,
    ) {
        let t = self.xref.len() - 1;
        dynm.diff(self.xref[t].as_slice(), x.as_slice(), w.e.as_mut_slice());
        let wt = &self.w[t];
        vxx.fill(0.0);
        for i in 0..wt.len() {
            vx[i] = w.e[i] * wt[i];
            vxx[(i, i)] = wt[i];
        }
    }
    fn total_into<D: Dynamics + ?Sized>(
        &self,
        dynm: &D,
        xs: &[DVector<f64>],
        us: &[DVector<f64>],
        w: &mut CostWork,
    ) -> f64 {
        let quad = |t: usize, x: &DVector<f64>, w: &mut CostWork| {
            dynm.diff(self.xref[t].as_slice(), x.as_slice(), w.e.as_mut_slice());
            w.e.iter()
                .zip(self.w[t].iter())
                .map(|(e, w)| w * e * e)
                .sum::<f64>()
        };
        let mut c = 0.0;
        for (t, (x, u)) in xs.iter().zip(us).enumerate() {
            let q = quad(t, x, w);
            c += self.dt * 0.5 * (q + w.quad_u(&self.r, u));
        }
        if let Some(x) = xs.last() {
            c += 0.5 * quad(xs.len() - 1, x, w);
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
    /// Elementwise control bounds `(lo, hi)` (`None`: unbounded). Infinite entries are allowed.
    pub bounds: Option<(Vec<f64>, Vec<f64>)>,
}

impl Default for IlqrOptions {
    fn default() -> Self {
        IlqrOptions {
            max_iter: 200,
            tol: 1e-9,
            mu_init: 1e-6,
            mu_min: 1e-9,
            mu_max: 1e10,
            bounds: None,
        }
    }
}

/// The result of [`ilqr`].
#[derive(Clone, Debug)]
pub struct IlqrResult {
    pub xs: Vec<DVector<f64>>,
    pub us: Vec<DVector<f64>>,
    /// Feedback gains `K_t` (`u = u_t + K_t (x ⊖ x_t)`, `nu × ndx`).
    pub gains: Vec<DMatrix<f64>>,
    /// Cost after each iteration (the first entry is the initial guess).
    pub cost_history: Vec<f64>,
    pub iterations: usize,
    pub converged: bool,
    /// Linearizations whose `A` or `B` from [`Dynamics::jacobians`] had a non-finite entry and
    /// were redone by [`central_jacobians`] (step 1e-6).
    pub jacobian_fallbacks: usize,
}

/// The solution of [`box_qp`].
#[derive(Clone, Debug)]
pub struct BoxQp {
    pub x: DVector<f64>,
    /// `true` for the components that are not at an active bound.
    pub free: Vec<bool>,
    /// Cholesky factor of the free block `H_ff` at the solution (`None` when no component is
    /// free).
    pub chol_free: Option<nalgebra::Cholesky<f64, nalgebra::Dyn>>,
    pub iterations: usize,
}

/// The buffers of [`box_qp`], kept between calls so that a solve of the same size allocates
/// nothing ([`IlqrWorkspace`] holds one); the solution is [`BoxQpWork::x`], its active set
/// and factor [`BoxQpWork::free`], [`BoxQpWork::chol_free`].
#[derive(Clone, Debug, Default)]
pub struct BoxQpWork {
    pub x: DVector<f64>,
    pub free: Vec<bool>,
    pub chol_free: Option<nalgebra::Cholesky<f64, nalgebra::Dyn>>,
    pub iterations: usize,
    grad: DVector<f64>,
    hx: DVector<f64>,
    dir: DVector<f64>,
    xt: DVector<f64>,
    diff: DVector<f64>,
    idx: Vec<usize>,
    /// Storage of the free block's factor and of the free gradient (moved into and out of
    /// their matrices).
    spare: Vec<f64>,
    gf: Vec<f64>,
}

/// Factors `H` restricted to the rows and columns `idx` into `chol`, in the storage of the
/// previous factor or `spare` (a block that is not positive definite loses its storage: the
/// next factor allocates). False when it is not positive definite.
fn factor_block(
    h: &DMatrix<f64>,
    idx: &[usize],
    spare: &mut Vec<f64>,
    chol: &mut Option<nalgebra::Cholesky<f64, nalgebra::Dyn>>,
) -> bool {
    if let Some(c) = chol.take() {
        let v: Vec<f64> = c.unpack().data.into();
        if v.capacity() > spare.capacity() {
            *spare = v;
        }
    }
    let k = idx.len();
    let mut v = std::mem::take(spare);
    v.clear();
    for &b in idx {
        for &a in idx {
            v.push(h[(a, b)]);
        }
    }
    *chol = nalgebra::Cholesky::new(DMatrix::from_vec(k, k, v));
    chol.is_some()
}

/// The exact active set at `x` (a component is held when it sits on a bound and the gradient
/// points out of the box) written into `free`, and the Cholesky factor of the free block into
/// `chol` (`None` when nothing is free); false when the block is not positive definite.
#[allow(clippy::too_many_arguments)]
fn exact_active_set(
    h: &DMatrix<f64>,
    x: &DVector<f64>,
    grad: &DVector<f64>,
    lo: &[f64],
    hi: &[f64],
    free: &mut [bool],
    idx: &mut Vec<usize>,
    spare: &mut Vec<f64>,
    chol: &mut Option<nalgebra::Cholesky<f64, nalgebra::Dyn>>,
) -> bool {
    for i in 0..free.len() {
        free[i] = !((x[i] <= lo[i] && grad[i] > 0.0) || (x[i] >= hi[i] && grad[i] < 0.0));
    }
    idx.clear();
    idx.extend((0..free.len()).filter(|&i| free[i]));
    if idx.is_empty() {
        if let Some(c) = chol.take() {
            *spare = c.unpack().data.into();
        }
        true
    } else {
        factor_block(h, idx, spare, chol)
    }
}

/// `min ½ xᵀ H x + gᵀ x` subject to `lo ≤ x ≤ hi` by projected Newton (Bertsekas 1982): at each
/// iterate the components at a bound whose gradient points out of the box are clamped, a Newton
/// step is taken on the free ones and projected back into the box with an Armijo backtracking
/// search. `x0` is the warm start (projected first). Returns `None` when the free block of `H`
/// is not positive definite (the caller regularizes) or the bounds are inconsistent.
pub fn box_qp(
    h: &DMatrix<f64>,
    g: &DVector<f64>,
    lo: &[f64],
    hi: &[f64],
    x0: &DVector<f64>,
) -> Option<BoxQp> {
    let mut w = BoxQpWork::default();
    box_qp_in(&mut w, h, g, lo, hi, x0).then_some(BoxQp {
        x: w.x,
        free: w.free,
        chol_free: w.chol_free,
        iterations: w.iterations,
    })
}

/// [`box_qp`] in the buffers of `w` (the solution in `w.x`, `w.free`, `w.chol_free`); false
/// where [`box_qp`] returns `None`. Allocates nothing once `w` has held a problem of this size.
pub fn box_qp_in(
    w: &mut BoxQpWork,
    h: &DMatrix<f64>,
    g: &DVector<f64>,
    lo: &[f64],
    hi: &[f64],
    x0: &DVector<f64>,
) -> bool {
    let n = g.len();
    if lo
        .iter()
        .zip(hi)
        .any(|(l, u)| l > u || l.is_nan() || u.is_nan())
    {
        return false;
    }
    for v in [
        &mut w.x,
        &mut w.grad,
        &mut w.hx,
        &mut w.dir,
        &mut w.xt,
        &mut w.diff,
    ] {
        if v.len() != n {
            *v = DVector::zeros(n);
        }
    }
    w.free.clear();
    w.free.resize(n, true);
    let BoxQpWork {
        x,
        free,
        chol_free,
        iterations,
        grad,
        hx,
        dir,
        xt,
        diff,
        idx,
        spare,
        gf,
    } = w;
    let f = |x: &DVector<f64>, hx: &mut DVector<f64>| {
        h.mul_to(x, hx);
        0.5 * x.dot(hx) + g.dot(x)
    };
    for i in 0..n {
        x[i] = x0[i].clamp(lo[i], hi[i]);
    }
    let mut value = f(x, hx);
    if let Some(c) = chol_free.take() {
        *spare = c.unpack().data.into();
    }
    *iterations = 0;
    for it in 0..200 {
        *iterations = it + 1;
        h.mul_to(x, grad);
        *grad += g;
        // ε-active set (Bertsekas): components within ε of a bound with the gradient pushing
        // outwards are held, ε = the projected-gradient norm (→ 0 at the solution)
        let pg = (0..n)
            .map(|i| (x[i] - (x[i] - grad[i]).clamp(lo[i], hi[i])).abs())
            .fold(0.0, f64::max);
        let eps = pg.min(1e-3);
        for i in 0..n {
            free[i] =
                !((x[i] - lo[i] <= eps && grad[i] > 0.0) || (hi[i] - x[i] <= eps && grad[i] < 0.0));
        }
        idx.clear();
        idx.extend((0..n).filter(|&i| free[i]));
        if idx.is_empty() || pg <= 1e-13 * (1.0 + g.amax()) {
            // converged: the exact active set at x
            if !exact_active_set(h, x, grad, lo, hi, free, idx, spare, chol_free) {
                return false;
            }
            break;
        }
        if !factor_block(h, idx, spare, chol_free) {
            return false;
        }
        let chol = chol_free.as_ref().expect("factored");
        let mut v = std::mem::take(gf);
        v.clear();
        v.extend(idx.iter().map(|&i| grad[i]));
        let mut gfv = DVector::from_vec(v);
        chol.solve_mut(&mut gfv);
        gfv.neg_mut();
        // held components take a diagonally scaled gradient step (projected onto their bound)
        for i in 0..n {
            dir[i] = -grad[i] / h[(i, i)].abs().max(1e-300);
        }
        for (a, &i) in idx.iter().enumerate() {
            dir[i] = gfv[a];
        }
        *gf = gfv.data.into();
        // Armijo search along the projected arc.
        let mut alpha = 1.0;
        let mut accepted = None;
        while alpha > 1e-12 {
            for i in 0..n {
                xt[i] = (x[i] + alpha * dir[i]).clamp(lo[i], hi[i]);
            }
            let vt = f(xt, hx);
            for i in 0..n {
                diff[i] = xt[i] - x[i];
            }
            if vt - value <= 0.1 * grad.dot(diff) {
                accepted = Some(vt);
                break;
            }
            alpha *= 0.5;
        }
        let Some(vt) = accepted else { break };
        let improvement = value - vt;
        std::mem::swap(x, xt);
        value = vt;
        if improvement < 1e-14 * (1.0 + value.abs()) {
            // refresh the active set and factor at the final point
            h.mul_to(x, grad);
            *grad += g;
            if !exact_active_set(h, x, grad, lo, hi, free, idx, spare, chol_free) {
                return false;
            }
            break;
        }
    }
    true
}

fn clamp_into(u: &mut DVector<f64>, bounds: &Option<(Vec<f64>, Vec<f64>)>) {
    if let Some((lo, hi)) = bounds {
        for i in 0..u.len() {
            u[i] = u[i].clamp(lo[i], hi[i]);
        }
    }
}

/// The states of `us` from `x0` into `xs` (`us.len() + 1` entries, sized).
fn rollout_into<D: Dynamics>(
    dynm: &mut D,
    x0: &DVector<f64>,
    us: &[DVector<f64>],
    xs: &mut [DVector<f64>],
) -> Result<(), String> {
    xs[0].copy_from(x0);
    for (t, u) in us.iter().enumerate() {
        let (head, tail) = xs.split_at_mut(t + 1);
        let next = tail[0].as_mut_slice();
        dynm.step(head[t].as_slice(), u.as_slice(), next)?;
        if next.iter().any(|v| !v.is_finite()) {
            return Err("rollout diverged (non-finite state)".into());
        }
    }
    Ok(())
}

/// The input checks of [`ilqr`] (dimensions of `x0`, `us` and the cost, consistent bounds):
/// an error here is the caller's, not a failed solve.
pub fn check_problem<D: Dynamics + ?Sized, C: StageCost + ?Sized>(
    dynm: &D,
    cost: &C,
    x0: &DVector<f64>,
    us: &[DVector<f64>],
    opt: &IlqrOptions,
) -> Result<(), String> {
    let (nx, ndx, nu) = (dynm.nx(), dynm.ndx(), dynm.nu());
    if x0.len() != nx || us.iter().any(|u| u.len() != nu) {
        return Err(format!(
            "dimension mismatch: expected x0 of {nx} and controls of {nu}"
        ));
    }
    cost.check(nx, ndx, nu, us.len())?;
    if let Some((lo, hi)) = &opt.bounds {
        if lo.len() != nu || hi.len() != nu {
            return Err(format!("iLQR: bounds must have {nu} entries each"));
        }
        if let Some(i) = (0..nu).find(|&i| lo[i] > hi[i] || lo[i].is_nan() || hi[i].is_nan()) {
            return Err(format!(
                "iLQR: control bound {i} is empty ({} > {})",
                lo[i], hi[i]
            ));
        }
    }
    if us.is_empty() {
        return Err("iLQR: the horizon must have at least one step".into());
    }
    Ok(())
}

/// The buffers of [`ilqr_in`]: the trajectory (the guess on entry, the solution on return),
/// the gains, the cost history and every intermediate of the backward and forward passes,
/// kept between solves so that a solve of the same dimensions and horizon allocates nothing
/// (receding-horizon MPC, [`crate::mpc::IlqrMpc`]). Sized by [`IlqrWorkspace::size`].
#[derive(Clone, Debug, Default)]
pub struct IlqrWorkspace {
    /// States `x_0..x_T` of the solution (`T + 1`).
    pub xs: Vec<DVector<f64>>,
    /// Controls: the initial guess on entry, the solution on return (`T`).
    pub us: Vec<DVector<f64>>,
    /// Feedback gains `K_t` (`nu × ndx`).
    pub gains: Vec<DMatrix<f64>>,
    /// Cost after each iteration (the first entry is the initial guess's).
    pub cost_history: Vec<f64>,
    xn: Vec<DVector<f64>>,
    un: Vec<DVector<f64>>,
    a: Vec<DMatrix<f64>>,
    b: Vec<DMatrix<f64>>,
    kff: Vec<DVector<f64>>,
    dxt: DVector<f64>,
    cost: CostWork,
    vx: DVector<f64>,
    vxx: DMatrix<f64>,
    lx: DVector<f64>,
    lu: DVector<f64>,
    lxx: DMatrix<f64>,
    luu: DMatrix<f64>,
    at: DMatrix<f64>,
    bt: DMatrix<f64>,
    qx: DVector<f64>,
    qu: DVector<f64>,
    qxx: DMatrix<f64>,
    btv: DMatrix<f64>,
    quu: DMatrix<f64>,
    qux: DMatrix<f64>,
    atv: DMatrix<f64>,
    tx: DVector<f64>,
    tu: DVector<f64>,
    txx: DMatrix<f64>,
    k: DVector<f64>,
    kk: DMatrix<f64>,
    kkt: DMatrix<f64>,
    quxt: DMatrix<f64>,
    ktq: DMatrix<f64>,
    krow: DMatrix<f64>,
    krowq: DMatrix<f64>,
    one: DMatrix<f64>,
    dlo: Vec<f64>,
    dhi: Vec<f64>,
    qp: BoxQpWork,
    spare: Vec<f64>,
    chol: Option<nalgebra::Cholesky<f64, nalgebra::Dyn>>,
    kf: Vec<f64>,
}

/// Scratch of [`StageCost::stage_into`] and [`StageCost::total_into`].
#[derive(Clone, Debug, Default)]
pub struct CostWork {
    /// `x ⊖ x*` (`ndx`).
    pub e: DVector<f64>,
    row: DMatrix<f64>,
    rowq: DMatrix<f64>,
    urow: DMatrix<f64>,
    urowr: DMatrix<f64>,
    one: DMatrix<f64>,
}

impl CostWork {
    fn size(&mut self, ndx: usize, nu: usize) {
        resize_v(&mut self.e, ndx);
        resize_m(&mut self.row, 1, ndx);
        resize_m(&mut self.rowq, 1, ndx);
        resize_m(&mut self.urow, 1, nu);
        resize_m(&mut self.urowr, 1, nu);
        resize_m(&mut self.one, 1, 1);
    }

    /// `eᵀ A e` of `self.e` as `(eᵀ A) e` (the products of `e.transpose() * a * e`).
    fn quad_e(&mut self, a: &DMatrix<f64>) -> f64 {
        self.e.transpose_to(&mut self.row);
        self.row.mul_to(a, &mut self.rowq);
        self.rowq.mul_to(&self.e, &mut self.one);
        self.one[0]
    }

    /// `uᵀ A u` as `(uᵀ A) u`.
    fn quad_u(&mut self, a: &DMatrix<f64>, u: &DVector<f64>) -> f64 {
        u.transpose_to(&mut self.urow);
        self.urow.mul_to(a, &mut self.urowr);
        self.urowr.mul_to(u, &mut self.one);
        self.one[0]
    }
}

/// The control terms of a stage, `ℓ_u = R u dt` and `ℓ_uu = R dt`, in place.
fn control_terms(
    r: &DMatrix<f64>,
    dt: f64,
    u: &DVector<f64>,
    lu: &mut DVector<f64>,
    luu: &mut DMatrix<f64>,
) {
    r.mul_to(u, lu);
    *lu *= dt;
    luu.copy_from(r);
    *luu *= dt;
}

fn resize_v(v: &mut DVector<f64>, n: usize) {
    if v.len() != n {
        *v = DVector::zeros(n);
    }
}

fn resize_m(m: &mut DMatrix<f64>, r: usize, c: usize) {
    if m.shape() != (r, c) {
        *m = DMatrix::zeros(r, c);
    }
}

fn resize_vs(v: &mut Vec<DVector<f64>>, count: usize, n: usize) {
    v.truncate(count);
    for x in v.iter_mut() {
        resize_v(x, n);
    }
    while v.len() < count {
        v.push(DVector::zeros(n));
    }
}

fn resize_ms(v: &mut Vec<DMatrix<f64>>, count: usize, r: usize, c: usize) {
    v.truncate(count);
    for x in v.iter_mut() {
        resize_m(x, r, c);
    }
    while v.len() < count {
        v.push(DMatrix::zeros(r, c));
    }
}

impl IlqrWorkspace {
    /// Sizes every buffer for a horizon of `horizon` steps (nothing is allocated when the sizes
    /// are those of the last call). `us` keeps its entries where their size is right.
    pub fn size(&mut self, nx: usize, ndx: usize, nu: usize, horizon: usize) {
        resize_vs(&mut self.xs, horizon + 1, nx);
        resize_vs(&mut self.xn, horizon + 1, nx);
        resize_vs(&mut self.us, horizon, nu);
        resize_vs(&mut self.un, horizon, nu);
        resize_ms(&mut self.a, horizon, ndx, ndx);
        resize_ms(&mut self.b, horizon, ndx, nu);
        resize_vs(&mut self.kff, horizon, nu);
        resize_ms(&mut self.gains, horizon, nu, ndx);
        self.cost.size(ndx, nu);
        for v in [
            &mut self.dxt,
            &mut self.vx,
            &mut self.lx,
            &mut self.qx,
            &mut self.tx,
        ] {
            resize_v(v, ndx);
        }
        for v in [&mut self.lu, &mut self.qu, &mut self.tu, &mut self.k] {
            resize_v(v, nu);
        }
        for m in [
            &mut self.vxx,
            &mut self.lxx,
            &mut self.at,
            &mut self.qxx,
            &mut self.atv,
            &mut self.txx,
        ] {
            resize_m(m, ndx, ndx);
        }
        for m in [&mut self.luu, &mut self.quu] {
            resize_m(m, nu, nu);
        }
        resize_m(&mut self.bt, nu, ndx);
        resize_m(&mut self.btv, nu, ndx);
        resize_m(&mut self.qux, nu, ndx);
        resize_m(&mut self.kk, nu, ndx);
        resize_m(&mut self.kkt, ndx, nu);
        resize_m(&mut self.quxt, ndx, nu);
        resize_m(&mut self.ktq, ndx, nu);
        resize_m(&mut self.krow, 1, nu);
        resize_m(&mut self.krowq, 1, nu);
        resize_m(&mut self.one, 1, 1);
        self.dlo.resize(nu, 0.0);
        self.dhi.resize(nu, 0.0);
    }
}

/// What [`ilqr_in`] reports besides the trajectory it leaves in its workspace.
#[derive(Clone, Copy, Debug, Default)]
pub struct IlqrSummary {
    pub iterations: usize,
    pub converged: bool,
    /// See [`IlqrResult::jacobian_fallbacks`].
    pub jacobian_fallbacks: usize,
}

/// Runs iLQR from `x0` with the initial control guess `us`. `on_iter(k, cost)` is called after
/// every iteration (for progress reporting).
pub fn ilqr<D: Dynamics, C: StageCost + ?Sized>(
    dynm: &mut D,
    cost: &C,
    x0: &DVector<f64>,
    us: Vec<DVector<f64>>,
    opt: &IlqrOptions,
    on_iter: impl FnMut(usize, f64),
) -> Result<IlqrResult, String> {
    check_problem(&*dynm, cost, x0, &us, opt)?;
    let mut ws = IlqrWorkspace {
        us,
        ..Default::default()
    };
    let s = ilqr_in(&mut ws, dynm, cost, x0, opt, on_iter)?;
    Ok(IlqrResult {
        xs: ws.xs,
        us: ws.us,
        gains: ws.gains,
        cost_history: ws.cost_history,
        iterations: s.iterations,
        converged: s.converged,
        jacobian_fallbacks: s.jacobian_fallbacks,
    })
}

/// [`ilqr`] in the buffers of `ws`: the initial guess is `ws.us` (its length is the horizon),
/// the solution is left in `ws.xs`, `ws.us`, `ws.gains`, `ws.cost_history`. The same
/// iterates as [`ilqr`], to the bit. Once `ws` has held a solve of these dimensions and
/// horizon it allocates nothing itself (the system's `step` and `jacobians_all`, and the
/// cost's [`StageCost::stage_into`] and [`StageCost::total_into`], may), except when a
/// regularized `Q_uu` block is not positive definite (its factor's storage is freed).
pub fn ilqr_in<D: Dynamics, C: StageCost + ?Sized>(
    ws: &mut IlqrWorkspace,
    dynm: &mut D,
    cost: &C,
    x0: &DVector<f64>,
    opt: &IlqrOptions,
    mut on_iter: impl FnMut(usize, f64),
) -> Result<IlqrSummary, String> {
    check_problem(&*dynm, cost, x0, &ws.us, opt)?;
    let (nx, ndx, nu) = (dynm.nx(), dynm.ndx(), dynm.nu());
    let horizon = ws.us.len();
    ws.size(nx, ndx, nu, horizon);
    for u in ws.us.iter_mut() {
        clamp_into(u, &opt.bounds);
    }
    rollout_into(dynm, x0, &ws.us, &mut ws.xs)?;
    let mut j = cost.total_into(&*dynm, &ws.xs, &ws.us, &mut ws.cost);
    ws.cost_history.clear();
    ws.cost_history.push(j);
    let mut mu = opt.mu_init;
    for k in ws.kff.iter_mut() {
        k.fill(0.0);
    }
    for g in ws.gains.iter_mut() {
        g.fill(0.0);
    }
    let mut converged = false;
    let mut iterations = 0;
    let alphas = [
        1.0, 0.5, 0.25, 0.125, 0.0625, 0.03125, 0.015625, 0.0078125, 0.00390625,
    ];

    // the linearization is redone only after the trajectory changed (a rejected iteration
    // retries with more regularization on the same Jacobians)
    let mut linearized = false;
    let mut jacobian_fallbacks = 0;
    for it in 0..opt.max_iter {
        iterations = it + 1;
        if !linearized {
            dynm.jacobians_all(&ws.xs, &ws.us, &mut ws.a, &mut ws.b)?;
            for t in 0..horizon {
                let (x, u) = (ws.xs[t].as_slice(), ws.us[t].as_slice());
                if !all_finite(&ws.a[t]) || !all_finite(&ws.b[t]) {
                    // e.g. the analytic transition at the hopper's foot capsule folded onto
                    // its torso capsule (coincident closest points; docs/optimization.md,
                    // MPC): central differences of the system's own step, for this stage
                    central_jacobians(dynm, x, u, &mut ws.a[t], &mut ws.b[t], 1e-6)?;
                    if !all_finite(&ws.a[t]) || !all_finite(&ws.b[t]) {
                        return Err(format!(
                            "iLQR: non-finite Jacobians at stage {t} (also by central differences)"
                        ));
                    }
                    jacobian_fallbacks += 1;
                }
            }
            linearized = true;
        }
        // Backward pass, retried with larger regularization when Quu is not positive definite.
        let expected = loop {
            if let Some(e) = backward(ws, &*dynm, cost, opt, mu, horizon)? {
                break e;
            }
            mu = (mu * 10.0).max(opt.mu_min);
            if mu > opt.mu_max {
                return Err("iLQR: regularization exceeded its maximum".into());
            }
        };
        // Forward pass with line search.
        let mut accepted = false;
        for &alpha in &alphas {
            ws.xn[0].copy_from(x0);
            let mut fail = false;
            for t in 0..horizon {
                let IlqrWorkspace {
                    xs,
                    us,
                    xn,
                    un,
                    kff,
                    gains,
                    dxt,
                    tu,
                    ..
                } = &mut *ws;
                dynm.diff(xs[t].as_slice(), xn[t].as_slice(), dxt.as_mut_slice());
                let u = &mut un[t];
                for i in 0..nu {
                    u[i] = us[t][i] + kff[t][i] * alpha;
                }
                gains[t].mul_to(dxt, tu);
                *u += &*tu;
                clamp_into(u, &opt.bounds);
                let (head, tail) = xn.split_at_mut(t + 1);
                let next = tail[0].as_mut_slice();
                if dynm.step(head[t].as_slice(), u.as_slice(), next).is_err()
                    || next.iter().any(|v| !v.is_finite())
                {
                    fail = true;
                    break;
                }
            }
            if fail {
                continue;
            }
            let jn = cost.total_into(&*dynm, &ws.xn, &ws.un, &mut ws.cost);
            let predicted = -(alpha * expected.0 + alpha * alpha * expected.1);
            if jn < j && (predicted <= 0.0 || (j - jn) / predicted > 1e-4) {
                let rel = (j - jn) / j.abs().max(1e-300);
                std::mem::swap(&mut ws.xs, &mut ws.xn);
                std::mem::swap(&mut ws.us, &mut ws.un);
                j = jn;
                accepted = true;
                linearized = false;
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
        ws.cost_history.push(j);
        on_iter(it, j);
        if converged {
            break;
        }
    }
    Ok(IlqrSummary {
        iterations,
        converged,
        jacobian_fallbacks,
    })
}

/// One backward pass at regularization `mu` into `ws.kff`, `ws.gains`: the expected cost
/// change's coefficients, `None` when a regularized `Q_uu` (or its free block) is not positive
/// definite.
fn backward<D: Dynamics + ?Sized, C: StageCost + ?Sized>(
    ws: &mut IlqrWorkspace,
    dynm: &D,
    cost: &C,
    opt: &IlqrOptions,
    mu: f64,
    horizon: usize,
) -> Result<Option<(f64, f64)>, String> {
    let nu = ws.qu.len();
    let ndx = ws.qx.len();
    let IlqrWorkspace {
        xs,
        us,
        a,
        b,
        kff,
        gains,
        cost: cw,
        vx,
        vxx,
        lx,
        lu,
        lxx,
        luu,
        at,
        bt,
        qx,
        qu,
        qxx,
        btv,
        quu,
        qux,
        atv,
        tx,
        tu,
        txx,
        k,
        kk,
        kkt,
        quxt,
        ktq,
        krow,
        krowq,
        one,
        dlo,
        dhi,
        qp,
        spare,
        chol,
        kf,
        ..
    } = ws;
    cost.terminal_into(dynm, &xs[horizon], cw, vx, vxx);
    let mut expected = (0.0, 0.0);
    for t in (0..horizon).rev() {
        cost.stage_into(dynm, t, &xs[t], &us[t], cw, lx, lu, lxx, luu);
        a[t].transpose_to(at);
        b[t].transpose_to(bt);
        // qx = lx + Aᵀ vx, qu = lu + Bᵀ vx
        at.mul_to(vx, tx);
        qx.copy_from(lx);
        *qx += &*tx;
        bt.mul_to(vx, tu);
        qu.copy_from(lu);
        *qu += &*tu;
        // qxx = lxx + (Aᵀ Vxx) A
        at.mul_to(vxx, atv);
        atv.mul_to(&a[t], txx);
        qxx.copy_from(lxx);
        *qxx += &*txx;
        // `Bᵀ V_xx` once for `Q_uu` and `Q_ux` (the same products, evaluated left to right)
        bt.mul_to(vxx, btv);
        btv.mul_to(&b[t], quu);
        *quu += &*luu;
        btv.mul_to(&a[t], qux);
        if !all_finite(quu) || !all_finite(qu) || !all_finite(qux) {
            // overflow: no regularization makes this positive definite
            return Err(format!("iLQR: non-finite Q-function at stage {t}"));
        }
        match &opt.bounds {
            None => {
                // Q_uu + μ I, factored in the storage of the last factor
                if let Some(c) = chol.take() {
                    *spare = c.unpack().data.into();
                }
                let mut v = std::mem::take(spare);
                v.clear();
                for c in 0..nu {
                    for r in 0..nu {
                        v.push(quu[(r, c)] + if r == c { mu } else { 0.0 });
                    }
                }
                let Some(c) = nalgebra::Cholesky::new(DMatrix::from_vec(nu, nu, v)) else {
                    return Ok(None);
                };
                k.copy_from(qu);
                c.solve_mut(k);
                k.neg_mut();
                kk.copy_from(qux);
                c.solve_mut(kk);
                kk.neg_mut();
                *chol = Some(c);
            }
            Some((lo, hi)) => {
                // box on δu: the bounds minus the current control
                for i in 0..nu {
                    dlo[i] = lo[i] - us[t][i];
                    dhi[i] = hi[i] - us[t][i];
                }
                // Q_uu + μ I in `txx`'s place would change its size: a matrix of its own
                let mut v = std::mem::take(spare);
                v.clear();
                for c in 0..nu {
                    for r in 0..nu {
                        v.push(quu[(r, c)] + if r == c { mu } else { 0.0 });
                    }
                }
                let quu_reg = DMatrix::from_vec(nu, nu, v);
                let ok = box_qp_in(qp, &quu_reg, qu, dlo, dhi, &kff[t]);
                *spare = quu_reg.data.into();
                if !ok {
                    return Ok(None);
                }
                kk.fill(0.0);
                if let Some(c) = &qp.chol_free {
                    let free = &qp.free;
                    let nf = free.iter().filter(|&&f| f).count();
                    let mut v = std::mem::take(kf);
                    v.clear();
                    for col in 0..ndx {
                        for i in (0..nu).filter(|&i| free[i]) {
                            v.push(qux[(i, col)]);
                        }
                    }
                    let mut m = DMatrix::from_vec(nf, ndx, v);
                    c.solve_mut(&mut m);
                    m.neg_mut();
                    for (r, i) in (0..nu).filter(|&i| free[i]).enumerate() {
                        for col in 0..ndx {
                            kk[(i, col)] = m[(r, col)];
                        }
                    }
                    *kf = m.data.into();
                }
                k.copy_from(&qp.x);
            }
        }
        k.transpose_to(krow);
        krow.mul_to(qu, one);
        expected.0 += one[0];
        krow.mul_to(quu, krowq);
        krowq.mul_to(k, one);
        expected.1 += 0.5 * one[0];
        // `Kᵀ Q_uu` once for both updates
        kk.transpose_to(kkt);
        qux.transpose_to(quxt);
        kkt.mul_to(quu, ktq);
        // vx = qx + Kᵀ Q_uu k + Kᵀ qu + Q_uxᵀ k
        vx.copy_from(qx);
        ktq.mul_to(k, tx);
        *vx += &*tx;
        kkt.mul_to(qu, tx);
        *vx += &*tx;
        quxt.mul_to(k, tx);
        *vx += &*tx;
        // vxx = qxx + Kᵀ Q_uu K + Kᵀ Q_ux + Q_uxᵀ K, symmetrized
        txx.copy_from(qxx);
        ktq.mul_to(kk, atv);
        *txx += &*atv;
        kkt.mul_to(qux, atv);
        *txx += &*atv;
        quxt.mul_to(kk, atv);
        *txx += &*atv;
        for c in 0..ndx {
            for r in 0..ndx {
                vxx[(r, c)] = (txx[(r, c)] + txx[(c, r)]) * 0.5;
            }
        }
        kff[t].copy_from(k);
        gains[t].copy_from(kk);
    }
    Ok(Some(expected))
}

fn all_finite<R: nalgebra::Dim, C: nalgebra::Dim, S: nalgebra::RawStorage<f64, R, C>>(
    m: &nalgebra::Matrix<f64, R, C, S>,
) -> bool {
    m.iter().all(|v| v.is_finite())
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

    /// Move the double integrator from rest at 0 to rest at 1.
    fn double_integrator_cost(h: f64) -> QuadraticCost {
        QuadraticCost {
            q: DMatrix::from_diagonal(&DVector::from_vec(vec![1.0, 0.1])),
            r: DMatrix::from_element(1, 1, 0.01),
            qf: DMatrix::from_diagonal(&DVector::from_vec(vec![100.0, 10.0])),
            xref: DVector::from_vec(vec![1.0, 0.0]),
            dt: h,
        }
    }

    /// iLQR on the double integrator (step `h`) over `n` steps from rest at 0, from zero controls.
    fn solve_from_rest<C: StageCost>(cost: &C, h: f64, n: usize) -> (IlqrResult, DoubleIntegrator) {
        let mut sys = DoubleIntegrator { h };
        let x0 = DVector::from_vec(vec![0.0, 0.0]);
        let opt = IlqrOptions::default();
        let res = ilqr(
            &mut sys,
            cost,
            &x0,
            vec![DVector::zeros(1); n],
            &opt,
            |_, _| {},
        );
        (res.unwrap(), sys)
    }

    /// The finite-horizon LQR of the double integrator (step `h`) by the affine Riccati recursion
    /// `V_t(x) = ½ xᵀ P x + sᵀ x` (`P_T = Q_T`, `s_T = −Q_T x*_T`, `u = −K x − k`) with stage
    /// weights and references `stage(t)` and the terminal ones, rolled out from `res`'s first
    /// state: the largest difference from `res`'s controls.
    fn riccati_control_error(
        h: f64,
        r: &DMatrix<f64>,
        res: &IlqrResult,
        stage: impl Fn(usize) -> (DMatrix<f64>, DVector<f64>),
        (qf, xf): (DMatrix<f64>, DVector<f64>),
    ) -> f64 {
        let n = res.us.len();
        let a = DMatrix::from_row_slice(2, 2, &[1.0, h, 0.0, 1.0]);
        let b = DMatrix::from_row_slice(2, 1, &[h * h, h]);
        let mut p = qf.clone();
        let mut s = -&qf * &xf;
        let mut ks = vec![];
        for t in (0..n).rev() {
            let (q, xref) = stage(t);
            let quu = r * h + b.transpose() * &p * &b;
            let inv = quu.clone().try_inverse().unwrap();
            let k = &inv * b.transpose() * &p * &a;
            let kf = &inv * b.transpose() * &s;
            let q = q * h;
            let p_new = &q + a.transpose() * &p * &a - a.transpose() * &p * &b * &k;
            let s_new = -&q * &xref + (a.transpose() - k.transpose() * b.transpose()) * &s;
            ks.push((k, kf));
            p = p_new;
            s = s_new;
        }
        ks.reverse();
        let mut sys = DoubleIntegrator { h };
        let mut x = res.xs[0].clone();
        let mut worst: f64 = 0.0;
        for (t, (k, kf)) in ks.iter().enumerate() {
            let u = -k * &x - kf;
            worst = worst.max((u[0] - res.us[t][0]).abs());
            let mut xn = [0.0; 2];
            sys.step(x.as_slice(), u.as_slice(), &mut xn).unwrap();
            x = DVector::from_column_slice(&xn);
        }
        worst
    }

    #[test]
    fn matches_riccati_on_linear_quadratic_problem() {
        let h = 0.05;
        let n = 60;
        let cost = double_integrator_cost(h);
        let (res, _) = solve_from_rest(&cost, h, n);

        // Independent solution: Riccati recursion in affine form for the tracking problem.
        let worst = riccati_control_error(
            h,
            &cost.r,
            &res,
            |_| (cost.q.clone(), cost.xref.clone()),
            (cost.qf.clone(), cost.xref.clone()),
        );
        assert!(worst < 1e-6, "largest control difference {worst:.3e}");
        assert!(res.converged);
    }

    /// A time-varying reference and weights ([`TrackingCost`]) on the double integrator: iLQR
    /// must reproduce the finite-horizon LQR solution of the affine Riccati recursion with a
    /// reference `x*_t` and weights `Q_t` per stage, computed here independently.
    #[test]
    fn tracking_cost_matches_time_varying_riccati() {
        let (h, n) = (0.05, 60);
        let xref: Vec<DVector<f64>> = (0..=n)
            .map(|t| DVector::from_vec(vec![(0.1 * t as f64).sin(), 0.0]))
            .collect();
        let w: Vec<DVector<f64>> = (0..=n)
            .map(|t| {
                if t == n {
                    DVector::from_vec(vec![100.0, 10.0])
                } else if (20..40).contains(&t) {
                    DVector::from_vec(vec![50.0, 0.5])
                } else {
                    DVector::from_vec(vec![0.0, 0.1])
                }
            })
            .collect();
        let cost = TrackingCost {
            xref: xref.clone(),
            w: w.clone(),
            r: DMatrix::from_element(1, 1, 0.01),
            dt: h,
        };
        let (res, sys) = solve_from_rest(&cost, h, n);
        let qf = DMatrix::from_diagonal(&w[n]);
        let worst = riccati_control_error(
            h,
            &cost.r,
            &res,
            |t| (DMatrix::from_diagonal(&w[t]), xref[t].clone()),
            (qf.clone(), xref[n].clone()),
        );
        assert!(worst < 1e-6, "largest control difference {worst:.3e}");
        assert!(res.converged);
        // the same weights at every knot are QuadraticCost's: the same cost to rounding
        let constant = TrackingCost {
            xref: vec![xref[n].clone(); n + 1],
            w: (0..=n)
                .map(|t| {
                    if t == n {
                        DVector::from_vec(vec![100.0, 10.0])
                    } else {
                        DVector::from_vec(vec![1.0, 0.1])
                    }
                })
                .collect(),
            ..cost.clone()
        };
        let quad = QuadraticCost {
            q: DMatrix::from_diagonal(&DVector::from_vec(vec![1.0, 0.1])),
            r: cost.r.clone(),
            qf,
            xref: xref[n].clone(),
            dt: h,
        };
        let (ct, cq) = (
            StageCost::total_on(&constant, &sys, &res.xs, &res.us),
            quad.total_on(&sys, &res.xs, &res.us),
        );
        assert!((ct - cq).abs() <= 1e-12 * cq.abs(), "{ct} vs {cq}");
    }

    /// A tracking cost with the wrong number of knots or a negative weight is an error.
    #[test]
    fn tracking_cost_dimensions_are_checked() {
        let mut sys = DoubleIntegrator { h: 0.1 };
        let mut cost = TrackingCost {
            xref: vec![DVector::zeros(2); 5],
            w: vec![DVector::from_element(2, 1.0); 5],
            r: DMatrix::identity(1, 1),
            dt: 0.1,
        };
        let x0 = DVector::zeros(2);
        let us = vec![DVector::zeros(1); 5];
        let opt = IlqrOptions::default();
        let e = ilqr(&mut sys, &cost, &x0, us.clone(), &opt, |_, _| {}).unwrap_err();
        assert!(e.contains("6 references"), "{e}");
        cost.xref.push(DVector::zeros(2));
        cost.w.push(DVector::from_element(2, -1.0));
        let e = ilqr(&mut sys, &cost, &x0, us.clone(), &opt, |_, _| {}).unwrap_err();
        assert!(e.contains("non-negative"), "{e}");
        cost.w[5] = DVector::from_element(2, 1.0);
        assert!(ilqr(&mut sys, &cost, &x0, us, &opt, |_, _| {}).is_ok());
    }

    /// The double integrator with NaN Jacobians: iLQR redoes every linearization by central
    /// differences (the default `jacobians` of [`DoubleIntegrator`], so the solution is the same
    /// to the bit) and counts every stage of every linearization.
    #[test]
    fn nan_jacobians_are_redone_by_differences() {
        struct NanJacobians(DoubleIntegrator);
        impl Dynamics for NanJacobians {
            fn nx(&self) -> usize {
                2
            }
            fn nu(&self) -> usize {
                1
            }
            fn step(&mut self, x: &[f64], u: &[f64], xn: &mut [f64]) -> Result<(), String> {
                self.0.step(x, u, xn)
            }
            fn jacobians(
                &mut self,
                _: &[f64],
                _: &[f64],
                a: &mut DMatrix<f64>,
                b: &mut DMatrix<f64>,
            ) -> Result<(), String> {
                a.fill(f64::NAN);
                b.fill(f64::INFINITY);
                Ok(())
            }
        }
        let (h, n) = (0.05, 30);
        let cost = double_integrator_cost(h);
        let x0 = DVector::from_vec(vec![0.0, 0.0]);
        let us = vec![DVector::zeros(1); n];
        let opt = IlqrOptions::default();
        let clean = ilqr(
            &mut DoubleIntegrator { h },
            &cost,
            &x0,
            us.clone(),
            &opt,
            |_, _| {},
        )
        .unwrap();
        let res = ilqr(
            &mut NanJacobians(DoubleIntegrator { h }),
            &cost,
            &x0,
            us,
            &opt,
            |_, _| {},
        )
        .unwrap();
        assert_eq!(clean.jacobian_fallbacks, 0);
        assert!(res.jacobian_fallbacks >= n && res.jacobian_fallbacks % n == 0);
        assert_eq!(res.us, clean.us);
        assert_eq!(res.cost_history, clean.cost_history);
    }

    /// Box QP against the KKT conditions: at the returned x, every free component has zero
    /// gradient, every component at its lower (upper) bound a non-negative (non-positive) one.
    #[test]
    fn box_qp_satisfies_kkt() {
        let mut seed = 12345u64;
        let mut rnd = || {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            ((seed >> 11) as f64 / (1u64 << 53) as f64) * 2.0 - 1.0
        };
        for n in 1..6 {
            for _ in 0..20 {
                let l = DMatrix::from_fn(n, n, |_, _| rnd());
                let h = &l * l.transpose() + DMatrix::identity(n, n) * 0.1;
                let g = DVector::from_fn(n, |_, _| 3.0 * rnd());
                let lo: Vec<f64> = (0..n).map(|_| -0.5 + 0.3 * rnd()).collect();
                let hi: Vec<f64> = lo.iter().map(|l| l + 0.2 + rnd().abs()).collect();
                let qp = box_qp(&h, &g, &lo, &hi, &DVector::zeros(n)).unwrap();
                let grad = &h * &qp.x + &g;
                let scale = 1.0 + g.norm();
                for i in 0..n {
                    assert!(qp.x[i] >= lo[i] && qp.x[i] <= hi[i]);
                    if qp.x[i] > lo[i] && qp.x[i] < hi[i] {
                        assert!(grad[i].abs() < 1e-9 * scale, "free grad {}", grad[i]);
                    } else if qp.x[i] <= lo[i] {
                        assert!(grad[i] > -1e-9 * scale, "lower grad {}", grad[i]);
                    } else {
                        assert!(grad[i] < 1e-9 * scale, "upper grad {}", grad[i]);
                    }
                }
            }
        }
        // inconsistent bounds and an indefinite free block are refused
        let h = DMatrix::identity(2, 2);
        let g = DVector::zeros(2);
        assert!(box_qp(&h, &g, &[1.0, 0.0], &[0.0, 1.0], &g).is_none());
        let h = -DMatrix::identity(2, 2);
        assert!(box_qp(
            &h,
            &DVector::from_vec(vec![0.1, 0.1]),
            &[-1.0; 2],
            &[1.0; 2],
            &g
        )
        .is_none());
    }

    /// Control-limited iLQR on the double integrator: the problem is a convex QP in the
    /// stacked controls (linear dynamics), so the optimum is unique; it is computed
    /// independently of the stage-wise DDP recursion as one condensed QP over all controls
    /// (its KKT conditions checked explicitly) and must match.
    #[test]
    fn box_ilqr_matches_condensed_qp() {
        let h = 0.05;
        let n = 40;
        let cost = double_integrator_cost(h);
        let (lo, hi) = (-0.8, 1.5);
        let x0 = DVector::from_vec(vec![0.0, 0.0]);
        let mut sys = DoubleIntegrator { h };
        let opt = IlqrOptions {
            bounds: Some((vec![lo], vec![hi])),
            ..IlqrOptions::default()
        };
        let res = ilqr(
            &mut sys,
            &cost,
            &x0,
            vec![DVector::zeros(1); n],
            &opt,
            |_, _| {},
        )
        .unwrap();
        assert!(res.converged);
        assert!(res.us.iter().all(|u| u[0] >= lo && u[0] <= hi));
        let nclamped = res.us.iter().filter(|u| u[0] == lo || u[0] == hi).count();
        assert!(
            nclamped >= 5,
            "the bounds must be active ({nclamped} clamped)"
        );

        // Condensed QP: x_t = Φ_t x0 + Σ_s Γ_{t,s} u_s; J(U) = ½ Uᵀ H U + fᵀ U + c.
        let a = DMatrix::from_row_slice(2, 2, &[1.0, h, 0.0, 1.0]);
        let b = DMatrix::from_row_slice(2, 1, &[h * h, h]);
        let mut hq = DMatrix::zeros(n, n);
        let mut f = DVector::zeros(n);
        // influence of u_s on x_t (t > s): A^{t-1-s} B
        let mut pow = vec![DMatrix::identity(2, 2)];
        for k in 1..=n {
            pow.push(&a * &pow[k - 1]);
        }
        for t in 1..=n {
            let w = if t == n { cost.qf.clone() } else { &cost.q * h };
            let gam = DMatrix::from_fn(2, n, |i, s| {
                if s < t {
                    (&pow[t - 1 - s] * &b)[(i, 0)]
                } else {
                    0.0
                }
            });
            let free = &pow[t] * &x0 - &cost.xref;
            hq += gam.transpose() * &w * &gam;
            f += gam.transpose() * &w * free;
        }
        hq += DMatrix::identity(n, n) * cost.r[(0, 0)] * h;
        // the condensed QP solved as one box QP; its KKT conditions checked directly
        let qp = box_qp(&hq, &f, &vec![lo; n], &vec![hi; n], &DVector::zeros(n)).unwrap();
        let u = qp.x;
        let g = &hq * &u + &f;
        let scale = f.amax().max(1.0);
        for t in 0..n {
            let kkt = if u[t] <= lo {
                (-g[t]).max(0.0)
            } else if u[t] >= hi {
                g[t].max(0.0)
            } else {
                g[t].abs()
            };
            assert!(kkt < 1e-10 * scale, "t={t}: KKT residual {kkt}");
        }
        for t in 0..n {
            assert!(
                (u[t] - res.us[t][0]).abs() < 1e-6,
                "t={t}: QP {} vs iLQR {}",
                u[t],
                res.us[t][0]
            );
        }
    }
}
