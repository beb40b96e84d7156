//! Finite-difference Jacobians of the step and of inverse dynamics (API Reference
//! `mjd_transitionFD`, `mjd_inverseFD`).
//!
//! **Transition** ([`FdWorkspace::transition`], [`crate::transition()`]): with the state
//! `x = (qpos, qvel, act)` in tangent coordinates (`2nv + na`), the control `u` (`nu`), the next
//! state `y` and the sensor values `s` of one [`step`](moreau::step) (the sensors are
//! those of the forward pass at `x`), `A = ∂y/∂x`, `B = ∂y/∂u`, `C = ∂s/∂x`, `D = ∂s/∂u`, rows
//! are outputs. As MuJoCo:
//! - positions are perturbed in the tangent space, `qpos ⊕ ε e_i` ([`integrate_pos`]), and
//!   position outputs are differenced with [`differentiate_pos`];
//! - the time, state, controls and `qacc_warmstart` are restored before every perturbed step, so
//!   the constraint solver starts from the same point each time;
//! - controls are perturbed forward (centered: both ways) only where the perturbed control stays
//!   inside a clamped `ctrlrange`: at a limit the difference is one-sided, and a control outside
//!   its range (or a range narrower than ε) gets a zero column;
//! - perturbed steps skip the stages that cannot change (MuJoCo's `mj_stepSkip`): controls and
//!   activations reuse the position and velocity stages (and Euler its damped-mass factor),
//!   velocities the position stage ([`step_skip`]); Euler's damped-mass factor `M + h·D` is
//!   also reused for velocities (MuJoCo's `mj_EulerSkip(…, skipstage >= mjSTAGE_POS)`) when it
//!   does not depend on `qvel` (no polynomial dof damping), so the result is the same as
//!   refactoring; the implicit integrators always recompute `qDeriv` (MuJoCo 4.0.0's matrices equal differences of
//!   full steps exactly, also with velocity-dependent actuator gains); the order is controls,
//!   activations, velocities, positions so the reused results are always the nominal ones.
//!
//! Unlike MuJoCo 4.0.0 (which refuses it) RK4 is supported; its steps are never skipped (the
//! later RK stages overwrite the stage results in `Data`).
//!
//! [`FdWorkspace::transition_on`] runs the perturbed steps on [`FdThreads`] (each thread with
//! its own copy of `d` after the nominal step), in three rounds that keep the reuse above
//! valid; the Jacobians are bit-identical to the serial call's at any thread count.
//!
//! **Inverse** ([`FdWorkspace::inverse`], [`crate::inverse()`]): `f = qfrc_inverse` (minus
//! `qfrc_actuator` with `flg_actuation`, i.e. the actuators are then not treated as external),
//! `s` the sensors computed by the inverse dynamics; inputs `q` (tangent), `v`, `a = qacc`.
//! MuJoCo's transposed layout: `DfDq[i][j] = ∂f_j/∂q_i` (`nv × nv`), likewise `DfDv`, `DfDa`;
//! `DsDq`, `DsDv`, `DsDa` are `nv × nsensordata`; `DmDq` (`nv × nM`) holds `∂qM/∂q_i` in
//! moreau's qM layout (`dof_Madr`: diagonal, then the ancestors; MuJoCo 4.0.0 returns it in its
//! CSR `d.M` layout, `nv × nC`, which drops the structural zeros of "simple" bodies). With
//! `flg_actuation` the actuation is computed before the sensors, so actuator-force sensors see
//! the perturbed state (as 4.0.0). Under `invdiscrete` the implicit integrators' `qDeriv` is
//! recomputed at every perturbed state (by [`moreau::inverse`], as 4.0.0). MuJoCo
//! differences forward only; `centered` is a moreau extension.
//!
//! After a call `d` holds the original time, state, controls and warm start; intermediate
//! quantities (`qacc`, `xpos`, ...) are those of the last perturbed evaluation, as in MuJoCo.
//! Everything is preallocated in [`FdWorkspace`]: repeated calls allocate nothing.

use crate::threads::Threads;
use moreau::model::{disable, Integrator, Model};
use moreau::pipeline::{
    check_acc, check_pos, check_vel, euler_skip, forward_skip, fwd_actuation, inverse_skip,
    keep_for_skips, sensor_acc, sensor_pos, sensor_vel, step_skip, Skip,
};
use moreau::{differentiate_pos, integrate_pos, Data};
use nalgebra::DMatrix;
use std::sync::Mutex;

