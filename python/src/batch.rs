//! `moreau._moreau._Rollout` and `moreau._moreau._Batch`: the extension side of
//! `moreau.rollout` (MuJoCo's `mujoco.rollout`) and `moreau.batch` (MuJoCo's `mujoco.batch`),
//! on [`moreau_optim::batch`]. The Python layer checks and tiles the arguments; these take
//! C-contiguous float64 arrays of the final shapes. Every call releases the GIL.

use crate::arrays::view_raw;
use crate::batch_fields::{set_values, structural_error, values, STRUCTURAL};
use crate::data::{count, MjData};
use crate::errors::FatalError;
use crate::layout::model_layout;
use crate::model::MjModel;
use crate::values::Values;
use moreau::data::NWARNING;
use moreau::state_bits;
use moreau::{Data, Model};
use moreau_optim::batch::{Batch, Rollout, RolloutError, RolloutInputs, NOT_PERSISTENT};
use nalgebra::Vector3;
use numpy::{PyArrayDescrMethods, PyReadonlyArrayDyn, PyReadwriteArrayDyn, PyUntypedArrayMethods};
use pyo3::exceptions::{PyIndexError, PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use std::collections::BTreeMap;

fn err(e: String) -> PyErr {
    PyValueError::new_err(e)
}

/// One model or a sequence of them.
fn models_of<'py>(model: &Bound<'py, PyAny>) -> PyResult<Vec<PyRef<'py, MjModel>>> {
    if let Ok(m) = model.extract::<PyRef<'py, MjModel>>() {
        return Ok(vec![m]);
    }
    let mut out = Vec::new();
    for m in model.try_iter()? {
        out.push(m?.extract::<PyRef<'py, MjModel>>()?);
    }
    Ok(out)
}

/// `ValueError` unless an argument has `shape` (MuJoCo's words).
fn expect_shape(name: &str, got: &[usize], shape: &[usize]) -> PyResult<()> {
    if got == shape {
        return Ok(());
    }
    Err(err(format!(
        "{name} must have shape {}, got {}",
        py_shape(shape),
        py_shape(got)
    )))
}

/// A shape as Python writes a tuple: `(8, 3)`, `(8,)`, `()`.
fn py_shape(shape: &[usize]) -> String {
    match shape {
        [] => "()".into(),
        [n] => format!("({n},)"),
        _ => format!(
            "({})",
            shape
                .iter()
                .map(usize::to_string)
                .collect::<Vec<_>>()
                .join(", ")
        ),
    }
}

/// One simulation's row of a bound derived field's buffer, which `PyBatch::call` writes.
enum FieldRow<'a> {
    Float(&'a str, &'a mut [f64]),
    Int(&'a str, &'a mut [i32]),
}

/// The `Data` fields stored in the state rows, by their `mjtState` bit (`mujoco.batch`'s
/// state fields).
const STATE_FIELDS: &[(&str, u32)] = &[
    ("time", state_bits::TIME),
    ("qpos", state_bits::QPOS),
    ("qvel", state_bits::QVEL),
    ("act", state_bits::ACT),
    ("qacc_warmstart", state_bits::WARMSTART),
    ("ctrl", state_bits::CTRL),
    ("qfrc_applied", state_bits::QFRC_APPLIED),
    ("xfrc_applied", state_bits::XFRC_APPLIED),
    ("eq_active", state_bits::EQ_ACTIVE),
    ("mocap_pos", state_bits::MOCAP_POS),
    ("mocap_quat", state_bits::MOCAP_QUAT),
];

/// What a record of `_Batch.rollout` copies after each substep.
#[derive(Clone, Copy)]
enum Source<'a> {
    /// State components (`mj_getState` of this spec) as float64: a state field or a spec.
    State(u32),
    /// `eq_active` as moreau's `MjData` holds it (bool).
    EqActive,
    /// A derived field the batch copies out ([`OUTPUTS`]), float64 or int32.
    Field(&'a str),
}

/// One simulation's `nstep × len` piece of a record buffer.
enum Piece<'a> {
    Float(&'a mut [f64]),
    Int(&'a mut [i32]),
    Bool(&'a mut [bool]),
}

/// A record buffer borrowed for the call.
enum RecordBuf<'py> {
    Float(PyReadwriteArrayDyn<'py, f64>),
    Int(PyReadwriteArrayDyn<'py, i32>),
    Bool(PyReadwriteArrayDyn<'py, bool>),
}

impl RecordBuf<'_> {
    /// Splits the buffer into `n` pieces of `per` entries, one per simulation of the call.
    fn pieces(&mut self, n: usize, per: usize) -> PyResult<Vec<Piece<'_>>> {
        fn split<'a, T>(
            s: &'a mut [T],
            n: usize,
            per: usize,
            f: fn(&'a mut [T]) -> Piece<'a>,
        ) -> Vec<Piece<'a>> {
            if per == 0 {
                return (0..n).map(|_| f(&mut [])).collect();
            }
            s.chunks_mut(per).map(f).collect()
        }
        Ok(match self {
            RecordBuf::Float(a) => split(a.as_slice_mut()?, n, per, Piece::Float),
            RecordBuf::Int(a) => split(a.as_slice_mut()?, n, per, Piece::Int),
            RecordBuf::Bool(a) => split(a.as_slice_mut()?, n, per, Piece::Bool),
        })
    }
}

/// Copies `src` of `d` into substep `t`'s `len` entries of `piece`.
fn record(m: &Model, d: &Data, src: Source<'_>, len: usize, piece: &mut Piece<'_>, t: usize) {
    let at = t * len..(t + 1) * len;
    match (src, piece) {
        (Source::State(spec), Piece::Float(p)) => {
            // the spec's size is the record's length, checked when the call began
            let _ = moreau::get_state(m, d, &mut p[at], spec);
        }
        (Source::EqActive, Piece::Bool(p)) => p[at].copy_from_slice(&d.eq_active),
        (Source::Field(name), Piece::Float(p)) => copy_field(m, d, name, &mut p[at]),
        (Source::Field(name), Piece::Int(p)) => copy_int_field(m, d, name, &mut p[at]),
        _ => {}
    }
}

/// Repeats substep `t`'s entries of `piece` over the substeps after it.
fn repeat_last(piece: &mut Piece<'_>, len: usize, t: usize) {
    fn rep<T: Copy>(p: &mut [T], len: usize, t: usize) {
        if len == 0 {
            return;
        }
        let (done, rest) = p.split_at_mut((t + 1) * len);
        let last = &done[t * len..];
        for c in rest.chunks_mut(len) {
            c.copy_from_slice(last);
        }
    }
    match piece {
        Piece::Float(p) => rep(p, len, t),
        Piece::Int(p) => rep(p, len, t),
        Piece::Bool(p) => rep(p, len, t),
    }
}

/// One simulation's pieces of `Batch.ray`'s outputs: distances, geom ids and, if asked,
/// normals.
type RayOut<'a> = (&'a mut [f64], &'a mut [i32], Option<&'a mut [f64]>);

/// A thread pool for rollouts (`mujoco.rollout.Rollout`'s extension object).
#[pyclass(module = "moreau", name = "_Rollout")]
pub struct PyRollout {
    r: Rollout,
    /// The threads asked for: 0 runs on the calling thread (with one `MjData`), n > 0 takes
    /// exactly n `MjData`, as MuJoCo's pool.
    nthread: usize,
}

