//! `MjModel` and `MjOption`: the compiled model, its sizes and its arrays.
//!
//! Arrays of floats (`body_mass`, `body_pos`, `geom_friction`, `actuator_gainprm`, …) and of
//! 32-bit integers (`geom_group`, `actuator_trnid`, …) are writeable views of the model, as in
//! MuJoCo: `m.body_mass[1] = 2.0` changes the model the next step uses. As in MuJoCo, derived
//! constants (`body_subtreemass`, `dof_invweight0`, `actuator_acc0`, …) are recomputed only by
//! `mj_setConst`. Index arrays moreau stores as `usize`, enums and booleans are read-only
//! int32 / bool copies (ids and types are structural).

use crate::arrays::{copy, view1, view_rows};
use crate::values::{Values, ValuesRef};
use moreau::model::{Model, SensorType};
use moreau::{Data, MjcfSource};
use pyo3::exceptions::{PyAttributeError, PyIndexError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyTuple};
use std::borrow::Cow;
use std::sync::{Arc, Mutex};

/// A compiled MuJoCo model (`mujoco.MjModel`), loaded from MJCF by `MjModel.from_xml_path` or
/// `MjModel.from_xml_string`.
#[pyclass(module = "moreau", name = "MjModel")]
pub struct MjModel {
    pub model: Model,
    /// The MJCF document and every file read while loading it, what a pickle carries (None
    /// for a model not loaded from MJCF here).
    pub source: Option<Arc<MjcfSource>>,
    /// Scratch of the functional step of `moreau.jax` / `moreau.torch` (one per worker
    /// thread), kept across calls so that repeated steps do not allocate.
    pub pool: Mutex<Vec<Scratch>>,
}

/// A `Data` and the derivative workspaces of one worker of the functional step.
pub struct Scratch {
    pub d: Data,
    pub w: moreau_derivatives::Workspace,
    pub fd: Option<moreau_derivatives::fd::FdWorkspace>,
}

impl MjModel {
    pub fn new(model: Model) -> Self {
        MjModel {
            model,
            source: None,
            pool: Mutex::new(Vec::new()),
        }
    }

    /// A model derived from this one (same structure, other values): it keeps the source, so
    /// that it pickles with its own values.
    pub fn derived(&self, model: Model) -> Self {
        MjModel {
            source: self.source.clone(),
            ..MjModel::new(model)
        }
    }

    /// Takes a worker's scratch from the pool (or makes one).
    pub fn take_scratch(&self) -> Scratch {
        let s = self.pool.lock().ok().and_then(|mut p| p.pop());
        s.unwrap_or_else(|| Scratch {
            d: Data::new(&self.model),
            w: Default::default(),
            fd: None,
        })
    }

    /// Returns a worker's scratch to the pool.
    pub fn give_scratch(&self, s: Scratch) {
        if let Ok(mut p) = self.pool.lock() {
            if p.len() < 64 {
                p.push(s);
            }
        }
    }
}

/// The sizes that make a `Data` fit a model (a `Data` made for one model works with another
/// of the same sizes, e.g. a copy with changed parameters, as in MuJoCo).
pub fn sizes(m: &Model) -> [usize; 17] {
    [
        m.nq,
        m.nv,
        m.nu,
        m.na,
        m.nbody,
        m.njnt,
        m.ngeom,
        m.nsite,
        m.ntendon,
        m.nwrap,
        m.neq,
        m.nsensordata,
        m.nmocap,
        m.nM,
        m.ncam,
        m.nkey,
        m.nlight,
    ]
}

/// Refuses models the engine would compute wrongly (as the command line does).
pub fn check_supported(m: &Model) -> PyResult<()> {
    match moreau::pipeline::forward_unsupported(m) {
        Some(why) => Err(PyValueError::new_err(format!(
            "model uses {why}, not supported yet"
        ))),
        None => Ok(()),
    }
}

/// MuJoCo's `mjtSensor` value of a sensor type.
pub fn mjt_sensor(t: SensorType) -> i32 {
    use SensorType::*;
    match t {
        Touch => 0,
        Accelerometer => 1,
        Velocimeter => 2,
        Gyro => 3,
        Force => 4,
        Torque => 5,
        Magnetometer => 6,
        Rangefinder => 7,
        JointPos => 9,
        JointVel => 10,
        TendonPos => 11,
        TendonVel => 12,
        ActuatorPos => 13,
        ActuatorVel => 14,
        ActuatorFrc => 15,
        JointActFrc => 16,
        BallQuat => 18,
        BallAngVel => 19,
        JointLimitPos => 20,
        JointLimitVel => 21,
        JointLimitFrc => 22,
        TendonLimitPos => 23,
        TendonLimitVel => 24,
        TendonLimitFrc => 25,
        FramePos => 26,
        FrameQuat => 27,
        FrameXAxis => 28,
        FrameYAxis => 29,
        FrameZAxis => 30,
        FrameLinVel => 31,
        FrameAngVel => 32,
        FrameLinAcc => 33,
        FrameAngAcc => 34,
        SubtreeCom => 35,
        SubtreeLinVel => 36,
        SubtreeAngMom => 37,
        Contact => 42,
        EPotential => 43,
        EKinetic => 44,
        Clock => 45,
    }
}

/// MuJoCo stores -1 as the first joint / dof / geom of a body that has none; moreau stores
/// the count before the body.
fn adr_or_none(adr: &[usize], num: &[usize]) -> Vec<i32> {
    adr.iter()
        .zip(num)
        .map(|(&a, &n)| if n == 0 { -1 } else { a as i32 })
        .collect()
}

/// Keyframe rows with MuJoCo's defaults where the keyframe leaves a component empty.
fn key_rows(rows: &[Vec<f64>], nkey: usize, default: &[f64]) -> Vec<f64> {
    let mut out = Vec::with_capacity(nkey * default.len());
    for k in 0..nkey {
        match rows.get(k).filter(|r| r.len() == default.len()) {
            Some(r) => out.extend_from_slice(r),
            None => out.extend_from_slice(default),
        }
    }
    out
}

