//! The compiled, immutable model (MuJoCo's `mjModel`).
//!
//! Field names follow MuJoCo so that reference data compares field by field. Arrays are flat and
//! indexed by element id (`body_*[b]`, `jnt_*[j]`, `dof_*[i]`, ...), with addresses into the
//! system-level vectors (`jnt_qposadr`, `jnt_dofadr`, `body_dofadr`). Quaternions are stored
//! (w, x, y, z) in `[f64; 4]` as in MJCF; 3-vectors as `[f64; 3]`.
//! Built by `crate::mjcf`'s compiler; never mutated afterwards.

/// Joint type (`mjtJoint`): the value is MuJoCo's enum value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum JointType {
    Free = 0,
    Ball = 1,
    Slide = 2,
    Hinge = 3,
}

impl JointType {
    /// Number of position coordinates.
    pub fn nq(self) -> usize {
        match self {
            JointType::Free => 7,
            JointType::Ball => 4,
            _ => 1,
        }
    }
    /// Number of degrees of freedom.
    pub fn nv(self) -> usize {
        match self {
            JointType::Free => 6,
            JointType::Ball => 3,
            _ => 1,
        }
    }
}

/// Geom type (`mjtGeom`), MuJoCo's enum values.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GeomType {
    Plane = 0,
    Hfield = 1,
    Sphere = 2,
    Capsule = 3,
    Ellipsoid = 4,
    Cylinder = 5,
    Box = 6,
    Mesh = 7,
    Sdf = 8,
}

impl GeomType {
    /// The bounding-sphere radius (`geom_rbound`) of a primitive geom of half-sizes `s`:
    /// sphere `s₀`, capsule `s₀ + s₁`, cylinder `√(s₀² + s₁²)`, ellipsoid the largest
    /// semi-axis, box the half-diagonal. `None` for planes, height fields, meshes and SDFs,
    /// whose radius does not follow from `geom_size`.
    pub fn primitive_rbound(self, s: [f64; 3]) -> Option<f64> {
        match self {
            GeomType::Sphere => Some(s[0]),
            GeomType::Capsule => Some(s[0] + s[1]),
            GeomType::Cylinder => Some((s[0] * s[0] + s[1] * s[1]).sqrt()),
            GeomType::Ellipsoid => Some(s[0].max(s[1]).max(s[2])),
            GeomType::Box => Some((s[0] * s[0] + s[1] * s[1] + s[2] * s[2]).sqrt()),
            GeomType::Plane | GeomType::Hfield | GeomType::Mesh | GeomType::Sdf => None,
        }
    }
}

impl GeomType {
    /// `(geom_rbound, geom_aabb)` of a primitive geom or a plane of half-sizes `s`: the
    /// bounding sphere of [`GeomType::primitive_rbound`] (0 for a plane) and the box (centre,
    /// half-sizes) in the geom frame; zeros for height fields, meshes and SDFs (see
    /// [`hfield_bounds`]; a mesh's come from its vertices).
    pub fn primitive_bounds(self, s: [f64; 3]) -> (f64, [f64; 6]) {
        let aabb = match self {
            GeomType::Sphere => [0.0, 0.0, 0.0, s[0], s[0], s[0]],
            GeomType::Capsule => [0.0, 0.0, 0.0, s[0], s[0], s[0] + s[1]],
            GeomType::Cylinder => [0.0, 0.0, 0.0, s[0], s[0], s[1]],
            GeomType::Ellipsoid | GeomType::Box => [0.0, 0.0, 0.0, s[0], s[1], s[2]],
            GeomType::Plane => [0.0, 0.0, -5e9, 1e10, 1e10, 5e9],
            _ => [0.0; 6],
        };
        (self.primitive_rbound(s).unwrap_or(0.0), aabb)
    }
}

/// `(geom_rbound, geom_aabb)` of a height-field geom whose field has `hfield_size` `s`
/// (x, y half extents, elevation, base depth).
pub fn hfield_bounds(s: [f64; 4]) -> (f64, [f64; 6]) {
    let rbound = (s[0] * s[0] + s[1] * s[1] + s[2].max(s[3]).powi(2)).sqrt();
    let aabb = [
        0.0,
        0.0,
        0.5 * (s[2] - s[3]),
        s[0],
        s[1],
        0.5 * (s[2] + s[3]),
    ];
    (rbound, aabb)
}

/// Integrator (`mjtIntegrator`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Integrator {
    Euler = 0,
    Rk4 = 1,
    Implicit = 2,
    ImplicitFast = 3,
}

/// Friction cone (`mjtCone`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Cone {
    Pyramidal = 0,
    Elliptic = 1,
}

/// Constraint solver (`mjtSolver`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SolverType {
    Pgs = 0,
    Cg = 1,
    Newton = 2,
}

/// Constraint Jacobian storage (`mjtJacobian`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum JacobianType {
    Dense = 0,
    Sparse = 1,
    Auto = 2,
}

/// Disable flags (`mjtDisableBit`), bit values as in MuJoCo 4.0.0.
pub mod disable {
    pub const CONSTRAINT: u32 = 1 << 0;
    pub const EQUALITY: u32 = 1 << 1;
    pub const FRICTIONLOSS: u32 = 1 << 2;
    pub const LIMIT: u32 = 1 << 3;
    pub const CONTACT: u32 = 1 << 4;
    pub const SPRING: u32 = 1 << 5;
    pub const DAMPER: u32 = 1 << 6;
    pub const GRAVITY: u32 = 1 << 7;
    pub const CLAMPCTRL: u32 = 1 << 8;
    pub const WARMSTART: u32 = 1 << 9;
    pub const FILTERPARENT: u32 = 1 << 10;
    pub const ACTUATION: u32 = 1 << 11;
    pub const REFSAFE: u32 = 1 << 12;
    pub const SENSOR: u32 = 1 << 13;
    pub const MIDPHASE: u32 = 1 << 14;
    pub const EULERDAMP: u32 = 1 << 15;
    pub const AUTORESET: u32 = 1 << 16;
    pub const NATIVECCD: u32 = 1 << 17;
    pub const ISLAND: u32 = 1 << 18;
    pub const MULTICCD: u32 = 1 << 19;
}

/// Enable flags (`mjtEnableBit`), bit values as in MuJoCo 4.0.0.
pub mod enable {
    pub const OVERRIDE: u32 = 1 << 0;
    pub const ENERGY: u32 = 1 << 1;
    pub const FWDINV: u32 = 1 << 2;
    pub const INVDISCRETE: u32 = 1 << 3;
    pub const SLEEP: u32 = 1 << 4;
    pub const DIAGEXACT: u32 = 1 << 5;
}

/// Physics options (`mjOption`); defaults are MuJoCo 4.0.0's (docs/mujoco-behaviour.md#defaults).
#[derive(Clone, Debug)]
pub struct Options {
    pub timestep: f64,
    pub impratio: f64,
    pub tolerance: f64,
    pub ls_tolerance: f64,
    pub noslip_tolerance: f64,
    pub ccd_tolerance: f64,
    /// `sleep_tolerance`: a tree is at rest when every dof's speed times its `dof_length` is
    /// below it (XML reference, `option`; used with the `sleep` enable flag).
    pub sleep_tolerance: f64,
    pub gravity: [f64; 3],
    pub wind: [f64; 3],
    pub magnetic: [f64; 3],
    pub density: f64,
    pub viscosity: f64,
    pub o_margin: f64,
    pub o_solref: [f64; 2],
    pub o_solimp: [f64; 5],
    pub o_friction: [f64; 5],
    pub integrator: Integrator,
    pub cone: Cone,
    pub jacobian: JacobianType,
    pub solver: SolverType,
    pub iterations: usize,
    pub ls_iterations: usize,
    pub noslip_iterations: usize,
    pub ccd_iterations: usize,
    pub disableflags: u32,
    pub enableflags: u32,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            timestep: 0.002,
            impratio: 1.0,
            tolerance: 1e-8,
            ls_tolerance: 0.01,
            noslip_tolerance: 1e-6,
            ccd_tolerance: 1e-6,
            sleep_tolerance: 1e-3,
            gravity: [0.0, 0.0, -9.81],
            wind: [0.0; 3],
            magnetic: [0.0, -0.5, 0.0],
            density: 0.0,
            viscosity: 0.0,
            o_margin: 0.0,
            o_solref: [0.02, 1.0],
            o_solimp: [0.9, 0.95, 0.001, 0.5, 2.0],
            o_friction: [1.0, 1.0, 0.005, 1e-4, 1e-4],
            integrator: Integrator::Euler,
            cone: Cone::Pyramidal,
            jacobian: JacobianType::Auto,
            solver: SolverType::Newton,
            iterations: 100,
            ls_iterations: 50,
            noslip_iterations: 0,
            ccd_iterations: 35,
            disableflags: 0,
            enableflags: 0,
        }
    }
}

