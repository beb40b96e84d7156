//! `MjData`: the simulation state and the pipeline's results, as NumPy arrays.
//!
//! Views (writeable, share memory with the Rust `Data`, MuJoCo's shapes): `qpos`, `qvel`,
//! `act`, `ctrl`, `qacc`, `qacc_warmstart`, `qfrc_*`, `xfrc_applied`, `mocap_pos`, `xpos`,
//! `xipos`, `xanchor`, `xaxis`, `geom_xpos`, `site_xpos`, `cam_xpos`, `subtree_com`, `cdof`,
//! `cvel`, `cacc`, `cfrc_int`, `cfrc_ext`, `cinert`, `crb`, `sensordata`, `actuator_*`,
//! `ten_length`, `ten_velocity`, `eq_active`, `qM` (moreau's tree-sparse layout, `dof_Madr`).
//!
//! `mocap_quat` is a writeable array in MuJoCo's (w, x, y, z) order that the engine reads before
//! and writes after every call (moreau stores nalgebra quaternions, (x, y, z, w) in memory).
//!
//! Read-only copies, made at each access (moreau's layout differs): `xquat`, `xmat`, `ximat`,
//! `geom_xmat`, `site_xmat`, `cam_xmat` (row-major 3×3 as 9 numbers), the `efc_*` arrays
//! (their length changes with the number of constraints), `contact`, `warning`,
//! `solver_niter`. Keep a reference to a view and it follows the simulation; keep a copy and it
//! does not.

use crate::arrays::{copy, readonly, view1, view_rows, view_vecs};
use crate::layout::{model_layout, row_major, wxyz};
use crate::model::{MjModel, Named};
use moreau::model::SolverType;
use moreau::{Data, Model};
use nalgebra::{Matrix3, Quaternion};
use pyo3::exceptions::{PyAttributeError, PyIndexError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyTuple;

/// The constraint problem's counts that MuJoCo keeps in `mjData`, by name: contacts (`ncon`),
/// rows (`nefc`), equality, friction-loss and limit rows (`ne`, `nf`, `nl`), nonzeros of
/// `efc_J` (`nJ`) and of `efc_AR` (`nA`, [`n_ar`]), islands and their dofs (`nisland`,
/// `nidof`); `None` for another name.
pub(crate) fn count(m: &Model, d: &Data, name: &str) -> Option<usize> {
    use moreau::data::ConstraintType::{Equality, LimitJoint, LimitTendon};
    let rows = || d.efc_type.iter().take(d.nefc);
    Some(match name {
        "ncon" => d.contact.len(),
        "nefc" => d.nefc,
        "ne" => rows().filter(|&&t| t == Equality).count(),
        "nf" => rows().filter(|t| t.is_friction()).count(),
        "nl" => rows()
            .filter(|&&t| t == LimitJoint || t == LimitTendon)
            .count(),
        "nJ" if d.efc_J_sparse => d.efc_J_rownnz.iter().take(d.nefc).sum(),
        "nJ" => d.nefc * d.qvel.len(),
        "nA" => n_ar(m, d),
        "nisland" => d.nisland,
        "nidof" => d.nidof,
        _ => return None,
    })
}

/// Nonzeros of `efc_AR` = J M⁻¹ Jᵀ + R (mjData's `nA`). MuJoCo forms AR only for the dual
/// problem, PGS or the noslip pass (`noslip_iterations > 0`); otherwise it is 0. Its count over
/// all rows is [`moreau::ar_nnz`].
fn n_ar(m: &Model, d: &Data) -> usize {
    if !(m.opt.solver == SolverType::Pgs || m.opt.noslip_iterations > 0) {
        return 0;
    }
    let rows: Vec<usize> = (0..d.nefc).collect();
    moreau::ar_nnz(m, d, &rows, &mut Default::default())
}

/// The simulation state and all intermediate results for one model (`mujoco.MjData`).
#[pyclass(module = "moreau", name = "MjData")]
pub struct MjData {
    pub data: Data,
    /// The model this data was made for.
    pub model: Py<MjModel>,
    /// The sizes of that model ([`crate::model::sizes`]).
    pub sizes: [usize; 17],
    /// `mocap_quat` in MuJoCo's (w, x, y, z) order: what Python sees and writes.
    pub mocap_quat: Vec<[f64; 4]>,
    /// Reused buffers of `mjd_transitionFD` / `mjd_inverseFD`.
    pub fd: Option<Box<moreau_derivatives::fd::FdWorkspace>>,
    /// Reused buffers of the analytic transition Jacobians.
    pub analytic: Option<Box<moreau_derivatives::Workspace>>,
    /// `efc_AR` and `efc_Y` as last formed, with their inputs ([`crate::efc`]).
    pub dual: std::sync::Mutex<crate::efc::DualCache>,
}

impl MjData {
    /// Makes the data of `model` (`mj_makeData` + `mj_resetData`).
    /// `FatalError` if the reset's forward pass over `sleep="init"` trees overflowed the
    /// arena's stack (MuJoCo 4.0.0's `mj_makeData` fails there; only a model edited after
    /// compiling gets there).
    pub fn create(py: Python<'_>, model: &Bound<'_, MjModel>) -> PyResult<Self> {
        let m = model.borrow();
        let mm = &m.model;
        let data = py.detach(|| Data::new(mm));
        crate::errors::check_fatal(&data)?;
        let mut d = MjData {
            mocap_quat: vec![[1.0, 0.0, 0.0, 0.0]; data.mocap_quat.len()],
            data,
            model: model.clone().unbind(),
            sizes: crate::model::sizes(&m.model),
            fd: None,
            analytic: None,
            dual: Default::default(),
        };
        d.sync_out();
        Ok(d)
    }

    /// Before a call: the Python-side `mocap_quat` into the engine's quaternions.
    pub fn sync_in(&mut self) {
        for (q, p) in self.data.mocap_quat.iter_mut().zip(&self.mocap_quat) {
            *q = Quaternion::new(p[0], p[1], p[2], p[3]);
        }
    }

    /// After a call: the engine's `mocap_quat` back into the Python-side array.
    pub fn sync_out(&mut self) {
        for (p, q) in self.mocap_quat.iter_mut().zip(&self.data.mocap_quat) {
            *p = [q.w, q.i, q.j, q.k];
        }
    }

    /// Field `name` of [`model_layout`] as a read-only copy of rows of `width`.
    fn layout<'py>(&self, py: Python<'py>, name: &str, width: usize) -> Bound<'py, PyAny> {
        let mr = self.model.bind(py).borrow();
        let n = model_layout(&mr.model, &self.data, name, None).unwrap_or(0);
        let mut out = vec![0.0; n];
        model_layout(&mr.model, &self.data, name, Some(&mut out));
        let shape = if width == 1 {
            vec![n]
        } else {
            vec![n / width, width]
        };
        copy(py, out, &shape)
    }

    /// Checks that this data fits model `m` (made for it or for a model of the same sizes).
    pub fn check_model(&self, m: &moreau::Model) -> PyResult<()> {
        if self.sizes != crate::model::sizes(m) {
            return Err(PyValueError::new_err(
                "MjData was made for a model of different sizes than this MjModel",
            ));
        }
        Ok(())
    }
}

