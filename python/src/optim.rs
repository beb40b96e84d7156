//! `moreau.optim`: the optimizers of the `moreau-optim` crate with their options, progress and
//! results as Python objects.
//!
//! - [`contact_trajopt`]: direct collocation through contact on the project's problems (the
//!   hopper hop, the ball and box pushes): the README's main job;
//! - [`ilqr`] and [`Mpc`]: iterative LQR on the engine's step and its receding-horizon
//!   controller (control limits, FD or analytic linearization);
//! - [`PredictiveSampling`]: the sampling MPC baseline (parallel rollouts);
//! - [`identify`] / [`record`] / [`Recording`]: system identification by least squares on
//!   inverse dynamics.
//!
//! Every solve runs without the GIL; `callback(info: dict)` is called (with the GIL) after each
//! iteration where there is one, and stops the solve by raising.

use crate::arrays::{copy, input};
use crate::data::MjData;
use crate::model::{resolve, MjModel, OBJ_BODY};
use moreau::Model;
use moreau_optim::argmin::core::observers::{Observe, ObserverMode};
use moreau_optim::argmin::core::{Error as ArgminError, State, KV};
use moreau_optim::ilqr::{IlqrOptions, QuadraticCost};
use moreau_optim::mpc::{ctrl_bounds, IlqrMpc, MpcOptions};
use moreau_optim::system::MoreauSystem;
use nalgebra::{DMatrix, DVector};
use pyo3::exceptions::{PyRuntimeError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyDict;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

/// Rows of equal length as a read-only `(len, width)` array.
fn rows(py: Python<'_>, v: &[Vec<f64>], width: usize) -> Py<PyAny> {
    let flat: Vec<f64> = v.iter().flatten().copied().collect();
    copy(py, flat, &[v.len(), width]).unbind()
}

fn dvecs(py: Python<'_>, v: &[DVector<f64>], width: usize) -> Py<PyAny> {
    let flat: Vec<f64> = v.iter().flat_map(|x| x.iter().copied()).collect();
    copy(py, flat, &[v.len(), width]).unbind()
}

/// A Python callback shared with the solver thread; the first exception it raises is kept.
#[derive(Clone)]
struct Callback {
    f: Option<Arc<Py<PyAny>>>,
    err: Arc<Mutex<Option<PyErr>>>,
}

impl Callback {
    fn new(f: Option<Bound<'_, PyAny>>) -> Self {
        Callback {
            f: f.filter(|f| !f.is_none()).map(|f| Arc::new(f.unbind())),
            err: Arc::new(Mutex::new(None)),
        }
    }

    /// Calls `f(info)`; false when it raised (the error is kept for [`Callback::raise`]).
    fn call(&self, info: &[(&str, f64)]) -> bool {
        let Some(f) = &self.f else { return true };
        Python::attach(|py| {
            let d = PyDict::new(py);
            for (k, v) in info {
                if d.set_item(*k, *v).is_err() {
                    return false;
                }
            }
            match f.call1(py, (d,)) {
                Ok(_) => true,
                Err(e) => {
                    if let Ok(mut slot) = self.err.lock() {
                        slot.get_or_insert(e);
                    }
                    false
                }
            }
        })
    }

    /// The callback's exception, if it raised.
    fn raise(&self) -> PyResult<()> {
        match self.err.lock().ok().and_then(|mut e| e.take()) {
            Some(e) => Err(e),
            None => Ok(()),
        }
    }
}

impl<I: State> Observe<I> for Callback {
    fn observe_iter(&mut self, state: &I, kv: &KV) -> Result<(), ArgminError> {
        let get = |k: &str| kv.get(k).and_then(|v| v.get_float()).unwrap_or(f64::NAN);
        let info = [
            ("iteration", state.get_iter() as f64),
            ("cost", get("cost")),
            ("defect", get("defect")),
        ];
        if self.call(&info) {
            Ok(())
        } else {
            Err(ArgminError::msg("stopped by the callback"))
        }
    }
}

/// The result of [`contact_trajopt`].
#[pyclass(module = "moreau.optim", name = "CollocationResult", get_all)]
pub struct CollocationResult {
    /// The problem's name.
    problem: String,
    /// The planned configurations `q_0 … q_T`, `(T+1, nq)`.
    qpos: Py<PyAny>,
    /// Velocities `(T+1, nv)`.
    qvel: Py<PyAny>,
    /// Accelerations `(T, nv)`.
    qacc: Py<PyAny>,
    /// Controls `(T, nu)`.
    ctrl: Py<PyAny>,
    /// Generalized forces from inverse dynamics `(T, nv)`.
    qfrc: Py<PyAny>,
    /// The engine re-simulating the plan open loop under `ctrl`: configurations `(T+1, nq)`.
    replay_qpos: Py<PyAny>,
    /// Largest difference between the open-loop replay and the plan.
    replay_error: f64,
    /// Task + control cost at the solution.
    cost: f64,
    /// Largest unactuated force residual (N) at the solution.
    max_defect: f64,
    iterations: u64,
    converged: bool,
    cost_history: Vec<f64>,
    defect_history: Vec<f64>,
    /// argmin's termination status.
    termination: String,
    /// Knot time step.
    timestep: f64,
    /// Name of the inverse-dynamics Jacobian provider.
    jacobians: String,
}

#[pymethods]
impl CollocationResult {
    fn __repr__(&self) -> String {
        format!(
            "<CollocationResult {} cost={:.6} max_defect={:.1e} iterations={} converged={}>",
            self.problem, self.cost, self.max_defect, self.iterations, self.converged
        )
    }
}

/// The plan of a solved collocation, as plain data (computed without the GIL).
struct Solved {
    name: String,
    jac: String,
    qpos: Vec<Vec<f64>>,
    qvel: Vec<Vec<f64>>,
    qacc: Vec<Vec<f64>>,
    ctrl: Vec<Vec<f64>>,
    qfrc: Vec<Vec<f64>>,
    replay: Vec<Vec<f64>>,
    replay_error: f64,
    res: moreau_optim::lm::CollocationResult,
    dims: (usize, usize, usize),
    timestep: f64,
}

/// Direct collocation through contact on one of the project's problems (the `moreau-problems`
/// crate, as `cargo run -p moreau-optim --example contact_trajopt`): `"hopper"` (a planar
/// hopper hopping `distance` = 0.15 m forward, models/hopper_hop.xml), `"ball"` (a finger
/// pushing a ball 0.2 m, models/ball_push.xml) or `"box"` (a finger pushing a box 0.2 m,
/// models/box_push.xml), over `horizon` knots, solved by Gauss–Newton/Levenberg–Marquardt.
/// `jacobians`: `"analytic"` (inverse-dynamics Jacobians through the soft contact forces),
/// `"fd"` or `"jumpsafe"` (finite differences). `progress=True` shows a progress bar on stderr;
/// `callback(info)` gets `{"iteration", "cost", "defect"}` after each iteration. The knots'
/// Jacobians run on `threads` threads (None: `set_threads`'s choice) where the provider
/// computes them per thread; the result does not depend on it. `warm_ilqr` > 0 starts the
/// collocation from iLQR's solution through the engine's step (at most that many iterations)
/// instead of the problem's guess (the hopper converges from it, it stalls from its guess).
/// Returns a `CollocationResult` (plan, controls, the engine's open-loop replay, histories).
#[pyfunction]
#[pyo3(signature = (problem="hopper", horizon=60, distance=None, max_iters=300, jacobians="analytic", defect_tol=None, progress=false, callback=None, threads=None, warm_ilqr=0))]
#[allow(clippy::too_many_arguments)]
pub fn contact_trajopt(
    py: Python<'_>,
    problem: &str,
    horizon: usize,
    distance: Option<f64>,
    max_iters: u64,
    jacobians: &str,
    defect_tol: Option<f64>,
    progress: bool,
    callback: Option<Bound<'_, PyAny>>,
    threads: Option<usize>,
    warm_ilqr: usize,
) -> PyResult<CollocationResult> {
    use moreau_optim::collocation::{Analytic, InverseJacobian};
    use moreau_optim::lm::{solve_lm, LevenbergMarquardt};
    use moreau_problems as pr;
    if !["hopper", "ball", "box"].contains(&problem) {
        return Err(PyValueError::new_err(format!(
            "unknown problem '{problem}' (hopper, ball or box)"
        )));
    }
    if !["analytic", "fd", "jumpsafe"].contains(&jacobians) {
        return Err(PyValueError::new_err(format!(
            "jacobians must be 'analytic', 'fd' or 'jumpsafe', got '{jacobians}'"
        )));
    }
    let cb = Callback::new(callback);
    let (problem, jacobians) = (problem.to_string(), jacobians.to_string());
    let cb2 = cb.clone();
    let solved: Result<Solved, String> = py.detach(move || {
        let provider = || -> Box<dyn InverseJacobian> {
            match jacobians.as_str() {
                "fd" => pr::contact_provider(),
                "jumpsafe" => Box::new(pr::JumpSafeDifference::default()),
                _ => Box::new(Analytic::new()),
            }
        };
        let mut p = match problem.as_str() {
            "ball" => {
                let p = pr::ball_push(horizon, distance.unwrap_or(0.2))?;
                p.collocation.set_jacobian_provider(provider());
                p
            }
            "hopper" => pr::hopper_hop(horizon, distance.unwrap_or(0.15), provider())?,
            _ => pr::box_push(horizon, distance.unwrap_or(0.2), provider())?,
        };
        p.collocation
            .set_threads(threads.unwrap_or_else(default_threads))?;
        if warm_ilqr > 0 {
            p.warm_start_ilqr(warm_ilqr)?;
        }
        let jac = p.collocation.provider_name();
        let mut lm = LevenbergMarquardt::default();
        lm.max_al_updates = max_iters as usize;
        lm.defect_tol = defect_tol.unwrap_or(p.defect_tol);
        lm.penalty_growth = p.penalty_growth;
        let bar = progress.then(|| moreau_optim::progress::bar(max_iters, p.name));
        let (c, res) = solve_lm(p.collocation, p.z0, lm, max_iters, |mut e| {
            if let Some(b) = &bar {
                e = e.add_observer(
                    moreau_optim::progress::ProgressObserver { bar: b.clone() },
                    ObserverMode::Always,
                );
            }
            e.add_observer(cb2, ObserverMode::Always)
        })
        .map_err(|e| e.to_string())?;
        let plan: Vec<Vec<f64>> = (0..=c.horizon)
            .map(|t| c.config(&res.z, t).to_vec())
            .collect();
        let (replay, _) = pr::replay_tracking(&c, &plan, &res.eval.v, &res.eval.u, 0.0, 0.0);
        let replay_error = pr::max_diff(&replay, &plan);
        Ok(Solved {
            name: p.name.to_string(),
            jac,
            qacc: res.eval.a.clone(),
            qvel: res.eval.v.clone(),
            ctrl: res.eval.u.clone(),
            qfrc: res.eval.tau.clone(),
            qpos: plan,
            replay,
            replay_error,
            dims: (c.model.nq, c.model.nv, c.model.nu),
            timestep: c.model.opt.timestep,
            res,
        })
    });
    cb.raise()?;
    let s = solved.map_err(PyRuntimeError::new_err)?;
    let (nq, nv, nu) = s.dims;
    Ok(CollocationResult {
        problem: s.name,
        qpos: rows(py, &s.qpos, nq),
        qvel: rows(py, &s.qvel, nv),
        qacc: rows(py, &s.qacc, nv),
        ctrl: rows(py, &s.ctrl, nu),
        qfrc: rows(py, &s.qfrc, nv),
        replay_qpos: rows(py, &s.replay, nq),
        replay_error: s.replay_error,
        cost: s.res.eval.cost(),
        max_defect: s.res.eval.max_defect(),
        iterations: s.res.iterations,
        converged: s.res.converged,
        cost_history: s.res.cost_history,
        defect_history: s.res.defect_history,
        termination: s.res.termination,
        timestep: s.timestep,
        jacobians: s.jac,
    })
}

/// A weight given as a vector (the diagonal) or a square matrix, `n × n`.
fn weight(x: Option<&Bound<'_, PyAny>>, n: usize, what: &str) -> PyResult<DMatrix<f64>> {
    let Some(x) = x.filter(|x| !x.is_none()) else {
        return Ok(DMatrix::zeros(n, n));
    };
    let len = x.len().unwrap_or(0);
    if len == n {
        if let Ok(v) = input(x, n, what) {
            return Ok(DMatrix::from_diagonal(&DVector::from_vec(v)));
        }
    }
    let v = input(x, n * n, what).map_err(|_| {
        PyTypeError::new_err(format!(
            "{what} must have {n} entries (a diagonal) or be {n} × {n}"
        ))
    })?;
    Ok(DMatrix::from_row_slice(n, n, &v))
}

/// Control bounds: None, `"ctrlrange"` (the actuators' limits) or `(lo, hi)`.
fn bounds(m: &Model, b: Option<&Bound<'_, PyAny>>) -> PyResult<Option<(Vec<f64>, Vec<f64>)>> {
    let Some(b) = b.filter(|b| !b.is_none()) else {
        return Ok(None);
    };
    if let Ok(s) = b.extract::<String>() {
        return match s.as_str() {
            "ctrlrange" => Ok(Some(ctrl_bounds(m))),
            _ => Err(PyValueError::new_err(
                "bounds must be None, 'ctrlrange' or (lo, hi)",
            )),
        };
    }
    let (lo, hi): (Bound<'_, PyAny>, Bound<'_, PyAny>) = b
        .extract()
        .map_err(|_| PyTypeError::new_err("bounds must be None, 'ctrlrange' or (lo, hi)"))?;
    Ok(Some((input(&lo, m.nu, "lo")?, input(&hi, m.nu, "hi")?)))
}

/// The system of a model: FD (`mjd_transitionFD`) or analytic transition Jacobians.
fn system(m: &Model, linearization: &str, threads: Option<usize>) -> PyResult<MoreauSystem> {
    let mut s = MoreauSystem::new(m.clone()).map_err(PyValueError::new_err)?;
    s.set_threads(threads.unwrap_or_else(default_threads))
        .map_err(PyRuntimeError::new_err)?;
    match linearization {
        "fd" => Ok(s),
        "analytic" => s.analytic().map_err(PyValueError::new_err),
        o => Err(PyValueError::new_err(format!(
            "linearization must be 'fd' or 'analytic', got '{o}'"
        ))),
    }
}

/// Threads of moreau's own threaded work when a call does not say (`set_threads`; 0: every
/// CPU).
static DEFAULT_THREADS: AtomicUsize = AtomicUsize::new(0);

/// The thread count `set_threads` chose (0: every CPU).
fn default_threads() -> usize {
    DEFAULT_THREADS.load(Ordering::Relaxed)
}

/// Sets the number of threads moreau's optimizers use when not given `threads=`: iLQR's and
/// MPC's per-knot transition Jacobians, predictive sampling's candidate rollouts (0, the
/// default: every CPU; 1: the calling thread). Results do not depend on it, bit for bit.
/// `rollout` and `Batch` take MuJoCo's `nthread` instead.
#[pyfunction]
pub fn set_threads(nthread: usize) {
    DEFAULT_THREADS.store(nthread, Ordering::Relaxed);
}

/// The number of threads moreau's optimizers use when not given `threads=` (`set_threads`;
/// every CPU resolved to its count).
#[pyfunction]
pub fn get_threads() -> usize {
    match default_threads() {
        0 => moreau_derivatives::threads::all_threads(),
        n => n,
    }
}

/// The quadratic cost of iLQR / MPC on the state `x = (qpos, qvel, act)` (tangent weights).
fn cost(
    m: &Model,
    xref: &Bound<'_, PyAny>,
    q: &Bound<'_, PyAny>,
    r: &Bound<'_, PyAny>,
    qf: Option<&Bound<'_, PyAny>>,
) -> PyResult<QuadraticCost> {
    let ndx = 2 * m.nv + m.na;
    Ok(QuadraticCost {
        q: weight(Some(q), ndx, "Q")?,
        r: weight(Some(r), m.nu, "R")?,
        qf: weight(qf, ndx, "Qf")?,
        xref: DVector::from_vec(input(xref, m.nq + m.nv + m.na, "xref")?),
        dt: m.opt.timestep,
    })
}

/// The result of [`ilqr`].
#[pyclass(module = "moreau.optim", name = "IlqrResult", get_all)]
pub struct IlqrResult {
    /// States `(T+1, nq+nv+na)`.
    xs: Py<PyAny>,
    /// Controls `(T, nu)`.
    us: Py<PyAny>,
    /// Feedback gains `(T, nu, 2nv+na)`: `u = u_t + K_t (x ⊖ x_t)`.
    gains: Py<PyAny>,
    /// Cost after each iteration (the first entry: the initial guess).
    cost_history: Vec<f64>,
    /// The final cost.
    cost: f64,
    iterations: usize,
    converged: bool,
    /// Linearizations redone by central differences because they were not finite.
    jacobian_fallbacks: usize,
}

#[pymethods]
impl IlqrResult {
    fn __repr__(&self) -> String {
        format!(
            "<IlqrResult cost={:.6} iterations={} converged={}>",
            self.cost, self.iterations, self.converged
        )
    }
}

/// Iterative LQR on the engine's step from the state `x0 = (qpos, qvel, act)` with the
/// initial controls `us` `(T, nu)`, minimizing `Σ_t dt·[½ e_tᵀ Q e_t + ½ u_tᵀ R u_t] +
/// ½ e_Tᵀ Qf e_T`, `e = x ⊖ xref` in the tangent space (`2nv + na`; weights as vectors for
/// diagonals or matrices). `bounds`: None, `"ctrlrange"` or `(lo, hi)` (control-limited iLQR);
/// `linearization`: `"fd"` (`mjd_transitionFD`) or `"analytic"`, on `threads` threads
/// (None: `set_threads`'s choice; the result does not depend on it). `callback(info)` gets
/// `{"iteration", "cost"}`.
#[pyfunction]
#[pyo3(signature = (m, x0, us, xref, Q, R, Qf=None, max_iter=200, tol=1e-9, bounds=None, linearization="fd", callback=None, threads=None))]
#[allow(clippy::too_many_arguments)]
pub fn ilqr(
    py: Python<'_>,
    m: PyRef<'_, MjModel>,
    x0: &Bound<'_, PyAny>,
    us: &Bound<'_, PyAny>,
    xref: &Bound<'_, PyAny>,
    Q: &Bound<'_, PyAny>,
    R: &Bound<'_, PyAny>,
    Qf: Option<&Bound<'_, PyAny>>,
    max_iter: usize,
    tol: f64,
    bounds: Option<&Bound<'_, PyAny>>,
    linearization: &str,
    callback: Option<Bound<'_, PyAny>>,
    threads: Option<usize>,
) -> PyResult<IlqrResult> {
    let model = &m.model;
    let (nx, ndx, nu) = (
        model.nq + model.nv + model.na,
        2 * model.nv + model.na,
        model.nu,
    );
    let x0 = DVector::from_vec(input(x0, nx, "x0")?);
    let horizon = us.len()?;
    let u = input(us, horizon * nu, "us")?;
    let us: Vec<DVector<f64>> = u
        .chunks(nu.max(1))
        .take(horizon)
        .map(DVector::from_column_slice)
        .collect();
    let c = cost(model, xref, Q, R, Qf)?;
    let opt = IlqrOptions {
        max_iter,
        tol,
        bounds: self::bounds(model, bounds)?,
        ..IlqrOptions::default()
    };
    let mut sys = system(model, linearization, threads)?;
    let cb = Callback::new(callback);
    let cb2 = cb.clone();
    let res = py.detach(move || {
        moreau_optim::ilqr::ilqr(&mut sys, &c, &x0, us, &opt, |k, cost| {
            cb2.call(&[("iteration", k as f64), ("cost", cost)]);
        })
    });
    cb.raise()?;
    let r = res.map_err(PyRuntimeError::new_err)?;
    let gains: Vec<f64> = r
        .gains
        .iter()
        .flat_map(|k| (0..nu).flat_map(move |i| (0..ndx).map(move |j| k[(i, j)])))
        .collect();
    Ok(IlqrResult {
        xs: dvecs(py, &r.xs, nx),
        us: dvecs(py, &r.us, nu),
        gains: copy(py, gains, &[r.gains.len(), nu, ndx]).unbind(),
        cost: r.cost_history.last().copied().unwrap_or(f64::NAN),
        cost_history: r.cost_history,
        iterations: r.iterations,
        converged: r.converged,
        jacobian_fallbacks: r.jacobian_fallbacks,
    })
}

/// Receding-horizon iLQR (`moreau-optim`'s `IlqrMpc`): `step(x)` re-plans from the state
/// `x = (qpos, qvel, act)` over `horizon` steps (warm start: the previous plan shifted) and
/// returns the control to apply. A failed solve falls back to the previous plan (counted in
/// `fallbacks`); `max_consecutive_failures` failures in a row raise.
#[pyclass(module = "moreau.optim", name = "Mpc")]
pub struct Mpc {
    mpc: IlqrMpc,
    sys: MoreauSystem,
    nx: usize,
}

#[pymethods]
impl Mpc {
    /// `Mpc(m, xref, Q, R, Qf=None, horizon=50, iter=2, first_iter=20, bounds="ctrlrange",
    /// linearization="fd", tol=0.0, threads=None)`: weights and bounds as for `ilqr`; `iter`
    /// iLQR iterations per control step (`first_iter` for the first), `tol` an early exit on
    /// the relative cost decrease; the knots' Jacobians on `threads` threads (None:
    /// `set_threads`'s choice, every CPU by default; controls do not depend on it).
    #[new]
    #[pyo3(signature = (m, xref, Q, R, Qf=None, horizon=50, iter=2, first_iter=20, bounds=Some("ctrlrange"), linearization="fd", tol=0.0, threads=None))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        m: PyRef<'_, MjModel>,
        xref: &Bound<'_, PyAny>,
        Q: &Bound<'_, PyAny>,
        R: &Bound<'_, PyAny>,
        Qf: Option<&Bound<'_, PyAny>>,
        horizon: usize,
        iter: usize,
        first_iter: usize,
        bounds: Option<&str>,
        linearization: &str,
        tol: f64,
        threads: Option<usize>,
    ) -> PyResult<Self> {
        let model = &m.model;
        if horizon == 0 {
            return Err(PyValueError::new_err("horizon must be positive"));
        }
        let c = cost(model, xref, Q, R, Qf)?;
        let b = match bounds {
            None => None,
            Some("ctrlrange") => Some(ctrl_bounds(model)),
            Some(o) => {
                return Err(PyValueError::new_err(format!(
                    "bounds must be None or 'ctrlrange', got '{o}'"
                )))
            }
        };
        let mut mpc = IlqrMpc::new(
            model.nu,
            c,
            MpcOptions {
                horizon,
                iter,
                first_iter,
                bounds: b,
            },
        );
        mpc.tol = tol;
        Ok(Mpc {
            mpc,
            sys: system(model, linearization, threads)?,
            nx: model.nq + model.nv + model.na,
        })
    }

    /// Re-plans from `x` (`shift`: control steps since the last call) and returns the control.
    #[pyo3(signature = (x, shift=1))]
    fn step<'py>(
        &mut self,
        py: Python<'py>,
        x: &Bound<'py, PyAny>,
        shift: usize,
    ) -> PyResult<Bound<'py, PyAny>> {
        let x = DVector::from_vec(input(x, self.nx, "x")?);
        let (mpc, sys) = (&mut self.mpc, &mut self.sys);
        let u = py
            .detach(|| mpc.step(sys, &x, shift))
            .map_err(PyRuntimeError::new_err)?;
        let n = u.len();
        Ok(crate::arrays::owned(py, u.as_slice().to_vec(), &[n]))
    }

    /// Control steps whose solve failed and that applied the previous plan instead.
    #[getter]
    fn fallbacks(&self) -> usize {
        self.mpc.fallbacks
    }

    /// Cost history of the last solve.
    #[getter]
    fn last_history(&self) -> Vec<f64> {
        self.mpc.last_history.clone()
    }

    /// The error of the last failed solve, if any.
    #[getter]
    fn last_failure(&self) -> Option<String> {
        self.mpc.last_failure.clone()
    }

    /// Failed solves in a row that raise (default 10).
    #[getter]
    fn max_consecutive_failures(&self) -> usize {
        self.mpc.max_consecutive_failures
    }
    #[setter]
    fn set_max_consecutive_failures(&mut self, n: usize) {
        self.mpc.max_consecutive_failures = n.max(1);
    }

    /// The current plan's states `(horizon+1, nx)` and controls `(horizon, nu)`, or None.
    #[getter]
    fn plan(&self, py: Python<'_>) -> Option<(Py<PyAny>, Py<PyAny>)> {
        let p = self.mpc.plan.as_ref()?;
        Some((
            dvecs(py, &p.xs, self.nx),
            dvecs(py, &p.us, self.sys.model.nu),
        ))
    }
}

