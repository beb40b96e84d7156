//! A moreau model as a discrete-time system for the optimizers: `x = (qpos, qvel, act)`,
//! `u = ctrl`, `f` = one `moreau::step`. Ball and free joints are supported: the
//! tangent space is `(dq, qvel, act)` of size `2nv + na`, `x ⊕ δ` integrates the `dq` part by
//! `mj_integratePos` and `x ⊖ x0` differences it by `mj_differentiatePos` (API Reference), which
//! is how `mjd_transitionFD` defines `A`.

use crate::ilqr::{central_jacobians, jacobians_serial, Dynamics};
use crate::threads::Threads;
use moreau::{Data, Model};
use moreau_derivatives::fd::FdWorkspace;
use moreau_derivatives::{Support, TransitionOptions, Workspace};
use nalgebra::{DMatrix, DVector};
use std::sync::Mutex;

/// How [`MoreauSystem`] linearizes a step.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Linearization {
    /// `mjd_transitionFD` ([`FdWorkspace::transition`], centered, sensors skipped).
    Fd,
    /// [`moreau_derivatives::transition()`] (IFT through the soft constraint
    /// solution; see [`MoreauSystem::analytic`] for when it applies).
    Analytic,
    /// Central differences of full steps in the tangent space ([`central_jacobians`]).
    Generic,
}

/// Wraps a model and one preallocated `Data`. The linearization ([`Dynamics::jacobians`]) is
/// `moreau_derivatives`' `mjd_transitionFD` ([`FdWorkspace::transition`], centered differences,
/// sensors skipped, the stages that a perturbation cannot change reused) by default; see
/// [`Linearization`] for the others. [`MoreauSystem::fd`] = `None` selects
/// [`Linearization::Generic`]. The knots' linearizations ([`Dynamics::jacobians_all`]) run on
/// [`MoreauSystem::set_threads`] threads (one by default), each with its own `Data` and
/// workspace; every knot loads its state, controls and a zero warm start, so the Jacobians are
/// bit-identical at any thread count.
///
/// With the analytic Jacobians on one thread, once the horizon is known (the first
/// [`Dynamics::jacobians_all`]) the steps run on a ring of that many `Data`, each kept at the
/// step's start with its forward results: a knot whose state and controls equal, to the bit,
/// those of one of the last steps (iLQR linearizes the trajectory its forward pass just rolled
/// out) is linearized from them ([`TransitionOptions::forwarded`]) instead of running the
/// forward dynamics again. The Jacobians are the same to the bit.
///
/// After [`Dynamics::step`], [`MoreauSystem::data`] is the stepped `Data` as `moreau::step`
/// leaves it (the state after the step, the forward results at its start), with or without the
/// ring: the ring's step runs on one of its slots and trades it for `data`, which the ring takes
/// back at the next step or linearization. A linearization uses `data` as scratch.
pub struct MoreauSystem {
    pub model: Model,
    pub data: Data,
    /// Preallocated transition-Jacobian workspace (`None`: generic differences of `step`).
    pub fd: Option<FdWorkspace>,
    /// Finite-difference step of the transition Jacobians.
    pub fd_eps: f64,
    analytic: bool,
    /// The analytic Jacobians' buffers (its `Data<Dual64>` among them), reused across knots.
    analytic_ws: Workspace,
    threads: Threads,
    /// The threads' `Data` and workspaces, made on the first threaded linearization.
    slots: Vec<Mutex<(Data, FdWorkspace, Workspace)>>,
    /// The last steps, forwarded at their start (analytic Jacobians on one thread).
    ring: Vec<Stepped>,
    /// The ring's slot of the next step.
    ring_next: usize,
    /// The ring's slot whose step's `Data` is `data` (the slot holds `data`'s old storage).
    public: Option<usize>,
}

/// One step kept for the linearization: its state and controls, and a `Data` holding the
/// forward results at that state (the step's state restored after the integrator).
struct Stepped {
    x: Vec<f64>,
    u: Vec<f64>,
    /// `time` at the step's start.
    time: f64,
    data: Data,
    valid: bool,
}

/// Equal to the bit (`-0.0` is not `0.0`: a hit must reproduce the forward dynamics exactly).
fn same_bits(a: &[f64], b: &[f64]) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(a, b)| a.to_bits() == b.to_bits())
}

