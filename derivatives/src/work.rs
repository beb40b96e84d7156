//! The workspace shared by the analytic derivatives: buffers of the RNE's `∂/∂q`
//! (`crate::rne`), of the constraint force's `∂/∂q` (`crate::constraint_pos`), of the forward
//! and transition Jacobians' linear algebra (`crate::forward`), and a reusable `Data<Dual64>` for
//! the dual passes over single stages. Plain data: the modules that use a buffer own its
//! meaning; this module depends on no other analytic module, so none of them forms an import
//! circle through the workspace.

use moreau::data::Contact;
use moreau::model::Model;
use moreau::pipeline::CollisionScratch;
use moreau::Data;
use nalgebra::{DMatrix, Matrix3, Matrix6, Vector3, Vector6};
use num_dual::Dual64;

type V6 = Vector6<f64>;

/// Workspace of the analytic derivatives (`crate::rne`'s `d_smooth_pos` and `d_mass_pos`, the
/// constraint `∂/∂q`, the transition Jacobians): no allocation after the first call.
#[derive(Default)]
pub struct Work {
    pub(crate) u: Vec<V6>,
    pub(crate) al: Vec<V6>,
    pub(crate) grp: Vec<usize>,
    pub(crate) acc: Vec<V6>,
    pub(crate) h: Vec<V6>,
    pub(crate) ia: Vec<V6>,
    pub(crate) frc: Vec<V6>,
    pub(crate) df: Vec<V6>,
    pub(crate) last: Vec<usize>,
    /// Per body: whether a dof moves it (one on its root path); the others' forces reach no
    /// joint, so the recursions of `crate::rne` skip them. Built with `last`.
    pub(crate) moving: Vec<bool>,
    pub(crate) fw: Vec<Vector3<f64>>,
    pub(crate) crb: Vec<[f64; 10]>,
    pub(crate) cs: Vec<V6>,
    pub(crate) vel: Vec<V6>,
    /// The `∂M/∂q · x` part of a fused pass ([`d_smooth_mass_pos`]): body accelerations,
    /// `α_j`, `I a` and subtree forces of `M(q) x`.
    pub(crate) acc2: Vec<V6>,
    pub(crate) al2: Vec<V6>,
    pub(crate) ia2: Vec<V6>,
    pub(crate) frc2: Vec<V6>,
    /// Per body the composite (subtree) spatial inertia and the composite matrices of the
    /// parts of the RNE force derivative that are linear in a motion vector
    /// ([`crate::rne::d_bias_vel`]); per dof the rows they give after the projection on `cdof`.
    pub(crate) ic: Vec<[f64; 10]>,
    pub(crate) gc: Vec<Matrix6<f64>>,
    pub(crate) pk: Vec<[V6; 2]>,
    /// The composite velocity maps `Σ B_b` of [`crate::rne::d_bias_vel`] (its `G = −B`), with
    /// the velocity and inertia of every body they were formed from and whether they are set:
    /// [`crate::rne::d_smooth_pos`] reuses them when its own bodies' velocities and inertias
    /// are the same bits.
    pub(crate) gv: Vec<Matrix6<f64>>,
    pub(crate) gv_vel: Vec<V6>,
    pub(crate) gv_inert: Vec<[f64; 10]>,
    pub(crate) gv_set: bool,
    /// The same for the position derivative ([`crate::rne::d_smooth_pos`]): the composite
    /// velocity-term matrices, those of `∂(M x)/∂q`, and the per-dof rows of both.
    pub(crate) gb: Vec<Matrix6<f64>>,
    pub(crate) g2: Vec<Matrix6<f64>>,
    pub(crate) pr: Vec<[V6; 4]>,
    pub(crate) pr2: Vec<[V6; 2]>,
    /// `∂qfrc_bias/∂qvel` (row-major `nv × nv`) from the composites of a position pass with
    /// velocities (`crate::rne`'s `d_rne_pos`), written there when `bias_vel_want` is set and
    /// marked by `bias_vel_ready` until [`crate::inverse::neg_dfdv_into`] takes it (the
    /// transition's `∂qacc/∂x` asks for it: the same composite inertias, velocity matrices and
    /// per-dof rows as [`crate::rne::d_bias_vel`] builds).
    pub(crate) bias_vel: Vec<f64>,
    pub(crate) bias_vel_want: bool,
    pub(crate) bias_vel_ready: bool,
    /// Workspace of [`crate::constraint_pos`] (used by [`crate::inverse_pos::d_pos`]).
    pub(crate) cons: ConstraintWork,
    /// A `Data<Dual64>` reused by the dual passes over single stages (actuation, a pair's
    /// collider), created on first use.
    pub(crate) dual: Option<moreau::Data<num_dual::Dual64>>,
    /// A `Data<f64>` reused for the RK4 stages' forward passes (`crate::transition_rk4`),
    /// created on first use: `clone_from` into it allocates nothing.
    pub(crate) stage: Option<moreau::Data<f64>>,
    /// Buffers of the transition Jacobians' linear algebra ([`crate::transition`](mod@crate::transition)).
    pub(crate) lin: Lin,
    /// Buffers of the noslip derivative (`crate::noslip`).
    pub(crate) noslip: NoslipWork,
    /// The model the model-dependent parts (`dual`, `last`) were built for.
    pub(crate) key: ModelKey,
}