/// Discrete-time transition Jacobians (rows are outputs, MuJoCo's `mjd_transitionFD`).
#[allow(non_snake_case)]
#[derive(Clone, Debug)]
pub struct TransitionJacobians {
    /// `∂y/∂x`, `(2nv+na) × (2nv+na)`.
    pub A: DMatrix<f64>,
    /// `∂y/∂u`, `(2nv+na) × nu`.
    pub B: DMatrix<f64>,
    /// `∂s/∂x`, `nsensordata × (2nv+na)`.
    pub C: DMatrix<f64>,
    /// `∂s/∂u`, `nsensordata × nu`.
    pub D: DMatrix<f64>,
}

/// Inverse-dynamics Jacobians in MuJoCo's transposed layout (`D[i][j] = ∂out_j/∂in_i`,
/// `mjd_inverseFD`).
#[allow(non_snake_case)]
#[derive(Clone, Debug)]
pub struct InverseJacobians {
    /// `nv × nv`.
    pub DfDq: DMatrix<f64>,
    /// `nv × nv`.
    pub DfDv: DMatrix<f64>,
    /// `nv × nv`.
    pub DfDa: DMatrix<f64>,
    /// `nv × nsensordata`.
    pub DsDq: DMatrix<f64>,
    /// `nv × nsensordata`.
    pub DsDv: DMatrix<f64>,
    /// `nv × nsensordata`.
    pub DsDa: DMatrix<f64>,
    /// `nv × nM`: row `i` is `∂qM/∂q_i` in qM's layout.
    pub DmDq: DMatrix<f64>,
}

/// Preallocated buffers and outputs of the finite-difference Jacobians.
#[derive(Clone, Debug)]
pub struct FdWorkspace {
    nq: usize,
    nv: usize,
    na: usize,
    nu: usize,
    ns: usize,
    nm: usize,
    // saved inputs
    time: f64,
    qpos: Vec<f64>,
    qvel: Vec<f64>,
    act: Vec<f64>,
    ctrl: Vec<f64>,
    warmstart: Vec<f64>,
    qacc: Vec<f64>,
    // outputs of the nominal and perturbed evaluations: state (qpos, qvel, act) or force
    y0: Vec<f64>,
    yp: Vec<f64>,
    ym: Vec<f64>,
    s0: Vec<f64>,
    sp: Vec<f64>,
    sm: Vec<f64>,
    m0: Vec<f64>,
    mp: Vec<f64>,
    mm: Vec<f64>,
    dpos: Vec<f64>,
    col: Vec<f64>,
    /// Euler's damped-mass factor is independent of `qvel` (no dof has polynomial damping), so
    /// velocity-perturbed steps may reuse the nominal one.
    factor_qvel_free: bool,
    /// Compute the sensor Jacobians (`C`, `D`, `DsD*`; default true). When false the sensors
    /// are skipped in every evaluation (faster; MuJoCo's NULL `C`/`D`) and those matrices are
    /// left as they are.
    pub sensors: bool,
    /// Output of [`FdWorkspace::transition`].
    pub transition: TransitionJacobians,
    /// Output of [`FdWorkspace::inverse`].
    pub inverse: InverseJacobians,
}

/// Which one-sided or two-sided difference a column uses.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Diff {
    Forward,
    Backward,
    Centered,
    Zero,
}

impl Diff {
    fn of(plus: bool, minus: bool) -> Self {
        match (plus, minus) {
            (true, true) => Diff::Centered,
            (true, false) => Diff::Forward,
            (false, true) => Diff::Backward,
            (false, false) => Diff::Zero,
        }
    }
}

/// One input of the transition Jacobians: a column of `B` (controls) or `A`.
#[derive(Clone, Copy, Debug)]
enum Input {
    Ctrl(usize),
    Act(usize),
    Vel(usize),
    Pos(usize),
}

