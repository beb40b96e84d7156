//! Mutable simulation state and preallocated scratch (MuJoCo's `mjData`).
//!
//! `Data<T>` is generic over the scalar so the same pipeline runs on `f64` and on num-dual duals.
//! Everything is allocated in [`Data::new`]; `step`/`forward` allocate nothing on `f64`.
//! Spatial 6-vectors are (rotation, translation) in the frame centred at the subtree centre of
//! mass of each tree's root and aligned with the world, as MuJoCo's `cdof`/`cvel`.

pub mod arena;
mod contact;
pub(crate) mod efc;
pub(crate) mod reserved;
pub(crate) mod scratch;
pub(crate) mod warning;

pub use arena::{default_narena, narena};
pub(crate) use contact::contact_capacity;
pub use contact::Contact;
pub use efc::CONE_H;
pub use efc::{ConstraintState, ConstraintType, EfcCone};
pub use warning::{
    mujoco_warning_handler, set_warning_handler, Warning, WarningHandler, WarningStat, NWARNING,
};

use crate::math::{sc, Scalar};
use crate::model::Model;
use nalgebra::{Matrix3, Quaternion, Vector3, Vector6};
use scratch::{IslandScratch, SolverScratch, SparseScratch};

/// The arrays of [`Data::new`] whose length is a product of model sizes (the rest are linear
/// in one size): `(name, what it is sized by, bytes)` for `Data<f64>`. The loader refuses a
/// model whose sum exceeds [`crate::mjcf::MAX_DATA_BYTES`] instead of letting the allocation
/// abort the process.
pub(crate) fn product_arrays(m: &crate::model::Model) -> [(&'static str, &'static str, u128); 7] {
    let f = std::mem::size_of::<f64>() as u128;
    let (nv, nm) = (m.nv as u128, m.nM as u128);
    // (each entry also has its column index, a usize)
    let (nJten, nJmom) = (2 * m.nJten as u128, 2 * m.nJmom as u128);
    let contact = std::mem::size_of::<Contact<f64>>() as u128;
    [
        (
            "qDeriv, qLU",
            "nD = 2 nM − nv (pairs of dofs on one ancestor chain)",
            2 * (2 * nm).saturating_sub(nv) * f,
        ),
        ("ten_J", "nJten (the tendons' dof patterns)", nJten * f),
        (
            "actuator_moment",
            "nJmom (the transmissions' dof patterns; nv per body transmission)",
            nJmom * f,
        ),
        ("qM, qLD", "nM (the tree depth of each dof)", 2 * nm * f),
        (
            "contact",
            "the contact capacity ((narena - 24) / 720, at most 2^21)",
            contact_capacity(m) as u128 * contact,
        ),
        (
            "efc_*, the solvers' rows",
            "the rows the arena holds (narena / 205, at most 2^20) and their Jacobian entries \
             (narena / 12, at most 2^25)",
            arena::reserve_bytes(&arena::reserve(m)),
        ),
        (
            "sensordata",
            "nsensordata (a contact sensor's num times its data fields)",
            m.nsensordata as u128 * f,
        ),
    ]
}

/// Per-iteration solver statistics (`mjSolverStat`; docs/mujoco-behaviour.md#newton).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct SolverStat {
    /// Cost reduction, scaled by 1/trace(M).
    pub improvement: f64,
    /// Gradient norm, scaled (0 for PGS).
    pub gradient: f64,
    /// |phi'| at the line-search result, scaled by 1/(trace(M)·|s|).
    pub lineslope: f64,
    /// Rows not SATISFIED.
    pub nactive: usize,
    /// Rows whose state changed in this iteration.
    pub nchange: usize,
    /// Line-search cost evaluations.
    pub neval: usize,
    /// Cholesky rank-1 updates MuJoCo would do (Newton).
    pub nupdate: usize,
}

/// Iterations for which statistics are kept (mjNSOLVER).
pub const NSOLVER: usize = 200;

/// MuJoCo's `mjMINAWAKE`: the steps at rest before a tree may fall asleep ([`crate::sleep`]).
pub const MINAWAKE: i32 = 10;
/// `tree_asleep` of an awake tree after a reset or a step in motion ([`crate::sleep`]).
pub const AWAKE_RESET: i32 = -(1 + MINAWAKE);

/// Islands for which solver statistics are kept (mjNISLAND).
pub const NISLAND: usize = 20;

/// One solve's writer of an island's statistics ([`Data::solver`]): iteration `k` overwrites
/// entry `k` and entries past the solve's last iteration keep what earlier solves wrote, as
/// MuJoCo's `d->solver[island * mjNSOLVER + k]`; at most [`NSOLVER`] are kept.
pub struct SolverLog<'a> {
    stats: &'a mut Vec<SolverStat>,
    n: usize,
}

impl<'a> SolverLog<'a> {
    /// A writer from iteration 0 of `stats`.
    pub fn new(stats: &'a mut Vec<SolverStat>) -> Self {
        SolverLog { stats, n: 0 }
    }

    /// Records the next iteration's statistics.
    pub fn push(&mut self, s: SolverStat) {
        if self.n < self.stats.len() {
            self.stats[self.n] = s;
        } else if self.n < NSOLVER {
            self.stats.push(s);
        }
        self.n += 1;
    }
}

/// Where a deferred island's inputs are in [`SolverNnz`]'s pools: its first dof, its dof
/// count, its first `jbits` word.
#[derive(Clone, Copy, Debug)]
pub struct Deferred {
    pub dof: usize,
    pub n: usize,
    pub bits: usize,
}

/// MuJoCo's `solver_nnz[mjNISLAND]`: per island, the count of the last solve that had it.
/// The sparse Newton counts are kept as their inputs (each island's dofs and the bit rows of
/// its Σ J_iᵀJ_i pattern, copied out of the solve's work space) and counted when read
/// ([`SolverNnz::get`]), so that a step does not form the factor's fill only to report it.
#[derive(Debug, Default)]
pub struct SolverNnz {
    /// The counts known when their solve ended (0 where deferred).
    pub known: [usize; NISLAND],
    pub deferred: [Option<Deferred>; NISLAND],
    /// The deferred islands' dofs (ascending) and bit rows, island after island.
    pub dofs: Vec<usize>,
    pub jbits: Vec<u64>,
}

// A clone keeps the pools' capacity, as `Data`'s clone does.
crate::data::reserved::clone_reserved! {
    impl[] SolverNnz {
        known: copy,
        deferred: copy,
        dofs: vec,
        jbits: vec,
    }
}

impl SolverNnz {
    /// Room for one solve's deferred counts over up to `nv` dofs.
    pub fn reserve(&mut self, nv: usize) {
        let words = nv.div_ceil(64).max(1);
        self.dofs.reserve(nv.saturating_sub(self.dofs.len()));
        self.jbits
            .reserve((nv * words).saturating_sub(self.jbits.len()));
    }
}

/// The simulation state and all intermediate results of the pipeline.
#[derive(Debug)]
pub struct Data<T: Scalar = f64> {
    // ------------------------------------------------------------ state
    pub time: T,
    pub qpos: Vec<T>,
    pub qvel: Vec<T>,
    pub act: Vec<T>,
    pub qacc_warmstart: Vec<T>,
    pub mocap_pos: Vec<Vector3<T>>,
    pub mocap_quat: Vec<Quaternion<T>>,

    // ------------------------------------------------------------ controls and applied forces
    pub ctrl: Vec<T>,
    pub qfrc_applied: Vec<T>,
    /// Cartesian force (3) and torque (3) at each body's COM, world frame.
    pub xfrc_applied: Vec<Vector6<T>>,