impl Options {
    /// True if the disable bit `bit` (see [`disable`]) is set.
    pub fn disabled(&self, bit: u32) -> bool {
        self.disableflags & bit != 0
    }
    /// True if the enable bit `bit` (see [`enable`]) is set.
    pub fn enabled(&self, bit: u32) -> bool {
        self.enableflags & bit != 0
    }
}

/// A body's `sleep` attribute (XML reference, `body`): `auto` lets the compiler decide
/// (trees with actuators never sleep), the others are MuJoCo's `mjtSleepPolicy` asked for
/// the body's tree.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum BodySleep {
    #[default]
    Auto,
    Never,
    Allowed,
    Init,
}

/// Actuator transmission type (`mjtTrn`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TrnType {
    Joint = 0,
    JointInParent = 1,
    SliderCrank = 2,
    Tendon = 3,
    Site = 4,
    Body = 5,
}

/// Actuator dynamics type (`mjtDyn`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DynType {
    None = 0,
    Integrator = 1,
    Filter = 2,
    FilterExact = 3,
    Muscle = 4,
    User = 5,
}

/// Actuator gain type (`mjtGain`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GainType {
    Fixed = 0,
    Affine = 1,
    Muscle = 2,
    User = 3,
}

/// Actuator bias type (`mjtBias`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BiasType {
    None = 0,
    Affine = 1,
    Muscle = 2,
    User = 3,
}

/// Tendon wrap object type (`mjtWrap`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WrapType {
    None = 0,
    Joint = 1,
    Pulley = 2,
    Site = 3,
    Sphere = 4,
    Cylinder = 5,
}

/// Equality constraint type (`mjtEq`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EqType {
    Connect = 0,
    Weld = 1,
    Joint = 2,
    Tendon = 3,
    Flex = 4,
    Distance = 5,
}

/// Object type of an equality / sensor reference (`mjtObj`), the subset moreau uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ObjType {
    Unknown = 0,
    Body = 1,
    XBody = 2,
    Joint = 3,
    Dof = 4,
    Geom = 5,
    Site = 6,
    Camera = 7,
    Actuator = 19,
    Tendon = 18,
}

/// Camera tracking mode (`mjtCamLight`, MJCF `camera/mode`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CamMode {
    Fixed = 0,
    Track = 1,
    TrackCom = 2,
    TargetBody = 3,
    TargetBodyCom = 4,
}

/// Which frame an element's pose coincides with (`mjtSameFrame`, MuJoCo's enum values; the
/// model's `body_sameframe`, `geom_sameframe`, `site_sameframe`). Kinematics then copies that
/// frame instead of composing the element's own offset: its `pos`/`quat` within 1e-6 of the
/// frame's are ignored, as MuJoCo 4.0.0 does (measured on it: a geom 9e-7 off its body's
/// origin sits exactly at the body's origin). See [`Model::fill_sameframe`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum SameFrame {
    /// Own frame: `xpos + xmat pos`, `xquat ∘ quat`.
    #[default]
    None = 0,
    /// The body frame (`xpos`, `xmat`).
    Body = 1,
    /// The body's inertial frame (`xipos`, `ximat`).
    Inertia = 2,
    /// The body frame's orientation, own position.
    BodyRot = 3,
    /// The inertial frame's orientation, own position.
    InertiaRot = 4,
}

/// Sensor type, the subset parsed (`mjtSensor` names; numeric values are moreau's own).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SensorType {
    Touch,
    Accelerometer,
    Velocimeter,
    Gyro,
    Force,
    Torque,
    Magnetometer,
    Rangefinder,
    JointPos,
    JointVel,
    TendonPos,
    TendonVel,
    ActuatorPos,
    ActuatorVel,
    ActuatorFrc,
    JointActFrc,
    BallQuat,
    BallAngVel,
    JointLimitPos,
    JointLimitVel,
    JointLimitFrc,
    TendonLimitPos,
    TendonLimitVel,
    TendonLimitFrc,
    FramePos,
    FrameQuat,
    FrameXAxis,
    FrameYAxis,
    FrameZAxis,
    FrameLinVel,
    FrameAngVel,
    FrameLinAcc,
    FrameAngAcc,
    SubtreeCom,
    SubtreeLinVel,
    SubtreeAngMom,
    /// Potential energy (`energy[0]`, `mj_energyPos`), computed for the sensor whatever the
    /// `energy` flag.
    EPotential,
    /// Kinetic energy (`energy[1]`, `mj_energyVel`), likewise.
    EKinetic,
    Clock,
    /// `<contact>`: matched contacts, reduced to `num` slots of the fields in `data`
    /// ([`Model::sensor_intprm`]); computed by `sensor_pos` or `sensor_acc` (`crate::pipeline`).
    Contact,
}

/// A triangle mesh asset after compile: vertices in the mesh frame (centered and aligned with
/// its inertial frame as MuJoCo does), faces as vertex-index triples.
#[derive(Clone, Debug, Default)]
pub struct Mesh {
    pub name: String,
    pub vert: Vec<[f64; 3]>,
    pub face: Vec<[usize; 3]>,
    /// Offset and rotation that were removed from the authored vertices.
    pub pos: [f64; 3],
    pub quat: [f64; 4],
    /// Convex-hull graph in MuJoCo's layout (`mesh_graph`): `[numvert, numface,
    /// vert_edgeadr[numvert], vert_globalid[numvert], edge_localid[numvert + 3 numface],
    /// face_globalid[3 numface]]`; empty when the hull is not needed (no collision geom and no
    /// `inertia="convex"`), as in MuJoCo.
    pub graph: Vec<i32>,
    /// Convex-hull polygons (coplanar hull faces merged), vertex indices counter-clockwise about
    /// the outward normal (`mesh_polyvert`); filled by [`Mesh::build_polygons`].
    pub polyvert: Vec<Vec<usize>>,
    /// Unit outward normal per polygon (`mesh_polynormal`).
    pub polynormal: Vec<[f64; 3]>,
    /// Per vertex, the polygons containing it, ascending (`mesh_polymap`).
    pub polymap: Vec<Vec<usize>>,
    /// The hull vertex (graph-local index) farthest along each of the 27 directions
    /// `(i, j, k)`, `i, j, k ∈ {-1, 0, 1}`, at `9 (i + 1) + 3 (j + 1) + (k + 1)`
    /// (`mesh_extrema`; 0 for `(0, 0, 0)` and without a hull graph): the start of the support
    /// search on the hull graph; filled by [`Mesh::set_polygons`].
    pub extrema: [i32; 27],
    /// The hull graph laid out for the support search's hill climb (positions next to the
    /// adjacency); derived from `graph` and `vert` by [`Mesh::set_polygons`], empty without a
    /// valid hull graph. Rebuild it (`set_polygons`) after editing `graph` or `vert`.
    pub hull: HullWalk,
}

/// A mesh's hull graph (MuJoCo's `mesh_graph`) laid out for the steepest-ascent support search:
/// per graph vertex its position and the range of its neighbours, and per neighbour entry (in
/// `edge_localid`'s order) the neighbour's position and graph index, so that each step of the
/// climb reads one contiguous run of memory. Built by [`HullWalk::new`]; the positions are the
/// mesh's vertices, unchanged, so the climb's projections and comparisons are those on the graph.
#[derive(Clone, Debug, Default)]
pub struct HullWalk {
    pub(crate) node: Vec<HullNode>,
    pub(crate) edge: Vec<HullEdge>,
    /// The mesh's `extrema` (`mesh_extrema`), graph-local vertices, where the GJK and EPA
    /// support search starts ([`HullWalk::start`](crate::collision::native)).
    pub(crate) extrema: [u32; 27],
}