/// Predictive sampling (`moreau-optim`'s `PredictiveSampling`) on the diagonal tangent-space
/// cost `½ Σ q_i e_i² + ½ Σ r_k u_k²` around `xref` (`e = x ⊖ xref`): `control(d)` plans from
/// the state of `d` (`rollouts` candidates of `steps` physics steps in parallel, `knots`
/// control knots, Gaussian noise `sigma`, `interp` `"linear"` or `"zoh"`, on `threads` threads,
/// None: `set_threads`'s choice) and returns `(ctrl, cost)`.
#[pyclass(module = "moreau.optim", name = "PredictiveSampling")]
pub struct PredictiveSampling {
    ps: moreau_optim::sampling::PredictiveSampling,
    cost: moreau_optim::statecost::DiagonalCost,
}

#[pymethods]
impl PredictiveSampling {
    #[new]
    #[pyo3(signature = (m, xref, q, r, rollouts=32, steps=100, knots=10, sigma=0.5, interp="linear", seed=1, threads=None))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        m: PyRef<'_, MjModel>,
        xref: &Bound<'_, PyAny>,
        q: &Bound<'_, PyAny>,
        r: &Bound<'_, PyAny>,
        rollouts: usize,
        steps: usize,
        knots: usize,
        sigma: f64,
        interp: &str,
        seed: u64,
        threads: Option<usize>,
    ) -> PyResult<Self> {
        use moreau_optim::sampling::{Interp, SamplingOptions};
        let model = &m.model;
        let interp = match interp {
            "linear" => Interp::Linear,
            "zoh" => Interp::ZeroOrderHold,
            o => {
                return Err(PyValueError::new_err(format!(
                    "interp must be 'linear' or 'zoh', got '{o}'"
                )))
            }
        };
        let mut cost = moreau_optim::statecost::DiagonalCost::new(
            model,
            input(xref, model.nq + model.nv + model.na, "xref")?,
        )
        .map_err(PyValueError::new_err)?;
        cost.q = input(q, 2 * model.nv + model.na, "q")?;
        cost.r = input(r, model.nu, "r")?;
        let ps = moreau_optim::sampling::PredictiveSampling::new(
            model.clone(),
            SamplingOptions {
                rollouts,
                steps,
                knots,
                sigma,
                interp,
                seed,
                ..SamplingOptions::default()
            },
        )
        .map_err(PyValueError::new_err)?;
        let mut ps = ps;
        ps.set_threads(threads.unwrap_or_else(default_threads))
            .map_err(PyRuntimeError::new_err)?;
        Ok(PredictiveSampling { ps, cost })
    }

    /// Plans from the state of `d` and returns `(ctrl, cost of the new nominal plan)`.
    fn control<'py>(
        &mut self,
        py: Python<'py>,
        d: PyRef<'_, MjData>,
    ) -> PyResult<(Bound<'py, PyAny>, f64)> {
        d.check_model(&self.ps.model)?;
        let (ps, cost, data) = (&mut self.ps, &self.cost, &d.data);
        let (u, c) = py.detach(|| ps.control(data, cost));
        let n = u.len();
        Ok((crate::arrays::owned(py, u, &[n]), c))
    }

    /// The nominal plan's knots `(knots, nu)`.
    #[getter]
    fn nominal<'py>(&self, py: Python<'py>) -> Bound<'py, PyAny> {
        let nu = self.ps.model.nu;
        crate::arrays::owned(py, self.ps.nominal.clone(), &[self.ps.opt.knots, nu])
    }
}

