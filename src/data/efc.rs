//! Constraint-row types of [`Data`](super::Data)'s `efc_*` arrays (`mjtConstraint`,
//! `mjtConstraintState`) and the per-contact cone table.

use crate::model::{JacobianType, Model};

/// `jacobian="auto"` switches to sparse at this many dofs (`mj_isSparse`: `nv >= 60`; checked
/// with the oracle at nv = 59, 60, 61; docs/mujoco-behaviour.md#defaults).
pub const AUTO_SPARSE_NV: usize = 60;

/// MuJoCo's `mj_isSparse`: whether `efc_J` is stored sparse.
pub fn is_sparse(m: &Model) -> bool {
    match m.opt.jacobian {
        JacobianType::Dense => false,
        JacobianType::Sparse => true,
        JacobianType::Auto => m.nv >= AUTO_SPARSE_NV,
    }
}

/// Constraint row type (`mjtConstraint`, MuJoCo's enum values).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ConstraintType {
    Equality = 0,
    FrictionDof = 1,
    FrictionTendon = 2,
    LimitJoint = 3,
    LimitTendon = 4,
    ContactFrictionless = 5,
    ContactPyramidal = 6,
    ContactElliptic = 7,
}

impl ConstraintType {
    /// From MuJoCo's integer value.
    pub fn from_i32(v: i32) -> Option<Self> {
        use ConstraintType::*;
        Some(match v {
            0 => Equality,
            1 => FrictionDof,
            2 => FrictionTendon,
            3 => LimitJoint,
            4 => LimitTendon,
            5 => ContactFrictionless,
            6 => ContactPyramidal,
            7 => ContactElliptic,
            _ => return None,
        })
    }
    /// Friction-loss row (dof or tendon).
    pub fn is_friction(self) -> bool {
        matches!(
            self,
            ConstraintType::FrictionDof | ConstraintType::FrictionTendon
        )
    }
    /// Contact row of any kind.
    pub fn is_contact(self) -> bool {
        matches!(
            self,
            ConstraintType::ContactFrictionless
                | ConstraintType::ContactPyramidal
                | ConstraintType::ContactElliptic
        )
    }
}

/// Row state after evaluating s (`mjtConstraintState`, MuJoCo's enum values;
/// docs/mujoco-behaviour.md#cost).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum ConstraintState {
    #[default]
    Satisfied = 0,
    Quadratic = 1,
    LinearNeg = 2,
    LinearPos = 3,
    Cone = 4,
}

impl ConstraintState {
    /// From MuJoCo's integer value.
    pub fn from_i32(v: i32) -> Option<Self> {
        use ConstraintState::*;
        Some(match v {
            0 => Satisfied,
            1 => Quadratic,
            2 => LinearNeg,
            3 => LinearPos,
            4 => Cone,
            _ => return None,
        })
    }
}

/// Per-contact side table entry (one per contact that has efc rows).
///
/// `friction` are the contact's 5 un-scaled coefficients (tangent, tangent, torsion, roll, roll),
/// `mu = friction[0] / sqrt(impratio)` is set by `constraint::params::compute`
/// (docs/mujoco-behaviour.md#parameters).
#[derive(Clone, Copy, Debug)]
pub struct EfcCone<T> {
    /// First efc row of the contact.
    pub adr: usize,
    /// Number of efc rows (1, dim, or 2(dim-1)).
    pub nrow: usize,
    /// Contact dimensionality (condim).
    pub dim: usize,
    pub friction: [T; 5],
    pub mu: T,
    /// `solreffriction` of the contact; (0, 0) means "use solref".
    pub solreffriction: [T; 2],
}

/// Size of one cone-Hessian block (6x6, row-major, the top-left dim x dim used).
pub const CONE_H: usize = 36;