/// `(n, 4)` (w, x, y, z) rows of quaternions.
fn quats(q: &[Quaternion<f64>]) -> Vec<f64> {
    q.iter().flat_map(wxyz).collect()
}

/// `(n, 9)` row-major rotation matrices.
fn mats(r: &[Matrix3<f64>]) -> Vec<f64> {
    r.iter().flat_map(row_major).collect()
}

/// A read-only int32 copy of an index array.
fn int32_copy<'py>(py: Python<'py>, v: &[usize]) -> Bound<'py, PyAny> {
    copy(py, v.iter().map(|&x| x as i32).collect(), &[v.len()])
}

/// `moment_rownnz`, `moment_rowadr` or `moment_colind` (`v`) of `d` as int32, zeros while the
/// transmission stage has not run since a reset ([`Data::moment_rows_set`]).
fn moment_rows<'py>(py: Python<'py>, d: &Data, v: &[usize]) -> Bound<'py, PyAny> {
    match d.moment_rows_set() {
        true => int32_copy(py, v),
        false => copy(py, vec![0i32; v.len()], &[v.len()]),
    }
}

macro_rules! data_arrays {
    (
        floats { $($f:ident),* $(,)? }
        vec3 { $($v3:ident),* $(,)? }
        vec3_pairs { $($p3:ident),* $(,)? }
        vec6 { $($v6:ident),* $(,)? }
        rows { $($r:ident),* $(,)? }
        quats { $($q:ident),* $(,)? }
        mats { $($mt:ident),* $(,)? }
        efc { $($e:ident),* $(,)? }
    ) => {
        #[pymethods]
        impl MjData {
            $(
                #[doc = concat!("`", stringify!($f), "` (writeable view).")]
                #[getter]
                fn $f<'py>(slf: &Bound<'py, Self>) -> Bound<'py, PyAny> {
                    let d = slf.borrow();
                    // SAFETY: data buffers are never reallocated (crate::arrays).
                    unsafe { view1(slf.as_any(), &d.data.$f[..]) }
                }
            )*
            $(
                #[doc = concat!("`", stringify!($v3), "` (writeable view, (n, 3)).")]
                #[getter]
                fn $v3<'py>(slf: &Bound<'py, Self>) -> Bound<'py, PyAny> {
                    let d = slf.borrow();
                    // SAFETY: as above.
                    unsafe { view_vecs(slf.as_any(), &d.data.$v3) }
                }
            )*
            $(
                #[doc = concat!("`", stringify!($p3), "` (writeable view, (n, 6): two points a row).")]
                #[getter]
                fn $p3<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyAny>> {
                    let d = slf.borrow();
                    let n = d.data.$p3.len() / 2;
                    // SAFETY: as above.
                    let v = unsafe { view_vecs(slf.as_any(), &d.data.$p3) };
                    v.call_method1("reshape", ((n, 6),))
                }
            )*
            $(
                #[doc = concat!("`", stringify!($v6), "` (writeable view, (n, 6)).")]
                #[getter]
                fn $v6<'py>(slf: &Bound<'py, Self>) -> Bound<'py, PyAny> {
                    let d = slf.borrow();
                    // SAFETY: as above.
                    unsafe { view_vecs(slf.as_any(), &d.data.$v6) }
                }
            )*
            $(
                #[doc = concat!("`", stringify!($r), "` (writeable view, one row per element).")]
                #[getter]
                fn $r<'py>(slf: &Bound<'py, Self>) -> Bound<'py, PyAny> {
                    let d = slf.borrow();
                    // SAFETY: as above.
                    unsafe { view_rows(slf.as_any(), &d.data.$r) }
                }
            )*
            $(
                #[doc = concat!("`", stringify!($q), "`, (n, 4) as (w, x, y, z) (read-only copy).")]
                #[getter]
                fn $q<'py>(&self, py: Python<'py>) -> Bound<'py, PyAny> {
                    let n = self.data.$q.len();
                    copy(py, quats(&self.data.$q), &[n, 4])
                }
            )*
            $(
                #[doc = concat!("`", stringify!($mt), "`, (n, 9) row-major (read-only copy).")]
                #[getter]
                fn $mt<'py>(&self, py: Python<'py>) -> Bound<'py, PyAny> {
                    let n = self.data.$mt.len();
                    copy(py, mats(&self.data.$mt), &[n, 9])
                }
            )*
            $(
                #[doc = concat!("`", stringify!($e), "` (nefc, read-only copy).")]
                #[getter]
                fn $e<'py>(&self, py: Python<'py>) -> Bound<'py, PyAny> {
                    let n = self.data.nefc;
                    copy(py, self.data.$e[..n].to_vec(), &[n])
                }
            )*
        }

        /// Copies `src` into `dst`, keeping the buffers Python may view (`mj_copyData`).
        pub fn copy_data(dst: &mut Data, src: &Data) -> PyResult<()> {
            let mut src = src.clone();
            $( swap_keep(&mut dst.$f, &mut src.$f)?; )*
            $( swap_keep(&mut dst.$v3, &mut src.$v3)?; )*
            $( swap_keep(&mut dst.$p3, &mut src.$p3)?; )*
            $( swap_keep(&mut dst.$v6, &mut src.$v6)?; )*
            $( swap_keep(&mut dst.$r, &mut src.$r)?; )*
            swap_keep(&mut dst.eq_active, &mut src.eq_active)?;
            // the contact list keeps its reserved capacity (the contact limit)
            let cap = dst.contact.capacity();
            *dst = src;
            dst.contact.reserve(cap.saturating_sub(dst.contact.len()));
            Ok(())
        }

        /// Calls `f` on every number of the array fields above except the constraint rows
        /// (fields in a fixed order, each element's numbers in memory order): what a pickled
        /// `MjData` carries besides its rows and contacts.
        fn visit_arrays(d: &mut Data, f: &mut impl FnMut(&mut [f64])) {
            $( f(&mut d.$f); )*
            $( d.$v3.iter_mut().for_each(|x| f(x.as_mut_slice())); )*
            $( d.$p3.iter_mut().for_each(|x| f(x.as_mut_slice())); )*
            $( d.$v6.iter_mut().for_each(|x| f(x.as_mut_slice())); )*
            $( d.$r.iter_mut().for_each(|x| f(&mut x[..])); )*
            $( d.$q.iter_mut().for_each(|x| f(x.coords.as_mut_slice())); )*
            $( d.$mt.iter_mut().for_each(|x| f(x.as_mut_slice())); )*
        }

        /// The constraint rows' float fields, `nefc` each.
        fn efc_floats(d: &mut Data) -> Vec<&mut Vec<f64>> {
            vec![$(&mut d.$e,)*]
        }

        /// Names of the array attributes.
        pub const DATA_ARRAYS: &[&str] = &[
            $(stringify!($f),)* $(stringify!($v3),)* $(stringify!($p3),)* $(stringify!($v6),)*
            $(stringify!($r),)*
            $(stringify!($q),)* $(stringify!($mt),)* $(stringify!($e),)*
            "mocap_quat", "eq_active", "efc_type", "efc_id", "efc_state", "efc_J", "efc_KBIP",
            "solver_niter", "solver_nnz", "solver_fwdinv", "energy", "xiquat", "geom_xquat", "site_xquat", "M",
            "qLD", "qH", "ten_wrapadr", "ten_wrapnum", "wrap_obj", "moment_rownnz",
            "moment_rowadr", "moment_colind",
        ];
    };
}