/// Sizes and copies of the structure arrays of the model a [`Work`] was built for: what
/// `Data::new` builds from besides sizes (the dof trees of the island scratch, the tendon wrap
/// chains of the sparse scratch) and `Work`'s `last` (`body_parentid`). A workspace reused
/// with another model rebuilds instead of indexing out of bounds or silently using the old
/// tree. Checking is a few short slice comparisons; copying (allocating) only on a change.
#[derive(Default)]
pub(crate) struct ModelKey {
    pub(crate) sizes: [usize; 16],
    pub(crate) body_parentid: Vec<usize>,
    pub(crate) body_dofadr: Vec<usize>,
    pub(crate) body_dofnum: Vec<usize>,
    pub(crate) dof_parentid: Vec<i32>,
    pub(crate) jnt_dofadr: Vec<usize>,
    pub(crate) geom_bodyid: Vec<usize>,
    pub(crate) site_bodyid: Vec<usize>,
    pub(crate) tendon_adr: Vec<usize>,
    pub(crate) tendon_num: Vec<usize>,
    pub(crate) wrap_objid: Vec<i32>,
    pub(crate) wrap_type: Vec<moreau::model::WrapType>,
}

fn sizes(m: &Model) -> [usize; 16] {
    [
        m.nq,
        m.nv,
        m.na,
        m.nu,
        m.nbody,
        m.njnt,
        m.ngeom,
        m.nsite,
        m.ncam,
        m.ntendon,
        m.nwrap,
        m.neq,
        m.nsensordata,
        m.nmocap,
        m.npair,
        m.nM,
    ]
}

impl ModelKey {
    /// True if `m` has the recorded sizes and structure.
    pub(crate) fn matches(&self, m: &Model) -> bool {
        self.sizes == sizes(m)
            && self.body_parentid == m.body_parentid
            && self.body_dofadr == m.body_dofadr
            && self.body_dofnum == m.body_dofnum
            && self.dof_parentid == m.dof_parentid
            && self.jnt_dofadr == m.jnt_dofadr
            && self.geom_bodyid == m.geom_bodyid
            && self.site_bodyid == m.site_bodyid
            && self.tendon_adr == m.tendon_adr
            && self.tendon_num == m.tendon_num
            && self.wrap_objid == m.wrap_objid
            && self.wrap_type == m.wrap_type
    }

    /// Records `m`.
    pub(crate) fn set(&mut self, m: &Model) {
        self.sizes = sizes(m);
        self.body_parentid.clone_from(&m.body_parentid);
        self.body_dofadr.clone_from(&m.body_dofadr);
        self.body_dofnum.clone_from(&m.body_dofnum);
        self.dof_parentid.clone_from(&m.dof_parentid);
        self.jnt_dofadr.clone_from(&m.jnt_dofadr);
        self.geom_bodyid.clone_from(&m.geom_bodyid);
        self.site_bodyid.clone_from(&m.site_bodyid);
        self.tendon_adr.clone_from(&m.tendon_adr);
        self.tendon_num.clone_from(&m.tendon_num);
        self.wrap_objid.clone_from(&m.wrap_objid);
        self.wrap_type.clone_from(&m.wrap_type);
    }
}

impl Work {
    /// Drops what was built for another model than `m` (rebuilt on use).
    pub(crate) fn fit(&mut self, m: &Model) {
        if !self.key.matches(m) {
            self.key.set(m);
            self.dual = None;
            self.stage = None;
            self.last.clear();
            self.gv_set = false;
        }
    }

    /// The reusable `Data<Dual64>` of model `m` (created on first use and when the model
    /// changes).
    pub(crate) fn dual_data(&mut self, m: &Model) -> &mut moreau::Data<num_dual::Dual64> {
        self.fit(m);
        self.dual
            .get_or_insert_with(|| moreau::Data::<num_dual::Dual64>::new(m))
    }