macro_rules! model_arrays {
    (
        floats { $($f:ident),* $(,)? }
        float_rows { $($fr:ident),* $(,)? }
        ints { $($i:ident),* $(,)? }
        int_rows { $($ir:ident),* $(,)? }
        uints { $($u:ident),* $(,)? }
        indices { $($x:ident),* $(,)? }
        enums { $($e:ident),* $(,)? }
        bools { $($b:ident),* $(,)? }
        sizes { $($n:ident),* $(,)? }
    ) => {
        #[pymethods]
        impl MjModel {
            $(
                #[doc = concat!("`", stringify!($f), "` (writeable view).")]
                #[getter]
                fn $f<'py>(slf: &Bound<'py, Self>) -> Bound<'py, PyAny> {
                    let m = slf.borrow();
                    // SAFETY: model buffers are never reallocated (crate::arrays).
                    unsafe { view1(slf.as_any(), &m.model.$f) }
                }
            )*
            $(
                #[doc = concat!("`", stringify!($fr), "` (writeable view, one row per element).")]
                #[getter]
                fn $fr<'py>(slf: &Bound<'py, Self>) -> Bound<'py, PyAny> {
                    let m = slf.borrow();
                    // SAFETY: as above.
                    unsafe { view_rows(slf.as_any(), &m.model.$fr) }
                }
            )*
            $(
                #[doc = concat!("`", stringify!($i), "` (writeable int32 view).")]
                #[getter]
                fn $i<'py>(slf: &Bound<'py, Self>) -> Bound<'py, PyAny> {
                    let m = slf.borrow();
                    // SAFETY: as above.
                    unsafe { view1(slf.as_any(), &m.model.$i) }
                }
            )*
            $(
                #[doc = concat!("`", stringify!($ir), "` (writeable int32 view).")]
                #[getter]
                fn $ir<'py>(slf: &Bound<'py, Self>) -> Bound<'py, PyAny> {
                    let m = slf.borrow();
                    // SAFETY: as above.
                    unsafe { view_rows(slf.as_any(), &m.model.$ir) }
                }
            )*
            $(
                #[doc = concat!("`", stringify!($u), "` (writeable int32 view, MuJoCo's dtype, ",
                                "of the engine's uint32 bits).")]
                #[getter]
                fn $u<'py>(slf: &Bound<'py, Self>) -> Bound<'py, PyAny> {
                    let m = slf.borrow();
                    let u: &[u32] = &m.model.$u;
                    // SAFETY: as above; u32 and i32 have the same size and alignment and every
                    // bit pattern is valid in both, so the view reads and writes the engine's
                    // bits (MuJoCo's int fields hold the same bits).
                    unsafe {
                        let s = std::slice::from_raw_parts(u.as_ptr().cast::<i32>(), u.len());
                        view1(slf.as_any(), s)
                    }
                }
            )*
            $(
                #[doc = concat!("`", stringify!($x), "` (read-only int32 copy).")]
                #[getter]
                fn $x<'py>(&self, py: Python<'py>) -> Bound<'py, PyAny> {
                    let v: Vec<i32> = self.model.$x.iter().map(|&x| x as i32).collect();
                    let n = v.len();
                    copy(py, v, &[n])
                }
            )*
            $(
                #[doc = concat!("`", stringify!($e), "` (read-only int32 copy of the MuJoCo enum values).")]
                #[getter]
                fn $e<'py>(&self, py: Python<'py>) -> Bound<'py, PyAny> {
                    let v: Vec<i32> = self.model.$e.iter().map(|&x| x as i32).collect();
                    let n = v.len();
                    copy(py, v, &[n])
                }
            )*
            $(
                #[doc = concat!("`", stringify!($b), "` (read-only bool copy, MuJoCo's dtype).")]
                #[getter]
                fn $b<'py>(&self, py: Python<'py>) -> Bound<'py, PyAny> {
                    let v: Vec<bool> = self.model.$b.clone();
                    let n = v.len();
                    copy(py, v, &[n])
                }
            )*
            $(
                #[doc = concat!("Size `", stringify!($n), "`.")]
                #[getter]
                fn $n(&self) -> usize {
                    self.model.$n
                }
            )*
        }

        /// Replaces the contents of `dst` by `src`, keeping the buffers of the fields that
        /// Python may view (their addresses must not change, see [`crate::arrays`]).
        pub fn assign_model(dst: &mut Model, mut src: Model) -> PyResult<()> {
            $( swap_keep(&mut dst.$f, &mut src.$f)?; )*
            $( swap_keep(&mut dst.$fr, &mut src.$fr)?; )*
            $( swap_keep(&mut dst.$i, &mut src.$i)?; )*
            $( swap_keep(&mut dst.$ir, &mut src.$ir)?; )*
            $( swap_keep(&mut dst.$u, &mut src.$u)?; )*
            let opt_keep = std::mem::take(&mut src.opt);
            *dst = Model { opt: opt_keep, ..src };
            Ok(())
        }

        /// The bytes of every writeable array and of the actuator caches (what a pickle
        /// carries besides the document).
        fn raw_arrays(m: &Model) -> Vec<(&'static str, &[u8])> {
            vec![
                $( (stringify!($f), raw(&m.$f)), )*
                $( (stringify!($fr), raw(&m.$fr)), )*
                $( (stringify!($i), raw(&m.$i)), )*
                $( (stringify!($ir), raw(&m.$ir)), )*
                $( (stringify!($u), raw(&m.$u)), )*
                ("dof_actextra", raw(&m.dof_actextra)),
                ("tendon_actextra", raw(&m.tendon_actextra)),
                ("body_user", raw(&m.body_user)),
                ("jnt_user", raw(&m.jnt_user)),
                ("geom_user", raw(&m.geom_user)),
                ("site_user", raw(&m.site_user)),
                ("cam_user", raw(&m.cam_user)),
                ("tendon_user", raw(&m.tendon_user)),
                ("actuator_user", raw(&m.actuator_user)),
                ("sensor_user", raw(&m.sensor_user)),
            ]
        }

        /// Writes bytes of [`raw_arrays`] back into the array `name`; false if there is no
        /// such array or the length differs.
        fn restore_raw(m: &mut Model, name: &str, bytes: &[u8]) -> bool {
            match name {
                $( stringify!($f) => set_raw(&mut m.$f, bytes), )*
                $( stringify!($fr) => set_raw(&mut m.$fr, bytes), )*
                $( stringify!($i) => set_raw(&mut m.$i, bytes), )*
                $( stringify!($ir) => set_raw(&mut m.$ir, bytes), )*
                $( stringify!($u) => set_raw(&mut m.$u, bytes), )*
                "dof_actextra" => set_raw(&mut m.dof_actextra, bytes),
                "tendon_actextra" => set_raw(&mut m.tendon_actextra, bytes),
                "body_user" => set_raw(&mut m.body_user, bytes),
                "jnt_user" => set_raw(&mut m.jnt_user, bytes),
                "geom_user" => set_raw(&mut m.geom_user, bytes),
                "site_user" => set_raw(&mut m.site_user, bytes),
                "cam_user" => set_raw(&mut m.cam_user, bytes),
                "tendon_user" => set_raw(&mut m.tendon_user, bytes),
                "actuator_user" => set_raw(&mut m.actuator_user, bytes),
                "sensor_user" => set_raw(&mut m.sensor_user, bytes),
                _ => false,
            }
        }

        /// The writeable arrays (and the bools, read-only copies here but plain flags the
        /// engine reads at every step), by name, in MuJoCo's dtype: what a batch gives
        /// per-simulation values (`moreau.batch`). `None` for another name.
        pub(crate) fn array_values(m: &Model, name: &str) -> Option<Values> {
            Some(match name {
                $( stringify!($f) => Values::from(m.$f.clone()), )*
                $( stringify!($fr) => Values::from(m.$fr.as_flattened().to_vec()), )*
                $( stringify!($i) => Values::I32(m.$i.clone()), )*
                $( stringify!($ir) => Values::I32(m.$ir.as_flattened().to_vec()), )*
                $( stringify!($u) => Values::I32(m.$u.iter().map(|&u| u as i32).collect()), )*
                $( stringify!($b) => Values::U8(m.$b.iter().map(|&b| u8::from(b)).collect()), )*
                _ => return None,
            })
        }

        /// Writes `v` (of [`array_values`]'s type and length) into array `name`; false for
        /// another name, type or length.
        pub(crate) fn set_array_values(m: &mut Model, name: &str, v: ValuesRef<'_>) -> bool {
            fn put<T: Copy>(dst: &mut [T], src: &[T]) -> bool {
                let same = dst.len() == src.len();
                if same {
                    dst.copy_from_slice(src);
                }
                same
            }
            match (name, v) {
                $( (stringify!($f), v) => v.put_into(&mut m.$f), )*
                $( (stringify!($fr), v) => v.put_into(m.$fr.as_flattened_mut()), )*
                $( (stringify!($i), ValuesRef::I32(v)) => put(&mut m.$i, v), )*
                $( (stringify!($ir), ValuesRef::I32(v)) => put(m.$ir.as_flattened_mut(), v), )*
                $( (stringify!($u), ValuesRef::I32(v)) if v.len() == m.$u.len() => {
                    // the int32 bits of MuJoCo's field are the engine's uint32 bits
                    for (d, &s) in m.$u.iter_mut().zip(v) {
                        *d = s as u32;
                    }
                    true
                } )*
                $( (stringify!($b), ValuesRef::U8(v)) if v.len() == m.$b.len() => {
                    for (d, &s) in m.$b.iter_mut().zip(v) {
                        *d = s != 0;
                    }
                    true
                } )*
                _ => false,
            }
        }

        /// Names of the arrays of [`array_values`].
        pub(crate) const VALUE_ARRAYS: &[&str] = &[
            $(stringify!($f),)* $(stringify!($fr),)* $(stringify!($i),)* $(stringify!($ir),)*
            $(stringify!($u),)* $(stringify!($b),)*
        ];

        /// Names of every array attribute (for `dir()` and the documentation).
        pub const MODEL_ARRAYS: &[&str] = &[
            $(stringify!($f),)* $(stringify!($fr),)* $(stringify!($i),)* $(stringify!($ir),)*
            $(stringify!($u),)* $(stringify!($x),)* $(stringify!($e),)* $(stringify!($b),)*
        ];
    };
}

