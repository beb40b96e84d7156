//! MuJoCo's functions (`mj_*`) with its Python signatures: simulation, state, Jacobians,
//! configuration-space arithmetic, ray casting, names.
//!
//! Every function that computes releases the GIL while it does. Output arguments are
//! caller-provided float64 arrays, checked for shape as MuJoCo's bindings do (a `TypeError`
//! naming the expected shape); inputs are any array-likes of the right size.

use crate::arrays::{input, output, write};
use crate::data::MjData;
use crate::errors::{arm, check_fatal, check_unstable, disarm, Divergence};
use crate::model::MjModel;
use moreau::model::GeomType;
use moreau::{Data, Model};
use nalgebra::Vector3;
use pyo3::exceptions::{PyIndexError, PyTypeError, PyValueError};
use pyo3::prelude::*;

/// Runs `f` on the model and data without the GIL: checks that the data fits the model, moves
/// the Python-side `mocap_quat` in and out, and raises `UnstableSimulationError` if the call
/// hit a divergence warning.
pub fn run<R: Send>(
    py: Python<'_>,
    m: &MjModel,
    d: &mut MjData,
    f: impl FnOnce(&Model, &mut Data) -> R + Send,
) -> PyResult<R> {
    run_checked(py, m, d, |m, d| {
        let (time, saved) = (d.time, arm(d));
        let r = f(m, d);
        (r, disarm(d, saved, time))
    })
}

/// [`run`] for a call that watches for divergence itself (with [`arm`] and [`disarm`] around
/// each of its stages) and returns the first one it saw with its result.
pub fn run_checked<R: Send>(
    py: Python<'_>,
    m: &MjModel,
    d: &mut MjData,
    f: impl FnOnce(&Model, &mut Data) -> (R, Option<Divergence>) + Send,
) -> PyResult<R> {
    d.check_model(&m.model)?;
    d.sync_in();
    let model = &m.model;
    let data = &mut d.data;
    let (r, found) = py.detach(move || f(model, data));
    d.sync_out();
    check_fatal(&d.data)?;
    check_unstable(py, found)?;
    Ok(r)
}

/// Advances the simulation by `nstep` steps (`mj_step`).
#[pyfunction]
#[pyo3(signature = (m, d, nstep=1))]
pub fn mj_step(
    py: Python<'_>,
    m: PyRef<'_, MjModel>,
    mut d: PyRefMut<'_, MjData>,
    nstep: i64,
) -> PyResult<()> {
    if nstep < 0 {
        return Err(PyValueError::new_err("nstep must be non-negative"));
    }
    run_checked(py, &m, &mut d, |m, d| {
        // the first step that diverged (MuJoCo goes on stepping after a reset, and so does this)
        let mut first = None;
        for _ in 0..nstep {
            let (time, saved) = (d.time, arm(d));
            moreau::step(m, d);
            let found = disarm(d, saved, time);
            first = first.or(found);
            if d.stack_overflow.is_some() {
                break;
            }
        }
        ((), first)
    })
}

/// The part of `mj_step` before controls and applied forces are read (`mj_step1`).
#[pyfunction]
pub fn mj_step1(
    py: Python<'_>,
    m: PyRef<'_, MjModel>,
    mut d: PyRefMut<'_, MjData>,
) -> PyResult<()> {
    run(py, &m, &mut d, moreau::step1)
}

/// The rest of `mj_step` (`mj_step2`; RK4 falls back to Euler, as in MuJoCo).
#[pyfunction]
pub fn mj_step2(
    py: Python<'_>,
    m: PyRef<'_, MjModel>,
    mut d: PyRefMut<'_, MjData>,
) -> PyResult<()> {
    run(py, &m, &mut d, moreau::step2)
}

/// Forward dynamics without integration (`mj_forward`).
#[pyfunction]
pub fn mj_forward(
    py: Python<'_>,
    m: PyRef<'_, MjModel>,
    mut d: PyRefMut<'_, MjData>,
) -> PyResult<()> {
    run(py, &m, &mut d, moreau::forward)
}

/// Inverse dynamics (`mj_inverse`): `qfrc_inverse` from `qpos`, `qvel` and `qacc`.
#[pyfunction]
pub fn mj_inverse(
    py: Python<'_>,
    m: PyRef<'_, MjModel>,
    mut d: PyRefMut<'_, MjData>,
) -> PyResult<()> {
    if let Some(why) = moreau::pipeline::inverse_unsupported(&m.model) {
        return Err(PyValueError::new_err(format!(
            "mj_inverse: model uses {why}, not supported yet"
        )));
    }
    run(py, &m, &mut d, moreau::inverse)
}

/// Position-dependent stages (`mj_fwdPosition`).
#[pyfunction]
pub fn mj_fwdPosition(
    py: Python<'_>,
    m: PyRef<'_, MjModel>,
    mut d: PyRefMut<'_, MjData>,
) -> PyResult<()> {
    run(py, &m, &mut d, moreau::pipeline::fwd_position)
}