/// A graph vertex of a [`HullWalk`]: its position, its neighbours `edge[start..end]` and its
/// mesh vertex index (`vert_globalid`).
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct HullNode {
    pub(crate) p: [f64; 3],
    pub(crate) start: u32,
    pub(crate) end: u32,
    pub(crate) gid: u32,
}

/// A neighbour entry of a [`HullWalk`]: the neighbour's position and graph vertex index.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct HullEdge {
    pub(crate) p: [f64; 3],
    pub(crate) k: u32,
}

/// A height field asset: `nrow × ncol` elevations in [0, 1], row-major, and size (x, y, zmax, zbase).
#[derive(Clone, Debug, Default)]
pub struct Hfield {
    pub name: String,
    pub size: [f64; 4],
    pub nrow: usize,
    pub ncol: usize,
    pub data: Vec<f64>,
}

/// The geoms of each body as a binary tree, built once when the model is compiled (MuJoCo's
/// per-body bounding-volume hierarchy, Computation "Collision detection": for each body pair
/// the midphase tests the two bodies' trees against each other, so that only the geom pairs
/// whose boxes overlap reach the pair tests). Only the shape of each tree is kept here: the
/// collision refits the boxes from the geoms' poses at every step (world-aligned boxes around
/// each geom's `geom_aabb` box, widened by its margin and gap), so a tree never holds a stale
/// box, and a tree that no longer holds exactly its body's collidable geoms (a `geom_bodyid`
/// or a collidable flag edited after compiling) is detected there and not used. The split (at the median of
/// the geoms' box centres in the body frame, along the axis of their largest spread) decides
/// only how much the tree prunes, never which contacts are found.
#[derive(Clone, Debug, Default)]
pub struct GeomTree {
    /// Per body: its root node, `u32::MAX` for a body without collidable geoms (`nbody`
    /// entries). A body's nodes are contiguous, each node before its children.
    pub(crate) body_root: Vec<u32>,
    /// Per body: its number of nodes (`2 n - 1` for `n` geoms).
    pub(crate) body_nnode: Vec<u32>,
    /// Per node: its two children (node ids), or `[LEAF, geom id]` for a leaf.
    pub(crate) child: Vec<[u32; 2]>,
    /// The most geom pairs of a body pair: the product of the two largest numbers of leaves.
    pub(crate) max_pairs: usize,
}

impl GeomTree {
    /// The first entry of a leaf's `child`.
    pub(crate) const LEAF: u32 = u32::MAX;

    /// The trees of model `m`'s bodies over their collidable geoms (`geom_contype` or
    /// `geom_conaffinity` nonzero).
    fn build(m: &Model) -> GeomTree {
        let ngeom = m.ngeom.min(m.geom_bodyid.len());
        let mut t = GeomTree {
            body_root: vec![u32::MAX; m.nbody],
            body_nnode: vec![0; m.nbody],
            child: Vec::with_capacity(2 * ngeom),
            max_pairs: 0,
        };
        // the geoms' box centres in their body's frame
        let centre = |g: usize| -> [f64; 3] {
            let c = m.geom_aabb.get(g).map_or([0.0; 3], |a| [a[0], a[1], a[2]]);
            let (p, q) = (m.geom_pos[g], m.geom_quat[g]);
            let r = rotate(q, c);
            [p[0] + r[0], p[1] + r[1], p[2] + r[2]]
        };
        let mut items: Vec<(usize, [f64; 3])> = Vec::new();
        for b in 0..m.nbody {
            items.clear();
            items.extend(
                (0..ngeom)
                    .filter(|&g| m.geom_bodyid[g] == b)
                    .filter(|&g| m.geom_contype[g] != 0 || m.geom_conaffinity[g] != 0)
                    .map(|g| (g, centre(g))),
            );
            if items.is_empty() {
                continue;
            }
            t.body_root[b] = t.child.len() as u32;
            t.split(&mut items);
            t.body_nnode[b] = t.child.len() as u32 - t.body_root[b];
        }
        let (mut top, mut second) = (0, 0);
        for &n in &t.body_nnode {
            let n = (n as usize).div_ceil(2);
            if n > top {
                (top, second) = (n, top);
            } else if n > second {
                second = n;
            }
        }
        t.max_pairs = top * second;
        t
    }

    /// Appends the subtree over `items` (geom, centre), its root first.
    fn split(&mut self, items: &mut [(usize, [f64; 3])]) {
        let node = self.child.len();
        if let [(g, _)] = items {
            self.child.push([Self::LEAF, *g as u32]);
            return;
        }
        self.child.push([0, 0]);
        let mut lo = [f64::INFINITY; 3];
        let mut hi = [f64::NEG_INFINITY; 3];
        for (_, c) in items.iter() {
            for k in 0..3 {
                // (a non-finite centre sorts last and spreads nothing)
                if c[k].is_finite() {
                    lo[k] = lo[k].min(c[k]);
                    hi[k] = hi[k].max(c[k]);
                }
            }
        }
        let spread = |k: usize| if hi[k] >= lo[k] { hi[k] - lo[k] } else { 0.0 };
        let axis = (1..3).fold(0, |a, k| if spread(k) > spread(a) { k } else { a });
        items.sort_by(|a, b| a.1[axis].total_cmp(&b.1[axis]).then(a.0.cmp(&b.0)));
        let (left, right) = items.split_at_mut(items.len() / 2);
        let l = self.child.len() as u32;
        self.split(left);
        let r = self.child.len() as u32;
        self.split(right);
        self.child[node] = [l, r];
    }
}

/// `v` rotated by the unit quaternion `q` (w, x, y, z).
fn rotate(q: [f64; 4], v: [f64; 3]) -> [f64; 3] {
    let (w, u) = (q[0], [q[1], q[2], q[3]]);
    let cross = |a: [f64; 3], b: [f64; 3]| {
        [
            a[1] * b[2] - a[2] * b[1],
            a[2] * b[0] - a[0] * b[2],
            a[0] * b[1] - a[1] * b[0],
        ]
    };
    let t = cross(u, v).map(|x| 2.0 * x);
    let s = cross(u, t);
    [
        v[0] + w * t[0] + s[0],
        v[1] + w * t[1] + s[1],
        v[2] + w * t[2] + s[2],
    ]
}

/// The element kinds with MJCF `user` data, in the order of [`Model`]'s `user_raw` and MuJoCo's
/// `<size nuser_*>` names: body, jnt, geom, site, cam, tendon, actuator, sensor.
pub const USER_KINDS: [&str; 8] = [
    "body", "jnt", "geom", "site", "cam", "tendon", "actuator", "sensor",
];

/// The compiled model. See the module docs for conventions.
#[derive(Clone, Debug, Default)]
pub struct Model {
    /// The model's name: `<mujoco model="...">`, "MuJoCo Model" when the attribute is absent
    /// (the first name of MuJoCo's `names`; mjSpec's `modelname`).
    pub modelname: String,
    // ---------------------------------------------------------------- sizes
    pub nq: usize,
    pub nv: usize,
    pub nu: usize,
    pub na: usize,
    pub nbody: usize,
    pub njnt: usize,
    pub ngeom: usize,
    pub nsite: usize,
    pub ntendon: usize,
    pub nwrap: usize,
    pub neq: usize,
    pub nkey: usize,
    pub nsensor: usize,
    pub nsensordata: usize,
    pub nmocap: usize,
    pub nmesh: usize,
    pub nhfield: usize,
    pub npair: usize,
    pub nexclude: usize,
    /// Number of non-zeros in the tree-sparse lower triangle of M (MuJoCo's `nM`).
    pub nM: usize,
    /// Number of non-zeros of the dof-dof matrix `D` (MuJoCo's `nD`, `2 nM − nv`): the pairs of
    /// dofs of which one is the other or its ancestor, `M`'s pattern made symmetric.
    pub nD: usize,
    /// Number of non-zeros of the tendon Jacobian's pattern (MuJoCo's `nJten`): the length of
    /// `ten_J_colind` and of `Data::ten_J`. Filled by [`Model::fill_sparse`].
    pub nJten: usize,
    /// Number of non-zeros of the actuator moments' pattern (MuJoCo's `nJmom`): the length of
    /// `Data::moment_colind` and `Data::actuator_moment`. Filled by [`Model::fill_sparse`].
    pub nJmom: usize,
    /// `<size nconmax>`: the contacts the legacy arena rule sizes for (-1: not given, 100 used).
    pub nconmax: i64,
    /// `<size njmax>`: the constraint rows the legacy arena rule sizes for (-1: not given, 500
    /// used).
    pub njmax: i64,
    /// Bytes of the arena that holds the contacts and constraint rows of a step
    /// (`mjModel.narena`): `<size memory>` if given, else [`crate::data::default_narena`].
    /// 0 (a model built by hand) means the default.
    pub narena: usize,