/// Plain numbers (and fixed rows of them) for which every bit pattern is a value: what
/// [`raw`] / [`set_raw`] may view as bytes.
///
/// # Safety
/// Implementors have no padding and accept any bit pattern.
unsafe trait Plain: Copy {}
// SAFETY: floats and integers accept any bits; arrays of them have no padding.
unsafe impl Plain for f64 {}
unsafe impl Plain for f32 {}
unsafe impl Plain for i32 {}
unsafe impl Plain for u32 {}
unsafe impl<T: Plain, const N: usize> Plain for [T; N] {}

/// The bytes of a slice of plain numbers.
fn raw<T: Plain>(v: &[T]) -> &[u8] {
    // SAFETY: `T: Plain` has no padding, so every byte of the slice is initialized.
    unsafe { std::slice::from_raw_parts(v.as_ptr().cast::<u8>(), std::mem::size_of_val(v)) }
}

/// Overwrites `v` (same length, same buffer) with `bytes` from [`raw`]; false if the byte
/// count differs.
fn set_raw<T: Plain>(v: &mut [T], bytes: &[u8]) -> bool {
    if std::mem::size_of_val(v) != bytes.len() {
        return false;
    }
    // SAFETY: same byte count, `T: Plain` accepts any bits, and the regions cannot overlap
    // (`bytes` is borrowed immutably while `v` is borrowed mutably).
    unsafe {
        std::ptr::copy_nonoverlapping(bytes.as_ptr(), v.as_mut_ptr().cast::<u8>(), bytes.len())
    };
    true
}

/// Copies `src` into `dst`'s buffer and leaves `dst`'s buffer in `src` (so that a following
/// `*dst = src` keeps the old address with the new values).
fn swap_keep<T: Copy>(dst: &mut Vec<T>, src: &mut Vec<T>) -> PyResult<()> {
    if dst.len() != src.len() {
        return Err(PyValueError::new_err(
            "model sizes differ: cannot copy into this model",
        ));
    }
    dst.copy_from_slice(src);
    std::mem::swap(dst, src);
    Ok(())
}

model_arrays! {
    floats {
        qpos0, qpos_spring, body_mass, body_subtreemass, body_gravcomp, jnt_stiffness,
        jnt_margin, dof_frictionloss, dof_armature, dof_damping, dof_invweight0, dof_M0, dof_length,
        geom_solmix, geom_rbound, geom_margin, geom_gap, tendon_margin, tendon_stiffness,
        tendon_damping, tendon_armature, tendon_frictionloss, tendon_length0, tendon_invweight0,
        wrap_prm, actuator_cranklength, actuator_acc0, actuator_length0, actuator_damping,
        actuator_armature, pair_margin, pair_gap, sensor_cutoff, sensor_noise, key_time,
        numeric_data, light_bulbradius, light_intensity, light_range, light_softness,
        light_cutoff, light_exponent, cam_fovy, cam_ipd, tendon_width, mat_emission,
        mat_specular, mat_shininess, mat_reflectance, mat_metallic, mat_roughness,
    }
    float_rows {
        body_pos, body_quat, body_ipos, body_iquat, body_inertia, body_invweight0, jnt_solref,
        jnt_solimp, jnt_pos, jnt_axis, jnt_range, jnt_actfrcrange, jnt_stiffnesspoly,
        dof_solref, dof_solimp, dof_dampingpoly, geom_solref, geom_solimp, geom_size,
        geom_aabb, geom_pos, geom_quat, geom_friction, geom_rgba, geom_fluid, site_size,
        site_pos, site_quat, cam_pos, cam_quat, cam_poscom0, cam_pos0, cam_mat0, mat_rgba,
        tendon_solref_lim, tendon_solimp_lim, tendon_solref_fri, tendon_solimp_fri,
        tendon_range, tendon_actfrcrange, tendon_lengthspring, tendon_stiffnesspoly, tendon_dampingpoly,
        actuator_dynprm, actuator_gainprm, actuator_biasprm, actuator_ctrlrange,
        actuator_forcerange, actuator_actrange, actuator_gear, actuator_lengthrange,
        actuator_dampingpoly, eq_solref, eq_solimp, eq_data, pair_solref, pair_solreffriction,
        pair_solimp, pair_friction, light_pos, light_dir, light_poscom0, light_pos0, light_dir0,
        light_attenuation, light_ambient, light_diffuse, light_specular, site_rgba, tendon_rgba,
    }
    ints {
        body_mocapid, jnt_group, dof_parentid, geom_dataid, geom_group, geom_priority,
        geom_matid, cam_targetbodyid, wrap_objid, actuator_actadr, actuator_group, eq_obj1id,
        eq_obj2id, sensor_objid, sensor_refid, light_targetbodyid, light_type, light_texid,
        tree_sleep_policy, site_group, site_matid, tendon_group, tendon_matid,
    }
    int_rows { actuator_trnid }
    uints { geom_contype, geom_conaffinity, exclude_signature }
    indices {
        body_parentid, body_rootid, body_weldid, body_jntnum, body_dofnum, body_geomnum,
        jnt_qposadr, jnt_dofadr, jnt_bodyid, dof_bodyid, dof_jntid, dof_Madr, geom_condim,
        geom_bodyid, site_bodyid, cam_bodyid, tendon_adr, tendon_num, actuator_actnum,
        ten_J_rownnz, ten_J_rowadr, ten_J_colind,
        pair_geom1, pair_geom2, pair_dim, sensor_dim, sensor_adr, numeric_adr, numeric_size,
        light_bodyid, D_rownnz, D_rowadr, D_colind, D_diag,
    }
    enums {
        jnt_type, geom_type, site_type, cam_mode, wrap_type, actuator_trntype,
        actuator_dyntype, actuator_gaintype, actuator_biastype, eq_type, eq_objtype,
        sensor_objtype, sensor_reftype, light_mode,
    }
    bools {
        jnt_limited, jnt_actfrclimited, jnt_actgravcomp, tendon_limited, tendon_actfrclimited, actuator_ctrllimited,
        actuator_forcelimited, actuator_actlimited, actuator_actearly, eq_active0,
        light_castshadow, light_active,
    }
    sizes {
        nq, nv, nu, na, nbody, njnt, ngeom, nsite, ntendon, nwrap, neq, nkey, nsensor,
        nsensordata, nmocap, nmesh, nhfield, npair, nexclude, nM, nD, ncam, nmat, nnumeric,
        nlight, nJten, nJmom,
    }
}

/// Loads an MJCF document on a thread without the GIL.
pub(crate) fn load(
    py: Python<'_>,
    xml: Option<String>,
    path: Option<String>,
    assets: Option<Bound<'_, PyDict>>,
) -> PyResult<MjModel> {
    let with_assets = assets.is_some();
    let vfs = vfs_of(assets)?;
    let res = py.detach(|| match (xml, path) {
        (Some(x), _) => moreau::load_from_str_with_source(&x, &vfs),
        (None, Some(p)) if !with_assets => moreau::load_with_source(&p),
        (None, Some(p)) => match std::fs::read_to_string(&p) {
            Ok(x) => moreau::load_from_str_with_source(&x, &vfs),
            Err(_) => moreau::load_with_source(&p),
        },
        (None, None) => unreachable!("load: neither a string nor a path"),
    });
    let (model, source) = res.map_err(|e| crate::errors::mjcf_error(py, &e))?;
    check_supported(&model)?;
    Ok(MjModel {
        source: Some(Arc::new(source)),
        ..MjModel::new(model)
    })
}

/// Compiles the document `xml` with its files relative to `dir` (an edited `MjSpec`), the
/// VFS from `assets` as [`load`]'s.
pub(crate) fn load_in(
    py: Python<'_>,
    xml: String,
    dir: Option<std::path::PathBuf>,
    assets: Option<Bound<'_, PyDict>>,
) -> PyResult<MjModel> {
    let vfs = vfs_of(assets)?;
    let res = py.detach(|| moreau::load_from_str_in(&xml, dir.as_deref(), &vfs));
    let (model, source) = res.map_err(|e| crate::errors::mjcf_error(py, &e))?;
    check_supported(&model)?;
    Ok(MjModel {
        source: Some(Arc::new(source)),
        ..MjModel::new(model)
    })
}

