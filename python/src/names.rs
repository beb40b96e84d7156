//! MuJoCo's `names` buffer and its `name_*adr` arrays on `MjModel`, built from the names the
//! engine keeps: the model's name, then every element's name (empty for an unnamed one), each
//! ended by a zero byte, the object types in `mjModel`'s order (bodies, joints, geoms, sites,
//! cameras, lights, flexes, meshes, skins, height fields, textures, materials, pairs, excludes,
//! equalities, tendons, actuators, sensors, numerics, texts, tuples, keyframes, plugins;
//! checked against MuJoCo 4.0.0 by `python/tests/test_zoo_fields.py`). The `exclude` accessor
//! (`m.exclude('name').signature`) is here too.

use crate::arrays::copy;
use crate::model::{MjModel, Named, OBJ_EXCLUDE};
use moreau::model::Model;
use pyo3::prelude::*;
use pyo3::types::PyBytes;

/// The object types of `names`, in order, each with its names (flexes: none, moreau refuses
/// them; plugins, which it refuses too, come last in MuJoCo's and are left out).
fn lists(m: &Model) -> [Vec<&str>; 22] {
    fn s(v: &[String]) -> Vec<&str> {
        v.iter().map(String::as_str).collect()
    }
    [
        s(&m.body_name),
        s(&m.jnt_name),
        s(&m.geom_name),
        s(&m.site_name),
        s(&m.cam_name),
        s(&m.light_name),
        Vec::new(), // flexes
        m.mesh.iter().map(|x| x.name.as_str()).collect(),
        s(&m.skin_name),
        m.hfield.iter().map(|x| x.name.as_str()).collect(),
        s(&m.tex_name),
        s(&m.mat_name),
        s(&m.pair_name),
        s(&m.exclude_name),
        s(&m.eq_name),
        s(&m.tendon_name),
        s(&m.actuator_name),
        s(&m.sensor_name),
        s(&m.numeric_name),
        s(&m.text_name),
        s(&m.tuple_name),
        s(&m.key_name),
    ]
}

/// The element counts of the types of [`lists`] (a model put together by hand may leave a
/// name list shorter than its count: the missing names are empty).
fn counts(m: &Model) -> [usize; 22] {
    [
        m.nbody,
        m.njnt,
        m.ngeom,
        m.nsite,
        m.ncam,
        m.nlight,
        0,
        m.nmesh,
        m.skin_name.len(),
        m.nhfield,
        m.ntex,
        m.nmat,
        m.npair,
        m.nexclude,
        m.neq,
        m.ntendon,
        m.nu,
        m.nsensor,
        m.nnumeric,
        m.text_name.len(),
        m.tuple_name.len(),
        m.nkey,
    ]
}

/// `(names, adr)`: the buffer and, per type of [`lists`], the address of each element's name.
fn build(m: &Model) -> (Vec<u8>, Vec<Vec<i32>>) {
    let mut buf = Vec::new();
    buf.extend_from_slice(m.modelname.as_bytes());
    buf.push(0);
    let mut adr = Vec::with_capacity(22);
    for (names, n) in lists(m).iter().zip(counts(m)) {
        let mut a = Vec::with_capacity(n);
        for i in 0..n {
            a.push(buf.len() as i32);
            buf.extend_from_slice(names.get(i).unwrap_or(&"").as_bytes());
            buf.push(0);
        }
        adr.push(a);
    }
    (buf, adr)
}

/// The djb2 hash (xor form) of `name`'s bytes read as signed `char`s.
fn hash(name: &str) -> u64 {
    name.bytes().fold(5381u64, |h, c| {
        (h.wrapping_shl(5).wrapping_add(h)) ^ (c as i8 as i64 as u64)
    })
}

/// `names_map` (see the getter).
fn names_map(m: &Model) -> Vec<i32> {
    let mut out = Vec::new();
    for (names, n) in lists(m).iter().zip(counts(m)) {
        let size = 2 * n;
        let start = out.len();
        out.resize(start + size, -1);
        let map = &mut out[start..];
        for i in 0..n {
            let name = names.get(i).copied().unwrap_or("");
            if name.is_empty() {
                continue;
            }
            let mut k = (hash(name) % size as u64) as usize;
            while map[k] != -1 {
                k = (k + 1) % size;
            }
            map[k] = i as i32;
        }
    }
    out
}

macro_rules! name_adr {
    ($($field:ident = $k:expr),* $(,)?) => {
        #[pymethods]
        impl MjModel {
            $(
                #[doc = concat!("`", stringify!($field), "`: the addresses of the names in `names` ",
                                "(read-only int32 copy).")]
                #[getter]
                fn $field<'py>(&self, py: Python<'py>) -> Bound<'py, PyAny> {
                    let v = build(&self.model).1.swap_remove($k);
                    let n = v.len();
                    copy(py, v, &[n])
                }
            )*
        }
    };
}

name_adr! {
    name_bodyadr = 0, name_jntadr = 1, name_geomadr = 2, name_siteadr = 3, name_camadr = 4,
    name_lightadr = 5, name_flexadr = 6, name_meshadr = 7, name_skinadr = 8, name_hfieldadr = 9,
    name_texadr = 10, name_matadr = 11, name_pairadr = 12, name_excludeadr = 13, name_eqadr = 14,
    name_tendonadr = 15, name_actuatoradr = 16, name_sensoradr = 17, name_numericadr = 18,
    name_textadr = 19, name_tupleadr = 20, name_keyadr = 21,
}

#[pymethods]
impl MjModel {
    /// `names`: the model's name and every element's name, each ended by a zero byte (bytes,
    /// as MuJoCo's).
    #[getter]
    fn names<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        PyBytes::new(py, &build(&self.model).0)
    }

    /// `nnames`: the length of `names` in bytes.
    #[getter]
    fn nnames(&self) -> usize {
        build(&self.model).0.len()
    }

    /// `names_map`: MuJoCo's hash tables of the names (read-only int32 copy), one per object
    /// type of `names` in its order, each of twice the type's element count: a named element's
    /// id sits at its name's hash modulo the table's size, or at the next free entry after it
    /// (wrapping), in id order; free entries are -1. The hash is djb2 with xor over the name's
    /// bytes as C's signed `char` (measured on MuJoCo 4.0.0: every model of models/ and
    /// non-ASCII names, `test_spec.py`).
    #[getter]
    fn names_map<'py>(&self, py: Python<'py>) -> Bound<'py, PyAny> {
        let v = names_map(&self.model);
        let n = v.len();
        copy(py, v, &[n])
    }

    /// `nnames_map`: the length of `names_map` (twice the number of elements).
    #[getter]
    fn nnames_map(&self) -> usize {
        2 * counts(&self.model).iter().sum::<usize>()
    }

    /// `name_pluginadr`: empty (moreau refuses plugins).
    #[getter]
    fn name_pluginadr<'py>(&self, py: Python<'py>) -> Bound<'py, PyAny> {
        copy(py, Vec::<i32>::new(), &[0])
    }

    /// Exclude accessor: `signature` of the named `<exclude>` (or by id), see `body`.
    fn exclude(slf: &Bound<'_, Self>, key: &Bound<'_, PyAny>) -> PyResult<Named> {
        Named::new(slf.as_any(), "exclude", OBJ_EXCLUDE, key)
    }
}
