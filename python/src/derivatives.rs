//! `mjd_transitionFD` and `mjd_inverseFD` (MuJoCo's signatures: caller-provided outputs, any of
//! them None), and moreau's own `moreau.derivatives.transition` / `inverse` that return new
//! arrays and offer the analytic Jacobians (exact through soft contact).

use crate::arrays::{matrix, output, write_matrix};
use crate::data::MjData;
use crate::functions::run;
use crate::model::MjModel;
use moreau_derivatives::fd::FdWorkspace;
use moreau_derivatives::{InverseOptions, Support, TransitionOptions, Workspace};
use numpy::PyArrayDyn;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

type Out<'py> = Option<Bound<'py, PyArrayDyn<f64>>>;

fn opt_out<'py>(
    x: Option<&Bound<'py, PyAny>>,
    r: usize,
    c: usize,
    what: &str,
) -> PyResult<Out<'py>> {
    match x {
        Some(a) if !a.is_none() => output(a, r * c, Some((r, c)), what).map(Some),
        _ => Ok(None),
    }
}

fn check_eps(eps: f64) -> PyResult<()> {
    if !(eps.is_finite() && eps > 0.0) {
        return Err(PyValueError::new_err("eps must be positive and finite"));
    }
    Ok(())
}

/// Runs `f` on `d`'s finite-difference workspace (built on first use, kept in `d` afterwards,
/// its `sensors` switch set) with the state of `d` ([`run`]); returns what `f` extracts.
fn with_fd<R: Send>(
    py: Python<'_>,
    m: &PyRef<'_, MjModel>,
    d: &mut PyRefMut<'_, MjData>,
    sensors: bool,
    f: impl FnOnce(&mut FdWorkspace, &moreau::Model, &mut moreau::Data) -> R + Send,
) -> PyResult<R> {
    let mut ws =
        d.fd.take()
            .unwrap_or_else(|| Box::new(FdWorkspace::new(&m.model)));
    ws.sensors = sensors;
    let (r, ws) = run(py, m, d, |m, data| {
        let r = f(&mut ws, m, data);
        (r, ws)
    })?;
    d.fd = Some(ws);
    Ok(r)
}

/// Finite-difference transition matrices of one `mj_step` (`mjd_transitionFD`): with
/// `x = (qpos tangent, qvel, act)` and `u = ctrl`, `A = ∂x'/∂x` ((2nv+na) × (2nv+na)),
/// `B = ∂x'/∂u` ((2nv+na) × nu), `C = ∂sensordata/∂x` (nsensordata × (2nv+na)),
/// `D = ∂sensordata/∂u` (nsensordata × nu). Outputs are float64 arrays or None (skipped; with
/// C and D None the sensors are not evaluated). `flg_centered`: central differences. The state
/// of `d` is restored afterwards. Unlike MuJoCo 4.0.0, RK4 models are accepted.
#[pyfunction]
#[pyo3(signature = (m, d, eps, flg_centered, A=None, B=None, C=None, D=None))]
#[allow(clippy::too_many_arguments)]
pub fn mjd_transitionFD(
    py: Python<'_>,
    m: PyRef<'_, MjModel>,
    mut d: PyRefMut<'_, MjData>,
    eps: f64,
    flg_centered: &Bound<'_, PyAny>,
    A: Option<&Bound<'_, PyAny>>,
    B: Option<&Bound<'_, PyAny>>,
    C: Option<&Bound<'_, PyAny>>,
    D: Option<&Bound<'_, PyAny>>,
) -> PyResult<()> {
    check_eps(eps)?;
    let flg_centered = flg_centered.is_truthy()?;
    let mm = &m.model;
    refuse_sleep(mm, "mjd_transitionFD")?;
    let (nx, nu, ns) = (2 * mm.nv + mm.na, mm.nu, mm.nsensordata);
    let a = opt_out(A, nx, nx, "A")?;
    let b = opt_out(B, nx, nu, "B")?;
    let c = opt_out(C, ns, nx, "C")?;
    let dd = opt_out(D, ns, nu, "D")?;
    let sensors = c.is_some() || dd.is_some();
    with_fd(py, &m, &mut d, sensors, |ws, m, data| {
        ws.transition(m, data, eps, flg_centered);
    })?;
    let t = &d.fd.as_ref().expect("kept by with_fd").transition;
    for (o, mat) in [(&a, &t.A), (&b, &t.B), (&c, &t.C), (&dd, &t.D)] {
        if let Some(o) = o {
            write_matrix(o, mat)?;
        }
    }
    Ok(())
}