impl Input {
    /// The inputs in the order the stages they reuse allow: controls and activations (which
    /// reuse the position and velocity stages), velocities (the position stage), positions.
    fn phases(nu: usize, na: usize, nv: usize) -> [Vec<Input>; 3] {
        [
            (0..nu)
                .map(Input::Ctrl)
                .chain((0..na).map(Input::Act))
                .collect(),
            (0..nv).map(Input::Vel).collect(),
            (0..nv).map(Input::Pos).collect(),
        ]
    }

    /// Whether the input is a control (a column of `B`, `D`), and its column.
    fn column(self, nv: usize) -> (bool, usize) {
        match self {
            Input::Ctrl(i) => (true, i),
            Input::Act(i) => (false, 2 * nv + i),
            Input::Vel(i) => (false, nv + i),
            Input::Pos(i) => (false, i),
        }
    }
}

/// The threads of [`FdWorkspace::transition_on`], each with its own `Data` and workspace
/// (made on first use, reused by later calls of the same model's sizes).
pub struct FdThreads {
    threads: Threads,
    slots: Vec<Mutex<(Data<f64>, FdWorkspace)>>,
    cols: Vec<f64>,
}

impl FdThreads {
    /// `nthread` threads (0: every CPU; 1: the calling thread, the serial call).
    pub fn new(nthread: usize) -> Result<Self, String> {
        Ok(FdThreads {
            threads: Threads::new(nthread)?,
            slots: Vec::new(),
            cols: Vec::new(),
        })
    }

    pub fn nthread(&self) -> usize {
        self.threads.nthread()
    }
}

impl FdWorkspace {
    /// Buffers for model `m`.
    pub fn new(m: &Model) -> Self {
        let (nq, nv, na, nu, ns, nm) = (m.nq, m.nv, m.na, m.nu, m.nsensordata, m.nM);
        let nx = 2 * nv + na;
        let ny = nq + nv + na;
        let z = |n: usize| vec![0.0; n];
        FdWorkspace {
            nq,
            nv,
            na,
            nu,
            ns,
            nm,
            time: 0.0,
            qpos: z(nq),
            qvel: z(nv),
            act: z(na),
            ctrl: z(nu),
            warmstart: z(nv),
            qacc: z(nv),
            y0: z(ny.max(nv)),
            yp: z(ny.max(nv)),
            ym: z(ny.max(nv)),
            s0: z(ns),
            sp: z(ns),
            sm: z(ns),
            m0: z(nm),
            mp: z(nm),
            mm: z(nm),
            dpos: z(nv),
            col: z(nx.max(nv).max(ns).max(nm)),
            factor_qvel_free: (0..nv).all(|i| m.dof_damping_eff(i).1 == [0.0; 2]),
            sensors: true,
            transition: TransitionJacobians {
                A: DMatrix::zeros(nx, nx),
                B: DMatrix::zeros(nx, nu),
                C: DMatrix::zeros(ns, nx),
                D: DMatrix::zeros(ns, nu),
            },
            inverse: InverseJacobians {
                DfDq: DMatrix::zeros(nv, nv),
                DfDv: DMatrix::zeros(nv, nv),
                DfDa: DMatrix::zeros(nv, nv),
                DsDq: DMatrix::zeros(nv, ns),
                DsDv: DMatrix::zeros(nv, ns),
                DsDa: DMatrix::zeros(nv, ns),
                DmDq: DMatrix::zeros(nv, nm),
            },
        }
    }

    /// Rebuilds the buffers (keeping [`FdWorkspace::sensors`]) when `m`'s sizes differ from
    /// those the workspace was built for; nothing (no allocation) when they are the same.
    fn fit(&mut self, m: &Model) {
        let same = self.nq == m.nq
            && self.nv == m.nv
            && self.na == m.na
            && self.nu == m.nu
            && self.ns == m.nsensordata
            && self.nm == m.nM;
        if !same {
            *self = FdWorkspace {
                sensors: self.sensors,
                ..FdWorkspace::new(m)
            };
        }
        self.factor_qvel_free = (0..m.nv).all(|i| m.dof_damping_eff(i).1 == [0.0; 2]);
    }

    fn save(&mut self, d: &Data<f64>) {
        self.time = d.time;
        self.qpos.copy_from_slice(&d.qpos);
        self.qvel.copy_from_slice(&d.qvel);
        self.act.copy_from_slice(&d.act);
        self.ctrl.copy_from_slice(&d.ctrl);
        self.warmstart.copy_from_slice(&d.qacc_warmstart);
        self.qacc.copy_from_slice(&d.qacc);
    }