/// Velocity-dependent stages (`mj_fwdVelocity`).
#[pyfunction]
pub fn mj_fwdVelocity(
    py: Python<'_>,
    m: PyRef<'_, MjModel>,
    mut d: PyRefMut<'_, MjData>,
) -> PyResult<()> {
    run(py, &m, &mut d, moreau::pipeline::fwd_velocity)
}

/// Position-stage sensors (`mj_sensorPos`); needs the position stage.
#[pyfunction]
pub fn mj_sensorPos(
    py: Python<'_>,
    m: PyRef<'_, MjModel>,
    mut d: PyRefMut<'_, MjData>,
) -> PyResult<()> {
    run(py, &m, &mut d, moreau::pipeline::sensor_pos)
}

/// Velocity-stage sensors (`mj_sensorVel`); needs the velocity stage.
#[pyfunction]
pub fn mj_sensorVel(
    py: Python<'_>,
    m: PyRef<'_, MjModel>,
    mut d: PyRefMut<'_, MjData>,
) -> PyResult<()> {
    run(py, &m, &mut d, moreau::pipeline::sensor_vel)
}

/// Acceleration-stage sensors (`mj_sensorAcc`); needs `qacc` and the forces.
#[pyfunction]
pub fn mj_sensorAcc(
    py: Python<'_>,
    m: PyRef<'_, MjModel>,
    mut d: PyRefMut<'_, MjData>,
) -> PyResult<()> {
    run(py, &m, &mut d, moreau::pipeline::sensor_acc)
}

/// Potential energy into `energy[0]` (`mj_energyPos`); needs the position stage.
#[pyfunction]
pub fn mj_energyPos(
    py: Python<'_>,
    m: PyRef<'_, MjModel>,
    mut d: PyRefMut<'_, MjData>,
) -> PyResult<()> {
    run(py, &m, &mut d, moreau::pipeline::energy_pos)
}

/// Kinetic energy into `energy[1]` (`mj_energyVel`); needs the inertia (position stage).
#[pyfunction]
pub fn mj_energyVel(
    py: Python<'_>,
    m: PyRef<'_, MjModel>,
    mut d: PyRefMut<'_, MjData>,
) -> PyResult<()> {
    run(py, &m, &mut d, moreau::pipeline::energy_vel)
}

/// Forward kinematics (`mj_kinematics`): body, geom, site poses.
#[pyfunction]
pub fn mj_kinematics(
    py: Python<'_>,
    m: PyRef<'_, MjModel>,
    mut d: PyRefMut<'_, MjData>,
) -> PyResult<()> {
    run(py, &m, &mut d, moreau::pipeline::kinematics)
}

/// Centers of mass, `cinert` and `cdof` (`mj_comPos`).
#[pyfunction]
pub fn mj_comPos(
    py: Python<'_>,
    m: PyRef<'_, MjModel>,
    mut d: PyRefMut<'_, MjData>,
) -> PyResult<()> {
    run(py, &m, &mut d, moreau::pipeline::com_pos)
}

/// Resets the data to the model's defaults (`mj_resetData`).
#[pyfunction]
pub fn mj_resetData(
    py: Python<'_>,
    m: PyRef<'_, MjModel>,
    mut d: PyRefMut<'_, MjData>,
) -> PyResult<()> {
    run(py, &m, &mut d, |m, d| d.reset(m))
}

/// Resets the data and loads keyframe `key` (`mj_resetDataKeyframe`).
#[pyfunction]
pub fn mj_resetDataKeyframe(
    py: Python<'_>,
    m: PyRef<'_, MjModel>,
    mut d: PyRefMut<'_, MjData>,
    key: i64,
) -> PyResult<()> {
    let nkey = m.model.nkey;
    let k = usize::try_from(key)
        .ok()
        .filter(|&k| k < nkey)
        .ok_or_else(|| {
            PyIndexError::new_err(format!("keyframe {key} out of range (model has {nkey})"))
        })?;
    run(py, &m, &mut d, |m, d| d.reset_keyframe(m, k))?.map_err(PyValueError::new_err)
}

/// Copies `src` into `dest` (`mj_copyData(dest, m, src)`).
#[pyfunction]
pub fn mj_copyData(
    py: Python<'_>,
    dest: &Bound<'_, MjData>,
    m: PyRef<'_, MjModel>,
    src: &Bound<'_, MjData>,
) -> PyResult<()> {
    if dest.is(src) {
        return Ok(());
    }
    let s = src.borrow();
    let mut d = dest.borrow_mut();
    s.check_model(&m.model)?;
    d.check_model(&m.model)?;
    let (dd, sd) = (&mut d.data, &s.data);
    py.detach(|| crate::data::copy_data(dd, sd))?;
    d.mocap_quat.copy_from_slice(&s.mocap_quat);
    Ok(())
}

