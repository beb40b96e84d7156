//! `MjModel` fields MuJoCo 4.0.0 derives at compile time that the engine keeps in another form
//! or does not need: kinematic trees (`tree_*`, `body_treeid`, `dof_treeid`), the bodies'
//! collision summary (`body_contype`, `body_conaffinity`, `body_margin`), the frame shortcuts
//! (`*_sameframe`), `nuserdata`, and the plugin fields of a model without plugins (moreau
//! refuses `<extension>`). Each is a read-only copy with MuJoCo's dtype. On `MjData`: the
//! solver statistics (`solver`) and the sparse `efc_J`'s row arrays.

use crate::arrays::{copy, view_raw};
use crate::data::MjData;
use crate::model::MjModel;
use moreau::data::{NISLAND, NSOLVER};
use moreau::model::{Model, SameFrame, TrnType, WrapType};
use pyo3::prelude::*;

/// The kinematic trees: `(body_treeid, tree_bodyadr)`. A body belongs to a tree when it or an
/// ancestor has a dof; its tree is named by its topmost such ancestor, and trees are numbered
/// in body order (rule checked against MuJoCo 4.0.0 on every model of models/: a static body
/// between the world and a tree and a mocap body belong to none).
pub(crate) fn trees(m: &Model) -> (Vec<i32>, Vec<usize>) {
    let mut treeid = vec![-1i32; m.nbody];
    let mut adr = Vec::new();
    for b in 1..m.nbody {
        // parents come before their children
        let p = m.body_parentid[b];
        if treeid[p] >= 0 {
            treeid[b] = treeid[p];
        } else if m.body_dofnum[b] > 0 {
            adr.push(b);
            treeid[b] = (adr.len() - 1) as i32;
        }
    }
    (treeid, adr)
}

/// Per tendon: the kinematic trees its path touches (the bodies of its joints, sites and wrap
/// geoms; the world's and pulleys' none), each once, in path order (rule checked against
/// MuJoCo 4.0.0 on the tendons of models/ and on wrap geoms and pulleys).
fn tendon_trees(m: &Model) -> Vec<Vec<i32>> {
    let treeid = trees(m).0;
    (0..m.ntendon)
        .map(|t| {
            let mut out: Vec<i32> = Vec::new();
            for w in m.tendon_adr[t]..m.tendon_adr[t] + m.tendon_num[t] {
                let Ok(id) = usize::try_from(m.wrap_objid[w]) else {
                    continue;
                };
                let body = match m.wrap_type[w] {
                    WrapType::Joint => m.jnt_bodyid[id],
                    WrapType::Site => m.site_bodyid[id],
                    WrapType::Sphere | WrapType::Cylinder => m.geom_bodyid[id],
                    WrapType::Pulley | WrapType::None => continue,
                };
                let tree = treeid[body];
                if tree >= 0 && !out.contains(&tree) {
                    out.push(tree);
                }
            }
            out
        })
        .collect()
}

fn sameframe(v: &[SameFrame]) -> Vec<u8> {
    v.iter().map(|&s| s as u8).collect()
}

/// Registers the solver statistics' classes.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<MjSolverStat>()?;
    m.add_class::<MjSolverStatList>()?;
    Ok(())
}

/// The `nuser_X` and `X_user` getters of the MJCF `user` attributes (`X_user` a writeable
/// float64 view, `n × nuser_X`, zero-padded, as MuJoCo's).
macro_rules! user_fields {
    ($($nuser:ident, $user:ident, $n:expr;)*) => {
        #[pymethods]
        impl MjModel {
            $(
                #[doc = concat!("`", stringify!($nuser), "`: numbers of `user` data per element.")]
                #[getter]
                fn $nuser(&self) -> usize {
                    self.model.$nuser
                }

                #[doc = concat!("`", stringify!($user), "`: the elements' `user` data (writeable view, one row per element).")]
                #[getter]
                fn $user<'py>(slf: &Bound<'py, Self>) -> Bound<'py, PyAny> {
                    let m = slf.borrow();
                    let count: fn(&moreau::Model) -> usize = $n;
                    let shape = [count(&m.model), m.model.$nuser];
                    if m.model.$user.len() != shape[0] * shape[1] {
                        // a model not from the compiler (sizes edited by hand): zeros, a copy
                        return copy(slf.py(), vec![0.0f64; shape[0] * shape[1]], &shape);
                    }
                    // SAFETY: the model's array, never reallocated while the MjModel lives, of
                    // `n × nuser` entries (checked above)
                    unsafe { view_raw(slf.as_any(), m.model.$user.as_ptr(), &shape) }
                }
            )*
        }
    };
}