    pub opt: Options,
    /// `qpos0`: the reference configuration (nq).
    pub qpos0: Vec<f64>,
    /// `qpos_spring`: the spring reference configuration (nq).
    pub qpos_spring: Vec<f64>,

    // ---------------------------------------------------------------- bodies (0 = world)
    pub body_name: Vec<String>,
    pub body_parentid: Vec<usize>,
    pub body_rootid: Vec<usize>,
    /// Id of the body this body is welded to (itself if it has joints).
    pub body_weldid: Vec<usize>,
    /// Mocap index, or -1.
    pub body_mocapid: Vec<i32>,
    pub body_jntnum: Vec<usize>,
    /// First joint of the body. For bodies without joints (MuJoCo stores -1) this is the
    /// number of joints before the body, so `adr..adr + num` is always a valid empty range;
    /// the same holds for `body_dofadr` and `body_geomadr`.
    pub body_jntadr: Vec<usize>,
    pub body_dofnum: Vec<usize>,
    pub body_dofadr: Vec<usize>,
    pub body_geomnum: Vec<usize>,
    pub body_geomadr: Vec<usize>,
    /// Position and orientation of the body frame relative to the parent frame.
    pub body_pos: Vec<[f64; 3]>,
    pub body_quat: Vec<[f64; 4]>,
    /// Inertial frame relative to the body frame.
    pub body_ipos: Vec<[f64; 3]>,
    pub body_iquat: Vec<[f64; 4]>,
    /// Derived: the inertial frame is the body frame ([`SameFrame::Body`]) or has its
    /// orientation ([`SameFrame::BodyRot`]); filled by [`Model::fill_sameframe`] (the MJCF
    /// compiler calls it). Empty means [`SameFrame::None`] everywhere; likewise
    /// `geom_sameframe` and `site_sameframe`.
    pub body_sameframe: Vec<SameFrame>,
    pub body_mass: Vec<f64>,
    pub body_subtreemass: Vec<f64>,
    /// Principal moments of inertia in the inertial frame.
    pub body_inertia: Vec<[f64; 3]>,
    /// Mean inverse inertia at qpos0, (translation, rotation)
    /// (docs/mujoco-behaviour.md#parameters).
    pub body_invweight0: Vec<[f64; 2]>,
    pub body_gravcomp: Vec<f64>,
    /// The body's MJCF `sleep` attribute (XML reference, `body`): the sleep policy asked for its
    /// tree. Empty on hand-built models (all [`BodySleep::Auto`]).
    pub body_sleep: Vec<BodySleep>,
    /// Per kinematic tree (indexed by tree id, as `dof_treeid` numbers them): its sleep
    /// policy (MuJoCo's `tree_sleep_policy`, values of [`crate::sleep::policy`]). Filled by
    /// [`crate::setconst::set_const`] ([`crate::sleep::tree_sleep_policy`]), as MuJoCo 4.0.0's
    /// `mj_setConst` recomputes it; empty on hand-built models, where sleep is refused.
    pub tree_sleep_policy: Vec<i32>,

    // ---------------------------------------------------------------- joints
    pub jnt_name: Vec<String>,
    pub jnt_type: Vec<JointType>,
    pub jnt_qposadr: Vec<usize>,
    pub jnt_dofadr: Vec<usize>,
    pub jnt_bodyid: Vec<usize>,
    pub jnt_group: Vec<i32>,
    pub jnt_limited: Vec<bool>,
    pub jnt_actfrclimited: Vec<bool>,
    pub jnt_solref: Vec<[f64; 2]>,
    pub jnt_solimp: Vec<[f64; 5]>,
    /// Anchor and axis in the body frame.
    pub jnt_pos: Vec<[f64; 3]>,
    pub jnt_axis: Vec<[f64; 3]>,
    /// Spring stiffness; `jnt_stiffnesspoly` holds the polynomial coefficients (Computation
    /// "Polynomial forces"), zeros when absent.
    pub jnt_stiffness: Vec<f64>,
    pub jnt_stiffnesspoly: Vec<[f64; 2]>,
    pub jnt_range: Vec<[f64; 2]>,
    pub jnt_actfrcrange: Vec<[f64; 2]>,
    pub jnt_margin: Vec<f64>,

    // ---------------------------------------------------------------- dofs
    pub dof_bodyid: Vec<usize>,
    pub dof_jntid: Vec<usize>,
    /// Parent dof in the kinematic tree, or -1.
    pub dof_parentid: Vec<i32>,
    /// Address of the diagonal element of this dof's row in the sparse `qM`.
    ///
    /// Layout (MuJoCo's classic tree-sparse layout): row `i` is stored contiguously as
    /// `M[i,i], M[i,p(i)], M[i,p(p(i))], ...` up to the root of its tree, where `p` =
    /// `dof_parentid`; `dof_Madr[i]` is the address of `M[i,i]` and rows follow each other in
    /// dof order, so row `i` has `depth(i) + 1` entries and `nM` is the sum over all dofs.
    pub dof_Madr: Vec<usize>,
    /// Derived (moreau's, not MuJoCo's `M_colind`): the column of every `qM` entry in the layout
    /// of `dof_Madr` (row `i`: `i`, then its ancestors), filled by the MJCF compiler
    /// ([`Model::fill_dof_mcol`]). Empty (or of another length than `nM`) means "not cached":
    /// `crb::solve_ld` and `crb::mul_sparse` then walk `dof_parentid`.
    pub dof_Mcol: Vec<usize>,
    /// Sparsity of the dof-dof matrices `qDeriv` and `qLU` (MuJoCo's compressed rows): row `i`
    /// holds `D_rownnz[i]` entries from `D_rowadr[i]`, columns `D_colind` ascending (the
    /// ancestors of `i`, `i`, its descendants); `D_diag[i]` is the position of `(i, i)` within
    /// the row. Filled by [`Model::fill_dof_mcol`].
    pub D_rownnz: Vec<usize>,
    pub D_rowadr: Vec<usize>,
    pub D_colind: Vec<usize>,
    pub D_diag: Vec<usize>,
    /// Derived (moreau's): for the `qM` entry at address `a` (row `i`, column `j`, `j` = `i` or
    /// an ancestor of `i`, in the layout of `dof_Madr`), the address of `(i, j)` in `D`
    /// (`dof_MDlower[a]`) and of `(j, i)` (`dof_MDupper[a]`).
    pub dof_MDlower: Vec<usize>,
    pub dof_MDupper: Vec<usize>,
    pub dof_solref: Vec<[f64; 2]>,
    pub dof_solimp: Vec<[f64; 5]>,
    pub dof_frictionloss: Vec<f64>,
    pub dof_armature: Vec<f64>,
    pub dof_damping: Vec<f64>,
    /// Polynomial damping coefficients (Computation "Polynomial forces"), zeros when absent.
    pub dof_dampingpoly: Vec<[f64; 2]>,
    pub dof_invweight0: Vec<f64>,
    /// Diagonal of M at qpos0.
    pub dof_M0: Vec<f64>,
    /// The length that turns each dof's speed into the scale of the sleep rest test
    /// (MuJoCo's `dof_length`): 1 for translational dofs, a length of the body for rotational
    /// ones. Filled by [`crate::setconst::set_const`] ([`crate::sleep::dof_lengths`]), as
    /// MuJoCo 4.0.0's `mj_setConst` recomputes it; empty on hand-built models, where sleep is
    /// refused.
    pub dof_length: Vec<f64>,

