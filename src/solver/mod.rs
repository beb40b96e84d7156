//! Constraint solvers (seed 000, "Algorithms"): Newton and CG on the reduced primal problem,
//! PGS on the dual (mujoco-facts §3, §4).
//!
//! Input: dense M (built from the tree-sparse `qM`), `qfrc_smooth`, `qacc_smooth`,
//! `qacc_warmstart` and the efc arrays with `efc_D`, `efc_R`, `efc_aref`, `efc_b` computed by
//! [`crate::constraint::params`]. Output: `qacc`, `efc_force`, `efc_state`, `qfrc_constraint`
//! (= Jᵀ efc_force), `solver`, `solver_niter`. Dense algebra throughout; the dense helpers here
//! are stand-ins for the sparse factorization of the smooth pipeline.

pub mod cg;
pub mod dense;
pub mod hard;
pub mod ncp;
pub mod newton;
pub mod pgs;
mod primal;
pub mod raisim;

use crate::constraint::cost::CONE_H;
use crate::constraint::ConstraintState;
use crate::data::{Data, Scalar};
use crate::model::{Model, SolverType};

/// Solver work space, kept in `Data` so that solving allocates nothing after the first call at a
/// given problem size.
#[derive(Clone, Debug)]
pub struct SolverScratch<T> {
    /// Dense M, its Cholesky factor, the Newton Hessian (factored in place).
    pub M: Vec<T>,
    pub Mchol: Vec<T>,
    pub H: Vec<T>,
    /// nv vectors.
    pub Ma: Vec<T>,
    pub grad: Vec<T>,
    pub Mgrad: Vec<T>,
    pub search: Vec<T>,
    pub Ms: Vec<T>,
    pub Mgrad_old: Vec<T>,
    pub grad_old: Vec<T>,
    pub tmp: Vec<T>,
    /// nefc vectors.
    pub jar: Vec<T>,
    pub jv: Vec<T>,
    pub ftmp: Vec<T>,
    pub state_old: Vec<ConstraintState>,
    pub stmp: Vec<ConstraintState>,
    /// Cone Hessians, `CONE_H` per efc_cone entry.
    pub cone_H: Vec<T>,
    /// PGS: A + R (nefc × nefc) and M⁻¹Jᵀ (nv × nefc).
    pub AR: Vec<T>,
    pub MinvJT: Vec<T>,
}

impl<T> Default for SolverScratch<T> {
    fn default() -> Self {
        SolverScratch {
            M: Vec::new(),
            Mchol: Vec::new(),
            H: Vec::new(),
            Ma: Vec::new(),
            grad: Vec::new(),
            Mgrad: Vec::new(),
            search: Vec::new(),
            Ms: Vec::new(),
            Mgrad_old: Vec::new(),
            grad_old: Vec::new(),
            tmp: Vec::new(),
            jar: Vec::new(),
            jv: Vec::new(),
            ftmp: Vec::new(),
            state_old: Vec::new(),
            stmp: Vec::new(),
            cone_H: Vec::new(),
            AR: Vec::new(),
            MinvJT: Vec::new(),
        }
    }
}

impl<T: Scalar> SolverScratch<T> {
    /// Work space for `nv` dofs (nefc-sized parts start empty).
    pub fn new(nv: usize) -> Self {
        let z = T::zero();
        let v = |n: usize| vec![z; n];
        SolverScratch {
            M: v(nv * nv),
            Mchol: v(nv * nv),
            H: v(nv * nv),
            Ma: v(nv),
            grad: v(nv),
            Mgrad: v(nv),
            search: v(nv),
            Ms: v(nv),
            Mgrad_old: v(nv),
            grad_old: v(nv),
            tmp: v(nv),
            ..Default::default()
        }
    }

    /// Sizes the per-row parts for `nefc` rows and `ncone` contacts.
    pub fn resize(&mut self, nefc: usize, ncone: usize) {
        let z = T::zero();
        self.jar.resize(nefc, z);
        self.jv.resize(nefc, z);
        self.ftmp.resize(nefc, z);
        self.state_old.resize(nefc, ConstraintState::Satisfied);
        self.stmp.resize(nefc, ConstraintState::Satisfied);
        self.cone_H.resize(ncone * CONE_H, z);
    }
}

/// Solves for the constrained acceleration (mj_fwdConstraint's solver part), dispatching on
/// `m.opt.solver`. With no rows: `qacc = qacc_smooth`, zero iterations.
pub fn solve<T: Scalar>(m: &Model, d: &mut Data<T>) {
    let nv = m.nv;
    d.solver.clear();
    d.solver_niter = 0;
    let mut s = std::mem::take(&mut d.solver_scratch);
    s.M.resize(nv * nv, T::zero());
    dense::full_m(m, &d.qM, &mut s.M);
    if d.nefc == 0 {
        d.qacc.copy_from_slice(&d.qacc_smooth);
        d.qfrc_constraint.fill(T::zero());
        d.solver_scratch = s;
        return;
    }
    s.Mchol.copy_from_slice(&s.M);
    dense::chol_factor(&mut s.Mchol, nv);
    match m.opt.solver {
        SolverType::Newton => primal::solve(m, d, &mut s, true),
        SolverType::Cg => primal::solve(m, d, &mut s, false),
        SolverType::Pgs => pgs::solve(m, d, &mut s),
    }
    // qfrc_constraint = J^T f
    dense::mul_jt(&d.efc_J, &d.efc_force, d.nefc, nv, &mut d.qfrc_constraint);
    d.solver_scratch = s;
}

/// Real part of a scalar, for statistics.
pub(crate) fn re<T: Scalar>(x: T) -> f64 {
    x.to_subset().unwrap_or(f64::NAN)
}