/// A recorded trajectory for system identification: per step `t`, `qpos`, `qvel`, the
/// discrete acceleration `qacc = (v_{t+1} − v_t)/h` and the known generalized force `force`
/// (`qfrc_actuator + qfrc_applied`). Build it from measurements, `Recording(qpos, qvel, qacc,
/// force)` (arrays `(T, nq)`, `(T, nv)`, `(T, nv)`, `(T, nv)`), or by simulation with `record`.
#[pyclass(module = "moreau.optim", name = "Recording")]
pub struct Recording {
    rec: moreau_optim::sysid::Recording,
}

fn table(x: &Bound<'_, PyAny>, width: usize, what: &str) -> PyResult<Vec<Vec<f64>>> {
    let n = x.len()?;
    let v = input(x, n * width, what)?;
    Ok(v.chunks(width.max(1)).take(n).map(|c| c.to_vec()).collect())
}

#[pymethods]
impl Recording {
    #[new]
    fn new(
        qpos: &Bound<'_, PyAny>,
        qvel: &Bound<'_, PyAny>,
        qacc: &Bound<'_, PyAny>,
        force: &Bound<'_, PyAny>,
    ) -> PyResult<Self> {
        let nq = qpos.get_item(0).and_then(|r| r.len()).unwrap_or(0);
        let nv = qvel.get_item(0).and_then(|r| r.len()).unwrap_or(0);
        let rec = moreau_optim::sysid::Recording {
            qpos: table(qpos, nq, "qpos")?,
            qvel: table(qvel, nv, "qvel")?,
            qacc: table(qacc, nv, "qacc")?,
            force: table(force, nv, "force")?,
        };
        let t = rec.qpos.len();
        if [rec.qvel.len(), rec.qacc.len(), rec.force.len()] != [t; 3] {
            return Err(PyTypeError::new_err(
                "qpos, qvel, qacc and force must have the same number of rows",
            ));
        }
        Ok(Recording { rec })
    }

