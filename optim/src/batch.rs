//! Many simulations at once: [`Batch`] (nsim simulations of one model on a thread pool, MuJoCo
//! 4.0.0's `mujoco.batch.Batch`) and [`Rollout`] / [`rollout`] (open-loop rollouts from many
//! initial states, MuJoCo's `rollout` module: `mujoco.rollout.rollout`).
//!
//! Every simulation is computed from its own inputs only: its state row (`mjSTATE_INTEGRATION`
//! for a batch, `mjSTATE_FULLPHYSICS` plus the controls for a rollout), its model and its
//! warning counters are loaded into a `Data` before the work and saved after it. A `Data` is
//! scratch, one per thread of the pool (or one per simulation when a batch is persistent), and
//! which thread runs a simulation changes nothing in its numbers: results are bit-identical to a
//! serial loop over one fresh `Data` per simulation at any thread count, and no result is
//! reduced across simulations in an order that depends on scheduling. The exception is the
//! sleep state of a model with the `sleep` flag, which is not part of the state: a batch of
//! such a model must be persistent (one `Data` per simulation), and its rollouts give the
//! numbers of a loop over one `Data`, each from the sleep state the one before left, as
//! MuJoCo's on one thread (run in parallel where that loop allows, [`Rollout::rollout`]).
//!
//! A simulation that diverges is reset by the step itself (`mj_checkPos`, `mj_checkVel`,
//! `mj_checkAcc`, MuJoCo's Computation chapter "Simulation pipeline") and its warning counters
//! say so ([`Batch::warning`], [`Batch::diverged`]); the other simulations are untouched. A
//! rollout whose warning counters rise stops stepping and repeats its last state and sensor
//! values to the end of its trajectory, as `mujoco.rollout` does.

use crate::sysid::{model_with, set_derived, Param};
pub use crate::threads::all_threads;
use crate::threads::Threads;
use moreau::data::{WarningStat, NWARNING};
use moreau::model::enable;
use moreau::state_bits as bits;
use moreau::{get_state, set_state, state_size};
use moreau::{Data, Model};
use moreau_derivatives::fd::{FdWorkspace, TransitionJacobians};
use moreau_derivatives::{TransitionOptions, Workspace};
use std::borrow::BorrowMut;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Mutex, MutexGuard};

/// The state components of a batch's rows (MuJoCo's `mjSTATE_INTEGRATION`).
pub const BATCH_SPEC: u32 = bits::INTEGRATION;

/// The state components of a rollout's initial states and recorded states (MuJoCo's
/// `mjSTATE_FULLPHYSICS`).
pub const ROLLOUT_SPEC: u32 = bits::FULLPHYSICS;

/// Whether `a` and `b` give `Data` the same layout (the sizes of everything `Data` holds), so
/// that a `Data` of one serves the other.
pub fn same_layout(a: &Model, b: &Model) -> bool {
    let sizes = |m: &Model| {
        [
            m.nq,
            m.nv,
            m.na,
            m.nu,
            m.nbody,
            m.njnt,
            m.ngeom,
            m.nsite,
            m.ncam,
            m.nlight,
            m.nmocap,
            m.neq,
            m.ntendon,
            m.nsensor,
            m.nsensordata,
            m.nwrap,
        ]
    };
    sizes(a) == sizes(b)
        && state_size(a, bits::INTEGRATION).ok() == state_size(b, bits::INTEGRATION).ok()
}

/// Whether `d` has the layout of `m`'s `Data` (the state's sizes).
fn same_data_layout(m: &Model, d: &Data) -> bool {
    d.qpos.len() == m.nq
        && d.qvel.len() == m.nv
        && d.act.len() == m.na
        && d.ctrl.len() == m.nu
        && d.xfrc_applied.len() == m.nbody
        && d.mocap_pos.len() == m.nmocap
        && d.eq_active.len() == m.neq
        && d.sensordata.len() == m.nsensordata
}

/// The refusal of a batch that is not persistent for a model with the `sleep` flag: which
/// trees sleep (`tree_asleep`) is not in the state rows, so one `Data` cannot serve several
/// simulations (MuJoCo 4.0.0's `mujoco.batch.Batch` refuses it in these words).
pub const NOT_PERSISTENT: &str =
    "sleep and IPC require a persistent batch: their bookkeeping is not part of the state";

/// A thread's (or a persistent simulation's) scratch: the `Data` a simulation is loaded into,
/// and the derivative workspaces, made on first use.
pub struct Slot {
    pub data: Data,
    fd: Option<Box<FdWorkspace>>,
    analytic: Option<Box<Workspace>>,
    /// The error of the simulation running on this slot in the current call ([`Slot::fail`]).
    error: Option<String>,
}

impl Slot {
    fn new(m: &Model) -> Self {
        Slot {
            data: Data::new(m),
            fd: None,
            analytic: None,
            error: None,
        }
    }

    /// Marks the simulation running on this slot as failed in this call, with `message`
    /// (MuJoCo's error text): [`Batch::run`] then leaves its row and warning counters as they
    /// were before the call and reports it in [`Batch::error`], as `mujoco.batch` reports a
    /// simulation in which MuJoCo raised.
    pub fn fail(&mut self, message: impl Into<String>) {
        self.error = Some(message.into());
    }
}

/// How [`Batch::transition`] differentiates one step.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Jacobians {
    /// MuJoCo's `mjd_transitionFD` with step `eps`, centered or forward differences.
    Fd { eps: f64, centered: bool },
    /// moreau's analytic transition Jacobians (`moreau_derivatives::transition`), with the
    /// sensor Jacobians `C`, `D` when `sensors`.
    Analytic { sensors: bool },
}

/// One simulation's share of a call: its row, counters and output.
struct Task<'a, O> {
    sim: usize,
    row: &'a mut [f64],
    warning: &'a mut [WarningStat; NWARNING],
    diverged: &'a mut bool,
    error: &'a mut Option<String>,
    out: O,
}