    // ---------------------------------------------------------------- geoms
    pub geom_name: Vec<String>,
    pub geom_type: Vec<GeomType>,
    pub geom_contype: Vec<u32>,
    pub geom_conaffinity: Vec<u32>,
    pub geom_condim: Vec<usize>,
    pub geom_bodyid: Vec<usize>,
    /// Mesh or hfield id, or -1.
    pub geom_dataid: Vec<i32>,
    pub geom_group: Vec<i32>,
    pub geom_priority: Vec<i32>,
    pub geom_solmix: Vec<f64>,
    pub geom_solref: Vec<[f64; 2]>,
    pub geom_solimp: Vec<[f64; 5]>,
    pub geom_size: Vec<[f64; 3]>,
    pub geom_rbound: Vec<f64>,
    /// Axis-aligned box in the geom frame: center (3), half-sizes (3).
    pub geom_aabb: Vec<[f64; 6]>,
    pub geom_pos: Vec<[f64; 3]>,
    pub geom_quat: Vec<[f64; 4]>,
    pub geom_sameframe: Vec<SameFrame>,
    pub geom_friction: Vec<[f64; 3]>,
    pub geom_margin: Vec<f64>,
    pub geom_gap: Vec<f64>,
    /// Geom color, float32 as MuJoCo's; only the alpha matters to the engine (rays skip
    /// invisible geoms, [`crate::ray::ray`]). May be empty (then every geom counts as visible).
    pub geom_rgba: Vec<[f32; 4]>,
    /// Material of each geom, -1 if none (may be empty).
    pub geom_matid: Vec<i32>,
    /// Number of collidable geoms (`geom_contype` or `geom_conaffinity` nonzero; not a MuJoCo
    /// field), which chooses how the broad phase finds its pairs; filled by the MJCF loader
    /// ([`Model::fill_ngeom_collidable`]). Every choice gives the same contacts, so a count left
    /// at 0 by a model built by hand, or stale after editing those arrays, costs speed only.
    pub ngeom_collidable: usize,
    /// Each body's geoms as a binary tree (the midphase's, [`GeomTree`]); filled by the MJCF
    /// loader ([`Model::fill_geom_tree`]). A model built by hand has none, and its body pairs
    /// test every geom pair.
    pub geom_tree: GeomTree,

    // ---------------------------------------------------------------- sites
    pub site_name: Vec<String>,
    pub site_type: Vec<GeomType>,
    pub site_bodyid: Vec<usize>,
    pub site_size: Vec<[f64; 3]>,
    pub site_pos: Vec<[f64; 3]>,
    pub site_quat: Vec<[f64; 4]>,
    pub site_sameframe: Vec<SameFrame>,
    /// Rendering only (float32 as MuJoCo's): color, visualization group, material (-1 none).
    pub site_rgba: Vec<[f32; 4]>,
    pub site_group: Vec<i32>,
    pub site_matid: Vec<i32>,

    // ---------------------------------------------------------------- cameras
    pub ncam: usize,
    pub cam_name: Vec<String>,
    pub cam_mode: Vec<CamMode>,
    pub cam_bodyid: Vec<usize>,
    /// Target body of `targetbody` / `targetbodycom` cameras, -1 otherwise.
    pub cam_targetbodyid: Vec<i32>,
    /// Pose in the body frame.
    pub cam_pos: Vec<[f64; 3]>,
    pub cam_quat: Vec<[f64; 4]>,
    /// World offset from the body's subtree COM at `qpos0` (`trackcom`).
    pub cam_poscom0: Vec<[f64; 3]>,
    /// World offset from the body origin at `qpos0` (`track`).
    pub cam_pos0: Vec<[f64; 3]>,
    /// World orientation at `qpos0` (row-major), kept by `track` / `trackcom`.
    pub cam_mat0: Vec<[f64; 9]>,
    /// Rendering only: vertical field of view (degrees) and inter-pupillary distance.
    pub cam_fovy: Vec<f64>,
    pub cam_ipd: Vec<f64>,

    // ---------------------------------------------------------------- lights
    // (MJCF `light`; the engine computes their poses, `Data::light_xpos` / `light_xdir`; the
    // optical properties are kept for renderers, in MuJoCo's units)
    pub nlight: usize,
    pub light_name: Vec<String>,
    /// Tracking mode, as cameras' (`mjtCamLight`).
    pub light_mode: Vec<CamMode>,
    pub light_bodyid: Vec<usize>,
    /// Target body of `targetbody` / `targetbodycom` lights, -1 otherwise.
    pub light_targetbodyid: Vec<i32>,
    /// `mjtLightType`: 0 spot, 1 directional, 2 point, 3 image.
    pub light_type: Vec<i32>,
    /// Texture of image lights; always -1 (moreau does not keep textures).
    pub light_texid: Vec<i32>,
    pub light_castshadow: Vec<bool>,
    pub light_bulbradius: Vec<f64>,
    pub light_intensity: Vec<f64>,
    pub light_range: Vec<f64>,
    pub light_softness: Vec<f64>,
    pub light_active: Vec<bool>,
    /// Position and unit direction in the body frame.
    pub light_pos: Vec<[f64; 3]>,
    pub light_dir: Vec<[f64; 3]>,
    /// World offset from the subtree COM (of the target body if one is named, else of the
    /// light's body) at `qpos0` (`trackcom`).
    pub light_poscom0: Vec<[f64; 3]>,
    /// World offset from the body origin at `qpos0` (`track`).
    pub light_pos0: Vec<[f64; 3]>,
    /// World direction at `qpos0` (`track`, `trackcom`).
    pub light_dir0: Vec<[f64; 3]>,
    pub light_attenuation: Vec<[f64; 3]>,
    pub light_cutoff: Vec<f64>,
    pub light_exponent: Vec<f64>,
    pub light_ambient: Vec<[f64; 3]>,
    pub light_diffuse: Vec<[f64; 3]>,
    pub light_specular: Vec<[f64; 3]>,

    // ---------------------------------------------------------------- assets
    /// Textures (MJCF `texture`, compiled as MuJoCo does; for renderers, unused by the engine).
    pub ntex: usize,
    pub tex_name: Vec<String>,
    /// `mjtTexture`: 0 2d, 1 cube, 2 skybox.
    pub tex_type: Vec<i32>,
    /// `mjtColorSpace`: 0 auto, 1 linear, 2 sRGB.
    pub tex_colorspace: Vec<i32>,
    pub tex_height: Vec<usize>,
    pub tex_width: Vec<usize>,
    /// Samples per pixel: 1, 3 or 4.
    pub tex_nchannel: Vec<usize>,
    /// First sample in `tex_data`.
    pub tex_adr: Vec<usize>,
    /// The `file` it was read from, empty for a builtin without one or six face files.
    pub tex_path: Vec<String>,
    /// Every texture's 8-bit samples, `tex_height × tex_width × tex_nchannel` each, rows from
    /// the top; a cube's six faces one under the other (right, left, up, down, front, back).
    pub tex_data: Vec<u8>,
    pub nmat: usize,
    pub mat_name: Vec<String>,
    pub mat_rgba: Vec<[f64; 4]>,
    /// Per material, the texture of each `mjtTextureRole` (user, rgb, occlusion, roughness,
    /// metallic, normal, opacity, emissive, rgba, orm), -1 for none.
    pub mat_texid: Vec<[i32; 10]>,
    /// Rendering only, float32 as MuJoCo's: emission, specular, shininess, reflectance,
    /// metallic and roughness (-1: not given) of each material.
    pub mat_emission: Vec<f32>,
    pub mat_specular: Vec<f32>,
    pub mat_shininess: Vec<f32>,
    pub mat_reflectance: Vec<f32>,
    pub mat_metallic: Vec<f32>,
    pub mat_roughness: Vec<f32>,
    pub mesh: Vec<Mesh>,
    pub hfield: Vec<Hfield>,