/// The VFS of an `assets` dictionary (file name to bytes or str), refusing two names MuJoCo
/// would key alike.
pub(crate) fn vfs_of(assets: Option<Bound<'_, PyDict>>) -> PyResult<moreau::Vfs> {
    let mut vfs = moreau::Vfs::new();
    if let Some(a) = assets {
        let mut seen = std::collections::HashSet::new();
        for (k, v) in a.iter() {
            let name: String = k
                .extract()
                .map_err(|_| PyTypeError::new_err("asset names must be str"))?;
            // MuJoCo's dict keys a file by its name without directory, case-folded: two keys
            // that agree so are refused (measured on MuJoCo 4.0.0, with its message)
            let base = name.rsplit(['/', '\\']).next().unwrap_or(&name);
            if !seen.insert(base.to_ascii_lowercase()) {
                return Err(PyValueError::new_err(format!(
                    "Repeated file name in assets dict: {}",
                    base.to_ascii_lowercase()
                )));
            }
            let bytes: Vec<u8> = if let Ok(s) = v.extract::<String>() {
                s.into_bytes()
            } else {
                v.extract()
                    .map_err(|_| PyTypeError::new_err(format!("asset '{name}' must be bytes")))?
            };
            vfs.add(name, bytes);
        }
    }
    Ok(vfs)
}

/// The options a pickle carries, by their Python names.
const OPTION_FIELDS: &[&str] = &[
    "timestep",
    "impratio",
    "tolerance",
    "ls_tolerance",
    "noslip_tolerance",
    "ccd_tolerance",
    "sleep_tolerance",
    "density",
    "viscosity",
    "o_margin",
    "iterations",
    "ls_iterations",
    "noslip_iterations",
    "ccd_iterations",
    "disableflags",
    "enableflags",
    "gravity",
    "wind",
    "magnetic",
    "o_solref",
    "o_solimp",
    "o_friction",
    "integrator",
    "cone",
    "solver",
    "jacobian",
];

/// Rebuilds a pickled `MjModel` (`MjModel.__reduce__`): compiles the MJCF document from its
/// captured files alone, then writes back the model's values at pickling time (every
/// writeable array, the options and the actuator caches `mj_setConst` refreshes).
#[pyfunction]
fn _model_from_pickle(
    py: Python<'_>,
    xml: String,
    files: Bound<'_, PyDict>,
    arrays: Bound<'_, PyDict>,
    options: Bound<'_, PyDict>,
) -> PyResult<Py<MjModel>> {
    let m = load(py, Some(xml), None, Some(files))?;
    let m = Bound::new(py, m)?;
    {
        let mut mm = m.borrow_mut();
        for (k, v) in arrays.iter() {
            let name: String = k.extract()?;
            let bytes = v.cast::<PyBytes>()?.as_bytes();
            if !restore_raw(&mut mm.model, &name, bytes) {
                return Err(PyValueError::new_err(format!(
                    "pickled MjModel: array '{name}' does not fit the compiled model"
                )));
            }
        }
    }
    let opt = m.getattr("opt")?;
    for (k, v) in options.iter() {
        opt.setattr(k.cast::<pyo3::types::PyString>()?, v)?;
    }
    Ok(m.unbind())
}

#[pymethods]
impl MjModel {
    /// Loads and compiles the MJCF file at `filename` (includes, meshes and height fields
    /// relative to its directory). `assets` maps file names to bytes that are looked up before
    /// the disk (MuJoCo's VFS). Raises `MjcfLoadError` (a ValueError) naming the file, line,
    /// column and attribute.
    #[staticmethod]
    #[pyo3(signature = (filename, assets=None))]
    fn from_xml_path(
        py: Python<'_>,
        filename: std::path::PathBuf,
        assets: Option<Bound<'_, PyDict>>,
    ) -> PyResult<Self> {
        let p = filename.to_string_lossy().into_owned();
        load(py, None, Some(p), assets)
    }

    /// Compiles an MJCF document given as a string; `assets` maps file names (includes,
    /// meshes, height fields) to their bytes (MuJoCo's VFS).
    #[staticmethod]
    #[pyo3(signature = (xml, assets=None))]
    fn from_xml_string(
        py: Python<'_>,
        xml: String,
        assets: Option<Bound<'_, PyDict>>,
    ) -> PyResult<Self> {
        load(py, Some(xml), None, assets)
    }

    /// The physics options (`mjOption`): a view, `m.opt.timestep = 0.001` changes the model.
    #[getter]
    fn opt(slf: Bound<'_, Self>) -> MjOption {
        MjOption {
            model: slf.unbind(),
        }
    }

    /// Number of kinematic trees.
    #[getter]
    fn ntree(&self) -> usize {
        self.model.dof_parentid.iter().filter(|p| **p < 0).count()
    }