    /// Steps in the recording.
    fn __len__(&self) -> usize {
        self.rec.qpos.len()
    }

    #[getter]
    fn qpos(&self, py: Python<'_>) -> Py<PyAny> {
        rows(
            py,
            &self.rec.qpos,
            self.rec.qpos.first().map_or(0, Vec::len),
        )
    }
    #[getter]
    fn qvel(&self, py: Python<'_>) -> Py<PyAny> {
        rows(
            py,
            &self.rec.qvel,
            self.rec.qvel.first().map_or(0, Vec::len),
        )
    }
    #[getter]
    fn qacc(&self, py: Python<'_>) -> Py<PyAny> {
        rows(
            py,
            &self.rec.qacc,
            self.rec.qacc.first().map_or(0, Vec::len),
        )
    }
    #[getter]
    fn force(&self, py: Python<'_>) -> Py<PyAny> {
        rows(
            py,
            &self.rec.force,
            self.rec.force.first().map_or(0, Vec::len),
        )
    }
}

/// Simulates `m` from `qpos0` (+ `q_offset`) under `controls` `(T, nu)` and records it;
/// `noise`: standard deviation of Gaussian noise on the measured velocities (`seed`).
#[pyfunction]
#[pyo3(signature = (m, controls, noise=0.0, seed=0, q_offset=None))]
pub fn record(
    py: Python<'_>,
    m: PyRef<'_, MjModel>,
    controls: &Bound<'_, PyAny>,
    noise: f64,
    seed: u64,
    q_offset: Option<&Bound<'_, PyAny>>,
) -> PyResult<Recording> {
    let model = &m.model;
    let u = table(controls, model.nu, "controls")?;
    let off = match q_offset {
        Some(o) if !o.is_none() => input(o, model.nq, "q_offset")?,
        _ => vec![0.0; model.nq],
    };
    let rec = py.detach(|| moreau_optim::sysid::record(model, &off, &u, noise, seed));
    Ok(Recording { rec })
}