/// The island fields of `d` that hold indices or counts (pickled with the derived fields).
fn island_lists(d: &mut Data) -> [&mut Vec<usize>; 14] {
    [
        &mut d.island_ntree,
        &mut d.island_itreeadr,
        &mut d.map_itree2tree,
        &mut d.island_nv,
        &mut d.island_idofadr,
        &mut d.island_dofadr,
        &mut d.map_dof2idof,
        &mut d.map_idof2dof,
        &mut d.island_nefc,
        &mut d.island_iefcadr,
        &mut d.island_ne,
        &mut d.island_nf,
        &mut d.map_efc2iefc,
        &mut d.map_iefc2efc,
    ]
}

fn swap_keep<T: Copy>(dst: &mut Vec<T>, src: &mut Vec<T>) -> PyResult<()> {
    if dst.len() != src.len() {
        return Err(PyValueError::new_err(
            "data sizes differ: cannot copy into this MjData",
        ));
    }
    dst.copy_from_slice(src);
    std::mem::swap(dst, src);
    Ok(())
}

data_arrays! {
    floats {
        qpos, qvel, act, qacc_warmstart, ctrl, qfrc_applied, qacc, act_dot, ten_length,
        actuator_length, qM, qLDiagInv, ten_velocity, actuator_velocity, qfrc_bias, qfrc_spring,
        qfrc_damper, qfrc_gravcomp, qfrc_passive, actuator_force, qfrc_actuator, qfrc_smooth,
        qacc_smooth, qfrc_constraint, qfrc_inverse, sensordata, qfrc_fluid, qDeriv, qLU,
        qHDiagInv, qfrc_adhesion, ten_J, actuator_moment, userdata,
    }
    vec3 {
        mocap_pos, xpos, xipos, xanchor, xaxis, geom_xpos, site_xpos, cam_xpos, subtree_com,
        subtree_linvel, subtree_angmom, light_xpos, light_xdir,
    }
    vec3_pairs { wrap_xpos }
    vec6 { xfrc_applied, cdof, cvel, cdof_dot, cacc, cfrc_int, cfrc_ext }
    rows { cinert, crb }
    quats { xquat }
    mats { xmat, ximat, geom_xmat, site_xmat, cam_xmat }
    efc {
        efc_pos, efc_margin, efc_frictionloss, efc_diagA, efc_D, efc_R, efc_vel, efc_aref,
        efc_b, efc_force,
    }
}

#[pymethods]
impl MjData {
    /// Allocates the data of `model` and resets it (`qpos0`, zero velocity, mocap bodies at
    /// their model poses).
    #[new]
    fn py_new(py: Python<'_>, model: &Bound<'_, MjModel>) -> PyResult<Self> {
        MjData::create(py, model)
    }

    /// The model this data was made for.
    #[getter]
    fn model(&self, py: Python<'_>) -> Py<MjModel> {
        self.model.clone_ref(py)
    }

    /// Simulation time.
    #[getter]
    fn time(&self) -> f64 {
        self.data.time
    }