    /// The reusable `Data<Dual64>` with the inputs of `d` ([`crate::dual::lift_into`]).
    pub(crate) fn dual_of(
        &mut self,
        m: &Model,
        d: &Data<f64>,
    ) -> &mut moreau::Data<num_dual::Dual64> {
        let dd = self.dual_data(m);
        crate::dual::lift_into(d, dd);
        dd
    }
}

/// Contact-geometry outputs per pose direction: dist, pos (3), frame (9, row-major).
pub(crate) const NG: usize = 13;

/// Per contact with rows: what every tangent direction `j` reuses (`crate::constraint_pos::add_constraint_pos`).
#[derive(Clone, Copy)]
pub(crate) struct Cp {
    /// Contact index, first row, number of rows.
    pub(crate) ci: usize,
    pub(crate) r0: usize,
    pub(crate) nrow: usize,
    /// The two geoms' bodies and their slots in [`Work::cb`] (`usize::MAX`: no dof moves it).
    pub(crate) body: [usize; 2],
    pub(crate) slot: [usize; 2],
    /// Contact point relative to each body's frozen reference point (its root's subtree COM).
    pub(crate) r: [Vector3<f64>; 2],
    /// Per side, `∂(dist, pos, frame)/∂S` (13 × 6 row-major, `S = [ω; v]` a rigid motion of the
    /// side's geom about the reference point): the geometry Jacobian chained with the pose map.
    pub(crate) gp: [[f64; NG * 6]; 2],
    /// Whether all rows share one `B` (then `a + B v` is differentiated once).
    pub(crate) one_b: bool,
    pub(crate) b: f64,
    /// Per velocity field (`a + B v`, or `a` and `v`): relative point velocity `Σ s (v + ω × r)`
    /// and angular velocity `Σ s ω` (world frame, `s = ±1` for the second/first geom).
    pub(crate) dvp: [Vector3<f64>; 2],
    pub(crate) dom: [Vector3<f64>; 2],
    /// Contact-frame force and torque, the world force `φ`, the frame.
    pub(crate) fct: Vector3<f64>,
    pub(crate) fcr: Vector3<f64>,
    pub(crate) phi: Vector3<f64>,
    pub(crate) frame: Matrix3<f64>,
}

/// Workspace of `crate::constraint_pos::add_constraint_pos` (no allocation after the first call
/// at a given size).
#[derive(Default)]
pub struct ConstraintWork {
    pub(crate) out: Vec<Contact<Dual64>>,
    /// The narrow phase's working storage for the dual collider runs.
    pub(crate) collision: CollisionScratch,
    /// Per contact: `NG × 12` geometry Jacobian (row-major by output) and whether it is set.
    pub(crate) geo: Vec<[f64; NG * 12]>,
    pub(crate) va: Vec<V6>,
    pub(crate) vv: Vec<V6>,
    pub(crate) ua: Vec<V6>,
    pub(crate) uv: Vec<V6>,
    pub(crate) wtot: Vec<V6>,
    pub(crate) cp: Vec<Cp>,
    /// Bodies of contact geoms moved by some dof, and their per-direction wrench derivatives.
    pub(crate) cb: Vec<usize>,
    pub(crate) cacc: Vec<V6>,
    pub(crate) ctouch: Vec<bool>,
    /// The constant-J rows expanded (row `r` at `r nv`, `nefc × nv`).
    pub(crate) jd: Vec<f64>,
    /// Per row: `K (imp + imp' (pos − margin))`, `f ρ`, the column range of its block of `H`,
    /// and whether `J` is constant (limits, equalities, friction loss).
    pub(crate) kf: Vec<f64>,
    pub(crate) frho: Vec<f64>,
    pub(crate) hblk: Vec<(usize, usize)>,
    pub(crate) cst: Vec<usize>,
    /// Per direction: `∂jar`, `∂r`, `∂f` and the contacts it moves.
    pub(crate) touched: Vec<bool>,
    pub(crate) djar: Vec<f64>,
    pub(crate) dr: Vec<f64>,
    pub(crate) dfm: Vec<f64>,
    /// `(H, f)` of the current state if the caller already has them (taken by the next call).
    pub(crate) pre: Option<(DMatrix<f64>, Vec<f64>)>,
    /// The storage of the last `(H, f)` after use, and the scratch that computes them.
    pub(crate) spare: Option<(DMatrix<f64>, Vec<f64>)>,
    pub(crate) hessian: HessianScratch,
    /// Set by the noslip derivative (`crate::noslip`) for one call: record each direction's
    /// `∂jar` and `∂r` (the impedance argument, a contact's distance) of every row into
    /// `rec_djar`, `rec_dr` (`nefc × nv` column-major: direction `j` at `j nefc`), and with
    /// `no_rho` leave out the impedance term `f ρ ∂r` (for a force that is not the soft model's:
    /// with `H = 0` the call forms `∂Jᵀ f` alone).
    pub(crate) rec: bool,
    pub(crate) no_rho: bool,
    pub(crate) rec_djar: Vec<f64>,
    pub(crate) rec_dr: Vec<f64>,
}