/// Random excitation controls `(steps, nu)`: Gaussian with `sigma`, held for `hold` steps.
#[pyfunction]
#[pyo3(signature = (nu, steps, sigma=1.0, hold=10, seed=0))]
pub fn excitation<'py>(
    py: Python<'py>,
    nu: usize,
    steps: usize,
    sigma: f64,
    hold: usize,
    seed: u64,
) -> Bound<'py, PyAny> {
    let u = moreau_optim::sysid::excitation(nu, steps, sigma, hold.max(1), seed);
    let flat: Vec<f64> = u.into_iter().flatten().collect();
    crate::arrays::owned(py, flat, &[steps, nu])
}

/// The result of [`identify`].
#[pyclass(module = "moreau.optim", name = "Identified")]
pub struct Identified {
    /// The parameters, as `(kind, index, k)`.
    #[pyo3(get)]
    params: Vec<(String, usize, usize)>,
    inner: moreau_optim::sysid::Identified,
}

#[pymethods]
impl Identified {
    /// Their values in the nominal model.
    #[getter]
    fn nominal(&self) -> Vec<f64> {
        self.inner.nominal.clone()
    }
    /// The least-squares estimate (unidentifiable combinations keep their nominal values).
    #[getter]
    fn estimate(&self) -> Vec<f64> {
        self.inner.estimate.clone()
    }
    /// Numerical rank of the regressor.
    #[getter]
    fn rank(&self) -> usize {
        self.inner.rank
    }
    /// RMS of the force residual at the estimate.
    #[getter]
    fn residual_rms(&self) -> f64 {
        self.inner.residual_rms
    }