fn state_err(e: moreau::StateError) -> PyErr {
    PyTypeError::new_err(e.to_string())
}

/// Size of the state vector of signature `sig` (`mj_stateSize`; `mjtState` bits).
#[pyfunction]
pub fn mj_stateSize(m: PyRef<'_, MjModel>, sig: u32) -> PyResult<usize> {
    moreau::state_size(&m.model, sig).map_err(state_err)
}

/// Writes the state components selected by `sig` into `state` (`mj_getState`).
#[pyfunction]
pub fn mj_getState(
    py: Python<'_>,
    m: PyRef<'_, MjModel>,
    mut d: PyRefMut<'_, MjData>,
    state: &Bound<'_, PyAny>,
    sig: u32,
) -> PyResult<()> {
    let n = moreau::state_size(&m.model, sig).map_err(state_err)?;
    let out = output(state, n, None, "state")
        .map_err(|_| PyTypeError::new_err("state size should equal mj_stateSize(m, sig)"))?;
    let mut buf = vec![0.0; n];
    run(py, &m, &mut d, |m, d| {
        moreau::get_state(m, d, &mut buf, sig)
    })?
    .map_err(state_err)?;
    drop(d);
    write(&out, &buf)
}

/// Sets the state components selected by `sig` from `state` (`mj_setState`).
#[pyfunction]
pub fn mj_setState(
    py: Python<'_>,
    m: PyRef<'_, MjModel>,
    mut d: PyRefMut<'_, MjData>,
    state: &Bound<'_, PyAny>,
    sig: u32,
) -> PyResult<()> {
    let n = moreau::state_size(&m.model, sig).map_err(state_err)?;
    let s = input(state, n, "state")
        .map_err(|_| PyTypeError::new_err("state size should equal mj_stateSize(m, sig)"))?;
    run(py, &m, &mut d, |m, d| moreau::set_state(m, d, &s, sig))?.map_err(state_err)
}

/// Copies the components `dstsig` of a state of signature `srcsig` (`mj_extractState`).
#[pyfunction]
pub fn mj_extractState(
    m: PyRef<'_, MjModel>,
    src: &Bound<'_, PyAny>,
    srcsig: u32,
    dst: &Bound<'_, PyAny>,
    dstsig: u32,
) -> PyResult<()> {
    let m = &m.model;
    if dstsig & !srcsig != 0 {
        return Err(PyValueError::new_err("dstsig must be a subset of srcsig"));
    }
    let ns = moreau::state_size(m, srcsig).map_err(state_err)?;
    let nd = moreau::state_size(m, dstsig).map_err(state_err)?;
    let s = input(src, ns, "src")?;
    let out = output(dst, nd, None, "dst")?;
    let mut v = Vec::with_capacity(nd);
    let mut k = 0;
    for i in 0..moreau::state_bits::NSTATE {
        let b = 1u32 << i;
        if srcsig & b == 0 {
            continue;
        }
        let len = moreau::state_size(m, b).map_err(state_err)?;
        if dstsig & b != 0 {
            v.extend_from_slice(&s[k..k + len]);
        }
        k += len;
    }
    write(&out, &v)
}

/// Checks a Jacobian output argument (3 × nv, or None).
fn jac_out<'py>(
    x: Option<&Bound<'py, PyAny>>,
    nv: usize,
    what: &str,
) -> PyResult<Option<Bound<'py, numpy::PyArrayDyn<f64>>>> {
    match x {
        None => Ok(None),
        Some(a) if a.is_none() => Ok(None),
        Some(a) => output(a, 3 * nv, Some((3, nv)), what).map(Some),
    }
}

/// Which point of which body a Jacobian is taken at.
enum JacPoint {
    Point([f64; 3], usize),
    Body(usize),
    BodyCom(usize),
    Site(usize),
    Geom(usize),
}