    // ------------------------------------------------------------ outputs of forward
    pub qacc: Vec<T>,
    pub act_dot: Vec<T>,

    // ------------------------------------------------------------ position-dependent
    pub xpos: Vec<Vector3<T>>,
    pub xquat: Vec<Quaternion<T>>,
    pub xmat: Vec<Matrix3<T>>,
    pub xipos: Vec<Vector3<T>>,
    pub ximat: Vec<Matrix3<T>>,
    pub xanchor: Vec<Vector3<T>>,
    pub xaxis: Vec<Vector3<T>>,
    pub geom_xpos: Vec<Vector3<T>>,
    pub geom_xmat: Vec<Matrix3<T>>,
    pub site_xpos: Vec<Vector3<T>>,
    pub site_xmat: Vec<Matrix3<T>>,
    /// Camera poses (`mj_kinematics` + `mj_camlight`).
    pub cam_xpos: Vec<Vector3<T>>,
    pub cam_xmat: Vec<Matrix3<T>>,
    /// World position and unit direction of each light (`mj_kinematics`, then the tracking
    /// modes of `mj_camlight`).
    pub light_xpos: Vec<Vector3<T>>,
    pub light_xdir: Vec<Vector3<T>>,
    pub subtree_com: Vec<Vector3<T>>,
    /// COM-based body inertia: (I00, I11, I22, I01, I02, I12, m c (3), m), MuJoCo's layout.
    pub cinert: Vec<[T; 10]>,
    /// COM-based motion axis of each dof.
    pub cdof: Vec<Vector6<T>>,
    pub ten_length: Vec<T>,
    /// Tendon Jacobian, sparse as MuJoCo's (`nJten` entries): row `t` holds the values on the
    /// model's pattern, `ten_J[ten_J_rowadr[t] + k]` at dof `ten_J_colind[ten_J_rowadr[t] + k]`
    /// for `k < ten_J_rownnz[t]` (the dofs that can move the tendon's path); every other entry
    /// is zero. [`Data::ten_J_row`] reads a row, [`Data::ten_J_dense`] the dense matrix.
    pub ten_J: Vec<T>,
    pub actuator_length: Vec<T>,
    /// Actuator moment arms, sparse as MuJoCo's (`nJmom` entries): row `i` holds the values on
    /// `moment_colind[moment_rowadr[i]..][..moment_rownnz[i]]` (the joint's dofs, the tendon's
    /// pattern, the sites' dof chains; every dof for a body transmission); every other entry
    /// is zero. [`Data::moment_row`] reads a row, [`Data::actuator_moment_dense`] the matrix.
    pub actuator_moment: Vec<T>,
    /// Pattern of `actuator_moment` (MuJoCo's `moment_rownnz`, `moment_rowadr`,
    /// `moment_colind`), fixed for the model. MuJoCo 4.0.0 narrows a site, slider-crank or
    /// body row to its nonzeros at the current state (and packs the rows after it); here such
    /// a row keeps every dof of the sites' chains (every dof for a body), with zeros where the
    /// moment vanishes, so `rowadr` is the same at every state. Joint and tendon rows, zeros
    /// included, are MuJoCo's. As in MuJoCo, these three are zero after [`Data::new`] and
    /// every reset (`mj_resetData` clears them) until the transmission stage writes them
    /// ([`Data::moment_rows_set`]); [`Data::moment_row`] and the engine's stages read the
    /// model's pattern, which is always in place, so writing here changes no result.
    pub moment_rownnz: Vec<usize>,
    pub moment_rowadr: Vec<usize>,
    pub moment_colind: Vec<usize>,
    /// Whether the pattern above was computed since the last reset ([`Data::moment_rows_set`]).
    pub(crate) moment_set: bool,
    /// Composite rigid-body inertias (same layout as `cinert`).
    pub crb: Vec<[T; 10]>,
    /// Joint-space inertia in MuJoCo's tree-sparse layout (`nM` entries, see `dof_Madr`).
    pub qM: Vec<T>,
    /// L'DL factor of qM in the same layout (D on the diagonal addresses).
    pub qLD: Vec<T>,
    /// 1 / diag(D).
    pub qLDiagInv: Vec<T>,

    // ------------------------------------------------------------ velocity-dependent
    pub ten_velocity: Vec<T>,
    pub actuator_velocity: Vec<T>,
    pub cvel: Vec<Vector6<T>>,
    pub cdof_dot: Vec<Vector6<T>>,
    pub qfrc_bias: Vec<T>,
    pub qfrc_spring: Vec<T>,
    pub qfrc_damper: Vec<T>,
    pub qfrc_gravcomp: Vec<T>,
    pub qfrc_passive: Vec<T>,

    // ------------------------------------------------------------ actuation / acceleration
    pub actuator_force: Vec<T>,
    /// Per tendon with `tendon_actfrclimited`, the total force of the actuators transmitting
    /// through it before the `tendon_actfrcrange` clamp (zero for the other tendons; not a
    /// MuJoCo field): the actuation stage writes it, `qDeriv` reads it.
    pub(crate) ten_actfrc: Vec<T>,
    pub qfrc_actuator: Vec<T>,
    pub qfrc_smooth: Vec<T>,
    pub qacc_smooth: Vec<T>,
    pub qfrc_constraint: Vec<T>,
    pub qfrc_inverse: Vec<T>,
    /// COM-based acceleration and interaction forces of RNE.
    pub cacc: Vec<Vector6<T>>,
    pub cfrc_int: Vec<Vector6<T>>,
    pub cfrc_ext: Vec<Vector6<T>>,

    // ------------------------------------------------------------ implicit integrators
    /// d(qfrc_passive + qfrc_actuator [- qfrc_bias]) / d qvel on the sparsity `D` of
    /// [`Model::D_rowadr`] (`nD`: the pairs of dofs of which one is the other or its ancestor),
    /// as MuJoCo's; [`crate::pipeline::full_d`] expands it.
    pub qDeriv: Vec<T>,
    /// LU factor of `M − h qDeriv` (implicit integrator), in the same layout
    /// ([`crate::pipeline::lu_factor_d`]).
    pub qLU: Vec<T>,