#[pymethods]
impl PyRollout {
    #[new]
    fn new(nthread: usize) -> PyResult<Self> {
        Ok(PyRollout {
            r: Rollout::new(nthread).map_err(PyRuntimeError::new_err)?,
            nthread,
        })
    }

    #[getter]
    fn nthread(&self) -> usize {
        self.r.nthread()
    }

    /// Rolls out on this pool: `model` one `MjModel` or a sequence (1, or at least nbatch:
    /// rollout r runs model r), `data` one `MjData` or a sequence (one per thread: exactly
    /// `nthread`, or one for a pool of 0 threads); arrays C-contiguous float64 of the final
    /// shapes. The data list, `nstep` and `chunk_size` are checked here with MuJoCo's messages
    /// (`skip_checks` reaches this directly); a step's fatal error raises `FatalError`.
    #[pyo3(signature = (model, data, nstep, control_spec, initial_state, initial_warmstart,
        control, state, sensordata, chunk_size))]
    #[allow(clippy::too_many_arguments)]
    fn rollout(
        &self,
        py: Python<'_>,
        model: &Bound<'_, PyAny>,
        data: &Bound<'_, PyAny>,
        nstep: i64,
        control_spec: u32,
        initial_state: PyReadonlyArrayDyn<'_, f64>,
        initial_warmstart: Option<PyReadonlyArrayDyn<'_, f64>>,
        control: Option<PyReadonlyArrayDyn<'_, f64>>,
        mut state: Option<PyReadwriteArrayDyn<'_, f64>>,
        mut sensordata: Option<PyReadwriteArrayDyn<'_, f64>>,
        chunk_size: Option<i64>,
    ) -> PyResult<()> {
        let nstep = usize::try_from(nstep).map_err(|_| err("nstep must be non-negative".into()))?;
        let chunk_size = match chunk_size {
            None => None,
            Some(c) => Some(
                usize::try_from(c)
                    .ok()
                    .filter(|&c| c > 0)
                    .ok_or_else(|| err("chunk_size must be a positive integer".into()))?,
            ),
        };
        let mrefs = models_of(model)?;
        let mut drefs: Vec<PyRefMut<'_, MjData>> = Vec::new();
        if let Ok(d) = data.extract::<PyRefMut<'_, MjData>>() {
            drefs.push(d);
        } else {
            for d in data.try_iter()? {
                drefs.push(d?.extract::<PyRefMut<'_, MjData>>().map_err(|_| {
                    PyValueError::new_err("data must be an MjData or a sequence of distinct MjData")
                })?);
            }
        }
        // MuJoCo's checks of the data list against the pool, in its words
        if drefs.is_empty() {
            return Err(err("The list of data instances is empty".into()));
        }
        if self.nthread == 0 && drefs.len() > 1 {
            return Err(err(
                "More than one data instance passed but rollout is configured \
                 to run on main thread"
                    .into(),
            ));
        }
        if self.nthread > 0 && drefs.len() != self.nthread {
            return Err(err(format!(
                "Length of data: {} not equal to nthread: {}",
                drefs.len(),
                self.nthread
            )));
        }
        let m0 = &mrefs
            .first()
            .ok_or_else(|| PyValueError::new_err("no model"))?
            .model;
        for d in drefs.iter_mut() {
            d.check_model(m0)?;
            d.sync_in();
        }
        let models: Vec<&Model> = mrefs.iter().map(|m| &m.model).collect();
        let x0 = initial_state.as_slice()?;
        let warm = match &initial_warmstart {
            Some(w) => Some(w.as_slice()?),
            None => None,
        };
        let ctrl = match &control {
            Some(c) => Some(c.as_slice()?),
            None => None,
        };
        let s = match state.as_mut() {
            Some(s) => Some(s.as_slice_mut()?),
            None => None,
        };
        let sd = match sensordata.as_mut() {
            Some(s) => Some(s.as_slice_mut()?),
            None => None,
        };
        let inp = RolloutInputs {
            models: &models,
            initial_state: x0,
            initial_warmstart: warm,
            control: ctrl,
            control_spec,
            nstep,
        };
        let r = {
            let mut ds: Vec<&mut Data> = drefs.iter_mut().map(|d| &mut d.data).collect();
            let pool = &self.r;
            py.detach(move || pool.rollout(&mut ds, &inp, s, sd, chunk_size))
        };
        for d in drefs.iter_mut() {
            d.sync_out();
        }
        r.map_err(|e| match e {
            RolloutError::Invalid(e) => err(e),
            RolloutError::Fatal { .. } => crate::errors::FatalError::new_err(e.to_string()),
        })
    }
}

/// Copies `Data` field `name` (flattened, in MuJoCo's layout: quaternions (w, x, y, z),
/// matrices row-major, `M`, `qLD` and `qH` in MuJoCo's sparse layout) into `out`; its length without
/// `out`.
macro_rules! data_fields {
    (
        floats { $($f:ident),* $(,)? } vecs { $($v:ident),* $(,)? }
        quats { $($q:ident),* $(,)? } mats { $($mt:ident),* $(,)? }
        layout { $($l:ident),* $(,)? } ints { $($i:ident),* $(,)? }
        counts { $($c:ident),* $(,)? }
    ) => {
        /// The derived `Data` fields a batch copies out after its calls.
        const OUTPUTS: &[&str] = &[
            $(stringify!($f),)* $(stringify!($v),)* $(stringify!($q),)* $(stringify!($mt),)*
            $(stringify!($l),)* $(stringify!($i),)* "solver_nnz", $(stringify!($c),)*
        ];

        /// The integer ones among them (bound as int32, as in MuJoCo).
        const INT_OUTPUTS: &[&str] = &[$(stringify!($i),)* "solver_nnz", $(stringify!($c),)*];

        fn field_len(m: &Model, d: &Data, name: &str) -> Option<usize> {
            match name {
                $(stringify!($f) => Some(d.$f.len()),)*
                $(stringify!($v) => Some(d.$v.iter().map(|x| x.len()).sum()),)*
                $(stringify!($q) => Some(4 * d.$q.len()),)*
                $(stringify!($mt) => Some(9 * d.$mt.len()),)*
                $(stringify!($i) => Some(d.$i.len()),)*
                "solver_nnz" => Some(moreau::data::NISLAND),
                $(stringify!($c) => Some(1),)*
                _ => model_layout(m, d, name, None),
            }
        }

        fn copy_field(m: &Model, d: &Data, name: &str, out: &mut [f64]) {
            fn fill(out: &mut [f64], from: impl Iterator<Item = f64>) {
                for (o, x) in out.iter_mut().zip(from) {
                    *o = x;
                }
            }
            match name {
                $(stringify!($f) => out.copy_from_slice(&d.$f),)*
                $(stringify!($v) => fill(out, d.$v.iter().flat_map(|x| x.iter().copied())),)*
                $(stringify!($q) => fill(out, d.$q.iter().flat_map(crate::layout::wxyz)),)*
                $(stringify!($mt) => fill(out, d.$mt.iter().flat_map(crate::layout::row_major)),)*
                _ => {
                    model_layout(m, d, name, Some(out));
                }
            }
        }

        /// [`copy_field`] of an integer field ([`INT_OUTPUTS`]).
        fn copy_int_field(m: &Model, d: &Data, name: &str, out: &mut [i32]) {
            fn int(x: impl TryInto<i32>) -> i32 {
                x.try_into().unwrap_or(i32::MAX)
            }
            if name.starts_with("moment_") && !d.moment_rows_set() {
                // zeros from a reset to the next transmission stage, as MuJoCo's
                out.fill(0);
                return;
            }
            match name {
                $(stringify!($i) => {
                    for (o, &x) in out.iter_mut().zip(&d.$i) {
                        *o = int(x);
                    }
                })*
                // counted when read (`SolverNnz::get`)
                "solver_nnz" => {
                    for (o, x) in out.iter_mut().zip(d.solver_nnz.get(m)) {
                        *o = int(x);
                    }
                }
                $(stringify!($c))|* => {
                    if let (Some(o), Some(n)) = (out.first_mut(), count(m, d, name)) {
                        *o = int(n);
                    }
                }
                _ => {}
            }
        }
    };
}