/// nsim simulations of one model (or of per-simulation models of the same layout), stepped on
/// `nthread` threads (MuJoCo 4.0.0's `mujoco.batch.Batch`).
///
/// Each simulation is its `mjSTATE_INTEGRATION` row in [`Batch::state`] plus its warning
/// counters: write a row (qpos, ctrl, …, located by [`Batch::component`]) and it is that
/// simulation's state at its next call. Calls take the simulations to run (`None` for all,
/// else sorted unique ids). A simulation that fails in a call (an error MuJoCo raises, such as
/// the stack overflow of a reset's pass over `sleep="init"` trees) keeps its row and counters
/// from before the call and says so in [`Batch::error`] until its next call; the others run
/// to completion.
pub struct Batch {
    model: Model,
    models: Vec<Model>,
    nsim: usize,
    nstate: usize,
    state: Vec<f64>,
    warning: Vec<[WarningStat; NWARNING]>,
    diverged: Vec<bool>,
    errors: Vec<Option<String>>,
    slots: Vec<Mutex<Slot>>,
    persistent: bool,
    threads: Threads,
}

impl Batch {
    /// `nsim` simulations of `model` on `nthread` threads (0: every CPU), each at the model's
    /// reset state (`mj_resetData`). With `persistent`, one `Data` per simulation keeps every
    /// derived field of its last call; otherwise one `Data` per thread.
    pub fn new(
        model: Model,
        nsim: usize,
        nthread: usize,
        persistent: bool,
    ) -> Result<Self, String> {
        if !persistent && model.opt.enabled(enable::SLEEP) {
            return Err(NOT_PERSISTENT.into());
        }
        let threads = Threads::new(nthread)?;
        let nthread = threads.nthread();
        let nstate = state_size(&model, BATCH_SPEC).map_err(|e| format!("{e:?}"))?;
        let nslot = if persistent { nsim.max(1) } else { nthread };
        let slots: Vec<Mutex<Slot>> = (0..nslot).map(|_| Mutex::new(Slot::new(&model))).collect();
        let mut state = vec![0.0; nsim * nstate];
        {
            let d = &slots[0].lock().unwrap_or_else(|e| e.into_inner()).data;
            for row in state.chunks_exact_mut(nstate.max(1)).take(nsim) {
                get_state(&model, d, row, BATCH_SPEC).map_err(|e| format!("{e:?}"))?;
            }
        }
        Ok(Batch {
            threads,
            model,
            models: Vec::new(),
            nsim,
            nstate,
            state,
            warning: vec![[WarningStat::default(); NWARNING]; nsim],
            diverged: vec![false; nsim],
            errors: vec![None; nsim],
            slots,
            persistent,
        })
    }

    pub fn nsim(&self) -> usize {
        self.nsim
    }

    pub fn nthread(&self) -> usize {
        self.threads.nthread()
    }

    /// The length of a state row, `mj_stateSize(m, mjSTATE_INTEGRATION)`.
    pub fn nstate(&self) -> usize {
        self.nstate
    }

    pub fn persistent(&self) -> bool {
        self.persistent
    }

    /// The batch's model.
    pub fn model(&self) -> &Model {
        &self.model
    }

    /// The model simulation `sim` runs on.
    pub fn model_of(&self, sim: usize) -> &Model {
        self.models.get(sim).unwrap_or(&self.model)
    }

    /// Every row, `nsim × nstate`, row-major.
    pub fn state(&self) -> &[f64] {
        &self.state
    }

    pub fn state_mut(&mut self) -> &mut [f64] {
        &mut self.state
    }

    /// Simulation `sim`'s row.
    pub fn row(&self, sim: usize) -> &[f64] {
        &self.state[sim * self.nstate..(sim + 1) * self.nstate]
    }

    pub fn row_mut(&mut self, sim: usize) -> &mut [f64] {
        &mut self.state[sim * self.nstate..(sim + 1) * self.nstate]
    }

    /// `(offset, size)` of state component `bit` (one `mjtState` bit) in a row.
    pub fn component(&self, bit: u32) -> Result<(usize, usize), String> {
        if bit.count_ones() != 1 || bit & BATCH_SPEC == 0 {
            return Err(format!("{bit} is not one mjtState component"));
        }
        let before = BATCH_SPEC & (bit - 1);
        let off = state_size(&self.model, before).map_err(|e| format!("{e:?}"))?;
        let size = state_size(&self.model, bit).map_err(|e| format!("{e:?}"))?;
        Ok((off, size))
    }

    /// Simulation `sim`'s warning counters (`mjData.warning`), accumulated over its calls
    /// since its last reset.
    pub fn warning(&self, sim: usize) -> &[WarningStat; NWARNING] {
        &self.warning[sim]
    }

    /// Every simulation's counters.
    pub fn warnings_mut(&mut self) -> &mut [[WarningStat; NWARNING]] {
        &mut self.warning
    }

    /// Whether simulation `sim` diverged in the last call that ran it: a divergence check
    /// (bad qpos, qvel or qacc) fired, and the step reset it to the model's defaults.
    pub fn diverged(&self, sim: usize) -> bool {
        self.diverged[sim]
    }

    /// The error simulation `sim` failed with in the last call that ran it (MuJoCo's error
    /// text, the per-simulation status of `mujoco.batch`), or `None` if it ran to completion.
    /// A failed simulation's row and warning counters are those from before that call (its
    /// `Data`, in a persistent batch, is as the failure left it).
    pub fn error(&self, sim: usize) -> Option<&str> {
        self.errors[sim].as_deref()
    }