user_fields! {
    nuser_body, body_user, |m| m.nbody;
    nuser_jnt, jnt_user, |m| m.njnt;
    nuser_geom, geom_user, |m| m.ngeom;
    nuser_site, site_user, |m| m.nsite;
    nuser_cam, cam_user, |m| m.ncam;
    nuser_tendon, tendon_user, |m| m.ntendon;
    nuser_actuator, actuator_user, |m| m.nu;
    nuser_sensor, sensor_user, |m| m.nsensor;
}

#[pymethods]
impl MjModel {
    /// `<size nuserdata>`: the length of `MjData.userdata`.
    #[getter]
    fn nuserdata(&self) -> usize {
        self.model.nuserdata
    }

    /// Per body: its kinematic tree, -1 for the world and bodies welded to it (int32).
    #[getter]
    fn body_treeid<'py>(&self, py: Python<'py>) -> Bound<'py, PyAny> {
        let v = trees(&self.model).0;
        let n = v.len();
        copy(py, v, &[n])
    }

    /// Per height field: `(x, y, zmax, zbase)` (float64, `nhfield × 4`).
    #[getter]
    fn hfield_size<'py>(&self, py: Python<'py>) -> Bound<'py, PyAny> {
        let h = &self.model.hfield;
        let v: Vec<f64> = h.iter().flat_map(|h| h.size).collect();
        copy(py, v, &[h.len(), 4])
    }

    /// Per height field: its number of rows (int32).
    #[getter]
    fn hfield_nrow<'py>(&self, py: Python<'py>) -> Bound<'py, PyAny> {
        self.int_map(py, self.model.hfield.iter().map(|h| h.nrow))
    }

    /// Per height field: its number of columns (int32).
    #[getter]
    fn hfield_ncol<'py>(&self, py: Python<'py>) -> Bound<'py, PyAny> {
        self.int_map(py, self.model.hfield.iter().map(|h| h.ncol))
    }

    /// Per height field: its first entry in `hfield_data` (int32).
    #[getter]
    fn hfield_adr<'py>(&self, py: Python<'py>) -> Bound<'py, PyAny> {
        self.int_map(py, starts(self.model.hfield.iter().map(|h| h.data.len())))
    }

    /// Number of height-field elevations (`nhfielddata`).
    #[getter]
    fn nhfielddata(&self) -> usize {
        self.model.hfield.iter().map(|h| h.data.len()).sum()
    }

    /// The height fields' elevations in [0, 1], row-major, one after another (float32, as
    /// MuJoCo stores them).
    #[getter]
    fn hfield_data<'py>(&self, py: Python<'py>) -> Bound<'py, PyAny> {
        let v: Vec<f32> = self
            .model
            .hfield
            .iter()
            .flat_map(|h| h.data.iter().map(|&x| x as f32))
            .collect();
        let n = v.len();
        copy(py, v, &[n])
    }

    /// Number of mesh vertices (`nmeshvert`).
    #[getter]
    fn nmeshvert(&self) -> usize {
        self.model.mesh.iter().map(|g| g.vert.len()).sum()
    }

    /// Number of mesh faces (`nmeshface`).
    #[getter]
    fn nmeshface(&self) -> usize {
        self.model.mesh.iter().map(|g| g.face.len()).sum()
    }

    /// Number of `mesh_graph` entries (`nmeshgraph`).
    #[getter]
    fn nmeshgraph(&self) -> usize {
        self.model.mesh.iter().map(|g| g.graph.len()).sum()
    }

    /// Per mesh: its first vertex in `mesh_vert` (int32).
    #[getter]
    fn mesh_vertadr<'py>(&self, py: Python<'py>) -> Bound<'py, PyAny> {
        self.int_map(py, starts(self.model.mesh.iter().map(|g| g.vert.len())))
    }

    /// Per mesh: its number of vertices (int32).
    #[getter]
    fn mesh_vertnum<'py>(&self, py: Python<'py>) -> Bound<'py, PyAny> {
        self.int_map(py, self.model.mesh.iter().map(|g| g.vert.len()))
    }

    /// Per mesh: its first face in `mesh_face` (int32).
    #[getter]
    fn mesh_faceadr<'py>(&self, py: Python<'py>) -> Bound<'py, PyAny> {
        self.int_map(py, starts(self.model.mesh.iter().map(|g| g.face.len())))
    }

    /// Per mesh: its number of faces (int32).
    #[getter]
    fn mesh_facenum<'py>(&self, py: Python<'py>) -> Bound<'py, PyAny> {
        self.int_map(py, self.model.mesh.iter().map(|g| g.face.len()))
    }

    /// The meshes' vertices in their mesh frames (float32, `nmeshvert × 3`, as MuJoCo stores
    /// them).
    #[getter]
    fn mesh_vert<'py>(&self, py: Python<'py>) -> Bound<'py, PyAny> {
        let v: Vec<f32> = self
            .model
            .mesh
            .iter()
            .flat_map(|g| g.vert.iter().flatten().map(|&x| x as f32))
            .collect();
        let n = v.len() / 3;
        copy(py, v, &[n, 3])
    }

    /// The meshes' faces, vertex indices within their mesh (int32, `nmeshface × 3`).
    #[getter]
    fn mesh_face<'py>(&self, py: Python<'py>) -> Bound<'py, PyAny> {
        let v: Vec<i32> = self
            .model
            .mesh
            .iter()
            .flat_map(|g| g.face.iter().flatten().map(|&i| i as i32))
            .collect();
        let n = v.len() / 3;
        copy(py, v, &[n, 3])
    }

    /// Per mesh: the offset removed from its authored vertices (float64, `nmesh × 3`).
    #[getter]
    fn mesh_pos<'py>(&self, py: Python<'py>) -> Bound<'py, PyAny> {
        let v: Vec<f64> = self.model.mesh.iter().flat_map(|g| g.pos).collect();
        copy(py, v, &[self.model.mesh.len(), 3])
    }

    /// Per mesh: the rotation removed from its authored vertices (float64, `nmesh × 4`).
    #[getter]
    fn mesh_quat<'py>(&self, py: Python<'py>) -> Bound<'py, PyAny> {
        let v: Vec<f64> = self.model.mesh.iter().flat_map(|g| g.quat).collect();
        copy(py, v, &[self.model.mesh.len(), 4])
    }

    /// Per mesh: its first entry in `mesh_graph`, -1 without a convex hull (int32).
    #[getter]
    fn mesh_graphadr<'py>(&self, py: Python<'py>) -> Bound<'py, PyAny> {
        let mut adr = 0;
        let v: Vec<i32> = self
            .model
            .mesh
            .iter()
            .map(|g| {
                let a = if g.graph.is_empty() { -1 } else { adr as i32 };
                adr += g.graph.len();
                a
            })
            .collect();
        let n = v.len();
        copy(py, v, &[n])
    }

    /// The meshes' convex-hull graphs one after another (int32).
    #[getter]
    fn mesh_graph<'py>(&self, py: Python<'py>) -> Bound<'py, PyAny> {
        let v: Vec<i32> = self
            .model
            .mesh
            .iter()
            .flat_map(|g| g.graph.iter().copied())
            .collect();
        let n = v.len();
        copy(py, v, &[n])
    }

    /// Per mesh: the hull vertex farthest along each of the 27 directions (i, j, k) in
    /// {-1, 0, 1}³, at 9 (i + 1) + 3 (j + 1) + (k + 1); 0 without a hull (int32, `nmesh × 27`,
    /// MuJoCo's `mesh_extrema`).
    #[getter]
    fn mesh_extrema<'py>(&self, py: Python<'py>) -> Bound<'py, PyAny> {
        let v: Vec<i32> = self.model.mesh.iter().flat_map(|g| g.extrema).collect();
        copy(py, v, &[self.model.mesh.len(), 27])
    }

    /// Number of textures (`ntex`).
    #[getter]
    fn ntex(&self) -> usize {
        self.model.ntex
    }

    /// Number of texture samples (`ntexdata`).
    #[getter]
    fn ntexdata(&self) -> usize {
        self.model.tex_data.len()
    }

    /// Per texture: `mjtTexture` (0 2d, 1 cube, 2 skybox) (int32).
    #[getter]
    fn tex_type<'py>(&self, py: Python<'py>) -> Bound<'py, PyAny> {
        copy(py, self.model.tex_type.clone(), &[self.model.ntex])
    }

    /// Per texture: `mjtColorSpace` (0 auto, 1 linear, 2 sRGB) (int32).
    #[getter]
    fn tex_colorspace<'py>(&self, py: Python<'py>) -> Bound<'py, PyAny> {
        copy(py, self.model.tex_colorspace.clone(), &[self.model.ntex])
    }

    /// Per texture: rows (a cube's six faces one under the other) (int32).
    #[getter]
    fn tex_height<'py>(&self, py: Python<'py>) -> Bound<'py, PyAny> {
        self.int_map(py, self.model.tex_height.iter().copied())
    }

    /// Per texture: columns (int32).
    #[getter]
    fn tex_width<'py>(&self, py: Python<'py>) -> Bound<'py, PyAny> {
        self.int_map(py, self.model.tex_width.iter().copied())
    }

    /// Per texture: samples per pixel, 1, 3 or 4 (int32).
    #[getter]
    fn tex_nchannel<'py>(&self, py: Python<'py>) -> Bound<'py, PyAny> {
        self.int_map(py, self.model.tex_nchannel.iter().copied())
    }

    /// Per texture: its first sample in `tex_data` (int64, as MuJoCo's).
    #[getter]
    fn tex_adr<'py>(&self, py: Python<'py>) -> Bound<'py, PyAny> {
        let v: Vec<i64> = self.model.tex_adr.iter().map(|&a| a as i64).collect();
        copy(py, v, &[self.model.ntex])
    }

    /// Every texture's 8-bit samples, rows from the top (uint8, `ntexdata`).
    #[getter]
    fn tex_data<'py>(&self, py: Python<'py>) -> Bound<'py, PyAny> {
        copy(
            py,
            self.model.tex_data.clone(),
            &[self.model.tex_data.len()],
        )
    }

    /// Per material and `mjtTextureRole`, the texture id or -1 (int32, `nmat × 10`).
    #[getter]
    fn mat_texid<'py>(&self, py: Python<'py>) -> Bound<'py, PyAny> {
        let v: Vec<i32> = self.model.mat_texid.iter().flatten().copied().collect();
        copy(py, v, &[self.model.nmat, 10])
    }

    /// Number of actuators (MuJoCo's `nactuator`, equal to `nu`).
    #[getter]
    fn nactuator(&self) -> usize {
        self.model.nu
    }

    /// Number of actuator outputs (MuJoCo's `nout`): one per actuator.
    #[getter]
    fn nout(&self) -> usize {
        self.model.nu
    }

    /// Per actuator: what its control means (MuJoCo's `actuator_ctrlspec`, bits of
    /// `mjtCtrlInput`): 1 a position target (`position`), 2 a velocity target (`velocity`,
    /// `intvelocity`), 32 a pressure (`cylinder`), 0 otherwise; `general` keeps its default
    /// class's value; 0 where the gain is not fixed (int32).
    #[getter]
    fn actuator_ctrlspec<'py>(&self, py: Python<'py>) -> Bound<'py, PyAny> {
        let c = &self.model.actuator_ctrlspec;
        self.actuator_map(py, |u| c.get(u).copied().unwrap_or(0))
    }

    /// Per joint: the actuator whose `damping` or `armature` the joint inherits (a joint or
    /// jointinparent transmission with a nonzero `damping`, `dampingpoly` or `armature`), -1
    /// without one, -2 with several (MuJoCo's `jnt_actuatorid`, measured on MuJoCo 4.0.0)
    /// (int32).
    #[getter]
    fn jnt_actuatorid<'py>(&self, py: Python<'py>) -> Bound<'py, PyAny> {
        let m = &self.model;
        let v = inheriting_actuators(m, m.njnt, |a| {
            matches!(
                m.actuator_trntype[a],
                TrnType::Joint | TrnType::JointInParent
            )
        });
        copy(py, v, &[m.njnt])
    }

    /// Per tendon: the actuator whose `damping` or `armature` the tendon inherits, -1 without
    /// one, -2 with several (MuJoCo's `tendon_actuatorid`, as `jnt_actuatorid`) (int32).
    #[getter]
    fn tendon_actuatorid<'py>(&self, py: Python<'py>) -> Bound<'py, PyAny> {
        let m = &self.model;
        let v = inheriting_actuators(m, m.ntendon, |a| m.actuator_trntype[a] == TrnType::Tendon);
        copy(py, v, &[m.ntendon])
    }

    /// Per actuator: its first control in `ctrl` (int32); each actuator reads one control, its
    /// own (measured on MuJoCo 4.0.0 over the zoo).
    #[getter]
    fn actuator_ctrladr<'py>(&self, py: Python<'py>) -> Bound<'py, PyAny> {
        self.actuator_map(py, |u| u as i32)
    }

    /// Per actuator: its number of controls, 1 (int32).
    #[getter]
    fn actuator_ctrlnum<'py>(&self, py: Python<'py>) -> Bound<'py, PyAny> {
        self.actuator_map(py, |_| 1)
    }

    /// Per actuator: its first output (int32), its own index.
    #[getter]
    fn actuator_outadr<'py>(&self, py: Python<'py>) -> Bound<'py, PyAny> {
        self.actuator_map(py, |u| u as i32)
    }

    /// Per actuator: its number of outputs, 1 (int32).
    #[getter]
    fn actuator_outnum<'py>(&self, py: Python<'py>) -> Bound<'py, PyAny> {
        self.actuator_map(py, |_| 1)
    }

    /// Per dof: its kinematic tree (int32).
    #[getter]
    fn dof_treeid<'py>(&self, py: Python<'py>) -> Bound<'py, PyAny> {
        let m = &self.model;
        let t = trees(m).0;
        let v: Vec<i32> = m.dof_bodyid.iter().map(|&b| t[b]).collect();
        copy(py, v, &[m.nv])
    }

    /// Per tree: its first (topmost) body (int32).
    #[getter]
    fn tree_bodyadr<'py>(&self, py: Python<'py>) -> Bound<'py, PyAny> {
        let v: Vec<i32> = trees(&self.model).1.iter().map(|&b| b as i32).collect();
        let n = v.len();
        copy(py, v, &[n])
    }

    /// Per tree: its number of bodies (int32).
    #[getter]
    fn tree_bodynum<'py>(&self, py: Python<'py>) -> Bound<'py, PyAny> {
        let (treeid, adr) = trees(&self.model);
        let mut v = vec![0i32; adr.len()];
        for t in treeid.into_iter().filter_map(|t| usize::try_from(t).ok()) {
            v[t] += 1;
        }
        let n = v.len();
        copy(py, v, &[n])
    }

    /// Per tree: its first dof (int32).
    #[getter]
    fn tree_dofadr<'py>(&self, py: Python<'py>) -> Bound<'py, PyAny> {
        let m = &self.model;
        let v: Vec<i32> = trees(m)
            .1
            .iter()
            .map(|&b| m.body_dofadr[b] as i32)
            .collect();
        let n = v.len();
        copy(py, v, &[n])
    }

    /// Per tendon: the number of kinematic trees its path touches (int32).
    #[getter]
    fn tendon_treenum<'py>(&self, py: Python<'py>) -> Bound<'py, PyAny> {
        let v: Vec<i32> = tendon_trees(&self.model)
            .iter()
            .map(|t| t.len() as i32)
            .collect();
        let n = v.len();
        copy(py, v, &[n])
    }

    /// Per tendon: the first two kinematic trees its path touches, in path order, -1 where it
    /// touches fewer (int32, ntendon × 2).
    #[getter]
    fn tendon_treeid<'py>(&self, py: Python<'py>) -> Bound<'py, PyAny> {
        let trees = tendon_trees(&self.model);
        let v: Vec<i32> = trees
            .iter()
            .flat_map(|t| [0, 1].map(|k| t.get(k).copied().unwrap_or(-1)))
            .collect();
        copy(py, v, &[trees.len(), 2])
    }

    /// Per tree: its number of dofs (int32).
    #[getter]
    fn tree_dofnum<'py>(&self, py: Python<'py>) -> Bound<'py, PyAny> {
        let m = &self.model;
        let (treeid, adr) = trees(m);
        let mut v = vec![0i32; adr.len()];
        for (b, t) in treeid.into_iter().enumerate() {
            if let Ok(t) = usize::try_from(t) {
                v[t] += m.body_dofnum[b] as i32;
            }
        }
        let n = v.len();
        copy(py, v, &[n])
    }

    /// Per body: the bitwise OR of its geoms' `contype` (int32).
    #[getter]
    fn body_contype<'py>(&self, py: Python<'py>) -> Bound<'py, PyAny> {
        let m = &self.model;
        let mut v = vec![0i32; m.nbody];
        for (g, &b) in m.geom_bodyid.iter().enumerate() {
            v[b] |= m.geom_contype[g] as i32;
        }
        copy(py, v, &[m.nbody])
    }

    /// Per body: the bitwise OR of its geoms' `conaffinity` (int32).
    #[getter]
    fn body_conaffinity<'py>(&self, py: Python<'py>) -> Bound<'py, PyAny> {
        let m = &self.model;
        let mut v = vec![0i32; m.nbody];
        for (g, &b) in m.geom_bodyid.iter().enumerate() {
            v[b] |= m.geom_conaffinity[g] as i32;
        }
        copy(py, v, &[m.nbody])
    }

    /// Per body: the largest `margin` of its geoms, 0 without geoms.
    #[getter]
    fn body_margin<'py>(&self, py: Python<'py>) -> Bound<'py, PyAny> {
        let m = &self.model;
        let mut v = vec![0.0f64; m.nbody];
        for (g, &b) in m.geom_bodyid.iter().enumerate() {
            v[b] = v[b].max(m.geom_margin[g]);
        }
        copy(py, v, &[m.nbody])
    }

    /// Per body: `mjtSameFrame`, how its frame relates to its inertial frame (uint8).
    #[getter]
    fn body_sameframe<'py>(&self, py: Python<'py>) -> Bound<'py, PyAny> {
        let v = sameframe(&self.model.body_sameframe);
        let n = v.len();
        copy(py, v, &[n])
    }

    /// Per geom: `mjtSameFrame`, how its frame relates to its body's (uint8).
    #[getter]
    fn geom_sameframe<'py>(&self, py: Python<'py>) -> Bound<'py, PyAny> {
        let v = sameframe(&self.model.geom_sameframe);
        let n = v.len();
        copy(py, v, &[n])
    }

    /// Per site: `mjtSameFrame`, how its frame relates to its body's (uint8).
    #[getter]
    fn site_sameframe<'py>(&self, py: Python<'py>) -> Bound<'py, PyAny> {
        let v = sameframe(&self.model.site_sameframe);
        let n = v.len();
        copy(py, v, &[n])
    }

    /// Number of plugin instances: 0 (moreau refuses `<extension>`).
    #[getter]
    fn nplugin(&self) -> usize {
        0
    }

    /// Number of plugin configuration characters: 0.
    #[getter]
    fn npluginattr(&self) -> usize {
        0
    }

    /// Number of plugin state numbers: 0.
    #[getter]
    fn npluginstate(&self) -> usize {
        0
    }

    /// Per body: its plugin instance, -1 (none).
    #[getter]
    fn body_plugin<'py>(&self, py: Python<'py>) -> Bound<'py, PyAny> {
        copy(py, vec![-1i32; self.model.nbody], &[self.model.nbody])
    }

    /// Per geom: its plugin instance, -1 (none).
    #[getter]
    fn geom_plugin<'py>(&self, py: Python<'py>) -> Bound<'py, PyAny> {
        copy(py, vec![-1i32; self.model.ngeom], &[self.model.ngeom])
    }

    /// Per actuator: its plugin instance, -1 (none).
    #[getter]
    fn actuator_plugin<'py>(&self, py: Python<'py>) -> Bound<'py, PyAny> {
        copy(py, vec![-1i32; self.model.nu], &[self.model.nu])
    }

    /// Per sensor: its plugin instance, -1 (none).
    #[getter]
    fn sensor_plugin<'py>(&self, py: Python<'py>) -> Bound<'py, PyAny> {
        copy(py, vec![-1i32; self.model.nsensor], &[self.model.nsensor])
    }
}