data_fields! {
    floats {
        qacc, act_dot, ten_length, actuator_length, ten_velocity, actuator_velocity, qfrc_bias,
        qfrc_spring, qfrc_damper, qfrc_gravcomp, qfrc_passive, actuator_force, qfrc_actuator,
        qfrc_smooth, qacc_smooth, qfrc_constraint, qfrc_inverse, sensordata, qfrc_fluid, energy,
        qLDiagInv, solver_fwdinv, qDeriv, qLU, qHDiagInv, qfrc_adhesion, ten_J,
        actuator_moment,
    }
    vecs {
        xpos, xipos, xanchor, xaxis, geom_xpos, site_xpos, cam_xpos, subtree_com,
        subtree_linvel, subtree_angmom, cdof, cvel, cdof_dot, cacc, cfrc_int, cfrc_ext, cinert,
        crb, wrap_xpos, light_xpos, light_xdir,
    }
    quats { xquat }
    mats { xmat, ximat, geom_xmat, site_xmat, cam_xmat }
    layout { xiquat, geom_xquat, site_xquat, M, qLD, qH }
    ints {
        ten_wrapadr, ten_wrapnum, wrap_obj, moment_rownnz, moment_rowadr, moment_colind,
        solver_niter,
    }
    counts { ncon, nefc, ne, nf, nl, nJ, nA, nisland, nidof }
}

/// nsim simulations of a model on a thread pool (`mujoco.batch.Batch`'s extension object).
///
/// Buffers behind the arrays it returns (rows, warnings, status, outputs, expanded fields) are
/// allocated once and never reallocated, so the arrays are views with this object as base.
#[pyclass(module = "moreau", name = "_Batch")]
pub struct PyBatch {
    b: Batch,
    /// `nsim × NWARNING × 2` (lastinfo, number), int32 as MuJoCo's.
    warning: Vec<i32>,
    /// `nsim`: nonzero for a simulation whose last call failed ([`Batch::error`]: a reset
    /// whose pass over `sleep="init"` trees overflowed the stack; moreau's step does not fail).
    status: Vec<i32>,
    /// Bound derived fields, `nsim × len` each.
    outputs: BTreeMap<String, Vec<f64>>,
    /// Bound integer derived fields ([`INT_OUTPUTS`]), `nsim × len` each.
    int_outputs: BTreeMap<String, Vec<i32>>,
    /// Expanded model fields ([`crate::batch_fields`]).
    expanded: BTreeMap<String, Expanded>,
    /// Whether `set_const` ran: derived constants are per simulation.
    consts: bool,
    /// Whether the simulations run on the caller's models (`set_models`), which replace
    /// per-simulation fields.
    caller: bool,
    /// The model's MJCF source (models taken out of the batch pickle with it).
    source: Option<std::sync::Arc<moreau::MjcfSource>>,
}

/// An `(nsim, len)` view of per-simulation values with `owner` as base.
///
/// # Safety
/// As [`view_raw`]: the buffer must not be reallocated while `owner` lives.
unsafe fn view_values<'py>(
    owner: &Bound<'py, PyAny>,
    v: &Values,
    nsim: usize,
) -> Bound<'py, PyAny> {
    let shape = [nsim, v.len() / nsim.max(1)];
    // SAFETY: forwarded to the caller.
    unsafe {
        match v {
            Values::F64(v) => view_raw(owner, v.as_ptr(), &shape),
            Values::F32(v) => view_raw(owner, v.as_ptr(), &shape),
            Values::I32(v) => view_raw(owner, v.as_ptr(), &shape),
            Values::U8(v) => view_raw(owner, v.as_ptr(), &shape),
        }
    }
}

/// One expanded model field: `nsim × len` values in MuJoCo's dtype, allocated once (Python
/// views them), and for a structural field ([`STRUCTURAL`]) the model's values, which every
/// simulation must keep.
struct Expanded {
    vals: Values,
    base: Option<Values>,
}

impl PyBatch {
    /// Writes the expanded fields into the simulations' models; per simulation, why it cannot
    /// run on its values (a structural field that differs from the model's, a value the field
    /// does not accept, an option flag the engine does not support), or `None`.
    fn push_expanded(&mut self) -> Vec<Option<String>> {
        let nsim = self.b.nsim();
        let mut errors = vec![None; nsim];
        if self.expanded.is_empty() {
            return errors;
        }
        let persistent = self.b.persistent();
        let flags = self.expanded.contains_key("opt.enableflags")
            || self.expanded.contains_key("opt.disableflags");
        let models = self.b.models_mut();
        for ((sim, m), error) in models.iter_mut().enumerate().zip(errors.iter_mut()) {
            for (name, f) in &self.expanded {
                let n = f.vals.len() / nsim.max(1);
                let v = f.vals.slice(sim * n, n);
                let r = match &f.base {
                    Some(base) if v != base.as_ref() => Err(structural_error(name)),
                    Some(_) => Ok(()),
                    None => set_values(m, name, v),
                };
                if let Err(e) = r {
                    error.get_or_insert(e);
                }
            }
            if flags && error.is_none() {
                if let Some(why) = moreau::pipeline::forward_unsupported(m) {
                    *error = Some(format!("model uses {why}, not supported yet"));
                } else if !persistent && m.opt.enabled(moreau::model::enable::SLEEP) {
                    *error = Some(NOT_PERSISTENT.into());
                }
            }
        }
        errors
    }

    /// [`PyBatch::push_expanded`], refusing the call if a simulation of `ids` (checked ids;
    /// `None`: all) cannot run on its values.
    fn push_checked(&mut self, ids: Option<&[usize]>) -> PyResult<()> {
        let refused = self.push_expanded();
        let all: Vec<usize>;
        let ids = match ids {
            Some(ids) => ids,
            None => {
                all = (0..refused.len()).collect();
                &all
            }
        };
        match ids
            .iter()
            .find_map(|&i| Some((i, refused.get(i)?.as_ref()?)))
        {
            Some((sim, e)) => Err(err(format!("simulation {sim}: {e}"))),
            None => Ok(()),
        }
    }

    /// Reads the expanded fields back from the models (after `set_const`).
    fn pull_expanded(&mut self) {
        let nsim = self.b.nsim();
        let models = self.b.models_mut();
        for (name, f) in self.expanded.iter_mut() {
            if f.base.is_some() {
                continue; // structural: set_const does not change it
            }
            let n = f.vals.len() / nsim.max(1);
            for (sim, m) in models.iter().enumerate() {
                if let Some(v) = values(m, name).filter(|v| v.len() == n) {
                    f.vals.write(sim * n, &v);
                }
            }
        }
    }