    /// Simulation `sim`'s `Data` in a persistent batch: every field of its last call.
    pub fn data(&self, sim: usize) -> Option<MutexGuard<'_, Slot>> {
        if !self.persistent {
            return None;
        }
        Some(self.slots[sim].lock().unwrap_or_else(|e| e.into_inner()))
    }

    /// Runs simulation `i` on `models[i]` (one per simulation), or every simulation on the
    /// batch's model with `None`. Each model must give `Data` the batch model's layout
    /// ([`same_layout`]), as models compiled from one MJCF with other parameters do.
    pub fn set_models(&mut self, models: Option<Vec<Model>>) -> Result<(), String> {
        let models = models.unwrap_or_default();
        if !models.is_empty() && models.len() != self.nsim {
            return Err(format!(
                "{} models for {} simulations",
                models.len(),
                self.nsim
            ));
        }
        if let Some(i) = models.iter().position(|m| !same_layout(m, &self.model)) {
            return Err(format!(
                "model {i} gives Data another layout than the batch's model (different sizes)"
            ));
        }
        if !self.persistent && models.iter().any(|m| m.opt.enabled(enable::SLEEP)) {
            return Err(NOT_PERSISTENT.into());
        }
        self.models = models;
        Ok(())
    }

    /// Per-simulation model parameters: simulation `i` runs on the batch's model with
    /// `params` set to `values[i * params.len()..]` and the derived constants recomputed
    /// ([`crate::sysid::model_with`]: subtree masses and `mj_setConst`'s constants after
    /// inertial parameters).
    pub fn set_params(&mut self, params: &[Param], values: &[f64]) -> Result<(), String> {
        let np = params.len();
        if values.len() != self.nsim * np {
            return Err(format!(
                "{} values for {} simulations of {np} parameters",
                values.len(),
                self.nsim
            ));
        }
        let base = &self.model;
        let models = self
            .threads
            .map((0..self.nsim).collect(), |i| {
                model_with(base, params, &values[i * np..(i + 1) * np])
            })
            .into_iter()
            .collect::<Result<Vec<_>, _>>()?;
        self.models = models;
        Ok(())
    }

    /// Every simulation's model, for per-simulation parameters: the first call gives each
    /// simulation its own copy of the batch's model. After writing fields that the compiler
    /// derives constants from (masses, inertias, armature, …), call [`Batch::set_const`].
    pub fn models_mut(&mut self) -> &mut [Model] {
        if self.models.is_empty() {
            self.models = vec![self.model.clone(); self.nsim];
        }
        &mut self.models
    }

    /// Recomputes the derived constants of each simulation's model of `ids`
    /// ([`crate::sysid::set_derived`]: subtree masses and `mj_setConst`), expanding the models
    /// per simulation if they are not yet. A model `mj_setConst` refuses
    /// ([`moreau::set_const_error`], MuJoCo's error) fails its simulation: its model is left
    /// as it was and [`Batch::error`] gives the text; the others are recomputed.
    pub fn set_const(&mut self, ids: Option<&[usize]>) -> Result<(), String> {
        self.check_ids(ids)?;
        let all: Vec<usize>;
        let ids = match ids {
            Some(ids) => ids,
            None => {
                all = (0..self.nsim).collect();
                &all
            }
        };
        self.models_mut();
        let models = &mut self.models;
        let mut chosen: Vec<&mut Model> = Vec::with_capacity(ids.len());
        let mut next = ids.iter().peekable();
        for (i, m) in models.iter_mut().enumerate() {
            if next.peek() == Some(&&i) {
                next.next();
                self.errors[i] = moreau::set_const_error(m);
                if self.errors[i].is_none() {
                    chosen.push(m);
                }
            }
        }
        self.threads.for_each(chosen, set_derived);
        Ok(())
    }

    /// Checked ids: `None` for all, else sorted, unique and in range.
    fn check_ids(&self, ids: Option<&[usize]>) -> Result<usize, String> {
        let Some(ids) = ids else {
            return Ok(self.nsim);
        };
        if let Some(w) = ids.windows(2).find(|w| w[1] <= w[0]) {
            return Err(format!(
                "ids must be sorted and unique, got {} before {}",
                w[0], w[1]
            ));
        }
        if let Some(&last) = ids.last() {
            if last >= self.nsim {
                return Err(format!("ids must be in [0, {}), got {last}", self.nsim));
            }
        }
        Ok(ids.len())
    }

    /// For each simulation, its position among the simulations `ids` of a call (checked as
    /// [`Batch::run`] does; `None`: all), where its output goes.
    pub fn positions(&self, ids: Option<&[usize]>) -> Result<Vec<usize>, String> {
        self.check_ids(ids)?;
        Ok(match ids {
            Some(ids) => {
                let mut index = vec![usize::MAX; self.nsim];
                for (k, &i) in ids.iter().enumerate() {
                    index[i] = k;
                }
                index
            }
            None => (0..self.nsim).collect(),
        })
    }

    /// The core of every call: for each simulation of `ids` (in parallel), loads its row and
    /// counters into a `Data`, runs `f(sim, model, slot, out)` with its `nout` entries of
    /// `out` (`n × nout` for the `n` simulations of the call, in id order), and saves the row
    /// and counters back.
    pub fn run<F>(
        &mut self,
        ids: Option<&[usize]>,
        nout: usize,
        out: &mut [f64],
        f: F,
    ) -> Result<(), String>
    where
        F: Fn(usize, &Model, &mut Slot, &mut [f64]) + Sync,
    {
        let n = self.check_ids(ids)?;
        if out.len() != n * nout {
            return Err(format!(
                "output of {} entries for {n} simulations of {nout}",
                out.len()
            ));
        }
        let outs: Vec<&mut [f64]> = if nout == 0 {
            (0..n).map(|_| <&mut [f64]>::default()).collect()
        } else {
            out.chunks_mut(nout).collect()
        };
        self.run_each(ids, outs, f)
    }

    /// [`Batch::run`] with any output per simulation: `outs[k]` (for example the simulation's
    /// pieces of the caller's arrays) goes to `f` with the `k`-th simulation of `ids`, so
    /// results land where they belong without a buffer in between. `outs` has one item per
    /// simulation of the call.
    pub fn run_each<O, F>(
        &mut self,
        ids: Option<&[usize]>,
        outs: Vec<O>,
        f: F,
    ) -> Result<(), String>
    where
        O: Send,
        F: Fn(usize, &Model, &mut Slot, O) + Sync,
    {
        let n = self.check_ids(ids)?;
        if outs.len() != n {
            return Err(format!("{} outputs for {n} simulations", outs.len()));
        }
        let nstate = self.nstate.max(1);
        let mut outs = outs.into_iter();
        let mut tasks = Vec::with_capacity(n);
        let mut next = ids.map(|ids| ids.iter().copied().peekable());
        for (sim, (((row, warning), diverged), error)) in self
            .state
            .chunks_mut(nstate)
            .zip(self.warning.iter_mut())
            .zip(self.diverged.iter_mut())
            .zip(self.errors.iter_mut())
            .enumerate()
            .take(self.nsim)
        {
            if let Some(next) = next.as_mut() {
                if next.peek() != Some(&sim) {
                    continue;
                }
                next.next();
            }
            // one output per simulation of the call, checked above
            let Some(out) = outs.next() else { break };
            tasks.push(Task {
                sim,
                row: &mut row[..self.nstate],
                warning,
                diverged,
                error,
                out,
            });
        }
        let (model, models) = (&self.model, &self.models);
        let work = |slot: &mut Slot, t: Task<'_, O>| {
            let m = models.get(t.sim).unwrap_or(model);
            let d = &mut slot.data;
            // rows are written by the batch itself, with its model's layout: cannot fail
            let _ = set_state(m, d, t.row, BATCH_SPEC);
            d.warning = *t.warning;
            slot.error = None;
            f(t.sim, m, slot, t.out);
            *t.diverged = false;
            *t.error = slot.error.take();
            if t.error.is_some() {
                // a failed simulation keeps its row and counters from before the call
                return;
            }
            let d = &slot.data;
            let _ = get_state(m, d, t.row, BATCH_SPEC);
            *t.diverged = d
                .warning
                .iter()
                .zip(t.warning.iter())
                .zip(moreau::data::Warning::ALL)
                .any(|((a, b), w)| w.resets() && a.number > b.number);
            *t.warning = d.warning;
        };
        if self.persistent {
            // one Data per simulation: the tasks lock their own
            let slots = &self.slots;
            let run = |t: Task<'_, O>| {
                let mut s = slots[t.sim].lock().unwrap_or_else(|e| e.into_inner());
                work(&mut s, t)
            };
            self.threads.for_each(tasks, run);
        } else {
            self.threads.for_each_slot(&self.slots, tasks, 1, work);
        }
        Ok(())
    }

    /// Advances each simulation of `ids` by `nstep` calls to `mj_step`.
    pub fn step(&mut self, ids: Option<&[usize]>, nstep: usize) -> Result<(), String> {
        self.run(ids, 0, &mut [], |_, m, s, _| {
            for _ in 0..nstep {
                moreau::step(m, &mut s.data);
            }
        })
    }

    /// `mj_forward` on each simulation of `ids` (derived fields at the rows' states).
    pub fn forward(&mut self, ids: Option<&[usize]>) -> Result<(), String> {
        self.run(ids, 0, &mut [], |_, m, s, _| {
            moreau::forward(m, &mut s.data)
        })
    }

    /// [`Batch::step`], then copies `fields(sim, data, out)` of each simulation after its last
    /// substep into its `nout` entries of `out` (the bound derived fields of
    /// `mujoco.batch`).
    pub fn step_record<G>(
        &mut self,
        ids: Option<&[usize]>,
        nstep: usize,
        nout: usize,
        out: &mut [f64],
        fields: G,
    ) -> Result<(), String>
    where
        G: Fn(usize, &Data, &mut [f64]) + Sync,
    {
        self.run(ids, nout, out, |sim, m, s, o| {
            for _ in 0..nstep {
                moreau::step(m, &mut s.data);
            }
            fields(sim, &s.data, o)
        })
    }

    /// Resets each simulation of `ids` to its model's defaults (`mj_resetData`, which also
    /// clears its warning counters). A reset whose pass over `sleep="init"` trees overflows
    /// the arena's stack (MuJoCo 4.0.0: a fatal error, [`Data::try_reset`]) fails that
    /// simulation ([`Batch::error`] gives MuJoCo's text); its row keeps the state it had.
    pub fn reset(&mut self, ids: Option<&[usize]>) -> Result<(), String> {
        self.run(ids, 0, &mut [], |_, m, s, _| {
            if let Err(e) = s.data.try_reset(m) {
                s.fail(e.to_string());
            }
        })
    }

    /// Transition Jacobians `A`, `B` (and `C`, `D` where the method gives them) of one step at
    /// each simulation's state, in the layout of `mjd_transitionFD` (rows are outputs); the
    /// rows are not advanced. The Jacobians of simulation `ids[k]` are element `k`.
    pub fn transition(
        &mut self,
        ids: Option<&[usize]>,
        method: Jacobians,
    ) -> Result<Vec<TransitionJacobians>, String> {
        let index = self.positions(ids)?;
        let n = ids.map_or(self.nsim, <[usize]>::len);
        let results: Vec<Mutex<Option<Result<TransitionJacobians, String>>>> =
            (0..n).map(|_| Mutex::new(None)).collect();
        self.run(ids, 0, &mut [], |sim, m, s, _| {
            let d = &mut s.data;
            let r = match method {
                Jacobians::Fd { eps, centered } => {
                    let ws = s.fd.get_or_insert_with(|| Box::new(FdWorkspace::new(m)));
                    Ok(ws.transition(m, d, eps, centered).clone())
                }
                Jacobians::Analytic { sensors } => {
                    let ws = s.analytic.get_or_insert_with(Box::default);
                    ws.transition(m, d, &TransitionOptions::analytic().with_sensors(sensors))
                        .cloned()
                        .map_err(|e| e.to_string())
                }
            };
            *results[index[sim]]
                .lock()
                .unwrap_or_else(|e| e.into_inner()) = Some(r);
        })?;
        results
            .into_iter()
            .map(|r| {
                r.into_inner()
                    .unwrap_or_else(|e| e.into_inner())
                    .unwrap_or_else(|| Err("not computed".into()))
            })
            .collect()
    }
}

