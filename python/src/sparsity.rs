//! `MjModel` fields MuJoCo 4.0.0's compiler derives from what moreau keeps in another form: the
//! body–dof sparsity `B` (`nB`, `B_rownnz`, `B_rowadr`, `B_colind`), the index maps between the
//! inertia's layouts (`mapM2D`, `mapD2M`, `mapM2M`), the meshes' hull polygons (`mesh_poly*`,
//! `nmeshpoly*`, `npolygonmax`, `nmeshdegmax`), `sensor_intprm`, `sensor_datatype`,
//! `sensor_needstage`, `tendon_type`, `pair_signature`, `ngravcomp` and `flg_gravcomp`, and the
//! adhesion and surface-velocity fields of the models moreau accepts (API Reference
//! "mjModel"). Each is a read-only copy with MuJoCo's dtype and shape, compared with MuJoCo's
//! in `python/tests/test_fields.py`.

use crate::arrays::copy;
use crate::islands::{arr, ints};
use crate::layout::m_row;
use crate::model::MjModel;
use moreau::model::{SensorType, WrapType};
use moreau::Model;
use pyo3::prelude::*;

/// Whether body `a` is `b` or one of its ancestors.
fn is_ancestor(m: &Model, a: usize, mut b: usize) -> bool {
    loop {
        if a == b {
            return true;
        }
        if b == 0 {
            return false;
        }
        b = m.body_parentid[b];
    }
}

/// Per body, the dofs that move it or that it carries: its own and its ancestors' dofs and
/// its descendants' dofs, ascending (MuJoCo's `B`); the world's row holds every dof.
fn body_dofs(m: &Model) -> Vec<Vec<usize>> {
    (0..m.nbody)
        .map(|b| {
            (0..m.nv)
                .filter(|&i| {
                    let c = m.dof_bodyid[i];
                    is_ancestor(m, c, b) || is_ancestor(m, b, c)
                })
                .collect()
        })
        .collect()
}

/// The address in moreau's (and MuJoCo's legacy) `qM` layout of the entry `(i, j)` of the
/// inertia, `j` an ancestor of dof `i` or `i` itself: row `i` at `dof_Madr[i]` holds `i`, then
/// its ancestors upwards.
fn qm_index(m: &Model, i: usize, j: usize) -> usize {
    let mut k = 0;
    let mut p = i;
    while p != j {
        p = usize::try_from(m.dof_parentid[p]).expect("j is an ancestor of i");
        k += 1;
    }
    m.dof_Madr[i] + k
}

/// The index of entry `(i, j)` in MuJoCo's `D` (`D_rowadr`, `D_colind`), if present.
fn d_index(m: &Model, i: usize, j: usize) -> Option<usize> {
    let a = m.D_rowadr[i];
    m.D_colind[a..a + m.D_rownnz[i]]
        .iter()
        .position(|&c| c == j)
        .map(|k| a + k)
}

/// MuJoCo's CSR rows of `M` (`M_rowadr`, `M_colind`) as (row, column) per entry.
fn m_entries(m: &Model) -> Vec<(usize, usize)> {
    (0..m.nv)
        .flat_map(|i| m_row(m, i).into_iter().map(move |j| (i, j)))
        .collect()
}

/// The polygons of every mesh one after another.
fn polygons(m: &Model) -> impl Iterator<Item = &[usize]> {
    m.mesh
        .iter()
        .flat_map(|g| g.polyvert.iter().map(|p| p.as_slice()))
}

#[pymethods]
impl MjModel {
    /// Number of nonzeros of the body–dof sparsity `B`.
    #[getter]
    fn nB(&self) -> usize {
        body_dofs(&self.model).iter().map(Vec::len).sum()
    }