impl MoreauSystem {
    /// A system on `model` with FD transition Jacobians. Never fails today (the `Result` is
    /// kept for callers written when ball/free joints were refused).
    pub fn new(model: Model) -> Result<Self, String> {
        let data = Data::new(&model);
        let mut fd = FdWorkspace::new(&model);
        fd.sensors = false;
        Ok(MoreauSystem {
            model,
            data,
            fd: Some(fd),
            fd_eps: 1e-6,
            analytic: false,
            analytic_ws: Workspace::default(),
            threads: Threads::serial(),
            slots: Vec::new(),
            ring: Vec::new(),
            ring_next: 0,
            public: None,
        })
    }

    /// Linearizes the knots on `nthread` threads (0: every CPU; 1, the default: the calling
    /// thread). The Jacobians do not depend on it.
    pub fn set_threads(&mut self, nthread: usize) -> Result<(), String> {
        self.threads = Threads::new(nthread)?;
        self.slots.clear();
        self.ring.clear();
        self.public = None;
        Ok(())
    }

    pub fn nthread(&self) -> usize {
        self.threads.nthread()
    }

    /// Switches the linearization to the analytic transition Jacobians
    /// ([`moreau_derivatives::transition()`]); fails, naming the reason, for models it does not
    /// support ([`moreau_derivatives::Support::transition`]).
    pub fn analytic(mut self) -> Result<Self, String> {
        if let Err(e) = Support::transition(&self.model).check() {
            return Err(format!("analytic transition Jacobians: {e}"));
        }
        self.analytic = true;
        Ok(self)
    }

    /// The linearization in use.
    pub fn linearization(&self) -> Linearization {
        if self.analytic {
            Linearization::Analytic
        } else if self.fd.is_some() {
            Linearization::Fd
        } else {
            Linearization::Generic
        }
    }

    /// Splits `x` into the data's qpos, qvel and act.
    pub fn set_state(&mut self, x: &[f64]) {
        load_state(&self.model, &mut self.data, x);
    }

    /// Writes the data's qpos, qvel and act into `x`.
    pub fn get_state(&self, x: &mut [f64]) {
        store_state(&self.model, &self.data, x);
    }

    fn check_warning(&mut self) -> Result<(), String> {
        check_warning(&mut self.data)
    }
}

/// A knot into `d`: the state `x`, the controls `u` and a zero warm start (every step and
/// linearization starts so, which makes them independent of what ran before).
fn load_knot(m: &Model, d: &mut Data, x: &[f64], u: &[f64]) {
    load_state(m, d, x);
    d.ctrl.copy_from_slice(u);
    d.qacc_warmstart.iter_mut().for_each(|v| *v = 0.0);
}

/// `x = (qpos, qvel, act)` into `d`.
fn load_state(m: &Model, d: &mut Data, x: &[f64]) {
    let (nq, nv) = (m.nq, m.nv);
    d.qpos.copy_from_slice(&x[..nq]);
    d.qvel.copy_from_slice(&x[nq..nq + nv]);
    d.act.copy_from_slice(&x[nq + nv..]);
}

/// `d`'s `(qpos, qvel, act)` into `x`.
fn store_state(m: &Model, d: &Data, x: &mut [f64]) {
    let (nq, nv) = (m.nq, m.nv);
    x[..nq].copy_from_slice(&d.qpos);
    x[nq..nq + nv].copy_from_slice(&d.qvel);
    x[nq + nv..].copy_from_slice(&d.act);
}

/// Fails (and clears the counters) when a step reported a bad state.
fn check_warning(d: &mut Data) -> Result<(), String> {
    if d.warning.iter().any(|w| w.number > 0) {
        d.warning = Default::default();
        return Err("simulation reported a bad state".into());
    }
    Ok(())
}

/// The transition Jacobians of one step at `(x, u)` with a zero warm start on `d`: analytic
/// (buffers in `aws`), or `mjd_transitionFD` (centered, step `eps`) with `ws`.
#[allow(clippy::too_many_arguments)]
fn linearize(
    m: &Model,
    d: &mut Data,
    ws: &mut FdWorkspace,
    aws: &mut Workspace,
    analytic: bool,
    eps: f64,
    x: &[f64],
    u: &[f64],
    a: &mut DMatrix<f64>,
    b: &mut DMatrix<f64>,
) -> Result<(), String> {
    load_knot(m, d, x, u);
    if analytic {
        let jac = aws
            .transition(m, d, &TransitionOptions::analytic().with_sensors(false))
            .map_err(|e| format!("analytic transition Jacobians: {e}"))?;
        a.copy_from(&jac.A);
        b.copy_from(&jac.B);
    } else {
        let jac = ws.transition(m, d, eps, true);
        a.copy_from(&jac.A);
        b.copy_from(&jac.B);
    }
    check_warning(d)
}