/// Buffers of the noslip derivative, reused across calls.
#[derive(Default)]
pub(crate) struct NoslipWork {
    /// The main solver's solution at the state (a copy of the caller's `Data`).
    pub(crate) d0: Option<Data<f64>>,
    pub(crate) h0: DMatrix<f64>,
    pub(crate) f0: Vec<f64>,
    pub(crate) hz: DMatrix<f64>,
    pub(crate) delta: Vec<f64>,
    pub(crate) djar0: Vec<f64>,
    pub(crate) ddist: Vec<f64>,
    pub(crate) djar: Vec<f64>,
    pub(crate) jd: Vec<f64>,
    pub(crate) mld: Vec<f64>,
    pub(crate) mldi: Vec<f64>,
    pub(crate) dm: DMatrix<f64>,
    pub(crate) djt: DMatrix<f64>,
    pub(crate) df0: Vec<f64>,
    pub(crate) e: Vec<f64>,
    pub(crate) y: Vec<f64>,
    pub(crate) jar: Vec<f64>,
    pub(crate) vars: Vec<NoslipVar>,
    pub(crate) cones: Vec<(usize, usize, usize, f64)>,
    pub(crate) g: Vec<f64>,
    pub(crate) mg: Vec<f64>,
    pub(crate) tmp: Vec<f64>,
}

/// A noslip variable: `f += s (e_p − e_m)` (`m` = `usize::MAX`: `f += s e_p`).
#[derive(Clone, Copy)]
pub(crate) struct NoslipVar {
    pub(crate) p: usize,
    pub(crate) m: usize,
}

impl NoslipVar {
    pub(crate) fn dot(&self, x: &[f64]) -> f64 {
        self.diff(|r| x[r])
    }

    /// `f(p) − f(m)`, or `f(p)` without `m` (the same value as `f(p) − 0`).
    pub(crate) fn diff(&self, f: impl Fn(usize) -> f64) -> f64 {
        if self.m == usize::MAX {
            f(self.p)
        } else {
            f(self.p) - f(self.m)
        }
    }
}

/// Buffers of the linear algebra of the transition Jacobians (`crate::forward`), reused across calls.
#[derive(Default)]
pub struct Lin {
    /// `nv × (2nv + na + nu)` row-major: `−∂g/∂x`, then `∂qacc/∂x`, then `∂a_int/∂x`.
    pub(crate) x: Vec<f64>,
    /// Same shape (the eulerdamp correction).
    pub(crate) y: Vec<f64>,
    /// `M + JᵀHJ` in qM's layout and its LᵀDL factor (`Lin::hessian_tree`), or its dense
    /// LᵀDL factor.
    pub(crate) ld: Vec<f64>,
    pub(crate) ldi: Vec<f64>,
    /// Whether `ld` holds the tree-sparse factor (else the dense LᵀDL factor of
    /// `crate::rows::ld_factor_dense`, `nv × nv` row-major, `ldi` its `D⁻¹`).
    pub(crate) tree: bool,
    /// Scratch of the dense factor and its solve.
    pub(crate) nz: Vec<usize>,
    pub(crate) dense: crate::rows::DenseScratch,
    /// `M + h diag(damping)` factored (eulerdamp).
    pub(crate) he: Vec<f64>,
    pub(crate) hei: Vec<f64>,
    /// Constraint rows expanded (`nefc × nv`).
    pub(crate) jd: Vec<f64>,
    /// Per constraint row of `jd` its nonzero dofs (ascending) and `[start, end, lo, hi]`:
    /// their range in `jd_nz` and the span from the first to past the last
    /// (`crate::rows::add_jhj`).
    pub(crate) jd_nz: Vec<usize>,
    pub(crate) jd_span: Vec<[usize; 4]>,
    /// `nv × nv` scratch.
    pub(crate) buf: Vec<f64>,
    /// Two rows of `nv` (`moreau::pipeline::d_tendon_actfrc_vel`'s scratch).
    pub(crate) rows2: Vec<f64>,
    pub(crate) solve: crate::rows::Scratch,
    /// `∂g/∂q` and `∂M/∂q · (qacc − a_int)` (`crate::forward`'s `q_pass`).
    pub(crate) qdg: DMatrix<f64>,
    pub(crate) qdmx: DMatrix<f64>,
    /// `[A | B]` row-major (`(2nv + na) × (2nv + na + nu)`).
    pub(crate) ab: Vec<f64>,
    /// The last analytic one-step linearization, kept for [`crate::Workspace::transition_params`]:
    /// `a_int`, `v' = v + h a_int`, and how `He a_int = M qacc` is solved (`None` when the
    /// last transition was not an analytic Euler or implicit(fast) step).
    pub(crate) step: Option<StepLin>,
    /// `∂qfrc_actuator/∂(act, u)` (`nv × (na + nu)`), and `rows_on_chains`' per-row leaf dof
    /// and single-body flag.
    pub(crate) fa: DMatrix<f64>,
    pub(crate) leaf: Vec<Option<usize>>,
    pub(crate) single: Vec<bool>,
    /// Vectors of [`crate::transition::forwarded`] kept between calls (no allocation once
    /// sized): the damping slopes, `qacc`, `a_int`, `qacc − a_int`, the eulerdamp solve, and
    /// the last [`StepLin`]'s `a_int` and `v'` storage while no step is kept.
    pub(crate) vecs: StepVecs,
}