    // ------------------------------------------- constraints (Computation "Constraint model")
    /// Number of scalar constraint rows. All `efc_*` arrays have this length (`efc_J`: nefc × nv,
    /// row-major, or the compressed rows' values when `efc_J_sparse`). They are resized by [`Data::resize_efc`], which allocates only when nefc
    /// exceeds the previous high-water mark (the single allowed allocation in the pipeline).
    pub nefc: usize,
    pub efc_type: Vec<ConstraintType>,
    /// Id of the element (equality, dof, tendon, joint, contact) the row belongs to.
    pub efc_id: Vec<usize>,
    pub efc_J: Vec<T>,
    /// `efc_J` is stored sparse (compressed rows, `crate::constraint::sparse`): set by
    /// `make_constraint` from [`crate::constraint::sparse::is_sparse`]. Read rows through
    /// [`Data::efc_J_row`].
    pub efc_J_sparse: bool,
    /// Sparse layout only (MuJoCo's names): entries per row, first entry, rows following with
    /// the same pattern, column of each entry.
    pub efc_J_rownnz: Vec<usize>,
    pub efc_J_rowadr: Vec<usize>,
    pub efc_J_rowsuper: Vec<usize>,
    pub efc_J_colind: Vec<usize>,
    /// Tendon patterns and chain buffers for the sparse assembly.
    pub(crate) sparse_scratch: SparseScratch,
    /// A dense row of nv zeros: transmissions and tendons accumulate a row in it before it is
    /// copied onto the row's pattern (and cleared again).
    pub(crate) dense_row: Vec<T>,
    pub efc_pos: Vec<T>,
    pub efc_margin: Vec<T>,
    pub efc_frictionloss: Vec<T>,
    /// Diagonal approximation of A = J M⁻¹ Jᵀ: the raw invweight estimate on input to
    /// [`crate::constraint::params::compute`], `R d/(1-d)` after it (MuJoCo's `efc_diagA`).
    pub efc_diagA: Vec<T>,
    /// (K, B, d, d'(r)) per row.
    pub efc_KBIP: Vec<[T; 4]>,
    pub efc_D: Vec<T>,
    pub efc_R: Vec<T>,
    pub efc_vel: Vec<T>,
    pub efc_aref: Vec<T>,
    pub efc_b: Vec<T>,
    pub efc_force: Vec<T>,
    /// Final state of each row. With islands on MuJoCo 4.0.0 keeps the warm-start evaluation
    /// here and the final states in `iefc_state` (island order); moreau stores the final states.
    pub efc_state: Vec<ConstraintState>,
    /// Per-row solref / solimp inputs (contacts: the mixed contact values).
    pub efc_solref: Vec<[T; 2]>,
    pub efc_solimp: Vec<[T; 5]>,
    /// One entry per contact with efc rows, in row order.
    pub efc_cone: Vec<EfcCone<T>>,
    /// Solver statistics per island (`solver[island][k]`, island 0 for the global solve with
    /// islands disabled; at most [`NSOLVER`] iterations, [`NISLAND`] islands). As in MuJoCo
    /// 4.0.0 a solve overwrites only its own iterations: entries past `solver_niter[island]`, and
    /// the islands of a step with fewer islands or no rows, keep older solves' values;
    /// [`Data::reset`] clears them. [`Data::solver_stats`] is the last solve's part.
    pub solver: Vec<Vec<SolverStat>>,
    /// Iterations of the last solve per island (MuJoCo's `solver_niter[mjNISLAND]`).
    pub solver_niter: [usize; NISLAND],
    /// Nonzeros of the matrix of the last solve per island (MuJoCo's `solver_nnz[mjNISLAND]`,
    /// the solver's `nnz` module), read by `solver_nnz.get(model)`: the sparse Newton counts
    /// are formed when read. As in MuJoCo 4.0.0 a solve writes only its islands' entries: a
    /// step without constraint rows, or with fewer islands, leaves the others as they were;
    /// [`Data::reset`] zeroes them.
    pub solver_nnz: SolverNnz,
    // ------------------------------------------------------------ islands (mj_island)
    /// Number of constraint islands (0 with the `island` flag disabled or without rows).
    pub nisland: usize,
    /// Number of dofs in islands.
    pub nidof: usize,
    /// Island of each kinematic tree (-1: unconstrained).
    pub tree_island: Vec<i32>,
    pub island_ntree: Vec<usize>,
    pub island_itreeadr: Vec<usize>,
    pub map_itree2tree: Vec<usize>,
    /// Island of each dof (-1: unconstrained).
    pub dof_island: Vec<i32>,
    pub island_nv: Vec<usize>,
    pub island_idofadr: Vec<usize>,
    /// First dof of each island.
    pub island_dofadr: Vec<usize>,
    pub map_dof2idof: Vec<usize>,
    pub map_idof2dof: Vec<usize>,
    /// Island of each efc row.
    pub efc_island: Vec<i32>,
    pub island_nefc: Vec<usize>,
    pub island_iefcadr: Vec<usize>,
    pub island_ne: Vec<usize>,
    pub island_nf: Vec<usize>,
    pub map_efc2iefc: Vec<usize>,
    pub map_iefc2efc: Vec<usize>,
    /// Tree structure and union-find work space of island discovery.
    pub(crate) island_scratch: IslandScratch,
    /// Sleep state of each kinematic tree (MuJoCo's `tree_asleep`, with the `sleep` enable
    /// flag): negative while awake (−11 after a reset, +1 per step at rest, capped at −1),
    /// otherwise asleep and the next tree of its sleeping cycle ([`crate::sleep`]).
    pub tree_asleep: Vec<i32>,
    /// `qpos` when each sleeping tree fell asleep: a sleeping tree whose `qpos` was changed
    /// wakes up ([`crate::sleep`]).
    pub(crate) sleep_qpos: Vec<T>,
    /// Solver work space (dense nv × nv matrices, per-row vectors), boxed so that the solver
    /// takes it out of `Data` for a solve by moving a pointer (always `Some` outside a solve;
    /// [`Data::solver_scratch_mut`]).
    pub(crate) solver_scratch: Option<Box<SolverScratch<T>>>,
    /// The islands and the solver's position-only problem data (`solver_scratch`) belong to
    /// the current position stage: set by a solve, cleared by the position stage
    /// ([`crate::forward::fwd_position`]), [`Data::resize_efc`] and [`Data::reset`]; a step
    /// that skips the position stage reuses them ([`crate::solver::solve_skip`]).
    pub(crate) solver_pos_valid: bool,
    // ------------------------------------------------------------ collision
    /// Contacts of the last `mj_collision` (capacity reserved by [`Data::new`], see
    /// `crate::collision::contact_capacity`; `d.contact.len()` is MuJoCo's `ncon`).
    pub contact: Vec<Contact<T>>,
    /// Most contacts kept per collision pass; beyond it contacts are dropped with
    /// `Warning::ContactFull`. Defaults to the most the arena keeps ([`arena::max_contacts`],
    /// the capacity `Data::new` reserves); each pass also stops where MuJoCo's arena would be
    /// full ([`arena::contacts_kept`]).
    pub nconmax: usize,
    /// This collision pass's arena limit (`usize::MAX` outside a pass).
    pub(crate) ncon_limit: usize,
    /// Contacts this collision pass found but could not keep.
    pub(crate) ncon_dropped: usize,
    /// Broad-phase working storage (sweep-and-prune intervals, body pairs; `None` only while
    /// the collision stage holds it). Boxed: the stage takes it out of `Data` three times per
    /// pass, and moving the pointer costs nothing where moving the structure was a `memcpy`
    /// each way (ball_in_cup: about 570 instructions per step).
    pub(crate) scratch_broad: Option<Box<crate::collision::BroadScratch>>,
    /// The narrow phase's working storage (`None` only while the collision stage holds it).
    pub(crate) scratch_collision: Option<crate::collision::CollisionScratch>,

    // ------------------------------------------------------------ diagnostics
    /// Most contacts of a collision pass since the last reset (`mjData.maxuse_con`).
    pub maxuse_con: usize,
    /// Most constraint rows of a step since the last reset (`mjData.maxuse_efc`).
    pub maxuse_efc: usize,
    pub warning: [WarningStat; NWARNING],
    /// The fatal stack overflow that stopped the last step or forward call (MuJoCo 4.0.0's
    /// `mju_error` "mj_stackAlloc: out of memory"), `None` if it ran to the end: the stages
    /// after it did not run and the state was not integrated. Cleared when the position stage
    /// runs again and by [`Data::reset`]; [`crate::try_step`] and [`crate::try_forward`] return
    /// it as an error.
    pub stack_overflow: Option<arena::StackOverflow>,
    /// The user's storage (`mjData.userdata`, `nuserdata` numbers): never read by the engine,
    /// zeroed by [`Data::reset`] as `mj_resetData` zeroes it.
    pub userdata: Vec<f64>,