    /// Field `name`'s values for every simulation (`nsim × len`, from each simulation's model)
    /// and, for a structural field, the model's; `None` for a field the batch does not expand.
    fn expand_values(&self, py: Python<'_>, name: &str) -> PyResult<Option<Expanded>> {
        let nsim = self.b.nsim();
        if STRUCTURAL.contains(&name) {
            // MjModel's read-only copy of the batch's model
            let owner = Py::new(py, MjModel::new(self.b.model().clone()))?;
            let base = crate::values::from_array(&owner.bind(py).getattr(name)?)?;
            let mut vals = base.empty_like();
            for _ in 0..nsim {
                vals.extend(&base);
            }
            return Ok(Some(Expanded {
                vals,
                base: Some(base),
            }));
        }
        let Some(mut vals) = values(self.b.model(), name).map(|v| v.empty_like()) else {
            return Ok(None);
        };
        for sim in 0..nsim {
            if let Some(v) = values(self.b.model_of(sim), name) {
                vals.extend(&v);
            }
        }
        Ok(Some(Expanded { vals, base: None }))
    }

    /// The simulations of a call: `None` for all, else the ids, each checked to be in
    /// `[0, nsim)` (order and uniqueness are checked by the batch's call).
    fn ids(&self, ids: Option<PyReadonlyArrayDyn<'_, i32>>) -> PyResult<Option<Vec<usize>>> {
        let nsim = self.b.nsim();
        ids.map(|a| {
            a.as_slice()?
                .iter()
                .map(|&i| {
                    usize::try_from(i)
                        .ok()
                        .filter(|&s| s < nsim)
                        .ok_or_else(|| {
                            err(format!("simulation ids must be in [0, {nsim}), got {i}"))
                        })
                })
                .collect()
        })
        .transpose()
    }

    /// `IndexError` unless `sim` is a simulation of the batch (MuJoCo's words).
    fn check_sim(&self, sim: usize) -> PyResult<()> {
        let nsim = self.b.nsim();
        if sim >= nsim {
            return Err(PyIndexError::new_err(format!(
                "sim must be in [0, {nsim}), got {sim}"
            )));
        }
        Ok(())
    }

    /// Runs `f` on the simulations of `ids` (GIL released), each then writing its bound
    /// outputs straight into its rows of the bound buffers, and copies the warning counters
    /// and the per-simulation status after the call. A simulation for which `f` returns an
    /// error (MuJoCo's text) fails: it keeps its row, counters and bound outputs. Returns the
    /// number of failed simulations (MuJoCo's `nfail`).
    fn call(
        &mut self,
        py: Python<'_>,
        ids: Option<Vec<usize>>,
        f: impl Fn(usize, &Model, &mut Data) -> Result<(), String> + Sync + Send,
    ) -> PyResult<usize> {
        let n = ids.as_ref().map_or(self.b.nsim(), |i| i.len());
        let units: Vec<()> = vec![(); n];
        self.call_each(py, ids, units, move |sim, m, d, ()| f(sim, m, d))
    }

    /// [`PyBatch::call`] with `extra[k]` (for example the simulation's pieces of the caller's
    /// arrays) passed to `f` with the `k`-th simulation of `ids`.
    fn call_each<E: Send>(
        &mut self,
        py: Python<'_>,
        ids: Option<Vec<usize>>,
        extra: Vec<E>,
        f: impl Fn(usize, &Model, &mut Data, E) -> Result<(), String> + Sync + Send,
    ) -> PyResult<usize> {
        let refused = self.push_expanded();
        let index = self.b.positions(ids.as_deref()).map_err(err)?;
        let nsim = self.b.nsim();
        let n = ids.as_ref().map_or(nsim, |i| i.len());
        let nfield = self.outputs.len() + self.int_outputs.len();
        // each simulation of the call gets its row of every bound buffer
        if extra.len() != n {
            return Err(err(format!("{} outputs for {n} simulations", extra.len())));
        }
        let mut outs: Vec<(Vec<FieldRow<'_>>, E)> = extra
            .into_iter()
            .map(|e| (Vec::with_capacity(nfield), e))
            .collect();
        for (name, buf) in self.outputs.iter_mut() {
            let len = buf.len() / nsim.max(1);
            for (sim, row) in buf.chunks_mut(len.max(1)).enumerate().take(nsim) {
                if let Some(o) = index.get(sim).and_then(|&k| outs.get_mut(k)) {
                    o.0.push(FieldRow::Float(name, row));
                }
            }
        }
        for (name, buf) in self.int_outputs.iter_mut() {
            let len = buf.len() / nsim.max(1);
            for (sim, row) in buf.chunks_mut(len.max(1)).enumerate().take(nsim) {
                if let Some(o) = index.get(sim).and_then(|&k| outs.get_mut(k)) {
                    o.0.push(FieldRow::Int(name, row));
                }
            }
        }
        let b = &mut self.b;
        py.detach(|| {
            b.run_each(ids.as_deref(), outs, |sim, m, s, (o, x)| {
                if let Some(e) = &refused[sim] {
                    s.fail(e.clone());
                    return;
                }
                if let Err(e) = f(sim, m, &mut s.data, x) {
                    s.fail(e);
                    return;
                }
                for piece in o {
                    match piece {
                        FieldRow::Float(name, row) => copy_field(m, &s.data, name, row),
                        FieldRow::Int(name, row) => copy_int_field(m, &s.data, name, row),
                    }
                }
            })
        })
        .map_err(err)?;
        let sims: Vec<usize> = ids.unwrap_or_else(|| (0..nsim).collect());
        for &sim in &sims {
            for (w, stat) in self.b.warning(sim).iter().enumerate() {
                let at = (sim * NWARNING + w) * 2;
                self.warning[at] = stat.lastinfo as i32;
                self.warning[at + 1] = stat.number.min(i32::MAX as u64) as i32;
            }
            self.status[sim] = i32::from(self.b.error(sim).is_some());
        }
        Ok(sims.iter().filter(|&&sim| self.status[sim] != 0).count())
    }

    /// Runs `f(k, model, data, out)` on the `k`-th simulation of `ids` (on the threads, GIL
    /// released) after loading its row, with `outs[k]`, its pieces of the caller's arrays;
    /// the rows and bound fields are untouched (a function of the state).
    fn evaluate<O: Send>(
        &mut self,
        py: Python<'_>,
        ids: Option<Vec<usize>>,
        outs: Vec<O>,
        f: impl Fn(usize, &Model, &mut Data, O) + Sync + Send,
    ) -> PyResult<()> {
        let index = self.b.positions(ids.as_deref()).map_err(err)?;
        self.push_checked(ids.as_deref())?;
        let b = &mut self.b;
        py.detach(|| {
            b.run_each(ids.as_deref(), outs, |sim, m, s, o| {
                f(index[sim], m, &mut s.data, o)
            })
        })
        .map_err(err)
    }

    /// The forward stages up to `stage` (mjtStage: 0 none, 1 position, 2 velocity, 3 all),
    /// each with its sensors and energy as `mj_forward` (and `mj_step1`) run them, so that
    /// position- and velocity-dependent fields and sensors describe the state.
    fn stages(m: &Model, d: &mut Data, stage: i32) {
        use moreau::pipeline as p;
        match stage {
            s if s >= 3 => moreau::forward(m, d),
            s if s >= 1 => {
                p::fwd_position(m, d);
                p::sensor_pos(m, d);
                p::energy_stage_pos(m, d);
                if s >= 2 {
                    p::fwd_velocity(m, d);
                    p::sensor_vel(m, d);
                    if m.opt.enabled(moreau::model::enable::ENERGY) {
                        p::energy_vel(m, d);
                    }
                }
            }
            _ => {}
        }
    }
}

#[pymethods]
impl PyBatch {
    #[new]
    #[pyo3(signature = (model, nsim, nthread=0, persistent=false))]
    fn new(
        py: Python<'_>,
        model: PyRef<'_, MjModel>,
        nsim: usize,
        nthread: usize,
        persistent: bool,
    ) -> PyResult<Self> {
        let m = model.model.clone();
        let b = py
            .detach(move || Batch::new(m, nsim, nthread, persistent))
            .map_err(err)?;
        Ok(PyBatch {
            b,
            warning: vec![0; nsim * NWARNING * 2],
            status: vec![0; nsim],
            outputs: BTreeMap::new(),
            int_outputs: BTreeMap::new(),
            expanded: BTreeMap::new(),
            consts: false,
            caller: false,
            source: model.source.clone(),
        })
    }