    /// A copy of the model `m` with the estimate written in (then call `mj_setConst` for the
    /// constants that depend on it).
    fn apply(&self, m: PyRef<'_, MjModel>) -> PyResult<MjModel> {
        let out = self.inner.apply(&m.model).map_err(PyValueError::new_err)?;
        Ok(m.derived(out))
    }

    fn __repr__(&self) -> String {
        format!(
            "<Identified {} parameters rank={} residual_rms={:.3e}>",
            self.params.len(),
            self.inner.rank,
            self.inner.residual_rms
        )
    }
}

/// One parameter: `("mass", body)`, `("inertial", body, k)` (k in 0..10 of `(m, m c, I_o)`),
/// `("damping", dof)`; bodies by name or id.
fn param(
    m: &Model,
    spec: &Bound<'_, PyAny>,
) -> PyResult<(moreau_optim::sysid::Param, (String, usize, usize))> {
    use moreau_optim::sysid::Param;
    let kind: String = spec.get_item(0)?.extract()?;
    let bad = || {
        PyValueError::new_err(
            "a parameter is ('mass', body), ('inertial', body, k) or ('damping', dof)",
        )
    };
    let p = match kind.as_str() {
        "mass" => {
            let b = resolve(m, OBJ_BODY, "body", &spec.get_item(1)?)?;
            (Param::Mass { body: b }, (kind, b, 0))
        }
        "inertial" => {
            let b = resolve(m, OBJ_BODY, "body", &spec.get_item(1)?)?;
            let k: usize = spec.get_item(2)?.extract()?;
            if k >= 10 {
                return Err(bad());
            }
            (Param::Inertial { body: b, k }, (kind, b, k))
        }
        "damping" => {
            let dof: usize = spec.get_item(1)?.extract()?;
            (Param::Damping { dof }, (kind, dof, 0))
        }
        _ => return Err(bad()),
    };
    moreau_optim::sysid::check(m, p.0).map_err(PyValueError::new_err)?;
    Ok(p)
}

