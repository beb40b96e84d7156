//! The constraint force's local derivative: the dense constraint Jacobian `J` and the
//! Hessian `H[s] = −∂efc_force/∂jar` of the convex constraint cost at `jar = J qacc − aref`
//! (Computation "Reduced primal problem"), block-diagonal: `D` on rows in the quadratic zone,
//! the cone's Hessian on elliptic contacts in the cone zone.

#![allow(clippy::needless_range_loop)]

use moreau::data::{ConstraintState, ConstraintType};
use moreau::model::Model;
use moreau::pipeline::{efc_jar, evaluate, Rows, CONE_H};
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
    let n = d.nefc;
    let nv = m.nv;
    let mut h = DMatrix::zeros(n, n);
    if n == 0 {
        return (h, Vec::new());
    }
    let mut jar = vec![0.0; n];
    efc_jar(nv, d, &mut jar);
    let rows = Rows::of_data(d);
    let mut force = vec![0.0; n];
    let mut state = vec![ConstraintState::Satisfied; n];
    let mut ch = vec![0.0; d.efc_cone.len() * CONE_H];
    evaluate(&rows, &jar, &mut force, &mut state, Some(&mut ch));
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
    (h, force)
}