    /// Sensor types as MuJoCo's `mjtSensor` values (read-only int32 copy).
    #[getter]
    fn sensor_type<'py>(&self, py: Python<'py>) -> Bound<'py, PyAny> {
        let v: Vec<i32> = self
            .model
            .sensor_type
            .iter()
            .map(|&t| mjt_sensor(t))
            .collect();
        let n = v.len();
        copy(py, v, &[n])
    }

    /// First joint of each body, -1 for bodies without joints (read-only copy).
    #[getter]
    fn body_jntadr<'py>(&self, py: Python<'py>) -> Bound<'py, PyAny> {
        let m = &self.model;
        copy(py, adr_or_none(&m.body_jntadr, &m.body_jntnum), &[m.nbody])
    }

    /// First dof of each body, -1 for bodies without dofs (read-only copy).
    #[getter]
    fn body_dofadr<'py>(&self, py: Python<'py>) -> Bound<'py, PyAny> {
        let m = &self.model;
        copy(py, adr_or_none(&m.body_dofadr, &m.body_dofnum), &[m.nbody])
    }

    /// First geom of each body, -1 for bodies without geoms (read-only copy).
    #[getter]
    fn body_geomadr<'py>(&self, py: Python<'py>) -> Bound<'py, PyAny> {
        let m = &self.model;
        copy(
            py,
            adr_or_none(&m.body_geomadr, &m.body_geomnum),
            &[m.nbody],
        )
    }

    /// Keyframe positions `(nkey, nq)`, `qpos0` where a keyframe has none (read-only copy).
    #[getter]
    fn key_qpos<'py>(&self, py: Python<'py>) -> Bound<'py, PyAny> {
        let m = &self.model;
        copy(py, key_rows(&m.key_qpos, m.nkey, &m.qpos0), &[m.nkey, m.nq])
    }

    /// Keyframe velocities `(nkey, nv)` (read-only copy).
    #[getter]
    fn key_qvel<'py>(&self, py: Python<'py>) -> Bound<'py, PyAny> {
        let m = &self.model;
        copy(
            py,
            key_rows(&m.key_qvel, m.nkey, &vec![0.0; m.nv]),
            &[m.nkey, m.nv],
        )
    }

    /// Keyframe activations `(nkey, na)` (read-only copy).
    #[getter]
    fn key_act<'py>(&self, py: Python<'py>) -> Bound<'py, PyAny> {
        let m = &self.model;
        copy(
            py,
            key_rows(&m.key_act, m.nkey, &vec![0.0; m.na]),
            &[m.nkey, m.na],
        )
    }

    /// Keyframe controls `(nkey, nu)` (read-only copy).
    #[getter]
    fn key_ctrl<'py>(&self, py: Python<'py>) -> Bound<'py, PyAny> {
        let m = &self.model;
        copy(
            py,
            key_rows(&m.key_ctrl, m.nkey, &vec![0.0; m.nu]),
            &[m.nkey, m.nu],
        )
    }

    /// Keyframe mocap positions `(nkey, 3 nmocap)` (read-only copy).
    #[getter]
    fn key_mpos<'py>(&self, py: Python<'py>) -> Bound<'py, PyAny> {
        let m = &self.model;
        let mut def = vec![0.0; 3 * m.nmocap];
        for b in 0..m.nbody {
            if let Ok(i) = usize::try_from(m.body_mocapid[b]) {
                def[3 * i..3 * i + 3].copy_from_slice(&m.body_pos[b]);
            }
        }
        copy(
            py,
            key_rows(&m.key_mpos, m.nkey, &def),
            &[m.nkey, 3 * m.nmocap],
        )
    }

    /// Keyframe mocap orientations `(nkey, 4 nmocap)` (read-only copy).
    #[getter]
    fn key_mquat<'py>(&self, py: Python<'py>) -> Bound<'py, PyAny> {
        let m = &self.model;
        let mut defq = vec![0.0; 4 * m.nmocap];
        for b in 0..m.nbody {
            if let Ok(i) = usize::try_from(m.body_mocapid[b]) {
                defq[4 * i..4 * i + 4].copy_from_slice(&m.body_quat[b]);
            }
        }
        copy(
            py,
            key_rows(&m.key_mquat, m.nkey, &defq),
            &[m.nkey, 4 * m.nmocap],
        )
    }

    /// Per body: 2 for a slider body (slide joints only, mass · I), 1 for the world and another
    /// simple body (diagonal block of M, [`moreau::simple_body`]), else 0 (read-only uint8
    /// copy, as MuJoCo's).
    #[getter]
    fn body_simple<'py>(&self, py: Python<'py>) -> Bound<'py, PyAny> {
        let m = &self.model;
        let v: Vec<u8> = (0..m.nbody)
            .map(|b| {
                if moreau::pipeline::slider_body(m, b) {
                    2
                } else {
                    u8::from(b == 0 || moreau::simple_body(m, b))
                }
            })
            .collect();
        let n = v.len();
        copy(py, v, &[n])
    }

    /// Per dof: the number of consecutive dofs from it on that belong to simple bodies
    /// (`body_simple > 0`), 0 for a dof of another body (read-only int32 copy).
    #[getter]
    fn dof_simplenum<'py>(&self, py: Python<'py>) -> Bound<'py, PyAny> {
        let m = &self.model;
        let mut v = vec![0i32; m.nv];
        for i in (0..m.nv).rev() {
            if moreau::simple_body(m, m.dof_bodyid[i]) {
                v[i] = 1 + v.get(i + 1).copied().unwrap_or(0);
            }
        }
        copy(py, v, &[m.nv])
    }

    /// Number of nonzeros of the inertia's lower triangle in MuJoCo's sparse layout (`M`).
    #[getter]
    fn nC(&self) -> usize {
        crate::layout::m_sparsity(&self.model)[2].len()
    }

    /// Number of nonzeros in each row of `M`'s lower triangle (read-only int32 copy).
    #[getter]
    fn M_rownnz<'py>(&self, py: Python<'py>) -> Bound<'py, PyAny> {
        let [v, _, _] = crate::layout::m_sparsity(&self.model);
        let n = v.len();
        copy(py, v, &[n])
    }

    /// Address of each row of `M` in `M_colind` (read-only int32 copy).
    #[getter]
    fn M_rowadr<'py>(&self, py: Python<'py>) -> Bound<'py, PyAny> {
        let [_, v, _] = crate::layout::m_sparsity(&self.model);
        let n = v.len();
        copy(py, v, &[n])
    }

    /// Column of each entry of `M` (`nC`): per row the dof's ancestors from the root, then the
    /// dof (read-only int32 copy).
    #[getter]
    fn M_colind<'py>(&self, py: Python<'py>) -> Bound<'py, PyAny> {
        let [_, _, v] = crate::layout::m_sparsity(&self.model);
        let n = v.len();
        copy(py, v, &[n])
    }

    /// Number of custom numeric values (the length of `numeric_data`).
    #[getter]
    fn nnumericdata(&self) -> usize {
        self.model.numeric_data.len()
    }

    /// Name of element `id` of object type `objtype` (an `mjtObj` value), or None.
    fn name(&self, objtype: i32, id: i64) -> Option<String> {
        let names = names_of(&self.model, objtype)?;
        usize::try_from(id)
            .ok()
            .and_then(|i| names.get(i))
            .filter(|n| !n.is_empty())
            .cloned()
    }

    /// Attribute-style access by name or id, as MuJoCo's `m.body('torso').mass`,
    /// `m.joint(0).range`, `m.geom('floor').friction`, `m.actuator('a').gear`: an object whose
    /// attributes are the rows of the `body_*` arrays (views where the arrays are views).
    fn body(slf: &Bound<'_, Self>, key: &Bound<'_, PyAny>) -> PyResult<Named> {
        Named::new(slf.as_any(), "body", OBJ_BODY, key)
    }
    /// Joint accessor (`jnt_*` arrays), see `body`.
    fn joint(slf: &Bound<'_, Self>, key: &Bound<'_, PyAny>) -> PyResult<Named> {
        Named::new(slf.as_any(), "jnt", OBJ_JOINT, key)
    }
    /// Alias of `joint`.
    fn jnt(slf: &Bound<'_, Self>, key: &Bound<'_, PyAny>) -> PyResult<Named> {
        Named::new(slf.as_any(), "jnt", OBJ_JOINT, key)
    }
    /// Geom accessor (`geom_*` arrays), see `body`.
    fn geom(slf: &Bound<'_, Self>, key: &Bound<'_, PyAny>) -> PyResult<Named> {
        Named::new(slf.as_any(), "geom", OBJ_GEOM, key)
    }
    /// Site accessor (`site_*` arrays), see `body`.
    fn site(slf: &Bound<'_, Self>, key: &Bound<'_, PyAny>) -> PyResult<Named> {
        Named::new(slf.as_any(), "site", OBJ_SITE, key)
    }
    /// Camera accessor (`cam_*` arrays), see `body`.
    fn camera(slf: &Bound<'_, Self>, key: &Bound<'_, PyAny>) -> PyResult<Named> {
        Named::new(slf.as_any(), "cam", OBJ_CAMERA, key)
    }
    /// Light accessor (`light_*` arrays), see `body`.
    fn light(slf: &Bound<'_, Self>, key: &Bound<'_, PyAny>) -> PyResult<Named> {
        Named::new(slf.as_any(), "light", OBJ_LIGHT, key)
    }
    /// Alias of `camera`.
    fn cam(slf: &Bound<'_, Self>, key: &Bound<'_, PyAny>) -> PyResult<Named> {
        Named::new(slf.as_any(), "cam", OBJ_CAMERA, key)
    }
    /// Mesh accessor (`mesh_*` arrays), see `body`.
    fn mesh(slf: &Bound<'_, Self>, key: &Bound<'_, PyAny>) -> PyResult<Named> {
        Named::new(slf.as_any(), "mesh", OBJ_MESH, key)
    }
    /// Height-field accessor (`hfield_*` arrays), see `body`.
    fn hfield(slf: &Bound<'_, Self>, key: &Bound<'_, PyAny>) -> PyResult<Named> {
        Named::new(slf.as_any(), "hfield", OBJ_HFIELD, key)
    }
    /// Alias of `equality`.
    fn eq(slf: &Bound<'_, Self>, key: &Bound<'_, PyAny>) -> PyResult<Named> {
        Named::new(slf.as_any(), "eq", OBJ_EQUALITY, key)
    }
    /// Alias of `material`.
    fn mat(slf: &Bound<'_, Self>, key: &Bound<'_, PyAny>) -> PyResult<Named> {
        Named::new(slf.as_any(), "mat", OBJ_MATERIAL, key)
    }
    /// Texture accessor (`tex_*` arrays), see `body`.
    fn texture(slf: &Bound<'_, Self>, key: &Bound<'_, PyAny>) -> PyResult<Named> {
        Named::new(slf.as_any(), "tex", OBJ_TEXTURE, key)
    }
    /// Alias of `texture`.
    fn tex(slf: &Bound<'_, Self>, key: &Bound<'_, PyAny>) -> PyResult<Named> {
        Named::new(slf.as_any(), "tex", OBJ_TEXTURE, key)
    }
    /// Actuator accessor (`actuator_*` arrays), see `body`.
    fn actuator(slf: &Bound<'_, Self>, key: &Bound<'_, PyAny>) -> PyResult<Named> {
        Named::new(slf.as_any(), "actuator", OBJ_ACTUATOR, key)
    }
    /// Tendon accessor (`tendon_*` arrays), see `body`.
    fn tendon(slf: &Bound<'_, Self>, key: &Bound<'_, PyAny>) -> PyResult<Named> {
        Named::new(slf.as_any(), "tendon", OBJ_TENDON, key)
    }
    /// Sensor accessor (`sensor_*` arrays), see `body`.
    fn sensor(slf: &Bound<'_, Self>, key: &Bound<'_, PyAny>) -> PyResult<Named> {
        Named::new(slf.as_any(), "sensor", OBJ_SENSOR, key)
    }
    /// Equality accessor (`eq_*` arrays), see `body`.
    fn equality(slf: &Bound<'_, Self>, key: &Bound<'_, PyAny>) -> PyResult<Named> {
        Named::new(slf.as_any(), "eq", OBJ_EQUALITY, key)
    }
    /// Material accessor (`mat_*` arrays), see `body`.
    fn material(slf: &Bound<'_, Self>, key: &Bound<'_, PyAny>) -> PyResult<Named> {
        Named::new(slf.as_any(), "mat", OBJ_MATERIAL, key)
    }
    /// Contact pair accessor (`pair_*` arrays), see `body`.
    fn pair(slf: &Bound<'_, Self>, key: &Bound<'_, PyAny>) -> PyResult<Named> {
        Named::new(slf.as_any(), "pair", OBJ_PAIR, key)
    }
    /// Custom numeric accessor (`numeric_*` arrays; `data` is the element's slice of
    /// `numeric_data`), see `body`.
    fn numeric(slf: &Bound<'_, Self>, key: &Bound<'_, PyAny>) -> PyResult<Named> {
        Named::new(slf.as_any(), "numeric", OBJ_NUMERIC, key)
    }
    /// Keyframe accessor (`key_*` arrays), see `body`.
    fn key(slf: &Bound<'_, Self>, key: &Bound<'_, PyAny>) -> PyResult<Named> {
        Named::new(slf.as_any(), "key", OBJ_KEY, key)
    }
    /// Alias of `key`.
    fn keyframe(slf: &Bound<'_, Self>, key: &Bound<'_, PyAny>) -> PyResult<Named> {
        Named::new(slf.as_any(), "key", OBJ_KEY, key)
    }

    /// Writing an array attribute copies into the model (`m.body_mass = x` is
    /// `m.body_mass[...] = x`, NumPy's broadcasting rules); read-only copies raise.
    fn __setattr__(slf: &Bound<'_, Self>, name: &str, value: &Bound<'_, PyAny>) -> PyResult<()> {
        let cur = slf.as_any().getattr(name)?;
        if cur.cast::<numpy::PyUntypedArray>().is_ok() {
            crate::arrays::assign(&cur, value)
        } else {
            Err(PyAttributeError::new_err(format!(
                "MjModel attribute '{name}' is read-only"
            )))
        }
    }

    /// A deep copy (`copy.copy(m)` and `copy.deepcopy(m)`, as MuJoCo's `MjModel`).
    fn __copy__(&self) -> Self {
        self.derived(self.model.clone())
    }
    fn __deepcopy__(&self, _memo: &Bound<'_, PyAny>) -> Self {
        self.derived(self.model.clone())
    }

    /// Pickling (`pickle.dumps(m)`, what Ray and multiprocessing send): the MJCF document and
    /// the bytes of every file read when it was loaded (from the disk or the `assets` dict),
    /// plus the model's current values (writeable arrays, options, the actuator caches
    /// `mj_setConst` refreshes). The copy compiles the document from those bytes alone, so it
    /// needs no file on the receiving side, and simulates bit for bit as this model.
    fn __reduce__<'py>(
        slf: &Bound<'py, Self>,
    ) -> PyResult<(Bound<'py, PyAny>, Bound<'py, PyTuple>)> {
        let py = slf.py();
        let m = slf.borrow();
        let src = m.source.as_ref().ok_or_else(|| {
            PyTypeError::new_err(
                "cannot pickle this MjModel: it was not loaded from MJCF by \
                 MjModel.from_xml_path / from_xml_string, so its document is unknown",
            )
        })?;
        let files = PyDict::new(py);
        for (k, v) in src.files.iter() {
            files.set_item(k, PyBytes::new(py, v))?;
        }
        let arrays = PyDict::new(py);
        for (k, v) in raw_arrays(&m.model) {
            arrays.set_item(k, PyBytes::new(py, v))?;
        }
        let opt = slf.getattr("opt")?;
        let options = PyDict::new(py);
        for k in OPTION_FIELDS {
            let v = opt.getattr(*k)?;
            let v = match v.hasattr("copy")? {
                true => v.call_method0("copy")?,
                false => v,
            };
            options.set_item(*k, v)?;
        }
        let xml = src.xml.clone();
        drop(m);
        let f = py.import("moreau._moreau")?.getattr("_model_from_pickle")?;
        let args = PyTuple::new(
            py,
            [
                xml.into_pyobject(py)?.into_any(),
                files.into_any(),
                arrays.into_any(),
                options.into_any(),
            ],
        )?;
        Ok((f, args))
    }

    fn __repr__(&self) -> String {
        let m = &self.model;
        format!(
            "<moreau.MjModel nq={} nv={} nu={} na={} nbody={} ngeom={}>",
            m.nq, m.nv, m.nu, m.na, m.nbody, m.ngeom
        )
    }

    /// The names of the array attributes.
    #[classattr]
    fn _arrays(py: Python<'_>) -> Bound<'_, PyTuple> {
        PyTuple::new(py, MODEL_ARRAYS).expect("tuple of str")
    }
}