    // ------------------------------------------------------------ sensors (appended)
    /// Sensor outputs (`nsensordata`), written by `crate::sensor`.
    pub sensordata: Vec<T>,
    /// Linear velocity of each subtree's COM and angular momentum of the subtree about its COM,
    /// world frame (`mj_subtreeVel`, computed only when a sensor needs them).
    pub subtree_linvel: Vec<Vector3<T>>,
    pub subtree_angmom: Vec<Vector3<T>>,
    /// Forward/inverse comparison (`mj_compareFwdInv`): joint-space and constraint-space
    /// discrepancy norms.
    pub solver_fwdinv: [T; 2],
    /// Potential and kinetic energy (`mj_energyPos`, `mj_energyVel`), computed by the forward
    /// and inverse pipelines when the `energy` flag is enabled or an energy sensor asks for
    /// them; with the flag disabled and no potential-energy sensor, the forward position stage
    /// zeroes both.
    pub energy: [T; 2],
    /// Whether `mj_energyPos` ran since the last position stage, and `mj_energyVel` since the
    /// last velocity stage (`flg_energypos`, `flg_energyvel`): an energy sensor
    /// reuses what is there.
    pub flg_energypos: bool,
    pub flg_energyvel: bool,
    // ------------------------------------------------------------ tendon paths
    /// First entry of each tendon's path in `wrap_obj`/`wrap_xpos`, and the number of entries
    /// (0 for fixed tendons).
    pub ten_wrapadr: Vec<usize>,
    pub ten_wrapnum: Vec<usize>,
    /// Path entries (capacity 2·nwrap): -1 site, -2 pulley, else the geom id of a tangent point.
    pub wrap_obj: Vec<i32>,
    /// World position of each path entry (zero for pulleys).
    pub wrap_xpos: Vec<Vector3<T>>,
    /// Fluid forces (inside `qfrc_passive`).
    pub qfrc_fluid: Vec<T>,
    /// Passive contact adhesion force (MuJoCo's `qfrc_adhesion`, from `geom`/`pair`
    /// `adhesion`). The compiler refuses the `adhesion` attribute, so it is zero for every
    /// model moreau loads.
    pub qfrc_adhesion: Vec<T>,

    // ------------------------------------------------------------ scratch (never read across calls)
    pub(crate) scratch_nv: [Vec<T>; 4],
    /// Scratch of the fluid force's velocity derivative (`18 nv` with fluid forces, else empty).
    pub(crate) scratch_fluid: Vec<T>,
    pub(crate) scratch_body6: [Vec<Vector6<T>>; 2],

    // ------------------------------------------------------------ integrators (crate::integrator)
    /// Whether each equality constraint is active (`eq_active`, reset to `eq_active0`).
    pub eq_active: Vec<bool>,
    /// L'DL factor (qM layout) of `M + h·diag(damping)` (Euler) or `M − h·sym(qDeriv)`
    /// (implicitfast); `qHDiagInv` holds 1/D.
    pub qH: Vec<T>,
    pub qHDiagInv: Vec<T>,
    /// The acceleration the integrator applies (nv).
    pub(crate) int_qacc: Vec<T>,
    /// RK4 scratch: initial state, per-stage qacc / velocity-or-dexp⁻¹ term (4·nv), act_dot
    /// (4·na), and the combined velocity (nv).
    pub(crate) rk_qpos0: Vec<T>,
    pub(crate) rk_qvel0: Vec<T>,
    pub(crate) rk_act0: Vec<T>,
    pub(crate) rk_qacc: Vec<T>,
    pub(crate) rk_k: Vec<T>,
    pub(crate) rk_actdot: Vec<T>,
    pub(crate) rk_dv: Vec<T>,
    /// Scratch of `derivative::d_rne_vel`: derivatives of cvel, cacc and cfrc per body.
    pub deriv_cvel: Vec<Vector6<T>>,
    pub deriv_cacc: Vec<Vector6<T>>,
    pub deriv_cfrc: Vec<Vector6<T>>,
}

// A clone keeps the capacity of every array (`Data::new` reserves every contact and row the
// arena holds, and the work space; a derived clone would keep only the lengths, so that the
// clone's first step would allocate). `clone_from` (`mj_copyData`) writes into the
// destination's arrays: into a `Data` of the same model it allocates nothing.
crate::data::reserved::clone_reserved! {
    impl[T: Scalar] Data<T> {
        time: copy,
        qpos: vec,
        qvel: vec,
        act: vec,
        qacc_warmstart: vec,
        mocap_pos: vec,
        mocap_quat: vec,
        ctrl: vec,
        qfrc_applied: vec,
        xfrc_applied: vec,
        qacc: vec,
        act_dot: vec,
        xpos: vec,
        xquat: vec,
        xmat: vec,
        xipos: vec,
        ximat: vec,
        xanchor: vec,
        xaxis: vec,
        geom_xpos: vec,
        geom_xmat: vec,
        site_xpos: vec,
        site_xmat: vec,
        cam_xpos: vec,
        cam_xmat: vec,
        light_xpos: vec,
        light_xdir: vec,
        subtree_com: vec,
        cinert: vec,
        cdof: vec,
        ten_length: vec,
        ten_J: vec,
        actuator_length: vec,
        actuator_moment: vec,
        moment_rownnz: vec,
        moment_rowadr: vec,
        moment_colind: vec,
        moment_set: copy,
        crb: vec,
        qM: vec,
        qLD: vec,
        qLDiagInv: vec,
        ten_velocity: vec,
        actuator_velocity: vec,
        cvel: vec,
        cdof_dot: vec,
        qfrc_bias: vec,
        qfrc_spring: vec,
        qfrc_damper: vec,
        qfrc_gravcomp: vec,
        qfrc_passive: vec,
        actuator_force: vec,
        ten_actfrc: vec,
        qfrc_actuator: vec,
        qfrc_smooth: vec,
        qacc_smooth: vec,
        qfrc_constraint: vec,
        qfrc_inverse: vec,
        cacc: vec,
        cfrc_int: vec,
        cfrc_ext: vec,
        qDeriv: vec,
        qLU: vec,
        nefc: copy,
        efc_type: vec,
        efc_id: vec,
        efc_J: vec,
        efc_J_sparse: copy,
        efc_J_rownnz: vec,
        efc_J_rowadr: vec,
        efc_J_rowsuper: vec,
        efc_J_colind: vec,
        sparse_scratch: clone,
        dense_row: vec,
        efc_pos: vec,
        efc_margin: vec,
        efc_frictionloss: vec,
        efc_diagA: vec,
        efc_KBIP: vec,
        efc_D: vec,
        efc_R: vec,
        efc_vel: vec,
        efc_aref: vec,
        efc_b: vec,
        efc_force: vec,
        efc_state: vec,
        efc_solref: vec,
        efc_solimp: vec,
        efc_cone: vec,
        solver: nested,
        solver_niter: copy,
        solver_nnz: clone,
        nisland: copy,
        nidof: copy,
        tree_island: vec,
        island_ntree: vec,
        island_itreeadr: vec,
        map_itree2tree: vec,
        dof_island: vec,
        island_nv: vec,
        island_idofadr: vec,
        island_dofadr: vec,
        map_dof2idof: vec,
        map_idof2dof: vec,
        efc_island: vec,
        island_nefc: vec,
        island_iefcadr: vec,
        island_ne: vec,
        island_nf: vec,
        map_efc2iefc: vec,
        map_iefc2efc: vec,
        island_scratch: clone,
        tree_asleep: vec,
        sleep_qpos: vec,
        solver_scratch: clone,
        solver_pos_valid: copy,
        contact: vec,
        nconmax: copy,
        ncon_limit: copy,
        ncon_dropped: copy,
        scratch_broad: clone,
        scratch_collision: clone,
        maxuse_con: copy,
        maxuse_efc: copy,
        warning: copy,
        stack_overflow: copy,
        userdata: vec,
        sensordata: vec,
        subtree_linvel: vec,
        subtree_angmom: vec,
        solver_fwdinv: copy,
        energy: copy,
        flg_energypos: copy,
        flg_energyvel: copy,
        ten_wrapadr: vec,
        ten_wrapnum: vec,
        wrap_obj: vec,
        wrap_xpos: vec,
        qfrc_fluid: vec,
        qfrc_adhesion: vec,
        scratch_nv: each,
        scratch_fluid: vec,
        scratch_body6: each,
        eq_active: vec,
        qH: vec,
        qHDiagInv: vec,
        int_qacc: vec,
        rk_qpos0: vec,
        rk_qvel0: vec,
        rk_act0: vec,
        rk_qacc: vec,
        rk_k: vec,
        rk_actdot: vec,
        rk_dv: vec,
        deriv_cvel: vec,
        deriv_cacc: vec,
        deriv_cfrc: vec,
    }
}