/// See [`Lin::vecs`].
pub(crate) struct StepVecs {
    pub(crate) slope: Vec<f64>,
    pub(crate) qacc: nalgebra::DVector<f64>,
    pub(crate) aint: nalgebra::DVector<f64>,
    pub(crate) diff: nalgebra::DVector<f64>,
    pub(crate) x: Vec<f64>,
    pub(crate) step_aint: Vec<f64>,
    pub(crate) step_vnew: Vec<f64>,
}

impl Default for StepVecs {
    fn default() -> Self {
        StepVecs {
            slope: Vec::new(),
            qacc: nalgebra::DVector::zeros(0),
            aint: nalgebra::DVector::zeros(0),
            diff: nalgebra::DVector::zeros(0),
            x: Vec::new(),
            step_aint: Vec::new(),
            step_vnew: Vec::new(),
        }
    }
}

/// `v` resized to `n` (a new vector only when the length changes; the entries are the caller's
/// to write).
pub(crate) fn sized(v: &mut nalgebra::DVector<f64>, n: usize) {
    if v.len() != n {
        *v = nalgebra::DVector::zeros(n);
    }
}

/// `a` as a zero `r × c` matrix, in its own storage when that is large enough (a shape change
/// allocates only when the matrix grows beyond its largest size so far).
pub(crate) fn zeroed(a: &mut nalgebra::DMatrix<f64>, r: usize, c: usize) {
    if a.shape() == (r, c) {
        // (over the storage: the element iterator of `fill` costs more per entry; column by
        // column: short fills stay vector stores, one long fill runs as `rep stosb`)
        for col in a.as_mut_slice().chunks_mut(r.max(1)) {
            col.fill(0.0);
        }
        return;
    }
    let mut v: Vec<f64> = std::mem::replace(a, nalgebra::DMatrix::zeros(0, 0))
        .data
        .into();
    v.clear();
    v.resize(r * c, 0.0);
    *a = nalgebra::DMatrix::from_vec(r, c, v);
}

impl Lin {
    /// Drops the kept step ([`Lin::step`]), keeping its vectors' storage for the next one.
    pub(crate) fn clear_step(&mut self) {
        if let Some(s) = self.step.take() {
            self.vecs.step_aint = s.aint;
            self.vecs.step_vnew = s.vnew;
        }
    }
}

/// How the integrator's `He a_int = M qacc` was solved in the last analytic transition.
pub(crate) enum HeSolve {
    /// `He = M` (Euler without implicit damping).
    Mass,
    /// `He = M + h diag(s)` factored in `Lin::he`, `Lin::hei` (eulerdamp).
    Damped,
    /// `He = M − h qDeriv` LU-factored (implicit, implicitfast).
    Lu(nalgebra::LU<f64, nalgebra::Dyn, nalgebra::Dyn>),
}

/// See [`Lin::step`].
pub(crate) struct StepLin {
    pub(crate) aint: Vec<f64>,
    pub(crate) vnew: Vec<f64>,
    pub(crate) he: HeSolve,
}

/// The row scratch of `crate::constraint::constraint_hessian_force_into`: `jar`, the rows'
/// states and the cones' Hessians.
#[derive(Default)]
pub(crate) struct HessianScratch {
    pub(crate) jar: Vec<f64>,
    pub(crate) state: Vec<moreau::data::ConstraintState>,
    pub(crate) ch: Vec<f64>,
}