macro_rules! model_fields {
    ($($f:ident),* $(,)?) => {
        /// The model fields a batch gives per-simulation values ([`model_field_mut`]), by
        /// MuJoCo's names; `opt.timestep`, `opt.gravity`, `opt.wind`, `opt.density`,
        /// `opt.viscosity` too.
        pub const MODEL_FIELDS: &[&str] = &[
            $(stringify!($f),)*
            "opt.timestep", "opt.gravity", "opt.wind", "opt.density", "opt.viscosity",
        ];

        /// Model field `name` (one of [`MODEL_FIELDS`]) as a flat slice (row-major, MuJoCo's
        /// layout), or `None`.
        pub fn model_field_mut<'a>(m: &'a mut Model, name: &str) -> Option<&'a mut [f64]> {
            match name {
                $(stringify!($f) => Some(Flat::flat(&mut m.$f)),)*
                "opt.timestep" => Some(std::slice::from_mut(&mut m.opt.timestep)),
                "opt.gravity" => Some(&mut m.opt.gravity[..]),
                "opt.wind" => Some(&mut m.opt.wind[..]),
                "opt.density" => Some(std::slice::from_mut(&mut m.opt.density)),
                "opt.viscosity" => Some(std::slice::from_mut(&mut m.opt.viscosity)),
                _ => None,
            }
        }
    };
}