impl Dynamics for MoreauSystem {
    fn nx(&self) -> usize {
        self.model.nq + self.model.nv + self.model.na
    }
    fn ndx(&self) -> usize {
        2 * self.model.nv + self.model.na
    }
    fn nu(&self) -> usize {
        self.model.nu
    }
    fn step(&mut self, x: &[f64], u: &[f64], xnext: &mut [f64]) -> Result<(), String> {
        if self.ring.is_empty() {
            load_knot(&self.model, &mut self.data, x, u);
            moreau::step(&self.model, &mut self.data);
            self.check_warning()?;
            self.get_state(xnext);
            return Ok(());
        }
        let time = self.data.time;
        self.take_back();
        let (m, k) = (&self.model, self.ring_next);
        self.ring_next = (k + 1) % self.ring.len();
        let s = &mut self.ring[k];
        s.valid = false;
        s.x.clear();
        s.x.extend_from_slice(x);
        s.u.clear();
        s.u.extend_from_slice(u);
        s.time = time;
        load_knot(m, &mut s.data, x, u);
        s.data.time = time;
        moreau::step(m, &mut s.data);
        // the stepped `Data` becomes the public one, as the step without the ring leaves it;
        // the slot holds the old public storage until `take_back`
        std::mem::swap(&mut self.data, &mut s.data);
        self.public = Some(k);
        check_warning(&mut self.data)?;
        store_state(m, &self.data, xnext);
        s.valid = true;
        Ok(())
    }

    /// `dx = (qpos ⊖ qpos0, qvel − qvel0, act − act0)`, the first part by
    /// `mj_differentiatePos` with `h = 1`.
    fn diff(&self, x0: &[f64], x: &[f64], dx: &mut [f64]) {
        let (nq, nv) = (self.model.nq, self.model.nv);
        moreau::differentiate_pos(&self.model, &mut dx[..nv], 1.0, &x0[..nq], &x[..nq]);
        for i in nv..dx.len() {
            dx[i] = x[nq + i - nv] - x0[nq + i - nv];
        }
    }

    /// `x = (qpos0 ⊕ dq, qvel0 + dv, act0 + da)`, the first part by `mj_integratePos` with
    /// `h = 1`.
    fn integrate(&self, x0: &[f64], dx: &[f64], x: &mut [f64]) {
        let (nq, nv) = (self.model.nq, self.model.nv);
        x[..nq].copy_from_slice(&x0[..nq]);
        moreau::integrate_pos(&self.model, &mut x[..nq], &dx[..nv], 1.0);
        for i in nv..dx.len() {
            x[nq + i - nv] = x0[nq + i - nv] + dx[i];
        }
    }

    /// `mjd_transitionFD` or the analytic transition Jacobians at `(x, u)` (tangent space,
    /// `(2nv + na)` square `A`), or the generic differences when `fd` is `None`.
    fn jacobians(
        &mut self,
        x: &[f64],
        u: &[f64],
        a: &mut DMatrix<f64>,
        b: &mut DMatrix<f64>,
    ) -> Result<(), String> {
        let Some(mut ws) = self.fd.take() else {
            let eps = self.fd_eps;
            return central_jacobians(self, x, u, a, b, eps);
        };
        let (m, d, aws) = (&self.model, &mut self.data, &mut self.analytic_ws);
        let r = linearize(m, d, &mut ws, aws, self.analytic, self.fd_eps, x, u, a, b);
        self.fd = Some(ws);
        r
    }