    /// Per body: the number of dofs in its row of `B` (its own, its ancestors' and its
    /// descendants' dofs; the world's row holds every dof) (int32).
    #[getter]
    fn B_rownnz<'py>(&self, py: Python<'py>) -> Bound<'py, PyAny> {
        arr(py, ints(body_dofs(&self.model).iter().map(Vec::len)))
    }

    /// Per body: its first entry in `B_colind` (int32).
    #[getter]
    fn B_rowadr<'py>(&self, py: Python<'py>) -> Bound<'py, PyAny> {
        arr(py, starts(body_dofs(&self.model).iter().map(Vec::len)))
    }

    /// The dofs of each body's row of `B`, ascending (int32, `nB`).
    #[getter]
    fn B_colind<'py>(&self, py: Python<'py>) -> Bound<'py, PyAny> {
        arr(py, ints(body_dofs(&self.model).into_iter().flatten()))
    }

    /// Per entry of `D` (`nD`): its index in `M` (the lower-triangle entry of the same pair of
    /// dofs), -1 where `M` leaves it out (a simple body's structural zeros) (int32).
    #[getter]
    fn mapM2D<'py>(&self, py: Python<'py>) -> Bound<'py, PyAny> {
        let m = &self.model;
        let entries = m_entries(m);
        let mut v = Vec::with_capacity(m.nD);
        for i in 0..m.nv {
            let a = m.D_rowadr[i];
            for &j in &m.D_colind[a..a + m.D_rownnz[i]] {
                let key = (i.max(j), i.min(j));
                v.push(
                    entries
                        .iter()
                        .position(|&e| e == key)
                        .map_or(-1, |k| k as i32),
                );
            }
        }
        arr(py, v)
    }

    /// Per entry of `M` (`nC`): its index in `D` (int32).
    #[getter]
    fn mapD2M<'py>(&self, py: Python<'py>) -> Bound<'py, PyAny> {
        let m = &self.model;
        let v = m_entries(m)
            .into_iter()
            .map(|(i, j)| d_index(m, i, j).map_or(-1, |k| k as i32))
            .collect();
        arr(py, v)
    }

    /// Per entry of `M` (`nC`): its index in the legacy `qM` layout (`dof_Madr`: each row the
    /// diagonal, then the ancestors upwards) (int32).
    #[getter]
    fn mapM2M<'py>(&self, py: Python<'py>) -> Bound<'py, PyAny> {
        let m = &self.model;
        arr(
            py,
            ints(m_entries(m).into_iter().map(|(i, j)| qm_index(m, i, j))),
        )
    }

    /// Number of hull polygons of all meshes (`nmeshpoly`).
    #[getter]
    fn nmeshpoly(&self) -> usize {
        polygons(&self.model).count()
    }

    /// Number of polygon corners of all meshes (`nmeshpolyvert`).
    #[getter]
    fn nmeshpolyvert(&self) -> usize {
        polygons(&self.model).map(<[usize]>::len).sum()
    }

    /// Number of vertex-to-polygon entries of all meshes (`nmeshpolymap`).
    #[getter]
    fn nmeshpolymap(&self) -> usize {
        let m = &self.model;
        m.mesh.iter().flat_map(|g| &g.polymap).map(Vec::len).sum()
    }

    /// The most corners of one polygon (`npolygonmax`).
    #[getter]
    fn npolygonmax(&self) -> usize {
        polygons(&self.model).map(<[usize]>::len).max().unwrap_or(0)
    }

    /// The most polygons at one vertex (`nmeshdegmax`).
    #[getter]
    fn nmeshdegmax(&self) -> usize {
        let m = &self.model;
        m.mesh
            .iter()
            .flat_map(|g| &g.polymap)
            .map(Vec::len)
            .max()
            .unwrap_or(0)
    }

    /// Per mesh: its number of hull polygons (int32).
    #[getter]
    fn mesh_polynum<'py>(&self, py: Python<'py>) -> Bound<'py, PyAny> {
        arr(py, ints(self.model.mesh.iter().map(|g| g.polyvert.len())))
    }

    /// Per mesh: its first polygon (int32).
    #[getter]
    fn mesh_polyadr<'py>(&self, py: Python<'py>) -> Bound<'py, PyAny> {
        arr(py, starts(self.model.mesh.iter().map(|g| g.polyvert.len())))
    }

    /// Per polygon: its unit outward normal (float64, `nmeshpoly × 3`).
    #[getter]
    fn mesh_polynormal<'py>(&self, py: Python<'py>) -> Bound<'py, PyAny> {
        let v: Vec<f64> = self
            .model
            .mesh
            .iter()
            .flat_map(|g| g.polynormal.iter().flatten().copied())
            .collect();
        let n = v.len() / 3;
        copy(py, v, &[n, 3])
    }

    /// Per polygon: its number of corners (int32).
    #[getter]
    fn mesh_polyvertnum<'py>(&self, py: Python<'py>) -> Bound<'py, PyAny> {
        arr(py, ints(polygons(&self.model).map(<[usize]>::len)))
    }

    /// Per polygon: its first corner in `mesh_polyvert` (int32).
    #[getter]
    fn mesh_polyvertadr<'py>(&self, py: Python<'py>) -> Bound<'py, PyAny> {
        arr(py, starts(polygons(&self.model).map(<[usize]>::len)))
    }

    /// The polygons' corners, vertex indices within their mesh, counter-clockwise about the
    /// outward normal (int32, `nmeshpolyvert`).
    #[getter]
    fn mesh_polyvert<'py>(&self, py: Python<'py>) -> Bound<'py, PyAny> {
        arr(py, ints(polygons(&self.model).flatten().copied()))
    }

    /// Per mesh vertex: the number of polygons containing it (int32, `nmeshvert`).
    #[getter]
    fn mesh_polymapnum<'py>(&self, py: Python<'py>) -> Bound<'py, PyAny> {
        let m = &self.model;
        arr(
            py,
            ints(m.mesh.iter().flat_map(vertex_polys).map(|p| p.len())),
        )
    }

    /// Per mesh vertex: its first entry in `mesh_polymap` (int32, `nmeshvert`).
    #[getter]
    fn mesh_polymapadr<'py>(&self, py: Python<'py>) -> Bound<'py, PyAny> {
        let m = &self.model;
        arr(
            py,
            starts(m.mesh.iter().flat_map(vertex_polys).map(|p| p.len())),
        )
    }

    /// Per mesh vertex: the polygons containing it, ascending, indices within their mesh
    /// (int32, `nmeshpolymap`).
    #[getter]
    fn mesh_polymap<'py>(&self, py: Python<'py>) -> Bound<'py, PyAny> {
        let m = &self.model;
        arr(py, ints(m.mesh.iter().flat_map(vertex_polys).flatten()))
    }

    /// Per sensor: its integer parameters (int32, `nsensor × 3`): a contact sensor's `data`
    /// bits, `reduce` and `num`; a rangefinder's `data` bits, 1 (`dist`, the one output
    /// moreau's compiler accepts; MuJoCo 4.0.0 sets the bit of each output).
    #[getter]
    fn sensor_intprm<'py>(&self, py: Python<'py>) -> Bound<'py, PyAny> {
        let m = &self.model;
        let v: Vec<i32> = (0..m.sensor_intprm.len())
            .flat_map(|i| match m.sensor_type[i] {
                SensorType::Rangefinder => [1, 0, 0],
                _ => m.sensor_intprm[i],
            })
            .collect();
        copy(py, v, &[m.sensor_intprm.len(), 3])
    }

    /// Per sensor: `mjtDataType` of its values (0 real, 1 positive, 2 axis, 3 quaternion)
    /// (int32).
    #[getter]
    fn sensor_datatype<'py>(&self, py: Python<'py>) -> Bound<'py, PyAny> {
        let v = self
            .model
            .sensor_type
            .iter()
            .map(|&t| sensor_kind(t).0)
            .collect();
        arr(py, v)
    }

    /// Per sensor: the `mjtStage` its value needs (1 positions, 2 velocities, 3 accelerations)
    /// (int32).
    #[getter]
    fn sensor_needstage<'py>(&self, py: Python<'py>) -> Bound<'py, PyAny> {
        let v = self
            .model
            .sensor_type
            .iter()
            .map(|&t| sensor_kind(t).1)
            .collect();
        arr(py, v)
    }

    /// Per tendon: 0 fixed (a path of joints), 1 spatial (int32).
    #[getter]
    fn tendon_type<'py>(&self, py: Python<'py>) -> Bound<'py, PyAny> {
        let m = &self.model;
        let v = (0..m.ntendon)
            .map(|t| {
                let first = m.wrap_type.get(m.tendon_adr[t]).copied();
                i32::from(m.tendon_num[t] > 0 && first != Some(WrapType::Joint))
            })
            .collect();
        arr(py, v)
    }

    /// Per contact pair: `(body1 << 16) + body2`, the bodies of `pair_geom1` and `pair_geom2`
    /// (int32).
    #[getter]
    fn pair_signature<'py>(&self, py: Python<'py>) -> Bound<'py, PyAny> {
        let m = &self.model;
        let v = (0..m.pair_geom1.len())
            .map(|p| {
                let b = |g: usize| m.geom_bodyid[g] as i32;
                (b(m.pair_geom1[p]) << 16) + b(m.pair_geom2[p])
            })
            .collect();
        arr(py, v)
    }

    /// Whether a body has gravity compensation (`ngravcomp > 0`).
    #[getter]
    fn flg_gravcomp(&self) -> bool {
        self.ngravcomp() > 0
    }

    /// Whether a geom has `adhesion`: false (moreau's compiler refuses the attribute).
    #[getter]
    fn flg_adhesion(&self) -> bool {
        false
    }

    /// Whether a geom has `surfacevel`: false (moreau's compiler refuses the attribute).
    #[getter]
    fn flg_surfacevel(&self) -> bool {
        false
    }

    /// Per geom: its `adhesion`, 0 (refused by moreau's compiler) (float64).
    #[getter]
    fn geom_adhesion<'py>(&self, py: Python<'py>) -> Bound<'py, PyAny> {
        copy(py, vec![0.0f64; self.model.ngeom], &[self.model.ngeom])
    }

    /// Per geom: its `surfacevel`, zeros (refused by moreau's compiler) (float64, `ngeom × 6`).
    #[getter]
    fn geom_surfacevel<'py>(&self, py: Python<'py>) -> Bound<'py, PyAny> {
        let n = self.model.ngeom;
        copy(py, vec![0.0f64; 6 * n], &[n, 6])
    }

    /// Per contact pair: its `adhesion`, 0 (refused by moreau's compiler) (float64).
    #[getter]
    fn pair_adhesion<'py>(&self, py: Python<'py>) -> Bound<'py, PyAny> {
        let n = self.model.pair_geom1.len();
        copy(py, vec![0.0f64; n], &[n])
    }

    /// Number of bodies with gravity compensation (`body_gravcomp` nonzero).
    #[getter]
    fn ngravcomp(&self) -> usize {
        self.model
            .body_gravcomp
            .iter()
            .filter(|&&g| g != 0.0)
            .count()
    }
}