/// Least-squares identification of `params` (see `param` specs: `("mass", body)`,
/// `("inertial", body, k)`, `("damping", dof)`) from `recording` (one `Recording`, or a
/// sequence of them: one parameter vector for several logs) on inverse dynamics, linearized
/// (exactly) at the nominal model `m`; singular values below `rcond · σ_max` count as zero.
/// The regressor's columns run on `threads` threads (None: `set_threads`'s choice; the result
/// does not depend on it).
#[pyfunction]
#[pyo3(signature = (m, recording, params, rcond=1e-9, threads=None))]
pub fn identify(
    py: Python<'_>,
    m: PyRef<'_, MjModel>,
    recording: &Bound<'_, PyAny>,
    params: &Bound<'_, PyAny>,
    rcond: f64,
    threads: Option<usize>,
) -> PyResult<Identified> {
    let model = &m.model;
    let mut ps = Vec::new();
    let mut specs = Vec::new();
    for p in params.try_iter()? {
        let (a, b) = param(model, &p?)?;
        ps.push(a);
        specs.push(b);
    }
    let recs: Vec<moreau_optim::sysid::Recording> =
        match recording.extract::<PyRef<'_, Recording>>() {
            Ok(r) => vec![r.rec.clone()],
            Err(_) => recording
                .try_iter()
                .map_err(|_| PyTypeError::new_err("recording: a Recording or a sequence of them"))?
                .map(|r| Ok(r?.extract::<PyRef<'_, Recording>>()?.rec.clone()))
                .collect::<PyResult<_>>()?,
        };
    if recs.is_empty() {
        return Err(PyValueError::new_err("no recording"));
    }
    for rec in &recs {
        if rec.qpos.first().is_some_and(|q| q.len() != model.nq)
            || rec.qvel.first().is_some_and(|v| v.len() != model.nv)
        {
            return Err(PyTypeError::new_err(
                "the recording does not have the model's sizes",
            ));
        }
    }
    let threads = moreau_optim::threads::Threads::new(threads.unwrap_or_else(default_threads))
        .map_err(PyValueError::new_err)?;
    let id = py
        .detach(|| moreau_optim::sysid::identify_on(&threads, model, &ps, &recs, rcond))
        .map_err(PyRuntimeError::new_err)?;
    Ok(Identified {
        params: specs,
        inner: id,
    })
}

/// Registers the `optim` submodule.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let sub = PyModule::new(m.py(), "optim")?;
    sub.add_function(wrap_pyfunction!(contact_trajopt, &sub)?)?;
    sub.add_function(wrap_pyfunction!(ilqr, &sub)?)?;
    sub.add_function(wrap_pyfunction!(record, &sub)?)?;
    sub.add_function(wrap_pyfunction!(excitation, &sub)?)?;
    sub.add_function(wrap_pyfunction!(identify, &sub)?)?;
    sub.add_class::<CollocationResult>()?;
    sub.add_class::<IlqrResult>()?;
    sub.add_class::<Mpc>()?;
    sub.add_class::<PredictiveSampling>()?;
    sub.add_class::<Recording>()?;
    sub.add_class::<Identified>()?;
    m.add_submodule(&sub)?;
    m.add_function(wrap_pyfunction!(set_threads, m)?)?;
    m.add_function(wrap_pyfunction!(get_threads, m)?)?;
    Ok(())
}