/// A model array as a flat slice of numbers.
trait Flat {
    fn flat(&mut self) -> &mut [f64];
}

impl Flat for Vec<f64> {
    fn flat(&mut self) -> &mut [f64] {
        self
    }
}

impl<const N: usize> Flat for Vec<[f64; N]> {
    fn flat(&mut self) -> &mut [f64] {
        self.as_flattened_mut()
    }
}

model_fields!(
    light_pos,
    light_dir,
    light_pos0,
    light_poscom0,
    light_dir0,
    light_attenuation,
    light_cutoff,
    light_exponent,
    light_ambient,
    light_diffuse,
    light_specular,
    light_bulbradius,
    light_intensity,
    light_range,
    light_softness,
    body_pos,
    body_quat,
    body_ipos,
    body_iquat,
    body_mass,
    body_subtreemass,
    body_inertia,
    body_invweight0,
    body_gravcomp,
    jnt_solref,
    jnt_solimp,
    jnt_pos,
    jnt_axis,
    jnt_stiffness,
    jnt_range,
    jnt_margin,
    dof_solref,
    dof_solimp,
    dof_frictionloss,
    dof_armature,
    dof_damping,
    dof_invweight0,
    geom_solmix,
    geom_solref,
    geom_solimp,
    geom_size,
    geom_rbound,
    geom_aabb,
    geom_pos,
    geom_quat,
    geom_friction,
    geom_margin,
    geom_gap,
    site_size,
    site_pos,
    site_quat,
    tendon_solref_lim,
    tendon_solimp_lim,
    tendon_range,
    tendon_margin,
    tendon_stiffness,
    tendon_damping,
    tendon_armature,
    tendon_frictionloss,
    tendon_invweight0,
    actuator_dynprm,
    actuator_gainprm,
    actuator_biasprm,
    actuator_ctrlrange,
    actuator_forcerange,
    actuator_actrange,
    actuator_gear,
    actuator_acc0,
    eq_solref,
    eq_solimp,
    eq_data,
    pair_solref,
    pair_solreffriction,
    pair_solimp,
    pair_margin,
    pair_gap,
    pair_friction,
    mat_rgba,
    numeric_data,
);

/// The inputs of a rollout (`mujoco.rollout.rollout`'s arrays, with every dimension given:
/// the Python layer tiles singleton dimensions).
#[derive(Clone, Copy, Debug)]
pub struct RolloutInputs<'a> {
    /// One model for every rollout, or one per rollout (of the same layout): rollout r runs
    /// `models[r]`; a longer list is allowed and its tail unused, as in MuJoCo's rollout.
    pub models: &'a [&'a Model],
    /// `nbatch × nstate` initial states (`mjSTATE_FULLPHYSICS`).
    pub initial_state: &'a [f64],
    /// `nbatch × nv` initial `qacc_warmstart`, or zeros.
    pub initial_warmstart: Option<&'a [f64]>,
    /// `nbatch × nstep × ncontrol` controls (components `control_spec`), set before each
    /// step; `None` leaves the inputs as they are in the thread's `Data`.
    pub control: Option<&'a [f64]>,
    /// The `mjtState` components of a control vector (within `mjSTATE_USER`).
    pub control_spec: u32,
    pub nstep: usize,
}

/// Why [`Rollout::rollout`] failed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RolloutError {
    /// Inputs of the wrong sizes (MuJoCo's `ValueError`s, in its words where it has them).
    Invalid(String),
    /// MuJoCo's fatal error (`mju_error`, Python's `FatalError`) in a step of rollout
    /// `rollout`, the first such rollout in order: the arena's stack overflowed. That rollout
    /// stopped at the step and its remaining output rows are not written; the others ran.
    Fatal {
        rollout: usize,
        error: moreau::data::arena::StackOverflow,
    },
}

impl std::fmt::Display for RolloutError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            RolloutError::Invalid(e) => f.write_str(e),
            RolloutError::Fatal { error, .. } => error.fmt(f),
        }
    }
}

impl std::error::Error for RolloutError {}

impl From<String> for RolloutError {
    fn from(e: String) -> Self {
        RolloutError::Invalid(e)
    }
}

impl From<&str> for RolloutError {
    fn from(e: &str) -> Self {
        RolloutError::Invalid(e.to_string())
    }
}

/// A thread pool for rollouts (`mujoco.rollout.Rollout`).
pub struct Rollout {
    threads: Threads,
    /// How many rollouts of the last call of a model with the `sleep` flag kept the result of
    /// the parallel pass ([`Rollout::sleep_reused`]).
    reused: AtomicUsize,
}

impl Rollout {
    /// A pool of `nthread` threads; 0 or 1 runs rollouts on the calling thread.
    pub fn new(nthread: usize) -> Result<Self, String> {
        Ok(Rollout {
            threads: Threads::new(nthread.max(1))?,
            reused: AtomicUsize::new(0),
        })
    }