impl<T: Scalar> Data<T> {
    /// Row `t` of the tendon Jacobian: its dofs (MuJoCo's `ten_J_colind`) and their values.
    pub fn ten_J_row(&self, t: usize) -> (&[usize], &[T]) {
        let s = &self.sparse_scratch;
        let (a, n) = (s.ten_J_rowadr[t], s.ten_J_rownnz[t]);
        (&s.ten_J_colind[a..a + n], &self.ten_J[a..a + n])
    }

    /// Row `i` of the actuator moments: its dofs (the model's pattern, what the transmission
    /// stage writes to `moment_colind`) and their values (zeros after a reset).
    #[inline]
    pub fn moment_row(&self, i: usize) -> (&[usize], &[T]) {
        let s = &self.sparse_scratch;
        let (a, n) = (s.moment_rowadr[i], s.moment_rownnz[i]);
        (&s.moment_colind[a..a + n], &self.actuator_moment[a..a + n])
    }

    /// Writes row `t` of the tendon Jacobian into the dense `out` (nv, zeros off the pattern).
    pub fn ten_J_row_dense(&self, t: usize, out: &mut [T]) {
        out.iter_mut().for_each(|x| *x = T::zero());
        let (cols, vals) = self.ten_J_row(t);
        scratch::scatter(cols, vals, out);
    }

    /// Writes row `i` of the actuator moments into the dense `out` (nv, zeros off the pattern).
    pub fn moment_row_dense(&self, i: usize, out: &mut [T]) {
        out.iter_mut().for_each(|x| *x = T::zero());
        let (cols, vals) = self.moment_row(i);
        scratch::scatter(cols, vals, out);
    }

    /// The tendon Jacobian as a dense ntendon × nv matrix, row-major (MuJoCo's
    /// `mju_sparse2dense` of `ten_J`). Allocates.
    pub fn ten_J_dense(&self) -> Vec<T> {
        let nv = self.qvel.len();
        let nt = self.sparse_scratch.ten_J_rownnz.len();
        let mut out = vec![T::zero(); nt * nv];
        for t in 0..nt {
            let (cols, vals) = self.ten_J_row(t);
            scratch::scatter(cols, vals, &mut out[t * nv..(t + 1) * nv]);
        }
        out
    }

    /// The actuator moments as a dense nu × nv matrix, row-major. Allocates.
    pub fn actuator_moment_dense(&self) -> Vec<T> {
        let nv = self.qvel.len();
        let nu = self.sparse_scratch.moment_rownnz.len();
        let mut out = vec![T::zero(); nu * nv];
        for i in 0..nu {
            let (cols, vals) = self.moment_row(i);
            scratch::scatter(cols, vals, &mut out[i * nv..(i + 1) * nv]);
        }
        out
    }

    /// Allocates everything for model `m` and sets the state to `qpos0`, zero velocity
    /// ([`Data::reset_state`]), without the pass that puts `sleep="init"` trees to sleep: what
    /// [`Data::new`] (in `crate::reset`) starts from, and what the compiler's constants and the
    /// actuator length ranges simulate on.
    pub(crate) fn alloc(m: &Model) -> Self {
        let ntree = m.dof_parentid.iter().filter(|p| **p < 0).count();
        let ten = scratch::tendon_pattern(m);
        let mom = scratch::moment_pattern(m, &ten, true);
        let z = T::zero();
        let v = |n: usize| vec![z; n];
        let v3 = |n: usize| vec![Vector3::zeros(); n];
        let m3 = |n: usize| vec![Matrix3::identity(); n];
        let v6 = |n: usize| vec![Vector6::zeros(); n];
        let q = |n: usize| vec![Quaternion::new(T::one(), z, z, z); n];
        let mut d = Data {
            time: z,
            qpos: v(m.nq),
            qvel: v(m.nv),
            act: v(m.na),
            qacc_warmstart: v(m.nv),
            mocap_pos: v3(m.nmocap),
            mocap_quat: q(m.nmocap),
            ctrl: v(m.nu),
            qfrc_applied: v(m.nv),
            xfrc_applied: v6(m.nbody),
            qacc: v(m.nv),
            act_dot: v(m.na),
            xpos: v3(m.nbody),
            xquat: q(m.nbody),
            xmat: m3(m.nbody),
            xipos: v3(m.nbody),
            ximat: m3(m.nbody),
            xanchor: v3(m.njnt),
            xaxis: v3(m.njnt),
            geom_xpos: v3(m.ngeom),
            geom_xmat: m3(m.ngeom),
            site_xpos: v3(m.nsite),
            site_xmat: m3(m.nsite),
            cam_xpos: v3(m.ncam),
            cam_xmat: m3(m.ncam),
            light_xpos: v3(m.nlight),
            light_xdir: v3(m.nlight),
            subtree_com: v3(m.nbody),
            cinert: vec![[z; 10]; m.nbody],
            cdof: v6(m.nv),
            ten_length: v(m.ntendon),
            ten_J: v(ten.colind.len()),
            actuator_length: v(m.nu),
            actuator_moment: v(mom.colind.len()),
            moment_rownnz: vec![0; mom.rownnz.len()],
            moment_rowadr: vec![0; mom.rowadr.len()],
            moment_colind: vec![0; mom.colind.len()],
            moment_set: false,
            crb: vec![[z; 10]; m.nbody],
            qM: v(m.nM),
            qLD: v(m.nM),
            qLDiagInv: v(m.nv),
            ten_velocity: v(m.ntendon),
            actuator_velocity: v(m.nu),
            cvel: v6(m.nbody),
            cdof_dot: v6(m.nv),
            qfrc_bias: v(m.nv),
            qfrc_spring: v(m.nv),
            qfrc_damper: v(m.nv),
            qfrc_gravcomp: v(m.nv),
            qfrc_passive: v(m.nv),
            actuator_force: v(m.nu),
            ten_actfrc: v(m.ntendon),
            qfrc_actuator: v(m.nv),
            qfrc_smooth: v(m.nv),
            qacc_smooth: v(m.nv),
            qfrc_constraint: v(m.nv),
            qfrc_inverse: v(m.nv),
            cacc: v6(m.nbody),
            cfrc_int: v6(m.nbody),
            cfrc_ext: v6(m.nbody),
            qDeriv: v(m.nD),
            qLU: v(m.nD),
            nefc: 0,
            efc_type: Vec::new(),
            efc_id: Vec::new(),
            efc_J: Vec::new(),
            efc_J_sparse: false,
            efc_J_rownnz: Vec::new(),
            efc_J_rowadr: Vec::new(),
            efc_J_rowsuper: Vec::new(),
            efc_J_colind: Vec::new(),
            sparse_scratch: SparseScratch::new(m, ten, mom),
            dense_row: v(m.nv),
            efc_pos: Vec::new(),
            efc_margin: Vec::new(),
            efc_frictionloss: Vec::new(),
            efc_diagA: Vec::new(),
            efc_KBIP: Vec::new(),
            efc_D: Vec::new(),
            efc_R: Vec::new(),
            efc_vel: Vec::new(),
            efc_aref: Vec::new(),
            efc_b: Vec::new(),
            efc_force: Vec::new(),
            efc_state: Vec::new(),
            efc_solref: Vec::new(),
            efc_solimp: Vec::new(),
            efc_cone: Vec::new(),
            solver: (0..NISLAND).map(|_| Vec::with_capacity(NSOLVER)).collect(),
            solver_niter: [0; NISLAND],
            solver_nnz: {
                let mut n = SolverNnz::default();
                n.reserve(m.nv);
                n
            },
            nisland: 0,
            nidof: 0,
            tree_island: Vec::with_capacity(ntree),
            island_ntree: Vec::with_capacity(ntree),
            island_itreeadr: Vec::with_capacity(ntree),
            map_itree2tree: Vec::with_capacity(ntree),
            dof_island: Vec::with_capacity(m.nv),
            island_nv: Vec::with_capacity(ntree),
            island_idofadr: Vec::with_capacity(ntree),
            island_dofadr: Vec::with_capacity(ntree),
            map_dof2idof: Vec::with_capacity(m.nv),
            map_idof2dof: Vec::with_capacity(m.nv),
            efc_island: Vec::new(),
            island_nefc: Vec::with_capacity(ntree),
            island_iefcadr: Vec::with_capacity(ntree),
            island_ne: Vec::with_capacity(ntree),
            island_nf: Vec::with_capacity(ntree),
            map_efc2iefc: Vec::new(),
            map_iefc2efc: Vec::new(),
            island_scratch: IslandScratch::new(m),
            tree_asleep: vec![AWAKE_RESET; ntree],
            sleep_qpos: v(m.nq),
            solver_scratch: Some(Box::new(SolverScratch::new(m.nv, m.nM))),
            solver_pos_valid: false,
            contact: Vec::with_capacity(contact_capacity(m)),
            nconmax: arena::max_contacts(m),
            ncon_limit: usize::MAX,
            ncon_dropped: 0,
            scratch_broad: Some(Box::new(crate::collision::BroadScratch::for_model(m))),
            scratch_collision: Some(crate::collision::CollisionScratch::for_model(m)),
            maxuse_con: 0,
            maxuse_efc: 0,
            warning: [WarningStat::default(); NWARNING],
            stack_overflow: None,
            userdata: vec![0.0; m.nuserdata],
            sensordata: v(m.nsensordata),
            subtree_linvel: v3(m.nbody),
            subtree_angmom: v3(m.nbody),
            solver_fwdinv: [z; 2],
            energy: [z; 2],
            flg_energypos: false,
            flg_energyvel: false,
            ten_wrapadr: vec![0; m.ntendon],
            ten_wrapnum: vec![0; m.ntendon],
            wrap_obj: vec![0; 2 * m.nwrap],
            wrap_xpos: v3(2 * m.nwrap),
            qfrc_fluid: v(m.nv),
            qfrc_adhesion: v(m.nv),
            scratch_nv: [v(m.nv), v(m.nv), v(m.nv), v(m.nv)],
            scratch_fluid: v(if m.opt.density > 0.0 || m.opt.viscosity > 0.0 {
                18 * m.nv
            } else {
                0
            }),
            scratch_body6: [v6(m.nbody), v6(m.nbody)],
            eq_active: m.eq_active0.clone(),
            qH: v(m.nM),
            qHDiagInv: v(m.nv),
            int_qacc: v(m.nv),
            rk_qpos0: v(m.nq),
            rk_qvel0: v(m.nv),
            rk_act0: v(m.na),
            rk_qacc: v(4 * m.nv),
            rk_k: v(4 * m.nv),
            rk_actdot: v(4 * m.na),
            rk_dv: v(m.nv),
            deriv_cvel: v6(m.nbody),
            deriv_cacc: v6(m.nbody),
            deriv_cfrc: v6(m.nbody),
        };
        d.efc_J_sparse = efc::is_sparse(m);
        d.reserve_arena(arena::reserve(m));
        d.reset_state(m);
        d
    }