    /// The knots on the system's threads (serially on one thread, or for
    /// [`Linearization::Generic`]); each thread's `Data` starts as a copy of
    /// [`MoreauSystem::data`].
    fn jacobians_all(
        &mut self,
        xs: &[DVector<f64>],
        us: &[DVector<f64>],
        a: &mut [DMatrix<f64>],
        b: &mut [DMatrix<f64>],
    ) -> Result<(), String> {
        if self.threads.nthread() == 1 && self.analytic && self.fd.is_some() {
            return self.jacobians_ring(xs, us, a, b);
        }
        if self.threads.nthread() == 1 || self.fd.is_none() {
            return jacobians_serial(self, xs, us, a, b);
        }
        if self.slots.len() != self.threads.nthread() {
            let (d, ws) = (&self.data, self.fd.as_ref());
            self.slots = self.threads.slots(|| {
                (
                    d.clone(),
                    ws.cloned().unwrap_or_else(|| FdWorkspace::new(&self.model)),
                    Workspace::default(),
                )
            });
        }
        let (m, analytic, eps) = (&self.model, self.analytic, self.fd_eps);
        let knots: Vec<_> = us
            .iter()
            .zip(xs)
            .zip(a.iter_mut().zip(b.iter_mut()))
            .map(|((u, x), (a, b))| (x, u, a, b))
            .collect();
        let errors: Vec<Mutex<Option<(usize, String)>>> = self.threads.slots(|| None);
        self.threads.for_each_slot(
            &self.slots,
            knots.into_iter().enumerate().collect(),
            1,
            |slot, (t, (x, u, a, b))| {
                let (d, ws, aws) = slot;
                let (x, u) = (x.as_slice(), u.as_slice());
                if let Err(e) = linearize(m, d, ws, aws, analytic, eps, x, u, a, b) {
                    let i = rayon::current_thread_index().unwrap_or(0) % errors.len();
                    let mut first = errors[i].lock().unwrap_or_else(|e| e.into_inner());
                    if first.as_ref().is_none_or(|(t0, _)| t < *t0) {
                        *first = Some((t, e));
                    }
                }
            },
        );
        let first = errors
            .into_iter()
            .filter_map(|e| e.into_inner().unwrap_or_else(|e| e.into_inner()))
            .min_by_key(|(t, _)| *t);
        match first {
            Some((_, e)) => Err(e),
            None => Ok(()),
        }
    }
}

impl MoreauSystem {
    /// Returns the last ring step's `Data` from [`MoreauSystem::data`] to its slot, set back to
    /// the step's start by the same `load_knot` that loaded it (the forward results stay: the
    /// integrator writes only the state, the time, the warm start and its own scratch); `data`
    /// gets the slot's spare storage.
    fn take_back(&mut self) {
        if let Some(k) = self.public.take() {
            let s = &mut self.ring[k];
            std::mem::swap(&mut self.data, &mut s.data);
            load_knot(&self.model, &mut s.data, &s.x, &s.u);
            s.data.time = s.time;
        }
    }

    /// The analytic Jacobians of the knots on this thread, from the ring's forward results
    /// where a knot is one of the last steps (see [`MoreauSystem`]); makes the ring (one slot
    /// per knot) when the horizon changes.
    fn jacobians_ring(
        &mut self,
        xs: &[DVector<f64>],
        us: &[DVector<f64>],
        a: &mut [DMatrix<f64>],
        b: &mut [DMatrix<f64>],
    ) -> Result<(), String> {
        let n = us.len();
        if self.ring.len() != n {
            let d = &self.data;
            self.ring = (0..n)
                .map(|_| Stepped {
                    x: Vec::new(),
                    u: Vec::new(),
                    time: 0.0,
                    data: d.clone(),
                    valid: false,
                })
                .collect();
            self.ring_next = 0;
            self.public = None;
        }
        // the public `Data` is scratch from here, but keeps the time the next step starts at
        let time = self.data.time;
        self.take_back();
        self.data.time = time;
        let opts = TransitionOptions::analytic()
            .with_sensors(false)
            .forwarded();
        for t in 0..n {
            let (x, u) = (xs[t].as_slice(), us[t].as_slice());
            // the slot of step t of the last n steps
            let s = &mut self.ring[(self.ring_next + t) % n];
            if s.valid && same_bits(&s.x, x) && same_bits(&s.u, u) {
                let jac = self
                    .analytic_ws
                    .transition(&self.model, &mut s.data, &opts)
                    .map_err(|e| format!("analytic transition Jacobians: {e}"))?;
                a[t].copy_from(&jac.A);
                b[t].copy_from(&jac.B);
                check_warning(&mut s.data)?;
            } else {
                let (m, d, aws) = (&self.model, &mut self.data, &mut self.analytic_ws);
                let ws = self.fd.as_mut().ok_or("analytic: no workspace")?;
                linearize(m, d, ws, aws, true, self.fd_eps, x, u, &mut a[t], &mut b[t])?;
            }
        }
        Ok(())
    }
}