    /// Forward/inverse comparison norms (writeable view, 2).
    #[getter]
    fn solver_fwdinv<'py>(slf: &Bound<'py, Self>) -> Bound<'py, PyAny> {
        let d = slf.borrow();
        // SAFETY: an array inside the data object, which the view keeps alive.
        unsafe { view1(slf.as_any(), &d.data.solver_fwdinv[..]) }
    }

    /// Potential and kinetic energy (writeable view, 2), computed when the `energy` flag is
    /// enabled.
    #[getter]
    fn energy<'py>(slf: &Bound<'py, Self>) -> Bound<'py, PyAny> {
        let d = slf.borrow();
        // SAFETY: as solver_fwdinv.
        unsafe { view1(slf.as_any(), &d.data.energy[..]) }
    }

    /// Orientation of each body's inertial frame, `(nbody, 4)` (w, x, y, z) (read-only copy).
    #[getter]
    fn xiquat<'py>(&self, py: Python<'py>) -> Bound<'py, PyAny> {
        self.layout(py, "xiquat", 4)
    }
    /// Orientation of each geom, `(ngeom, 4)` (w, x, y, z) (read-only copy).
    #[getter]
    fn geom_xquat<'py>(&self, py: Python<'py>) -> Bound<'py, PyAny> {
        self.layout(py, "geom_xquat", 4)
    }
    /// Orientation of each site, `(nsite, 4)` (w, x, y, z) (read-only copy).
    #[getter]
    fn site_xquat<'py>(&self, py: Python<'py>) -> Bound<'py, PyAny> {
        self.layout(py, "site_xquat", 4)
    }
    /// The inertia in MuJoCo's sparse layout (`nC`, columns `M_colind`; read-only copy).
    #[getter(M)]
    fn m_sparse<'py>(&self, py: Python<'py>) -> Bound<'py, PyAny> {
        self.layout(py, "M", 1)
    }
    /// Its L'DL factor in the same layout, D on the diagonal (`nC`; read-only copy).
    #[getter]
    fn qLD<'py>(&self, py: Python<'py>) -> Bound<'py, PyAny> {
        self.layout(py, "qLD", 1)
    }
    /// The L'DL factor of the integrator's modified inertia (`M + h·diag(damping)` under
    /// Euler, `M − h·sym(qDeriv)` under implicitfast) in the layout of `M`, D on the diagonal
    /// (`nC`; read-only copy); left as it was by the other integrators.
    #[getter]
    fn qH<'py>(&self, py: Python<'py>) -> Bound<'py, PyAny> {
        self.layout(py, "qH", 1)
    }

    /// Number of contacts (`ncon`).
    #[getter]
    fn ncon(&self) -> usize {
        self.data.contact.len()
    }

    /// Number of constraint rows (`nefc`).
    #[getter]
    fn nefc(&self) -> usize {
        self.data.nefc
    }

    /// Number of constraint islands.
    #[getter]
    fn nisland(&self) -> usize {
        self.data.nisland
    }

    /// Number of equality constraint rows (`ne`).
    #[getter]
    fn ne(&self, py: Python<'_>) -> usize {
        count(&self.model.bind(py).borrow().model, &self.data, "ne").unwrap_or(0)
    }

    /// Number of friction-loss rows (`nf`).
    #[getter]
    fn nf(&self, py: Python<'_>) -> usize {
        count(&self.model.bind(py).borrow().model, &self.data, "nf").unwrap_or(0)
    }

    /// Number of limit rows (`nl`).
    #[getter]
    fn nl(&self, py: Python<'_>) -> usize {
        count(&self.model.bind(py).borrow().model, &self.data, "nl").unwrap_or(0)
    }

    /// Number of nonzeros of `efc_J` (`nJ`: `nefc × nv` when it is dense).
    #[getter]
    #[allow(non_snake_case)]
    fn nJ(&self, py: Python<'_>) -> usize {
        count(&self.model.bind(py).borrow().model, &self.data, "nJ").unwrap_or(0)
    }

    /// Number of nonzeros of `efc_AR` (`nA`): 0 unless PGS or the noslip pass formed it,
    /// `nefc²` when `efc_J` is dense.
    #[getter]
    #[allow(non_snake_case)]
    fn nA(&self, py: Python<'_>) -> usize {
        count(&self.model.bind(py).borrow().model, &self.data, "nA").unwrap_or(0)
    }

    /// Number of dofs in constraint islands (`nidof`).
    #[getter]
    fn nidof(&self) -> usize {
        self.data.nidof
    }

    /// `mocap_quat` (nmocap, 4), (w, x, y, z): writeable; the engine reads it at every call.
    #[getter]
    fn mocap_quat<'py>(slf: &Bound<'py, Self>) -> Bound<'py, PyAny> {
        let d = slf.borrow();
        // SAFETY: `mocap_quat` is sized once in `create` and never reallocated.
        unsafe { view_rows(slf.as_any(), &d.mocap_quat) }
    }

    /// Whether each equality constraint is active (writeable bool view).
    #[getter]
    fn eq_active<'py>(slf: &Bound<'py, Self>) -> Bound<'py, PyAny> {
        let d = slf.borrow();
        // SAFETY: `eq_active` keeps its length and buffer (reset copies into it).
        unsafe { view1(slf.as_any(), &d.data.eq_active) }
    }

    /// First entry of each tendon's path in `wrap_obj` and `wrap_xpos` (read-only int32 copy).
    #[getter]
    fn ten_wrapadr<'py>(&self, py: Python<'py>) -> Bound<'py, PyAny> {
        int32_copy(py, &self.data.ten_wrapadr)
    }

    /// Number of entries of each tendon's path (read-only int32 copy).
    #[getter]
    fn ten_wrapnum<'py>(&self, py: Python<'py>) -> Bound<'py, PyAny> {
        int32_copy(py, &self.data.ten_wrapnum)
    }

    /// The object of each path point, `(nwrap, 2)`: -2 a pulley, -1 a site, else the geom a
    /// wrap point lies on (read-only int32 copy).
    #[getter]
    fn wrap_obj<'py>(&self, py: Python<'py>) -> Bound<'py, PyAny> {
        let v = self.data.wrap_obj.clone();
        let n = v.len() / 2;
        copy(py, v, &[n, 2])
    }

    /// Number of entries of each actuator's row of `actuator_moment` (read-only int32 copy;
    /// zeros from a reset to the next transmission stage, as MuJoCo's).
    #[getter]
    fn moment_rownnz<'py>(&self, py: Python<'py>) -> Bound<'py, PyAny> {
        moment_rows(py, &self.data, &self.data.moment_rownnz)
    }

    /// Address of each actuator's row in `actuator_moment` (read-only int32 copy).
    #[getter]
    fn moment_rowadr<'py>(&self, py: Python<'py>) -> Bound<'py, PyAny> {
        moment_rows(py, &self.data, &self.data.moment_rowadr)
    }

    /// The dof of each entry of `actuator_moment` (`nJmom`; read-only int32 copy).
    #[getter]
    fn moment_colind<'py>(&self, py: Python<'py>) -> Bound<'py, PyAny> {
        moment_rows(py, &self.data, &self.data.moment_colind)
    }

    /// Constraint types (`mjtConstraint`, read-only int32 copy).
    #[getter]
    fn efc_type<'py>(&self, py: Python<'py>) -> Bound<'py, PyAny> {
        let n = self.data.nefc;
        let v = self.data.efc_type[..n].iter().map(|t| *t as i32).collect();
        copy(py, v, &[n])
    }

    /// Element id of each constraint row (read-only int32 copy).
    #[getter]
    fn efc_id<'py>(&self, py: Python<'py>) -> Bound<'py, PyAny> {
        let n = self.data.nefc;
        let v = self.data.efc_id[..n].iter().map(|t| *t as i32).collect();
        copy(py, v, &[n])
    }

    /// Constraint states (`mjtConstraintState`, read-only int32 copy).
    #[getter]
    fn efc_state<'py>(&self, py: Python<'py>) -> Bound<'py, PyAny> {
        let n = self.data.nefc;
        let v = self.data.efc_state[..n].iter().map(|t| *t as i32).collect();
        copy(py, v, &[n])
    }

    /// `(K, B, imp, imp')` per row (nefc, 4) (read-only copy).
    #[getter]
    fn efc_KBIP<'py>(&self, py: Python<'py>) -> Bound<'py, PyAny> {
        let n = self.data.nefc;
        let v = self.data.efc_KBIP[..n].iter().flatten().copied().collect();
        copy(py, v, &[n, 4])
    }

    /// Constraint Jacobian (read-only copy, `nJ` entries), in MuJoCo's layout: when it is
    /// sparse (`mj_isSparse`) the rows' nonzeros one row after another (columns in
    /// `efc_J_colind`, rows at `efc_J_rowadr`), else dense `nefc × nv` flattened row-major.
    #[getter]
    fn efc_J<'py>(&self, py: Python<'py>) -> Bound<'py, PyAny> {
        let d = &self.data;
        let nv = d.qvel.len();
        let mut v = Vec::new();
        for i in 0..d.nefc {
            v.extend_from_slice(d.efc_J_row(i, nv).vals);
        }
        let len = v.len();
        copy(py, v, &[len])
    }

    /// Solver iterations per island (read-only int32 copy of `solver_niter[mjNISLAND]`).
    #[getter]
    fn solver_niter<'py>(&self, py: Python<'py>) -> Bound<'py, PyAny> {
        let v = self.data.solver_niter.iter().map(|&x| x as i32).collect();
        copy(py, v, &[self.data.solver_niter.len()])
    }

    /// Nonzeros of each island's solver matrix (read-only int32 copy of
    /// `solver_nnz[mjNISLAND]`): PGS its `efc_AR`, CG its `efc_J`, Newton its Hessian (dense
    /// `nv²`; sparse, MuJoCo's count of M, the Hessian's factor and JᵀJ). Entries of islands
    /// a later step did not have keep their values, as in MuJoCo.
    #[getter]
    fn solver_nnz<'py>(&self, py: Python<'py>) -> Bound<'py, PyAny> {
        let nnz = self
            .data
            .solver_nnz
            .get(&self.model.bind(py).borrow().model);
        let v = nnz.iter().map(|&x| x as i32).collect();
        copy(py, v, &[nnz.len()])
    }

    /// Warning statistics per `mjtWarning` (a list of `MjWarningStat` copies).
    #[getter]
    fn warning(&self) -> Vec<MjWarningStat> {
        self.data
            .warning
            .iter()
            .map(|w| MjWarningStat {
                lastinfo: w.lastinfo,
                number: w.number,
            })
            .collect()
    }

    /// Everything this data holds besides its state, for pickling (MuJoCo's `MjData` pickles
    /// whole): `(floats, ints)` of the derived arrays, the constraint rows (`efc_*`, the
    /// Jacobian dense), the contacts, the warning counters and the solver's iteration counts.
    fn _derived<'py>(&mut self, py: Python<'py>) -> (Bound<'py, PyAny>, Bound<'py, PyAny>) {
        let d = &mut self.data;
        let nv = d.qvel.len();
        let mut fl = vec![d.time, d.solver_fwdinv[0], d.solver_fwdinv[1]];
        fl.extend_from_slice(&d.energy);
        fl.extend_from_slice(&d.qLD);
        fl.extend_from_slice(&d.qH);
        visit_arrays(d, &mut |x| fl.extend_from_slice(x));
        let n = d.nefc;
        let mut int: Vec<i64> = vec![n as i64, d.contact.len() as i64, d.nisland as i64];
        for i in 0..n {
            let row = d.efc_J_row(i, nv);
            let mut dense = vec![0.0; nv];
            match row.cols {
                Some(c) => c.iter().zip(row.vals).for_each(|(&j, &v)| dense[j] = v),
                None => dense.copy_from_slice(row.vals),
            }
            fl.extend_from_slice(&dense);
            fl.extend_from_slice(&d.efc_KBIP[i]);
            fl.extend_from_slice(&d.efc_solref[i]);
            fl.extend_from_slice(&d.efc_solimp[i]);
            int.extend([
                d.efc_type[i] as i64,
                d.efc_id[i] as i64,
                d.efc_state[i] as i64,
            ]);
        }
        for v in efc_floats(d) {
            fl.extend_from_slice(&v[..n]);
        }
        for c in &d.contact {
            fl.push(c.dist);
            fl.extend_from_slice(c.pos.as_slice());
            fl.extend_from_slice(c.frame.as_slice());
            fl.push(c.includemargin);
            fl.extend_from_slice(&c.friction);
            fl.extend_from_slice(&c.solref);
            fl.extend_from_slice(&c.solreffriction);
            fl.extend_from_slice(&c.solimp);
            fl.push(c.mu);
            int.extend([c.dim as i64, c.geom[0] as i64, c.geom[1] as i64]);
            int.extend([c.exclude as i64, c.efc_address as i64]);
        }
        for w in &d.warning {
            int.extend([w.lastinfo, w.number as i64]);
        }
        int.extend(d.solver_niter.iter().map(|&k| k as i64));
        let nnz = d.solver_nnz.get(&self.model.bind(py).borrow().model);
        int.extend(nnz.iter().map(|&k| k as i64));
        int.extend(
            d.ten_wrapadr
                .iter()
                .chain(&d.ten_wrapnum)
                .map(|&k| k as i64),
        );
        int.extend(d.wrap_obj.iter().map(|&k| k as i64));
        // the islands, each list after its length
        int.push(d.nidof as i64);
        for v in island_lists(d) {
            int.push(v.len() as i64);
            int.extend(v.iter().map(|&k| k as i64));
        }
        for v in [&d.dof_island, &d.tree_island, &d.efc_island] {
            int.push(v.len() as i64);
            int.extend(v.iter().map(|&k| i64::from(k)));
        }
        int.push(i64::from(d.moment_rows_set()));
        let (nf, ni) = (fl.len(), int.len());
        (copy(py, fl, &[nf]), copy(py, int, &[ni]))
    }

    /// Restores what `_derived` returned (a pickled `MjData`); the state is restored first.
    fn _set_derived(&mut self, floats: Vec<f64>, ints: Vec<i64>) -> PyResult<()> {
        let bad = || PyValueError::new_err("corrupt MjData pickle: its derived fields do not fit");
        let d = &mut self.data;
        let nv = d.qvel.len();
        let mut fl = floats.into_iter();
        let mut int = ints.into_iter();
        let next = |it: &mut std::vec::IntoIter<f64>| it.next().ok_or_else(bad);
        d.time = next(&mut fl)?;
        d.solver_fwdinv = [next(&mut fl)?, next(&mut fl)?];
        d.energy = [next(&mut fl)?, next(&mut fl)?];
        for x in d.qLD.iter_mut().chain(d.qH.iter_mut()) {
            *x = next(&mut fl)?;
        }
        let mut short = false;
        visit_arrays(d, &mut |x| {
            for v in x.iter_mut() {
                match fl.next() {
                    Some(f) => *v = f,
                    None => short = true,
                }
            }
        });
        let mut ni = || int.next().ok_or_else(bad);
        let size = |v: i64| usize::try_from(v).map_err(|_| bad());
        let (n, ncon, nisland) = (size(ni()?)?, size(ni()?)?, size(ni()?)?);
        if short
            || n > d.efc_type.capacity().max(1 << 20)
            || ncon > d.contact.capacity().max(1 << 16)
        {
            return Err(bad());
        }
        d.efc_J_sparse = false;
        d.resize_efc(nv, n, 0);
        d.nisland = nisland;
        use moreau::data::{ConstraintState, ConstraintType};
        for i in 0..n {
            for x in d.efc_J[i * nv..(i + 1) * nv]
                .iter_mut()
                .chain(d.efc_KBIP[i].iter_mut())
                .chain(d.efc_solref[i].iter_mut())
                .chain(d.efc_solimp[i].iter_mut())
            {
                *x = next(&mut fl)?;
            }
            let t = i32::try_from(ni()?).ok().and_then(ConstraintType::from_i32);
            d.efc_type[i] = t.ok_or_else(bad)?;
            d.efc_id[i] = size(ni()?)?;
            let st = i32::try_from(ni()?)
                .ok()
                .and_then(ConstraintState::from_i32);
            d.efc_state[i] = st.ok_or_else(bad)?;
        }
        for v in efc_floats(d) {
            for x in v[..n].iter_mut() {
                *x = next(&mut fl)?;
            }
        }
        d.contact.clear();
        for _ in 0..ncon {
            let z = nalgebra::Vector3::zeros();
            let mut c = moreau::Contact::geometric(0.0, z, Matrix3::zeros(), [0, 0]);
            c.dist = next(&mut fl)?;
            for x in c.pos.iter_mut().chain(c.frame.iter_mut()) {
                *x = next(&mut fl)?;
            }
            c.includemargin = next(&mut fl)?;
            for x in c
                .friction
                .iter_mut()
                .chain(c.solref.iter_mut())
                .chain(c.solreffriction.iter_mut())
                .chain(c.solimp.iter_mut())
            {
                *x = next(&mut fl)?;
            }
            c.mu = next(&mut fl)?;
            c.dim = size(ni()?)?;
            c.geom = [size(ni()?)?, size(ni()?)?];
            c.exclude = u8::try_from(ni()?).map_err(|_| bad())?;
            c.efc_address = i32::try_from(ni()?).map_err(|_| bad())?;
            d.contact.push(c);
        }
        for w in d.warning.iter_mut() {
            w.lastinfo = ni()?;
            w.number = u64::try_from(ni()?).map_err(|_| bad())?;
        }
        let mut nnz = [0; moreau::data::NISLAND];
        for k in d.solver_niter.iter_mut().chain(nnz.iter_mut()) {
            *k = size(ni()?)?;
        }
        d.solver_nnz.set(nnz);
        for k in d.ten_wrapadr.iter_mut().chain(d.ten_wrapnum.iter_mut()) {
            *k = size(ni()?)?;
        }
        for k in d.wrap_obj.iter_mut() {
            *k = i32::try_from(ni()?).map_err(|_| bad())?;
        }
        d.nidof = size(ni()?)?;
        // lengths come from the pickle: entries are read one by one, so a wrong length ends
        // the integers early and is an error
        for v in island_lists(d) {
            v.clear();
            for _ in 0..size(ni()?)? {
                v.push(size(ni()?)?);
            }
        }
        for v in [&mut d.dof_island, &mut d.tree_island, &mut d.efc_island] {
            v.clear();
            for _ in 0..size(ni()?)? {
                v.push(i32::try_from(ni()?).map_err(|_| bad())?);
            }
        }
        // whether the transmissions' sparsity was computed (absent from older pickles: yes)
        d.set_moment_rows(int.next().is_none_or(|k| k != 0));
        if fl.next().is_some() || int.next().is_some() {
            return Err(bad());
        }
        self.sync_out();
        Ok(())
    }

    /// The contacts of the last collision pass (`mujoco`'s `_MjContactList`: array attributes
    /// `geom1`, `geom2`, `geom`, `dist`, `pos`, `frame`, `friction`, `solref`, `solimp`, …;
    /// `d.contact[i]` is one contact). A copy.
    #[getter]
    fn contact(&self, py: Python<'_>) -> PyResult<MjContactList> {
        MjContactList::new(py, &self.data.contact)
    }

    /// Body accessor: `d.body('torso').xpos` is row `id` of `d.xpos` (a view), as MuJoCo's.
    fn body(slf: &Bound<'_, Self>, key: &Bound<'_, PyAny>) -> PyResult<Named> {
        Named::new(slf.as_any(), "body", crate::model::OBJ_BODY, key)
    }
    /// Joint accessor: `d.joint('hinge').qpos` is the joint's slice of `d.qpos`.
    fn joint(slf: &Bound<'_, Self>, key: &Bound<'_, PyAny>) -> PyResult<Named> {
        Named::new(slf.as_any(), "jnt", crate::model::OBJ_JOINT, key)
    }
    /// Alias of `joint`.
    fn jnt(slf: &Bound<'_, Self>, key: &Bound<'_, PyAny>) -> PyResult<Named> {
        Named::new(slf.as_any(), "jnt", crate::model::OBJ_JOINT, key)
    }
    /// Geom accessor (`geom_xpos`, `geom_xmat`).
    fn geom(slf: &Bound<'_, Self>, key: &Bound<'_, PyAny>) -> PyResult<Named> {
        Named::new(slf.as_any(), "geom", crate::model::OBJ_GEOM, key)
    }
    /// Site accessor (`site_xpos`, `site_xmat`).
    fn site(slf: &Bound<'_, Self>, key: &Bound<'_, PyAny>) -> PyResult<Named> {
        Named::new(slf.as_any(), "site", crate::model::OBJ_SITE, key)
    }
    /// Camera accessor (`cam_xpos`, `cam_xmat`).
    fn camera(slf: &Bound<'_, Self>, key: &Bound<'_, PyAny>) -> PyResult<Named> {
        Named::new(slf.as_any(), "cam", crate::model::OBJ_CAMERA, key)
    }
    /// Light accessor (`light_xpos`, `light_xdir`).
    fn light(slf: &Bound<'_, Self>, key: &Bound<'_, PyAny>) -> PyResult<Named> {
        Named::new(slf.as_any(), "light", crate::model::OBJ_LIGHT, key)
    }
    /// Alias of `camera`.
    fn cam(slf: &Bound<'_, Self>, key: &Bound<'_, PyAny>) -> PyResult<Named> {
        Named::new(slf.as_any(), "cam", crate::model::OBJ_CAMERA, key)
    }
    /// Alias of `tendon`.
    fn ten(slf: &Bound<'_, Self>, key: &Bound<'_, PyAny>) -> PyResult<Named> {
        Named::new(slf.as_any(), "tendon", crate::model::OBJ_TENDON, key)
    }
    /// Actuator accessor (`ctrl`, `actuator_force`, `actuator_length`, …).
    fn actuator(slf: &Bound<'_, Self>, key: &Bound<'_, PyAny>) -> PyResult<Named> {
        Named::new(slf.as_any(), "actuator", crate::model::OBJ_ACTUATOR, key)
    }
    /// Tendon accessor (`ten_length`, `ten_velocity`).
    fn tendon(slf: &Bound<'_, Self>, key: &Bound<'_, PyAny>) -> PyResult<Named> {
        Named::new(slf.as_any(), "tendon", crate::model::OBJ_TENDON, key)
    }
    /// Sensor accessor: `d.sensor('s').data` is the sensor's slice of `sensordata`.
    fn sensor(slf: &Bound<'_, Self>, key: &Bound<'_, PyAny>) -> PyResult<Named> {
        Named::new(slf.as_any(), "sensor", crate::model::OBJ_SENSOR, key)
    }

    /// `d.time = t` sets the time; `d.qpos = x` (any array attribute) is `d.qpos[...] = x`
    /// (NumPy's broadcasting); read-only copies raise.
    fn __setattr__(slf: &Bound<'_, Self>, name: &str, value: &Bound<'_, PyAny>) -> PyResult<()> {
        if name == "time" {
            slf.borrow_mut().data.time = value.extract()?;
            return Ok(());
        }
        let cur = slf.as_any().getattr(name)?;
        if cur.cast::<numpy::PyUntypedArray>().is_ok() {
            crate::arrays::assign(&cur, value)
        } else {
            Err(PyAttributeError::new_err(format!(
                "MjData attribute '{name}' is read-only"
            )))
        }
    }

    /// A copy with its own state (`copy.copy(d)`, `copy.deepcopy(d)`).
    fn __copy__(&self, py: Python<'_>) -> Self {
        MjData {
            data: self.data.clone(),
            model: self.model.clone_ref(py),
            sizes: self.sizes,
            mocap_quat: self.mocap_quat.clone(),
            fd: None,
            analytic: None,
            dual: Default::default(),
        }
    }
    fn __deepcopy__(&self, py: Python<'_>, _memo: &Bound<'_, PyAny>) -> Self {
        self.__copy__(py)
    }

    fn __repr__(&self) -> String {
        format!(
            "<moreau.MjData time={} ncon={} nefc={}>",
            self.data.time,
            self.data.contact.len(),
            self.data.nefc
        )
    }

    /// The names of the array attributes.
    #[classattr]
    fn _arrays(py: Python<'_>) -> Bound<'_, PyTuple> {
        PyTuple::new(py, DATA_ARRAYS).expect("tuple of str")
    }
}