    /// Reserves every contact and constraint row the arena can hold ([`arena::Reserve`]), with
    /// the solvers' work space for them, so that no step allocates (MuJoCo sizes its arena once,
    /// at `mj_makeData`). Only address space: `Vec::reserve` does not write the pages.
    fn reserve_arena(&mut self, r: arena::Reserve) {
        fn grow<X>(v: &mut Vec<X>, n: usize) {
            v.reserve(n.saturating_sub(v.len()));
        }
        let (rows, cones) = (r.rows, r.cones);
        grow(&mut self.contact, r.contacts);
        self.scratch_broad
            .get_or_insert_with(Default::default)
            .reserve_pairs(r.pairs);
        grow(&mut self.efc_type, rows);
        grow(&mut self.efc_id, rows);
        grow(&mut self.efc_J, r.jnnz);
        if !r.dense {
            grow(&mut self.efc_J_colind, r.jnnz);
            for v in [
                &mut self.efc_J_rownnz,
                &mut self.efc_J_rowadr,
                &mut self.efc_J_rowsuper,
            ] {
                grow(v, rows);
            }
        }
        for v in self.efc_values() {
            grow(v, rows);
        }
        grow(&mut self.efc_KBIP, rows);
        grow(&mut self.efc_state, rows);
        grow(&mut self.efc_solref, rows);
        grow(&mut self.efc_solimp, rows);
        grow(&mut self.efc_cone, cones);
        for v in [
            &mut self.map_efc2iefc,
            &mut self.map_iefc2efc,
            self.island_scratch.efc_tree_mut(),
        ] {
            grow(v, rows);
        }
        grow(&mut self.efc_island, rows);
        self.island_scratch.reserve(rows);
        let (nv, nm) = (self.qvel.len(), self.qM.len());
        let s = self.solver_scratch_mut();
        s.reserve_entries(nv, nm, rows, cones, r.jnnz);
        if r.ar > 0 {
            grow(&mut s.AR, r.ar);
            grow(&mut s.B, r.jnnz);
            grow(&mut s.B_colind, r.jnnz);
        }
    }

    /// Resets the state to `qpos0`, zero velocity, activation, control and applied forces, and
    /// mocap bodies to their model poses, every tree awake: `mj_resetData` without its pass
    /// over the `sleep="init"` trees ([`Data::reset`], in `crate::reset`, adds it).
    pub(crate) fn reset_state(&mut self, m: &Model) {
        let z = T::zero();
        self.time = z;
        for (q, q0) in self.qpos.iter_mut().zip(&m.qpos0) {
            *q = sc(*q0);
        }
        for x in self
            .qvel
            .iter_mut()
            .chain(self.act.iter_mut())
            .chain(self.qacc_warmstart.iter_mut())
            .chain(self.ctrl.iter_mut())
            .chain(self.qfrc_applied.iter_mut())
            .chain(self.qacc.iter_mut())
            .chain(self.act_dot.iter_mut())
        {
            *x = z;
        }
        for f in self.xfrc_applied.iter_mut() {
            *f = Vector6::zeros();
        }
        self.reset_mocap(m);
        self.warning = [WarningStat::default(); NWARNING];
        self.stack_overflow = None;
        self.maxuse_con = 0;
        self.maxuse_efc = 0;
        self.userdata.fill(0.0);
        self.energy = [z; 2];
        self.flg_energypos = false;
        self.flg_energyvel = false;
        self.eq_active.clear();
        self.eq_active.extend_from_slice(&m.eq_active0);
        self.solver_pos_valid = false;
        self.solver_nnz.set([0; NISLAND]);
        self.solver_niter = [0; NISLAND];
        for v in self.solver.iter_mut() {
            v.clear();
        }
        self.tree_asleep.fill(AWAKE_RESET);
        self.clear_derived();
    }

