//! The ESS integrator loop of Anderson & Revzen §3.1 (Listing 1): dopri5 inside a domain until the
//! state enters the ε-neighbourhood `N^ε` of a guard, then first-order projections
//! through the guards, earliest first, each guard once, re-arming guards afterwards.

use crate::bderiv::FlowDerivative;
use crate::dopri5::{underflow, Dopri5Options, Rhs, Stepper};
use crate::error::HybridError;
use crate::system::EventSelectedSystem;
use nalgebra::{DMatrix, DMatrixView, DMatrixViewMut, DVector};

/// When crossed guards return to the candidate pool (Anderson & Revzen §3.1, last paragraph).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Rearm {
    /// The paper's rule: when the pool is empty after an integration step, re-add every
    /// guard whose event function is negative.
    #[default]
    WhenPoolEmpty,
    /// After every integration segment, re-add every crossed guard whose event function
    /// is negative again (lets one contact lift off while others are still to land).
    AfterEachSegment,
}

/// Options of the ESS integrator.
#[derive(Clone, Debug)]
pub struct EssOptions {
    /// Precision ε: projection starts once some candidate has `h_k ≥ −ε` (§2.2).
    pub eps: f64,
    /// Options of the dopri5 integration step.
    pub ode: Dopri5Options,
    /// Guard re-arming rule.
    pub rearm: Rearm,
    /// Largest number of projections before [`HybridError::MaxEventsExceeded`].
    pub max_events: usize,
}

impl Default for EssOptions {
    fn default() -> Self {
        Self {
            eps: 1e-3,
            ode: Dopri5Options::default(),
            rearm: Rearm::default(),
            max_events: 1_000_000,
        }
    }
}

/// A projection through guard `guard` (§3.1 projection step).
#[derive(Clone, Debug, PartialEq)]
pub struct Event {
    /// Guard index `k`.
    pub guard: usize,
    /// Time reached on the guard (`t_q + Δt`).
    pub t: f64,
    /// Projection time `Δt = −h_k / (Dh_k · f)`.
    pub dt: f64,
    /// Index in [`Trajectory::t`] of the state on the guard.
    pub log_index: usize,
}

/// Counters of one integration.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Stats {
    /// Accepted dopri5 steps.
    pub accepted: usize,
    /// Rejected dopri5 steps.
    pub rejected: usize,
    /// Vector-field evaluations inside dopri5 steps.
    pub rhs_evals: usize,
    /// Projection steps.
    pub projections: usize,
    /// Candidate guards found past their guard without liveness, dropped unprojected.
    pub unprojected_crossings: usize,
}

/// The logged trajectory (§3.1: `tlog`, `xlog`) with its events.
#[derive(Clone, Debug)]
pub struct Trajectory {
    /// Times: `t0`, every accepted step end, every projection end, ending at `tf`.
    pub t: Vec<f64>,
    /// States at those times.
    pub x: Vec<DVector<f64>>,
    /// Projections in order.
    pub events: Vec<Event>,
    /// Counters.
    pub stats: Stats,
}

impl Trajectory {
    /// The state at the final time.
    pub fn final_state(&self) -> &DVector<f64> {
        self.x
            .last()
            .expect("trajectory holds at least the initial state")
    }
}

/// Integrates the ESS `(f, h)` from `x0` at `t0` to `tf` (Anderson & Revzen §3.1, Listing 1).
pub fn integrate<S: EventSelectedSystem + ?Sized>(
    sys: &S,
    t0: f64,
    x0: &DVector<f64>,
    tf: f64,
    opts: &EssOptions,
) -> Result<Trajectory, HybridError> {
    let mut core = Core::new(sys, t0, x0, opts, false)?;
    core.run(tf)?;
    Ok(core.traj)
}

/// As [`integrate`], also returning the B-derivative of `x0 ↦ Φ^{tf−t0}(x0)`
/// ([`FlowDerivative`]): the variational equation is integrated with the same dopri5
/// stages, and each projection through guard `j` applies `(I + D f⁻ Δt)` then the
/// saltation matrix of `j` (§3.1; \[13\]).
pub fn integrate_with_derivative<S: EventSelectedSystem + ?Sized>(
    sys: &S,
    t0: f64,
    x0: &DVector<f64>,
    tf: f64,
    opts: &EssOptions,
) -> Result<(Trajectory, FlowDerivative), HybridError> {
    let mut core = Core::new(sys, t0, x0, opts, true)?;
    core.run(tf)?;
    let n = core.n;
    let jacobian = DMatrix::from_column_slice(n, n, &core.y.as_slice()[n..]);
    let deriv = FlowDerivative {
        t: core.t,
        x: core.y.rows(0, n).into_owned(),
        jacobian,
        event_order: core.traj.events.iter().map(|e| e.guard).collect(),
    };
    Ok((core.traj, deriv))
}