    /// Restores time, state, controls and warm start (MuJoCo's `mjSTATE_FULLPHYSICS | CTRL |
    /// WARMSTART`).
    fn restore(&self, d: &mut Data<f64>) {
        d.time = self.time;
        d.qpos.copy_from_slice(&self.qpos);
        d.qvel.copy_from_slice(&self.qvel);
        d.act.copy_from_slice(&self.act);
        d.ctrl.copy_from_slice(&self.ctrl);
        d.qacc_warmstart.copy_from_slice(&self.warmstart);
    }

    /// One (possibly skipping) step from the current `d`; the next state goes to `y`, the
    /// sensors to `s`; then `d` is restored.
    fn step_into(
        &self,
        m: &Model,
        d: &mut Data<f64>,
        skip: Skip,
        skip_sensor: bool,
        y: &mut [f64],
        s: &mut [f64],
    ) {
        match m.opt.integrator {
            Integrator::Rk4 => step_skip(m, d, Skip::None, skip_sensor),
            // `step_skip` with Euler's factor reused also at Skip::Pos: qM is the nominal one
            // and D does not depend on qvel, so d.qH (from the nominal step, every later step
            // having skipped the factor) is what refactoring would give, bit for bit
            Integrator::Euler if skip == Skip::Pos && self.factor_qvel_free => {
                check_pos(m, d);
                check_vel(m, d);
                forward_skip(m, d, skip, skip_sensor);
                check_acc(m, d);
                euler_skip(m, d, true);
            }
            _ => step_skip(m, d, skip, skip_sensor),
        }
        let (nq, nv, na) = (self.nq, self.nv, self.na);
        y[..nq].copy_from_slice(&d.qpos);
        y[nq..nq + nv].copy_from_slice(&d.qvel);
        y[nq + nv..nq + nv + na].copy_from_slice(&d.act);
        if !skip_sensor {
            s.copy_from_slice(&d.sensordata);
        }
        self.restore(d);
    }

    /// Writes `(y2 ⊖ y1)/h` (tangent coordinates for qpos) into `col`.
    fn state_diff(m: &Model, col: &mut [f64], y1: &[f64], y2: &[f64], h: f64) {
        let (nq, nv) = (m.nq, m.nv);
        differentiate_pos(m, &mut col[..nv], h, &y1[..nq], &y2[..nq]);
        let ih = 1.0 / h;
        for (k, c) in col[nv..].iter_mut().enumerate() {
            *c = (y2[nq + k] - y1[nq + k]) * ih;
        }
    }

    /// `(x2 − x1)/h` into `col`.
    fn vec_diff(col: &mut [f64], x1: &[f64], x2: &[f64], h: f64) {
        let ih = 1.0 / h;
        for ((c, a), b) in col.iter_mut().zip(x1).zip(x2) {
            *c = (*b - *a) * ih;
        }
    }

    /// The state and sensor columns of one input from the nominal and perturbed outputs.
    fn transition_columns(&mut self, m: &Model, kind: Diff, eps: f64, xcol: usize, ucol: bool) {
        let nx = 2 * self.nv + self.na;
        let ns = self.ns;
        let sensors = ns > 0 && self.sensors;
        // state column
        {
            let col = &mut self.col[..nx];
            match kind {
                Diff::Forward => Self::state_diff(m, col, &self.y0, &self.yp, eps),
                Diff::Backward => Self::state_diff(m, col, &self.ym, &self.y0, eps),
                Diff::Centered => Self::state_diff(m, col, &self.ym, &self.yp, 2.0 * eps),
                Diff::Zero => col.iter_mut().for_each(|c| *c = 0.0),
            }
            let dst = if ucol {
                &mut self.transition.B
            } else {
                &mut self.transition.A
            };
            dst.column_mut(xcol).copy_from_slice(col);
        }
        if sensors {
            let col = &mut self.col[..ns];
            match kind {
                Diff::Forward => Self::vec_diff(col, &self.s0, &self.sp, eps),
                Diff::Backward => Self::vec_diff(col, &self.sm, &self.s0, eps),
                Diff::Centered => Self::vec_diff(col, &self.sm, &self.sp, 2.0 * eps),
                Diff::Zero => col.iter_mut().for_each(|c| *c = 0.0),
            }
            let dst = if ucol {
                &mut self.transition.D
            } else {
                &mut self.transition.C
            };
            dst.column_mut(xcol).copy_from_slice(col);
        }
    }