    /// Zeroes every field a step computes, as `mj_resetData` clears its whole buffer (measured
    /// on MuJoCo 4.0.0 field by field, `tests/reference/reset_fields.json`): poses, matrices
    /// and quaternions are all zeros (not the identity), there are no contacts, rows or islands
    /// (`tree_island`, `dof_island` −1), the solver's statistics and energies are zero. Only
    /// lengths within the capacity `Data::alloc` reserved change, so nothing is allocated.
    fn clear_derived(&mut self) {
        let z = T::zero();
        let zq = Quaternion::new(z, z, z, z);
        for v in [
            &mut self.qacc_smooth,
            &mut self.qfrc_smooth,
            &mut self.ten_length,
            &mut self.ten_J,
            &mut self.actuator_length,
            &mut self.actuator_moment,
            &mut self.qM,
            &mut self.qLD,
            &mut self.qLDiagInv,
            &mut self.ten_velocity,
            &mut self.actuator_velocity,
            &mut self.qfrc_bias,
            &mut self.qfrc_spring,
            &mut self.qfrc_damper,
            &mut self.qfrc_gravcomp,
            &mut self.qfrc_passive,
            &mut self.actuator_force,
            &mut self.ten_actfrc,
            &mut self.qfrc_actuator,
            &mut self.qfrc_constraint,
            &mut self.qfrc_inverse,
            &mut self.qDeriv,
            &mut self.qLU,
            &mut self.sensordata,
            &mut self.qfrc_fluid,
            &mut self.qfrc_adhesion,
            &mut self.qH,
            &mut self.qHDiagInv,
        ] {
            v.fill(z);
        }
        for v in [
            &mut self.xpos,
            &mut self.xipos,
            &mut self.xanchor,
            &mut self.xaxis,
            &mut self.geom_xpos,
            &mut self.site_xpos,
            &mut self.cam_xpos,
            &mut self.light_xpos,
            &mut self.light_xdir,
            &mut self.subtree_com,
            &mut self.subtree_linvel,
            &mut self.subtree_angmom,
            &mut self.wrap_xpos,
        ] {
            v.fill(Vector3::zeros());
        }
        for v in [
            &mut self.xmat,
            &mut self.ximat,
            &mut self.geom_xmat,
            &mut self.site_xmat,
            &mut self.cam_xmat,
        ] {
            v.fill(Matrix3::zeros());
        }
        self.xquat.fill(zq);
        for v in [&mut self.cinert, &mut self.crb] {
            v.fill([z; 10]);
        }
        for v in [
            &mut self.cdof,
            &mut self.cvel,
            &mut self.cdof_dot,
            &mut self.cacc,
            &mut self.cfrc_int,
            &mut self.cfrc_ext,
        ] {
            v.fill(Vector6::zeros());
        }
        self.solver_fwdinv = [z; 2];
        self.set_moment_rows(false);
        self.ten_wrapadr.fill(0);
        self.ten_wrapnum.fill(0);
        self.wrap_obj.fill(0);
        // no contacts, rows or islands
        self.contact.clear();
        self.ncon_dropped = 0;
        self.drop_rows(self.qvel.len());
        self.clear_islands();
    }

    /// No islands, as after `mj_resetData`: `nisland`, `nidof` 0, the per-island and per-row
    /// arrays empty, `tree_island` and `dof_island` −1, the maps over trees and dofs zero; the
    /// island discovery's kept result is gone with them (its next call computes them again).
    pub(crate) fn clear_islands(&mut self) {
        self.nisland = 0;
        self.nidof = 0;
        for v in [
            &mut self.island_ntree,
            &mut self.island_itreeadr,
            &mut self.island_nv,
            &mut self.island_idofadr,
            &mut self.island_dofadr,
            &mut self.island_nefc,
            &mut self.island_iefcadr,
            &mut self.island_ne,
            &mut self.island_nf,
            &mut self.map_efc2iefc,
            &mut self.map_iefc2efc,
        ] {
            v.clear();
        }
        self.efc_island.clear();
        let (ntree, nv) = (self.tree_asleep.len(), self.qvel.len());
        for (v, n) in [
            (&mut self.map_itree2tree, ntree),
            (&mut self.map_dof2idof, nv),
            (&mut self.map_idof2dof, nv),
        ] {
            v.clear();
            v.resize(n, 0);
        }
        self.tree_island.clear();
        self.tree_island.resize(ntree, -1);
        self.dof_island.clear();
        self.dof_island.resize(nv, -1);
        self.island_scratch.done = None;
    }

    /// `qpos` when each sleeping tree fell asleep (with `tree_asleep`, the sleep state a step
    /// carries to the next; [`crate::sleep::wake_changed_into`]). Entries of awake trees are
    /// stale and read by nothing.
    pub fn sleep_qpos(&self) -> &[T] {
        &self.sleep_qpos
    }

    /// [`Data::sleep_qpos`], to load a sleep state saved from another `Data` of the model.
    pub fn sleep_qpos_mut(&mut self) -> &mut [T] {
        &mut self.sleep_qpos
    }

    /// Whether `moment_rownnz`, `moment_rowadr` and `moment_colind` hold what the transmission
    /// stage computes: as MuJoCo's `mj_transmission` writes them and its reset zeroes them,
    /// they are zero from [`Data::new`] or a reset to the next transmission stage.
    pub fn moment_rows_set(&self) -> bool {
        self.moment_set
    }

    /// Writes the model's moment pattern into `moment_rownnz`, `moment_rowadr` and
    /// `moment_colind` (`set`), as the transmission stage does, or zeroes them as a reset does;
    /// for a `Data` restored from a saved one. Allocates nothing.
    pub fn set_moment_rows(&mut self, set: bool) {
        self.moment_set = set;
        let s = &self.sparse_scratch;
        for (dst, src) in [
            (&mut self.moment_rownnz, &s.moment_rownnz),
            (&mut self.moment_rowadr, &s.moment_rowadr),
            (&mut self.moment_colind, &s.moment_colind),
        ] {
            if set {
                dst.copy_from_slice(src);
            } else {
                dst.fill(0);
            }
        }
    }

    /// Puts the mocap bodies at their model poses (`body_pos`, `body_quat`), as a reset does.
    pub(crate) fn reset_mocap(&mut self, m: &Model) {
        for b in 0..m.nbody {
            if let Ok(id) = usize::try_from(m.body_mocapid[b]) {
                let p = m.body_pos[b];
                let qq = m.body_quat[b];
                self.mocap_pos[id] = Vector3::new(sc(p[0]), sc(p[1]), sc(p[2]));
                self.mocap_quat[id] = Quaternion::new(sc(qq[0]), sc(qq[1]), sc(qq[2]), sc(qq[3]));
            }
        }
    }

    /// The last solve's statistics of `island`: its first `solver_niter[island]` entries of
    /// [`Data::solver`] (at most [`NSOLVER`]).
    pub fn solver_stats(&self, island: usize) -> &[SolverStat] {
        match (self.solver.get(island), self.solver_niter.get(island)) {
            (Some(v), Some(&n)) => &v[..n.min(v.len())],
            _ => &[],
        }
    }