/// `mjSolverStat`: one solver iteration's statistics (`MjData.solver[i]`).
#[pyclass(module = "moreau", name = "MjSolverStat", get_all, frozen)]
#[derive(Clone, Copy, Default)]
pub struct MjSolverStat {
    /// Cost reduction, scaled by 1/trace(M).
    improvement: f64,
    /// Gradient norm, scaled.
    gradient: f64,
    /// Slope at the line search's result, scaled.
    lineslope: f64,
    /// Constraint rows not satisfied.
    nactive: i32,
    /// Rows whose state changed.
    nchange: i32,
    /// Line-search cost evaluations.
    neval: i32,
    /// Cholesky updates.
    nupdate: i32,
}

/// `MjData.solver`: `mjNISLAND × mjNSOLVER` statistics, island `k`'s iteration `j` at
/// `k * mjNSOLVER + j` (a copy). Entries past an island's `solver_niter` keep earlier solves'
/// values, as in MuJoCo.
#[pyclass(module = "moreau", name = "_MjSolverStatList", frozen)]
pub struct MjSolverStatList {
    stats: Vec<MjSolverStat>,
}

impl MjSolverStatList {
    fn column<'py, T: numpy::Element>(
        &self,
        py: Python<'py>,
        f: impl Fn(&MjSolverStat) -> T,
    ) -> Bound<'py, PyAny> {
        let v: Vec<T> = self.stats.iter().map(f).collect();
        let n = v.len();
        copy(py, v, &[n])
    }
}