/// Warning statistics of one kind (`mjWarningStat`).
#[pyclass(module = "moreau", name = "MjWarningStat", get_all)]
#[derive(Clone)]
pub struct MjWarningStat {
    /// The info of the last warning (e.g. the offending index).
    pub lastinfo: i64,
    /// How many times it happened.
    pub number: u64,
}

#[pymethods]
impl MjWarningStat {
    fn __repr__(&self) -> String {
        format!(
            "<MjWarningStat lastinfo={} number={}>",
            self.lastinfo, self.number
        )
    }
}

/// The contacts of a collision pass as arrays (a copy), like MuJoCo's `d.contact`.
#[pyclass(module = "moreau", name = "MjContactList", get_all)]
pub struct MjContactList {
    /// Signed distance (negative: penetration), (ncon,).
    dist: Py<PyAny>,
    /// Contact point, world frame, (ncon, 3).
    pos: Py<PyAny>,
    /// Contact frame, rows normal, tangent 1, tangent 2, (ncon, 9).
    frame: Py<PyAny>,
    /// Include if dist < includemargin, (ncon,).
    includemargin: Py<PyAny>,
    /// Friction (tangent, tangent, torsion, roll, roll), (ncon, 5).
    friction: Py<PyAny>,
    /// (ncon, 2).
    solref: Py<PyAny>,
    /// (ncon, 2).
    solreffriction: Py<PyAny>,
    /// (ncon, 5).
    solimp: Py<PyAny>,
    /// Friction of the regularized cone, (ncon,).
    mu: Py<PyAny>,
    /// Contact dimensionality, (ncon,) int32.
    dim: Py<PyAny>,
    /// The two geoms, (ncon, 2) int32.
    geom: Py<PyAny>,
    /// First geom, (ncon,) int32.
    geom1: Py<PyAny>,
    /// Second geom, (ncon,) int32.
    geom2: Py<PyAny>,
    /// Flexes (always -1 in moreau), (ncon, 2) int32.
    flex: Py<PyAny>,
    /// Flex elements (always -1), (ncon, 2) int32.
    elem: Py<PyAny>,
    /// Flex vertices (always -1), (ncon, 2) int32.
    vert: Py<PyAny>,
    /// 0: include, 1: in gap, (ncon,) int32.
    exclude: Py<PyAny>,
    /// First constraint row, or -1, (ncon,) int32.
    efc_address: Py<PyAny>,
    n: usize,
}