    /// Loads keyframe `k` (`k < m.nkey`) into a reset state, the second half of
    /// `mj_resetDataKeyframe` ([`Data::reset_keyframe`], in `crate::reset`): time, qpos, qvel,
    /// act, ctrl, mocap pose. Components a keyframe leaves empty keep their reset values.
    pub(crate) fn load_keyframe(&mut self, m: &Model, k: usize) {
        fn load<T: Scalar>(dst: &mut [T], src: Option<&Vec<f64>>) {
            if let Some(s) = src.filter(|s| s.len() == dst.len()) {
                for (x, y) in dst.iter_mut().zip(s) {
                    *x = sc(*y);
                }
            }
        }
        self.time = sc(m.key_time.get(k).copied().unwrap_or(0.0));
        load(&mut self.qpos, m.key_qpos.get(k));
        load(&mut self.qvel, m.key_qvel.get(k));
        load(&mut self.act, m.key_act.get(k));
        load(&mut self.ctrl, m.key_ctrl.get(k));
        if let Some(p) = m.key_mpos.get(k).filter(|p| p.len() == 3 * m.nmocap) {
            for (i, c) in p.chunks_exact(3).enumerate() {
                self.mocap_pos[i] = Vector3::new(sc(c[0]), sc(c[1]), sc(c[2]));
            }
        }
        if let Some(q) = m.key_mquat.get(k).filter(|q| q.len() == 4 * m.nmocap) {
            for (i, c) in q.chunks_exact(4).enumerate() {
                self.mocap_quat[i] = Quaternion::new(sc(c[0]), sc(c[1]), sc(c[2]), sc(c[3]));
            }
        }
    }

    /// Drops every constraint row (`nefc = 0`, an empty Jacobian, no contact's `efc_address`),
    /// as a step does when its rows do not fit in the arena or it stops before making them.
    pub(crate) fn drop_rows(&mut self, nv: usize) {
        self.resize_efc(nv, 0, 0);
        self.efc_J.clear();
        self.efc_J_colind.clear();
        for c in self.contact.iter_mut() {
            c.efc_address = -1;
        }
    }

    /// Sets `nefc` and resizes every `efc_*` array (new entries zeroed) and `efc_cone` to
    /// `ncone` entries; allocates only when the previous capacity is exceeded.
    #[inline]
    pub fn resize_efc(&mut self, nv: usize, nefc: usize, ncone: usize) {
        if nefc == 0 && ncone == 0 {
            self.clear_efc();
        } else {
            self.grow_efc(nv, nefc, ncone);
        }
    }

    /// [`Data::resize_efc`] without rows (a model without constraints: every forward): the
    /// arrays are emptied and the solver, which does not run without rows, keeps its work
    /// space as it is (it reserves its room when rows come). Apart from [`Data::grow_efc`], so
    /// that this frequent path pays only for its own few stores.
    fn clear_efc(&mut self) {
        self.solver_pos_valid = false;
        self.nefc = 0;
        self.efc_type.clear();
        self.efc_id.clear();
        if self.efc_J_sparse {
            self.efc_J_rownnz.clear();
            self.efc_J_rowadr.clear();
            self.efc_J_rowsuper.clear();
        } else {
            self.efc_J.clear();
        }
        for v in self.efc_values() {
            v.clear();
        }
        self.efc_KBIP.clear();
        self.efc_state.clear();
        self.efc_solref.clear();
        self.efc_solimp.clear();
        self.efc_cone.clear();
        // (the solver's per-row arrays are emptied as `resize(0, 0)` would; its nonzero
        // counts' room is reserved with rows, the only time the solver runs)
        if let Some(s) = self.solver_scratch.as_deref_mut() {
            s.clear_rows();
        }
    }

    /// [`Data::resize_efc`] with rows.
    #[inline(never)]
    fn grow_efc(&mut self, nv: usize, nefc: usize, ncone: usize) {
        let z = T::zero();
        self.solver_pos_valid = false;
        self.nefc = nefc;
        self.efc_type.resize(nefc, ConstraintType::Equality);
        self.efc_id.resize(nefc, 0);
        if self.efc_J_sparse {
            // values and columns are appended row by row by the assembly
            for v in [
                &mut self.efc_J_rownnz,
                &mut self.efc_J_rowadr,
                &mut self.efc_J_rowsuper,
            ] {
                v.resize(nefc, 0);
            }
        } else {
            self.efc_J.resize(nefc * nv, z);
        }
        for v in self.efc_values() {
            v.resize(nefc, z);
        }
        self.efc_KBIP.resize(nefc, [z; 4]);
        self.efc_state.resize(nefc, ConstraintState::Satisfied);
        self.efc_solref.resize(nefc, [z; 2]);
        self.efc_solimp.resize(nefc, [z; 5]);
        let c0 = EfcCone {
            adr: 0,
            nrow: 0,
            dim: 0,
            friction: [z; 5],
            mu: z,
            solreffriction: [z; 2],
        };
        self.efc_cone.resize(ncone, c0);
        let nm = self.qM.len();
        let dense_j = !self.efc_J_sparse;
        let s = self.solver_scratch_mut();
        s.resize(nefc, ncone);
        s.reserve(nv, nm, nefc, ncone, dense_j);
        self.solver_nnz.reserve(nv);
        for v in [
            &mut self.map_efc2iefc,
            &mut self.map_iefc2efc,
            self.island_scratch.efc_tree_mut(),
        ] {
            v.reserve(nefc.saturating_sub(v.len()));
        }
        self.efc_island
            .reserve(nefc.saturating_sub(self.efc_island.len()));
        self.island_scratch.reserve(nefc);
    }

    /// The per-row value arrays `efc_pos` … `efc_force` (one scalar a row).
    fn efc_values(&mut self) -> [&mut Vec<T>; 10] {
        [
            &mut self.efc_pos,
            &mut self.efc_margin,
            &mut self.efc_frictionloss,
            &mut self.efc_diagA,
            &mut self.efc_D,
            &mut self.efc_R,
            &mut self.efc_vel,
            &mut self.efc_aref,
            &mut self.efc_b,
            &mut self.efc_force,
        ]
    }

    /// Reserves the work space of the PGS and noslip solvers (`A + R`, `nefc × nefc`, and the
    /// rows of `B = J L⁻¹ D^(−1/2)`, at most `nefc × nv` entries), which they otherwise grow on
    /// first use, for up to `nefc` rows: with [`Data::resize_efc`] to the same high-water mark,
    /// stepping then allocates nothing.
    pub fn reserve_dense_solver(&mut self, nv: usize, nefc: usize) {
        let s = self.solver_scratch_mut();
        s.AR.reserve(nefc * nefc);
        s.B.reserve(nefc * nv);
        s.B_colind.reserve(nefc * nv);
        s.B_key.reserve(2 + nv + nefc + nefc * nv);
    }

    /// The solver's work space (`solver_scratch`).
    pub(crate) fn solver_scratch_mut(&mut self) -> &mut SolverScratch<T> {
        self.solver_scratch.get_or_insert_with(Default::default)
    }

    /// Records a warning (mj_warning): reports it to the warning handler if its counter is
    /// zero (the first since the last reset), then increments the counter and stores `info`.
    pub fn warn(&mut self, w: Warning, info: i64) {
        self.announce(w, info);
        self.count_warning(w, info);
    }

    /// The report half of [`Data::warn`]: the handler gets `w`'s text at the current time if
    /// `w`'s counter is zero. The divergence checks report before they reset the state and count
    /// after it, as `mj_checkPos` does.
    pub fn announce(&self, w: Warning, info: i64) {
        if self.warning[w as usize].number == 0 {
            warning::report(w, info, self.time.to_subset().unwrap_or(f64::NAN));
        }
    }

    /// The count half of [`Data::warn`]: increments `w`'s counter and stores `info`.
    pub fn count_warning(&mut self, w: Warning, info: i64) {
        let s = &mut self.warning[w as usize];
        s.lastinfo = info;
        s.number += 1;
    }
}