/// The vector field as seen by dopri5: `f` with the integrator's sign pattern, plus the
/// variational equation `dY/dt = D f · Y` when the B-derivative is requested.
struct Field<'s, S: ?Sized> {
    sys: &'s S,
    n: usize,
    with_var: bool,
    /// Candidate guards (not crossed): their sign is "negative" whatever `h` says, so a
    /// step that overshoots integrates the smooth extension of the current piece (§2.1 req. 5).
    pool: Vec<bool>,
    /// Sign forced for guards sitting on their surface after a projection.
    ov: Vec<Option<bool>>,
    x: DVector<f64>,
    h: DVector<f64>,
    signs: Vec<bool>,
    f: DVector<f64>,
    jac: DMatrix<f64>,
    evals: usize,
}

impl<S: EventSelectedSystem + ?Sized> Field<'_, S> {
    /// Evaluates `h(x)` into `self.h` and the effective signs into `self.signs`.
    fn signs_at(&mut self, x: &DVector<f64>, t: f64) -> Result<(), HybridError> {
        self.sys.events(x, &mut self.h);
        if self.h.iter().any(|v| !v.is_finite()) {
            return Err(HybridError::NonFiniteValue { t });
        }
        for k in 0..self.signs.len() {
            self.signs[k] = !self.pool[k] && self.ov[k].unwrap_or(self.h[k] >= 0.0);
        }
        Ok(())
    }
}

impl<S: EventSelectedSystem + ?Sized> Rhs for Field<'_, S> {
    fn eval(&mut self, t: f64, y: &DVector<f64>, dy: &mut DVector<f64>) -> Result<(), HybridError> {
        self.evals += 1;
        let n = self.n;
        if !self.with_var {
            self.signs_at(y, t)?;
            self.sys.vector_field(y, &self.signs, dy);
        } else {
            self.x.copy_from(&y.rows(0, n));
            let x = std::mem::replace(&mut self.x, DVector::zeros(0));
            let r = self.signs_at(&x, t);
            self.x = x;
            r?;
            self.sys.vector_field(&self.x, &self.signs, &mut self.f);
            self.sys
                .vector_field_jacobian(&self.x, &self.signs, &mut self.jac);
            dy.rows_mut(0, n).copy_from(&self.f);
            let ymat = DMatrixView::from_slice(&y.as_slice()[n..], n, n);
            let mut out = DMatrixViewMut::from_slice(&mut dy.as_mut_slice()[n..], n, n);
            out.gemm(1.0, &self.jac, &ymat, 0.0);
        }
        if dy.iter().all(|v| v.is_finite()) {
            Ok(())
        } else {
            Err(HybridError::NonFiniteValue { t })
        }
    }
}

/// Outcome of a projection check.
enum Pick {
    /// Project through guard `j` in time `dt` (`self.g`, `self.hv`, `self.dh`, `self.sg` hold
    /// `f`, `h`, `Dh` and the signs at `x_q`).
    Project(usize, f64),
    /// Some candidate lies in `N^ε` but is not live: advance one dopri5 step at a time.
    Grazing,
    /// No candidate in `N^ε`.
    None,
}

struct Core<'s, 'o, S: ?Sized> {
    opts: &'o EssOptions,
    n: usize,
    m: usize,
    field: Field<'s, S>,
    st: Stepper,
    t: f64,
    /// State, followed by the column-major `n × n` variational matrix if requested.
    y: DVector<f64>,
    h_next: Option<f64>,
    attempts: usize,
    xq: DVector<f64>,
    hv: DVector<f64>,
    hv1: DVector<f64>,
    dh: DMatrix<f64>,
    g: DVector<f64>,
    sg: Vec<bool>,
    fm: DVector<f64>,
    fp: DVector<f64>,
    traj: Trajectory,
}