    /// Runs one perturbed step of input kind `kind` (`+1`/`-1` = direction) into `yp`/`ym`.
    fn perturbed_step(&mut self, m: &Model, d: &mut Data<f64>, skip: Skip, plus: bool) {
        let skip_sensor = self.ns == 0 || !self.sensors;
        let (mut y, mut s) = if plus {
            (std::mem::take(&mut self.yp), std::mem::take(&mut self.sp))
        } else {
            (std::mem::take(&mut self.ym), std::mem::take(&mut self.sm))
        };
        self.step_into(m, d, skip, skip_sensor, &mut y, &mut s);
        if plus {
            self.yp = y;
            self.sp = s;
        } else {
            self.ym = y;
            self.sm = s;
        }
    }

    /// The nominal step of the transition Jacobians: saves the inputs of `d` and steps once
    /// (`d` restored).
    fn nominal(&mut self, m: &Model, d: &mut Data<f64>) {
        self.fit(m);
        self.save(d);
        // the perturbed steps' solves keep the single island's problem and Newton's factors
        keep_for_skips(d);
        let skip_sensor = self.ns == 0 || !self.sensors;
        let (mut y, mut s) = (std::mem::take(&mut self.y0), std::mem::take(&mut self.s0));
        self.step_into(m, d, Skip::None, skip_sensor, &mut y, &mut s);
        self.y0 = y;
        self.s0 = s;
    }

    /// The perturbed steps of one input from the saved nominal (`d` restored after each),
    /// and its columns of [`FdWorkspace::transition`].
    fn input_columns(
        &mut self,
        m: &Model,
        d: &mut Data<f64>,
        input: Input,
        eps: f64,
        centered: bool,
    ) {
        let nv = self.nv;
        match input {
            // controls: reuse position and velocity stages; one-sided at the ctrlrange limits
            Input::Ctrl(i) => {
                let clamp = !m.opt.disabled(disable::CLAMPCTRL);
                let c = self.ctrl[i];
                let limited = clamp && m.actuator_ctrllimited[i];
                let r = m.actuator_ctrlrange[i];
                let inside =
                    |a: f64, b: f64| !limited || (a >= r[0] && a <= r[1] && b >= r[0] && b <= r[1]);
                let plus = inside(c, c + eps);
                if plus {
                    d.ctrl[i] = c + eps;
                    self.perturbed_step(m, d, Skip::Vel, true);
                }
                let minus = (centered || !plus) && inside(c - eps, c);
                if minus {
                    d.ctrl[i] = c - eps;
                    self.perturbed_step(m, d, Skip::Vel, false);
                }
                self.transition_columns(m, Diff::of(plus, minus), eps, i, true);
            }
            // activations: reuse position and velocity stages
            Input::Act(i) => {
                d.act[i] = self.act[i] + eps;
                self.perturbed_step(m, d, Skip::Vel, true);
                if centered {
                    d.act[i] = self.act[i] - eps;
                    self.perturbed_step(m, d, Skip::Vel, false);
                }
                self.transition_columns(m, Diff::of(true, centered), eps, 2 * nv + i, false);
            }
            // velocities: reuse the position stage
            Input::Vel(i) => {
                d.qvel[i] = self.qvel[i] + eps;
                self.perturbed_step(m, d, Skip::Pos, true);
                if centered {
                    d.qvel[i] = self.qvel[i] - eps;
                    self.perturbed_step(m, d, Skip::Pos, false);
                }
                self.transition_columns(m, Diff::of(true, centered), eps, nv + i, false);
            }
            // positions: tangent perturbation qpos ⊕ ±ε e_i, full steps
            Input::Pos(i) => {
                self.dpos[i] = 1.0;
                integrate_pos(m, &mut d.qpos, &self.dpos, eps);
                self.perturbed_step(m, d, Skip::None, true);
                if centered {
                    integrate_pos(m, &mut d.qpos, &self.dpos, -eps);
                    self.perturbed_step(m, d, Skip::None, false);
                }
                self.dpos[i] = 0.0;
                self.transition_columns(m, Diff::of(true, centered), eps, i, false);
            }
        }
    }