#[pymethods]
impl MjSolverStatList {
    fn __len__(&self) -> usize {
        self.stats.len()
    }

    fn __getitem__(&self, i: usize) -> PyResult<MjSolverStat> {
        self.stats
            .get(i)
            .copied()
            .ok_or_else(|| pyo3::exceptions::PyIndexError::new_err(i.to_string()))
    }

    /// `improvement` of every entry (float64).
    #[getter]
    fn improvement<'py>(&self, py: Python<'py>) -> Bound<'py, PyAny> {
        self.column(py, |s| s.improvement)
    }
    /// `gradient` of every entry (float64).
    #[getter]
    fn gradient<'py>(&self, py: Python<'py>) -> Bound<'py, PyAny> {
        self.column(py, |s| s.gradient)
    }
    /// `lineslope` of every entry (float64).
    #[getter]
    fn lineslope<'py>(&self, py: Python<'py>) -> Bound<'py, PyAny> {
        self.column(py, |s| s.lineslope)
    }
    /// `nactive` of every entry (int32).
    #[getter]
    fn nactive<'py>(&self, py: Python<'py>) -> Bound<'py, PyAny> {
        self.column(py, |s| s.nactive)
    }
    /// `nchange` of every entry (int32).
    #[getter]
    fn nchange<'py>(&self, py: Python<'py>) -> Bound<'py, PyAny> {
        self.column(py, |s| s.nchange)
    }
    /// `neval` of every entry (int32).
    #[getter]
    fn neval<'py>(&self, py: Python<'py>) -> Bound<'py, PyAny> {
        self.column(py, |s| s.neval)
    }
    /// `nupdate` of every entry (int32).
    #[getter]
    fn nupdate<'py>(&self, py: Python<'py>) -> Bound<'py, PyAny> {
        self.column(py, |s| s.nupdate)
    }
}