impl<'s, 'o, S: EventSelectedSystem + ?Sized> Core<'s, 'o, S> {
    fn new(
        sys: &'s S,
        t0: f64,
        x0: &DVector<f64>,
        opts: &'o EssOptions,
        with_var: bool,
    ) -> Result<Self, HybridError> {
        opts.ode.validate()?;
        if !(opts.eps.is_finite() && opts.eps > 0.0) {
            return Err(HybridError::InvalidOptions("eps must be finite and > 0"));
        }
        let (n, m) = (sys.state_dim(), sys.num_events());
        if x0.len() != n {
            return Err(HybridError::DimensionMismatch {
                what: "initial state",
                expected: n,
                got: x0.len(),
            });
        }
        if !t0.is_finite() || x0.iter().any(|v| !v.is_finite()) {
            return Err(HybridError::NonFiniteInput);
        }
        let len = if with_var { n + n * n } else { n };
        let mut y = DVector::zeros(len);
        y.rows_mut(0, n).copy_from(x0);
        if with_var {
            for i in 0..n {
                y[n + i * n + i] = 1.0;
            }
        }
        let mut field = Field {
            sys,
            n,
            with_var,
            pool: vec![false; m],
            ov: vec![None; m],
            x: DVector::zeros(n),
            h: DVector::zeros(m),
            signs: vec![false; m],
            f: DVector::zeros(n),
            jac: DMatrix::zeros(n, n),
            evals: 0,
        };
        // Listing 1: `crossmsk = h(x0) >= 0`; the candidate pool is its complement.
        field.signs_at(x0, t0)?;
        for k in 0..m {
            field.pool[k] = field.h[k] < 0.0;
        }
        Ok(Self {
            opts,
            n,
            m,
            field,
            st: Stepper::new(len, n),
            t: t0,
            y,
            h_next: opts.ode.h_init,
            attempts: 0,
            xq: x0.clone(),
            hv: DVector::zeros(m),
            hv1: DVector::zeros(m),
            dh: DMatrix::zeros(m, n),
            g: DVector::zeros(n),
            sg: vec![false; m],
            fm: DVector::zeros(n),
            fp: DVector::zeros(n),
            traj: Trajectory {
                t: vec![t0],
                x: vec![x0.clone()],
                events: Vec::new(),
                stats: Stats::default(),
            },
        })
    }

    fn load_x(&mut self) {
        self.xq.copy_from(&self.y.rows(0, self.n));
    }

    fn events_at_xq(&mut self, into_hv1: bool) -> Result<(), HybridError> {
        let buf = if into_hv1 {
            &mut self.hv1
        } else {
            &mut self.hv
        };
        self.field.sys.events(&self.xq, buf);
        if buf.iter().any(|v| !v.is_finite()) {
            return Err(HybridError::NonFiniteValue { t: self.t });
        }
        Ok(())
    }

    fn log(&mut self) {
        self.traj.t.push(self.t);
        self.traj.x.push(self.xq.clone());
    }

    fn run(&mut self, tf: f64) -> Result<(), HybridError> {
        if !tf.is_finite() {
            return Err(HybridError::NonFiniteInput);
        }
        if tf < self.t {
            return Err(HybridError::InvalidOptions("tf must be >= t0"));
        }
        while self.t < tf {
            if self.traj.events.len() >= self.opts.max_events {
                return Err(HybridError::MaxEventsExceeded { t: self.t });
            }
            match self.pick()? {
                Pick::Project(j, dt) if self.t + dt <= tf => {
                    self.project(j, dt)?;
                    continue;
                }
                // Crossing (to first order) after tf: integrate the current piece to tf.
                Pick::Project(..) | Pick::None => self.segment(tf, false)?,
                Pick::Grazing => self.segment(tf, true)?,
            }
            self.rearm()?;
        }
        self.traj.stats.rhs_evals = self.field.evals;
        Ok(())
    }

    /// Listing 1, projection test: is some candidate in `N^ε`, and which guard is first?
    fn pick(&mut self) -> Result<Pick, HybridError> {
        let eps = self.opts.eps;
        self.load_x();
        self.events_at_xq(false)?;
        if !(0..self.m).any(|k| self.field.pool[k] && self.hv[k] >= -eps) {
            return Ok(Pick::None);
        }
        let f = &mut self.field;
        for k in 0..self.m {
            self.sg[k] = !f.pool[k] && f.ov[k].unwrap_or(self.hv[k] >= 0.0);
        }
        f.sys.vector_field(&self.xq, &self.sg, &mut self.g);
        f.sys.event_jacobian(&self.xq, &mut self.dh);
        if self.g.iter().chain(self.dh.iter()).any(|v| !v.is_finite()) {
            return Err(HybridError::NonFiniteValue { t: self.t });
        }
        let mut best: Option<(usize, f64)> = None;
        let mut grazing = false;
        for k in 0..self.m {
            if !f.pool[k] || self.hv[k] < -eps {
                continue;
            }
            let rate = self.dh.row(k).transpose().dot(&self.g);
            if rate > 0.0 {
                // First-order arrival time τ̂ = −h_k / (Dh_k · f) (§6.1).
                let dt = (-self.hv[k] / rate).max(0.0);
                if best.is_none_or(|(_, b)| dt < b) {
                    best = Some((k, dt));
                }
            } else if self.hv[k] >= 0.0 {
                // Already past its guard and not live: drop it from the pool.
                f.pool[k] = false;
                self.traj.stats.unprojected_crossings += 1;
            } else {
                grazing = true;
            }
        }
        Ok(match best {
            Some((j, dt)) => Pick::Project(j, dt),
            None if grazing => Pick::Grazing,
            None => Pick::None,
        })
    }