impl MjContactList {
    fn new(py: Python<'_>, c: &[moreau::Contact]) -> PyResult<Self> {
        let n = c.len();
        let f = |g: &dyn Fn(&moreau::Contact) -> Vec<f64>, w: usize| {
            let v: Vec<f64> = c.iter().flat_map(g).collect();
            let shape: Vec<usize> = if w == 1 { vec![n] } else { vec![n, w] };
            copy(py, v, &shape).unbind()
        };
        let i = |g: &dyn Fn(&moreau::Contact) -> Vec<i32>, w: usize| {
            let v: Vec<i32> = c.iter().flat_map(g).collect();
            let shape: Vec<usize> = if w == 1 { vec![n] } else { vec![n, w] };
            copy(py, v, &shape).unbind()
        };
        Ok(MjContactList {
            dist: f(&|c| vec![c.dist], 1),
            pos: f(&|c| c.pos.iter().copied().collect(), 3),
            frame: f(
                &|c| {
                    let r = &c.frame;
                    (0..3)
                        .flat_map(|a| (0..3).map(move |b| r[(a, b)]))
                        .collect()
                },
                9,
            ),
            includemargin: f(&|c| vec![c.includemargin], 1),
            friction: f(&|c| c.friction.to_vec(), 5),
            solref: f(&|c| c.solref.to_vec(), 2),
            solreffriction: f(&|c| c.solreffriction.to_vec(), 2),
            solimp: f(&|c| c.solimp.to_vec(), 5),
            mu: f(&|c| vec![c.mu], 1),
            dim: i(&|c| vec![c.dim as i32], 1),
            geom: i(&|c| vec![c.geom[0] as i32, c.geom[1] as i32], 2),
            geom1: i(&|c| vec![c.geom[0] as i32], 1),
            geom2: i(&|c| vec![c.geom[1] as i32], 1),
            flex: i(&|_| vec![-1, -1], 2),
            elem: i(&|_| vec![-1, -1], 2),
            vert: i(&|_| vec![-1, -1], 2),
            exclude: i(&|c| vec![c.exclude as i32], 1),
            efc_address: i(&|c| vec![c.efc_address], 1),
            n,
        })
    }
}