    // ---------------------------------------------------------------- tendons
    pub tendon_name: Vec<String>,
    pub tendon_adr: Vec<usize>,
    pub tendon_num: Vec<usize>,
    pub tendon_limited: Vec<bool>,
    pub tendon_solref_lim: Vec<[f64; 2]>,
    pub tendon_solimp_lim: Vec<[f64; 5]>,
    pub tendon_solref_fri: Vec<[f64; 2]>,
    pub tendon_solimp_fri: Vec<[f64; 5]>,
    pub tendon_range: Vec<[f64; 2]>,
    /// Whether the total force of the actuators transmitting through the tendon is clamped to
    /// `tendon_actfrcrange` (MJCF `actuatorfrclimited`; [`crate::actuation::fwd_actuation`]).
    pub tendon_actfrclimited: Vec<bool>,
    pub tendon_actfrcrange: Vec<[f64; 2]>,
    pub tendon_margin: Vec<f64>,
    pub tendon_stiffness: Vec<f64>,
    pub tendon_damping: Vec<f64>,
    pub tendon_armature: Vec<f64>,
    pub tendon_frictionloss: Vec<f64>,
    /// Spring rest length range (lower, upper); the spring acts outside it.
    /// As authored by `springlength`; `[-1, -1]` (the MJCF default) means "the tendon length at
    /// qpos_spring", resolved by `set_const`.
    pub tendon_lengthspring: Vec<[f64; 2]>,
    pub tendon_length0: Vec<f64>,
    pub tendon_invweight0: Vec<f64>,
    /// Rendering only: color (float32 as MuJoCo's), width, visualization group, material
    /// (-1 none).
    pub tendon_rgba: Vec<[f32; 4]>,
    pub tendon_width: Vec<f64>,
    pub tendon_group: Vec<i32>,
    pub tendon_matid: Vec<i32>,
    /// Pattern of the tendon Jacobian (MuJoCo's `ten_J_rownnz`, `ten_J_rowadr`,
    /// `ten_J_colind`): row `t` holds `ten_J_rownnz[t]` entries from `ten_J_rowadr[t]`, the
    /// dofs that can move the tendon's path, ascending. Filled by [`Model::fill_sparse`].
    pub ten_J_rownnz: Vec<usize>,
    pub ten_J_rowadr: Vec<usize>,
    pub ten_J_colind: Vec<usize>,
    pub wrap_type: Vec<WrapType>,
    pub wrap_objid: Vec<i32>,
    /// Coefficient for joint wraps (fixed tendons), divisor for pulleys, side-site id for geoms.
    pub wrap_prm: Vec<f64>,

    // ---------------------------------------------------------------- actuators
    pub actuator_name: Vec<String>,
    pub actuator_trntype: Vec<TrnType>,
    pub actuator_dyntype: Vec<DynType>,
    pub actuator_gaintype: Vec<GainType>,
    pub actuator_biastype: Vec<BiasType>,
    /// Transmission target ids (joint/tendon/site/body, and refsite or slider site), -1 if none.
    pub actuator_trnid: Vec<[i32; 2]>,
    /// First activation index, or -1 if stateless.
    pub actuator_actadr: Vec<i32>,
    pub actuator_actnum: Vec<usize>,
    pub actuator_group: Vec<i32>,
    pub actuator_ctrllimited: Vec<bool>,
    pub actuator_forcelimited: Vec<bool>,
    pub actuator_actlimited: Vec<bool>,
    pub actuator_actearly: Vec<bool>,
    pub actuator_dynprm: Vec<[f64; 10]>,
    pub actuator_gainprm: Vec<[f64; 10]>,
    /// Bias parameters. After `mjcf` compilation and before `set_const`, a position-like
    /// actuator (`gaintype` fixed, `biastype` affine, `biasprm[1] == -gainprm[0]`) with a
    /// **positive** `biasprm[2]` carries a `dampratio` (MuJoCo's convention);
    /// `set_const` replaces it by `-dampratio * 2 * sqrt(kp * m)`
    /// (docs/mujoco-behaviour.md#actuators).
    pub actuator_biasprm: Vec<[f64; 10]>,
    pub actuator_ctrlrange: Vec<[f64; 2]>,
    pub actuator_forcerange: Vec<[f64; 2]>,
    pub actuator_actrange: Vec<[f64; 2]>,
    pub actuator_gear: Vec<[f64; 6]>,
    pub actuator_cranklength: Vec<f64>,
    pub actuator_acc0: Vec<f64>,
    pub actuator_length0: Vec<f64>,
    pub actuator_lengthrange: Vec<[f64; 2]>,

    // ---------------------------------------------------------------- equality
    pub eq_name: Vec<String>,
    pub eq_type: Vec<EqType>,
    pub eq_obj1id: Vec<i32>,
    pub eq_obj2id: Vec<i32>,
    pub eq_objtype: Vec<ObjType>,
    pub eq_active0: Vec<bool>,
    pub eq_solref: Vec<[f64; 2]>,
    pub eq_solimp: Vec<[f64; 5]>,
    /// `mjNEQDATA` = 12 numbers (MuJoCo 4.0.0). Weld: anchor (3), relative pose (pos 3, quat
    /// 4), torquescale, and 1 in the last slot when the relative pose was computed at qpos0.
    pub eq_data: Vec<[f64; 12]>,

    // ---------------------------------------------------------------- explicit contact pairs
    pub pair_geom1: Vec<usize>,
    pub pair_geom2: Vec<usize>,
    pub pair_dim: Vec<usize>,
    pub pair_solref: Vec<[f64; 2]>,
    pub pair_solreffriction: Vec<[f64; 2]>,
    pub pair_solimp: Vec<[f64; 5]>,
    pub pair_margin: Vec<f64>,
    pub pair_gap: Vec<f64>,
    pub pair_friction: Vec<[f64; 5]>,
    pub pair_name: Vec<String>,
    /// Excluded body pairs, `(body1 << 16) + body2` as in MuJoCo, sorted (MuJoCo's order).
    pub exclude_signature: Vec<u32>,
    /// The `<exclude>` elements' names ("" if unnamed), in the order of `exclude_signature`.
    pub exclude_name: Vec<String>,

    // ---------------------------------------------------------------- custom numeric fields
    /// `<custom><numeric>` elements: user data the engine does not read (MuJoCo's
    /// `numeric_*`, elements `numeric_adr[i]..numeric_adr[i] + numeric_size[i]` of
    /// `numeric_data`).
    pub nnumeric: usize,
    pub numeric_name: Vec<String>,
    pub numeric_adr: Vec<usize>,
    pub numeric_size: Vec<usize>,
    pub numeric_data: Vec<f64>,
    /// Names of the `<custom><text>` and `<custom><tuple>` elements and of the `<asset><skin>`s
    /// (`name`, else the stem of `file`): the engine keeps nothing else of them; MuJoCo's
    /// `names` lists them.
    pub text_name: Vec<String>,
    pub tuple_name: Vec<String>,
    pub skin_name: Vec<String>,
    /// `<size nuserdata>`: the length of [`crate::Data::userdata`] (`mjModel.nuserdata`).
    pub nuserdata: usize,

    // ---------------------------------------------------------------- user data
    /// The MJCF `user` attributes (XML Reference, e.g. `body/user`): `nuser_X` numbers per
    /// element (`<size nuser_X>`, or the longest `user` given when it is −1 or absent), and
    /// `X_user` the elements' values row-major (`n × nuser_X`), zero-padded, as MuJoCo's
    /// `mjModel` (the world body's row is zeros). The engine does not read them.
    pub nuser_body: usize,
    pub body_user: Vec<f64>,
    pub nuser_jnt: usize,
    pub jnt_user: Vec<f64>,
    pub nuser_geom: usize,
    pub geom_user: Vec<f64>,
    pub nuser_site: usize,
    pub site_user: Vec<f64>,
    pub nuser_cam: usize,
    pub cam_user: Vec<f64>,
    pub nuser_tendon: usize,
    pub tendon_user: Vec<f64>,
    pub nuser_actuator: usize,
    pub actuator_user: Vec<f64>,
    pub nuser_sensor: usize,
    pub sensor_user: Vec<f64>,
    /// The `user` values as given, per kind ([`USER_KINDS`]) and element: the MJCF compiler's
    /// work space, empty in a compiled model.
    pub user_raw: [Vec<Vec<f64>>; 8],