/// A mesh's per-vertex polygon lists, one (possibly empty) list per vertex.
fn vertex_polys(g: &moreau::model::Mesh) -> Vec<Vec<usize>> {
    let mut v = g.polymap.clone();
    v.resize(g.vert.len(), Vec::new());
    v
}

/// The running starts of consecutive blocks of the given lengths (int32).
fn starts(len: impl Iterator<Item = usize>) -> Vec<i32> {
    ints(crate::fields::starts(len))
}

/// A sensor type's `mjtDataType` and `mjtStage` (measured on MuJoCo 4.0.0 with one sensor of
/// each type: `python/tests/test_zoo_fields.py`).
fn sensor_kind(t: SensorType) -> (i32, i32) {
    use SensorType::*;
    const POS: i32 = 1;
    const VEL: i32 = 2;
    const ACC: i32 = 3;
    match t {
        Touch => (1, ACC),
        BallQuat | FrameQuat => (3, POS),
        FrameXAxis | FrameYAxis | FrameZAxis => (2, POS),
        Magnetometer | Rangefinder | JointPos | TendonPos | ActuatorPos | JointLimitPos
        | TendonLimitPos | FramePos | SubtreeCom | Contact | EPotential | EKinetic | Clock => {
            (0, POS)
        }
        Velocimeter | Gyro | JointVel | TendonVel | ActuatorVel | BallAngVel | JointLimitVel
        | TendonLimitVel | FrameLinVel | FrameAngVel | SubtreeLinVel | SubtreeAngMom => (0, VEL),
        Accelerometer | Force | Torque | ActuatorFrc | JointActFrc | JointLimitFrc
        | TendonLimitFrc | FrameLinAcc | FrameAngAcc => (0, ACC),
    }
}