#[pymethods]
impl MjContactList {
    fn __len__(&self) -> usize {
        self.n
    }

    /// Contact `i` (negative indices count from the end).
    fn __getitem__(&self, py: Python<'_>, i: isize) -> PyResult<MjContact> {
        let n = self.n as isize;
        let k = if i < 0 { i + n } else { i };
        if k < 0 || k >= n {
            return Err(PyIndexError::new_err("contact index out of range"));
        }
        let k = k as usize;
        let row = |a: &Py<PyAny>| -> PyResult<Py<PyAny>> {
            let item = a.bind(py).get_item(k)?;
            Ok(match item.cast::<numpy::PyUntypedArray>() {
                Ok(arr) => readonly(arr.as_any().call_method0("copy")?).unbind(),
                Err(_) => item.unbind(),
            })
        };
        Ok(MjContact {
            dist: row(&self.dist)?,
            pos: row(&self.pos)?,
            frame: row(&self.frame)?,
            includemargin: row(&self.includemargin)?,
            friction: row(&self.friction)?,
            solref: row(&self.solref)?,
            solreffriction: row(&self.solreffriction)?,
            solimp: row(&self.solimp)?,
            mu: row(&self.mu)?,
            dim: row(&self.dim)?,
            geom: row(&self.geom)?,
            geom1: row(&self.geom1)?,
            geom2: row(&self.geom2)?,
            exclude: row(&self.exclude)?,
            efc_address: row(&self.efc_address)?,
        })
    }