    /// Listing 1 projection step through guard `j`: `x ← x + f Δt`, `t ← t + Δt`.
    fn project(&mut self, j: usize, dt: f64) -> Result<(), HybridError> {
        let n = self.n;
        let f = &mut self.field;
        if f.with_var {
            // Y ← (I + D f⁻ Δt) Y over the projection interval.
            f.sys.vector_field_jacobian(&self.xq, &self.sg, &mut f.jac);
            let mut ymat = DMatrixViewMut::from_slice(&mut self.y.as_mut_slice()[n..], n, n);
            let y0 = ymat.clone_owned();
            ymat.gemm(dt, &f.jac, &y0, 1.0);
        }
        // Guards other than j that the projection leaves exactly on their surface (e.g. the
        // hopper's paired h₂ = −h₁) take the sign they are heading to.
        for k in 0..self.m {
            if f.pool[k] || k == j {
                continue;
            }
            let dhk = self.dh.row(k).transpose().dot(&self.g) * dt;
            let pred = self.hv[k] + dhk;
            if pred.abs() <= 1e3 * f64::EPSILON * (self.hv[k].abs() + dhk.abs()) {
                f.ov[k] = Some(dhk > 0.0);
            }
        }
        f.pool[j] = false;
        f.ov[j] = Some(true);
        self.xq.axpy(dt, &self.g, 1.0);
        self.y.rows_mut(0, n).copy_from(&self.xq);
        self.t += dt;
        if f.with_var {
            // Saltation through guard j at the projected point: Y ← (I + (f⁺−f⁻) Dh_j / (Dh_j f⁻)) Y.
            f.sys.vector_field(&self.xq, &self.sg, &mut self.fm);
            let x = self.xq.clone();
            f.signs_at(&x, self.t)?;
            f.sys.vector_field(&self.xq, &f.signs, &mut self.fp);
            f.sys.event_jacobian(&self.xq, &mut self.dh);
            let e = self.dh.row(j).transpose();
            let denom = e.dot(&self.fm);
            if denom.is_nan() || denom <= 0.0 {
                return Err(HybridError::LivenessViolated {
                    guard: j,
                    t: self.t,
                });
            }
            let jump = (&self.fp - &self.fm) / denom;
            let mut ymat = DMatrixViewMut::from_slice(&mut self.y.as_mut_slice()[n..], n, n);
            let w = e.transpose() * &ymat;
            ymat.ger(1.0, &jump, &w.transpose(), 1.0);
            if self.y.iter().any(|v| !v.is_finite()) {
                return Err(HybridError::NonFiniteValue { t: self.t });
            }
        }
        self.log();
        self.traj.stats.projections += 1;
        self.traj.events.push(Event {
            guard: j,
            t: self.t,
            dt,
            log_index: self.traj.t.len() - 1,
        });
        Ok(())
    }

    /// Drops forced signs once the state is genuinely on the forced side.
    fn settle_overrides(&mut self, h: &DVector<f64>) {
        for (k, o) in self.field.ov.iter_mut().enumerate() {
            if let Some(s) = *o {
                if h[k] != 0.0 && (h[k] > 0.0) == s {
                    *o = None;
                }
            }
        }
    }