    // ---------------------------------------------------------------- keyframes
    pub key_name: Vec<String>,
    pub key_time: Vec<f64>,
    pub key_qpos: Vec<Vec<f64>>,
    pub key_qvel: Vec<Vec<f64>>,
    pub key_act: Vec<Vec<f64>>,
    pub key_ctrl: Vec<Vec<f64>>,
    pub key_mpos: Vec<Vec<f64>>,
    pub key_mquat: Vec<Vec<f64>>,

    // ---------------------------------------------------------------- sensors
    pub sensor_name: Vec<String>,
    pub sensor_type: Vec<SensorType>,
    pub sensor_objtype: Vec<ObjType>,
    pub sensor_objid: Vec<i32>,
    pub sensor_reftype: Vec<ObjType>,
    pub sensor_refid: Vec<i32>,
    pub sensor_dim: Vec<usize>,
    pub sensor_adr: Vec<usize>,
    pub sensor_cutoff: Vec<f64>,
    pub sensor_noise: Vec<f64>,
    /// Integer parameters (`mjNSENS` = 3); only the contact sensor's are read: the `data`
    /// fields as bits (found 1, force 2, torque 4, dist 8, pos 16, normal 32, tangent 64),
    /// `reduce` (none 0, mindist 1, maxforce 2, netforce 3) and `num`. May be empty when the
    /// model has no contact sensor.
    pub sensor_intprm: Vec<[i32; 3]>,

    // ------------------------------------------------- fluid, tendon wrapping, cameras
    /// Per-geom fluid parameters (`mjNFLUID` = 12, MuJoCo's layout): interaction coefficient
    /// (1 for `fluidshape="ellipsoid"`, else 0), the 5 `fluidcoef` (blunt drag, slender drag,
    /// angular drag, Kutta lift, Magnus lift), virtual mass (3) and virtual inertia (3) per unit
    /// fluid density. Filled by [`crate::passive::fluid::geom_fluid_compile`]; empty or all-zero means the
    /// inertia-box model.
    pub geom_fluid: Vec<[f64; 12]>,

    // ---------------------------------------------------------------- appended by mjcf
    /// Polynomial tendon stiffness / damping coefficients (`stiffness="k k1 k2"`), zeros when
    /// absent, like `jnt_stiffnesspoly` / `dof_dampingpoly`.
    pub tendon_stiffnesspoly: Vec<[f64; 2]>,
    pub tendon_dampingpoly: Vec<[f64; 2]>,
    /// Joint `springdamper` = (timeconst, dampratio) as authored, zeros when absent. When both
    /// are positive, `set_const` overrides the joint's stiffness and its dofs' damping with
    /// `jnt_stiffness = m / (tc^2 dr^2)` and `dof_damping = 2 m / tc`, `m = 1 / dof_invweight0`
    /// of the joint's first dof (checked against MuJoCo 4.0.0).
    pub jnt_springdamper: Vec<[f64; 2]>,
    /// Joint `actuatorgravcomp`: the joint's gravity compensation (`qfrc_gravcomp`) is routed
    /// into `qfrc_actuator` (before the `jnt_actfrcrange` clamp) instead of `qfrc_passive`.
    /// Empty means all false.
    pub jnt_actgravcomp: Vec<bool>,
    /// Actuator `damping` (linear coefficient) and its polynomial coefficients, and actuator
    /// `armature` (MuJoCo 4.0.0). MuJoCo adds them, scaled by gear², to the transmission
    /// target: a joint's damping / armature (also in `dof_M0` and Euler's implicit damping) or
    /// a tendon's (see [`Model::actuator_extra`]; only hinge / slide joint and tendon
    /// transmissions, others are reported by `forward::unsupported`). Empty means all zero.
    pub actuator_damping: Vec<f64>,
    pub actuator_dampingpoly: Vec<[f64; 2]>,
    pub actuator_armature: Vec<f64>,
    /// What each actuator's control means (MuJoCo's `actuator_ctrlspec`, bits of its
    /// `mjtCtrlInput`: 1 position target, 2 velocity target, 32 pressure, 0 unspecified), set
    /// by the MJCF shortcut element. Informational: the dynamics do not read it. Empty means
    /// all 0.
    pub actuator_ctrlspec: Vec<i32>,
    /// Derived: per dof and per tendon, the actuator terms `[damping, dampingpoly[0],
    /// dampingpoly[1], armature]` of [`Model::actuator_extra`], cached by
    /// [`Model::update_actuator_extras`] (the MJCF compiler calls it). Call it again after
    /// changing `actuator_damping`, `actuator_dampingpoly`, `actuator_armature`, `actuator_gear`
    /// or the transmissions. Empty means "not cached": computed on the fly (O(nu) per call).
    pub dof_actextra: Vec<[f64; 4]>,
    pub tendon_actextra: Vec<[f64; 4]>,
}

impl Model {
    /// Dof damping and damping polynomial including actuator damping ([`Self::actuator_extra`]).
    #[inline]
    pub fn dof_damping_eff(&self, i: usize) -> (f64, [f64; 2]) {
        let p = self.dof_dampingpoly.get(i).copied().unwrap_or([0.0; 2]);
        let e = self.dof_extra(i);
        (self.dof_damping[i] + e[0], [p[0] + e[1], p[1] + e[2]])
    }

    /// Dof armature including actuator armature.
    #[inline]
    pub fn dof_armature_eff(&self, i: usize) -> f64 {
        self.dof_armature[i] + self.dof_extra(i)[3]
    }

    /// Tendon damping and damping polynomial including actuator damping.
    pub fn tendon_damping_eff(&self, t: usize) -> (f64, [f64; 2]) {
        let p = self.tendon_dampingpoly.get(t).copied().unwrap_or([0.0; 2]);
        let e = self.tendon_extra(t);
        (self.tendon_damping[t] + e[0], [p[0] + e[1], p[1] + e[2]])
    }

    /// Tendon armature including actuator armature.
    pub fn tendon_armature_eff(&self, t: usize) -> f64 {
        self.tendon_armature.get(t).copied().unwrap_or(0.0) + self.tendon_extra(t)[3]
    }

    /// Fills `body_sameframe`, `geom_sameframe` and `site_sameframe` from the bodies' inertial
    /// frames and the geoms' and sites' poses, by MuJoCo 4.0.0's rule (bisected on it): two
    /// positions are the same when every coordinate differs by less than 1e-6, two orientations
    /// when every quaternion component does (or every one of the negated quaternion's). A body's
    /// inertial frame is checked against the body frame ([`SameFrame::Body`], else
    /// [`SameFrame::BodyRot`] for the orientation alone); a geom's or site's frame against the
    /// body frame (both, then the orientation alone), then against the inertial frame (both,
    /// then the orientation alone). The MJCF compiler calls it; call it again after changing
    /// those poses (a stale entry makes kinematics ignore the change, as in MuJoCo).
    pub fn fill_sameframe(&mut self) {
        const TOL: f64 = 1e-6;
        const ORIGIN: [f64; 3] = [0.0; 3];
        const UNIT: [f64; 4] = [1.0, 0.0, 0.0, 0.0];
        let pos = |a: &[f64; 3], b: &[f64; 3]| (0..3).all(|i| (a[i] - b[i]).abs() < TOL);
        let quat = |a: &[f64; 4], b: &[f64; 4]| {
            (0..4).all(|i| (a[i] - b[i]).abs() < TOL) || (0..4).all(|i| (a[i] + b[i]).abs() < TOL)
        };
        self.body_sameframe = (0..self.nbody)
            .map(|b| {
                let (p, q) = (&self.body_ipos[b], &self.body_iquat[b]);
                match (pos(p, &ORIGIN), quat(q, &UNIT)) {
                    (true, true) => SameFrame::Body,
                    (false, true) => SameFrame::BodyRot,
                    _ => SameFrame::None,
                }
            })
            .collect();
        let element = |b: usize, p: &[f64; 3], q: &[f64; 4]| {
            let (ip, iq) = (&self.body_ipos[b], &self.body_iquat[b]);
            if quat(q, &UNIT) {
                if pos(p, &ORIGIN) {
                    SameFrame::Body
                } else {
                    SameFrame::BodyRot
                }
            } else if quat(q, iq) {
                if pos(p, ip) {
                    SameFrame::Inertia
                } else {
                    SameFrame::InertiaRot
                }
            } else {
                SameFrame::None
            }
        };
        self.geom_sameframe = (0..self.geom_pos.len())
            .map(|g| element(self.geom_bodyid[g], &self.geom_pos[g], &self.geom_quat[g]))
            .collect();
        self.site_sameframe = (0..self.site_pos.len())
            .map(|s| element(self.site_bodyid[s], &self.site_pos[s], &self.site_quat[s]))
            .collect();
    }