fn jacobian(
    py: Python<'_>,
    m: PyRef<'_, MjModel>,
    d: PyRef<'_, MjData>,
    jacp: Option<&Bound<'_, PyAny>>,
    jacr: Option<&Bound<'_, PyAny>>,
    at: JacPoint,
) -> PyResult<()> {
    let model = &m.model;
    d.check_model(model)?;
    let nv = model.nv;
    let (n, what) = match at {
        JacPoint::Point(_, b) | JacPoint::Body(b) | JacPoint::BodyCom(b) => (model.nbody, b),
        JacPoint::Site(s) => (model.nsite, s),
        JacPoint::Geom(g) => (model.ngeom, g),
    };
    if what >= n {
        return Err(PyIndexError::new_err(format!(
            "id {what} out of range ({n} elements)"
        )));
    }
    let jp = jac_out(jacp, nv, "jacp")?;
    let jr = jac_out(jacr, nv, "jacr")?;
    let mut bp = vec![0.0; 3 * nv];
    let mut br = vec![0.0; 3 * nv];
    let data = &d.data;
    let (wp, wr) = (jp.is_some(), jr.is_some());
    py.detach(|| {
        let (p, b) = match at {
            JacPoint::Point(p, b) => (Vector3::from(p), b),
            JacPoint::Body(b) => (data.xpos[b], b),
            JacPoint::BodyCom(b) => (data.xipos[b], b),
            JacPoint::Site(s) => (data.site_xpos[s], model.site_bodyid[s]),
            JacPoint::Geom(g) => (data.geom_xpos[g], model.geom_bodyid[g]),
        };
        moreau::jac(
            model,
            data,
            &p,
            b,
            wp.then_some(&mut bp[..]),
            wr.then_some(&mut br[..]),
        );
    });
    drop(d);
    if let Some(a) = jp {
        write(&a, &bp)?;
    }
    if let Some(a) = jr {
        write(&a, &br)?;
    }
    Ok(())
}

/// Jacobians of the world point `point` attached to `body` (`mj_jac`): `jacp`, `jacr` are
/// 3 × nv outputs (or None).
#[pyfunction]
pub fn mj_jac(
    py: Python<'_>,
    m: PyRef<'_, MjModel>,
    d: PyRef<'_, MjData>,
    jacp: Option<&Bound<'_, PyAny>>,
    jacr: Option<&Bound<'_, PyAny>>,
    point: &Bound<'_, PyAny>,
    body: usize,
) -> PyResult<()> {
    let p = input(point, 3, "point")?;
    jacobian(
        py,
        m,
        d,
        jacp,
        jacr,
        JacPoint::Point([p[0], p[1], p[2]], body),
    )
}

/// Jacobians of a body frame's origin (`mj_jacBody`).
#[pyfunction]
pub fn mj_jacBody(
    py: Python<'_>,
    m: PyRef<'_, MjModel>,
    d: PyRef<'_, MjData>,
    jacp: Option<&Bound<'_, PyAny>>,
    jacr: Option<&Bound<'_, PyAny>>,
    body: usize,
) -> PyResult<()> {
    jacobian(py, m, d, jacp, jacr, JacPoint::Body(body))
}

/// Jacobians of a body's center of mass (`mj_jacBodyCom`).
#[pyfunction]
pub fn mj_jacBodyCom(
    py: Python<'_>,
    m: PyRef<'_, MjModel>,
    d: PyRef<'_, MjData>,
    jacp: Option<&Bound<'_, PyAny>>,
    jacr: Option<&Bound<'_, PyAny>>,
    body: usize,
) -> PyResult<()> {
    jacobian(py, m, d, jacp, jacr, JacPoint::BodyCom(body))
}

/// Jacobians of a site (`mj_jacSite`).
#[pyfunction]
pub fn mj_jacSite(
    py: Python<'_>,
    m: PyRef<'_, MjModel>,
    d: PyRef<'_, MjData>,
    jacp: Option<&Bound<'_, PyAny>>,
    jacr: Option<&Bound<'_, PyAny>>,
    site: usize,
) -> PyResult<()> {
    jacobian(py, m, d, jacp, jacr, JacPoint::Site(site))
}

/// Jacobians of a geom's center (`mj_jacGeom`).
#[pyfunction]
pub fn mj_jacGeom(
    py: Python<'_>,
    m: PyRef<'_, MjModel>,
    d: PyRef<'_, MjData>,
    jacp: Option<&Bound<'_, PyAny>>,
    jacr: Option<&Bound<'_, PyAny>>,
    geom: usize,
) -> PyResult<()> {
    jacobian(py, m, d, jacp, jacr, JacPoint::Geom(geom))
}

/// `qvel = (qpos2 ⊖ qpos1) / dt` (`mj_differentiatePos(m, qvel, dt, qpos1, qpos2)`).
#[pyfunction]
pub fn mj_differentiatePos(
    py: Python<'_>,
    m: PyRef<'_, MjModel>,
    qvel: &Bound<'_, PyAny>,
    dt: f64,
    qpos1: &Bound<'_, PyAny>,
    qpos2: &Bound<'_, PyAny>,
) -> PyResult<()> {
    let model = &m.model;
    let out = output(qvel, model.nv, None, "qvel")?;
    let q1 = input(qpos1, model.nq, "qpos1")?;
    let q2 = input(qpos2, model.nq, "qpos2")?;
    let mut v = vec![0.0; model.nv];
    py.detach(|| moreau::differentiate_pos(model, &mut v, dt, &q1, &q2));
    write(&out, &v)
}