    pub fn nthread(&self) -> usize {
        self.threads.nthread()
    }

    /// In the last call with a model with the `sleep` flag, how many rollouts kept the result
    /// they got in the parallel pass (the others ran again in order on the first `Data`);
    /// 0 when the call ran them all in order.
    pub fn sleep_reused(&self) -> usize {
        self.reused.load(Ordering::Relaxed)
    }

    /// Rolls out `nbatch` open-loop trajectories (MuJoCo's `rollout`): each from its initial
    /// state, with its warm start (or zeros) and its controls set before each of `nstep`
    /// steps, recording the state (`mjSTATE_FULLPHYSICS`) and `sensordata` after each step
    /// into `state` (`nbatch × nstep × nstate`) and `sensordata` (`nbatch × nstep ×
    /// nsensordata`). `datas` are the threads' `Data` (at least one; the pool uses
    /// `min(nthread, datas.len())` of them); inputs outside `control_spec` are those of the
    /// `Data` a rollout runs on, with controls, applied forces and (once per `Data`) mocap
    /// poses and equality activations reset to the model's defaults when not controlled.
    /// Rollouts are taken `chunk_size` at a time (default `max(1, nbatch / (10 nthread))`).
    /// With the `sleep` flag each rollout starts from the sleep state the one before left in
    /// the first `Data`, as MuJoCo's rollout on one thread: results then do not depend on the
    /// thread count either (docs/python.md, "Rollouts"). They are computed on the pool where
    /// that loop allows: unless a tree sleeps on as rollout 0 starts, every rollout is run in
    /// parallel with every tree awake at `AWAKE_RESET` (the sleep state after a rollout that
    /// ended in motion; while no tree sleeps, `tree_asleep` is all a step reads of it), then
    /// checked in order: a rollout whose predecessor's sleep state, with its own inputs, wakes
    /// to that `tree_asleep` in its first step keeps its result; any other is run again on
    /// the first `Data` after its predecessor (bit-identical to the loop;
    /// [`Rollout::sleep_reused`] counts the kept).
    ///
    /// A step's fatal error (the arena's stack overflowing) stops its rollout and makes the
    /// call return [`RolloutError::Fatal`] for the first such rollout, once every rollout ran:
    /// the error of each rollout is its own, whatever the thread count.
    pub fn rollout<D: BorrowMut<Data> + Send>(
        &self,
        datas: &mut [D],
        inp: &RolloutInputs<'_>,
        state: Option<&mut [f64]>,
        sensordata: Option<&mut [f64]>,
        chunk_size: Option<usize>,
    ) -> Result<(), RolloutError> {
        let m0 = *inp
            .models
            .first()
            .ok_or("rollout needs at least one model")?;
        if datas.is_empty() {
            return Err("rollout needs at least one Data".into());
        }
        let nstate = state_size(m0, ROLLOUT_SPEC).map_err(|e| format!("{e:?}"))?;
        if inp.control_spec & !bits::USER != 0 {
            return Err("control_spec can only contain bits in mjSTATE_USER".into());
        }
        let ncontrol = state_size(m0, inp.control_spec).map_err(|e| format!("{e:?}"))?;
        if nstate == 0 || !inp.initial_state.len().is_multiple_of(nstate) {
            return Err(format!(
                "initial_state has {} entries, not a multiple of nstate = {nstate}",
                inp.initial_state.len()
            )
            .into());
        }
        let nbatch = inp.initial_state.len() / nstate;
        let (nv, ns, nstep) = (m0.nv, m0.nsensordata, inp.nstep);
        if inp.models.len() != 1 && inp.models.len() < nbatch {
            return Err(format!("{} models for {nbatch} rollouts", inp.models.len()).into());
        }
        if let Some(i) = inp.models.iter().position(|m| !same_layout(m, m0)) {
            return Err(format!("model {i} has other sizes than model 0").into());
        }
        if let Some(d) = datas
            .iter_mut()
            .position(|d| !same_data_layout(m0, d.borrow_mut()))
        {
            return Err(format!("data {d} was made for a model of other sizes").into());
        }
        let check = |name: &str, len: usize, want: usize| {
            if len == want {
                Ok(())
            } else {
                // MuJoCo's words
                Err(format!("{name}.size should be {want}, got {len}"))
            }
        };
        if let Some(w) = inp.initial_warmstart {
            check("initial_warmstart", w.len(), nbatch * nv)?;
        }
        if let Some(c) = inp.control {
            check("control", c.len(), nbatch * nstep * ncontrol)?;
        }
        let mut empty_s: Vec<f64> = Vec::new();
        let mut empty_d: Vec<f64> = Vec::new();
        let (has_s, has_d) = (state.is_some(), sensordata.is_some());
        let state = match state {
            Some(s) => {
                check("state", s.len(), nbatch * nstep * nstate)?;
                s
            }
            None => &mut empty_s[..],
        };
        let sensordata = match sensordata {
            Some(s) => {
                check("sensordata", s.len(), nbatch * nstep * ns)?;
                s
            }
            None => &mut empty_d[..],
        };
        let nthread = self.nthread().min(datas.len());
        let chunk = chunk_size
            .unwrap_or((nbatch / (10 * nthread)).max(1))
            .max(1);
        // one task per rollout, with its output rows
        let mut srows = state.chunks_mut((nstep * nstate).max(1));
        let mut drows = sensordata.chunks_mut((nstep * ns).max(1));
        let tasks: Vec<RolloutTask<'_>> = (0..nbatch)
            .map(|r| {
                let s: &mut [f64] = if has_s && nstep * nstate > 0 {
                    srows.next().unwrap_or_default()
                } else {
                    &mut []
                };
                let d: &mut [f64] = if has_d && nstep * ns > 0 {
                    drows.next().unwrap_or_default()
                } else {
                    &mut []
                };
                RolloutTask {
                    r,
                    state: s,
                    sensordata: d,
                    end_asleep: Vec::new(),
                    end_qpos: Vec::new(),
                    fatal: None,
                }
            })
            .collect();
        // the mocap poses and equality activations a Data starts from when not controlled
        let spec = inp.control_spec;
        for d in datas.iter_mut() {
            let d: &mut Data = d.borrow_mut();
            if spec & bits::MOCAP_POS == 0 || spec & bits::MOCAP_QUAT == 0 {
                for b in 0..m0.nbody {
                    if let Ok(id) = usize::try_from(m0.body_mocapid[b]) {
                        let (p, q) = (m0.body_pos[b], m0.body_quat[b]);
                        if spec & bits::MOCAP_POS == 0 {
                            d.mocap_pos[id] = nalgebra::Vector3::new(p[0], p[1], p[2]);
                        }
                        if spec & bits::MOCAP_QUAT == 0 {
                            d.mocap_quat[id] = nalgebra::Quaternion::new(q[0], q[1], q[2], q[3]);
                        }
                    }
                }
            }
            if spec & bits::EQ_ACTIVE == 0 {
                d.eq_active.clone_from(&m0.eq_active0);
            }
        }
        let input = |r: usize| OneInputs {
            m: if inp.models.len() == 1 {
                m0
            } else {
                inp.models[r]
            },
            x0: &inp.initial_state[r * nstate..(r + 1) * nstate],
            warmstart: inp.initial_warmstart.map(|w| &w[r * nv..(r + 1) * nv]),
            control: inp
                .control
                .map(|c| &c[r * nstep * ncontrol..(r + 1) * nstep * ncontrol]),
        };
        let one = |d: &mut Data, t: &mut RolloutTask<'_>| {
            let o = input(t.r);
            t.fatal = one_rollout(
                o.m,
                d,
                o.x0,
                o.warmstart,
                o.control,
                spec,
                nstep,
                t.state,
                t.sensordata,
            );
        };
        let mut tasks = tasks;
        if !inp.models.iter().any(|m| m.opt.enabled(enable::SLEEP)) {
            let slots = data_slots(datas, nthread);
            let items: Vec<&mut RolloutTask<'_>> = tasks.iter_mut().collect();
            self.threads
                .for_each_slot(&slots, items, chunk, |d, t| one(d, t));
            return first_fatal(&tasks);
        }
        // Each rollout starts from the sleep state the previous one left in its `Data`
        // (`tree_asleep` is not part of the state): MuJoCo 4.0.0's rollout on one thread, the
        // loop over the first `Data` at any thread count. `first`: the counters rollout 0 goes
        // on with after its first step's wake-up test.
        let first = {
            let d0: &mut Data = datas[0].borrow_mut();
            let mut w = d0.tree_asleep.clone();
            let o = input(0);
            first_inputs(o.m, d0, o.x0, o.control, spec, nstep);
            moreau::sleep::wake_changed_into(o.m, d0, &mut w, d0.sleep_qpos());
            w
        };
        if nthread <= 1 || nbatch <= 1 || first.iter().any(|&a| a >= 0) {
            // one thread, or a tree sleeps on as rollout 0 starts: the loop itself
            self.reused.store(0, Ordering::Relaxed);
            let d0: &mut Data = datas[0].borrow_mut();
            for t in tasks.iter_mut() {
                one(d0, t);
            }
            return first_fatal(&tasks);
        }
        // While every tree is awake a step reads nothing of the sleep state but `tree_asleep`
        // (`sleep_qpos` and the values sleeping trees keep are read for sleeping trees only),
        // and a rollout whose predecessor ended in motion starts with every counter at
        // `AWAKE_RESET`: every rollout runs in parallel from that `guess`, keeping the sleep
        // state it ends with.
        let guess = vec![moreau::sleep::AWAKE_RESET; first.len()];
        {
            let slots = data_slots(datas, nthread);
            let items: Vec<&mut RolloutTask<'_>> = tasks.iter_mut().collect();
            self.threads.for_each_slot(&slots, items, chunk, |d, t| {
                d.tree_asleep.copy_from_slice(&guess);
                one(d, t);
                t.end_asleep.clone_from(&d.tree_asleep);
                t.end_qpos.clear();
                t.end_qpos.extend_from_slice(d.sleep_qpos());
            });
        }
        // Then in order: rollout r keeps its result if the sleep state its predecessor left
        // (the call's first sleep state for rollout 0), with its own inputs, wakes to `guess`
        // in its first step; else it runs again on the first `Data` after its predecessor (run
        // again there from `guess` if it was kept; rollout 0 from `first`, all awake).
        let d0: &mut Data = datas[0].borrow_mut();
        // whether `d0` holds what the loop leaves after rollout r − 1
        let mut held = false;
        let mut reused = 0;
        let mut w = first.clone();
        for r in 0..nbatch {
            let (done, rest) = tasks.split_at_mut(r);
            let t = &mut rest[0];
            if r > 0 {
                if !held {
                    let prev = &done[r - 1];
                    d0.tree_asleep.copy_from_slice(&prev.end_asleep);
                    d0.sleep_qpos_mut().copy_from_slice(&prev.end_qpos);
                }
                let o = input(r);
                first_inputs(o.m, d0, o.x0, o.control, spec, nstep);
                w.copy_from_slice(&d0.tree_asleep);
                moreau::sleep::wake_changed_into(o.m, d0, &mut w, d0.sleep_qpos());
            }
            if w == guess {
                held = false;
                reused += 1;
                continue;
            }
            if r == 0 {
                d0.tree_asleep.copy_from_slice(&first);
            } else if !held {
                d0.tree_asleep.copy_from_slice(&guess);
                one(d0, &mut done[r - 1]);
            }
            one(d0, t);
            held = true;
        }
        if !held {
            // the first `Data` is left as the loop leaves it
            if let Some(last) = tasks.last_mut() {
                d0.tree_asleep.copy_from_slice(&guess);
                one(d0, last);
            }
        }
        self.reused.store(reused, Ordering::Relaxed);
        first_fatal(&tasks)
    }
}

