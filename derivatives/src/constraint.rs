//! The constraint force's local derivative: the dense constraint Jacobian `J` and the
//! Hessian `H[s] = −∂efc_force/∂jar` of the convex constraint cost at `jar = J qacc − aref`
//! (Computation "Reduced primal problem"), block-diagonal: `D` on rows in the quadratic zone,
//! the cone's Hessian on elliptic contacts in the cone zone.

#![allow(clippy::needless_range_loop)]

use moreau::data::{ConstraintState, ConstraintType};
use moreau::model::Model;
use moreau::pipeline::{efc_jar, evaluate, Rows, CONE_H};

use crate::work::HessianScratch;
use moreau::Data;
use nalgebra::DMatrix;

/// Dense constraint Jacobian `J` (`nefc × nv`).
pub fn efc_jacobian(m: &Model, d: &Data<f64>) -> DMatrix<f64> {
    DMatrix::from_row_slice(d.nefc, m.nv, &d.efc_J_dense(m.nv))
}

/// `H[s]` at `jar = J qacc − aref` (`nefc × nefc`, block-diagonal), i.e. `−∂efc_force/∂jar`.
pub fn constraint_hessian(m: &Model, d: &Data<f64>) -> DMatrix<f64> {
    constraint_hessian_force(m, d).0
}

/// [`constraint_hessian`] and the force `efc_force = −∂s/∂jar` at the same `jar`.
pub fn constraint_hessian_force(m: &Model, d: &Data<f64>) -> (DMatrix<f64>, Vec<f64>) {
    let mut h = DMatrix::zeros(0, 0);
    let mut force = Vec::new();
    constraint_hessian_force_into(m, d, &mut HessianScratch::default(), &mut h, &mut force);
    (h, force)
}

/// [`constraint_hessian_force`] into `h` and `force` with the scratch `s` (no allocation once
/// their sizes are reached).
pub(crate) fn constraint_hessian_force_into(
    m: &Model,
    d: &Data<f64>,
    s: &mut HessianScratch,
    h: &mut DMatrix<f64>,
    force: &mut Vec<f64>,
) {
    let n = d.nefc;
    let nv = m.nv;
    crate::work::zeroed(h, n, n);
    force.clear();
    if n == 0 {
        return;
    }
    let jar = &mut s.jar;
    jar.clear();
    jar.resize(n, 0.0);
    efc_jar(nv, d, jar);
    let rows = Rows::of_data(d);
    force.resize(n, 0.0);
    let state = &mut s.state;
    state.clear();
    state.resize(n, ConstraintState::Satisfied);
    let ch = &mut s.ch;
    ch.clear();
    ch.resize(d.efc_cone.len() * CONE_H, 0.0);
    evaluate(&rows, jar, force, state, Some(ch));
    let mut i = 0;
    let mut ci = 0;
    while i < n {
        if d.efc_type[i] == ConstraintType::ContactElliptic {
            while d.efc_cone[ci].adr != i {
                ci += 1;
            }
            let dim = d.efc_cone[ci].dim;
            match state[i] {
                ConstraintState::Quadratic => {
                    for k in 0..dim {
                        h[(i + k, i + k)] = d.efc_D[i + k];
                    }
                }
                ConstraintState::Cone => {
                    for a in 0..dim {
                        for b in 0..dim {
                            h[(i + a, i + b)] = ch[ci * CONE_H + a * dim + b];
                        }
                    }
                }
                _ => {}
            }
            i += dim;
        } else {
            if state[i] == ConstraintState::Quadratic {
                h[(i, i)] = d.efc_D[i];
            }
            i += 1;
        }
    }
}