    #[getter]
    fn nsim(&self) -> usize {
        self.b.nsim()
    }

    #[getter]
    fn nthread(&self) -> usize {
        self.b.nthread()
    }

    #[getter]
    fn nstate(&self) -> usize {
        self.b.nstate()
    }

    #[getter]
    fn persistent(&self) -> bool {
        self.b.persistent()
    }

    /// The rows, a writeable `(nsim, nstate)` view.
    fn state<'py>(slf: &Bound<'py, Self>) -> Bound<'py, PyAny> {
        let me = slf.borrow();
        let s = me.b.state();
        // SAFETY: the rows are allocated once by Batch::new and never reallocated.
        unsafe { view_raw(slf.as_any(), s.as_ptr(), &[me.b.nsim(), me.b.nstate()]) }
    }

    /// The warning counters, `(nsim, 7, 2)` int32 (lastinfo, number).
    fn warning<'py>(slf: &Bound<'py, Self>) -> Bound<'py, PyAny> {
        let me = slf.borrow();
        // SAFETY: allocated once in new().
        unsafe {
            view_raw(
                slf.as_any(),
                me.warning.as_ptr(),
                &[me.b.nsim(), NWARNING, 2],
            )
        }
    }

    /// Per-simulation status of the last call, `(nsim,)` int32: 0 when it ran, 1 when it
    /// failed (`error` says why).
    fn status<'py>(slf: &Bound<'py, Self>) -> Bound<'py, PyAny> {
        let me = slf.borrow();
        // SAFETY: allocated once in new().
        unsafe { view_raw(slf.as_any(), me.status.as_ptr(), &[me.b.nsim()]) }
    }

    /// Message of simulation `sim`'s error in its last call (MuJoCo's text), or "": a reset's
    /// stack overflow; moreau's step raises none.
    fn error(&self, sim: usize) -> PyResult<String> {
        self.check_sim(sim)?;
        Ok(self.b.error(sim).unwrap_or_default().to_string())
    }

    /// `(offset, size)` of one state component in a row.
    fn state_component(&self, bit: u32) -> PyResult<(usize, usize)> {
        self.b.component(bit).map_err(err)
    }

    /// The flat `(nsim, len)` buffer of derived field `name`, registered to be copied out
    /// after every call; `None` for a field the batch does not copy.
    fn output<'py>(slf: &Bound<'py, Self>, name: &str) -> Option<Bound<'py, PyAny>> {
        let mut me = slf.borrow_mut();
        if !OUTPUTS.contains(&name) {
            return None;
        }
        let nsim = me.b.nsim();
        if INT_OUTPUTS.contains(&name) {
            if !me.int_outputs.contains_key(name) {
                let d = Data::new(me.b.model());
                let len = field_len(me.b.model(), &d, name)?;
                me.int_outputs.insert(name.to_string(), vec![0; nsim * len]);
            }
            let buf = &me.int_outputs[name];
            let len = buf.len() / nsim.max(1);
            // SAFETY: as below.
            return Some(unsafe { view_raw(slf.as_any(), buf.as_ptr(), &[nsim, len]) });
        }
        if !me.outputs.contains_key(name) {
            let d = Data::new(me.b.model());
            let len = field_len(me.b.model(), &d, name)?;
            me.outputs.insert(name.to_string(), vec![0.0; nsim * len]);
        }
        let buf = &me.outputs[name];
        let len = buf.len() / nsim.max(1);
        // SAFETY: the buffer is allocated once here and never resized or removed.
        Some(unsafe { view_raw(slf.as_any(), buf.as_ptr(), &[nsim, len]) })
    }

    /// Per-simulation values of model field `name` (`(nsim, len)`, writeable, in MuJoCo's
    /// dtype: float64, int32 or uint8); `None` for a field the batch does not expand.
    /// `FatalError` while the simulations run on caller models (`set_models`), as MuJoCo's.
    fn expand<'py>(slf: &Bound<'py, Self>, name: &str) -> PyResult<Option<Bound<'py, PyAny>>> {
        let mut me = slf.borrow_mut();
        if me.caller {
            return Err(FatalError::new_err(
                "mjb_expand: the batch runs on caller models",
            ));
        }
        if !me.expanded.contains_key(name) {
            let Some(f) = me.expand_values(slf.py(), name)? else {
                return Ok(None);
            };
            me.expanded.insert(name.to_string(), f);
        }
        let nsim = me.b.nsim();
        // SAFETY: as output(): allocated once here, never resized or removed.
        Ok(Some(unsafe {
            view_values(slf.as_any(), &me.expanded[name].vals, nsim)
        }))
    }

    /// The expanded values of `name` (a view), after `set_const` the per-simulation values of
    /// a field that is not expanded (a read-only copy), or `None`.
    fn expanded<'py>(slf: &Bound<'py, Self>, name: &str) -> Option<Bound<'py, PyAny>> {
        let me = slf.borrow();
        let nsim = me.b.nsim();
        let Some(f) = me.expanded.get(name) else {
            // the constants set_const derived per simulation: a read-only copy
            if !me.consts {
                return None;
            }
            let mut vals = values(me.b.model(), name)?.empty_like();
            for sim in 0..nsim {
                vals.extend(&values(me.b.model_of(sim), name)?);
            }
            let len = vals.len() / nsim.max(1);
            let py = slf.py();
            return Some(match vals {
                Values::F64(v) => crate::arrays::copy(py, v, &[nsim, len]),
                Values::F32(v) => crate::arrays::copy(py, v, &[nsim, len]),
                Values::I32(v) => crate::arrays::copy(py, v, &[nsim, len]),
                Values::U8(v) => crate::arrays::copy(py, v, &[nsim, len]),
            });
        };
        // SAFETY: as output().
        Some(unsafe { view_values(slf.as_any(), &f.vals, nsim) })
    }

    /// Names of the model fields whose values a simulation runs on (every one `expand`
    /// accepts but the structural ones).
    #[staticmethod]
    fn value_fields() -> Vec<&'static str> {
        crate::batch_fields::value_fields().collect()
    }

    /// Names of the model fields `expand` accepts.
    #[staticmethod]
    fn model_fields() -> Vec<&'static str> {
        crate::batch_fields::value_fields()
            .chain(STRUCTURAL.iter().copied())
            .collect()
    }

    /// Names of the derived fields `output` accepts.
    #[staticmethod]
    fn output_fields() -> Vec<&'static str> {
        OUTPUTS.to_vec()
    }

    /// `nstep` steps of each simulation of `ids`, then the stages up to `stage`.
    #[pyo3(signature = (ids, nstep, stage))]
    fn step(
        &mut self,
        py: Python<'_>,
        ids: Option<PyReadonlyArrayDyn<'_, i32>>,
        nstep: usize,
        stage: i32,
    ) -> PyResult<usize> {
        let ids = self.ids(ids)?;
        self.call(py, ids, move |_, m, d| {
            for _ in 0..nstep {
                moreau::step(m, d);
            }
            Self::stages(m, d, stage);
            Ok(())
        })
    }

    /// The stages up to `stage` at each simulation's state.
    #[pyo3(signature = (ids, stage))]
    fn forward(
        &mut self,
        py: Python<'_>,
        ids: Option<PyReadonlyArrayDyn<'_, i32>>,
        stage: i32,
    ) -> PyResult<usize> {
        let ids = self.ids(ids)?;
        self.call(py, ids, move |_, m, d| {
            Self::stages(m, d, stage);
            Ok(())
        })
    }

    /// `nstep` substeps of each simulation of `ids`, recording after each (`mujoco.batch`'s
    /// `Batch.rollout`): before substep `t` the components `control_spec` (bits within
    /// `mjSTATE_USER`) of the `k`-th simulation's state are set from `control[k, t]`
    /// (`(n, nstep, mj_stateSize(control_spec))`, or `None` to leave the inputs as they are).
    /// `records` are `(field, 0, buffer)` for a `Data` field (state fields and the derived
    /// fields `output` accepts, with `MjData`'s dtype: float64, int32 counts and ids, bool
    /// `eq_active`) or `(None, spec, buffer)` for state vectors (float64), each buffer a
    /// writable C-contiguous `(n, nstep, ...)` array written in place. A simulation whose
    /// warning counters rise stops stepping and its remaining records repeat its last ones.
    /// Returns the number of failed simulations.
    #[pyo3(signature = (ids, nstep, control, control_spec, records))]
    fn rollout<'py>(
        &mut self,
        py: Python<'py>,
        ids: Option<PyReadonlyArrayDyn<'py, i32>>,
        nstep: usize,
        control: Option<PyReadonlyArrayDyn<'py, f64>>,
        control_spec: u32,
        records: Vec<Bound<'py, PyAny>>,
    ) -> PyResult<usize> {
        if nstep == 0 {
            return Err(err("nstep must be positive".into()));
        }
        let ids = self.ids(ids)?;
        let n = ids.as_ref().map_or(self.b.nsim(), |i| i.len());
        let m = self.b.model();
        let size = |spec: u32| {
            moreau::state_size(m, spec).map_err(|_| err(format!("invalid state spec {spec}")))
        };
        // the spec matters only with controls, as in MuJoCo's batch
        if control.is_some() && control_spec & !state_bits::USER != 0 {
            return Err(err("control_spec must be a subset of mjSTATE_USER".into()));
        }
        let ncontrol = size(control_spec)?;
        if let Some(c) = &control {
            expect_shape("control", c.shape(), &[n, nstep, ncontrol])?;
        }
        let control = match &control {
            Some(c) => Some(c.as_slice()?),
            None => None,
        };
        let d0 = Data::new(m);
        let mut sources = Vec::with_capacity(records.len());
        let mut bufs = Vec::with_capacity(records.len());
        for rec in &records {
            let (field, spec, buf) = rec
                .extract::<(Option<String>, i64, Bound<'py, PyAny>)>()
                .map_err(|_| err("a record is (field, spec, buffer)".into()))?;
            let (src, len, what) = match &field {
                None => {
                    let spec = u32::try_from(spec)
                        .ok()
                        .filter(|&s| s & !state_bits::INTEGRATION == 0)
                        .ok_or_else(|| err(format!("invalid state spec {spec}")))?;
                    (
                        Source::State(spec),
                        size(spec)?,
                        format!("state spec {spec}"),
                    )
                }
                Some(name) => {
                    let src = match STATE_FIELDS.iter().find(|(f, _)| f == name) {
                        Some(&(_, state_bits::EQ_ACTIVE)) => Source::EqActive,
                        Some(&(_, bit)) => Source::State(bit),
                        None => match OUTPUTS.iter().find(|&&f| f == name) {
                            Some(&f) => Source::Field(f),
                            None => return Err(err(format!("unknown field {name}"))),
                        },
                    };
                    let len = match src {
                        Source::State(bit) => size(bit)?,
                        Source::EqActive => m.neq,
                        Source::Field(f) => field_len(m, &d0, f)
                            .ok_or_else(|| err(format!("unknown field {name}")))?,
                    };
                    (src, len, format!("{name:?}").replace('"', "'"))
                }
            };
            let arr = buf
                .cast::<numpy::PyUntypedArray>()
                .map_err(|_| err("record buffers must be arrays".into()))?;
            let (want, kind) = match src {
                Source::EqActive => ("bool", 2),
                Source::Field(f) if INT_OUTPUTS.contains(&f) => ("int32", 1),
                _ => ("float64", 0),
            };
            let dtype = arr.dtype();
            let native = dtype.is_native_byteorder() != Some(false);
            let dtype_ok = native
                && match kind {
                    0 => dtype.is_equiv_to(&numpy::dtype::<f64>(py)),
                    1 => dtype.is_equiv_to(&numpy::dtype::<i32>(py)),
                    _ => dtype.is_equiv_to(&numpy::dtype::<bool>(py)),
                };
            let shape = arr.shape();
            if !dtype_ok
                || shape.len() < 2
                || shape[0] != n
                || shape[1] != nstep
                || shape.iter().product::<usize>() != n * nstep * len
            {
                return Err(err(format!(
                    "the record buffer for {what} must hold {n} x {nstep} x {len} {want}, got {} {}",
                    py_shape(shape),
                    dtype
                )));
            }
            let writeable = buf
                .getattr("flags")
                .and_then(|f| f.getattr("writeable"))
                .and_then(|w| w.extract::<bool>())
                .unwrap_or(false);
            if !arr.is_c_contiguous() || !writeable {
                return Err(err(
                    "record buffers must be writable and C-contiguous".into()
                ));
            }
            let borrowed = |e| err(format!("the record buffer for {what} is in use: {e}"));
            let rb = match kind {
                0 => RecordBuf::Float(buf.extract().map_err(borrowed)?),
                1 => RecordBuf::Int(buf.extract().map_err(borrowed)?),
                _ => RecordBuf::Bool(buf.extract().map_err(borrowed)?),
            };
            sources.push((src, len));
            bufs.push(rb);
        }
        // each simulation's position in the call and its pieces of every record buffer
        let mut extra: Vec<(usize, Vec<Piece<'_>>)> = (0..n)
            .map(|k| (k, Vec::with_capacity(bufs.len())))
            .collect();
        for (rb, &(_, len)) in bufs.iter_mut().zip(&sources) {
            for (e, piece) in extra.iter_mut().zip(rb.pieces(n, nstep * len)?) {
                e.1.push(piece);
            }
        }
        let sources = &sources;
        self.call_each(py, ids, extra, move |_, m, d, (k, mut pieces)| {
            for t in 0..nstep {
                if let Some(c) = control {
                    let at = (k * nstep + t) * ncontrol;
                    moreau::set_state(m, d, &c[at..at + ncontrol], control_spec)
                        .map_err(|e| format!("{e:?}"))?;
                }
                let before = d.warning.map(|w| w.number);
                moreau::step(m, d);
                for (&(src, len), piece) in sources.iter().zip(pieces.iter_mut()) {
                    record(m, d, src, len, piece, t);
                }
                if d.warning.iter().zip(before).any(|(w, b)| w.number > b) {
                    for (&(_, len), piece) in sources.iter().zip(pieces.iter_mut()) {
                        repeat_last(piece, len, t);
                    }
                    break;
                }
            }
            Ok(())
        })
    }

    /// `mj_resetData` (or a keyframe per simulation), then the stages up to `stage`.
    #[pyo3(signature = (ids, keyframe, stage))]
    fn reset(
        &mut self,
        py: Python<'_>,
        ids: Option<PyReadonlyArrayDyn<'_, i32>>,
        keyframe: Option<PyReadonlyArrayDyn<'_, i32>>,
        stage: i32,
    ) -> PyResult<usize> {
        let ids = self.ids(ids)?;
        let keys: Option<Vec<i32>> = match keyframe {
            Some(k) => Some(k.as_slice()?.to_vec()),
            None => None,
        };
        let sims: Vec<usize> = ids.clone().unwrap_or_else(|| (0..self.b.nsim()).collect());
        if keys.as_ref().is_some_and(|k| k.len() != sims.len()) {
            return Err(err("one keyframe per simulation of the call".into()));
        }
        let mut key_of = vec![-1; self.b.nsim()];
        if let Some(k) = &keys {
            for (&s, &kf) in sims.iter().zip(k) {
                key_of[s] = kf;
            }
        }
        // each simulation's keyframe against its own model's (caller models may differ)
        for (sim, &k) in key_of.iter().enumerate() {
            let nkey = self.b.model_of(sim).nkey;
            if k < -1 || (k >= 0 && k as usize >= nkey) {
                return Err(err(format!(
                    "keyframe must be in [-1, {nkey}) for simulation {sim}, got {k}"
                )));
            }
        }
        self.call(py, ids, move |sim, m, d| {
            match usize::try_from(key_of[sim]) {
                // checked above
                Ok(k) => {
                    let _ = d.reset_keyframe(m, k);
                }
                Err(_) => d.reset(m),
            }
            // the reset's pass over `sleep="init"` trees overflowed: MuJoCo's fatal error
            if let Some(e) = d.stack_overflow {
                return Err(e.to_string());
            }
            Self::stages(m, d, stage);
            Ok(())
        })
    }

    /// Translational and rotational Jacobians (`mj_jac`) of world point `point[k]` on body
    /// `body[k]` for the `k`-th simulation of the call, from its state after `mj_kinematics`
    /// and `mj_comPos`, into `jacp[k]`, `jacr[k]` (`3 × nv` each); on the batch's threads,
    /// the rows and bound fields untouched.
    #[pyo3(signature = (ids, body, point, jacp, jacr))]
    fn jac(
        &mut self,
        py: Python<'_>,
        ids: Option<PyReadonlyArrayDyn<'_, i32>>,
        body: PyReadonlyArrayDyn<'_, i32>,
        point: PyReadonlyArrayDyn<'_, f64>,
        mut jacp: Option<PyReadwriteArrayDyn<'_, f64>>,
        mut jacr: Option<PyReadwriteArrayDyn<'_, f64>>,
    ) -> PyResult<usize> {
        let ids = self.ids(ids)?;
        let n = ids.as_ref().map_or(self.b.nsim(), |i| i.len());
        let (nv, nbody) = (self.b.model().nv, self.b.model().nbody);
        expect_shape("body", body.shape(), &[n])?;
        expect_shape("point", point.shape(), &[n, 3])?;
        for (name, a) in [("jacp", &jacp), ("jacr", &jacr)] {
            if let Some(a) = a {
                expect_shape(name, a.shape(), &[n, 3, nv])?;
            }
        }
        let (body, point) = (body.as_slice()?, point.as_slice()?);
        let jp = match jacp.as_mut() {
            Some(a) => Some(a.as_slice_mut()?),
            None => None,
        };
        let jr = match jacr.as_mut() {
            Some(a) => Some(a.as_slice_mut()?),
            None => None,
        };
        if let Some(&b) = body.iter().find(|&&b| b < 0 || b as usize >= nbody) {
            return Err(err(format!("body must be in [0, {nbody}), got {b}")));
        }
        // each simulation's pieces of jacp and jacr (`3 × nv` each), where given
        fn pieces(a: Option<&mut [f64]>, n: usize, per: usize) -> Vec<Option<&mut [f64]>> {
            match a {
                Some(a) if per > 0 => a.chunks_mut(per).map(Some).collect(),
                Some(_) => (0..n).map(|_| Some(<&mut [f64]>::default())).collect(),
                None => (0..n).map(|_| None).collect(),
            }
        }
        let outs: Vec<_> = pieces(jp, n, 3 * nv)
            .into_iter()
            .zip(pieces(jr, n, 3 * nv))
            .collect();
        self.evaluate(py, ids, outs, |k, m, d, (op, or)| {
            moreau::pipeline::kinematics(m, d);
            moreau::pipeline::com_pos(m, d);
            let p = Vector3::new(point[3 * k], point[3 * k + 1], point[3 * k + 2]);
            moreau::jac(m, d, &p, body[k] as usize, op, or);
        })?;
        Ok(0)
    }

    /// `mj_ray` for each of the `nray` rays of each simulation of the call, from its state
    /// after `mj_kinematics`: `pnt`, `vec` `(n, nray, 3)`, `exclude` `(n, nray)` (-1: none);
    /// writes `dist`, `geomid` `(n, nray)` and, if given, `normals` `(n, nray, 3)` (zero for a
    /// miss). On the batch's threads, the rows and bound fields untouched.
    #[pyo3(signature = (ids, pnt, vec, geomgroup, flg_static, exclude, dist, geomid, normals))]
    #[allow(clippy::too_many_arguments)]
    fn ray(
        &mut self,
        py: Python<'_>,
        ids: Option<PyReadonlyArrayDyn<'_, i32>>,
        pnt: PyReadonlyArrayDyn<'_, f64>,
        vec: PyReadonlyArrayDyn<'_, f64>,
        geomgroup: Option<&Bound<'_, PyAny>>,
        flg_static: bool,
        exclude: PyReadonlyArrayDyn<'_, i32>,
        mut dist: PyReadwriteArrayDyn<'_, f64>,
        mut geomid: PyReadwriteArrayDyn<'_, i32>,
        mut normals: Option<PyReadwriteArrayDyn<'_, f64>>,
    ) -> PyResult<usize> {
        let ids = self.ids(ids)?;
        let n = ids.as_ref().map_or(self.b.nsim(), |i| i.len());
        let nbody = self.b.model().nbody;
        let gg = crate::functions::geomgroup(geomgroup)?;
        let (pnt, vec, exclude) = (pnt.as_slice()?, vec.as_slice()?, exclude.as_slice()?);
        let (dist, geomid) = (dist.as_slice_mut()?, geomid.as_slice_mut()?);
        let nray = dist.len().checked_div(n).unwrap_or(0);
        let normals = match normals.as_mut() {
            Some(a) => Some(a.as_slice_mut()?),
            None => None,
        };
        if dist.len() != n * nray
            || geomid.len() != n * nray
            || pnt.len() != 3 * n * nray
            || vec.len() != 3 * n * nray
            || exclude.len() != n * nray
            || normals.as_ref().is_some_and(|a| a.len() != 3 * n * nray)
        {
            return Err(err(format!(
                "ray: pnt, vec (and normals) (n, nray, 3), exclude, dist, geomid (n, nray) for \
                 n = {n}"
            )));
        }
        if let Some(&b) = exclude.iter().find(|&&b| b < -1 || b >= nbody as i32) {
            return Err(err(format!(
                "bodyexclude must be in [-1, {nbody}), got {b}"
            )));
        }
        // each simulation's pieces of dist, geomid and normals
        let mut outs: Vec<RayOut<'_>> = Vec::with_capacity(n);
        if nray > 0 {
            let mut nm = normals.map(|a| a.chunks_mut(3 * nray));
            for (dist, geomid) in dist.chunks_mut(nray).zip(geomid.chunks_mut(nray)) {
                let normal = nm.as_mut().and_then(|c| c.next());
                outs.push((dist, geomid, normal));
            }
        } else {
            outs.resize_with(n, || (&mut [], &mut [], None));
        }
        self.evaluate(py, ids, outs, |k, m, d, (dist, geomid, mut normal)| {
            moreau::pipeline::kinematics(m, d);
            for r in 0..nray {
                let at = 3 * (k * nray + r);
                let pv = Vector3::new(pnt[at], pnt[at + 1], pnt[at + 2]);
                let vv = Vector3::new(vec[at], vec[at + 1], vec[at + 2]);
                let excl = usize::try_from(exclude[k * nray + r]).ok();
                let (x, g) = moreau::ray(m, d, &pv, &vv, gg, flg_static, excl);
                dist[r] = x;
                geomid[r] = g.map_or(-1, |g| g as i32);
                if let Some(nm) = normal.as_deref_mut() {
                    let nrm = match g {
                        Some(g) => crate::functions::ray_normal(m, d, g, &pv, &vv),
                        None => [0.0; 3],
                    };
                    nm[3 * r..3 * r + 3].copy_from_slice(&nrm);
                }
            }
        })?;
        Ok(0)
    }

    /// Runs simulation `i` on `models[i]`, or every simulation on the batch's model (`None`).
    /// `ValueError` for a sequence of another length than nsim; `FatalError` (MuJoCo's) when
    /// fields are expanded or `set_const` made constants per simulation, or for a model that
    /// gives `MjData` another layout.
    fn set_models(&mut self, models: Option<&Bound<'_, PyAny>>) -> PyResult<()> {
        let nsim = self.b.nsim();
        let list = match models {
            None => None,
            Some(ms) => {
                let single = ms.is_instance_of::<MjModel>();
                let refs = models_of(ms)?;
                if !single && refs.len() != nsim {
                    return Err(err(format!(
                        "set_models needs a model per simulation, got {} for {nsim}",
                        refs.len()
                    )));
                }
                if !self.expanded.is_empty() || self.consts {
                    return Err(FatalError::new_err(
                        "mjb_setModels: the batch has per-simulation model fields",
                    ));
                }
                let base = self.b.model();
                if let Some(i) = refs
                    .iter()
                    .position(|m| !moreau_optim::batch::same_layout(&m.model, base))
                {
                    return Err(FatalError::new_err(format!(
                        "mjb_setModels: model {i} does not give mjData the batch model's layout"
                    )));
                }
                Some(if single {
                    vec![refs[0].model.clone(); nsim]
                } else {
                    refs.iter().map(|m| m.model.clone()).collect()
                })
            }
        };
        self.caller = list.is_some();
        self.b.set_models(list).map_err(err)
    }

    /// `mj_setConst` per simulation of `ids` (with the subtree masses), so that the constants
    /// derived from expanded fields follow them. A simulation whose model `mj_setConst`
    /// refuses gets status 1 and MuJoCo's text in `error`; returns how many failed.
    /// `FatalError` while the simulations run on caller models.
    #[pyo3(signature = (ids))]
    fn set_const(
        &mut self,
        py: Python<'_>,
        ids: Option<PyReadonlyArrayDyn<'_, i32>>,
    ) -> PyResult<usize> {
        if self.caller {
            return Err(FatalError::new_err(
                "mjb_setConst: the batch runs on caller models",
            ));
        }
        let ids = self.ids(ids)?;
        self.b.positions(ids.as_deref()).map_err(err)?;
        self.push_checked(ids.as_deref())?;
        let b = &mut self.b;
        py.detach(|| b.set_const(ids.as_deref())).map_err(err)?;
        self.pull_expanded();
        self.consts = true;
        let sims: Vec<usize> = ids.unwrap_or_else(|| (0..self.b.nsim()).collect());
        for &sim in &sims {
            self.status[sim] = i32::from(self.b.error(sim).is_some());
        }
        Ok(sims.iter().filter(|&&sim| self.status[sim] != 0).count())
    }

    /// Simulation `sim`'s model (with its per-simulation fields): written into `model` if
    /// given (it must have the same sizes), else a new `MjModel`.
    #[pyo3(signature = (sim, model=None))]
    fn get_model(
        &mut self,
        py: Python<'_>,
        sim: usize,
        model: Option<Bound<'_, MjModel>>,
    ) -> PyResult<Py<MjModel>> {
        self.check_sim(sim)?;
        self.push_checked(Some(&[sim]))?;
        let m = self.b.model_of(sim).clone();
        match model {
            Some(dst) => {
                crate::model::assign_model(&mut dst.borrow_mut().model, m)?;
                Ok(dst.unbind())
            }
            None => Py::new(
                py,
                MjModel {
                    source: self.source.clone(),
                    ..MjModel::new(m)
                },
            ),
        }
    }

    /// Writes simulation `sim`'s state into `data` (in a persistent batch, its whole `Data`).
    fn get_data(&mut self, sim: usize, mut data: PyRefMut<'_, MjData>) -> PyResult<()> {
        self.check_sim(sim)?;
        let m = self.b.model_of(sim);
        data.check_model(m)?;
        if let Some(slot) = self.b.data(sim) {
            data.data.clone_from(&slot.data);
        }
        let row = self.b.row(sim).to_vec();
        moreau::set_state(m, &mut data.data, &row, moreau::state_bits::INTEGRATION)
            .map_err(|e| err(format!("{e:?}")))?;
        data.sync_out();
        Ok(())
    }
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<PyRollout>()?;
    m.add_class::<PyBatch>()?;
    // islands whose solver statistics `MjData` keeps (`solver_niter`, `solver_nnz`, `solver`)
    m.add("mjNISLAND", moreau::data::NISLAND)?;
    Ok(())
}