#[pymethods]
impl MjData {
    /// Per-iteration solver statistics (`mjSolverStat`, see [`MjSolverStatList`]): island `k`'s
    /// first `solver_niter[k]` entries are the last solve's; the others keep older solves'
    /// values until `mj_resetData`, as in MuJoCo.
    #[getter]
    fn solver(&self) -> MjSolverStatList {
        let mut stats = vec![MjSolverStat::default(); NISLAND * NSOLVER];
        for (k, island) in self.data.solver.iter().enumerate().take(NISLAND) {
            for (j, s) in island.iter().enumerate().take(NSOLVER) {
                let int = |x: usize| x.min(i32::MAX as usize) as i32;
                stats[k * NSOLVER + j] = MjSolverStat {
                    improvement: s.improvement,
                    gradient: s.gradient,
                    lineslope: s.lineslope,
                    nactive: int(s.nactive),
                    nchange: int(s.nchange),
                    neval: int(s.neval),
                    nupdate: int(s.nupdate),
                };
            }
        }
        MjSolverStatList { stats }
    }

    /// Sparse `efc_J` only (MuJoCo's `mj_isSparse`): entries per row (int32, nefc); zeros when
    /// the Jacobian is dense.
    #[getter]
    fn efc_J_rownnz<'py>(&self, py: Python<'py>) -> Bound<'py, PyAny> {
        self.efc_index(py, |d| &d.efc_J_rownnz)
    }

    /// Sparse `efc_J` only: the first entry of each row (int32, nefc) in the rows packed one
    /// after another; zeros when dense.
    #[getter]
    fn efc_J_rowadr<'py>(&self, py: Python<'py>) -> Bound<'py, PyAny> {
        let d = &self.data;
        let n = d.nefc;
        let mut v = vec![0i32; n];
        if d.efc_J_sparse {
            for i in 1..n {
                v[i] = v[i - 1] + d.efc_J_rownnz[i - 1] as i32;
            }
        }
        copy(py, v, &[n])
    }

    /// Sparse `efc_J` only: how many rows after each share its pattern (int32, nefc); zeros
    /// when dense.
    #[getter]
    fn efc_J_rowsuper<'py>(&self, py: Python<'py>) -> Bound<'py, PyAny> {
        self.efc_index(py, |d| &d.efc_J_rowsuper)
    }

    /// Sparse `efc_J` only: the column of each entry (int32, the entries of the rows); `nefc ×
    /// nv` zeros when dense, as MuJoCo.
    #[getter]
    fn efc_J_colind<'py>(&self, py: Python<'py>) -> Bound<'py, PyAny> {
        let d = &self.data;
        let n = d.nefc;
        let v: Vec<i32> = if d.efc_J_sparse {
            (0..n)
                .flat_map(|i| {
                    let a = d.efc_J_rowadr[i];
                    d.efc_J_colind[a..a + d.efc_J_rownnz[i]].iter()
                })
                .map(|&c| c as i32)
                .collect()
        } else {
            vec![0; n * d.qvel.len()]
        };
        let len = v.len();
        copy(py, v, &[len])
    }
}