/// `qpos ← qpos ⊕ dt·qvel` in place (`mj_integratePos(m, qpos, qvel, dt)`).
#[pyfunction]
pub fn mj_integratePos(
    py: Python<'_>,
    m: PyRef<'_, MjModel>,
    qpos: &Bound<'_, PyAny>,
    qvel: &Bound<'_, PyAny>,
    dt: f64,
) -> PyResult<()> {
    let model = &m.model;
    let out = output(qpos, model.nq, None, "qpos")?;
    let mut q = input(qpos, model.nq, "qpos")?;
    let v = input(qvel, model.nv, "qvel")?;
    py.detach(|| moreau::integrate_pos(model, &mut q, &v, dt));
    write(&out, &q)
}

/// Normalizes the quaternions of a qpos-type vector in place (`mj_normalizeQuat`).
#[pyfunction]
pub fn mj_normalizeQuat(m: PyRef<'_, MjModel>, qpos: &Bound<'_, PyAny>) -> PyResult<()> {
    let model = &m.model;
    let out = output(qpos, model.nq, None, "qpos")?;
    let mut q = input(qpos, model.nq, "qpos")?;
    moreau::normalize_quat(model, &mut q);
    write(&out, &q)
}

pub(crate) fn geomgroup(x: Option<&Bound<'_, PyAny>>) -> PyResult<Option<[bool; 6]>> {
    match x {
        None => Ok(None),
        Some(a) if a.is_none() => Ok(None),
        Some(a) => {
            let v = input(a, 6, "geomgroup")?;
            Ok(Some([
                v[0] != 0.0,
                v[1] != 0.0,
                v[2] != 0.0,
                v[3] != 0.0,
                v[4] != 0.0,
                v[5] != 0.0,
            ]))
        }
    }
}

/// Whether the local point `p` lies strictly inside the primitive of type `ty` and `size`
/// (MuJoCo's geom conventions: half sizes, capsule and cylinder along z).
fn inside_primitive(ty: GeomType, size: &[f64; 3], p: &Vector3<f64>) -> bool {
    let r2 = p.x * p.x + p.y * p.y;
    match ty {
        GeomType::Sphere => p.norm() < size[0],
        GeomType::Capsule => {
            let z = p.z.clamp(-size[1], size[1]);
            (p - Vector3::new(0.0, 0.0, z)).norm() < size[0]
        }
        GeomType::Ellipsoid => {
            (p.x / size[0]).powi(2) + (p.y / size[1]).powi(2) + (p.z / size[2]).powi(2) < 1.0
        }
        GeomType::Cylinder => r2 < size[0] * size[0] && p.z.abs() < size[1],
        GeomType::Box => (0..3).all(|i| p[i].abs() < size[i]),
        _ => false,
    }
}

/// The unit surface normal where the ray `pnt + x·vec` meets geom `g` (the `normal` output of
/// `mj_ray`), pointing out of the geom. The distance `x(pnt)` to a smooth surface with normal
/// `n` moves as `∂x/∂pnt = -n / (n·vec)`, so the gradient, taken exactly by forward-mode dual
/// numbers through the engine's own ray test in the geom's frame, is parallel to the normal
/// and points to the side of the ray's origin; it is flipped when the origin lies inside a
/// closed primitive.
pub(crate) fn ray_normal(
    m: &Model,
    d: &Data,
    g: usize,
    pnt: &Vector3<f64>,
    vec: &Vector3<f64>,
) -> [f64; 3] {
    use num_dual::Dual64;
    let mat = d.geom_xmat[g];
    let lp = mat.tr_mul(&(pnt - d.geom_xpos[g]));
    let lv = mat.tr_mul(vec).map(Dual64::from_re);
    let mut grad = Vector3::<f64>::zeros();
    for k in 0..3 {
        let p = Vector3::from_fn(|i, _| Dual64::new(lp[i], if i == k { 1.0 } else { 0.0 }));
        let x = match m.geom_type[g] {
            GeomType::Mesh => moreau::pipeline::ray_mesh(m, g, &p, &lv),
            GeomType::Hfield => moreau::pipeline::ray_hfield(m, g, &p, &lv),
            t => moreau::pipeline::ray_primitive_local(t, &m.geom_size[g], &p, &lv),
        };
        grad[k] = x.eps;
    }
    let norm = grad.norm();
    if !(norm > 0.0 && norm.is_finite()) {
        return [0.0; 3];
    }
    let mut n = grad / norm;
    if inside_primitive(m.geom_type[g], &m.geom_size[g], &lp) {
        n = -n;
    }
    let w: Vector3<f64> = mat * n;
    [w.x, w.y, w.z]
}