    /// Fills the derived `ngeom_collidable` from `geom_contype` and `geom_conaffinity`.
    pub fn fill_ngeom_collidable(&mut self) {
        self.ngeom_collidable = (self.geom_contype.iter().zip(&self.geom_conaffinity))
            .take(self.ngeom)
            .filter(|&(&t, &a)| t != 0 || a != 0)
            .count();
    }

    /// Builds the derived per-body geom trees of the collision's midphase from `geom_bodyid`,
    /// `geom_pos`, `geom_quat` and `geom_aabb` (their shape only; the boxes are refit from the
    /// poses at every step).
    pub fn fill_geom_tree(&mut self) {
        self.geom_tree = GeomTree::build(self);
    }

    /// Fills the derived `dof_Mcol` from `dof_Madr`, `dof_parentid` and `nM`.
    pub fn fill_dof_mcol(&mut self) {
        self.dof_Mcol.clear();
        for i in 0..self.nv {
            let mut j = i as i32;
            while let Ok(ju) = usize::try_from(j) {
                self.dof_Mcol.push(ju);
                j = self.dof_parentid[ju];
            }
        }
        if self.dof_Mcol.len() != self.nM {
            self.dof_Mcol.clear();
        }
        self.fill_d_sparse();
    }

    /// Fills the dof-dof sparsity (`nD`, `D_rownnz`, `D_rowadr`, `D_colind`, `D_diag`) and the
    /// maps `dof_MDlower`, `dof_MDupper` from `dof_parentid` and `dof_Madr` (parents have
    /// smaller indices than their children); [`Model::fill_dof_mcol`] calls it. A model built by
    /// hand must call it before the implicit integrators run.
    #[allow(clippy::needless_range_loop)]
    pub fn fill_d_sparse(&mut self) {
        let nv = self.nv;
        // descendants of every dof, ascending (pushed in increasing child order)
        let mut ndesc = vec![0usize; nv];
        let mut depth = vec![0usize; nv];
        for j in 0..nv {
            let mut p = self.dof_parentid[j];
            while let Ok(pu) = usize::try_from(p) {
                ndesc[pu] += 1;
                depth[j] += 1;
                p = self.dof_parentid[pu];
            }
        }
        self.D_rownnz = (0..nv).map(|i| depth[i] + 1 + ndesc[i]).collect();
        self.D_diag = depth.clone();
        self.D_rowadr = Vec::with_capacity(nv);
        let mut adr = 0;
        for i in 0..nv {
            self.D_rowadr.push(adr);
            adr += self.D_rownnz[i];
        }
        self.nD = adr;
        self.D_colind = vec![0; adr];
        // fill position of the next descendant in each row
        let mut next: Vec<usize> = (0..nv).map(|i| self.D_rowadr[i] + depth[i] + 1).collect();
        for j in 0..nv {
            // row j: ancestors ascending, then j
            let diag = self.D_rowadr[j] + depth[j];
            self.D_colind[diag] = j;
            let mut pos = diag;
            let mut p = self.dof_parentid[j];
            while let Ok(pu) = usize::try_from(p) {
                pos -= 1;
                self.D_colind[pos] = pu;
                self.D_colind[next[pu]] = j;
                next[pu] += 1;
                p = self.dof_parentid[pu];
            }
        }
        // the qM entry (i, t-th ancestor j): (i, j) sits t places left of row i's diagonal;
        // (j, i) is found in row j's descendants
        self.dof_MDlower = Vec::with_capacity(self.nM);
        self.dof_MDupper = Vec::with_capacity(self.nM);
        for i in 0..nv {
            let diag = self.D_rowadr[i] + depth[i];
            let mut j = i as i32;
            let mut t = 0;
            while let Ok(ju) = usize::try_from(j) {
                self.dof_MDlower.push(diag - t);
                self.dof_MDupper
                    .push(self.d_adr(ju, i).unwrap_or(usize::MAX));
                t += 1;
                j = self.dof_parentid[ju];
            }
        }
    }

    /// Address of entry `(i, j)` of a dof-dof matrix in the `D` layout (`qDeriv`, `qLU`), or
    /// `None` if neither dof is an ancestor of the other.
    pub fn d_adr(&self, i: usize, j: usize) -> Option<usize> {
        let a = *self.D_rowadr.get(i)?;
        let row = &self.D_colind[a..a + self.D_rownnz[i]];
        row.binary_search(&j).ok().map(|k| a + k)
    }

    #[inline]
    fn dof_extra(&self, i: usize) -> [f64; 4] {
        match self.dof_actextra.get(i) {
            Some(e) if self.dof_actextra.len() == self.nv => *e,
            _ => self.actuator_extra(i, false),
        }
    }

    #[inline]
    fn tendon_extra(&self, t: usize) -> [f64; 4] {
        match self.tendon_actextra.get(t) {
            Some(e) if self.tendon_actextra.len() == self.ntendon => *e,
            _ => self.actuator_extra(t, true),
        }
    }

    /// Fills the derived caches `dof_actextra` and `tendon_actextra` from the actuators.
    pub fn update_actuator_extras(&mut self) {
        self.dof_actextra.clear();
        self.tendon_actextra.clear();
        let dof: Vec<[f64; 4]> = (0..self.nv)
            .map(|i| self.actuator_extra(i, false))
            .collect();
        let ten: Vec<[f64; 4]> = (0..self.ntendon)
            .map(|t| self.actuator_extra(t, true))
            .collect();
        self.dof_actextra = dof;
        self.tendon_actextra = ten;
    }

    /// Actuator damping / armature folded onto the transmission (MuJoCo 4.0.0 actuator
    /// attributes): actuator `a` on element `el` with `g = gear[0]` adds `g²·[damping,
    /// dampingpoly[0], dampingpoly[1], armature]` to the element's `[damping, dampingpoly[0],
    /// dampingpoly[1], armature]` (all four scaled by g², checked against MuJoCo 4.0.0). `tendon = false`: `el` is a dof and
    /// only joint transmissions on hinge / slide joints count; `true`: `el` is a tendon. O(nu).
    pub fn actuator_extra(&self, el: usize, tendon: bool) -> [f64; 4] {
        let mut out = [0.0; 4];
        for a in 0..self.actuator_damping.len() {
            let b = self.actuator_damping[a];
            let p = self
                .actuator_dampingpoly
                .get(a)
                .copied()
                .unwrap_or([0.0; 2]);
            let arm = self.actuator_armature.get(a).copied().unwrap_or(0.0);
            if b == 0.0 && p == [0.0; 2] && arm == 0.0 {
                continue;
            }
            let id = self.actuator_trnid[a][0];
            let hit = match self.actuator_trntype[a] {
                TrnType::Joint if !tendon => usize::try_from(id).is_ok_and(|j| {
                    matches!(self.jnt_type[j], JointType::Hinge | JointType::Slide)
                        && self.jnt_dofadr[j] == el
                }),
                TrnType::Tendon if tendon => id == el as i32,
                _ => false,
            };
            if hit {
                let g = self.actuator_gear[a][0];
                let g2 = g * g;
                out[0] += g2 * b;
                out[1] += g2 * p[0];
                out[2] += g2 * p[1];
                out[3] += g2 * arm;
            }
        }
        out
    }

    /// Id of the named body, if any.
    pub fn body_id(&self, name: &str) -> Option<usize> {
        self.body_name.iter().position(|n| n == name)
    }
    /// Id of the named joint, if any.
    pub fn joint_id(&self, name: &str) -> Option<usize> {
        self.jnt_name.iter().position(|n| n == name)
    }
    /// Id of the named actuator, if any.
    pub fn actuator_id(&self, name: &str) -> Option<usize> {
        self.actuator_name.iter().position(|n| n == name)
    }
    /// Id of the named keyframe, if any.
    pub fn key_id(&self, name: &str) -> Option<usize> {
        self.key_name.iter().position(|n| n == name)
    }
}