/// MuJoCo 4.0.0's `mjd_transitionFD` and `mjd_inverseFD` refuse models with the `sleep` enable
/// flag with a fatal error `<function>: sleeping is not supported` (measured).
fn refuse_sleep(m: &moreau::Model, function: &str) -> PyResult<()> {
    if m.opt.enabled(moreau::model::enable::SLEEP) {
        return Err(crate::errors::FatalError::new_err(format!(
            "{function}: sleeping is not supported"
        )));
    }
    Ok(())
}

/// Finite-difference Jacobians of inverse dynamics (`mjd_inverseFD`), MuJoCo's transposed
/// layout (`D[i, j] = ∂out_j/∂in_i`): `DfDq`, `DfDv`, `DfDa` (nv × nv) of `qfrc_inverse`
/// (minus `qfrc_actuator` with `flg_actuation`), `DsDq`, `DsDv`, `DsDa` (nv × nsensordata),
/// `DmDq` (nv × nM): row `i` is `∂qM/∂q_i` in moreau's `qM` layout (`dof_Madr`; MuJoCo 4.0.0
/// uses its CSR `M` layout, nv × nC). Any output may be None. Forward differences, as MuJoCo.
#[pyfunction]
#[pyo3(signature = (m, d, eps, flg_actuation, DfDq=None, DfDv=None, DfDa=None, DsDq=None, DsDv=None, DsDa=None, DmDq=None))]
#[allow(clippy::too_many_arguments)]
pub fn mjd_inverseFD(
    py: Python<'_>,
    m: PyRef<'_, MjModel>,
    mut d: PyRefMut<'_, MjData>,
    eps: f64,
    flg_actuation: &Bound<'_, PyAny>,
    DfDq: Option<&Bound<'_, PyAny>>,
    DfDv: Option<&Bound<'_, PyAny>>,
    DfDa: Option<&Bound<'_, PyAny>>,
    DsDq: Option<&Bound<'_, PyAny>>,
    DsDv: Option<&Bound<'_, PyAny>>,
    DsDa: Option<&Bound<'_, PyAny>>,
    DmDq: Option<&Bound<'_, PyAny>>,
) -> PyResult<()> {
    check_eps(eps)?;
    let flg_actuation = flg_actuation.is_truthy()?;
    let mm = &m.model;
    refuse_sleep(mm, "mjd_inverseFD")?;
    if let Some(why) = moreau::pipeline::inverse_unsupported(mm) {
        return Err(PyValueError::new_err(format!(
            "mjd_inverseFD: model uses {why}, not supported yet"
        )));
    }
    let (nv, ns, nm) = (mm.nv, mm.nsensordata, mm.nM);
    let outs = [
        opt_out(DfDq, nv, nv, "DfDq")?,
        opt_out(DfDv, nv, nv, "DfDv")?,
        opt_out(DfDa, nv, nv, "DfDa")?,
        opt_out(DsDq, nv, ns, "DsDq")?,
        opt_out(DsDv, nv, ns, "DsDv")?,
        opt_out(DsDa, nv, ns, "DsDa")?,
        opt_out(DmDq, nv, nm, "DmDq")?,
    ];
    let sensors = outs[3..6].iter().any(Option::is_some);
    with_fd(py, &m, &mut d, sensors, |ws, m, data| {
        ws.inverse(m, data, eps, flg_actuation, false);
    })?;
    let j = &d.fd.as_ref().expect("kept by with_fd").inverse;
    for (o, mat) in outs.iter().zip([
        &j.DfDq, &j.DfDv, &j.DfDa, &j.DsDq, &j.DsDv, &j.DsDa, &j.DmDq,
    ]) {
        if let Some(o) = o {
            write_matrix(o, mat)?;
        }
    }
    Ok(())
}