/// The fatal error of the first rollout in order that met one.
/// The pool's slots: the first `nthread` of the threads' `Data`, one lock each.
fn data_slots<D: BorrowMut<Data>>(datas: &mut [D], nthread: usize) -> Vec<Mutex<&mut Data>> {
    datas
        .iter_mut()
        .take(nthread)
        .map(|d| Mutex::new(d.borrow_mut()))
        .collect()
}

fn first_fatal(tasks: &[RolloutTask<'_>]) -> Result<(), RolloutError> {
    match tasks.iter().find_map(|t| t.fatal.map(|e| (t.r, e))) {
        Some((rollout, error)) => Err(RolloutError::Fatal { rollout, error }),
        None => Ok(()),
    }
}

/// One rollout's inputs (its pieces of [`RolloutInputs`]).
struct OneInputs<'a> {
    m: &'a Model,
    x0: &'a [f64],
    warmstart: Option<&'a [f64]>,
    control: Option<&'a [f64]>,
}

/// One rollout's output rows (empty when not recorded) and, with the `sleep` flag, the sleep
/// state it left when run from the parallel pass's guess.
struct RolloutTask<'a> {
    r: usize,
    state: &'a mut [f64],
    sensordata: &'a mut [f64],
    end_asleep: Vec<i32>,
    end_qpos: Vec<f64>,
    /// The fatal error that stopped it, if one did.
    fatal: Option<moreau::data::arena::StackOverflow>,
}