    /// Listing 1 integration step: dopri5 until `tf`, or until some `h_k` rises through
    /// `−ε` (the entry into `N^ε`, located on the dense output), or after one step.
    fn segment(&mut self, tf: f64, one_step: bool) -> Result<(), HybridError> {
        let (n, eps) = (self.n, self.opts.eps);
        let opts: &'o EssOptions = self.opts;
        let ode = &opts.ode;
        self.field.eval(self.t, &self.y, &mut self.st.k[0])?;
        let mut h = match self.h_next {
            Some(h) => h,
            None => self
                .st
                .initial_step(&mut self.field, self.t, &self.y, tf - self.t, ode)?,
        };
        self.load_x();
        self.events_at_xq(false)?;
        loop {
            self.attempts += 1;
            if self.attempts > ode.max_steps {
                return Err(HybridError::MaxStepsExceeded { t: self.t });
            }
            let h_lim = h.min(ode.h_max);
            let last = h_lim >= tf - self.t;
            let hs = if last { tf - self.t } else { h_lim };
            if !last && underflow(self.t, hs) {
                return Err(HybridError::StepSizeUnderflow { t: self.t, h: hs });
            }
            let err = self.st.attempt(&mut self.field, self.t, &self.y, hs, ode)?;
            let fac = self.st.factor(err);
            if err > 1.0 {
                self.st.rejected_last = true;
                self.traj.stats.rejected += 1;
                h = hs * fac;
                continue;
            }
            self.st.rejected_last = false;
            self.traj.stats.accepted += 1;
            self.h_next = Some(if last { h } else { (hs * fac).min(ode.h_max) });
            self.xq.copy_from(&self.st.y1.rows(0, n));
            self.events_at_xq(true)?;
            let entering: Vec<usize> = (0..self.m)
                .filter(|&k| self.hv[k] < -eps && self.hv1[k] >= -eps)
                .collect();
            if !entering.is_empty() {
                self.st.prepare_dense(&self.y, hs);
                let theta = self.locate(&entering)?;
                let mut y = std::mem::replace(&mut self.y, DVector::zeros(0));
                self.st.dense(theta, &mut y);
                self.y = y;
                self.t = if theta >= 1.0 && last {
                    tf
                } else {
                    self.t + theta * hs
                };
                self.load_x();
                self.events_at_xq(false)?;
                let hv = self.hv.clone();
                self.settle_overrides(&hv);
                self.log();
                return Ok(());
            }
            self.t = if last { tf } else { self.t + hs };
            std::mem::swap(&mut self.y, &mut self.st.y1);
            self.st.k.swap(0, 6);
            std::mem::swap(&mut self.hv, &mut self.hv1);
            let hv = self.hv.clone();
            self.settle_overrides(&hv);
            self.log();
            if last || one_step {
                return Ok(());
            }
            h = self.h_next.unwrap_or(hs);
        }
    }

    /// Smallest `θ` where `max_{k∈entering} h_k(x(t + θh)) ≥ −ε` (Illinois on the dense output).
    fn locate(&mut self, entering: &[usize]) -> Result<f64, HybridError> {
        let eps = self.opts.eps;
        let g = |this: &mut Self, theta: f64| -> Result<f64, HybridError> {
            this.st.dense(theta, &mut this.xq);
            let v = entering
                .iter()
                .map(|&k| this.field.sys.event(&this.xq, k) + eps)
                .fold(f64::NEG_INFINITY, f64::max);
            if v.is_finite() {
                Ok(v)
            } else {
                Err(HybridError::NonFiniteValue { t: this.t })
            }
        };
        let (mut a, mut b) = (0.0_f64, 1.0_f64);
        let mut ga = entering
            .iter()
            .map(|&k| self.hv[k] + eps)
            .fold(f64::NEG_INFINITY, f64::max);
        let mut gb = g(self, 1.0)?;
        let mut gb_true = gb;
        let mut side = 0i8;
        for _ in 0..100 {
            if b - a <= 1e-13 || gb_true <= 1e-6 * eps {
                break;
            }
            let mut c = b - gb * (b - a) / (gb - ga);
            if !(c > a && c < b) {
                c = 0.5 * (a + b);
            }
            let gc = g(self, c)?;
            if gc >= 0.0 {
                b = c;
                gb = gc;
                gb_true = gc;
                if side == 1 {
                    ga *= 0.5;
                }
                side = 1;
            } else {
                a = c;
                ga = gc;
                if side == -1 {
                    gb *= 0.5;
                }
                side = -1;
            }
        }
        Ok(b)
    }

    /// Re-arms crossed guards whose event function is negative again (§3.1).
    fn rearm(&mut self) -> Result<(), HybridError> {
        let f = &mut self.field;
        let go = match self.opts.rearm {
            Rearm::WhenPoolEmpty => !f.pool.iter().any(|&p| p),
            Rearm::AfterEachSegment => true,
        };
        if !go {
            return Ok(());
        }
        self.load_x();
        self.events_at_xq(false)?;
        let f = &mut self.field;
        for k in 0..self.m {
            if !f.pool[k] && !f.ov[k].unwrap_or(self.hv[k] >= 0.0) {
                f.pool[k] = true;
                f.ov[k] = None;
            }
        }
        Ok(())
    }
}