/// A system planned in control offsets `δu = u − u₀` about a fixed control `u₀` (e.g. the
/// standing targets of position actuators), so that a cost `½ δuᵀ R δu` regularizes towards
/// `u₀` rather than towards zero. Jacobians are the inner system's (`∂f/∂δu = ∂f/∂u`); control
/// bounds in offsets are [`ControlOffset::bounds`].
pub struct ControlOffset<D> {
    pub inner: D,
    pub u0: Vec<f64>,
    u: Vec<f64>,
    /// The knots' absolute controls ([`Dynamics::jacobians_all`]), kept between calls.
    us: Vec<DVector<f64>>,
}

impl<D: Dynamics> ControlOffset<D> {
    /// Fails when `u0` does not have the inner system's `nu` entries.
    pub fn new(inner: D, u0: Vec<f64>) -> Result<Self, String> {
        if u0.len() != inner.nu() {
            return Err(format!(
                "ControlOffset: u0 has {} entries, the system nu = {}",
                u0.len(),
                inner.nu()
            ));
        }
        Ok(ControlOffset {
            u: u0.clone(),
            inner,
            u0,
            us: Vec::new(),
        })
    }

    /// The box `(lo − u₀, hi − u₀)` of offsets for the control box `(lo, hi)`.
    pub fn bounds(&self, (lo, hi): &(Vec<f64>, Vec<f64>)) -> (Vec<f64>, Vec<f64>) {
        let sub = |v: &[f64]| v.iter().zip(&self.u0).map(|(a, b)| a - b).collect();
        (sub(lo), sub(hi))
    }

    /// The control `u₀ + δu`.
    pub fn control(&self, du: &[f64]) -> Vec<f64> {
        du.iter().zip(&self.u0).map(|(a, b)| a + b).collect()
    }

    fn absolute(&mut self, du: &[f64]) -> Vec<f64> {
        let mut u = std::mem::take(&mut self.u);
        for ((o, a), b) in u.iter_mut().zip(du).zip(&self.u0) {
            *o = a + b;
        }
        u
    }
}

impl<D: Dynamics> Dynamics for ControlOffset<D> {
    fn nx(&self) -> usize {
        self.inner.nx()
    }
    fn ndx(&self) -> usize {
        self.inner.ndx()
    }
    fn nu(&self) -> usize {
        self.inner.nu()
    }
    fn step(&mut self, x: &[f64], du: &[f64], xnext: &mut [f64]) -> Result<(), String> {
        let u = self.absolute(du);
        let r = self.inner.step(x, &u, xnext);
        self.u = u;
        r
    }
    fn diff(&self, x0: &[f64], x: &[f64], dx: &mut [f64]) {
        self.inner.diff(x0, x, dx)
    }
    fn integrate(&self, x0: &[f64], dx: &[f64], x: &mut [f64]) {
        self.inner.integrate(x0, dx, x)
    }
    fn jacobians(
        &mut self,
        x: &[f64],
        du: &[f64],
        a: &mut DMatrix<f64>,
        b: &mut DMatrix<f64>,
    ) -> Result<(), String> {
        let u = self.absolute(du);
        let r = self.inner.jacobians(x, &u, a, b);
        self.u = u;
        r
    }
    fn jacobians_all(
        &mut self,
        xs: &[DVector<f64>],
        dus: &[DVector<f64>],
        a: &mut [DMatrix<f64>],
        b: &mut [DMatrix<f64>],
    ) -> Result<(), String> {
        let mut us = std::mem::take(&mut self.us);
        us.truncate(dus.len());
        while us.len() < dus.len() {
            us.push(DVector::zeros(self.u0.len()));
        }
        for (u, du) in us.iter_mut().zip(dus) {
            for ((o, a), b) in u.iter_mut().zip(du.iter()).zip(&self.u0) {
                *o = a + b;
            }
        }
        let r = self.inner.jacobians_all(xs, &us, a, b);
        self.us = us;
        r
    }
}