/// The inputs a rollout's first step sees, as [`one_rollout`] loads them: the inputs outside
/// `spec` zeroed, the initial state, the first controls.
fn first_inputs(
    m: &Model,
    d: &mut Data,
    x0: &[f64],
    control: Option<&[f64]>,
    spec: u32,
    nstep: usize,
) {
    zero_uncontrolled(d, spec);
    // sizes were checked by the caller
    let _ = set_state(m, d, x0, ROLLOUT_SPEC);
    if let Some(c) = control.filter(|_| nstep > 0) {
        let ncontrol = c.len() / nstep;
        let _ = set_state(m, d, &c[..ncontrol], spec);
    }
}

/// Zeroes the inputs a rollout does not control (`ctrl`, `qfrc_applied`, `xfrc_applied`).
fn zero_uncontrolled(d: &mut Data, spec: u32) {
    if spec & bits::CTRL == 0 {
        d.ctrl.iter_mut().for_each(|x| *x = 0.0);
    }
    if spec & bits::QFRC_APPLIED == 0 {
        d.qfrc_applied.iter_mut().for_each(|x| *x = 0.0);
    }
    if spec & bits::XFRC_APPLIED == 0 {
        d.xfrc_applied.iter_mut().for_each(|x| x.fill(0.0));
    }
}

/// One rollout on `d` (the body of [`Rollout::rollout`]); `state`, `sensordata` are its output
/// rows (empty when not recorded). Returns the fatal error that stopped it at a step (its rows
/// from that step on are not written), as MuJoCo's rollout stops at `mju_error`.
#[allow(clippy::too_many_arguments)]
fn one_rollout(
    m: &Model,
    d: &mut Data,
    x0: &[f64],
    warmstart: Option<&[f64]>,
    control: Option<&[f64]>,
    spec: u32,
    nstep: usize,
    state: &mut [f64],
    sensordata: &mut [f64],
) -> Option<moreau::data::arena::StackOverflow> {
    let (nstate, ns) = (x0.len(), m.nsensordata);
    let ncontrol = if nstep == 0 {
        0
    } else {
        control.map_or(0, |c| c.len() / nstep)
    };
    // inputs not controlled start from zero
    zero_uncontrolled(d, spec);
    // sizes were checked by the caller
    let _ = set_state(m, d, x0, ROLLOUT_SPEC);
    match warmstart {
        Some(w) => d.qacc_warmstart.copy_from_slice(w),
        None => d.qacc_warmstart.iter_mut().for_each(|x| *x = 0.0),
    }
    d.warning = [WarningStat::default(); NWARNING];
    let record = |d: &Data, t: usize, state: &mut [f64], sensordata: &mut [f64]| {
        if !state.is_empty() {
            let _ = get_state(m, d, &mut state[t * nstate..(t + 1) * nstate], ROLLOUT_SPEC);
        }
        if !sensordata.is_empty() {
            sensordata[t * ns..(t + 1) * ns].copy_from_slice(&d.sensordata);
        }
    };
    for t in 0..nstep {
        if d.warning.iter().any(|w| w.number > 0) {
            // a warning stops the rollout: its last values fill the rest
            for t in t..nstep {
                record(d, t, state, sensordata);
            }
            break;
        }
        if let Some(c) = control {
            let _ = set_state(m, d, &c[t * ncontrol..(t + 1) * ncontrol], spec);
        }
        moreau::step(m, d);
        if d.stack_overflow.is_some() {
            return d.stack_overflow;
        }
        record(d, t, state, sensordata);
    }
    None
}

/// [`Rollout::rollout`] on a pool of `nthread` threads made for the call, each with a `Data`
/// made for the call (from the reset state); returns `(state, sensordata)`,
/// `nbatch × nstep × nstate` and `nbatch × nstep × nsensordata`.
pub fn rollout(inp: &RolloutInputs<'_>, nthread: usize) -> Result<(Vec<f64>, Vec<f64>), String> {
    let m0 = *inp
        .models
        .first()
        .ok_or("rollout needs at least one model")?;
    let nstate = state_size(m0, ROLLOUT_SPEC).map_err(|e| format!("{e:?}"))?;
    let nbatch = inp.initial_state.len() / nstate.max(1);
    let nthread = if nthread == 0 { all_threads() } else { nthread };
    let mut datas: Vec<Data> = (0..nthread).map(|_| Data::new(m0)).collect();
    let mut state = vec![0.0; nbatch * inp.nstep * nstate];
    let mut sensordata = vec![0.0; nbatch * inp.nstep * m0.nsensordata];
    Rollout::new(nthread)?
        .rollout(
            &mut datas,
            inp,
            Some(&mut state),
            Some(&mut sensordata),
            None,
        )
        .map_err(|e| e.to_string())?;
    Ok((state, sensordata))
}