// mjtObj values (MuJoCo 4.0.0).
pub const OBJ_BODY: i32 = 1;
pub const OBJ_XBODY: i32 = 2;
pub const OBJ_JOINT: i32 = 3;
pub const OBJ_DOF: i32 = 4;
pub const OBJ_GEOM: i32 = 5;
pub const OBJ_SITE: i32 = 6;
pub const OBJ_CAMERA: i32 = 7;
pub const OBJ_LIGHT: i32 = 8;
pub const OBJ_MESH: i32 = 10;
pub const OBJ_SKIN: i32 = 11;
pub const OBJ_HFIELD: i32 = 12;
pub const OBJ_TEXTURE: i32 = 13;
pub const OBJ_MATERIAL: i32 = 14;
pub const OBJ_PAIR: i32 = 15;
pub const OBJ_EXCLUDE: i32 = 16;
pub const OBJ_EQUALITY: i32 = 17;
pub const OBJ_TENDON: i32 = 18;
pub const OBJ_ACTUATOR: i32 = 19;
pub const OBJ_SENSOR: i32 = 20;
pub const OBJ_NUMERIC: i32 = 21;
pub const OBJ_TEXT: i32 = 22;
pub const OBJ_TUPLE: i32 = 23;
pub const OBJ_KEY: i32 = 24;

/// Names of the elements of an object type, if moreau keeps them.
pub fn names_of(m: &Model, objtype: i32) -> Option<Cow<'_, [String]>> {
    let owned = |v: Vec<String>| Some(Cow::Owned(v));
    match objtype {
        OBJ_MESH => return owned(m.mesh.iter().map(|g| g.name.clone()).collect()),
        OBJ_HFIELD => return owned(m.hfield.iter().map(|h| h.name.clone()).collect()),
        _ => {}
    }
    Some(Cow::Borrowed(match objtype {
        OBJ_BODY | OBJ_XBODY => &m.body_name,
        OBJ_JOINT => &m.jnt_name,
        OBJ_GEOM => &m.geom_name,
        OBJ_SITE => &m.site_name,
        OBJ_CAMERA => &m.cam_name,
        OBJ_LIGHT => &m.light_name,
        OBJ_TEXTURE => &m.tex_name,
        OBJ_MATERIAL => &m.mat_name,
        OBJ_PAIR => &m.pair_name,
        OBJ_EXCLUDE => &m.exclude_name,
        OBJ_SKIN => &m.skin_name,
        OBJ_TEXT => &m.text_name,
        OBJ_TUPLE => &m.tuple_name,
        OBJ_EQUALITY => &m.eq_name,
        OBJ_TENDON => &m.tendon_name,
        OBJ_ACTUATOR => &m.actuator_name,
        OBJ_SENSOR => &m.sensor_name,
        OBJ_NUMERIC => &m.numeric_name,
        OBJ_KEY => &m.key_name,
        _ => return None,
    }))
}