    /// `mjd_transitionFD`: fills [`FdWorkspace::transition`] for the state, controls and warm
    /// start in `d` (see the module documentation) and returns it.
    pub fn transition(
        &mut self,
        m: &Model,
        d: &mut Data<f64>,
        eps: f64,
        centered: bool,
    ) -> &TransitionJacobians {
        self.nominal(m, d);
        let (nu, na, nv) = (self.nu, self.na, self.nv);
        for i in 0..nu {
            self.input_columns(m, d, Input::Ctrl(i), eps, centered);
        }
        for i in 0..na {
            self.input_columns(m, d, Input::Act(i), eps, centered);
        }
        for i in 0..nv {
            self.input_columns(m, d, Input::Vel(i), eps, centered);
        }
        for i in 0..nv {
            self.input_columns(m, d, Input::Pos(i), eps, centered);
        }
        &self.transition
    }

    /// [`FdWorkspace::transition`] with the perturbed steps on `pool`'s threads, bit for bit
    /// the same Jacobians at any thread count. Each thread starts from a copy of `d` after the
    /// nominal step and of this workspace's saved inputs, and runs the inputs in three rounds
    /// (controls and activations, velocities, positions), so every perturbed step reuses the
    /// nominal stages as in the serial order. The warning counters the perturbed steps raise
    /// are added to `d`'s; unlike the serial call, `d`'s intermediate quantities are those of
    /// the nominal step.
    pub fn transition_on(
        &mut self,
        pool: &mut FdThreads,
        m: &Model,
        d: &mut Data<f64>,
        eps: f64,
        centered: bool,
    ) -> &TransitionJacobians {
        if pool.threads.nthread() == 1 {
            return self.transition(m, d, eps, centered);
        }
        self.nominal(m, d);
        if pool.slots.len() != pool.threads.nthread() {
            pool.slots = pool.threads.slots(|| (d.clone(), self.clone()));
        }
        for slot in &pool.slots {
            let mut g = slot.lock().unwrap_or_else(|e| e.into_inner());
            let (sd, sw) = &mut *g;
            sd.clone_from(d);
            sw.copy_nominal(self);
        }
        let nx = 2 * self.nv + self.na;
        let ns = if self.sensors { self.ns } else { 0 };
        let width = nx + ns;
        let start: Vec<u64> = d.warning.iter().map(|w| w.number).collect();
        for inputs in Input::phases(self.nu, self.na, self.nv) {
            pool.cols.resize(inputs.len() * width, 0.0);
            let items: Vec<(Input, &mut [f64])> = inputs
                .iter()
                .copied()
                .zip(pool.cols.chunks_mut(width.max(1)))
                .collect();
            pool.threads
                .for_each_slot(&pool.slots, items, 1, |(sd, sw), (input, out)| {
                    sw.input_columns(m, sd, input, eps, centered);
                    sw.copy_column(input, out);
                });
            for (input, col) in inputs.iter().zip(pool.cols.chunks(width.max(1))) {
                self.set_column(*input, col);
            }
        }
        for slot in &pool.slots {
            let g = slot.lock().unwrap_or_else(|e| e.into_inner());
            for ((w, s), n0) in d.warning.iter_mut().zip(&g.0.warning).zip(&start) {
                let raised = s.number.saturating_sub(*n0);
                if raised > 0 {
                    w.number += raised;
                    w.lastinfo = s.lastinfo;
                }
            }
        }
        &self.transition
    }

    /// Takes `from`'s nominal: its sizes, saved inputs and nominal outputs.
    fn copy_nominal(&mut self, from: &FdWorkspace) {
        self.sensors = from.sensors;
        if (self.nq, self.nv, self.na, self.nu, self.ns, self.nm)
            != (from.nq, from.nv, from.na, from.nu, from.ns, from.nm)
        {
            *self = from.clone();
            return;
        }
        self.factor_qvel_free = from.factor_qvel_free;
        self.time = from.time;
        self.qpos.copy_from_slice(&from.qpos);
        self.qvel.copy_from_slice(&from.qvel);
        self.act.copy_from_slice(&from.act);
        self.ctrl.copy_from_slice(&from.ctrl);
        self.warmstart.copy_from_slice(&from.warmstart);
        self.qacc.copy_from_slice(&from.qacc);
        self.y0.copy_from_slice(&from.y0);
        self.s0.copy_from_slice(&from.s0);
    }

