//! The functional, batched step behind `moreau.jax.step` and `moreau.torch.step`:
//! `x' = f(x, u)` with `x = (qpos, qvel, act)` (MuJoCo's `mjSTATE_PHYSICS` layout, `nq + nv +
//! na` numbers) and `u = ctrl`, and its Jacobians in these coordinates.
//!
//! Each evaluation starts from `mj_resetData` (zero applied forces, zero warm start, mocap bodies
//! at their model poses, time 0), sets `x` and `u` and takes one `mj_step`, so `f` is a pure
//! function. Its Jacobians are the transition Jacobians `A = ∂x'/∂x`, `B = ∂x'/∂u` of
//! `moreau.derivatives.transition` (analytic: exact through soft contact; or finite
//! differences), taken in the tangent space of the joint positions and mapped to the
//! coordinates of `qpos`: for a unit quaternion `q` perturbed to `q ⊗ exp(δ)`,
//! `∂δ/∂q = 2 [−v | w I − [v]×]` (`q = (w, v)`, divided by `|q|`, so the step's normalization is
//! differentiated too) on the input side and `∂q'/∂δ' = ½ [−v'ᵀ ; w' I + [v']×]` on the output
//! side; hinge, slide and the free joint's position are the identity.

use crate::model::{MjModel, Scratch};
use moreau::model::{JointType, Model};
use moreau::Data;
use moreau_derivatives::fd::FdWorkspace;
use moreau_derivatives::TransitionOptions;
use nalgebra::DMatrix;
use numpy::{PyArray1, PyArrayMethods, PyReadonlyArray2, PyUntypedArrayMethods};
use pyo3::exceptions::{PyRuntimeError, PyTypeError, PyValueError};
use pyo3::prelude::*;

/// Which Jacobians to compute.
#[derive(Clone, Copy, PartialEq)]
enum Jac {
    None,
    Analytic,
    Fd { eps: f64, centered: bool },
}

/// `(∂δ/∂q)` for the unit-quaternion chart at `q` (3 × 4, row-major), divided by `|q|`.
fn quat_chart_in(q: &[f64]) -> [[f64; 4]; 3] {
    let n = (q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]).sqrt();
    let (w, x, y, z) = (q[0] / n, q[1] / n, q[2] / n, q[3] / n);
    let s = 2.0 / n;
    // 2 Im(q̂* ⊗ dq) = 2 (w dv − dw v − v × dv)
    [
        [-x * s, w * s, z * s, -y * s],
        [-y * s, -z * s, w * s, x * s],
        [-z * s, y * s, -x * s, w * s],
    ]
}

/// `(∂q'/∂δ')` at the unit quaternion `q` (4 × 3, row-major): `½ q ⊗ (0, δ)`.
fn quat_chart_out(q: &[f64]) -> [[f64; 3]; 4] {
    let (w, x, y, z) = (q[0], q[1], q[2], q[3]);
    [
        [-0.5 * x, -0.5 * y, -0.5 * z],
        [0.5 * w, -0.5 * z, 0.5 * y],
        [0.5 * z, 0.5 * w, -0.5 * x],
        [-0.5 * y, 0.5 * x, 0.5 * w],
    ]
}

/// `blockdiag(∂δ/∂qpos, I_nv, I_na)` at `qpos` ((2nv+na) × (nq+nv+na)).
fn chart_in(m: &Model, qpos: &[f64]) -> DMatrix<f64> {
    let (nq, nv, na) = (m.nq, m.nv, m.na);
    let mut g = DMatrix::zeros(2 * nv + na, nq + nv + na);
    for j in 0..m.njnt {
        let (pa, va) = (m.jnt_qposadr[j], m.jnt_dofadr[j]);
        let rot = match m.jnt_type[j] {
            JointType::Free => {
                for k in 0..3 {
                    g[(va + k, pa + k)] = 1.0;
                }
                Some((pa + 3, va + 3))
            }
            JointType::Ball => Some((pa, va)),
            _ => {
                g[(va, pa)] = 1.0;
                None
            }
        };
        if let Some((p, v)) = rot {
            let c = quat_chart_in(&qpos[p..p + 4]);
            for (r, row) in c.iter().enumerate() {
                for (k, x) in row.iter().enumerate() {
                    g[(v + r, p + k)] = *x;
                }
            }
        }
    }
    for i in 0..nv + na {
        g[(nv + i, nq + i)] = 1.0;
    }
    g
}