/// Number of elements of an object type.
pub fn count_of(m: &Model, objtype: i32) -> Option<usize> {
    Some(match objtype {
        OBJ_BODY | OBJ_XBODY => m.nbody,
        OBJ_JOINT => m.njnt,
        OBJ_DOF => m.nv,
        OBJ_GEOM => m.ngeom,
        OBJ_SITE => m.nsite,
        OBJ_CAMERA => m.ncam,
        OBJ_LIGHT => m.nlight,
        OBJ_MESH => m.nmesh,
        OBJ_HFIELD => m.nhfield,
        OBJ_TEXTURE => m.ntex,
        OBJ_MATERIAL => m.nmat,
        OBJ_PAIR => m.npair,
        OBJ_EXCLUDE => m.nexclude,
        OBJ_SKIN => m.skin_name.len(),
        OBJ_TEXT => m.text_name.len(),
        OBJ_TUPLE => m.tuple_name.len(),
        OBJ_EQUALITY => m.neq,
        OBJ_TENDON => m.ntendon,
        OBJ_ACTUATOR => m.nu,
        OBJ_SENSOR => m.nsensor,
        OBJ_NUMERIC => m.nnumeric,
        OBJ_KEY => m.nkey,
        _ => return None,
    })
}

/// Resolves a name or an id of an element of `objtype` to its id.
pub fn resolve(m: &Model, objtype: i32, what: &str, key: &Bound<'_, PyAny>) -> PyResult<usize> {
    let n = count_of(m, objtype).unwrap_or(0);
    if let Ok(i) = key.extract::<i64>() {
        return usize::try_from(i).ok().filter(|&i| i < n).ok_or_else(|| {
            PyIndexError::new_err(format!("{what} id {i} out of range (there are {n})"))
        });
    }
    let name: String = key
        .extract()
        .map_err(|_| PyTypeError::new_err(format!("{what}: expected a name or an id")))?;
    names_of(m, objtype)
        .and_then(|ns| ns.iter().position(|x| *x == name))
        .ok_or_else(|| {
            PyKeyError(format!(
                "Invalid name '{name}'. Valid names: {:?}",
                valid_names(m, objtype)
            ))
        })
}

#[allow(non_snake_case)]
fn PyKeyError(msg: String) -> PyErr {
    pyo3::exceptions::PyKeyError::new_err(msg)
}

fn valid_names(m: &Model, objtype: i32) -> Vec<String> {
    names_of(m, objtype)
        .map(|ns| ns.iter().filter(|n| !n.is_empty()).cloned().collect())
        .unwrap_or_default()
}

/// One element of a model or data seen through its arrays: `m.body('torso').mass` is
/// `m.body_mass[id:id+1]` and `d.joint('hinge').qpos` the joint's slice of `d.qpos` (views
/// where the arrays are views), as MuJoCo's named accessors.
#[pyclass(module = "moreau", name = "_NamedAccess")]
pub struct Named {
    owner: Py<PyAny>,
    prefix: &'static str,
    objtype: i32,
    /// Element id.
    #[pyo3(get)]
    id: usize,
    /// Element name ("" if unnamed).
    #[pyo3(get)]
    name: String,
}

impl Named {
    pub fn new(
        owner: &Bound<'_, PyAny>,
        prefix: &'static str,
        objtype: i32,
        key: &Bound<'_, PyAny>,
    ) -> PyResult<Self> {
        let model: Bound<'_, MjModel> = match owner.cast::<MjModel>() {
            Ok(m) => m.clone(),
            Err(_) => owner.getattr("model")?.cast_into::<MjModel>()?,
        };
        let mr = model.borrow();
        let id = resolve(&mr.model, objtype, prefix, key)?;
        let name = names_of(&mr.model, objtype)
            .and_then(|n| n.get(id).cloned())
            .unwrap_or_default();
        Ok(Named {
            owner: owner.clone().unbind(),
            prefix,
            objtype,
            id,
            name,
        })
    }
}

#[pymethods]
impl Named {
    fn __getattr__<'py>(&self, py: Python<'py>, attr: &str) -> PyResult<Bound<'py, PyAny>> {
        let owner = self.owner.bind(py);
        let is_data = owner.cast::<MjModel>().is_err();
        let no_attr =
            || PyAttributeError::new_err(format!("{} has no attribute '{attr}'", self.prefix));
        let slice = |arr: Bound<'py, PyAny>, a: usize, n: usize| {
            arr.get_item(pyo3::types::PySlice::new(
                py,
                a as isize,
                (a + n) as isize,
                1,
            ))
        };
        if is_data {
            let model = owner.getattr("model")?.cast_into::<MjModel>()?;
            let mr = model.borrow();
            let m = &mr.model;
            // joint data: the joint's slice of the qpos / qvel-type vectors
            if self.objtype == OBJ_JOINT && attr != "xanchor" && attr != "xaxis" {
                let j = self.id;
                let ty = m.jnt_type[j];
                let (adr, n) = if attr == "qpos" {
                    (m.jnt_qposadr[j], ty.nq())
                } else {
                    (m.jnt_dofadr[j], ty.nv())
                };
                let arr = owner.getattr(attr).map_err(|_| no_attr())?;
                let len: usize = arr.len()?;
                if len != if attr == "qpos" { m.nq } else { m.nv } {
                    return Err(no_attr());
                }
                return slice(arr, adr, n);
            }
            if self.objtype == OBJ_SENSOR && attr == "data" {
                let (a, n) = (m.sensor_adr[self.id], m.sensor_dim[self.id]);
                return slice(owner.getattr("sensordata")?, a, n);
            }
        } else if self.objtype == OBJ_NUMERIC && attr == "data" {
            let (a, n) = {
                let mr = owner.cast::<MjModel>()?.borrow();
                (
                    mr.model.numeric_adr[self.id],
                    mr.model.numeric_size[self.id],
                )
            };
            return slice(owner.getattr("numeric_data")?, a, n);
        }
        let prefix = if is_data && self.prefix == "tendon" {
            "ten"
        } else {
            self.prefix
        };
        let arr = match owner.getattr(format!("{prefix}_{attr}").as_str()) {
            Ok(a) => a,
            Err(_) if is_data => owner.getattr(attr).map_err(|_| no_attr())?,
            Err(_) if self.objtype == OBJ_JOINT => {
                // as MuJoCo's joint views: the joint's rows of the dof fields (`damping`,
                // `armature`, `dampingpoly`, …) and its part of `qpos0` and `qpos_spring`
                let (adr, n) = {
                    let mr = owner.cast::<MjModel>()?.borrow();
                    let (m, j) = (&mr.model, self.id);
                    if attr == "qpos0" || attr == "qpos_spring" {
                        (m.jnt_qposadr[j], m.jnt_type[j].nq())
                    } else {
                        (m.jnt_dofadr[j], m.jnt_type[j].nv())
                    }
                };
                let name = match attr {
                    "qpos0" | "qpos_spring" => attr.to_string(),
                    _ => format!("dof_{attr}"),
                };
                let arr = owner.getattr(name.as_str()).map_err(|_| no_attr())?;
                return slice(arr, adr, n);
            }
            Err(_) => return Err(no_attr()),
        };
        let shape: Vec<usize> = arr.getattr("shape").map_err(|_| no_attr())?.extract()?;
        if shape.len() >= 2 {
            arr.get_item(self.id)
        } else {
            slice(arr, self.id, 1)
        }
    }

    /// The array attributes `__getattr__` resolves, with `id` and `name` (MuJoCo's views list
    /// theirs): the owner's `{prefix}_*` fields without the prefix and, on an `MjData`, the
    /// fields the view slices by id (for a joint, its part of the `qpos`- and `qvel`-sized
    /// vectors). An error's "did you mean" reads them.
    fn __dir__(&self, py: Python<'_>) -> PyResult<Vec<String>> {
        let owner = self.owner.bind(py);
        let is_data = owner.cast::<MjModel>().is_err();
        let prefix = if is_data && self.prefix == "tendon" {
            "ten"
        } else {
            self.prefix
        };
        let head = format!("{prefix}_");
        let mut out = vec!["id".to_string(), "name".to_string()];
        for n in owner.dir()?.iter() {
            let Ok(n) = n.extract::<String>() else {
                continue;
            };
            let cand = match n.strip_prefix(&head) {
                Some(rest) => rest.to_string(),
                None if is_data && !n.starts_with('_') => n,
                None => continue,
            };
            let resolves = self
                .__getattr__(py, &cand)
                .is_ok_and(|v| v.hasattr("shape").unwrap_or(false));
            if resolves {
                out.push(cand);
            }
        }
        if (is_data && self.objtype == OBJ_SENSOR) || (!is_data && self.objtype == OBJ_NUMERIC) {
            out.push("data".into());
        }
        out.sort();
        out.dedup();
        Ok(out)
    }

    /// `m.body('torso').mass = 2.0` writes through the view (`[...] = value`).
    fn __setattr__(&self, py: Python<'_>, attr: &str, value: &Bound<'_, PyAny>) -> PyResult<()> {
        let view = self.__getattr__(py, attr)?;
        crate::arrays::assign(&view, value)
    }

    fn __repr__(&self) -> String {
        format!("<{} {} '{}'>", self.prefix, self.id, self.name)
    }
}