    /// The state column of `B` or `A` of `input`, then its sensor column, into `out`.
    fn copy_column(&self, input: Input, out: &mut [f64]) {
        let (ucol, j) = input.column(self.nv);
        let t = &self.transition;
        let (x, s) = if ucol { (&t.B, &t.D) } else { (&t.A, &t.C) };
        let nx = x.nrows();
        out[..nx].copy_from_slice(x.column(j).as_slice());
        if out.len() > nx {
            out[nx..].copy_from_slice(s.column(j).as_slice());
        }
    }

    /// Writes `col` ([`FdWorkspace::copy_column`]'s layout) as `input`'s columns.
    fn set_column(&mut self, input: Input, col: &[f64]) {
        let (ucol, j) = input.column(self.nv);
        let t = &mut self.transition;
        let (x, s) = if ucol {
            (&mut t.B, &mut t.D)
        } else {
            (&mut t.A, &mut t.C)
        };
        let nx = x.nrows();
        x.column_mut(j).copy_from_slice(&col[..nx]);
        if col.len() > nx {
            s.column_mut(j).copy_from_slice(&col[nx..]);
        }
    }

    /// Inverse dynamics skipping stages before `skip`; force (minus `qfrc_actuator` with
    /// `flg_actuation`) into `f`, sensors into `s`, qM into `mass`. With `flg_actuation` the
    /// actuation is computed before the sensors, so actuator-force sensors see the current
    /// state (as MuJoCo 4.0.0; without it they read whatever `actuator_force` holds).
    #[allow(clippy::too_many_arguments)]
    fn inverse_into(
        m: &Model,
        d: &mut Data<f64>,
        skip: Skip,
        flg_actuation: bool,
        f: &mut [f64],
        s: &mut [f64],
        mass: &mut [f64],
    ) {
        let skip_sensor = s.is_empty();
        inverse_skip(m, d, skip, skip_sensor || flg_actuation);
        f.copy_from_slice(&d.qfrc_inverse);
        if flg_actuation {
            fwd_actuation(m, d);
            for (x, a) in f.iter_mut().zip(&d.qfrc_actuator) {
                *x -= *a;
            }
            if !skip_sensor {
                if skip < Skip::Pos {
                    sensor_pos(m, d);
                }
                if skip < Skip::Vel {
                    sensor_vel(m, d);
                }
                sensor_acc(m, d);
            }
        }
        if !skip_sensor {
            s.copy_from_slice(&d.sensordata);
        }
        mass.copy_from_slice(&d.qM);
    }

    /// Perturbed inverse evaluation into the plus or minus buffers.
    fn perturbed_inverse(
        &mut self,
        m: &Model,
        d: &mut Data<f64>,
        skip: Skip,
        act: bool,
        plus: bool,
    ) {
        let (nv, ns) = (self.nv, if self.sensors { self.ns } else { 0 });
        let (y, s, mm) = if plus {
            (&mut self.yp, &mut self.sp, &mut self.mp)
        } else {
            (&mut self.ym, &mut self.sm, &mut self.mm)
        };
        Self::inverse_into(m, d, skip, act, &mut y[..nv], &mut s[..ns], mm);
    }