/// `moreau.derivatives.transition`: `(A, B, C, D)` as new arrays (layout of
/// `mjd_transitionFD`). `method="analytic"`: exact Jacobians at the constraint solution
/// (implicit function theorem through soft contact); `"fd"`: finite differences with `eps` and
/// `centered`. `sensors=False` skips `C`, `D` (returned as arrays with no rows).
/// The state of `d` is not advanced; its intermediate results are those of `mj_forward` at the
/// state (analytic) or of the last perturbed step (fd).
#[pyfunction]
#[pyo3(signature = (m, d, method="analytic", eps=1e-6, centered=false, sensors=true))]
pub fn transition<'py>(
    py: Python<'py>,
    m: PyRef<'_, MjModel>,
    mut d: PyRefMut<'_, MjData>,
    method: &str,
    eps: f64,
    centered: bool,
    sensors: bool,
) -> PyResult<Bound<'py, pyo3::types::PyTuple>> {
    let mm = &m.model;
    let t = match method {
        "analytic" => {
            let mut w = d
                .analytic
                .take()
                .unwrap_or_else(|| Box::new(Workspace::default()));
            let (r, w) = run(py, &m, &mut d, |m, data| {
                let opts = TransitionOptions::analytic().with_sensors(sensors);
                // `d` is left with mj_forward's results at the state, sensors included (the
                // Rust path skips the sensor stages without C, D)
                let opts = if sensors || !Support::transition(m).is_covered() {
                    opts
                } else {
                    moreau::forward(m, data);
                    opts.forwarded()
                };
                let r = w.transition(m, data, &opts).cloned();
                (r, w)
            })?;
            d.analytic = Some(w);
            r.map_err(|e| {
                PyValueError::new_err(format!(
                    "analytic transition Jacobians do not cover this model: {e}"
                ))
            })?
        }
        "fd" => {
            check_eps(eps)?;
            with_fd(py, &m, &mut d, sensors, |ws, m, data| {
                ws.transition(m, data, eps, centered).clone()
            })?
        }
        _ => {
            return Err(PyValueError::new_err(format!(
                "method must be 'analytic' or 'fd', got '{method}'"
            )))
        }
    };
    let nx = 2 * mm.nv + mm.na;
    let empty = |c: usize| nalgebra::DMatrix::<f64>::zeros(0, c);
    let (c, dm) = if sensors {
        (t.C.clone(), t.D.clone())
    } else {
        (empty(nx), empty(mm.nu))
    };
    pyo3::types::PyTuple::new(
        py,
        [
            matrix(py, &t.A),
            matrix(py, &t.B),
            matrix(py, &c),
            matrix(py, &dm),
        ],
    )
}

/// `moreau.derivatives.inverse`: `(DfDq, DfDv, DfDa)` of `qfrc_inverse` at the state and
/// `qacc` of `d`, MuJoCo's transposed layout (`D[i, j] = ∂f_j/∂in_i`). `method="analytic"`
/// (exact) or `"fd"` (forward differences with `eps`, or central with `centered`;
/// `flg_actuation` subtracts `qfrc_actuator` as in `mjd_inverseFD`, fd only).
#[pyfunction]
#[pyo3(signature = (m, d, method="analytic", eps=1e-6, centered=false, flg_actuation=false))]
#[allow(clippy::too_many_arguments)]
pub fn inverse<'py>(
    py: Python<'py>,
    m: PyRef<'_, MjModel>,
    mut d: PyRefMut<'_, MjData>,
    method: &str,
    eps: f64,
    centered: bool,
    flg_actuation: bool,
) -> PyResult<Bound<'py, pyo3::types::PyTuple>> {
    let mm = &m.model;
    if let Some(why) = moreau::pipeline::inverse_unsupported(mm) {
        return Err(PyValueError::new_err(format!(
            "inverse dynamics: model uses {why}, not supported yet"
        )));
    }
    let (dq, dv, da) = match method {
        "analytic" => {
            if flg_actuation {
                return Err(PyValueError::new_err(
                    "flg_actuation is supported by method='fd' only",
                ));
            }
            let r = run(py, &m, &mut d, |m, data| {
                moreau_derivatives::inverse(m, data, &InverseOptions::analytic())
            })?
            .map_err(|e| {
                PyValueError::new_err(format!(
                    "analytic inverse Jacobians do not cover this model: {e}"
                ))
            })?;
            (r.DfDq, r.DfDv, r.DfDa)
        }
        "fd" => {
            check_eps(eps)?;
            with_fd(py, &m, &mut d, false, |ws, m, data| {
                let j = ws.inverse(m, data, eps, flg_actuation, centered);
                (j.DfDq.clone(), j.DfDv.clone(), j.DfDa.clone())
            })?
        }
        _ => {
            return Err(PyValueError::new_err(format!(
                "method must be 'analytic' or 'fd', got '{method}'"
            )))
        }
    };
    pyo3::types::PyTuple::new(py, [matrix(py, &dq), matrix(py, &dv), matrix(py, &da)])
}

/// Registers `mjd_*` on the extension module and `transition` / `inverse` for
/// `moreau.derivatives`.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(mjd_transitionFD, m)?)?;
    m.add_function(wrap_pyfunction!(mjd_inverseFD, m)?)?;
    let sub = PyModule::new(m.py(), "derivatives")?;
    sub.add_function(wrap_pyfunction!(transition, &sub)?)?;
    sub.add_function(wrap_pyfunction!(inverse, &sub)?)?;
    m.add_submodule(&sub)?;
    Ok(())
}