/// Sets option `name` (`integrator`, `cone`, `solver` or `jacobian`) from MuJoCo's enum value
/// `v`; an error for another value or name.
pub(crate) fn set_option_enum(
    o: &mut moreau::model::Options,
    name: &str,
    v: i64,
) -> Result<(), String> {
    use moreau::model::{Cone, Integrator, JacobianType, SolverType};
    let bad = || format!("invalid {name} value");
    match name {
        "integrator" => {
            o.integrator = match v {
                0 => Integrator::Euler,
                1 => Integrator::Rk4,
                2 => Integrator::Implicit,
                3 => Integrator::ImplicitFast,
                _ => return Err(bad()),
            }
        }
        "cone" => {
            o.cone = match v {
                0 => Cone::Pyramidal,
                1 => Cone::Elliptic,
                _ => return Err(bad()),
            }
        }
        "solver" => {
            o.solver = match v {
                0 => SolverType::Pgs,
                1 => SolverType::Cg,
                2 => SolverType::Newton,
                _ => return Err(bad()),
            }
        }
        "jacobian" => {
            o.jacobian = match v {
                0 => JacobianType::Dense,
                1 => JacobianType::Sparse,
                2 => JacobianType::Auto,
                _ => return Err(bad()),
            }
        }
        _ => return Err(format!("{name} is not an enum option")),
    }
    Ok(())
}

/// The physics options of a model (`mjOption`), read and written in place.
#[pyclass(module = "moreau", name = "MjOption")]
pub struct MjOption {
    model: Py<MjModel>,
}

macro_rules! option_scalars {
    ($($name:ident : $t:ty),* $(,)?) => {
        #[pymethods]
        impl MjOption {
            $(
                #[doc = concat!("`opt.", stringify!($name), "`.")]
                #[getter]
                fn $name(&self, py: Python<'_>) -> $t {
                    self.model.borrow(py).model.opt.$name
                }
            )*
        }

        impl MjOption {
            fn set_scalar(&self, py: Python<'_>, name: &str, v: &Bound<'_, PyAny>) -> PyResult<bool> {
                let mut m = self.model.borrow_mut(py);
                match name {
                    $( stringify!($name) => { m.model.opt.$name = v.extract::<$t>()?; Ok(true) } )*
                    _ => Ok(false),
                }
            }
        }
    };
}

option_scalars! {
    timestep: f64, impratio: f64, tolerance: f64, ls_tolerance: f64, noslip_tolerance: f64,
    ccd_tolerance: f64, sleep_tolerance: f64, density: f64, viscosity: f64, o_margin: f64, iterations: usize,
    ls_iterations: usize, noslip_iterations: usize, ccd_iterations: usize, disableflags: u32,
    enableflags: u32,
}

#[pymethods]
impl MjOption {
    /// `opt.gravity` (writeable view).
    #[getter]
    fn gravity<'py>(&self, py: Python<'py>) -> Bound<'py, PyAny> {
        let owner = self.model.bind(py);
        let m = owner.borrow();
        // SAFETY: the options live inside the model object, which the view keeps alive.
        unsafe { view1(owner.as_any(), &m.model.opt.gravity) }
    }
    /// `opt.wind` (writeable view).
    #[getter]
    fn wind<'py>(&self, py: Python<'py>) -> Bound<'py, PyAny> {
        let owner = self.model.bind(py);
        let m = owner.borrow();
        // SAFETY: as above.
        unsafe { view1(owner.as_any(), &m.model.opt.wind) }
    }
    /// `opt.magnetic` (writeable view).
    #[getter]
    fn magnetic<'py>(&self, py: Python<'py>) -> Bound<'py, PyAny> {
        let owner = self.model.bind(py);
        let m = owner.borrow();
        // SAFETY: as above.
        unsafe { view1(owner.as_any(), &m.model.opt.magnetic) }
    }
    /// `opt.o_solref` (writeable view).
    #[getter]
    fn o_solref<'py>(&self, py: Python<'py>) -> Bound<'py, PyAny> {
        let owner = self.model.bind(py);
        let m = owner.borrow();
        // SAFETY: as above.
        unsafe { view1(owner.as_any(), &m.model.opt.o_solref) }
    }
    /// `opt.o_solimp` (writeable view).
    #[getter]
    fn o_solimp<'py>(&self, py: Python<'py>) -> Bound<'py, PyAny> {
        let owner = self.model.bind(py);
        let m = owner.borrow();
        // SAFETY: as above.
        unsafe { view1(owner.as_any(), &m.model.opt.o_solimp) }
    }
    /// `opt.o_friction` (writeable view).
    #[getter]
    fn o_friction<'py>(&self, py: Python<'py>) -> Bound<'py, PyAny> {
        let owner = self.model.bind(py);
        let m = owner.borrow();
        // SAFETY: as above.
        unsafe { view1(owner.as_any(), &m.model.opt.o_friction) }
    }
    /// `opt.integrator` (`mjtIntegrator`).
    #[getter]
    fn integrator(&self, py: Python<'_>) -> i32 {
        self.model.borrow(py).model.opt.integrator as i32
    }
    /// `opt.cone` (`mjtCone`).
    #[getter]
    fn cone(&self, py: Python<'_>) -> i32 {
        self.model.borrow(py).model.opt.cone as i32
    }
    /// `opt.solver` (`mjtSolver`).
    #[getter]
    fn solver(&self, py: Python<'_>) -> i32 {
        self.model.borrow(py).model.opt.solver as i32
    }
    /// `opt.jacobian` (`mjtJacobian`).
    #[getter]
    fn jacobian(&self, py: Python<'_>) -> i32 {
        self.model.borrow(py).model.opt.jacobian as i32
    }

    fn __setattr__(&self, py: Python<'_>, name: &str, value: &Bound<'_, PyAny>) -> PyResult<()> {
        if self.set_scalar(py, name, value)? {
            if name == "enableflags" || name == "disableflags" {
                let m = self.model.borrow(py);
                check_supported(&m.model)?;
            }
            return Ok(());
        }
        let mut m = self.model.borrow_mut(py);
        match name {
            "integrator" | "cone" | "solver" | "jacobian" => {
                set_option_enum(&mut m.model.opt, name, value.extract::<i64>()?)
                    .map_err(PyValueError::new_err)?;
            }
            "gravity" | "wind" | "magnetic" | "o_solref" | "o_solimp" | "o_friction" => {
                drop(m);
                let owner = self.model.bind(py);
                let view = MjOption {
                    model: owner.clone().unbind(),
                }
                .into_pyobject(py)?
                .getattr(name)?;
                return crate::arrays::assign(&view, value);
            }
            _ => {
                return Err(PyAttributeError::new_err(format!(
                    "MjOption has no attribute '{name}'"
                )))
            }
        }
        Ok(())
    }

    fn __repr__(&self, py: Python<'_>) -> String {
        let o = &self.model.borrow(py).model.opt;
        format!(
            "<MjOption timestep={} integrator={} solver={} cone={} iterations={} tolerance={} gravity={:?}>",
            o.timestep, o.integrator as i32, o.solver as i32, o.cone as i32, o.iterations,
            o.tolerance, o.gravity
        )
    }
}

/// Registers the classes.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<MjModel>()?;
    m.add_class::<MjOption>()?;
    m.add_class::<Named>()?;
    m.add_function(wrap_pyfunction!(_model_from_pickle, m)?)?;
    Ok(())
}