    /// Row `row` of the inverse Jacobians of one input: `which` = 0 (q), 1 (v), 2 (a).
    fn inverse_rows(&mut self, which: usize, row: usize, centered: bool, eps: f64) {
        let (nv, ns, nm) = (self.nv, self.ns, self.nm);
        // forward: (plus - nominal)/eps; centered: (plus - minus)/(2 eps)
        let (lo, h) = if centered {
            (false, 2.0 * eps)
        } else {
            (true, eps)
        };
        // force
        {
            let x1 = if lo { &self.y0[..nv] } else { &self.ym[..nv] };
            let col = &mut self.col[..nv];
            Self::vec_diff(col, x1, &self.yp[..nv], h);
            let dst = match which {
                0 => &mut self.inverse.DfDq,
                1 => &mut self.inverse.DfDv,
                _ => &mut self.inverse.DfDa,
            };
            dst.row_mut(row)
                .iter_mut()
                .zip(col.iter())
                .for_each(|(o, c)| *o = *c);
        }
        if ns > 0 && self.sensors {
            let x1 = if lo { &self.s0[..] } else { &self.sm[..] };
            let col = &mut self.col[..ns];
            Self::vec_diff(col, x1, &self.sp, h);
            let dst = match which {
                0 => &mut self.inverse.DsDq,
                1 => &mut self.inverse.DsDv,
                _ => &mut self.inverse.DsDa,
            };
            dst.row_mut(row)
                .iter_mut()
                .zip(col.iter())
                .for_each(|(o, c)| *o = *c);
        }
        if which == 0 {
            let x1 = if lo { &self.m0[..] } else { &self.mm[..] };
            let col = &mut self.col[..nm];
            Self::vec_diff(col, x1, &self.mp, h);
            self.inverse
                .DmDq
                .row_mut(row)
                .iter_mut()
                .zip(col.iter())
                .for_each(|(o, c)| *o = *c);
        }
    }

    /// `mjd_inverseFD`: fills [`FdWorkspace::inverse`] for the state and `qacc` in `d` (see the
    /// module documentation) and returns it. `centered` = false is MuJoCo's (forward) scheme.
    pub fn inverse(
        &mut self,
        m: &Model,
        d: &mut Data<f64>,
        eps: f64,
        flg_actuation: bool,
        centered: bool,
    ) -> &InverseJacobians {
        self.inverse_steps(m, d, eps, eps, flg_actuation, centered)
    }

    /// [`FdWorkspace::inverse`] with one step `eps_pos` for the positions (tangent) and another,
    /// `eps_va`, for the velocities and accelerations. Inverse dynamics is linear in `qacc` and,
    /// without contacts, fluid forces or nonlinear damping, quadratic in `qvel`, so a large
    /// centered `eps_va` is exact there and removes the round-off of a small one (direct
    /// collocation uses it). A negative step with `centered` = false gives backward differences.
    pub fn inverse_steps(
        &mut self,
        m: &Model,
        d: &mut Data<f64>,
        eps_pos: f64,
        eps_va: f64,
        flg_actuation: bool,
        centered: bool,
    ) -> &InverseJacobians {
        self.fit(m);
        let (nv, ns) = (self.nv, if self.sensors { self.ns } else { 0 });
        self.save(d);
        Self::inverse_into(
            m,
            d,
            Skip::None,
            flg_actuation,
            &mut self.y0[..nv],
            &mut self.s0[..ns],
            &mut self.m0,
        );
        // accelerations: reuse position and velocity stages
        for i in 0..nv {
            d.qacc[i] = self.qacc[i] + eps_va;
            self.perturbed_inverse(m, d, Skip::Vel, flg_actuation, true);
            if centered {
                d.qacc[i] = self.qacc[i] - eps_va;
                self.perturbed_inverse(m, d, Skip::Vel, flg_actuation, false);
            }
            d.qacc[i] = self.qacc[i];
            self.inverse_rows(2, i, centered, eps_va);
        }
        // velocities: reuse the position stage
        for i in 0..nv {
            d.qvel[i] = self.qvel[i] + eps_va;
            self.perturbed_inverse(m, d, Skip::Pos, flg_actuation, true);
            if centered {
                d.qvel[i] = self.qvel[i] - eps_va;
                self.perturbed_inverse(m, d, Skip::Pos, flg_actuation, false);
            }
            d.qvel[i] = self.qvel[i];
            self.inverse_rows(1, i, centered, eps_va);
        }
        // positions
        for i in 0..nv {
            self.dpos[i] = 1.0;
            integrate_pos(m, &mut d.qpos, &self.dpos, eps_pos);
            self.perturbed_inverse(m, d, Skip::None, flg_actuation, true);
            d.qpos.copy_from_slice(&self.qpos);
            if centered {
                integrate_pos(m, &mut d.qpos, &self.dpos, -eps_pos);
                self.perturbed_inverse(m, d, Skip::None, flg_actuation, false);
                d.qpos.copy_from_slice(&self.qpos);
            }
            self.dpos[i] = 0.0;
            self.inverse_rows(0, i, centered, eps_pos);
        }
        &self.inverse
    }
}