    fn __repr__(&self) -> String {
        format!("<MjContactList ncon={}>", self.n)
    }
}

/// One contact (`mjContact`), a copy.
#[pyclass(module = "moreau", name = "MjContact", get_all)]
pub struct MjContact {
    dist: Py<PyAny>,
    pos: Py<PyAny>,
    frame: Py<PyAny>,
    includemargin: Py<PyAny>,
    friction: Py<PyAny>,
    solref: Py<PyAny>,
    solreffriction: Py<PyAny>,
    solimp: Py<PyAny>,
    mu: Py<PyAny>,
    dim: Py<PyAny>,
    geom: Py<PyAny>,
    geom1: Py<PyAny>,
    geom2: Py<PyAny>,
    exclude: Py<PyAny>,
    efc_address: Py<PyAny>,
}

#[pymethods]
impl MjContact {
    fn __repr__(&self, py: Python<'_>) -> String {
        format!(
            "<MjContact geom1={} geom2={} dist={}>",
            self.geom1.bind(py),
            self.geom2.bind(py),
            self.dist.bind(py)
        )
    }
}

/// Registers the classes.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<MjData>()?;
    m.add_class::<MjWarningStat>()?;
    m.add_class::<MjContactList>()?;
    m.add_class::<MjContact>()?;
    Ok(())
}