/// `blockdiag(∂qpos'/∂δ', I_nv, I_na)` at `qpos'` ((nq+nv+na) × (2nv+na)).
fn chart_out(m: &Model, qpos: &[f64]) -> DMatrix<f64> {
    let (nq, nv, na) = (m.nq, m.nv, m.na);
    let mut e = DMatrix::zeros(nq + nv + na, 2 * nv + na);
    for j in 0..m.njnt {
        let (pa, va) = (m.jnt_qposadr[j], m.jnt_dofadr[j]);
        let rot = match m.jnt_type[j] {
            JointType::Free => {
                for k in 0..3 {
                    e[(pa + k, va + k)] = 1.0;
                }
                Some((pa + 3, va + 3))
            }
            JointType::Ball => Some((pa, va)),
            _ => {
                e[(pa, va)] = 1.0;
                None
            }
        };
        if let Some((p, v)) = rot {
            let c = quat_chart_out(&qpos[p..p + 4]);
            for (r, row) in c.iter().enumerate() {
                for (k, x) in row.iter().enumerate() {
                    e[(p + r, v + k)] = *x;
                }
            }
        }
    }
    for i in 0..nv + na {
        e[(nq + i, nv + i)] = 1.0;
    }
    e
}

/// Loads `x`, `u` into a reset `d`.
fn load(m: &Model, d: &mut Data, x: &[f64], u: &[f64]) {
    d.reset(m);
    let (nq, nv) = (m.nq, m.nv);
    d.qpos.copy_from_slice(&x[..nq]);
    d.qvel.copy_from_slice(&x[nq..nq + nv]);
    d.act.copy_from_slice(&x[nq + nv..]);
    d.ctrl.copy_from_slice(u);
}

/// One evaluation: `xn = f(x, u)` and, if asked, `jx = ∂xn/∂x`, `ju = ∂xn/∂u` (row-major).
#[allow(clippy::too_many_arguments)]
fn eval(
    m: &Model,
    s: &mut Scratch,
    x: &[f64],
    u: &[f64],
    jac: Jac,
    xn: &mut [f64],
    jx: &mut [f64],
    ju: &mut [f64],
) -> Result<(), String> {
    if x.iter().chain(u).any(|v| !v.is_finite()) {
        return Err("the state or control contains NaN or infinite values".into());
    }
    let (nq, nv, nu) = (m.nq, m.nv, m.nu);
    let d = &mut s.d;
    load(m, d, x, u);
    let bad = |d: &Data| d.warning.iter().take(6).skip(3).any(|w| w.number > 0);
    moreau::step(m, d);
    if bad(d) {
        return Err("the step diverged (NaN, infinite or huge qpos, qvel or qacc)".into());
    }
    xn[..nq].copy_from_slice(&d.qpos);
    xn[nq..nq + nv].copy_from_slice(&d.qvel);
    xn[nq + nv..].copy_from_slice(&d.act);
    if jac == Jac::None {
        return Ok(());
    }
    load(m, d, x, u);
    let (a, b) = match jac {
        Jac::Analytic => {
            let t =
                s.w.transition(m, d, &TransitionOptions::analytic().with_sensors(false))
                    .cloned()
                    .map_err(|e| {
                        format!("analytic transition Jacobians do not cover this model: {e}")
                    })?;
            (t.A, t.B)
        }
        Jac::Fd { eps, centered } => {
            let ws = s.fd.get_or_insert_with(|| FdWorkspace::new(m));
            ws.sensors = false;
            let t = ws.transition(m, d, eps, centered);
            (t.A.clone(), t.B.clone())
        }
        Jac::None => unreachable!(),
    };
    let e = chart_out(m, &xn[..nq]);
    let g = chart_in(m, &x[..nq]);
    let cx = &e * a * g;
    let cu = &e * b;
    let n = xn.len();
    for i in 0..n {
        for j in 0..n {
            jx[i * n + j] = cx[(i, j)];
        }
        for j in 0..nu {
            ju[i * nu + j] = cu[(i, j)];
        }
    }
    Ok(())
}