/// Intersects the ray `pnt + x·vec` (x ≥ 0) with the visible geoms (`mj_ray`): returns the
/// distance `x` to the nearest surface or -1, and writes the geom id (or -1) into `geomid`
/// (an int32 array of one element, or None). `geomgroup` (6 flags or None) and `flg_static` as
/// in `mjvOption`; geoms of body `bodyexclude` are skipped (-1: none). `normal` (3 floats or
/// None) receives the unit surface normal at the hit, pointing out of the geom (zeros for no
/// hit).
#[pyfunction]
#[pyo3(signature = (m, d, pnt, vec, geomgroup, flg_static, bodyexclude, geomid, normal=None))]
#[allow(clippy::too_many_arguments)]
pub fn mj_ray(
    py: Python<'_>,
    m: PyRef<'_, MjModel>,
    d: PyRef<'_, MjData>,
    pnt: &Bound<'_, PyAny>,
    vec: &Bound<'_, PyAny>,
    geomgroup: Option<&Bound<'_, PyAny>>,
    flg_static: &Bound<'_, PyAny>,
    bodyexclude: i64,
    geomid: Option<&Bound<'_, PyAny>>,
    normal: Option<&Bound<'_, PyAny>>,
) -> PyResult<f64> {
    let model = &m.model;
    d.check_model(model)?;
    let p = input(pnt, 3, "pnt")?;
    let v = input(vec, 3, "vec")?;
    let nout = match normal {
        Some(a) if !a.is_none() => Some(output(a, 3, None, "normal")?),
        _ => None,
    };
    let gg = self::geomgroup(geomgroup)?;
    let gid = match geomid {
        Some(a) if !a.is_none() => {
            let arr = a.cast::<numpy::PyArrayDyn<i32>>().map_err(|_| {
                PyTypeError::new_err("geomid must be an int32 numpy array of size 1")
            })?;
            if arr.len()? != 1 {
                return Err(PyTypeError::new_err("geomid must be of size 1"));
            }
            Some(arr.clone())
        }
        _ => None,
    };
    let excl = usize::try_from(bodyexclude).ok();
    let flg_static = flg_static.is_truthy()?;
    let data = &d.data;
    let want_normal = nout.is_some();
    let (x, g, n) = py.detach(|| {
        let (pv, vv) = (
            Vector3::new(p[0], p[1], p[2]),
            Vector3::new(v[0], v[1], v[2]),
        );
        let (x, g) = moreau::ray(model, data, &pv, &vv, gg, flg_static, excl);
        let n = match g {
            Some(g) if want_normal => ray_normal(model, data, g, &pv, &vv),
            _ => [0.0; 3],
        };
        (x, g, n)
    });
    if let Some(a) = &nout {
        write(a, &n)?;
    }
    if let Some(a) = gid {
        use numpy::PyArrayMethods;
        let mut rw = a.try_readwrite()?;
        let s = rw
            .as_slice_mut()
            .map_err(|e| PyValueError::new_err(e.to_string()))?;
        s[0] = g.map_or(-1, |g| g as i32);
    }
    Ok(x)
}