impl MjData {
    /// One of the sparse `efc_J` row arrays (`nefc` int32), zeros when the Jacobian is dense.
    fn efc_index<'py>(
        &self,
        py: Python<'py>,
        field: impl Fn(&moreau::Data) -> &Vec<usize>,
    ) -> Bound<'py, PyAny> {
        let d = &self.data;
        let n = d.nefc;
        let v: Vec<i32> = if d.efc_J_sparse {
            field(d)[..n].iter().map(|&c| c as i32).collect()
        } else {
            vec![0; n]
        };
        copy(py, v, &[n])
    }
}

/// The running starts of consecutive blocks of the given lengths.
pub(crate) fn starts(len: impl Iterator<Item = usize>) -> impl Iterator<Item = usize> {
    len.scan(0, |adr, n| {
        let a = *adr;
        *adr += n;
        Some(a)
    })
}

impl MjModel {
    /// An int32 array of the given counts or addresses.
    fn int_map<'py>(&self, py: Python<'py>, v: impl Iterator<Item = usize>) -> Bound<'py, PyAny> {
        let v: Vec<i32> = v.map(|x| i32::try_from(x).unwrap_or(i32::MAX)).collect();
        let n = v.len();
        copy(py, v, &[n])
    }

    /// A per-actuator int32 array of `f(actuator)`.
    fn actuator_map<'py>(&self, py: Python<'py>, f: impl Fn(usize) -> i32) -> Bound<'py, PyAny> {
        let v: Vec<i32> = (0..self.model.nu).map(f).collect();
        let n = v.len();
        copy(py, v, &[n])
    }
}

/// Per target (`n` joints or tendons): the one actuator of transmission `on` with a nonzero
/// `damping`, `dampingpoly` or `armature` acting on it, -1 for none, -2 for several.
fn inheriting_actuators(m: &Model, n: usize, on: impl Fn(usize) -> bool) -> Vec<i32> {
    let mut v = vec![-1i32; n];
    for a in (0..m.nu).filter(|&a| on(a)) {
        let damped = m.actuator_damping.get(a).is_some_and(|&x| x != 0.0)
            || m.actuator_dampingpoly
                .get(a)
                .is_some_and(|p| p.iter().any(|&x| x != 0.0))
            || m.actuator_armature.get(a).is_some_and(|&x| x != 0.0);
        let Some(t) = usize::try_from(m.actuator_trnid[a][0])
            .ok()
            .filter(|&t| t < n)
        else {
            continue;
        };
        if damped {
            v[t] = if v[t] == -1 { a as i32 } else { -2 };
        }
    }
    v
}