/// Number of cores (read once: `available_parallelism` reads the cgroup files at each call).
fn cores() -> usize {
    static CORES: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
    *CORES.get_or_init(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
}

/// `_step(m, x, u, jacobian=None, eps=1e-6, centered=False)`: the batched functional step.
/// `x` is `(B, nq+nv+na)`, `u` `(B, nu)`, both float64 C-contiguous. Returns `x'` `(B, nx)`,
/// and with `jacobian="analytic"` or `"fd"` also `(x', Jx (B, nx, nx), Ju (B, nx, nu))`. The
/// batch runs on all cores without the GIL.
#[pyfunction]
#[pyo3(signature = (m, x, u, jacobian=None, eps=1e-6, centered=false))]
pub fn _step<'py>(
    py: Python<'py>,
    m: PyRef<'_, MjModel>,
    x: PyReadonlyArray2<'py, f64>,
    u: PyReadonlyArray2<'py, f64>,
    jacobian: Option<&str>,
    eps: f64,
    centered: bool,
) -> PyResult<Bound<'py, PyAny>> {
    let model = &m.model;
    let (nq, nv, na, nu) = (model.nq, model.nv, model.na, model.nu);
    let nx = nq + nv + na;
    let bsz = x.shape()[0];
    if x.shape()[1] != nx {
        return Err(PyTypeError::new_err(format!(
            "x must have nq + nv + na = {nx} columns, got {}",
            x.shape()[1]
        )));
    }
    if u.shape() != [bsz, nu] {
        return Err(PyTypeError::new_err(format!(
            "u must be of shape ({bsz}, {nu}), got {:?}",
            u.shape()
        )));
    }
    let jac = match jacobian {
        None => Jac::None,
        Some("analytic") => Jac::Analytic,
        Some("fd") => {
            if !(eps.is_finite() && eps > 0.0) {
                return Err(PyValueError::new_err("eps must be positive and finite"));
            }
            Jac::Fd { eps, centered }
        }
        Some(o) => {
            return Err(PyValueError::new_err(format!(
                "jacobian must be None, 'analytic' or 'fd', got '{o}'"
            )))
        }
    };
    let xs = x.as_slice()?;
    let us = u.as_slice()?;
    let with_jac = jac != Jac::None;
    let mut xn = vec![0.0; bsz * nx];
    let mut jx = vec![0.0; if with_jac { bsz * nx * nx } else { 0 }];
    let mut ju = vec![0.0; if with_jac { bsz * nx * nu } else { 0 }];
    let mm: &MjModel = &m;
    let res: Result<(), String> = py.detach(|| {
        let workers = cores().min(bsz).max(1);
        let per = bsz.div_ceil(workers);
        let run = |k0: usize, xn: &mut [f64], jx: &mut [f64], ju: &mut [f64]| {
            let mut s = mm.take_scratch();
            let mut r = Ok(());
            for (i, xn) in xn.chunks_mut(nx).enumerate() {
                let k = k0 + i;
                let (jx, ju) = if with_jac {
                    (
                        &mut jx[i * nx * nx..(i + 1) * nx * nx],
                        &mut ju[i * nx * nu..(i + 1) * nx * nu],
                    )
                } else {
                    (&mut [][..], &mut [][..])
                };
                r = eval(
                    &mm.model,
                    &mut s,
                    &xs[k * nx..(k + 1) * nx],
                    &us[k * nu..(k + 1) * nu],
                    jac,
                    xn,
                    jx,
                    ju,
                )
                .map_err(|e| format!("batch element {k}: {e}"));
                if r.is_err() {
                    break;
                }
            }
            mm.give_scratch(s);
            r
        };
        if workers == 1 || bsz < 2 {
            return run(0, &mut xn, &mut jx, &mut ju);
        }
        std::thread::scope(|sc| {
            let mut handles = Vec::new();
            let jxc: Vec<&mut [f64]> = if with_jac {
                jx.chunks_mut(per * nx * nx).collect()
            } else {
                (0..workers).map(|_| &mut [][..]).collect()
            };
            let juc: Vec<&mut [f64]> = if with_jac {
                ju.chunks_mut(per * nx * nu).collect()
            } else {
                (0..workers).map(|_| &mut [][..]).collect()
            };
            for (w, ((xc, jxc), juc)) in xn.chunks_mut(per * nx).zip(jxc).zip(juc).enumerate() {
                let run = &run;
                handles.push(sc.spawn(move || run(w * per, xc, jxc, juc)));
            }
            handles
                .into_iter()
                .map(|h| h.join().unwrap_or_else(|_| Err("a worker panicked".into())))
                .collect::<Result<Vec<()>, String>>()
                .map(|_| ())
        })
    });
    res.map_err(PyRuntimeError::new_err)?;
    let xn = PyArray1::from_vec(py, xn).reshape([bsz, nx])?;
    if !with_jac {
        return Ok(xn.into_any());
    }
    let jx = PyArray1::from_vec(py, jx).reshape([bsz, nx, nx])?;
    let ju = PyArray1::from_vec(py, ju).reshape([bsz, nx, nu])?;
    Ok(pyo3::types::PyTuple::new(py, [xn.into_any(), jx.into_any(), ju.into_any()])?.into_any())
}

/// Registers `_step`.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(_step, m)?)?;
    Ok(())
}