/// Casts `nray` rays from one point (`mj_multiRay`): `vec` holds 3·nray directions; distances
/// (or -1) go to `dist`, geom ids (or -1) to `geomid`; geoms whose bounding sphere lies beyond
/// `cutoff` from `pnt` are ignored.
/// `normal` (3·nray floats or None) receives the unit surface normals, as in `mj_ray`.
#[pyfunction]
#[pyo3(signature = (m, d, pnt, vec, geomgroup, flg_static, bodyexclude, geomid, dist, normal, nray, cutoff))]
#[allow(clippy::too_many_arguments)]
pub fn mj_multiRay(
    py: Python<'_>,
    m: PyRef<'_, MjModel>,
    d: PyRef<'_, MjData>,
    pnt: &Bound<'_, PyAny>,
    vec: &Bound<'_, PyAny>,
    geomgroup: Option<&Bound<'_, PyAny>>,
    flg_static: &Bound<'_, PyAny>,
    bodyexclude: i64,
    geomid: &Bound<'_, PyAny>,
    dist: &Bound<'_, PyAny>,
    normal: Option<&Bound<'_, PyAny>>,
    nray: usize,
    cutoff: f64,
) -> PyResult<()> {
    use numpy::PyArrayMethods;
    let model = &m.model;
    d.check_model(model)?;
    let p = input(pnt, 3, "pnt")?;
    let v = input(vec, 3 * nray, "vec")?;
    let gg = self::geomgroup(geomgroup)?;
    let dout = output(dist, nray, None, "dist")?;
    let nout = match normal {
        Some(a) if !a.is_none() => Some(output(a, 3 * nray, None, "normal")?),
        _ => None,
    };
    let gout = geomid
        .cast::<numpy::PyArrayDyn<i32>>()
        .map_err(|_| PyTypeError::new_err("geomid must be an int32 numpy array"))?
        .clone();
    if gout.len()? != nray {
        return Err(PyTypeError::new_err(format!(
            "geomid should be of size {nray}"
        )));
    }
    let excl = usize::try_from(bodyexclude).ok();
    let flg_static = flg_static.is_truthy()?;
    let data = &d.data;
    let dirs: Vec<Vector3<f64>> = v
        .chunks_exact(3)
        .map(|c| Vector3::new(c[0], c[1], c[2]))
        .collect();
    let mut ds = vec![0.0; nray];
    let mut gs = vec![None; nray];
    let mut ns = vec![0.0; if nout.is_some() { 3 * nray } else { 0 }];
    py.detach(|| {
        let pv = Vector3::new(p[0], p[1], p[2]);
        // MuJoCo's cutoff culls geoms, not hits: a geom whose bounding sphere lies entirely
        // farther than `cutoff` from `pnt` is skipped (planes, with rbound 0, never are); a hit
        // on a remaining geom is reported at any distance.
        let geoms: Vec<usize> = (0..model.ngeom)
            .filter(|&g| {
                let rb = model.geom_rbound[g];
                moreau::pipeline::ray_eligible(model, g, gg, flg_static, excl)
                    && !(rb > 0.0 && (data.geom_xpos[g] - pv).norm() - rb > cutoff)
            })
            .collect();
        for (k, dir) in dirs.iter().enumerate() {
            let (mut best, mut id) = (-1.0, None);
            for &g in &geoms {
                let x = moreau::pipeline::ray_geom(model, data, g, &pv, dir);
                if x >= 0.0 && (best < 0.0 || x < best) {
                    (best, id) = (x, Some(g));
                }
            }
            ds[k] = best;
            gs[k] = id;
        }
        for (k, n) in ns.chunks_exact_mut(3).enumerate() {
            if let Some(g) = gs[k] {
                n.copy_from_slice(&ray_normal(model, data, g, &pv, &dirs[k]));
            }
        }
    });
    drop(d);
    write(&dout, &ds)?;
    if let Some(a) = &nout {
        write(a, &ns)?;
    }
    let mut rw = gout.try_readwrite()?;
    let s = rw
        .as_slice_mut()
        .map_err(|e| PyValueError::new_err(e.to_string()))?;
    for (x, g) in s.iter_mut().zip(&gs) {
        *x = g.map_or(-1, |g| g as i32);
    }
    Ok(())
}

/// Id of the element of type `type` (`mjtObj`) named `name`, or -1 (`mj_name2id`).
#[pyfunction]
#[pyo3(signature = (m, r#type, name))]
pub fn mj_name2id(m: PyRef<'_, MjModel>, r#type: i32, name: &str) -> i64 {
    crate::model::names_of(&m.model, r#type)
        .and_then(|ns| ns.iter().position(|n| n == name))
        .map_or(-1, |i| i as i64)
}

/// Name of element `id` of type `type` (`mjtObj`), or None (`mj_id2name`).
#[pyfunction]
#[pyo3(signature = (m, r#type, id))]
pub fn mj_id2name(m: PyRef<'_, MjModel>, r#type: i32, id: i64) -> Option<String> {
    let ns = crate::model::names_of(&m.model, r#type)?;
    usize::try_from(id)
        .ok()
        .and_then(|i| ns.get(i))
        .filter(|n| !n.is_empty())
        .cloned()
}

/// The dense joint-space inertia matrix into `dst` (nv × nv) (`mj_fullM`; needs `qM` from
/// `mj_forward` or `mj_step`).
#[pyfunction]
pub fn mj_fullM(
    m: PyRef<'_, MjModel>,
    d: PyRef<'_, MjData>,
    dst: &Bound<'_, PyAny>,
) -> PyResult<()> {
    let model = &m.model;
    d.check_model(model)?;
    let nv = model.nv;
    let out = output(dst, nv * nv, Some((nv, nv)), "dst")?;
    let mut full = vec![0.0; nv * nv];
    for i in 0..nv {
        let mut j = i as i32;
        let mut a = model.dof_Madr[i];
        while let Ok(ju) = usize::try_from(j) {
            let v = d.data.qM[a];
            full[i * nv + ju] = v;
            full[ju * nv + i] = v;
            a += 1;
            j = model.dof_parentid[ju];
        }
    }
    drop(d);
    write(&out, &full)
}

/// `res = M vec` (`mj_mulM`).
#[pyfunction]
pub fn mj_mulM(
    m: PyRef<'_, MjModel>,
    d: PyRef<'_, MjData>,
    res: &Bound<'_, PyAny>,
    vec: &Bound<'_, PyAny>,
) -> PyResult<()> {
    let model = &m.model;
    d.check_model(model)?;
    let out = output(res, model.nv, None, "res")?;
    let x = input(vec, model.nv, "vec")?;
    let mut y = vec![0.0; model.nv];
    moreau::mul_m(model, &d.data, &x, &mut y);
    drop(d);
    write(&out, &y)
}

/// Recomputes the model's derived constants at `qpos0` (`mj_setConst`): subtree masses,
/// inverse weights, `dof_M0`, `actuator_acc0`, tendon lengths, … after parameters were
/// written. Array views of the model stay valid.
#[pyfunction]
pub fn mj_setConst(py: Python<'_>, m: &Bound<'_, MjModel>, d: PyRef<'_, MjData>) -> PyResult<()> {
    let mut mr = m.borrow_mut();
    d.check_model(&mr.model)?;
    let mut fresh = mr.model.clone();
    let fresh = py.detach(move || {
        // subtree masses, as mj_setConst recomputes them (the engine's set_const does not)
        fresh.body_subtreemass.copy_from_slice(&fresh.body_mass);
        for b in (1..fresh.nbody).rev() {
            let p = fresh.body_parentid[b];
            fresh.body_subtreemass[p] += fresh.body_subtreemass[b];
        }
        // the frames a geom, site or inertia shares with its body, as mj_setConst recomputes
        // them (measured on MuJoCo 4.0.0: a moved geom_pos changes geom_sameframe)
        fresh.fill_sameframe();
        fresh.update_actuator_extras();
        moreau::set_const(&mut fresh);
        fresh
    });
    crate::model::assign_model(&mut mr.model, fresh)
}

/// The MuJoCo version whose numbers moreau reproduces, encoded as MuJoCo does (4.0.0 → 4000).
#[pyfunction]
pub fn mj_version() -> i32 {
    4000
}

/// The MuJoCo version whose numbers moreau reproduces.
#[pyfunction]
pub fn mj_versionString() -> &'static str {
    "4.0.0"
}

/// Registers the functions.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(mj_step, m)?)?;
    m.add_function(wrap_pyfunction!(mj_step1, m)?)?;
    m.add_function(wrap_pyfunction!(mj_step2, m)?)?;
    m.add_function(wrap_pyfunction!(mj_forward, m)?)?;
    m.add_function(wrap_pyfunction!(mj_inverse, m)?)?;
    m.add_function(wrap_pyfunction!(mj_fwdPosition, m)?)?;
    m.add_function(wrap_pyfunction!(mj_fwdVelocity, m)?)?;
    m.add_function(wrap_pyfunction!(mj_sensorPos, m)?)?;
    m.add_function(wrap_pyfunction!(mj_sensorVel, m)?)?;
    m.add_function(wrap_pyfunction!(mj_sensorAcc, m)?)?;
    m.add_function(wrap_pyfunction!(mj_energyPos, m)?)?;
    m.add_function(wrap_pyfunction!(mj_energyVel, m)?)?;
    m.add_function(wrap_pyfunction!(mj_kinematics, m)?)?;
    m.add_function(wrap_pyfunction!(mj_comPos, m)?)?;
    m.add_function(wrap_pyfunction!(mj_resetData, m)?)?;
    m.add_function(wrap_pyfunction!(mj_resetDataKeyframe, m)?)?;
    m.add_function(wrap_pyfunction!(mj_copyData, m)?)?;
    m.add_function(wrap_pyfunction!(mj_stateSize, m)?)?;
    m.add_function(wrap_pyfunction!(mj_getState, m)?)?;
    m.add_function(wrap_pyfunction!(mj_setState, m)?)?;
    m.add_function(wrap_pyfunction!(mj_extractState, m)?)?;
    m.add_function(wrap_pyfunction!(mj_jac, m)?)?;
    m.add_function(wrap_pyfunction!(mj_jacBody, m)?)?;
    m.add_function(wrap_pyfunction!(mj_jacBodyCom, m)?)?;
    m.add_function(wrap_pyfunction!(mj_jacSite, m)?)?;
    m.add_function(wrap_pyfunction!(mj_jacGeom, m)?)?;
    m.add_function(wrap_pyfunction!(mj_differentiatePos, m)?)?;
    m.add_function(wrap_pyfunction!(mj_integratePos, m)?)?;
    m.add_function(wrap_pyfunction!(mj_normalizeQuat, m)?)?;
    m.add_function(wrap_pyfunction!(mj_ray, m)?)?;
    m.add_function(wrap_pyfunction!(mj_multiRay, m)?)?;
    m.add_function(wrap_pyfunction!(mj_name2id, m)?)?;
    m.add_function(wrap_pyfunction!(mj_id2name, m)?)?;
    m.add_function(wrap_pyfunction!(mj_fullM, m)?)?;
    m.add_function(wrap_pyfunction!(mj_mulM, m)?)?;
    m.add_function(wrap_pyfunction!(mj_setConst, m)?)?;
    m.add_function(wrap_pyfunction!(mj_version, m)?)?;
    m.add_function(wrap_pyfunction!(mj_versionString, m)?)?;
    Ok(())
}
